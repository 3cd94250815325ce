//! `show --profile`: a configuration's query plans and per-loop profiles, from its first
//! measured trial, in every format; "unavailable" where a query has none.
//!
//! No workload in this crate keeps per-query records yet for a tiny run to produce, so the test
//! runs a tiny crud and then adds, through the store's own API, a measured trial that carries
//! them (the first measured trial of crud itself has none, and is passed over).

use crate::cli::common::*;
use litebench::model::engine_info::LoopProfile;
use litebench::model::record::{Answer, QueryRecord};
use litebench::store::Store;

fn seeded() -> Sandbox {
    let sb = Sandbox::new();
    assert_success(&output(&mut sb.run_tiny(&["crud"])));
    let mut store = Store::open(&sb.results(), true).unwrap();
    let run = store.load(None).unwrap();
    let mut t = run.trials.iter().find(|t| !t.warmup).unwrap().clone();
    t.seq = run.trials.len() as u64;
    t.queries = vec![
        QueryRecord {
            op: "q2.1".into(),
            answer: Answer::default(),
            plan: Some(vec![
                "SCAN lineorder".into(),
                "BLOOM FILTER ON part (p_partkey=?)".into(),
                "SEARCH part USING INTEGER PRIMARY KEY (rowid=?)".into(),
            ]),
            profile: Some(vec![
                LoopProfile {
                    id: 2,
                    parent: 0,
                    explain: "SCAN lineorder".into(),
                    loops: Some(1),
                    rows_visited: Some(6000),
                    rows_estimated: Some(5800.0),
                    cycles: Some(3000),
                },
                LoopProfile {
                    id: 9,
                    parent: 2,
                    explain: "SEARCH part USING INTEGER PRIMARY KEY (rowid=?)".into(),
                    loops: Some(48),
                    rows_visited: Some(48),
                    rows_estimated: Some(1.0),
                    cycles: Some(1000),
                },
            ]),
            ..Default::default()
        },
        QueryRecord {
            op: "q1.1".into(),
            answer: Answer::default(),
            plan: None,
            profile: None,
            ..Default::default()
        },
    ];
    store.add_trial(run.id, &t).unwrap();
    sb
}

#[test]
fn show_profile_prints_plans_and_loop_trees() {
    let sb = seeded();
    let out = output(&mut sb.show(&["--profile"]));
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("== q2.1 — config 0: defaults"), "{text}");
    assert!(text.contains("  BLOOM FILTER ON part (p_partkey=?)"), "{text}");
    let search = text
        .lines()
        .find(|l| l.starts_with("  SEARCH part") && l.contains("48"))
        .unwrap_or_else(|| panic!("the nested loop row: {text}"));
    assert!(search.contains("25.0%"), "{search}");
    assert!(text.contains("== q1.1"), "{text}");
    assert!(text.contains("plan: unavailable"), "{text}");
    assert!(text.contains("loops: unavailable"), "{text}");

    let out = output(&mut sb.show(&["--profile", "--format", "json"]));
    assert_success(&out);
    let v = json(&out);
    assert_eq!(v[0]["operation"], "q2.1", "{v:#}");
    assert_eq!(v[0]["loops"][1]["depth"], 1, "{v:#}");
    assert_eq!(v[0]["loops"][0]["cycle_share"], 0.75, "{v:#}");
    assert!(v[1]["plan"].is_null() && v[1]["loops"].is_null(), "{v:#}");

    let out = output(&mut sb.show(&["--profile", "--format", "markdown"]));
    assert_success(&out);
    let md = stdout(&out);
    assert!(md.contains("### q2.1"), "{md}");
    assert!(md.contains("| loop"), "{md}");

    let out = output(&mut sb.show(&["--profile", "--format", "csv"]));
    assert_success(&out);
    let csv = stdout(&out);
    assert!(
        csv.starts_with("config,configuration,operation,kind,depth,step"),
        "{csv}"
    );
    assert_eq!(csv.lines().filter(|l| l.contains(",loop,")).count(), 2, "{csv}");
    assert_eq!(csv.lines().filter(|l| l.contains(",plan,")).count(), 3, "{csv}");
}

#[test]
fn show_profile_of_a_run_without_query_records_says_so() {
    let sb = Sandbox::new();
    assert_success(&output(&mut sb.run_tiny(&["crud"])));
    let out = output(&mut sb.show(&["--profile"]));
    assert_success(&out);
    assert!(
        stdout(&out).contains("no query plans or profiles in this run"),
        "{}",
        stdout(&out)
    );
}
