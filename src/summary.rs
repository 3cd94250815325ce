//! Summaries of stored trials: what the tables, the JSON `summary` and the CSV rows show.
//!
//! Everything here is computed from [`TrialRecord`]s, so a run loaded from the results store is
//! summarised exactly like a run that just finished. Warm-up trials are never included.

use crate::recorder::{decode, new_histogram, Latency};
use crate::result::{Manifest, TrialRecord};
use litebench_stats::{summarize, Summary, NOISY_CV};
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
    pub tps_ci95_low: Option<f64>,
    pub tps_ci95_high: Option<f64>,
    pub tps_min: f64,
    pub tps_max: f64,
    /// Median throughput of successful transactions only, across trials.
    pub tps_success_median: f64,
    /// Median throughput relative to the first configuration's, same operation.
    pub ratio_to_first: Option<f64>,
    /// Latency percentiles over all measured trials (merged histograms), microseconds.
    pub latency_mean_us: f64,
    pub latency_p50_us: f64,
    pub latency_p95_us: f64,
    pub latency_p99_us: f64,
    pub latency_p999_us: f64,
    pub latency_max_us: f64,
    /// Whether litebench counts this engine's I/O (the VFS shim: SQLite builds). When false,
    /// the per-transaction I/O fields below are 0 because nothing was counted, not because
    /// nothing happened; tables print `-`.
    pub io_counted: bool,
    /// fsync/fdatasync system calls per transaction (file syncs plus directory syncs).
    pub syncs_per_tx: f64,
    /// File syncs (`xSync`) per transaction.
    pub file_syncs_per_tx: f64,
    /// Bytes SQLite wrote per transaction, all files.
    pub write_bytes_per_tx: f64,
    /// Bytes SQLite read per transaction, all files.
    pub read_bytes_per_tx: f64,
    /// Write calls per transaction.
    pub writes_per_tx: f64,
    /// Upper bound on transactions per second set by sync latency: 1 / (syncs per transaction
    /// x median sync latency measured in the scratch directory). None without syncs.
    pub sync_bound_tps: Option<f64>,
    /// CV above 5%.
    pub noisy: bool,
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

