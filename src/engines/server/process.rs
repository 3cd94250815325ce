//! A server process litebench started, and the directory it lives in.
//!
//! A benchmark run that ends on an error or on Ctrl-C must not leave a database server running
//! or gigabytes of data directory behind, so both are owned values that clean up on `Drop`:
//!
//! - [`ServerDir`] is a directory litebench creates in the run's scratch directory (owned by
//!   the server's system user when litebench runs as root); dropping it removes it with
//!   everything the server wrote there.
//! - [`ServerProcess`] is the running server, in its own process group so that a Ctrl-C in the
//!   terminal reaches litebench only (litebench then finishes its trial bookkeeping and stops
//!   the server itself). Dropping it asks the server to shut down, waits a bounded time, then
//!   kills it and any of its helper processes (found by their working directory inside the
//!   server directory), and only then removes the directory. It can also be restarted in place
//!   (same directory, port and settings) for cold trials, which need an empty buffer pool.
//! - The server also gets a parent-death signal, so even a `kill -9` of litebench stops it,
//!   and (when litebench runs as root) a System V IPC namespace of its own, so its shared memory
//!   goes with its last process however it ends.
//!
//! A server that exits while litebench still needs it is reported in one line with the tail of
//! its log ([`ServerProcess::died`]).

use super::error::{describe_status, ServerError};
use super::RunAs;
use crate::sys::scratch::Scratch;
use std::ffi::c_int;
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a server gets to shut down before it is killed.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(20);

/// A directory for one server inside the run's scratch directory; removed on drop.
#[derive(Debug)]
pub struct ServerDir {
    path: PathBuf,
    scratch_dir: PathBuf,
}

impl ServerDir {
    /// Creates `<scratch>/<name>`, owned by `owner` when given (the server's system user).
    pub fn create(scratch: &Scratch, name: &str, owner: Option<&RunAs>) -> Result<ServerDir, ServerError> {
        let scratch_dir = scratch.dir().to_path_buf();
        if let Some(who) = owner {
            // The run directory is litebench's own; the server's user must be able to enter it.
            // Nothing above it is changed: if a parent is closed, say so.
            let _ = fs::set_permissions(&scratch_dir, fs::Permissions::from_mode(0o755));
            super::check_reachable(&scratch_dir, who)?;
        }
        let path = scratch_dir.join(name);
        fs::create_dir(&path).map_err(ServerError::io(
            &path,
            Some("cannot create the server directory".into()),
        ))?;
        let dir = ServerDir { path, scratch_dir };
        if let Some(who) = owner {
            let doing = format!("cannot hand it to user {}", who.name);
            std::os::unix::fs::chown(&dir.path, Some(who.uid), Some(who.gid))
                .map_err(ServerError::io(&dir.path, Some(doing)))?;
        }
        fs::set_permissions(&dir.path, fs::Permissions::from_mode(0o700)).map_err(ServerError::io(&dir.path, None))?;
        Ok(dir)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ServerDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
        // The run directory goes too once it is empty (the scratch directory itself may already
        // have been released by then); a non-empty one is left to its owner.
        let _ = fs::remove_dir(&self.scratch_dir);
    }
}

/// Prepares a command to run in its own process group as `run_as`, killed with `death_signal`
/// if litebench dies, with its output appended to `log`.
fn prepare(
    cmd: &mut Command,
    dir: &Path,
    run_as: Option<&RunAs>,
    death_signal: c_int,
    log: &Path,
) -> Result<(), ServerError> {
    let out = File::options()
        .create(true)
        .append(true)
        .open(log)
        .map_err(ServerError::io(log, None))?;
    let err = out.try_clone().map_err(ServerError::io(log, None))?;
    cmd.process_group(0)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let ids = run_as.map(|r| (r.uid, r.gid));
    let parent = std::process::id();
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe calls
    // (unshare, setgroups, setgid, setuid, prctl, getppid).
    unsafe {
        cmd.pre_exec(move || {
            // A private System V IPC namespace (root only; elsewhere this fails and is skipped):
            // the kernel removes the server's shared memory segments when its last process
            // exits, even after a SIGKILL, when PostgreSQL itself cannot.
            let _ = libc::unshare(libc::CLONE_NEWIPC);
            if let Some((uid, gid)) = ids {
                if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(gid) != 0 || libc::setuid(uid) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            // After the user switch, which would clear it.
            if libc::prctl(libc::PR_SET_PDEATHSIG, death_signal as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::other("litebench exited"));
            }
            Ok(())
        })
    };
    Ok(())
}

/// How many of a log's last lines [`log_tail`] looks through for the error that ended it.
const TAIL_LINES: usize = 10;

