//! Summaries of stored trials: what the tables, the JSON `summary` and the CSV rows show.
//!
//! Everything here is computed from [`TrialRecord`]s, so a run loaded from the results store is
//! summarised exactly like a run that just finished. Warm-up trials are never included. A value
//! that could not be determined is `None` (JSON `null`, empty in CSV, `-` in tables), never 0.

use super::stats::{samples, values, values_in, Metric, OpIndex, Statistics};
use crate::engines::registry;
use crate::model::metric::LATENCY_METRICS;
use crate::model::op::{decode, new_histogram, Latency, OpResult};
use crate::model::record::{ConfigInfo, Manifest, TrialRecord};
use crate::sys::iocount::IoSnapshot;
use hdrhistogram::Histogram;
use litebench_stats::{summarize, Change, Difference, Interval, Ratio, Verdict, NOISY_CV};
use serde::{Deserialize, Serialize};

/// One row of a summary: one configuration and one operation type (or `all`).
/// JSON and CSV both serialise exactly this type: its groups are flattened, so each group's
/// fields are columns of their own (`tps_median`, `latency_p99_ms_median`, `busy`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub config: usize,
    pub label: String,
    pub engine: String,
    /// Operation type, or `all` for the whole trial.
    pub operation: String,
    /// How the operation reads at the run's parameters: the speed comparison suites' tests
    /// name the counts they run ("01 50 INSERTs" at `scale_percent=5`), which `operation`,
    /// what is stored and matched, keeps at the source's scale.
    #[serde(default)]
    pub operation_label: String,
    /// Measured (non-warm-up) trials.
    pub trials: usize,
    #[serde(flatten)]
    pub throughput: Throughput,
    #[serde(flatten)]
    pub latency: Latencies,
    #[serde(flatten)]
    pub failures: Failures,
    #[serde(flatten)]
    pub io: Io,
    #[serde(flatten)]
    pub load: Load,
    /// Absent in runs where no transaction waited for a lock; where any did, every row has
    /// the fields (null in a row whose transactions did not wait), so CSV columns agree.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub busy_waits: Option<BusyWaits>,
    /// Instructions per operation (`--measure instructions`); absent in runs that did not count
    /// them.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Instructions>,
    /// The stored `verify-durability` verdicts for this configuration's SQLite build and
    /// settings, `power: VERDICT IN WORDS; process: ...` (`consistent; lost the last commit in 5,349 of 16,484 states`) (set by `show`; null
    /// when there are none).
    #[serde(default)]
    pub durability: Option<String>,
}

/// How fast: transactions per trial and per second, time per trial, and the speed against the
/// baseline configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// Transactions per trial (mean): completed ones, successful or not.
    pub ops_per_trial: f64,
    /// Measured time per trial, milliseconds: median and mean across trials (what the speed
    /// comparison suites report per test).
    pub time_ms_median: f64,
    pub time_ms_mean: f64,
    /// Throughput in transactions per second across trials (in an open loop: the achieved
    /// rate, to read against `target_tps`).
    pub tps_mean: f64,
    pub tps_median: f64,
    pub tps_stddev: Option<f64>,
    /// Coefficient of variation of throughput, as a fraction.
    pub tps_cv: Option<f64>,
    /// 95% interval of the median throughput (order statistics; null below 6 trials).
    pub tps_median_ci95_low: Option<f64>,
    pub tps_median_ci95_high: Option<f64>,
    pub tps_min: f64,
    pub tps_max: f64,
    /// Median throughput of successful transactions only, across trials.
    pub tps_success_median: Option<f64>,
    /// Median throughput over the baseline configuration's (#0), same operation, with the
    /// bootstrap interval of that ratio and the verdict (null below 6 trials a side).
    pub ratio: Option<f64>,
    pub ratio_ci95_low: Option<f64>,
    pub ratio_ci95_high: Option<f64>,
    pub verdict: Option<Verdict>,
    /// CV above 5%.
    pub noisy: bool,
}

/// How long transactions took, from their (intended, in an open loop) start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latencies {
    /// Latency percentiles over all measured trials (merged histograms), microseconds; null
    /// when no operation was timed.
    pub latency_mean_us: Option<f64>,
    pub latency_p50_us: Option<f64>,
    pub latency_p95_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub latency_p999_us: Option<f64>,
    pub latency_max_us: Option<f64>,
    /// Each trial's own p50, milliseconds: the median across trials with its 95% interval
    /// (order statistics; null below 6 trials), and the speed against the baseline's (#0)
    /// (baseline p50 over this one's: above 1 is faster), with its bootstrap interval and
    /// verdict. Null for runs without histograms (and fields absent in runs stored before).
    #[serde(default)]
    pub latency_p50_ms_median: Option<f64>,
    #[serde(default)]
    pub latency_p50_ms_ci95_low: Option<f64>,
    #[serde(default)]
    pub latency_p50_ms_ci95_high: Option<f64>,
    #[serde(default)]
    pub latency_p50_ratio: Option<f64>,
    #[serde(default)]
    pub latency_p50_ratio_ci95_low: Option<f64>,
    #[serde(default)]
    pub latency_p50_ratio_ci95_high: Option<f64>,
    #[serde(default)]
    pub latency_p50_verdict: Option<Verdict>,
    /// The same of each trial's p99.
    #[serde(default)]
    pub latency_p99_ms_median: Option<f64>,
    #[serde(default)]
    pub latency_p99_ms_ci95_low: Option<f64>,
    #[serde(default)]
    pub latency_p99_ms_ci95_high: Option<f64>,
    #[serde(default)]
    pub latency_p99_ratio: Option<f64>,
    #[serde(default)]
    pub latency_p99_ratio_ci95_low: Option<f64>,
    #[serde(default)]
    pub latency_p99_ratio_ci95_high: Option<f64>,
    #[serde(default)]
    pub latency_p99_verdict: Option<Verdict>,
    /// The same of each trial's p99.9.
    #[serde(default)]
    pub latency_p999_ms_median: Option<f64>,
    #[serde(default)]
    pub latency_p999_ms_ci95_low: Option<f64>,
    #[serde(default)]
    pub latency_p999_ms_ci95_high: Option<f64>,
    #[serde(default)]
    pub latency_p999_ratio: Option<f64>,
    #[serde(default)]
    pub latency_p999_ratio_ci95_low: Option<f64>,
    #[serde(default)]
    pub latency_p999_ratio_ci95_high: Option<f64>,
    #[serde(default)]
    pub latency_p999_verdict: Option<Verdict>,
}

