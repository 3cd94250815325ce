//! SQLite's history as one figure: a run's configurations, one per SQLite release, in release
//! order, each with its median and interval, the step from the release before with its verdict,
//! syncs per transaction and the library's size, and the largest steps named.
//!
//! SQLite's own developers follow their performance across releases by counting speedtest1's
//! instructions; users meet the question as "which update made this slower". A row per release
//! (its `.text`) with a verdict between each pair of neighbours answers both: where the significant steps
//! are, and how large, with the run's own statistics (the same ratios every report prints). The
//! dates come from the release catalogue, so the chart's axis is time.

use super::layout;
use super::number::{num, ratio as ratio_text};
use super::stats::{values, Metric, Statistics};
use crate::engines::sqlite::compiled::releases::{self, version_key};
use crate::model::record::{Manifest, TrialRecord};
use litebench_stats::{median, median_ci, Interval, Ratio, Verdict};

/// One release of the history.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Point {
    pub config: usize,
    /// The configuration's engine label (`sqlite@3.45.1-Os`).
    pub engine: String,
    /// The SQLite release it ran.
    pub version: String,
    /// Its release date from the catalogue, where known.
    pub date: Option<&'static str>,
    pub trials: usize,
    pub median: Option<f64>,
    pub ci95: Option<Interval>,
    /// Against the release before it (speed: above 1 is faster).
    pub step: Option<Ratio>,
    pub syncs_per_tx: Option<f64>,
    /// The compiled library's size on disk (builds litebench compiled).
    pub library_bytes: Option<u64>,
    /// Its code: the `.text` section's size.
    pub text_bytes: Option<u64>,
    /// Of the instructions counted, the share SQLite's library executed (median over trials,
    /// 0 to 1): the rest is litebench's own. `None` without the library's count.
    pub sqlite_share: Option<f64>,
}

/// A run read as a history.
#[derive(Debug, Clone, serde::Serialize)]
pub struct History {
    pub workload: String,
    pub metric: Metric,
    pub noise: f64,
    /// Oldest release first.
    pub points: Vec<Point>,
}

impl History {
    /// The run as a history: `None` unless it has at least two configurations, each a
    /// different SQLite release, and nothing else varies (one knob set, filesystem and load).
    pub fn of(m: &Manifest, trials: &[TrialRecord], metric: Metric, noise: Option<f64>) -> Option<History> {
        let stats = Statistics::of(m, noise);
        let mut points: Vec<Point> = Vec::new();
        for c in &m.configs {
            let engine = m.engines.iter().find(|e| e.label == c.engine)?;
            let build = engine.sqlite.as_ref()?;
            if points.iter().any(|p| p.version == build.version) {
                return None;
            }
            let mut v = values(trials, c.index, "all", metric);
            v.sort_by(f64::total_cmp);
            points.push(Point {
                config: c.index,
                engine: c.engine.clone(),
                version: build.version.clone(),
                date: releases::find(&build.version).map(|r| r.date),
                trials: v.len(),
                median: (!v.is_empty()).then(|| median(&v)),
                ci95: median_ci(&v, 0.95),
                step: None,
                // Where the VFS did not count (a speed-check build, a driver's process), there
                // are no syncs to tell.
                syncs_per_tx: syncs_per_tx(trials, c.index).filter(|_| super::summary::io_counted(m, c)),
                library_bytes: build.compiled.as_ref().map(|b| b.library_bytes),
                text_bytes: build.compiled.as_ref().and_then(|b| b.text_bytes),
                sqlite_share: sqlite_share(trials, c.index),
            });
        }
        if points.len() < 2 {
            return None;
        }
        points.sort_by_key(|p| version_key(&p.version).unwrap_or([0; 4]));
        for i in 1..points.len() {
            let a = values(trials, points[i - 1].config, "all", metric);
            let b = values(trials, points[i].config, "all", metric);
            points[i].step = stats.compare(&a, &b, metric);
        }
        Some(History {
            workload: m.workload.clone(),
            metric,
            noise: stats.noise,
            points,
        })
    }