/// The line of a log file that says why the program ended, shortened, or `None`: the last
/// `FATAL:` (PostgreSQL) or `[ERROR]` (MariaDB) line among its last [`TAIL_LINES`], else the
/// last non-empty line.
pub fn log_tail(log: &Path) -> Option<String> {
    let f = File::open(log).ok()?;
    let mut tail = std::collections::VecDeque::with_capacity(TAIL_LINES + 1);
    for l in BufReader::new(f).lines().map_while(Result::ok) {
        if !l.trim().is_empty() {
            tail.push_back(l);
            if tail.len() > TAIL_LINES {
                tail.pop_front();
            }
        }
    }
    // PostgreSQL ends a failed start with `database system is shut down` after the FATAL
    // line that says why.
    let last = tail
        .iter()
        .rev()
        .find(|l| l.contains("FATAL:") || l.contains("[ERROR]"))
        .or_else(|| tail.back())?;
    let line = super::one_line(last);
    Some(if line.chars().count() > 300 {
        format!("{}...", line.chars().take(300).collect::<String>())
    } else {
        line
    })
}

fn program_name(cmd: &Command) -> String {
    Path::new(cmd.get_program())
        .file_name()
        .map_or_else(|| "the program".into(), |n| n.to_string_lossy().into_owned())
}

/// Runs a one-shot tool (initdb, mariadb-install-db) in `dir` to completion, at most `timeout`.
/// Its output goes to `dir/<log_name>`; a failure names the tool and the last line it printed.
pub fn run_tool(
    mut cmd: Command,
    dir: &Path,
    run_as: Option<&RunAs>,
    log_name: &str,
    timeout: Duration,
) -> Result<(), ServerError> {
    let name = program_name(&cmd);
    let log = dir.join(log_name);
    prepare(&mut cmd, dir, run_as, libc::SIGKILL, &log)?;
    let mut child = cmd.spawn().map_err(spawn_error(&cmd, false))?;
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                // SAFETY: the tool leads its own process group, which only it and its helpers joined.
                unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
                let _ = child.wait();
                return Err(ServerError::ToolTimeout {
                    tool: name,
                    limit: timeout,
                });
            }
        }
    };
    if status.success() {
        return Ok(());
    }
    Err(ServerError::ToolFailed {
        tool: name,
        status,
        log_tail: log_tail(&log),
    })
}

/// A program `cmd` that did not start (`again`: on a restart).
fn spawn_error(cmd: &Command, again: bool) -> impl FnOnce(std::io::Error) -> ServerError {
    let program = cmd.get_program().to_string_lossy().into_owned();
    move |source| ServerError::Spawn { program, again, source }
}

/// A running server that litebench started.
#[derive(Debug)]
pub struct ServerProcess {
    /// `postgres`, `mariadbd`.
    what: &'static str,
    child: Mutex<Child>,
    /// The current process (it changes when the server is restarted).
    pid: AtomicU32,
    log: PathBuf,
    /// Asks for a clean shutdown (PostgreSQL: SIGINT, fast shutdown; MariaDB: SIGTERM).
    stop_signal: c_int,
    death_signal: c_int,
    run_as: Option<RunAs>,
    /// Dropped after the server has stopped.
    dir: Option<ServerDir>,
}

impl ServerProcess {
    /// Starts `cmd` as the server of `dir`. On failure the directory is handed back.
    pub fn spawn(
        what: &'static str,
        mut cmd: Command,
        dir: ServerDir,
        run_as: Option<&RunAs>,
        stop_signal: c_int,
        death_signal: c_int,
        log_name: &str,
    ) -> Result<ServerProcess, (ServerError, ServerDir)> {
        let log = dir.path().join(log_name);
        if let Err(e) = prepare(&mut cmd, dir.path(), run_as, death_signal, &log) {
            return Err((e, dir));
        }
        match cmd.spawn() {
            Ok(child) => Ok(ServerProcess {
                what,
                pid: AtomicU32::new(child.id()),
                child: Mutex::new(child),
                log,
                stop_signal,
                death_signal,
                run_as: run_as.cloned(),
                dir: Some(dir),
            }),
            Err(e) => Err((spawn_error(&cmd, false)(e), dir)),
        }
    }

    /// The server's current process id.
    pub fn pid(&self) -> u32 {
        self.pid.load(Ordering::Relaxed)
    }

    /// Stops the server cleanly (as on drop), runs `between` while it is stopped, and starts
    /// `cmd` in its place with the same directory, user, signals and log. The caller waits
    /// until it accepts connections ([`ServerProcess::wait_ready`]).
    pub fn restart(&self, mut cmd: Command, between: &mut dyn FnMut()) -> Result<(), ServerError> {
        self.stop();
        between();
        prepare(&mut cmd, self.dir(), self.run_as.as_ref(), self.death_signal, &self.log)?;
        let child = cmd.spawn().map_err(spawn_error(&cmd, true))?;
        self.pid.store(child.id(), Ordering::Relaxed);
        *self.child.lock().unwrap_or_else(|e| e.into_inner()) = child;
        Ok(())
    }

