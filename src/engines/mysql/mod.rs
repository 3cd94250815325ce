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
//!   counters show a checkpoint past the copy and no dirty page, then the setting back. The
//!   checkpoint is what makes the copy written: InnoDB never moves it past the oldest change of
//!   a page not yet written, so once `Innodb_lsn_last_checkpoint` reaches the LSN at the end
//!   of the copy every page the copy changed is in the data files. Pages dirtied after that
//!   (the purge of an earlier copy's rows, persistent statistics) are not the copy's, and
//!   background work can keep a few dirty for good: the wait for 0 ends when the count has
//!   not fallen for [`DIRTY_SETTLE`]. And an idle server's checkpoint never reaches the LSN
//!   read after it (its own FILE_CHECKPOINT record lies beyond it, and with nothing to write
//!   InnoDB makes no new checkpoint): a clean buffer pool whose checkpoint trails the log by
//!   no more than that record is done too ([`caught_up`]). Without that a copy that wrote
//!   nothing (a script on an empty database) waited out the whole [`FLUSH_TIMEOUT`] unless
//!   something else happened to write, which made a CI test hang now and then.
//! - For cold trials (`--cold`) the throwaway server is stopped and started again around the
//!   OS page cache drop, with the buffer pool dump and load off, so the buffer pool starts
//!   empty; `--cold` is refused for a server the user runs.
//! - The durability knobs are global variables, set with `SET GLOBAL` (and `SET SESSION` where a
//!   variable also has a session value, since the trial's connection already exists) and read
//!   back with `SELECT @@GLOBAL.name`. Variables a configuration does not ask for are put back
//!   to the value they had before litebench first changed them: the global values of every
//!   variable the run will change are read before the first trial, and one that cannot be put
//!   back at the end is reported, never ignored.
//! - It is the server engine ([`crate::engines::server::engine::ServerEngine`]) in MariaDB's
//!   flavour: this file holds what MariaDB does its own way (its binaries, the SQL of databases
//!   and settings, the copy's flush); `conn.rs` holds the connection.

mod conn;

pub use conn::MyConn;

use crate::engines::server::engine::ServerEngine;
use crate::engines::server::error::ServerError;
use crate::engines::server::flavour::{Binaries, Flavour, Launch};
use crate::engines::server::process::ServerProcess;
use crate::engines::server::{first_value, isolation, Override, Overrides, RunAs, PASSTHROUGH_PREFIX};
use crate::engines::{Connection, DbRef, Engine, EngineError, ErrorKind};
use crate::model::knob::{find_spec, KnobKind, KnobSpec, ReadBy, Stage};
use crate::sys::scratch::Scratch;
use conn::{my_error, my_message};
use mysql::consts::CapabilityFlags;
use mysql::{Conn, Opts, OptsBuilder};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long InnoDB gets to write a trial copy to disk before the run stops.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(300);

/// Once the checkpoint has passed the copy, how long the dirty page count may go without
/// falling before the wait stops asking for 0: what stays dirty is background work's.
const DIRTY_SETTLE: Duration = Duration::from_secs(3);

/// How far the log may run ahead of the last checkpoint in a buffer pool with nothing left to
/// write: the checkpoint's own FILE_CHECKPOINT record (16 bytes in MariaDB 10.11), with room
/// to spare, and far below the redo of any copy.
const CHECKPOINT_SLACK: u64 = 512;

/// Whether InnoDB has nothing of the copy left to do: no dirty page (every change is in the
/// data files) and a checkpoint that trails the log by no more than its own record. An idle
/// server's checkpoint never reaches the LSN read after it (the FILE_CHECKPOINT record it
/// writes comes after it, and with nothing to write InnoDB makes no new one), so a copy that
/// wrote nothing, or a wait that began after the last checkpoint, ends here.
fn caught_up(dirty: u64, last_checkpoint: Option<u64>, current: Option<u64>) -> bool {
    matches!((last_checkpoint, current), (Some(c), Some(l)) if dirty == 0 && l.saturating_sub(c) <= CHECKPOINT_SLACK)
}

