//! A SQLite build as an engine under test: database files in the scratch directory, connections
//! through the counting VFS, pragmas set and read back.

use super::api::Api;
use super::conn::SqliteConn;
use super::extension::{ExtensionError, Loadable};
use super::knobs::{
    BEGIN_KNOB, BLOB_API_KNOB, DRIVER_KNOB, EXTENSION_KNOB, FTS_KNOBS, HNSW_KNOBS, LAYOUT_KNOBS, OPTIMIZER_KNOBS,
    PASSTHROUGH_PREFIX, SQLITE_KNOBS,
};
use super::optimizer;
use super::vfs;
use crate::engines::{Connection, DbRef, Engine, EngineError, ErrorKind, OS_CACHE_DROPPED};
use crate::model::engine_info::SqliteBuild;
use crate::model::knob::{KnobReading, KnobSet, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::{Scratch, ScratchError};
use std::path::PathBuf;
use std::sync::Arc;

/// Knob pragmas newer than the oldest SQLite litebench loads (3.7.0), with the release that added
/// them (SQLite's change log): older builds answer them with no row, so they read back as
/// unknown, and requesting one fails with a hint naming the release.
const PRAGMA_SINCE: &[(&str, &str, i32)] = &[
    ("busy_timeout", "3.7.15", 3_007_015),
    ("mmap_size", "3.7.17", 3_007_017),
    ("query_only", "3.8.0", 3_008_000),
];

/// How long a connection's set-up (its knobs, the schema's first read) waits for a lock
/// another connection holds, whatever the user's `busy_timeout`: long enough for every
/// transient lock, short enough that a database locked for good fails the run.
pub const SETUP_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Sets the connection's busy timeout through the C API (which every build has, unlike the
/// pragma).
fn set_busy_timeout(c: &SqliteConn, wait: std::time::Duration) {
    let ms = wait.as_millis().min(i32::MAX as u128) as std::ffi::c_int;
    // SAFETY: the connection is open.
    unsafe { (c.api().busy_timeout)(c.raw_db(), ms) };
}

/// Which SQLite build, as named by `--engine`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqliteChoice {
    Bundled,
    Library(PathBuf),
    /// A library `litebench build-sqlite` compiled, as its cache records it.
    Compiled(Box<super::compiled::CompiledBuild>),
    /// A release built as SQLite's `tool/speed-check.sh` builds (`sqlite@3.40.0-speed-check`),
    /// loaded as its speedtest1 runs: memsys5 on a heap of its own ([`SPEED_CHECK_HEAP`]),
    /// connections serialized (no `SQLITE_OPEN_NOMUTEX`) on SQLite's own VFS, so that nothing
    /// of litebench's runs inside SQLite's calls; its I/O is then not counted.
    SpeedCheck(Box<super::compiled::CompiledBuild>),
}

/// speedtest1's `--heap 10000000 64`, as `tool/speed-check.sh` runs it.
pub const SPEED_CHECK_HEAP: super::api::Heap = super::api::Heap {
    bytes: 10_000_000,
    min: 64,
};

/// One SQLite build, ready to open counted connections.
pub struct SqliteEngine {
    pub label: String,
    pub api: &'static Api,
    pub counters: Arc<IoCounters>,
    pub build: SqliteBuild,
    /// Databases in memory (`--memory`) instead of files.
    pub memory: bool,
    /// Loaded as [`SqliteChoice::SpeedCheck`].
    pub speed_check: bool,
    /// The extensions resolved so far (`--knob extension=...`), by the knob's value: checked
    /// once, then loaded into every trial connection that asks for one.
    extensions: std::sync::Mutex<Vec<(String, Arc<Loadable>)>>,
}