    /// The steps with a verdict of faster or slower, largest first (by how far the ratio is
    /// from 1, either way), at most `n`.
    pub fn largest_steps(&self, n: usize) -> Vec<&Point> {
        let mut s: Vec<&Point> = self
            .points
            .iter()
            .filter(|p| {
                p.step
                    .is_some_and(|r| matches!(r.verdict, Some(Verdict::Faster | Verdict::Slower)))
            })
            .collect();
        s.sort_by(|a, b| {
            let size = |p: &Point| p.step.map_or(0.0, |r| r.ratio.ln().abs());
            size(b).total_cmp(&size(a))
        });
        s.truncate(n);
        s
    }

    /// The release before `p`.
    pub fn before(&self, p: &Point) -> Option<&Point> {
        let i = self.points.iter().position(|q| q.config == p.config)?;
        i.checked_sub(1).map(|j| &self.points[j])
    }

    /// The steps in words: `3.8.2 -> 3.8.4.3: 1.21x [1.15..1.26] faster`.
    pub fn steps_sentence(&self) -> String {
        let largest = self.largest_steps(3);
        if largest.is_empty() {
            if self
                .points
                .iter()
                .skip(1)
                .all(|p| p.step.and_then(|r| r.verdict).is_none())
            {
                return "Too few trials for a verdict between neighbouring releases (6 a side give intervals).".into();
            }
            return format!(
                "No step between neighbouring releases is significant (noise threshold {}).",
                super::number::pct(self.noise)
            );
        }
        let words: Vec<String> = largest
            .iter()
            .map(|p| {
                let from = self.before(p).map_or("?", |q| q.version.as_str());
                format!("{from} -> {}: {}", p.version, ratio_text(p.step.as_ref()))
            })
            .collect();
        format!(
            "Largest significant steps ({} of {} neighbouring pairs): {}.",
            self.largest_steps(usize::MAX).len(),
            self.points.len() - 1,
            words.join("; ")
        )
    }

    /// The table's headers and rows: a row per release, oldest first.
    pub fn cells(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let headers = [
            "release",
            "date",
            &self.metric.heading(),
            "95% CI",
            "vs before",
            "syncs/tx",
            ".text KiB",
            "SQLite's instr",
        ]
        .map(String::from)
        .to_vec();
        let rows = self
            .points
            .iter()
            .map(|p| {
                vec![
                    p.version.clone(),
                    p.date.unwrap_or("-").to_string(),
                    p.median.map_or("-".into(), num),
                    super::number::interval(p.ci95),
                    step_cell(p.step.as_ref()),
                    p.syncs_per_tx.map_or("-".into(), num),
                    p.text_bytes.map_or("-".into(), |b| format!("{}", b / 1024)),
                    p.sqlite_share.map_or("-".into(), |s| format!("{:.1}%", 100.0 * s)),
                ]
            })
            .collect();
        (headers, rows)
    }

    /// The table and the steps, for the terminal.
    pub fn text(&self, markdown: bool) -> String {
        let unit = self.metric.heading();
        let (mut headers, mut rows) = self.cells();
        // The terminal's table leaves out the medians' intervals (each step's interval says
        // what they would), so that a row fits 80 columns; the page and JSON keep them.
        if !markdown {
            headers.remove(3);
            rows.iter_mut().for_each(|r| {
                r.remove(3);
            });
        }
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let mut out = layout::heading(
            &format!("SQLite's history: {} by release ({})", self.workload, unit),
            markdown,
        );
        out += &layout::table(&headers, &rows, markdown);
        out += "\n";
        out += &layout::fit_prose(self.steps_sentence());
        out += "\n";
        out
    }
}

/// A step in a cell: `1.21x [1.15..1.26] faster`, `0.99x [0.97..1.02] n.s.`, `1.30x [0.59..21.8] ?`.
fn step_cell(r: Option<&Ratio>) -> String {
    let Some(r) = r else { return "-".into() };
    let short = match r.verdict {
        Some(Verdict::NoSignificantDifference) => "n.s.",
        Some(Verdict::Inconclusive) => "?",
        Some(v) => v.as_str(),
        None => "-",
    };
    match r.ci95 {
        Some(ci) => format!(
            "{} [{}..{}] {short}",
            super::number::times(r.ratio),
            super::number::factor(ci.low),
            super::number::factor(ci.high)
        ),
        None => format!("{} {short}", super::number::times(r.ratio)),
    }
}

