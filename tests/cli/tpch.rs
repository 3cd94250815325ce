//! `tpch` (issue 49) from the command line: `tpch-gen` writes dbgen's bytes, which a run loads
//! back through `tbl_dir`; a run at scale 0.01 on SQLite loads the eight tables, runs every
//! query written so far and checks the row counts after the trial; bad input is refused in one
//! line with exit code 2 before anything runs.
//!
//! The expected SHA-256 of each `.tbl` file is dbgen's own output at scale 0.01, computed once
//! (Debian 12 x86-64, gcc 12) from TPC's dbgen 2.14.0 as `electrum/tpch-dbgen` holds it:
//!
//! ```text
//! git clone https://github.com/electrum/tpch-dbgen && cd tpch-dbgen && git checkout 32f1c1b92d16
//! make MACHINE=LINUX DATABASE=ORACLE WORKLOAD=TPCH dbgen   # the makefile's defaults otherwise
//! mkdir out && cd out && DSS_CONFIG=.. ../dbgen -s 0.01 -f   # all eight tables in one run
//! sha256sum *.tbl; wc -l *.tbl
//! ```
//!
//! dbgen 2.17.3 (`gregrahn/tpch-kit` 852ad0a, same make flags with DATABASE=POSTGRESQL) writes
//! the same lines without the trailing `|` (that fork changed `PR_END`); with it stripped, all
//! eight files are equal too (docs/workloads.md).

use crate::cli::common::*;
use litebench::engines::Dialect;
use litebench::workload::tpch::queries::{sql, Substitution, NAMES};
use sha2::{Digest, Sha256};
use std::path::Path;

/// dbgen 2.14.0 at scale 0.01: (file, lines, SHA-256).
const DBGEN_SF_0_01: [(&str, u64, &str); 8] = [
    (
        "region.tbl",
        5,
        "6022658d673924389b54dcb70fa8c3d6da1b0d7afa3c1c017bab62a019df404f",
    ),
    (
        "nation.tbl",
        25,
        "66f96949939fa8fdf1c4ffed1e5f6c2842fe11a14b51fdc6ed1e17460031e8c5",
    ),
    (
        "part.tbl",
        2000,
        "896e14465325110dd9cf05a16972028a58be0010959262176ecd97f4db1702f8",
    ),
    (
        "supplier.tbl",
        100,
        "9dc1002ee774699a092ed83ba278caf466d62a15d7e35bb6ed9293475528734b",
    ),
    (
        "partsupp.tbl",
        8000,
        "5947b5ebab042b49148f82c1324ad122f7e0d98cfadcbef12da0a5e239e09e79",
    ),
    (
        "customer.tbl",
        1500,
        "6b690cce995cb715861ebf2c77aa02c61406e3a0ddcd3326d1ecfa969b9163f8",
    ),
    (
        "orders.tbl",
        15000,
        "07cc8b362fda6d0b503c4d6c5d228817548e0688a3b21b590c52bb47b7b79c0f",
    ),
    (
        "lineitem.tbl",
        60175,
        "ee411d23efcd2943ef70489799e37dfc24543dbd03b461a88e16fd82a95765e4",
    ),
];

fn tpch_gen(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    output(sb.litebench().arg("tpch-gen").args(args))
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read a .tbl file");
    Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A run of `tpch` at scale 0.01 on SQLite with `extra` parameters, one trial: its JSON.
fn run_sf_0_01(sb: &Sandbox, extra: &[&str]) -> serde_json::Value {
    let args = [
        &[
            "tpch",
            "--param",
            "scale=0.01",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--format",
            "json",
        ][..],
        extra,
    ]
    .concat();
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    json(&out)
}

/// The queries written for SQLite: those the trial must have run.
fn written() -> Vec<&'static str> {
    let v = Substitution::validation();
    (0..NAMES.len())
        .filter(|&op| sql(op, &v, Dialect::Sqlite).is_some())
        .map(|op| NAMES[op])
        .collect()
}

/// Each query's operation count in the run's one trial, and its answer.
fn ran(v: &serde_json::Value) -> Vec<(String, u64, serde_json::Value)> {
    let t = &v["trials"][0];
    let answers = t["queries"].as_array().expect("queries");
    t["ops"]
        .as_array()
        .expect("ops")
        .iter()
        .filter(|o| o["ops"].as_u64() != Some(0))
        .map(|o| {
            let name = o["name"].as_str().unwrap().to_string();
            let answer = answers
                .iter()
                .find(|q| q["op"] == name.as_str())
                .map(|q| q["answer"].clone());
            (name, o["ops"].as_u64().unwrap(), answer.unwrap_or_default())
        })
        .collect()
}

