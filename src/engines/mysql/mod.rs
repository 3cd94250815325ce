//! MariaDB (MySQL) as an engine: a throwaway server started from the installed binaries, or a
//! server the user runs (`--engine mysql=URL`; `mariadb` is an alias).
//!
//! Why it looks the way it does:
//!
//! - The throwaway server is made by `mariadb-install-db` in the scratch directory and started
//!   with `--no-defaults`, so neither the machine's `/etc/mysql` configuration nor its running
//!   server (if any) is involved: its settings are MariaDB's compiled-in defaults plus the few
//!   litebench passes (loopback only, its socket, pid file and temporary files inside the
//!   scratch directory, utf8mb4 with a binary collation like SQLite's and the PostgreSQL
//!   server's). docs/servers.md lists them and why.
//! - Clients connect over TCP to 127.0.0.1 (never silently over the Unix socket, which the
//!   client library would otherwise prefer), and with CLIENT_FOUND_ROWS so an UPDATE reports the
//!   rows it matched, as SQLite and PostgreSQL do.
//! - MariaDB has no database templates: a trial database is created and each table copied
//!   with `CREATE TABLE ... LIKE` and `INSERT ... SELECT`. That leaves the copy in the buffer
//!   pool and the redo log, which InnoDB would write back during the trial, so before timing
//!   litebench has InnoDB write it: `FLUSH TABLES ... FOR EXPORT` for the copy's and the
//!   template's tables (at full speed; the page cleaner alone writes about
//!   innodb_io_capacity pages a second), then `innodb_max_dirty_pages_pct = 0` until the status
//!   counters show no dirty page and a checkpoint past the copy, then the setting back.
//! - For cold trials (`--cold`) the throwaway server is stopped and started again around the
//!   OS page cache drop, with the buffer pool dump and load off, so the buffer pool starts
//!   empty; `--cold` is refused for a server the user runs.
//! - The durability knobs are global variables, set with `SET GLOBAL` (and `SET SESSION` where a
//!   variable also has a session value, since the trial's connection already exists) and read
//!   back with `SELECT @@GLOBAL.name`. Variables a configuration does not ask for are put back
//!   to the value they had before litebench first changed them: the global values of every
//!   variable the run will change are read before the first trial, and one that cannot be put
//!   back at the end is reported, never ignored.

use crate::engines::server::process::{run_tool, ServerDir, ServerProcess};
use crate::engines::server::{
    choose_port, cold_refused, cold_restart, db_name, first_value, one_line, redact_url, run_as, wanted_settings,
    Override, Overrides, RunAs, PASSTHROUGH_PREFIX,
};
use crate::engines::values::{parse_decimal, Values};
use crate::engines::{Connection, DbRef, Dialect, Engine, EngineError, ErrorKind, StmtId, Value};
use crate::model::knob::{find_spec, KnobKind, KnobReading, KnobSet, KnobSpec, ReadBy, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::Scratch;
use mysql::consts::{CapabilityFlags, ColumnType};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, Statement};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long InnoDB gets to write a trial copy to disk before the run stops.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(300);

/// MariaDB's durability settings, in the order they are applied.
pub const MYSQL_KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "innodb_flush_log_at_trx_commit",
        kind: KnobKind::Choice(&["0", "1", "2"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "1",
        help: "MariaDB: 1 writes and syncs the redo log at every commit; 2 writes at commit and syncs about once a second; 0 does both about once a second",
    },
    KnobSpec {
        name: "sync_binlog",
        kind: KnobKind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "0",
        help: "MariaDB: sync the binary log every N commits (0: leave it to the OS); the binary log is off unless the server runs with log_bin",
    },
];

/// mysql's descriptor.
pub static KIND: crate::engines::kind::EngineKind = crate::engines::kind::EngineKind {
    name: "mysql",
    aliases: &["mariadb"],
    about: "a throwaway MariaDB server on 127.0.0.1, made with the installed mariadb-install-db in the scratch directory and removed after the run (Debian package mariadb-server)",
    target: Some(crate::engines::kind::TargetSpec {
        separator: '=',
        what: "server URL",
        example: "mysql=mysql://root:password@127.0.0.1:3306/ (a server you run)",
        without: "a throwaway server litebench starts",
    }),
    dialect: Some(crate::engines::Dialect::Mysql),
    knobs: MYSQL_KNOBS,
    passthrough: PASSTHROUGH_PREFIX,
    io_counted: false,
    durability_knobs: &["innodb_flush_log_at_trx_commit", "sync_binlog"],
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
        None => MysqlEngine::start(scratch),
        Some(url) => MysqlEngine::connect_url(url),
    };
    Ok(Box::new(e.map_err(crate::base::Failure)?))
}

/// Arguments litebench gives `mariadb-install-db` (besides `--datadir`).
pub const INSTALL_ARGS: &[&str] = &["--auth-root-authentication-method=normal", "--skip-test-db"];

