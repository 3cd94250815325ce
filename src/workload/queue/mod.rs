//! `queue`: a job queue on the database, shaped after Rails' Solid Queue (rails/solid_queue,
//! commit 29e818d): producers enqueue jobs, workers claim them in a transaction and finish
//! them, and a janitor clears finished jobs past a retention window. Rails 8 and Laravel put
//! their queues on SQLite; this is the workload that says what a queue gets from it.
//!
//! - [`schema`]: Solid Queue's three tables and the statements ActiveRecord issues;
//! - [`client`]: a producer, a worker, the janitor, or one client doing all three (`mix`);
//! - [`report`]: the answer a queue's owner wants: jobs per second in and out, the wait from
//!   enqueue to claim, the queue's depth over time, and failures by cause.
//!
//! Without a cast every client is a `mix` client; with one (`--cast`), producers, workers and
//! the janitor are roles with `--param role=...`, each with its own clients and rate. The
//! claim's wait is recorded as a part of the claim (`queue wait`, one per claimed job), so its
//! percentiles and its count per interval (jobs claimed) are in every report and time series.
//! Every deviation from Solid Queue is listed in docs/workloads.md.

pub mod client;
pub mod report;
pub mod schema;

use super::load::{self, Budget, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::control::Control;
use crate::engines::{Connection, Dialect, EngineError, Value};
use crate::model::op::OpType;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use client::{Op, QueueClient, Role, Settings, OPS, ROLES};

/// The workload.
pub struct Queue;

/// Most jobs and transactions a run may ask for.
pub const MAX_COUNT: u64 = 1_000_000_000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "role",
        kind: ParamKind::Choice(&ROLES),
        default: "mix",
        help: "what each client does: producer (enqueues), worker (claims and finishes), janitor (clears finished jobs), or mix (all three in one client: enqueue or claim at even odds, finish what it claimed, prune every prune_every transactions); give roles their own with a cast",
    },
    ParamSpec {
        name: "backlog",
        kind: ParamKind::Count { min: 0, max: MAX_COUNT },
        default: "100",
        help: "ready jobs in the template, enqueued before the trial (their wait counts from the trial's start)",
    },
    ParamSpec {
        name: "batch",
        kind: ParamKind::Count { min: 1, max: 100 },
        default: "1",
        help: "jobs a claim takes at most (Solid Queue: the worker's idle threads, 3 by default)",
    },
    ParamSpec {
        name: "payload",
        kind: ParamKind::Bytes { min: 0, max: 1 << 20 },
        default: "400",
        help: "bytes of a job's serialized arguments (ActiveJob's JSON)",
    },
    ParamSpec {
        name: "poll_interval",
        kind: ParamKind::Duration { allow_zero: true },
        default: "100ms",
        help: "how long a worker rests after a claim that found no job (Solid Queue's polling_interval, 0.1 s)",
    },
    ParamSpec {
        name: "job_time",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "how long a worker's job runs between its claim and its finish (untimed)",
    },
    ParamSpec {
        name: "restart",
        kind: ParamKind::Duration { allow_zero: true },
        default: "1s",
        help: "a worker whose claim met a lock rests a time drawn up to this, then polls again: Solid Queue's worker ends on the error and its supervisor, checking once a second, starts another (a worker's claim and finish are never retried, whatever --max-tries says)",
    },
    ParamSpec {
        name: "retention",
        kind: ParamKind::Duration { allow_zero: true },
        default: "1s",
        help: "how long a finished job is kept before the janitor may clear it (Solid Queue's clear_finished_jobs_after, 1 day)",
    },
    ParamSpec {
        name: "prune_batch",
        kind: ParamKind::Count { min: 1, max: 100_000 },
        default: "500",
        help: "jobs one prune deletes at most (clear_finished_in_batches' batch_size)",
    },
    ParamSpec {
        name: "prune_interval",
        kind: ParamKind::Duration { allow_zero: true },
        default: "1s",
        help: "how long the janitor rests after a prune that was not a full batch",
    },
    ParamSpec {
        name: "prune_every",
        kind: ParamKind::Count { min: 1, max: MAX_COUNT },
        default: "100",
        help: "mix: a prune every this many transactions of a client",
    },
    ParamSpec {
        name: "transactions",
        kind: ParamKind::Count { min: 1, max: MAX_COUNT },
        default: "2000",
        help: "transactions per trial over all clients",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run every client for this long instead (0: run `transactions`)",
    },
];

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "queue",
    about: "a job queue after Rails' Solid Queue: producers enqueue, workers claim (FOR UPDATE SKIP LOCKED where the engine has it) and finish, a janitor clears finished jobs",
    source: "rails/solid_queue (commit 29e818d): queue_schema.rb, ReadyExecution.claim, ClaimedExecution#finished, Job.clear_finished_in_batches",
    params: PARAMS,
    operations: &OPS,
    default_knobs: RAILS_SQLITE,
    ..WorkloadKind::BASE
};

