//! Summaries of stored trials: what the tables, the JSON `summary` and the CSV rows show.
//!
//! Everything here is computed from [`TrialRecord`]s, so a run loaded from the results store is
//! summarised exactly like a run that just finished. Warm-up trials are never included. A value
//! that could not be determined is `None` (JSON `null`, empty in CSV, `-` in tables), never 0.

use super::stats::{samples, values, Metric, Statistics};
use crate::engines::registry;
use crate::model::op::{decode, new_histogram, Latency, OpResult};
use crate::model::record::{ConfigInfo, Manifest, TrialRecord};
use crate::sys::iocount::IoSnapshot;
use hdrhistogram::Histogram;
use litebench_stats::{summarize, Ratio, Verdict, NOISY_CV};
use serde::{Deserialize, Serialize};

/// One row of a summary: one configuration and one operation type (or `all`).
/// JSON and CSV both serialise exactly this type.
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
    /// Transactions per trial (mean): completed ones, successful or not.
    pub ops_per_trial: f64,
    /// Successful transactions over completed ones, all measured trials pooled (1.0 for
    /// workloads where every completed transaction succeeds; null when none completed).
    pub success_rate: Option<f64>,
    /// Transactions rolled back on lock contention (SQLITE_BUSY) per trial (mean); not in
    /// `ops_per_trial`.
    pub busy: f64,
    /// Measured time per trial, milliseconds: median and mean across trials (what the speed
    /// comparison suites report per test).
    pub time_ms_median: f64,
    pub time_ms_mean: f64,
    /// Throughput in transactions per second across trials.
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
    /// Latency percentiles over all measured trials (merged histograms), microseconds; null
    /// when no operation was timed.
    pub latency_mean_us: Option<f64>,
    pub latency_p50_us: Option<f64>,
    pub latency_p95_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub latency_p999_us: Option<f64>,
    pub latency_max_us: Option<f64>,
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
    /// several clients as threads, whose I/O client 0 attributes to its own current operation
    /// (the counters are the process's, docs/load.md). `all` rows, one client and client
    /// processes (each counts its own) are exact.
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
    /// CV above 5%.
    pub noisy: bool,
    /// The stored `verify-durability` verdicts for this configuration's SQLite build and
    /// settings, `power: VERDICT IN WORDS; process: ...` (`consistent; lost the last commit in 5,349 of 16,484 states`) (set by `show`; null
    /// when there are none).
    #[serde(default)]
    pub durability: Option<String>,
    /// Runs with a load shape other than one closed-loop client (absent otherwise), per trial
    /// (mean): tries beyond the first of transactions that met a lock, transactions skipped by
    /// `--latency-limit`, and completed ones slower than it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<f64>,
    /// Open loop (`--rate`) only: the target rate over all clients, and the schedule lag (actual
    /// minus intended start) over all measured trials, microseconds. Latency above is from the
    /// intended start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_tps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_p50_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_p99_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_max_us: Option<f64>,
}

fn mean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

