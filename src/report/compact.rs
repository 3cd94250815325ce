//! The compact answer: what `run` and `show` print by default at a terminal, and what the HTML
//! page's first screen holds.
//!
//! The whole summary of an 8-configuration run of a two-script mix, statement rows included, is
//! 2,500 lines at 80 columns: every statement row repeats its script's rate and verdict, and the
//! columns that answer an application developer's question (latency from the intended start,
//! failures by cause) sit in the ninth panel. The compact view keeps what the question needs:
//! one line per configuration with its whole-run figures and only the words of its label that
//! differ from the others' (what they share is said once); one row per configuration and script
//! (or operation type), in an open loop with p50, p99 and its verdict against #0, p99.9 and the
//! failures by cause, in a closed loop with the rate, its interval and verdict, p99 with its
//! verdict and syncs per transaction; a script's statements in a latency table of their own.
//! Everything else is behind `--all`.

use super::number::{count, interval, num};
use super::summary::{Against, SummaryRow};
use super::{Metric, Report};
use litebench_stats::{Change, Verdict};
use std::collections::BTreeSet;

/// Configurations the compact view is laid out for: more are shown, but a row per configuration
/// and script no longer fits one screen, and the view says so.
pub const SCREEN_CONFIGS: usize = 8;

/// A table: its header and rows of cells.
pub type Table = (Vec<String>, Vec<Vec<String>>);

/// The compact view of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Compact {
    /// What every configuration's label shares (`synchronous=normal`), when anything.
    pub common: Option<String>,
    /// One row per configuration: its whole-run figures and the words of its label of its own.
    pub configs: Table,
    /// One row per configuration and operation type; `None` when the run has one type only
    /// (the configurations' rows are then the answer).
    pub operations: Option<Table>,
    /// One latency row per configuration and statement of a script; `None` without any.
    pub statements: Option<Table>,
    /// What the tables' figures are, in a sentence or two.
    pub caption: String,
    /// Why the view does not fit one screen (more than [`SCREEN_CONFIGS`] configurations).
    pub note: Option<String>,
}

/// A verdict against #0 in a few characters: `2.10x faster`, `21.7x slower`, `n.s.` (no
/// significant difference), `?` (inconclusive), `baseline`. The factor is always the larger
/// figure over the smaller, so it reads with its word; for failures, the difference in
/// percentage points (`+10.3pp`) or `none`.
pub fn short_against(a: &Against, baseline: bool) -> String {
    if baseline {
        return "baseline".into();
    }
    match a {
        Against::Nothing => "-".into(),
        Against::Ratio(r) => match r.verdict {
            Some(Verdict::Faster) => format!("{}x faster", num(r.ratio)),
            Some(Verdict::Slower) => format!("{}x slower", num(1.0 / r.ratio)),
            Some(Verdict::NoSignificantDifference) => "n.s.".into(),
            Some(Verdict::Inconclusive) => "?".into(),
            // Too few trials for a verdict: the measured factor, read with its word.
            None => super::number::speed(r.ratio),
        },
        Against::Difference(d) => match d.change {
            Some(Change::NoneInEither) => "none".into(),
            Some(Change::NoSignificantDifference) => "n.s.".into(),
            _ if d.diff > 0.0 => format!("+{}pp", num(d.diff)),
            _ => format!("{}pp", num(d.diff)),
        },
    }
}

/// The words of each configuration's label, split into those every configuration shares (in
/// the first label's order) and each one's own (its whole label when it has none of its own).
pub fn split_labels(labels: &[&str]) -> (Vec<String>, Vec<String>) {
    let words: Vec<Vec<&str>> = labels.iter().map(|l| l.split_whitespace().collect()).collect();
    let shared: BTreeSet<&str> = match words.split_first() {
        Some((first, rest)) if !rest.is_empty() => first
            .iter()
            .copied()
            .filter(|w| rest.iter().all(|r| r.contains(w)))
            .collect(),
        _ => BTreeSet::new(),
    };
    let own = words
        .iter()
        .map(|ws| {
            let own: Vec<&str> = ws.iter().copied().filter(|w| !shared.contains(w)).collect();
            if own.is_empty() {
                ws.join(" ")
            } else {
                own.join(" ")
            }
        })
        .collect();
    let common = words
        .first()
        .map(|ws| {
            ws.iter()
                .filter(|w| shared.contains(*w))
                .map(|w| w.to_string())
                .collect()
        })
        .unwrap_or_default();
    (common, own)
}

