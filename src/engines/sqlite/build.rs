//! What SQLite build a result came from: version, source id and every compile option.

use super::api::Api;
use super::conn::SqliteConn;
use crate::engines::{Connection, EngineError};
use serde::{Deserialize, Serialize};

/// Identity of one SQLite build, recorded in every result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqliteBuild {
    /// `bundled`, or the path of the shared library.
    pub origin: String,
    /// `sqlite_version()`.
    pub version: String,
    /// `sqlite_source_id()`: the exact check-in the build came from.
    pub source_id: String,
    /// Every `PRAGMA compile_options` entry.
    pub compile_options: Vec<String>,
    /// Interfaces of newer SQLite releases this build lacks, as `symbol (since version)`;
    /// litebench falls back to older ones (see `api`). Empty for current builds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<String>,
    /// For a library `litebench build-sqlite` compiled (`--engine sqlite@NAME`): its flags,
    /// compiler and footprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<super::compiled::CompiledBuild>,
}

impl SqliteBuild {
    /// Reads the identity of the build behind `api`.
    pub fn describe(api: &'static Api) -> Result<SqliteBuild, EngineError> {
        let mut conn = SqliteConn::open_memory(api, &api.origin)?;
        let compile_options = conn
            .query("PRAGMA compile_options")?
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect();
        Ok(SqliteBuild {
            origin: api.origin.clone(),
            version: api.version(),
            source_id: api.source_id(),
            compile_options,
            unavailable: api
                .unavailable()
                .iter()
                .map(|s| format!("{} (since {})", s.name, s.since))
                .collect(),
            compiled: None,
        })
    }
}
