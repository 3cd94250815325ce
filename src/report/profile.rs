//! `litebench show RUN --profile`: each configuration's query plans and per-loop profiles.
//!
//! Workloads that time each query as its own operation (SSB) keep, on a configuration's first
//! measured trial, the engine's plan and per-loop counters of every query
//! ([`crate::model::record::QueryRecord`]). They explain the timings beside them — why Bloom filters
//! make a star join faster shows in the rows the dimension searches no longer visit — so they
//! are printed per configuration and query, the loops as a tree with each loop's share of the
//! cycles the loops counted. What an engine or build does not keep reads "unavailable".

use super::format::Document;
use super::layout::table;
use super::Format;
use crate::model::engine_info::LoopProfile;
use crate::model::record::{Manifest, TrialRecord};
use serde::Serialize;
use std::collections::HashMap;

/// What `show` prints for a query whose plan or profile was not kept.
pub const UNAVAILABLE: &str = "unavailable";

/// One query of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryProfile {
    pub config: usize,
    pub label: String,
    pub operation: String,
    /// The plan, one line per step (`None`: unavailable).
    pub plan: Option<Vec<String>>,
    /// The loops in plan order (`None`: unavailable).
    pub loops: Option<Vec<LoopRow>>,
}

/// One loop of a profile, placed in the tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoopRow {
    /// Nesting level (0: top).
    pub depth: usize,
    pub step: String,
    pub loops: Option<i64>,
    pub rows_visited: Option<i64>,
    pub rows_estimated: Option<f64>,
    pub cycles: Option<i64>,
    /// Cycles of this loop over the cycles all loops of the query counted.
    pub cycle_share: Option<f64>,
}

/// The loops of a profile with depths from their parent ids and cycle shares.
pub fn loop_rows(profile: &[LoopProfile]) -> Vec<LoopRow> {
    let total: i64 = profile.iter().filter_map(|l| l.cycles).sum();
    let mut depth: HashMap<i64, usize> = HashMap::new();
    profile
        .iter()
        .map(|l| {
            let d = if l.parent == 0 {
                0
            } else {
                depth.get(&l.parent).map_or(0, |p| p + 1)
            };
            depth.insert(l.id, d);
            LoopRow {
                depth: d,
                step: l.explain.clone(),
                loops: l.loops,
                rows_visited: l.rows_visited,
                rows_estimated: l.rows_estimated,
                cycles: l.cycles,
                cycle_share: l.cycles.filter(|_| total > 0).map(|c| c as f64 / total as f64),
            }
        })
        .collect()
}