/// What Rails 8's SQLite adapter sets on every connection (`SQLite3Adapter::DEFAULT_PRAGMAS`,
/// and the `timeout: 5000` of its generated database.yml), so that the queue runs on SQLite as
/// a Rails application's does; `--knob` overrides each. Engines without a knob skip it.
const RAILS_SQLITE: &[(&str, &str)] = &[
    ("journal_mode", "wal"),
    ("synchronous", "normal"),
    ("foreign_keys", "on"),
    ("mmap_size", "134217728"),
    ("journal_size_limit", "67108864"),
    ("cache_size", "2000"),
    ("busy_timeout", "5000"),
];

/// The parameters as a client runs them.
pub fn settings(p: &Params) -> Settings {
    Settings {
        role: Role::parse(p.choice("role")),
        batch: p.count("batch").max(1),
        payload: p.count("payload") as usize,
        poll_interval: p.duration("poll_interval"),
        retention: p.duration("retention"),
        prune_batch: p.count("prune_batch").max(1),
        prune_interval: p.duration("prune_interval"),
        prune_every: p.count("prune_every").max(1),
        job_time: p.duration("job_time"),
        restart: p.duration("restart"),
    }
}

fn count(conn: &mut dyn Connection, sql: &str) -> Result<i64, EngineError> {
    Ok(conn.query_value(sql)?.and_then(|s| s.trim().parse().ok()).unwrap_or(-1))
}

impl Workload for Queue {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    /// Its transactions travel as data: a claim's per-job statements bind the ids its own select
    /// returned, run by the driver per row ([`crate::model::driver::Step::each`]), and each
    /// client is sent one transaction at a time, since what it does next (finish which job,
    /// rest how long) rests on what the last one got ([`client::QueueClient`]'s `fed`).
    fn driver_refusal(&self, _p: &Params) -> Option<String> {
        None
    }