/// Whether a configuration's engine had its I/O counted by the VFS shim: recorded in the
/// engine's info since this field exists, else known from its kind.
pub fn io_counted(manifest: &Manifest, engine_label: &str) -> bool {
    manifest
        .engines
        .iter()
        .find(|e| e.label == engine_label)
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
) -> Option<SummaryRow> {
    let cfg = manifest.configs.get(config)?;
    let pick = |t: &TrialRecord| -> (u64, u64, IoSnapshot) {
        if operation == "all" {
            (t.total_ops, t.measured_ns, t.io)
        } else {
            t.ops
                .iter()
                .find(|o| o.name == operation)
                .map_or((0, 0, Default::default()), |o| (o.ops, o.elapsed_ns, o.io))
        }
    };
    let parts: Vec<(u64, u64, IoSnapshot)> = trials.iter().map(|t| pick(t)).collect();
    // Per trial: (successful, busy) over the selected operation types.
    let outcomes: Vec<(u64, u64)> = trials
        .iter()
        .map(|t| {
            t.ops
                .iter()
                .filter(|o| o.counts_in(operation))
                .fold((0, 0), |(s, b), o| (s + o.succeeded(), b + o.busy))
        })
        .collect();
    let completed: u64 = parts.iter().map(|p| p.0).sum();
    let succeeded: u64 = outcomes.iter().map(|o| o.0).sum();
    let tps_success: Vec<f64> = parts
        .iter()
        .zip(&outcomes)
        .filter(|(p, _)| p.1 > 0)
        .map(|(p, o)| o.0 as f64 / (p.1 as f64 / 1e9))
        .collect();
    let tps = values(all, config, operation, Metric::Tps);
    let s = summarize(&tps)?;
    let times_ms: Vec<f64> = parts.iter().map(|p| p.1 as f64 / 1e6).collect();
    let hist = merged_latency(trials, operation);
    let lat = (!hist.is_empty()).then(|| Latency::of(&hist));
    let counted = io_counted(manifest, &cfg.engine);
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
    let us = |ns: f64| ns / 1000.0;
    let device: Vec<(&crate::sys::deviceio::DeviceIoDelta, u64)> = if operation == "all" {
        trials
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
    // Load-shaped runs: every row carries the counts (so CSV columns agree), open loops the lag.
    let shaped = !manifest.load.is_default();
    let per_trial = |f: &dyn Fn(&OpResult) -> u64| -> f64 {
        let per: Vec<f64> = trials
            .iter()
            .map(|t| t.ops.iter().filter(|o| o.counts_in(operation)).map(f).sum::<u64>() as f64)
            .collect();
        mean(per.into_iter()).unwrap_or(0.0)
    };
    let lag = manifest
        .load
        .open()
        .then(|| Latency::of(&merged_lag(trials, operation)));
    let ratio: Option<Ratio> = (config != 0)
        .then(|| stats.compare(&values(all, 0, operation, Metric::Tps), &tps, Metric::Tps))
        .flatten()
        .or_else(|| {
            // The baseline against itself: exactly 1, nothing to conclude.
            (config == 0).then_some(Ratio {
                ratio: 1.0,
                ci95: None,
                verdict: None,
            })
        });
    Some(SummaryRow {
        config,
        label: cfg.label.clone(),
        engine: cfg.engine.clone(),
        operation: operation.to_string(),
        operation_label: crate::workload::find(&manifest.workload).map_or_else(
            || operation.to_string(),
            |w| w.operation_label(operation, &manifest.params),
        ),
        trials: trials.len(),
        ops_per_trial: mean(parts.iter().map(|p| p.0 as f64)).unwrap_or(0.0),
        success_rate: (completed > 0).then(|| succeeded as f64 / completed as f64),
        busy: mean(outcomes.iter().map(|o| o.1 as f64)).unwrap_or(0.0),
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
        latency_mean_us: lat.as_ref().map(|l| us(l.mean_ns)),
        latency_p50_us: lat.as_ref().map(|l| us(l.p50_ns as f64)),
        latency_p95_us: lat.as_ref().map(|l| us(l.p95_ns as f64)),
        latency_p99_us: lat.as_ref().map(|l| us(l.p99_ns as f64)),
        latency_p999_us: lat.as_ref().map(|l| us(l.p999_ns as f64)),
        latency_max_us: lat.as_ref().map(|l| us(l.max_ns as f64)),
        io_counted: counted,
        syncs_per_tx,
        file_syncs_per_tx: per_tx(&|io| io.total().syncs),
        write_bytes_per_tx: per_tx(&|io| io.total().write_bytes),
        read_bytes_per_tx: per_tx(&|io| io.total().read_bytes),
        writes_per_tx: per_tx(&|io| io.total().writes),
        io_per_op_approximate: counted
            && operation != "all"
            && manifest.load.clients > 1
            && manifest.load.client_mode == crate::model::load::ClientMode::Threads,
        device_write_bytes_per_tx: device_per_tx(&|d| d.write_bytes),
        device_read_bytes_per_tx: device_per_tx(&|d| d.read_bytes),
        device_io_source,
        sync_bound_tps,
        noisy: s.cv.is_some_and(|cv| cv > NOISY_CV),
        durability: None,
        retries: shaped.then(|| per_trial(&|o| o.retries)),
        skipped: shaped.then(|| per_trial(&|o| o.skipped)),
        late: shaped.then(|| per_trial(&|o| o.late)),
        target_tps: manifest.load.rate,
        lag_p50_us: lag.as_ref().map(|l| us(l.p50_ns as f64)),
        lag_p99_us: lag.as_ref().map(|l| us(l.p99_ns as f64)),
        lag_max_us: lag.as_ref().map(|l| us(l.max_ns as f64)),
    })
}

/// The schedule-lag histograms of `operation` (`all`: every type) in `trials`, merged; empty
/// for closed loops.
pub fn merged_lag(trials: &[&TrialRecord], operation: &str) -> Histogram<u64> {
    merged(trials, operation, |o| o.lag_histogram.as_ref())
}

/// The latency histograms of `operation` (`all`: every type) in `trials`, merged: exact
/// percentiles over all of them (the summary's p50..max and the report's percentile plots).
pub fn merged_latency(trials: &[&TrialRecord], operation: &str) -> Histogram<u64> {
    merged(trials, operation, |o| Some(&o.histogram))
}

/// The stored histograms `pick` gives of `operation`'s results in `trials`, merged.
fn merged(trials: &[&TrialRecord], operation: &str, pick: impl Fn(&OpResult) -> Option<&String>) -> Histogram<u64> {
    let mut hist = new_histogram();
    for o in trials.iter().flat_map(|t| &t.ops) {
        if o.counts_in(operation) {
            if let Some(h) = pick(o).and_then(|s| decode(s)) {
                let _ = hist.add(&h);
            }
        }
    }
    hist
}

impl SummaryRow {
    /// The ratio to the baseline with its interval and verdict, as the stats crate gives it.
    pub fn ratio(&self) -> Option<Ratio> {
        Some(Ratio {
            ratio: self.ratio?,
            ci95: self
                .ratio_ci95_low
                .zip(self.ratio_ci95_high)
                .map(|(low, high)| litebench_stats::Interval { low, high }),
            verdict: self.verdict,
        })
    }
}

/// Summary rows of a run: per configuration, `all` first, then each operation type.
pub fn summarize_run(
    manifest: &Manifest,
    stats: &Statistics,
    trials: &[TrialRecord],
    operations: &[String],
) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    for cfg in &manifest.configs {
        let measured: Vec<&TrialRecord> = trials.iter().filter(|t| t.config == cfg.index && !t.warmup).collect();
        for op in std::iter::once("all").chain(operations.iter().map(String::as_str)) {
            if let Some(r) = row(manifest, stats, cfg.index, op, &measured, trials) {
                rows.push(r);
            }
        }
    }
    rows
}