/// The configurations' own words as columns, when every one is `knob=value` and all name the
/// same knobs in the same order: the knobs (the headers) and each configuration's values. A
/// column per knob is narrower than the words repeated on every line (`journal_mode` once, `wal`
/// and `delete` below it), and reads as the grid of a sweep.
pub fn knob_columns(own: &[String]) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    let split: Vec<Vec<(&str, &str)>> = own
        .iter()
        .map(|l| {
            l.split_whitespace()
                .map(|w| w.split_once('='))
                .collect::<Option<Vec<_>>>()
        })
        .collect::<Option<Vec<_>>>()?;
    let keys: Vec<&str> = split.first()?.iter().map(|(k, _)| *k).collect();
    if keys.is_empty()
        || split
            .iter()
            .any(|ws| ws.iter().map(|(k, _)| *k).ne(keys.iter().copied()))
    {
        return None;
    }
    Some((
        keys.iter().map(|k| k.to_string()).collect(),
        split
            .iter()
            .map(|ws| ws.iter().map(|(_, v)| v.to_string()).collect())
            .collect(),
    ))
}

/// Give-ups per trial by cause, `timeout/upgrade/snapshot` (`30.3/0.17/0`); `0` with none; the
/// total and `?` for the parts in runs stored before causes were counted; `+N` for give-ups of
/// no SQLite cause (a server's serialization failures and deadlocks).
fn causes(r: &SummaryRow) -> String {
    let f = &r.failures;
    if f.busy == 0.0 {
        return "0".into();
    }
    let parts = [f.busy_timeout, f.busy_upgrade, f.busy_snapshot];
    let Some(known) = parts.iter().copied().collect::<Option<Vec<f64>>>() else {
        return format!("{} ?", count(f.busy));
    };
    let mut s = known.iter().map(|x| count(*x)).collect::<Vec<_>>().join("/");
    let other = f.busy - known.iter().sum::<f64>();
    if other > 1e-9 {
        s += &format!(" +{}", count(other));
    }
    s
}

fn ms(x: Option<f64>) -> String {
    x.map_or("-".into(), num)
}

fn failed(r: &SummaryRow) -> String {
    super::answer::failed_share(r)
}

/// The names of a run's statement parts (a script's statements, recorded as parts of it).
pub fn part_names<'a>(report: &'a Report<'_>) -> BTreeSet<&'a str> {
    report
        .trials
        .iter()
        .flat_map(|t| &t.ops)
        .filter(|o| o.part_of.is_some())
        .map(|o| o.name.as_str())
        .collect()
}

/// `t` without its columns against #0 (`p99 vs #0`).
fn without_verdicts((headers, rows): Table) -> Table {
    let keep: Vec<bool> = headers.iter().map(|h| !h.ends_with("vs #0")).collect();
    let pick = |cells: Vec<String>| -> Vec<String> {
        cells
            .into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| c)
            .collect()
    };
    (pick(headers), rows.into_iter().map(pick).collect())
}

/// What every table of the view is laid out by.
struct View<'a, 'r> {
    report: &'a Report<'r>,
    metric: Metric,
    open: bool,
    any_failed: bool,
    unit: String,
    /// The verdict column's header: `p99 vs #0`.
    vs: String,
    /// The run counted instructions (`--measure instructions`): an `instr/op` column leads,
    /// and every time is said to be under valgrind.
    counted: bool,
}

