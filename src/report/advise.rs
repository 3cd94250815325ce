//! `advise`: the fastest measured configuration that keeps a guarantee, from stored runs and
//! stored verdicts — and what the next faster one would give up.
//!
//! Speed and safety are measured separately (a run, a verification) and joined here on what
//! makes them the same thing: the SQLite build (its source id) and the effective
//! `journal_mode`/`synchronous` the trials read back. A configuration without a stored verdict
//! is never assumed safe; the command to verify it is printed instead.
//!
//! Only configurations measured by one workload with one set of parameters are ranked together
//! (17,148 mobibench tx/s and 7,429 crud tx/s are not two speeds of one thing; the caller
//! groups the runs). Neighbours in the ranking are judged with `compare`'s ratio, interval and
//! verdict ([`super::stats`]): a configuration listed above another whose interval includes 1
//! is "no significant difference", not faster.

use crate::durability::crash::CrashKind;
use crate::durability::verify::{Cell, Verdict, SYNCHRONOUS};
use crate::model::record::Manifest;
use crate::model::record::TrialRecord;
use crate::report::number::num;
use crate::report::stats::{values, Metric, Statistics};
use crate::store::VerifiedBuild;
use litebench_stats::Ratio;

/// What the user needs kept across a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Need {
    /// Every acknowledged commit survives.
    Durable,
    /// Never corrupt; recent commits may be lost.
    Consistent,
    /// No guarantee needed: simply the fastest.
    None,
}

impl Need {
    pub fn name(self) -> &'static str {
        match self {
            Need::Durable => "durable",
            Need::Consistent => "consistent",
            Need::None => "none",
        }
    }

    pub fn met_by(self, v: Verdict) -> bool {
        match self {
            Need::Durable => v == Verdict::Durable,
            Need::Consistent => v != Verdict::MayCorrupt,
            Need::None => true,
        }
    }
}

/// One measured SQLite configuration of a stored run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Measured {
    pub run: i64,
    pub config: usize,
    pub label: String,
    pub engine: String,
    pub source_id: String,
    pub journal_mode: String,
    pub synchronous: String,
    /// Median throughput of the measured trials, transactions per second.
    pub tps_median: f64,
    pub workload: String,
    /// Open loop (`--rate`): the target rate over all clients; null in a closed loop.
    pub target_tps: Option<f64>,
    /// Each trial's 99th-percentile latency (whole trials), milliseconds: the median across
    /// trials; null when nothing was timed.
    pub p99_ms_median: Option<f64>,
    /// Transactions that failed (gave up on a lock, other errors, skipped) per trial, mean:
    /// a configuration with any never meets a need silently.
    pub failed_per_trial: f64,
    /// Of those, the ones that gave up on a lock (SQLITE_BUSY), per trial.
    pub busy_per_trial: f64,
    /// Failed over attempted transactions, per trial, in percent: the mean across trials.
    pub failure_pct: Option<f64>,
    /// Each measured trial's throughput, for the verdicts between neighbours.
    #[serde(skip)]
    pub tps: Vec<f64>,
    /// Each measured trial's p50, p99 and p99.9 latency (ms), failure rate (%) and
    /// instructions per operation (none where not counted), in that order
    /// ([`Measured::per_trial`]).
    #[serde(skip)]
    pub per_trial: Vec<(Metric, Vec<f64>)>,
    /// The run's statistics settings (seed, noise), as `compare` uses them.
    #[serde(skip)]
    pub statistics: Statistics,
}

/// `synchronous` as its name whether read back as a number or a name.
fn sync_name(v: &str) -> String {
    match v.trim().parse::<usize>() {
        Ok(n) if n < SYNCHRONOUS.len() => SYNCHRONOUS[n].to_string(),
        _ => v.trim().to_ascii_lowercase(),
    }
}

