//! The comparison of two stored runs, or of two configurations, against a baseline A.
//!
//! A benchmark result says little without the conditions under which it was measured, and a
//! comparison says nothing when those conditions differ in ways nobody noticed. So the model
//! carries, above the figures, every difference between the two manifests (machine,
//! filesystem, device, engine builds and compile options, knobs, workload parameters, sync
//! latency), and the figures use the same ratio, interval and verdict code as every table
//! ([`super::stats`]).

pub use super::facts::Difference;
use super::format::Document;
use super::number::{difference, opt, speed, speed_interval, times};
use super::stats::{values, Metric, Statistics};
use super::Format;
use crate::model::record::{ConfigInfo, Manifest, TrialRecord};
use litebench_stats::{summarize, Change, Verdict};
use serde::Serialize;

/// One side of a comparison: a stored run and, optionally, one of its configurations.
#[derive(Debug, Clone, Serialize)]
pub struct Side<'a> {
    pub run: i64,
    /// The run's name (`run --name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub status: String,
    /// `None`: every configuration of the run.
    pub config: Option<usize>,
    #[serde(skip)]
    pub manifest: &'a Manifest,
    #[serde(skip)]
    pub trials: &'a [TrialRecord],
}

/// One row: a pair of configurations and one operation.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub config_a: usize,
    pub label_a: String,
    pub config_b: usize,
    pub label_b: String,
    pub operation: String,
    pub trials_a: usize,
    pub trials_b: usize,
    pub median_a: Option<f64>,
    pub median_b: Option<f64>,
    /// B's speed over A's: `median_b / median_a` of a throughput, `median_a / median_b` of a
    /// time (higher = faster, whatever the metric).
    pub ratio: Option<f64>,
    pub ratio_ci95_low: Option<f64>,
    pub ratio_ci95_high: Option<f64>,
    pub verdict: Option<Verdict>,
    /// `--metric failures`: B's mean failure rate minus A's in percentage points (the medians
    /// above are then the means), its bootstrap interval and conclusion; ratios are null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_pp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_ci95_low_pp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_ci95_high_pp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

impl Row {
    fn difference(&self) -> Option<litebench_stats::Difference> {
        Some(litebench_stats::Difference {
            diff: self.difference_pp?,
            ci95: self
                .difference_ci95_low_pp
                .zip(self.difference_ci95_high_pp)
                .map(|(low, high)| litebench_stats::Interval { low, high }),
            change: self.change,
        })
    }
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison<'a> {
    pub a: Side<'a>,
    pub b: Side<'a>,
    pub metric: Metric,
    pub statistics: Statistics,
    pub differences: Vec<Difference>,
    /// Configurations of one run with no counterpart in the other (labels).
    pub unmatched_a: Vec<String>,
    pub unmatched_b: Vec<String>,
    pub rows: Vec<Row>,
    /// Rows whose verdict is *slower* (failures: *more failures*).
    pub regressions: usize,
    /// Each pair's WAL peak, where both runs recorded their WAL's size (what a checkpointer,
    /// a hold or a sidecar is compared for); never counted as a regression.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wal: Vec<WalRow>,
}

/// One pair of configurations' WAL peaks: the median over measured trials of each trial's
/// largest WAL, and B's against A's.
#[derive(Debug, Clone, Serialize)]
pub struct WalRow {
    pub config_a: usize,
    pub config_b: usize,
    pub label: String,
    pub trials_a: usize,
    pub trials_b: usize,
    pub peak_a_bytes: Option<f64>,
    pub peak_b_bytes: Option<f64>,
    /// A's peak over B's (higher = B's WAL smaller), its interval and verdict, computed as a
    /// latency's (lower is better): `faster` is a smaller WAL.
    pub ratio: Option<f64>,
    pub ratio_ci95_low: Option<f64>,
    pub ratio_ci95_high: Option<f64>,
    pub verdict: Option<Verdict>,
}

