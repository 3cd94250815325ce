//! The statistics every report uses, in one place: which samples a figure is computed from,
//! the interval of a median, and the ratio of two medians with its interval and verdict.
//!
//! `run`, `show`, `compare` and every table (summary, side by side, spread) call these
//! functions, so a ratio printed by one command is the ratio printed by every other. The
//! settings (confidence, noise threshold, bootstrap seed and the methods' names) are recorded
//! in the run's manifest, so a stored run's verdicts can be recomputed exactly.

use crate::result::{Manifest, TrialRecord};
use litebench_stats::{ratio_of_medians, Better, Ratio, MEDIAN_INTERVAL_METHOD, RATIO_INTERVAL_METHOD, RESAMPLES};
use serde::{Deserialize, Serialize};

/// Default noise threshold: a ratio within 2% of 1 is never called a difference.
pub const DEFAULT_NOISE: f64 = 0.02;

/// What a figure measures, and so which direction is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Milliseconds per trial (lower is better): what the speed comparison reported per test.
    Time,
    /// Transactions per second (higher is better).
    Tps,
}

impl Metric {
    pub fn better(self) -> Better {
        match self {
            Metric::Time => Better::Lower,
            Metric::Tps => Better::Higher,
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Time => "ms",
            Metric::Tps => "tx/s",
        }
    }

    /// The figure of `ops` operations measured over `ns` nanoseconds (`None` for no time).
    pub fn value(self, ops: u64, ns: u64) -> Option<f64> {
        match self {
            Metric::Time => Some(ns as f64 / 1e6),
            Metric::Tps => (ns > 0).then(|| ops as f64 / (ns as f64 / 1e9)),
        }
    }
}

/// How intervals and verdicts were computed: stored in the manifest, printed with reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statistics {
    pub confidence: f64,
    pub median_interval: String,
    pub ratio_interval: String,
    pub bootstrap_resamples: usize,
    pub bootstrap_seed: u64,
    /// A ratio within this fraction of 1 is "no significant difference" (0.02 = 2%).
    pub noise: f64,
}

impl Statistics {
    /// The settings of a run with seed `seed` and noise threshold `noise` (a fraction).
    pub fn new(seed: u64, noise: f64) -> Statistics {
        Statistics {
            confidence: 0.95,
            median_interval: MEDIAN_INTERVAL_METHOD.into(),
            ratio_interval: RATIO_INTERVAL_METHOD.into(),
            bootstrap_resamples: RESAMPLES,
            bootstrap_seed: seed,
            noise,
        }
    }

    /// A stored run's settings (runs stored before they were recorded: their seed, 2% noise),
    /// with the noise threshold replaced when the user gave `--noise`.
    pub fn of(manifest: &Manifest, noise: Option<f64>) -> Statistics {
        let mut s = manifest
            .statistics
            .clone()
            .unwrap_or_else(|| Statistics::new(manifest.seed, DEFAULT_NOISE));
        if let Some(n) = noise {
            s.noise = n;
        }
        s
    }

    /// B against the baseline A: ratio of medians, its interval and the verdict.
    pub fn compare(&self, a: &[f64], b: &[f64], metric: Metric) -> Option<Ratio> {
        ratio_of_medians(a, b, metric.better(), self.noise, self.bootstrap_seed)
    }
}

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
