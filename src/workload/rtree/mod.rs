//! `rtree`: SQLite's R*Tree over seeded boxes, map tiles on a grid or GPS traces' segments,
//! queried by windows of three sizes and by nearest lookups while boxes are inserted and
//! moved (the GeoPackage shape), against B-tree indexes on the coordinates as the baseline.
//!
//! - [`boxes`]: the boxes, from the layout and the seed;
//! - [`schema`]: the features table, each index, each operation's statement;
//! - [`client`]: a client's operations and how each runs.
//!
//! The index is SQLite's knob `spatial_index` (set when the template is created), so the
//! R*Tree and the baseline are configurations of one run, as `json`'s storages are (see
//! [`super::json`]); the clients read the index from the schema and check it against their
//! connection's knob. Their answers (ids) are checked against each other's
//! ([`super::op_answers`]). Only SQLite runs it: DuckDB has no spatial index without its
//! spatial extension, MariaDB's needs geometry columns, and PostgreSQL's `box` with GiST is not
//! written yet; each is refused in one line before anything is measured.

pub mod boxes;
pub mod client;
pub mod schema;

use super::load::{self, Budget, Streams};
use super::{sqlite_needs, PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::sqlite::knobs::SPATIAL_INDEX_KNOB;
use crate::engines::{Connection, Dialect, EngineError, Value};
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use boxes::Layout;
use client::{window_sides, Generator, Prepared, RtreeClient, OPS};
use schema::{Index, TABLE};

/// The workload.
pub struct Rtree;

/// Most boxes and operations a run may ask for (coordinates stay exact in 32-bit floats).
pub const MAX_COUNT: u64 = 100_000_000;

const fn window(name: &'static str, default: &'static str, help: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Fraction { min: 1e-9, max: 1.0 },
        default,
        help,
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "layout",
        kind: ParamKind::Choice(&Layout::NAMES),
        default: "grid",
        help: "grid: square map tiles covering the map; traces: small boxes along random walks of 200 segments, as GPS traces",
    },
    ParamSpec {
        name: "boxes",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_COUNT,
        },
        default: "10000",
        help: "boxes populated into the template",
    },
    ParamSpec {
        name: "operations",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_COUNT,
        },
        default: "2000",
        help: "operations per trial over all clients",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run every client for this long instead (0: run `operations` operations)",
    },
    window("window_small", "0.0001", "window-small's area as a fraction of the map's"),
    window("window_medium", "0.001", "window-medium's area as a fraction of the map's"),
    window("window_large", "0.01", "window-large's area as a fraction of the map's"),
];