/// What did not succeed: transactions that gave up, failed, were skipped or came late.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failures {
    /// Successful transactions over completed ones, all measured trials pooled (1.0 for
    /// workloads where every completed transaction succeeds; null when none completed).
    pub success_rate: Option<f64>,
    /// Transactions rolled back on lock contention (SQLITE_BUSY) per trial (mean); not in
    /// `ops_per_trial`.
    pub busy: f64,
    /// Of `busy`, per trial (mean), by the cause of the last try (docs/load.md): the busy
    /// handler waited or could have (`busy_timeout`), a read transaction's upgrade to a writer
    /// refused (`busy_upgrade`), a WAL snapshot too old to write (`busy_snapshot`). A server's
    /// serialization failures and deadlocks are in none. Null for runs stored before causes
    /// were counted.
    #[serde(default)]
    pub busy_timeout: Option<f64>,
    #[serde(default)]
    pub busy_upgrade: Option<f64>,
    #[serde(default)]
    pub busy_snapshot: Option<f64>,
    /// Of `busy`, per trial (mean), a server's causes: serialization failures, deadlocks the
    /// server broke, lock waits past the server's timeout ([`crate::engines::BusyCause`]).
    /// Absent where none happened, and in runs stored before they were counted (whose
    /// give-ups of these causes are in no cause).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_serialization: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_deadlock: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_lock_wait: Option<f64>,
    /// Runs with a load shape other than one closed-loop client (absent otherwise), per trial
    /// (mean): tries beyond the first of transactions that met a lock, transactions skipped by
    /// `--latency-limit`, and completed ones slower than it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<f64>,
    /// Failed transactions (gave up on a lock, other tolerated errors, skipped) over attempted
    /// ones, per trial, in percent: the mean across trials (`late` ones completed and are not
    /// in it); null when nothing was attempted.
    #[serde(default)]
    pub failure_pct: Option<f64>,
    /// This configuration's `failure_pct` minus the baseline's (#0), in percentage points, with
    /// its bootstrap interval over trials and what it concludes (`lower`, `higher`,
    /// `no_significant_difference`, `none_in_either`: 0 in every trial of both).
    #[serde(default)]
    pub failure_diff_pp: Option<f64>,
    #[serde(default)]
    pub failure_diff_ci95_low_pp: Option<f64>,
    #[serde(default)]
    pub failure_diff_ci95_high_pp: Option<f64>,
    #[serde(default)]
    pub failure_change: Option<Change>,
}

/// What the engine made the storage do, per transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Io {
    /// Whether litebench counts this engine's I/O through its VFS shim (SQLite builds). When
    /// false, the VFS fields below are null: nothing was counted.
    pub io_counted: bool,
    /// fsync/fdatasync system calls per transaction (file syncs plus directory syncs).
    pub syncs_per_tx: Option<f64>,
    /// File syncs (`xSync`) per transaction.
    pub file_syncs_per_tx: Option<f64>,
    /// Bytes the engine wrote per transaction, all files, as the VFS saw them.
    pub write_bytes_per_tx: Option<f64>,
    /// Bytes the engine read per transaction, all files, as the VFS saw them.
    pub read_bytes_per_tx: Option<f64>,
    /// Write calls per transaction.
    pub writes_per_tx: Option<f64>,
    /// Whether the VFS figures above are approximate: a per-operation row of a run with
    /// several clients as threads stored before I/O was counted per thread
    /// ([`crate::model::record::Manifest::io_per_thread`]), whose client 0 attributed every
    /// client's I/O to its own current operation (docs/load.md). `all` rows, one client, client
    /// processes (each counts its own) and client threads counted per thread are exact.
    #[serde(default)]
    pub io_per_op_approximate: bool,
    /// Device bytes per transaction from `/proc/PID/io` (`read_bytes`, `write_bytes`) of the
    /// processes in `device_io_source`, whole trials only (`all` rows): what reached the block
    /// layer, never mixed with the VFS counts above. Null when not counted (a server litebench did
    /// not start, older runs) and on per-operation rows.
    pub device_write_bytes_per_tx: Option<f64>,
    pub device_read_bytes_per_tx: Option<f64>,
    /// `server processes` or `litebench process`, with `(lower bound: ...)` when processes
    /// exited during a trial and took their counts with them.
    pub device_io_source: Option<String>,
    /// Upper bound on transactions per second set by sync latency: 1 / (syncs per transaction
    /// x median sync latency measured in the scratch directory). Null without syncs.
    pub sync_bound_tps: Option<f64>,
}

