//! The `ssb` workload end to end: every engine answers the 13 queries alike at a small scale,
//! dbgen's `.tbl` files are imported (a hand-made fixture whose answers are worked out below),
//! and bad input stops the run with one line and exit code 2.

use crate::servers::common::{self, Server};
use crate::support::{describe, json, stderr, Sandbox};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
        .join("tests/ssb/fixture")
}

/// Each trial's answers, by operation name.
fn answers(v: &Value) -> Vec<(u64, Vec<(String, Value)>)> {
    v["trials"]
        .as_array()
        .expect("trials")
        .iter()
        .map(|t| {
            let qs = t["queries"]
                .as_array()
                .map(|qs| {
                    qs.iter()
                        .map(|q| (q["op"].as_str().unwrap().to_string(), q["answer"].clone()))
                        .collect()
                })
                .unwrap_or_default();
            (t["config"].as_u64().unwrap(), qs)
        })
        .collect()
}

#[test]
fn every_engine_answers_every_query_alike() {
    let mut engines = vec!["sqlite", "turso"];
    if crate::support::require_duckdb(crate::support::DUCKDB) {
        engines.push("duckdb");
    }
    if common::available(&[Server::Postgres]) {
        engines.push("postgres");
    }
    if common::available(&[Server::Mysql]) {
        engines.push("mysql");
    }
    let sb = Sandbox::new();
    // 0.05: the smallest scale at which all 13 queries find rows (at 0.01 the 20 suppliers
    // hold none of Q3.2 to Q3.4's cities; the report then says so).
    let mut args = vec![
        "ssb",
        "--param",
        "scale=0.05",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
    ];
    for e in &engines {
        args.extend(["--engine", e]);
    }
    let out = sb.run_std(&args).output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let v = json(&out);
    let trials = answers(&v);
    assert_eq!(trials.len(), engines.len());
    let (_, first) = &trials[0];
    let ops: Vec<&str> = first.iter().map(|(op, _)| op.as_str()).collect();
    assert_eq!(
        ops,
        ["Q1.1", "Q1.2", "Q1.3", "Q2.1", "Q2.2", "Q2.3", "Q3.1", "Q3.2", "Q3.3", "Q3.4", "Q4.1", "Q4.2", "Q4.3"]
    );
    for (config, qs) in &trials {
        for ((op, a), (_, b)) in qs.iter().zip(first) {
            assert_eq!(a["rows"], b["rows"], "{op} on config {config}");
            assert_eq!(a["hash"], b["hash"], "{op} on config {config}");
        }
    }
    // Real answers, not empty ones, for all 13 queries: below scale 1 the date table is still
    // the specification's seven years (dbgen would keep 127 days of 1992 at 0.05, and most of
    // the queries would answer nothing).
    for (op, a) in first {
        let rows = a["rows"].as_u64().unwrap();
        assert!(rows >= 1, "{op}: {a}");
        let cells: Vec<&Value> = a["values"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r.as_array().unwrap())
            .collect();
        assert!(cells.iter().any(|c| !c.is_null()), "{op} answered only NULLs: {a}");
    }
    let q21 = &first[3].1;
    let sum = q21["values"][0][0].as_str().expect("a sum");
    assert!(sum.parse::<u64>().unwrap() > 0, "{sum}");
    let warnings = v["warnings"].to_string();
    assert!(!warnings.contains("answered nothing"), "{warnings}");
    // Every engine's template is in the footprint, with every row.
    let footprint = v["footprint"].as_array().expect("footprint");
    assert_eq!(footprint.len(), engines.len(), "{footprint:?}");
    let rows = footprint[0]["rows"].as_u64().unwrap();
    assert!(rows > 300_000, "{rows}");
    assert!(footprint.iter().all(|t| t["rows"].as_u64() == Some(rows)));
    // The artifact's knobs apply as the workload's defaults, and say so.
    let configs = v["manifest"]["configs"].as_array().unwrap();
    assert_eq!(configs[0]["knobs"][0]["name"], "cache_size");
    assert_eq!(configs[0]["knobs"][0]["value"], "-1000000");
    assert_eq!(configs[0]["knob_origins"][0][1], "workload ssb default");
}

