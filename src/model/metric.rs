//! What a figure measures (and so which direction is better), and how a run's intervals and
//! verdicts are computed: both are stored in every manifest, so they live with the records and a
//! stored run's verdicts can be recomputed exactly by any later version.

use litebench_stats::{
    difference_of_means, speed_ratio, Better, Difference, Ratio, MEDIAN_INTERVAL_METHOD, RATIO_INTERVAL_METHOD,
    RESAMPLES,
};
use serde::{Deserialize, Serialize};

/// Default noise threshold: a ratio within 2% of 1 is never called a difference.
pub const DEFAULT_NOISE: f64 = 0.02;

/// Default noise threshold of instruction counts (`--measure instructions`): a ratio within
/// 0.5% of 1 is never called a difference. Counts under callgrind repeat far better than wall
/// clocks (docs/statistics.md gives what was measured), so a 1% change between two SQLite
/// releases can read as a verdict.
pub const DEFAULT_INSTRUCTION_NOISE: f64 = 0.005;

/// What a figure measures, and so which direction is better.
///
/// A workload's own metric ([`crate::workload`]'s `metric()`) is `time` or `tps`; the latency
/// percentiles and the failure rate are per-trial figures `--metric` can ask for (in an open loop,
/// where the schedule fixes tx/s, they are the question).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Milliseconds per trial (lower is better): what the speed comparison reported per test.
    Time,
    /// Transactions per second (higher is better).
    Tps,
    /// Median latency of each trial, milliseconds (lower is better).
    P50,
    /// 99th-percentile latency of each trial, milliseconds (lower is better).
    P99,
    /// 99.9th-percentile latency of each trial, milliseconds (lower is better).
    P999,
    /// Transactions that failed (gave up on a lock, errors, skipped by `--latency-limit`) over
    /// those attempted, per trial, in percent (lower is better); compared by the difference in
    /// percentage points, never by a ratio (it is 0 in most healthy trials).
    Failures,
    /// Instructions per operation, counted under callgrind for the measured region only
    /// (`--measure instructions`; lower is better).
    Instructions,
}

/// The latency metrics, in the order tables show them.
pub const LATENCY_METRICS: [Metric; 3] = [Metric::P50, Metric::P99, Metric::P999];

impl Metric {
    pub fn better(self) -> Better {
        match self {
            Metric::Tps => Better::Higher,
            _ => Better::Lower,
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Time => "ms",
            Metric::Tps => "tx/s",
            Metric::P50 | Metric::P99 | Metric::P999 => "ms",
            Metric::Failures => "% failed",
            Metric::Instructions => "instr/op",
        }
    }

    /// The name `--metric` takes and tables print (`p99`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Time => "time",
            Metric::Tps => "tps",
            Metric::P50 => "p50",
            Metric::P99 => "p99",
            Metric::P999 => "p99.9",
            Metric::Failures => "failures",
            Metric::Instructions => "instructions",
        }
    }

    /// Its unit with what it is: `p99 ms`, `tx/s`, `% failed`.
    pub fn heading(self) -> String {
        match self {
            Metric::P50 | Metric::P99 | Metric::P999 => format!("{} ms", self.name()),
            _ => self.unit().to_string(),
        }
    }

    /// A latency percentile: the quantile it reads from a trial's histogram (0.99 for p99).
    pub fn quantile(self) -> Option<f64> {
        match self {
            Metric::P50 => Some(0.5),
            Metric::P99 => Some(0.99),
            Metric::P999 => Some(0.999),
            _ => None,
        }
    }

    /// The figure of `ops` operations measured over `ns` nanoseconds (`None` for no time, and
    /// for the metrics a trial's histogram or failure counts give: `report::stats::samples`).
    pub fn value(self, ops: u64, ns: u64) -> Option<f64> {
        match self {
            Metric::Time => Some(ns as f64 / 1e6),
            Metric::Tps => (ns > 0).then(|| ops as f64 / (ns as f64 / 1e9)),
            _ => None,
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
    /// The same for instructions per operation (`--measure instructions`), which repeat far
    /// better than times; absent in runs that did not count instructions (and before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction_noise: Option<f64>,
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
            instruction_noise: None,
        }
    }

    /// The threshold a ratio in `metric` is held to: instructions' own where the run recorded
    /// one, else the run's.
    pub fn noise_of(&self, metric: Metric) -> f64 {
        match (metric, self.instruction_noise) {
            (Metric::Instructions, Some(n)) => n,
            _ => self.noise,
        }
    }

    /// B against the baseline A: B's speed over A's (higher = faster, whatever the metric: a
    /// throughput's B/A, a time's A/B), its interval and the verdict. Every report prints this
    /// ratio, so a ratio never points one way in one table and the other way in the next.
    pub fn compare(&self, a: &[f64], b: &[f64], metric: Metric) -> Option<Ratio> {
        speed_ratio(a, b, metric.better(), self.noise_of(metric), self.bootstrap_seed)
    }

    /// B against the baseline A by the difference of their means (`mean(b) - mean(a)`), with
    /// its interval and conclusion: how failure rates compare.
    pub fn difference(&self, a: &[f64], b: &[f64]) -> Option<Difference> {
        difference_of_means(a, b, self.bootstrap_seed)
    }
}
