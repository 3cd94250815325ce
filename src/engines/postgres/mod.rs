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
//! - It is the server engine ([`crate::engines::server::engine::ServerEngine`]) in PostgreSQL's
//!   flavour: this file holds what PostgreSQL does its own way (its binaries, `initdb`, the SQL
//!   of databases and settings); `conn.rs` holds the connection (placeholders, values, COPY),
//!   `wire.rs` the blocking client under it (pgbench's client CPU per transaction, not the
//!   `postgres` crate's tokio runtime under every call; URLs are still parsed by that crate).

mod bind;
mod conn;
mod wire;

pub use conn::{copy_escape, translate_placeholders, PgConn};

use crate::engines::server::engine::ServerEngine;
use crate::engines::server::error::ServerError;
use crate::engines::server::flavour::{Binaries, Flavour, Launch};
use crate::engines::server::process::ServerProcess;
use crate::engines::server::{error_chain, first_value, isolation, Override, Overrides, RunAs, PASSTHROUGH_PREFIX};
use crate::engines::{Connection, DbRef, EngineError, ErrorKind};
use crate::model::knob::{find_spec, KnobKind, KnobSpec, ReadBy, Stage};
use crate::sys::scratch::Scratch;
use conn::pg_error;
use postgres::Config;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wire::{WireConn, WireError};

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
    isolation::spec(
        "read-committed",
        "PostgreSQL: the isolation level transactions start with (default_transaction_isolation, set with ALTER SYSTEM); read back from each trial connection (SHOW transaction_isolation) whether set or not",
    ),
];

