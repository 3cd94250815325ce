//! The specification's expected success rates, and the check of observed ones against them.
//!
//! A transaction is "unsuccessful" when the row it looks for does not exist or its insert
//! violates a key; the population rules fix how often that happens. Observed rates far from
//! these expectations mean the population or a transaction does not follow the specification.

use super::mix::TXNS;
use crate::model::record::{Manifest, TrialRecord};

/// Expected success rate of each transaction, in [`TXNS`] order, as a range `(low, high)`.
///
/// - GET_SUBSCRIBER_DATA, UPDATE_LOCATION: every subscriber exists: 100%.
/// - GET_ACCESS_DATA, UPDATE_SUBSCRIBER_DATA: 1-4 of the 4 types exist, 2.5 on average: 62.5%.
/// - INSERT_CALL_FORWARDING, DELETE_CALL_FORWARDING: the special facility exists (62.5%) and
///   the start time is free / taken (1.5 of 3 on average: 50%): 31.25%. Inserts and deletes
///   hit each slot equally often, so a slot stays taken half of the time: this holds for the
///   whole run.
/// - GET_NEW_DESTINATION: the specification states about 23.9%. Its own rules give 14.79% on
///   the freshly populated database ([`get_new_destination_populated`]) and 20.42% once inserts
///   and deletes have replaced the forwarding rows the transactions reach
///   ([`get_new_destination_churned`]: inserted rows have `end_time` 1..24, not
///   `start_time + 1..8`); with the skewed keys a run moves from the first towards the second
///   within seconds. The check accepts that range plus its tolerance; the stated 23.9% follows
///   from neither state (see docs/workloads.md).
pub fn expected(i: usize) -> (f64, f64) {
    match i {
        0 | 4 => (1.0, 1.0),
        1 => (get_new_destination_populated(), get_new_destination_churned()),
        2 | 3 => (0.625, 0.625),
        _ => (0.3125, 0.3125),
    }
}

/// What the specification's text states for each transaction, in [`TXNS`] order.
pub const SPEC_STATED: [f64; 7] = [1.0, 0.239, 0.625, 0.625, 1.0, 0.3125, 0.3125];

/// Smallest tolerance, as a fraction (3 percentage points).
pub const MIN_TOLERANCE: f64 = 0.03;

/// Standard errors allowed.
pub const STANDARD_ERRORS: f64 = 4.0;

/// P(a special facility of the drawn type exists and is active): 2.5 of 4 types, 85% active.
const ACTIVE_FACILITY: f64 = 0.625 * 0.85;

/// GET_NEW_DESTINATION's success rate given P(a forwarding row in slot `s` matches `st`, `et`):
/// `st` uniform over {0, 8, 16}, `et` uniform over 1..24, slot occupancy from `slots`, a
/// function of the occupied-slot mask giving its probability.
fn get_new_destination(slots: impl Fn(u32) -> f64, matches: impl Fn(u32, u32, u32) -> f64) -> f64 {
    let starts = [0u32, 8, 16];
    let mut p = 0.0;
    for mask in 0u32..8 {
        let p_mask = slots(mask);
        for st in starts {
            for et in 1..=24u32 {
                // P(no row matches) = product over occupied slots with start <= st.
                let mut p_none = 1.0;
                for (i, &s) in starts.iter().enumerate() {
                    if mask & (1 << i) != 0 && s <= st {
                        p_none *= 1.0 - matches(s, st, et);
                    }
                }
                p += p_mask / 3.0 / 24.0 * (1.0 - p_none);
            }
        }
    }
    ACTIVE_FACILITY * p
}

/// GET_NEW_DESTINATION's success rate on the populated database: 0-3 forwarding rows per
/// facility (each count 1/4, each subset of {0, 8, 16} of that size equally likely), `end_time`
/// = `start_time` + uniform 1..8. 14.79%.
pub fn get_new_destination_populated() -> f64 {
    let slots = |mask: u32| {
        let subsets = if matches!(mask.count_ones(), 0 | 3) { 1.0 } else { 3.0 };
        0.25 / subsets
    };
    // A row (s, s + d) matches when et < s + d, d uniform 1..8.
    let matches = |s: u32, _st: u32, et: u32| (1..=8u32).filter(|d| et < s + d).count() as f64 / 8.0;
    get_new_destination(slots, matches)
}