/// The compact view of `report`, comparing by its headline metric ([`Report::metric`]).
pub fn compact(report: &Report<'_>) -> Compact {
    let m = report.manifest;
    let labels: Vec<&str> = m.configs.iter().map(|c| c.label.as_str()).collect();
    let (common, own) = split_labels(&labels);
    let parts = part_names(report);
    let view = View {
        report,
        metric: report.metric,
        // A cast whose workload roles run at a rate is an open loop too: its table has the
        // open loop's columns, `failed` among them.
        open: m.load.open()
            || m.load
                .cast
                .as_ref()
                .is_some_and(|c| c.workload_roles().any(|r| r.rate.is_some())),
        // A cast's roles fail in ways a reader looks for (a writer's give-ups beside readers):
        // its table always has a `failed` column, 0 included.
        any_failed: m.load.cast.is_some()
            || report
                .summary
                .iter()
                .any(|r| r.failures.busy > 0.0 || r.failures.failure_pct.is_some_and(|p| p > 0.0)),
        unit: report.unit(),
        counted: m.instructions.is_some(),
        vs: match report.metric {
            Metric::Tps => "vs #0".to_string(),
            m => format!("{} vs #0", m.name()),
        },
    };
    let ops: Vec<&SummaryRow> = report
        .summary
        .iter()
        .filter(|r| r.operation != "all" && !parts.contains(r.operation.as_str()))
        .collect();
    // One configuration has nothing to be compared with: no verdict columns.
    let alone = |t: Table| if m.configs.len() == 1 { without_verdicts(t) } else { t };
    Compact {
        common: (!common.is_empty()).then(|| common.join(" ")),
        configs: alone(view.configs(&own)),
        operations: (!ops.is_empty()).then(|| alone(view.operations(&ops))),
        statements: (!parts.is_empty()).then(|| view.statements(&parts)),
        caption: view.caption(),
        note: (m.configs.len() > SCREEN_CONFIGS).then(|| {
            format!(
                "{} configurations do not fit one screen: the rows above are every configuration's; `--metric` chooses what is compared, `litebench compare {}:I {}:J` compares two of them",
                m.configs.len(),
                report.run.id,
                report.run.id
            )
        }),
    }
}

impl View<'_, '_> {
    /// The configurations: their whole-run figures, then the knobs that differ (as columns
    /// where [`knob_columns`] can) or their own words.
    fn configs(&self, own: &[String]) -> Table {
        let knobs = knob_columns(own);
        let mut headers: Vec<String> = vec!["#".into()];
        if self.counted {
            headers.push("instr/op".into());
        }
        headers.push(self.timed(&format!("{}/s", self.unit)));
        if self.open {
            headers.extend(["p99 ms".into(), self.vs.clone(), "failed".into()]);
        } else {
            headers.extend(["95% CI".into(), self.vs.clone(), self.timed("p99 ms")]);
            if self.any_failed {
                headers.push("failed".into());
            }
        }
        let figures = headers.len();
        match &knobs {
            Some((keys, _)) => headers.extend(keys.iter().cloned()),
            None => headers.push("configuration".into()),
        }
        let label = |i: usize| -> Vec<String> {
            match &knobs {
                Some((_, values)) => values[i].clone(),
                None => vec![own[i].clone()],
            }
        };
        let rows = (0..own.len())
            .map(|i| {
                let mut cells = vec![i.to_string()];
                match self
                    .report
                    .summary
                    .iter()
                    .find(|r| r.config == i && r.operation == "all")
                {
                    Some(r) => cells.extend(self.whole_figures(r)),
                    None => cells.extend(std::iter::repeat_n("-".to_string(), figures - 1)),
                }
                cells.extend(label(i));
                cells
            })
            .collect();
        (headers, rows)
    }

    /// A configuration's whole-run cells, after its `#`.
    fn whole_figures(&self, r: &SummaryRow) -> Vec<String> {
        let base = r.config == 0;
        let mut cells = self.instruction_cell(r);
        cells.push(num(r.throughput.tps_median));
        if self.open {
            cells.extend([
                ms(r.figure(Metric::P99).value),
                short_against(&r.figure(self.metric).against, base),
                failed(r),
            ]);
        } else {
            cells.extend([
                interval(r.figure(Metric::Tps).ci95),
                short_against(&r.figure(self.metric).against, base),
                ms(r.figure(Metric::P99).value),
            ]);
            if self.any_failed {
                cells.push(failed(r));
            }
        }
        cells
    }

    /// Each configuration's operation types (a script mix's scripts).
    fn operations(&self, ops: &[&SummaryRow]) -> Table {
        let mut headers: Vec<String> = vec!["#".into(), "op".into()];
        if self.open {
            headers.extend(["p50 ms", "p99 ms", &self.vs, "p99.9 ms", "failed", "busy t/u/s"].map(String::from));
        } else {
            if self.counted {
                headers.push("instr/op".into());
            }
            let rate = self.timed(&format!("{}/s", self.unit));
            let p99 = self.timed("p99 ms");
            headers.extend([&rate, "95% CI", &self.vs, &p99].map(String::from));
            // Ranked by p99 (a cast), the column against #0 is p99's already: said once.
            if self.metric != Metric::P99 {
                headers.push("p99 vs #0".into());
            }
            headers.push("syncs/tx".into());
            if self.any_failed {
                headers.extend(["failed".into(), "busy t/u/s".into()]);
            }
        }
        let rows = ops.iter().map(|r| self.operation_row(r)).collect();
        (headers, rows)
    }

