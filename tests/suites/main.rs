//! The classic suites against their sources: every test's statement count and transaction
//! boundaries, counted by a decorator around the bundled SQLite's connection, at the source's
//! own scale; then each suite and the presets through the `litebench` binary.
//!
//! The expected figures below are transcribed from the sources, not computed by litebench:
//! SQLite's speed comparison (tool/speedtest.tcl: test 1 is 1000 INSERTs each in its own
//! transaction, test 2 is 25000 INSERTs between one BEGIN and one COMMIT, ...), Linaro's lists
//! of the RL Benchmark, ACREVE, SQLite Benchmark and AndroBench tests, and Mobibench's engine.
//! A commit is an explicit COMMIT, or a write statement executed outside an explicit
//! transaction (SQLite's autocommit mode makes it a transaction of its own).

mod cli;
mod counting;

use counting::{count, Counting, Expected};
use litebench::engines::sqlite::engine::{SqliteChoice, SqliteEngine};
use litebench::engines::{DbRef, Engine};
use litebench::model::params;
use litebench::workload::recorder::Recorder;
use litebench::workload::{self, Connector, Trial, WorkloadError};
use std::sync::atomic::AtomicBool;

struct NoMore;

impl Connector for NoMore {
    fn open(&self) -> Result<Box<dyn litebench::engines::Connection>, WorkloadError> {
        panic!("the suites use one connection")
    }
}

/// Runs one trial of a workload on an in-memory database of the bundled SQLite, through the
/// counting decorator. Returns the log of the trial (population excluded) and the operations
/// the recorder saw.
fn drive(name: &str, args: &[&str], seed: u64) -> (Vec<counting::Event>, Vec<u64>) {
    let w = workload::find(name).unwrap_or_else(|| panic!("no workload {name}"));
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let p = params::resolve(w.name(), w.params(), &args).expect("parameters");
    let engine = SqliteEngine::open(&SqliteChoice::Bundled, true).expect("bundled SQLite");
    let inner = engine
        .connect(&DbRef {
            name: "suite".into(),
            path: None,
        })
        .expect("in-memory database");
    let mut conn = Counting::new(inner);
    w.populate(&mut conn, &workload::Population::plain(&p, seed))
        .expect("populate");
    conn.log.clear();
    let mut rec = Recorder::new(w.kind().operations, None);
    let stop = AtomicBool::new(false);
    let trial = Trial::plain(&p, seed, &stop, &NoMore);
    w.run(&mut conn, &trial, &mut rec)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let log = std::mem::take(&mut conn.log);
    w.verify(&mut conn, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (ops, _) = rec.finish();
    (log, ops.iter().map(|o| o.ops).collect())
}

/// Drives a suite and checks every test against the source's figures.
fn check(name: &str, args: &[&str], expected: &[Expected]) {
    let w = workload::find(name).unwrap();
    assert_eq!(w.kind().operations.len(), expected.len(), "{name}: number of tests");
    let (log, recorded) = drive(name, args, 42);
    let counted = count(name, w.kind().operations, &log, expected);
    for (i, ((exp, got), rec)) in expected.iter().zip(&counted).zip(&recorded).enumerate() {
        let title = w.kind().operations[i];
        assert_eq!(got.statements, exp.statements, "{name} {title}: statements");
        assert_eq!(got.commits, exp.commits, "{name} {title}: commits");
        assert_eq!(*rec, exp.statements, "{name} {title}: operations the recorder counted");
    }
}

const fn e(statements: u64, commits: u64, prefixes: &'static [&'static str]) -> Expected {
    Expected {
        statements,
        commits,
        prefixes,
    }
}

const SELECT_B: &[&str] = &["SELECT count(*), avg(b) FROM t2 WHERE b>="];
const SELECT_LIKE: &[&str] = &["SELECT count(*), avg(b) FROM t2 WHERE c LIKE"];
const CREATE_INDEX: &[&str] = &["CREATE INDEX i2a ON t2(a)", "CREATE INDEX i2b ON t2(b)"];
const INSERT_SELECT: &[&str] = &["INSERT INTO t1 SELECT * FROM t2", "INSERT INTO t2 SELECT * FROM t1"];
const DELETE_LIKE: &[&str] = &["DELETE FROM t2 WHERE c LIKE '%fifty%'"];
const DELETE_A: &[&str] = &["DELETE FROM t2 WHERE a>10 AND a<20000"];
const DROP: &[&str] = &["DROP TABLE t1", "DROP TABLE t2", "DROP TABLE t3"];

#[test]
fn speedtest_follows_the_speed_comparison() {
    check(
        "speedtest",
        &[],
        &[
            // Test 1: 1000 INSERTs, no BEGIN: each its own transaction.
            e(1000, 1000, &["INSERT INTO t1 VALUES"]),
            // Test 2: BEGIN; 25000 INSERTs; COMMIT.
            e(25_000, 1, &["INSERT INTO t2 VALUES"]),
            e(100, 0, SELECT_B),
            e(100, 0, SELECT_LIKE),
            e(2, 2, CREATE_INDEX),
            e(5000, 0, SELECT_B),
            e(1000, 1, &["UPDATE t1 SET b=b*2 WHERE a>="]),
            e(25_000, 1, &["UPDATE t2 SET b="]),
            e(25_000, 1, &["UPDATE t2 SET c="]),
            e(2, 1, INSERT_SELECT),
            e(1, 1, DELETE_LIKE),
            e(1, 1, DELETE_A),
            e(1, 1, &["INSERT INTO t2 SELECT * FROM t1"]),
            // Test 14: BEGIN; DELETE FROM t1; 3000 INSERTs; COMMIT.
            e(3001, 1, &["DELETE FROM t1", "INSERT INTO t1 VALUES"]),
            e(2, 2, DROP),
        ],
    );
}

