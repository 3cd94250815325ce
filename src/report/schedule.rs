//! An open loop's schedule against what its trials achieved.
//!
//! Under `--rate` a trial's rate is its transactions over its measured span, and both come
//! from the seeded schedule: stopping on a count, the span runs until the last client has run
//! its share, and the longest of the clients' Poisson schedules differs from round to round
//! (and is longer than the count takes at the rate); stopping on a time, the count is Poisson.
//! Every configuration of a round runs the same schedule, so their rates move together, which
//! the coefficient of variation reads as a noisy machine. This module says what the schedule
//! did (the header line: target, achieved, span, stop rule) and, where it is the cause, names
//! it in the CV warning.

use super::number::{num, pct};
use super::summary::SummaryRow;
use super::RunWorkload;
use crate::model::load::{rate_text, Arrival};
use crate::model::record::{Manifest, TrialRecord};
use crate::model::stop_rule::StopOn;
use crate::workload::load::Budget;

/// Transactions a trial on time should expect for its Poisson count to vary by 2% (1/sqrt(n)):
/// well under the 5% at which the CV warning fires.
const STEADY_COUNT: f64 = 2500.0;

/// What ended the run's trials: the manifest's rule, or for runs stored before it was
/// recorded, the workload's budget of the stored parameters (never chosen by an open-loop
/// default then).
pub fn stop_of(manifest: &Manifest, workload: RunWorkload) -> Option<StopOn> {
    if let Some(s) = &manifest.stop {
        return Some(s.on.clone());
    }
    let tx = workload.transactions()?;
    let names = tx.stop_params();
    match tx.budget(&manifest.params) {
        Budget::Count(count) => Some(StopOn::Count {
            param: names.map_or("count", |n| n.count).to_string(),
            count,
        }),
        Budget::Time(d) => Some(StopOn::Duration {
            param: names.map_or(tx.time_param(), |n| n.duration).to_string(),
            ms: d.as_millis().min(u128::from(u64::MAX)) as u64,
        }),
        Budget::Streams => None,
    }
}

/// The parameter that holds the workload's trial time (`duration` where it is not known).
fn time_param(workload: RunWorkload) -> &'static str {
    workload.transactions().map_or("duration", |tx| {
        tx.stop_params().map_or(tx.time_param(), |n| n.duration)
    })
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn range(v: &[f64]) -> (f64, f64) {
    v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(*x), hi.max(*x))
    })
}

fn measured(trials: &[TrialRecord]) -> impl Iterator<Item = &TrialRecord> {
    trials.iter().filter(|t| !t.warmup && t.measured_ns > 0)
}

/// `228..247 tx/s`: the configurations' median rates (one where they agree), and whether
/// there were several.
fn achieved(manifest: &Manifest, trials: &[TrialRecord]) -> Option<(String, bool)> {
    let medians: Vec<f64> = manifest
        .configs
        .iter()
        .filter_map(|c| {
            median(
                measured(trials)
                    .filter(|t| t.config == c.index)
                    .map(|t| t.throughput)
                    .collect(),
            )
        })
        .collect();
    let (lo, hi) = range(&medians);
    match medians.len() {
        0 => None,
        n if num(lo) == num(hi) => Some((format!("{} tx/s", num(lo)), n > 1)),
        _ => Some((format!("{}..{} tx/s", num(lo), num(hi)), true)),
    }
}

/// `1.05..1.38 s, median 1.22 s`: the measured trials' spans.
fn spans(trials: &[TrialRecord]) -> Option<String> {
    let s: Vec<f64> = measured(trials).map(|t| t.measured_ns as f64 / 1e9).collect();
    let m = median(s.clone())?;
    let (lo, hi) = range(&s);
    Some(format!("{lo:.2}..{hi:.2} s, median {m:.2} s"))
}