/// Arguments litebench gives the throwaway `mariadbd` (besides `--datadir`, `--port` and
/// `--tmpdir`).
pub const SERVER_ARGS: &[&str] = &[
    "--bind-address=127.0.0.1",
    "--socket=mysqld.sock",
    "--pid-file=mariadbd.pid",
    "--skip-name-resolve",
    "--character-set-server=utf8mb4",
    "--collation-server=utf8mb4_bin",
    "--innodb-buffer-pool-dump-at-shutdown=OFF",
    "--innodb-buffer-pool-load-at-startup=OFF",
];

/// Global variables recorded in the manifest.
const SETTINGS_OF_NOTE: &[&str] = &[
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "log_bin",
    "innodb_flush_method",
    "innodb_doublewrite",
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_log_buffer_size",
    "innodb_io_capacity",
    "innodb_use_native_aio",
    "innodb_file_per_table",
    "innodb_fast_shutdown",
    "default_storage_engine",
    "transaction_isolation",
    "character_set_server",
    "collation_server",
    "version_comment",
];

const FLAG: &str = "mysql";

/// `mariadbd` and `mariadb-install-db`: from `$LITEBENCH_MYSQL_BIN`, else where Debian's
/// mariadb-server puts them.
fn find_binaries() -> Result<(PathBuf, PathBuf), String> {
    let from_env = std::env::var_os("LITEBENCH_MYSQL_BIN").map(PathBuf::from);
    let (server, install) = match &from_env {
        Some(d) => (d.join("mariadbd"), d.join("mariadb-install-db")),
        None => (
            PathBuf::from("/usr/sbin/mariadbd"),
            PathBuf::from("/usr/bin/mariadb-install-db"),
        ),
    };
    for p in [&server, &install] {
        if !p.is_file() {
            return Err(format!(
                "--engine mysql: {} not found; install the Debian package mariadb-server{}",
                p.display(),
                if from_env.is_some() {
                    " or point LITEBENCH_MYSQL_BIN at the directory holding mariadbd and mariadb-install-db"
                } else {
                    ""
                }
            ));
        }
    }
    Ok((server, install))
}

/// A MariaDB server as an engine.
pub struct MysqlEngine {
    label: String,
    /// Creates, copies and drops databases.
    admin: Mutex<MyConn>,
    /// How to connect; the database name is set per database.
    opts: Opts,
    /// The throwaway server (`None` for a URL). Dropped after `admin`.
    server: Option<Arc<ServerProcess>>,
    url: Option<String>,
    port: u16,
    run_as: Option<RunAs>,
    version: String,
    overrides: Mutex<Overrides>,
    /// The global value of each variable a configuration of the run changes, read before the
    /// first trial, as a literal (`None`: the variable has no global value).
    originals: Mutex<BTreeMap<String, Option<String>>>,
    /// The `mariadbd` binary of the throwaway server, to start it again for cold trials.
    mariadbd_bin: Option<PathBuf>,
}

/// The command line of the throwaway server.
fn server_command(mariadbd: &Path, data: &Path, tmp: &Path, port: u16) -> Command {
    let mut cmd = Command::new(mariadbd);
    // --no-defaults must come first.
    cmd.arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--port={port}"))
        .arg(format!("--tmpdir={}", tmp.display()))
        .args(SERVER_ARGS);
    cmd
}

/// Options every litebench connection uses on top of the address and credentials.
fn finish_opts(b: OptsBuilder) -> OptsBuilder {
    b.prefer_socket(false)
        .additional_capabilities(CapabilityFlags::CLIENT_FOUND_ROWS)
        .tcp_connect_timeout(Some(Duration::from_secs(5)))
}

fn local_opts(port: u16) -> Opts {
    finish_opts(
        OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(port)
            .user(Some("root")),
    )
    .into()
}

/// A SQL literal for a variable value: numbers as they are, anything else quoted.
fn literal(v: &str) -> String {
    if v.parse::<i64>().is_ok() || v.parse::<f64>().is_ok_and(f64::is_finite) {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''"))
    }
}

/// Error codes that mean a variable has no value in the scope asked for.
const WRONG_SCOPE: &[i32] = &[1228, 1229, 1238];

