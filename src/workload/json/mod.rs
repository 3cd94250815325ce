//! `json`: the same seeded documents stored as text JSON, as JSONB and as text with a generated
//! column and its index on the hot field, read with `->>`, filtered on a field, expanded with
//! `json_each` and updated with `json_set`: the question every ORM's tracker asks of SQLite
//! 3.45's JSONB, answered on one machine in one run.
//!
//! - [`docs`]: the documents, from the seed and their id;
//! - [`storage`]: each engine's table and statements (SQLite's three storages, PostgreSQL's
//!   `jsonb` with GIN, DuckDB's `JSON`);
//! - [`client`]: a client's operations and how each runs.
//!
//! The storage is SQLite's knob `json_storage` (a [`crate::model::knob::ReadBy::Workload`]
//! knob set when the template is created), not a parameter: a knob's values become
//! configurations of one run, each with a template of its own, interleaved trial by trial and
//! compared in one report, where a parameter's would need a run each. The population reads the
//! knob from its connection; the clients read the storage from the schema and check it against
//! the knob their connection has. Operations are independent transactions, so the workload
//! offers them to the load driver: any `--clients`, `--rate` and `--max-tries`. Each
//! configuration's answers are checked against the others' ([`crate::workload::op_answers`]).

pub mod client;
pub mod docs;
pub mod storage;

use super::load::{self, Budget, Streams};
use super::{sqlite_needs, PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::sqlite::knobs::JSON_STORAGE_KNOB;
use crate::engines::{Connection, Dialect, EngineError, Value};
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use client::{Generator, JsonClient, Mix, Prepared, OPS};
use storage::{Storage, TABLE};

/// The workload.
pub struct Json;

/// Most documents and operations a run may ask for.
pub const MAX_COUNT: u64 = 100_000_000;

const fn weight(name: &'static str, default: &'static str, help: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Count { min: 0, max: 1000 },
        default,
        help,
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "documents",
        kind: ParamKind::Count {
            min: EXPAND_MIN,
            max: MAX_COUNT,
        },
        default: "10000",
        help: "documents populated into the template, about 400 bytes of JSON each",
    },
    ParamSpec {
        name: "operations",
        kind: ParamKind::Count { min: 1, max: MAX_COUNT },
        default: "2000",
        help: "operations per trial over all clients",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run every client for this long instead (0: run `operations` operations)",
    },
    weight(
        "reads",
        "40",
        "weight of read: three fields of one document by id (->>)",
    ),
    weight(
        "filters",
        "20",
        "weight of filter: the first 20 documents of one country with at least a score",
    ),
    weight(
        "expands",
        "20",
        "weight of expand: the items of ten documents, one row each (json_each)",
    ),
    weight(
        "updates",
        "20",
        "weight of update: two fields of one document set in place (json_set)",
    ),
];

/// The fewest documents: one expansion's span.
const EXPAND_MIN: u64 = client::EXPAND_SPAN;

