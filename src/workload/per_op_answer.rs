//! The answer of a run whose configurations store the same data in different ways (`json`'s
//! storages, `rtree`'s indexes, each engine's own type): which is fastest **per operation**,
//! and whether they all answered alike.
//!
//! Their transactions per second mix a read of a tenth of a millisecond with an update that
//! waits for a sync, so the generic answer (the configuration with the most transactions per
//! second) would rank them by their syncs. Each operation type is ranked instead by its
//! median latency (the median over measured trials of each trial's p50), and the answers the
//! clients kept ([`super::op_answers`]) are said to be equal or not, since a fast wrong answer
//! is no answer.

use crate::model::record::{Manifest, TrialRecord};
use crate::workload::{ReportSection, WorkloadReport};

/// The per-operation answer, for a workload whose question is `question`.
pub struct PerOpAnswer {
    /// What the run asks, with `{n}` for the number of configurations.
    pub question: &'static str,
}

/// The median of `v` (empty: `None`).
fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Milliseconds, with three significant digits.
fn ms(ns: f64) -> String {
    let x = ns / 1e6;
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// Configuration `config`'s median p50 of operation `op` over its measured trials.
fn p50(trials: &[TrialRecord], config: usize, op: &str) -> Option<f64> {
    median(
        trials
            .iter()
            .filter(|t| t.config == config && !t.warmup)
            .filter_map(|t| t.ops.iter().find(|o| o.name == op && o.ops > 0))
            .map(|o| o.latency.p50_ns as f64)
            .collect(),
    )
}

/// Every operation type that ran, in the order the trials list them.
fn operations(trials: &[TrialRecord]) -> Vec<&str> {
    let mut ops: Vec<&str> = Vec::new();
    for t in trials.iter().filter(|t| !t.warmup) {
        for o in t.ops.iter().filter(|o| o.ops > 0 && o.part_of.is_none()) {
            if !ops.contains(&o.name.as_str()) {
                ops.push(&o.name);
            }
        }
    }
    ops
}

/// Each operation type with its configurations' median p50s, fastest first.
fn ranked(m: &Manifest, trials: &[TrialRecord]) -> Vec<(String, Vec<(usize, f64)>)> {
    operations(trials)
        .into_iter()
        .map(|op| {
            let mut r: Vec<(usize, f64)> = m
                .configs
                .iter()
                .filter_map(|c| p50(trials, c.index, op).map(|x| (c.index, x)))
                .collect();
            r.sort_by(|a, b| a.1.total_cmp(&b.1));
            (op.to_string(), r)
        })
        .filter(|(_, r)| !r.is_empty())
        .collect()
}

/// The fastest configuration of each operation type, in one sentence.
fn fastest(m: &Manifest, trials: &[TrialRecord], names: &[String]) -> Option<String> {
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
    let ranked = ranked(m, trials);
    if ranked.is_empty() {
        return None;
    }
    let parts: Vec<String> = ranked
        .iter()
        .map(|(op, r)| {
            if m.configs.len() > 1 {
                format!("{op} {}", name(r[0].0))
            } else {
                format!("{op} {} ms", ms(r[0].1))
            }
        })
        .collect();
    Some(if m.configs.len() > 1 {
        format!(
            "Fastest by median latency: {}; each operation's p50 per configuration below.",
            parts.join(", ")
        )
    } else {
        format!("Median latency (p50): {}.", parts.join(", "))
    })
}

/// The table under the answer: each operation's fastest configuration and the others' p50
/// against it.
fn table(m: &Manifest, trials: &[TrialRecord], names: &[String]) -> ReportSection {
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
    let rows = ranked(m, trials)
        .into_iter()
        .map(|(op, r)| {
            let (best, best_ns) = r[0];
            let rest: Vec<String> = r[1..]
                .iter()
                .map(|(i, x)| format!("#{i} {} ({:.2}x)", ms(*x), x / best_ns.max(1.0)))
                .collect();
            vec![op, name(best), ms(best_ns), rest.join(", ")]
        })
        .collect();
    ReportSection {
        title: "p50 latency per operation (median over trials)".into(),
        headers: vec!["operation", "fastest", "p50 ms", "the others: p50 ms (x the fastest)"],
        rows,
        lead: true,
    }
}

/// The words of each label that not every label has (`json_storage=jsonb`), as the answer
/// names configurations by.
fn own_words(labels: &[&str]) -> Vec<String> {
    let words: Vec<Vec<&str>> = labels.iter().map(|l| l.split_whitespace().collect()).collect();
    words
        .iter()
        .map(|ws| {
            let own: Vec<&str> = ws
                .iter()
                .copied()
                .filter(|w| !words.iter().all(|o| o.contains(w)))
                .collect();
            if own.is_empty() {
                ws.join(" ")
            } else {
                own.join(" ")
            }
        })
        .collect()
}

/// Whether the configurations' kept answers agree, in one sentence.
fn agreement(m: &Manifest, trials: &[TrialRecord]) -> String {
    let mut seen: Vec<(&str, &str, usize)> = Vec::new();
    let mut ops: Vec<String> = Vec::new();
    for t in trials {
        for q in t.queries.iter().filter(|q| q.failure.is_none()) {
            if let Some((_, hash, first)) = seen.iter().find(|(op, _, _)| *op == q.op) {
                if *hash != q.answer.hash {
                    return format!(
                        "Answers DIFFER: #{} answered {} otherwise than #{first}; its figures are not comparable.",
                        t.config, q.op
                    );
                }
            } else {
                seen.push((&q.op, &q.answer.hash, t.config));
            }
            let op = q.op.split(" of stream").next().unwrap_or(&q.op).to_string();
            if !ops.contains(&op) {
                ops.push(op);
            }
        }
    }
    let checked: Vec<usize> = m
        .configs
        .iter()
        .map(|c| c.index)
        .filter(|i| trials.iter().any(|t| t.config == *i && !t.queries.is_empty()))
        .collect();
    if ops.is_empty() {
        return "Answers not compared: they are kept with one client in a closed loop only, where they depend on the seed alone.".into();
    }
    let all = if checked.len() == m.configs.len() {
        format!("all {} configurations", checked.len())
    } else {
        format!("{} of {} configurations", checked.len(), m.configs.len())
    };
    format!(
        "Answers equal: {all} answered {} alike, round by round (the first {} results of each, hashed).",
        ops.join(", "),
        super::op_answers::KEEP
    )
}

impl WorkloadReport for PerOpAnswer {
    fn question(&self, m: &Manifest) -> Option<String> {
        Some(self.question.replace("{n}", &m.configs.len().to_string()))
    }

    fn answer(&self, m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
        if !trials.iter().any(|t| !t.warmup) {
            return None;
        }
        let names = crate::workload::queue::report::names(m, own);
        let mut out: Vec<String> = fastest(m, trials, &names).into_iter().collect();
        out.push(agreement(m, trials));
        Some(out)
    }

    fn sections(&self, m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
        if m.configs.len() < 2 || !trials.iter().any(|t| !t.warmup) {
            return Vec::new();
        }
        let labels: Vec<&str> = m.configs.iter().map(|c| c.label.as_str()).collect();
        let own: Vec<String> = own_words(&labels);
        vec![table(m, trials, &crate::workload::queue::report::names(m, &own))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::op::{Latency, OpResult};
    use crate::model::record::{Answer, ConfigInfo, QueryRecord};

    fn trial(config: usize, p50_us: u64, hash: &str) -> TrialRecord {
        TrialRecord {
            config,
            ops: vec![OpResult {
                name: "read".into(),
                ops: 10,
                latency: Latency {
                    p50_ns: p50_us * 1000,
                    ..Latency::default()
                },
                ..OpResult::default()
            }],
            queries: vec![QueryRecord {
                op: "read of stream 01".into(),
                answer: Answer {
                    rows: 10,
                    hash: hash.into(),
                    values: None,
                },
                ..QueryRecord::default()
            }],
            ..TrialRecord::default()
        }
    }

    fn manifest(n: usize) -> Manifest {
        // The parts of a manifest the answer reads; the rest as a run of no consequence.
        let dir = tempfile::tempdir().unwrap();
        let mut m: Manifest = serde_json::from_value(serde_json::json!({
            "tool_version": "t", "command": [], "started_at": "2024-01-01T00:00:00Z",
            "workload": "json", "workload_source": "s", "params": {}, "seed": 1, "trials": 1,
            "warmup": 0, "cold_cache": false, "in_memory": false, "engines": [], "configs": [],
            "environment": serde_json::to_value(litebench_env::capture(dir.path()).unwrap()).unwrap(),
            "sync_latency": null, "scratch_dir": "/s"
        }))
        .unwrap();
        m.configs = (0..n)
            .map(|i| ConfigInfo {
                index: i,
                engine: "sqlite".into(),
                knobs: Default::default(),
                label: format!("c{i}"),
                knob_origins: Vec::new(),
                fs: None,
                scheduler: None,
                scheduler_device: None,
                storage: None,
                load: None,
                extension: None,
                driver: None,
                role_drivers: Vec::new(),
            })
            .collect();
        m
    }

    #[test]
    fn each_operation_is_ranked_by_its_median_latency_and_the_answers_are_said_equal() {
        let r = PerOpAnswer { question: "{n}?" };
        let m = manifest(2);
        let trials = [
            trial(0, 90, "a"),
            trial(0, 110, "a"),
            trial(1, 50, "a"),
            trial(1, 70, "a"),
        ];
        let own = ["x=0".to_string(), "x=1".to_string()];
        let lines = r.answer(&m, &trials, &own).unwrap();
        assert_eq!(
            lines[0],
            "Fastest by median latency: read #1 (x=1); each operation's p50 per configuration below."
        );
        let t = &r.sections(&m, &trials)[0];
        assert!(t.lead);
        assert_eq!(t.rows, [["read", "#1 (c1)", "0.060", "#0 0.100 (1.67x)"]]);
        assert!(
            lines[1].starts_with("Answers equal: all 2 configurations answered read alike"),
            "{lines:?}"
        );
        assert_eq!(r.question(&m).as_deref(), Some("2?"));
        let differ = [trial(0, 90, "a"), trial(1, 50, "b")];
        let lines = r.answer(&m, &differ, &own).unwrap();
        assert!(
            lines[1].starts_with("Answers DIFFER: #1 answered read of stream 01"),
            "{lines:?}"
        );
    }
}
