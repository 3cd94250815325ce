//! The one interface workloads use to talk to a database.
//!
//! A workload is written once against [`Connection`] and runs on every engine. The interface is
//! deliberately small — prepare once, run many times with bound values — because the timed loop
//! must cost no more than a bare loop over the engine's own API: no allocation, no formatting,
//! no SQL parsing per operation.

use serde::{Deserialize, Serialize};

/// A value bound to a statement parameter. Borrowed, so binding allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
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
}

/// An open connection to a database under test.
pub trait Connection {
    /// Runs one or more statements that take no parameters (DDL, pragmas). Not for timed loops.
    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError>;
    /// Prepares a statement once, for many runs.
    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError>;
    /// Binds `params` and runs the statement to completion. Returns the number of rows it
    /// produced (queries) or changed (DML).
    fn run(&mut self, stmt: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError>;
    /// Runs a query and returns every row as text (`None` for NULL). Not for timed loops.
    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError>;
}