#[test]
fn tpch_gen_writes_dbgens_bytes_and_never_over_a_file() {
    let sb = Sandbox::new();
    let dir = sb.scratch().join("sf0.01");
    let out = tpch_gen(
        &sb,
        &["--scale", "0.01", "--out", dir.to_str().unwrap(), "--threads", "2"],
    );
    assert_success(&out);
    let said = stdout(&out);
    for (file, lines, hash) in DBGEN_SF_0_01 {
        assert_eq!(sha256(&dir.join(file)), hash, "{file} is not dbgen's");
        assert!(said.contains(&format!("{file}: {lines} lines")), "{said}");
    }
    // A second time into the same directory: refused before anything is written.
    let before = std::fs::read(dir.join("lineitem.tbl")).unwrap();
    let out = tpch_gen(
        &sb,
        &[
            "--scale",
            "0.02",
            "--out",
            dir.to_str().unwrap(),
            "--tables",
            "nation,lineitem",
        ],
    );
    assert_error_line(
        &out,
        &[
            "nation.tbl already exists",
            "does not overwrite files it did not create",
        ],
    );
    assert_eq!(std::fs::read(dir.join("lineitem.tbl")).unwrap(), before);
    let out = tpch_gen(&sb, &["--scale", "0", "--out", dir.to_str().unwrap()]);
    assert_error_line(&out, &["--scale 0: out of range", "from 0.01"]);
    // The files loaded through tbl_dir: every row, and Q1's answer as generated (below).
    let imported = run_sf_0_01(
        &sb,
        &[
            "--param",
            &format!("tbl_dir={}", dir.display()),
            "--param",
            "substitution=validation",
        ],
    );
    assert_eq!(imported["footprint"][0]["rows"], 86_805);
    assert_eq!(q1_lines(&ran(&imported)), 59_307);
    sb.assert_cwd_untouched();
}

/// The lines Q1 counted over its four groups.
fn q1_lines(ran: &[(String, u64, serde_json::Value)]) -> u64 {
    let q1 = &ran.iter().find(|q| q.0 == "Q1").expect("Q1 ran").2;
    assert_eq!(q1["rows"], 4, "{q1}");
    q1["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[9].as_str().unwrap().parse::<u64>().unwrap())
        .sum()
}

#[test]
fn a_run_loads_every_table_runs_every_written_query_and_checks_the_counts() {
    let sb = Sandbox::new();
    let v = run_sf_0_01(&sb, &["--param", "substitution=validation"]);
    let foot = &v["footprint"][0];
    assert_eq!(foot["rows"], 86_805, "every table's rows: {foot}");
    assert_eq!(foot["load_path"], "prepared INSERTs", "{foot}");
    assert!(foot["bytes"].as_u64().unwrap() > 5_000_000, "{foot}");
    let generated = ran(&v);
    let names: Vec<&str> = generated.iter().map(|q| q.0.as_str()).collect();
    assert_eq!(names, written());
    assert!(generated.iter().all(|q| q.1 == 1), "each query once: {generated:?}");
    // Q1 at 0.01 with the validation values: four groups, 60175 lines less those shipped after
    // 1998-09-02 (worked out from dbgen's lineitem.tbl with awk).
    assert_eq!(q1_lines(&generated), 59_307);
}

#[test]
fn bad_scales_and_incomplete_tbl_dirs_are_refused_in_one_line() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["tpch", "--param", "scale=0.00001"]));
    assert_error_line(&out, &["--param scale=0.00001: out of range", "from 0.01"]);
    let dir = sb.scratch().join("partial");
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["region.tbl", "nation.tbl"] {
        std::fs::write(dir.join(file), "").unwrap();
    }
    let arg = format!("tbl_dir={}", dir.display());
    let out = output(&mut sb.run(&["tpch", "--param", &arg]));
    assert_error_line(&out, &["part.tbl is missing", "needs all eight"]);
    let out = output(&mut sb.run(&["tpch", "--param", "tbl_dir=/nonexistent/tpch"]));
    assert_error_line(
        &out,
        &[
            "--param tbl_dir=/nonexistent/tpch: no such directory",
            "tpch-gen --out DIR",
        ],
    );
    assert!(!sb.results().exists(), "nothing ran, nothing stored");
}

