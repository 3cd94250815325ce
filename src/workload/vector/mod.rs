//! `vector`: k-nearest-neighbour search over seeded synthetic vectors, as the search and
//! agent-memory applications built on SQLite's vector extensions run it, against the exact
//! answer computed by brute force outside any timed region.
//!
//! - [`data`]: the vectors (clustered, each a function of the seed and its id) and the brute
//!   force;
//! - [`client`]: the three indexes (sqlite-vec's `vec0`, vectorlite's HNSW, DuckDB's
//!   `array_distance` scan), their statements, and a client's stream;
//! - [`report`]: recall@k with its interval, p50/p99 per query, queries/s, the build and the
//!   inserts, and the answer: the lowest p99 among the configurations that meet the recall
//!   floor and always return k rows.
//!
//! Which index runs follows the engine (DuckDB) or the extension loaded on SQLite
//! (`--knob extension=sqlite-vec@0.1.9`, `vectorlite@0.2.0`); SQLite without one is refused.
//! The population is a plain table of vectors as JSON text, the same on every engine; each
//! trial builds its index from it on its own copy, timed (`index build`), so vectorlite's
//! index, which lives in the memory of the connection that built it, is measured like the
//! others. Queries and inserts are independent transactions offered to the load driver: any
//! `--clients` (one for vectorlite, whose index no other connection sees), `--rate` and
//! `--client-mode processes`.

pub mod client;
pub mod data;
pub mod report;

use super::load::{self, Budget, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, Dialect, EngineError, Value};
use crate::model::op::OpType;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use client::{Implementation, Settings, Stream, VectorClient, BUILD, OPS, SIZE};
use data::{Metric, Space};
use std::sync::Arc;

/// The workload.
pub struct Vector;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "dimension",
        kind: ParamKind::Count { min: 1, max: 4096 },
        default: "128",
        help: "elements per vector",
    },
    ParamSpec {
        name: "count",
        kind: ParamKind::Count {
            min: 1,
            max: 100_000_000,
        },
        default: "10000",
        help: "vectors populated (ids 1..count)",
    },
    ParamSpec {
        name: "clusters",
        kind: ParamKind::Count { min: 1, max: 1_000_000 },
        default: "16",
        help: "clusters the vectors are drawn around (centres uniform in [-1, 1], spread 0.15)",
    },
    ParamSpec {
        name: "metric",
        kind: ParamKind::Choice(&["l2", "cosine"]),
        default: "l2",
        help: "the distance the index ranks by",
    },
    ParamSpec {
        name: "element",
        kind: ParamKind::Choice(&["float32", "int8"]),
        default: "float32",
        help: "element type: float32, or int8 (sqlite-vec only: the values scaled by 100)",
    },
    ParamSpec {
        name: "k",
        kind: ParamKind::Count { min: 1, max: 1000 },
        default: "10",
        help: "neighbours each query asks for",
    },
    ParamSpec {
        name: "queries",
        kind: ParamKind::Count {
            min: 1,
            max: 1_000_000_000,
        },
        default: "500",
        help: "operations per trial over all clients: queries, and inserts at insert_share",
    },
    ParamSpec {
        name: "insert_share",
        kind: ParamKind::Fraction { min: 0.0, max: 1.0 },
        default: "0",
        help: "share of the operations that insert a new vector instead of querying",
    },
    ParamSpec {
        name: "recall_floor",
        kind: ParamKind::Fraction { min: 0.0, max: 1.0 },
        default: "0.9",
        help: "recall@k a configuration must reach to be ranked by its p99 in the answer",
    },
    ParamSpec {
        name: "p99_target",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "p99 per query a configuration must stay under to be ranked (0: no target): the X of \"p99 under X at recall >= Y\"",
    },
];

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "vector",
    about: "k-nearest-neighbour search over seeded clustered vectors: sqlite-vec's vec0, vectorlite's HNSW or DuckDB's array_distance, recall@k against a brute-force exact answer, p50/p99 per query, index build and inserts",
    source: "sqlite-vec (github.com/asg017/sqlite-vec, vec0 KNN queries) and vectorlite (github.com/1yefuwang1/vectorlite, HNSW over hnswlib) documentation; recall@k as ANN-Benchmarks (Aumüller et al., Information Systems 2020) defines it",
    params: PARAMS,
    operations: &["knn", "insert"],
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

