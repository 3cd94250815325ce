//! Clients in processes of their own (`--client-mode processes`): starting one, and being one.
//!
//! A client process is litebench itself, run as `litebench client-process` (hidden) with the
//! trial's client on its standard input as one line of JSON ([`ClientSpec`]): the workload and
//! its parameters, the engine and its knobs, the trial's database, the client's index, the
//! trial's seed and load shape. It opens its own connection to the database file, sets and
//! reads back the knobs like every other client's connection, prepares its statements, and
//! says `ready`. The driver sends `go` to every client process at the common start; each runs
//! its share of the trial exactly as a client thread would (the same loop, schedule and seed)
//! and answers with one line, `report {...}` ([`ClientReport`]) or `error {...}`
//! ([`ClientFailure`]). With `--progress` it also sends its running totals once per interval.
//!
//! Nothing outlives the driver: a client process stops when its standard input closes before
//! `go`, on SIGTERM after it (what [`RemoteClient::stop`] sends), and when the driver's process
//! dies (`PR_SET_PDEATHSIG`). After a stop request, or when it sends no report in time, the
//! driver kills it ([`RemoteClient::kill`]: SIGKILL, which a stopped process cannot hold up).
//! Its standard error is the driver's, so what it says is seen.

use crate::base::Failure;
use crate::engines::registry::EngineChoice;
use crate::engines::DbRef;
use crate::model::knob::KnobSet;
use crate::model::load::LoadShape;
use crate::model::params::Params;
use crate::workload::recorder::Recorder;
use crate::workload::remote::{ClientFailure, ClientReport, Kill, ProgressTotals, RemoteClient};
use crate::workload::{Trial, WorkloadError};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// The hidden subcommand a client process runs.
pub const SUBCOMMAND: &str = "client-process";

/// One client of a trial, as its process is told it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientSpec {
    pub workload: String,
    pub params: Params,
    /// The configuration's `--engine` label.
    pub engine: String,
    pub knobs: KnobSet,
    pub allow_unverified: bool,
    pub db_name: String,
    pub db: Option<PathBuf>,
    /// A server engine's connection URL ([`crate::engines::Engine::process_client_url`]).
    #[serde(default)]
    pub server: Option<String>,
    pub index: u32,
    /// The trial's seed (the client draws from its own, derived from it and its index).
    pub seed: u64,
    pub load: LoadShape,
    /// `--progress` (not part of a stored load shape, so not in `load`'s JSON).
    #[serde(default)]
    pub progress: bool,
    /// `--storage`'s emulated delays, slept in this process as in the driver's.
    #[serde(default)]
    pub storage: Option<crate::model::storage::StorageSpec>,
}

/// A started client process, ready to go.
struct ProcessClient {
    index: u32,
    pid: u32,
    child: Mutex<Child>,
    /// Closed by [`RemoteClient::stop`]: a client still waiting for `go` then ends.
    stdin: Mutex<Option<ChildStdin>>,
    stdout: Mutex<BufReader<ChildStdout>>,
    /// Why the driver killed it, once it did.
    killed: Mutex<Option<Kill>>,
}

fn failed(index: u32, detail: String) -> WorkloadError {
    WorkloadError::Verification {
        workload: format!("client {index}'s process"),
        detail,
    }
}

