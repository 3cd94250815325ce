//! The VFS shim's sync count equals the fsync/fdatasync system calls strace sees.
//!
//! strace runs with `-f -y`, so each sync names the file or directory it synced; only syncs on
//! paths inside the run's `--dir` are counted (the results store and litebench's own sync
//! latency probe, `.litebench-synctest-*`, are outside the comparison). Expected: strace count
//! == VFS file syncs + inferred directory syncs (templates included) + litebench's own syncs of
//! trial copies. Tolerance: none — the counts must be equal.

use crate::engine::common::*;
use std::path::Path;

struct Traced {
    report: serde_json::Value,
    fsync: u64,
    fdatasync: u64,
}

fn traced_run(dir: &Path, engine: &str, knobs: &[&str]) -> Traced {
    let trace = dir.join("trace.txt");
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    let out = std::process::Command::new("strace")
        .args(["-f", "-y", "-e", "trace=fsync,fdatasync", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_litebench"))
        .args([
            "run", "crud", "--quiet", "--format", "json", "--trials", "2", "--warmup", "1", "--engine", engine, "--dir",
        ])
        .arg(&work)
        .arg("--results")
        .arg(dir.join("r.db"))
        .args(SMALL)
        .args(knobs)
        .output()
        .expect("strace runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(&trace).unwrap();
    let canon = work.canonicalize().unwrap().display().to_string();
    let (mut fsync, mut fdatasync) = (0, 0);
    for line in text.lines() {
        let inside = line.contains(&format!("<{canon}/")) && !line.contains(".litebench-synctest");
        if !inside || line.contains("resumed>") && !line.contains("= 0") {
            continue;
        }
        if line.contains("fdatasync(") {
            fdatasync += 1;
        } else if line.contains("fsync(") {
            fsync += 1;
        }
    }
    Traced {
        report,
        fsync,
        fdatasync,
    }
}

fn check(engine: &str, knobs: &[&str]) -> Option<Traced> {
    if !require("/usr/bin/strace", "strace") {
        return None;
    }
    let t = tempfile::tempdir().unwrap();
    let traced = traced_run(t.path(), engine, knobs);
    let ps = &traced.report["process_syncs"];
    let expected = ps["vfs"].as_u64().unwrap() + ps["harness"].as_u64().unwrap();
    assert!(expected > 0, "the workload should sync");
    assert_eq!(
        traced.fsync + traced.fdatasync,
        expected,
        "{engine} {knobs:?}: strace saw {} fsync + {} fdatasync, litebench counted {ps}",
        traced.fsync,
        traced.fdatasync
    );
    Some(traced)
}

#[test]
fn delete_mode_syncs_match_strace_and_use_fdatasync() {
    let Some(t) = check(
        "sqlite",
        &["--knob", "journal_mode=delete", "--knob", "synchronous=full"],
    ) else {
        return;
    };
    // HAVE_FDATASYNC=1 is part of the bundled build: no plain fsync on workload files.
    assert_eq!(t.fsync, 0, "bundled SQLite must use fdatasync");
}

#[test]
fn wal_mode_syncs_match_strace() {
    check("sqlite", &["--knob", "journal_mode=wal", "--knob", "synchronous=full"]);
}

#[test]
fn debian_build_syncs_match_strace() {
    if !require(DEBIAN_SQLITE, "libsqlite3-0") {
        return;
    }
    check(
        &format!("sqlite:{DEBIAN_SQLITE}"),
        &["--knob", "journal_mode=delete,wal"],
    );
}

/// APSys'17: "For a workload of 1000 SQLite inserts, 1000 fsync() calls were issued in WAL mode,
/// while 5000 fsync() calls were issued in DELETE mode." On Linux with the unix VFS, litebench
/// counts 4 per insert in DELETE/FULL (journal twice, the directory once, the database once) and
/// 1 per insert in WAL/FULL (plus a checkpoint's two every ~1000 WAL pages).
#[test]
fn per_transaction_syncs_reproduce_the_papers_observation() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--trials",
            "1",
            "--warmup",
            "0",
            "--param",
            "rows=1000",
            "--param",
            "inserts=1000",
            "--param",
            "updates=0",
            "--param",
            "deletes=0",
            "--knob",
            "journal_mode=delete,wal",
            "--knob",
            "synchronous=full",
        ],
    );
    let delete = row(&r, 0, "insert");
    let wal = row(&r, 1, "insert");
    assert_eq!(delete["ops_per_trial"], 1000.0);
    assert_eq!(delete["syncs_per_tx"].as_f64().unwrap(), 4.0, "{delete}");
    assert_eq!(delete["file_syncs_per_tx"].as_f64().unwrap(), 3.0);
    let w = wal["syncs_per_tx"].as_f64().unwrap();
    assert!((1.0..1.02).contains(&w), "WAL/FULL syncs per insert: {w}");
    // WAL/NORMAL syncs only at checkpoints.
    let r = run_json(
        t.path(),
        &[
            "--trials",
            "1",
            "--warmup",
            "0",
            "--param",
            "rows=1000",
            "--knob",
            "journal_mode=wal",
            "--knob",
            "synchronous=normal",
        ],
    );
    assert!(row(&r, 0, "all")["syncs_per_tx"].as_f64().unwrap() < 0.05);
}

