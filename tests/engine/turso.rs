//! Turso as an engine (compiled in from the `turso_core` crate): workloads run beside SQLite,
//! knobs are set and read back, and the syncs its counting I/O layer reports are the fsync
//! calls strace sees.

use crate::engine::common::*;

fn knob<'a>(r: &'a serde_json::Value, trial: usize, name: &str) -> &'a serde_json::Value {
    r["trials"][trial]["knobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == name)
        .unwrap_or_else(|| panic!("no knob {name}"))
}

#[test]
fn crud_runs_on_turso_beside_sqlite_with_knobs_read_back_and_syncs_counted() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--engine",
            "turso",
            "--engine",
            "sqlite",
            "--knob",
            "journal_mode=wal",
            "--knob",
            "synchronous=full,off",
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
    let turso = engines.iter().find(|e| e["kind"] == "turso").unwrap();
    assert_eq!(turso["version"], "0.8.3", "{turso}");
    assert_eq!(turso["details"]["crate"], "turso_core", "{turso}");
    assert_eq!(turso["io_counted"], true);
    let labels: Vec<&str> = r["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "turso journal_mode=wal synchronous=full",
            "turso journal_mode=wal synchronous=off",
            "sqlite journal_mode=wal synchronous=full",
            "sqlite journal_mode=wal synchronous=off",
        ]
    );
    // Each configuration's trial states what Turso read back.
    for trial in r["trials"].as_array().unwrap() {
        let c = trial["config"].as_u64().unwrap() as usize;
        if c < 2 {
            let k = |n: &str| {
                trial["knobs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|k| k["name"] == n)
                    .unwrap()
                    .clone()
            };
            assert_eq!(k("journal_mode")["effective"], "wal");
            assert_eq!(k("synchronous")["effective"], if c == 0 { "full" } else { "off" });
            assert_eq!(k("begin")["effective"], "immediate");
        }
    }
    // WAL with synchronous=full: one sync per commit, counted in Turso's I/O layer, like
    // SQLite's; with synchronous=off none.
    for (config, low, high) in [(0, 0.99, 1.2), (2, 0.99, 1.2)] {
        let s = row(&r, config, "insert")["syncs_per_tx"].as_f64().unwrap();
        assert!((low..=high).contains(&s), "config {config}: {s} syncs/tx");
    }
    // synchronous=off: commits do not wait; what is left is the WAL's sync when a checkpoint
    // copies it into the database (1 in 1,000 inserts measured), far below one per commit.
    let off = row(&r, 1, "insert")["syncs_per_tx"].as_f64().unwrap();
    assert!(off < 0.1, "{off} syncs/tx at synchronous=off");
    assert_eq!(row(&r, 0, "all")["ops_per_trial"], 300.0);
    let footprint = r["footprint"].as_array().unwrap();
    assert!(
        footprint
            .iter()
            .any(|f| f["engine"] == "turso" && f["bytes"].as_u64().unwrap() > 0),
        "{footprint:?}"
    );
}

#[test]
fn turso_mvcc_is_set_and_read_back() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--engine",
            "turso",
            "--knob",
            "journal_mode=mvcc",
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
    assert_eq!(knob(&r, 0, "journal_mode")["effective"], "mvcc");
    // crud starts no transaction, so `begin` (which it would not read) is refused on it
    // (docs/knobs.md, "Which knob acts on which workload").
    // The logical log is counted with the WAL: one sync per commit at synchronous=full.
    let s = row(&r, 0, "insert")["syncs_per_tx"].as_f64().unwrap();
    assert!((0.99..=1.2).contains(&s), "{s} syncs/tx");
}

/// Turso's statement failures keep SQLite's result codes: TATP's INSERT_CALL_FORWARDING meets
/// key violations by design (the specification's expected failures), which count as
/// unsuccessful transactions, not errors.
#[test]
fn tatp_runs_on_turso_with_key_violations_as_expected_failures() {
    let t = tempfile::tempdir().unwrap();
    let out = litebench()
        .args([
            "run", "tatp", "--engine", "turso", "--quiet", "--format", "json", "--trials", "1", "--warmup", "0",
        ])
        .args([
            "--param",
            "subscribers=200",
            "--param",
            "warmup_time=100ms",
            "--param",
            "measure_time=1s",
        ])
        .arg("--dir")
        .arg(t.path())
        .arg("--results")
        .arg(t.path().join("r.db"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ops = r["trials"][0]["ops"].as_array().unwrap();
    let op = |n: &str| ops.iter().find(|o| o["name"] == n).unwrap().clone();
    let read = op("GET_SUBSCRIBER_DATA");
    assert!(read["ops"].as_u64().unwrap() > 0);
    assert_eq!(read["succeeded"], read["ops"], "{read}");
    let insert = op("INSERT_CALL_FORWARDING");
    assert!(insert["ops"].as_u64().unwrap() > 0, "{insert}");
    assert!(
        insert["succeeded"].as_u64().unwrap() < insert["ops"].as_u64().unwrap(),
        "200 subscribers: some inserts meet an existing key: {insert}"
    );
}

#[test]
fn a_journal_mode_turso_lacks_is_refused_in_one_line() {
    let t = tempfile::tempdir().unwrap();
    let out = litebench()
        .args([
            "run",
            "crud",
            "--engine",
            "turso",
            "--knob",
            "journal_mode=delete",
            "--dir",
        ])
        .arg(t.path())
        .arg("--results")
        .arg(t.path().join("r.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("journal_mode=delete") && err.contains("wal, mvcc"),
        "{err}"
    );
}
