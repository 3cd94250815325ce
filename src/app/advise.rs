//! `litebench advise --need durable|consistent|none`: the fastest stored configuration that
//! keeps the guarantee, with its evidence, and what the next faster one gives up.
//!
//! The runs ranked are all of one workload with one set of parameters ([`chosen`]): without
//! RUN ids or `--workload` the command asks for one instead of mixing tx/s of unrelated
//! workloads into one list.

use crate::app::cli::{AdviseArgs, CrashChoice, VerifyDurabilityArgs};
use crate::base::Failure;
use crate::bench::flags::{FormatArg, ResultsArg};
use crate::durability::crash::CrashKind;
use crate::errln;
use crate::model::metric::Metric;
use crate::report::advise::{advise, figure_words, left_out, measured, ranking_metric, Advice, Candidate, Measured};
use crate::report::format::{render, Document};
use crate::report::layout;
use crate::report::number::ratio;
use crate::report::number::{count, num, opt};
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

fn describe(c: &Candidate<'_>, metric: Metric) -> String {
    let m = c.measured;
    format!(
        "run {} config {} `{}` ({}): {}",
        m.run,
        m.config,
        m.label,
        m.workload,
        figure_words(m, metric)
    )
}

/// A candidate's rate: achieved against target in an open loop (`247 / 300`), else the median.
fn rate(m: &Measured) -> String {
    match m.target_tps {
        Some(t) => format!("{} / {}", num(m.tps_median), num(t)),
        None => num(m.tps_median),
    }
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
    let (mut store, path) = open_store(&args.results.value)?;
    let mut all = Vec::new();
    let mut not_ranked = Vec::new();
    for run in chosen(&mut store, &path, args)? {
        all.extend(measured(run.id, &run.manifest, &run.trials));
        not_ranked.extend(left_out(run.id, &run.manifest, &run.trials));
    }
    if all.is_empty() {
        return Err(no_sqlite_run(&path));
    }
    let kinds = crashes(args.crash);
    let metric = ranking_metric(&all, args.metric);
    let mut stored = store.verifications()?;
    if args.verify {
        let missing: BTreeSet<(String, String, String)> = advise(args.need, &kinds, &all, &stored, metric)
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
                results: ResultsArg {
                    value: Some(path.clone()),
                },
                format: FormatArg { value: Format::Table },
            })?;
            if code != 0 {
                return Ok(code);
            }
        }
        store = open_store(&Some(path.clone()))?.0;
        stored = store.verifications()?;
    }
    let advice = advise(args.need, &kinds, &all, &stored, metric);
    let code = if advice.answer.is_some() { 0 } else { 2 };
    crate::out!("{}", render(&document(&advice), args.format.value));
    if args.format.value == Format::Table && !not_ranked.is_empty() {
        crate::out!("{}\n", layout::fit_prose(not_ranked.join("\n")));
    }
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

/// The advice for any format: the terminal gets the answer's sentence and the candidates'
/// table, fitted to its width; Markdown and CSV the answer as a list and every candidate as a
/// table row.
fn document(a: &Advice<'_>) -> Document {
    let lines = answer_lines(a);
    let order = ranking_order(a.metric);
    let text = layout::fit_prose(terminal_text(a, &lines, &order));
    let (headers, rows) = candidates(a);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    let table = if crate::base::terminal::width().is_some() {
        narrow_table(&headers, &rows)
    } else {
        // The terminal leaves out what every row shares (one workload is ranked) and an empty
        // column of commands.
        let verify_any = rows.iter().any(|r| !r[11].is_empty());
        let keep: Vec<usize> = (0..headers.len())
            .filter(|&i| i != 5 && (i != 11 || verify_any))
            .collect();
        layout::table(
            &keep.iter().map(|&i| headers[i]).collect::<Vec<_>>(),
            &rows
                .iter()
                .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
                .collect::<Vec<_>>(),
            false,
        )
    };
    let mut md = String::new();
    for l in &lines {
        md += &match l.strip_prefix("  ") {
            Some(l) => format!("  - {l}\n"),
            None => format!("- {l}\n"),
        };
    }
    Document::new(a)
        .own(Format::Table, text + &table)
        .heading(format!("Need: {}", a.need.name()))
        .text(md + "\n")
        .heading(format!("All candidates, {order}"))
        .table("candidates", &headers, rows)
}

