//! `--storage`'s answer: the run's answer (throughput, p99, failures) at each storage value,
//! which configuration wins at each, and what the storage was: emulated (delays litebench's
//! VFS slept, with how many and how long they actually were) or throttled by the kernel (the
//! cgroup and its limits).
//!
//! Why a section of its own, on the first screen: a run across `--storage none,sync=1ms,
//! sync=4ms` is asked "how does my app degrade as the disk gets slower, and does the best
//! configuration change?", which the configurations' table answers only row by row. And an
//! emulated number must never pass for a measured disk's, so the mark travels with every row,
//! the JSON and the page.

use crate::model::record::{Manifest, TrialRecord};
use crate::model::storage::StorageInfo;
use crate::report::summary::SummaryRow;
use crate::sys::iocount::{DelayedOp, SleptIo};
use serde::Serialize;

/// One storage value's point of the curve.
#[derive(Debug, Clone, Serialize)]
pub struct StoragePoint {
    /// The value as given (`sync=2ms`, `none`).
    pub storage: String,
    /// `none`, `emulated`, `throttled` or `emulated+throttled`.
    pub kind: String,
    /// The configuration that wins here: the fastest without failed transactions (else the
    /// fastest), or in an open loop (`--rate`) the one with the lowest p99, with its label
    /// less the storage.
    pub best: usize,
    pub best_label: String,
    pub tps_median: f64,
    pub latency_p99_ms_median: Option<f64>,
    /// Failed transactions, as a share of those tried (0 without failures).
    pub failed_share: f64,
    /// The emulated delays actually slept in the winner's measured trials, summed.
    pub slept: SleptIo,
    /// A throttle's cgroup and limits (`7:0 riops=3000 wiops=3000` in `/sys/fs/cgroup/...`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttle: Option<String>,
}

/// The section: one point per storage value, in the order given.
#[derive(Debug, Clone, Serialize)]
pub struct StorageCurve {
    pub points: Vec<StoragePoint>,
    /// Whether any value is emulated: the mark every view prints.
    pub emulated: bool,
    /// Each throttled configuration against each emulated one of the same engine and knobs:
    /// the cross-check of the emulation against a slow device that is real.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cross_check: Vec<CrossCheck>,
}

/// A throttled configuration beside an emulated one of the same engine and knobs: the sync
/// latency measured on the throttled device (inside its cgroup) beside the delay the emulation
/// slept, and how far apart their answers are. Why: an emulation is only worth reading if it
/// answers as a real slow device does; this says by how much it did, in the run itself.
#[derive(Debug, Clone, Serialize)]
pub struct CrossCheck {
    pub throttled: usize,
    pub throttled_label: String,
    pub emulated: usize,
    pub emulated_label: String,
    /// The throttled device's sync latency (pwrite 4 KiB + fdatasync) from inside its cgroup.
    pub throttled_sync_median_ms: f64,
    pub throttled_sync_p99_ms: f64,
    /// The mean, which decides throughput: a throttle's syncs are bimodal.
    pub throttled_sync_mean_ms: Option<f64>,
    /// The emulated sync delay as given, and the mean actually slept per sync.
    pub emulated_sync: String,
    pub emulated_slept_sync_mean_ms: Option<f64>,
    pub throttled_tps: f64,
    pub emulated_tps: f64,
    /// Emulated over throttled.
    pub tps_ratio: f64,
    pub throttled_p99_ms: Option<f64>,
    pub emulated_p99_ms: Option<f64>,
    pub p99_ratio: Option<f64>,
}

