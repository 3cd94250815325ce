//! The queue's trials on SQLite: every role's transactions run, nothing is lost, and the
//! figures add up.

use super::*;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::model::load::LoadShape;
use crate::model::params::resolve;
use crate::workload::Connector;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

fn params(args: &[&str]) -> Params {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    resolve("queue", PARAMS, &args).expect("valid parameters")
}

/// Opens further connections to one database file.
struct File(PathBuf);

impl Connector for File {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
        let mut c = SqliteConn::open(Api::bundled(), &self.0, None, "sqlite")?;
        c.execute_batch("PRAGMA busy_timeout = 5000")?;
        Ok(Box::new(c))
    }
}

fn trial(p: &Params, clients: u32) -> (Vec<crate::model::op::OpResult>, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("queue.db");
    let mut conn = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
    let backlog = Queue.populate(&mut conn, &Population::plain(p, 5)).expect("populate");
    assert_eq!(backlog, p.count("backlog"));
    conn.execute_batch("PRAGMA journal_mode = wal; PRAGMA busy_timeout = 5000")
        .unwrap();
    let stop = AtomicBool::new(false);
    let shape = LoadShape {
        clients,
        max_tries: 1000,
        ..LoadShape::default()
    };
    let connector = File(path.clone());
    let mut trial = Trial::plain(p, 4, &stop, &connector);
    trial.load = &shape;
    let types = Queue.operation_types(p, None);
    let mut rec = Recorder::of_types(&types, None);
    Queue.run(&mut conn, &trial, &mut rec).expect("trial");
    Queue.verify(&mut conn, p).expect("verify");
    (rec.finish().0, dir, path)
}

fn ops(results: &[crate::model::op::OpResult], op: Op) -> &crate::model::op::OpResult {
    &results[op as usize]
}

#[test]
fn a_mix_enqueues_claims_finishes_and_prunes_and_loses_nothing() {
    let p = params(&["backlog=20", "transactions=600", "prune_every=50", "retention=0s"]);
    let (r, _dir, path) = trial(&p, 2);
    let enqueued = ops(&r, Op::Enqueue).succeeded();
    let claimed = ops(&r, Op::QueueWait).ops;
    let finished = ops(&r, Op::Finish).succeeded();
    assert!(
        enqueued > 100 && claimed > 100,
        "enqueued {enqueued}, claimed {claimed}"
    );
    assert!(ops(&r, Op::Prune).ops >= 10, "prunes: {}", ops(&r, Op::Prune).ops);
    // A client finishes what it claims before anything else; at most one job per client is
    // still held when the trial's count runs out.
    assert!(claimed - finished <= 2, "claimed {claimed}, finished {finished}");
    assert_eq!(ops(&r, Op::QueueWait).part_of.as_deref(), Some("claim"));
    let mut conn = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
    let ready = count(&mut conn, "SELECT count(*) FROM solid_queue_ready_executions").unwrap();
    assert_eq!(
        ready as u64,
        20 + enqueued - claimed,
        "the depth the report derives is the table's"
    );
}

#[test]
fn workers_drain_a_backlog_and_wait_as_long_as_it_took() {
    let p = params(&[
        "role=worker",
        "backlog=200",
        "transactions=400",
        "batch=2",
        "poll_interval=1ms",
    ]);
    let (r, _dir, _path) = trial(&p, 2);
    // 100 claims of two jobs and 200 finishes, or thereabouts: every job claimed once.
    let claimed = ops(&r, Op::QueueWait).ops;
    assert!((190..=200).contains(&claimed), "claimed {claimed} of the backlog's 200");
    assert_eq!(ops(&r, Op::Enqueue).ops, 0);
    assert!(ops(&r, Op::QueueWait).latency.max_ns > 0);
}

#[test]
fn an_empty_queue_is_an_empty_poll_and_a_rest() {
    let p = params(&["role=worker", "backlog=0", "transactions=6", "poll_interval=20ms"]);
    let started = std::time::Instant::now();
    let (r, _dir, _path) = trial(&p, 1);
    assert_eq!(ops(&r, Op::Claim).ops, 6);
    assert_eq!(ops(&r, Op::Claim).succeeded(), 0);
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(100),
        "rested between polls"
    );
}

