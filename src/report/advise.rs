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
    /// Each measured trial's throughput, for the verdicts between neighbours.
    #[serde(skip)]
    pub tps: Vec<f64>,
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
            tps: values(trials, c.index, "all", Metric::Tps),
            statistics: Statistics::of(manifest, None),
        });
    }
    out
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
    /// Every candidate, fastest first.
    pub ranked: Vec<Candidate<'a>>,
    /// Index into `ranked` of the fastest that meets the need.
    pub answer: Option<usize>,
    /// Faster candidates that could not be judged (a verdict is missing).
    pub unverified_faster: Vec<usize>,
}

pub fn advise<'a>(
    need: Need,
    crashes: &[CrashKind],
    measured: &'a [Measured],
    stored: &'a [(VerifiedBuild, Cell)],
) -> Advice<'a> {
    let mut ranked: Vec<Candidate<'a>> = measured
        .iter()
        .map(|m| Candidate {
            measured: m,
            verdicts: crashes.iter().map(|&k| (k, verdict_for(m, k, stored))).collect(),
            above: None,
        })
        .collect();
    ranked.sort_by(|a, b| b.measured.tps_median.total_cmp(&a.measured.tps_median));
    for i in 1..ranked.len() {
        let (up, me) = (ranked[i - 1].measured, ranked[i].measured);
        ranked[i].above = up.statistics.compare(&me.tps, &up.tps, Metric::Tps);
    }
    let answer = ranked.iter().position(|c| c.meets(need) == Some(true));
    let unverified_faster = (0..answer.unwrap_or(ranked.len()))
        .filter(|&i| ranked[i].meets(need).is_none())
        .collect();
    Advice {
        need,
        ranked,
        answer,
        unverified_faster,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            tps: (0..6).map(|i| tps + f64::from(i)).collect(),
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
        let a = advise(Need::Consistent, &[CrashKind::Power], &runs, &stored);
        assert_eq!(a.ranked[a.answer.unwrap()].measured.label, "wal normal");
        let a = advise(Need::Durable, &[CrashKind::Power], &runs, &stored);
        assert_eq!(a.ranked[a.answer.unwrap()].measured.label, "wal full");
        let a = advise(Need::None, &[CrashKind::Power], &runs, &stored);
        assert_eq!(a.ranked[a.answer.unwrap()].measured.label, "wal off");
        // An unverified faster configuration is reported, never assumed safe.
        let a = advise(Need::Durable, &[CrashKind::Power], &runs, &stored[1..]);
        assert_eq!(a.unverified_faster, vec![0]);
        // Nothing verified for process crashes: no answer.
        let a = advise(Need::Durable, &[CrashKind::Process], &runs, &stored);
        assert_eq!(a.answer, None);
        assert_eq!(sync_name("2"), "full");
    }

    #[test]
    fn neighbours_are_judged_as_compare_judges_them() {
        let mut close = m("wal normal", "wal", "normal", 500.0);
        close.tps = vec![480.0, 520.0, 500.0, 470.0, 530.0, 505.0];
        let mut near = m("wal full", "wal", "full", 498.0);
        near.tps = vec![470.0, 525.0, 498.0, 480.0, 515.0, 500.0];
        let slow = m("delete full", "delete", "full", 50.0);
        let runs = vec![slow, near, close];
        let a = advise(Need::None, &[CrashKind::Power], &runs, &[]);
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
}