/// The load's schedule: open loop (`--rate`) only, absent otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// The target rate over all clients, and the schedule lag (actual minus intended start)
    /// over all measured trials, microseconds. Latency above is from the intended start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_tps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_p50_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_p99_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_max_us: Option<f64>,
}

/// Instructions per operation across trials (`--measure instructions`): the median with its
/// interval and coefficient of variation, and the speed ratio against the baseline (its
/// instructions over this one's: higher = fewer) with its interval and verdict, held to the
/// run's instruction noise threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instructions {
    pub instr_per_op_median: Option<f64>,
    pub instr_per_op_ci95_low: Option<f64>,
    pub instr_per_op_ci95_high: Option<f64>,
    pub instr_per_op_cv: Option<f64>,
    pub instr_ratio: Option<f64>,
    pub instr_ratio_ci95_low: Option<f64>,
    pub instr_ratio_ci95_high: Option<f64>,
    pub instr_verdict: Option<Verdict>,
}

/// SQLite's lock waits (docs/load.md "Locks and retries"): how long the transactions that waited
/// slept in its busy handler, over all measured trials, microseconds, and their share of the
/// transactions attempted (completed or given up busy), percent. Absent where none waited.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BusyWaits {
    pub busy_wait_p50_us: Option<f64>,
    pub busy_wait_p99_us: Option<f64>,
    pub busy_wait_max_us: Option<f64>,
    pub busy_waited_pct: Option<f64>,
}

/// A row's figure in one metric, as every table picks it: the value across trials (the median;
/// for failures the mean), its interval, and how it stands against the baseline configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    pub metric: Metric,
    pub value: Option<f64>,
    pub ci95: Option<Interval>,
    pub against: Against,
}

/// How a figure stands against the baseline's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Against {
    /// This row is the baseline's (or nothing could be compared).
    Nothing,
    /// A speed ratio (higher = faster: a throughput's B/A, a latency's A/B), with its interval
    /// and verdict.
    Ratio(Ratio),
    /// A difference in the metric's unit (failures: percentage points), with its interval and
    /// what it concludes.
    Difference(Difference),
}

fn mean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

/// Whether a configuration's I/O was counted by the VFS shim: its engine's, recorded in the
/// engine's info since this field exists, else known from its kind; never through a driver
/// (`--driver`, or a cast role's own `driver`), whose process runs its own SQLite, which
/// litebench does not count.
pub fn io_counted(manifest: &Manifest, cfg: &ConfigInfo) -> bool {
    cfg.driver.is_none()
        && cfg.role_drivers.is_empty()
        && manifest
            .engines
            .iter()
            .find(|e| e.label == cfg.engine)
            .is_some_and(|e| {
                e.io_counted
                    .unwrap_or_else(|| registry::kind(&e.kind).is_some_and(|k| k.io_counted))
            })
}

fn row(
    manifest: &Manifest,
    stats: &Statistics,
    config: usize,
    operation: &str,
    trials: &[&TrialRecord],
    all: &[TrialRecord],
    index: &OpIndex<'_>,
) -> Option<SummaryRow> {
    let cfg = manifest.configs.get(config)?;
    let scope = Scope {
        manifest,
        stats,
        config,
        operation,
        trials,
        all,
        index,
    };
    let parts = scope.parts();
    Some(SummaryRow {
        config,
        label: cfg.label.clone(),
        engine: cfg.engine.clone(),
        operation: operation.to_string(),
        // The workload's label is set by `summarize_run`, which has the workload.
        operation_label: operation.to_string(),
        trials: trials.len(),
        throughput: scope.throughput(&parts)?,
        latency: scope.latencies(),
        failures: scope.failures(&parts),
        io: scope.io(cfg, &parts),
        load: scope.load(),
        busy_waits: scope.busy_waits(),
        instructions: scope.instructions(),
        durability: None,
    })
}

/// One summary row's inputs: a configuration's measured trials of one operation (`all`: the
/// whole trial), and every trial of the run for the baseline's figures.
struct Scope<'a> {
    manifest: &'a Manifest,
    stats: &'a Statistics,
    config: usize,
    operation: &'a str,
    trials: &'a [&'a TrialRecord],
    all: &'a [TrialRecord],
    /// Each trial's results by name ([`OpIndex`]): a row finds its type's in one lookup.
    index: &'a OpIndex<'a>,
}

/// Per trial: completed transactions, measured time (ns) and I/O of the row's operation.
type Part = (u64, u64, IoSnapshot);

/// A figure across trials: the median with its interval, and the ratio against the baseline.
struct AcrossTrials {
    median: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
    ratio: Option<f64>,
    ratio_low: Option<f64>,
    ratio_high: Option<f64>,
    verdict: Option<Verdict>,
}

fn us(ns: f64) -> f64 {
    ns / 1000.0
}