/// The SQLite configurations of a stored run with their effective durability knobs (as the
/// first measured trial read them back) and median throughput.
pub fn measured(run: i64, manifest: &Manifest, trials: &[TrialRecord]) -> Vec<Measured> {
    let mut out = Vec::new();
    for c in &manifest.configs {
        let Some(build) = manifest
            .engines
            .iter()
            .find(|e| e.label == c.engine)
            .and_then(|e| e.sqlite.as_ref())
        else {
            continue;
        };
        let mine: Vec<&TrialRecord> = trials.iter().filter(|t| t.config == c.index && !t.warmup).collect();
        let Some(first) = mine.first() else { continue };
        let knob = |name: &str| {
            first
                .knobs
                .iter()
                .find(|k| k.name == name)
                .and_then(|k| k.effective.clone().or_else(|| k.requested.clone()))
        };
        let (Some(jm), Some(sy)) = (knob("journal_mode"), knob("synchronous")) else {
            continue;
        };
        let mut tps: Vec<f64> = mine.iter().map(|t| t.throughput).filter(|x| x.is_finite()).collect();
        if tps.is_empty() {
            continue;
        }
        tps.sort_by(f64::total_cmp);
        let n = tps.len();
        let median = if n % 2 == 1 {
            tps[n / 2]
        } else {
            (tps[n / 2 - 1] + tps[n / 2]) / 2.0
        };
        out.push(Measured {
            run,
            config: c.index,
            label: c.label.clone(),
            engine: c.engine.clone(),
            source_id: build.source_id.clone(),
            journal_mode: jm.trim().to_ascii_lowercase(),
            synchronous: sync_name(&sy),
            tps_median: median,
            workload: manifest.workload.clone(),
            target_tps: offered_rate(manifest, c.index),
            p99_ms_median: litebench_stats::summarize(&values(trials, c.index, "all", Metric::P99)).map(|s| s.median),
            failed_per_trial: per_trial(&mine, |o| o.failed + o.skipped),
            busy_per_trial: per_trial(&mine, |o| o.busy),
            failure_pct: litebench_stats::summarize(&values(trials, c.index, "all", Metric::Failures)).map(|s| s.mean),
            tps: values(trials, c.index, "all", Metric::Tps),
            per_trial: [
                Metric::P50,
                Metric::P99,
                Metric::P999,
                Metric::Failures,
                Metric::Instructions,
            ]
            .into_iter()
            .map(|m| (m, values(trials, c.index, "all", m)))
            .collect(),
            statistics: Statistics::of(manifest, None),
        });
    }
    out
}

/// The configurations of a stored run that [`measured`] leaves out, one line each: engines
/// without a SQLite build have no stored durability verdicts to join, so they are not ranked,
/// but a cross-engine run must not lose them silently: each is named with its median
/// throughput and what its commit promises, as its settings read back.
pub fn left_out(run: i64, manifest: &Manifest, trials: &[TrialRecord]) -> Vec<String> {
    let ranked: Vec<usize> = measured(run, manifest, trials).iter().map(|m| m.config).collect();
    manifest
        .configs
        .iter()
        .filter(|c| !ranked.contains(&c.index))
        .filter_map(|c| {
            let tps = litebench_stats::summarize(&values(trials, c.index, "all", Metric::Tps))?.median;
            let promise = crate::report::commit_sync::described(manifest, trials, c.index)
                .map_or(String::new(), |p| format!("; it {p}"));
            Some(format!(
                "Not ranked: run {run} config {} `{}` ({}): {} tx/s{promise}. advise ranks SQLite configurations by their stored verify-durability verdicts, which only SQLite builds have; compare it with `litebench show {run}`.",
                c.index,
                c.label,
                manifest.workload,
                num(tps)
            ))
        })
        .collect()
}

/// The rate configuration `config` offered, where a schedule fixed one: its own load's in a
/// sweep (`--rate 100,300` or `--clients` at a rate), the run's, or a cast's workload roles'
/// together. Runs at a fixed rate are ranked by p99 ([`ranking_metric`]): their tx/s is the
/// schedule's.
fn offered_rate(manifest: &Manifest, config: usize) -> Option<f64> {
    let load = manifest.load_of(config);
    load.rate.or_else(|| {
        let rates: Vec<f64> = load.cast.as_ref()?.workload_roles().filter_map(|r| r.rate).collect();
        (!rates.is_empty()).then(|| rates.iter().sum())
    })
}

