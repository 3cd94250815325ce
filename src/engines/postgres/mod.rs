//! PostgreSQL as an engine: a throwaway server started from the installed binaries, or a server
//! the user runs (`--engine postgres=URL`).
//!
//! Why it looks the way it does:
//!
//! - The throwaway server is made by `initdb` in the scratch directory (trust authentication,
//!   user `litebench`, UTF8 with the C locale so text compares byte-wise like SQLite's BINARY
//!   collation) and listens only on 127.0.0.1 with no Unix socket, so nothing is written outside
//!   the scratch directory. Everything else stays at PostgreSQL's defaults, and docs/servers.md
//!   lists what is passed and why.
//! - Each trial database is `CREATE DATABASE ... TEMPLATE` of the populated template with the
//!   file-copy strategy, which checkpoints before and after copying, followed by a `CHECKPOINT`
//!   for what the copy's commit left: like SQLite's synced copy, the trial starts with no dirty
//!   buffers and nothing in the WAL after the last checkpoint.
//! - For cold trials (`--cold`) the throwaway server is stopped and started again around the
//!   OS page cache drop, so that shared_buffers start empty too; a server the user runs cannot
//!   be restarted, so `--cold` is refused for it.
//! - The durability knobs are server settings, so they are set with `ALTER SYSTEM` and a
//!   configuration reload, and litebench waits until its own session has re-read the
//!   configuration before reading them back with `SHOW`. Settings a configuration does not ask
//!   for are put back as they were, so configurations do not leak into each other, and a
//!   server the user runs is left as it was found: what `postgresql.auto.conf` holds for every
//!   setting the run will change is read before the first trial (a run whose originals cannot
//!   be read stops before changing anything), and a setting that cannot be put back at the
//!   end is reported, never ignored.
//! - Workload SQL uses `?` placeholders; `prepare` rewrites them to `$1..$n`, and values are
//!   bound by the parameter types PostgreSQL inferred (rust-postgres will not convert an i64 for
//!   an int4 parameter by itself).

use crate::engines::server::process::{run_tool, ServerDir, ServerProcess};
use crate::engines::server::{
    choose_port, cold_refused, cold_restart, db_name, error_chain, first_value, one_line, redact_url, run_as,
    wanted_settings, Override, Overrides, RunAs, PASSTHROUGH_PREFIX,
};
use crate::engines::values::Values;
use crate::engines::{Connection, DbRef, Dialect, Engine, EngineError, ErrorKind, StmtId, Value};
use crate::model::knob::{find_spec, KnobKind, KnobReading, KnobSet, KnobSpec, ReadBy, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::Scratch;
use bytes::BytesMut;
use postgres::error::SqlState;
use postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use postgres::{Client, Config, NoTls, SimpleQueryMessage, Statement};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// PostgreSQL's durability settings, in the order they are applied.
pub const POSTGRES_KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "fsync",
        kind: KnobKind::Bool,
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "on",
        help: "PostgreSQL: whether the server syncs WAL and data files at all (off: a crash can corrupt the cluster)",
    },
    KnobSpec {
        name: "synchronous_commit",
        kind: KnobKind::Choice(&["off", "on", "local", "remote_write", "remote_apply"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "on",
        help: "PostgreSQL: whether COMMIT waits for its WAL to reach the disk (off: the last commits can be lost after a crash)",
    },
    KnobSpec {
        name: "full_page_writes",
        kind: KnobKind::Bool,
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "on",
        help: "PostgreSQL: whole pages written to WAL after each checkpoint (off: a crash can leave torn pages)",
    },
];

/// postgres's descriptor.
pub static KIND: crate::engines::kind::EngineKind = crate::engines::kind::EngineKind {
    name: "postgres",
    aliases: &[],
    about: "a throwaway PostgreSQL server on 127.0.0.1, made with the installed initdb in the scratch directory and removed after the run (Debian package postgresql)",
    target: Some(crate::engines::kind::TargetSpec {
        separator: '=',
        what: "server URL",
        example: "postgres=postgres://user:password@127.0.0.1:5432/postgres (a server you run)",
        without: "a throwaway server litebench starts",
    }),
    dialect: Some(crate::engines::Dialect::Postgres),
    knobs: POSTGRES_KNOBS,
    passthrough: PASSTHROUGH_PREFIX,
    io_counted: false,
    durability_knobs: &["fsync", "synchronous_commit", "full_page_writes"],
    in_memory: false,
    files_in_scratch: false,
    file_knobs: &[],
    workloads: crate::engines::kind::Runs::AllSql,
    open: open_kind,
};

fn open_kind(
    target: Option<&str>,
    scratch: &Scratch,
    _memory: bool,
) -> Result<Box<dyn crate::engines::Engine>, crate::base::Failure> {
    let e = match target {
        None => PostgresEngine::start(scratch),
        Some(url) => PostgresEngine::connect_url(url),
    };
    Ok(Box::new(e.map_err(crate::base::Failure)?))
}

/// Arguments litebench gives `initdb` (besides `-D`).
pub const INITDB_ARGS: &[&str] = &[
    "--auth=trust",
    "--username=litebench",
    "--encoding=UTF8",
    "--locale=C",
    "--no-instructions",
];

/// Settings litebench gives the throwaway `postgres` (besides `-D` and `-p`).
pub const SERVER_SETTINGS: &[&str] = &[
    "listen_addresses=127.0.0.1",
    "unix_socket_directories=",
    "dynamic_shared_memory_type=sysv",
];

/// Server settings recorded in the manifest.
const SETTINGS_OF_NOTE: &[&str] = &[
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_sync_method",
    "wal_level",
    "wal_buffers",
    "wal_compression",
    "commit_delay",
    "max_wal_size",
    "min_wal_size",
    "checkpoint_timeout",
    "checkpoint_completion_target",
    "shared_buffers",
    "work_mem",
    "effective_io_concurrency",
    "data_checksums",
    "autovacuum",
    "jit",
    "huge_pages",
    "max_connections",
    "dynamic_shared_memory_type",
    "server_encoding",
    "lc_collate",
];

const USER: &str = "litebench";
const FLAG: &str = "postgres";

/// The directory with `initdb` and `postgres`: `$LITEBENCH_PG_BIN`, else the newest
/// `/usr/lib/postgresql/<version>/bin`.
fn bin_dir() -> (PathBuf, bool) {
    if let Some(d) = std::env::var_os("LITEBENCH_PG_BIN") {
        return (PathBuf::from(d), true);
    }
    let mut best: Option<(u32, PathBuf)> = None;
    if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let major: Option<u32> = name.split('.').next().and_then(|m| m.parse().ok());
            let bin = e.path().join("bin");
            if let Some(v) = major {
                if bin.join("initdb").is_file() && best.as_ref().is_none_or(|(b, _)| v > *b) {
                    best = Some((v, bin));
                }
            }
        }
    }
    (
        best.map_or_else(|| PathBuf::from("/usr/lib/postgresql/15/bin"), |(_, p)| p),
        false,
    )
}