/// Why an engine could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Load(#[from] super::api::LoadError),
    #[error(transparent)]
    Build(#[from] super::compiled::BuildError),
    #[error(transparent)]
    Shim(#[from] vfs::ShimError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl SqliteEngine {
    /// Loads the build and installs the counting VFS in it.
    pub fn open(choice: &SqliteChoice, memory: bool) -> Result<SqliteEngine, SetupError> {
        let (api, label) = match choice {
            SqliteChoice::Bundled => (Api::bundled(), "sqlite".to_string()),
            SqliteChoice::Library(p) => (Api::load_path(p)?, format!("sqlite:{}", p.display())),
            SqliteChoice::Compiled(b) => {
                let file = super::compiled::BuildCache::from_env()?.open_library(b)?;
                (Api::load(file)?, format!("sqlite@{}", b.name))
            }
            SqliteChoice::SpeedCheck(b) => {
                let file = super::compiled::BuildCache::from_env()?.open_library(b)?;
                let name = format!("{}{}", b.version, super::compiled::selection::SPEED_CHECK_SUFFIX);
                (Api::load_with_heap(file, SPEED_CHECK_HEAP)?, format!("sqlite@{name}"))
            }
        };
        let counters = vfs::install(api)?;
        let mut build = SqliteBuild::describe(api)?;
        if let SqliteChoice::Compiled(b) | SqliteChoice::SpeedCheck(b) = choice {
            build.compiled = Some((**b).clone());
        }
        Ok(SqliteEngine {
            label,
            api,
            counters,
            build,
            memory,
            speed_check: matches!(choice, SqliteChoice::SpeedCheck(_)),
            extensions: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// The extension the `extension` knob's `value` names, checked (and fetched, where pinned
    /// and not in the cache) at its first use, then kept for every later connection.
    pub fn extension(&self, value: &str) -> Result<Arc<Loadable>, ExtensionError> {
        let mut all = self.extensions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, l)) = all.iter().find(|(v, _)| v == value) {
            return Ok(l.clone());
        }
        let loaded = Arc::new(Loadable::resolve(self.api, &self.label, value)?);
        all.push((value.to_string(), loaded.clone()));
        Ok(loaded)
    }

    fn scratch_error(&self, e: ScratchError) -> EngineError {
        EngineError::copying_template(&self.label, &e)
    }
}

impl SqliteEngine {
    /// The SQLite connection behind a `dyn Connection` this engine opened.
    fn sqlite_conn<'c>(&self, conn: &'c mut dyn Connection) -> Result<&'c mut SqliteConn, EngineError> {
        conn.as_any_mut()
            .and_then(|a| a.downcast_mut::<SqliteConn>())
            .ok_or_else(|| self.knob_error("not a connection of this SQLite engine".into()))
    }

    fn knob_error(&self, message: String) -> EngineError {
        EngineError {
            busy_cause: None,
            engine: self.label.clone(),
            kind: ErrorKind::Other,
            code: None,
            message,
            context: "setting knobs".into(),
        }
    }
}

impl Engine for SqliteEngine {
    fn label(&self) -> &str {
        &self.label
    }

    fn version(&self) -> String {
        self.build.version.clone()
    }

    fn sqlite_build(&self) -> Option<SqliteBuild> {
        Some(self.build.clone())
    }

    fn device_io(&self) -> Option<DeviceIo> {
        // Beside the VFS counts: what litebench's process moved to and from the device.
        DeviceIo::this_process()
    }

    fn cold_trial(&self) -> Result<String, String> {
        Ok(format!(
            "{OS_CACHE_DROPPED} (SQLite's page cache belongs to the trial's connection, which starts empty)"
        ))
    }

