//! Turso as an engine under test: database files in the scratch directory, opened through
//! the counting I/O layer, knobs set as pragmas and read back.
//!
//! Turso keeps one database instance per file in a process (its own registry), and locks the
//! file while it is open; its write-ahead log lives in the instance. So litebench keeps the
//! instance of each database it opened here, hands every connection to that one, and before
//! a database is copied (a trial's clone of the template) or measured, checkpoints its log into
//! the file and closes the instance: the copy is then the whole database, as for SQLite.

use super::conn::{error, TursoConn};
use super::io::CountingIo;
use super::{BEGIN_MODES, PREFIX, TURSO_KNOBS, VERSION};
use crate::engines::{Connection, DbRef, Engine, EngineError, ErrorKind, OS_CACHE_DROPPED};
use crate::model::knob::{KnobReading, KnobSet, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::Scratch;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files Turso keeps beside a database `X.db`: its write-ahead log and the `mvcc` mode's
/// logical log.
const SIDE_FILES: [&str; 2] = ["-wal", "-log"];

/// The Turso engine.
pub struct TursoEngine {
    io: Arc<CountingIo>,
    counters: Arc<IoCounters>,
    /// The SQLite release Turso says it is compatible with (`sqlite_version()`).
    sqlite_version: String,
    /// The open instance of each database file.
    primaries: Mutex<HashMap<PathBuf, Arc<turso_core::Database>>>,
}

/// A path as the string Turso opens (it takes `&str`).
fn path_str<'p>(path: &'p Path, context: &str) -> Result<&'p str, EngineError> {
    path.to_str().ok_or_else(|| EngineError {
        busy_cause: None,
        engine: "turso".into(),
        kind: ErrorKind::Input,
        code: None,
        message: format!("{} is not UTF-8; Turso opens databases by UTF-8 paths", path.display()),
        context: context.to_string(),
    })
}

fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

impl TursoEngine {
    /// Sets up Turso's I/O with litebench's counters and checks it opens a database.
    pub fn open() -> Result<TursoEngine, EngineError> {
        let counters = Arc::new(IoCounters::default());
        let io = CountingIo::platform(Arc::clone(&counters)).map_err(|e| error("turso", &e, "setting up I/O"))?;
        // A database in memory answers what the engine says it is, without touching a file.
        let memory = turso_core::Database::open(
            Arc::new(turso_core::MemoryIO::new()),
            ":memory:",
            turso_core::OpenOptions::new(Arc::new(turso_core::SqliteDialect)),
        )
        .map_err(|e| error("turso", &e, "opening a database in memory"))?;
        let conn = memory.connect().map_err(|e| error("turso", &e, "connecting"))?;
        let sqlite_version = TursoConn::new(conn, "turso")
            .query_value("SELECT sqlite_version()")?
            .unwrap_or_default();
        Ok(TursoEngine {
            io: Arc::new(io),
            counters,
            sqlite_version,
            primaries: Mutex::new(HashMap::new()),
        })
    }

    /// The open instance of `path`, opened through the counting I/O if it is not open.
    fn instance(&self, path: &Path) -> Result<Arc<turso_core::Database>, EngineError> {
        let mut primaries = self.primaries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(db) = primaries.get(path) {
            return Ok(Arc::clone(db));
        }
        let context = format!("opening {}", path.display());
        // Turso opens files only beside the databases litebench opens (see `io`).
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        self.io.allow_dir(dir).map_err(|e| EngineError {
            busy_cause: None,
            engine: "turso".into(),
            kind: ErrorKind::Other,
            code: None,
            message: format!("{}: {e}", dir.display()),
            context: context.clone(),
        })?;
        let io: Arc<dyn turso_core::IO> = self.io.clone();
        let db = turso_core::Database::open(
            io,
            path_str(path, &context)?,
            turso_core::OpenOptions::new(Arc::new(turso_core::SqliteDialect)),
        )
        .map_err(|e| error("turso", &e, &context))?;
        primaries.insert(path.to_path_buf(), Arc::clone(&db));
        Ok(db)
    }