/// Updates must write: an update that stores identical bytes does no I/O at all.
#[test]
fn updates_and_deletes_do_io() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &["--trials", "1", "--warmup", "0", "--knob", "journal_mode=delete"]
            .iter()
            .chain(SMALL)
            .copied()
            .collect::<Vec<_>>(),
    );
    for op in ["update", "delete"] {
        let x = row(&r, 0, op);
        assert_eq!(x["syncs_per_tx"].as_f64().unwrap(), 4.0, "{op}: {x}");
        assert!(x["write_bytes_per_tx"].as_f64().unwrap() >= 4096.0, "{op}: {x}");
    }
}

/// Trial copies are made of their own blocks: no `copy_file_range`, `sendfile` or clone ioctl
/// (which on XFS and btrfs would share the template's extents) on any file of the run.
#[test]
fn trial_copies_are_plain_copies_not_reflinks() {
    if !require("/usr/bin/strace", "strace") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.txt");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = std::process::Command::new("strace")
        .args(["-f", "-y", "-e", "trace=copy_file_range,sendfile,ioctl,openat", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_litebench"))
        .args(["run", "crud", "--quiet", "--trials", "2", "--warmup", "0", "--dir"])
        .arg(&work)
        .arg("--results")
        .arg(dir.path().join("r.db"))
        .args(SMALL)
        .output()
        .expect("strace runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&trace).unwrap();
    let canon = work.canonicalize().unwrap().display().to_string();
    // The trial copies were opened for writing (so the trace did see the run's files) ...
    assert!(
        text.lines()
            .any(|l| l.contains("openat(") && l.contains(&canon) && l.contains("O_TRUNC")),
        "no trial copy opened in the trace"
    );
    // ... and none was made by sharing extents or by kernel-side copying.
    for l in text.lines().filter(|l| l.contains(&canon)) {
        assert!(
            !l.contains("copy_file_range(") && !l.contains("sendfile(") && !l.contains("FICLONE"),
            "{l}"
        );
    }
}

/// Turso's syncs are counted in its own I/O layer (litebench's wrapper), not a SQLite VFS: the
/// count must still be every sync system call on the run's files. Turso's Unix backend issues
/// fsync, never fdatasync, so its syncs are exactly strace's fsync calls, and the fdatasync calls
/// are litebench's own syncs of the trial copies.
#[test]
fn turso_syncs_match_strace_and_use_fsync() {
    let Some(t) = check("turso", &["--knob", "synchronous=full"]) else {
        return;
    };
    let ps = &t.report["process_syncs"];
    assert_eq!(t.fsync, ps["vfs"].as_u64().unwrap(), "{ps}");
    assert_eq!(t.fdatasync, ps["harness"].as_u64().unwrap(), "{ps}");
}
