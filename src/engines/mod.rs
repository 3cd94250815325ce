//! The one interface workloads use to talk to a database.
//!
//! A workload is written once against [`Connection`] and runs on every engine. The interface is
//! deliberately small — prepare once, run many times with bound values — because the timed loop
//! must cost no more than a bare loop over the engine's own API: no allocation, no formatting,
//! no SQL parsing per operation.

pub mod blob;
pub mod bulk;
pub mod busy;
pub mod control;
pub mod dialect;
pub mod duckdb;
pub mod files;
pub mod interrupt;
pub mod kind;
pub mod mysql;
pub mod postgres;
pub mod recording;
pub mod registry;
pub mod server;
pub mod sql_lex;
pub mod sqlite;
pub mod turso;
pub mod values;

pub use busy::BusyCause;
pub use dialect::Dialect;

use crate::model::engine_info::{EngineInfo, LoopProfile};
use crate::model::knob::{KnobReading, KnobSet, KnobSpec, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::Scratch;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// A value bound to a statement parameter. Borrowed, so binding allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// The rows an engine's `EXPLAIN` answered as plan lines: the text of column `column` of each
/// row (`None`: every non-NULL column, joined by ` | `), split at its line breaks, so a plan
/// the engine prints as one multi-line cell (DuckDB's tree, MariaDB's JSON) reads as lines too.
pub fn explain_lines(rows: &[Vec<Option<String>>], column: Option<usize>) -> Vec<String> {
    rows.iter()
        .map(|r| match column {
            Some(c) => r.get(c).cloned().flatten().unwrap_or_default(),
            None => r.iter().flatten().cloned().collect::<Vec<_>>().join(" | "),
        })
        .flat_map(|cell| cell.lines().map(|l| l.trim_end().to_string()).collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect()
}

/// A statement prepared on one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StmtId(pub usize);

/// What went wrong inside an engine, classified so the runner can say how to fix it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The disk (or the filesystem quota) is full.
    Full,
    /// Another connection holds a lock.
    Busy,
    /// Any other I/O error.
    Io,
    /// The database file is not writable.
    ReadOnly,
    /// Anything else (SQL errors, constraint violations, ...).
    Other,
    /// Bad input a workload read while populating (a malformed `.tbl` line): the user's to fix.
    Input,
}

/// An error reported by an engine, with the statement or step it came from.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{engine}: {message} (while {context})")]
pub struct EngineError {
    pub engine: String,
    pub kind: ErrorKind,
    pub code: Option<i32>,
    pub message: String,
    pub context: String,
    /// Why it met a lock, for [`ErrorKind::Busy`] (`None` for every other kind).
    pub busy_cause: Option<BusyCause>,
}

impl EngineError {
    /// The cause of a lock failure: the one the engine told, [`BusyCause::Unknown`] for a busy
    /// error that did not say, `None` for any other kind.
    pub fn lock_cause(&self) -> Option<BusyCause> {
        (self.kind == ErrorKind::Busy).then(|| self.busy_cause.unwrap_or(BusyCause::Unknown))
    }

    /// A trial's copy of the template that could not be made (engine `engine`): the disk is
    /// full, or another I/O error.
    pub fn copying_template(engine: &str, e: &crate::sys::scratch::ScratchError) -> EngineError {
        EngineError {
            busy_cause: None,
            engine: engine.to_string(),
            kind: if e.is_disk_full() {
                ErrorKind::Full
            } else {
                ErrorKind::Io
            },
            code: None,
            message: e.to_string(),
            context: "copying the template".into(),
        }
    }
}

/// Cancels the statement a connection is running, from another thread: what a stop request
/// (Ctrl-C, SIGTERM, SIGHUP) uses to end one long statement of a population (an index build,
/// `ANALYZE`) that no row loop can check in between. The interrupted statement fails with an
/// error. Call it only while the connection it came from is open (see
/// [`Connection::interrupter`]).
pub type Interrupter = Box<dyn Fn() + Send + Sync>;

/// An open connection to a database under test.
///
/// SQL uses `?` placeholders, numbered by position; engines whose native syntax differs
/// (PostgreSQL's `$1`) translate when preparing.
pub trait Connection {
    /// What cancels this connection's running statement from another thread, where the engine
    /// offers it; `None` elsewhere. The caller must stop calling it before the connection is
    /// dropped.
    fn interrupter(&self) -> Option<Interrupter> {
        None
    }
    /// Keeps the user's own SQL that runs next on this connection (a replayed log, a script, an
    /// `init=` file) inside the trial's scratch directory: no `ATTACH` or `VACUUM INTO` of a file
    /// outside it, no extension loaded, names built while running included. SQLite: its
    /// authorizer; DuckDB: external access off but for the scratch directory; Turso: its I/O
    /// layer, confined for every connection (nothing to do here); the servers: nothing, their
    /// SQL reaches what their user may (docs/servers.md). An error means the SQL must not run.
    fn confine_to_scratch(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
    /// The dialect this connection speaks.
    fn dialect(&self) -> Dialect;
    /// The statement that starts a transaction that is going to write: the dialect's
    /// ([`Dialect::begin_write`]) unless the connection was told otherwise (SQLite's `begin`
    /// knob).
    fn begin_write(&self) -> &'static str {
        self.dialect().begin_write()
    }
    /// The statement the `begin` knob set (`BEGIN IMMEDIATE`), where the user or a preset set
    /// it on an engine that has it: what a script's or a log's bare `BEGIN` starts as
    /// ([`crate::workload::bare_begin`]). `None`: the knob was not set (its default is for
    /// litebench's own transactions, never a rewrite of the user's) or the engine has no such
    /// knob; the user's SQL runs as written.
    fn begin_knob(&self) -> Option<&'static str> {
        None
    }
    /// The connection as the recording one a driver's transactions are made on, where it is
    /// ([`recording::Recording::record`]): a workload whose transaction reads what its own
    /// statements returned says so there. `None` on every engine.
    fn recording(&mut self) -> Option<&mut recording::Recording> {
        None
    }
    /// Runs one or more statements that take no parameters (DDL, pragmas). Not for timed loops.
    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError>;
    /// Prepares a statement once, for many runs.
    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError>;
    /// Binds `params` and runs the statement to completion. Returns the number of rows it
    /// produced (queries) or changed (DML).
    fn run(&mut self, stmt: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError>;
    /// Binds `params`, runs a query to completion and appends every value of every row it
    /// produced to `out`, row by row. Returns the number of rows. For timed loops: values are
    /// copied as numbers or bytes, never formatted, and `out` allocates only when it grows.
    fn run_values(&mut self, stmt: StmtId, params: &[Value<'_>], out: &mut values::Values) -> Result<u64, EngineError>;
    /// The names of the columns a prepared statement returns, in order (none for a statement
    /// that returns no rows), known without running it: what a script's `\gset` names its
    /// variables by. Not for timed loops.
    fn column_names(&mut self, stmt: StmtId) -> Result<Vec<String>, EngineError>;
    /// Which of a prepared statement's columns are SQL booleans, which [`run_values`] reads as
    /// 1 or 0 (PostgreSQL's `boolean`): a script's `\gset` keeps such a cell as pgbench keeps
    /// it, the text `t` or `f`. None where the engine has no boolean type of its own. Not for
    /// timed loops.
    ///
    /// [`run_values`]: Self::run_values
    fn boolean_columns(&mut self, _stmt: StmtId) -> Vec<bool> {
        Vec::new()
    }
    /// Loads the rows `fill` pushes into `table` (one value per column of `columns`, in that
    /// order) the engine's fastest way, committed when it returns; returns the rows loaded. For
    /// populating templates, not for timed loops. The default is prepared multi-row `INSERT`s in
    /// large transactions ([`bulk::insert_rows`]); engines with a native path override it.
    fn bulk_load(&mut self, table: &str, columns: &[&str], fill: bulk::Fill<'_>) -> Result<u64, EngineError> {
        bulk::insert_rows(self, table, columns, 64, fill)
    }
    /// What [`bulk_load`](Self::bulk_load) is called in the footprint (`appender`, `COPY FROM
    /// STDIN`).
    fn bulk_path(&self) -> &'static str {
        bulk::BULK_PATH
    }
    /// Loads `file` into `table`'s `columns` (the file's fields in that order) with the engine's
    /// own file reader, committed when it returns; `Ok(None)` where the engine has none (the
    /// caller then pushes the rows through [`bulk_load`](Self::bulk_load)). On an error nothing
    /// of the file is in the table. For populating templates.
    fn load_file(
        &mut self,
        _table: &str,
        _columns: &[&str],
        _file: &bulk::DelimitedFile<'_>,
    ) -> Result<Option<bulk::FileLoad>, EngineError> {
        Ok(None)
    }
    /// Runs a query and returns every row as text (`None` for NULL). Not for timed loops.
    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError>;
    /// The plan the engine chooses for `sql`, one line per step, as its own EXPLAIN shows it
    /// (SQLite: `EXPLAIN QUERY PLAN`, indented by depth). `None`: this engine cannot say. Not
    /// for timed loops.
    fn query_plan(&mut self, _sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        Ok(None)
    }
    /// Runs the query `sql` once, untimed, with the engine's per-loop counters on, and returns
    /// them (SQLite: `sqlite3_stmt_scanstatus_v2`). `None`: this engine or build keeps no such
    /// counters. Not for timed loops.
    fn loop_profile(&mut self, _sql: &str) -> Result<Option<Vec<LoopProfile>>, EngineError> {
        Ok(None)
    }
    /// Copies this connection's main database into `to`, an empty file the caller made, with
    /// the engine's online backup (SQLite's `sqlite3_backup_*`): `steps.pages` per step, the
    /// pause between steps; `stop` says when to give up (the trial ended), leaving the copy
    /// unfinished. The default refuses: the engine has no online backup.
    fn online_backup(
        &mut self,
        _to: &std::path::Path,
        _steps: crate::model::cast::BackupSteps,
        _stop: &dyn Fn() -> bool,
    ) -> Result<crate::model::cast::BackupProgress, EngineError> {
        Err(EngineError {
            busy_cause: None,
            engine: format!("{:?}", self.dialect()).to_lowercase(),
            kind: ErrorKind::Other,
            code: None,
            message: "this engine has no online backup API; give method = \"vacuum-into\"".into(),
            context: "an online backup".into(),
        })
    }
    /// The connection as its concrete type, for an engine that needs more of its own connection
    /// than this trait offers (SQLite's optimizer switches take the raw handle). `None`: not
    /// offered.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
    /// Whether several threads may use this connection, one at a time (`--connections shared`
    /// moves it between its clients' threads behind a mutex): SQLite's connections, opened in
    /// its multi-thread mode, may; false by default.
    fn threads_may_share(&self) -> bool {
        false
    }
    /// Whether this connection stores blobs its own way (the filesystem, SQLite's incremental
    /// blob I/O when `blob_api=incremental`) rather than through SQL statements.
    fn stores_blobs_natively(&self) -> bool {
        false
    }
    /// The connection's own blob store, where [`Connection::stores_blobs_natively`] says it has
    /// one (see [`blob`]).
    fn native_blob_store(&mut self) -> Result<Box<dyn blob::BlobStore + '_>, EngineError> {
        Err(blob::blob_error(
            "engine",
            "this connection has no blob store of its own".into(),
            "opening the blob store",
        ))
    }
    /// The first column of the first row of a query (`None`: no row, or NULL). Not for timed
    /// loops.
    fn query_value(&mut self, sql: &str) -> Result<Option<String>, EngineError> {
        Ok(self
            .query(sql)?
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten()))
    }
}

