//! The statistics every report uses, in one place: which samples a figure is computed from,
//! the interval of a median, and the ratio of two medians with its interval and verdict.
//!
//! `run`, `show`, `compare` and every table (summary, side by side, spread) call these
//! functions, so a ratio printed by one command is the ratio printed by every other. The
//! settings (confidence, noise threshold, bootstrap seed and the methods' names) are recorded
//! in the run's manifest, so a stored run's verdicts can be recomputed exactly.

use crate::model::op::{compared, decode, new_histogram, OpResult};
use crate::model::record::TrialRecord;
use std::collections::HashMap;

pub use crate::model::metric::{Metric, Statistics, DEFAULT_NOISE};

/// One measured trial's figure for `operation` (`all`: the whole trial), with its position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The trial's `seq` (its position in the run, in execution order).
    pub seq: u64,
    pub value: f64,
}

/// Each trial's operation results by name, built once for a report of many operation types:
/// a figure of one type then finds its result in a trial by one lookup, where a scan of the
/// trial's types per figure made a report quadratic in them (a script of 20,000 statements
/// has 20,000 types: its summary took 38 s, issue 45). `all` and a cast's `ROLE:all` count
/// many types and are still scanned: a run has one and a handful of them.
///
/// A trial is known by its address, so the index answers for the trials it was built over
/// (borrowed for its life); any other trial is scanned, with the same answer.
#[derive(Debug, Default)]
pub struct OpIndex<'a> {
    by_trial: HashMap<usize, HashMap<&'a str, usize>>,
}

fn address(t: &TrialRecord) -> usize {
    std::ptr::from_ref(t) as usize
}

impl<'a> OpIndex<'a> {
    /// The index of `trials`' results.
    pub fn of(trials: &'a [TrialRecord]) -> OpIndex<'a> {
        let by_trial = trials
            .iter()
            .map(|t| {
                let mut names = HashMap::with_capacity(t.ops.len());
                for (i, o) in t.ops.iter().enumerate() {
                    // The first of a name, as a scan finds it.
                    names.entry(o.name.as_str()).or_insert(i);
                }
                (address(t), names)
            })
            .collect();
        OpIndex { by_trial }
    }

    /// `t`'s results that count in `operation` ([`OpResult::counts_in`]).
    pub fn counting<'t, 'o>(&self, t: &'t TrialRecord, operation: &'o str) -> Counting<'t, 'o> {
        let whole = operation == "all" || crate::model::cast::role_total(operation).is_some();
        match self.by_trial.get(&address(t)) {
            Some(names) if !whole => {
                compared();
                Counting::One(names.get(operation).map(|&i| &t.ops[i]))
            }
            _ => Counting::Scan(t.ops.iter(), operation),
        }
    }
}

/// The results of one trial that count in an operation: the one its name found, or a scan.
pub enum Counting<'t, 'o> {
    One(Option<&'t OpResult>),
    Scan(std::slice::Iter<'t, OpResult>, &'o str),
}

impl<'t> Iterator for Counting<'t, '_> {
    type Item = &'t OpResult;

    fn next(&mut self) -> Option<&'t OpResult> {
        match self {
            Counting::One(o) => o.take(),
            Counting::Scan(ops, operation) => ops.find(|o| o.counts_in(operation)),
        }
    }
}

/// The figures of configuration `config`'s measured (non-warm-up) trials for `operation`, in
/// run order. Trials in which the operation did not run, or took no time for a rate, give none.
pub fn samples(trials: &[TrialRecord], config: usize, operation: &str, metric: Metric) -> Vec<Sample> {
    samples_in(&OpIndex::default(), trials, config, operation, metric)
}

/// [`samples`], each trial's results found through `index`.
pub fn samples_in(
    index: &OpIndex<'_>,
    trials: &[TrialRecord],
    config: usize,
    operation: &str,
    metric: Metric,
) -> Vec<Sample> {
    trials
        .iter()
        .filter(|t| t.config == config && !t.warmup)
        .filter_map(|t| trial_value_in(index, t, operation, metric).map(|value| Sample { seq: t.seq, value }))
        .collect()
}

/// One trial's figure for `operation` (`all`: the whole trial) in `metric`: its time or rate;
/// a latency percentile of the trial's own histogram (`None` when nothing was timed); its
/// failure rate in percent (`None` when nothing was attempted).
pub fn trial_value(t: &TrialRecord, operation: &str, metric: Metric) -> Option<f64> {
    trial_value_in(&OpIndex::default(), t, operation, metric)
}

/// [`trial_value`], the trial's results found through `index`.
pub fn trial_value_in(index: &OpIndex<'_>, t: &TrialRecord, operation: &str, metric: Metric) -> Option<f64> {
    if let Some(q) = metric.quantile() {
        return trial_percentile_ms(index, t, operation, q);
    }
    if metric == Metric::Failures {
        return failure_pct(index.counting(t, operation));
    }
    if metric == Metric::Instructions {
        return instructions_per_op(index, t, operation);
    }
    if operation == "all" {
        metric.value(t.total_ops, t.measured_ns)
    } else if crate::model::cast::role_total(operation).is_some() {
        // A cast's roles run over the whole measured interval.
        let ops = index.counting(t, operation).map(|o| o.ops).sum();
        metric.value(ops, t.measured_ns)
    } else {
        let o = index.counting(t, operation).next()?;
        metric.value(o.ops, o.elapsed_ns)
    }
}

