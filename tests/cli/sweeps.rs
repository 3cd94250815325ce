//! Sweeps (issue 34): `--clients 1,2`, `--rate 100,300` and `--client-mode threads,processes`
//! are axes like knobs, a configuration per value interleaved trial by trial, with the scaling
//! curve in every report; a bad list is refused in one line before anything runs, and a value
//! an engine or the run cannot take skips its configurations with one warning.

use crate::cli::common::*;

/// The one-line refusals of a bad sweep, each before anything is created.
#[test]
fn bad_sweeps_are_refused_in_one_line() {
    let once = "takes one value, not a list (only --clients, --rate, --client-mode and --connections sweep); give one value, or run once per value; `litebench run --help` lists the valid arguments";
    let cases: Vec<(&[&str], String)> = vec![
        (
            &["--clients", "1,2,2"],
            "error: invalid value '1,2,2' for '--clients <N[,N...]>': 2 is given twice; give each value once, e.g. --clients 1,2,4,8; `litebench run --help` lists the valid arguments".into(),
        ),
        (
            &["--clients", "0,2"],
            "error: invalid value '0,2' for '--clients <N[,N...]>': 0: give a number of clients from 1 to 1024; `litebench run --help` lists the valid arguments".into(),
        ),
        (
            &["--clients", "1,,2"],
            "error: invalid value '1,,2' for '--clients <N[,N...]>': an empty value in the list; give values separated by single commas, e.g. --clients 1,2,4,8; `litebench run --help` lists the valid arguments".into(),
        ),
        (
            &["--rate", "100,100"],
            "error: invalid value '100,100' for '--rate <TPS[,TPS...]>': 100 is given twice; give each value once, e.g. --rate 100,300,1000; `litebench run --help` lists the valid arguments".into(),
        ),
        (
            &["--client-mode", "threads,threads"],
            "error: invalid value 'threads,threads' for '--client-mode <MODE[,MODE...]>': threads is given twice; give each value once, e.g. --client-mode threads,processes; `litebench run --help` lists the valid arguments".into(),
        ),
        (
            &["--max-tries", "1,2"],
            format!("error: invalid value '1,2' for '--max-tries <N>': {once}"),
        ),
        (
            &["--rate", "100", "--latency-limit", "5ms,10ms"],
            format!("error: invalid value '5ms,10ms' for '--latency-limit <DURATION>': {once}"),
        ),
        (
            &["--arrival", "poisson,uniform"],
            format!("error: invalid value 'poisson,uniform' for '--arrival <ARRIVAL>': {once}"),
        ),
        (
            &["--interval", "1s,2s"],
            format!("error: invalid value '1s,2s' for '--interval <DURATION>': {once}"),
        ),
    ];
    for (extra, line) in cases {
        let sb = Sandbox::new();
        let mut cmd = sb.run(SMALLEST_CRUD);
        cmd.args(extra);
        assert_eq!(assert_error_line(&output(&mut cmd), &[]), line, "{extra:?}");
        assert_eq!(
            listing(&sb.scratch()),
            Vec::<String>::new(),
            "{extra:?}: --dir is not empty"
        );
    }
    // A workload that runs one ordered script, and TATP's clients given twice.
    let sb = Sandbox::new();
    let mut cmd = sb.run(&["speedtest", "--param", "scale_percent=1", "--clients", "1,2"]);
    assert_error_line(
        &output(&mut cmd),
        &["--clients 1,2: workload speedtest runs its operations as one ordered script"],
    );
    let mut cmd = sb.run(&["tatp", "--clients", "1,2", "--param", "clients=2"]);
    assert_eq!(
        assert_error_line(&output(&mut cmd), &[]),
        "error: --clients 1,2 and --param clients=2: give the clients once, as the sweep --clients 1,2"
    );
    // Every value refused: the refusal without a sweep, nothing skipped.
    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.args(["--clients", "2,4", "--memory"]);
    assert_error_line(&output(&mut cmd), &["--clients 2: with --memory"]);
}

