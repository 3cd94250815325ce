//! The side-by-side table: operations (a suite's tests) down, configurations across.
//!
//! SQLite's speed comparison printed one row per test and one column per engine setup
//! (PostgreSQL, MySQL, SQLite with and without sync). This is that table for any run, with each
//! cell's median and the median's 95% interval across measured trials, and its ratio to a
//! baseline column with the ratio's interval and verdict, computed from the stored trials so
//! `show` can redraw it for any old run.

use super::number::{change_words, difference, interval_of, num, ratio};
use super::stats::{values_in, Metric, OpIndex, Statistics};
use crate::model::record::{Manifest, TrialRecord};
use litebench_stats::{summarize, Difference, Ratio};
use serde::Serialize;

/// One cell: a configuration's figure for one operation.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The median across trials (failures: the mean, which a few failing trials move).
    pub median: f64,
    /// 95% interval of the median (null below 6 trials).
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    /// The speed over the baseline's (higher = faster: median / baseline median of a
    /// throughput, baseline median / median of a time), with its bootstrap interval and verdict.
    pub ratio: Option<Ratio>,
    /// Failures: the difference from the baseline's mean in percentage points, with its
    /// bootstrap interval and conclusion (in place of a ratio, which means nothing against 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference: Option<Difference>,
    pub trials: usize,
}

/// One row: an operation (or `all`).
#[derive(Debug, Clone, Serialize)]
pub struct PivotRow {
    pub operation: String,
    /// How the operation reads at the run's parameters ([`super::summary::SummaryRow::operation_label`]).
    pub operation_label: String,
    pub cells: Vec<Option<Cell>>,
}

/// The whole table.
#[derive(Debug, Clone, Serialize)]
pub struct SideBySide {
    pub metric: Metric,
    pub baseline: usize,
    /// Configuration labels, in column order.
    pub columns: Vec<String>,
    pub rows: Vec<PivotRow>,
}

/// Builds the table from measured (non-warm-up) trials. `baseline` must be a configuration index.
pub fn side_by_side(
    manifest: &Manifest,
    workload: super::RunWorkload,
    stats: &Statistics,
    trials: &[TrialRecord],
    operations: &[String],
    metric: Metric,
    baseline: usize,
) -> SideBySide {
    let names: Vec<String> = std::iter::once("all".to_string())
        .chain(operations.iter().cloned())
        .collect();
    let mut rows = Vec::new();
    let index = OpIndex::of(trials);
    for op in &names {
        let base = values_in(&index, trials, baseline, op, metric);
        let cells: Vec<Option<Cell>> = manifest
            .configs
            .iter()
            .map(|cfg| {
                let samples = values_in(&index, trials, cfg.index, op, metric);
                let s = summarize(&samples)?;
                let other = cfg.index != baseline;
                if metric == Metric::Failures {
                    return Some(Cell {
                        median: s.mean,
                        ci95_low: None,
                        ci95_high: None,
                        ratio: None,
                        difference: other.then(|| stats.difference(&base, &samples)).flatten(),
                        trials: s.n,
                    });
                }
                Some(Cell {
                    median: s.median,
                    ci95_low: s.median_ci95.map(|c| c.low),
                    ci95_high: s.median_ci95.map(|c| c.high),
                    ratio: other.then(|| stats.compare(&base, &samples, metric)).flatten(),
                    difference: None,
                    trials: s.n,
                })
            })
            .collect();
        rows.push(PivotRow {
            operation: op.clone(),
            operation_label: workload.hooks().operation_label(op, &manifest.params),
            cells,
        });
    }
    SideBySide {
        metric,
        baseline,
        columns: manifest.configs.iter().map(|c| c.label.clone()).collect(),
        rows,
    }
}

impl SideBySide {
    /// Header and body for the terminal or Markdown table:
    /// `median [95% CI of the median] ratio [its 95% CI] verdict`.
    pub fn cells(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let mut headers = vec![if self.metric == Metric::Failures {
            format!(
                "operation (% failed, mean of trials; against #{} in percentage points [95% CI])",
                self.baseline
            )
        } else {
            format!(
                "operation ({}, median [95% CI]; speed against #{}, higher = faster [95% CI] verdict)",
                self.metric.heading(),
                self.baseline
            )
        }];
        headers.extend(self.columns.iter().enumerate().map(|(i, c)| format!("#{i} {c}")));
        let body = self
            .rows
            .iter()
            .map(|r| {
                let mut line = vec![r.operation_label.clone()];
                line.extend(r.cells.iter().enumerate().map(|(i, c)| match c {
                    None => "-".to_string(),
                    Some(c) => {
                        let ci = interval_of(c.ci95_low, c.ci95_high);
                        let rat = if i == self.baseline {
                            "baseline".to_string()
                        } else if self.metric == Metric::Failures {
                            return format!("{} {}", num(c.median), difference(c.difference.as_ref()));
                        } else {
                            ratio(c.ratio.as_ref())
                        };
                        format!("{} [{ci}] {rat}", num(c.median))
                    }
                }));
                line
            })
            .collect();
        (headers, body)
    }

    /// CSV: one row per operation; per column `median`, `ci95_low`, `ci95_high`, `ratio`,
    /// `ratio_ci95_low`, `ratio_ci95_high`, `verdict` (empty when unknown).
    /// Failures: `mean`, `ci95_low`, `ci95_high` (empty), `difference_pp`,
    /// `difference_ci95_low_pp`, `difference_ci95_high_pp`, `change` (its words).
    pub fn csv(&self) -> String {
        let mut header = vec!["operation".to_string()];
        let fields = if self.metric == Metric::Failures {
            [
                "mean",
                "ci95_low",
                "ci95_high",
                "difference_pp",
                "difference_ci95_low_pp",
                "difference_ci95_high_pp",
                "change",
            ]
        } else {
            [
                "median",
                "ci95_low",
                "ci95_high",
                "ratio",
                "ratio_ci95_low",
                "ratio_ci95_high",
                "verdict",
            ]
        };
        for (i, c) in self.columns.iter().enumerate() {
            for f in fields {
                header.push(format!("#{i} {c} {f}"));
            }
        }
        let mut records = vec![header];
        for r in &self.rows {
            let mut rec = vec![r.operation.clone()];
            for c in &r.cells {
                let f = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
                match c {
                    Some(c) if self.metric == Metric::Failures => rec.extend([
                        c.median.to_string(),
                        String::new(),
                        String::new(),
                        f(c.difference.map(|d| d.diff)),
                        f(c.difference.and_then(|d| d.ci95).map(|i| i.low)),
                        f(c.difference.and_then(|d| d.ci95).map(|i| i.high)),
                        c.difference
                            .and_then(|d| d.change)
                            .map_or(String::new(), |v| change_words(v).to_string()),
                    ]),
                    Some(c) => rec.extend([
                        c.median.to_string(),
                        f(c.ci95_low),
                        f(c.ci95_high),
                        f(c.ratio.map(|r| r.ratio)),
                        f(c.ratio.and_then(|r| r.ci95).map(|i| i.low)),
                        f(c.ratio.and_then(|r| r.ci95).map(|i| i.high)),
                        c.ratio
                            .and_then(|r| r.verdict)
                            .map_or(String::new(), |v| v.as_str().to_string()),
                    ]),
                    None => rec.extend(std::iter::repeat_n(String::new(), 7)),
                }
            }
            records.push(rec);
        }
        super::csv::records(&records)
    }
}