/// A knob value a SQLite connection keeps for the workload (`hnsw_ef_search`), or its default.
fn conn_knob(conn: &mut dyn Connection, name: &str) -> u64 {
    let set = conn
        .as_any_mut()
        .and_then(|a| a.downcast_mut::<crate::engines::sqlite::conn::SqliteConn>())
        .and_then(|c| c.workload_knob(name).map(str::to_string));
    let default =
        crate::model::knob::find_spec(crate::engines::sqlite::knobs::SQLITE_KNOBS, name).map_or("0", |s| s.default);
    set.as_deref().unwrap_or(default).parse().unwrap_or(0)
}

/// A trial's settings from the parameters and the connection's knobs.
fn settings(p: &Params, implementation: Implementation, conn: &mut dyn Connection) -> Settings {
    Settings {
        implementation,
        dimension: p.count("dimension") as usize,
        metric: Metric::parse(p.choice("metric")),
        int8: p.choice("element") == "int8",
        k: p.count("k") as usize,
        m: conn_knob(conn, "hnsw_m"),
        ef_construction: conn_knob(conn, "hnsw_ef_construction"),
        ef_search: conn_knob(conn, "hnsw_ef_search"),
        max_elements: p.count("count") + p.count("queries") + 1,
    }
}

fn refused(detail: String) -> WorkloadError {
    WorkloadError::check_failed("vector", detail)
}

/// The index a trial on `conn` runs, refused where it cannot run these parameters or this load
/// (the plan refused such a configuration already: [`Vector::check_configuration`]).
fn implementation(conn: &mut dyn Connection, p: &Params, clients: u32) -> Result<Implementation, WorkloadError> {
    let imp = Implementation::of(conn).map_err(refused)?;
    runs(imp, p, clients).map_err(refused)?;
    Ok(imp)
}

/// Whether index `imp` runs parameters `p` with `clients` clients; `Err` says why not.
fn runs(imp: Implementation, p: &Params, clients: u32) -> Result<(), String> {
    if p.choice("element") == "int8" && imp != Implementation::Vec0 {
        return Err(format!(
            "--param element=int8: {} has float32 vectors only; int8 runs on sqlite-vec",
            imp.name()
        ));
    }
    if imp == Implementation::Hnsw && clients > 1 {
        return Err(format!(
            "--clients {clients}: vectorlite's HNSW index lives in the memory of the connection that built it, so no other client sees it; run it with one client"
        ));
    }
    Ok(())
}

/// Where an index's size is read: `vec0`'s shadow tables in the database file (its pages), an
/// HNSW index in the connection's memory (the C heap, [`crate::sys::heap`], less what SQLite's
/// own allocator holds, so the page cache the build's reads filled is not counted); a scan has
/// none.
#[derive(Debug, Clone, Copy)]
enum Footprint {
    FileBytes(u64),
    HeapBytes(u64),
    None,
}

impl Footprint {
    fn of(conn: &mut dyn Connection, imp: Implementation) -> Result<Footprint, EngineError> {
        Ok(match imp {
            Implementation::Vec0 => {
                let mut pragma = |name: &str| -> Result<u64, EngineError> {
                    Ok(conn
                        .query_value(&format!("PRAGMA {name}"))?
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0))
                };
                Footprint::FileBytes(pragma("page_count")? * pragma("page_size")?)
            }
            // The C heap less SQLite's own share of it: the build's reads grow the page cache.
            Implementation::Hnsw => {
                let sqlite = conn
                    .as_any_mut()
                    .and_then(|a| a.downcast_mut::<crate::engines::sqlite::conn::SqliteConn>())
                    .map(|c| c.library_memory_used());
                match (crate::sys::heap::allocated(), sqlite) {
                    (Some(heap), Some(own)) => Footprint::HeapBytes(heap.saturating_sub(own)),
                    _ => Footprint::None,
                }
            }
            Implementation::DuckScan => Footprint::None,
        })
    }

    /// The bytes added since `before`, where both were read the same way.
    fn grown_since(self, before: Footprint) -> Option<u64> {
        match (before, self) {
            (Footprint::FileBytes(a), Footprint::FileBytes(b)) | (Footprint::HeapBytes(a), Footprint::HeapBytes(b)) => {
                Some(b.saturating_sub(a))
            }
            _ => None,
        }
    }
}

/// The run's seed, which the population's vectors were drawn from, as populate stored it.
fn space_of(conn: &mut dyn Connection, p: &Params) -> Result<Space, EngineError> {
    let seed = conn
        .query_value("SELECT seed FROM vector_space")?
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok(Space::new(
        p.count("dimension") as usize,
        p.count("clusters") as usize,
        p.choice("element") == "int8",
        seed,
    ))
}

