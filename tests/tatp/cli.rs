//! `litebench run tatp` end to end: SQLite in DELETE and WAL mode, two clients on WAL (lock
//! contention counted, not fatal), and bad input refused with exit code 2 and one line naming
//! the parameter and its valid range.

use crate::tatp::common::bin;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// `litebench run tatp` on 1,000 subscribers for a short measured second, JSON out, in `dir`.
fn run(dir: &Path, extra: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(dir)
        .env("LITEBENCH_RESULTS", dir.join("default-results.db"))
        .args([
            "run",
            "tatp",
            "--param",
            "subscribers=1000",
            "--param",
            "warmup_time=200ms",
            "--param",
            "measure_time=1s",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--format",
            "json",
            "--dir",
        ])
        .arg(dir)
        .arg("--results")
        .arg(dir.join("r.db"))
        .args(extra)
        .output()
        .expect("run litebench")
}

fn describe(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("litebench-tatp-cli-")
        .tempdir()
        .expect("temporary directory")
}

/// Runs and parses the JSON report of a run that must succeed.
fn report(extra: &[&str]) -> Value {
    let dir = tempdir();
    let out = run(dir.path(), extra);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", describe(&out)))
}

fn row<'a>(r: &'a Value, op: &str) -> &'a Value {
    r["summary"]
        .as_array()
        .expect("summary")
        .iter()
        .find(|x| x["operation"] == op)
        .unwrap_or_else(|| panic!("no summary row for {op}"))
}

const TXNS: [&str; 7] = [
    "GET_SUBSCRIBER_DATA",
    "GET_NEW_DESTINATION",
    "GET_ACCESS_DATA",
    "UPDATE_SUBSCRIBER_DATA",
    "UPDATE_LOCATION",
    "INSERT_CALL_FORWARDING",
    "DELETE_CALL_FORWARDING",
];

/// What every tatp report must show: all seven types, success counted, throughput of all and
/// of successful transactions, latency percentiles, a measured interval of about 1 s.
fn assert_tatp_report(r: &Value) {
    assert_eq!(r["manifest"]["workload"], "tatp");
    let all = row(r, "all");
    assert!(all["ops_per_trial"].as_f64().unwrap() > 0.0, "{all}");
    assert!(all["tps_median"].as_f64().unwrap() >= all["tps_success_median"].as_f64().unwrap());
    let rate = all["success_rate"].as_f64().unwrap();
    assert!(rate > 0.5 && rate < 0.95, "overall success rate {rate}");
    for t in TXNS {
        let x = row(r, t);
        assert!(
            x["latency_p50_us"].as_f64().unwrap() > 0.0 || x["ops_per_trial"] == 0.0,
            "{x}"
        );
        assert!(x.get("busy").is_some() && x.get("success_rate").is_some(), "{x}");
    }
    for t in ["GET_SUBSCRIBER_DATA", "UPDATE_LOCATION"] {
        let x = row(r, t);
        if x["ops_per_trial"].as_f64().unwrap() > 0.0 {
            assert_eq!(x["success_rate"].as_f64(), Some(1.0), "{t}: {x}");
        }
    }
    let trial = &r["trials"][0];
    let measured = trial["measured_ns"].as_u64().unwrap();
    assert!(
        (1_000_000_000..1_500_000_000).contains(&measured),
        "measured {measured} ns"
    );
    for o in trial["ops"].as_array().unwrap() {
        assert_eq!(
            o["elapsed_ns"].as_u64().unwrap(),
            measured,
            "mixed workload: one interval"
        );
        assert_eq!(o["busy"], o["failed"], "{o}");
        assert!(o["succeeded"].as_u64().unwrap() <= o["ops"].as_u64().unwrap());
    }
    let warnings: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("does not behave as the TATP specification says")),
        "{warnings:#?}"
    );
}