/// The wait for the dirty page count after the checkpoint: done at 0, or once the count has
/// not fallen below its lowest for [`DIRTY_SETTLE`].
struct DirtySettle {
    lowest: u64,
    since: Instant,
}

impl DirtySettle {
    fn new(dirty: u64, now: Instant) -> DirtySettle {
        DirtySettle {
            lowest: dirty,
            since: now,
        }
    }

    /// Whether the wait is over, with the count read at `now`.
    fn settled(&mut self, dirty: u64, now: Instant) -> bool {
        if dirty < self.lowest {
            self.lowest = dirty;
            self.since = now;
        }
        dirty == 0 || now.duration_since(self.since) >= DIRTY_SETTLE
    }
}

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
    isolation::spec(
        "repeatable-read",
        "MariaDB: the isolation level transactions start with (SET GLOBAL and SESSION TRANSACTION ISOLATION LEVEL); read back from each trial connection (@@transaction_isolation, @@tx_isolation before 11.1) whether set or not",
    ),
];

/// The variable that holds the isolation level at `scope` (`GLOBAL`, `SESSION`), as a
/// literal: `@@transaction_isolation` from MariaDB 11.1 and in MySQL, `@@tx_isolation` before
/// (MySQL 8 has only the first, MariaDB 10 only the second).
fn isolation_value(conn: &mut dyn Connection, scope: &str) -> Result<Option<String>, EngineError> {
    match conn.query_value(&format!("SELECT @@{scope}.transaction_isolation")) {
        Ok(v) => Ok(v),
        Err(_) => conn.query_value(&format!("SELECT @@{scope}.tx_isolation")),
    }
}

/// Sets the isolation level (either spelling) for new connections and this one.
fn set_isolation(conn: &mut dyn Connection, level: &str) -> Result<(), EngineError> {
    let words = isolation::sql_words(level);
    conn.execute_batch(&format!("SET GLOBAL TRANSACTION ISOLATION LEVEL {words}"))?;
    conn.execute_batch(&format!("SET SESSION TRANSACTION ISOLATION LEVEL {words}"))
}

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
    Ok(Box::new(e.map_err(|e| crate::base::Failure(e.to_string()))?))
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
    "tx_isolation",
    "character_set_server",
    "collation_server",
    "version_comment",
];

const FLAG: &str = "mysql";

/// `mariadbd` and `mariadb-install-db`: from `$LITEBENCH_MYSQL_BIN`, else where Debian's
/// mariadb-server puts them.
fn find_binaries() -> Result<Binaries, ServerError> {
    let from_env = std::env::var_os(Mysql::LAUNCH.bin_env).map(PathBuf::from);
    let (server, init) = match &from_env {
        Some(d) => (d.join("mariadbd"), d.join("mariadb-install-db")),
        None => (
            PathBuf::from("/usr/sbin/mariadbd"),
            PathBuf::from("/usr/bin/mariadb-install-db"),
        ),
    };
    Binaries { server, init }.installed(&Mysql::LAUNCH, false, from_env.is_some())
}

/// Statements one connection keeps prepared at most. The client's statement cache closes the
/// least recently used statement on the server once it is full (32 by default), while a
/// workload holds every statement it prepared for the whole trial (a script of 40 statements,
/// TPC-C's 38): its next run failed with `Unknown prepared statement handler`.
const STATEMENTS_KEPT: usize = 1024;

