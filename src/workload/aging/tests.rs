use super::*;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::model::params::resolve;
use crate::workload::Connector;
use std::sync::atomic::AtomicBool;

fn params(args: &[&str]) -> Result<Params, String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    resolve("aging", PARAMS, &args).map_err(|e| e.to_string())
}

struct OneConnection;

impl Connector for OneConnection {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
        panic!("one client uses the trial's connection")
    }
}

fn events(conn: &mut dyn Connection) -> Vec<i64> {
    conn.query("SELECT ts FROM events ORDER BY ts")
        .unwrap()
        .into_iter()
        .map(|r| r[0].as_deref().unwrap().parse().unwrap())
        .collect()
}

fn free_pages(conn: &mut dyn Connection) -> u64 {
    conn.query_value("PRAGMA freelist_count")
        .unwrap()
        .unwrap()
        .parse()
        .unwrap()
}

/// A trial of `operations` transactions on a template of `pre_age` events: the events the
/// table holds after it, and the operations counted per type.
fn trial(args: &[&str]) -> (Vec<i64>, Vec<u64>) {
    let p = params(args).unwrap();
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
    Aging.populate(&mut conn, &Population::plain(&p, 3)).unwrap();
    let stop = AtomicBool::new(false);
    let t = Trial::plain(&p, 5, &stop, &OneConnection);
    let mut rec = Recorder::new(&OPS, None);
    Aging.run(&mut conn, &t, &mut rec).unwrap();
    Aging.verify(&mut conn, &p).unwrap();
    let (ops, _) = rec.finish();
    (events(&mut conn), ops.iter().map(|o| o.ops).collect())
}

#[test]
fn after_k_inserts_and_their_expires_the_last_retention_events_are_left() {
    // 10 rounds of 9 inserts and an expire: 90 events after 40 pre-aged, 25 kept.
    let (left, ops) = trial(&[
        "retention=25",
        "pre_age=40",
        "expire_every=9",
        "operations=100",
        "payload=20",
    ]);
    assert_eq!(ops, [90, 10, 0]);
    assert_eq!(left, (106..=130).collect::<Vec<i64>>(), "the newest 25 of 130");
}

#[test]
fn the_template_is_pre_aged_down_to_the_retention() {
    let p = params(&["retention=50", "pre_age=1000", "payload=200"]).unwrap();
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
    assert_eq!(Aging.populate(&mut conn, &Population::plain(&p, 3)).unwrap(), 1000);
    assert_eq!(events(&mut conn), (951..=1000).collect::<Vec<i64>>());
}

#[test]
fn an_aged_file_has_free_pages_without_auto_vacuum_and_none_with_full() {
    let dir = tempfile::tempdir().unwrap();
    let p = params(&["retention=100", "pre_age=3000", "payload=300"]).unwrap();
    let mut free = Vec::new();
    for mode in ["none", "full"] {
        let path = dir.path().join(format!("{mode}.db"));
        let mut conn = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
        conn.execute_batch(&format!("PRAGMA auto_vacuum = {mode}")).unwrap();
        Aging.populate(&mut conn, &Population::plain(&p, 3)).unwrap();
        free.push(free_pages(&mut conn));
    }
    assert!(free[0] > 0, "none keeps the expired pages free: {free:?}");
    assert_eq!(free[1], 0, "full gives them back at each commit: {free:?}");
}

#[test]
fn reads_and_expires_by_weight_alone_run_as_a_role_of_their_own_would() {
    let (left, ops) = trial(&[
        "retention=10",
        "pre_age=30",
        "expire_every=0",
        "insert_weight=0",
        "expire_weight=1",
        "read_weight=1",
        "operations=50",
    ]);
    assert_eq!(ops[0], 0);
    assert!(ops[1] > 0 && ops[2] > 0, "{ops:?}");
    assert_eq!(left, (21..=30).collect::<Vec<i64>>());
}

#[test]
fn bad_parameters_are_refused_naming_them() {
    let e = params(&["retention=0"]).unwrap_err();
    assert!(e.contains("retention"), "{e}");
    let e = params(&["payload=-5"]).unwrap_err();
    assert!(e.contains("payload"), "{e}");
    // Past SQLite's SQLITE_MAX_LENGTH: refused here, not as `string or blob too big` later.
    let e = params(&["payload=1GiB"]).unwrap_err();
    assert!(
        e.starts_with("--param payload=1GiB: invalid value") && e.contains("999999000"),
        "{e}"
    );
    assert!(
        params(&["payload=1GB"]).is_err(),
        "10^9 bytes leaves no room for the row's other columns"
    );
    assert!(params(&["payload=999MB"]).is_ok());
    let p = params(&["insert_weight=0", "expire_weight=0", "read_weight=0"]).unwrap();
    let e = Aging.check(&p).unwrap_err();
    assert!(e.starts_with("--param insert_weight=0"), "{e}");
    assert!(Aging.check(&params(&[]).unwrap()).is_ok());
}

#[test]
fn a_retention_cut_leaves_the_excess_pages_free_until_a_vacuum() {
    // Aged with 2000 kept, run with 200: the first expire deletes 1800 events' pages.
    let args = [
        "retention=200",
        "pre_retention=2000",
        "pre_age=3000",
        "payload=300",
        "expire_every=10",
        "operations=11",
    ];
    let p = params(&args).unwrap();
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
    Aging.populate(&mut conn, &Population::plain(&p, 3)).unwrap();
    assert_eq!(events(&mut conn).len(), 2000, "the template keeps its own retention");
    let before = free_pages(&mut conn);
    let stop = AtomicBool::new(false);
    let t = Trial::plain(&p, 5, &stop, &OneConnection);
    let mut rec = Recorder::new(&OPS, None);
    Aging.run(&mut conn, &t, &mut rec).unwrap();
    assert_eq!(
        events(&mut conn).len(),
        200,
        "the trial's expire cut it to its retention"
    );
    let after = free_pages(&mut conn);
    assert!(after > before + 100, "the cut freed pages: {before} -> {after}");
}
