//! `--storage`: emulated delays slept after each sync (counted, and at least as long as asked),
//! the emulation's mark in the text and the JSON, the storage as an axis with the answer at
//! each value, client processes delayed alike, and the refusals. The kernel's throttle (root,
//! a loop device) is in tests/fs/storage.rs.

use crate::cli::common::*;

/// A tiny crud run: 30 commits a trial, one trial, synchronous=full in rollback mode, so each
/// commit makes its syncs (journal, main file, the journal's directory).
fn run_storage(sb: &Sandbox, storage: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "crud",
        "--param",
        "rows=100",
        "--param",
        "inserts=10",
        "--param",
        "updates=10",
        "--param",
        "deletes=10",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--knob",
        "synchronous=full",
        "--knob",
        "journal_mode=delete",
        "--storage",
        storage,
    ];
    args.extend_from_slice(extra);
    output(&mut sb.run(&args))
}

/// The syncs a trial's operations counted on the database, journal and WAL files: every
/// `xSync` and every directory sync the VFS made for them.
fn counted_syncs(io: &serde_json::Value) -> u64 {
    ["main", "journal", "wal"]
        .iter()
        .map(|c| io[c]["syncs"].as_u64().unwrap() + io[c]["dir_syncs"].as_u64().unwrap())
        .sum()
}

