//! `litebench run ycsb` end to end through the load driver: two clients in a closed loop and in
//! an open loop at a target rate, every operation the workload draws recorded; and `--clients`
//! refused on a workload that runs one ordered script.

use crate::cli::common::*;

/// `litebench run ycsb` of workload A on 200 records, 400 operations, two clients, JSON out.
fn run_a(sb: &Sandbox, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "ycsb",
        "--param",
        "workload=a",
        "--param",
        "records=200",
        "--param",
        "operations=400",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--clients",
        "2",
        "--quiet",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    json(&out)
}

/// The trial's operations by name: `(ops, succeeded, busy)`.
fn ops(v: &serde_json::Value) -> Vec<(String, u64, u64, u64)> {
    let trials = v["trials"].as_array().expect("trials");
    assert_eq!(trials.len(), 1, "--trials 1 --warmup 0");
    trials[0]["ops"]
        .as_array()
        .expect("ops")
        .iter()
        .map(|o| {
            let n = |k: &str| o[k].as_u64().unwrap_or_else(|| panic!("{k} in {o}"));
            (
                o["name"].as_str().unwrap().to_string(),
                n("ops"),
                n("succeeded"),
                n("busy"),
            )
        })
        .collect()
}

/// Workload A: reads and updates only, every one of the 400 either done or given up on a lock.
fn assert_workload_a(v: &serde_json::Value) {
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    assert_eq!(v["manifest"]["workload"], "ycsb");
    assert_eq!(v["manifest"]["params"]["workload"], "a");
    let ops = ops(v);
    let names: Vec<&str> = ops.iter().map(|o| o.0.as_str()).collect();
    assert_eq!(names, ["read", "update", "insert", "scan", "read-modify-write"]);
    for (name, n, succeeded, _) in &ops {
        match name.as_str() {
            "read" | "update" => assert!(*n > 0, "{name}: no operations in {ops:?}"),
            _ => assert_eq!(*n, 0, "workload a draws no {name}"),
        }
        // Every key a client chooses exists: a completed read or update finds its record.
        assert_eq!(succeeded, n, "{name}: {ops:?}");
    }
    let total: u64 = ops.iter().map(|o| o.1 + o.3).sum();
    assert_eq!(total, 400, "every operation completed or counted busy: {ops:?}");
}

#[test]
fn two_clients_in_a_closed_loop_run_workload_a() {
    let sb = Sandbox::new();
    let v = run_a(&sb, &[]);
    assert_workload_a(&v);
    assert_eq!(v["manifest"]["load"]["clients"], 2, "{:#}", v["manifest"]);
    sb.assert_clean("after a ycsb run");
}

#[test]
fn two_clients_in_an_open_loop_run_workload_a() {
    let sb = Sandbox::new();
    // SQLite's own busy_timeout of 0 (not the workload's default 5000): every scheduled
    // operation is then done or given up within the 0.2 s the count takes at the rate, where
    // waiting for the other client's synced update would leave some unstarted at the end.
    let v = run_a(&sb, &["--rate", "2000", "--knob", "busy_timeout=0"]);
    assert_workload_a(&v);
    assert_eq!(v["manifest"]["load"]["rate"], 2000.0, "{:#}", v["manifest"]);
    // An open loop records how late each transaction started against its schedule.
    let trial = &v["trials"][0]["ops"][0];
    assert!(trial.get("lag").is_some_and(|l| !l.is_null()), "{trial}");
    sb.assert_clean("after an open-loop ycsb run");
}

#[test]
fn clients_on_a_suite_workload_are_refused() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["speedtest", "--trials", "1", "--warmup", "0", "--clients", "2"]));
    assert_error_line(&out, &["--clients 2", "speedtest", "one client", "ycsb"]);
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "nothing created");
}
