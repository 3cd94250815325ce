//! `litebench verify-durability`: the verdict table of SQLite configurations under power loss
//! and process crashes, stored beside the runs.

use crate::app::cli::{CrashChoice, DurabilityChildArgs, VerifyDurabilityArgs};
use crate::base::Failure;
use crate::durability::check::Outcome;
use crate::durability::crash::CrashKind;
use crate::durability::expected::documented;
use crate::durability::kill::{kill_check, ChildSpec, KillReport};
use crate::durability::ledger::{Ledger, LedgerSize};
use crate::durability::verify::{record, verify, Cell, Config, Effort, VerifyError, JOURNAL_MODES, SYNCHRONOUS};
use crate::engines::sqlite::compiled::BuildCache;
use crate::engines::sqlite::engine::{SqliteChoice, SqliteEngine};
use crate::errln;
use crate::report::format::{render, Document};
use crate::report::Format;
use crate::store::{self, Store, VerifiedBuild};
use crate::sys::scratch::Scratch;
use crate::sys::signals::EXIT_INTERRUPTED;
use std::sync::atomic::Ordering;

/// The SQLite build `--engine` names.
pub fn engine_choice(spec: &str) -> Result<SqliteChoice, Failure> {
    if spec == "sqlite" {
        Ok(SqliteChoice::Bundled)
    } else if let Some(name) = spec.strip_prefix("sqlite@") {
        Ok(SqliteChoice::Compiled(Box::new(BuildCache::from_env()?.find(name)?)))
    } else if let Some(path) = spec.strip_prefix("sqlite:") {
        Ok(SqliteChoice::Library(path.into()))
    } else {
        Err(Failure(format!(
            "--engine {spec}: verify-durability checks SQLite builds only; give sqlite, sqlite@NAME or sqlite:/path/to/libsqlite3.so"
        )))
    }
}

fn pick(flag: &str, given: &[String], valid: &[&str], default: &str) -> Result<Vec<String>, Failure> {
    if given.is_empty() {
        return Ok(vec![default.to_string()]);
    }
    let mut out = Vec::new();
    for g in given {
        let v = g.trim().to_ascii_lowercase();
        if !valid.contains(&v.as_str()) {
            return Err(Failure(format!(
                "{flag} {g}: not a valid value; give one or more of {}",
                valid.join(", ")
            )));
        }
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(out)
}

/// The configurations the flags ask for, in table order.
pub fn configurations(args: &VerifyDurabilityArgs) -> Result<Vec<Config>, Failure> {
    let (modes, levels) = if args.all {
        (
            JOURNAL_MODES.iter().map(|s| s.to_string()).collect(),
            SYNCHRONOUS.iter().map(|s| s.to_string()).collect(),
        )
    } else {
        (
            pick("--journal-mode", &args.journal_modes, &JOURNAL_MODES, "delete")?,
            pick("--synchronous", &args.synchronous, &SYNCHRONOUS, "full")?,
        )
    };
    let mut out = Vec::new();
    for m in &modes {
        for s in &levels {
            out.push(Config {
                journal_mode: m.clone(),
                synchronous: s.clone(),
            });
        }
    }
    Ok(out)
}

fn size(transactions: u32) -> LedgerSize {
    LedgerSize {
        transactions,
        ..LedgerSize::DEFAULT
    }
}

/// One row of the printed and JSON table.
#[derive(Debug, serde::Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    cell: &'a Cell,
    documented: &'static str,
    agrees: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    kills: Option<&'a KillReport>,
}

pub fn run(args: &VerifyDurabilityArgs) -> Result<i32, Failure> {
    verify_all(args, true)
}

/// Runs the verifications and stores them, printing nothing but progress (for `advise
/// --verify`).
pub fn run_quietly(args: &VerifyDurabilityArgs) -> Result<i32, Failure> {
    verify_all(args, false)
}