impl Workload for Vector {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        if p.count("k") > p.count("count") {
            return Err(format!(
                "--param k={}: more neighbours than the {} vectors populated; lower k or raise count",
                p.count("k"),
                p.count("count")
            ));
        }
        Ok(())
    }

    fn check_configuration(
        &self,
        p: &Params,
        engine: &crate::engines::kind::EngineKind,
        knobs: &crate::model::knob::KnobSet,
        clients: u32,
    ) -> Result<(), String> {
        let extension = knobs.get(crate::engines::sqlite::knobs::EXTENSION_KNOB);
        let imp =
            Implementation::choose(engine.dialect, extension).map_err(|e| format!("--engine {}: {e}", engine.name))?;
        runs(imp, p, clients)
    }

    /// vectorlite's `hnsw_*` beside any other index: only vectorlite reads them.
    fn inert_knobs(&self, _p: &Params, knobs: &crate::model::knob::KnobSet) -> Vec<&'static str> {
        let extension = knobs.get(crate::engines::sqlite::knobs::EXTENSION_KNOB);
        match extension.and_then(Implementation::of_extension) {
            Some(Implementation::Hnsw) => Vec::new(),
            _ => crate::engines::sqlite::knobs::HNSW_KNOBS.to_vec(),
        }
    }

    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        if crate::engines::sqlite::knobs::HNSW_KNOBS.contains(&knob) {
            return Ok(());
        }
        Err(format!("no statement of vector reads {knob}"))
    }

    fn operation_types(&self, _p: &Params, _dialect: Option<Dialect>) -> Vec<OpType> {
        OPS.iter()
            .enumerate()
            .map(|(i, name)| OpType {
                name,
                part_of: (i >= client::FOUND).then_some(OPS[client::KNN]),
            })
            .collect()
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        &report::VectorReport
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        let id = if conn.dialect() == Dialect::Sqlite {
            "INTEGER"
        } else {
            "BIGINT"
        };
        conn.execute_batch(&format!(
            "CREATE TABLE vectors(id {id} PRIMARY KEY, v TEXT); CREATE TABLE vector_space(seed TEXT); INSERT INTO vector_space VALUES ('{}')",
            pop.seed
        ))?;
        let p = pop.params;
        let space = Space::new(
            p.count("dimension") as usize,
            p.count("clusters") as usize,
            p.choice("element") == "int8",
            pop.seed,
        );
        let count = p.count("count");
        let mut fill = |sink: &mut dyn crate::engines::bulk::RowSink| -> Result<(), EngineError> {
            let (mut v, mut text) = (Vec::new(), String::new());
            for id in 1..=count {
                space.vector(id, &mut v);
                data::json(&v, &mut text);
                sink.row(&[Value::Int(id as i64), Value::Text(&text)])?;
            }
            Ok(())
        };
        pop.bulk_load(conn, "vectors", &["id", "v"], &mut fill)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        let imp = implementation(conn, trial.params, trial.load.clients)?;
        let s = settings(trial.params, imp, conn);
        let before = Footprint::of(conn, imp)?;
        let started = std::time::Instant::now();
        for sql in s.build_sql() {
            conn.execute_batch(&sql)?;
        }
        rec.record_outcome(BUILD, started.elapsed(), true);
        if let Some(bytes) = Footprint::of(conn, imp)?.grown_since(before) {
            rec.record_outcome_ns(SIZE, bytes.div_ceil(1024), true);
        }
        load::drive(conn, self, trial, rec)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let n: u64 = conn
            .query_value("SELECT count(*) FROM vectors")?
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if n != p.count("count") {
            return Err(refused(format!("{n} vectors populated, expected {}", p.count("count"))));
        }
        Ok(())
    }
}

impl Streams for Vector {
    type Client<'c> = VectorClient<'c>;

    fn budget(&self, params: &Params) -> Budget {
        Budget::Count(params.count("queries"))
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let imp = implementation(conn, params, clients)?;
        let settings = Arc::new(settings(params, imp, conn));
        let space = space_of(conn, params)?;
        let base = space.population(params.count("count"));
        let n = u64::from(clients.max(1));
        let total = params.count("queries");
        let operations = total / n + u64::from(u64::from(index) < total % n);
        let stream = Stream {
            settings,
            space: Arc::new(space),
            base: &base,
            operations,
            insert_share: params.real("insert_share"),
            first_id: params.count("count") + 1 + u64::from(index),
            id_step: n,
            seed,
        };
        Ok(VectorClient::new(conn, stream)?)
    }
}