fn sides(p: &Params) -> [i64; 3] {
    window_sides([p.real("window_small"), p.real("window_medium"), p.real("window_large")])
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "rtree",
    about: "an R*Tree over map tiles or GPS-trace boxes against B-tree indexes on the coordinates (knob spatial_index): window queries of three sizes, nearest lookups, inserts and moves, ids checked equal",
    source: "SQLite's R*Tree module (sqlite.org/rtree.html); the GeoPackage encoding's R-tree spatial index extension (OGC 12-128r18, triggers included); litebench's own mix",
    params: PARAMS,
    operations: &OPS,
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

/// The answer: the fastest index per operation, and whether both answered alike.
static REPORT: super::per_op_answer::PerOpAnswer = super::per_op_answer::PerOpAnswer {
    question:
        "Which of the {n} configurations answers each spatial query fastest, and do they all find the same boxes?",
};

/// The knob's index on this connection, where it was set.
fn knob_index(conn: &mut dyn Connection) -> Option<Index> {
    let c = conn.as_any_mut()?.downcast_mut::<SqliteConn>()?;
    c.workload_knob(SPATIAL_INDEX_KNOB).and_then(Index::parse)
}

fn refusal(engine: &str, message: String) -> EngineError {
    EngineError {
        engine: engine.into(),
        ..sqlite_needs::refusal("rtree", message)
    }
}

/// The index the population makes, or why this engine or build cannot.
fn index_to_make(conn: &mut dyn Connection) -> Result<Index, EngineError> {
    let why = match conn.dialect() {
        Dialect::Sqlite => None,
        Dialect::Duckdb => Some(("duckdb", "DuckDB has no spatial index without its spatial extension")),
        Dialect::Postgres => Some(("postgres", "its peer (box with GiST) is not written yet")),
        Dialect::Mysql => Some((
            "mysql",
            "MariaDB's spatial index needs geometry columns, not written yet",
        )),
    };
    if let Some((engine, why)) = why {
        return Err(refusal(
            engine,
            format!("rtree runs on SQLite only: {why}; use --engine sqlite"),
        ));
    }
    let index = knob_index(conn).unwrap_or(Index::Rtree);
    if index == Index::Rtree && !sqlite_needs::has_option(conn, "ENABLE_RTREE")? {
        let (text, _) = sqlite_needs::version(conn)?;
        return Err(sqlite_needs::refusal(
            "rtree",
            format!("rtree needs an R*Tree: this build was compiled without SQLITE_ENABLE_RTREE (SQLite {text}); give --engine sqlite (the bundled build has it), a build with -DSQLITE_ENABLE_RTREE, or --knob spatial_index=btree for the baseline alone"),
        ));
    }
    Ok(index)
}

/// The index a client's database has, checked against its connection's knob.
fn index_of(conn: &mut dyn Connection) -> Result<Index, WorkloadError> {
    let tables = conn
        .query_value(&format!(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '{TABLE}_rtree'"
        ))?
        .unwrap_or_default();
    let found = Index::of_schema(tables == "1");
    let asked = knob_index(conn).unwrap_or(Index::Rtree);
    if found != asked {
        return Err(WorkloadError::check_failed(
            "rtree",
            format!(
                "the database has the {} index but the connection's spatial_index is {}",
                found.name(),
                asked.name()
            ),
        ));
    }
    Ok(found)
}

impl Workload for Rtree {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        &REPORT
    }

    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        if knob == SPATIAL_INDEX_KNOB {
            Ok(())
        } else {
            Err(format!("no statement of rtree reads {knob}"))
        }
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        let index = index_to_make(conn)?;
        conn.execute_batch(&Index::create())?;
        let layout = Layout::parse(pop.params.choice("layout")).unwrap_or(Layout::Grid);
        let all = boxes::boxes(layout, pop.params.count("boxes"), pop.seed);
        let mut fill = |sink: &mut dyn crate::engines::bulk::RowSink| -> Result<(), EngineError> {
            let mut name = String::new();
            for (i, b) in all.iter().enumerate() {
                name.clear();
                name.push_str(if layout == Layout::Grid { "tile-" } else { "segment-" });
                name.push_str(&(i + 1).to_string());
                sink.row(&[
                    Value::Int(i as i64 + 1),
                    Value::Int(b[0]),
                    Value::Int(b[1]),
                    Value::Int(b[2]),
                    Value::Int(b[3]),
                    Value::Text(&name),
                ])?;
            }
            Ok(())
        };
        let rows = pop.bulk_load(conn, TABLE, &["id", "minx", "maxx", "miny", "maxy", "name"], &mut fill)?;
        for sql in index.after_load() {
            conn.execute_batch(&sql)?;
        }
        Ok(rows)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let count = |conn: &mut dyn Connection, sql: &str| -> Result<u64, WorkloadError> {
            Ok(conn.query_value(sql)?.and_then(|s| s.parse().ok()).unwrap_or(0))
        };
        let rows = count(conn, &format!("SELECT count(*) FROM {TABLE}"))?;
        if rows < p.count("boxes") {
            return Err(WorkloadError::check_failed(
                "rtree",
                format!(
                    "{rows} boxes after the trial, fewer than the {} populated",
                    p.count("boxes")
                ),
            ));
        }
        if index_of(conn)? == Index::Rtree {
            // The triggers kept the R*Tree in step: every box in it, where the table has it.
            let agree = count(
                conn,
                &format!("SELECT count(*) FROM {TABLE} f JOIN {TABLE}_rtree r USING (id) WHERE r.minx = f.minx AND r.maxx = f.maxx AND r.miny = f.miny AND r.maxy = f.maxy"),
            )?;
            if agree != rows {
                return Err(WorkloadError::check_failed(
                    "rtree",
                    format!("the R*Tree holds {agree} of the table's {rows} boxes where the table has them"),
                ));
            }
        }
        Ok(())
    }
}

impl Streams for Rtree {
    type Client<'c> = RtreeClient<'c>;

    fn budget(&self, params: &Params) -> Budget {
        Budget::operations_or_duration(params)
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
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let statements = index_of(conn)?.statements();
        let stmts = Prepared::prepare(conn, &statements)?;
        let generator = Generator::new(params.count("boxes"), sides(params), index, clients, seed);
        Ok(RtreeClient::new(conn, generator, stmts, seed))
    }
}

#[cfg(test)]
mod tests;