/// The mean over `trials` of `count` summed over each trial's whole operation types.
fn per_trial(trials: &[&TrialRecord], count: impl Fn(&crate::model::op::OpResult) -> u64) -> f64 {
    if trials.is_empty() {
        return 0.0;
    }
    let sum: u64 = trials
        .iter()
        .flat_map(|t| t.ops.iter().filter(|o| o.counts_in("all")))
        .map(count)
        .sum();
    sum as f64 / trials.len() as f64
}

impl Measured {
    /// Each measured trial's figure in `metric` (throughput for `tps` and `time`).
    pub fn per_trial(&self, metric: Metric) -> &[f64] {
        self.per_trial.iter().find(|(m, _)| *m == metric).map_or(
            if matches!(metric, Metric::Tps | Metric::Time) {
                &self.tps[..]
            } else {
                &[]
            },
            |(_, v)| &v[..],
        )
    }

    /// The median across trials in `metric` (failures: the mean), what the ranking orders by.
    pub fn value(&self, metric: Metric) -> Option<f64> {
        let s = litebench_stats::summarize(self.per_trial(metric))?;
        Some(if metric == Metric::Failures { s.mean } else { s.median })
    }

    /// Whether any of its transactions failed.
    pub fn failed(&self) -> bool {
        self.failed_per_trial > 0.0
    }
}

/// One line per measured SQLite configuration of a run with its stored verdicts, for `show`
/// (empty when none of them has one).
pub fn verdict_lines(
    run: i64,
    manifest: &Manifest,
    trials: &[TrialRecord],
    stored: &[(VerifiedBuild, Cell)],
) -> Vec<String> {
    verdicts(run, manifest, trials, stored)
        .into_iter()
        .map(|(_, line, _)| line)
        .collect()
}

/// Sets each summary row's `durability` to its configuration's stored verdicts (what
/// [`verdict_lines`] says of it), so that the CSV, one row per summary line, carries them too.
pub fn mark_rows(
    rows: &mut [crate::report::summary::SummaryRow],
    run: i64,
    manifest: &Manifest,
    trials: &[TrialRecord],
    stored: &[(VerifiedBuild, Cell)],
) {
    for (config, _, cells) in verdicts(run, manifest, trials, stored) {
        for r in rows.iter_mut().filter(|r| r.config == config) {
            r.durability = Some(cells.clone());
        }
    }
}

/// Per measured SQLite configuration with stored verdicts: its index, its line, and the
/// verdicts alone (`power: ...; process: ...`).
fn verdicts(
    run: i64,
    manifest: &Manifest,
    trials: &[TrialRecord],
    stored: &[(VerifiedBuild, Cell)],
) -> Vec<(usize, String, String)> {
    let mut lines = Vec::new();
    for m in measured(run, manifest, trials) {
        let cells: Vec<String> = [CrashKind::Power, CrashKind::Process]
            .into_iter()
            .filter_map(|k| verdict_for(&m, k, stored).map(|c| format!("{}: {}", k.name(), c.in_words())))
            .collect();
        if !cells.is_empty() {
            let cells = cells.join("; ");
            let line = format!("[{}] {}: {:.0} tx/s median; {cells}", m.config, m.label, m.tps_median);
            lines.push((m.config, line, cells));
        }
    }
    lines
}

/// The newest stored verdict for a measured configuration under `crash`.
pub fn verdict_for<'a>(m: &Measured, crash: CrashKind, stored: &'a [(VerifiedBuild, Cell)]) -> Option<&'a Cell> {
    stored
        .iter()
        .rev()
        .find(|(b, c)| {
            b.source_id == m.source_id
                && c.config.journal_mode == m.journal_mode
                && c.config.synchronous == m.synchronous
                && c.crash == crash
        })
        .map(|(_, c)| c)
}

/// A candidate with its verdicts for each crash kind asked about (`None`: not verified).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Candidate<'a> {
    pub measured: &'a Measured,
    pub verdicts: Vec<(CrashKind, Option<&'a Cell>)>,
    /// The next faster candidate's (the one ranked just above) speed over this one's, with its
    /// interval and verdict as `compare` gives them; `None` for the first.
    pub above: Option<Ratio>,
}

impl Candidate<'_> {
    /// `Some(true/false)` when every crash kind is verified, `None` when one is missing.
    pub fn meets(&self, need: Need) -> Option<bool> {
        if need == Need::None {
            return Some(true);
        }
        let mut all = true;
        for (_, c) in &self.verdicts {
            all &= need.met_by(c.as_ref()?.verdict);
        }
        Some(all)
    }
}