/// The candidates at a terminal's width (issue 46, item 13): a row per candidate that fits one
/// line (`RUN:CONFIG` for the configuration, its label once in a legend below), the evidence said once where every candidate has
/// the same, and the commands that would verify them after the table.
fn narrow_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let key = |r: &Vec<String>| format!("{}:{}", r[2], r[3]);
    let same_evidence = rows.windows(2).all(|w| w[0][10] == w[1][10]);
    // The need keeps its failures (`meets, 2 failed/trial`): never a pick's failures out of sight;
    // the failures' own column then says nothing more.
    let mut keep = vec![0, 1, 6, 7, 9];
    if !same_evidence {
        keep.push(10);
    }
    let mut h: Vec<&str> = vec![headers[0], "run:config"];
    h.extend(keep.iter().skip(1).map(|&i| headers[i]));
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut v = vec![r[0].clone(), key(r)];
            v.extend(keep.iter().skip(1).map(|&i| r[i].clone()));
            v
        })
        .collect();
    let mut out = layout::table(&h, &body, false);
    if same_evidence {
        if let Some(r) = rows.first() {
            out += &format!("evidence, every candidate: {}\n", r[10]);
        }
    }
    let mut labels: Vec<(String, Vec<String>)> = Vec::new();
    for r in rows {
        match labels.iter_mut().find(|(l, _)| *l == r[4]) {
            Some((_, keys)) => keys.push(key(r)),
            None => labels.push((r[4].clone(), vec![key(r)])),
        }
    }
    let mut legend = String::from("configurations:\n");
    for (label, keys) in &labels {
        legend += &format!("  {}: {label}\n", keys.join(", "));
    }
    out += &layout::fit_prose(legend);
    let mut verify: Vec<&String> = rows.iter().map(|r| &r[11]).filter(|c| !c.is_empty()).collect();
    verify.sort();
    verify.dedup();
    if !verify.is_empty() {
        let cmds: Vec<&str> = verify.iter().map(|c| c.as_str()).collect();
        out += &layout::fit_prose(format!("to verify: {}\n", cmds.join("; ")));
    }
    out
}

/// The answer's sentence, its evidence, and what the one above it gives up.
fn answer_lines(a: &Advice<'_>) -> Vec<String> {
    let mut lines = vec![a.sentence()];
    if let Some(i) = a.answer {
        let best = &a.ranked[i];
        lines.push(format!("  evidence: {}", evidence(best)));
        if let Some(next) = i.checked_sub(1).map(|j| &a.ranked[j]) {
            lines.push(format!("{}: {}", above_words(best), describe(next, a.metric)));
            lines.push(format!("  gives up: {}", evidence(next)));
        }
    }
    lines
}

/// How candidates are ranked, in words: `fastest first`, `by p99 (lowest first)`.
fn ranking_order(metric: Metric) -> String {
    if metric == Metric::Tps {
        "fastest first".to_string()
    } else {
        format!(
            "by {} ({} first)",
            metric.name(),
            if metric == Metric::Failures { "fewest" } else { "lowest" }
        )
    }
}

/// The terminal's text before the candidates' table.
fn terminal_text(a: &Advice<'_>, lines: &[String], order: &str) -> String {
    let mut text = format!("Need: {}\n", a.need.name());
    for l in lines {
        text += &format!("{l}\n");
    }
    if !a.unverified_faster.is_empty() {
        text += "Faster but not verified (not assumed safe):\n";
        for &i in &a.unverified_faster {
            text += &format!(
                "  {}  ->  {}\n",
                describe(&a.ranked[i], a.metric),
                verify_command(a.ranked[i].measured)
            );
        }
    }
    text + &format!(
        "All candidates, those without failed transactions first, each {order} (the one above against it: its speed over this one's, as compare gives it):\n"
    )
}

/// Every candidate as a row, in rank order, under its headers.
fn candidates(a: &Advice<'_>) -> (Vec<String>, Vec<Vec<String>>) {
    let mark = |c: &Candidate<'_>| match (c.meets(a.need), c.measured.failed()) {
        (Some(true), false) => "meets".to_string(),
        (Some(true), true) => format!("meets, {} failed/trial", count(c.measured.failed_per_trial)),
        (Some(false), _) => "fails".to_string(),
        (None, _) => "unverified".to_string(),
    };
    let unit = a
        .ranked
        .first()
        .map_or("tx", |c| crate::workload::unit_of(&c.measured.workload));
    let open = a.ranked.iter().any(|c| c.measured.target_tps.is_some());
    let rate_head = if open {
        format!("{unit}/s achieved / target")
    } else {
        format!("{unit}/s median")
    };
    let rows = a
        .ranked
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let m = c.measured;
            vec![
                (i + 1).to_string(),
                mark(c),
                m.run.to_string(),
                m.config.to_string(),
                m.label.clone(),
                m.workload.clone(),
                rate(m),
                opt(m.p99_ms_median),
                count(m.failed_per_trial),
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
    let headers = vec![
        "rank".to_string(),
        "need".into(),
        "run".into(),
        "config".into(),
        "configuration".into(),
        "workload".into(),
        rate_head,
        "p99 ms".into(),
        format!("failed {unit}/trial"),
        "the one above against it".into(),
        "evidence".into(),
        "to verify".into(),
    ];
    (headers, rows)
}
