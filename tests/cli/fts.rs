//! `litebench run fts`: an FTS5 index over a generated corpus, two tokenizers side by side in
//! one run with their answers checked; and its refusals in one line, exit 2: the combinations
//! FTS5 refuses, its knobs on another workload, DuckDB, and an engine without FTS5.

use crate::cli::common::*;

/// The tiny corpus and trial every run here uses.
const TINY: &[&str] = &[
    "--param",
    "documents=150",
    "--param",
    "vocabulary=300",
    "--param",
    "length=15",
    "--param",
    "operations=300",
    "--param",
    "check=20",
    "--trials",
    "1",
    "--warmup",
    "0",
];

fn args<'a>(head: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(TINY).copied().collect()
}

#[test]
fn two_tokenizers_run_side_by_side_read_back_and_answer_on_the_first_screen() {
    let sb = Sandbox::new();
    let o = output(
        sb.run(&args(&["fts", "--knob", "fts_tokenizer=unicode61,porter"]))
            .env("COLUMNS", "80"),
    );
    assert_success(&o);
    let out = stdout(&o);
    let first_screen: Vec<&str> = out.lines().take(24).collect();
    let screen = first_screen.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "Fastest by median p50",
        "Fastest p50: and ",
        "phrase ",
        "delete ",
        "Answers checked after each of 2 trials: 20 queries",
        "Index with its text at the trials' start: unicode61 ",
    ] {
        assert!(screen.contains(want), "{want:?} on the first screen:\n{out}");
    }
    for l in out.lines() {
        assert!(l.chars().count() <= 80, "wider than 80 columns: {l}\n{out}");
    }
    // Each tokenizer was read back from the index it built, in every trial.
    let v = sb.show_json();
    let mut read: Vec<String> = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["knobs"].as_array().unwrap().iter())
        .filter(|k| k["name"] == "fts_tokenizer")
        .map(|k| {
            format!(
                "{}={}",
                k["requested"].as_str().unwrap(),
                k["effective"].as_str().unwrap()
            )
        })
        .collect();
    read.sort();
    assert_eq!(read, ["porter=porter", "unicode61=unicode61"], "{v}");
    // A template per tokenizer: the index's size and build time each.
    assert_eq!(v["footprint"].as_array().map(Vec::len), Some(2), "{}", v["footprint"]);
}

#[test]
fn combinations_fts5_refuses_are_refused_before_anything_runs() {
    let sb = Sandbox::new();
    let o = output(&mut sb.run(&args(&["fts", "--knob", "fts_detail=full,column"])));
    assert_run_error_line(
        &o,
        &[
            "--knob fts_detail=column",
            "phrase queries only with detail=full",
            "--param phrase=0",
        ],
    );
    let o = output(&mut sb.run(&args(&[
        "fts",
        "--knob",
        "fts_tokenizer=trigram",
        "--param",
        "phrase=0",
    ])));
    assert_run_error_line(
        &o,
        &["--knob fts_tokenizer=trigram", "not a prefix", "--param prefix=0"],
    );
    let o = output(&mut sb.run(&args(&[
        "fts",
        "--knob",
        "fts_tokenizer=trigram",
        "--knob",
        "fts_detail=none",
        "--param",
        "phrase=0",
        "--param",
        "prefix=0",
    ])));
    assert_run_error_line(
        &o,
        &["trigram with fts_detail=none", "run trigram with fts_detail=full"],
    );
    let o = output(&mut sb.run(&["crud", "--knob", "fts_tokenizer=porter", "--trials", "1"]));
    assert_run_error_line(&o, &["--knob fts_tokenizer", "crud"]);
}

#[test]
fn duckdb_is_refused_in_one_line_naming_the_download() {
    let sb = Sandbox::new();
    let o = output(&mut sb.run(&args(&["fts", "--engine", "duckdb"])));
    assert_run_error_line(
        &o,
        &[
            "DuckDB's full-text search is its fts extension",
            "run fts on sqlite or postgres",
        ],
    );
}

/// Turso answers `PRAGMA compile_options` with no ENABLE_FTS5, as a SQLite built without FTS5
/// does: the same refusal, without compiling a build for the test.
#[test]
fn an_engine_without_fts5_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let o = output(&mut sb.run(&args(&["fts", "--engine", "turso"])));
    assert_run_error_line(
        &o,
        &["this engine has no FTS5", "lists no ENABLE_FTS5", "--engine sqlite"],
    );
}