/// The cross-checks of a run: every throttled configuration whose device's sync was measured,
/// against every emulated one with a sync delay, of the same engine and knobs.
fn cross_checks(m: &Manifest, summary: &[SummaryRow], trials: &[TrialRecord]) -> Vec<CrossCheck> {
    let whole = |config: usize| summary.iter().find(|r| r.config == config && r.operation == "all");
    let mut out = Vec::new();
    for t in &m.configs {
        let Some((ts, sync)) = t.storage.as_ref().and_then(|s| Some((s, s.throttled_sync.as_ref()?))) else {
            continue;
        };
        for e in &m.configs {
            let Some(es) = e.storage.as_ref().filter(|s| s.spec.emulated() && !s.spec.throttled()) else {
                continue;
            };
            let Some(delay) = es.spec.delays.sync else { continue };
            if e.engine != t.engine || e.knobs != t.knobs || !ts.spec.throttled() {
                continue;
            }
            let (Some(rt), Some(re)) = (whole(t.index), whole(e.index)) else {
                continue;
            };
            let slept = slept_of(trials, e.index);
            let (tp, ep) = (rt.latency.latency_p99_ms_median, re.latency.latency_p99_ms_median);
            out.push(CrossCheck {
                throttled: t.index,
                throttled_label: t.label.clone(),
                emulated: e.index,
                emulated_label: e.label.clone(),
                throttled_sync_median_ms: sync.median_us / 1e3,
                throttled_sync_p99_ms: sync.p99_us / 1e3,
                throttled_sync_mean_ms: sync.mean_us.map(|us| us / 1e3),
                emulated_sync: delay.to_string(),
                emulated_slept_sync_mean_ms: (slept.syncs > 0).then(|| slept.sync_ns as f64 / slept.syncs as f64 / 1e6),
                throttled_tps: rt.throughput.tps_median,
                emulated_tps: re.throughput.tps_median,
                tps_ratio: re.throughput.tps_median / rt.throughput.tps_median,
                throttled_p99_ms: tp,
                emulated_p99_ms: ep,
                p99_ratio: tp.zip(ep).map(|(t, e)| e / t),
            });
        }
    }
    out
}

/// The cross-checks in text: a row per pair, each side's sync (measured on the device, slept
/// by the emulation), throughput and p99 with the emulation's ratio to the device.
fn cross_check_text(c: &[CrossCheck], unit: &str, markdown: bool) -> String {
    if c.is_empty() {
        return String::new();
    }
    let num = crate::report::number::num;
    let ms = |x: Option<f64>| x.map_or("-".into(), num);
    let headers = [
        "throttled vs EMULATED",
        "sync ms mean p50/p99 vs slept",
        &format!("{unit}/s"),
        "p99 ms",
    ];
    let rows: Vec<Vec<String>> = c
        .iter()
        .map(|x| {
            vec![
                format!("#{} vs #{}", x.throttled, x.emulated),
                format!(
                    "{} {}/{} vs {} ({})",
                    ms(x.throttled_sync_mean_ms),
                    num(x.throttled_sync_median_ms),
                    num(x.throttled_sync_p99_ms),
                    ms(x.emulated_slept_sync_mean_ms),
                    x.emulated_sync
                ),
                format!(
                    "{} vs {} ({:.2}x)",
                    num(x.throttled_tps),
                    num(x.emulated_tps),
                    x.tps_ratio
                ),
                format!(
                    "{} vs {}{}",
                    ms(x.throttled_p99_ms),
                    ms(x.emulated_p99_ms),
                    x.p99_ratio.map_or(String::new(), |r| format!(" ({r:.2}x)"))
                ),
            ]
        })
        .collect();
    let mut out = crate::report::layout::heading("the emulation against the throttled device", markdown);
    out += &crate::report::layout::table(&headers, &rows, markdown);
    for x in c {
        out += &(crate::report::layout::fit_prose(format!("  {}", x.sentence(unit))) + "\n");
    }
    out
}

impl CrossCheck {
    /// The pair and how far apart they answered, in words (the text's line under the table,
    /// the page's under its own).
    pub fn sentence(&self, unit: &str) -> String {
        format!(
            "#{} {} against #{} {}: the emulation's {unit}/s is {:.2}x the device's{}",
            self.throttled,
            self.throttled_label,
            self.emulated,
            self.emulated_label,
            self.tps_ratio,
            self.p99_ratio.map_or(String::new(), |r| format!(", its p99 {r:.2}x"))
        )
    }
}

/// The emulated delays slept in a trial: the larger of what its operations counted (client
/// processes' included) and what the driver's process counted.
fn trial_slept(t: &TrialRecord) -> SleptIo {
    let ns = |s: &SleptIo| s.sync_ns + s.read_ns + s.write_ns;
    if ns(&t.io.slept) >= ns(&t.io_trial.slept) {
        t.io.slept
    } else {
        t.io_trial.slept
    }
}