/// Median syncs per transaction over the configuration's measured trials (file and directory
/// syncs the counting VFS saw).
fn syncs_per_tx(trials: &[TrialRecord], config: usize) -> Option<f64> {
    let mut v: Vec<f64> = trials
        .iter()
        .filter(|t| t.config == config && !t.warmup && t.total_ops > 0)
        .map(|t| (t.io_trial.total().syncs + t.io_trial.total().dir_syncs) as f64 / t.total_ops as f64)
        .collect();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| median(&v))
}

/// Median over the configuration's measured trials of the share of their instructions SQLite's
/// library executed (`library_instructions` of the operation types over the trial's count).
fn sqlite_share(trials: &[TrialRecord], config: usize) -> Option<f64> {
    let mut v: Vec<f64> = trials
        .iter()
        .filter(|t| t.config == config && !t.warmup)
        .filter_map(|t| {
            let library = t.ops.iter().map(|o| o.library_instructions).sum::<Option<u64>>()?;
            Some(library as f64 / t.instructions.filter(|&n| n > 0)? as f64)
        })
        .collect();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| median(&v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use litebench_stats::Interval;

    fn point(config: usize, version: &str, step: Option<(f64, Verdict)>) -> Point {
        Point {
            config,
            engine: format!("sqlite@{version}"),
            version: version.into(),
            date: None,
            trials: 6,
            median: Some(1.0),
            ci95: None,
            step: step.map(|(ratio, v)| Ratio {
                ratio,
                ci95: Some(Interval {
                    low: ratio * 0.99,
                    high: ratio * 1.01,
                }),
                verdict: Some(v),
            }),
            syncs_per_tx: None,
            library_bytes: None,
            text_bytes: None,
            sqlite_share: None,
        }
    }

    #[test]
    fn sqlite_s_share_is_its_library_over_the_trials_count_where_every_type_has_one() {
        use crate::model::op::OpResult;
        let op = |library| OpResult {
            library_instructions: library,
            ..Default::default()
        };
        let trial = |config, warmup, instructions, ops| TrialRecord {
            config,
            warmup,
            instructions: Some(instructions),
            ops,
            ..Default::default()
        };
        let trials = [
            trial(0, false, 1000, vec![op(Some(600)), op(Some(300))]),
            trial(0, true, 1000, vec![op(Some(1)), op(Some(1))]),
            trial(1, false, 1000, vec![op(Some(600)), op(None)]),
        ];
        assert_eq!(sqlite_share(&trials, 0), Some(0.9), "the warm-up is left out");
        assert_eq!(sqlite_share(&trials, 1), None, "a type without the library's count");
    }

    #[test]
    fn the_largest_significant_steps_come_first_either_way() {
        let h = History {
            workload: "speedtest1".into(),
            metric: Metric::Time,
            noise: 0.02,
            points: vec![
                point(0, "3.7.8", None),
                point(1, "3.8.2", Some((1.10, Verdict::Faster))),
                point(2, "3.8.4.3", Some((0.5, Verdict::Slower))),
                point(3, "3.9.0", Some((1.5, Verdict::NoSignificantDifference))),
            ],
        };
        let s: Vec<&str> = h.largest_steps(5).iter().map(|p| p.version.as_str()).collect();
        assert_eq!(s, ["3.8.4.3", "3.8.2"]);
        let words = h.steps_sentence();
        assert!(
            words.starts_with("Largest significant steps (2 of 3 neighbouring pairs): 3.8.2 -> 3.8.4.3: 2.00x slower"),
            "{words}"
        );
        assert!(words.contains("3.7.8 -> 3.8.2: 1.10x faster"), "{words}");
    }
}
