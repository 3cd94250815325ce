//! Latency and failures as metrics (issue 32, items 2 and 3): an open loop where one
//! configuration loses transactions to "database is locked" (DELETE, `busy_timeout=0`) and
//! another none (WAL, `busy_timeout=5000`, the script's `BEGIN IMMEDIATE` waiting for the lock).
//! `show --metric p99`, `compare --metric failures` and `advise` must say so, with verdicts.

use crate::cli::common::*;
use serde_json::Value;

/// Four writers as threads at 400 tx/s, 6 trials of 40 transactions: configurations
/// #0 DELETE busy_timeout=0, #1 DELETE 5000, #2 WAL 0, #3 WAL 5000 (all synchronous=full).
fn open_loop_with_lock_failures(sb: &Sandbox) {
    std::fs::write(
        sb.cwd().join("schema.sql"),
        "CREATE TABLE users(id INTEGER PRIMARY KEY, visits INTEGER);\nINSERT INTO users VALUES (1, 0);\n",
    )
    .unwrap();
    std::fs::write(
        sb.cwd().join("w.sql"),
        "BEGIN IMMEDIATE;\nUPDATE users SET visits = visits + 1 WHERE id = 1;\nCOMMIT;\n",
    )
    .unwrap();
    let mut cmd = sb.run(&[
        "script",
        "--param",
        "file=w.sql",
        "--param",
        "init=schema.sql",
        "--param",
        "transactions=40",
        "--clients",
        "4",
        "--client-mode",
        "threads",
        "--rate",
        "400",
        "--max-tries",
        "1",
        "--knob",
        "journal_mode=delete,wal",
        "--knob",
        "busy_timeout=0,5000",
        "--knob",
        "synchronous=full",
        "--trials",
        "6",
        "--warmup",
        "0",
    ]);
    assert_success(&output(&mut cmd));
}

fn all_row(v: &Value, config: u64) -> Value {
    v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "all" && r["config"] == config)
        .expect("an all row")
        .clone()
}

#[test]
fn an_open_loop_reports_latency_and_failures_with_verdicts() {
    let sb = Sandbox::new();
    open_loop_with_lock_failures(&sb);
    // The summary: each trial's p99 across trials, with the speed against #0; failures per
    // trial and their difference from #0 in percentage points.
    let v = sb.show_json();
    let (locked, waits) = (all_row(&v, 0), all_row(&v, 3));
    assert!(locked["failure_pct"].as_f64().unwrap() > 0.0, "{locked}");
    assert_eq!(waits["failure_pct"], 0.0, "{waits}");
    assert!(waits["failure_diff_pp"].as_f64().unwrap() < 0.0, "{waits}");
    assert_eq!(waits["failure_change"], "lower", "{waits}");
    assert!(waits["latency_p99_ms_median"].as_f64().unwrap() > 0.0, "{waits}");
    assert!(waits["latency_p99_verdict"].is_string(), "{waits}");
    assert_eq!(
        v["spread"]["metric"], "p99",
        "an open loop spreads by p99: {}",
        v["spread"]
    );
    // The CSV keeps every JSON column, groups flattened.
    let out = output(&mut sb.show(&["--format", "csv"]));
    assert_success(&out);
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    for c in [
        "tps_median",
        "latency_p99_ms_median",
        "failure_diff_pp",
        "busy",
        "syncs_per_tx",
        "lag_p99_us",
    ] {
        assert!(headers.iter().any(|h| h == c), "no CSV column {c}: {headers:?}");
    }
    // `show --metric p99`: the side-by-side table in p99, the summary's verdicts beside it;
    // tx/s reads as achieved against the target.
    let out = output(&mut sb.show(&["--metric", "p99", "--wide"]));
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("operation (p99 ms, median [95% CI]"), "{text}");
    assert!(
        text.contains("p99 against #0 [95% CI] verdict") && text.contains(" / 400"),
        "{text}"
    );
    assert!(
        text.contains("failed against #0") && text.contains("fewer failures"),
        "{text}"
    );
    // `compare --metric failures`: WAL 5000 against DELETE 0 has fewer; the other way round
    // is a regression (exit 1), said in words.
    let compare = |a: &str, b: &str| output(&mut sb.stored(&["compare", a, b, "--metric", "failures", "--wide"]));
    let out = compare("1:0", "1:3");
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("B - A, percentage points") && text.contains("fewer failures"),
        "{text}"
    );
    let out = compare("1:3", "1:0");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stdout(&out).contains("more failures"), "{}", describe(&out));
    // Failures on both sides (DELETE and WAL, both busy_timeout=0), in every format: the
    // comparison's rows and header never disagree (this panicked in the CSV behind the text).
    for format in ["table", "csv", "json", "markdown"] {
        let out = output(&mut sb.stored(&["compare", "1:0", "1:2", "--metric", "failures", "--format", format]));
        assert_no_panic(&out);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{format}: {}", describe(&out));
        assert!(!stdout(&out).is_empty(), "{format}");
    }
}

#[test]
fn advise_never_picks_a_configuration_that_failed_transactions_silently() {
    let sb = Sandbox::new();
    open_loop_with_lock_failures(&sb);
    let mut cmd = sb.litebench();
    cmd.args([
        "verify-durability",
        "--journal-mode",
        "delete,wal",
        "--synchronous",
        "full",
    ])
    .args(["--transactions", "2", "--states", "300", "--dir"])
    .arg(sb.scratch())
    .arg("--results")
    .arg(sb.results());
    assert_success(&output(&mut cmd));
    let advise = |format: &str| {
        let out = output(
            sb.stored(&["advise", "--need", "durable", "1", "--format", format])
                .env("COLUMNS", "80"),
        );
        assert_success(&out);
        out
    };
    let v = json(&advise("json"));
    assert_eq!(v["metric"], "p99", "an open loop ranks by p99: {}", v["metric"]);
    let ranked = v["ranked"].as_array().unwrap();
    let failed: Vec<f64> = ranked
        .iter()
        .map(|c| c["measured"]["failed_per_trial"].as_f64().unwrap())
        .collect();
    // Those without failures first: a configuration that lost transactions ranks after them.
    let first_failing = failed.iter().position(|f| *f > 0.0).expect("some configuration failed");
    assert!(failed[first_failing..].iter().all(|f| *f > 0.0), "{failed:?}");
    let pick = &ranked[v["answer"].as_u64().unwrap() as usize]["measured"];
    assert_eq!(pick["failed_per_trial"], 0.0, "{pick}");
    // WAL busy_timeout=0 is durable too, but lost transactions: marked, with its count.
    let out = advise("table");
    let text = stdout(&out);
    assert!(text.contains("failed/trial"), "{text}");
    assert!(text.starts_with("Need: durable\nPick `"), "{text}");
    assert!(text.contains("with no failed tx"), "{text}");
    assert!(
        text.lines().all(|l| l.chars().count() <= 80),
        "wider than 80 columns:\n{text}"
    );
}