impl Scope<'_> {
    fn parts(&self) -> Vec<Part> {
        self.trials
            .iter()
            .map(|t| {
                if self.operation == "all" {
                    (t.total_ops, t.measured_ns, t.io)
                } else if crate::model::cast::role_total(self.operation).is_some() {
                    self.index
                        .counting(t, self.operation)
                        .fold((0, t.measured_ns, IoSnapshot::ZERO), |(n, ns, io), o| {
                            (n + o.ops, ns, io.plus(&o.io))
                        })
                } else {
                    self.index
                        .counting(t, self.operation)
                        .next()
                        .map_or((0, 0, Default::default()), |o| (o.ops, o.elapsed_ns, o.io))
                }
            })
            .collect()
    }

    /// This configuration's per-trial figures in `metric`.
    fn own(&self, metric: Metric) -> Vec<f64> {
        values_in(self.index, self.all, self.config, self.operation, metric)
    }

    /// `own` against the baseline configuration's (#0) in `metric`; the baseline against itself
    /// is exactly 1, with nothing to conclude.
    fn against_baseline(&self, metric: Metric, own: &[f64]) -> Option<Ratio> {
        if self.config == 0 {
            return (!own.is_empty()).then_some(Ratio {
                ratio: 1.0,
                ci95: None,
                verdict: None,
            });
        }
        self.stats
            .compare(&values_in(self.index, self.all, 0, self.operation, metric), own, metric)
    }

    /// Per trial, over the operation types the row counts: the sum of `f`.
    fn per_trial(&self, f: &dyn Fn(&OpResult) -> u64) -> Vec<u64> {
        self.trials
            .iter()
            .map(|t| self.index.counting(t, self.operation).map(f).sum())
            .collect()
    }

    /// The per-trial mean of `f`.
    fn mean_per_trial(&self, f: &dyn Fn(&OpResult) -> u64) -> f64 {
        mean(self.per_trial(f).into_iter().map(|n| n as f64)).unwrap_or(0.0)
    }

    fn throughput(&self, parts: &[Part]) -> Option<Throughput> {
        let tps = self.own(Metric::Tps);
        let s = summarize(&tps)?;
        let succeeded = self.per_trial(&|o| o.succeeded());
        let tps_success: Vec<f64> = parts
            .iter()
            .zip(&succeeded)
            .filter(|(p, _)| p.1 > 0)
            .map(|(p, ok)| *ok as f64 / (p.1 as f64 / 1e9))
            .collect();
        let times_ms: Vec<f64> = parts.iter().map(|p| p.1 as f64 / 1e6).collect();
        let ratio = self.against_baseline(Metric::Tps, &tps);
        Some(Throughput {
            ops_per_trial: mean(parts.iter().map(|p| p.0 as f64)).unwrap_or(0.0),
            time_ms_median: summarize(&times_ms).map_or(0.0, |t| t.median),
            time_ms_mean: mean(times_ms.iter().copied()).unwrap_or(0.0),
            tps_mean: s.mean,
            tps_median: s.median,
            tps_stddev: s.stddev,
            tps_cv: s.cv,
            tps_median_ci95_low: s.median_ci95.map(|c| c.low),
            tps_median_ci95_high: s.median_ci95.map(|c| c.high),
            tps_min: s.min,
            tps_max: s.max,
            tps_success_median: summarize(&tps_success).map(|t| t.median),
            ratio: ratio.map(|r| r.ratio),
            ratio_ci95_low: ratio.and_then(|r| r.ci95).map(|c| c.low),
            ratio_ci95_high: ratio.and_then(|r| r.ci95).map(|c| c.high),
            verdict: ratio.and_then(|r| r.verdict),
            noisy: s.cv.is_some_and(|cv| cv > NOISY_CV),
        })
    }

    /// Each trial's own `metric` (a latency percentile) across trials.
    fn across_trials(&self, metric: Metric) -> AcrossTrials {
        let own = self.own(metric);
        let s = summarize(&own);
        let r = self.against_baseline(metric, &own);
        AcrossTrials {
            median: s.as_ref().map(|s| s.median),
            low: s.as_ref().and_then(|s| s.median_ci95).map(|c| c.low),
            high: s.as_ref().and_then(|s| s.median_ci95).map(|c| c.high),
            ratio: r.map(|r| r.ratio),
            ratio_low: r.and_then(|r| r.ci95).map(|c| c.low),
            ratio_high: r.and_then(|r| r.ci95).map(|c| c.high),
            verdict: r.and_then(|r| r.verdict),
        }
    }

    fn latencies(&self) -> Latencies {
        let hist = merged(self.index, self.trials, self.operation, |o| Some(&o.histogram));
        let lat = (!hist.is_empty()).then(|| Latency::of(&hist));
        let [p50, p99, p999] = LATENCY_METRICS.map(|m| self.across_trials(m));
        Latencies {
            latency_mean_us: lat.as_ref().map(|l| us(l.mean_ns)),
            latency_p50_us: lat.as_ref().map(|l| us(l.p50_ns as f64)),
            latency_p95_us: lat.as_ref().map(|l| us(l.p95_ns as f64)),
            latency_p99_us: lat.as_ref().map(|l| us(l.p99_ns as f64)),
            latency_p999_us: lat.as_ref().map(|l| us(l.p999_ns as f64)),
            latency_max_us: lat.as_ref().map(|l| us(l.max_ns as f64)),
            latency_p50_ms_median: p50.median,
            latency_p50_ms_ci95_low: p50.low,
            latency_p50_ms_ci95_high: p50.high,
            latency_p50_ratio: p50.ratio,
            latency_p50_ratio_ci95_low: p50.ratio_low,
            latency_p50_ratio_ci95_high: p50.ratio_high,
            latency_p50_verdict: p50.verdict,
            latency_p99_ms_median: p99.median,
            latency_p99_ms_ci95_low: p99.low,
            latency_p99_ms_ci95_high: p99.high,
            latency_p99_ratio: p99.ratio,
            latency_p99_ratio_ci95_low: p99.ratio_low,
            latency_p99_ratio_ci95_high: p99.ratio_high,
            latency_p99_verdict: p99.verdict,
            latency_p999_ms_median: p999.median,
            latency_p999_ms_ci95_low: p999.low,
            latency_p999_ms_ci95_high: p999.high,
            latency_p999_ratio: p999.ratio,
            latency_p999_ratio_ci95_low: p999.ratio_low,
            latency_p999_ratio_ci95_high: p999.ratio_high,
            latency_p999_verdict: p999.verdict,
        }
    }

    /// Per trial, a server's cause, which results count only where it happened: `None` where
    /// no trial had one.
    fn mean_per_trial_server_cause(&self, f: &dyn Fn(&OpResult) -> Option<u64>) -> Option<f64> {
        Some(self.mean_per_trial(&|o| f(o).unwrap_or(0))).filter(|n| *n > 0.0)
    }

    /// Per trial, by cause: unknown (None) when any counted result was stored without causes.
    fn mean_per_trial_cause(&self, f: &dyn Fn(&OpResult) -> Option<u64>) -> Option<f64> {
        let per: Option<Vec<f64>> = self
            .trials
            .iter()
            .map(|t| {
                self.index
                    .counting(t, self.operation)
                    .map(f)
                    .sum::<Option<u64>>()
                    .map(|n| n as f64)
            })
            .collect();
        mean(per?.into_iter())
    }

    fn failures(&self, parts: &[Part]) -> Failures {
        let completed: u64 = parts.iter().map(|p| p.0).sum();
        let succeeded: u64 = self.per_trial(&|o| o.succeeded()).iter().sum();
        // Load-shaped runs: every row carries the counts (so CSV columns agree).
        let shaped = self.manifest.shaped();
        let failure_pcts = self.own(Metric::Failures);
        let failure_diff = if self.config == 0 {
            None
        } else {
            self.stats.difference(
                &values_in(self.index, self.all, 0, self.operation, Metric::Failures),
                &failure_pcts,
            )
        };
        Failures {
            success_rate: (completed > 0).then(|| succeeded as f64 / completed as f64),
            busy: self.mean_per_trial(&|o| o.busy),
            busy_timeout: self.mean_per_trial_cause(&|o| o.busy_timeout),
            busy_upgrade: self.mean_per_trial_cause(&|o| o.busy_upgrade),
            busy_snapshot: self.mean_per_trial_cause(&|o| o.busy_snapshot),
            busy_serialization: self.mean_per_trial_server_cause(&|o| o.busy_serialization),
            busy_deadlock: self.mean_per_trial_server_cause(&|o| o.busy_deadlock),
            busy_lock_wait: self.mean_per_trial_server_cause(&|o| o.busy_lock_wait),
            retries: shaped.then(|| self.mean_per_trial(&|o| o.retries)),
            skipped: shaped.then(|| self.mean_per_trial(&|o| o.skipped)),
            late: shaped.then(|| self.mean_per_trial(&|o| o.late)),
            failure_pct: mean(failure_pcts.iter().copied()),
            failure_diff_pp: failure_diff.map(|d| d.diff),
            failure_diff_ci95_low_pp: failure_diff.and_then(|d| d.ci95).map(|c| c.low),
            failure_diff_ci95_high_pp: failure_diff.and_then(|d| d.ci95).map(|c| c.high),
            failure_change: failure_diff.and_then(|d| d.change),
        }
    }

    fn io(&self, cfg: &ConfigInfo, parts: &[Part]) -> Io {
        let manifest = self.manifest;
        let counted = io_counted(manifest, cfg);
        let per_tx = |f: &dyn Fn(&IoSnapshot) -> u64| -> Option<f64> {
            if !counted {
                return None;
            }
            mean(parts.iter().filter(|p| p.0 > 0).map(|p| f(&p.2) as f64 / p.0 as f64))
        };
        let syncs_per_tx = per_tx(&|io| io.sync_syscalls());
        // On a `--fs` filesystem, the latency measured there.
        let sync_bound_tps = match &cfg.fs {
            Some(f) => f.sync_latency.as_ref(),
            None => manifest.sync_latency.as_ref(),
        }
        .zip(syncs_per_tx)
        .filter(|(l, s)| *s > 0.0 && l.median_us > 0.0 && !manifest.in_memory)
        .map(|(l, s)| 1e6 / (s * l.median_us));
        let device: Vec<(&crate::sys::deviceio::DeviceIoDelta, u64)> = if self.operation == "all" {
            self.trials
                .iter()
                .filter(|t| t.total_ops > 0)
                .filter_map(|t| t.device_io.as_ref().map(|d| (d, t.total_ops)))
                .collect()
        } else {
            Vec::new()
        };
        let device_per_tx = |f: &dyn Fn(&crate::sys::deviceio::DeviceIoDelta) -> u64| {
            mean(device.iter().map(|(d, ops)| f(d) as f64 / *ops as f64))
        };
        let device_io_source = device.first().map(|(d, _)| {
            let exited: u32 = device.iter().map(|(d, _)| d.processes_exited).sum();
            let name = serde_json::to_value(d.source)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            if exited > 0 {
                format!("{name} (lower bound: {exited} process exits during trials took their counts)")
            } else {
                name
            }
        });
        Io {
            io_counted: counted,
            syncs_per_tx,
            file_syncs_per_tx: per_tx(&|io| io.total().syncs),
            write_bytes_per_tx: per_tx(&|io| io.total().write_bytes),
            read_bytes_per_tx: per_tx(&|io| io.total().read_bytes),
            writes_per_tx: per_tx(&|io| io.total().writes),
            io_per_op_approximate: counted
                && self.operation != "all"
                && manifest.load_of(self.config).clients > 1
                && manifest.load_of(self.config).client_mode == crate::model::load::ClientMode::Threads
                && !manifest.io_per_thread,
            device_write_bytes_per_tx: device_per_tx(&|d| d.write_bytes),
            device_read_bytes_per_tx: device_per_tx(&|d| d.read_bytes),
            device_io_source,
            sync_bound_tps,
        }
    }

    /// Open loops: the schedule's lag.
    fn load(&self) -> Load {
        let load = self.manifest.load_of(self.config);
        let lag = load.open().then(|| {
            Latency::of(&merged(self.index, self.trials, self.operation, |o| {
                o.lag_histogram.as_ref()
            }))
        });
        Load {
            target_tps: load.rate,
            lag_p50_us: lag.as_ref().map(|l| us(l.p50_ns as f64)),
            lag_p99_us: lag.as_ref().map(|l| us(l.p99_ns as f64)),
            lag_max_us: lag.as_ref().map(|l| us(l.max_ns as f64)),
        }
    }
}

