//! The suites and presets through the `litebench` binary, at their smallest scale.

use crate::support::{describe, Sandbox};
use assert_cmd::Command;
use litebench::workload::suite::{Check, Scale, Script, Step};
use litebench::workload::{self, acreve, androbench, rlbench, speedtest, sqlite_benchmark};
use serde_json::Value;
use std::process::Output;
use std::time::Duration;

/// The suites' commands in the shared sandbox.
trait Suites {
    /// `litebench ARGS`, confined to the sandbox.
    fn litebench(&self, args: &[&str]) -> Output;
    /// `litebench run ARGS` with one quiet measured trial, JSON output, inside the sandbox.
    fn run(&self, args: &[&str]) -> Output;
}

impl Suites for Sandbox {
    fn litebench(&self, args: &[&str]) -> Output {
        Command::from_std(self.command())
            .args(args)
            .timeout(Duration::from_secs(120))
            .output()
            .expect("run litebench")
    }

    fn run(&self, args: &[&str]) -> Output {
        let (dir, results) = (self.scratch(), self.results());
        let mut all: Vec<&str> = vec!["run"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--trials", "1", "--warmup", "0", "--quiet", "--format", "json"]);
        all.extend_from_slice(&["--dir", dir.to_str().unwrap(), "--results", results.to_str().unwrap()]);
        self.litebench(&all)
    }
}

fn json(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", describe(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", describe(out)))
}