/// Instructions per operation of `operation` in one trial (`all`: the trial's over its
/// operations); `None` where instructions were not counted or nothing ran.
fn instructions_per_op(index: &OpIndex<'_>, t: &TrialRecord, operation: &str) -> Option<f64> {
    let (instructions, ops) = if operation == "all" {
        (t.instructions?, t.total_ops)
    } else {
        index
            .counting(t, operation)
            .filter(|o| o.part_of.is_none())
            .try_fold((0u64, 0u64), |(n, ops), o| Some((n + o.instructions?, ops + o.ops)))?
    };
    (ops > 0).then(|| instructions as f64 / ops as f64)
}

/// Transactions that failed (gave up on a lock or another tolerated error, or skipped by
/// `--latency-limit`) over those attempted (completed, failed and skipped), in percent; `late`
/// ones completed and are not failures. `None` when nothing was attempted.
pub fn failure_pct<'a>(ops: impl Iterator<Item = &'a OpResult>) -> Option<f64> {
    let (failed, attempted) = ops.fold((0u64, 0u64), |(f, a), o| {
        (f + o.failed + o.skipped, a + o.ops + o.failed + o.skipped)
    });
    (attempted > 0).then(|| 100.0 * failed as f64 / attempted as f64)
}

/// The latency at quantile `q` of `operation` in one trial, milliseconds: the operation's own
/// histogram, or for `all` the trial's whole operation types' histograms merged.
fn trial_percentile_ms(index: &OpIndex<'_>, t: &TrialRecord, operation: &str, q: f64) -> Option<f64> {
    let hist = merge(index.counting(t, operation).filter_map(|o| decode(&o.histogram)))?;
    (!hist.is_empty()).then(|| hist.value_at_quantile(q) as f64 / 1e6)
}

/// `hists` merged into a fresh histogram; one alone as it is (an operation type's own: no
/// empty histogram of every bucket made and filled per figure); none: `None`.
pub fn merge(mut hists: impl Iterator<Item = hdrhistogram::Histogram<u64>>) -> Option<hdrhistogram::Histogram<u64>> {
    let first = hists.next()?;
    let Some(second) = hists.next() else {
        return Some(first);
    };
    let mut hist = new_histogram();
    for h in [first, second].into_iter().chain(hists) {
        let _ = hist.add(&h);
    }
    Some(hist)
}

/// Just the values of [`samples`].
pub fn values(trials: &[TrialRecord], config: usize, operation: &str, metric: Metric) -> Vec<f64> {
    values_in(&OpIndex::default(), trials, config, operation, metric)
}

/// Just the values of [`samples_in`].
pub fn values_in(
    index: &OpIndex<'_>,
    trials: &[TrialRecord],
    config: usize,
    operation: &str,
    metric: Metric,
) -> Vec<f64> {
    samples_in(index, trials, config, operation, metric)
        .iter()
        .map(|s| s.value)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use litebench_stats::Better;

    #[test]
    fn metric_units_and_direction() {
        assert_eq!(Metric::Time.value(10, 2_000_000), Some(2.0));
        assert_eq!(Metric::Tps.value(10, 1_000_000_000), Some(10.0));
        assert_eq!(Metric::Tps.value(10, 0), None);
        assert_eq!(Metric::Tps.better(), Better::Higher);
        assert_eq!(Metric::Time.better(), Better::Lower);
    }

    /// Each trial's own p99 from its histogram (`all`: its whole operation types merged, a
    /// statement part left out), and its failure rate: failed and skipped over attempted.
    #[test]
    fn latency_percentiles_and_failure_rates_per_trial() {
        use crate::model::op::encode;
        let op = |name: &str, ms: &[u64], failed: u64, skipped: u64, part_of: Option<&str>| {
            let mut h = new_histogram();
            for m in ms {
                h.record(m * 1_000_000).unwrap();
            }
            OpResult {
                name: name.into(),
                ops: ms.len() as u64,
                failed,
                busy: failed,
                skipped,
                histogram: encode(&h),
                part_of: part_of.map(String::from),
                ..Default::default()
            }
        };
        let fast: Vec<u64> = vec![1; 99];
        let t = TrialRecord {
            ops: vec![
                op("read", &fast, 0, 0, None),
                op("write", &[500], 3, 1, None),
                op("write:2 COMMIT", &[900], 0, 0, Some("write")),
            ],
            ..Default::default()
        };
        let p99 = trial_value(&t, "all", Metric::P99).unwrap();
        assert!((0.99..1.01).contains(&p99), "{p99}");
        let p999 = trial_value(&t, "all", Metric::P999).unwrap();
        assert!((499.0..501.0).contains(&p999), "{p999}");
        assert!((899.0..901.0).contains(&trial_value(&t, "write:2 COMMIT", Metric::P50).unwrap()));
        // 4 of 104 attempted failed (the part is not counted again).
        let f = trial_value(&t, "all", Metric::Failures).unwrap();
        assert!((f - 400.0 / 104.0).abs() < 1e-9, "{f}");
        assert_eq!(trial_value(&t, "read", Metric::Failures), Some(0.0));
        assert_eq!(trial_value(&t, "none", Metric::Failures), None);
        assert_eq!(trial_value(&t, "none", Metric::P99), None);
        assert_eq!(Metric::P999.better(), Better::Lower);
        assert_eq!(Metric::Failures.better(), Better::Lower);
    }
}