    fn kind(&self) -> &'static crate::engines::kind::EngineKind {
        &super::KIND
    }

    fn io_counters(&self) -> Option<Arc<IoCounters>> {
        (!self.speed_check).then(|| self.counters.clone())
    }

    fn create_database(&self, scratch: &Scratch, name: &str) -> Result<DbRef, EngineError> {
        let path = (!self.memory).then(|| scratch.path(&format!("{name}.db")));
        Ok(DbRef {
            name: name.to_string(),
            path,
        })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let to = scratch.path(&format!("{name}.db"));
        let src = from
            .path
            .as_ref()
            .expect("in-memory databases are populated per trial, not cloned");
        if let Err(e) = scratch.copy_durable(src, &to) {
            scratch.remove_db(&to);
            return Err(self.scratch_error(e));
        }
        Ok(DbRef {
            name: name.to_string(),
            path: Some(to),
        })
    }

    fn drop_database(&self, scratch: &Scratch, db: &DbRef) {
        if let Some(p) = &db.path {
            scratch.remove_db(p);
        }
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        std::fs::metadata(db.path.as_ref()?).ok().map(|m| m.len())
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let conn = match &db.path {
            Some(p) if self.speed_check => SqliteConn::open_serialized(self.api, p, &self.label)?,
            Some(p) => SqliteConn::open(self.api, p, Some(vfs::SHIM_NAME), &self.label)?,
            None => SqliteConn::open_memory(self.api, &self.label)?,
        };
        // No statement of a run pays for scan-status counting (on by default where the build
        // has it: 3.7x slower star joins); loop_profile turns it on for its own statement.
        super::scanstatus::set_collection(&conn, false);
        Ok(Box::new(conn))
    }

    fn bulk_load_mode(&self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        // The template's own durability is irrelevant: each copy is synced before use.
        conn.execute_batch("PRAGMA synchronous=OFF")
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        let pragmas = knobs.0.iter().filter(|k| {
            k.stage_in(SQLITE_KNOBS) == stage
                && !OPTIMIZER_KNOBS.contains(&k.name.as_str())
                && k.name != BLOB_API_KNOB
                && k.name != BEGIN_KNOB
                && k.name != EXTENSION_KNOB
                && !HNSW_KNOBS.contains(&k.name.as_str())
                && k.name != DRIVER_KNOB
                && !FTS_KNOBS.contains(&k.name.as_str())
                && !LAYOUT_KNOBS.contains(&k.name.as_str())
        });
        // A layout knob is the workload's schema, not a pragma: kept on the connection at every
        // stage, for the population (create) and the clients' check of the schema (connect).
        for name in LAYOUT_KNOBS {
            if let Some(v) = knobs.get(name) {
                self.sqlite_conn(conn)?.set_workload_knob(name, v);
            }
        }
        if stage != Stage::Connect {
            for k in pragmas {
                // `query`, not `execute_batch`: some pragmas (journal_mode) answer with a row.
                conn.query(&format!("PRAGMA {}={}", k.setting_name(PASSTHROUGH_PREFIX), k.value))?;
            }
            return Ok(());
        }
        // Set-up waits out the locks other connections hold for an instant (clients configured
        // at the same moment, the WAL index's recovery), whatever the user's busy_timeout,
        // which is for the measured work and is put in place last.
        let user_timeout = match knobs.get("busy_timeout") {
            Some(ms) => Some(ms.to_string()),
            None => conn.query_value("PRAGMA busy_timeout")?,
        };
        set_busy_timeout(self.sqlite_conn(conn)?, SETUP_LOCK_WAIT);
        // The locking mode before anything is read: exclusive mode set before the first access
        // to a WAL database is what keeps SQLite off the -shm file.
        let (locking, rest): (Vec<_>, Vec<_>) = pragmas
            .filter(|k| k.name != "busy_timeout")
            .partition(|k| k.name == "locking_mode");
        for k in &locking {
            conn.query(&format!("PRAGMA locking_mode={}", k.value))?;
        }
        // The schema (and, in WAL mode, the WAL index) is read now, under the wait, so the
        // read-back that follows takes no lock.
        conn.query("SELECT 1 FROM sqlite_master LIMIT 1")?;
        // A database without a page yet (a workload that starts from an empty file, as
        // speedtest1 does) kept nothing of its template's create-stage settings (page_size,
        // auto_vacuum): they are set again here, where they still act, so that what is read back
        // is what was asked, on every release (3.12.0 changed the default page size).
        if conn.query_value("PRAGMA page_count")?.as_deref() == Some("0") {
            for k in knobs.0.iter().filter(|k| {
                k.stage_in(SQLITE_KNOBS) == Stage::Create
                    && !FTS_KNOBS.contains(&k.name.as_str())
                    && !LAYOUT_KNOBS.contains(&k.name.as_str())
            }) {
                conn.query(&format!("PRAGMA {}={}", k.setting_name(PASSTHROUGH_PREFIX), k.value))?;
            }
        }
        for k in rest {
            // A journal mode the database already has needs no write lock: not set again.
            if k.name == "journal_mode"
                && conn
                    .query_value("PRAGMA journal_mode")?
                    .is_some_and(|m| m.eq_ignore_ascii_case(&k.value))
            {
                continue;
            }
            // `query`, not `execute_batch`: some pragmas (journal_mode) answer with a row.
            conn.query(&format!("PRAGMA {}={}", k.setting_name(PASSTHROUGH_PREFIX), k.value))?;
        }
        match user_timeout {
            Some(ms) => {
                conn.query(&format!("PRAGMA busy_timeout={ms}"))?;
            }
            // A build without PRAGMA busy_timeout (before 3.7.15): SQLite's default, no wait.
            None => set_busy_timeout(self.sqlite_conn(conn)?, std::time::Duration::ZERO),
        }
        let c = self.sqlite_conn(conn)?;
        if let Some(v) = knobs.get(EXTENSION_KNOB) {
            let loadable = self.extension(v).map_err(|e| self.knob_error(e.to_string()))?;
            loadable.load_into(c).map_err(|e| self.knob_error(e.to_string()))?;
            c.set_extension(v);
        }
        for name in HNSW_KNOBS.iter().chain([&DRIVER_KNOB]) {
            if let Some(v) = knobs.get(name) {
                c.set_workload_knob(name, v);
            }
        }
        if let Some(v) = knobs.get(BLOB_API_KNOB) {
            let api = super::blob::BlobApi::parse(v)
                .ok_or_else(|| self.knob_error(format!("blob_api={v}: valid values are sql, incremental")))?;
            c.set_blob_api(api);
        }
        if let Some(v) = knobs.get(BEGIN_KNOB) {
            let stmt = super::knobs::begin_statement(v).ok_or_else(|| {
                self.knob_error(format!("begin={v}: valid values are deferred, immediate, exclusive"))
            })?;
            c.set_begin(stmt);
        }
        let (bloom, disable) = (knobs.get("bloom_filter"), knobs.get("disable_optimizations"));
        if let Some(why) = optimizer::refusal(self.api, &self.build.compile_options, bloom, disable) {
            return Err(self.knob_error(why));
        }
        if let Some(mask) = optimizer::requested_mask(bloom, disable) {
            if optimizer::has_bloom_filters(self.api) {
                optimizer::set_mask(c, mask);
            }
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        let c = self.sqlite_conn(conn)?;
        let blob_api = c.blob_api().name();
        let begin = c.begin_mode();
        let extension = c.extension().unwrap_or("none").to_string();
        // What only a workload reads, kept on the connection: vectorlite's HNSW parameters and
        // the schema layouts.
        let kept: Vec<(&str, String)> = HNSW_KNOBS
            .iter()
            .chain(LAYOUT_KNOBS)
            .chain([&DRIVER_KNOB])
            .map(|n| {
                let default = crate::model::knob::find_spec(SQLITE_KNOBS, n).map_or("", |s| s.default);
                (*n, c.workload_knob(n).unwrap_or(default).to_string())
            })
            .collect();
        // The probe plans a join in the temp schema: only on connections that asked for an
        // optimizer switch, so other trials run exactly what their workload runs. Without one,
        // the reading is GETOPT's mask where the build answers it, unknown otherwise.
        let asked = knobs.get("bloom_filter").is_some() || knobs.get("disable_optimizations").is_some();
        let (mask, bloom) = if optimizer::has_bloom_filters(self.api) {
            let mask = optimizer::read_mask(c);
            let bloom = if asked {
                Some(optimizer::bloom_reading(c, mask)?)
            } else {
                mask.map(optimizer::bloom_of_mask)
            };
            (mask, bloom)
        } else {
            // Vacuously off: see the reading's note.
            (None, Some("off"))
        };
        let mut readings =
            crate::model::knob::read_back(SQLITE_KNOBS, PASSTHROUGH_PREFIX, knobs, |name, _| match name {
                "bloom_filter" => Ok(bloom.map(str::to_string)),
                "disable_optimizations" => Ok(mask.map(optimizer::names_of)),
                BLOB_API_KNOB => Ok(Some(blob_api.to_string())),
                BEGIN_KNOB => Ok(Some(begin.to_string())),
                EXTENSION_KNOB => Ok(Some(extension.clone())),
                n if HNSW_KNOBS.contains(&n) || LAYOUT_KNOBS.contains(&n) || n == DRIVER_KNOB => {
                    Ok(kept.iter().find(|(h, _)| *h == n).map(|(_, v)| v.clone()))
                }
                n if FTS_KNOBS.contains(&n) => super::fts5::declared(conn, n),
                _ => conn.query_value(&format!("PRAGMA {name}")),
            })?;
        // Where no FTS5 table was made and none asked for, nothing was read: no reading.
        readings.retain(|r| !(FTS_KNOBS.contains(&r.name.as_str()) && r.requested.is_none() && r.effective.is_none()));
        if !optimizer::has_bloom_filters(self.api) {
            for r in readings.iter_mut().filter(|r| r.name == "bloom_filter") {
                r.note = Some(format!(
                    "vacuous: SQLite {} has no Bloom filters (added in {})",
                    self.build.version,
                    optimizer::BITS_SINCE.0
                ));
            }
        }
        Ok(readings)
    }

    fn extension_info(&self, knobs: &KnobSet) -> Result<Option<crate::model::engine_info::ExtensionInfo>, EngineError> {
        match knobs.get(EXTENSION_KNOB) {
            Some(v) => Ok(Some(
                self.extension(v)
                    .map_err(|e| self.knob_error(e.to_string()))?
                    .info
                    .clone(),
            )),
            None => Ok(None),
        }
    }

    fn knob_hint(&self, knob: &str) -> String {
        // SAFETY: no arguments; returns a constant.
        let version_number = unsafe { (self.api.libversion_number)() };
        if let Some((_, since, _)) = PRAGMA_SINCE.iter().find(|(p, _, n)| *p == knob && version_number < *n) {
            return format!(
                "SQLite {} has no PRAGMA {knob} (added in {since}); drop the knob or use a newer build",
                self.build.version
            );
        }
        let build = format!("SQLite {} ({})", self.build.version, self.build.origin);
        match knob {
            "bloom_filter" if !optimizer::has_bloom_filters(self.api) => format!(
                "{build} has no Bloom filters (added in {})",
                optimizer::BITS_SINCE.0
            ),
            "bloom_filter" => format!(
                "{build}: the plan of litebench's probe star join (in the temp schema) says otherwise; a build whose planner no longer chooses a Bloom filter there cannot show that it is on"
            ),
            "disable_optimizations" => format!(
                "{build} does not read the mask back (SQLITE_TESTCTRL_GETOPT, or a release before {}), so litebench cannot verify it; only bloom_filter=on|off is verified without it (through the plan)",
                optimizer::BITS_SINCE.0
            ),
            "journal_mode" if self.memory => "an in-memory database only supports journal_mode memory or off".into(),
            "journal_mode" => "the build or the filesystem does not support that mode (WAL needs shared memory)".into(),
            "mmap_size" => "SQLite clamps it to the build's SQLITE_MAX_MMAP_SIZE; request at most that".into(),
            "page_size" => "page_size cannot change once a database has content (or in WAL mode)".into(),
            _ => "remove the knob or use a build that honours it".into(),
        }
    }
}

