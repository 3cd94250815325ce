//! The statistics every report uses, in one place: which samples a figure is computed from,
//! the interval of a median, and the ratio of two medians with its interval and verdict.
//!
//! `run`, `show`, `compare` and every table (summary, side by side, spread) call these
//! functions, so a ratio printed by one command is the ratio printed by every other. The
//! settings (confidence, noise threshold, bootstrap seed and the methods' names) are recorded
//! in the run's manifest, so a stored run's verdicts can be recomputed exactly.

use crate::model::op::{decode, new_histogram, OpResult};
use crate::model::record::TrialRecord;

pub use crate::model::metric::{Metric, Statistics, DEFAULT_NOISE};

/// One measured trial's figure for `operation` (`all`: the whole trial), with its position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The trial's `seq` (its position in the run, in execution order).
    pub seq: u64,
    pub value: f64,
}

/// The figures of configuration `config`'s measured (non-warm-up) trials for `operation`, in
/// run order. Trials in which the operation did not run, or took no time for a rate, give none.
pub fn samples(trials: &[TrialRecord], config: usize, operation: &str, metric: Metric) -> Vec<Sample> {
    trials
        .iter()
        .filter(|t| t.config == config && !t.warmup)
        .filter_map(|t| trial_value(t, operation, metric).map(|value| Sample { seq: t.seq, value }))
        .collect()
}

/// One trial's figure for `operation` (`all`: the whole trial) in `metric`: its time or rate;
/// a latency percentile of the trial's own histogram (`None` when nothing was timed); its
/// failure rate in percent (`None` when nothing was attempted).
pub fn trial_value(t: &TrialRecord, operation: &str, metric: Metric) -> Option<f64> {
    if let Some(q) = metric.quantile() {
        return trial_percentile_ms(t, operation, q);
    }
    if metric == Metric::Failures {
        return failure_pct(t.ops.iter().filter(|o| o.counts_in(operation)));
    }
    if metric == Metric::Instructions {
        return instructions_per_op(t, operation);
    }
    if operation == "all" {
        metric.value(t.total_ops, t.measured_ns)
    } else if crate::model::cast::role_total(operation).is_some() {
        // A cast's roles run over the whole measured interval.
        let ops = t.ops.iter().filter(|o| o.counts_in(operation)).map(|o| o.ops).sum();
        metric.value(ops, t.measured_ns)
    } else {
        let o = t.ops.iter().find(|o| o.name == operation)?;
        metric.value(o.ops, o.elapsed_ns)
    }
}

/// Instructions per operation of `operation` in one trial (`all`: the trial's over its
/// operations); `None` where instructions were not counted or nothing ran.
fn instructions_per_op(t: &TrialRecord, operation: &str) -> Option<f64> {
    let (instructions, ops) = if operation == "all" {
        (t.instructions?, t.total_ops)
    } else {
        t.ops
            .iter()
            .filter(|o| o.counts_in(operation) && o.part_of.is_none())
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
fn trial_percentile_ms(t: &TrialRecord, operation: &str, q: f64) -> Option<f64> {
    let mut hist = new_histogram();
    for o in t.ops.iter().filter(|o| o.counts_in(operation)) {
        if let Some(h) = decode(&o.histogram) {
            let _ = hist.add(&h);
        }
    }
    (!hist.is_empty()).then(|| hist.value_at_quantile(q) as f64 / 1e6)
}

/// Just the values of [`samples`].
pub fn values(trials: &[TrialRecord], config: usize, operation: &str, metric: Metric) -> Vec<f64> {
    samples(trials, config, operation, metric)
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
