//! The answer of an `fts` run, in its own terms: which configuration (tokenizer, `detail=`,
//! engine) answers each kind of query and write fastest, by the median over trials of each
//! operation's p50 latency; and what the answer check covered. The index's size and build time
//! are the templates' (the footprint: one template per tokenizer and detail).

use crate::model::params::Params;
use crate::model::record::{Manifest, TrialRecord};
use crate::workload::report::WorkloadReport;

/// What `fts` adds to its reports.
pub struct FtsReport;

/// The median over measured trials of configuration `config`'s p50 latency of operation `op`,
/// in nanoseconds, over the trials where it ran.
fn median_p50(trials: &[TrialRecord], config: usize, op: &str) -> Option<u64> {
    let mut v: Vec<u64> = trials
        .iter()
        .filter(|t| t.config == config && !t.warmup)
        .filter_map(|t| t.ops.iter().find(|o| o.name == op && o.ops > 0))
        .map(|o| o.latency.p50_ns)
        .collect();
    v.sort_unstable();
    (!v.is_empty()).then(|| v[v.len() / 2])
}

fn ms(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    if ms >= 10.0 {
        format!("{ms:.0} ms")
    } else if ms >= 0.1 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.0} µs", ns as f64 / 1e3)
    }
}

/// A configuration's name without the knobs' common prefix (`porter detail=column`).
fn short(name: &str) -> String {
    name.replace("fts_tokenizer=", "").replace("fts_", "")
}

/// Which configuration is fastest at which operations, by the median of its trials' p50
/// latency, and how much lower its p50 is than the next configuration's; then each
/// operation's fastest p50.
fn fastest(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Vec<String> {
    let name = |i: usize| short(&own.get(i).cloned().unwrap_or_else(|| format!("#{i}")));
    // (operation, fastest configuration, its p50, the slowest's over it)
    let mut best: Vec<(&str, usize, u64, f64)> = Vec::new();
    for op in super::client::OPS {
        let mut by: Vec<(usize, u64)> = m
            .configs
            .iter()
            .filter_map(|c| median_p50(trials, c.index, op).map(|p| (c.index, p)))
            .collect();
        by.sort_by_key(|(i, p)| (*p, *i));
        if let Some(&(i, p)) = by.first() {
            let next = by.get(1).map_or(p, |n| n.1);
            best.push((op, i, p, next as f64 / p.max(1) as f64));
        }
    }
    if best.is_empty() {
        return Vec::new();
    }
    let p50s: Vec<String> = best.iter().map(|(op, _, p, _)| format!("{op} {}", ms(*p))).collect();
    if m.configs.len() < 2 {
        return vec![format!("p50 latency: {}.", p50s.join(", "))];
    }
    let mut winners: Vec<usize> = best.iter().map(|b| b.1).collect();
    winners.sort_unstable();
    winners.dedup();
    let parts: Vec<String> = winners
        .iter()
        .map(|w| {
            let mine: Vec<&(&str, usize, u64, f64)> = best.iter().filter(|b| b.1 == *w).collect();
            let ops: Vec<&str> = mine.iter().map(|b| b.0).collect();
            let lo = mine.iter().map(|b| b.3).fold(f64::INFINITY, f64::min);
            let hi = mine.iter().map(|b| b.3).fold(0.0, f64::max);
            let by = if hi - lo < 0.05 {
                format!("{lo:.1}x")
            } else {
                format!("{lo:.1}-{hi:.1}x")
            };
            format!("{} at {} ({by})", name(*w), ops.join(", "))
        })
        .collect();
    vec![
        format!(
            "Fastest by median p50 (how much lower than the next's): {}.",
            parts.join("; ")
        ),
        format!("Fastest p50: {}.", p50s.join(", ")),
    ]
}

/// Each configuration's database file at the start of its trials (the median of their first
/// readings): the index and the text FTS5 keeps in it, as the template left them.
fn sizes(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<String> {
    let parts: Vec<String> = m
        .configs
        .iter()
        .filter_map(|c| {
            let mut v: Vec<u64> = trials
                .iter()
                .filter(|t| t.config == c.index && !t.warmup)
                .filter_map(|t| t.series.as_ref()?.files.first().map(|f| f.db_bytes))
                .collect();
            v.sort_unstable();
            let bytes = *v.get(v.len() / 2)?;
            let name = short(&own.get(c.index).cloned().unwrap_or_else(|| format!("#{}", c.index)));
            Some(format!("{name} {:.1} MiB", bytes as f64 / (1024.0 * 1024.0)))
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "Index with its text at the trials' start: {}; build times in the footprint.",
            parts.join(", ")
        )
    })
}

/// What the answer check covered, in one line.
pub fn checked(p: &Params, trials: usize, postgres: bool) -> String {
    let n = p.count("check");
    if n == 0 {
        return "Answers not checked (--param check=0).".into();
    }
    let rank = if postgres {
        "; PostgreSQL ranks by ts_rank, not bm25, so its top k may differ while its ids match"
    } else {
        ""
    };
    format!(
        "Answers checked after each of {trials} trials: {n} queries' matching ids equal a scan of the table's text{rank}."
    )
}

impl WorkloadReport for FtsReport {
    fn question(&self, _m: &Manifest) -> Option<String> {
        Some("Which tokenizer and detail= answer each kind of query fastest, and what does the index cost?".into())
    }

    fn answer(&self, m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
        let mut out = fastest(m, trials, own);
        if out.is_empty() {
            return None;
        }
        let measured = trials.iter().filter(|t| !t.warmup).count();
        let postgres = m.engines.iter().any(|e| e.kind == "postgres");
        out.extend(sizes(m, trials, own));
        out.push(checked(&m.params, measured, postgres));
        Some(out)
    }
}