/// Configuration `config`'s delays slept over its measured trials.
pub fn slept_of(trials: &[TrialRecord], config: usize) -> SleptIo {
    trials
        .iter()
        .filter(|t| t.config == config && !t.warmup)
        .fold(SleptIo::ZERO, |acc, t| {
            let s = trial_slept(t);
            SleptIo {
                syncs: acc.syncs + s.syncs,
                sync_ns: acc.sync_ns + s.sync_ns,
                reads: acc.reads + s.reads,
                read_ns: acc.read_ns + s.read_ns,
                writes: acc.writes + s.writes,
                write_ns: acc.write_ns + s.write_ns,
            }
        })
}

/// `syncs 1,204 x 2.06 ms, writes 310 x 0.10 ms` (empty where nothing was slept).
pub fn slept_words(s: &SleptIo) -> String {
    [
        (DelayedOp::Sync, "syncs"),
        (DelayedOp::Read, "reads"),
        (DelayedOp::Write, "writes"),
    ]
    .iter()
    .filter_map(|(op, name)| {
        let (n, ns) = s.of(*op);
        (n > 0).then(|| format!("{name} {} x {:.2} ms", grouped(n), ns as f64 / n as f64 / 1e6))
    })
    .collect::<Vec<_>>()
    .join(", ")
}

use crate::base::thousands::grouped;

/// The curve of a run with `--storage`; `None` without.
pub fn curve(m: &Manifest, summary: &[SummaryRow], trials: &[TrialRecord]) -> Option<StorageCurve> {
    let mut values: Vec<(&str, &str)> = Vec::new();
    for c in &m.configs {
        let s = c.storage.as_ref()?;
        if !values.iter().any(|(t, _)| *t == s.spec.text) {
            values.push((&s.spec.text, &s.kind));
        }
    }
    let whole = |config: usize| summary.iter().find(|r| r.config == config && r.operation == "all");
    let mut points = Vec::new();
    for (text, kind) in values {
        let rows: Vec<&SummaryRow> = m
            .configs
            .iter()
            .filter(|c| c.storage.as_ref().is_some_and(|s| s.spec.text == text))
            .filter_map(|c| whole(c.index))
            .collect();
        // Failed as the run's answer counts it: transactions that gave up, failed or were
        // skipped over those attempted (`success_rate` counts none of a lock's give-ups), and
        // any rolled back on a lock.
        let failed = |r: &SummaryRow| {
            r.failures
                .failure_pct
                .map_or(1.0 - r.failures.success_rate.unwrap_or(1.0), |p| p / 100.0)
        };
        let clean = |r: &SummaryRow| failed(r) == 0.0 && r.failures.busy == 0.0;
        // An open loop's configurations all achieve the rate asked where they keep up, so its
        // answer is latency, as the run's own answer is: the lowest p99 wins there (throughput
        // breaks a tie), a closed loop's winner is the fastest.
        let open = |r: &SummaryRow| m.load_of(r.config).rate.is_some();
        let p99 = |r: &SummaryRow| r.latency.latency_p99_ms_median.unwrap_or(f64::INFINITY);
        let better = |a: &&SummaryRow, b: &&SummaryRow| {
            let by_tps = a.throughput.tps_median.total_cmp(&b.throughput.tps_median);
            if open(a) && open(b) {
                p99(b).total_cmp(&p99(a)).then(by_tps)
            } else {
                by_tps
            }
        };
        let best = rows
            .iter()
            .copied()
            .filter(|r| clean(r))
            .max_by(better)
            .or_else(|| rows.iter().copied().max_by(better));
        let Some(best) = best else { continue };
        let cfg = &m.configs[best.config];
        let label = cfg.label.strip_prefix(&format!("{text} ")).unwrap_or(&cfg.label);
        points.push(StoragePoint {
            storage: text.to_string(),
            kind: kind.to_string(),
            best: best.config,
            best_label: if label.is_empty() {
                "-".into()
            } else {
                label.to_string()
            },
            tps_median: best.throughput.tps_median,
            latency_p99_ms_median: best.latency.latency_p99_ms_median,
            failed_share: failed(best),
            slept: slept_of(trials, best.config),
            throttle: cfg.storage.as_ref().and_then(|s| s.throttle.as_ref()).map(|t| {
                let limits: Vec<String> = t
                    .limits
                    .iter()
                    .map(|(file, l)| format!("{} {l}", file.trim_start_matches("blkio.throttle.")))
                    .collect();
                format!("{} in {}", limits.join("; "), t.cgroup.display())
            }),
        });
    }
    let emulated = points.iter().any(|p| p.kind.starts_with("emulated"));
    Some(StorageCurve {
        points,
        emulated,
        cross_check: cross_checks(m, summary, trials),
    })
}

