//! `litebench advise --need durable|consistent|none`: the fastest stored configuration that
//! keeps the guarantee, with its evidence, and what the next faster one gives up.

use crate::app::cli::{AdviseArgs, CrashChoice, VerifyDurabilityArgs};
use crate::base::Failure;
use crate::durability::crash::CrashKind;
use crate::errln;
use crate::report::advise::{advise, measured, Advice, Candidate, Measured};
use crate::report::format::{render, Document};
use crate::report::stored::open_store;
use crate::report::Format;
use std::collections::BTreeSet;

fn crashes(c: CrashChoice) -> Vec<CrashKind> {
    match c {
        CrashChoice::Power => vec![CrashKind::Power],
        CrashChoice::Process => vec![CrashKind::Process],
        CrashChoice::Both => vec![CrashKind::Power, CrashKind::Process],
    }
}

/// The `verify-durability` command that would fill in `c`'s missing verdicts.
fn verify_command(m: &Measured) -> String {
    format!(
        "litebench verify-durability --engine {} --journal-mode {} --synchronous {}",
        m.engine, m.journal_mode, m.synchronous
    )
}

fn evidence(c: &Candidate<'_>) -> String {
    c.verdicts
        .iter()
        .map(|(k, cell)| match cell {
            Some(cell) => format!(
                "{}: {} ({} states, {} violations)",
                k.name(),
                cell.verdict,
                cell.states,
                cell.violations
            ),
            None => format!("{}: not verified", k.name()),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn describe(c: &Candidate<'_>) -> String {
    let m = c.measured;
    format!(
        "run {} config {} `{}` ({}): {:.0} tx/s median",
        m.run, m.config, m.label, m.workload, m.tps_median
    )
}

pub fn run(args: &AdviseArgs) -> Result<i32, Failure> {
    let (mut store, path) = open_store(&args.results)?;
    let ids: Vec<i64> = if args.runs.is_empty() {
        store
            .list()?
            .into_iter()
            .filter(|r| r.status == "complete")
            .map(|r| r.id)
            .collect()
    } else {
        args.runs.clone()
    };
    let mut all = Vec::new();
    for id in &ids {
        let run = store.load(Some(*id))?;
        all.extend(measured(run.id, &run.manifest, &run.trials));
    }
    if all.is_empty() {
        return Err(Failure(format!(
            "--results {}: no stored run measured a SQLite configuration; run e.g. `litebench run crud --knob journal_mode=delete,wal --knob synchronous=normal,full` first",
            path.display()
        )));
    }
    let kinds = crashes(args.crash);
    let mut stored = store.verifications()?;
    if args.verify {
        let missing: BTreeSet<(String, String, String)> = advise(args.need, &kinds, &all, &stored)
            .ranked
            .iter()
            .filter(|c| c.verdicts.iter().any(|(_, v)| v.is_none()))
            .map(|c| {
                let m = c.measured;
                (m.engine.clone(), m.journal_mode.clone(), m.synchronous.clone())
            })
            .collect();
        drop(store);
        for (engine, jm, sy) in missing {
            errln!("verifying {engine} journal_mode={jm} synchronous={sy}");
            let code = super::verify_durability::run_quietly(&VerifyDurabilityArgs {
                journal_modes: vec![jm],
                synchronous: vec![sy],
                all: false,
                crash: CrashChoice::Both,
                states: 20_000,
                transactions: 6,
                seed: 42,
                kills: 0,
                engine,
                dir: args.dir.clone(),
                results: Some(path.clone()),
                format: Format::Table,
            })?;
            if code != 0 {
                return Ok(code);
            }
        }
        store = open_store(&Some(path.clone()))?.0;
        stored = store.verifications()?;
    }
    let advice = advise(args.need, &kinds, &all, &stored);
    let code = if advice.answer.is_some() { 0 } else { 2 };
    crate::out!("{}", render(&document(&advice), args.format));
    if advice.answer.is_none() {
        let commands: BTreeSet<String> = advice
            .ranked
            .iter()
            .filter(|c| c.meets(args.need).is_none())
            .map(|c| verify_command(c.measured))
            .collect();
        let hint = if commands.is_empty() {
            "measure a safer configuration (e.g. --knob synchronous=full or extra) and verify it".to_string()
        } else {
            format!(
                "verify the unverified ones: {}",
                commands.into_iter().collect::<Vec<_>>().join("; ")
            )
        };
        errln!(
            "error: --need {}: no stored configuration is verified to meet it; {hint}",
            args.need.name()
        );
    }
    Ok(code)
}

/// The advice for any format: the terminal keeps its lines; Markdown and CSV get the answer
/// as a list and every candidate as a table row.
fn document(a: &Advice<'_>) -> Document {
    let mut lines = Vec::new();
    match a.answer {
        Some(i) => {
            let best = &a.ranked[i];
            lines.push(format!("Fastest that meets it: {}", describe(best)));
            lines.push(format!("  evidence: {}", evidence(best)));
            if let Some(next) = i.checked_sub(1).map(|j| &a.ranked[j]) {
                lines.push(format!("Next faster: {}", describe(next)));
                lines.push(format!("  gives up: {}", evidence(next)));
            } else {
                lines.push("Nothing measured is faster.".into());
            }
        }
        None => lines.push("No measured configuration is verified to meet it.".into()),
    }
    let mark = |c: &Candidate<'_>| match c.meets(a.need) {
        Some(true) => "meets",
        Some(false) => "fails",
        None => "unverified",
    };
    let mut text = format!("Need: {}\n", a.need.name());
    for l in &lines {
        text += &format!("{l}\n");
    }
    if !a.unverified_faster.is_empty() {
        text += "Faster but not verified (not assumed safe):\n";
        for &i in &a.unverified_faster {
            text += &format!(
                "  {}  ->  {}\n",
                describe(&a.ranked[i]),
                verify_command(a.ranked[i].measured)
            );
        }
    }
    text += "All candidates, fastest first:\n";
    for (i, c) in a.ranked.iter().enumerate() {
        text += &format!("  {:>2}. [{}] {}  |  {}\n", i + 1, mark(c), describe(c), evidence(c));
    }
    let mut md = String::new();
    for l in &lines {
        md += &match l.strip_prefix("  ") {
            Some(l) => format!("  - {l}\n"),
            None => format!("- {l}\n"),
        };
    }
    let rows: Vec<Vec<String>> = a
        .ranked
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let m = c.measured;
            vec![
                (i + 1).to_string(),
                mark(c).to_string(),
                m.run.to_string(),
                m.config.to_string(),
                m.label.clone(),
                m.workload.clone(),
                format!("{:.0}", m.tps_median),
                evidence(c),
                if c.verdicts.iter().any(|(_, v)| v.is_none()) {
                    verify_command(m)
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    Document::new(a)
        .own(Format::Table, text)
        .heading(format!("Need: {}", a.need.name()))
        .text(md + "\n")
        .heading("All candidates, fastest first")
        .table(
            "candidates",
            &[
                "rank",
                "need",
                "run",
                "config",
                "configuration",
                "workload",
                "tx/s median",
                "evidence",
                "to verify",
            ],
            rows,
        )
}