/// `--clients 1,2`: two configurations named after their value, each with its load shape in
/// the manifest, run alternately; the curve in JSON and, its line first, in the terminal.
#[test]
fn a_clients_sweep_runs_interleaved_configurations_and_draws_the_curve() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "crud",
        "--param",
        "rows=50",
        "--param",
        "inserts=20",
        "--param",
        "updates=20",
        "--param",
        "deletes=20",
        "--trials",
        "2",
        "--warmup",
        "0",
        "--quiet",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "busy_timeout=10000",
        "--clients",
        "1,2",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let configs = v["manifest"]["configs"].as_array().unwrap();
    let labels: Vec<&str> = configs.iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "journal_mode=wal busy_timeout=10000 clients=1",
            "journal_mode=wal busy_timeout=10000 clients=2"
        ]
    );
    for (i, c) in configs.iter().enumerate() {
        assert_eq!(c["load"]["clients"], i + 1, "{c}");
        assert_eq!(c["load"]["sweep"], true, "{c}");
    }
    // Interleaved trial by trial, as knob configurations are.
    let order: Vec<u64> = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["config"].as_u64().unwrap())
        .collect();
    assert_eq!(order, [0, 1, 0, 1]);
    let curve = &v["curves"][0];
    assert_eq!(curve["axis"], "clients", "{curve}");
    let points = curve["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{curve}");
    assert_eq!(
        (points[0]["value"].as_f64(), points[1]["value"].as_f64()),
        (Some(1.0), Some(2.0))
    );
    assert!(
        points[0]["step"].is_null() && points[1]["step"]["ratio"].as_f64().unwrap() > 0.0,
        "{curve}"
    );
    assert!(
        points.iter().all(|p| p["tps_median"].as_f64().unwrap() > 0.0),
        "{curve}"
    );
    let line = curve["line"].as_str().unwrap();
    assert!(
        line.starts_with("scaling stops at 2 clients") || line.starts_with("throughput rises at every step"),
        "{line}"
    );
    // The terminal: the line, then the table, within 80 columns.
    let text = stdout(&output(sb.show(&[]).env("COLUMNS", "80")));
    // The line comes first (wrapped at the width), then the table.
    let at = text
        .find("scaling: ")
        .unwrap_or_else(|| panic!("no curve line\n{text}"));
    let head = text[at..]
        .find("\nclients  tx/s")
        .unwrap_or_else(|| panic!("no curve table\n{text}"));
    let words: Vec<&str> = text[at..at + head].split_whitespace().collect();
    assert_eq!(words.join(" "), format!("scaling: {line}"), "{text}");
    let table: Vec<&str> = text[at + head + 1..].lines().take(4).collect();
    assert!(table[2].starts_with("1 ") && table[3].starts_with("2 "), "{text}");
    // The header says what the run did: not "1 client" beside the clients it swept.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("seed 42, closed loop; swept: clients 1,2, results "),
        "{text}"
    );
    assert!(!flat.contains("1 client;"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    // A run without a sweep has no curve and no per-configuration load.
    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.args(["--clients", "2", "--format", "json"]);
    let v = json(&output(&mut cmd));
    assert!(
        v.get("curves").is_none() && v["manifest"]["configs"][0].get("load").is_none(),
        "{v}"
    );
    assert!(
        v["manifest"]["load"].get("sweep").is_none(),
        "{}",
        v["manifest"]["load"]
    );
}

/// A value the run cannot take (several clients on in-memory databases) skips its
/// configurations with one warning; processes on DuckDB do the same beside SQLite's.
#[test]
fn a_refused_axis_value_is_skipped_with_one_warning() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.args(["--clients", "1,2,4", "--memory", "--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let warnings: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| l.starts_with("warning: clients="))
        .map(String::from)
        .collect();
    assert_eq!(
        warnings,
        ["warning: clients=2, clients=4 skipped: --clients 2: with --memory each connection would have a database of its own; leave out --memory or use --clients 1"]
    );
    let v = json(&out);
    assert_eq!(
        v["manifest"]["configs"].as_array().unwrap().len(),
        1,
        "{}",
        v["manifest"]["configs"]
    );
    if !crate::support::require_duckdb(crate::support::DUCKDB) {
        return;
    }
    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.args([
        "--engine",
        "sqlite",
        "--engine",
        "duckdb",
        "--clients",
        "2",
        "--client-mode",
        "threads,processes",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let err = stderr(&out);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("skipped")).collect();
    assert_eq!(
        warnings,
        ["warning: engine duckdb: client_mode=processes skipped: --client-mode processes: engine duckdb: DuckDB cannot share a database file between writer processes; use --client-mode threads for it"]
    );
    let v = json(&out);
    let labels: Vec<&str> = v["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 3, "{labels:?}");
    assert!(
        labels
            .iter()
            .filter(|l| l.contains("client_mode=processes"))
            .all(|l| l.starts_with("sqlite")),
        "{labels:?}"
    );
}

/// A rate sweep's trials stop alike: on time, as long as the count takes at the lowest rate
/// whatever the order of the rates; on a count, each rate's trials take their own time, which
/// the plan adds up.
#[test]
fn a_rate_sweeps_default_duration_is_the_lowest_rates_and_the_plan_times_each_rate() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["ycsb", "--rate", "400,200", "--dry-run"]));
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("each trial stops after 50 s (--param duration=50000ms"),
        "10000 operations at 200 tx/s: {text}"
    );
    let out = output(&mut sb.run(&["ycsb", "--rate", "400,200", "--param", "operations=100", "--dry-run"]));
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("22 trials of 250 ms to 500 ms (each rate's count) = 8250 ms of trials"),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}

