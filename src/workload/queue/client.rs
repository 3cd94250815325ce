//! One client of the queue: a producer, a worker, the janitor, or all three in turn (`mix`),
//! and how each of its transactions runs.
//!
//! | operation | statements | successful when |
//! | --- | --- | --- |
//! | enqueue | in a write transaction: the job's row, then its ready execution | always |
//! | claim | in a write transaction: select up to `batch` ready executions in job order (`FOR UPDATE SKIP LOCKED` on PostgreSQL and MariaDB), then per job insert the claimed execution, load it back and delete the ready one | a job was claimed |
//! | queue wait | a part of claim: per claimed job, the time from its enqueue to its claim | - |
//! | finish | in a write transaction: lock the claimed execution, set the job's `finished_at`, delete the claimed execution | the claimed execution was there |
//! | prune | in autocommit: delete up to `prune_batch` jobs finished more than `retention` ago | always |
//!
//! A worker finishes the jobs it claimed one at a time, as Solid Queue's worker threads do,
//! and claims again when it holds none; a claim that finds no job is an empty poll (recorded
//! as not successful), after which a worker rests `poll_interval` (Solid Queue's
//! `polling_interval`), untimed. The janitor rests `prune_interval` after a batch that was not
//! full. Write transactions start with the connection's write `BEGIN` (SQLite: the `begin`
//! knob, `BEGIN IMMEDIATE` unless it is set).
//!
//! A worker's claim or finish that meets a lock is never tried again, whatever `--max-tries`
//! says, because Solid Queue's is not (rails/solid_queue 29e818d): a claim's error escapes the
//! worker's poll loop and ends the worker, and its supervisor, which checks its processes once a
//! second, starts another that polls afresh; a finish's error ends the job's thread and leaves
//! the job claimed. So a worker whose claim met a lock rests a time drawn up to `restart` (the
//! supervisor's check) before it polls again, and one whose finish met a lock drops the job,
//! which stays claimed. Retrying at once, with no rest, makes a worker meet the same lock
//! thousands of times a second: failures of the harness, not of the queue.