/// The metric two runs are compared by, one for the terminal and the page: the one asked for,
/// else p99 where either run's schedule fixed its rate (an open loop, or a cast's workload role
/// with a rate: its tx/s is the schedule's, the same on both sides), else the workload's own.
pub fn metric_for(a: &Manifest, b: &Manifest, chosen: Option<Metric>) -> Metric {
    chosen.unwrap_or_else(|| {
        let metric = |m| super::headline_metric(m, super::RunWorkload::of(m), None);
        let (x, y) = (metric(a), metric(b));
        if x == Metric::P99 || y == Metric::P99 {
            Metric::P99
        } else {
            x
        }
    })
}

/// Each measured trial's WAL peak of configuration `config`, bytes; trials that read no WAL
/// size (no series) have none.
fn wal_peaks(trials: &[TrialRecord], config: usize) -> Vec<f64> {
    trials
        .iter()
        .filter(|t| t.config == config && !t.warmup)
        .filter_map(|t| super::wal::trial_wal(t.seq, t.series.as_ref()?))
        .map(|w| w.peak_bytes as f64)
        .collect()
}

/// The WAL rows of the compared pairs: those where both sides read a WAL that grew at all.
fn wal_rows(a: &Side<'_>, b: &Side<'_>, pairs: &[(usize, usize)], stats: &Statistics) -> Vec<WalRow> {
    let mut out = Vec::new();
    for &(ia, ib) in pairs {
        let (va, vb) = (wal_peaks(a.trials, ia), wal_peaks(b.trials, ib));
        let seen = |v: &[f64]| v.iter().any(|x| *x > 0.0);
        if va.is_empty() || vb.is_empty() || !(seen(&va) || seen(&vb)) {
            continue;
        }
        let median = |v: &[f64]| summarize(v).map(|s| s.median);
        // A side whose WAL never grew (a rollback journal, say) has nothing to be a multiple of.
        let r = stats
            .compare(&va, &vb, Metric::P99)
            .filter(|_| median(&va).is_some_and(|m| m > 0.0) && median(&vb).is_some_and(|m| m > 0.0));
        out.push(WalRow {
            config_a: ia,
            config_b: ib,
            label: pair_label(&a.manifest.configs[ia].label, &b.manifest.configs[ib].label),
            trials_a: va.len(),
            trials_b: vb.len(),
            peak_a_bytes: median(&va),
            peak_b_bytes: median(&vb),
            ratio: r.map(|r| r.ratio),
            ratio_ci95_low: r.and_then(|r| r.ci95).map(|c| c.low),
            ratio_ci95_high: r.and_then(|r| r.ci95).map(|c| c.high),
            verdict: r.and_then(|r| r.verdict),
        });
    }
    out
}

/// Pairs whose trials' journal modes changed differently (a sidecar switched one side to WAL):
/// the difference between them is then mostly the journal mode.
fn journal_differences(a: &Side<'_>, b: &Side<'_>, pairs: &[(usize, usize)]) -> Vec<Difference> {
    pairs
        .iter()
        .filter_map(|&(ia, ib)| {
            let (x, y) = (
                super::journal_switch::described(a.trials, ia),
                super::journal_switch::described(b.trials, ib),
            );
            (x != y).then(|| Difference {
                what: if pairs.len() == 1 {
                    "journal mode during the trials".into()
                } else {
                    format!("#{ia} journal mode during the trials")
                },
                a: x.unwrap_or_else(|| "unchanged".into()),
                b: y.unwrap_or_else(|| "unchanged".into()),
            })
        })
        .collect()
}

/// A WAL row without a ratio: which side had no WAL (its median peak was none), else `-`.
fn none_side(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(0.0), _) => "A had none".into(),
        (_, Some(0.0)) => "B had none".into(),
        _ => "-".into(),
    }
}

/// A pair's label: one when both sides share it, else `A -> B`.
fn pair_label(a: &str, b: &str) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a} -> {b}")
    }
}

