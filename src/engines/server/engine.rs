//! The one server engine: a throwaway server litebench starts, or a server the user runs, as
//! an [`Engine`], whatever the [`Flavour`].
//!
//! It holds what every server engine does the same way: the start (spawn, wait until the
//! server takes a connection, another port if someone took the first), the maintenance
//! connection behind a lock, the databases, the settings a configuration changed with the
//! originals to put back (read before the first trial, so a user's server is left as it was
//! found), cold trials by restarting the server, and putting back on drop.

use super::error::{OpenError, ServerError};
use super::flavour::Flavour;
use super::process::{run_tool, ServerDir, ServerProcess};
use super::{
    choose_port, cold_refused, cold_restart, db_name, run_as, same_dir, wanted_settings, Override, Overrides, RunAs,
    PASSTHROUGH_PREFIX,
};
use crate::engines::{Connection, DbRef, Engine, EngineError, ErrorKind};
use crate::model::knob::{KnobReading, KnobSet, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::listener;
use crate::sys::scratch::Scratch;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How long `init` may take.
const INIT_TIMEOUT: Duration = Duration::from_secs(180);
/// How long a started server may take to accept a connection.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// Starts on another port when the first was taken between the check and the bind.
const START_ATTEMPTS: u32 = 3;

/// Starts of a cold trial's restart while another program holds the port, and the pause
/// between them.
const RESTART_ATTEMPTS: u32 = 5;
const RESTART_PAUSE: Duration = Duration::from_secs(2);
/// What PostgreSQL and MariaDB log when their port is taken.
const ADDRESS_IN_USE: &str = "Address already in use";

/// Connects to the maintenance database of the throwaway `server` on `port`, once that server
/// listens there and only if the server that answers reports its data directory: while it
/// starts, another program may hold the port (another PostgreSQL accepts the same user; a
/// program that never answers would hang the handshake), and a trial must never run there.
fn dial_own<F: Flavour>(flavour: &F, server: &ServerProcess, port: u16) -> Option<F::Client> {
    if !listener::listens(server.pid(), port) {
        return None;
    }
    let mut client = flavour.dial(None).ok()?;
    let reported = F::data_directory(&mut client)?;
    same_dir(&reported, &server.dir().join("data")).then_some(client)
}

/// A start's error as the user reads it: after `--engine FLAG: `.
fn failed<F: Flavour>(source: ServerError) -> OpenError {
    OpenError::Start {
        flag: F::LAUNCH.flag,
        source,
    }
}

/// A database server as an engine.
pub struct ServerEngine<F: Flavour> {
    label: String,
    /// Connected to the maintenance database; creates, copies and drops databases.
    admin: Mutex<F::Conn>,
    /// How to connect, and what the flavour keeps of the server.
    flavour: F,
    /// The throwaway server (`None` for a URL). Dropped after `admin`.
    server: Option<Arc<ServerProcess>>,
    /// The URL, password redacted (`None` for the throwaway server).
    url: Option<String>,
    port: u16,
    run_as: Option<RunAs>,
    version: String,
    overrides: Mutex<Overrides>,
    /// How each setting a configuration of the run changes was before the run, read before
    /// the first trial (the flavour's `None`: no entry, or no global value).
    originals: Mutex<BTreeMap<String, Option<String>>>,
    /// The server binary of the throwaway server, to start it again for cold trials.
    server_bin: Option<PathBuf>,
    /// How a client process reaches this server: the URL as given (password included), or the
    /// throwaway server's. Never printed.
    dial_url: String,
    /// A client process's view of a server its parent configured: it changes no setting and
    /// puts none back, it only reads the knobs back through its own session.
    attached: bool,
}

impl<F: Flavour> ServerEngine<F> {
    /// Starts a throwaway server in the scratch directory.
    pub fn start(scratch: &Scratch) -> Result<ServerEngine<F>, OpenError> {
        let l = &F::LAUNCH;
        let bins = F::binaries().map_err(failed::<F>)?;
        let run_as = run_as(l.system_user, l.package).map_err(failed::<F>)?;
        let (mut port, fixed) = choose_port(l.port_env).map_err(failed::<F>)?;
        let mut dir = ServerDir::create(scratch, l.dir_name, run_as.as_ref()).map_err(failed::<F>)?;
        let init = F::init_command(&bins.init, dir.path(), run_as.as_ref()).map_err(failed::<F>)?;
        run_tool(init, dir.path(), run_as.as_ref(), l.init_log, INIT_TIMEOUT).map_err(failed::<F>)?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let log_at = std::fs::metadata(dir.path().join("server.log")).map_or(0, |m| m.len());
            let cmd = F::server_command(&bins.server, dir.path(), port);
            let server = ServerProcess::spawn(
                l.process,
                cmd,
                dir,
                run_as.as_ref(),
                l.stop_signal,
                l.death_signal,
                "server.log",
            )
            .map_err(|(e, _dir)| failed::<F>(e))?;
            let flavour = F::local(port);
            let mut client = None;
            let ready = server.wait_ready(READY_TIMEOUT, &mut || {
                client = dial_own(&flavour, &server, port);
                client.is_some()
            });
            let retry = !fixed && attempt < START_ATTEMPTS && server.log_since_contains(log_at, ADDRESS_IN_USE);
            match (ready, client) {
                (Ok(()), Some(client)) => {
                    let server = Some(Arc::new(server));
                    let mut engine =
                        ServerEngine::finish(l.flag.to_string(), flavour, client, server, None, port, run_as)
                            .map_err(|source| OpenError::Version { flag: l.flag, source })?;
                    engine.server_bin = Some(bins.server);
                    engine.dial_url = F::local_url(port);
                    return Ok(engine);
                }
                _ if retry => {
                    // Someone took the free port between our check and the server's bind.
                    dir = server.stop_keeping_dir();
                    port = choose_port(l.port_env).map_err(failed::<F>)?.0;
                }
                (Err(e), _) => return Err(failed::<F>(e)),
                (Ok(()), None) => {
                    return Err(failed::<F>(ServerError::NotReady {
                        what: l.process,
                        limit: READY_TIMEOUT,
                        log_tail: None,
                    }))
                }
            }
        }
    }

    /// Connects to a server the user runs.
    pub fn connect_url(url: &str) -> Result<ServerEngine<F>, OpenError> {
        let flag = F::LAUNCH.flag;
        let shown = super::redact_url(url);
        let at = |source: OpenError| OpenError::Url {
            flag,
            shown: shown.clone(),
            source: Box::new(source),
        };
        let (flavour, client, port) = F::connect_url(url, &shown).map_err(|e| at(OpenError::Connect(e)))?;
        let label = format!("{flag}={shown}");
        let mut engine = ServerEngine::finish(label, flavour, client, None, Some(shown.clone()), port, None)
            .map_err(|e| at(OpenError::NoVersion(e)))?;
        engine.dial_url = url.to_string();
        Ok(engine)
    }

    /// A client process's connection to the server its parent runs the trial on (`url` from
    /// [`Engine::process_client_url`]), labelled as the parent labels it. It sets no knob and
    /// puts none back: the parent owns the server's settings.
    pub fn attach(url: &str, label: &str) -> Result<ServerEngine<F>, OpenError> {
        let mut engine = ServerEngine::connect_url(url).map_err(|e| OpenError::Attach(Box::new(e)))?;
        engine.label = label.to_string();
        engine.attached = true;
        Ok(engine)
    }

    fn finish(
        label: String,
        mut flavour: F,
        client: F::Client,
        server: Option<Arc<ServerProcess>>,
        url: Option<String>,
        port: u16,
        run_as: Option<RunAs>,
    ) -> Result<ServerEngine<F>, EngineError> {
        let mut admin = flavour.wrap(client, &label, server.clone());
        let version = flavour.read_version(&mut admin)?;
        Ok(ServerEngine {
            label,
            admin: Mutex::new(admin),
            flavour,
            server,
            url,
            port,
            run_as,
            version,
            overrides: Mutex::new(Overrides::new()),
            originals: Mutex::new(BTreeMap::new()),
            server_bin: None,
            dial_url: String::new(),
            attached: false,
        })
    }

    /// The maintenance connection.
    pub fn admin(&self) -> MutexGuard<'_, F::Conn> {
        self.admin.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The settings litebench changed on the server.
    pub fn overrides(&self) -> MutexGuard<'_, Overrides> {
        self.overrides.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether litebench started this server (and so may expect nobody else on it).
    pub fn is_throwaway(&self) -> bool {
        self.server.is_some()
    }

    /// The data directory of the throwaway server.
    pub fn data_dir(&self) -> Option<PathBuf> {
        self.server.as_ref().map(|s| s.dir().join("data"))
    }

    /// The value to put back for `name`: read before the first trial, or now.
    fn original(&self, conn: &mut dyn Connection, name: &str) -> Result<Option<String>, EngineError> {
        let mut originals = self.originals.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = originals.get(name) {
            return Ok(o.clone());
        }
        let o = F::read_original(conn, name)?;
        originals.insert(name.to_string(), o.clone());
        Ok(o)
    }

    /// Puts back every setting litebench changed (forgetting them either way); one line per
    /// failure.
    fn put_back(&self) -> Vec<String> {
        let ov = std::mem::take(&mut *self.overrides());
        if ov.is_empty() {
            return Vec::new();
        }
        F::put_back(&mut self.admin(), &self.label, &ov)
    }
}