#[cfg(test)]
mod setup_tests {
    use super::*;
    use crate::model::knob::KnobSetting;

    fn knobs(pairs: &[(&str, &str)]) -> KnobSet {
        KnobSet(
            pairs
                .iter()
                .map(|(n, v)| KnobSetting {
                    name: n.to_string(),
                    value: v.to_string(),
                })
                .collect(),
        )
    }

    /// Clients set up while another connection holds the database's locks for 300 ms wait and
    /// succeed, with the user's `busy_timeout` of 0 (no wait) in place afterwards for the
    /// measured work; before, set-up failed at once with "database is locked".
    #[test]
    fn set_up_waits_out_a_lock_whatever_the_busy_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let engine = SqliteEngine::open(&SqliteChoice::Bundled, false).unwrap();
        let mut holder = SqliteConn::open(engine.api, &path, None, "holder").unwrap();
        holder
            .execute_batch("PRAGMA journal_mode=delete; CREATE TABLE t(x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);")
            .unwrap();
        let db = DbRef {
            name: "t".into(),
            path: Some(path.clone()),
        };
        // The journal mode the database has (as the trial's first connection leaves it for the
        // clients that follow); reading it needs the schema, and so a lock.
        let wanted = knobs(&[
            ("journal_mode", "delete"),
            ("busy_timeout", "0"),
            ("synchronous", "normal"),
        ]);
        let held = std::time::Duration::from_millis(300);
        let started = std::time::Instant::now();
        let results: Vec<Result<(Vec<KnobReading>, std::time::Duration), EngineError>> = std::thread::scope(|s| {
            let clients: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        let mut c = engine.connect(&db)?;
                        engine.apply_knobs(c.as_mut(), &wanted, Stage::Connect)?;
                        let readings = engine.read_knobs(c.as_mut(), &wanted)?;
                        Ok((readings, started.elapsed()))
                    })
                })
                .collect();
            std::thread::sleep(held);
            holder.execute_batch("COMMIT").unwrap();
            clients.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in results {
            let (readings, done) = r.expect("set-up waits out the lock");
            assert!(done >= held, "set up after {done:?}, while the lock was held");
            let value = |n: &str| readings.iter().find(|r| r.name == n).and_then(|r| r.effective.clone());
            assert_eq!(value("journal_mode").as_deref(), Some("delete"));
            assert_eq!(
                value("busy_timeout").as_deref(),
                Some("0"),
                "the user's timeout is back"
            );
        }
    }
}