    fn operation_row(&self, r: &SummaryRow) -> Vec<String> {
        let base = r.config == 0;
        let mut cells = vec![r.config.to_string(), r.operation_label.clone()];
        if self.open {
            cells.extend([
                ms(r.figure(Metric::P50).value),
                ms(r.figure(Metric::P99).value),
                short_against(&r.figure(self.metric).against, base),
                ms(r.figure(Metric::P999).value),
                failed(r),
                causes(r),
            ]);
            return cells;
        }
        cells.extend(self.instruction_cell(r));
        cells.extend([
            num(r.throughput.tps_median),
            interval(r.figure(Metric::Tps).ci95),
            short_against(&r.figure(self.metric).against, base),
            ms(r.figure(Metric::P99).value),
        ]);
        if self.metric != Metric::P99 {
            cells.push(short_against(&r.figure(Metric::P99).against, base));
        }
        cells.extend([r.io.syncs_per_tx.map_or("-".into(), |s| {
            let approximate = if r.io.io_per_op_approximate { "~" } else { "" };
            format!("{approximate}{}", num(s))
        })]);
        if self.any_failed {
            cells.extend([failed(r), causes(r)]);
        }
        cells
    }

    /// The statements of scripts: latency only (their rate and verdict are their script's).
    fn statements(&self, parts: &BTreeSet<&str>) -> Table {
        let headers = ["#", "statement", "p50 ms", "p99 ms", "p99.9 ms"]
            .map(String::from)
            .to_vec();
        let rows = self
            .report
            .summary
            .iter()
            .filter(|r| parts.contains(r.operation.as_str()))
            .map(|r| {
                vec![
                    r.config.to_string(),
                    r.operation_label.clone(),
                    ms(r.figure(Metric::P50).value),
                    ms(r.figure(Metric::P99).value),
                    ms(r.figure(Metric::P999).value),
                ]
            })
            .collect();
        (headers, rows)
    }

    /// A time's header, `under valgrind` where the run counted instructions.
    fn timed(&self, header: &str) -> String {
        match self.counted {
            true => format!("{header} under valgrind"),
            false => header.to_string(),
        }
    }

    /// The `instr/op` cell where the run counted instructions (none otherwise).
    fn instruction_cell(&self, r: &SummaryRow) -> Vec<String> {
        match self.counted {
            true => vec![r
                .figure(Metric::Instructions)
                .value
                .map_or("-".into(), super::number::instructions)],
            false => Vec::new(),
        }
    }