/// The header line of an open loop: `open loop: target 300 tx/s, achieved 228..247 tx/s (the
/// configurations' medians), trials spanning 1.05..1.38 s, median 1.22 s; stops after 300
/// transactions (--param transactions=300, as given)`. None for a closed loop.
pub fn header_line(manifest: &Manifest, workload: RunWorkload, trials: &[TrialRecord]) -> Option<String> {
    let rate = manifest.load.rate?;
    let mut line = format!("open loop: target {} tx/s", rate_text(rate));
    if let Some((a, several)) = achieved(manifest, trials) {
        let whose = if several {
            " (the configurations' medians)"
        } else {
            " (median)"
        };
        line += &format!(", achieved {a}{whose}");
    }
    if let Some(s) = spans(trials) {
        line += &format!(", trials spanning {s}");
    }
    match (&manifest.stop, stop_of(manifest, workload)) {
        (Some(rule), _) => line += &format!("; {}", rule.describe()),
        (None, Some(StopOn::Count { count, .. })) => line += &format!("; stops after {count} transactions"),
        (None, Some(StopOn::Duration { ms, .. })) => {
            line += &format!("; stops after {}", crate::model::load::duration_text(ms * 1_000_000))
        }
        (None, None) => {}
    }
    Some(line)
}

/// The CV warning where an open loop's Poisson schedule, not the machine, explains the spread
/// of the `noisy` rows (`operation == "all"`): one line for them all. None where it does not
/// (a closed loop, uniform arrivals, a trial on time long enough for its count to be steady).
pub fn cv_warning(
    manifest: &Manifest,
    workload: RunWorkload,
    trials: &[TrialRecord],
    noisy: &[&SummaryRow],
) -> Option<String> {
    let rate = manifest.load.rate?;
    if manifest.load.arrival != Arrival::Poisson || noisy.is_empty() {
        return None;
    }
    let configs: Vec<String> = noisy.iter().map(|r| format!("#{}", r.config)).collect();
    let cvs: Vec<f64> = noisy.iter().filter_map(|r| r.throughput.tps_cv).collect();
    let (lo, hi) = range(&cvs);
    let cv = if cvs.is_empty() {
        "-".to_string()
    } else if pct(lo) == pct(hi) {
        pct(lo)
    } else {
        format!("{}-{}", pct(lo), pct(hi))
    };
    let target = rate_text(rate);
    let achieved = achieved(manifest, trials).map_or_else(|| "-".into(), |a| a.0);
    let steady_s = (STEADY_COUNT / rate).ceil().max(1.0);
    let head = format!(
        "{}: throughput CV {cv} exceeds 5%, and the open loop's schedule moved it, not the machine",
        configs.join(", ")
    );
    match stop_of(manifest, workload)? {
        StopOn::Count { param, count } => Some(format!(
            "{head}: stopping after {param}={count}, a trial lasts until the last of {} clients has run its share of the seeded Poisson schedule, and that span differs from round to round ({}, where {count} transactions take {:.2} s at {target} tx/s), so every configuration's rate moves with it: achieved {achieved} against the {target} tx/s target; stop on time (--param {}={steady_s}s), and compare latency and failures",
            manifest.load.clients,
            spans(trials).unwrap_or_else(|| "-".into()),
            count as f64 / rate,
            time_param(workload),
        )),
        StopOn::Duration { param, ms } => {
            // A Poisson count of n varies by 1/sqrt(n): past half the threshold it is the cause.
            let n = rate * ms as f64 / 1000.0;
            let poisson = 1.0 / n.max(1.0).sqrt();
            (poisson >= 0.025).then(|| {
                format!(
                    "{head}: a trial of {} at {target} tx/s expects {} transactions, and a Poisson count that small varies by {} (1/sqrt(n)) from round to round; use a longer --param {param} ({steady_s}s for about 2%), and compare latency and failures",
                    crate::model::load::duration_text(ms * 1_000_000),
                    num(n),
                    pct(poisson)
                )
            })
        }
    }
}

