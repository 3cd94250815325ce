//! Which index a trial runs (sqlite-vec's `vec0`, vectorlite's HNSW, DuckDB's `array_distance`
//! scan), the statements of each, and one client's stream: its queries and inserts drawn
//! before timing from its seed, each query's exact answer computed then by brute force, and
//! each answer counted against it after the engine returned it.

use super::data::{self, Exact, Metric, Space};
use crate::engines::values::{CellRef, Values};
use crate::engines::{Connection, Dialect, EngineError, StmtId, Value};
use crate::workload::load::{Client, Hooks};
use crate::workload::WorkloadError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// The operation types, in report order: a k-nearest-neighbour query, an insert, and three
/// parts of the query: how many of the k exact nearest it returned (a count, recorded in the
/// latency's place), the index's build at the trial's start (once per trial), and the size
/// that build left, in KiB (a count too, once per trial).
pub const OPS: [&str; 5] = ["knn", "insert", "knn found", "index build", "index KiB"];
pub const KNN: usize = 0;
pub const INSERT: usize = 1;
pub const FOUND: usize = 2;
pub const BUILD: usize = 3;
pub const SIZE: usize = 4;

/// The index a trial queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// sqlite-vec's `vec0` virtual table: an exact scan.
    Vec0,
    /// vectorlite's HNSW virtual table: approximate, its index in the connection's memory.
    Hnsw,
    /// DuckDB's `array_distance` over a `FLOAT[n]` column: an exact scan.
    DuckScan,
}

impl Implementation {
    /// What the report calls it.
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Vec0 => "sqlite-vec vec0 (exact scan)",
            Implementation::Hnsw => "vectorlite HNSW (approximate)",
            Implementation::DuckScan => "DuckDB array_distance (exact scan)",
        }
    }

    /// Whether it must find every one of the k nearest.
    pub fn exact(self) -> bool {
        self != Implementation::Hnsw
    }

    /// The index of a connection: its engine's, or on SQLite the extension it loaded
    /// (`--knob extension=`); `Err` names what to give instead.
    pub fn of(conn: &mut dyn Connection) -> Result<Implementation, String> {
        let dialect = conn.dialect();
        let loaded = conn
            .as_any_mut()
            .and_then(|a| a.downcast_mut::<crate::engines::sqlite::conn::SqliteConn>())
            .and_then(|c| c.extension().map(str::to_string));
        Implementation::choose(Some(dialect), loaded.as_deref())
    }

    /// The index an engine speaking `dialect` runs with the `extension` knob's value, if set;
    /// `Err` names what to give instead.
    pub fn choose(dialect: Option<Dialect>, extension: Option<&str>) -> Result<Implementation, String> {
        if dialect == Some(Dialect::Duckdb) {
            return Ok(Implementation::DuckScan);
        }
        let Some(value) = extension else {
            return Err("the vector workload needs a vector index, and none is loaded: SQLite with --knob extension=sqlite-vec@0.1.9 (or vectorlite@0.2.0), or --engine duckdb (array_distance)".into());
        };
        Implementation::of_extension(value).ok_or_else(|| {
            format!(
                "--knob extension={value} is neither sqlite-vec nor vectorlite, the vector indexes this workload knows"
            )
        })
    }

    /// The index an `extension` knob's value (a pinned name or a library's path) gives.
    pub fn of_extension(value: &str) -> Option<Implementation> {
        let name = std::path::Path::new(value)
            .file_name()
            .map_or(value.to_string(), |f| f.to_string_lossy().to_ascii_lowercase());
        if name.starts_with("vectorlite") {
            Some(Implementation::Hnsw)
        } else if ["sqlite-vec", "sqlite_vec", "vec0"].iter().any(|p| name.starts_with(p)) {
            Some(Implementation::Vec0)
        } else {
            None
        }
    }
}

/// What every statement of a trial is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub implementation: Implementation,
    pub dimension: usize,
    pub metric: Metric,
    pub int8: bool,
    pub k: usize,
    /// vectorlite's HNSW parameters (its knobs).
    pub m: u64,
    pub ef_construction: u64,
    pub ef_search: u64,
    /// The most vectors the HNSW index must hold: the population and every insert.
    pub max_elements: u64,
}

