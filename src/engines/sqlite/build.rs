//! What SQLite build a result came from: version, source id and every compile option.

use super::api::Api;
use super::conn::SqliteConn;
use crate::engines::{Connection, EngineError};
use crate::model::engine_info::SqliteBuild;

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
            libsql_version: api.libsql_version.clone(),
            compiled: None,
        })
    }
}
