//! `litebench run json` end to end: the three SQLite storages as one run's configurations
//! (the knob `json_storage`), every operation run, each configuration's answers kept and equal,
//! the per-operation answer on the first screen at 80 columns; and the refusals, each one line
//! and exit 2: the knob on another workload, and DuckDB with updates in the mix.

use crate::cli::common::*;
use crate::support::{require_duckdb, DUCKDB};

const TINY: &[&str] = &[
    "--param",
    "documents=100",
    "--param",
    "operations=120",
    "--trials",
    "1",
    "--warmup",
    "0",
    "--quiet",
];

#[test]
fn the_three_storages_run_side_by_side_and_answer_alike() {
    let sb = Sandbox::new();
    let mut args = vec![
        "json",
        "--knob",
        "json_storage=text,jsonb,generated",
        "--format",
        "json",
    ];
    args.extend_from_slice(TINY);
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    let v = json(&out);
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let trials = v["trials"].as_array().expect("trials");
    assert_eq!(trials.len(), 3, "one trial per storage");
    let mut first: Option<Vec<(String, u64, String)>> = None;
    for t in trials {
        let names: Vec<&str> = t["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["read", "filter", "expand", "update"]);
        assert!(
            t["ops"].as_array().unwrap().iter().all(|o| o["ops"].as_u64() > Some(0)),
            "{t:#}"
        );
        let answers: Vec<(String, u64, String)> = t["queries"]
            .as_array()
            .expect("queries")
            .iter()
            .map(|q| {
                let a = &q["answer"];
                (
                    q["op"].as_str().unwrap().to_string(),
                    a["rows"].as_u64().unwrap(),
                    a["hash"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(answers.len(), 3, "read, filter and expand keep answers: {answers:?}");
        assert!(
            answers.iter().all(|(_, rows, hash)| *rows > 0 && hash.len() == 64),
            "{answers:?}"
        );
        match &first {
            None => first = Some(answers),
            Some(f) => assert_eq!(&answers, f, "every storage answers alike"),
        }
    }
    let readings: Vec<String> = trials
        .iter()
        .map(|t| {
            let k = t["knobs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["name"] == "json_storage")
                .unwrap();
            k["effective"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(
        readings,
        ["text", "jsonb", "generated"],
        "read back from each trial's connection"
    );
    // The answer, per operation, heads the report at 80 columns.
    let text = stdout(&output(sb.show(&[]).env("COLUMNS", "80")));
    // Words, not lines: which configuration is fastest decides where the answer wraps.
    let lead: Vec<&str> = text.lines().take(14).flat_map(str::split_whitespace).collect();
    let lead = lead.join(" ");
    assert!(lead.contains("answer: Fastest by median latency: read #"), "{text}");
    assert!(
        lead.contains("Answers equal: all 3 configurations answered read, filter, expand alike"),
        "{text}"
    );
    assert!(lead.contains("p50 latency per operation"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}

#[test]
fn json_refusals_are_one_line() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["crud", "--knob", "json_storage=jsonb"]));
    assert_error_line(
        &out,
        &[
            "--knob json_storage: no statement of crud reads json_storage",
            "leave it out",
        ],
    );
    let out = output(&mut sb.run(&["json", "--knob", "json_storage=bson"]));
    assert_error_line(
        &out,
        &["--knob json_storage=bson: invalid value; valid values: text, jsonb, generated"],
    );
    if !require_duckdb(DUCKDB) {
        return;
    }
    let mut args = vec!["json", "--engine", "duckdb"];
    args.extend_from_slice(TINY);
    let out = output(&mut sb.run(&args));
    assert_run_error_line(
        &out,
        &[
            "json's update cannot run on DuckDB: its JSON type has no json_set",
            "give --param updates=0",
        ],
    );
}
