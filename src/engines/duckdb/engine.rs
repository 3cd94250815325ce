//! DuckDB as an engine under test: one loaded library ([`Api`]), its databases and knobs.
//!
//! The VLDB'22 study of SQLite uses DuckDB as its reference engine, with one thread and a
//! 1 GB memory limit for both. Databases are files in the scratch directory, cloned for each
//! trial like SQLite's. litebench opens every database with `threads=1` unless the `threads`
//! knob says otherwise, as the paper did.
//!
//! One DuckDB process may open a database file once: further connections to the same file
//! (several clients) share one instance, kept open until the database is cloned or dropped, or
//! its population ends: a template's population is timed until its WAL is checkpointed into
//! the file, as SQLite's until its connection closes.

use super::api::Api;
use super::conn::{error, Db};
use super::{DUCKDB_KNOBS, PREFIX};
use crate::engines::{Connection, DbRef, Engine, EngineError, OS_CACHE_DROPPED};
use crate::model::knob::{KnobReading, KnobSet, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::Scratch;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where a loaded library came from, for the manifest.
#[derive(Debug, Clone)]
pub enum Origin {
    /// A pinned release fetched from npm (`duckdb`, `duckdb@VERSION`).
    Release(&'static super::release::Release),
    /// A library named on the command line (`duckdb:<path>`).
    Path,
}

/// The DuckDB engine: one library.
pub struct DuckEngine {
    label: String,
    api: &'static Api,
    library: PathBuf,
    origin: Origin,
    version: String,
    source_id: String,
    /// The open instance of each database file.
    primaries: Mutex<HashMap<PathBuf, Arc<Db>>>,
}

/// Parses DuckDB's human-readable sizes ("953.6 MiB", "1.0 GiB", "16 bytes") into bytes.
pub fn parse_size(s: &str) -> Option<f64> {
    crate::base::bytesize::parse(s)
}

/// DuckDB wants a unit on sizes: whole KiB or KB when the byte count allows, else KB rounded up.
fn memory_value(bytes: &str) -> String {
    match bytes.parse::<u64>() {
        Ok(b) if b % 1024 == 0 => format!("{}KiB", b / 1024),
        Ok(b) => format!("{}KB", b.div_ceil(1000)),
        Err(_) => bytes.to_string(),
    }
}

/// DuckDB prints sizes with one decimal: a read-back within that rounding of the request is the
/// request.
fn same_size(requested: &str, readback: &str) -> bool {
    match (requested.parse::<f64>(), parse_size(readback)) {
        (Ok(r), Some(e)) => (r - e).abs() <= r * 0.001 + 1024.0 * 1024.0 * 0.05,
        _ => false,
    }
}

impl DuckEngine {
    /// Uses the loaded library `api` (from `library`) under `label`: checks it opens a database
    /// and reads its source id.
    pub fn open(label: String, api: &'static Api, library: PathBuf, origin: Origin) -> Result<DuckEngine, EngineError> {
        let db = Arc::new(Db::open(api, &label, None, "1")?);
        let mut conn = db.connect()?;
        let rows = conn.query("SELECT library_version, source_id FROM pragma_version()")?;
        let source_id = rows
            .first()
            .and_then(|r| r.get(1).cloned().flatten())
            .unwrap_or_default();
        drop(conn);
        Ok(DuckEngine {
            version: api.version(),
            label,
            api,
            library,
            origin,
            source_id,
            primaries: Mutex::new(HashMap::new()),
        })
    }

    /// The write-ahead log DuckDB keeps beside `path` while the database is open.
    fn wal_path(path: &Path) -> PathBuf {
        let mut wal = path.as_os_str().to_owned();
        wal.push(".wal");
        PathBuf::from(wal)
    }

    /// Checkpoints and forgets the instance of `path` (it closes with its last connection).
    fn close_primary(&self, path: &Path) -> Result<(), EngineError> {
        let db = self.primaries.lock().unwrap_or_else(|p| p.into_inner()).remove(path);
        if let Some(db) = db {
            // Checkpoint so the file is complete on its own before it is copied.
            db.connect()?.execute_batch("CHECKPOINT")?;
        }
        Ok(())
    }

    fn library_bytes(&self) -> Option<u64> {
        std::fs::metadata(&self.library).ok().map(|m| m.len())
    }
}

impl Engine for DuckEngine {
    fn label(&self) -> &str {
        &self.label
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn details(&self) -> Option<serde_json::Value> {
        let mut d = serde_json::json!({
            "source_id": self.source_id,
            "library": self.library.display().to_string(),
            "library_bytes": self.library_bytes(),
        });
        if let Origin::Release(r) = &self.origin {
            d["registry"] = match r.client {
                super::release::Client::Npm => "npm",
                super::release::Client::Pip => "PyPI",
            }
            .into();
            d["package"] = r.package.into();
            d["package_sha256"] = r.sha256.into();
            if let Some(n) = r.needs {
                d["loaded_first"] = n.library.into();
            }
        }
        Some(d)
    }

    fn device_io(&self) -> Option<DeviceIo> {
        // DuckDB runs in litebench's process, its worker threads included.
        DeviceIo::this_process()
    }

    fn cold_trial(&self) -> Result<String, String> {
        // The trial's copy is a new file opened by a new database instance (`connect`), so
        // DuckDB's buffer manager holds none of its blocks.
        Ok(format!(
            "{OS_CACHE_DROPPED} (DuckDB opens the trial's fresh copy as a new database instance, so its buffer pool starts empty)"
        ))
    }

    fn kind(&self) -> &'static crate::engines::kind::EngineKind {
        &super::KIND
    }

    fn io_counters(&self) -> Option<Arc<IoCounters>> {
        None
    }

    fn create_database(&self, scratch: &Scratch, name: &str) -> Result<DbRef, EngineError> {
        Ok(DbRef {
            name: name.to_string(),
            path: Some(scratch.path(&format!("{name}.duckdb"))),
        })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let Some(src) = from.path.as_ref() else {
            return Err(error(
                &self.label,
                "a DuckDB database without a file".into(),
                "copying the template",
            ));
        };
        // A failed checkpoint leaves the WAL, which the copy below does not carry: say so.
        self.close_primary(src)?;
        let to = scratch.path(&format!("{name}.duckdb"));
        if let Err(e) = scratch.copy_durable(src, &to) {
            let _ = std::fs::remove_file(&to);
            return Err(EngineError::copying_template(&self.label, &e));
        }
        Ok(DbRef {
            name: name.to_string(),
            path: Some(to),
        })
    }

    fn drop_database(&self, _scratch: &Scratch, db: &DbRef) {
        if let Some(p) = &db.path {
            self.primaries.lock().unwrap_or_else(|p| p.into_inner()).remove(p);
            let _ = std::fs::remove_file(p);
            let _ = std::fs::remove_file(Self::wal_path(p));
        }
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        let p = db.path.as_ref()?;
        let _ = self.close_primary(p);
        // A WAL left over (a checkpoint that failed) is part of the database too.
        let wal = std::fs::metadata(Self::wal_path(p)).map_or(0, |m| m.len());
        std::fs::metadata(p).ok().map(|m| m.len() + wal)
    }

    fn finish_population(&self, db: &DbRef) -> Result<(), EngineError> {
        match &db.path {
            Some(p) => self
                .close_primary(p)
                .map_err(|e| error(&self.label, e.message, "checkpointing the populated database")),
            None => Ok(()),
        }
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let Some(path) = db.path.clone() else {
            return Err(error(
                &self.label,
                "a DuckDB database without a file".into(),
                "connecting",
            ));
        };
        let instance = {
            let mut primaries = self.primaries.lock().unwrap_or_else(|p| p.into_inner());
            match primaries.get(&path) {
                Some(db) => Arc::clone(db),
                None => {
                    let db = Arc::new(Db::open(self.api, &self.label, Some(&path), "1")?);
                    primaries.insert(path, Arc::clone(&db));
                    db
                }
            }
        };
        Ok(Box::new(instance.connect()?))
    }

    fn bulk_load_mode(&self, _conn: &mut dyn Connection) -> Result<(), EngineError> {
        Ok(())
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        if stage != Stage::Connect {
            return Ok(());
        }
        if knobs.get("threads").is_none() {
            conn.execute_batch("SET threads = 1")?;
        }
        for k in &knobs.0 {
            let name = k.setting_name(PREFIX);
            let value = if k.name == "memory_limit" {
                memory_value(&k.value)
            } else {
                k.value.clone()
            };
            conn.execute_batch(&format!("SET {name} = '{}'", value.replace('\'', "''")))?;
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        crate::model::knob::read_back(DUCKDB_KNOBS, PREFIX, knobs, |name, requested| {
            let raw = conn.query_value(&format!("SELECT current_setting('{name}')"))?;
            Ok(match (name, requested, raw) {
                ("memory_limit", Some(req), Some(eff)) if same_size(req, &eff) => Some(req.to_string()),
                (_, _, raw) => raw,
            })
        })
    }

    fn knob_hint(&self, knob: &str) -> String {
        match knob {
            "memory_limit" => "DuckDB reports it rounded to 0.1 of its unit; give a value in bytes".into(),
            _ => "DuckDB did not accept that value".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_compare_with_duckdb_rounding() {
        assert_eq!(parse_size("1.0 GiB"), Some(1024.0 * 1024.0 * 1024.0));
        assert_eq!(parse_size("16 bytes"), Some(16.0));
        assert!(same_size("1000000000", "953.6 MiB"));
        assert!(!same_size("1000000000", "1.9 GiB"));
        assert_eq!(memory_value("1000000000"), "1000000KB");
        assert_eq!(memory_value("1073741824"), "1048576KiB");
    }
}