fn mix(p: &Params) -> Mix {
    [
        p.count("reads"),
        p.count("filters"),
        p.count("expands"),
        p.count("updates"),
    ]
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "json",
    about: "the same JSON documents as text, JSONB and a generated column with its index (knob json_storage): point reads, filters, json_each expansions and json_set updates, answers checked across storages and engines",
    source: "SQLite's JSON functions and JSONB (sqlite.org/json1.html, 3.45.0); PostgreSQL jsonb with GIN (jsonb_path_ops); litebench's own mix",
    params: PARAMS,
    operations: &OPS,
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

/// The answer: the fastest storage per operation, and whether all answered alike.
static REPORT: super::per_op_answer::PerOpAnswer = super::per_op_answer::PerOpAnswer {
    question:
        "Which of the {n} ways of storing the documents answers each operation fastest, and do they all answer alike?",
};

/// SQLite's storage for this connection: the knob's value where it was set.
fn knob_storage(conn: &mut dyn Connection) -> Option<Storage> {
    let c = conn.as_any_mut()?.downcast_mut::<SqliteConn>()?;
    c.workload_knob(JSON_STORAGE_KNOB).and_then(Storage::sqlite)
}

/// The storage the population makes on this connection, or why this engine or build cannot
/// store the documents so.
fn storage_to_make(conn: &mut dyn Connection, p: &Params) -> Result<Storage, EngineError> {
    match conn.dialect() {
        Dialect::Sqlite => {}
        Dialect::Mysql => {
            return Err(refusal(
                "mysql",
                "json does not run on MariaDB: its JSON is text with no binary form or index of its own, and its JSON_TABLE expansion is not json_each's; use --engine sqlite, postgres or duckdb".into(),
            ))
        }
        d => {
            let s = Storage::of_dialect(d).expect("an engine with one storage");
            if s.statements().update.is_none() && p.count("updates") > 0 {
                return Err(refusal(
                    "duckdb",
                    "json's update cannot run on DuckDB: its JSON type has no json_set (no function changes one field of a document); give --param updates=0 to run the other operations there".into(),
                ));
            }
            return Ok(s);
        }
    }
    let storage = knob_storage(conn).unwrap_or(Storage::Text);
    let (text, n) = sqlite_needs::version(conn)?;
    let (need, what, instead) = match storage {
        Storage::Jsonb => (
            3_045_000,
            "json_storage=jsonb needs SQLite 3.45.0 or later (JSONB)",
            "a release from 3.45.0 on, or leave jsonb out of --knob json_storage",
        ),
        _ => (
            3_038_000,
            "json needs SQLite 3.38.0 or later (its ->> operator and built-in JSON functions)",
            "--engine sqlite (the bundled release) or a release from 3.38.0 on",
        ),
    };
    if n < need {
        return Err(sqlite_needs::refusal(
            "json",
            format!("{what}, and this build is {text}; give {instead}"),
        ));
    }
    Ok(storage)
}

fn refusal(engine: &str, message: String) -> EngineError {
    EngineError {
        engine: engine.into(),
        ..sqlite_needs::refusal("json", message)
    }
}

/// The storage a client's database has: the schema's on SQLite, checked against the knob the
/// client's connection was given.
fn storage_of(conn: &mut dyn Connection) -> Result<Storage, WorkloadError> {
    if let Some(s) = Storage::of_dialect(conn.dialect()) {
        return Ok(s);
    }
    let create = conn
        .query_value(&format!(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = '{TABLE}'"
        ))?
        .unwrap_or_default();
    let found = Storage::of_schema(&create);
    let asked = knob_storage(conn).unwrap_or(Storage::Text);
    if found != asked {
        return Err(WorkloadError::check_failed(
            "json",
            format!(
                "the database stores the documents as {} but the connection's json_storage is {}",
                found.name(),
                asked.name()
            ),
        ));
    }
    Ok(found)
}

impl Workload for Json {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        &REPORT
    }

    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        if knob == JSON_STORAGE_KNOB {
            Ok(())
        } else {
            Err(format!("no statement of json reads {knob}"))
        }
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        if mix(p).iter().all(|&w| w == 0) {
            return Err("--param reads, filters, expands and updates are all 0; give at least one a weight".into());
        }
        Ok(())
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        let storage = storage_to_make(conn, pop.params)?;
        conn.execute_batch(&storage.create())?;
        let documents = pop.params.count("documents");
        let seed = pop.seed;
        let mut fill = |sink: &mut dyn crate::engines::bulk::RowSink| -> Result<(), EngineError> {
            for id in 1..=documents {
                let text = docs::text(seed, id);
                sink.row(&[Value::Int(id as i64), Value::Text(&text)])?;
            }
            Ok(())
        };
        let rows = pop.bulk_load(conn, TABLE, &["id", "doc"], &mut fill)?;
        for sql in storage.after_load() {
            conn.execute_batch(&sql)?;
        }
        Ok(rows)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let want = p.count("documents");
        let got = conn
            .query_value(&format!("SELECT count(*) FROM {TABLE}"))?
            .and_then(|s| s.parse::<u64>().ok());
        if got != Some(want) {
            return Err(WorkloadError::check_failed(
                "json",
                format!("{got:?} documents after the trial, expected {want}"),
            ));
        }
        Ok(())
    }
}

impl Streams for Json {
    type Client<'c> = JsonClient<'c>;

    fn budget(&self, params: &Params) -> Budget {
        Budget::operations_or_duration(params)
    }

    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        Some(load::OPERATIONS_OR_DURATION)
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        _index: u32,
        _clients: u32,
        seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let storage = storage_of(conn)?;
        let stmts = Prepared::prepare(conn, &storage.statements())?;
        let generator = Generator::new(params.count("documents"), mix(params), seed);
        Ok(JsonClient::new(conn, generator, stmts, seed))
    }
}

#[cfg(test)]
mod tests;
