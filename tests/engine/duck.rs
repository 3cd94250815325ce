//! DuckDB as an engine (built only with the `duckdb` feature): workloads run, knobs are set
//! and read back, and the build is a release build.

use crate::common::*;

#[test]
fn crud_runs_on_duckdb_with_one_thread_by_default() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &["--engine", "duckdb", "--trials", "2", "--warmup", "0"]
            .iter()
            .chain(SMALL)
            .copied()
            .collect::<Vec<_>>(),
    );
    let e = &r["manifest"]["engines"][0];
    assert_eq!(e["kind"], "duckdb");
    assert!(e["version"].as_str().unwrap().starts_with('v'), "{e}");
    let threads = r["trials"][0]["knobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "threads")
        .unwrap();
    assert_eq!(threads["effective"], "1", "the paper's one thread: {threads}");
    assert_eq!(row(&r, 0, "all")["ops_per_trial"], 300.0);
    let footprint = &r["footprint"][0];
    assert_eq!(footprint["rows"], 1000);
    assert!(footprint["bytes"].as_u64().unwrap() > 0);
}

#[test]
fn duckdb_knobs_are_verified() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--engine",
            "duckdb",
            "--engine",
            "sqlite",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--knob",
            "threads=2",
            "--knob",
            "memory_limit=1GB",
            "--knob",
            "journal_mode=wal",
        ]
        .iter()
        .chain(SMALL)
        .copied()
        .collect::<Vec<_>>(),
    );
    let knobs = r["trials"][0]["knobs"].as_array().unwrap();
    let get = |n: &str| knobs.iter().find(|k| k["name"] == n).unwrap().clone();
    assert_eq!(get("threads")["effective"], "2");
    assert_eq!(get("memory_limit")["requested"], "1000000000");
    assert_eq!(get("memory_limit")["effective"], "1000000000");
    // The SQLite configuration got only its own knob.
    let labels: Vec<&str> = r["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["duckdb threads=2 memory_limit=1000000000", "sqlite journal_mode=wal"]
    );
}

/// Reads really run: GET_SUBSCRIBER_DATA always finds its subscriber (success rate 100% per
/// the TATP specification); a read that fetched no fresh result would find nothing.
#[test]
fn tatp_reads_execute_on_duckdb() {
    let t = tempfile::tempdir().unwrap();
    let out = litebench()
        .args([
            "run", "tatp", "--engine", "duckdb", "--quiet", "--format", "json", "--trials", "1", "--warmup", "0",
        ])
        .args([
            "--param",
            "subscribers=200",
            "--param",
            "warmup_time=100ms",
            "--param",
            "measure_time=500ms",
        ])
        .arg("--dir")
        .arg(t.path())
        .arg("--results")
        .arg(t.path().join("r.db"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let op = r["trials"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "GET_SUBSCRIBER_DATA")
        .unwrap()
        .clone();
    assert!(op["ops"].as_u64().unwrap() > 0);
    assert_eq!(op["succeeded"], op["ops"], "{op}");
}