/// A limit every query of SF 0.01 but the quickest exceeds: each query past it is interrupted,
/// recorded as failed with the cause, and the trial goes on to the next; the run completes and
/// its answer names them.
#[test]
fn a_query_past_the_time_limit_is_recorded_timed_out_and_the_trial_goes_on() {
    let sb = Sandbox::new();
    let v = run_sf_0_01(&sb, &["--param", "query_timeout=1ms"]);
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let t = &v["trials"][0];
    let queries = t["queries"].as_array().expect("queries");
    assert_eq!(queries.len(), 22, "every query has a record");
    let timed_out: Vec<&str> = queries
        .iter()
        .filter(|q| q["failure"] == "timed out after 1 ms")
        .map(|q| q["op"].as_str().unwrap())
        .collect();
    // Q7 joins six tables over all of lineitem: far past 1 ms at SF 0.01 (over 100 ms here).
    assert!(timed_out.contains(&"Q7"), "{timed_out:?}");
    let q7 = t["ops"].as_array().unwrap().iter().find(|o| o["name"] == "Q7").unwrap();
    assert_eq!((q7["ops"].as_u64(), q7["failed"].as_u64()), (Some(0), Some(1)), "{q7}");
    // Every query's record says which values it ran with: by default drawn from the run's
    // --seed (42), not the validation values.
    let drawn = Substitution::draw(42, 0.01);
    let validation = Substitution::validation();
    let stored: Vec<&str> = queries.iter().map(|q| q["parameters"].as_str().unwrap()).collect();
    let expected: Vec<String> = (0..NAMES.len()).map(|op| drawn.describe(op)).collect();
    assert_eq!(stored, expected);
    let same = (0..NAMES.len())
        .filter(|&op| stored[op] == validation.describe(op))
        .count();
    assert!(same < 3, "drawn, not the validation values: {stored:?}");

    // The terminal's answer names them, at 80 columns.
    let out = output(
        sb.run(&[
            "tpch",
            "--param",
            "scale=0.01",
            "--param",
            "query_timeout=1ms",
            "--trials",
            "1",
            "--warmup",
            "0",
        ])
        .env("COLUMNS", "80"),
    );
    assert_success(&out);
    let text = stdout(&out);
    let answer: String = text
        .lines()
        .skip_while(|l| !l.starts_with("answer:"))
        .take(4)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        answer.contains("geometric mean of the queries' times") && answer.contains("timed out: "),
        "{text}"
    );
    assert!(answer.contains("Q7"), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("substitution parameters: drawn from the run's --seed 42"),
        "{text}"
    );
}

#[test]
fn the_dry_run_names_the_limit_and_the_slow_queries_on_sqlite() {
    let sb = Sandbox::new();
    let out = output(
        sb.run(&["tpch", "--param", "query_timeout=90s", "--dry-run"])
            .env("COLUMNS", "80"),
    );
    assert_success(&out);
    let text = stdout(&out).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("each query is limited to 90 s"), "{text}");
    assert!(text.contains("Q17 and Q20"), "{text}");
    assert!(
        text.contains("substitution parameters: drawn from the run's --seed 42"),
        "{text}"
    );
    // SQLite's 1 GB page cache is the workload's default, unless the user sets it.
    assert!(
        text.contains("knobs cache_size=-1000000 (workload tpch default)"),
        "{text}"
    );
    assert!(!text.contains("analyze=false"), "{text}");
    let flat = |args: &[&str]| {
        let out = output(sb.run(args).env("COLUMNS", "80"));
        assert_success(&out);
        stdout(&out).split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let text = flat(&["tpch", "--seed", "9", "--dry-run"]);
    assert!(text.contains("drawn from the run's --seed 9"), "{text}");
    let text = flat(&["tpch", "--param", "param_seed=7", "--dry-run"]);
    assert!(text.contains("drawn from param_seed 7"), "{text}");
    let text = flat(&["tpch", "--param", "substitution=validation", "--dry-run"]);
    assert!(text.contains("the validation values of TPC-H 2.4"), "{text}");
    let text = flat(&[
        "tpch",
        "--knob",
        "cache_size=-2000",
        "--param",
        "analyze=false",
        "--dry-run",
    ]);
    assert!(
        text.contains("cache_size=-2000") && !text.contains("-1000000"),
        "{text}"
    );
    assert!(text.contains("analyze=false: no planner statistics"), "{text}");
}

#[test]
fn a_seed_with_the_validation_values_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["tpch", "--param", "substitution=validation", "--param", "param_seed=7"]));
    assert_error_line(&out, &["--param param_seed=7", "drop one of the two"]);
    assert!(!sb.results().exists(), "nothing ran, nothing stored");
}

#[test]
fn tpch_answers_refuses_a_missing_run_or_answer_set_in_one_line() {
    let sb = Sandbox::new();
    let answers = sb.scratch().join("answers");
    std::fs::create_dir_all(&answers).unwrap();
    let out = output(
        sb.litebench()
            .args(["tpch-answers", "--json", "/nonexistent/run.json", "--answers"])
            .arg(&answers),
    );
    assert_error_line(
        &out,
        &["--json /nonexistent/run.json", "litebench run tpch --format json"],
    );
    let json = sb.scratch().join("run.json");
    std::fs::write(
        &json,
        r#"{"manifest": {"workload": "tpch", "seed": 42, "params": {"substitution": "validation"}}, "trials": []}"#,
    )
    .unwrap();
    let out = output(
        sb.litebench()
            .args(["tpch-answers", "--json"])
            .arg(&json)
            .arg("--answers")
            .arg(&answers),
    );
    assert_error_line(&out, &["q1.out", "q1.out to q22.out"]);
    // A run whose values were drawn from a seed is refused before any answer file is read.
    let seeded = sb.scratch().join("seeded.json");
    std::fs::write(
        &seeded,
        r#"{"manifest": {"workload": "tpch", "seed": 42, "params": {"substitution": "seeded", "param_seed": 0}}, "trials": []}"#,
    )
    .unwrap();
    let out = output(
        sb.litebench()
            .args(["tpch-answers", "--json"])
            .arg(&seeded)
            .arg("--answers")
            .arg(&answers),
    );
    assert_error_line(&out, &["drawn from seed 42", "--param substitution=validation"]);
}
