//! The side-by-side table: operations (a suite's tests) down, configurations across.
//!
//! SQLite's speed comparison printed one row per test and one column per engine setup
//! (PostgreSQL, MySQL, SQLite with and without sync). This is that table for any run, with each
//! cell's median and 95% confidence interval across measured trials and its ratio to a baseline
//! column, computed from the stored trials so `show` can redraw it for any old run.

use crate::result::{Manifest, TrialRecord};
use litebench_stats::summarize;
use serde::Serialize;

/// What the cells show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Milliseconds per trial (lower is better): what the speed comparison reported per test.
    Time,
    /// Transactions per second (higher is better).
    Tps,
}

/// One cell: a configuration's figure for one operation.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub median: f64,
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    /// median / baseline median.
    pub ratio: Option<f64>,
    pub trials: usize,
}

/// One row: an operation (or `all`).
#[derive(Debug, Clone, Serialize)]
pub struct PivotRow {
    pub operation: String,
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

fn value(metric: Metric, ops: u64, ns: u64) -> Option<f64> {
    match metric {
        Metric::Time => Some(ns as f64 / 1e6),
        Metric::Tps => (ns > 0).then(|| ops as f64 / (ns as f64 / 1e9)),
    }
}

/// Builds the table from measured (non-warm-up) trials. `baseline` must be a configuration index.
pub fn side_by_side(
    manifest: &Manifest,
    trials: &[TrialRecord],
    operations: &[String],
    metric: Metric,
    baseline: usize,
) -> SideBySide {
    let names: Vec<String> = std::iter::once("all".to_string())
        .chain(operations.iter().cloned())
        .collect();
    let mut rows = Vec::new();
    for op in &names {
        let mut cells: Vec<Option<Cell>> = manifest
            .configs
            .iter()
            .map(|cfg| {
                let samples: Vec<f64> = trials
                    .iter()
                    .filter(|t| t.config == cfg.index && !t.warmup)
                    .filter_map(|t| {
                        if op == "all" {
                            value(metric, t.total_ops, t.measured_ns)
                        } else {
                            t.ops
                                .iter()
                                .find(|o| &o.name == op)
                                .and_then(|o| value(metric, o.ops, o.elapsed_ns))
                        }
                    })
                    .collect();
                summarize(&samples).map(|s| Cell {
                    median: s.median,
                    ci95_low: s.ci95.map(|c| c.low),
                    ci95_high: s.ci95.map(|c| c.high),
                    ratio: None,
                    trials: s.n,
                })
            })
            .collect();
        let base = cells.get(baseline).and_then(|c| c.as_ref()).map(|c| c.median);
        for c in cells.iter_mut().flatten() {
            c.ratio = base.filter(|b| *b > 0.0).map(|b| c.median / b);
        }
        rows.push(PivotRow {
            operation: op.clone(),
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

fn num(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

impl SideBySide {
    /// Header and body for the terminal or Markdown table: `median (low..high) ratio`.
    pub fn cells(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let unit = match self.metric {
            Metric::Time => "ms",
            Metric::Tps => "tx/s",
        };
        let mut headers = vec![format!(
            "operation ({unit}, median [95% CI] ratio to #{})",
            self.baseline
        )];
        headers.extend(self.columns.iter().enumerate().map(|(i, c)| format!("#{i} {c}")));
        let body = self
            .rows
            .iter()
            .map(|r| {
                let mut line = vec![r.operation.clone()];
                line.extend(r.cells.iter().map(|c| match c {
                    None => "-".to_string(),
                    Some(c) => {
                        let ci = match (c.ci95_low, c.ci95_high) {
                            (Some(l), Some(h)) => format!(" [{}..{}]", num(l), num(h)),
                            _ => String::new(),
                        };
                        let ratio = c.ratio.map_or(String::new(), |r| format!(" {r:.2}x"));
                        format!("{}{ci}{ratio}", num(c.median))
                    }
                }));
                line
            })
            .collect();
        (headers, body)
    }

    /// CSV: one row per operation, per column `<label> median`, `ci95_low`, `ci95_high`, `ratio`.
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["operation".to_string()];
        for (i, c) in self.columns.iter().enumerate() {
            for f in ["median", "ci95_low", "ci95_high", "ratio"] {
                header.push(format!("#{i} {c} {f}"));
            }
        }
        w.write_record(&header).expect("in-memory CSV");
        for r in &self.rows {
            let mut rec = vec![r.operation.clone()];
            for c in &r.cells {
                let f = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
                match c {
                    Some(c) => rec.extend([c.median.to_string(), f(c.ci95_low), f(c.ci95_high), f(c.ratio)]),
                    None => rec.extend(std::iter::repeat_n(String::new(), 4)),
                }
            }
            w.write_record(&rec).expect("in-memory CSV");
        }
        String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV is UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_units() {
        assert_eq!(value(Metric::Time, 10, 2_000_000), Some(2.0));
        assert_eq!(value(Metric::Tps, 10, 1_000_000_000), Some(10.0));
        assert_eq!(value(Metric::Tps, 10, 0), None);
    }
}
