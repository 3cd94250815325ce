//! `aging`: an append-and-expire table, as production logs, events, metrics and job histories
//! are, so that the database's size, its free pages and what `VACUUM` costs grow as they do in
//! production instead of on the fresh file every other workload starts from.
//!
//! Sources, each a thread that measured it by hand: a retention-pruned table at 61 GB for 3M
//! rows (tuist/tuist#9495), how long `VACUUM` blocks the rest of the application
//! (buildbot/buildbot#5443), incremental vacuum's cost, "track the duration too"
//! (getsentry/taskbroker#216).
//!
//! - [`schema`]: `events(id, ts, kind, source, payload)`, indexes on `ts`, `kind` and
//!   `source`, and the three statements;
//! - [`stream`]: a client's operations (an expire after every `expire_every` inserts, the rest
//!   by weight) and each insert's event on the logical clock.
//!
//! `pre_age=N` ages the template before anything is measured: N events inserted and expired
//! past the retention as they go, so a trial starts on a file with the free pages and the
//! fragmentation of a long-running database. The report ends with how big the file got: its
//! size, its free pages and the live payload.

pub mod schema;
pub mod stream;

use super::load::{self, Budget, Client, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::values::Values;
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::model::series::{Milestone, Series};
use crate::workload::recorder::Recorder;
use stream::{Mix, Op, Stream};

/// The workload.
pub struct Aging;

/// The retention the template is aged with: `pre_retention`, or the trial's.
fn template_retention(p: &Params) -> u64 {
    match p.count("pre_retention") {
        0 => p.count("retention"),
        n => n,
    }
}

/// The operation types, in [`Op`]'s order.
pub const OPS: [&str; 3] = ["insert", "expire", "read"];

/// Longest payload: SQLite's default limit on a string, blob or row (`SQLITE_MAX_LENGTH`, one
/// billion bytes), less a kilobyte for the row's other columns and header; a larger one is
/// refused when the parameters are read, naming `payload`, instead of failing inside the
/// trial as `string or blob too big`.
pub const MAX_PAYLOAD_BYTES: u64 = SQLITE_MAX_LENGTH - 1_000;

/// SQLite's default `SQLITE_MAX_LENGTH`: the longest string, blob or row, in bytes.
const SQLITE_MAX_LENGTH: u64 = 1_000_000_000;

/// Most events a template or a trial may ask for.
const MAX_EVENTS: u64 = 1_000_000_000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "retention",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_EVENTS,
        },
        default: "10000",
        help: "events an expire keeps: the newest N by the logical clock (older ones are deleted)",
    },
    ParamSpec {
        name: "payload",
        kind: ParamKind::Bytes {
            min: 0,
            max: MAX_PAYLOAD_BYTES,
        },
        default: "300",
        help: "bytes of each event's payload (random, so incompressible)",
    },
    ParamSpec {
        name: "pre_age",
        kind: ParamKind::Count {
            min: 0,
            max: MAX_EVENTS,
        },
        default: "0",
        help: "events inserted into the template and expired past the retention as they go, before anything is measured (a long-running database's free pages and fragmentation)",
    },
    ParamSpec {
        name: "pre_retention",
        kind: ParamKind::Count {
            min: 0,
            max: MAX_EVENTS,
        },
        default: "0",
        help: "the retention the template was aged with (0: the trial's); above `retention` it is a retention cut: the trial's first expire deletes the excess and leaves its pages free, as when an application shortens its history",
    },
    ParamSpec {
        name: "expire_every",
        kind: ParamKind::Count {
            min: 0,
            max: MAX_EVENTS,
        },
        default: "100",
        help: "an expire after every N of a client's inserts (0: expires only by expire_weight, e.g. a cast role of its own)",
    },
    ParamSpec {
        name: "insert_weight",
        kind: ParamKind::Count { min: 0, max: 1000 },
        default: "1",
        help: "weight of inserts among the drawn operations",
    },
    ParamSpec {
        name: "expire_weight",
        kind: ParamKind::Count { min: 0, max: 1000 },
        default: "0",
        help: "weight of expires among the drawn operations (besides those after every expire_every inserts)",
    },
    ParamSpec {
        name: "read_weight",
        kind: ParamKind::Count { min: 0, max: 1000 },
        default: "0",
        help: "weight of reads (the newest read_span events by ts) among the drawn operations",
    },
    ParamSpec {
        name: "read_span",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_EVENTS,
        },
        default: "100",
        help: "events a read returns: those of the newest N on the logical clock",
    },
    ParamSpec {
        name: "operations",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_EVENTS,
        },
        default: "10000",
        help: "transactions per trial over all clients (inserts, expires and reads)",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run every client for this long instead (0: run `operations` transactions)",
    },
];