impl Scope<'_> {
    /// The lock waits of the transactions that waited, where any did.
    /// Instructions per operation, where the run counted them.
    fn instructions(&self) -> Option<Instructions> {
        self.manifest.instructions.as_ref()?;
        let own = self.own(Metric::Instructions);
        let s = summarize(&own);
        let a = self.across_trials(Metric::Instructions);
        Some(Instructions {
            instr_per_op_median: a.median,
            instr_per_op_ci95_low: a.low,
            instr_per_op_ci95_high: a.high,
            instr_per_op_cv: s.and_then(|s| s.cv),
            instr_ratio: a.ratio,
            instr_ratio_ci95_low: a.ratio_low,
            instr_ratio_ci95_high: a.ratio_high,
            instr_verdict: a.verdict,
        })
    }

    fn busy_waits(&self) -> Option<BusyWaits> {
        let hist = merged(self.index, self.trials, self.operation, |o| {
            o.busy_wait_histogram.as_ref()
        });
        if hist.is_empty() {
            return None;
        }
        let attempted: u64 = self
            .trials
            .iter()
            .flat_map(|t| self.index.counting(t, self.operation))
            .map(|o| o.ops + o.busy)
            .sum();
        let w = Latency::of(&hist);
        Some(BusyWaits {
            busy_wait_p50_us: Some(us(w.p50_ns as f64)),
            busy_wait_p99_us: Some(us(w.p99_ns as f64)),
            busy_wait_max_us: Some(us(w.max_ns as f64)),
            busy_waited_pct: (attempted > 0).then(|| 100.0 * hist.len() as f64 / attempted as f64),
        })
    }
}

