//! The `speedtest1` workload end to end: `--param size=1` runs every test of speedtest1's main
//! set on the bundled SQLite, each reported under its number and its title at that size, with a
//! result hash that repeats from trial to trial; `list` names the workload and its parameters.

use crate::cli::common::*;

/// The main set's tests as speedtest1 prints them with `--size 1`.
const MAIN_AT_SIZE_1: &[&str] = &[
    "100 - 500 INSERTs into table with no index",
    "110 - 500 ordered INSERTS with one index/PK",
    "120 - 500 unordered INSERTS with one index/PK",
    "130 - 25 SELECTS, numeric BETWEEN, unindexed",
    "140 - 10 SELECTS, LIKE, unindexed",
    "142 - 10 SELECTS w/ORDER BY, unindexed",
    "145 - 10 SELECTS w/ORDER BY and LIMIT, unindexed",
    "150 - CREATE INDEX five times",
    "160 - 100 SELECTS, numeric BETWEEN, indexed",
    "161 - 100 SELECTS, numeric BETWEEN, PK",
    "170 - 100 SELECTS, text BETWEEN, indexed",
    "180 - 500 INSERTS with three indexes",
    "190 - DELETE and REFILL one table",
    "200 - VACUUM",
    "210 - ALTER TABLE ADD COLUMN, and query",
    "230 - 100 UPDATES, numeric BETWEEN, indexed",
    "240 - 500 UPDATES of individual rows",
    "250 - One big UPDATE of the whole 500-row table",
    "260 - Query added column after filling",
    "270 - 100 DELETEs, numeric BETWEEN, indexed",
    "280 - 500 DELETEs of individual rows",
    "290 - Refill two 500-row tables using REPLACE",
    "300 - Refill a 500-row table using (b&1)==(a&1)",
    "310 - 100 four-ways joins",
    "320 - subquery in result set",
    "400 - 700 REPLACE ops on an IPK",
    "410 - 700 SELECTS on an IPK",
    "500 - 700 REPLACE on TEXT PK",
    "510 - 700 SELECTS on a TEXT PK",
    "520 - 700 SELECT DISTINCT",
    "980 - PRAGMA integrity_check",
    "990 - ANALYZE",
];

#[test]
fn size_1_runs_every_main_test_under_its_number_and_title() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&["speedtest1", "--param", "size=1", "--trials", "2", "--warmup", "0"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let text = stdout(&out);
    let mut at = 0;
    for name in MAIN_AT_SIZE_1 {
        let found = text[at..].find(name);
        assert!(found.is_some(), "{name:?} not printed, in order, in:\n{text}");
        at += found.unwrap() + name.len();
    }
    // Every test ran its statements: the INSERTs of test 100 (and its CREATE TABLE), a REPLACE
    // per row of test 400; one result hash, the same in both trials.
    let report = sb.show_json();
    let ops = |name: &str| {
        report["summary"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["operation"].as_str().is_some_and(|o| o.starts_with(name)))
            .unwrap_or_else(|| panic!("no row {name}"))["ops_per_trial"]
            .as_f64()
    };
    assert_eq!(ops("100 - "), Some(501.0));
    assert_eq!(ops("400 - "), Some(701.0));
    assert_eq!(ops("990 - "), Some(1.0));
    let hashes: Vec<&str> = report["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["result_hash"].as_str().expect("a result hash"))
        .collect();
    assert_eq!(hashes.len(), 2);
    assert_eq!(hashes[0], hashes[1], "the same work gave different answers");
}

#[test]
fn list_names_speedtest1_with_its_size_and_sets() {
    let sb = Sandbox::new();
    let out = output(sb.litebench().args(["list", "workloads", "--format", "json"]));
    assert_success(&out);
    let v = json(&out);
    let w = v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "speedtest1")
        .expect("speedtest1 in list");
    let params: Vec<(&str, &str)> = w["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["default"].as_str().unwrap()))
        .collect();
    assert_eq!(params, [("size", "100"), ("set", "main"), ("method", "litebench")]);
    assert_eq!(w["operations"][0], "100 - 50000 INSERTs into table with no index");
}