impl MysqlEngine {
    /// Starts a throwaway server in the scratch directory.
    pub fn start(scratch: &Scratch) -> Result<MysqlEngine, String> {
        let (mariadbd, install) = find_binaries()?;
        let run_as = run_as(FLAG, "mysql", "mariadb-server")?;
        let (mut port, fixed) = choose_port("LITEBENCH_MYSQL_PORT")?;
        let fail = |e: String| format!("--engine mysql: {e}");
        let dir = ServerDir::create(scratch, "mariadb", run_as.as_ref()).map_err(fail)?;
        let data = dir.path().join("data");
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).map_err(|e| fail(format!("{}: {e}", tmp.display())))?;
        if let Some(who) = &run_as {
            std::os::unix::fs::chown(&tmp, Some(who.uid), Some(who.gid))
                .map_err(|e| fail(format!("{}: {e}", tmp.display())))?;
        }
        let mut cmd = Command::new(&install);
        // --no-defaults must come first.
        // The bootstrap server's temporary tables go to the server's own tmp, not /tmp: they
        // are named by process id, and two bootstraps in different PID namespaces sharing one
        // /tmp (containers, sandboxes) collide ("Unknown table 'mysql.tmp_user_sys'").
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .args(INSTALL_ARGS);
        run_tool(
            cmd,
            dir.path(),
            run_as.as_ref(),
            "install-db.log",
            Duration::from_secs(180),
        )
        .map_err(fail)?;
        let mut dir = dir;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let cmd = server_command(&mariadbd, &data, &tmp, port);
            let server = ServerProcess::spawn(
                "mariadbd",
                cmd,
                dir,
                run_as.as_ref(),
                libc::SIGTERM,
                libc::SIGTERM,
                "server.log",
            )
            .map_err(|(e, _dir)| fail(e))?;
            let opts = local_opts(port);
            let mut conn = None;
            let ready = server.wait_ready(Duration::from_secs(60), &mut || match Conn::new(opts.clone()) {
                Ok(c) => {
                    conn = Some(c);
                    Ok(true)
                }
                Err(_) => Ok(false),
            });
            let retry = !fixed && attempt < 3 && server.log_contains("Address already in use");
            match (ready, conn) {
                (Ok(()), Some(conn)) => {
                    let mut engine =
                        MysqlEngine::finish(FLAG.to_string(), conn, opts, Some(Arc::new(server)), None, port, run_as)
                            .map_err(fail)?;
                    engine.mariadbd_bin = Some(mariadbd);
                    return Ok(engine);
                }
                _ if retry => {
                    // Someone took the free port between our check and the server's bind.
                    dir = server.stop_keeping_dir();
                    port = choose_port("LITEBENCH_MYSQL_PORT")?.0;
                }
                (Err(e), _) => return Err(fail(e)),
                (Ok(()), None) => return Err(fail("the server did not accept a connection".into())),
            }
        }
    }

    /// Connects to a server the user runs (`mysql://user:password@host:port/database`).
    pub fn connect_url(url: &str) -> Result<MysqlEngine, String> {
        let shown = redact_url(url);
        let normalised = match url.strip_prefix("mariadb://") {
            Some(rest) => format!("mysql://{rest}"),
            None => url.to_string(),
        };
        let opts = Opts::from_url(&normalised).map_err(|e| {
            format!(
                "--engine mysql={shown}: not a MySQL connection URL ({}); e.g. mysql=mysql://root@127.0.0.1:3306/",
                one_line(&e.to_string())
            )
        })?;
        // The URL's database (if any) only serves to connect; litebench makes its own.
        let opts: Opts = finish_opts(OptsBuilder::from_opts(opts).db_name(None::<String>)).into();
        let conn = Conn::new(opts.clone()).map_err(|e| {
            format!(
                "--engine mysql={shown}: cannot connect ({}); check that the server runs and the URL (user, password)",
                my_message(&e)
            )
        })?;
        let port = opts.get_tcp_port();
        MysqlEngine::finish(
            format!("mysql={shown}"),
            conn,
            opts,
            None,
            Some(shown.clone()),
            port,
            None,
        )
        .map_err(|e| format!("--engine mysql={shown}: {e}"))
    }

    fn finish(
        label: String,
        conn: Conn,
        opts: Opts,
        server: Option<Arc<ServerProcess>>,
        url: Option<String>,
        port: u16,
        run_as: Option<RunAs>,
    ) -> Result<MysqlEngine, String> {
        let mut admin = MyConn {
            conn,
            stmts: Vec::new(),
            label: label.clone(),
            server: server.clone(),
            opts: opts.clone(),
        };
        let version = first_value(admin.query("SELECT version()").map_err(|e| e.message)?).unwrap_or_default();
        Ok(MysqlEngine {
            label,
            admin: Mutex::new(admin),
            opts,
            server,
            url,
            port,
            run_as,
            version,
            overrides: Mutex::new(Overrides::new()),
            originals: Mutex::new(BTreeMap::new()),
            mariadbd_bin: None,
        })
    }

    fn admin(&self) -> std::sync::MutexGuard<'_, MyConn> {
        self.admin.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The data directory of the throwaway server.
    pub fn data_dir(&self) -> Option<PathBuf> {
        self.server.as_ref().map(|s| s.dir().join("data"))
    }

    /// Sets `name` globally and in this session; a variable that has only one of the two scopes
    /// is set in that one.
    fn set_both(conn: &mut dyn Connection, name: &str, lit: &str) -> Result<(), EngineError> {
        let global = conn.execute_batch(&format!("SET GLOBAL {name} = {lit}"));
        let session = conn.execute_batch(&format!("SET SESSION {name} = {lit}"));
        let scope_only = |e: &EngineError| e.code.is_some_and(|c| WRONG_SCOPE.contains(&c));
        match (global, session) {
            // At least one scope took it; the other may legitimately not exist.
            (Ok(()), _) | (_, Ok(())) => Ok(()),
            (Err(g), Err(s)) => Err(if scope_only(&g) { s } else { g }),
        }
    }

    /// The global value as a literal (`NULL` for a NULL value; `None`: the variable has no
    /// global value, and a session-only variable is reset to its default instead).
    fn global_value(conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError> {
        match conn.query(&format!("SELECT @@GLOBAL.{name}")) {
            Ok(rows) => Ok(Some(first_value(rows).map_or_else(|| "NULL".into(), |v| literal(&v)))),
            Err(e) if e.code.is_some_and(|c| WRONG_SCOPE.contains(&c)) => Ok(None),
            Err(mut e) => {
                e.context = format!("reading the global value of {name} to put it back after the run");
                Err(e)
            }
        }
    }

    /// The value to put back for `name`: read before the first trial, or now.
    fn original(&self, conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError> {
        let mut originals = self.originals.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = originals.get(name) {
            return Ok(o.clone());
        }
        let o = MysqlEngine::global_value(conn, name)?;
        originals.insert(name.to_string(), o.clone());
        Ok(o)
    }

    /// Puts back every global variable litebench changed (forgetting them either way); one line
    /// per failure.
    fn put_back(&self) -> Vec<String> {
        let ov = std::mem::take(&mut *self.overrides.lock().unwrap_or_else(|e| e.into_inner()));
        let mut admin = self.admin();
        let mut warnings = Vec::new();
        for (name, o) in &ov {
            let Some(lit) = &o.original else { continue };
            if let Err(e) = admin.execute_batch(&format!("SET GLOBAL {name} = {lit}")) {
                warnings.push(format!(
                    "{}: could not put the global variable {name} back to {lit}, its value before the run (litebench had set {}): {}; run `SET GLOBAL {name} = {lit};` on the server",
                    self.label,
                    o.current,
                    e.message
                ));
            }
        }
        warnings
    }

    /// Makes InnoDB write the trial copy (and every other dirty page) to the data files and
    /// checkpoint past it, so the trial does not pay for the copy. `tables` are the copy's and
    /// the template's. The wait uses the status counters `Innodb_lsn_last_checkpoint` (until
    /// it passes the LSN at the end of the copy) and `Innodb_buffer_pool_pages_dirty` (until 0;
    /// on a server litebench did not start, others may keep dirtying pages, so only the
    /// checkpoint counts there).
    fn flush_copy(&self, admin: &mut MyConn, tables: &[String]) -> Result<(), EngineError> {
        let context = "writing the trial copy to disk before timing";
        let with_context = |mut e: EngineError, what: &str| {
            e.context = format!("{context} ({what})");
            e
        };
        // Writes the listed tables' dirty pages at once (the page cleaner alone writes about
        // innodb_io_capacity pages a second); leaves the checkpoint where it is.
        if !tables.is_empty() {
            let flushed = admin.execute_batch(&format!("FLUSH TABLES {} FOR EXPORT", tables.join(", ")));
            let unlocked = admin.execute_batch("UNLOCK TABLES");
            flushed.map_err(|e| {
                with_context(
                    e,
                    "FLUSH TABLES ... FOR EXPORT needs the RELOAD and LOCK TABLES privileges",
                )
            })?;
            unlocked.map_err(|e| with_context(e, "UNLOCK TABLES"))?;
        }
        let status = |admin: &mut MyConn, name: &str| -> Result<Option<u64>, EngineError> {
            Ok(admin
                .query(&format!("SHOW GLOBAL STATUS LIKE '{name}'"))?
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().nth(1).flatten())
                .and_then(|v| v.parse().ok()))
        };
        let target = status(admin, "Innodb_lsn_current")?;
        // Whatever it is now (the server's value, or a knob's): put back right after.
        let pct = MysqlEngine::global_value(admin, "innodb_max_dirty_pages_pct")?.unwrap_or_else(|| "90".into());
        admin
            .execute_batch("SET GLOBAL innodb_max_dirty_pages_pct = 0")
            .map_err(|e| with_context(e, "SET GLOBAL innodb_max_dirty_pages_pct = 0 needs the SUPER privilege"))?;
        let deadline = Instant::now() + FLUSH_TIMEOUT;
        let waited = (|| loop {
            let checkpoint = match target {
                Some(t) => status(admin, "Innodb_lsn_last_checkpoint")?.is_some_and(|c| c >= t),
                None => true,
            };
            let dirty = status(admin, "Innodb_buffer_pool_pages_dirty")?.unwrap_or(0);
            if checkpoint && (dirty == 0 || self.server.is_none()) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(crate::engines::server::error(
                    &self.label,
                    ErrorKind::Other,
                    format!(
                        "InnoDB did not write the copy to disk within {} s ({dirty} dirty pages left)",
                        FLUSH_TIMEOUT.as_secs()
                    ),
                    context,
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        })();
        // However the wait ended, the setting goes back.
        if let Err(e) = admin.execute_batch(&format!("SET GLOBAL innodb_max_dirty_pages_pct = {pct}")) {
            // Left for the end of the run to try again and report.
            let mut ov = self.overrides.lock().unwrap_or_else(|e| e.into_inner());
            ov.entry("innodb_max_dirty_pages_pct".into()).or_insert(Override {
                original: Some(pct.clone()),
                current: "0".into(),
            });
            return Err(with_context(
                e,
                &format!("putting innodb_max_dirty_pages_pct back to {pct}"),
            ));
        }
        waited
    }

    fn restore(conn: &mut dyn Connection, name: &str, o: &Override) -> Result<(), EngineError> {
        match &o.original {
            Some(lit) => MysqlEngine::set_both(conn, name, lit),
            None => conn.execute_batch(&format!("SET SESSION {name} = DEFAULT")),
        }
    }
}

impl Drop for MysqlEngine {
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

impl Engine for MysqlEngine {
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
            |s| format!("SELECT @@GLOBAL.{s}"),
            self.data_dir().as_deref(),
            self.port,
            self.url.as_deref(),
            serde_json::json!({ "install_db_args": INSTALL_ARGS, "server_args": SERVER_ARGS }),
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
        self.admin().execute_batch(&format!("CREATE DATABASE `{db}`"))?;
        Ok(DbRef { name: db, path: None })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let to = self.create_database(scratch, name)?;
        let copied = (|| {
            let mut admin = self.admin();
            let tables = admin.query(&format!(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = '{}' AND table_type = 'BASE TABLE' ORDER BY table_name",
                from.name
            ))?;
            admin.execute_batch("SET SESSION foreign_key_checks = 0")?;
            let mut both = Vec::new();
            for t in tables.into_iter().filter_map(|r| r.into_iter().next().flatten()) {
                let t = t.replace('`', "``");
                admin.execute_batch(&format!("CREATE TABLE `{}`.`{t}` LIKE `{}`.`{t}`", to.name, from.name))?;
                admin.execute_batch(&format!(
                    "INSERT INTO `{}`.`{t}` SELECT * FROM `{}`.`{t}`",
                    to.name, from.name
                ))?;
                both.push(format!("`{}`.`{t}`", to.name));
                both.push(format!("`{}`.`{t}`", from.name));
            }
            admin.execute_batch("SET SESSION foreign_key_checks = 1")?;
            self.flush_copy(&mut admin, &both)
        })();
        match copied {
            Ok(()) => Ok(to),
            Err(e) => {
                self.drop_database(scratch, &to);
                Err(e)
            }
        }
    }

    fn drop_database(&self, _scratch: &Scratch, db: &DbRef) {
        let _ = self
            .admin()
            .execute_batch(&format!("DROP DATABASE IF EXISTS `{}`", db.name));
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        let mut admin = self.admin();
        // The tablespace files themselves; the table statistics only as a fallback.
        let files = admin
            .query(&format!(
                "SELECT SUM(file_size) FROM information_schema.innodb_sys_tablespaces WHERE name LIKE '{}/%'",
                db.name
            ))
            .ok()
            .and_then(first_value)
            .and_then(|v| v.parse().ok());
        files.or_else(|| {
            admin
                .query(&format!(
                    "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = '{}'",
                    db.name
                ))
                .ok()
                .and_then(first_value)
                .and_then(|v| v.parse().ok())
        })
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let opts: Opts = OptsBuilder::from_opts(self.opts.clone()).db_name(Some(&db.name)).into();
        let conn = Conn::new(opts).map_err(|e| {
            my_error(
                &self.label,
                self.server.as_deref(),
                e,
                &format!("connecting to database {}", db.name),
            )
        })?;
        Ok(Box::new(MyConn {
            conn,
            stmts: Vec::new(),
            label: self.label.clone(),
            server: self.server.clone(),
            opts: self.opts.clone(),
        }))
    }

    fn bulk_load_mode(&self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        // This session only; the redo log flushing is global and stays as it is.
        conn.execute_batch("SET SESSION unique_checks = 0, SESSION foreign_key_checks = 0")
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        if stage != Stage::Connect {
            return Ok(());
        }
        let wanted = wanted_settings(knobs, MYSQL_KNOBS);
        let mut ov = self.overrides.lock().unwrap_or_else(|e| e.into_inner());
        let stale: Vec<String> = ov
            .keys()
            .filter(|k| !wanted.iter().any(|(n, _, _)| n == *k))
            .cloned()
            .collect();
        for name in stale {
            if let Some(o) = ov.remove(&name) {
                MysqlEngine::restore(conn, &name, &o).map_err(|mut e| {
                    e.context = format!("putting {name} back to the server's own value");
                    e
                })?;
            }
        }
        for (name, value, knob) in &wanted {
            let knob_error = |mut e: EngineError| {
                e.context = format!("setting --knob {knob}={value} with SET GLOBAL");
                e
            };
            // Every time, not only on change: a new session starts from the global value, a
            // session-only variable from its default, and a restarted server (--cold) from its
            // own settings.
            let original = match ov.get(name) {
                Some(o) => o.original.clone(),
                None => self.original(conn, name)?,
            };
            MysqlEngine::set_both(conn, name, &literal(value)).map_err(knob_error)?;
            ov.insert(
                name.clone(),
                Override {
                    original,
                    current: value.clone(),
                },
            );
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        crate::model::knob::read_back(MYSQL_KNOBS, PASSTHROUGH_PREFIX, knobs, |name, _| {
            if find_spec(MYSQL_KNOBS, name).is_some() {
                conn.query_value(&format!("SELECT @@GLOBAL.{name}"))
            } else {
                // `@@name`: the session value where there is one, else the global value.
                conn.query_value(&format!("SELECT @@{name}"))
            }
        })
    }

    fn knob_hint(&self, knob: &str) -> String {
        if knob.starts_with(PASSTHROUGH_PREFIX) {
            "MariaDB may store the value differently (rounded to a block size, or as a number); give the value as SELECT @@name prints it".into()
        } else if self.url.is_some() {
            "on a server you run, litebench needs the SUPER or SYSTEM_VARIABLES_ADMIN privilege to SET GLOBAL".into()
        } else {
            "the server did not keep the value it was given".into()
        }
    }

    fn device_io(&self) -> Option<DeviceIo> {
        // One process; its threads are summed by the kernel.
        DeviceIo::process_tree(self.server.as_ref()?.pid())
    }

    fn cold_trial(&self) -> Result<String, String> {
        match &self.server {
            Some(_) => Ok("server stopped (InnoDB writes its dirty pages at shutdown), OS page cache dropped, server started again before each trial, with no buffer pool dump or load: the buffer pool starts empty".into()),
            None => Err(cold_refused(&self.label, FLAG)),
        }
    }

    fn make_cold(&self, drop_os_cache: &mut dyn FnMut() -> Result<(), EngineError>) -> Result<(), EngineError> {
        let (Some(server), Some(bin)) = (&self.server, &self.mariadbd_bin) else {
            return Err(crate::engines::server::error(
                &self.label,
                ErrorKind::Other,
                cold_refused(&self.label, FLAG),
                "starting a cold trial",
            ));
        };
        let mut admin = self.admin();
        let cmd = server_command(bin, &server.dir().join("data"), &server.dir().join("tmp"), self.port);
        let conn = cold_restart(&self.label, server, cmd, drop_os_cache, || {
            Conn::new(self.opts.clone()).ok()
        })?;
        admin.conn = conn;
        admin.stmts.clear();
        Ok(())
    }

    fn prepare_settings(&self, knob_sets: &[&KnobSet]) -> Result<(), EngineError> {
        let mut admin = self.admin();
        for ks in knob_sets {
            for (name, _, _) in wanted_settings(ks, MYSQL_KNOBS) {
                self.original(&mut *admin, &name)?;
            }
        }
        Ok(())
    }

    fn restore_settings(&self) -> Vec<String> {
        self.put_back()
    }
}

/// One connection to a MariaDB database.
pub struct MyConn {
    conn: Conn,
    stmts: Vec<Statement>,
    label: String,
    server: Option<Arc<ServerProcess>>,
    /// How to reach the server from a second connection, which stops this one's statement
    /// (`KILL QUERY`; see [`Connection::interrupter`]).
    opts: Opts,
}

/// Maps a client error to an [`EngineError`]; a lost connection to a server that has exited is
/// reported as that.
fn my_error(label: &str, server: Option<&ServerProcess>, e: mysql::Error, context: &str) -> EngineError {
    // A lost connection, or the server saying it shuts down (1053) or killed the connection
    // (1927): first see whether the server itself died.
    let farewell = match &e {
        mysql::Error::MySqlError(m) => matches!(m.code, 1053 | 1927),
        _ => true,
    };
    if let (true, Some(s)) = (farewell, server) {
        if let Some(died) = s.died(Duration::from_millis(500)) {
            return crate::engines::server::error(label, ErrorKind::Io, died, context);
        }
    }
    if let mysql::Error::MySqlError(m) = &e {
        let full =
            m.message.contains("No space left") || m.message.contains("Errcode: 28") || m.message.contains("error 28");
        let kind = match m.code {
            1021 | 1114 => ErrorKind::Full,
            _ if full => ErrorKind::Full,
            1205 | 1213 => ErrorKind::Busy,
            1036 | 1290 | 1792 => ErrorKind::ReadOnly,
            _ => ErrorKind::Other,
        };
        return EngineError {
            // Lock failures keep MariaDB's own kinds (never a SQLite cause).
            busy_cause: match m.code {
                1205 => Some(crate::engines::BusyCause::LockWait),
                1213 => Some(crate::engines::BusyCause::Deadlock),
                _ => None,
            },
            engine: label.to_string(),
            kind,
            code: Some(i32::from(m.code)),
            message: one_line(&format!("{} (error {}, SQLSTATE {})", m.message, m.code, m.state)),
            context: context.to_string(),
        };
    }
    let kind = match &e {
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) | mysql::Error::DriverError(_) => ErrorKind::Io,
        _ => ErrorKind::Other,
    };
    crate::engines::server::error(label, kind, my_message(&e), context)
}

/// The client library's message without its Rust debug wrapping.
fn my_message(e: &mysql::Error) -> String {
    match e {
        mysql::Error::DriverError(d) => one_line(&d.to_string()),
        mysql::Error::IoError(io) => one_line(&io.to_string()),
        other => one_line(&other.to_string()),
    }
}

fn to_mysql(v: &Value<'_>) -> mysql::Value {
    match *v {
        Value::Null => mysql::Value::NULL,
        Value::Int(i) => mysql::Value::Int(i),
        Value::Real(f) => mysql::Value::Double(f),
        Value::Text(s) => mysql::Value::Bytes(s.as_bytes().to_vec()),
        Value::Blob(b) => mysql::Value::Bytes(b.to_vec()),
    }
}

fn to_text(v: &mysql::Value) -> Option<String> {
    match v {
        mysql::Value::NULL => None,
        mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        mysql::Value::Int(i) => Some(i.to_string()),
        mysql::Value::UInt(u) => Some(u.to_string()),
        mysql::Value::Float(f) => Some(f.to_string()),
        mysql::Value::Double(f) => Some(f.to_string()),
        other => Some(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

/// The binary collation: text columns in it hold bytes.
const BINARY_CHARSET: u16 = 63;

/// Appends one value of a binary-protocol result row to `out`; `Err` names what could not be
/// read. DECIMAL arrives as text and is parsed (no allocation).
fn push_value(out: &mut Values, column: &mysql::Column, v: Option<&mysql::Value>) -> Result<(), String> {
    match v {
        None | Some(mysql::Value::NULL) => out.push_null(),
        Some(mysql::Value::Int(i)) => out.push_int(*i),
        Some(mysql::Value::UInt(u)) => match i64::try_from(*u) {
            Ok(i) => out.push_int(i),
            Err(_) => out.push_real(*u as f64),
        },
        Some(mysql::Value::Float(f)) => out.push_real(f64::from(*f)),
        Some(mysql::Value::Double(f)) => out.push_real(*f),
        Some(mysql::Value::Bytes(b)) => match column.column_type() {
            ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
                let (v, scale) =
                    parse_decimal(b).ok_or_else(|| format!("cannot read DECIMAL {:?}", String::from_utf8_lossy(b)))?;
                out.push_decimal(v, scale);
            }
            _ if column.character_set() == BINARY_CHARSET => out.push_blob(b),
            _ => out.push_text(b),
        },
        Some(other) => {
            return Err(format!(
                "cannot read a {:?} value ({other:?}); cast the column, e.g. CAST(x AS CHAR)",
                column.column_type()
            ))
        }
    }
    Ok(())
}

impl MyConn {
    fn err(&self, e: mysql::Error, context: &str) -> EngineError {
        my_error(&self.label, self.server.as_deref(), e, context)
    }
}

impl Connection for MyConn {
    /// MariaDB has no cancel request in its protocol: `KILL QUERY <connection id>` from a
    /// second connection (opened at the first interrupt, kept for the next) stops the
    /// statement this connection runs, which fails with `Query execution was interrupted`; the
    /// connection itself stays open.
    fn interrupter(&self) -> Option<crate::engines::Interrupter> {
        let id = self.conn.connection_id();
        let opts = self.opts.clone();
        let killer: std::sync::Mutex<Option<Conn>> = std::sync::Mutex::new(None);
        Some(Box::new(move || {
            let mut killer = killer.lock().unwrap_or_else(|e| e.into_inner());
            if killer.is_none() {
                *killer = Conn::new(opts.clone()).ok();
            }
            // A server that refused the connection or the kill: the watch tries again.
            if let Some(k) = killer.as_mut() {
                if k.query_drop(format!("KILL QUERY {id}")).is_err() {
                    *killer = None;
                }
            }
        }))
    }

    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.conn
            .query_drop(sql)
            .map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let stmt = self
            .conn
            .prep(sql)
            .map_err(|e| self.err(e, &format!("preparing `{}`", one_line(sql))))?;
        self.stmts.push(stmt);
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        let bound = if params.is_empty() {
            mysql::Params::Empty
        } else {
            mysql::Params::Positional(params.iter().map(to_mysql).collect())
        };
        let counted = (|| -> Result<u64, mysql::Error> {
            let mut result = self.conn.exec_iter(&self.stmts[id.0], bound)?;
            let affected = result.affected_rows();
            let mut rows = 0u64;
            if let Some(set) = result.iter() {
                for r in set {
                    r?;
                    rows += 1;
                }
            }
            Ok(if rows > 0 { rows } else { affected })
        })();
        counted.map_err(|e| self.err(e, "running a prepared statement"))
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        let bound = if params.is_empty() {
            mysql::Params::Empty
        } else {
            mysql::Params::Positional(params.iter().map(to_mysql).collect())
        };
        let read = (|| -> Result<Result<u64, String>, mysql::Error> {
            let mut result = self.conn.exec_iter(&self.stmts[id.0], bound)?;
            let mut rows = 0u64;
            if let Some(set) = result.iter() {
                for r in set {
                    let r = r?;
                    rows += 1;
                    for (i, column) in r.columns_ref().iter().enumerate() {
                        if let Err(m) = push_value(out, column, r.as_ref(i)) {
                            return Ok(Err(m));
                        }
                    }
                }
            }
            Ok(Ok(rows))
        })();
        match read {
            Ok(Ok(rows)) => Ok(rows),
            Ok(Err(message)) => Err(crate::engines::server::error(
                &self.label,
                ErrorKind::Other,
                message,
                "reading a query result",
            )),
            Err(e) => Err(self.err(e, "running a prepared query")),
        }
    }

    fn query_plan(&mut self, sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        // The JSON form is the one tree both MariaDB and MySQL print (the tabular EXPLAIN has
        // no nesting); it comes as one multi-line cell.
        Ok(Some(crate::engines::explain_lines(
            &self.query(&format!("EXPLAIN FORMAT=JSON {sql}"))?,
            None,
        )))
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let rows = (|| -> Result<Vec<Vec<Option<String>>>, mysql::Error> {
            let mut out = Vec::new();
            let mut result = self.conn.query_iter(sql)?;
            while let Some(set) = result.iter() {
                for r in set {
                    let r = r?;
                    out.push((0..r.len()).map(|i| r.as_ref(i).and_then(to_text)).collect());
                }
            }
            Ok(out)
        })();
        rows.map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_quote_all_but_numbers() {
        assert_eq!(literal("1"), "1");
        assert_eq!(literal("-1"), "-1");
        assert_eq!(literal("0.5"), "0.5");
        assert_eq!(literal("O_DIRECT"), "'O_DIRECT'");
        assert_eq!(literal("it's"), "'it''s'");
        assert_eq!(literal("inf"), "'inf'");
    }

    #[test]
    fn result_values_by_column_type() {
        let col = |t| mysql::Column::new(t);
        let mut out = Values::default();
        let decimal = col(ColumnType::MYSQL_TYPE_NEWDECIMAL);
        push_value(&mut out, &decimal, Some(&mysql::Value::Bytes(b"47.3333".to_vec()))).unwrap();
        let text = col(ColumnType::MYSQL_TYPE_VAR_STRING).with_character_set(45);
        push_value(&mut out, &text, Some(&mysql::Value::Bytes(b"ABC".to_vec()))).unwrap();
        let binary = col(ColumnType::MYSQL_TYPE_BLOB).with_character_set(BINARY_CHARSET);
        push_value(&mut out, &binary, Some(&mysql::Value::Bytes(vec![1]))).unwrap();
        let int = col(ColumnType::MYSQL_TYPE_LONG);
        push_value(&mut out, &int, Some(&mysql::Value::UInt(4_000_000_000))).unwrap();
        push_value(&mut out, &int, Some(&mysql::Value::NULL)).unwrap();
        use crate::engines::values::CellRef;
        assert_eq!(
            out.get(0),
            CellRef::Decimal {
                value: 47.3333,
                scale: 4
            }
        );
        assert_eq!(out.get(1), CellRef::Text(b"ABC"));
        assert_eq!(out.get(2), CellRef::Blob(&[1]));
        assert_eq!(out.get(3), CellRef::Int(4_000_000_000));
        assert_eq!(out.get(4), CellRef::Null);
        assert!(push_value(&mut out, &decimal, Some(&mysql::Value::Bytes(b"x".to_vec()))).is_err());
    }

    #[test]
    fn knob_values_canonicalise() {
        let k = &MYSQL_KNOBS[0];
        assert_eq!(k.kind.canonical("2").as_deref(), Some("2"));
        assert!(k.kind.canonical("3").is_none());
        assert_eq!(MYSQL_KNOBS[1].kind.canonical("100").as_deref(), Some("100"));
        assert!(MYSQL_KNOBS[1].kind.canonical("-1").is_none());
    }
}