/// `--connections per-client,shared` (issue 35): two configurations, interleaved, the shared
/// one's clients on one connection, one transaction at a time. With busy_timeout=0 four writers
/// on connections of their own meet each other's locks and give up; on one shared connection no
/// transaction can meet another client's lock, so none gives up and every one is counted.
#[test]
fn shared_connections_run_the_clients_one_transaction_at_a_time_on_one_connection() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "crud",
        "--param",
        "rows=100",
        "--param",
        "inserts=1000",
        "--param",
        "updates=1000",
        "--param",
        "deletes=0",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "busy_timeout=0",
        "--clients",
        "4",
        "--connections",
        "per-client,shared",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let configs = v["manifest"]["configs"].as_array().unwrap();
    let labels: Vec<&str> = configs.iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "journal_mode=wal busy_timeout=0 connections=per-client",
            "journal_mode=wal busy_timeout=0 connections=shared"
        ]
    );
    // Per-client is the default and stays out of the record; shared is said.
    assert!(configs[0]["load"].get("connections").is_none(), "{}", configs[0]);
    assert_eq!(configs[1]["load"]["connections"], "shared", "{}", configs[1]);
    let busy = |config: u64| -> (u64, u64) {
        let t = v["trials"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["config"] == config)
            .unwrap();
        let ops = t["ops"].as_array().unwrap();
        let sum = |k: &str| ops.iter().map(|o| o[k].as_u64().unwrap_or(0)).sum::<u64>();
        (sum("busy"), sum("succeeded"))
    };
    let (per_client_busy, _) = busy(0);
    let (shared_busy, shared_ok) = busy(1);
    assert!(
        per_client_busy > 0,
        "four writers on their own connections never met a lock"
    );
    assert_eq!((shared_busy, shared_ok), (0, 2000), "one shared connection met a lock");
    let text = stdout(&output(&mut sb.show(&["--all"])));
    assert!(text.contains("swept: connections per-client,shared"), "{text}");
    // A shared connection with client processes, or with one client, or on another engine.
    for (extra, line) in [
        (
            &["--clients", "4", "--connections", "shared", "--client-mode", "processes"][..],
            "error: --connections shared with --client-mode processes: a connection cannot be shared between processes; use --client-mode threads, or --connections per-client",
        ),
        (
            &["--connections", "shared"][..],
            "error: --connections shared with --clients 1: one client has one connection either way; give --clients 2 or more, or leave out --connections",
        ),
        (
            &["--clients", "2", "--connections", "shared", "--engine", "duckdb"][..],
            "error: --connections shared: engine duckdb: only SQLite engines share one connection between client threads; use --connections per-client for it",
        ),
        (
            &["--connections", "one"][..],
            "error: invalid value 'one' for '--connections <HOW[,HOW...]>': give per-client or shared; `litebench run --help` lists the valid arguments",
        ),
    ] {
        let sb = Sandbox::new();
        let mut cmd = sb.run(SMALLEST_CRUD);
        cmd.args(extra);
        assert_eq!(assert_error_line(&output(&mut cmd), &[]), line, "{extra:?}");
        assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "{extra:?}");
    }
}