/// GET_NEW_DESTINATION's success rate once inserts and deletes have turned the forwarding rows
/// over: each slot taken with probability 1/2 on its own, `end_time` uniform 1..24 as
/// INSERT_CALL_FORWARDING writes it. 20.42%.
pub fn get_new_destination_churned() -> f64 {
    let slots = |_mask: u32| 1.0 / 8.0;
    let matches = |_s: u32, _st: u32, et: u32| (1..=24u32).filter(|e| et < *e).count() as f64 / 24.0;
    get_new_destination(slots, matches)
}

/// Observed counts of one transaction type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observed<'a> {
    pub name: &'a str,
    /// Completed transactions.
    pub ops: u64,
    /// Successful ones.
    pub succeeded: u64,
}

/// Allowed deviation from expectation `p` for `n` observed transactions on `subscribers`
/// subscribers: 4 standard errors of a binomial proportion, widened by the spread a finite
/// population adds (a small population's own averages differ from the rules' expectations),
/// and never below 3 percentage points.
pub fn tolerance(p: f64, n: u64, subscribers: u64) -> f64 {
    let var = p * (1.0 - p);
    let se = (var / n.max(1) as f64 + var / subscribers.max(1) as f64).sqrt();
    (STANDARD_ERRORS * se).max(MIN_TOLERANCE)
}

/// Whether transaction type `i` (in [`TXNS`] order) succeeded as often as the specification's
/// rules expect, within [`tolerance`] (a type expected to succeed always: every time).
pub fn as_expected(i: usize, o: &Observed<'_>, subscribers: u64) -> bool {
    let (low, high) = expected(i);
    if o.ops == 0 {
        return true;
    }
    let rate = o.succeeded as f64 / o.ops as f64;
    if low >= 1.0 {
        o.succeeded == o.ops
    } else {
        rate >= low - tolerance(low, o.ops, subscribers) && rate <= high + tolerance(high, o.ops, subscribers)
    }
}

/// Warnings for the transaction types whose observed success rate is off. A type expected to
/// succeed always must succeed always. `call_forwarding_balanced` is false when the mix inserts
/// and deletes call forwardings at different rates: the table then drifts away from its
/// populated state and the call-forwarding expectations (GET_NEW_DESTINATION, INSERT_ and
/// DELETE_CALL_FORWARDING) no longer apply, so they are not checked.
pub fn check(observed: &[Observed<'_>], subscribers: u64, call_forwarding_balanced: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    for o in observed {
        let Some(i) = TXNS.iter().position(|t| *t == o.name) else {
            continue;
        };
        if o.ops == 0 || (!call_forwarding_balanced && matches!(i, 1 | 5 | 6)) {
            continue;
        }
        let (low, high) = expected(i);
        let rate = o.succeeded as f64 / o.ops as f64;
        if !as_expected(i, o, subscribers) {
            let expect = if low == high {
                format!("{:.2}%", low * 100.0)
            } else {
                format!("{:.2}% to {:.2}%", low * 100.0, high * 100.0)
            };
            let allowed = if low >= 1.0 {
                "every one must succeed".to_string()
            } else {
                format!(
                    "tolerance ±{:.1} points for {} transactions on {} subscribers",
                    tolerance(low, o.ops, subscribers).max(tolerance(high, o.ops, subscribers)) * 100.0,
                    o.ops,
                    subscribers
                )
            };
            warnings.push(format!(
                "{}: {:.2}% of {} transactions succeeded, the specification's rules expect {expect} ({allowed}); the population or the transaction does not behave as the TATP specification says",
                o.name,
                rate * 100.0,
                o.ops,
            ));
        }
    }
    warnings
}