/// The schedule-lag histograms of `operation` (`all`: every type) in `trials`, merged; empty
/// for closed loops.
pub fn merged_lag(trials: &[&TrialRecord], operation: &str) -> Histogram<u64> {
    merged(&OpIndex::default(), trials, operation, |o| o.lag_histogram.as_ref())
}

/// The latency histograms of `operation` (`all`: every type) in `trials`, merged: exact
/// percentiles over all of them (the summary's p50..max and the report's percentile plots).
pub fn merged_latency(trials: &[&TrialRecord], operation: &str) -> Histogram<u64> {
    merged(&OpIndex::default(), trials, operation, |o| Some(&o.histogram))
}

/// The stored histograms `pick` gives of `operation`'s results in `trials` (found through
/// `index`), merged.
fn merged(
    index: &OpIndex<'_>,
    trials: &[&TrialRecord],
    operation: &str,
    pick: impl Fn(&OpResult) -> Option<&String>,
) -> Histogram<u64> {
    super::stats::merge(
        trials
            .iter()
            .flat_map(|t| index.counting(t, operation))
            .filter_map(|o| pick(o).and_then(|s| decode(s))),
    )
    .unwrap_or_else(new_histogram)
}

impl SummaryRow {
    /// The throughput ratio to the baseline with its interval and verdict, as the stats crate
    /// gives it.
    pub fn ratio(&self) -> Option<Ratio> {
        let t = &self.throughput;
        ratio_of(t.ratio, t.ratio_ci95_low, t.ratio_ci95_high, t.verdict)
    }