#[test]
fn a_janitor_clears_only_jobs_finished_before_the_retention() {
    let p = params(&["role=janitor", "backlog=0", "transactions=2", "prune_interval=0s"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.db");
    let mut conn = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
    Queue.populate(&mut conn, &Population::plain(&p, 1)).unwrap();
    let now = client::now_us();
    conn.execute_batch(&format!(
        "INSERT INTO solid_queue_jobs (queue_name, class_name, created_at, updated_at, finished_at) VALUES \
         ('default', 'J', 0, 0, {old}), ('default', 'J', 0, 0, {new}), ('default', 'J', 0, 0, NULL)",
        old = now - 10_000_000,
        new = now + 10_000_000,
    ))
    .unwrap();
    // The unfinished job needs its ready execution to verify.
    conn.execute_batch(
        "INSERT INTO solid_queue_ready_executions (job_id, queue_name, created_at) VALUES (3, 'default', 0)",
    )
    .unwrap();
    let stop = AtomicBool::new(false);
    let connector = File(path.clone());
    let trial = Trial::plain(&p, 1, &stop, &connector);
    let types = Queue.operation_types(&p, None);
    let mut rec = Recorder::of_types(&types, None);
    Queue.run(&mut conn, &trial, &mut rec).expect("trial");
    Queue.verify(&mut conn, &p).expect("verify");
    assert_eq!(count(&mut conn, "SELECT count(*) FROM solid_queue_jobs").unwrap(), 2);
}

#[test]
fn verify_finds_a_lost_job() {
    let p = params(&["backlog=3"]);
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
    Queue.populate(&mut conn, &Population::plain(&p, 1)).unwrap();
    Queue.verify(&mut conn, &p).expect("a fresh backlog verifies");
    conn.execute_batch("DELETE FROM solid_queue_ready_executions WHERE job_id = 2")
        .unwrap();
    let e = Queue.verify(&mut conn, &p).unwrap_err().to_string();
    assert!(e.contains("3 unfinished jobs but 2 ready and 0 claimed"), "{e}");
}

/// Solid Queue never retries a worker's claim (its error ends the worker, and a new one polls
/// afresh): with `--max-tries 1000` and another connection holding the write lock, each of a
/// worker's claims meets the lock once (at its `BEGIN IMMEDIATE`), is counted failed with no
/// retry, and the worker rests before its next poll instead of meeting the lock again at once.
#[test]
fn a_worker_does_not_retry_a_claim_that_met_a_lock() {
    let p = params(&["role=worker", "backlog=5", "transactions=20", "restart=20ms"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.db");
    let mut conn = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
    Queue.populate(&mut conn, &Population::plain(&p, 1)).unwrap();
    conn.execute_batch("PRAGMA journal_mode = wal; PRAGMA busy_timeout = 0")
        .unwrap();
    let mut holder = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let stop = AtomicBool::new(false);
    let shape = LoadShape {
        clients: 1,
        max_tries: 1000,
        ..LoadShape::default()
    };
    let connector = File(path.clone());
    let mut trial = Trial::plain(&p, 1, &stop, &connector);
    trial.load = &shape;
    let types = Queue.operation_types(&p, None);
    let mut rec = Recorder::of_types(&types, None);
    let started = std::time::Instant::now();
    Queue.run(&mut conn, &trial, &mut rec).expect("trial");
    let took = started.elapsed();
    let r = rec.finish().0;
    let claim = ops(&r, Op::Claim);
    assert_eq!(claim.failed, 20, "{claim:?}");
    assert_eq!(claim.busy, 20, "every claim met the lock at its BEGIN: {claim:?}");
    assert_eq!(claim.retries, 0, "none was retried: {claim:?}");
    // 20 rests drawn up to 20 ms each from the client's seed (about 200 ms in all).
    assert!(
        took >= std::time::Duration::from_millis(60),
        "the worker rested: {took:?}"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    Queue.verify(&mut conn, &p).expect("nothing lost");
}