/// The server setting behind a knob: `isolation` is `default_transaction_isolation`.
fn setting(name: &str) -> &str {
    if name == isolation::KNOB {
        "default_transaction_isolation"
    } else {
        name
    }
}

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
    Ok(Box::new(e.map_err(|e| crate::base::Failure(e.to_string()))?))
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
    "default_transaction_isolation",
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
    if let Some(d) = std::env::var_os(Postgres::LAUNCH.bin_env) {
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

fn find_binaries() -> Result<Binaries, ServerError> {
    let (dir, from_env) = bin_dir();
    let b = Binaries {
        server: dir.join("postgres"),
        init: dir.join("initdb"),
    };
    b.installed(&Postgres::LAUNCH, true, from_env)
}

/// A PostgreSQL server as an engine.
pub type PostgresEngine = ServerEngine<Postgres>;

/// PostgreSQL's flavour of the server engine: how to connect, and the server's version number
/// (which decides the copy strategy and `DROP DATABASE ... WITH (FORCE)`).
pub struct Postgres {
    /// How to connect; the database name is replaced per database.
    config: Config,
    version_num: i64,
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

/// A setting's error with the knob it was for.
fn with_context(mut e: EngineError, context: String) -> EngineError {
    e.context = context;
    e
}

fn restore_sql(name: &str, o: &Override) -> String {
    let name = setting(name);
    match &o.original {
        Some(v) => format!("ALTER SYSTEM SET {name} = '{}'", v.replace('\'', "''")),
        None => format!("ALTER SYSTEM RESET {name}"),
    }
}

impl Flavour for Postgres {
    type Conn = PgConn;
    type Client = WireConn;
    type Error = WireError;

    const LAUNCH: Launch = Launch {
        flag: FLAG,
        system_user: "postgres",
        package: "postgresql",
        port_env: "LITEBENCH_PG_PORT",
        bin_env: "LITEBENCH_PG_BIN",
        dir_name: "postgres",
        process: "postgres",
        init_log: "initdb.log",
        stop_signal: libc::SIGINT,
        death_signal: libc::SIGQUIT,
    };
    const SETTINGS_OF_NOTE: &'static [&'static str] = SETTINGS_OF_NOTE;
    const COLD_TRIAL: &'static str = "server stopped (fast shutdown, which checkpoints), OS page cache dropped, server started again before each trial: shared_buffers start empty";
    // This session only: the template's durability does not matter.
    const BULK_LOAD_MODE: &'static str = "SET synchronous_commit = off";
    const SET_WITH: &'static str = "ALTER SYSTEM";
    const SET_EVERY_TIME: bool = false;
    const HINTS: [&'static str; 3] = [
        "PostgreSQL may spell the value differently (SHOW shows units) or apply the setting only to new sessions; give the value as SHOW prints it",
        "on a server you run, litebench needs the right to ALTER SYSTEM and to reload the configuration (superuser, or GRANT ALTER SYSTEM ON PARAMETER and EXECUTE on pg_reload_conf())",
        "the server did not apply the setting after a configuration reload",
    ];

    fn kind() -> &'static crate::engines::kind::EngineKind {
        &KIND
    }

    fn binaries() -> Result<Binaries, ServerError> {
        find_binaries()
    }

    fn init_command(initdb: &Path, dir: &Path, _run_as: Option<&RunAs>) -> Result<Command, ServerError> {
        let mut cmd = Command::new(initdb);
        cmd.arg("-D").arg(dir.join("data")).args(INITDB_ARGS);
        Ok(cmd)
    }

    fn server_command(postgres: &Path, dir: &Path, port: u16) -> Command {
        let mut cmd = Command::new(postgres);
        cmd.arg("-D").arg(dir.join("data")).arg("-p").arg(port.to_string());
        for s in SERVER_SETTINGS {
            cmd.arg("-c").arg(s);
        }
        cmd
    }

    const PROCESS_CLIENTS: bool = true;

    fn local_url(port: u16) -> String {
        format!("postgresql://{USER}@127.0.0.1:{port}/postgres")
    }

    fn local(port: u16) -> Postgres {
        Postgres {
            config: local_config(port, "postgres"),
            version_num: 0,
        }
    }

    fn launch_details() -> serde_json::Value {
        serde_json::json!({ "initdb_args": INITDB_ARGS, "server_settings": SERVER_SETTINGS })
    }

    fn connect_url(url: &str, _shown: &str) -> Result<(Postgres, WireConn, u16), ServerError> {
        let mut config: Config = url.parse().map_err(|e: postgres::Error| ServerError::NotAUrl {
            server: "PostgreSQL",
            example: "postgres=postgres://user@127.0.0.1:5432/postgres",
            source: e.into(),
        })?;
        if config.get_dbname().is_none() {
            config.dbname("postgres");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        config.application_name("litebench");
        let client = WireConn::connect(&config).map_err(|e| ServerError::Connect {
            detail: error_chain(&e),
            asks: "user, password, database",
            source: e.into(),
        })?;
        let port = config.get_ports().first().copied().unwrap_or(5432);
        Ok((Postgres { config, version_num: 0 }, client, port))
    }

    fn dial(&self, db: Option<&str>) -> Result<WireConn, WireError> {
        match db {
            None => WireConn::connect(&self.config),
            Some(db) => {
                let mut config = self.config.clone();
                config.dbname(db);
                WireConn::connect(&config)
            }
        }
    }

    fn data_directory(client: &mut WireConn) -> Option<String> {
        let mut dir = None;
        client
            .simple("SHOW data_directory", &mut |buf, cells| {
                if let Some(Some(r)) = cells.first() {
                    dir = Some(String::from_utf8_lossy(&buf[r.clone()]).into_owned());
                }
                Ok(())
            })
            .ok()?;
        dir
    }

    fn wrap(&self, client: WireConn, label: &str, server: Option<Arc<ServerProcess>>) -> PgConn {
        PgConn::new(client, label, server)
    }

    fn error(label: &str, server: Option<&ServerProcess>, e: WireError, context: &str) -> EngineError {
        pg_error(label, server, e, context)
    }

    fn read_version(&mut self, admin: &mut PgConn) -> Result<String, EngineError> {
        let version = first_value(admin.query("SELECT version()")?).unwrap_or_default();
        self.version_num = first_value(admin.query("SHOW server_version_num")?)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        Ok(version)
    }

    fn create_sql(&self, db: &str) -> String {
        format!("CREATE DATABASE \"{db}\"")
    }

    fn drop_sql(&self, db: &str) -> String {
        let force = if self.version_num >= 130000 {
            " WITH (FORCE)"
        } else {
            ""
        };
        format!("DROP DATABASE IF EXISTS \"{db}\"{force}")
    }

    fn create_copy(&self, admin: &mut PgConn, from: &DbRef, to: &str) -> Result<(), EngineError> {
        // FILE_COPY (PostgreSQL 15+; the only strategy before) checkpoints before and after the
        // copy; the CHECKPOINT after the commit (`settle_copy`) writes what is left (the
        // commit's own pages), so the trial starts with no dirty buffers and no WAL to catch up
        // on.
        let strategy = if self.version_num >= 150000 {
            " STRATEGY = FILE_COPY"
        } else {
            ""
        };
        admin.execute_batch(&format!(
            "CREATE DATABASE \"{to}\" TEMPLATE \"{}\"{strategy}",
            from.name
        ))
    }

    fn settle_copy(_: &PostgresEngine, admin: &mut PgConn, _from: &DbRef, _to: &DbRef) -> Result<(), EngineError> {
        admin.execute_batch("CHECKPOINT").map_err(|e| with_context(e, "writing the trial copy to disk before timing (CHECKPOINT needs superuser or, on PostgreSQL 15+, the pg_checkpoint role)".into()))
    }

    fn database_size(admin: &mut PgConn, db: &str) -> Option<u64> {
        let rows = admin.query(&format!("SELECT pg_database_size('{db}')")).ok()?;
        first_value(rows)?.parse().ok()
    }

    fn show_sql(name: &str) -> String {
        format!("SHOW {name}")
    }

    /// Refuses settings PostgreSQL only applies at server start: a reload cannot change them.
    fn check_settable(conn: &mut dyn Connection, name: &str, knob: &str, value: &str) -> Result<(), EngineError> {
        let name = setting(name);
        let context = conn
            .query(&format!("SELECT context FROM pg_settings WHERE name = '{name}'"))
            .map(first_value)
            .map_err(|e| {
                with_context(
                    e,
                    format!("checking that --knob {knob}={value} can be set with a configuration reload"),
                )
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

    /// The value `postgresql.auto.conf` holds for `name`, to put back later (`None`: no entry).
    /// A failure to read it is an error: guessing would put back the wrong value.
    fn read_original(conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError> {
        let name = setting(name);
        conn.query(&format!(
            "SELECT setting FROM pg_file_settings WHERE name = '{name}' AND sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1"
        ))
        .map(first_value)
        .map_err(|e| {
            with_context(e, format!(
                "reading {name} in postgresql.auto.conf to put it back after the run (pg_file_settings: superuser, or SELECT on it and EXECUTE on pg_show_all_file_settings())"
            ))
        })
    }

    fn set(conn: &mut dyn Connection, name: &str, value: &str) -> Result<(), EngineError> {
        if name == isolation::KNOB {
            let words = isolation::sql_words(value).to_ascii_lowercase();
            return conn.execute_batch(&format!("ALTER SYSTEM SET {} = '{words}'", setting(name)));
        }
        conn.execute_batch(&format!("ALTER SYSTEM SET {name} = '{value}'"))
    }

    fn restore(conn: &mut dyn Connection, name: &str, o: &Override) -> Result<(), EngineError> {
        conn.execute_batch(&restore_sql(name, o))
    }

    /// Asks the server to re-read its configuration and waits until this session has.
    fn settings_changed(conn: &mut dyn Connection) -> Result<(), EngineError> {
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

    fn read_setting(
        conn: &mut dyn Connection,
        name: &str,
        requested: Option<&str>,
    ) -> Result<Option<String>, EngineError> {
        if name == isolation::KNOB {
            // The level this session's next transaction starts with.
            let shown = conn.query_value("SHOW transaction_isolation")?;
            return Ok(shown.map(|s| isolation::from_server(&s)));
        }
        let shown = conn.query_value(&format!("SHOW {name}"))?;
        if find_spec(POSTGRES_KNOBS, name).is_some() {
            return Ok(shown);
        }
        // SHOW answers with units (64MB); pg_settings in the base unit (8192 for 64MB of 8kB
        // pages). Either spelling of the requested value counts as taking effect.
        let base = conn
            .query_value(&format!("SELECT setting FROM pg_settings WHERE name = '{name}'"))
            .ok()
            .flatten();
        Ok(match (requested, base) {
            (Some(r), Some(b)) if crate::model::knob::passthrough_matches(r, &b) => Some(b),
            _ => shown,
        })
    }

    /// Puts back every setting litebench changed and reloads the configuration.
    fn put_back(admin: &mut PgConn, label: &str, ov: &Overrides) -> Vec<String> {
        let mut warnings = Vec::new();
        let mut put_back = 0;
        for (name, o) in ov {
            let sql = restore_sql(name, o);
            let before = match &o.original {
                Some(v) => format!("'{v}', its postgresql.auto.conf entry before the run"),
                None => "the server's own value (no postgresql.auto.conf entry before the run)".into(),
            };
            match admin.execute_batch(&sql) {
                Ok(()) => put_back += 1,
                Err(e) => warnings.push(format!(
                    "{label}: could not put {name} back to {before} (litebench had set {}): {}; run `{sql}; SELECT pg_reload_conf();` on the server",
                    o.current, e.message
                )),
            }
        }
        if put_back > 0 {
            if let Err(e) = admin.query("SELECT pg_reload_conf()") {
                warnings.push(format!(
                    "{label}: settings put back, but the configuration reload failed: {}; run `SELECT pg_reload_conf();` on the server",
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

    /// A loopback port nothing listens on.
    fn closed_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[test]
    fn a_missing_program_is_named_first_initdb_then_postgres_with_the_variable_that_found_it() {
        let dir = tempfile::tempdir().unwrap();
        let b = || Binaries {
            server: dir.path().join("postgres"),
            init: dir.path().join("initdb"),
        };
        let e = b().installed(&Postgres::LAUNCH, true, true).err().unwrap();
        let want = format!(
            "{}/initdb not found; install the Debian package postgresql or point LITEBENCH_PG_BIN at the directory holding initdb and postgres",
            dir.path().display()
        );
        assert_eq!(e.to_string(), want);
        std::fs::write(dir.path().join("initdb"), "").unwrap();
        let e = b().installed(&Postgres::LAUNCH, true, false).err().unwrap();
        assert!(
            matches!(&e, ServerError::NotInstalled { path, bin_env: None, .. } if path.ends_with("postgres")),
            "{e}"
        );
        std::fs::write(dir.path().join("postgres"), "").unwrap();
        assert!(b().installed(&Postgres::LAUNCH, false, false).is_ok());
    }

    #[test]
    fn a_url_that_does_not_parse_or_connect_keeps_the_clients_error() {
        let Err(e) = Postgres::connect_url("postgres://u@127.0.0.1:notaport/x", "") else {
            panic!("a port that is no number parsed");
        };
        assert!(
            matches!(
                e,
                ServerError::NotAUrl {
                    server: "PostgreSQL",
                    ..
                }
            ),
            "{e:?}"
        );
        let m = e.to_string();
        assert!(
            m.starts_with("not a PostgreSQL connection URL (")
                && m.ends_with("); e.g. postgres=postgres://user@127.0.0.1:5432/postgres"),
            "{m}"
        );
        let url = format!("postgres://litebench@127.0.0.1:{}/postgres", closed_port());
        let Err(e) = Postgres::connect_url(&url, "") else {
            panic!("connected to a closed port");
        };
        let ServerError::Connect { source, .. } = &e else {
            panic!("{e:?}");
        };
        assert!(
            source.downcast_ref::<WireError>().is_some_and(WireError::is_closed),
            "{source:?}"
        );
        let m = e.to_string();
        assert!(
            m.starts_with("cannot connect (")
                && m.ends_with("); check that the server runs and the URL (user, password, database)"),
            "{m}"
        );
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
