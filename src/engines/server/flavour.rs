//! What one server engine does its own way: a [`Flavour`] (PostgreSQL, MariaDB).
//!
//! [`super::engine::ServerEngine`] is the one server engine: it starts the throwaway server
//! (find the binaries, initialise the data directory, spawn, wait until it takes a connection,
//! try another port if someone took the first), connects to a server the user runs, keeps the
//! maintenance connection, the settings it changed and their originals, and implements every
//! `Engine` method. A flavour holds only what differs between servers: its binaries and their
//! arguments, how a client connects and maps its errors, and the SQL that creates, copies,
//! drops, sizes, sets, shows and puts back.
//!
//! A struct over a trait rather than a trait with provided methods: the state every server
//! engine keeps (the admin connection, the process, the overrides and their originals) then
//! lives in one struct with its lock discipline in one place, and a flavour is a small value
//! (its connection settings, PostgreSQL's version number) with no accessors to write.

use super::engine::ServerEngine;
use super::error::ServerError;
use super::process::ServerProcess;
use super::{Override, Overrides, RunAs};
use crate::engines::kind::EngineKind;
use crate::engines::{Connection, DbRef, EngineError};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// A server's two installed programs.
pub struct Binaries {
    /// The server (`postgres`, `mariadbd`).
    pub server: PathBuf,
    /// What makes a data directory (`initdb`, `mariadb-install-db`).
    pub init: PathBuf,
}

impl Binaries {
    /// The two programs if both are installed, else the refusal naming the first missing one,
    /// `init` looked at first if `init_first` (`from_env`: the paths came from
    /// [`Launch::bin_env`], which the refusal then names).
    pub fn installed(self, l: &Launch, init_first: bool, from_env: bool) -> Result<Binaries, ServerError> {
        let order = if init_first {
            [&self.init, &self.server]
        } else {
            [&self.server, &self.init]
        };
        let Some(missing) = order.into_iter().find(|p| !p.is_file()) else {
            return Ok(self);
        };
        Err(ServerError::NotInstalled {
            path: missing.clone(),
            package: l.package,
            bin_env: from_env.then_some(l.bin_env),
            names: Box::new(order.map(|p| p.file_name().unwrap_or_default().to_string_lossy().into_owned())),
        })
    }
}

/// How a throwaway server is started and stopped.
pub struct Launch {
    /// The `--engine` name, the first word of every message (`postgres`, `mysql`).
    pub flag: &'static str,
    /// The system user the server runs as when litebench runs as root, and its package.
    pub system_user: &'static str,
    pub package: &'static str,
    /// The variable that fixes the port (`LITEBENCH_PG_PORT`).
    pub port_env: &'static str,
    /// The variable that names the directory holding both programs (`LITEBENCH_PG_BIN`).
    pub bin_env: &'static str,
    /// The server directory's name in the scratch directory.
    pub dir_name: &'static str,
    /// The process, as messages name it.
    pub process: &'static str,
    /// The log `init` writes.
    pub init_log: &'static str,
    /// A clean shutdown, and what the server gets if litebench dies.
    pub stop_signal: libc::c_int,
    pub death_signal: libc::c_int,
}