impl<F: Flavour> Drop for ServerEngine<F> {
    fn drop(&mut self) {
        // Normally the runner has put everything back already (`restore_settings`). A server
        // the user runs gets its settings back; the throwaway one is deleted anyway.
        if self.server.is_some() || self.attached {
            return;
        }
        for w in self.put_back() {
            crate::errln!("warning: {w}");
        }
    }
}

impl<F: Flavour> Engine for ServerEngine<F> {
    fn label(&self) -> &str {
        &self.label
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn details(&self) -> Option<serde_json::Value> {
        Some(super::describe(
            &mut *self.admin(),
            F::SETTINGS_OF_NOTE,
            F::show_sql,
            self.data_dir().as_deref(),
            self.port,
            self.url.as_deref(),
            F::launch_details(),
            self.run_as.as_ref(),
        ))
    }

    fn kind(&self) -> &'static crate::engines::kind::EngineKind {
        F::kind()
    }

    fn io_counters(&self) -> Option<Arc<IoCounters>> {
        None
    }

    fn create_database(&self, _scratch: &Scratch, name: &str) -> Result<DbRef, EngineError> {
        let db = db_name(name);
        self.admin().execute_batch(&self.flavour.create_sql(&db))?;
        Ok(DbRef { name: db, path: None })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let to = DbRef {
            name: db_name(name),
            path: None,
        };
        let mut admin = self.admin();
        self.flavour.create_copy(&mut admin, from, &to.name)?;
        if let Err(e) = F::settle_copy(self, &mut admin, from, &to) {
            drop(admin);
            self.drop_database(scratch, &to);
            return Err(e);
        }
        Ok(to)
    }