impl Settings {
    fn metric_word(&self) -> &'static str {
        match self.metric {
            Metric::L2 => "l2",
            Metric::Cosine => "cosine",
        }
    }

    /// The statements that build the index from the populated `vectors` table, in order.
    pub fn build_sql(&self) -> Vec<String> {
        let d = self.dimension;
        match self.implementation {
            Implementation::Vec0 => {
                let (elem, conv) = if self.int8 { ("int8", "vec_int8") } else { ("float", "vec_f32") };
                vec![
                    format!(
                        "CREATE VIRTUAL TABLE vec_index USING vec0(embedding {elem}[{d}] distance_metric={})",
                        self.metric_word()
                    ),
                    format!("INSERT INTO vec_index(rowid, embedding) SELECT id, {conv}(v) FROM vectors"),
                ]
            }
            Implementation::Hnsw => vec![
                format!(
                    "CREATE VIRTUAL TABLE vec_index USING vectorlite(embedding float32[{d}] {}, hnsw(max_elements={}, ef_construction={}, M={}))",
                    self.metric_word(),
                    self.max_elements,
                    self.ef_construction,
                    self.m
                ),
                "INSERT INTO vec_index(rowid, embedding) SELECT id, vector_from_json(v) FROM vectors".into(),
            ],
            Implementation::DuckScan => vec![format!(
                "CREATE TABLE vec_index AS SELECT id, CAST(v AS FLOAT[{d}]) AS embedding FROM vectors"
            )],
        }
    }

    /// The k-nearest-neighbour query: one parameter, the query vector.
    pub fn query_sql(&self) -> String {
        let (d, k) = (self.dimension, self.k);
        match self.implementation {
            Implementation::Vec0 => {
                let conv = if self.int8 { "vec_int8" } else { "vec_f32" };
                format!("SELECT rowid FROM vec_index WHERE embedding MATCH {conv}(?) AND k = {k} ORDER BY distance")
            }
            Implementation::Hnsw => format!(
                "SELECT rowid FROM vec_index WHERE knn_search(embedding, knn_param(?, {k}, {}))",
                self.ef_search
            ),
            Implementation::DuckScan => {
                let f = match self.metric {
                    Metric::L2 => "array_distance",
                    Metric::Cosine => "array_cosine_distance",
                };
                format!("SELECT id FROM vec_index ORDER BY {f}(embedding, CAST(? AS FLOAT[{d}])), id LIMIT {k}")
            }
        }
    }

    /// An insert: the id, then the vector.
    pub fn insert_sql(&self) -> String {
        match self.implementation {
            Implementation::Vec0 if self.int8 => {
                "INSERT INTO vec_index(rowid, embedding) VALUES (?, vec_int8(?))".into()
            }
            Implementation::Vec0 | Implementation::Hnsw => {
                "INSERT INTO vec_index(rowid, embedding) VALUES (?, ?)".into()
            }
            Implementation::DuckScan => {
                format!("INSERT INTO vec_index VALUES (?, CAST(? AS FLOAT[{}]))", self.dimension)
            }
        }
    }
}

/// One drawn operation.
#[derive(Debug, Clone)]
enum Drawn {
    Query { vector: Vec<f32>, exact: Exact },
    Insert { id: u64, vector: Vec<f32> },
}

/// One client's stream, drawn whole before the trial starts.
pub struct VectorClient<'c> {
    conn: &'c mut dyn Connection,
    settings: Arc<Settings>,
    space: Arc<Space>,
    query: StmtId,
    insert: StmtId,
    ops: Vec<Drawn>,
    next: usize,
    current: usize,
    found: [(usize, u64); 1],
    /// The last query's answer (in `out`) is not counted yet: it is, after the clock stopped,
    /// when the driver asks for its parts or its check ([`VectorClient::settle`]).
    unsettled: bool,
    /// Queries whose answer missed an exact neighbour: (query number, found, k).
    missed: Option<(usize, u64, usize)>,
    out: Values,
    text: String,
    bytes: Vec<u8>,
    scratch: Vec<f32>,
}

/// What a client is made from besides its connection.
pub struct Stream<'a> {
    pub settings: Arc<Settings>,
    pub space: Arc<Space>,
    /// The population's vectors (ids 1..=count), flat.
    pub base: &'a [f32],
    /// Operations this client runs, and the share of them that are inserts.
    pub operations: u64,
    pub insert_share: f64,
    /// The first id this client inserts, and the step between its ids (the number of clients).
    pub first_id: u64,
    pub id_step: u64,
    pub seed: u64,
}