#[test]
fn rlbench_follows_its_test_list() {
    check(
        "rlbench",
        &[],
        &[
            e(1000, 1000, &["INSERT INTO t1 VALUES"]),
            e(25_000, 1, &["INSERT INTO t2 VALUES"]),
            e(25_000, 1, &["INSERT INTO t3 VALUES"]),
            e(100, 0, SELECT_B),
            e(100, 0, SELECT_LIKE),
            e(2, 2, CREATE_INDEX),
            e(5000, 0, SELECT_B),
            e(1000, 1, &["UPDATE t1 SET b=b*2 WHERE a>="]),
            e(25_000, 1, &["UPDATE t2 SET b="]),
            e(2, 1, INSERT_SELECT),
            e(1, 1, DELETE_LIKE),
            e(1, 1, DELETE_A),
            e(3, 3, DROP),
        ],
    );
}

#[test]
fn acreve_follows_its_test_list() {
    const JOIN_A: &[&str] = &["SELECT count(*), avg(t2.b) FROM t1 INNER JOIN t2 ON t1.a=t2.a"];
    check(
        "acreve",
        &[],
        &[
            e(1000, 1000, &["INSERT INTO t1 VALUES"]),
            e(25_000, 1, &["INSERT INTO t2 VALUES"]),
            e(25_000, 1, &["INSERT INTO t3 VALUES"]),
            e(100, 0, SELECT_B),
            e(100, 0, SELECT_LIKE),
            e(1, 0, JOIN_A),
            e(2, 2, CREATE_INDEX),
            e(5000, 0, SELECT_B),
            e(1000, 1, &["UPDATE t1 SET b=b*2 WHERE a>="]),
            e(25_000, 1, &["UPDATE t2 SET b="]),
            e(25_000, 1, &["UPDATE t2 SET c="]),
            e(2, 1, INSERT_SELECT),
            e(1, 0, JOIN_A),
            e(1, 0, &["SELECT count(*), avg(t3.b) FROM t1 INNER JOIN t3 ON t1.c=t3.c"]),
            e(
                100,
                0,
                &["SELECT count(*), avg(b) FROM t1 WHERE b IN (SELECT b FROM t2 WHERE b>="],
            ),
            e(1, 1, DELETE_LIKE),
            e(1, 1, DELETE_A),
            e(1, 1, &["INSERT INTO t2 SELECT * FROM t1"]),
            e(3001, 1, &["DELETE FROM t1", "INSERT INTO t1 VALUES"]),
            e(3, 3, DROP),
        ],
    );
}

#[test]
fn sqlite_benchmark_follows_its_test_list() {
    check(
        "sqlite-benchmark",
        &[],
        &[
            e(200, 200, &["INSERT INTO t1 VALUES"]),
            e(15_000, 1, &["INSERT INTO t1 VALUES"]),
            e(500, 500, &["UPDATE t1 SET b=? WHERE a=?"]),
            e(15_000, 1, &["UPDATE t1 SET b=? WHERE a=?"]),
            e(15_000, 0, &["SELECT count(*), avg(b) FROM t1 WHERE a=?"]),
            e(200, 200, &["DELETE FROM t1 WHERE a=?"]),
            e(15_000, 1, &["DELETE FROM t1 WHERE a=?"]),
        ],
    );
}

#[test]
fn androbench_is_three_times_1000_transactions() {
    check(
        "androbench",
        &[],
        &[
            e(1000, 1000, &["INSERT INTO t1 VALUES"]),
            e(1000, 1000, &["UPDATE t1 SET b=b*2"]),
            e(1000, 1000, &["DELETE FROM t1 WHERE a>"]),
        ],
    );
}

#[test]
fn mobibench_one_statement_per_transaction() {
    // The app's SQLite button with its default 100 transactions.
    check(
        "mobibench",
        &["mode=all", "count=100"],
        &[
            e(100, 100, &["INSERT INTO tblMyList(Value) VALUES"]),
            e(100, 100, &["UPDATE tblMyList SET Value = ? WHERE id = ?"]),
            e(100, 100, &["DELETE FROM tblMyList WHERE id="]),
        ],
    );
    // APSys'17 Table 1: 1000 inserts alone (update and delete do not run).
    let (log, recorded) = drive("mobibench", &["mode=insert", "count=1000"], 1);
    assert_eq!(recorded, vec![1000, 0, 0]);
    assert_eq!(log.len(), 1000);
    // Update and delete modes alone start from a table filled to `count` rows.
    for mode in ["update", "delete"] {
        let (log, recorded) = drive("mobibench", &[&format!("mode={mode}"), "count=50"], 3);
        assert_eq!(recorded.iter().sum::<u64>(), 50, "{mode}");
        assert_eq!(log.len(), 50, "{mode}");
    }
}

#[test]
fn scaled_runs_keep_the_transaction_structure() {
    // At 1% every count shrinks, but test 1 still commits once per INSERT and test 2 once.
    let (log, recorded) = drive("speedtest", &["scale_percent=1"], 5);
    assert_eq!(recorded[..2], [10, 250]);
    let w = workload::find("speedtest").unwrap();
    let any: Vec<Expected> = recorded.iter().map(|n| e(*n, 0, &[""])).collect();
    let counted = count("speedtest", w.kind().operations, &log, &any);
    assert_eq!(counted[0].commits, 10);
    assert_eq!((counted[1].commits, counted[1].explicit_transactions), (1, 1));
    assert_eq!(counted[14].commits, 2);
    // Size 2 doubles them.
    let (_, recorded) = drive("speedtest", &["size=2", "scale_percent=10"], 5);
    assert_eq!(recorded[..2], [200, 5000]);
}