#[test]
fn a_2ms_sync_makes_each_commit_wait_its_counted_syncs_and_says_it_was_emulated() {
    let sb = Sandbox::new();
    let out = run_storage(&sb, "sync=2ms", &["--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let trial = &v["trials"][0];
    let io = &trial["io"];
    let syncs = counted_syncs(io);
    // 30 commits of at least two file syncs each in rollback mode with synchronous=full.
    assert!(syncs >= 60, "{syncs} syncs\n{}", describe(&out));
    let slept = &io["slept"];
    assert_eq!(
        slept["syncs"].as_u64(),
        Some(syncs),
        "every counted sync slept once: {io}"
    );
    let two_ms = 2_000_000u64;
    let slept_ns = slept["sync_ns"].as_u64().unwrap();
    assert!(slept_ns >= syncs * two_ms, "slept {slept_ns} ns for {syncs} syncs");
    assert!(
        trial["measured_ns"].as_u64().unwrap() >= syncs * two_ms,
        "the trial took {} ns for {syncs} syncs of 2 ms",
        trial["measured_ns"]
    );
    // Every commit waited for its own syncs: each operation's mean latency is at least its
    // syncs per transaction times 2 ms.
    for op in trial["ops"].as_array().unwrap() {
        let (n, op_syncs) = (op["ops"].as_u64().unwrap(), counted_syncs(&op["io"]));
        let mean_ns = op["latency"]["mean_ns"].as_f64().unwrap();
        assert!(
            mean_ns * n as f64 >= (op_syncs * two_ms) as f64,
            "{}: {n} ops, mean {mean_ns} ns, {op_syncs} syncs",
            op["name"]
        );
    }
    assert_eq!(v["manifest"]["configs"][0]["storage"]["kind"], "emulated");
    assert_eq!(v["manifest"]["configs"][0]["storage"]["spec"], "sync=2ms");
    assert_eq!(v["storage"]["emulated"], true);
    assert_eq!(v["storage"]["points"][0]["slept"]["syncs"].as_u64(), Some(syncs));
    // And in the text, under the numbers.
    let text = run_storage(&sb, "sync=2ms", &[]);
    assert_success(&text);
    let t = stdout(&text);
    assert!(t.contains("EMULATED storage"), "{t}");
    assert!(t.contains("sync=2ms: slept syncs"), "{t}");
}

/// The axis: one configuration per value, the answer at each on the first screen in order, and
/// the slower storage's commits at least as slow as its delays.
#[test]
fn the_storage_axis_gives_the_answer_at_each_value_first() {
    let sb = Sandbox::new();
    let out = run_storage(&sb, "none,sync=1ms,sync=4ms", &["--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let points = v["storage"]["points"].as_array().unwrap();
    let names: Vec<&str> = points.iter().map(|p| p["storage"].as_str().unwrap()).collect();
    assert_eq!(names, ["none", "sync=1ms", "sync=4ms"]);
    let kinds: Vec<&str> = points.iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["none", "emulated", "emulated"]);
    assert_eq!(points[0]["slept"]["syncs"], 0, "nothing slept without a delay");
    let four = &v["trials"][2];
    assert!(four["measured_ns"].as_u64().unwrap() >= counted_syncs(&four["io"]) * 4_000_000);
    let mut cmd = sb.run(&[
        "crud",
        "--param",
        "rows=100",
        "--param",
        "inserts=5",
        "--param",
        "updates=5",
        "--param",
        "deletes=5",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--storage",
        "none,sync=1ms",
    ]);
    let text = output(cmd.env("COLUMNS", "80"));
    assert_success(&text);
    let t = stdout(&text);
    let first_screen: String = t.lines().take(20).collect::<Vec<_>>().join("\n");
    assert!(
        first_screen.contains("the answer against the storage"),
        "{first_screen}"
    );
    let row = |s: &str| first_screen.lines().any(|l| l.starts_with(s) && l.contains('#'));
    assert!(row("none ") && row("sync=1ms "), "{first_screen}");
    assert!(t.lines().all(|l| l.chars().count() <= 80), "{t}");
}

/// Client processes sleep the delays too, and their slept syncs come back with their
/// operations.
#[test]
fn client_processes_are_delayed_alike() {
    let sb = Sandbox::new();
    let out = run_storage(
        &sb,
        "sync=1ms",
        &["--clients", "2", "--client-mode", "processes", "--format", "json"],
    );
    assert_success(&out);
    let v = json(&out);
    let io = &v["trials"][0]["io"];
    let syncs = counted_syncs(io);
    assert!(syncs > 0, "{io}");
    assert_eq!(io["slept"]["syncs"].as_u64(), Some(syncs), "{io}");
}

#[test]
fn what_cannot_be_emulated_or_is_not_a_storage_is_refused_in_one_line() {
    let sb = Sandbox::new();
    for (args, parts) in [
        (
            &["--storage", "sync=2ms", "--engine", "duckdb"][..],
            &["--storage sync=2ms", "engine duckdb", "VFS"][..],
        ),
        (&["--storage", "sync=2"], &["--storage sync=2", "no unit", "2ms"]),
        (
            &["--storage", "sync=lognormal(1ms)"],
            &["lognormal(1ms)", "median and a sigma", "lognormal(1ms,0.5)"],
        ),
        (
            &["--storage", "iops=3000"],
            &["--storage iops=3000", "--fs", "loop device"],
        ),
        (
            &["--storage", "fsync=1ms"],
            &["`fsync` is not a storage setting", "sync="],
        ),
        (&["--storage", "sync=1ms", "--memory"], &["--memory", "leave out one"]),
    ] {
        let mut a = vec!["crud"];
        a.extend_from_slice(args);
        let out = output(&mut sb.run(&a));
        assert_error_line(&out, parts);
    }
}

/// Issue 52: the storage a number ran on is stated under it. The checklist names each
/// configuration's storage, an emulated one as EMULATED with the delays actually slept; and
/// `compare` of a run on the disk as it is against an emulated one names the storage as what
/// differs, in the same words.
#[test]
fn the_checklist_and_compare_state_each_configurations_storage() {
    let sb = Sandbox::new();
    let out = run_storage(&sb, "none,sync=2ms", &["--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let item = v["checklist"]
        .as_array()
        .expect("a checklist")
        .iter()
        .find(|c| c["item"] == "storage emulated or throttled (--storage)")
        .unwrap_or_else(|| panic!("no storage item: {:#}", v["checklist"]));
    let value = item["value"].as_str().unwrap();
    assert!(
        value.starts_with("#0: none: the disk as it is; #1: sync=2ms: EMULATED: delays slept by litebench's VFS"),
        "{value}"
    );
    let emulated = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["config"] == 1)
        .expect("a trial of #1");
    let syncs = counted_syncs(&emulated["io"]);
    assert!(
        value.contains(&format!("slept syncs {syncs} x ")),
        "{value}, {syncs} syncs counted"
    );
    assert_eq!(item["known"], true);
    // Two stored runs, one per storage: compare states the storage by name.
    assert_success(&run_storage(&sb, "none", &[]));
    assert_success(&run_storage(&sb, "sync=2ms", &[]));
    let cmp = output(&mut sb.stored(&["compare", "2", "3", "--format", "json"]));
    assert_success(&cmp);
    let c = json(&cmp);
    let storage = c["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .find(|d| d["what"] == "storage")
        .unwrap_or_else(|| panic!("storage not among the differences: {:#}", c["differences"]));
    assert_eq!(storage["a"], "none: the disk as it is");
    assert!(
        storage["b"].as_str().unwrap().starts_with("sync=2ms: EMULATED"),
        "{storage}"
    );
}

/// A comma between the kernel's limits and an emulated delay is neither silently one value
/// nor two: one line, exit 2, naming the value and both ways to write it.
#[test]
fn a_limit_and_a_delay_joined_by_a_comma_are_refused_with_both_spellings() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["crud", "--storage", "iops=100,sync=2ms"]));
    assert_error_line(
        &out,
        &[
            "--storage iops=100,sync=2ms",
            "for two values write `iops=100;sync=2ms`",
            "write `iops=100+sync=2ms`",
        ],
    );
}

/// Issue 52, item 4: qualify's JSON keeps the sync latency's p50, p90, p99, p99.9, maximum and
/// mean, and `--storage from=` replays all six quantiles it has (not only four).
#[test]
fn qualify_keeps_six_sync_quantiles_and_from_replays_them() {
    let sb = Sandbox::new();
    let dir = sb.root().join("volume");
    std::fs::create_dir(&dir).unwrap();
    let out = output(sb.litebench().args(["qualify", "--format", "json", "--dir"]).arg(&dir));
    assert_success(&out);
    let v = json(&out);
    let s = &v["sync_latency"];
    let q: Vec<f64> = ["min_us", "median_us", "p90_us", "p99_us", "p999_us", "max_us"]
        .iter()
        .map(|k| s[k].as_f64().unwrap_or_else(|| panic!("no {k}: {s}")))
        .collect();
    assert!(q.windows(2).all(|w| w[0] <= w[1]), "{q:?}");
    let mean = s["mean_us"].as_f64().expect("a mean");
    assert!((q[0]..=q[5]).contains(&mean), "mean {mean} outside {q:?}");
    let file = sb.root().join("volume.json");
    std::fs::write(&file, stdout(&out)).unwrap();
    let from = format!("from={}", file.display());
    let run = run_storage(&sb, &from, &["--format", "json"]);
    assert_success(&run);
    let r = json(&run);
    let want: Vec<String> = q.iter().map(|x| format!("{}us", x.round() as u64)).collect();
    let spec = r["manifest"]["configs"][0]["storage"]["spec"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(spec.starts_with("sync=quantiles(") && spec.ends_with(')'), "{spec}");
    // Written back in the largest whole unit: compare as durations.
    let inner = &spec["sync=quantiles(".len()..spec.len() - 1];
    let us = |t: &str| -> u64 {
        let (n, unit) = t.split_at(t.find(|c: char| c.is_ascii_alphabetic()).unwrap());
        n.parse::<u64>().unwrap() * if unit == "ms" { 1000 } else { 1 }
    };
    let got: Vec<u64> = inner.split(',').map(us).collect();
    let want: Vec<u64> = want.iter().map(|w| us(w)).collect();
    assert_eq!(got, want, "{spec}");
    assert_eq!(r["manifest"]["configs"][0]["storage"]["kind"], "emulated");
}

/// In an open loop every configuration that keeps up achieves the rate asked, so the winner at
/// each storage value is the lowest p99 among those without failures, as the run's own answer
/// is (before: the fastest, which in an open loop is a tie broken by noise); and its failures
/// are those the run's answer counts (before: a lock's give-ups were not, so a configuration
/// that gave up on 3% of its transactions was shown winning with 0.0% failed).
#[test]
fn an_open_loops_winner_at_each_storage_is_its_lowest_p99_without_failures() {
    let sb = Sandbox::new();
    let out = run_storage(
        &sb,
        "none,sync=2ms",
        &[
            "--rate",
            "200",
            "--clients",
            "3",
            "--client-mode",
            "processes",
            "--knob",
            "busy_timeout=0,5000",
            "--format",
            "json",
        ],
    );
    assert_success(&out);
    let v = json(&out);
    let configs = v["manifest"]["configs"].as_array().unwrap();
    let rows: Vec<&serde_json::Value> = v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["operation"] == "all")
        .collect();
    let failure_pct = |r: &serde_json::Value| r["failure_pct"].as_f64().unwrap_or(0.0);
    for p in v["storage"]["points"].as_array().unwrap() {
        let storage = p["storage"].as_str().unwrap();
        let here: Vec<&&serde_json::Value> = rows
            .iter()
            .filter(|r| configs[r["config"].as_u64().unwrap() as usize]["storage"]["spec"] == storage)
            .collect();
        assert_eq!(here.len(), 2, "{storage}: {here:#?}");
        let winner = here
            .iter()
            .find(|r| r["config"] == p["best"])
            .unwrap_or_else(|| panic!("{storage}: the winner is not here: {p}"));
        let shown = p["failed_share"].as_f64().unwrap() * 100.0;
        assert!(
            (shown - failure_pct(winner)).abs() < 1e-6,
            "{storage}: {p} against {winner:#}"
        );
        let clean: Vec<f64> = here
            .iter()
            .filter(|r| failure_pct(r) == 0.0 && r["busy"].as_f64() == Some(0.0))
            .map(|r| r["latency_p99_ms_median"].as_f64().unwrap())
            .collect();
        if !clean.is_empty() {
            let lowest = clean.iter().copied().fold(f64::INFINITY, f64::min);
            assert_eq!(p["latency_p99_ms_median"].as_f64(), Some(lowest), "{storage}: {p}");
        }
    }
}