    /// Checkpoints the log of `path` into the file and closes its instance, so that the file
    /// alone is the database. Nothing to do if it is not open.
    fn close_primary(&self, path: &Path) -> Result<(), EngineError> {
        let db = self.primaries.lock().unwrap_or_else(|p| p.into_inner()).remove(path);
        let Some(db) = db else { return Ok(()) };
        let conn = db
            .connect()
            .map_err(|e| error("turso", &e, "connecting to checkpoint"))?;
        let mut c = TursoConn::new(conn, "turso");
        c.query("PRAGMA wal_checkpoint(TRUNCATE)")?;
        drop(c);
        drop(db);
        // A log left with content would be lost by a copy of the file alone.
        for suffix in SIDE_FILES {
            let side = side_file(path, suffix);
            if std::fs::metadata(&side).is_ok_and(|m| m.len() > 0) {
                return Err(EngineError {
                    busy_cause: None,
                    engine: "turso".into(),
                    kind: ErrorKind::Other,
                    code: None,
                    message: format!("{} still holds data after a checkpoint", side.display()),
                    context: "closing the database".into(),
                });
            }
        }
        Ok(())
    }

    fn conn_of<'c>(&self, conn: &'c mut dyn Connection) -> Result<&'c mut TursoConn, EngineError> {
        conn.as_any_mut()
            .and_then(|a| a.downcast_mut::<TursoConn>())
            .ok_or_else(|| EngineError {
                busy_cause: None,
                engine: "turso".into(),
                kind: ErrorKind::Other,
                code: None,
                message: "not a Turso connection".into(),
                context: "setting knobs".into(),
            })
    }
}