fn verify_all(args: &VerifyDurabilityArgs, print: bool) -> Result<i32, Failure> {
    let configs = configurations(args)?;
    let choice = engine_choice(&args.engine)?;
    let results_path = args.results.value.clone().unwrap_or_else(store::default_path);
    store::check_path(&results_path, args.results.value.is_some())?;
    let engine = SqliteEngine::open(&choice, false)?;
    let scratch = Scratch::create(args.dir.value.as_deref())?;
    let mut store = Store::open(&results_path, args.results.value.is_some())?;
    let exe = std::env::current_exe().map_err(|e| Failure(format!("cannot find the litebench binary: {e}")))?;
    let build = VerifiedBuild {
        engine: args.engine.clone(),
        version: engine.build.version.clone(),
        source_id: engine.build.source_id.clone(),
    };
    let crashes: &[CrashKind] = match args.crash {
        CrashChoice::Power => &[CrashKind::Power],
        CrashChoice::Process => &[CrashKind::Process],
        CrashChoice::Both => &[CrashKind::Power, CrashKind::Process],
    };
    let ledger = Ledger::generate(size(args.transactions), args.seed);
    let stop = crate::sys::signals::stop_flag()?;
    let effort = Effort {
        power_states: args.states as usize,
        seed: args.seed,
        stop: Some(stop.clone()),
    };
    let interrupted = |done: &[Cell]| {
        errln!(
            "interrupted: {} verdict(s) finished and stored; the configuration in progress was dropped",
            done.len()
        );
        Ok(EXIT_INTERRUPTED)
    };
    let started = std::time::Instant::now();
    let mut cells = Vec::new();
    let mut kills = Vec::new();
    for (i, config) in configs.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return interrupted(&cells);
        }
        let rec = record(engine.api, &scratch.path(&format!("rec-{i}")), config, &ledger)?;
        for &crash in crashes {
            let cell = match verify(
                engine.api,
                &scratch.path(&format!("chk-{i}")),
                config,
                crash,
                &ledger,
                &rec,
                &effort,
            ) {
                Err(VerifyError::Interrupted) => return interrupted(&cells),
                r => r?,
            };
            store.add_verification(&build, &cell)?;
            if args.format.value == Format::Table {
                errln!("{config} {}: {} ({} states)", crash.name(), cell.verdict, cell.states);
            }
            cells.push(cell);
        }
        if args.kills > 0 && crashes.contains(&CrashKind::Process) {
            let spec = ChildSpec {
                exe: &exe,
                engine: &args.engine,
                transactions: args.transactions,
                seed: args.seed,
            };
            let report = kill_check(
                engine.api,
                &scratch.path(&format!("kill-{i}")),
                config,
                &ledger,
                &spec,
                args.kills,
            )?;
            kills.push((config.clone(), report));
        }
    }
    let wall = started.elapsed();
    if print {
        print_verdicts(args, &build, &cells, &kills, wall);
    }
    Ok(0)
}

/// The verdicts as the chosen format shows them: each cell with what SQLite's documentation
/// says of its configuration and crash, and the real kills beside the process crashes.
fn print_verdicts(
    args: &VerifyDurabilityArgs,
    build: &VerifiedBuild,
    cells: &[Cell],
    kills: &[(Config, KillReport)],
    wall: std::time::Duration,
) {
    let rows: Vec<Row<'_>> = cells
        .iter()
        .map(|c| {
            let claim = documented(&c.config.journal_mode, &c.config.synchronous, c.crash);
            Row {
                cell: c,
                documented: claim.doc.name(),
                agrees: claim.doc.agrees(c.verdict),
                kills: (c.crash == CrashKind::Process)
                    .then(|| kills.iter().find(|(k, _)| *k == c.config).map(|(_, r)| r))
                    .flatten(),
            }
        })
        .collect();
    let total: u64 = cells.iter().map(|c| c.states).sum();
    let value = serde_json::json!({
        "engine": args.engine,
        "sqlite_version": build.version,
        "source_id": build.source_id,
        "seed": args.seed,
        "ledger": size(args.transactions),
        "states_per_configuration": args.states,
        "states_total": total,
        "wall_seconds": wall.as_secs_f64(),
        "cells": rows,
    });
    // JSON as it always was (pretty, one newline); the terminal table in its own layout; CSV
    // and Markdown: the verdict table with every column the terminal shows, and the real kills.
    let doc = Document::new(&value)
        .own(Format::Json, serde_json::to_string_pretty(&value).expect("json") + "\n")
        .own(Format::Table, table_text(&rows, build, args, total, wall))
        .heading(format!(
            "Durability of SQLite {} ({}): ledger of {} transactions, seed {}",
            build.version, args.engine, args.transactions, args.seed
        ))
        .table("verdicts", &CELL_HEADERS, rows.iter().map(cells_of).collect())
        .text(format!("\n{}", summary_line(total, wall, args.states)));
    crate::out!("{}", render(&doc, args.format.value));
}

