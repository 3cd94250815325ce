use super::*;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::model::op::OpResult;
use crate::model::params;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

struct NoMore;

impl crate::workload::Connector for NoMore {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
        unreachable!("one client")
    }
}

fn params(args: &[String]) -> Result<Params, String> {
    let mut p = params::resolve("replay", PARAMS, args).map_err(|e| e.to_string())?;
    Replay.check(&p)?;
    Replay.settle(&mut p)?;
    Ok(p)
}

/// A log file with `text` in a fresh directory, and the parameters naming it plus `more`.
fn logged(text: &str, more: &[&str]) -> (tempfile::TempDir, Result<Params, String>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("app.log");
    std::fs::write(&file, text).unwrap();
    let mut args = vec![format!("log={}", file.display())];
    args.extend(more.iter().map(|s| s.to_string()));
    let p = params(&args);
    (dir, p)
}

fn trial(p: &Params) -> Result<Vec<OpResult>, WorkloadError> {
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
    let stop = AtomicBool::new(false);
    let trial = Trial::plain(p, 1, &stop, &NoMore);
    let mut rec = Recorder::of_types(&Replay.operation_types(p, Some(Dialect::Sqlite)), None);
    Replay.run(&mut conn, &trial, &mut rec)?;
    Ok(rec.finish().0)
}

#[test]
fn statements_replay_in_order_grouped_by_shape() {
    let (_dir, p) = logged(
        "CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT);\nBEGIN;\nINSERT INTO kv VALUES (1, 'a');\nINSERT INTO kv VALUES (2, 'b;c');\nCOMMIT;\nSELECT v FROM kv WHERE k = 2;\nSELECT v FROM kv WHERE k = 1;\n",
        &[],
    );
    let p = p.unwrap();
    assert_eq!(p.choice("format"), "statements");
    assert_eq!(p.text("sha256").len(), 64);
    let ops = trial(&p).unwrap();
    let counts: Vec<(&str, u64)> = ops.iter().map(|o| (o.name.as_str(), o.ops)).collect();
    assert_eq!(
        counts,
        vec![
            ("CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT)", 1),
            ("BEGIN", 1),
            ("INSERT INTO kv VALUES (?, ?)", 2),
            ("COMMIT", 1),
            ("SELECT v FROM kv WHERE k = ?", 2),
        ]
    );
    assert!(ops.iter().all(|o| o.succeeded == Some(o.ops)), "{ops:?}");
}

#[test]
fn a_failing_statement_stops_with_file_and_line_or_is_counted() {
    let text =
        "CREATE TABLE t(a);\nINSERT INTO t VALUES (1);\nINSERT INTO nope VALUES (2);\nINSERT INTO t VALUES (3);\n";
    let (_dir, p) = logged(text, &[]);
    let e = trial(&p.unwrap()).unwrap_err().to_string();
    assert!(e.contains("app.log:3: no such table: nope"), "{e}");
    let (_dir, p) = logged(text, &["on_error=count"]);
    let ops = trial(&p.unwrap()).unwrap();
    let insert = ops.iter().find(|o| o.name.starts_with("INSERT INTO t ")).unwrap();
    assert_eq!((insert.ops, insert.succeeded), (2, Some(2)));
    let nope = ops.iter().find(|o| o.name.contains("nope")).unwrap();
    assert_eq!((nope.ops, nope.succeeded), (1, Some(0)));
}

#[test]
fn pace_recorded_keeps_the_gaps_and_counts_latency_from_the_recorded_start() {
    let (_dir, p) = logged(
        "0.000 CREATE TABLE t(a)\n0.500 INSERT INTO t VALUES (1)\n1.000 SELECT count(*) FROM t\n",
        &["pace=recorded"],
    );
    let p = p.unwrap();
    assert_eq!(p.choice("format"), "timestamped");
    let t0 = Instant::now();
    let ops = trial(&p).unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(1000), "{:?}", t0.elapsed());
    assert!(ops.iter().all(|o| o.lag.is_some()), "{ops:?}");
    // As fast as possible, the same log takes nowhere near its recorded second.
    let (_dir, p) = logged(
        "0.000 CREATE TABLE t(a)\n0.500 INSERT INTO t VALUES (1)\n1.000 SELECT count(*) FROM t\n",
        &[],
    );
    let t0 = Instant::now();
    let ops = trial(&p.unwrap()).unwrap();
    assert!(t0.elapsed() < Duration::from_millis(500), "{:?}", t0.elapsed());
    assert!(ops.iter().all(|o| o.lag.is_none()));
}

#[test]
fn a_late_statement_counts_its_wait() {
    // Both due at once: the second waits for the first, and that wait is in its latency.
    let slow =
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300000) SELECT count(*) FROM c";
    let (_dir, p) = logged(&format!("0 {slow}\n0 SELECT 1\n"), &["pace=recorded"]);
    let ops = trial(&p.unwrap()).unwrap();
    let first = ops.iter().find(|o| o.name.starts_with("WITH")).unwrap();
    let second = ops.iter().find(|o| o.name == "SELECT ?").unwrap();
    assert!(
        second.latency.max_ns * 10 >= first.latency.max_ns * 9,
        "{second:?} after {first:?}"
    );
}

#[test]
fn refusals_are_one_line() {
    let (_dir, p) = logged("SELECT 1\n", &["pace=recorded"]);
    let e = p.unwrap_err();
    assert!(
        e.starts_with("--param pace=recorded: ") && e.contains("format lines, without recorded times"),
        "{e}"
    );
    let e = params(&[]).unwrap_err();
    assert!(e.starts_with("--param log: replay needs"), "{e}");
    let e = params(&["log=/nonexistent/app.log".into()]).unwrap_err();
    assert!(e.starts_with("--param log=/nonexistent/app.log: cannot read it"), "{e}");
    let (_dir, p) = logged("SELECT 1;\nSELECT :x;\n", &[]);
    let e = p.unwrap_err();
    assert!(e.contains("app.log:2:8: a parameter (:x)"), "{e}");
    assert!(!e.contains('\n'));
    assert!(Replay.one_client_only(&Params::default()).is_some());
}

#[test]
fn shape_names_are_cut_and_unique() {
    let long = "x".repeat(200);
    let n = names(&[&long, &format!("{long}y"), "all", ""]);
    assert_eq!(n[0].chars().count(), NAME_CHARS + 1);
    assert!(n[0].ends_with('…'));
    assert_eq!(n[1], format!("{} #2", n[0]));
    assert_eq!(n[2], "all #2");
    assert_eq!(n[3], "?");
}