/// The configuration pairs to compare: the chosen ones, or (whole runs) those with the same
/// label, or the only configuration of each.
fn pairs(a: &Side<'_>, b: &Side<'_>) -> (Vec<(usize, usize)>, Vec<String>, Vec<String>) {
    if let (Some(x), Some(y)) = (a.config, b.config) {
        return (vec![(x, y)], Vec::new(), Vec::new());
    }
    let (ca, cb) = (&a.manifest.configs, &b.manifest.configs);
    if ca.len() == 1 && cb.len() == 1 {
        return (vec![(0, 0)], Vec::new(), Vec::new());
    }
    let mut out = Vec::new();
    let mut only_a = Vec::new();
    for c in ca {
        match cb.iter().find(|d| d.label == c.label) {
            Some(d) => out.push((c.index, d.index)),
            None => only_a.push(c.label.clone()),
        }
    }
    let only_b = cb
        .iter()
        .filter(|d| !ca.iter().any(|c| c.label == d.label))
        .map(|d| d.label.clone())
        .collect();
    (out, only_a, only_b)
}

/// Builds the comparison; `operations` are those to show besides `all`.
pub fn compare<'a>(
    a: Side<'a>,
    b: Side<'a>,
    metric: Metric,
    stats: Statistics,
    operations: &[String],
) -> Comparison<'a> {
    let chosen = |s: &Side<'a>| -> Vec<&'a ConfigInfo> {
        match s.config {
            Some(i) => s.manifest.configs.get(i).into_iter().collect(),
            None => s.manifest.configs.iter().collect(),
        }
    };
    let mut differences = super::facts::what_differs(a.manifest, &chosen(&a), b.manifest, &chosen(&b));
    let (pairs, unmatched_a, unmatched_b) = pairs(&a, &b);
    differences.extend(journal_differences(&a, &b, &pairs));
    let wal = wal_rows(&a, &b, &pairs, &stats);
    let mut rows = Vec::new();
    for (ia, ib) in pairs {
        for op in std::iter::once("all").chain(operations.iter().map(String::as_str)) {
            let va = values(a.trials, ia, op, metric);
            let vb = values(b.trials, ib, op, metric);
            if va.is_empty() && vb.is_empty() {
                continue;
            }
            let failures = metric == Metric::Failures;
            let r = if failures {
                None
            } else {
                stats.compare(&va, &vb, metric)
            };
            let d = if failures { stats.difference(&va, &vb) } else { None };
            let middle = |v: &[f64]| summarize(v).map(|s| if failures { s.mean } else { s.median });
            rows.push(Row {
                config_a: ia,
                label_a: a.manifest.configs[ia].label.clone(),
                config_b: ib,
                label_b: b.manifest.configs[ib].label.clone(),
                operation: op.to_string(),
                trials_a: va.len(),
                trials_b: vb.len(),
                median_a: middle(&va),
                median_b: middle(&vb),
                ratio: r.map(|r| r.ratio),
                ratio_ci95_low: r.and_then(|r| r.ci95).map(|c| c.low),
                ratio_ci95_high: r.and_then(|r| r.ci95).map(|c| c.high),
                verdict: r.and_then(|r| r.verdict),
                difference_pp: d.map(|d| d.diff),
                difference_ci95_low_pp: d.and_then(|d| d.ci95).map(|c| c.low),
                difference_ci95_high_pp: d.and_then(|d| d.ci95).map(|c| c.high),
                change: d.and_then(|d| d.change),
            });
        }
    }
    let regressions = rows
        .iter()
        .filter(|r| r.verdict == Some(Verdict::Slower) || r.change == Some(Change::Higher))
        .count();
    Comparison {
        a,
        b,
        metric,
        statistics: stats,
        differences,
        unmatched_a,
        unmatched_b,
        rows,
        regressions,
        wal,
    }
}

fn side_name(s: &Side<'_>) -> String {
    match s.config {
        Some(c) => format!("{} #{c}", run_title(s)),
        None => run_title(s),
    }
}

/// `run 3`, or `run 3 (wal-baseline)` for a named run.
fn run_title(s: &Side<'_>) -> String {
    match &s.name {
        Some(n) => format!("run {} ({n})", s.run),
        None => format!("run {}", s.run),
    }
}

