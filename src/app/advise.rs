//! `litebench advise --need durable|consistent|none`: the fastest stored configuration that
//! keeps the guarantee, with its evidence, and what the next faster one gives up.
//!
//! The runs ranked are all of one workload with one set of parameters ([`chosen`]): without
//! RUN ids or `--workload` the command asks for one instead of mixing tx/s of unrelated
//! workloads into one list.

use crate::app::cli::{AdviseArgs, CrashChoice, VerifyDurabilityArgs};
use crate::base::Failure;
use crate::durability::crash::CrashKind;
use crate::errln;
use crate::report::advise::{advise, measured, Advice, Candidate, Measured};
use crate::report::format::{render, Document};
use crate::report::number::ratio;
use crate::report::stored::open_store;
use crate::report::Format;
use crate::store::{Store, StoredRun};
use std::collections::BTreeSet;
use std::path::Path;

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
            Some(cell) => format!("{}: {}", k.name(), cell.in_words()),
            None => format!("{}: not verified", k.name()),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// How the candidate ranked above `c` compares with it, in `compare`'s words: only a
/// significant difference is "faster".
fn above_words(c: &Candidate<'_>) -> String {
    let r = ratio(c.above.as_ref());
    match c.above.and_then(|r| r.verdict) {
        Some(litebench_stats::Verdict::Faster) => format!("Next faster ({r})"),
        Some(_) => format!("Next in the ranking, not measurably faster ({r})"),
        None => format!("Next in the ranking, too few trials to say it is faster ({r})"),
    }
}

fn describe(c: &Candidate<'_>) -> String {
    let m = c.measured;
    let unit = crate::workload::unit_of(&m.workload);
    format!(
        "run {} config {} `{}` ({}): {:.0} {unit}/s median",
        m.run, m.config, m.label, m.workload, m.tps_median
    )
}

/// A run's workload and parameters as one line: `crud rows=200 inserts=20 ...`.
fn workload_line(run: &StoredRun) -> String {
    let params: Vec<String> = run
        .manifest
        .params
        .0
        .iter()
        .map(|(k, v)| match serde_json::to_value(v) {
            Ok(serde_json::Value::String(s)) => format!("{k}={s}"),
            Ok(other) => format!("{k}={other}"),
            Err(_) => k.clone(),
        })
        .collect();
    format!("{} {}", run.manifest.workload, params.join(" "))
        .trim_end()
        .to_string()
}

/// `run 3` or `runs 1, 4`.
fn run_list(ids: &[i64]) -> String {
    let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
    format!("run{} {}", if ids.len() == 1 { "" } else { "s" }, ids.join(", "))
}

/// The stored runs `advise` ranks: the RUN ids given (or every complete run of `--workload`),
/// which must all be of one workload and one set of parameters.
fn chosen(store: &mut Store, path: &Path, args: &AdviseArgs) -> Result<Vec<StoredRun>, Failure> {
    let ids: Vec<i64> = if args.runs.is_empty() {
        store
            .list()?
            .into_iter()
            .filter(|r| r.status == "complete")
            .filter(|r| args.workload.as_ref().is_none_or(|w| &r.workload == w))
            .map(|r| r.id)
            .collect()
    } else {
        args.runs
            .iter()
            .map(|w| store.resolve_word(w))
            .collect::<Result<_, _>>()?
    };
    let mut runs = Vec::new();
    for id in ids {
        let run = store.load(Some(id))?;
        if args.workload.as_ref().is_none_or(|w| &run.manifest.workload == w)
            && !measured(run.id, &run.manifest, &run.trials).is_empty()
        {
            runs.push(run);
        }
    }
    // Each distinct workload and parameters, with its runs, in the order first seen.
    let mut groups: Vec<(String, Vec<i64>)> = Vec::new();
    for r in &runs {
        let line = workload_line(r);
        match groups.iter_mut().find(|g| g.0 == line) {
            Some(g) => g.1.push(r.id),
            None => groups.push((line, vec![r.id])),
        }
    }
    let listed = || {
        groups
            .iter()
            .map(|(line, ids)| format!("{} ({})", line, run_list(ids)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if args.runs.is_empty() && args.workload.is_none() {
        if groups.is_empty() {
            return Err(no_sqlite_run(path));
        }
        return Err(Failure(format!(
            "advise ranks the runs of one workload and parameters: give --workload NAME or the RUN ids to rank; stored: {}",
            listed()
        )));
    }
    if groups.len() > 1 {
        let (flag, example) = match &args.workload {
            Some(w) => (format!("--workload {w}"), format!("--workload {w} {}", groups[0].1[0])),
            None => ("RUN".to_string(), groups[0].1[0].to_string()),
        };
        return Err(Failure(format!(
            "{flag}: these runs measured different workloads or parameters, whose speeds are not comparable: {}; name the runs of one to rank (e.g. `litebench advise --need {} {example}`)",
            listed(),
            args.need.name()
        )));
    }
    if let (Some(w), true) = (&args.workload, runs.is_empty()) {
        return Err(Failure(format!(
            "--workload {w}: no stored run of it measured a SQLite configuration; run e.g. `litebench run {w} --knob journal_mode=delete,wal --knob synchronous=normal,full` first"
        )));
    }
    Ok(runs)
}

fn no_sqlite_run(path: &Path) -> Failure {
    Failure(format!(
        "--results {}: no stored run measured a SQLite configuration; run e.g. `litebench run crud --knob journal_mode=delete,wal --knob synchronous=normal,full` first",
        path.display()
    ))
}

pub fn run(args: &AdviseArgs) -> Result<i32, Failure> {
    let (mut store, path) = open_store(&args.results)?;
    let mut all = Vec::new();
    for run in chosen(&mut store, &path, args)? {
        all.extend(measured(run.id, &run.manifest, &run.trials));
    }
    if all.is_empty() {
        return Err(no_sqlite_run(&path));
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
                lines.push(format!("{}: {}", above_words(best), describe(next)));
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
    text += "All candidates, fastest first (against the one above: its speed over this one's, as compare gives it):\n";
    for (i, c) in a.ranked.iter().enumerate() {
        let above = if i == 0 {
            String::new()
        } else {
            format!("  |  above: {}", ratio(c.above.as_ref()))
        };
        text += &format!(
            "  {:>2}. [{}] {}{above}  |  {}\n",
            i + 1,
            mark(c),
            describe(c),
            evidence(c)
        );
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
                if i == 0 { String::new() } else { ratio(c.above.as_ref()) },
                evidence(c),
                if c.verdicts.iter().any(|(_, v)| v.is_none()) {
                    verify_command(m)
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    // One workload is ranked: its rate is of what it counts (tx, or statements for the speed
    // comparison suites).
    let unit = a
        .ranked
        .first()
        .map_or("tx", |c| crate::workload::unit_of(&c.measured.workload));
    let rate = format!("{unit}/s median");
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
                &rate,
                "the one above against it",
                "evidence",
                "to verify",
            ],
            rows,
        )
}