/// Starts `spec`'s client in a process of its own and waits until it is ready.
pub fn spawn(spec: &ClientSpec) -> Result<Box<dyn RemoteClient>, WorkloadError> {
    let index = spec.index;
    let exe = std::env::current_exe().map_err(|e| failed(index, format!("cannot find litebench's own binary: {e}")))?;
    let mut child = Command::new(&exe)
        .arg(SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| failed(index, format!("cannot start {}: {e}", exe.display())))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(failed(index, "no pipes to the client process".into()));
    };
    let line = serde_json::to_string(spec).map_err(|e| failed(index, e.to_string()))?;
    let client = ProcessClient {
        index,
        pid: child.id(),
        child: Mutex::new(child),
        stdin: Mutex::new(None),
        stdout: Mutex::new(BufReader::new(stdout)),
        killed: Mutex::new(None),
    };
    if writeln!(stdin, "{line}").and_then(|_| stdin.flush()).is_err() {
        return Err(client.ended("before it read its settings"));
    }
    *lock(&client.stdin) = Some(stdin);
    match client.next_line()? {
        Some(Line::Ready) => Ok(Box::new(client)),
        Some(Line::Error(f)) => Err(f.into_error(index, client.pid)),
        Some(_) | None => Err(client.ended("before it was ready")),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A line a client process sends.
enum Line {
    Ready,
    Progress(ProgressTotals),
    Report(Box<ClientReport>),
    Error(ClientFailure),
}

impl Line {
    fn parse(s: &str) -> Option<Line> {
        let (word, rest) = s.split_once(' ').unwrap_or((s, ""));
        match word {
            "ready" => Some(Line::Ready),
            "progress" => {
                let v: Vec<u64> = rest.split(' ').filter_map(|n| n.parse().ok()).collect();
                let t: ProgressTotals = v.try_into().ok()?;
                Some(Line::Progress(t))
            }
            "report" => serde_json::from_str(rest).ok().map(|r| Line::Report(Box::new(r))),
            "error" => serde_json::from_str(rest).ok().map(Line::Error),
            _ => None,
        }
    }
}

impl ProcessClient {
    /// The next line, `None` at the end of its output.
    fn next_line(&self) -> Result<Option<Line>, WorkloadError> {
        let mut s = String::new();
        match lock(&self.stdout).read_line(&mut s) {
            Ok(0) => Ok(None),
            Ok(_) => match Line::parse(s.trim_end()) {
                Some(line) => Ok(Some(line)),
                None => Err(failed(
                    self.index,
                    format!(
                        "process {} sent a line litebench does not know: {}",
                        self.pid,
                        s.trim_end()
                    ),
                )),
            },
            Err(e) => Err(failed(self.index, format!("reading process {}: {e}", self.pid))),
        }
    }

    /// The error for a client process that ended without saying why, with its exit status;
    /// for one the driver killed, why it did.
    fn ended(&self, when: &str) -> WorkloadError {
        match *lock(&self.killed) {
            Some(Kill::Abandoned) => {
                let _ = lock(&self.child).wait();
                return WorkloadError::Interrupted;
            }
            Some(Kill::NoReport(after)) => {
                let _ = lock(&self.child).wait();
                return failed(
                    self.index,
                    format!(
                        "client {} (process {}) sent no report within {:.0} s of the end of the trial's other clients (stopped or hung?), so it was killed and the trial failed",
                        self.index,
                        self.pid,
                        after.as_secs_f64()
                    ),
                );
            }
            None => {}
        }
        let status = lock(&self.child)
            .wait()
            .map(|s| s.to_string())
            .unwrap_or_else(|e| e.to_string());
        failed(self.index, format!("process {} ended {when} ({status})", self.pid))
    }
}

impl RemoteClient for ProcessClient {
    fn pid(&self) -> u32 {
        self.pid
    }

    fn go(&self) -> bool {
        match lock(&self.stdin).as_mut() {
            Some(s) => writeln!(s, "go").and_then(|_| s.flush()).is_ok(),
            None => false,
        }
    }

    fn wait(&self, progress: &dyn Fn(&ProgressTotals)) -> Result<ClientReport, WorkloadError> {
        loop {
            let line = match self.next_line() {
                // Killed in the middle of a line: what it was killed for is the error.
                Err(_) if lock(&self.killed).is_some() => None,
                other => other?,
            };
            match line {
                Some(Line::Progress(t)) => progress(&t),
                Some(Line::Report(r)) => {
                    let _ = lock(&self.child).wait();
                    return Ok(*r);
                }
                Some(Line::Error(f)) => {
                    let _ = lock(&self.child).wait();
                    return Err(f.into_error(self.index, self.pid));
                }
                Some(Line::Ready) | None => return Err(self.ended("without a report")),
            }
        }
    }

    fn kill(&self, why: Kill) {
        lock(&self.killed).get_or_insert(why);
        match self.child.try_lock() {
            Ok(mut child) => {
                if matches!(child.try_wait(), Ok(None)) {
                    let _ = child.kill();
                }
            }
            // A reader holds it while it waits for the process to exit: not reaped yet (the
            // same lock is held until the wait returns).
            Err(_) => {
                // SAFETY: kill has no memory effects; the pid is our own child's, not yet reaped.
                unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGKILL) };
            }
        }
    }

    fn stop(&self) {
        lock(&self.stdin).take();
        let mut child = lock(&self.child);
        if matches!(child.try_wait(), Ok(None)) {
            // SAFETY: kill has no memory effects; the pid is our own child's, not yet reaped.
            unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGTERM) };
        }
    }
}

