//! DuckDB as an engine, loaded from litebench's cache (`tests/engine/fetch-duckdb.sh` puts the
//! pinned releases there; in CI a missing one fails): workloads run, knobs are set and read
//! back, and two releases run side by side in one run.

use crate::engine::common::*;
use crate::support::{require_duckdb, DUCKDB};

#[test]
fn crud_runs_on_duckdb_with_one_thread_by_default() {
    if !require_duckdb(DUCKDB) {
        return;
    }
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
    if !require_duckdb(DUCKDB) {
        return;
    }
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
    if !require_duckdb(DUCKDB) {
        return;
    }
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

/// Two DuckDB releases in one run, like two SQLite builds: each configuration runs on its own
/// library and states its own version and source id.
#[test]
fn two_duckdb_releases_run_side_by_side() {
    if !require_duckdb("1.4.0") || !require_duckdb(DUCKDB) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--engine",
            "duckdb@1.4.0",
            "--engine",
            "duckdb",
            "--trials",
            "1",
            "--warmup",
            "0",
        ]
        .iter()
        .chain(SMALL)
        .copied()
        .collect::<Vec<_>>(),
    );
    let engines = r["manifest"]["engines"].as_array().unwrap();
    let stated: Vec<(&str, &str)> = engines
        .iter()
        .map(|e| (e["label"].as_str().unwrap(), e["version"].as_str().unwrap()))
        .collect();
    assert_eq!(stated, [("duckdb@1.4.0", "v1.4.0"), ("duckdb", &*format!("v{DUCKDB}"))]);
    let sources: Vec<&str> = engines
        .iter()
        .map(|e| e["details"]["source_id"].as_str().unwrap())
        .collect();
    assert!(sources[0] != sources[1] && !sources[0].is_empty(), "{sources:?}");
    for e in engines {
        assert!(e["details"]["library_bytes"].as_u64().unwrap() > 10 << 20, "{e}");
        assert!(e["details"]["package"]
            .as_str()
            .unwrap()
            .starts_with("@duckdb/node-bindings-linux-x64@"));
        assert_eq!(e["details"]["registry"], "npm");
    }
    for config in [0, 1] {
        assert_eq!(row(&r, config, "all")["ops_per_trial"], 300.0);
    }
}

/// A library named by path is used as it is, under its path.
#[test]
fn a_duckdb_library_by_path() {
    if !require_duckdb(DUCKDB) {
        return;
    }
    let lib = crate::support::duckdb_library(DUCKDB).unwrap();
    let t = tempfile::tempdir().unwrap();
    let spec = format!("duckdb:{}", lib.display());
    let r = run_json(
        t.path(),
        &["--engine", &spec, "--trials", "1", "--warmup", "0"]
            .iter()
            .chain(SMALL)
            .copied()
            .collect::<Vec<_>>(),
    );
    let e = &r["manifest"]["engines"][0];
    assert_eq!(e["label"], spec);
    assert_eq!(e["details"]["library"], lib.display().to_string());
    assert!(e["details"].get("package").is_none(), "{e}");
}

/// DuckDB 2.0.0, the release the `duckdb` crate compiled until DuckDB was loaded at run time:
/// its PyPI wheel's Python module, loaded after libpython3.11, runs workloads like any release.
#[test]
fn duckdb_2_runs_from_its_python_module() {
    if !require_duckdb("2.0.0")
        || !crate::engine::common::require("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", "libpython3.11")
    {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &["--engine", "duckdb@2.0.0", "--trials", "1", "--warmup", "0"]
            .iter()
            .chain(SMALL)
            .copied()
            .collect::<Vec<_>>(),
    );
    let e = &r["manifest"]["engines"][0];
    assert_eq!(
        (&e["label"], &e["version"]),
        (&"duckdb@2.0.0".into(), &"v2.0.0".into()),
        "{e}"
    );
    assert_eq!(e["details"]["registry"], "PyPI");
    assert_eq!(e["details"]["loaded_first"], "libpython3.11.so.1.0");
    assert_eq!(row(&r, 0, "all")["ops_per_trial"], 300.0);
}