#[test]
fn sqlite_delete_mode() {
    let r = report(&["--knob", "journal_mode=delete"]);
    assert_tatp_report(&r);
    assert_eq!(row(&r, "all")["busy"], 0.0);
    let fp = &r["footprint"][0];
    assert!(fp["rows"].as_u64().unwrap() > 5000, "{fp}");
}

#[test]
fn sqlite_wal_mode() {
    let r = report(&["--knob", "journal_mode=wal"]);
    assert_tatp_report(&r);
    assert_eq!(row(&r, "all")["busy"], 0.0);
}

#[test]
fn one_client_hashes_its_first_results_alike_in_every_configuration() {
    // Two configurations of one round share the seed: the same transactions, the same answers.
    let r = report(&["--knob", "journal_mode=delete,wal", "--knob", "synchronous=off"]);
    let hashes: Vec<&Value> = r["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["result_hash"])
        .collect();
    assert_eq!(hashes.len(), 2);
    assert_eq!(hashes[0].as_str().map(str::len), Some(64), "{hashes:?}");
    assert_eq!(hashes[0], hashes[1], "the journal mode changed an answer");
    // TATP's closed loop runs on the load driver but keeps the records it always had: no
    // time series.
    for t in r["trials"].as_array().unwrap() {
        assert!(t.get("series").is_none_or(Value::is_null), "{}", t["series"]);
    }
}

#[test]
fn two_clients_on_wal_count_lock_contention() {
    let r = report(&["--knob", "journal_mode=wal", "--param", "clients=2"]);
    assert_tatp_report(&r);
    assert_eq!(r["manifest"]["params"]["clients"], 2);
    // Interleaved clients make no reproducible answers: no result hash.
    assert!(
        r["trials"][0]["result_hash"].is_null(),
        "{}",
        r["trials"][0]["result_hash"]
    );
    // Contention is counted per type, never fatal; if there was any, the report says so.
    let busy: u64 = r["trials"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["busy"].as_u64().unwrap())
        .sum();
    let warned = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .any(|w| w.contains("rolled back on lock contention"));
    assert_eq!(busy > 0, warned, "busy {busy}, warned {warned}");
}

/// A refused command: exit code 2, nothing on stdout, one line on stderr with every part.
fn refused(extra: &[&str], parts: &[&str]) {
    let dir = tempdir();
    let out = run(dir.path(), extra);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(out.stdout.is_empty(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{}", describe(&out));
    assert!(lines[0].starts_with("error: "), "{}", describe(&out));
    for p in parts {
        assert!(lines[0].contains(p), "missing {p:?}: {}", describe(&out));
    }
    assert!(!err.contains("panicked"), "{}", describe(&out));
}

#[test]
fn bad_input_names_the_parameter_and_range() {
    refused(
        &["--param", "subscribers=0"],
        &["--param subscribers=0", "an integer from 1 to 1000000000"],
    );
    refused(
        &["--param", "clients=0"],
        &["--param clients=0", "an integer from 1 to 1024"],
    );
    refused(
        &["--param", "warmup_time=0"],
        &["--param warmup_time=0", "a duration greater than zero"],
    );
    refused(
        &["--param", "measure_time=0ms"],
        &["--param measure_time=0ms", "a duration greater than zero"],
    );
    refused(
        &["--param", "weight.GET_EVERYTHING=5"],
        &[
            "--param weight.GET_EVERYTHING",
            "no such parameter",
            "weight.GET_SUBSCRIBER_DATA",
        ],
    );
    refused(
        &["--param", "weight.GET_ACCESS_DATA=x"],
        &["--param weight.GET_ACCESS_DATA=x", "an integer from 0 to 1000000"],
    );
    let mut zero = Vec::new();
    for t in TXNS {
        zero.push("--param".to_string());
        zero.push(format!("weight.{t}=0"));
    }
    let zero: Vec<&str> = zero.iter().map(String::as_str).collect();
    refused(&zero, &["weight.*", "sum to zero", "from 1 to 1000000"]);
}