/// What one kind of server does its own way.
pub trait Flavour: Sized + Send + Sync + 'static {
    /// A connection to one database of this server.
    type Conn: Connection + Send + 'static;
    /// The client library's connection, before it is a [`Flavour::Conn`].
    type Client;
    /// The client library's error.
    type Error;

    /// How the throwaway server is started.
    const LAUNCH: Launch;
    /// Server settings recorded in the manifest.
    const SETTINGS_OF_NOTE: &'static [&'static str];
    /// What `--cold` does on the throwaway server.
    const COLD_TRIAL: &'static str;
    /// What a connection runs before a bulk load (this session only).
    const BULK_LOAD_MODE: &'static str;
    /// How a knob is set, for its error's context (`ALTER SYSTEM`, `SET GLOBAL`).
    const SET_WITH: &'static str;
    /// Whether every trial sets its knobs again even if unchanged (MariaDB: a new session
    /// starts from the global value, a session-only variable from its default).
    const SET_EVERY_TIME: bool;
    /// `knob_hint`: for a pass-through setting, on a server the user runs, on the throwaway one.
    const HINTS: [&'static str; 3];

    /// The engine's descriptor.
    fn kind() -> &'static EngineKind;

    // ---- the throwaway server

    /// The installed programs, or the line saying what to install.
    fn binaries() -> Result<Binaries, ServerError>;
    /// The command that makes the data directory inside `dir` (and anything else it needs).
    fn init_command(init: &Path, dir: &Path, run_as: Option<&RunAs>) -> Result<Command, ServerError>;
    /// The server's command line for the server directory `dir`.
    fn server_command(server: &Path, dir: &Path, port: u16) -> Command;
    /// How to connect to the throwaway server on `port`.
    fn local(port: u16) -> Self;
    /// Whether clients in processes of their own may connect to this server: every knob is a
    /// server setting the trial's own connection sets, so a client process only connects and
    /// reads the knobs back.
    const PROCESS_CLIENTS: bool = false;
    /// The URL a client process dials to reach the throwaway server on `port`.
    fn local_url(port: u16) -> String;
    /// What litebench passed to `init` and the server, for the manifest.
    fn launch_details() -> serde_json::Value;

    // ---- a server the user runs

    /// Parses and connects to `url` (`shown`: without its password); `Err` reads after
    /// `--engine NAME=URL: `.
    fn connect_url(url: &str, shown: &str) -> Result<(Self, Self::Client, u16), ServerError>;

    // ---- connections

    /// Connects to database `db` (`None`: the maintenance database).
    fn dial(&self, db: Option<&str>) -> Result<Self::Client, Self::Error>;
    /// The data directory of the server `client` reached (PostgreSQL's `data_directory`,
    /// MariaDB's `@@datadir`): how litebench knows it reached its own throwaway server and
    /// not another program that took the port.
    fn data_directory(client: &mut Self::Client) -> Option<String>;
    /// A connection of the engine `label` on `server`.
    fn wrap(&self, client: Self::Client, label: &str, server: Option<Arc<ServerProcess>>) -> Self::Conn;
    /// Maps a client error; a lost connection to a server that has exited is reported as that.
    fn error(label: &str, server: Option<&ServerProcess>, e: Self::Error, context: &str) -> EngineError;
    /// Reads the server's version (and whatever the flavour keeps of it).
    fn read_version(&mut self, admin: &mut Self::Conn) -> Result<String, EngineError>;

    // ---- databases

    /// `CREATE DATABASE` of `db`.
    fn create_sql(&self, db: &str) -> String;
    /// `DROP DATABASE IF EXISTS` of `db`.
    fn drop_sql(&self, db: &str) -> String;
    /// Creates `to` as a copy of `from`; nothing is left behind on `Err`.
    fn create_copy(&self, admin: &mut Self::Conn, from: &DbRef, to: &str) -> Result<(), EngineError>;
    /// Writes the created copy to disk so the trial does not pay for it (the caller drops the
    /// copy on `Err`).
    fn settle_copy(
        engine: &ServerEngine<Self>,
        admin: &mut Self::Conn,
        from: &DbRef,
        to: &DbRef,
    ) -> Result<(), EngineError>;
    /// The size of database `db` in bytes.
    fn database_size(admin: &mut Self::Conn, db: &str) -> Option<u64>;

    // ---- settings

    /// The query that shows a setting's value.
    fn show_sql(name: &str) -> String;
    /// Refuses a setting this server cannot take between trials.
    fn check_settable(_conn: &mut dyn Connection, _name: &str, _knob: &str, _value: &str) -> Result<(), EngineError> {
        Ok(())
    }
    /// What to put back for `name` after the run (`None`: the flavour's "nothing").
    fn read_original(conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError>;
    /// Sets `name` to `value`.
    fn set(conn: &mut dyn Connection, name: &str, value: &str) -> Result<(), EngineError>;
    /// Puts `name` back as it was.
    fn restore(conn: &mut dyn Connection, name: &str, o: &Override) -> Result<(), EngineError>;
    /// Makes what `set` and `restore` changed take effect.
    fn settings_changed(_conn: &mut dyn Connection) -> Result<(), EngineError> {
        Ok(())
    }
    /// Reads a knob back; `requested` is what the configuration asked for.
    fn read_setting(
        conn: &mut dyn Connection,
        name: &str,
        requested: Option<&str>,
    ) -> Result<Option<String>, EngineError>;
    /// Puts back every setting in `overrides` on the maintenance connection; one line per
    /// failure.
    fn put_back(admin: &mut Self::Conn, label: &str, overrides: &Overrides) -> Vec<String>;
}