    /// What the tables' figures are.
    fn caption(&self) -> String {
        let (m, unit, metric) = (self.report.manifest, &self.unit, self.metric.name());
        let trials = m.trials;
        let verdicts = "n.s.: no significant difference, ?: inconclusive";
        let against = if m.configs.len() > 1 {
            format!("; {metric} against #0 by its 95% bootstrap interval ({verdicts})")
        } else {
            String::new()
        };
        let mut caption = if self.open && m.load.rate.is_none() && m.load.cast.is_some() {
            format!(
                "Open loop, each role at its own rate: {unit}/s is the rate achieved; latency from each intended start, the median of {trials} trials' own percentiles{against}; failed: transactions that did not complete, % of attempted per trial"
            )
        } else if self.open && m.sweeps() {
            format!(
                "Open loop at each configuration's rate: {unit}/s is the rate achieved; latency from each intended start, the median of {trials} trials' own percentiles{against}; failed: transactions that did not complete, % of attempted per trial"
            )
        } else if self.open {
            format!(
                "Open loop at {} {unit}/s: {unit}/s is the rate achieved; latency from each intended start, the median of {trials} trials' own percentiles{against}; failed: transactions that did not complete, % of attempted per trial",
                m.load.rate.map_or("-".into(), num),
            )
        } else {
            format!(
                "{unit}/s: the median of {trials} trials with its 95% interval{against}; p99: the median of the trials' own p99"
            )
        };
        if self.counted {
            caption += &format!(
                "; instr/op: instructions per operation counted by callgrind in the measured region, the median of {trials} trials; every time is under valgrind, not native"
            );
        }
        if self.any_failed {
            caption += "; busy t/u/s: transactions per trial that gave up because busy_timeout ran out / a deferred transaction's upgrade to writing was refused / its WAL snapshot was stale (docs/load.md)";
        }
        caption + ". Every column: --all."
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use litebench_stats::{Interval, Ratio};

    #[test]
    fn labels_split_into_what_all_share_and_each_ones_own() {
        let (common, own) = split_labels(&[
            "journal_mode=wal synchronous=normal busy_timeout=0",
            "journal_mode=delete synchronous=normal busy_timeout=0",
            "journal_mode=wal synchronous=normal busy_timeout=5000",
        ]);
        assert_eq!(common, ["synchronous=normal"]);
        assert_eq!(
            own,
            [
                "journal_mode=wal busy_timeout=0",
                "journal_mode=delete busy_timeout=0",
                "journal_mode=wal busy_timeout=5000"
            ]
        );
        // One configuration: nothing is "shared", its label is its own.
        let (common, own) = split_labels(&["sqlite journal_mode=wal"]);
        assert!(common.is_empty());
        assert_eq!(own, ["sqlite journal_mode=wal"]);
    }

    #[test]
    fn labels_of_the_same_knobs_become_a_column_per_knob() {
        let own = ["journal_mode=wal begin=deferred", "journal_mode=delete begin=immediate"].map(String::from);
        let (keys, values) = knob_columns(&own).unwrap();
        assert_eq!(keys, ["journal_mode", "begin"]);
        assert_eq!(values, [["wal", "deferred"], ["delete", "immediate"]]);
        // Engines, or knobs that differ from one configuration to the next: one column.
        assert_eq!(knob_columns(&["sqlite", "duckdb"].map(String::from)), None);
        assert_eq!(knob_columns(&["a=1", "b=2"].map(String::from)), None);
    }

    #[test]
    fn a_verdict_reads_as_a_factor_above_one_with_its_word() {
        let r = |ratio: f64, verdict| {
            Against::Ratio(Ratio {
                ratio,
                ci95: Some(Interval {
                    low: ratio * 0.9,
                    high: ratio * 1.1,
                }),
                verdict: Some(verdict),
            })
        };
        assert_eq!(short_against(&r(2.1, Verdict::Faster), false), "2.10x faster");
        assert_eq!(short_against(&r(0.05, Verdict::Slower), false), "20.0x slower");
        assert_eq!(short_against(&r(1.01, Verdict::NoSignificantDifference), false), "n.s.");
        assert_eq!(short_against(&r(3.0, Verdict::Inconclusive), false), "?");
        assert_eq!(short_against(&r(3.0, Verdict::Inconclusive), true), "baseline");
    }

    /// Issue 46, item 33: with too few trials for a verdict, a p99 21x (or 400x) worse than #0
    /// reads as a slow-down, never "0.05x" or "0.00x".
    #[test]
    fn a_ratio_without_a_verdict_reads_with_its_word_too() {
        let bare = |ratio: f64| {
            Against::Ratio(Ratio {
                ratio,
                ci95: None,
                verdict: None,
            })
        };
        assert_eq!(short_against(&bare(1.0 / 21.0), false), "21.0x slower");
        assert_eq!(short_against(&bare(1.0 / 400.0), false), "400x slower");
        assert_eq!(short_against(&bare(1.5), false), "1.50x faster");
    }

    /// Issue 46, item 17: a cast's table has a `failed` column (before: a cast at a rate got
    /// closed-loop columns, and none without failures), its rated roles an open loop's.
    #[test]
    fn a_casts_table_has_a_failed_column() {
        use crate::model::cast::{Cast, Role, RoleKind};
        use crate::report::html::data::tests::{manifest, report, role, trials};
        let mut m = manifest(&[&[("journal_mode", "wal")], &[("journal_mode", "delete")]]);
        m.load.cast = Some(Cast {
            file: "c.toml".into(),
            roles: vec![Role {
                rate: Some(100.0),
                ..role("writer", RoleKind::Workload)
            }],
        });
        let t = trials(2, 3, &["writer:write"]);
        let r = report(&m, &t);
        let c = compact(&r);
        assert!(c.configs.0.iter().any(|h| h == "failed"), "{:?}", c.configs.0);
        assert!(
            c.configs.0.iter().all(|h| h != "95% CI"),
            "open-loop columns: {:?}",
            c.configs.0
        );
    }
}
