//! Configurations are interleaved trial by trial, warm-ups come first and are kept apart, and
//! every configuration in a round sees the same data.

use crate::engine::common::*;

#[test]
fn trials_interleave_and_warmups_are_kept_apart() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--trials",
            "3",
            "--warmup",
            "1",
            "--knob",
            "journal_mode=wal,off",
            "--knob",
            "synchronous=off",
        ]
        .iter()
        .chain(SMALL)
        .copied()
        .collect::<Vec<_>>(),
    );
    let trials = r["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 8);
    let order: Vec<(u64, u64, bool)> = trials
        .iter()
        .map(|t| {
            (
                t["round"].as_u64().unwrap(),
                t["config"].as_u64().unwrap(),
                t["warmup"].as_bool().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(u64, u64, bool)> = (0..4)
        .flat_map(|round| (0..2).map(move |c| (round, c, round == 0)))
        .collect();
    assert_eq!(order, expected);
    for pair in trials.chunks(2) {
        assert_eq!(pair[0]["seed"], pair[1]["seed"], "configurations in a round share data");
    }
    assert_ne!(trials[0]["seed"], trials[2]["seed"], "rounds differ");
    // Summaries count only measured trials.
    assert_eq!(row(&r, 0, "all")["trials"], 3);
    assert_eq!(r["manifest"]["seed"], 42);
}

#[test]
fn vary_one_changes_one_knob_at_a_time() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--trials",
            "1",
            "--warmup",
            "0",
            "--vary-one",
            "--knob",
            "journal_mode=memory,off",
            "--knob",
            "synchronous=normal,full",
            "--memory",
        ]
        .iter()
        .chain(SMALL)
        .copied()
        .collect::<Vec<_>>(),
    );
    let labels: Vec<&str> = r["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 3);
    assert_eq!(labels[0], "journal_mode=memory synchronous=normal");
    assert_eq!(labels[2], "journal_mode=memory synchronous=full");
}

/// `--cold` drops the page cache before every trial: the trial then reads its database from
/// the device (the kernel's `read_bytes` moves), where a warm trial reads it from memory.
#[test]
fn cold_cache_makes_trials_read_from_the_device() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        assert!(!in_ci(), "CI runs as root: --cold must be tested");
        eprintln!("skipping: --cold needs root");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let args = [
        "--trials",
        "2",
        "--warmup",
        "0",
        "--param",
        "rows=20000",
        "--param",
        "inserts=10",
        "--param",
        "updates=10",
        "--param",
        "deletes=10",
    ];
    let cold = run_json(t.path(), &[&args[..], &["--cold"]].concat());
    assert_eq!(cold["manifest"]["cold_cache"], true);
    let read = |r: &serde_json::Value| -> Vec<u64> {
        r["trials"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["kernel"]["io"]["read_bytes"].as_u64().unwrap())
            .collect()
    };
    assert!(
        read(&cold).iter().all(|b| *b > 0),
        "cold trials read from the device: {:?}",
        read(&cold)
    );
    let checklist = cold["checklist"].as_array().unwrap();
    assert!(checklist.iter().any(|c| c["value"]
        .as_str()
        .unwrap()
        .contains("page cache dropped before each trial")));
    let warm = run_json(t.path(), &args);
    assert!(
        read(&warm).iter().all(|b| *b < read(&cold)[0]),
        "warm {:?} vs cold {:?}",
        read(&warm),
        read(&cold)
    );
}

/// Duration-based measurement repeats whole insert/update/delete rounds until the measured
/// time has passed.
#[test]
fn duration_mode_repeats_rounds_until_the_time_has_passed() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &[
            "--memory",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--param",
            "rows=1000",
            "--param",
            "inserts=100",
            "--param",
            "updates=100",
            "--param",
            "deletes=100",
            "--param",
            "duration=300ms",
        ],
    );
    let trial = &r["trials"][0];
    assert!(
        trial["measured_ns"].as_u64().unwrap() >= 300_000_000,
        "{}",
        trial["measured_ns"]
    );
    let ops: Vec<u64> = trial["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["ops"].as_u64().unwrap())
        .collect();
    assert!(ops[0] > 100, "more than one round: {ops:?}");
    assert_eq!(ops[0] % 100, 0, "whole rounds only: {ops:?}");
    assert!(ops.iter().all(|n| *n == ops[0]), "{ops:?}");
    assert_eq!(r["manifest"]["params"]["duration"], "300ms");
}