    /// The row's figure in `metric`: what every table, chart and `advise` picks for it.
    pub fn figure(&self, metric: Metric) -> Figure {
        let interval = |low: Option<f64>, high: Option<f64>| low.zip(high).map(|(low, high)| Interval { low, high });
        let t = &self.throughput;
        let l = &self.latency;
        let (value, ci95, against) = match metric {
            Metric::Tps => (
                Some(t.tps_median),
                interval(t.tps_median_ci95_low, t.tps_median_ci95_high),
                self.ratio(),
            ),
            // A trial's time and its rate are one speed: the throughput's ratio is the time's.
            Metric::Time => (Some(t.time_ms_median), None, self.ratio()),
            Metric::P50 => (
                l.latency_p50_ms_median,
                interval(l.latency_p50_ms_ci95_low, l.latency_p50_ms_ci95_high),
                ratio_of(
                    l.latency_p50_ratio,
                    l.latency_p50_ratio_ci95_low,
                    l.latency_p50_ratio_ci95_high,
                    l.latency_p50_verdict,
                ),
            ),
            Metric::P99 => (
                l.latency_p99_ms_median,
                interval(l.latency_p99_ms_ci95_low, l.latency_p99_ms_ci95_high),
                ratio_of(
                    l.latency_p99_ratio,
                    l.latency_p99_ratio_ci95_low,
                    l.latency_p99_ratio_ci95_high,
                    l.latency_p99_verdict,
                ),
            ),
            Metric::P999 => (
                l.latency_p999_ms_median,
                interval(l.latency_p999_ms_ci95_low, l.latency_p999_ms_ci95_high),
                ratio_of(
                    l.latency_p999_ratio,
                    l.latency_p999_ratio_ci95_low,
                    l.latency_p999_ratio_ci95_high,
                    l.latency_p999_verdict,
                ),
            ),
            Metric::Instructions => match &self.instructions {
                Some(i) => (
                    i.instr_per_op_median,
                    interval(i.instr_per_op_ci95_low, i.instr_per_op_ci95_high),
                    ratio_of(
                        i.instr_ratio,
                        i.instr_ratio_ci95_low,
                        i.instr_ratio_ci95_high,
                        i.instr_verdict,
                    ),
                ),
                None => (None, None, None),
            },
            Metric::Failures => {
                let f = &self.failures;
                let against = f.failure_diff_pp.map(|diff| Difference {
                    diff,
                    ci95: interval(f.failure_diff_ci95_low_pp, f.failure_diff_ci95_high_pp),
                    change: f.failure_change,
                });
                return Figure {
                    metric,
                    value: f.failure_pct,
                    ci95: None,
                    against: against.map_or(Against::Nothing, Against::Difference),
                };
            }
        };
        Figure {
            metric,
            value,
            ci95,
            against: against.map_or(Against::Nothing, Against::Ratio),
        }
    }
}

fn ratio_of(ratio: Option<f64>, low: Option<f64>, high: Option<f64>, verdict: Option<Verdict>) -> Option<Ratio> {
    Some(Ratio {
        ratio: ratio?,
        ci95: low.zip(high).map(|(low, high)| Interval { low, high }),
        verdict,
    })
}

/// Summary rows of a run: per configuration, `all` first, then each operation type.
pub fn summarize_run(
    manifest: &Manifest,
    workload: super::RunWorkload,
    stats: &Statistics,
    trials: &[TrialRecord],
    operations: &[String],
) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    let index = OpIndex::of(trials);
    for cfg in &manifest.configs {
        let measured: Vec<&TrialRecord> = trials.iter().filter(|t| t.config == cfg.index && !t.warmup).collect();
        for op in std::iter::once("all").chain(operations.iter().map(String::as_str)) {
            if let Some(mut r) = row(manifest, stats, cfg.index, op, &measured, trials, &index) {
                r.operation_label = workload.hooks().operation_label(op, &manifest.params);
                rows.push(r);
            }
        }
    }
    // Where any transaction waited, every row has the busy-wait fields (null where none
    // waited), so that a table's rows have the same columns.
    if rows.iter().any(|r| r.busy_waits.is_some()) {
        for r in &mut rows {
            r.busy_waits.get_or_insert_with(BusyWaits::default);
        }
    }
    rows
}

/// Fastest over slowest configuration (whole trials) in a metric: the median throughput, or
/// in a latency metric the median of the trials' percentile (fastest = lowest), with the
/// interval of that speed ratio and whether the difference is real.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub ratio: f64,
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    pub verdict: Option<Verdict>,
    pub fastest: String,
    pub slowest: String,
    /// What was compared (`tps`, or `p99` in an open loop); absent in reports written before.
    #[serde(default = "tps")]
    pub metric: Metric,
}

fn tps() -> Metric {
    Metric::Tps
}

/// The max/min spread of the `all` rows in `metric` (throughput for `time` and `failures`,
/// which have no speed of their own to spread), when there are at least two configurations.
pub fn spread(rows: &[SummaryRow], stats: &Statistics, trials: &[TrialRecord], metric: Metric) -> Option<Spread> {
    let metric = match metric {
        Metric::P50 | Metric::P99 | Metric::P999 => metric,
        _ => Metric::Tps,
    };
    let all: Vec<(&SummaryRow, f64)> = rows
        .iter()
        .filter(|r| r.operation == "all")
        .filter_map(|r| r.figure(metric).value.map(|v| (r, v)))
        .filter(|(_, v)| *v > 0.0)
        .collect();
    if all.len() < 2 {
        return None;
    }
    let high = all.iter().max_by(|a, b| a.1.total_cmp(&b.1))?.0;
    let low = all.iter().min_by(|a, b| a.1.total_cmp(&b.1))?.0;
    let (fast, slow) = if metric == Metric::Tps {
        (high, low)
    } else {
        (low, high)
    };
    let r = stats.compare(
        &values(trials, slow.config, "all", metric),
        &values(trials, fast.config, "all", metric),
        metric,
    )?;
    Some(Spread {
        ratio: r.ratio,
        ci95_low: r.ci95.map(|c| c.low),
        ci95_high: r.ci95.map(|c| c.high),
        verdict: r.verdict,
        fastest: fast.label.clone(),
        slowest: slow.label.clone(),
        metric,
    })
}