/// A database an engine created for litebench: a file in the scratch directory, a database on
/// a server, or an in-memory database (`path: None` for file engines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbRef {
    pub name: String,
    pub path: Option<PathBuf>,
}

/// An engine under test: one build or server, with its knobs and its way of making databases.
///
/// The runner drives every engine the same way: create a template database, populate it once,
/// clone it for each trial, connect, set and read back knobs, run, drop the clone.
pub trait Engine: Send + Sync {
    /// `--engine` label (`sqlite`, `sqlite:/path`, `postgres`, ...).
    fn label(&self) -> &str;
    /// The engine's version string, for the manifest.
    fn version(&self) -> String;
    /// A SQLite build's version, source id and compile options.
    fn sqlite_build(&self) -> Option<crate::model::engine_info::SqliteBuild> {
        None
    }
    /// Server or build details of note (data directory, port, settings, ...).
    fn details(&self) -> Option<serde_json::Value> {
        None
    }
    /// The loadable extension a configuration with `knobs` loads into its connections
    /// (`--knob extension=...`), checked and asked what it says of itself: for the manifest,
    /// before anything is measured. None for an engine without the knob.
    fn extension_info(
        &self,
        _knobs: &KnobSet,
    ) -> Result<Option<crate::model::engine_info::ExtensionInfo>, EngineError> {
        Ok(None)
    }
    /// Everything the manifest records about this engine; what the descriptor and the other
    /// methods already say (kind, whether I/O is counted, what a cold trial does) is taken from
    /// them, not restated by each engine.
    fn info(&self) -> EngineInfo {
        EngineInfo {
            label: self.label().to_string(),
            kind: self.kind().name.to_string(),
            version: self.version(),
            sqlite: self.sqlite_build(),
            details: self.details(),
            io_counted: Some(self.io_counters().is_some()),
            cold_trial: self.cold_trial().ok(),
        }
    }
    /// The knobs this engine knows by name.
    fn knob_specs(&self) -> &'static [KnobSpec] {
        self.kind().knobs
    }
    /// Prefix of pass-through settings this engine accepts (`pragma.` for SQLite).
    fn passthrough_prefix(&self) -> &'static str {
        self.kind().passthrough
    }
    /// The descriptor of this engine's kind: its knobs, prefix and everything else known
    /// without opening it.
    fn kind(&self) -> &'static kind::EngineKind;
    /// VFS-level I/O counters, for engines litebench can count inside.
    fn io_counters(&self) -> Option<Arc<IoCounters>>;
    /// Creates an empty database.
    fn create_database(&self, scratch: &Scratch, name: &str) -> Result<DbRef, EngineError>;
    /// Creates `name` as a copy of the populated database `from`.
    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError>;
    /// Removes a database this run created.
    fn drop_database(&self, scratch: &Scratch, db: &DbRef);
    /// Bytes the database occupies on disk, if known.
    fn database_size(&self, db: &DbRef) -> Option<u64>;
    /// Makes a just-populated database complete on disk by itself, its filling connection
    /// closed (DuckDB: checkpoints its WAL into the file), so the population time includes
    /// all of the load's writing. Nothing to do by default.
    fn finish_population(&self, _db: &DbRef) -> Result<(), EngineError> {
        Ok(())
    }
    /// Opens a connection.
    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError>;
    /// Makes a connection fast for populating a template (its durability does not matter).
    fn bulk_load_mode(&self, conn: &mut dyn Connection) -> Result<(), EngineError>;
    /// Issues the settings of one stage.
    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError>;
    /// Reads back every named knob and every pass-through setting of `knobs`.
    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError>;
    /// Why a knob may not have taken effect, for the error message.
    fn knob_hint(&self, knob: &str) -> String;
    /// Device bytes read and written so far by the processes doing this engine's I/O
    /// (see [`crate::sys::deviceio`]); `None` where they cannot be attributed (a server litebench did
    /// not start).
    fn device_io(&self) -> Option<DeviceIo> {
        None
    }
    /// Where a client process of this engine connects (`--client-mode processes`): a server's
    /// connection URL, secrets included (it travels on the child's standard input, never in its
    /// arguments). `None` for engines whose client processes open the trial's file themselves,
    /// or that have none.
    fn process_client_url(&self) -> Option<String> {
        None
    }
    /// What a cold trial (`--cold`) means for this engine, for the manifest and the checklist;
    /// `Err`: this engine cannot start trials cold, with why (one line).
    fn cold_trial(&self) -> Result<String, String> {
        Ok(OS_CACHE_DROPPED.into())
    }
    /// Makes the next trial start cold. `drop_os_cache` empties the OS page cache; an engine
    /// with a cache of its own that outlives connections (a server's buffer pool) empties that
    /// too, around the call.
    fn make_cold(&self, drop_os_cache: &mut dyn FnMut() -> Result<(), EngineError>) -> Result<(), EngineError> {
        drop_os_cache()
    }
    /// Before any trial: records the current value of every server-level setting the
    /// configurations' `knob_sets` will change, so that it can be put back; fails if one cannot
    /// be read.
    fn prepare_settings(&self, _knob_sets: &[&KnobSet]) -> Result<(), EngineError> {
        Ok(())
    }
    /// After the last trial: puts back every server-level setting the run changed. Returns one
    /// line per setting that could not be put back (saying how to do it by hand).
    fn restore_settings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// What `--cold` does for an engine whose only cache that outlives a connection is the OS's.
pub const OS_CACHE_DROPPED: &str = "OS page cache dropped before each trial";

#[cfg(test)]
mod explain_tests {
    use super::explain_lines;

    #[test]
    fn explain_rows_become_lines() {
        let pg = vec![
            vec![Some("Seq Scan on t  (cost=0.00..1.01 rows=1 width=4)".to_string())],
            vec![Some("  Filter: (x > 1)".to_string())],
        ];
        assert_eq!(
            explain_lines(&pg, None),
            vec!["Seq Scan on t  (cost=0.00..1.01 rows=1 width=4)", "  Filter: (x > 1)"]
        );
        let duck = vec![vec![
            Some("physical_plan".to_string()),
            Some("┌───┐\n│ X │  \n└───┘\n".to_string()),
        ]];
        assert_eq!(explain_lines(&duck, Some(1)), vec!["┌───┐", "│ X │", "└───┘"]);
        let my = vec![vec![Some("1".to_string()), None, Some("t".to_string())]];
        assert_eq!(explain_lines(&my, None), vec!["1 | t"]);
    }
}