/// The open loop's transactions that were scheduled and never started, over the measured
/// trials, and why: a trial ends at its time (on a count, once it is behind its schedule by the
/// schedule's whole length) and what its schedule had left is skipped, not run late (see
/// `workload::load`); with `--latency-limit` also those already later than the limit. None
/// where nothing was skipped or the run had no rate (a cast's roles' rates included).
pub fn skipped_warning(manifest: &Manifest, trials: &[TrialRecord]) -> Option<String> {
    let open = manifest.configs.iter().any(|c| manifest.load_of(c.index).open())
        || manifest.load.open()
        || manifest
            .load
            .cast
            .as_ref()
            .is_some_and(|c| c.workload_roles().any(|r| r.rate.is_some()));
    if !open {
        return None;
    }
    let measured: Vec<&TrialRecord> = trials.iter().filter(|t| !t.warmup).collect();
    let skipped: u64 = measured
        .iter()
        .flat_map(|t| &t.ops)
        .filter(|o| o.part_of.is_none())
        .map(|o| o.skipped)
        .sum();
    if skipped == 0 {
        return None;
    }
    let limit = manifest
        .configs
        .iter()
        .any(|c| manifest.load_of(c.index).latency_limit_ns.is_some())
        || manifest.load.latency_limit_ns.is_some();
    let why = if limit {
        "later than --latency-limit when their turn came, or not started before the trial ended: the engine fell behind the rate"
    } else {
        "the engine fell behind the rate, and a trial ends at its time rather than running them late"
    };
    Some(format!(
        "{skipped} scheduled transaction{} skipped over {} measured trial{} ({why}); their share of what was attempted is in the failure rate: give a lower --rate to measure the engine below its limit",
        if skipped == 1 { "" } else { "s" },
        measured.len(),
        if measured.len() == 1 { "" } else { "s" },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::params::{ParamValue, Params};
    use crate::model::stop_rule::{ChosenBy, StopRule};
    use crate::report::html::data::tests::{manifest, report, trials};
    use crate::report::warnings::warnings;
    use std::time::Duration;

    /// Two configurations of `script` whose rounds last 10, 11 and 12 ms alike (the schedule's
    /// span moving them together), at a rate, stopping after 300 transactions.
    fn open_loop() -> (Manifest, Vec<TrialRecord>) {
        let mut m = manifest(&[&[("journal_mode", "wal")], &[("journal_mode", "delete")]]);
        m.workload = "script".into();
        m.params = Params(
            [
                ("transactions".to_string(), ParamValue::Count(300)),
                ("duration".to_string(), ParamValue::Duration(Duration::ZERO)),
            ]
            .into_iter()
            .collect(),
        );
        m.load.rate = Some(300.0);
        m.load.clients = 8;
        let mut t = trials(2, 7, &["read.sql"]);
        for tr in &mut t {
            tr.throughput = tr.total_ops as f64 / (tr.measured_ns as f64 / 1e9);
        }
        (m, t)
    }

    /// Issue 45, item 9: what an open loop could not start is said, with its cause.
    #[test]
    fn skipped_transactions_of_an_open_loop_are_said_with_their_cause() {
        let (mut m, mut t) = open_loop();
        assert_eq!(skipped_warning(&m, &t), None, "nothing skipped");
        for tr in &mut t {
            tr.ops[0].skipped = 5;
        }
        let w = skipped_warning(&m, &t).unwrap();
        let trials = t.iter().filter(|t| !t.warmup).count();
        assert!(
            w.starts_with(&format!(
                "{} scheduled transactions skipped over {trials} measured trials (the engine fell behind the rate",
                5 * trials
            )),
            "{w}"
        );
        let rows = report(&m, &t).summary;
        assert!(
            warnings(&m, RunWorkload::of(&m), &t, &rows, "complete").contains(&w),
            "among the warnings"
        );
        m.load.latency_limit_ns = Some(5_000_000);
        assert!(skipped_warning(&m, &t).unwrap().contains("later than --latency-limit"));
        m.load.rate = None;
        m.load.latency_limit_ns = None;
        assert_eq!(skipped_warning(&m, &t), None, "a closed loop skips nothing");
    }

    fn cv_lines(m: &Manifest, t: &[TrialRecord]) -> Vec<String> {
        let rows = report(m, t).summary;
        assert!(
            rows.iter().any(|r| r.throughput.noisy && r.operation == "all"),
            "the rows are noisy"
        );
        warnings(m, RunWorkload::of(m), t, &rows, "complete")
            .into_iter()
            .filter(|l| l.contains("throughput CV"))
            .collect()
    }

    /// Issue 32, item 6: an open loop stopping on a count was told "the machine was too noisy"
    /// once per configuration; the cause is its schedule, named once, with the spans and the
    /// target beside the achieved rate.
    #[test]
    fn an_open_loop_on_a_count_names_the_schedule_not_the_machine() {
        let (mut m, t) = open_loop();
        let cv = cv_lines(&m, &t);
        assert_eq!(cv.len(), 1, "{cv:?}");
        for part in [
            "#0, #1: throughput CV ",
            "the open loop's schedule moved it, not the machine",
            "stopping after transactions=300, a trial lasts until the last of 8 clients",
            "where 300 transactions take 1.00 s at 300 tx/s",
            "against the 300 tx/s target",
            "stop on time (--param duration=9s)",
        ] {
            assert!(cv[0].contains(part), "{part}: {}", cv[0]);
        }
        // Long enough on time (3,000 transactions expected: 1.8%), the schedule explains no
        // CV over 5%: the machine does.
        m.stop = Some(StopRule {
            on: StopOn::Duration {
                param: "duration".into(),
                ms: 10_000,
            },
            chosen_by: ChosenBy::Param,
        });
        let cv = cv_lines(&m, &t);
        assert_eq!(cv.len(), 2, "{cv:?}");
        assert!(cv.iter().all(|l| l.contains("the machine was too noisy")), "{cv:?}");
        // One second on time: 300 transactions, a Poisson count varying by 5.8%.
        m.stop = Some(StopRule {
            on: StopOn::Duration {
                param: "duration".into(),
                ms: 1000,
            },
            chosen_by: ChosenBy::OpenLoopDefault,
        });
        let cv = cv_lines(&m, &t);
        assert_eq!(cv.len(), 1, "{cv:?}");
        assert!(cv[0].contains("varies by 5.8% (1/sqrt(n))"), "{}", cv[0]);
        // A closed loop: the machine.
        m.load.rate = None;
        let cv = cv_lines(&m, &t);
        assert!(
            cv.len() == 2 && cv.iter().all(|l| l.contains("the machine was too noisy")),
            "{cv:?}"
        );
    }

    /// A workload whose trial time is `measure_time` (tpcc, tatp, blob) was told to lengthen
    /// `--param duration`, a parameter it does not have.
    #[test]
    fn the_poisson_warning_names_the_workloads_own_time_parameter() {
        let (mut m, t) = open_loop();
        m.workload = "tpcc".into();
        m.params = Params(
            [("measure_time".to_string(), ParamValue::Duration(Duration::from_secs(1)))]
                .into_iter()
                .collect(),
        );
        let cv = cv_lines(&m, &t);
        assert_eq!(cv.len(), 1, "{cv:?}");
        assert!(cv[0].contains("use a longer --param measure_time (9s"), "{}", cv[0]);
        assert!(!cv[0].contains("--param duration"), "{}", cv[0]);
    }

    #[test]
    fn the_header_line_puts_the_target_beside_the_achieved_rate_and_the_spans() {
        let (mut m, t) = open_loop();
        let line = header_line(&m, RunWorkload::of(&m), &t).expect("an open loop has one");
        assert!(line.starts_with("open loop: target 300 tx/s, achieved "), "{line}");
        assert!(
            line.contains("(the configurations' medians), trials spanning "),
            "{line}"
        );
        assert!(line.ends_with("; stops after 300 transactions"), "{line}");
        m.load.rate = None;
        assert_eq!(header_line(&m, RunWorkload::of(&m), &t), None);
    }
}