#[test]
fn dbgen_tbl_files_are_imported() {
    let sb = Sandbox::new();
    let dir = format!("tbl_dir={}", fixture().display());
    let out = sb
        .run_std(&[
            "ssb", "--param", &dir, "--trials", "1", "--warmup", "0", "--format", "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["footprint"][0]["rows"], 12);
    let trials = answers(&v);
    let q = |op: &str| trials[0].1.iter().find(|(o, _)| o == op).unwrap().1["values"].clone();
    // Q1.1: 1993, discount 1-3, quantity < 25: lines 1 (1000 x 2) and 3 (500 x 3).
    assert_eq!(q("Q1.1"), serde_json::json!([["3500"]]));
    // Q1.3: week 6 of 1994, discount 5-7, quantity 36-40: line 4 (700 x 6).
    assert_eq!(q("Q1.3"), serde_json::json!([["4200"]]));
    // Q1.2: January 1994 has no line: a sum over nothing, and the report says so.
    assert_eq!(q("Q1.2"), serde_json::json!([[null]]));
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("queries answered nothing (Q1.2, "), "{warnings}");
    assert!(warnings.contains("the .tbl files in "), "{warnings}");
}

/// DuckDB reads `.tbl` files with its own `COPY ... FROM` (issue 25), and the rows are the
/// appender's: the same files copied, parsed and appended (`tbl_load=parsed`), and parsed into
/// SQLite, answer every query alike, and the footprint names each way (also in `show`).
#[test]
fn duckdb_copies_tbl_files_itself_and_answers_as_its_appender() {
    if !crate::support::require_duckdb(crate::support::DUCKDB) {
        return;
    }
    let sb = Sandbox::new();
    let dir = sb.root().join("sf001");
    let mut gen = sb.command();
    gen.args(["ssb-gen", "--scale", "0.01", "--out"]).arg(&dir);
    let out = gen.output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let tbl = format!("tbl_dir={}", dir.display());
    let common = ["--trials", "1", "--warmup", "0", "--format", "json"];
    let run = |extra: &[&str]| {
        let args: Vec<&str> = ["ssb"].iter().chain(extra).chain(&common).copied().collect();
        let out = sb.run_std(&args).output().unwrap();
        assert!(out.status.success(), "{}", describe(&out));
        json(&out)
    };
    // From the files: DuckDB's reader, and SQLite's inserts of the parsed rows.
    let copied = run(&["--param", &tbl, "--engine", "duckdb", "--engine", "sqlite"]);
    // The same files parsed by litebench: DuckDB's appender.
    let appended = run(&["--param", &tbl, "--param", "tbl_load=parsed", "--engine", "duckdb"]);
    // Each template's engine (DuckDB's label carries its version) and way in.
    let ways = |v: &Value| -> Vec<String> {
        v["footprint"]
            .as_array()
            .expect("footprint")
            .iter()
            .map(|t| {
                let engine = t["engine"].as_str().unwrap();
                let engine = if engine.starts_with("duckdb") { "duckdb" } else { engine };
                format!("{engine}: {}", t["load_path"].as_str().unwrap_or("-"))
            })
            .collect()
    };
    assert_eq!(
        ways(&copied),
        ["duckdb: COPY FROM file (native)", "sqlite: prepared INSERTs"]
    );
    assert_eq!(ways(&appended), ["duckdb: appender"]);
    let rows = |v: &Value| v["footprint"][0]["rows"].as_u64().unwrap();
    assert_eq!(rows(&copied), rows(&appended));
    assert_eq!(rows(&copied), 2000 + 20 + 300 + 2557 + 60176);
    let mut trials = answers(&copied);
    trials.extend(answers(&appended));
    assert_eq!(trials.len(), 3);
    let (_, first) = &trials[0];
    assert_eq!(first.len(), 13);
    for (n, (_, qs)) in trials.iter().enumerate() {
        for ((op, a), (_, b)) in qs.iter().zip(first) {
            assert_eq!((&a["rows"], &a["hash"]), (&b["rows"], &b["hash"]), "{op}, trial {n}");
        }
    }
    // Enough of the answers hold rows that equal hashes say something.
    let with_rows = first.iter().filter(|(_, a)| a["rows"].as_u64() > Some(0)).count();
    assert!(with_rows >= 10, "{first:?}");
    let show = sb.show_std(&[]).output().unwrap();
    assert!(show.status.success(), "{}", describe(&show));
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("loaded by") && text.contains("appender"), "{text}");
}

