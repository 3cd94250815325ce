//! `tpch` at scale 0.01 on every engine that loads it in bulk its own way: SQLite (prepared
//! inserts), PostgreSQL (`COPY FROM STDIN`), MariaDB (multi-row `INSERT`s), DuckDB (its
//! appender). Every engine loads the same rows, passes the row-count check after its trial, and
//! answers every query written so far alike (the runner stops a run whose engines differ).

use crate::servers::common::*;
use crate::support::{require_duckdb, DUCKDB};

#[test]
fn every_engine_loads_the_same_rows_and_answers_alike() {
    if !available(&[Server::Postgres, Server::Mysql]) || !require_duckdb(DUCKDB) {
        return;
    }
    let sb = Sandbox::new();
    let v = run(sb.run_std(&[
        "tpch",
        "--param",
        "scale=0.01",
        "--engine",
        "sqlite",
        "--engine",
        "postgres",
        "--engine",
        "mysql",
        "--engine",
        "duckdb",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
    .assert_success();
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let loads: Vec<(String, u64, String)> = v["footprint"]
        .as_array()
        .expect("footprint")
        .iter()
        .map(|f| {
            (
                f["engine"].as_str().unwrap().to_string(),
                f["rows"].as_u64().unwrap(),
                f["load_path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let engines: Vec<&str> = loads.iter().map(|l| l.0.as_str()).collect();
    assert_eq!(engines, ["sqlite", "postgres", "mysql", "duckdb"], "{loads:?}");
    assert!(
        loads.iter().all(|l| l.1 == 86_805),
        "the rows of all eight tables: {loads:?}"
    );
    let paths: Vec<&str> = loads.iter().map(|l| l.2.as_str()).collect();
    assert_eq!(
        paths,
        ["prepared INSERTs", "COPY FROM STDIN", "multi-row INSERTs", "appender"]
    );
    // One trial per engine, each with an answer to every query it ran.
    let trials = v["trials"].as_array().expect("trials");
    assert_eq!(trials.len(), 4);
    let answered: Vec<usize> = trials
        .iter()
        .map(|t| t["queries"].as_array().map_or(0, |q| q.len()))
        .collect();
    assert_eq!(answered, [22, 22, 22, 22], "every engine answers all 22 queries");
    // None timed out or failed: the runner compared all 22 answers across the four engines
    // (a difference stops the run, which is complete).
    for t in trials {
        for q in t["queries"].as_array().unwrap() {
            assert!(q.get("failure").is_none(), "{q}");
            assert!(q["parameters"].as_str().is_some_and(|p| !p.is_empty()), "{q}");
        }
    }
}

/// `analyze=false` on PostgreSQL: the tables are created with autovacuum off and loaded without
/// `ANALYZE`, and the queries still answer as SQLite's without statistics do.
#[test]
fn without_statistics_postgres_answers_as_sqlite() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let sb = Sandbox::new();
    let v = run(sb.run_std(&[
        "tpch",
        "--param",
        "scale=0.01",
        "--param",
        "analyze=false",
        "--engine",
        "sqlite",
        "--engine",
        "postgres",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
    .assert_success();
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    assert_eq!(v["manifest"]["params"]["analyze"], "false");
    for t in v["trials"].as_array().expect("trials") {
        let queries = t["queries"].as_array().expect("queries");
        assert_eq!(queries.len(), 22);
        assert!(queries.iter().all(|q| q.get("failure").is_none()), "{t}");
    }
}
