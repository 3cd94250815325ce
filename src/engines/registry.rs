//! The engines litebench can run, by `--engine` name: parsing, knob tables and opening.
//!
//! Knob tables are known from the name alone, so every `--knob` is validated before any
//! library is loaded or server started.

use crate::commands::Failure;
use crate::engines::mysql::{MysqlEngine, MYSQL_KNOBS};
use crate::engines::postgres::{PostgresEngine, POSTGRES_KNOBS};
use crate::engines::server::PASSTHROUGH_PREFIX as SERVER_PASSTHROUGH;
use crate::engines::sqlite::engine::{SqliteChoice, SqliteEngine};
use crate::engines::Engine;
use crate::knob::{KnobSpec, PASSTHROUGH_PREFIX, SQLITE_KNOBS};
use crate::scratch::Scratch;
use std::path::PathBuf;

/// An `--engine` value, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineChoice {
    Sqlite(SqliteChoice),
    /// A throwaway PostgreSQL server (`None`) or the server at a URL.
    Postgres(Option<String>),
    /// A throwaway MariaDB server (`None`) or the server at a URL.
    Mysql(Option<String>),
    /// Embedded DuckDB (only in builds with the `duckdb` feature).
    Duckdb,
}

/// Every engine kind's knob table and pass-through prefix, for `litebench list`.
pub fn knob_tables() -> Vec<(&'static str, &'static [KnobSpec], &'static str)> {
    #[allow(unused_mut)]
    let mut v: Vec<(&'static str, &'static [KnobSpec], &'static str)> = vec![
        ("sqlite", SQLITE_KNOBS, PASSTHROUGH_PREFIX),
        ("postgres", POSTGRES_KNOBS, SERVER_PASSTHROUGH),
        ("mysql", MYSQL_KNOBS, SERVER_PASSTHROUGH),
    ];
    #[cfg(feature = "duckdb")]
    v.push((
        "duckdb",
        crate::engines::duckdb::DUCKDB_KNOBS,
        crate::engines::duckdb::PREFIX,
    ));
    v
}

/// The URL of `postgres=URL` / `mysql=URL`, which must not be empty.
fn url_of(s: &str, prefix: &str) -> Result<String, Failure> {
    let url = s[prefix.len()..].trim();
    if url.is_empty() {
        let example = if prefix == "postgres=" {
            "postgres=postgres://user@127.0.0.1:5432/postgres"
        } else {
            "mysql=mysql://root@127.0.0.1:3306/"
        };
        return Err(Failure(format!(
            "--engine {s}: missing server URL; e.g. {example}, or leave out the URL to let litebench start a throwaway server"
        )));
    }
    Ok(url.to_string())
}

/// Engines a build of litebench can name, with how to use them (for `list` and errors).
pub const ENGINES: &[(&str, &str)] = &[
    (
        "sqlite",
        "the bundled SQLite (pinned version; flags in docs/sqlite-build.md)",
    ),
    (
        "sqlite:<path>",
        "another SQLite build loaded from a shared library, e.g. sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
    ),
    (
        "postgres",
        "a throwaway PostgreSQL server on 127.0.0.1, made with the installed initdb in the scratch directory and removed after the run (Debian package postgresql)",
    ),
    (
        "postgres=<url>",
        "a PostgreSQL server you run, e.g. postgres=postgres://user:password@127.0.0.1:5432/postgres",
    ),
    (
        "mysql",
        "a throwaway MariaDB server on 127.0.0.1, made with the installed mariadb-install-db in the scratch directory and removed after the run (Debian package mariadb-server); alias mariadb",
    ),
    (
        "mysql=<url>",
        "a MariaDB/MySQL server you run, e.g. mysql=mysql://root:password@127.0.0.1:3306/",
    ),
    (
        "duckdb",
        "embedded DuckDB, one thread by default (needs a build with --features duckdb, about 25 minutes on 2 cores)",
    ),
];

fn valid() -> String {
    format!(
        "valid engines: {}",
        ENGINES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
    )
}