impl Engine for TursoEngine {
    fn label(&self) -> &str {
        "turso"
    }

    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn details(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "crate": "turso_core",
            "crate_version": VERSION,
            "registry": "crates.io",
            "sqlite_version": self.sqlite_version,
            "io": "Turso's Unix I/O (pread, pwrite, fsync), counted by litebench's wrapper",
        }))
    }

    fn device_io(&self) -> Option<DeviceIo> {
        DeviceIo::this_process()
    }

    fn cold_trial(&self) -> Result<String, String> {
        Ok(format!(
            "{OS_CACHE_DROPPED} (Turso opens the trial's fresh copy as a new database instance, so its page cache starts empty)"
        ))
    }

    fn kind(&self) -> &'static crate::engines::kind::EngineKind {
        &super::KIND
    }

    fn io_counters(&self) -> Option<Arc<IoCounters>> {
        Some(Arc::clone(&self.counters))
    }

    fn create_database(&self, scratch: &Scratch, name: &str) -> Result<DbRef, EngineError> {
        Ok(DbRef {
            name: name.to_string(),
            path: Some(scratch.path(&format!("{name}.db"))),
        })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let src = from.path.as_ref().expect("Turso databases are files");
        self.close_primary(src)?;
        let to = scratch.path(&format!("{name}.db"));
        if let Err(e) = scratch.copy_durable(src, &to) {
            scratch.remove_db(&to);
            return Err(EngineError::copying_template("turso", &e));
        }
        Ok(DbRef {
            name: name.to_string(),
            path: Some(to),
        })
    }

    fn drop_database(&self, scratch: &Scratch, db: &DbRef) {
        if let Some(p) = &db.path {
            self.primaries.lock().unwrap_or_else(|p| p.into_inner()).remove(p);
            scratch.remove_db(p);
        }
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        let p = db.path.as_ref()?;
        let _ = self.close_primary(p);
        let side: u64 = SIDE_FILES
            .iter()
            .map(|s| std::fs::metadata(side_file(p, s)).map_or(0, |m| m.len()))
            .sum();
        std::fs::metadata(p).ok().map(|m| m.len() + side)
    }

    fn finish_population(&self, db: &DbRef) -> Result<(), EngineError> {
        match &db.path {
            Some(p) => self.close_primary(p),
            None => Ok(()),
        }
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let path = db.path.as_ref().expect("Turso databases are files");
        let instance = self.instance(path)?;
        let conn = instance.connect().map_err(|e| error("turso", &e, "connecting"))?;
        Ok(Box::new(TursoConn::new(conn, "turso")))
    }

    fn bulk_load_mode(&self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        // The template's own durability is irrelevant: each copy is synced before use.
        conn.execute_batch("PRAGMA synchronous=OFF")
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        if stage != Stage::Connect {
            return Ok(());
        }
        // The busy timeout first: a later pragma (journal_mode) may need a lock another client
        // holds for an instant.
        let (first, rest): (Vec<_>, Vec<_>) = knobs
            .0
            .iter()
            .filter(|k| k.name != "begin")
            .partition(|k| k.name == "busy_timeout");
        for k in first.into_iter().chain(rest) {
            // `query`: journal_mode answers with a row.
            conn.query(&format!("PRAGMA {}={}", k.setting_name(PREFIX), k.value))?;
        }
        if let Some(v) = knobs.get("begin") {
            let (_, stmt) = BEGIN_MODES.iter().find(|(n, _)| *n == v).ok_or_else(|| EngineError {
                busy_cause: None,
                engine: "turso".into(),
                kind: ErrorKind::Input,
                code: None,
                message: format!("begin={v}: valid values are deferred, immediate, concurrent"),
                context: "setting knobs".into(),
            })?;
            self.conn_of(conn)?.set_begin(stmt);
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        let begin = self.conn_of(conn)?.begin_mode();
        crate::model::knob::read_back(TURSO_KNOBS, PREFIX, knobs, |name, _| match name {
            "begin" => Ok(Some(begin.clone())),
            _ => conn.query_value(&format!("PRAGMA {name}")),
        })
    }

    fn knob_hint(&self, knob: &str) -> String {
        match knob {
            "journal_mode" => "Turso has two journal modes, wal and mvcc".into(),
            "begin" => "BEGIN CONCURRENT needs journal_mode=mvcc".into(),
            _ => "Turso did not accept that value".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 31, item 4. Turso has no authorizer, and its `VACUUM INTO` writes through an I/O
    /// layer of its own, not litebench's; what keeps a log or script inside its copy on Turso
    /// is that Turso 0.8.3 attaches nothing (ATTACH is experimental and off) and takes only a
    /// literal after `VACUUM INTO`, which the workloads refuse when they read the file
    /// (`workload::file_reach`). This holds Turso to both: an upgrade that changes either fails
    /// here.
    #[test]
    fn turso_attaches_nothing_and_vacuums_only_into_a_literal_name() {
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join("run");
        std::fs::create_dir(&run).unwrap();
        let engine = TursoEngine::open().unwrap();
        let db = DbRef {
            name: "trial".into(),
            path: Some(run.join("trial.db")),
        };
        let mut conn = engine.connect(&db).unwrap();
        conn.execute_batch("CREATE TABLE t(a); INSERT INTO t VALUES (1);")
            .unwrap();
        let top = t.path().display().to_string();
        for sql in [
            format!("ATTACH '{top}/victim.db' AS v"),
            format!("ATTACH '{top}/' || 'victim.db' AS v"),
            format!("VACUUM INTO '{top}/' || 'out.db'"),
            format!("VACUUM INTO ('{top}/out.db')"),
        ] {
            assert!(conn.execute_batch(&sql).is_err(), "Turso ran {sql}");
        }
        assert!(!t.path().join("victim.db").exists() && !t.path().join("out.db").exists());
        // And the I/O layer litebench gives it opens nothing outside the database's directory.
        assert!(engine.io.refusal(&format!("{top}/victim.db")).is_some());
        assert_eq!(engine.io.refusal(&format!("{}/trial.db-wal", run.display())), None);
    }

    /// Issue 32, items 1 and 4. A deferred transaction read, another connection committed a
    /// write, and the first now writes: Turso answers "Database snapshot is stale", which is
    /// SQLite's SQLITE_BUSY_SNAPSHOT: a lock failure of cause busy_snapshot that the load driver
    /// retries (after a rollback, the same transaction gets through), not an error that stops
    /// the run.
    #[test]
    fn a_stale_snapshot_is_busy_snapshot_and_a_retry_gets_through() {
        let t = tempfile::tempdir().unwrap();
        let engine = TursoEngine::open().unwrap();
        let db = DbRef {
            name: "trial".into(),
            path: Some(t.path().join("trial.db")),
        };
        let mut a = engine.connect(&db).unwrap();
        let mut b = engine.connect(&db).unwrap();
        a.execute_batch("CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t VALUES (1, 0);")
            .unwrap();
        a.execute_batch("BEGIN DEFERRED").unwrap();
        a.query("SELECT v FROM t").unwrap();
        b.execute_batch("UPDATE t SET v = 1").unwrap();
        let e = a.execute_batch("UPDATE t SET v = v + 10").unwrap_err();
        assert!(e.message.contains("snapshot is stale"), "{e}");
        assert_eq!(
            (e.kind, e.lock_cause(), e.code),
            (ErrorKind::Busy, Some(crate::engines::BusyCause::Snapshot), Some(517))
        );
        a.execute_batch("ROLLBACK").unwrap();
        a.execute_batch("BEGIN DEFERRED; UPDATE t SET v = v + 10; COMMIT;")
            .unwrap();
        assert_eq!(b.query("SELECT v FROM t").unwrap(), vec![vec![Some("11".to_string())]]);
    }
}
