//! A SQLite build as an engine under test: connections through the counting VFS, knobs set and
//! read back.

use super::api::Api;
use super::build::SqliteBuild;
use super::conn::SqliteConn;
use super::vfs;
use crate::engine::{Connection, EngineError};
use crate::iocount::IoCounters;
use crate::knob::{self, KnobError, KnobReading, KnobSet, Stage, SQLITE_KNOBS};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which SQLite build, as named by `--engine`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqliteChoice {
    Bundled,
    Library(PathBuf),
}

/// One SQLite build, ready to open counted connections.
pub struct SqliteEngine {
    pub label: String,
    pub api: &'static Api,
    pub counters: Arc<IoCounters>,
    pub build: SqliteBuild,
}

/// Why an engine could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Load(#[from] super::api::LoadError),
    #[error(transparent)]
    Shim(#[from] vfs::ShimError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl SqliteEngine {
    /// Loads the build and installs the counting VFS in it.
    pub fn open(choice: &SqliteChoice) -> Result<SqliteEngine, SetupError> {
        let (api, label) = match choice {
            SqliteChoice::Bundled => (Api::bundled(), "sqlite".to_string()),
            SqliteChoice::Library(p) => (Api::load(p)?, format!("sqlite:{}", p.display())),
        };
        let counters = vfs::install(api)?;
        let build = SqliteBuild::describe(api)?;
        Ok(SqliteEngine {
            label,
            api,
            counters,
            build,
        })
    }

    /// Opens a counted connection to `path`, or a private in-memory database for `None`.
    pub fn connect(&self, path: Option<&Path>) -> Result<SqliteConn, EngineError> {
        match path {
            Some(p) => SqliteConn::open(self.api, p, Some(vfs::SHIM_NAME), &self.label),
            None => SqliteConn::open_memory(self.api, &self.label),
        }
    }

    /// Issues the settings of one stage, in order.
    pub fn apply(&self, conn: &mut SqliteConn, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        for k in knobs.0.iter().filter(|k| k.stage() == stage) {
            // `query`, not `execute_batch`: some pragmas (journal_mode) answer with a row.
            conn.query(&format!("PRAGMA {}={}", k.pragma(), k.value))?;
        }
        Ok(())
    }

    /// Reads back every named knob and every pass-through pragma of `knobs`.
    pub fn read_back(&self, conn: &mut SqliteConn, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        let mut out = Vec::new();
        for spec in SQLITE_KNOBS {
            let raw = first_value(conn.query(&format!("PRAGMA {}", spec.name))?);
            out.push(KnobReading {
                name: spec.name.to_string(),
                requested: knobs.get(spec.name).map(str::to_string),
                effective: raw.map(|r| spec.kind.readback(&r)),
            });
        }
        for k in knobs.0.iter().filter(|k| k.is_passthrough()) {
            let raw = first_value(conn.query(&format!("PRAGMA {}", k.pragma()))?);
            out.push(KnobReading {
                name: k.name.clone(),
                requested: Some(k.value.clone()),
                effective: raw,
            });
        }
        Ok(out)
    }
}

fn first_value(rows: Vec<Vec<Option<String>>>) -> Option<String> {
    rows.into_iter().next().and_then(|r| r.into_iter().next().flatten())
}

/// Fails on the first requested knob whose effective value differs from the request.
/// A pass-through pragma that reads back nothing cannot be verified and is left as recorded.
pub fn verify(readings: &[KnobReading], engine: &str, in_memory: bool) -> Result<(), KnobError> {
    for r in readings {
        let Some(req) = &r.requested else { continue };
        let ok = match (&r.effective, r.name.starts_with(knob::PASSTHROUGH_PREFIX)) {
            (None, true) => true,
            (Some(eff), true) => knob::passthrough_matches(req, eff),
            (Some(eff), false) => eff == req,
            (None, false) => false,
        };
        if !ok {
            let hint = match r.name.as_str() {
                "journal_mode" if in_memory => {
                    "an in-memory database only supports journal_mode memory or off".to_string()
                }
                "journal_mode" => {
                    "the build or the filesystem does not support that mode (WAL needs shared memory)".to_string()
                }
                "mmap_size" => "SQLite clamps it to the build's SQLITE_MAX_MMAP_SIZE; request at most that".to_string(),
                "page_size" if in_memory => {
                    "page_size cannot change once an in-memory database has content".to_string()
                }
                _ => "remove the knob or use a build that honours it".to_string(),
            };
            return Err(KnobError::NotEffective {
                knob: r.name.clone(),
                engine: engine.to_string(),
                requested: req.clone(),
                effective: r.effective.clone().unwrap_or_else(|| "nothing (no read-back)".into()),
                hint,
            });
        }
    }
    Ok(())
}
