//! Turso, SQLite rewritten in Rust: its descriptor, knobs and the engine, compiled into
//! litebench from the Rust crate registry (`turso_core`, pinned in Cargo.toml).
//!
//! Turso speaks SQLite's SQL and writes SQLite's file format, so it runs litebench's SQLite
//! workloads as they are, with SQLite's dialect. What differs is under the SQL: its own pager
//! and write-ahead log (its only journal modes are `wal` and the experimental `mvcc`, with
//! `BEGIN CONCURRENT` on top of it), and its own I/O layer, which litebench wraps to count
//! every sync, read and write as it does for SQLite (`io.rs`). A workload Turso's SQL cannot
//! run fails at its first statement with Turso's own message, naming the statement.

pub mod conn;
pub mod engine;
pub mod io;

pub use engine::TursoEngine;

use super::kind::{EngineKind, Runs};
use super::{Dialect, Engine};
use crate::base::Failure;
use crate::model::knob::{KnobKind, KnobSpec, ReadBy, Stage};
use crate::sys::scratch::Scratch;

/// The release of `turso_core` compiled in: the one Cargo.lock pins (a unit test checks).
pub const VERSION: &str = "0.8.3";

/// Pass-through prefix: `--knob pragma.NAME=VALUE` issues `PRAGMA NAME=VALUE`.
pub const PREFIX: &str = "pragma.";

/// How write transactions start, and the statement each value makes. `concurrent` is Turso's
/// `BEGIN CONCURRENT`: writers that touch different rows commit side by side, in the `mvcc`
/// journal mode only.
pub const BEGIN_MODES: &[(&str, &str)] = &[
    ("deferred", "BEGIN DEFERRED"),
    ("immediate", "BEGIN IMMEDIATE"),
    ("concurrent", "BEGIN CONCURRENT"),
];

/// Turso's knobs, each set as a pragma and read back (`begin` is litebench's own).
pub const TURSO_KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "journal_mode",
        kind: KnobKind::Choice(&["wal", "mvcc"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "wal",
        help: "write-ahead log, or Turso's experimental multi-version concurrency control (a logical log, .db-log)",
    },
    KnobSpec {
        name: "synchronous",
        kind: KnobKind::Choice(&["off", "normal", "full"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "full",
        help: "how often Turso waits for the storage (fsync)",
    },
    KnobSpec {
        name: "cache_size",
        kind: KnobKind::Int {
            min: i32::MIN as i64 + 1,
            max: i32::MAX as i64,
        },
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "-2000",
        help: "page cache: pages if positive, KiB if negative",
    },
    KnobSpec {
        name: "busy_timeout",
        kind: KnobKind::Int {
            min: 0,
            max: i32::MAX as i64,
        },
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "0",
        help: "milliseconds to wait for a lock before failing busy",
    },
    KnobSpec {
        name: "begin",
        kind: KnobKind::Choice(&["deferred", "immediate", "concurrent"]),
        stage: Stage::Connect,
        read_by: ReadBy::Workload,
        default: "immediate",
        help: "how workloads start a transaction that writes; concurrent (BEGIN CONCURRENT) needs journal_mode=mvcc",
    },
];

/// Turso's descriptor.
pub static KIND: EngineKind = EngineKind {
    name: "turso",
    aliases: &[],
    about: "embedded Turso (SQLite rewritten in Rust), turso_core 0.8.3 compiled in; I/O counted in its own I/O layer",
    target: None,
    dialect: Some(Dialect::Sqlite),
    knobs: TURSO_KNOBS,
    passthrough: PREFIX,
    io_counted: true,
    durability_knobs: &["journal_mode", "synchronous"],
    in_memory: false,
    files_in_scratch: true,
    // The mvcc mode is written into the database header: a template is never shared across it.
    file_knobs: &["journal_mode"],
    workloads: Runs::AllSql,
    open,
};

fn open(_target: Option<&str>, _scratch: &Scratch, _memory: bool) -> Result<Box<dyn Engine>, Failure> {
    let engine = TursoEngine::open().map_err(|e| Failure(format!("--engine turso: {e}")))?;
    Ok(Box::new(engine))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_is_the_one_cargo_lock_pins() {
        let lock = include_str!("../../../Cargo.lock");
        let pinned = lock
            .split("[[package]]")
            .find(|p| p.contains("name = \"turso_core\""))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .map(|v| v.trim_end_matches('"'));
        assert_eq!(pinned, Some(super::VERSION));
        assert!(super::KIND.about.contains(super::VERSION));
    }
}
