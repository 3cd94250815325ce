//! The engines litebench can run, by `--engine` name: parsing, knob tables and opening.
//!
//! Knob tables are known from the name alone, so every `--knob` is validated before any
//! library is loaded or server started.

use crate::commands::Failure;
use crate::engine::Engine;
use crate::knob::{KnobSpec, PASSTHROUGH_PREFIX, SQLITE_KNOBS};
use crate::scratch::Scratch;
use crate::sqlite::engine::{SqliteChoice, SqliteEngine};
use std::path::PathBuf;

/// An `--engine` value, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineChoice {
    Sqlite(SqliteChoice),
}

/// Engines a build of litebench can name, with how to use them (for `list` and errors).
pub const ENGINES: &[(&str, &str)] = &[
    (
        "sqlite",
        "the bundled SQLite (pinned version; flags in docs/sqlite-build.md)",
    ),
    (
        "sqlite:<path>",
        "another SQLite build loaded from a shared library, e.g. sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
    ),
];

fn valid() -> String {
    format!(
        "valid engines: {}",
        ENGINES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
    )
}

impl EngineChoice {
    /// Parses one `--engine` value.
    pub fn parse(s: &str) -> Result<EngineChoice, Failure> {
        match s {
            "sqlite" => Ok(EngineChoice::Sqlite(SqliteChoice::Bundled)),
            _ if s.starts_with("sqlite:") => {
                let p = &s["sqlite:".len()..];
                if p.is_empty() {
                    return Err(Failure(format!(
                        "--engine {s}: missing library path; e.g. sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
                    )));
                }
                Ok(EngineChoice::Sqlite(SqliteChoice::Library(PathBuf::from(p))))
            }
            "duckdb" | "postgres" | "mysql" | "mariadb" | "fs" => Err(Failure(format!(
                "--engine {s}: not available in this build of litebench yet; {}",
                valid()
            ))),
            _ => Err(Failure(format!("--engine {s}: unknown engine; {}", valid()))),
        }
    }

    /// The engine's knob table and pass-through prefix.
    pub fn knob_table(&self) -> (&'static [KnobSpec], &'static str) {
        match self {
            EngineChoice::Sqlite(_) => (SQLITE_KNOBS, PASSTHROUGH_PREFIX),
        }
    }

    /// Loads the library or starts the server (servers keep their data under `scratch`).
    pub fn open(&self, _scratch: &Scratch, memory: bool) -> Result<Box<dyn Engine>, Failure> {
        match self {
            EngineChoice::Sqlite(c) => Ok(Box::new(SqliteEngine::open(c, memory)?)),
        }
    }

    /// Whether it can run on in-memory databases (`--memory`).
    pub fn supports_memory(&self) -> bool {
        matches!(self, EngineChoice::Sqlite(_))
    }
}