/// Options every litebench connection uses on top of the address and credentials.
fn finish_opts(b: OptsBuilder) -> OptsBuilder {
    b.prefer_socket(false)
        .stmt_cache_size(STATEMENTS_KEPT)
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

/// Makes InnoDB write the trial copy (and every other dirty page) to the data files and
/// checkpoint past it, so the trial does not pay for the copy. `tables` are the copy's and
/// the template's. The wait uses the status counters `Innodb_lsn_last_checkpoint` (until
/// it passes the LSN at the end of the copy: then the copy is written) and
/// `Innodb_buffer_pool_pages_dirty` (then until 0, or until it has not fallen for
/// [`DIRTY_SETTLE`]; on a server litebench did not start, others may keep dirtying pages, so
/// only the checkpoint counts there); a clean buffer pool checkpointed up to the checkpoint's
/// own record ends it at once ([`caught_up`]).
fn flush_copy(engine: &MysqlEngine, admin: &mut MyConn, tables: &[String]) -> Result<(), EngineError> {
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
    let pct = global_value(admin, "innodb_max_dirty_pages_pct")?.unwrap_or_else(|| "90".into());
    admin
        .execute_batch("SET GLOBAL innodb_max_dirty_pages_pct = 0")
        .map_err(|e| with_context(e, "SET GLOBAL innodb_max_dirty_pages_pct = 0 needs the SUPER privilege"))?;
    let deadline = Instant::now() + FLUSH_TIMEOUT;
    let mut settle: Option<DirtySettle> = None;
    let waited = (|| loop {
        let last_checkpoint = status(admin, "Innodb_lsn_last_checkpoint")?;
        let dirty = status(admin, "Innodb_buffer_pool_pages_dirty")?.unwrap_or(0);
        let current = status(admin, "Innodb_lsn_current")?;
        if caught_up(dirty, last_checkpoint, current) {
            return Ok(());
        }
        let checkpoint = match target {
            Some(t) => last_checkpoint.is_some_and(|c| c >= t),
            None => true,
        };
        if checkpoint {
            let now = Instant::now();
            let settle = settle.get_or_insert_with(|| DirtySettle::new(dirty, now));
            // Past the deadline with the copy written: what is left is not the copy's.
            if settle.settled(dirty, now) || !engine.is_throwaway() || now >= deadline {
                return Ok(());
            }
        }
        // A stop request ends the wait (the runner then drops the copy and stores the run as
        // interrupted) rather than holding the run up until InnoDB is done.
        if crate::sys::signals::stop_requested() {
            return Err(crate::engines::server::error(
                engine.label(),
                ErrorKind::Other,
                "a stop was requested".into(),
                context,
            ));
        }
        if Instant::now() >= deadline {
            return Err(crate::engines::server::error(
                engine.label(),
                ErrorKind::Other,
                format!(
                    "InnoDB's checkpoint did not pass the copy within {} s ({dirty} dirty pages left)",
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
        let mut ov = engine.overrides();
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

/// A MariaDB server as an engine.
pub type MysqlEngine = ServerEngine<Mysql>;

/// MariaDB's flavour of the server engine: how to connect.
pub struct Mysql {
    /// How to connect; the database name is set per database.
    opts: Opts,
}

impl Flavour for Mysql {
    type Conn = MyConn;
    type Client = Conn;
    type Error = mysql::Error;

    const LAUNCH: Launch = Launch {
        flag: FLAG,
        system_user: "mysql",
        package: "mariadb-server",
        port_env: "LITEBENCH_MYSQL_PORT",
        bin_env: "LITEBENCH_MYSQL_BIN",
        dir_name: "mariadb",
        process: "mariadbd",
        init_log: "install-db.log",
        stop_signal: libc::SIGTERM,
        death_signal: libc::SIGTERM,
    };
    const SETTINGS_OF_NOTE: &'static [&'static str] = SETTINGS_OF_NOTE;
    const COLD_TRIAL: &'static str = "server stopped (InnoDB writes its dirty pages at shutdown), OS page cache dropped, server started again before each trial, with no buffer pool dump or load: the buffer pool starts empty";
    // This session only; the redo log flushing is global and stays as it is.
    const BULK_LOAD_MODE: &'static str = "SET SESSION unique_checks = 0, SESSION foreign_key_checks = 0";
    const SET_WITH: &'static str = "SET GLOBAL";
    // Every time, not only on change: a new session starts from the global value, a
    // session-only variable from its default, and a restarted server (--cold) from its own
    // settings.
    const SET_EVERY_TIME: bool = true;
    const HINTS: [&'static str; 3] = [
        "MariaDB may store the value differently (rounded to a block size, or as a number); give the value as SELECT @@name prints it",
        "on a server you run, litebench needs the SUPER or SYSTEM_VARIABLES_ADMIN privilege to SET GLOBAL",
        "the server did not keep the value it was given",
    ];

    fn kind() -> &'static crate::engines::kind::EngineKind {
        &KIND
    }

    fn binaries() -> Result<Binaries, ServerError> {
        find_binaries()
    }

    fn init_command(install: &Path, dir: &Path, run_as: Option<&RunAs>) -> Result<Command, ServerError> {
        let tmp = dir.join("tmp");
        std::fs::create_dir(&tmp).map_err(ServerError::io(&tmp, None))?;
        if let Some(who) = run_as {
            std::os::unix::fs::chown(&tmp, Some(who.uid), Some(who.gid)).map_err(ServerError::io(&tmp, None))?;
        }
        let mut cmd = Command::new(install);
        // --no-defaults must come first.
        // The bootstrap server's temporary tables go to the server's own tmp, not /tmp: they
        // are named by process id, and two bootstraps in different PID namespaces sharing one
        // /tmp (containers, sandboxes) collide ("Unknown table 'mysql.tmp_user_sys'").
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", dir.join("data").display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .args(INSTALL_ARGS);
        Ok(cmd)
    }

    fn server_command(mariadbd: &Path, dir: &Path, port: u16) -> Command {
        let mut cmd = Command::new(mariadbd);
        // --no-defaults must come first.
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", dir.join("data").display()))
            .arg(format!("--port={port}"))
            .arg(format!("--tmpdir={}", dir.join("tmp").display()))
            .args(SERVER_ARGS);
        cmd
    }

    fn local_url(port: u16) -> String {
        format!("mysql://root@127.0.0.1:{port}/")
    }

    fn local(port: u16) -> Mysql {
        Mysql { opts: local_opts(port) }
    }

    fn launch_details() -> serde_json::Value {
        serde_json::json!({ "install_db_args": INSTALL_ARGS, "server_args": SERVER_ARGS })
    }

    /// `mysql://user:password@host:port/database`
    fn connect_url(url: &str, _shown: &str) -> Result<(Mysql, Conn, u16), ServerError> {
        let normalised = match url.strip_prefix("mariadb://") {
            Some(rest) => format!("mysql://{rest}"),
            None => url.to_string(),
        };
        let opts = Opts::from_url(&normalised).map_err(|e| ServerError::NotAUrl {
            server: "MySQL",
            example: "mysql=mysql://root@127.0.0.1:3306/",
            source: e.into(),
        })?;
        // The URL's database (if any) only serves to connect; litebench makes its own.
        let opts: Opts = finish_opts(OptsBuilder::from_opts(opts).db_name(None::<String>)).into();
        let conn = Conn::new(opts.clone()).map_err(|e| ServerError::Connect {
            detail: my_message(&e),
            asks: "user, password",
            source: e.into(),
        })?;
        let port = opts.get_tcp_port();
        Ok((Mysql { opts }, conn, port))
    }

    fn dial(&self, db: Option<&str>) -> Result<Conn, mysql::Error> {
        match db {
            None => Conn::new(self.opts.clone()),
            Some(db) => Conn::new(OptsBuilder::from_opts(self.opts.clone()).db_name(Some(db))),
        }
    }

    fn data_directory(client: &mut Conn) -> Option<String> {
        use mysql::prelude::Queryable;
        client.query_first("SELECT @@datadir").ok().flatten()
    }

    fn wrap(&self, conn: Conn, label: &str, server: Option<Arc<ServerProcess>>) -> MyConn {
        MyConn::new(conn, label, server, self.opts.clone())
    }

    fn error(label: &str, server: Option<&ServerProcess>, e: mysql::Error, context: &str) -> EngineError {
        my_error(label, server, e, context)
    }

    fn read_version(&mut self, admin: &mut MyConn) -> Result<String, EngineError> {
        Ok(first_value(admin.query("SELECT version()")?).unwrap_or_default())
    }

    fn create_sql(&self, db: &str) -> String {
        format!("CREATE DATABASE `{db}`")
    }

    fn drop_sql(&self, db: &str) -> String {
        format!("DROP DATABASE IF EXISTS `{db}`")
    }

    /// MariaDB has no database templates: an empty database, filled by `settle_copy`.
    fn create_copy(&self, admin: &mut MyConn, _from: &DbRef, to: &str) -> Result<(), EngineError> {
        admin.execute_batch(&self.create_sql(to))
    }

    /// Each table copied with `CREATE TABLE ... LIKE` and `INSERT ... SELECT`, then written to
    /// disk ([`flush_copy`]).
    fn settle_copy(engine: &MysqlEngine, admin: &mut MyConn, from: &DbRef, to: &DbRef) -> Result<(), EngineError> {
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
        flush_copy(engine, admin, &both)
    }

    fn database_size(admin: &mut MyConn, db: &str) -> Option<u64> {
        // The tablespace files themselves; the table statistics only as a fallback.
        let files = admin
            .query(&format!(
                "SELECT SUM(file_size) FROM information_schema.innodb_sys_tablespaces WHERE name LIKE '{db}/%'"
            ))
            .ok()
            .and_then(first_value)
            .and_then(|v| v.parse().ok());
        files.or_else(|| {
            admin
                .query(&format!(
                    "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = '{db}'"
                ))
                .ok()
                .and_then(first_value)
                .and_then(|v| v.parse().ok())
        })
    }

    fn show_sql(name: &str) -> String {
        format!("SELECT @@GLOBAL.{name}")
    }

    fn read_original(conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError> {
        if name == isolation::KNOB {
            return isolation_value(conn, "GLOBAL").map(|v| v.map(|v| literal(&v)));
        }
        global_value(conn, name)
    }

    fn set(conn: &mut dyn Connection, name: &str, value: &str) -> Result<(), EngineError> {
        if name == isolation::KNOB {
            return set_isolation(conn, value);
        }
        set_both(conn, name, &literal(value))
    }

    fn restore(conn: &mut dyn Connection, name: &str, o: &Override) -> Result<(), EngineError> {
        match &o.original {
            Some(lit) if name == isolation::KNOB => set_isolation(conn, lit),
            Some(lit) => set_both(conn, name, lit),
            None => conn.execute_batch(&format!("SET SESSION {name} = DEFAULT")),
        }
    }

    fn read_setting(
        conn: &mut dyn Connection,
        name: &str,
        _requested: Option<&str>,
    ) -> Result<Option<String>, EngineError> {
        if name == isolation::KNOB {
            // The level this session's next transaction starts with.
            return isolation_value(conn, "SESSION").map(|v| v.map(|v| isolation::from_server(&v)));
        }
        if find_spec(MYSQL_KNOBS, name).is_some() {
            conn.query_value(&format!("SELECT @@GLOBAL.{name}"))
        } else {
            // `@@name`: the session value where there is one, else the global value.
            conn.query_value(&format!("SELECT @@{name}"))
        }
    }

    /// Puts back every global variable litebench changed.
    fn put_back(admin: &mut MyConn, label: &str, ov: &Overrides) -> Vec<String> {
        let mut warnings = Vec::new();
        for (name, o) in ov {
            let Some(lit) = &o.original else { continue };
            let put = if name == isolation::KNOB {
                admin.execute_batch(&format!(
                    "SET GLOBAL TRANSACTION ISOLATION LEVEL {}",
                    isolation::sql_words(lit)
                ))
            } else {
                admin.execute_batch(&format!("SET GLOBAL {name} = {lit}"))
            };
            if let Err(e) = put {
                warnings.push(format!(
                    "{label}: could not put the global variable {name} back to {lit}, its value before the run (litebench had set {}): {}; run `SET GLOBAL {name} = {lit};` on the server",
                    o.current,
                    e.message
                ));
            }
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After the checkpoint, the wait for dirty pages ends at 0 at once, and otherwise only once
    /// the count has gone DIRTY_SETTLE without falling: a count that keeps falling is waited
    /// for, one that background work holds at a few pages is not waited for forever.
    /// MariaDB 10.11 idle after its last checkpoint: `Innodb_lsn_current` 44864,
    /// `Innodb_lsn_last_checkpoint` 44848 for good (its FILE_CHECKPOINT record between them).
    #[test]
    fn a_clean_buffer_pool_checkpointed_up_to_its_own_record_is_caught_up() {
        assert!(caught_up(0, Some(44_848), Some(44_864)));
        assert!(!caught_up(1, Some(44_848), Some(44_864)), "a dirty page is left");
        assert!(
            !caught_up(0, Some(44_848), Some(44_848 + 1_000_000)),
            "a copy's redo is past the checkpoint"
        );
        assert!(!caught_up(0, None, None), "a server without the counters");
    }

    #[test]
    fn the_dirty_page_wait_ends_at_zero_or_once_the_count_stops_falling() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert!(DirtySettle::new(0, t0).settled(0, t0));
        let mut s = DirtySettle::new(500, t0);
        assert!(!s.settled(500, at(1000)));
        assert!(!s.settled(200, at(2900)), "it fell: the clock starts again");
        assert!(!s.settled(201, at(5000)), "2.1 s since it last fell");
        assert!(!s.settled(7, at(5500)), "it fell to 7");
        assert!(!s.settled(9, at(8400)), "2.9 s since it fell to 7");
        assert!(s.settled(9, at(8500)), "3 s without falling below 7");
        let mut z = DirtySettle::new(40, t0);
        assert!(z.settled(0, at(100)));
    }

    #[test]
    fn a_url_that_does_not_parse_or_connect_keeps_the_clients_error() {
        let Err(e) = Mysql::connect_url("mariadb://u@127.0.0.1:notaport/", "") else {
            panic!("a port that is no number parsed");
        };
        assert!(matches!(e, ServerError::NotAUrl { server: "MySQL", .. }), "{e:?}");
        let m = e.to_string();
        assert!(
            m.starts_with("not a MySQL connection URL (") && m.ends_with("); e.g. mysql=mysql://root@127.0.0.1:3306/"),
            "{m}"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let Err(e) = Mysql::connect_url(&format!("mysql://root@127.0.0.1:{port}/"), "") else {
            panic!("connected to a closed port");
        };
        let ServerError::Connect { source, .. } = &e else {
            panic!("{e:?}");
        };
        assert!(source.downcast_ref::<mysql::Error>().is_some(), "{source:?}");
        let m = e.to_string();
        assert!(
            m.starts_with("cannot connect (")
                && m.ends_with("); check that the server runs and the URL (user, password)"),
            "{m}"
        );
    }

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
    fn knob_values_canonicalise() {
        let k = &MYSQL_KNOBS[0];
        assert_eq!(k.kind.canonical("2").as_deref(), Some("2"));
        assert!(k.kind.canonical("3").is_none());
        assert_eq!(MYSQL_KNOBS[1].kind.canonical("100").as_deref(), Some("100"));
        assert!(MYSQL_KNOBS[1].kind.canonical("-1").is_none());
    }
}