/// The summary rows of configuration 0: operation name to operations per trial.
fn rows(report: &Value) -> Vec<(String, f64)> {
    report["summary"]
        .as_array()
        .expect("summary")
        .iter()
        .filter(|r| r["config"] == 0)
        .map(|r| {
            (
                r["operation"].as_str().unwrap().to_string(),
                r["ops_per_trial"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Runs a suite at 1% and checks one summary row per test, in order, with the test's
/// statement count, plus the total; and that the trial has a result hash if the suite has
/// queries.
fn suite_on_the_cli(name: &str, script: Script, extra: &[&str]) {
    let sb = Sandbox::new();
    let mut args = vec![name];
    args.extend_from_slice(extra);
    let report = json(&sb.run(&args));
    assert_eq!(report["run"]["status"], "complete");
    let queries = script.tests.iter().flat_map(|t| &t.steps).any(|s| {
        matches!(
            s,
            Step::Run {
                check: Check::Values { .. },
                ..
            }
        )
    });
    let hash = &report["trials"][0]["result_hash"];
    assert_eq!(hash.as_str().map(str::len), queries.then_some(64), "{name}: {hash}");
    let ops = workload::find(name).unwrap().kind().operations;
    let got = rows(&report);
    let mut want: Vec<(String, f64)> = vec![("all".into(), script.statements() as f64)];
    for t in &script.tests {
        want.push((ops[t.op].to_string(), t.statements() as f64));
    }
    assert_eq!(got, want, "{name}");
}

const TINY: Scale = Scale { size: 1, percent: 1 };
const SCALE_1: &[&str] = &["--param", "scale_percent=1"];

#[test]
fn speedtest_on_the_cli() {
    suite_on_the_cli("speedtest", speedtest::script(TINY, 0), SCALE_1);
}

#[test]
fn rlbench_on_the_cli() {
    suite_on_the_cli("rlbench", rlbench::script(TINY, 0), SCALE_1);
}

#[test]
fn acreve_on_the_cli() {
    suite_on_the_cli("acreve", acreve::script(TINY, 0), SCALE_1);
}

#[test]
fn sqlite_benchmark_on_the_cli() {
    suite_on_the_cli("sqlite-benchmark", sqlite_benchmark::script(TINY, 0), SCALE_1);
}

#[test]
fn androbench_on_the_cli() {
    suite_on_the_cli("androbench", androbench::script(TINY, 0), SCALE_1);
}

/// Mobibench's app button on the load driver: its three modes one after the other, one row each,
/// every statement successful, and no result hash (no statement returns rows).
#[test]
fn mobibench_on_the_cli() {
    let sb = Sandbox::new();
    let report = json(&sb.run(&["mobibench", "--param", "mode=all", "--param", "count=10"]));
    assert_eq!(report["run"]["status"], "complete");
    assert!(report["trials"][0]["result_hash"].is_null(), "{}", report["trials"][0]);
    let want = [("all", 30.0), ("insert", 10.0), ("update", 10.0), ("delete", 10.0)];
    let want: Vec<(String, f64)> = want.iter().map(|(o, n)| (o.to_string(), *n)).collect();
    assert_eq!(rows(&report), want);
    for op in report["trials"][0]["ops"].as_array().expect("ops") {
        assert_eq!(op["succeeded"], op["ops"], "{op}");
    }
}

#[test]
fn table1_preset_group_runs_every_tool_in_its_configurations() {
    let sb = Sandbox::new();
    let v = json(&sb.run(&[
        "--preset",
        "table1",
        "--param",
        "count=10",
        "--param",
        "scale_percent=1",
    ]));
    let runs = v["runs"].as_array().expect("runs");
    let workloads: Vec<&str> = runs
        .iter()
        .map(|r| r["manifest"]["workload"].as_str().unwrap())
        .collect();
    assert_eq!(workloads, ["mobibench", "rlbench", "androbench"]);
    // Mobibench default and customised share a run and are interleaved.
    let mobi = &runs[0]["manifest"];
    assert_eq!(mobi["params"]["mode"], "insert");
    assert_eq!(mobi["params"]["count"], 10, "--param overrides the group's count");
    let labels: Vec<&str> = mobi["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "mobibench page_size=4096 journal_mode=truncate synchronous=full",
            "mobibench-custom page_size=4096 journal_mode=wal synchronous=full",
        ]
    );
    assert_eq!(runs[1]["manifest"]["params"]["scale_percent"], 1);
    let presets: Vec<(&str, &str)> = v["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["preset"].as_str().unwrap(), p["operation"].as_str().unwrap()))
        .collect();
    assert_eq!(
        presets,
        [
            ("mobibench", "insert"),
            ("mobibench-custom", "insert"),
            ("rlbench", "01 1000 INSERTs"),
            ("androbench", "01 1000 INSERTs"),
            ("androbench-custom", "01 1000 INSERTs"),
        ]
    );
    // Every knob of every preset was read back as requested.
    for r in runs {
        for t in r["trials"].as_array().unwrap() {
            for k in t["knobs"].as_array().unwrap() {
                if !k["requested"].is_null() {
                    assert_eq!(k["requested"], k["effective"], "{k}");
                }
            }
        }
    }
}

#[test]
fn preset_alone_names_the_workload_and_flags_override_it() {
    let sb = Sandbox::new();
    let report = json(&sb.run(&[
        "--preset",
        "mobibench",
        "--param",
        "count=5",
        "--knob",
        "journal_mode=wal,persist",
    ]));
    assert_eq!(report["manifest"]["workload"], "mobibench");
    assert_eq!(report["manifest"]["params"]["mode"], "all", "the preset's mode stays");
    assert_eq!(report["manifest"]["params"]["count"], 5);
    let labels: Vec<&str> = report["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "mobibench page_size=4096 journal_mode=wal synchronous=full",
            "mobibench page_size=4096 journal_mode=persist synchronous=full",
        ]
    );
    // The table format ends with the comparison when several presets run.
    let text = sb.litebench(&[
        "run",
        "speedtest",
        "--preset",
        "speedtest",
        "--preset",
        "speedtest-nosync",
        "--param",
        "scale_percent=1",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--dir",
        sb.scratch().to_str().unwrap(),
        "--results",
        sb.results().to_str().unwrap(),
    ]);
    assert_eq!(text.status.code(), Some(0), "{}", describe(&text));
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(stdout.contains("presets compared"), "{stdout}");
    assert!(stdout.contains("speedtest-nosync"), "{stdout}");
    assert!(stdout.contains("15 DROP TABLE"), "{stdout}");
    // speedtest counts statements: the comparison's rates say so, not "tx/s".
    let compared = &stdout[stdout.find("presets compared").unwrap()..];
    assert!(
        compared.contains(" statements/s") && !compared.contains("tx/s"),
        "{compared}"
    );
}

/// A refused command: exit 2, one line on stderr with all of `parts`, nothing created.
fn refused(args: &[&str], parts: &[&str]) {
    let sb = Sandbox::new();
    let out = sb.run(args);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{}", describe(&out));
    for p in parts {
        assert!(lines[0].contains(p), "{p:?} missing in {:?}", lines[0]);
    }
    let left = std::fs::read_dir(sb.scratch()).unwrap().count();
    assert_eq!(left, 0, "a refused run created files under --dir");
    assert!(!sb.results().exists(), "a refused run created the results store");
}

#[test]
fn bad_presets_are_refused_in_one_line() {
    refused(
        &["--preset", "nosuch"],
        &[
            "error: --preset nosuch: unknown preset; valid presets: speedtest, ",
            "table1",
        ],
    );
    refused(
        &["crud", "--preset", "mobibench"],
        &["error: --preset mobibench runs workload mobibench, not crud"],
    );
    refused(&[], &["error: missing workload", "--preset NAME"]);
    refused(
        &["--preset", "androbench", "--preset", "androbench"],
        &["error: --preset androbench is given twice"],
    );
    refused(
        &["--preset", "table1", "--param", "rows=5"],
        &["error: --param rows: none of this run's workloads (androbench, mobibench, rlbench)"],
    );
    refused(
        &["--preset", "mobibench", "--param", "mode=drop"],
        &["error: --param mode=drop: invalid value; valid: insert, update, delete, all"],
    );
    refused(
        &["speedtest", "--param", "size=0"],
        &["error: --param size=0: invalid value; valid: an integer from 1 to 100"],
    );
}

#[test]
fn list_shows_presets_with_sources() {
    let sb = Sandbox::new();
    let out = sb.litebench(&["list"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for p in litebench::workload::preset::PRESETS {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{} — ", p.name))),
            "preset {} not listed",
            p.name
        );
    }
    assert!(text.contains("journal_mode=truncate"), "{text}");
    assert!(text.contains("TabMain.set_default"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("table1 — ")), "{text}");
    let out = sb.litebench(&["list", "--format", "json"]);
    let v = json(&out);
    let names: Vec<&str> = v["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"androbench-custom"), "{names:?}");
    assert_eq!(v["preset_groups"][0]["name"], "table1");
    for w in [
        "speedtest",
        "rlbench",
        "acreve",
        "sqlite-benchmark",
        "androbench",
        "mobibench",
    ] {
        assert!(
            v["workloads"].as_array().unwrap().iter().any(|x| x["name"] == w),
            "workload {w} not listed"
        );
    }
}

/// Several runs in one CSV: each summary row says which run and workload it belongs to, since
/// every run numbers its configurations from 0.
#[test]
fn several_runs_in_csv_name_their_run_and_workload() {
    let sb = Sandbox::new();
    let out = sb.litebench(&[
        "run",
        "--preset",
        "androbench",
        "--preset",
        "rlbench",
        "--param",
        "scale_percent=1",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "csv",
        "--dir",
        sb.scratch().to_str().unwrap(),
        "--results",
        sb.results().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(headers[..4], ["run", "workload", "config", "label"], "{headers:?}");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut seen: Vec<(String, String)> = rows.iter().map(|r| (r[0].to_string(), r[1].to_string())).collect();
    seen.dedup();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_ne!(seen[0].0, seen[1].0);
    assert_eq!([seen[0].1.as_str(), seen[1].1.as_str()], ["androbench", "rlbench"]);
    // Every row's operation belongs to its own run's workload: both runs have a configuration 0.
    assert!(rows.iter().filter(|r| &r[2] == "0").count() >= 2);
}
