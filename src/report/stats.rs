//! The statistics every report uses, in one place: which samples a figure is computed from,
//! the interval of a median, and the ratio of two medians with its interval and verdict.
//!
//! `run`, `show`, `compare` and every table (summary, side by side, spread) call these
//! functions, so a ratio printed by one command is the ratio printed by every other. The
//! settings (confidence, noise threshold, bootstrap seed and the methods' names) are recorded
//! in the run's manifest, so a stored run's verdicts can be recomputed exactly.

use crate::model::record::TrialRecord;

pub use crate::model::metric::{Metric, Statistics, DEFAULT_NOISE};

/// Parses `--noise PCT` (a percentage, e.g. `2` or `0.5`) into a fraction.
pub fn parse_noise(s: &str) -> Result<f64, String> {
    let pct: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("--noise {s}: not a number; give a percentage such as 2 or 0.5"))?;
    if !(0.0..100.0).contains(&pct) {
        return Err(format!("--noise {s}: must be at least 0 and below 100 (percent)"));
    }
    Ok(pct / 100.0)
}

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
        .filter_map(|t| {
            let v = if operation == "all" {
                metric.value(t.total_ops, t.measured_ns)
            } else {
                let o = t.ops.iter().find(|o| o.name == operation)?;
                metric.value(o.ops, o.elapsed_ns)
            };
            v.map(|value| Sample { seq: t.seq, value })
        })
        .collect()
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

    #[test]
    fn noise_flag() {
        assert_eq!(parse_noise("2"), Ok(0.02));
        assert_eq!(parse_noise("0.5%"), Ok(0.005));
        assert!(parse_noise("-1").unwrap_err().contains("--noise -1"));
        assert!(parse_noise("abc").unwrap_err().contains("percentage"));
        assert!(parse_noise("100").is_err());
    }
}
