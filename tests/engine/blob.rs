//! The `blob` workload on every engine: bytes and syncs per operation where litebench counts
//! them (SQLite through its VFS, `files` in its own calls), the WAL checkpoint a blob above the
//! autocheckpoint limit forces, and DuckDB (from litebench's cache). Sizes are tiny and every trial is
//! bounded by an operation count, so the counts per operation are exact.

use serde_json::Value;
use std::path::Path;

/// Runs `litebench run blob` with `args`; returns the JSON report.
fn blob_json(dir: &Path, args: &[&str]) -> Value {
    let out = crate::engine::common::litebench()
        .args([
            "run", "blob", "--quiet", "--format", "json", "--trials", "1", "--warmup", "0", "--dir",
        ])
        .arg(dir)
        .arg("--results")
        .arg(dir.join("r.db"))
        .args([
            "--param",
            "warmup_time=0",
            "--param",
            "operations=60",
            "--param",
            "read_ratio=0.5",
        ])
        .args(args)
        .output()
        .expect("litebench runs");
    assert!(
        out.status.success(),
        "litebench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn per_op(r: &Value, config: u64, op: &str, field: &str) -> f64 {
    let row = crate::engine::common::row(r, config, op);
    row[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} of {op} in config {config}: {row}"))
}

const SIZE: f64 = 50_000.0;

#[test]
fn files_counts_syncs_and_bytes_per_operation_at_every_durability() {
    let t = tempfile::tempdir().unwrap();
    let r = blob_json(
        t.path(),
        &[
            "--engine",
            "files",
            "--knob",
            "durability=none,data,atomic",
            "--param",
            "size=50KB",
            "--param",
            "count=3",
        ],
    );
    // (file syncs, all syncs) per write: none 0; data 1 fdatasync; atomic 1 fsync + 1 directory.
    for (config, file_syncs, syncs) in [(0, 0.0, 0.0), (1, 1.0, 1.0), (2, 1.0, 2.0)] {
        assert_eq!(per_op(&r, config, "all", "ops_per_trial"), 60.0);
        assert_eq!(
            per_op(&r, config, "write", "file_syncs_per_tx"),
            file_syncs,
            "config {config}"
        );
        assert_eq!(per_op(&r, config, "write", "syncs_per_tx"), syncs, "config {config}");
        assert_eq!(
            per_op(&r, config, "write", "write_bytes_per_tx"),
            SIZE,
            "config {config}"
        );
        assert_eq!(per_op(&r, config, "write", "read_bytes_per_tx"), 0.0, "config {config}");
        assert_eq!(per_op(&r, config, "read", "read_bytes_per_tx"), SIZE, "config {config}");
        assert_eq!(per_op(&r, config, "read", "syncs_per_tx"), 0.0, "config {config}");
        assert_eq!(per_op(&r, config, "read", "write_bytes_per_tx"), 0.0, "config {config}");
    }
    let e = &r["manifest"]["engines"][0];
    assert_eq!(
        (e["kind"].as_str(), e["io_counted"].as_bool()),
        (Some("files"), Some(true)),
        "{e}"
    );
    // The template's size on disk is allocated bytes: at least the three blobs.
    assert!(
        r["footprint"][0]["bytes"].as_u64().unwrap() >= 150_000,
        "{}",
        r["footprint"]
    );
}

#[test]
fn sqlite_sql_and_incremental_write_the_blob_with_the_same_syncs() {
    let t = tempfile::tempdir().unwrap();
    let r = blob_json(
        t.path(),
        &[
            "--knob",
            "journal_mode=delete",
            "--knob",
            "blob_api=sql,incremental",
            "--param",
            "size=50KB",
            "--param",
            "count=3",
            "--param",
            "access=sequential",
        ],
    );
    for config in [0, 1] {
        // DELETE/FULL: journal twice, its directory once, the database once.
        assert_eq!(per_op(&r, config, "write", "syncs_per_tx"), 4.0, "config {config}");
        assert_eq!(per_op(&r, config, "write", "file_syncs_per_tx"), 3.0, "config {config}");
        // The new blob reaches the database file and its old pages the journal.
        let written = per_op(&r, config, "write", "write_bytes_per_tx");
        assert!(
            (2.0 * SIZE..2.4 * SIZE).contains(&written),
            "config {config}: {written}"
        );
        assert_eq!(per_op(&r, config, "read", "syncs_per_tx"), 0.0);
    }
    let knob = |config: usize| {
        r["trials"][config]["knobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == "blob_api")
            .unwrap()["effective"]
            .clone()
    };
    assert_eq!((knob(0), knob(1)), (Value::from("sql"), Value::from("incremental")));
}

/// VLDB'22: a blob larger than the WAL autocheckpoint limit makes every write checkpoint. Here a
/// 64 KB blob against a limit of 8 pages (32 KB) and against the default 1000 pages.
#[test]
fn a_blob_above_the_wal_autocheckpoint_limit_checkpoints_on_every_write() {
    let t = tempfile::tempdir().unwrap();
    let r = blob_json(
        t.path(),
        &[
            "--knob",
            "journal_mode=wal",
            "--knob",
            "wal_autocheckpoint=8,1000",
            "--param",
            "size=64KB",
        ],
    );
    let size = 64_000.0;
    let (small, default) = (
        per_op(&r, 0, "write", "syncs_per_tx"),
        per_op(&r, 1, "write", "syncs_per_tx"),
    );
    assert!(
        small >= 3.0,
        "a checkpoint per write syncs the WAL and the database: {small}"
    );
    assert!(
        default < 1.5,
        "one WAL sync per commit, a checkpoint every ~60 writes: {default}"
    );
    // Written twice (WAL, then the database) against about once.
    let (small, default) = (
        per_op(&r, 0, "write", "write_bytes_per_tx"),
        per_op(&r, 1, "write", "write_bytes_per_tx"),
    );
    assert!(small >= 2.0 * size, "{small}");
    assert!(default < 1.5 * size && default >= size, "{default}");
}

#[test]
fn duckdb_reads_and_writes_blobs() {
    if !crate::support::require_duckdb(crate::support::DUCKDB) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let r = blob_json(
        t.path(),
        &["--engine", "duckdb", "--param", "size=50KB", "--param", "count=2"],
    );
    assert_eq!(per_op(&r, 0, "all", "ops_per_trial"), 60.0);
    // DuckDB's own I/O is not counted inside it, only what the process moved.
    assert!(crate::engine::common::row(&r, 0, "write")["syncs_per_tx"].is_null());
}