/// The stream's shape from the parameters.
fn mix_of(p: &Params) -> Mix {
    Mix {
        expire_every: p.count("expire_every"),
        insert_weight: p.count("insert_weight"),
        expire_weight: p.count("expire_weight"),
        read_weight: p.count("read_weight"),
        payload: p.count("payload") as usize,
    }
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "aging",
    about: "append-and-expire: events inserted on a logical clock, those past the retention deleted, optionally from a pre-aged template; ends with the file's size, free pages and live payload",
    source: "production threads on retention-pruned tables: tuist/tuist#9495 (61 GB for 3M rows), buildbot/buildbot#5443 (VACUUM blocking), getsentry/taskbroker#216 (incremental vacuum's duration)",
    params: PARAMS,
    operations: &OPS,
    reports_db_size: true,
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

impl Workload for Aging {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        match knob {
            crate::engines::sqlite::knobs::BEGIN_KNOB => {
                Err("aging runs every statement in autocommit, in no transaction it starts".into())
            }
            _ => Err(format!("no statement of aging reads {knob}")),
        }
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        let m = mix_of(p);
        if m.insert_weight + m.expire_weight + m.read_weight == 0 {
            return Err(
                "--param insert_weight=0, expire_weight=0, read_weight=0: no operation to draw; give one of them a weight above 0"
                    .into(),
            );
        }
        Ok(())
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        self
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        conn.execute_batch(&schema::create(conn.dialect()))?;
        let p = pop.params;
        let events = p.count("pre_age");
        if events == 0 {
            return Ok(0);
        }
        // The template ages as production does: inserts in batches, each batch's expire
        // committed with it, so pages are freed and reused the way a running application's are.
        let batch = match p.count("expire_every") {
            0 => schema::DEFAULT_EXPIRE_EVERY,
            n => n,
        };
        let mix = Mix {
            expire_every: batch,
            insert_weight: 1,
            expire_weight: 0,
            read_weight: 0,
            payload: p.count("payload") as usize,
        };
        let mut stream = Stream::new(mix, 0, 0, 1, pop.seed);
        let insert = conn.prepare(schema::INSERT)?;
        let expire = conn.prepare(schema::EXPIRE)?;
        let retention = Value::Int(template_retention(p) as i64);
        conn.execute_batch("BEGIN")?;
        let mut inserted = 0;
        while inserted < events {
            if stream.draw() == Op::Expire {
                conn.run(expire, &[retention])?;
                conn.execute_batch("COMMIT; BEGIN")?;
                continue;
            }
            inserted += 1;
            pop.every(inserted)?;
            conn.run(insert, &schema::row(stream.event()))?;
        }
        conn.run(expire, &[retention])?;
        conn.execute_batch("COMMIT")?;
        Ok(events)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    /// Expires keep the newest `retention` events and inserts only add: the table holds at
    /// least as many as the template kept.
    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let least = p.count("retention").min(p.count("pre_age"));
        let got: u64 = conn
            .query_value("SELECT count(*) FROM events")?
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if got < least {
            return Err(WorkloadError::check_failed(
                "aging",
                format!("{got} events after the trial, expected at least {least}"),
            ));
        }
        Ok(())
    }
}

impl Streams for Aging {
    type Client<'c> = AgingClient<'c>;

    fn budget(&self, p: &Params) -> Budget {
        Budget::operations_or_duration(p)
    }

    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        Some(load::OPERATIONS_OR_DURATION)
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let stmts = [
            conn.prepare(schema::INSERT)?,
            conn.prepare(schema::EXPIRE)?,
            conn.prepare(schema::READ)?,
        ];
        Ok(AgingClient {
            conn,
            stmts,
            stream: Stream::new(mix_of(p), p.count("pre_age"), index, clients, seed),
            op: Op::Insert,
            retention: p.count("retention") as i64,
            read_span: p.count("read_span") as i64,
            out: Values::with_capacity(0, 0),
        })
    }
}

/// One client: its stream and its prepared statements. Every operation is one statement in
/// autocommit mode, its own transaction.
pub struct AgingClient<'c> {
    conn: &'c mut dyn Connection,
    stmts: [StmtId; 3],
    stream: Stream,
    op: Op,
    retention: i64,
    read_span: i64,
    out: Values,
}

impl Client for AgingClient<'_> {
    fn draw(&mut self) -> usize {
        self.op = self.stream.draw();
        self.op as usize
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let stmt = self.stmts[self.op as usize];
        match self.op {
            Op::Insert => Ok(self.conn.run(stmt, &schema::row(self.stream.event()))? == 1),
            Op::Expire => {
                self.conn.run(stmt, &[Value::Int(self.retention)])?;
                Ok(true)
            }
            Op::Read => {
                self.out.clear();
                self.conn
                    .run_values(stmt, &[Value::Int(self.read_span)], &mut self.out)?;
                Ok(true)
            }
        }
    }
}

/// What aging adds to its reports: the rows it keeps, beside the file's size, and the
/// retention cut that its WAL's steps and a cast's scheduled roles are placed against.
impl super::WorkloadReport for Aging {
    /// The newest `retention` events, or every event where fewer were ever inserted (an expire
    /// may be up to `expire_every` inserts behind, so this is the floor of what is kept).
    fn live_rows(&self, p: &Params, inserted: u64) -> Option<(u64, u64)> {
        // After a retention cut, as without one: the trial's expires keep its retention.
        let rows = p.count("retention").min(p.count("pre_age") + inserted);
        Some((rows, p.count("payload")))
    }

    /// The retention cut: where the template holds more events than the trial's retention,
    /// the trial's first expire deletes the excess at once; it happened in the first interval
    /// that completed an expire.
    fn milestones(&self, p: &Params, series: &Series) -> Vec<Milestone> {
        let held = p.count("pre_age").min(template_retention(p));
        if held <= p.count("retention") {
            return Vec::new();
        }
        let first = series
            .points
            .iter()
            .filter(|pt| pt.ops > 0 && (pt.op == "expire" || pt.op.ends_with(":expire")))
            .map(|pt| pt.t_ms)
            .min();
        first
            .map(|t_ms| Milestone {
                t_ms,
                until_ms: t_ms + series.interval_ms,
                what: "the retention cut".into(),
            })
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests;