/// A configuration's storage in words, for compare's facts and the checklist: the value, its
/// kind (an emulation says EMULATED, so no reader takes it for a measured disk) and what was
/// asked of the kernel. `None` is a run without `--storage`.
pub fn config_words(s: Option<&StorageInfo>) -> String {
    let Some(s) = s else {
        return "the disk as it is (no --storage)".into();
    };
    let spec = &s.spec;
    let mut parts = Vec::new();
    if spec.emulated() {
        parts.push("EMULATED: delays slept by litebench's VFS after each real call, not a slower disk".to_string());
    }
    if spec.throttled() {
        let t = &spec.throttle;
        let limits: Vec<String> = [
            t.iops.map(|n| format!("{} IOPS", grouped(n))),
            t.bytes_per_sec.map(|b| format!("{} bytes/s", grouped(b))),
        ]
        .into_iter()
        .flatten()
        .collect();
        parts.push(format!(
            "throttled by the kernel: {}, reads and writes each",
            limits.join(", ")
        ));
    }
    if parts.is_empty() {
        parts.push("the disk as it is".into());
    }
    format!("{}: {}", spec.text, parts.join("; "))
}

/// [`config_words`] with what was done: the delays actually slept over configuration
/// `config`'s measured trials, and the throttle's cgroup and the limits written in it.
pub fn config_done(s: Option<&StorageInfo>, trials: &[TrialRecord], config: usize) -> String {
    let mut out = config_words(s);
    let Some(s) = s else { return out };
    if s.spec.emulated() {
        let slept = slept_words(&slept_of(trials, config));
        out += &if slept.is_empty() {
            ", nothing slept".to_string()
        } else {
            format!(", slept {slept} (mean)")
        };
    }
    if let Some(t) = &s.throttle {
        let limits: Vec<String> = t.limits.iter().map(|(file, l)| format!("{file} {l}")).collect();
        out += &format!(" ({} in cgroup {})", limits.join(", "), t.cgroup.display());
    }
    out
}

/// The mark under every number of an emulated run.
pub const EMULATED_MARK: &str = "EMULATED storage: delays slept by litebench's VFS after each real call on the database, journal and WAL files, not a slower disk";

/// The section in text: a heading, a row per storage value, and the emulation's or throttle's
/// line. Empty without `--storage`.
pub fn section(c: Option<&StorageCurve>, unit: &str, markdown: bool) -> String {
    let Some(c) = c else {
        return String::new();
    };
    let headers = ["storage", &format!("{unit}/s"), "p99 ms", "failed", "wins"];
    let rows: Vec<Vec<String>> = c
        .points
        .iter()
        .map(|p| {
            vec![
                p.storage.clone(),
                crate::report::number::num(p.tps_median),
                p.latency_p99_ms_median.map_or("-".into(), crate::report::number::num),
                format!("{:.1}%", p.failed_share * 100.0),
                format!("#{} {}", p.best, p.best_label),
            ]
        })
        .collect();
    let mut out = crate::report::layout::heading("the answer against the storage (the winner at each)", markdown);
    out += &crate::report::layout::table(&headers, &rows, markdown);
    out += &footer(c);
    out += &cross_check_text(&c.cross_check, unit, markdown);
    out + "\n"
}

/// The lines under every number of a run with `--storage`: what was emulated and how much was
/// actually slept, what the kernel throttled and where.
pub fn footer(c: &StorageCurve) -> String {
    let mut out = String::new();
    let fit = |s: String| crate::report::layout::fit_prose(s) + "\n";
    if c.emulated {
        out += &fit(format!("{EMULATED_MARK}."));
    }
    for p in &c.points {
        let slept = slept_words(&p.slept);
        if !slept.is_empty() {
            out += &fit(format!("  {}: slept {slept} (mean)", p.storage));
        }
        if let Some(t) = &p.throttle {
            out += &fit(format!("  {}: throttled by the kernel, {t}", p.storage));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slept_reads_as_count_times_mean() {
        let s = SleptIo {
            syncs: 1204,
            sync_ns: 1204 * 2_060_000,
            ..SleptIo::ZERO
        };
        assert_eq!(slept_words(&s), "syncs 1,204 x 2.06 ms");
        assert_eq!(slept_words(&SleptIo::ZERO), "");
    }
}