impl Drop for ProcessClient {
    /// Nothing left running or unreaped: a client the driver did not wait for is killed
    /// (SIGKILL: a stopped process would never act on SIGTERM, and the wait would hang).
    fn drop(&mut self) {
        let mut child = lock(&self.child);
        if matches!(child.try_wait(), Ok(None)) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `litebench client-process`: one client of a trial another litebench process drives.
pub fn child_main() -> Result<i32, Failure> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) only sets this process's parent-death signal.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) };
    let stop = crate::sys::signals::stop_flag()?;
    let out = Mutex::new(std::io::stdout());
    let say = |line: String| {
        let mut o = lock(&out);
        let _ = writeln!(o, "{line}").and_then(|_| o.flush());
    };
    let mut first = String::new();
    std::io::stdin()
        .read_line(&mut first)
        .map_err(|e| Failure(format!("{SUBCOMMAND}: reading its settings: {e}")))?;
    let spec: ClientSpec = serde_json::from_str(first.trim_end())
        .map_err(|e| Failure(format!("{SUBCOMMAND} is litebench's own client process, started by `run --client-mode processes`; its settings did not parse: {e}")))?;
    let result = run_client(&spec, &stop, &say);
    match result {
        Ok(report) => {
            say(format!("report {}", serde_json::to_string(&report).unwrap_or_default()));
            Ok(0)
        }
        Err(e) => {
            say(format!(
                "error {}",
                serde_json::to_string(&ClientFailure::of(&e)).unwrap_or_default()
            ));
            Ok(if matches!(e, WorkloadError::Interrupted) {
                crate::sys::signals::EXIT_INTERRUPTED
            } else {
                2
            })
        }
    }
}

/// No further connections from a client process: it is one client.
struct OneClient;

impl crate::workload::Connector for OneClient {
    fn open(&self) -> Result<Box<dyn crate::engines::Connection>, WorkloadError> {
        Err(failed(0, "a client process opens no further connections".into()))
    }
}

/// The client's engine: SQLite opens the trial's file itself; a PostgreSQL client dials the server
/// its parent configured.
fn open_engine(spec: &ClientSpec, choice: &EngineChoice) -> Result<Box<dyn crate::engines::Engine>, String> {
    if std::ptr::eq(choice.kind, &crate::engines::sqlite::KIND) {
        return crate::engines::sqlite::open_target(choice.target.as_deref(), false).map_err(|e| e.0);
    }
    match &spec.server {
        Some(url) if std::ptr::eq(choice.kind, &crate::engines::postgres::KIND) => Ok(Box::new(
            crate::engines::postgres::PostgresEngine::attach(url, &spec.engine).map_err(|e| e.to_string())?,
        )),
        _ => Err(format!(
            "engine {}: client processes run SQLite and PostgreSQL only",
            spec.engine
        )),
    }
}

fn run_client(
    spec: &ClientSpec,
    stop: &std::sync::atomic::AtomicBool,
    say: &(dyn Fn(String) + Sync),
) -> Result<ClientReport, WorkloadError> {
    let bad = |detail: String| failed(spec.index, detail);
    let workload =
        crate::workload::find(&spec.workload).ok_or_else(|| bad(format!("unknown workload {}", spec.workload)))?;
    let tx = workload
        .transactions()
        .ok_or_else(|| bad(format!("workload {} has no transactions for clients", spec.workload)))?;
    let choice = EngineChoice::parse(&spec.engine).map_err(|e| bad(e.0))?;
    let engine = open_engine(spec, &choice).map_err(bad)?;
    let db = DbRef {
        name: spec.db_name.clone(),
        path: spec.db.clone(),
    };
    let mut conn = crate::bench::connect::connect_configured(engine.as_ref(), &db, &spec.knobs, spec.allow_unverified)?;
    // On once the connection is set up, as the driver's are for its trial.
    let _emulated = spec
        .storage
        .as_ref()
        .filter(|s| s.emulated())
        .map(|s| crate::sys::storage_delay::activate(s.delays, spec.seed));
    let rec = Recorder::of_types(
        &workload.operation_types(&spec.params, choice.kind.dialect),
        engine.io_counters(),
    );
    let load = LoadShape {
        progress: spec.progress,
        ..spec.load.clone()
    };
    let ready = || {
        say("ready".into());
        let mut line = String::new();
        matches!(std::io::stdin().read_line(&mut line), Ok(n) if n > 0) && line.trim_end() == "go"
    };
    let progress = |t: &ProgressTotals| {
        say(format!(
            "progress {} {} {} {} {} {}",
            t[0], t[1], t[2], t[3], t[4], t[5]
        ));
    };
    // A stop request (the terminal's Ctrl-C reaches the whole process group) interrupts its
    // running statement too.
    crate::engines::interrupt::watching(stop, |watch| {
        let _interrupted_on_stop = watch.register(conn.as_ref());
        let trial = Trial {
            load: &load,
            watch: Some(watch),
            ..Trial::plain(&spec.params, spec.seed, stop, &OneClient)
        };
        crate::workload::load::serve(conn.as_mut(), tx, spec.index, &trial, rec, &ready, &progress)
    })
}
