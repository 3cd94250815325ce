//! `litebench run aging`: an append-and-expire table on a pre-aged template, and the report's
//! answer to how big the file gets (its size, free pages and live payload per configuration).

use crate::cli::common::*;

/// The `db_size` entry of configuration `config`.
fn db_size_of(v: &serde_json::Value, config: u64) -> serde_json::Value {
    v["db_size"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["config"] == config).cloned())
        .unwrap_or_else(|| panic!("a db_size entry for #{config}: {}", v["db_size"]))
}

#[test]
fn a_pre_aged_file_keeps_free_pages_without_auto_vacuum_and_none_with_full() {
    let sb = Sandbox::new();
    // Two rounds of 100 inserts and their expire: each trial ends just after an expire freed
    // pages that no insert has taken back yet.
    let out = output(&mut sb.run(&[
        "aging",
        "--param",
        "pre_age=3000",
        "--param",
        "retention=500",
        "--param",
        "operations=202",
        "--knob",
        "auto_vacuum=none,full",
        "--trials",
        "1",
        "--warmup",
        "0",
    ]));
    assert_success(&out);
    let text = stdout(&out);
    let v = sb.show_json();
    let none = db_size_of(&v, 0);
    let full = db_size_of(&v, 1);
    assert!(none["free_pages"].as_u64().unwrap() > 0, "{none}");
    assert_eq!(none["page_size"], 4096, "{none}");
    assert_eq!(
        none["free_bytes"].as_u64().unwrap(),
        none["free_pages"].as_u64().unwrap() * 4096
    );
    assert_eq!(full["free_pages"], 0, "{full}");
    for d in [&none, &full] {
        assert_eq!(d["live_rows"], 500, "the newest 500 events: {d}");
        assert_eq!(d["live_payload_bytes"], 500 * 300, "{d}");
        assert!(d["final_bytes"].as_u64().unwrap() >= 500 * 300, "{d}");
    }
    for (config, free) in [(0, none["free_pages"].as_u64().unwrap()), (1, 0)] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("#{config} database file:")))
            .unwrap_or_else(|| panic!("a database-file line for #{config}: {text}"));
        assert!(line.contains(&format!(", {free} free pages of 4096 B")), "{line}");
        assert!(line.contains("live payload about 500 rows x 300 B"), "{line}");
    }
}

#[test]
fn other_workloads_report_no_database_file_line() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud"]));
    assert_success(&out);
    assert!(!stdout(&out).contains("database file:"), "{}", stdout(&out));
    assert!(sb.show_json().get("db_size").is_none());
}

#[test]
fn a_retention_of_zero_or_a_negative_payload_is_refused_in_one_line() {
    let sb = Sandbox::new();
    assert_error_line(
        &output(&mut sb.run(&["aging", "--param", "retention=0"])),
        &["retention=0"],
    );
    assert_error_line(
        &output(&mut sb.run(&["aging", "--param", "payload=-5"])),
        &["payload=-5"],
    );
    assert_error_line(
        &output(&mut sb.run(&[
            "aging",
            "--param",
            "insert_weight=0",
            "--param",
            "expire_weight=0",
            "--param",
            "read_weight=0",
        ])),
        &["--param insert_weight=0", "no operation to draw"],
    );
}

/// Issue 46, item 28: aging's writers wait for a lock as applications do (busy_timeout=5000,
/// the workload's default), not SQLite's default of giving up at once beside a VACUUM.
#[test]
fn aging_waits_for_locks_by_default() {
    let sb = Sandbox::new();
    let o = output(&mut sb.run(&[
        "aging",
        "--param",
        "pre_age=100",
        "--param",
        "retention=50",
        "--param",
        "operations=20",
        "--trials",
        "1",
        "--warmup",
        "0",
    ]));
    assert_success(&o);
    let v = sb.show_json();
    let knobs = v["trials"][0]["knobs"].as_array().unwrap();
    let busy = knobs
        .iter()
        .find(|k| k["name"] == "busy_timeout")
        .unwrap_or_else(|| panic!("busy_timeout read back: {knobs:?}"));
    assert_eq!(busy["effective"], "5000", "{busy}");
}