/// The warnings a report of a tatp run shows, per configuration, from its measured trials:
/// success rates off the specification's expectations, and transactions rolled back on lock
/// contention (which are counted, not in the throughput).
pub fn report_warnings(manifest: &Manifest, trials: &[TrialRecord]) -> Vec<String> {
    let subscribers = manifest.params.count("subscribers").max(1);
    let balanced = super::call_forwarding_balanced(&manifest.params);
    let mut out = Vec::new();
    for cfg in &manifest.configs {
        let mut totals: Vec<(&str, u64, u64, u64)> = Vec::new();
        for t in trials.iter().filter(|t| t.config == cfg.index && !t.warmup) {
            for o in &t.ops {
                match totals.iter_mut().find(|x| x.0 == o.name) {
                    Some(x) => {
                        x.1 += o.ops;
                        x.2 += o.succeeded();
                        x.3 += o.busy;
                    }
                    None => totals.push((&o.name, o.ops, o.succeeded(), o.busy)),
                }
            }
        }
        let observed: Vec<Observed<'_>> = totals
            .iter()
            .map(|&(name, ops, succeeded, _)| Observed { name, ops, succeeded })
            .collect();
        for w in check(&observed, subscribers, balanced) {
            out.push(format!("#{} {}: {w}", cfg.index, cfg.label));
        }
        let busy: u64 = totals.iter().map(|x| x.3).sum();
        if busy > 0 {
            let per_type: Vec<String> = totals
                .iter()
                .filter(|x| x.3 > 0)
                .map(|x| format!("{} {}", x.0, x.3))
                .collect();
            out.push(format!(
                "#{} {}: {busy} transactions were rolled back on lock contention (busy: {}); they are counted apart and not in the throughput; with SQLite, --knob busy_timeout=MS makes a client wait for the lock instead",
                cfg.index,
                cfg.label,
                per_type.join(", ")
            ));
        }
    }
    out
}

/// The report section of a TATP run: each transaction's observed success rate beside the
/// specification's, with a verdict.
pub fn section(m: &Manifest, trials: &[TrialRecord]) -> crate::workload::ReportSection {
    let subscribers = m.params.count("subscribers").max(1);
    let balanced = super::call_forwarding_balanced(&m.params);
    let mut rows = Vec::new();
    for cfg in &m.configs {
        for (i, name) in super::mix::TXNS.iter().enumerate() {
            let (mut ops, mut ok) = (0u64, 0u64);
            for t in trials.iter().filter(|t| t.config == cfg.index && !t.warmup) {
                for o in t.ops.iter().filter(|o| o.name == *name) {
                    ops += o.ops;
                    ok += o.succeeded();
                }
            }
            let (low, high) = expected(i);
            let expected = if low == high {
                format!("{:.2}%", low * 100.0)
            } else {
                format!("{:.2}% to {:.2}%", low * 100.0, high * 100.0)
            };
            let o = Observed {
                name,
                ops,
                succeeded: ok,
            };
            let verdict = if ops == 0 {
                "not run"
            } else if !balanced && matches!(i, 1 | 5 | 6) {
                "not checked (the mix inserts and deletes call forwardings at different rates)"
            } else if as_expected(i, &o, subscribers) {
                "as expected"
            } else {
                "OFF (see warnings)"
            };
            rows.push(vec![
                format!("#{} {}", cfg.index, cfg.label),
                name.to_string(),
                ops.to_string(),
                if ops > 0 {
                    format!("{:.2}%", ok as f64 / ops as f64 * 100.0)
                } else {
                    "-".into()
                },
                expected,
                format!("{:.2}%", SPEC_STATED[i] * 100.0),
                verdict.into(),
            ]);
        }
    }
    crate::workload::ReportSection {
        lead: false,
        title: "TATP success rates against the specification".into(),
        headers: vec![
            "configuration",
            "transaction",
            "completed",
            "succeeded",
            "expected by the rules",
            "specification states",
            "verdict",
        ],
        rows,
    }
}

/// TATP's report: the success rates against the specification's, as warnings and a table.
impl crate::workload::WorkloadReport for super::Tatp {
    fn warnings(&self, m: &Manifest, trials: &[TrialRecord]) -> Vec<String> {
        report_warnings(m, trials)
    }