fn row(manifest: &Manifest, config: usize, operation: &str, trials: &[&TrialRecord]) -> Option<SummaryRow> {
    let cfg = manifest.configs.get(config)?;
    // Per trial: (ops, elapsed_ns, io)
    let parts: Vec<(u64, u64, crate::iocount::IoSnapshot)> = trials
        .iter()
        .map(|t| {
            if operation == "all" {
                (t.total_ops, t.measured_ns, t.io)
            } else {
                t.ops
                    .iter()
                    .find(|o| o.name == operation)
                    .map_or((0, 0, Default::default()), |o| (o.ops, o.elapsed_ns, o.io))
            }
        })
        .collect();
    // Per trial: (successful, busy) over the selected operation types.
    let outcomes: Vec<(u64, u64)> = trials
        .iter()
        .map(|t| {
            t.ops
                .iter()
                .filter(|o| operation == "all" || o.name == operation)
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
    let tps: Vec<f64> = parts
        .iter()
        .filter(|p| p.1 > 0)
        .map(|p| p.0 as f64 / (p.1 as f64 / 1e9))
        .collect();
    let s: Summary = summarize(&tps)?;
    let times_ms: Vec<f64> = parts.iter().map(|p| p.1 as f64 / 1e6).collect();
    let mut hist = new_histogram();
    for t in trials {
        for o in &t.ops {
            if operation == "all" || o.name == operation {
                if let Some(h) = decode(&o.histogram) {
                    let _ = hist.add(&h);
                }
            }
        }
    }
    let lat = Latency::of(&hist);
    let per_tx = |f: &dyn Fn(&crate::iocount::IoSnapshot) -> u64| {
        mean(parts.iter().filter(|p| p.0 > 0).map(|p| f(&p.2) as f64 / p.0 as f64))
    };
    let syncs_per_tx = per_tx(&|io| io.sync_syscalls());
    let sync_bound_tps = manifest
        .sync_latency
        .as_ref()
        .filter(|_| syncs_per_tx > 0.0 && !manifest.in_memory)
        .map(|l| 1e6 / (syncs_per_tx * l.median_us));
    let us = |ns: f64| ns / 1000.0;
    Some(SummaryRow {
        config,
        label: cfg.label.clone(),
        engine: cfg.engine.clone(),
        operation: operation.to_string(),
        trials: trials.len(),
        ops_per_trial: mean(parts.iter().map(|p| p.0 as f64)),
        success_rate: (completed > 0).then(|| succeeded as f64 / completed as f64),
        busy: mean(outcomes.iter().map(|o| o.1 as f64)),
        time_ms_median: summarize(&times_ms).map_or(0.0, |t| t.median),
        time_ms_mean: mean(times_ms.iter().copied()),
        tps_mean: s.mean,
        tps_median: s.median,
        tps_stddev: s.stddev,
        tps_cv: s.cv,
        tps_ci95_low: s.ci95.map(|c| c.low),
        tps_ci95_high: s.ci95.map(|c| c.high),
        tps_min: s.min,
        tps_max: s.max,
        tps_success_median: summarize(&tps_success).map_or(0.0, |t| t.median),
        ratio_to_first: None,
        latency_mean_us: us(lat.mean_ns),
        latency_p50_us: us(lat.p50_ns as f64),
        latency_p95_us: us(lat.p95_ns as f64),
        latency_p99_us: us(lat.p99_ns as f64),
        latency_p999_us: us(lat.p999_ns as f64),
        latency_max_us: us(lat.max_ns as f64),
        io_counted: manifest
            .engines
            .iter()
            .any(|e| e.label == cfg.engine && e.sqlite.is_some()),
        syncs_per_tx,
        file_syncs_per_tx: per_tx(&|io| io.total().syncs),
        write_bytes_per_tx: per_tx(&|io| io.total().write_bytes),
        read_bytes_per_tx: per_tx(&|io| io.total().read_bytes),
        writes_per_tx: per_tx(&|io| io.total().writes),
        sync_bound_tps,
        noisy: s.cv.is_some_and(|cv| cv > NOISY_CV),
    })
}

/// Summary rows of a run: per configuration, `all` first, then each operation type.
pub fn summarize_run(manifest: &Manifest, trials: &[TrialRecord], operations: &[String]) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    for cfg in &manifest.configs {
        let measured: Vec<&TrialRecord> = trials.iter().filter(|t| t.config == cfg.index && !t.warmup).collect();
        for op in std::iter::once("all").chain(operations.iter().map(String::as_str)) {
            if let Some(r) = row(manifest, cfg.index, op, &measured) {
                rows.push(r);
            }
        }
    }
    let firsts: Vec<(String, f64)> = rows
        .iter()
        .filter(|r| r.config == 0)
        .map(|r| (r.operation.clone(), r.tps_median))
        .collect();
    for r in &mut rows {
        r.ratio_to_first = firsts
            .iter()
            .find(|(op, _)| *op == r.operation)
            .filter(|(_, m)| *m > 0.0)
            .map(|(_, m)| r.tps_median / m);
    }
    rows
}

/// Largest over smallest median throughput (whole trials) across configurations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub ratio: f64,
    pub fastest: String,
    pub slowest: String,
}

/// The max/min spread of the `all` rows, when there are at least two configurations.
pub fn spread(rows: &[SummaryRow]) -> Option<Spread> {
    let all: Vec<&SummaryRow> = rows
        .iter()
        .filter(|r| r.operation == "all" && r.tps_median > 0.0)
        .collect();
    if all.len() < 2 {
        return None;
    }
    let max = all.iter().max_by(|a, b| a.tps_median.total_cmp(&b.tps_median))?;
    let min = all.iter().min_by(|a, b| a.tps_median.total_cmp(&b.tps_median))?;
    Some(Spread {
        ratio: max.tps_median / min.tps_median,
        fastest: max.label.clone(),
        slowest: min.label.clone(),
    })
}