use super::schema;
use crate::engines::control::Control;
use crate::engines::values::{CellRef, Values};
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::model::driver::{Bound, Outcome, Step};
use crate::workload::load::{Client, Fed, Hooks, Judged};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Operation types, in report order ([`OPS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Enqueue = 0,
    Claim = 1,
    QueueWait = 2,
    Finish = 3,
    Prune = 4,
}

/// The recorder's names of the operations.
pub const OPS: [&str; 5] = ["enqueue", "claim", "queue wait", "finish", "prune"];

/// What a client does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Enqueues, claims and finishes, and prunes every `prune_every` transactions: the queue
    /// as one client mix, for runs without a cast.
    Mix,
    Producer,
    Worker,
    Janitor,
}

/// The values of `--param role`.
pub const ROLES: [&str; 4] = ["mix", "producer", "worker", "janitor"];

impl Role {
    pub fn parse(s: &str) -> Role {
        match s {
            "producer" => Role::Producer,
            "worker" => Role::Worker,
            "janitor" => Role::Janitor,
            _ => Role::Mix,
        }
    }
}

/// The parameters a client runs with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub role: Role,
    /// Jobs a claim takes at most (Solid Queue: the worker's idle threads).
    pub batch: u64,
    /// Bytes of a job's serialized arguments.
    pub payload: usize,
    pub poll_interval: Duration,
    /// How long a finished job is kept (`clear_finished_jobs_after`).
    pub retention: Duration,
    pub prune_batch: u64,
    pub prune_interval: Duration,
    /// Mix: a prune every this many transactions.
    pub prune_every: u64,
    /// Worker: how long a claimed job runs before it is finished (untimed).
    pub job_time: Duration,
    /// Worker: the longest rest after a claim that met a lock (Solid Queue's supervisor
    /// replaces a worker that ended on an error at its next check, once a second).
    pub restart: Duration,
}

/// Microseconds since the Unix epoch: the timestamps of the tables.
pub fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// A cell as an integer (engines give ids and bigints as integers, text or decimals).
fn int_at(v: &Values, i: usize) -> Option<i64> {
    match v.get(i) {
        CellRef::Int(n) => Some(n),
        CellRef::Decimal { value, .. } | CellRef::Real(value) => Some(value as i64),
        CellRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// A row that does not read back as the queue's tables hold it.
fn unexpected(message: String) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: "queue".into(),
        kind: crate::engines::ErrorKind::Other,
        code: None,
        message,
        context: "claiming a job".into(),
    }
}

/// The recording connection a driven client makes its transactions on.
fn recording(conn: &mut dyn Connection) -> Result<&mut crate::engines::recording::Recording, EngineError> {
    conn.recording()
        .ok_or_else(|| unexpected("a transaction made as data needs the recording connection".into()))
}

/// The statements, prepared on one connection.
struct Statements {
    insert_job: StmtId,
    insert_ready: StmtId,
    select_candidates: StmtId,
    insert_claimed: StmtId,
    load_claimed: StmtId,
    delete_ready: StmtId,
    lock_claimed: StmtId,
    finish_job: StmtId,
    delete_claimed: StmtId,
    clear_finished: StmtId,
    begin: Control,
    commit: Control,
    rollback: Control,
}

impl Statements {
    fn prepare(conn: &mut dyn Connection) -> Result<Statements, EngineError> {
        let d = conn.dialect();
        let begin = conn.begin_write();
        Ok(Statements {
            insert_job: conn.prepare(&schema::insert_job())?,
            insert_ready: conn.prepare(&schema::insert_ready(d))?,
            select_candidates: conn.prepare(&schema::select_candidates(d))?,
            insert_claimed: conn.prepare(&schema::insert_claimed())?,
            load_claimed: conn.prepare(&schema::load_claimed())?,
            delete_ready: conn.prepare(&schema::delete_ready())?,
            lock_claimed: conn.prepare(&schema::lock_claimed(d))?,
            finish_job: conn.prepare(&schema::finish_job())?,
            delete_claimed: conn.prepare(&schema::delete_claimed())?,
            clear_finished: conn.prepare(&schema::clear_finished(d))?,
            begin: Control::prepare(conn, begin),
            commit: Control::prepare(conn, "COMMIT"),
            rollback: Control::prepare(conn, "ROLLBACK"),
        })
    }
}

/// The class every job names (Rails' job class name column).
pub const CLASS_NAME: &str = "BenchmarkJob";
/// The one queue.
pub const QUEUE: &str = "default";

/// ActiveJob's serialization of a job with one string argument, padded to `payload` bytes
/// with that argument.
pub fn arguments(active_job_id: &str, enqueued_us: i64, payload: usize, rng: &mut ChaCha8Rng, out: &mut String) {
    use std::fmt::Write;
    out.clear();
    let _ = write!(
        out,
        r#"{{"job_class":"{CLASS_NAME}","job_id":"{active_job_id}","provider_job_id":null,"queue_name":"{QUEUE}","priority":null,"arguments":[""#
    );
    let mut tail = String::new();
    let _ = write!(
        tail,
        r#""],"executions":0,"exception_executions":{{}},"locale":"en","timezone":"UTC","enqueued_at":"{enqueued_us}","scheduled_at":null}}"#
    );
    let fill = payload.saturating_sub(out.len() + tail.len());
    for _ in 0..fill {
        out.push(char::from(b'a' + rng.random_range(0..26u8)));
    }
    out.push_str(&tail);
}

/// One client of the queue.
pub struct QueueClient<'c> {
    conn: &'c mut dyn Connection,
    st: Statements,
    settings: Settings,
    rng: ChaCha8Rng,
    /// `claimed_executions.process_id`.
    process_id: i64,
    drawn: Op,
    /// Claimed executions this client holds, `(execution id, job id)`, oldest first.
    held: VecDeque<(i64, i64)>,
    /// The last claim's jobs' waits, as parts.
    parts: Vec<(usize, u64)>,
    /// The jobs a claim took, `(execution id, job id, wait ns)`, kept until it commits.
    got: Vec<(i64, i64, u64)>,
    /// Whether to rest after the transaction that just ended, and how long.
    rest: Option<Duration>,
    transactions: u64,
    /// When the client was made, microseconds since the epoch: the enqueue time of the
    /// backlog's jobs (timestamp 0), which were ready when the trial began.
    started_us: i64,
    out: Values,
    claimed: Values,
    active_job_id: String,
    args: String,
    /// Its transactions are made as data for a driver ([`Connection::recording`]): a claim and
    /// a finish are learnt from what the driver hands back ([`Client::fed`]).
    driven: bool,
    /// A claim made as data: the time it stamps its claimed executions with, microseconds.
    claim_us: i64,
}

impl<'c> QueueClient<'c> {
    pub fn new(
        conn: &'c mut dyn Connection,
        settings: Settings,
        process_id: i64,
        seed: u64,
    ) -> Result<QueueClient<'c>, EngineError> {
        let st = Statements::prepare(conn)?;
        let driven = conn.recording().is_some();
        Ok(QueueClient {
            driven,
            claim_us: 0,
            conn,
            st,
            rng: ChaCha8Rng::seed_from_u64(seed),
            process_id,
            drawn: Op::Enqueue,
            held: VecDeque::new(),
            parts: Vec::with_capacity(settings.batch as usize),
            got: Vec::with_capacity(settings.batch as usize),
            rest: None,
            transactions: 0,
            started_us: now_us(),
            out: Values::with_capacity(3 * settings.batch as usize, 0),
            claimed: Values::with_capacity(2, 0),
            active_job_id: String::with_capacity(36),
            args: String::with_capacity(settings.payload + 64),
            settings,
        })
    }

    fn enqueue(&mut self) -> Result<bool, EngineError> {
        if self.driven {
            return self.enqueue_as_data();
        }
        let now = now_us();
        let s = &self.st;
        s.begin.run(self.conn)?;
        let run = |conn: &mut dyn Connection| -> Result<(), EngineError> {
            conn.run(
                s.insert_job,
                &[
                    Value::Text(QUEUE),
                    Value::Text(CLASS_NAME),
                    Value::Text(&self.args),
                    Value::Int(0),
                    Value::Text(&self.active_job_id),
                    Value::Int(now),
                    Value::Int(now),
                    Value::Int(now),
                ],
            )?;
            conn.run(s.insert_ready, &[Value::Text(QUEUE), Value::Int(0), Value::Int(now)])?;
            s.commit.run(conn)
        };
        run(self.conn).inspect_err(|_| {
            let _ = s.rollback.run(self.conn);
        })?;
        Ok(true)
    }

    fn claim(&mut self) -> Result<bool, EngineError> {
        self.parts.clear();
        self.got.clear();
        if self.driven {
            return self.claim_as_data();
        }
        if let Err(e) = self.st.begin.run(self.conn) {
            self.met_lock(&e, Op::Claim);
            return Err(e);
        }
        let s = &self.st;
        let result = (|| -> Result<(), EngineError> {
            self.out.clear();
            let rows = self.conn.run_values(
                s.select_candidates,
                &[Value::Int(self.settings.batch as i64)],
                &mut self.out,
            )?;
            let now = now_us();
            for r in 0..rows as usize {
                let (Some(id), Some(job), Some(created)) = (
                    int_at(&self.out, 3 * r),
                    int_at(&self.out, 3 * r + 1),
                    int_at(&self.out, 3 * r + 2),
                ) else {
                    return Err(unexpected(format!(
                        "a ready execution read back as {}; expected three integers",
                        self.out.describe(3 * r..3 * r + 3)
                    )));
                };
                self.conn.run(
                    s.insert_claimed,
                    &[Value::Int(job), Value::Int(self.process_id), Value::Int(now)],
                )?;
                self.claimed.clear();
                self.conn.run_values(
                    s.load_claimed,
                    &[Value::Int(job), Value::Int(self.process_id)],
                    &mut self.claimed,
                )?;
                let exec = int_at(&self.claimed, 0).ok_or_else(|| {
                    unexpected(format!(
                        "the claimed execution of job {job} was not found after its insert"
                    ))
                })?;
                self.conn.run(s.delete_ready, &[Value::Int(id)])?;
                let since = if created == 0 { self.started_us } else { created };
                self.got.push((exec, job, (now - since).max(0) as u64 * 1000));
            }
            s.commit.run(self.conn)
        })();
        if let Err(e) = result {
            let _ = s.rollback.run(self.conn);
            self.met_lock(&e, Op::Claim);
            return Err(e);
        }
        for &(exec, job, wait_ns) in &self.got {
            self.held.push_back((exec, job));
            self.parts.push((Op::QueueWait as usize, wait_ns));
        }
        if self.got.is_empty() {
            if self.settings.role == Role::Worker {
                self.rest = Some(self.settings.poll_interval);
            }
            return Ok(false);
        }
        if self.settings.role == Role::Worker && !self.settings.job_time.is_zero() {
            self.rest = Some(self.settings.job_time);
        }
        Ok(true)
    }

    fn finish(&mut self) -> Result<bool, EngineError> {
        let Some(&(exec, job)) = self.held.front() else {
            return Ok(false);
        };
        if self.driven {
            return self.finish_as_data(exec, job);
        }
        if let Err(e) = self.st.begin.run(self.conn) {
            self.met_lock(&e, Op::Finish);
            return Err(e);
        }
        let s = &self.st;
        let result = (|| -> Result<bool, EngineError> {
            self.claimed.clear();
            let found = self
                .conn
                .run_values(s.lock_claimed, &[Value::Int(exec)], &mut self.claimed)?
                == 1;
            if found {
                let now = now_us();
                self.conn
                    .run(s.finish_job, &[Value::Int(now), Value::Int(now), Value::Int(job)])?;
                self.conn.run(s.delete_claimed, &[Value::Int(exec)])?;
            }
            s.commit.run(self.conn)?;
            Ok(found)
        })();
        match result {
            Ok(found) => {
                self.held.pop_front();
                Ok(found)
            }
            Err(e) => {
                let _ = s.rollback.run(self.conn);
                self.met_lock(&e, Op::Finish);
                Err(e)
            }
        }
    }

    /// A claim made as data for a driver: the same statements, in the same order, each
    /// execution's insert, load and ready delete run per row the select returned and bound to
    /// that row's ids; the select's and the loads' rows come back ([`Client::fed`]). Its
    /// timestamp is taken when it is made, just before it is sent, not after its select.
    fn claim_as_data(&mut self) -> Result<bool, EngineError> {
        let s = &self.st;
        s.begin.run(self.conn)?;
        let now = now_us();
        self.claim_us = now;
        let pid = Bound::Int(self.process_id);
        let rec = recording(self.conn)?;
        let pick = rec.record(Step {
            keep: true,
            ..Step::plain(s.select_candidates.0, vec![Bound::Int(self.settings.batch as i64)])
        });
        let row = |column| Bound::Ref { step: pick, column };
        for (stmt, params, keep) in [
            (s.insert_claimed, vec![row(1), pid.clone(), Bound::Int(now)], false),
            (s.load_claimed, vec![row(1), pid], true),
            (s.delete_ready, vec![row(0)], false),
        ] {
            rec.record(Step {
                each: Some(pick),
                keep,
                ..Step::plain(stmt.0, params)
            });
        }
        s.commit.run(self.conn)?;
        Ok(false)
    }

    /// An enqueue made as data: its timestamps are the driver's clock when it runs
    /// ([`Bound::NowUs`]), not when litebench made it a batch ahead, so that a job's wait runs
    /// from when it was enqueued.
    fn enqueue_as_data(&mut self) -> Result<bool, EngineError> {
        let s = &self.st;
        s.begin.run(self.conn)?;
        let now = Bound::NowUs(0);
        let rec = recording(self.conn)?;
        rec.record(Step::plain(
            s.insert_job.0,
            vec![
                Bound::Text(QUEUE.into()),
                Bound::Text(CLASS_NAME.into()),
                Bound::Text(self.args.clone()),
                Bound::Int(0),
                Bound::Text(self.active_job_id.clone()),
                now.clone(),
                now.clone(),
                now.clone(),
            ],
        ));
        rec.record(Step::plain(
            s.insert_ready.0,
            vec![Bound::Text(QUEUE.into()), Bound::Int(0), now],
        ));
        s.commit.run(self.conn)?;
        Ok(true)
    }

    /// A finish made as data: the claimed execution locked, and only where it is still there
    /// the job finished (at the driver's clock) and the execution deleted ([`Step::need`]).
    fn finish_as_data(&mut self, exec: i64, job: i64) -> Result<bool, EngineError> {
        let s = &self.st;
        s.begin.run(self.conn)?;
        let now = Bound::NowUs(0);
        let rec = recording(self.conn)?;
        rec.record(Step {
            need: true,
            ..Step::plain(s.lock_claimed.0, vec![Bound::Int(exec)])
        });
        rec.record(Step::plain(s.finish_job.0, vec![now.clone(), now, Bound::Int(job)]));
        rec.record(Step::plain(s.delete_claimed.0, vec![Bound::Int(exec)]));
        s.commit.run(self.conn)?;
        Ok(false)
    }

    /// A worker's claim or finish met a lock (at its `BEGIN` or after): not tried again (the
    /// module's docs). A claim's worker rests until its replacement would poll; a finish's job
    /// is dropped, left claimed, as its thread ended on the error.
    fn met_lock(&mut self, e: &EngineError, op: Op) {
        if e.lock_cause().is_some() {
            self.locked(op);
        }
    }

    /// [`QueueClient::met_lock`], once the lock is known.
    fn locked(&mut self, op: Op) {
        if self.settings.role != Role::Worker {
            return;
        }
        match op {
            Op::Claim => self.rest = Some(self.restart_rest()),
            Op::Finish => {
                self.held.pop_front();
            }
            _ => {}
        }
    }

    /// The rest of a worker whose claim met a lock: until Solid Queue's supervisor starts its
    /// replacement, at a check drawn uniformly within `restart` (the error and the check are
    /// not in step).
    fn restart_rest(&mut self) -> Duration {
        let max = self.settings.restart.as_nanos() as u64;
        Duration::from_nanos(if max == 0 { 0 } else { self.rng.random_range(0..=max) })
    }

    fn prune(&mut self) -> Result<bool, EngineError> {
        let retention_us = self.settings.retention.as_micros() as i64;
        if self.driven {
            // The janitor's rest rests on how many it deleted: see `fed`.
            let rec = recording(self.conn)?;
            rec.record(Step::plain(
                self.st.clear_finished.0,
                vec![
                    Bound::NowUs(-retention_us),
                    Bound::Int(self.settings.prune_batch as i64),
                ],
            ));
            return Ok(true);
        }
        let before = now_us() - retention_us;
        let deleted = self.conn.run(
            self.st.clear_finished,
            &[Value::Int(before), Value::Int(self.settings.prune_batch as i64)],
        )?;
        if self.settings.role == Role::Janitor && deleted < self.settings.prune_batch {
            self.rest = Some(self.settings.prune_interval);
        }
        Ok(true)
    }

    /// A new job's identity and arguments, drawn before the enqueue's clock starts.
    fn draw_job(&mut self) {
        let mut bytes = [0u8; 16];
        self.rng.fill_bytes(&mut bytes);
        let id = uuid::Builder::from_random_bytes(bytes).into_uuid();
        self.active_job_id.clear();
        self.active_job_id
            .push_str(id.hyphenated().encode_lower(&mut uuid::Uuid::encode_buffer()));
        arguments(
            &self.active_job_id,
            now_us(),
            self.settings.payload,
            &mut self.rng,
            &mut self.args,
        );
    }
}

impl Client for QueueClient<'_> {
    fn draw(&mut self) -> usize {
        self.rest = None;
        self.transactions += 1;
        let op = match self.settings.role {
            Role::Producer => Op::Enqueue,
            Role::Janitor => Op::Prune,
            Role::Worker if self.held.is_empty() => Op::Claim,
            Role::Worker => Op::Finish,
            Role::Mix if !self.held.is_empty() => Op::Finish,
            Role::Mix if self.transactions.is_multiple_of(self.settings.prune_every.max(1)) => Op::Prune,
            Role::Mix if self.rng.random_bool(0.5) => Op::Enqueue,
            Role::Mix => Op::Claim,
        };
        if op == Op::Enqueue {
            self.draw_job();
        }
        self.drawn = op;
        op as usize
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        match self.drawn {
            Op::Enqueue => self.enqueue(),
            Op::Claim => self.claim(),
            Op::Finish => self.finish(),
            Op::Prune => self.prune(),
            Op::QueueWait => Ok(true),
        }
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            parts: true,
            pause: matches!(self.settings.role, Role::Worker | Role::Janitor),
            // A producer's enqueues rest on nothing they return: sent ahead in batches.
            fed: self.driven && self.settings.role != Role::Producer,
            ..Hooks::default()
        }
    }

    fn parts(&mut self) -> &[(usize, u64)] {
        if self.drawn == Op::Claim {
            &self.parts
        } else {
            &[]
        }
    }

    fn pause(&self) -> Option<Duration> {
        self.rest
    }

    /// A worker's claim and finish are never retried (the module's docs).
    fn retries(&self) -> bool {
        self.settings.role != Role::Worker
    }

    /// A claim succeeded where it took a job (its last step, a ready execution's delete,
    /// changed a row); a finish where its claimed execution was there.
    fn judged(&self) -> Judged {
        Judged {
            by_last_count: matches!(self.drawn, Op::Claim | Op::Finish),
            rejectable: false,
        }
    }

    /// What a claim took (its select's rows and each execution's id loaded back), as
    /// [`QueueClient::claim`] keeps it; a finish's job let go; a janitor's rest after a batch
    /// that was not full; a lock met as the module says.
    fn fed(&mut self, answer: &Fed<'_>) {
        let (outcome, kept) = (answer.outcome, answer.kept);
        if outcome != Outcome::Ok {
            if matches!(
                outcome,
                Outcome::BusyTimeout | Outcome::BusyUpgrade | Outcome::BusySnapshot | Outcome::Locked
            ) {
                self.locked(self.drawn);
            }
            return;
        }
        match self.drawn {
            Op::Claim => {
                let rows = |step| kept.iter().filter(move |(s, _)| *s == step).map(|(_, r)| r);
                for (picked, loaded) in rows(0).zip(rows(2)) {
                    let (Some(job), Some(created), Some(exec)) = (
                        picked.get(1).and_then(Bound::as_int),
                        picked.get(2).and_then(Bound::as_int),
                        loaded.first().and_then(Bound::as_int),
                    ) else {
                        continue;
                    };
                    let since = if created == 0 { self.started_us } else { created };
                    let wait_ns = (self.claim_us - since).max(0) as u64 * 1000;
                    self.held.push_back((exec, job));
                    self.parts.push((Op::QueueWait as usize, wait_ns));
                }
                if self.settings.role == Role::Worker {
                    if self.parts.is_empty() {
                        self.rest = Some(self.settings.poll_interval);
                    } else if !self.settings.job_time.is_zero() {
                        self.rest = Some(self.settings.job_time);
                    }
                }
            }
            Op::Finish => {
                self.held.pop_front();
            }
            Op::Prune if self.settings.role == Role::Janitor && answer.last < self.settings.prune_batch => {
                self.rest = Some(self.settings.prune_interval);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_activejob_shaped_and_as_long_as_asked() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut out = String::new();
        arguments("8f0e-id", 1_700_000_000_000_000, 400, &mut rng, &mut out);
        assert_eq!(out.len(), 400);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(v["job_class"], CLASS_NAME);
        assert_eq!(v["queue_name"], QUEUE);
        assert_eq!(v["arguments"].as_array().map(Vec::len), Some(1));
        // Shorter than the fixed fields: no padding, still JSON.
        arguments("x", 1, 10, &mut rng, &mut out);
        assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
    }
}