    fn sections(&self, m: &Manifest, trials: &[TrialRecord]) -> Vec<crate::workload::ReportSection> {
        vec![section(m, trials)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(name: &str, ops: u64, succeeded: u64) -> Observed<'_> {
        Observed { name, ops, succeeded }
    }

    #[test]
    fn derived_get_new_destination_rates() {
        // Exact values, from an independent enumeration with rational arithmetic.
        let populated = get_new_destination_populated();
        assert!((populated - 0.147_876_880_787_037).abs() < 1e-12, "{populated}");
        let churned = get_new_destination_churned();
        assert!((churned - 0.204_249_817_648_051_7).abs() < 1e-12, "{churned}");
        assert_eq!(expected(1), (populated, churned));
        assert_eq!(expected(0), (1.0, 1.0));
        assert_eq!(expected(5), (0.3125, 0.3125));
    }

    #[test]
    fn rates_at_expectation_pass() {
        let o = [
            obs("GET_SUBSCRIBER_DATA", 35_000, 35_000),
            obs("GET_NEW_DESTINATION", 10_000, 1_800),
            obs("GET_ACCESS_DATA", 35_000, 21_900),
            obs("UPDATE_SUBSCRIBER_DATA", 2_000, 1_240),
            obs("UPDATE_LOCATION", 14_000, 14_000),
            obs("INSERT_CALL_FORWARDING", 2_000, 630),
            obs("DELETE_CALL_FORWARDING", 2_000, 620),
        ];
        assert_eq!(check(&o, 1_000_000, true), Vec::<String>::new());
    }

    #[test]
    fn off_rates_warn_naming_the_transaction() {
        let w = check(&[obs("GET_ACCESS_DATA", 100_000, 50_000)], 1_000_000, true);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("GET_ACCESS_DATA: 50.00% of 100000 transactions succeeded"),
            "{}",
            w[0]
        );
        assert!(w[0].contains("expect 62.50%"), "{}", w[0]);
        // 100% transactions must always succeed.
        let w = check(&[obs("UPDATE_LOCATION", 1000, 999)], 1000, true);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("every one must succeed"));
        // GET_NEW_DESTINATION: anywhere from the populated to the churned rate (within the
        // 3-point floor); 10% and 30% are not.
        for ok in [12_000, 14_790, 18_000, 20_420, 23_000] {
            assert!(
                check(&[obs("GET_NEW_DESTINATION", 100_000, ok)], 1_000_000, true).is_empty(),
                "{ok}"
            );
        }
        for bad in [10_000, 30_000] {
            let w = check(&[obs("GET_NEW_DESTINATION", 100_000, bad)], 1_000_000, true);
            assert_eq!(w.len(), 1, "{bad}");
            assert!(w[0].contains("expect 14.79% to 20.42%"), "{}", w[0]);
        }
    }

    #[test]
    fn tolerance_follows_sample_size() {
        // Small samples: wide; large samples on a large population: the 3-point floor.
        assert!(tolerance(0.625, 50, 1_000_000) > 0.2);
        assert_eq!(tolerance(0.625, 10_000_000, 10_000_000), MIN_TOLERANCE);
        // 55% of 200 GET_ACCESS_DATA is within noise; 55% of 200,000 is not.
        assert!(check(&[obs("GET_ACCESS_DATA", 200, 110)], 1_000_000, true).is_empty());
        assert_eq!(
            check(&[obs("GET_ACCESS_DATA", 200_000, 110_000)], 1_000_000, true).len(),
            1
        );
        // A tiny population widens the tolerance.
        assert!(tolerance(0.625, 1_000_000, 10) > 0.5);
    }

    #[test]
    fn unbalanced_call_forwarding_and_unused_types_are_not_checked() {
        let o = [
            obs("INSERT_CALL_FORWARDING", 100_000, 1_000),
            obs("GET_ACCESS_DATA", 0, 0),
            obs("other", 5, 0),
        ];
        assert!(check(&o, 1000, false).is_empty());
        assert_eq!(check(&o, 1000, true).len(), 1);
    }
}