/// `dates=dbgen` keeps dbgen's bytes, whose date table below scale 1 is 25 days of January
/// 1992: ten queries then answer nothing, and the report names each of them.
#[test]
fn dbgens_small_date_table_answers_nothing_and_the_report_says_so() {
    let sb = Sandbox::new();
    let out = sb
        .run_std(&[
            "ssb",
            "--param",
            "scale=0.01",
            "--param",
            "dates=dbgen",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let v = json(&out);
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let w = warnings
        .iter()
        .find(|w| w.contains("answered nothing"))
        .unwrap_or_else(|| panic!("no empty-answer warning: {warnings:?}"));
    assert!(
        w.starts_with(
            "10 of 13 queries answered nothing (Q1.1, Q1.2, Q1.3, Q2.2, Q2.3, Q3.2, Q3.3, Q3.4, Q4.2, Q4.3): with dates=dbgen at scale 0.01"
        ),
        "{w}"
    );
}

#[test]
fn bloom_filters_on_and_off_show_in_the_stored_plans() {
    let sb = Sandbox::new();
    let out = sb
        .run_std(&[
            "ssb",
            "--param",
            "scale=0.01",
            "--knob",
            "bloom_filter=on,off",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let v = json(&out);
    let plan = |config: u64, op: &str| -> String {
        let t = v["trials"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["config"] == config)
            .expect("a trial of the configuration");
        let q = t["queries"].as_array().unwrap().iter().find(|q| q["op"] == op).unwrap();
        q["plan"]
            .as_array()
            .expect("a stored plan")
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect::<Vec<_>>()
            .join("\n")
    };
    // The paper's Figure 5: Q2.1 filters lineorder's rows through part and supplier first.
    let on = plan(0, "Q2.1");
    assert!(on.contains("BLOOM FILTER ON part"), "{on}");
    for op in ["Q1.1", "Q2.1", "Q3.1", "Q4.1"] {
        let off = plan(1, op);
        assert!(!off.contains("BLOOM FILTER"), "{op}: {off}");
    }
    // Each configuration's first measured trial keeps a per-loop profile of every query.
    let profile = &v["trials"][0]["queries"][3]["profile"];
    assert!(profile.as_array().is_some_and(|p| !p.is_empty()), "{profile}");
}

fn copy_fixture(to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in ["part", "supplier", "customer", "date", "lineorder"] {
        std::fs::copy(fixture().join(format!("{f}.tbl")), to.join(format!("{f}.tbl"))).unwrap();
    }
}

fn refused(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.run_std(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn bad_input_is_refused_with_one_line() {
    let sb = Sandbox::new();
    let err = refused(&sb, &["ssb", "--param", "scale=0"]);
    assert!(err.contains("--param scale=0: invalid value"), "{err}");
    let err = refused(&sb, &["ssb", "--param", "tbl_dir=/nonexistent/ssb"]);
    assert!(
        err.contains("--param tbl_dir=/nonexistent/ssb: no such directory"),
        "{err}"
    );
    let missing = sb.root().join("missing");
    copy_fixture(&missing);
    std::fs::remove_file(missing.join("date.tbl")).unwrap();
    let arg = format!("tbl_dir={}", missing.display());
    let err = refused(&sb, &["ssb", "--param", &arg]);
    assert!(err.contains("date.tbl is missing"), "{err}");
    // A malformed line: found while loading; the run stops, nothing is measured.
    let bad = sb.root().join("bad");
    copy_fixture(&bad);
    let lineorder = bad.join("lineorder.tbl");
    let text = std::fs::read_to_string(&lineorder).unwrap();
    let broken = text.replacen("|0|30|2000|", "|0|thirty|2000|", 1);
    assert_ne!(text, broken);
    std::fs::write(&lineorder, broken).unwrap();
    let arg = format!("tbl_dir={}", bad.display());
    let err = refused(&sb, &["ssb", "--param", &arg, "--trials", "1", "--warmup", "0"]);
    assert!(
        err.contains(&format!(
            "{} line 2 column lo_quantity (9): `thirty` is not an integer",
            lineorder.display()
        )),
        "{err}"
    );
    assert!(err.contains("0 finished trials kept"), "{err}");
    // DuckDB's own reader refuses the file; the parser then finds the line and names it.
    if crate::support::require_duckdb(crate::support::DUCKDB) {
        let err = refused(
            &sb,
            &[
                "ssb", "--param", &arg, "--engine", "duckdb", "--trials", "1", "--warmup", "0",
            ],
        );
        assert!(
            err.contains(&format!(
                "{} line 2 column lo_quantity (9): `thirty` is not an integer",
                lineorder.display()
            )),
            "{err}"
        );
    }
}