    /// The server's directory.
    pub fn dir(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new("/nonexistent"), |d| d.path())
    }

    /// The last line of the server's log.
    pub fn log_tail(&self) -> Option<String> {
        log_tail(&self.log)
    }

    /// Whether the log contains `needle`.
    pub fn log_contains(&self, needle: &str) -> bool {
        self.log_since_contains(0, needle)
    }

    /// The log's length in bytes now, to read what a later start adds ([`ServerProcess::log_since_contains`]).
    pub fn log_len(&self) -> u64 {
        fs::metadata(&self.log).map_or(0, |m| m.len())
    }

    /// Whether what the log gained after byte `from` contains `needle`.
    pub fn log_since_contains(&self, from: u64, needle: &str) -> bool {
        fs::read(&self.log).is_ok_and(|b| {
            let from = usize::try_from(from).unwrap_or(usize::MAX).min(b.len());
            String::from_utf8_lossy(&b[from..]).contains(needle)
        })
    }

    /// The exit status, if the server has exited.
    fn exit_status(&self) -> Option<ExitStatus> {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        child.try_wait().ok().flatten()
    }

    /// If the server has exited (waiting up to `grace` for it to finish exiting): one line
    /// saying so, with how it ended and the last line of its log.
    pub fn died(&self, grace: Duration) -> Option<String> {
        let deadline = Instant::now() + grace;
        let status = loop {
            if let Some(s) = self.exit_status() {
                break s;
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        Some(format!(
            "the {} server (pid {}) exited unexpectedly ({}){}",
            self.what,
            self.pid(),
            describe_status(status),
            self.log_tail()
                .map_or(String::new(), |t| format!("; its log ends: {t}"))
        ))
    }

    /// Waits until `ready` says the server accepts connections (true), at most `timeout`.
    pub fn wait_ready(&self, timeout: Duration, ready: &mut dyn FnMut() -> bool) -> Result<(), ServerError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.exit_status() {
                return Err(ServerError::Exited {
                    what: self.what,
                    status,
                    log_tail: self.log_tail(),
                });
            }
            if ready() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(ServerError::NotReady {
                    what: self.what,
                    limit: timeout,
                    log_tail: self.log_tail(),
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server and hands its directory back (to start it again, e.g. on another port).
    pub fn stop_keeping_dir(mut self) -> ServerDir {
        self.stop();
        self.dir
            .take()
            .expect("a server owns its directory until it is dropped")
    }

    /// Clean shutdown within [`STOP_TIMEOUT`], else SIGKILL; then kills any helper process still
    /// working in the server directory.
    fn stop(&self) {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(child.try_wait(), Ok(None)) {
            // SAFETY: signalling our own, not yet reaped, child.
            unsafe { libc::kill(child.id() as libc::pid_t, self.stop_signal) };
            let deadline = Instant::now() + STOP_TIMEOUT;
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        drop(child);
        if let Some(d) = &self.dir {
            kill_stragglers(d.path());
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
        // `dir` is dropped after this, removing the data directory.
    }
}

/// Kills every process whose working directory is inside `dir`: helpers of a server that was
/// killed (PostgreSQL's backends and background workers run in the data directory, each in its
/// own process group). Waits until they are gone, at most a few seconds.
fn kill_stragglers(dir: &Path) {
    let find = || -> Vec<libc::pid_t> {
        let Ok(entries) = fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
            .filter(|pid| {
                let alive = fs::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
                    .unwrap_or(false);
                alive && fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let pids = find();
        if pids.is_empty() || Instant::now() >= deadline {
            return;
        }
        for pid in pids {
            // SAFETY: a helper of the server we started, identified by its working directory.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(script: &str, timeout: Duration) -> Result<(), ServerError> {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        run_tool(cmd, dir.path(), None, "tool.log", timeout)
    }

    #[test]
    fn a_tool_that_fails_keeps_its_status_and_the_line_that_says_why() {
        let e = tool("echo 'FATAL: no room'; echo done; exit 3", Duration::from_secs(30)).unwrap_err();
        assert!(
            matches!(&e, ServerError::ToolFailed { tool, status, log_tail: Some(t) }
                if tool == "sh" && status.code() == Some(3) && t == "FATAL: no room"),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "sh failed (exit status 3): FATAL: no room");
        let e = tool("sleep 10", Duration::from_millis(100)).unwrap_err();
        assert!(matches!(e, ServerError::ToolTimeout { .. }), "{e:?}");
        assert_eq!(e.to_string(), "sh did not finish within 0s");
        assert!(tool("exit 0", Duration::from_secs(30)).is_ok());
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-tool");
        let e = run_tool(
            Command::new(&missing),
            dir.path(),
            None,
            "tool.log",
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(
            matches!(&e, ServerError::Spawn { again: false, source, .. } if source.kind() == std::io::ErrorKind::NotFound),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "cannot run {}: {}",
                missing.display(),
                std::io::Error::from_raw_os_error(2)
            )
        );
    }
}