fn find_binaries() -> Result<(PathBuf, PathBuf), String> {
    let (dir, from_env) = bin_dir();
    let initdb = dir.join("initdb");
    let postgres = dir.join("postgres");
    for p in [&initdb, &postgres] {
        if !p.is_file() {
            return Err(format!(
                "--engine postgres: {} not found; install the Debian package postgresql{}",
                p.display(),
                if from_env {
                    " or point LITEBENCH_PG_BIN at the directory holding initdb and postgres"
                } else {
                    ""
                }
            ));
        }
    }
    Ok((initdb, postgres))
}

/// A PostgreSQL server as an engine.
pub struct PostgresEngine {
    label: String,
    /// Connected to the maintenance database; creates, copies and drops databases.
    admin: Mutex<PgConn>,
    /// How to connect; the database name is replaced per database.
    config: Config,
    /// The throwaway server (`None` for a URL). Dropped after `admin`.
    server: Option<Arc<ServerProcess>>,
    /// The URL, password redacted (`None` for the throwaway server).
    url: Option<String>,
    port: u16,
    run_as: Option<RunAs>,
    version: String,
    version_num: i64,
    overrides: Mutex<Overrides>,
    /// What `postgresql.auto.conf` held for each setting a configuration of the run changes,
    /// read before the first trial (`None`: no entry).
    originals: Mutex<BTreeMap<String, Option<String>>>,
    /// The `postgres` binary of the throwaway server, to start it again for cold trials.
    postgres_bin: Option<PathBuf>,
}

/// The command line of the throwaway server.
fn server_command(postgres: &Path, data: &Path, port: u16) -> Command {
    let mut cmd = Command::new(postgres);
    cmd.arg("-D").arg(data).arg("-p").arg(port.to_string());
    for s in SERVER_SETTINGS {
        cmd.arg("-c").arg(s);
    }
    cmd
}

fn local_config(port: u16, dbname: &str) -> Config {
    let mut c = Config::new();
    c.host("127.0.0.1")
        .port(port)
        .user(USER)
        .dbname(dbname)
        .application_name("litebench")
        .connect_timeout(Duration::from_secs(5));
    c
}