impl EngineChoice {
    /// Parses one `--engine` value.
    pub fn parse(s: &str) -> Result<EngineChoice, Failure> {
        match s {
            "sqlite" => Ok(EngineChoice::Sqlite(SqliteChoice::Bundled)),
            _ if s.starts_with("sqlite:") => {
                let p = &s["sqlite:".len()..];
                if p.is_empty() {
                    return Err(Failure(format!(
                        "--engine {s}: missing library path; e.g. sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
                    )));
                }
                Ok(EngineChoice::Sqlite(SqliteChoice::Library(PathBuf::from(p))))
            }
            "postgres" => Ok(EngineChoice::Postgres(None)),
            "mysql" | "mariadb" => Ok(EngineChoice::Mysql(None)),
            _ if s.starts_with("postgres=") => Ok(EngineChoice::Postgres(Some(url_of(s, "postgres=")?))),
            _ if s.starts_with("mysql=") => Ok(EngineChoice::Mysql(Some(url_of(s, "mysql=")?))),
            _ if s.starts_with("mariadb=") => Ok(EngineChoice::Mysql(Some(url_of(s, "mariadb=")?))),
            "duckdb" if cfg!(feature = "duckdb") => Ok(EngineChoice::Duckdb),
            "duckdb" => Err(Failure(format!(
                "--engine {s}: this build of litebench has no DuckDB; rebuild with `cargo build --release --features duckdb` (builds DuckDB from source, about 25 minutes on 2 cores)"
            ))),
            "fs" => Err(Failure(format!(
                "--engine {s}: not available in this build of litebench yet; {}",
                valid()
            ))),
            _ => Err(Failure(format!("--engine {s}: unknown engine; {}", valid()))),
        }
    }

    /// The engine's knob table and pass-through prefix.
    pub fn knob_table(&self) -> (&'static [KnobSpec], &'static str) {
        match self {
            EngineChoice::Sqlite(_) => (SQLITE_KNOBS, PASSTHROUGH_PREFIX),
            EngineChoice::Postgres(_) => (POSTGRES_KNOBS, SERVER_PASSTHROUGH),
            EngineChoice::Mysql(_) => (MYSQL_KNOBS, SERVER_PASSTHROUGH),
            #[cfg(feature = "duckdb")]
            EngineChoice::Duckdb => (crate::engines::duckdb::DUCKDB_KNOBS, crate::engines::duckdb::PREFIX),
            #[cfg(not(feature = "duckdb"))]
            EngineChoice::Duckdb => (&[], "set."),
        }
    }

    /// Loads the library or starts the server (servers keep their data under `scratch`).
    pub fn open(&self, scratch: &Scratch, memory: bool) -> Result<Box<dyn Engine>, Failure> {
        match self {
            EngineChoice::Sqlite(c) => Ok(Box::new(SqliteEngine::open(c, memory)?)),
            EngineChoice::Postgres(None) => Ok(Box::new(PostgresEngine::start(scratch).map_err(Failure)?)),
            EngineChoice::Postgres(Some(url)) => Ok(Box::new(PostgresEngine::connect_url(url).map_err(Failure)?)),
            EngineChoice::Mysql(None) => Ok(Box::new(MysqlEngine::start(scratch).map_err(Failure)?)),
            EngineChoice::Mysql(Some(url)) => Ok(Box::new(MysqlEngine::connect_url(url).map_err(Failure)?)),
            #[cfg(feature = "duckdb")]
            EngineChoice::Duckdb => Ok(Box::new(crate::engines::duckdb::DuckEngine::open()?)),
            #[cfg(not(feature = "duckdb"))]
            EngineChoice::Duckdb => Err(Failure("--engine duckdb: this build of litebench has no DuckDB".into())),
        }
    }

    /// Whether it can run on in-memory databases (`--memory`).
    pub fn supports_memory(&self) -> bool {
        matches!(self, EngineChoice::Sqlite(_))
    }
}