/// The verdict table's columns in CSV and Markdown.
const CELL_HEADERS: [&str; 13] = [
    "journal",
    "sync",
    "crash",
    "verdict",
    "states",
    "distinct",
    "violations",
    "space",
    "docs say",
    "agrees",
    "kills",
    "kill violations",
    "counterexample",
];

/// One verdict row's cells, with its real kills and the counterexample that breaks a
/// documented promise.
fn cells_of(r: &Row<'_>) -> Vec<String> {
    let c = r.cell;
    vec![
        c.config.journal_mode.to_uppercase(),
        c.config.synchronous.to_uppercase(),
        c.crash.name().to_string(),
        c.verdict.to_string(),
        c.states.to_string(),
        c.distinct.to_string(),
        c.violations.to_string(),
        if c.exhaustive { "all" } else { "some" }.to_string(),
        r.documented.to_string(),
        if r.agrees { "yes" } else { "NO" }.to_string(),
        r.kills.map_or(String::new(), |k| k.kills.to_string()),
        r.kills.map_or(String::new(), |k| k.violations.to_string()),
        if r.agrees {
            String::new()
        } else {
            counterexample(r).unwrap_or_default()
        },
    ]
}

/// The counterexample that breaks the documented promise: a corrupt or partial state where the
/// docs promise consistency.
fn counterexample(r: &Row<'_>) -> Option<String> {
    let examples = &r.cell.counterexamples;
    let e = examples
        .iter()
        .find(|e| !matches!(e.found, Outcome::Intact { .. }))
        .or(examples.first())?;
    Some(format!(
        "crash after {} events ({}), {} acknowledged, found {}; survived: {}",
        e.crash_point, e.after, e.acked, e.found, e.survived
    ))
}

fn summary_line(total: u64, wall: std::time::Duration, states: u64) -> String {
    format!(
        "{total} crash states in {:.1} s; space: \"all\" = every crash point with every whole-write subset, \"some\" = sampled ({states} power-loss states per configuration). Verdicts and counterexamples stored in the results store.\n",
        wall.as_secs_f64()
    )
}

fn table_text(
    rows: &[Row<'_>],
    build: &VerifiedBuild,
    args: &VerifyDurabilityArgs,
    total: u64,
    wall: std::time::Duration,
) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!(
        "Durability of SQLite {} ({}): ledger of {} transactions, seed {}",
        build.version, args.engine, args.transactions, args.seed
    ));
    line(format!(
        "{:<10} {:<7} {:<8} {:<24} {:>8} {:>8} {:>10} {:<5} {:<12} {:<8}",
        "journal", "sync", "crash", "verdict", "states", "distinct", "violations", "space", "docs say", "agrees"
    ));
    for r in rows {
        let c = r.cell;
        line(format!(
            "{:<10} {:<7} {:<8} {:<24} {:>8} {:>8} {:>10} {:<5} {:<12} {:<8}",
            c.config.journal_mode.to_uppercase(),
            c.config.synchronous.to_uppercase(),
            c.crash.name(),
            c.verdict.to_string(),
            c.states,
            c.distinct,
            c.violations,
            if c.exhaustive { "all" } else { "some" },
            r.documented,
            if r.agrees { "yes" } else { "NO" }
        ));
        if let Some(k) = r.kills {
            line(format!(
                "{:<27} real SIGKILLs: {} kills, {} violations{}",
                "",
                k.kills,
                k.violations,
                k.examples.first().map(|e| format!(" (e.g. {e})")).unwrap_or_default()
            ));
        }
    }
    for r in rows.iter().filter(|r| !r.agrees) {
        if let Some(e) = counterexample(r) {
            line(format!("{} {} counterexample: {e}", r.cell.config, r.cell.crash.name()));
        }
    }
    out.push_str(&summary_line(total, wall, args.states));
    out
}

/// `litebench durability-child` (internal).
pub fn child(args: &DurabilityChildArgs) -> Result<i32, Failure> {
    let engine = SqliteEngine::open(&engine_choice(&args.engine)?, false)?;
    let config = Config {
        journal_mode: args.journal_mode.clone(),
        synchronous: args.synchronous.clone(),
    };
    let ledger = Ledger::generate(size(args.transactions), args.seed);
    crate::durability::kill::child_main(engine.api, &args.db, &config, &ledger)?;
    Ok(0)
}
