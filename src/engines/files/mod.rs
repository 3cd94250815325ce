//! `files`: the plain filesystem as an engine, one file per blob, as the baseline that blobs in
//! a database are measured against (VLDB'22 section 4.3; SQLite's "35% Faster Than The
//! Filesystem").
//!
//! A baseline is only fair if what it promises is said: its knob `durability` has explicit
//! levels, so a comparison never pits an unsynced file against a durable database by accident.
//!
//! - `none`: `pwrite`/`pread`, no sync (survives a process crash, not a power loss);
//! - `data`: `pwrite` + `fdatasync` (the paper's baseline): durable, but not atomic — a crash
//!   in the middle of a write can leave a torn blob;
//! - `atomic`: write a temporary file, `fsync` it, `rename` it over the blob, `fsync` the
//!   directory: the way an application gets the all-or-nothing replacement SQLite gives.
//!
//! Its I/O is counted in the same counters as SQLite's VFS ([`crate::sys::iocount`]): file syncs,
//! directory syncs, reads, writes and their bytes, so syncs and bytes per operation stand side
//! by side in the report. It runs only the `blob` workload; every other workload is refused up
//! front ([`Runs::Only`]).

mod conn;
mod engine;

pub use conn::{Durability, FilesConn};
pub use engine::FilesEngine;

use super::kind::{EngineKind, Runs};
use super::Engine;
use crate::base::Failure;
use crate::model::knob::{KnobKind, KnobSpec, ReadBy, Stage};
use crate::sys::scratch::Scratch;

/// Prefix of pass-through settings: `files` has none, and refuses any so prefixed.
pub const PREFIX: &str = "files.";

/// The knob that sets the durability level.
pub const DURABILITY_KNOB: &str = "durability";

/// The `files` engine's knobs.
pub const FILES_KNOBS: &[KnobSpec] = &[KnobSpec {
    name: DURABILITY_KNOB,
    kind: KnobKind::Choice(Durability::NAMES),
    stage: Stage::Connect,
    read_by: ReadBy::Engine,
    default: "data",
    help: "none: pwrite, no sync; data: pwrite + fdatasync (the VLDB'22 baseline, not atomic); atomic: temporary file + fsync + rename + directory fsync",
}];

/// The `files` descriptor.
pub static KIND: EngineKind = EngineKind {
    name: "files",
    aliases: &[],
    about: "the plain filesystem, one file per blob (blob workload only); see docs/files-engine.md",
    target: None,
    dialect: None,
    knobs: FILES_KNOBS,
    passthrough: PREFIX,
    io_counted: true,
    durability_knobs: &[DURABILITY_KNOB],
    in_memory: false,
    files_in_scratch: true,
    file_knobs: &[],
    workloads: Runs::Only(&["blob"]),
    open,
};

fn open(_target: Option<&str>, _scratch: &Scratch, _memory: bool) -> Result<Box<dyn Engine>, Failure> {
    Ok(Box::new(FilesEngine::new()))
}
