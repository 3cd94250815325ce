//! DuckDB: its descriptor and knobs (always compiled, so `list` and errors can name it) and
//! the engine itself behind the cargo feature `duckdb` (building DuckDB from source takes
//! 54 minutes on an idle 2-core VM here, 93 beside other builds).

#[cfg(feature = "duckdb")]
mod engine;

#[cfg(feature = "duckdb")]
pub use engine::*;

use super::kind::{EngineKind, Runs};
use super::{Dialect, Engine};
use crate::base::Failure;
use crate::model::knob::{KnobKind, KnobSpec, Stage};
use crate::sys::scratch::Scratch;

/// Pass-through prefix: `--knob set.NAME=VALUE` issues `SET NAME = 'VALUE'`.
pub const PREFIX: &str = "set.";

/// DuckDB's knobs. `threads` defaults to 1 in litebench (the paper's setting), not DuckDB's
/// one-per-core.
pub const DUCKDB_KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "threads",
        kind: KnobKind::Int { min: 1, max: 1024 },
        stage: Stage::Connect,
        default: "1 (litebench; DuckDB's own default is one per core)",
        help: "worker threads",
    },
    KnobSpec {
        name: "memory_limit",
        kind: KnobKind::Bytes { min: 1 << 20 },
        stage: Stage::Connect,
        default: "80% of RAM",
        help: "memory DuckDB may use (the VLDB'22 paper gave both engines 1 GB)",
    },
];

/// DuckDB's descriptor.
pub static KIND: EngineKind = EngineKind {
    name: "duckdb",
    aliases: &[],
    about: "embedded DuckDB, one thread by default",
    target: None,
    dialect: Some(Dialect::Duckdb),
    knobs: DUCKDB_KNOBS,
    passthrough: PREFIX,
    io_counted: false,
    durability_knobs: &[],
    in_memory: false,
    files_in_scratch: true,
    file_knobs: &[],
    workloads: Runs::AllSql,
    available: if cfg!(feature = "duckdb") {
        Ok(())
    } else {
        Err("this build of litebench has no DuckDB; rebuild with `cargo build --release --features duckdb` (compiles DuckDB from source: about an hour on 2 cores)")
    },
    open,
};

#[cfg(feature = "duckdb")]
fn open(_target: Option<&str>, _scratch: &Scratch, _memory: bool) -> Result<Box<dyn Engine>, Failure> {
    Ok(Box::new(DuckEngine::open()?))
}

#[cfg(not(feature = "duckdb"))]
fn open(_target: Option<&str>, _scratch: &Scratch, _memory: bool) -> Result<Box<dyn Engine>, Failure> {
    Err(Failure("--engine duckdb: this build of litebench has no DuckDB".into()))
}

/// DuckDB's compile, as this binary's build found it (see build.rs): wall seconds of
/// libduckdb-sys's build script and the bytes of its static archive; `None` without the
/// `duckdb` feature.
pub fn duckdb_build() -> Option<(f64, u64)> {
    let v = env!("LITEBENCH_DUCKDB_BUILD");
    let (s, b) = v.split_once(' ')?;
    Some((s.parse().ok()?, b.parse().ok()?))
}