impl Comparison<'_> {
    /// The comparison for any format: its JSON, its rows as CSV, and the text formats' parts.
    pub fn document(&self) -> Document {
        let mut doc = Document::new(self).own(Format::Csv, self.csv()).heading(format!(
            "compare {} (A, baseline) with {} (B) — {}, {}",
            side_name(&self.a),
            side_name(&self.b),
            self.a.manifest.workload,
            self.metric.heading()
        ));
        doc = doc.text("\n");
        if crate::base::terminal::width().is_some() {
            doc = doc.text(format!("{}\n\n", self.answer_line()));
        }
        // Beside the answer: a ratio between engines whose commits promise differently
        // compares durability as much as speed.
        let durability: String = self
            .durability_warnings()
            .iter()
            .map(|w| format!("warning: {w}\n\n"))
            .collect();
        doc = doc.text(durability);
        if self.differences.is_empty() {
            doc = doc.text(
                "the two manifests agree on machine, filesystem, device, engines, knobs, load and parameters\n\n",
            );
        } else {
            let body: Vec<Vec<String>> = self
                .differences
                .iter()
                .map(|d| vec![d.what.clone(), d.a.clone(), d.b.clone()])
                .collect();
            doc = doc
                .heading("what differs between A and B")
                .table("differences", &["", "A", "B"], body)
                .text("\n");
        }
        let mut out = String::new();
        for s in [&self.a, &self.b] {
            if s.status != "complete" {
                out += &format!(
                    "warning: {} is {}: only its finished trials are compared\n",
                    side_name(s),
                    s.status
                );
            }
        }
        for (side, list) in [("A", &self.unmatched_a), ("B", &self.unmatched_b)] {
            for l in list.iter() {
                out += &format!("warning: configuration `{l}` is only in {side}; compare it with RUN:CONFIG\n");
            }
        }
        if crate::base::terminal::width().is_some() {
            self.narrow_tables(doc.text(out))
        } else {
            self.wide_tables(doc, out)
        }
    }

    /// For each pair of configurations compared on engines whose commits promise differently,
    /// the warning that says so and the knob that evens them ([`super::commit_sync`]).
    fn durability_warnings(&self) -> Vec<String> {
        let mut pairs: Vec<(usize, usize)> = self.rows.iter().map(|r| (r.config_a, r.config_b)).collect();
        pairs.dedup();
        pairs
            .into_iter()
            .filter_map(|(ia, ib)| {
                super::commit_sync::pair_warning(
                    (self.a.manifest, self.a.trials, ia),
                    (self.b.manifest, self.b.trials, ib),
                )
            })
            .collect()
    }

    /// Today's full-width tables (`--wide`, pipes): a row per configuration and operation, each
    /// with both labels.
    fn wide_tables(&self, doc: Document, warnings: String) -> Document {
        let out = warnings;
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                vec![
                    pair_label(&r.label_a, &r.label_b),
                    r.operation.clone(),
                    format!("{}/{}", r.trials_a, r.trials_b),
                    opt(r.median_a),
                    opt(r.median_b),
                    match r.difference() {
                        Some(d) => difference(Some(&d)),
                        None => r.ratio.map_or("-".into(), speed),
                    },
                    match (r.ratio, r.ratio_ci95_low, r.ratio_ci95_high) {
                        (Some(x), Some(low), Some(high)) => speed_interval(x, low, high),
                        _ => "-".into(),
                    },
                    r.verdict.map_or("-".into(), |v| v.as_str().to_string()),
                ]
            })
            .collect();
        let unit = self.metric.heading();
        let failures = self.metric == Metric::Failures;
        let middle = if failures { "mean" } else { "median" };
        let (ma, mb) = (format!("A {middle} {unit}"), format!("B {middle} {unit}"));
        let against = if failures {
            "B - A, percentage points [95% CI] (lower = fewer failures)"
        } else {
            "B against A"
        };
        let doc = doc.text(out).table(
            "rows",
            &[
                "configuration",
                "op",
                "trials A/B",
                &ma,
                &mb,
                against,
                "95% CI",
                "verdict",
            ],
            body,
        );
        let mut out = self.statistics_text();
        out += &self.verdict_line();
        self.wal_table(doc.text(out), false)
    }

    /// The tables at a terminal's width (issue 46, item 13): configurations by number with
    /// their labels once, the whole-trial rows first (the answer's table, one screen), then the
    /// operations; the factor and verdict in one column that reads with its word.
    fn narrow_tables(&self, doc: Document) -> Document {
        let mut legend = String::from("configurations:\n");
        let mut seen = Vec::new();
        for r in &self.rows {
            if seen.contains(&(r.config_a, r.config_b)) {
                continue;
            }
            seen.push((r.config_a, r.config_b));
            legend += &if r.config_a == r.config_b && r.label_a == r.label_b {
                format!("  #{} {}\n", r.config_a, r.label_a)
            } else {
                format!(
                    "  #{}->#{} A: {}; B: {}\n",
                    r.config_a, r.config_b, r.label_a, r.label_b
                )
            };
        }
        let key = |r: &Row| {
            if r.config_a == r.config_b {
                format!("#{}", r.config_a)
            } else {
                format!("#{}->#{}", r.config_a, r.config_b)
            }
        };
        let against = |r: &Row| match r.difference() {
            Some(d) => difference(Some(&d)),
            None => match (r.ratio, r.verdict) {
                (None, _) => "-".into(),
                (Some(_), Some(Verdict::NoSignificantDifference)) => "n.s.".into(),
                (Some(x), Some(Verdict::Inconclusive)) => format!("? {}", speed(x)),
                (Some(x), _) => speed(x),
            },
        };
        let ci = |r: &Row| match (r.ratio, r.ratio_ci95_low, r.ratio_ci95_high) {
            (Some(x), Some(low), Some(high)) => speed_interval(x, low, high),
            _ => "-".into(),
        };
        let row = |r: &Row, op: bool| {
            let mut v = vec![key(r)];
            if op {
                v.push(r.operation.clone());
            }
            v.extend([
                format!("{}/{}", r.trials_a, r.trials_b),
                opt(r.median_a),
                opt(r.median_b),
                against(r),
                ci(r),
            ]);
            v
        };
        let middle = if self.metric == Metric::Failures {
            "mean"
        } else {
            "median"
        };
        let caption = format!(
            "{middle} {} of trials; B against A: B's {} (n.s.: no significant difference, ?: inconclusive)\n",
            self.metric.heading(),
            if self.metric == Metric::Failures {
                "difference in percentage points"
            } else {
                "speed over A's"
            }
        );
        let whole: Vec<Vec<String>> = self
            .rows
            .iter()
            .filter(|r| r.operation == "all")
            .map(|r| row(r, false))
            .collect();
        let ops: Vec<Vec<String>> = self
            .rows
            .iter()
            .filter(|r| r.operation != "all")
            .map(|r| row(r, true))
            .collect();
        let mut doc =
            doc.text(legend)
                .text(caption)
                .table("rows", &["", "trials", "A", "B", "B against A", "95% CI"], whole);
        if !ops.is_empty() {
            doc = doc.text("\n").heading("per operation").table(
                "operations",
                &["", "op", "trials", "A", "B", "B against A", "95% CI"],
                ops,
            );
        }
        let out = format!("{}{}", self.statistics_text(), self.verdict_line());
        self.wal_table(doc.text(out), true)
    }

    /// How the rows' intervals and verdicts were computed, as one line.
    fn statistics_text(&self) -> String {
        if self.metric == Metric::Failures {
            format!(
                "\nstatistics: failed over attempted transactions per trial; difference of means, {}, seed {}; more or fewer failures when the 95% interval excludes 0, none in either when every trial of both had none\n",
                litebench_stats::DIFFERENCE_INTERVAL_METHOD,
                self.statistics.bootstrap_seed
            )
        } else {
            format!(
                "\nstatistics: ratio of medians, {}, seed {}; {}\n",
                self.statistics.ratio_interval,
                self.statistics.bootstrap_seed,
                super::number::verdict_rule(self.statistics.noise, self.statistics.instruction_noise)
            )
        }
    }

    /// The answer in one line, before any table: how B's rows came out against A's.
    fn answer_line(&self) -> String {
        let whole: Vec<&Row> = self.rows.iter().filter(|r| r.operation == "all").collect();
        let count = |f: &dyn Fn(&Row) -> bool| whole.iter().filter(|r| f(r)).count();
        let parts: Vec<String> = if self.metric == Metric::Failures {
            [
                (Change::Higher, "more failures"),
                (Change::Lower, "fewer failures"),
                (Change::NoSignificantDifference, "not told apart"),
                (Change::NoneInEither, "none in either"),
            ]
            .iter()
            .map(|(c, w)| (count(&|r: &Row| r.change == Some(*c)), *w))
            .filter(|(n, _)| *n > 0)
            .map(|(n, w)| format!("{n} {w}"))
            .collect()
        } else {
            [
                (Verdict::Slower, "slower"),
                (Verdict::Faster, "faster"),
                (Verdict::NoSignificantDifference, "not told apart"),
                (Verdict::Inconclusive, "inconclusive"),
            ]
            .iter()
            .map(|(v, w)| (count(&|r: &Row| r.verdict == Some(*v)), *w))
            .filter(|(n, _)| *n > 0)
            .map(|(n, w)| format!("{n} {w}"))
            .collect()
        };
        let without = count(&|r: &Row| r.verdict.is_none() && r.change.is_none());
        let mut said = parts.join(", ");
        if without > 0 {
            if !said.is_empty() {
                said += ", ";
            }
            said += &format!("{without} without a verdict (too few trials)");
        }
        format!(
            "B against A by {} over whole trials, {} configuration{}: {said}.",
            self.metric.name(),
            whole.len(),
            if whole.len() == 1 { "" } else { "s" }
        )
    }

    /// The WAL peaks of both sides, where they recorded them.
    /// `narrow`: configurations by number, as the narrow tables name them.
    fn wal_table(&self, doc: Document, narrow: bool) -> Document {
        if self.wal.is_empty() {
            return doc;
        }
        let size = |b: Option<f64>| b.map_or("-".into(), super::wal::size);
        let body = self
            .wal
            .iter()
            .map(|w| {
                vec![
                    match (narrow, w.config_a == w.config_b) {
                        (false, _) => w.label.clone(),
                        (true, true) => format!("#{}", w.config_a),
                        (true, false) => format!("#{}->#{}", w.config_a, w.config_b),
                    },
                    format!("{}/{}", w.trials_a, w.trials_b),
                    size(w.peak_a_bytes),
                    size(w.peak_b_bytes),
                    w.ratio.map_or_else(
                        || none_side(w.peak_a_bytes, w.peak_b_bytes),
                        |r| {
                            if r >= 1.0 {
                                format!("{} smaller", times(r))
                            } else {
                                format!("{} larger", times(1.0 / r))
                            }
                        },
                    ),
                    match w.verdict {
                        Some(Verdict::Faster) => "smaller".into(),
                        Some(Verdict::Slower) => "larger".into(),
                        Some(v) => v.as_str().to_string(),
                        None => "-".into(),
                    },
                ]
            })
            .collect();
        doc.text("\n")
            .heading("WAL peak: the median of each trial's largest WAL")
            .table(
                "wal",
                &["configuration", "trials A/B", "A", "B", "B against A", "verdict"],
                body,
            )
    }

    /// The last line: the regressions, none, or no verdict at all for too few trials.
    fn verdict_line(&self) -> String {
        if self.regressions > 0 {
            format!(
                "{} significant regression{} of B against A\n",
                self.regressions,
                if self.regressions == 1 { "" } else { "s" }
            )
        } else if let Some(fewest) = self.too_few_trials() {
            // Not one row could be judged: "no regression" would read as a finding.
            format!(
                "no verdict: a row needs {} trials on each side for an interval, and the fewest here were {fewest}; run both with --trials 10\n",
                litebench_stats::MIN_TRIALS
            )
        } else {
            "no significant regression of B against A\n".to_string()
        }
    }

    /// The fewest trials of a side, where no row has a verdict because of them.
    fn too_few_trials(&self) -> Option<usize> {
        let fewest = self.rows.iter().map(|r| r.trials_a.min(r.trials_b)).min()?;
        (fewest < litebench_stats::MIN_TRIALS && self.rows.iter().all(|r| r.verdict.is_none())).then_some(fewest)
    }

    /// CSV: the rows.
    pub fn csv(&self) -> String {
        super::csv::rows(&self.rows)
    }
}