    /// `begin`: the statement enqueue, claim and finish start with.
    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        if knob == crate::engines::sqlite::knobs::BEGIN_KNOB {
            Ok(())
        } else {
            Err(format!("no statement of queue reads {knob}"))
        }
    }

    /// The claim's wait is a part of the claim.
    fn operation_types(&self, _p: &Params, _dialect: Option<Dialect>) -> Vec<OpType> {
        OPS.iter()
            .enumerate()
            .map(|(i, name)| OpType {
                name,
                part_of: (i == Op::QueueWait as usize).then_some(OPS[Op::Claim as usize]),
            })
            .collect()
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        self
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        let d = conn.dialect();
        if d == Dialect::Duckdb {
            return Err(EngineError {
                busy_cause: None,
                engine: "queue".into(),
                kind: crate::engines::ErrorKind::Input,
                code: None,
                message: "DuckDB is not a queue's engine: its optimistic transactions make concurrent claims of the same job conflict instead of wait or skip; run queue on sqlite, turso, libsql, postgres or mariadb".into(),
                context: "creating Solid Queue's tables".into(),
            }
            .into());
        }
        for stmt in schema::create(d) {
            conn.execute_batch(&stmt)?;
        }
        let backlog = pop.params.count("backlog");
        if backlog == 0 {
            return Ok(0);
        }
        let job = conn.prepare(&schema::insert_job())?;
        let ready = conn.prepare(&schema::insert_ready(d))?;
        let begin = Control::prepare(conn, d.begin_write());
        let commit = Control::prepare(conn, "COMMIT");
        let p = settings(pop.params);
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(pop.seed);
        let mut args = String::new();
        begin.run(conn)?;
        for n in 0..backlog {
            let id = format!("backlog-{n}");
            // Enqueued before the trial: timestamp 0, read by a claim as the trial's start.
            client::arguments(&id, 0, p.payload, &mut rng, &mut args);
            conn.run(
                job,
                &[
                    Value::Text(client::QUEUE),
                    Value::Text(client::CLASS_NAME),
                    Value::Text(&args),
                    Value::Int(0),
                    Value::Text(&id),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Int(0),
                ],
            )?;
            conn.run(ready, &[Value::Text(client::QUEUE), Value::Int(0), Value::Int(0)])?;
            if n % 10_000 == 9_999 {
                commit.run(conn)?;
                pop.check()?;
                begin.run(conn)?;
            }
        }
        commit.run(conn)?;
        Ok(backlog)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    /// Every unfinished job has exactly one execution, ready or claimed, and every execution
    /// belongs to an unfinished job: no job was lost, claimed twice, or finished while held.
    fn verify(&self, conn: &mut dyn Connection, _p: &Params) -> Result<(), WorkloadError> {
        use schema::{CLAIMED, JOBS, READY};
        let fail = |detail: String| WorkloadError::Verification {
            workload: "queue".into(),
            detail,
        };
        let unfinished = count(conn, &format!("SELECT count(*) FROM {JOBS} WHERE finished_at IS NULL"))?;
        let ready = count(conn, &format!("SELECT count(*) FROM {READY}"))?;
        let claimed = count(conn, &format!("SELECT count(*) FROM {CLAIMED}"))?;
        if unfinished != ready + claimed {
            return Err(fail(format!(
                "{unfinished} unfinished jobs but {ready} ready and {claimed} claimed executions: a job was lost or held twice"
            )));
        }
        let orphans = count(
            conn,
            &format!(
                "SELECT count(*) FROM {READY} r LEFT JOIN {JOBS} j ON j.id = r.job_id WHERE j.id IS NULL OR j.finished_at IS NOT NULL"
            ),
        )? + count(
            conn,
            &format!(
                "SELECT count(*) FROM {CLAIMED} c LEFT JOIN {JOBS} j ON j.id = c.job_id WHERE j.id IS NULL OR j.finished_at IS NOT NULL"
            ),
        )?;
        let both = count(
            conn,
            &format!("SELECT count(*) FROM {READY} r JOIN {CLAIMED} c ON c.job_id = r.job_id"),
        )?;
        if orphans != 0 || both != 0 {
            return Err(fail(format!(
                "{orphans} executions of missing or finished jobs and {both} jobs both ready and claimed"
            )));
        }
        Ok(())
    }
}

impl Streams for Queue {
    type Client<'c> = QueueClient<'c>;

    fn budget(&self, params: &Params) -> Budget {
        Budget::timed_or(params.duration("duration"), Budget::Count(params.count("transactions")))
    }

    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        Some(crate::model::stop_rule::StopParams {
            count: "transactions",
            duration: "duration",
        })
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        _clients: u32,
        seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        // A process id per client: distinct within a role; roles' clients draw distinct seeds,
        // which tell their processes apart.
        let process_id = i64::from(index) + 1 + ((seed >> 40) as i64) * 1_000_000;
        Ok(QueueClient::new(conn, settings(params), process_id, seed)?)
    }
}

#[cfg(test)]
mod tests;