/// Fastest over slowest median throughput (whole trials) across configurations, with the
/// interval of that ratio and whether the difference is real.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub ratio: f64,
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    pub verdict: Option<Verdict>,
    pub fastest: String,
    pub slowest: String,
}

/// The max/min spread of the `all` rows, when there are at least two configurations.
pub fn spread(rows: &[SummaryRow], stats: &Statistics, trials: &[TrialRecord]) -> Option<Spread> {
    let all: Vec<&SummaryRow> = rows
        .iter()
        .filter(|r| r.operation == "all" && r.tps_median > 0.0)
        .collect();
    if all.len() < 2 {
        return None;
    }
    let max = all.iter().max_by(|a, b| a.tps_median.total_cmp(&b.tps_median))?;
    let min = all.iter().min_by(|a, b| a.tps_median.total_cmp(&b.tps_median))?;
    let r = stats.compare(
        &values(trials, min.config, "all", Metric::Tps),
        &values(trials, max.config, "all", Metric::Tps),
        Metric::Tps,
    )?;
    Some(Spread {
        ratio: r.ratio,
        ci95_low: r.ci95.map(|c| c.low),
        ci95_high: r.ci95.map(|c| c.high),
        verdict: r.verdict,
        fastest: max.label.clone(),
        slowest: min.label.clone(),
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

    #[test]
    fn outliers_are_named_by_trial() {
        let cfg = ConfigInfo {
            index: 0,
            engine: "sqlite".into(),
            knobs: Default::default(),
            label: "defaults".into(),
            knob_origins: Vec::new(),
            fs: None,
            scheduler: None,
            scheduler_device: None,
        };
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