    fn drop_database(&self, _scratch: &Scratch, db: &DbRef) {
        let _ = self.admin().execute_batch(&self.flavour.drop_sql(&db.name));
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        F::database_size(&mut self.admin(), &db.name)
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let client = self.flavour.dial(Some(&db.name)).map_err(|e| {
            F::error(
                &self.label,
                self.server.as_deref(),
                e,
                &format!("connecting to database {}", db.name),
            )
        })?;
        Ok(Box::new(self.flavour.wrap(client, &self.label, self.server.clone())))
    }

    fn bulk_load_mode(&self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        conn.execute_batch(F::BULK_LOAD_MODE)
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        if stage != Stage::Connect || self.attached {
            return Ok(());
        }
        let wanted = wanted_settings(knobs, F::kind().knobs);
        let mut ov = self.overrides();
        let mut changed = false;
        let stale: Vec<String> = ov
            .keys()
            .filter(|k| !wanted.iter().any(|(n, _, _)| n == *k))
            .cloned()
            .collect();
        for name in stale {
            if let Some(o) = ov.remove(&name) {
                F::restore(conn, &name, &o).map_err(|mut e| {
                    e.context = format!("putting {name} back to the server's own value");
                    e
                })?;
                changed = true;
            }
        }
        for (name, value, knob) in &wanted {
            if !F::SET_EVERY_TIME && ov.get(name).is_some_and(|o| &o.current == value) {
                continue;
            }
            let original = match ov.get(name) {
                Some(o) => o.original.clone(),
                None => {
                    F::check_settable(conn, name, knob, value)?;
                    self.original(conn, name)?
                }
            };
            F::set(conn, name, value).map_err(|mut e| {
                e.context = format!("setting --knob {knob}={value} with {}", F::SET_WITH);
                e
            })?;
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
            F::settings_changed(conn)?;
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        crate::model::knob::read_back(F::kind().knobs, PASSTHROUGH_PREFIX, knobs, |name, requested| {
            F::read_setting(conn, name, requested)
        })
    }

    fn knob_hint(&self, knob: &str) -> String {
        let [passthrough, user_server, throwaway] = F::HINTS;
        if knob.starts_with(PASSTHROUGH_PREFIX) {
            passthrough.into()
        } else if self.url.is_some() {
            user_server.into()
        } else {
            throwaway.into()
        }
    }

    fn process_client_url(&self) -> Option<String> {
        (F::PROCESS_CLIENTS && !self.dial_url.is_empty()).then(|| self.dial_url.clone())
    }

    fn device_io(&self) -> Option<DeviceIo> {
        // The server and every process it forked (PostgreSQL's backends and workers).
        DeviceIo::process_tree(self.server.as_ref()?.pid())
    }

    fn cold_trial(&self) -> Result<String, String> {
        match &self.server {
            Some(_) => Ok(F::COLD_TRIAL.into()),
            None => Err(cold_refused(&self.label, F::LAUNCH.flag)),
        }
    }

    fn make_cold(&self, drop_os_cache: &mut dyn FnMut() -> Result<(), EngineError>) -> Result<(), EngineError> {
        let (Some(server), Some(bin)) = (&self.server, &self.server_bin) else {
            return Err(super::error(
                &self.label,
                ErrorKind::Other,
                cold_refused(&self.label, F::LAUNCH.flag),
                "starting a cold trial",
            ));
        };
        let mut admin = self.admin();
        let mut attempt = 0;
        let client = loop {
            attempt += 1;
            let log_at = server.log_len();
            let cmd = F::server_command(bin, server.dir(), self.port);
            match cold_restart(&self.label, server, cmd, drop_os_cache, || {
                dial_own(&self.flavour, server, self.port)
            }) {
                Ok(client) => break client,
                // Something took the port while the server was stopped: wait for a passing
                // holder to let go; the port cannot change mid-run (the manifest and the
                // client processes name it).
                Err(e) if server.log_since_contains(log_at, ADDRESS_IN_USE) => {
                    if attempt >= RESTART_ATTEMPTS {
                        return Err(super::error(
                            &self.label,
                            ErrorKind::Io,
                            format!(
                                "port {} on 127.0.0.1 was taken by another program while the server was stopped for a cold trial (still taken after {attempt} starts over {}s; {}); set {} to a port nothing else uses",
                                self.port,
                                RESTART_PAUSE.as_secs() * u64::from(attempt - 1),
                                e.message,
                                F::LAUNCH.port_env
                            ),
                            "restarting the server for a cold trial (--cold)",
                        ));
                    }
                    std::thread::sleep(RESTART_PAUSE);
                }
                Err(e) => return Err(e),
            }
        };
        // The old connection died with the old process.
        *admin = self.flavour.wrap(client, &self.label, self.server.clone());
        Ok(())
    }

    fn prepare_settings(&self, knob_sets: &[&KnobSet]) -> Result<(), EngineError> {
        let mut admin = self.admin();
        for ks in knob_sets {
            for (name, value, knob) in wanted_settings(ks, F::kind().knobs) {
                F::check_settable(&mut *admin, &name, &knob, &value)?;
                self.original(&mut *admin, &name)?;
            }
        }
        Ok(())
    }

    fn restore_settings(&self) -> Vec<String> {
        self.put_back()
    }
}