/// Every query's plan and profile from each configuration's first measured trial that has
/// query records, in configuration order.
pub fn collect(manifest: &Manifest, trials: &[TrialRecord]) -> Vec<QueryProfile> {
    let mut out = Vec::new();
    for cfg in &manifest.configs {
        let first = trials
            .iter()
            .filter(|t| t.config == cfg.index && !t.warmup && !t.queries.is_empty())
            .min_by_key(|t| (t.round, t.seq));
        let Some(t) = first else { continue };
        for q in &t.queries {
            out.push(QueryProfile {
                config: cfg.index,
                label: cfg.label.clone(),
                operation: q.op.clone(),
                plan: q.plan.clone(),
                loops: q.profile.as_deref().map(loop_rows),
            });
        }
    }
    out
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

fn loop_cells(l: &LoopRow) -> Vec<String> {
    vec![
        format!("{}{}", "  ".repeat(l.depth), l.step),
        opt(l.loops),
        opt(l.rows_visited),
        l.rows_estimated.map_or_else(String::new, |e| format!("{e:.1}")),
        opt(l.cycles),
        l.cycle_share.map_or_else(String::new, |s| format!("{:.1}%", s * 100.0)),
    ]
}

const LOOP_HEADERS: [&str; 6] = ["loop", "loops", "rows visited", "est. rows", "cycles", "share"];

/// The profiles in one of `show`'s formats, through the format registry: JSON from the
/// profiles themselves, and one table of plan and loop lines for any format; CSV, the terminal
/// table and Markdown keep their own layouts.
pub fn render(profiles: &[QueryProfile], format: Format) -> String {
    let records = records(profiles);
    let headers: Vec<&str> = records[0].iter().map(String::as_str).collect();
    let doc = Document::new(profiles)
        .own(Format::Csv, super::csv::records(&records))
        .own(Format::Table, text(profiles, false))
        .own(Format::Markdown, text(profiles, true))
        .table("profiles", &headers, records[1..].to_vec());
    super::format::render(&doc, format)
}

/// One record per plan line and per loop, with a header row first.
fn records(profiles: &[QueryProfile]) -> Vec<Vec<String>> {
    let mut records = vec![[
        "config",
        "configuration",
        "operation",
        "kind",
        "depth",
        "step",
        "loops",
        "rows_visited",
        "rows_estimated",
        "cycles",
        "cycle_share",
    ]
    .map(String::from)
    .to_vec()];
    for p in profiles {
        let head = vec![p.config.to_string(), p.label.clone(), p.operation.clone()];
        for line in p.plan.iter().flatten() {
            let mut r = head.clone();
            r.extend(["plan".into(), String::new(), line.clone()]);
            r.extend(std::iter::repeat_n(String::new(), 5));
            records.push(r);
        }
        for l in p.loops.iter().flatten() {
            let mut r = head.clone();
            r.extend(["loop".into(), l.depth.to_string(), l.step.clone()]);
            r.extend([
                opt(l.loops),
                opt(l.rows_visited),
                opt(l.rows_estimated),
                opt(l.cycles),
                opt(l.cycle_share),
            ]);
            records.push(r);
        }
    }
    records
}

/// The profiles as the terminal table (`md`: as Markdown) lays them out.
fn text(profiles: &[QueryProfile], md: bool) -> String {
    if profiles.is_empty() {
        return "no query plans or profiles in this run (only workloads that time each query as its own operation keep them)\n".into();
    }
    let mut out = String::new();
    for p in profiles {
        if md {
            out.push_str(&format!("### {} — config {}: {}\n\n", p.operation, p.config, p.label));
        } else {
            out.push_str(&format!("== {} — config {}: {}\n", p.operation, p.config, p.label));
        }
        match &p.plan {
            Some(plan) if md => {
                out.push_str("Plan:\n\n```\n");
                for l in plan {
                    out.push_str(&format!("{l}\n"));
                }
                out.push_str("```\n\n");
            }
            Some(plan) => {
                out.push_str("plan:\n");
                for l in plan {
                    out.push_str(&format!("  {l}\n"));
                }
            }
            None => out.push_str(&format!("plan: {UNAVAILABLE}\n{}", if md { "\n" } else { "" })),
        }
        match &p.loops {
            Some(loops) => {
                let rows: Vec<Vec<String>> = loops.iter().map(loop_cells).collect();
                if !md {
                    out.push_str("loops:\n");
                }
                out.push_str(&table(&LOOP_HEADERS, &rows, md));
                out.push('\n');
            }
            None => out.push_str(&format!("loops: {UNAVAILABLE}\n")),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp(id: i64, parent: i64, explain: &str, cycles: Option<i64>) -> LoopProfile {
        LoopProfile {
            id,
            parent,
            explain: explain.into(),
            loops: Some(1),
            rows_visited: Some(10),
            rows_estimated: Some(9.5),
            cycles,
        }
    }

    #[test]
    fn loops_nest_by_parent_and_share_the_counted_cycles() {
        let rows = loop_rows(&[
            lp(2, 0, "SCAN f", Some(300)),
            lp(5, 2, "SEARCH d", Some(100)),
            lp(7, 0, "BLOOM FILTER ON d", None),
        ]);
        assert_eq!(rows.iter().map(|r| r.depth).collect::<Vec<_>>(), vec![0, 1, 0]);
        assert_eq!(rows[0].cycle_share, Some(0.75));
        assert_eq!(rows[1].cycle_share, Some(0.25));
        assert_eq!(rows[2].cycle_share, None);
        assert_eq!(loop_cells(&rows[1])[0], "  SEARCH d");
        assert_eq!(loop_cells(&rows[1])[5], "25.0%");
    }

    #[test]
    fn absent_plans_and_profiles_read_unavailable() {
        let p = vec![QueryProfile {
            config: 0,
            label: "sqlite".into(),
            operation: "q1.1".into(),
            plan: None,
            loops: None,
        }];
        let text = render(&p, Format::Table);
        assert!(text.contains("plan: unavailable"), "{text}");
        assert!(text.contains("loops: unavailable"), "{text}");
    }
}