impl PostgresEngine {
    /// Starts a throwaway server in the scratch directory.
    pub fn start(scratch: &Scratch) -> Result<PostgresEngine, String> {
        let (initdb, postgres) = find_binaries()?;
        let run_as = run_as(FLAG, "postgres", "postgresql")?;
        let (mut port, fixed) = choose_port("LITEBENCH_PG_PORT")?;
        let fail = |e: String| format!("--engine postgres: {e}");
        let dir = ServerDir::create(scratch, "postgres", run_as.as_ref()).map_err(fail)?;
        let data = dir.path().join("data");
        let mut cmd = Command::new(&initdb);
        cmd.arg("-D").arg(&data).args(INITDB_ARGS);
        run_tool(cmd, dir.path(), run_as.as_ref(), "initdb.log", Duration::from_secs(180)).map_err(fail)?;
        let mut dir = dir;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let cmd = server_command(&postgres, &data, port);
            let server = ServerProcess::spawn(
                "postgres",
                cmd,
                dir,
                run_as.as_ref(),
                libc::SIGINT,
                libc::SIGQUIT,
                "server.log",
            )
            .map_err(|(e, _dir)| fail(e))?;
            let config = local_config(port, "postgres");
            let mut client = None;
            let ready = server.wait_ready(Duration::from_secs(60), &mut || match config.connect(NoTls) {
                Ok(c) => {
                    client = Some(c);
                    Ok(true)
                }
                Err(_) => Ok(false),
            });
            let retry = !fixed && attempt < 3 && server.log_contains("Address already in use");
            match (ready, client) {
                (Ok(()), Some(client)) => {
                    let server = Arc::new(server);
                    let mut engine = PostgresEngine::finish(
                        FLAG.to_string(),
                        client,
                        local_config(port, "postgres"),
                        Some(server),
                        None,
                        port,
                        run_as,
                    )
                    .map_err(fail)?;
                    engine.postgres_bin = Some(postgres);
                    return Ok(engine);
                }
                _ if retry => {
                    // Someone took the free port between our check and the server's bind.
                    dir = server.stop_keeping_dir();
                    port = choose_port("LITEBENCH_PG_PORT")?.0;
                }
                (Err(e), _) => return Err(fail(e)),
                (Ok(()), None) => return Err(fail("the server did not accept a connection".into())),
            }
        }
    }

    /// Connects to a server the user runs.
    pub fn connect_url(url: &str) -> Result<PostgresEngine, String> {
        let shown = redact_url(url);
        let mut config: Config = url.parse().map_err(|e: postgres::Error| {
            format!(
                "--engine postgres={shown}: not a PostgreSQL connection URL ({}); e.g. postgres=postgres://user@127.0.0.1:5432/postgres",
                one_line(&e.to_string())
            )
        })?;
        if config.get_dbname().is_none() {
            config.dbname("postgres");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        config.application_name("litebench");
        let client = config.connect(NoTls).map_err(|e| {
            format!(
                "--engine postgres={shown}: cannot connect ({}); check that the server runs and the URL (user, password, database)",
                error_chain(&e)
            )
        })?;
        let port = config.get_ports().first().copied().unwrap_or(5432);
        PostgresEngine::finish(
            format!("postgres={shown}"),
            client,
            config,
            None,
            Some(shown.clone()),
            port,
            None,
        )
        .map_err(|e| format!("--engine postgres={shown}: {e}"))
    }

    fn finish(
        label: String,
        client: Client,
        config: Config,
        server: Option<Arc<ServerProcess>>,
        url: Option<String>,
        port: u16,
        run_as: Option<RunAs>,
    ) -> Result<PostgresEngine, String> {
        let mut admin = PgConn {
            client,
            stmts: Vec::new(),
            label: label.clone(),
            server: server.clone(),
        };
        let version = first_value(admin.query("SELECT version()").map_err(|e| e.message)?).unwrap_or_default();
        let version_num = first_value(admin.query("SHOW server_version_num").map_err(|e| e.message)?)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        Ok(PostgresEngine {
            label,
            admin: Mutex::new(admin),
            config,
            server,
            url,
            port,
            run_as,
            version,
            version_num,
            overrides: Mutex::new(Overrides::new()),
            originals: Mutex::new(BTreeMap::new()),
            postgres_bin: None,
        })
    }

    fn admin(&self) -> std::sync::MutexGuard<'_, PgConn> {
        self.admin.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The data directory of the throwaway server.
    pub fn data_dir(&self) -> Option<PathBuf> {
        self.server.as_ref().map(|s| s.dir().join("data"))
    }

    fn knob_error(&self, mut e: EngineError, knob: &str, value: &str) -> EngineError {
        e.context = format!("setting --knob {knob}={value} with ALTER SYSTEM");
        e
    }

    /// The value `postgresql.auto.conf` holds for `name`, to put back later (`None`: no entry).
    /// A failure to read it is an error: guessing would put back the wrong value.
    fn auto_conf_entry(conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError> {
        conn.query(&format!(
            "SELECT setting FROM pg_file_settings WHERE name = '{name}' AND sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1"
        ))
        .map(first_value)
        .map_err(|mut e| {
            e.context = format!(
                "reading {name} in postgresql.auto.conf to put it back after the run (pg_file_settings: superuser, or SELECT on it and EXECUTE on pg_show_all_file_settings())"
            );
            e
        })
    }

    /// The value to put back for `name`: read before the first trial, or now.
    fn original(&self, conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError> {
        let mut originals = self.originals.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = originals.get(name) {
            return Ok(o.clone());
        }
        let o = PostgresEngine::auto_conf_entry(conn, name)?;
        originals.insert(name.to_string(), o.clone());
        Ok(o)
    }

    /// Refuses settings PostgreSQL only applies at server start: a reload cannot change them.
    fn check_reloadable(conn: &mut dyn Connection, name: &str, knob: &str, value: &str) -> Result<(), EngineError> {
        let context = conn
            .query(&format!("SELECT context FROM pg_settings WHERE name = '{name}'"))
            .map(first_value)
            .map_err(|mut e| {
                e.context = format!("checking that --knob {knob}={value} can be set with a configuration reload");
                e
            })?;
        match context.as_deref() {
            Some(c @ ("postmaster" | "internal")) => Err(EngineError {
busy_cause: None,
                engine: FLAG.into(),
                kind: ErrorKind::Other,
                code: None,
                message: format!(
                    "PostgreSQL applies {name} only when the server starts (context {c}), and litebench does not restart servers between trials; leave out the knob"
                ),
                context: format!("setting --knob {knob}={value}"),
            }),
            _ => Ok(()),
        }
    }

    /// Asks the server to re-read its configuration and waits until this session has.
    fn reload(conn: &mut dyn Connection) -> Result<(), EngineError> {
        let load_time = || "SELECT pg_conf_load_time()";
        let before = first_value(conn.query(load_time())?);
        conn.query("SELECT pg_reload_conf()")?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if first_value(conn.query(load_time())?) != before {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(EngineError {
                    busy_cause: None,
                    engine: FLAG.into(),
                    kind: ErrorKind::Other,
                    code: None,
                    message: "the server did not reload its configuration within 10 s".into(),
                    context: "applying knobs (pg_reload_conf)".into(),
                });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn restore_sql(name: &str, o: &Override) -> String {
        match &o.original {
            Some(v) => format!("ALTER SYSTEM SET {name} = '{}'", v.replace('\'', "''")),
            None => format!("ALTER SYSTEM RESET {name}"),
        }
    }

    /// Puts back every setting litebench changed (forgetting them either way) and reloads the
    /// configuration; one line per failure.
    fn put_back(&self) -> Vec<String> {
        let ov = std::mem::take(&mut *self.overrides.lock().unwrap_or_else(|e| e.into_inner()));
        if ov.is_empty() {
            return Vec::new();
        }
        let mut admin = self.admin();
        let mut warnings = Vec::new();
        let mut put_back = 0;
        for (name, o) in &ov {
            let sql = PostgresEngine::restore_sql(name, o);
            let before = match &o.original {
                Some(v) => format!("'{v}', its postgresql.auto.conf entry before the run"),
                None => "the server's own value (no postgresql.auto.conf entry before the run)".into(),
            };
            match admin.execute_batch(&sql) {
                Ok(()) => put_back += 1,
                Err(e) => warnings.push(format!(
                    "{}: could not put {name} back to {before} (litebench had set {}): {}; run `{sql}; SELECT pg_reload_conf();` on the server",
                    self.label, o.current, e.message
                )),
            }
        }
        if put_back > 0 {
            if let Err(e) = admin.query("SELECT pg_reload_conf()") {
                warnings.push(format!(
                    "{}: settings put back, but the configuration reload failed: {}; run `SELECT pg_reload_conf();` on the server",
                    self.label, e.message
                ));
            }
        }
        warnings
    }
}

impl Drop for PostgresEngine {
    fn drop(&mut self) {
        // Normally the runner has put everything back already (`restore_settings`). A server
        // the user runs gets its settings back; the throwaway one is deleted anyway.
        if self.server.is_some() {
            return;
        }
        for w in self.put_back() {
            crate::errln!("warning: {w}");
        }
    }
}

impl Engine for PostgresEngine {
    fn label(&self) -> &str {
        &self.label
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn details(&self) -> Option<serde_json::Value> {
        Some(crate::engines::server::describe(
            &mut *self.admin(),
            SETTINGS_OF_NOTE,
            |s| format!("SHOW {s}"),
            self.data_dir().as_deref(),
            self.port,
            self.url.as_deref(),
            serde_json::json!({ "initdb_args": INITDB_ARGS, "server_settings": SERVER_SETTINGS }),
            self.run_as.as_ref(),
        ))
    }

    fn kind(&self) -> &'static crate::engines::kind::EngineKind {
        &KIND
    }

    fn io_counters(&self) -> Option<Arc<IoCounters>> {
        None
    }

    fn create_database(&self, _scratch: &Scratch, name: &str) -> Result<DbRef, EngineError> {
        let db = db_name(name);
        self.admin().execute_batch(&format!("CREATE DATABASE \"{db}\""))?;
        Ok(DbRef { name: db, path: None })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let db = db_name(name);
        // FILE_COPY (PostgreSQL 15+; the only strategy before) checkpoints before and after the
        // copy; the CHECKPOINT after the commit writes what is left (the commit's own pages), so
        // the trial starts with no dirty buffers and no WAL to catch up on.
        let strategy = if self.version_num >= 150000 {
            " STRATEGY = FILE_COPY"
        } else {
            ""
        };
        let mut admin = self.admin();
        admin.execute_batch(&format!(
            "CREATE DATABASE \"{db}\" TEMPLATE \"{}\"{strategy}",
            from.name
        ))?;
        let to = DbRef { name: db, path: None };
        if let Err(mut e) = admin.execute_batch("CHECKPOINT") {
            e.context = "writing the trial copy to disk before timing (CHECKPOINT needs superuser or, on PostgreSQL 15+, the pg_checkpoint role)".into();
            drop(admin);
            self.drop_database(scratch, &to);
            return Err(e);
        }
        Ok(to)
    }

    fn drop_database(&self, _scratch: &Scratch, db: &DbRef) {
        let force = if self.version_num >= 130000 {
            " WITH (FORCE)"
        } else {
            ""
        };
        let _ = self
            .admin()
            .execute_batch(&format!("DROP DATABASE IF EXISTS \"{}\"{force}", db.name));
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        let rows = self
            .admin()
            .query(&format!("SELECT pg_database_size('{}')", db.name))
            .ok()?;
        first_value(rows)?.parse().ok()
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let mut config = self.config.clone();
        config.dbname(&db.name);
        let client = config.connect(NoTls).map_err(|e| {
            pg_error(
                &self.label,
                self.server.as_deref(),
                e,
                &format!("connecting to database {}", db.name),
            )
        })?;
        Ok(Box::new(PgConn {
            client,
            stmts: Vec::new(),
            label: self.label.clone(),
            server: self.server.clone(),
        }))
    }

    fn bulk_load_mode(&self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        // This session only: the template's durability does not matter.
        conn.execute_batch("SET synchronous_commit = off")
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        if stage != Stage::Connect {
            return Ok(());
        }
        let wanted = wanted_settings(knobs, POSTGRES_KNOBS);
        let mut ov = self.overrides.lock().unwrap_or_else(|e| e.into_inner());
        let mut changed = false;
        let stale: Vec<String> = ov
            .keys()
            .filter(|k| !wanted.iter().any(|(n, _, _)| n == *k))
            .cloned()
            .collect();
        for name in stale {
            if let Some(o) = ov.remove(&name) {
                conn.execute_batch(&PostgresEngine::restore_sql(&name, &o))
                    .map_err(|mut e| {
                        e.context = format!("putting {name} back to the server's own value");
                        e
                    })?;
                changed = true;
            }
        }
        for (name, value, knob) in &wanted {
            if ov.get(name).is_some_and(|o| &o.current == value) {
                continue;
            }
            let original = match ov.get(name) {
                Some(o) => o.original.clone(),
                None => {
                    PostgresEngine::check_reloadable(conn, name, knob, value)?;
                    self.original(conn, name)?
                }
            };
            conn.execute_batch(&format!("ALTER SYSTEM SET {name} = '{value}'"))
                .map_err(|e| self.knob_error(e, knob, value))?;
            ov.insert(
                name.clone(),
                Override {
                    original,
                    current: value.clone(),
                },
            );
            changed = true;
        }
        if changed {
            PostgresEngine::reload(conn)?;
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        crate::model::knob::read_back(POSTGRES_KNOBS, PASSTHROUGH_PREFIX, knobs, |name, requested| {
            let shown = conn.query_value(&format!("SHOW {name}"))?;
            if find_spec(POSTGRES_KNOBS, name).is_some() {
                return Ok(shown);
            }
            // SHOW answers with units (64MB); pg_settings in the base unit (8192 for 64MB of
            // 8kB pages). Either spelling of the requested value counts as taking effect.
            let base = conn
                .query_value(&format!("SELECT setting FROM pg_settings WHERE name = '{name}'"))
                .ok()
                .flatten();
            Ok(match (requested, base) {
                (Some(r), Some(b)) if crate::model::knob::passthrough_matches(r, &b) => Some(b),
                _ => shown,
            })
        })
    }

    fn knob_hint(&self, knob: &str) -> String {
        if knob.starts_with(PASSTHROUGH_PREFIX) {
            "PostgreSQL may spell the value differently (SHOW shows units) or apply the setting only to new sessions; give the value as SHOW prints it".into()
        } else if self.url.is_some() {
            "on a server you run, litebench needs the right to ALTER SYSTEM and to reload the configuration (superuser, or GRANT ALTER SYSTEM ON PARAMETER and EXECUTE on pg_reload_conf())".into()
        } else {
            "the server did not apply the setting after a configuration reload".into()
        }
    }

    fn device_io(&self) -> Option<DeviceIo> {
        // The postmaster and every process it forked: backends, background workers.
        DeviceIo::process_tree(self.server.as_ref()?.pid())
    }

    fn cold_trial(&self) -> Result<String, String> {
        match &self.server {
            Some(_) => Ok("server stopped (fast shutdown, which checkpoints), OS page cache dropped, server started again before each trial: shared_buffers start empty".into()),
            None => Err(cold_refused(&self.label, FLAG)),
        }
    }

    fn make_cold(&self, drop_os_cache: &mut dyn FnMut() -> Result<(), EngineError>) -> Result<(), EngineError> {
        let (Some(server), Some(bin)) = (&self.server, &self.postgres_bin) else {
            return Err(crate::engines::server::error(
                &self.label,
                ErrorKind::Other,
                cold_refused(&self.label, FLAG),
                "starting a cold trial",
            ));
        };
        let mut admin = self.admin();
        let cmd = server_command(bin, &server.dir().join("data"), self.port);
        let client = cold_restart(&self.label, server, cmd, drop_os_cache, || {
            self.config.connect(NoTls).ok()
        })?;
        admin.client = client;
        admin.stmts.clear();
        Ok(())
    }

    fn prepare_settings(&self, knob_sets: &[&KnobSet]) -> Result<(), EngineError> {
        let mut admin = self.admin();
        for ks in knob_sets {
            for (name, value, knob) in wanted_settings(ks, POSTGRES_KNOBS) {
                PostgresEngine::check_reloadable(&mut *admin, &name, &knob, &value)?;
                self.original(&mut *admin, &name)?;
            }
        }
        Ok(())
    }

    fn restore_settings(&self) -> Vec<String> {
        self.put_back()
    }
}

/// One connection to a PostgreSQL database.
pub struct PgConn {
    client: Client,
    stmts: Vec<Statement>,
    label: String,
    server: Option<Arc<ServerProcess>>,
}

/// Maps a client error to an [`EngineError`]; a lost connection to a server that has exited is
/// reported as that.
fn pg_error(label: &str, server: Option<&ServerProcess>, e: postgres::Error, context: &str) -> EngineError {
    // A lost connection, or a backend's farewell (SQLSTATE class 57: "terminating connection
    // due to unexpected postmaster exit", shutdowns): first see whether the server itself died.
    let farewell = e.as_db_error().is_none_or(|db| db.code().code().starts_with("57"));
    if let (true, Some(s)) = (farewell, server) {
        if let Some(died) = s.died(Duration::from_millis(500)) {
            return crate::engines::server::error(label, ErrorKind::Io, died, context);
        }
    }
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        // Lock failures keep PostgreSQL's own kinds (never a SQLite cause).
        let busy_cause = if *code == SqlState::T_R_SERIALIZATION_FAILURE {
            Some(crate::engines::BusyCause::Serialization)
        } else if *code == SqlState::T_R_DEADLOCK_DETECTED {
            Some(crate::engines::BusyCause::Deadlock)
        } else if *code == SqlState::LOCK_NOT_AVAILABLE {
            Some(crate::engines::BusyCause::LockWait)
        } else {
            None
        };
        let kind = if *code == SqlState::DISK_FULL {
            ErrorKind::Full
        } else if busy_cause.is_some() {
            ErrorKind::Busy
        } else if *code == SqlState::READ_ONLY_SQL_TRANSACTION {
            ErrorKind::ReadOnly
        } else if code.code().starts_with("58") {
            ErrorKind::Io
        } else {
            ErrorKind::Other
        };
        let message = match db.detail() {
            Some(d) => format!("{} ({d}; SQLSTATE {})", db.message(), code.code()),
            None => format!("{} (SQLSTATE {})", db.message(), code.code()),
        };
        return EngineError {
            busy_cause,
            ..crate::engines::server::error(label, kind, message, context)
        };
    }
    if let Some(s) = server {
        if s.log_contains("No space left on device") {
            return crate::engines::server::error(
                label,
                ErrorKind::Full,
                format!("{} (the server log says: No space left on device)", e),
                context,
            );
        }
    }
    let kind = if e.is_closed() { ErrorKind::Io } else { ErrorKind::Other };
    crate::engines::server::error(label, kind, error_chain(&e), context)
}

/// Rewrites `?` placeholders to `$1..$n`, leaving `?` inside string literals, quoted
/// identifiers, dollar-quoted strings and comments alone.
pub fn translate_placeholders(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    let mut i = 0;
    let mut copied = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    while i < b.len() {
        match b[i] {
            b'\'' => {
                let backslash = i > 0 && matches!(b[i - 1], b'E' | b'e') && (i < 2 || !ident(b[i - 2]));
                i += 1;
                while i < b.len() {
                    if backslash && b[i] == b'\\' {
                        i += 2;
                    } else if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                        } else {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'"' {
                        if b.get(i + 1) == Some(&b'"') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'$' if i == 0 || !ident(b[i - 1]) => {
                // $tag$ ... $tag$ (tag empty or an identifier not starting with a digit).
                let mut j = i + 1;
                while j < b.len() && ident(b[j]) && !(j == i + 1 && b[j].is_ascii_digit()) {
                    j += 1;
                }
                if j < b.len() && b[j] == b'$' {
                    let tag = &sql[i..=j];
                    match sql[j + 1..].find(tag) {
                        Some(end) => i = j + 1 + end + tag.len(),
                        None => i = b.len(),
                    }
                } else {
                    i += 1;
                }
            }
            b'?' => {
                out.push_str(&sql[copied..i]);
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
                i += 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[copied.min(sql.len())..]);
    out
}

/// A bound value, converted to whatever type PostgreSQL inferred for its parameter.
#[derive(Debug, Clone, Copy)]
struct PgParam<'a>(Value<'a>);

type BoxError = Box<dyn std::error::Error + Sync + Send>;

fn cannot(what: &str, ty: &Type) -> BoxError {
    format!("cannot bind {what} to a parameter of type {ty}; cast the parameter in the SQL, e.g. CAST(? AS text)")
        .into()
}

impl ToSql for PgParam<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        let range = |v: i64| -> BoxError { format!("integer {v} is out of range for a parameter of type {ty}").into() };
        let is_text = <&str as ToSql>::accepts(ty);
        match self.0 {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) => match *ty {
                Type::INT8 => v.to_sql(ty, out),
                Type::INT4 => i32::try_from(v).map_err(|_| range(v))?.to_sql(ty, out),
                Type::INT2 => i16::try_from(v).map_err(|_| range(v))?.to_sql(ty, out),
                Type::OID => u32::try_from(v).map_err(|_| range(v))?.to_sql(ty, out),
                Type::FLOAT8 => (v as f64).to_sql(ty, out),
                Type::FLOAT4 => (v as f32).to_sql(ty, out),
                Type::BOOL => (v != 0).to_sql(ty, out),
                _ if is_text => v.to_string().as_str().to_sql(ty, out),
                _ => Err(cannot("an integer", ty)),
            },
            Value::Real(v) => match *ty {
                Type::FLOAT8 => v.to_sql(ty, out),
                Type::FLOAT4 => (v as f32).to_sql(ty, out),
                _ if is_text => v.to_string().as_str().to_sql(ty, out),
                _ => Err(cannot("a real number", ty)),
            },
            Value::Text(s) => {
                let parse_err = || -> BoxError { format!("text {s:?} is not a valid {ty}").into() };
                match *ty {
                    Type::INT8 => s.trim().parse::<i64>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::INT4 => s.trim().parse::<i32>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::INT2 => s.trim().parse::<i16>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::FLOAT8 => s.trim().parse::<f64>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::FLOAT4 => s.trim().parse::<f32>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::BYTEA => s.as_bytes().to_sql(ty, out),
                    _ if is_text => s.to_sql(ty, out),
                    _ => Err(cannot("text", ty)),
                }
            }
            Value::Blob(v) => match *ty {
                Type::BYTEA => v.to_sql(ty, out),
                _ => Err(cannot("a blob", ty)),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// Most parameters a statement binds without allocating.
const INLINE_PARAMS: usize = 16;

/// Calls `f` with `params` as rust-postgres parameters (on the stack up to [`INLINE_PARAMS`]).
fn with_params<R>(params: &[Value<'_>], f: impl FnOnce(&[&(dyn ToSql + Sync)]) -> R) -> R {
    if params.len() <= INLINE_PARAMS {
        let mut wrapped = [PgParam(Value::Null); INLINE_PARAMS];
        for (w, p) in wrapped.iter_mut().zip(params) {
            *w = PgParam(*p);
        }
        let refs: [&(dyn ToSql + Sync); INLINE_PARAMS] = std::array::from_fn(|i| &wrapped[i] as &(dyn ToSql + Sync));
        f(&refs[..params.len()])
    } else {
        let wrapped: Vec<PgParam<'_>> = params.iter().map(|p| PgParam(*p)).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = wrapped.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        f(&refs)
    }
}

/// A result value as the server sent it (binary format), decoded by [`push_value`].
struct Raw<'a>(Option<&'a [u8]>);

impl<'a> FromSql<'a> for Raw<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        Ok(Raw(Some(raw)))
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxError> {
        Ok(Raw(None))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// Appends one binary-format value of type `ty` to `out`; `Err` names what could not be read.
fn push_value(out: &mut Values, ty: &Type, raw: Option<&[u8]>) -> Result<(), String> {
    let Some(raw) = raw else {
        out.push_null();
        return Ok(());
    };
    let bad = || format!("cannot read a {ty} value of {} bytes", raw.len());
    let int = |raw: &[u8]| -> Option<i64> {
        Some(match raw.len() {
            2 => i16::from_be_bytes(raw.try_into().ok()?) as i64,
            4 => i32::from_be_bytes(raw.try_into().ok()?) as i64,
            8 => i64::from_be_bytes(raw.try_into().ok()?),
            _ => return None,
        })
    };
    match *ty {
        Type::INT2 | Type::INT4 | Type::INT8 => out.push_int(int(raw).ok_or_else(bad)?),
        Type::OID => out.push_int(u32::from_be_bytes(raw.try_into().map_err(|_| bad())?) as i64),
        Type::BOOL => out.push_int(i64::from(raw.first().copied().ok_or_else(bad)? != 0)),
        Type::FLOAT4 => out.push_real(f32::from_be_bytes(raw.try_into().map_err(|_| bad())?) as f64),
        Type::FLOAT8 => out.push_real(f64::from_be_bytes(raw.try_into().map_err(|_| bad())?)),
        Type::NUMERIC => {
            let (v, scale) = numeric(raw).ok_or_else(bad)?;
            out.push_decimal(v, scale);
        }
        Type::BYTEA => out.push_blob(raw),
        _ if <&str as FromSql>::accepts(ty) => out.push_text(raw),
        _ => {
            return Err(format!(
                "cannot read a value of type {ty}; cast the column, e.g. CAST(x AS text)"
            ))
        }
    }
    Ok(())
}

/// PostgreSQL's binary `NUMERIC` (base-10000 digits, weight, sign, display scale) as the nearest
/// `f64` and the display scale. Converted through a decimal string on the stack (no allocation);
/// digits after the 64th significant one are dropped.
fn numeric(raw: &[u8]) -> Option<(f64, u16)> {
    let be16 = |i: usize| -> Option<u16> { Some(u16::from_be_bytes([*raw.get(i)?, *raw.get(i + 1)?])) };
    let ndigits = be16(0)? as usize;
    let weight = be16(2)? as i16 as i32;
    let sign = be16(4)?;
    let scale = be16(6)?;
    match sign {
        0x0000 | 0x4000 => {}
        0xC000 => return Some((f64::NAN, scale)),
        0xD000 => return Some((f64::INFINITY, scale)),
        0xF000 => return Some((f64::NEG_INFINITY, scale)),
        _ => return None,
    }
    let mut buf = [0u8; 96];
    let mut len = 0;
    if sign == 0x4000 {
        buf[0] = b'-';
        len = 1;
    }
    let kept = ndigits.min(16);
    for k in 0..kept {
        let d = be16(8 + 2 * k)?;
        if d > 9999 {
            return None;
        }
        for p in [1000, 100, 10, 1] {
            buf[len] = b'0' + (d / p % 10) as u8;
            len += 1;
        }
    }
    if kept == 0 {
        buf[len] = b'0';
        len += 1;
    }
    // The digits kept, as an integer, times 10^exp.
    let exp = 4 * (weight + 1 - kept as i32);
    buf[len] = b'e';
    len += 1;
    if exp < 0 {
        buf[len] = b'-';
        len += 1;
    }
    let mut e = exp.unsigned_abs();
    let start = len;
    loop {
        buf[len] = b'0' + (e % 10) as u8;
        len += 1;
        e /= 10;
        if e == 0 {
            break;
        }
    }
    buf[start..len].reverse();
    let text = std::str::from_utf8(&buf[..len]).ok()?;
    Some((text.parse().ok()?, scale))
}

/// Rows of a `COPY ... FROM STDIN` in text format: tab-separated, `\N` for NULL, backslash
/// escapes for the characters the format reserves.
struct CopySink<'a> {
    writer: postgres::CopyInWriter<'a>,
    line: Vec<u8>,
    width: usize,
    label: &'a str,
}

/// Appends `text` to a COPY line with PostgreSQL's text-format escapes.
pub fn copy_escape(line: &mut Vec<u8>, text: &[u8]) {
    for &b in text {
        match b {
            b'\\' => line.extend_from_slice(b"\\\\"),
            b'\t' => line.extend_from_slice(b"\\t"),
            b'\n' => line.extend_from_slice(b"\\n"),
            b'\r' => line.extend_from_slice(b"\\r"),
            _ => line.push(b),
        }
    }
}

impl crate::engines::bulk::RowSink for CopySink<'_> {
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError> {
        use std::io::Write;
        if values.len() != self.width {
            return Err(crate::engines::bulk::input_error(
                self.label,
                format!("a row of {} values for {} columns", values.len(), self.width),
            ));
        }
        self.line.clear();
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.line.push(b'\t');
            }
            match *v {
                Value::Null => self.line.extend_from_slice(b"\\N"),
                Value::Int(x) => {
                    let _ = write!(self.line, "{x}");
                }
                Value::Real(x) => {
                    let _ = write!(self.line, "{x:?}");
                }
                Value::Text(t) => copy_escape(&mut self.line, t.as_bytes()),
                Value::Blob(b) => {
                    // bytea's hex input form.
                    self.line.extend_from_slice(b"\\\\x");
                    for byte in b {
                        let _ = write!(self.line, "{byte:02x}");
                    }
                }
            }
        }
        self.line.push(b'\n');
        self.writer
            .write_all(&self.line)
            .map_err(|e| crate::engines::server::error(self.label, ErrorKind::Io, e.to_string(), "sending COPY data"))
    }
}

impl PgConn {
    fn err(&self, e: postgres::Error, context: &str) -> EngineError {
        pg_error(&self.label, self.server.as_deref(), e, context)
    }
}

impl Connection for PgConn {
    /// PostgreSQL's cancel request: a connection of its own to the server, carrying this
    /// backend's key, which cancels the statement the backend runs (one that is idle is left
    /// alone); the statement fails with `canceling statement due to user request`.
    fn interrupter(&self) -> Option<crate::engines::Interrupter> {
        let token = self.client.cancel_token();
        Some(Box::new(move || {
            // Nothing to do about a cancel the server did not take: the watch sends another.
            let _ = token.cancel_query(NoTls);
        }))
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.client
            .batch_execute(sql)
            .map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let translated = translate_placeholders(sql);
        let stmt = self
            .client
            .prepare(&translated)
            .map_err(|e| self.err(e, &format!("preparing `{}`", one_line(&translated))))?;
        self.stmts.push(stmt);
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        let stmt = &self.stmts[id.0];
        let client = &mut self.client;
        // `execute` returns the rows a statement changed, or the rows a query produced.
        with_params(params, |p| client.execute(stmt, p)).map_err(|e| self.err(e, "running a prepared statement"))
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        let stmt = &self.stmts[id.0];
        let client = &mut self.client;
        let rows =
            with_params(params, |p| client.query(stmt, p)).map_err(|e| self.err(e, "running a prepared query"))?;
        for row in &rows {
            for (i, column) in row.columns().iter().enumerate() {
                let raw: Raw<'_> = row.try_get(i).map_err(|e| self.err(e, "reading a query result"))?;
                push_value(out, column.type_(), raw.0).map_err(|message| {
                    crate::engines::server::error(&self.label, ErrorKind::Other, message, "reading a query result")
                })?;
            }
        }
        Ok(rows.len() as u64)
    }

    fn query_plan(&mut self, sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        // One row per plan line, as psql prints it.
        Ok(Some(crate::engines::explain_lines(
            &self.query(&format!("EXPLAIN {sql}"))?,
            None,
        )))
    }

    fn bulk_path(&self) -> &'static str {
        "COPY FROM STDIN"
    }

    /// `COPY table (columns) FROM STDIN` in PostgreSQL's text format, one statement (and so
    /// one transaction) per table.
    fn bulk_load(
        &mut self,
        table: &str,
        columns: &[&str],
        fill: crate::engines::bulk::Fill<'_>,
    ) -> Result<u64, EngineError> {
        let sql = format!("COPY {table} ({}) FROM STDIN", columns.join(", "));
        let label = self.label.clone();
        let server = self.server.clone();
        let err = |e: postgres::Error, what: &str| pg_error(&label, server.as_deref(), e, what);
        let writer = self
            .client
            .copy_in(&sql)
            .map_err(|e| err(e, &format!("starting `{sql}`")))?;
        let mut sink = CopySink {
            writer,
            line: Vec::with_capacity(256),
            width: columns.len(),
            label: &label,
        };
        fill(&mut sink)?;
        let CopySink { writer, .. } = sink;
        writer.finish().map_err(|e| err(e, &format!("finishing `{sql}`")))
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let messages = self
            .client
            .simple_query(sql)
            .map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))?;
        Ok(messages
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(r) => Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect()),
                _ => None,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_outside_quotes_become_numbered() {
        assert_eq!(
            translate_placeholders("INSERT INTO t(a, b) VALUES (?, ?)"),
            "INSERT INTO t(a, b) VALUES ($1, $2)"
        );
        assert_eq!(
            translate_placeholders(
                "SELECT '?', \"a?\", ? -- what?\n, ? /* ? /* ? */ */ , $$?$$, $x$ ? $x$, E'\\'?', ?"
            ),
            "SELECT '?', \"a?\", $1 -- what?\n, $2 /* ? /* ? */ */ , $$?$$, $x$ ? $x$, E'\\'?', $3"
        );
        assert_eq!(translate_placeholders("SELECT 'it''s ?', ?"), "SELECT 'it''s ?', $1");
        assert_eq!(
            translate_placeholders("SELECT ?::text || 'é'"),
            "SELECT $1::text || 'é'"
        );
        assert_eq!(
            translate_placeholders("SELECT 'unterminated ?"),
            "SELECT 'unterminated ?"
        );
    }

    /// NUMERIC in PostgreSQL's binary format: digits base 10000.
    fn numeric_bytes(weight: i16, negative: bool, scale: u16, digits: &[u16]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&(digits.len() as u16).to_be_bytes());
        v.extend_from_slice(&weight.to_be_bytes());
        v.extend_from_slice(&(if negative { 0x4000u16 } else { 0 }).to_be_bytes());
        v.extend_from_slice(&scale.to_be_bytes());
        for d in digits {
            v.extend_from_slice(&d.to_be_bytes());
        }
        v
    }

    #[test]
    fn numerics_decode_to_the_nearest_double() {
        // 12345.6667 = 1|2345|.6667
        assert_eq!(
            numeric(&numeric_bytes(1, false, 4, &[1, 2345, 6667])),
            Some((12345.6667, 4))
        );
        // -0.0005 = .0005 at weight -1
        assert_eq!(numeric(&numeric_bytes(-1, true, 4, &[5])), Some((-0.0005, 4)));
        // 2000000 = 200|0000 with the trailing zero group left out
        assert_eq!(numeric(&numeric_bytes(1, false, 0, &[200])), Some((2_000_000.0, 0)));
        assert_eq!(numeric(&numeric_bytes(0, false, 2, &[])), Some((0.0, 2)));
        // avg(1, 2) = 1.5000000000000000 (PostgreSQL's scale for it)
        assert_eq!(numeric(&numeric_bytes(0, false, 16, &[1, 5000])), Some((1.5, 16)));
        assert_eq!(numeric(&[0, 1]), None, "truncated");
        let mut out = Values::default();
        push_value(&mut out, &Type::INT4, Some(&7i32.to_be_bytes())).unwrap();
        push_value(&mut out, &Type::BPCHAR, Some(b"ABC")).unwrap();
        push_value(&mut out, &Type::TEXT, None).unwrap();
        assert_eq!(out.describe(0..3), "(7, 'ABC', NULL)");
        assert!(push_value(&mut out, &Type::INT4, Some(&[1, 2, 3])).is_err());
    }

    #[test]
    fn copy_text_escapes_what_the_format_reserves() {
        let mut line = Vec::new();
        copy_escape(&mut line, b"a\tb\\c\nd\re|f");
        assert_eq!(line, b"a\\tb\\\\c\\nd\\re|f");
    }

    #[test]
    fn knob_values_canonicalise_like_postgres_spells_them() {
        let sc = POSTGRES_KNOBS.iter().find(|k| k.name == "synchronous_commit").unwrap();
        assert_eq!(sc.kind.canonical("1").as_deref(), Some("on"));
        assert_eq!(sc.kind.canonical("OFF").as_deref(), Some("off"));
        assert_eq!(sc.kind.readback("remote_apply"), "remote_apply");
        assert!(sc.kind.canonical("sometimes").is_none());
    }
}