/// What `advise` answers.
#[derive(Debug, serde::Serialize)]
pub struct Advice<'a> {
    pub need: Need,
    /// What the ranking orders by: `--metric`, else in an open loop the p99 latency (the
    /// schedule fixes the rate), else throughput.
    pub metric: Metric,
    /// Every candidate: those whose transactions never failed first, each part fastest first
    /// in `metric` (a configuration that failed transactions never meets a need silently).
    pub ranked: Vec<Candidate<'a>>,
    /// Index into `ranked` of the fastest that meets the need.
    pub answer: Option<usize>,
    /// Faster candidates that could not be judged (a verdict is missing).
    pub unverified_faster: Vec<usize>,
}

/// What `advise` ranks by when `--metric` is not given: in an open loop the p99 latency, else
/// throughput; `time` ranks as throughput (the same order).
pub fn ranking_metric(measured: &[Measured], chosen: Option<Metric>) -> Metric {
    match chosen {
        Some(Metric::Time) => Metric::Tps,
        Some(m) => m,
        None if measured.iter().any(|m| m.target_tps.is_some()) => Metric::P99,
        None => Metric::Tps,
    }
}

/// Ranks `measured` by `metric` (see [`ranking_metric`]) and picks the first that meets `need`.
pub fn advise<'a>(
    need: Need,
    crashes: &[CrashKind],
    measured: &'a [Measured],
    stored: &'a [(VerifiedBuild, Cell)],
    metric: Metric,
) -> Advice<'a> {
    let mut ranked: Vec<Candidate<'a>> = measured
        .iter()
        .map(|m| Candidate {
            measured: m,
            verdicts: crashes.iter().map(|&k| (k, verdict_for(m, k, stored))).collect(),
            above: None,
        })
        .collect();
    // Better first in the metric; unknown values last.
    let key = |m: &Measured| -> f64 {
        match (m.value(metric), metric.better()) {
            (Some(v), litebench_stats::Better::Higher) => -v,
            (Some(v), litebench_stats::Better::Lower) => v,
            (None, _) => f64::INFINITY,
        }
    };
    ranked.sort_by(|a, b| {
        (a.measured.failed(), key(a.measured))
            .partial_cmp(&(b.measured.failed(), key(b.measured)))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // Neighbours by speed: a failure rate has none, so they are judged by p99 there.
    let speed = if metric == Metric::Failures {
        Metric::P99
    } else {
        metric
    };
    for i in 1..ranked.len() {
        let (up, me) = (ranked[i - 1].measured, ranked[i].measured);
        ranked[i].above = up.statistics.compare(me.per_trial(speed), up.per_trial(speed), speed);
    }
    let answer = ranked.iter().position(|c| c.meets(need) == Some(true));
    let unverified_faster = (0..answer.unwrap_or(ranked.len()))
        .filter(|&i| ranked[i].meets(need).is_none())
        .collect();
    Advice {
        need,
        metric,
        ranked,
        answer,
        unverified_faster,
    }
}

/// A measured figure in words: `p99 4.13 ms`, `1,234 tx/s`, `2.1% failed`.
pub fn figure_words(m: &Measured, metric: Metric) -> String {
    let unit = crate::workload::unit_of(&m.workload);
    match (metric, m.value(metric)) {
        (_, None) => format!("{} unknown", metric.name()),
        (Metric::Tps | Metric::Time, Some(v)) => format!("{} {unit}/s", num(v)),
        (Metric::Failures, Some(v)) => format!("{}% failed", num(v)),
        (Metric::Instructions, Some(v)) => format!("{} instr/op", super::number::instructions(v)),
        (m, Some(v)) => format!("{} {} ms", m.name(), num(v)),
    }
}

/// What failed of a candidate's transactions, in words: `no failed tx`, `gave up 2.67 tx per
/// trial on a lock`, or `failed 3.00 tx per trial (2.67 gave up on a lock)`. Never "lost": a
/// transaction that gave up on a lock never committed, which is no loss of durability.
pub fn failures_words(m: &Measured) -> String {
    let unit = crate::workload::unit_of(&m.workload);
    if !m.failed() {
        return format!("no failed {unit}");
    }
    if m.busy_per_trial > 0.0 && m.busy_per_trial >= m.failed_per_trial {
        return format!("gave up {} {unit} per trial on a lock", num(m.failed_per_trial));
    }
    let busy = if m.busy_per_trial > 0.0 {
        format!(" ({} gave up on a lock)", num(m.busy_per_trial))
    } else {
        String::new()
    };
    format!("failed {} {unit} per trial{busy}", num(m.failed_per_trial))
}

impl Advice<'_> {
    /// The answer as one plain sentence: what the pick costs (its figure, p99, its failures)
    /// and what each faster one gives up (its durability verdict, or its failed transactions).
    pub fn sentence(&self) -> String {
        let Some(i) = self.answer else {
            return format!(
                "No measured configuration is verified to meet need {}.",
                self.need.name()
            );
        };
        let pick = &self.ranked[i];
        let m = pick.measured;
        let mut cost = figure_words(m, self.metric);
        if self.metric != Metric::P99 {
            if let Some(p) = m.p99_ms_median {
                cost += &format!(", p99 {} ms", num(p));
            }
        }
        let failed = if m.failed() {
            format!(
                " but {}, and none that meets it ran without failures",
                failures_words(m)
            )
        } else {
            format!(" with {}", failures_words(m))
        };
        let mut s = format!(
            "Pick `{}` (run {} #{}) for need {}: {cost}{failed}.",
            m.label,
            m.run,
            m.config,
            self.need.name()
        );
        // Those better in the metric than the pick, and why each is not the answer.
        let mine = m.value(self.metric);
        let better = |c: &&Candidate<'_>| -> bool {
            match (c.measured.value(self.metric), mine) {
                (Some(v), Some(p)) => match self.metric.better() {
                    litebench_stats::Better::Higher => v > p,
                    litebench_stats::Better::Lower => v < p,
                },
                _ => false,
            }
        };
        let faster: Vec<String> = self
            .ranked
            .iter()
            .filter(|c| !std::ptr::eq(c.measured, m))
            .filter(better)
            .map(|c| {
                let why = match c.meets(self.need) {
                    None => "is not verified".to_string(),
                    Some(false) => format!(
                        "gives up {}",
                        c.verdicts
                            .iter()
                            .filter_map(|(k, v)| v.map(|v| format!("{}: {}", k.name(), v.in_words())))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                    Some(true) => failures_words(c.measured),
                };
                format!(
                    "`{}` ({}) {why}",
                    c.measured.label,
                    figure_words(c.measured, self.metric)
                )
            })
            .collect();
        s.pop();
        if faster.is_empty() {
            s += "; nothing measured is faster.";
        } else {
            s += &format!("; faster: {}.", faster.join("; "));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46, item 28: a cross-engine run's PostgreSQL configuration is not ranked (no
    /// SQLite build, no stored verdicts) but is named, with its rate and its commit's promise.
    #[test]
    fn a_configuration_without_a_sqlite_build_is_named_not_dropped() {
        let mut man = crate::store::tests::manifest();
        man.workload = "queue".into();
        man.configs = vec![crate::model::record::ConfigInfo {
            index: 0,
            engine: "postgres".into(),
            knobs: Default::default(),
            label: "postgres synchronous_commit=on".into(),
            knob_origins: Vec::new(),
            fs: None,
            scheduler: None,
            scheduler_device: None,
            storage: None,
            load: None,
            extension: None,
            driver: None,
            role_drivers: Vec::new(),
        }];
        let trial = TrialRecord {
            measured_ns: 1_000_000_000,
            total_ops: 100,
            ops: vec![crate::model::op::OpResult {
                name: "enqueue".into(),
                ops: 100,
                ..Default::default()
            }],
            knobs: vec![crate::model::knob::KnobReading {
                name: "synchronous_commit".into(),
                requested: None,
                effective: Some("on".into()),
                note: None,
            }],
            ..crate::store::tests::trial(0)
        };
        let lines = left_out(7, &man, &[trial]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with(
                "Not ranked: run 7 config 0 `postgres synchronous_commit=on` (queue): 100 tx/s; it syncs every commit"
            ),
            "{lines:?}"
        );
    }
    use crate::durability::verify::Config;

    fn m(label: &str, jm: &str, sy: &str, tps: f64) -> Measured {
        Measured {
            run: 1,
            config: 0,
            label: label.into(),
            engine: "sqlite".into(),
            source_id: "S".into(),
            journal_mode: jm.into(),
            synchronous: sy.into(),
            tps_median: tps,
            workload: "crud".into(),
            target_tps: None,
            p99_ms_median: None,
            failed_per_trial: 0.0,
            busy_per_trial: 0.0,
            failure_pct: None,
            tps: (0..6).map(|i| tps + f64::from(i)).collect(),
            per_trial: Vec::new(),
            statistics: Statistics::new(42, 0.02),
        }
    }

    fn cell(jm: &str, sy: &str, verdict: Verdict) -> (VerifiedBuild, Cell) {
        (
            VerifiedBuild {
                engine: "sqlite".into(),
                version: "3".into(),
                source_id: "S".into(),
            },
            Cell {
                config: Config {
                    journal_mode: jm.into(),
                    synchronous: sy.into(),
                },
                crash: CrashKind::Power,
                verdict,
                states: 5,
                distinct: 5,
                violations: 0,
                exhaustive: true,
                events: 9,
                counterexamples: vec![],
            },
        )
    }

    #[test]
    fn the_fastest_configuration_that_keeps_the_need_wins() {
        let runs = vec![
            m("wal off", "wal", "off", 900.0),
            m("wal normal", "wal", "normal", 500.0),
            m("delete full", "delete", "full", 50.0),
            m("wal full", "wal", "full", 200.0),
        ];
        let stored = vec![
            cell("wal", "off", Verdict::MayCorrupt),
            cell("wal", "normal", Verdict::MayLose { worst: 1 }),
            cell("wal", "full", Verdict::Durable),
            cell("delete", "full", Verdict::MayLose { worst: 1 }),
        ];
        let a = advise(Need::Consistent, &[CrashKind::Power], &runs, &stored, Metric::Tps);
        assert_eq!(a.ranked[a.answer.unwrap()].measured.label, "wal normal");
        let a = advise(Need::Durable, &[CrashKind::Power], &runs, &stored, Metric::Tps);
        assert_eq!(a.ranked[a.answer.unwrap()].measured.label, "wal full");
        let a = advise(Need::None, &[CrashKind::Power], &runs, &stored, Metric::Tps);
        assert_eq!(a.ranked[a.answer.unwrap()].measured.label, "wal off");
        // An unverified faster configuration is reported, never assumed safe.
        let a = advise(Need::Durable, &[CrashKind::Power], &runs, &stored[1..], Metric::Tps);
        assert_eq!(a.unverified_faster, vec![0]);
        // Nothing verified for process crashes: no answer.
        let a = advise(Need::Durable, &[CrashKind::Process], &runs, &stored, Metric::Tps);
        assert_eq!(a.answer, None);
        assert_eq!(sync_name("2"), "full");
    }

    /// An open loop: `busy_timeout=0` is durable and looks fastest (its failed transactions
    /// are not in its latency), but gave up 2.67 transactions per trial on the lock; the answer
    /// is the durable one that lost none, and the sentence says what each costs.
    #[test]
    fn a_configuration_that_failed_transactions_never_meets_a_need_silently() {
        let open = |label: &str, p99: f64, failed: f64| {
            let mut x = m(label, "wal", "full", 300.0);
            x.target_tps = Some(300.0);
            x.p99_ms_median = Some(p99);
            x.failed_per_trial = failed;
            x.busy_per_trial = failed;
            x.per_trial = vec![
                (Metric::P99, (0..6).map(|i| p99 + f64::from(i) / 100.0).collect()),
                (Metric::Failures, vec![failed; 6]),
            ];
            x
        };
        let mut fast = open("wal full busy_timeout=0", 3.6, 2.67);
        fast.tps = (0..6).map(|i| 310.0 + f64::from(i)).collect();
        fast.tps_median = 312.5;
        let waits = open("wal full busy_timeout=5000", 78.0, 0.0);
        let mut loses = open("wal normal busy_timeout=5000", 1.9, 0.0);
        loses.synchronous = "normal".into();
        let runs = vec![fast, waits, loses];
        let stored = vec![
            cell("wal", "full", Verdict::Durable),
            cell("wal", "normal", Verdict::MayLose { worst: 1 }),
        ];
        let metric = ranking_metric(&runs, None);
        assert_eq!(metric, Metric::P99);
        let a = advise(Need::Durable, &[CrashKind::Power], &runs, &stored, metric);
        let labels: Vec<&str> = a.ranked.iter().map(|c| c.measured.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "wal normal busy_timeout=5000",
                "wal full busy_timeout=5000",
                "wal full busy_timeout=0"
            ]
        );
        assert_eq!(a.ranked[a.answer.unwrap()].measured.label, "wal full busy_timeout=5000");
        let s = a.sentence();
        assert!(
            s.starts_with("Pick `wal full busy_timeout=5000` (run 1 #0) for need durable: p99 78.0 ms with no failed tx; faster: "),
            "{s}"
        );
        assert!(
            s.contains("`wal normal busy_timeout=5000` (p99 1.92 ms) gives up power: consistent;"),
            "{s}"
        );
        assert!(
            // Issue 46, item 17: gave up, not "lost" (which reads as lost commits).
            s.ends_with("`wal full busy_timeout=0` (p99 3.62 ms) gave up 2.67 tx per trial on a lock."),
            "{s}"
        );
        // Only configurations that failed meet it: the pick says so.
        let only = advise(Need::Durable, &[CrashKind::Power], &runs[..1], &stored, metric);
        assert!(
            only.sentence().contains(
                "p99 3.62 ms but gave up 2.67 tx per trial on a lock, and none that meets it ran without failures"
            ),
            "{}",
            only.sentence()
        );
    }

    #[test]
    fn neighbours_are_judged_as_compare_judges_them() {
        let mut close = m("wal normal", "wal", "normal", 500.0);
        close.tps = vec![480.0, 520.0, 500.0, 470.0, 530.0, 505.0];
        let mut near = m("wal full", "wal", "full", 498.0);
        near.tps = vec![470.0, 525.0, 498.0, 480.0, 515.0, 500.0];
        let slow = m("delete full", "delete", "full", 50.0);
        let runs = vec![slow, near, close];
        let a = advise(Need::None, &[CrashKind::Power], &runs, &[], Metric::Tps);
        let labels: Vec<&str> = a.ranked.iter().map(|c| c.measured.label.as_str()).collect();
        assert_eq!(labels, ["wal normal", "wal full", "delete full"]);
        assert!(a.ranked[0].above.is_none());
        let tie = a.ranked[1].above.unwrap();
        assert_eq!(
            tie.verdict,
            Some(litebench_stats::Verdict::NoSignificantDifference),
            "{tie:?}"
        );
        let clear = a.ranked[2].above.unwrap();
        assert!(clear.ratio > 9.0, "{clear:?}");
        assert_eq!(clear.verdict, Some(litebench_stats::Verdict::Faster));
    }

    /// Issue 46, item 33: a sweep's open-loop configurations and a cast's rated roles offer a
    /// rate (before, only the run's own `--rate` counted), so `advise` ranks them by p99.
    #[test]
    fn a_sweeps_and_a_casts_offered_rate_is_the_target() {
        use crate::model::load::LoadShape;
        let mut man = crate::report::html::data::tests::manifest(&[&[], &[]]);
        man.configs[1].load = Some(LoadShape {
            rate: Some(300.0),
            ..LoadShape::default()
        });
        assert_eq!(offered_rate(&man, 0), None);
        assert_eq!(offered_rate(&man, 1), Some(300.0));
        let cast = crate::model::cast::Cast {
            file: "c.toml".into(),
            roles: vec![crate::model::cast::Role {
                rate: Some(50.0),
                ..crate::report::html::data::tests::role("writer", crate::model::cast::RoleKind::Workload)
            }],
        };
        man.load.cast = Some(cast);
        assert_eq!(offered_rate(&man, 0), Some(50.0));
        let ranked = [Measured {
            target_tps: offered_rate(&man, 0),
            ..m("a", "wal", "full", 10.0)
        }];
        assert_eq!(ranking_metric(&ranked, None), Metric::P99);
    }
}