/// Tukey outliers among each configuration's whole-trial throughputs, as warnings naming the
/// trials by their number among the configuration's measured trials (1 to N, as "among N
/// trials" counts them), with their `seq` (the position in the run, where configurations
/// interleave) to find them in the JSON.
pub fn outlier_warnings(configs: &[ConfigInfo], trials: &[TrialRecord]) -> Vec<String> {
    let mut w = Vec::new();
    for cfg in configs {
        let s = samples(trials, cfg.index, "all", Metric::Tps);
        if s.len() < 4 {
            continue;
        }
        let vals: Vec<f64> = s.iter().map(|x| x.value).collect();
        let found = litebench_stats::tukey_outliers(&vals);
        if found.is_empty() {
            continue;
        }
        let list: Vec<String> = found
            .iter()
            .map(|(i, kind)| {
                format!(
                    "trial {} ({} tx/s, {}; seq {})",
                    i + 1,
                    super::number::num(s[*i].value),
                    kind.as_str(),
                    s[*i].seq
                )
            })
            .collect();
        w.push(format!(
            "#{} {}: {} Tukey outlier{} among {} trials: {}; they are kept in every figure",
            cfg.index,
            cfg.label,
            found.len(),
            if found.len() == 1 { "" } else { "s" },
            s.len(),
            list.join(", ")
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(seq: u64, config: usize, ops: u64, ms: u64) -> TrialRecord {
        TrialRecord {
            seq,
            config,
            total_ops: ops,
            measured_ns: ms * 1_000_000,
            ..Default::default()
        }
    }

    fn config(index: usize) -> ConfigInfo {
        ConfigInfo {
            index,
            engine: "sqlite".into(),
            knobs: Default::default(),
            label: "defaults".into(),
            knob_origins: Vec::new(),
            fs: None,
            scheduler: None,
            scheduler_device: None,
            storage: None,
            load: None,
            extension: None,
            driver: None,
            role_drivers: Vec::new(),
        }
    }

    /// Issue 45, item 10: a script's summary scanned every trial's operation types for each
    /// type's row (20,000 statements: 38 s). The comparisons of a type against a name, counted
    /// over the operation list, the summary and the side-by-side table, grow as the types do.
    #[test]
    fn a_reports_comparisons_grow_linearly_with_the_operation_types() {
        use crate::model::op::comparisons;
        let comparisons_for = |n: usize| -> u64 {
            let mut m = crate::store::tests::manifest();
            m.configs = vec![config(0), config(1)];
            let mut h = new_histogram();
            h.record(1000).unwrap();
            let histogram = crate::model::op::encode(&h);
            let ops: Vec<OpResult> = std::iter::once(OpResult {
                name: "script".into(),
                ops: 10,
                elapsed_ns: 1_000_000,
                histogram: histogram.clone(),
                ..Default::default()
            })
            .chain((0..n).map(|i| OpResult {
                name: format!("script:{i} SELECT {i}"),
                ops: 10,
                elapsed_ns: 1_000_000,
                histogram: histogram.clone(),
                part_of: Some("script".into()),
                ..Default::default()
            }))
            .collect();
            let trials: Vec<TrialRecord> = (0..4)
                .map(|seq| TrialRecord {
                    ops: ops.clone(),
                    ..trial(seq, seq as usize % 2, 10, 1)
                })
                .collect();
            let stats = Statistics::of(&m, None);
            let before = comparisons();
            let w = crate::report::RunWorkload::of(&m);
            let names = crate::report::operations_of(&m, w, &trials);
            let rows = summarize_run(&m, w, &stats, &trials, &names);
            let pivot = crate::report::pivot::side_by_side(&m, w, &stats, &trials, &names, Metric::P99, 0);
            let counted = comparisons() - before;
            assert_eq!(rows.len(), 2 * (n + 2), "every type has its row");
            assert_eq!(pivot.rows.len(), n + 2);
            assert!(rows.iter().all(|r| r.throughput.tps_median > 0.0));
            counted
        };
        let (small, large) = (comparisons_for(250), comparisons_for(1000));
        // Four times the types: about four times the comparisons (quadratic: sixteen).
        assert!(
            large <= 5 * small,
            "{small} comparisons for 250 types, {large} for 1000"
        );
        assert!(large <= 500 * 1000, "{large}");
    }

    #[test]
    fn outliers_are_named_by_trial() {
        let cfg = config(0);
        // Eight trials at ~1000 tx/s and one (seq 5) at 100 tx/s; a warm-up outlier is ignored.
        let mut trials: Vec<TrialRecord> = (0..9)
            .map(|i| trial(i, 0, 1000, if i == 5 { 10_000 } else { 1000 + i }))
            .collect();
        let mut warm = trial(9, 0, 1000, 100_000);
        warm.warmup = true;
        trials.push(warm);
        let w = outlier_warnings(std::slice::from_ref(&cfg), &trials);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("1 Tukey outlier among 9 trials: trial 6 (100 tx/s, low severe; seq 5)"),
            "{}",
            w[0]
        );
        // Without the slow trial there is nothing to say.
        trials.remove(5);
        assert!(outlier_warnings(&[cfg], &trials).is_empty());
    }
}