impl<'c> VectorClient<'c> {
    /// Prepares the statements and draws the stream: each query's exact answer over the
    /// population and this client's own inserts before it.
    pub fn new(conn: &'c mut dyn Connection, s: Stream<'_>) -> Result<VectorClient<'c>, EngineError> {
        let query = conn.prepare(&s.settings.query_sql())?;
        let insert = conn.prepare(&s.settings.insert_sql())?;
        let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
        let mut own: Vec<(u64, Vec<f32>)> = Vec::new();
        let mut ops = Vec::with_capacity(s.operations as usize);
        let mut v = Vec::with_capacity(s.settings.dimension);
        for _ in 0..s.operations.max(1) {
            if rng.random::<f64>() < s.insert_share {
                let id = s.first_id + own.len() as u64 * s.id_step;
                s.space.vector(id, &mut v);
                own.push((id, v.clone()));
                ops.push(Drawn::Insert { id, vector: v.clone() });
            } else {
                s.space.draw(&mut rng, &mut v);
                let exact = data::exact(s.settings.metric, s.settings.dimension, s.base, &own, &v, s.settings.k);
                ops.push(Drawn::Query {
                    vector: v.clone(),
                    exact,
                });
            }
        }
        Ok(VectorClient {
            conn,
            settings: s.settings,
            space: s.space,
            query,
            insert,
            ops,
            next: 0,
            current: 0,
            found: [(FOUND, 0)],
            unsettled: false,
            missed: None,
            out: Values::with_capacity(64, 64),
            text: String::new(),
            bytes: Vec::new(),
            scratch: Vec::new(),
        })
    }

    fn bind_vector<'v>(settings: &Settings, v: &[f32], text: &'v mut String, bytes: &'v mut Vec<u8>) -> Value<'v> {
        match settings.implementation {
            Implementation::DuckScan => {
                data::json(v, text);
                Value::Text(text)
            }
            _ if settings.int8 => {
                data::i8_blob(v, bytes);
                Value::Blob(bytes)
            }
            _ => {
                data::f32_blob(v, bytes);
                Value::Blob(bytes)
            }
        }
    }

    /// Counts the last query's answer against its exact one, once, outside its timed region:
    /// how many of the k nearest it found (its part), and whether an exact index missed one.
    fn settle(&mut self) {
        if !std::mem::take(&mut self.unsettled) {
            return;
        }
        let Drawn::Query { vector, exact } = &self.ops[self.current] else {
            return;
        };
        let found = count_found(&self.out, &self.space, &self.settings, &mut self.scratch, vector, exact);
        self.found[0].1 = found;
        let k = self.settings.k;
        if self.settings.implementation.exact() && (found as usize) < k.min(exact.ids.len()) {
            self.missed = Some((self.current, found, k));
        }
    }
}

/// How many of the ids in `out` are as near to `q` as the exact answer's k-th: the exact
/// answer's own, and any other no farther (a tie, or another client's insert), by its true
/// distance.
fn count_found(
    out: &Values,
    space: &Space,
    settings: &Settings,
    scratch: &mut Vec<f32>,
    q: &[f32],
    exact: &Exact,
) -> u64 {
    let mut found = 0;
    for i in 0..out.len() {
        let id = match out.get(i) {
            CellRef::Int(id) => id as u64,
            other => other.number().map_or(0, |n| n as u64),
        };
        if exact.ids.contains(&id) {
            found += 1;
            continue;
        }
        space.vector(id, scratch);
        let d = settings.metric.distance(scratch, q);
        if d <= exact.radius * (1.0 + 1e-5) + 1e-6 {
            found += 1;
        }
    }
    found
}

impl Client for VectorClient<'_> {
    fn draw(&mut self) -> usize {
        self.current = self.next % self.ops.len();
        self.next += 1;
        match self.ops[self.current] {
            Drawn::Query { .. } => KNN,
            Drawn::Insert { .. } => INSERT,
        }
    }

    /// Runs the drawn query or insert, and nothing else: its answer is counted afterwards,
    /// untimed ([`VectorClient::settle`]).
    fn execute(&mut self) -> Result<bool, EngineError> {
        match &self.ops[self.current] {
            Drawn::Query { vector, exact } => {
                let v = Self::bind_vector(&self.settings, vector, &mut self.text, &mut self.bytes);
                self.out.clear();
                let rows = self.conn.run_values(self.query, &[v], &mut self.out)?;
                self.unsettled = true;
                Ok(rows as usize >= self.settings.k.min(exact.ids.len()))
            }
            Drawn::Insert { id, vector } => {
                let v = Self::bind_vector(&self.settings, vector, &mut self.text, &mut self.bytes);
                self.conn.run(self.insert, &[Value::Int(*id as i64), v]).map(|n| n == 1)
            }
        }
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            parts: true,
            check: true,
            ..Hooks::default()
        }
    }

    fn parts(&mut self) -> &[(usize, u64)] {
        self.settle();
        match self.ops[self.current] {
            Drawn::Query { .. } => &self.found,
            Drawn::Insert { .. } => &[],
        }
    }

    /// An exact index must return every one of the k nearest: a query that missed one fails
    /// the trial.
    fn check(&mut self) -> Result<(), WorkloadError> {
        self.settle();
        match self.missed.take() {
            Some((n, found, k)) => Err(WorkloadError::check_failed(
                "vector",
                format!(
                    "{} is exact, but query {n} returned {found} of its {k} nearest neighbours (recall@{k} must be 1.0)",
                    self.settings.implementation.name()
                ),
            )),
            None => Ok(()),
        }
    }
}
