//! An external command run beside a trial (a cast's `sidecar` role: Litestream replicating the
//! trial database, a backup script), started, watched and stopped so that it is never left
//! running.
//!
//! Never left running, in three layers: the command runs in a process group of its own (so a
//! stop reaches everything it started that stayed in the group) with `PR_SET_PDEATHSIG`
//! (SIGKILL when the thread that started it ends, which is also when litebench ends, even by
//! `kill -9`); and its pid and start time are written, before the trial goes on, to a record in
//! the scratch directory's `litebench-sidecars/`, so that the next run in that `--dir` or
//! `litebench cleanup` stops a sidecar that a killed litebench left (one that left the group
//! and outlived the death signal) — once the record's litebench is dead and only when the pid's
//! start time is still the recorded one, so a reused pid is never signalled.
//!
//! Stopping is SIGTERM to the group, then SIGKILL after a grace period. Its stdout and stderr
//! are read into one pipe and dropped but for the last line, which names why a sidecar that
//! exited at once did.

use crate::sys::owner::{Liveness, Owner};
use crate::sys::proctree::{self, TreeUsage};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The folder of sidecar records in a scratch base directory.
pub const RECORDS: &str = "litebench-sidecars";

/// How a sidecar ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// It ended by itself before the trial did.
    Exited,
    /// SIGTERM ended it within the grace period.
    Term,
    /// It outlived the grace period after SIGTERM and was killed.
    Kill,
}

impl Stopped {
    pub fn name(&self) -> &'static str {
        match self {
            Stopped::Exited => "exited",
            Stopped::Term => "term",
            Stopped::Kill => "kill",
        }
    }
}

/// A sidecar's end: its pid, its tree's usage, how it ended and its exit status.
#[derive(Debug, Clone, PartialEq)]
pub struct Ended {
    pub pid: u32,
    pub usage: TreeUsage,
    /// `exit 0`, `exit 1`, `signal 15 (SIGTERM)`.
    pub status: String,
    pub stopped: Stopped,
    /// The last line it wrote on stdout or stderr (empty if none).
    pub last_line: String,
}

/// A command that cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum SidecarError {
    #[error("{0}")]
    Spawn(String),
    #[error("cannot write its record in {dir}: {why}")]
    Record { dir: PathBuf, why: String },
}

/// Where `program` is, when it can be run: a path with a `/` as given, a bare name on `PATH`;
/// or why not, in words that end a one-line refusal.
pub fn resolve(program: &str) -> Result<PathBuf, String> {
    if program.is_empty() {
        return Err("the command is empty; give the program first".into());
    }
    if !program.contains('/') {
        return which::which(program)
            .map_err(|_| format!("\"{program}\" is not found on PATH; give its full path, or install it"));
    }
    let path = PathBuf::from(program);
    let meta = std::fs::metadata(&path).map_err(|e| format!("\"{program}\": {e}; give the path of a program"))?;
    if !meta.is_file() {
        return Err(format!("\"{program}\" is not a file; give the path of a program"));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(format!(
            "\"{program}\" is not executable; chmod +x it, or give an executable program"
        ));
    }
    Ok(path)
}

/// What the next run or `cleanup` reads to find a sidecar a killed litebench left.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    /// The litebench that started it.
    owner: Owner,
    /// The sidecar: its pid (also its process group) and start time.
    sidecar: Owner,
    role: String,
    command: Vec<String>,
}

/// A sidecar running beside a trial.
#[derive(Debug)]
pub struct Sidecar {
    pid: u32,
    started: Instant,
    record: PathBuf,
    last_line: Arc<Mutex<String>>,
    reader_done: Arc<std::sync::atomic::AtomicBool>,
    peak: TreeUsage,
}

fn records_dir(base: &Path) -> Result<PathBuf, SidecarError> {
    let dir = base.join(RECORDS);
    let fail = |why: String| SidecarError::Record { dir: dir.clone(), why };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(fail(e.to_string())),
    }
    // Never a link someone else put there.
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| fail(e.to_string()))?;
    if !meta.is_dir() {
        return Err(fail("it is not a directory litebench made".into()));
    }
    Ok(dir)
}

/// Starts `argv` for role `role`, its record written into `base`'s [`RECORDS`].
pub fn spawn(argv: &[String], role: &str, base: &Path) -> Result<Sidecar, SidecarError> {
    let dir = records_dir(base)?;
    let (reader, writer) = std::io::pipe().map_err(|e| SidecarError::Spawn(e.to_string()))?;
    let writer2 = writer.try_clone().map_err(|e| SidecarError::Spawn(e.to_string()))?;
    let mut cmd = std::process::Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .process_group(0);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
    let child = cmd
        .spawn()
        .map_err(|e| SidecarError::Spawn(format!("\"{}\" cannot start: {e}", argv[0])))?;
    // The command's copies of the pipe's write end go with it: the reader sees the end once
    // the sidecar's tree has closed its own.
    drop(cmd);
    let pid = child.id();
    // The child is reaped with wait4 (for its rusage), never through `Child`.
    drop(child);
    let record = dir.join(format!("{pid}.json"));
    let rec = Record {
        owner: Owner::current(),
        sidecar: Owner {
            pid,
            start_time: crate::sys::owner::start_time(pid),
            ..Owner::current()
        },
        role: role.into(),
        command: argv.to_vec(),
    };
    let bytes = serde_json::to_vec(&rec).unwrap_or_default();
    let mut written = crate::base::outfile::write_new(&record, &bytes);
    if written
        .as_ref()
        .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    {
        // Another run's cleanup removed the folder while it was empty: made again, once.
        written = records_dir(base)
            .map_err(|e| std::io::Error::other(e.to_string()))
            .and_then(|_| crate::base::outfile::write_new(&record, &bytes));
    }
    let last_line = Arc::new(Mutex::new(String::new()));
    let reader_done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let (last, done) = (last_line.clone(), reader_done.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(reader).lines() {
                let Ok(line) = line else { break };
                let line = crate::base::control_chars::strip(line.trim()).into_owned();
                if !line.is_empty() {
                    *last.lock().unwrap_or_else(|e| e.into_inner()) = line.chars().take(300).collect();
                }
            }
            done.store(true, std::sync::atomic::Ordering::Release);
        });
    }
    let s = Sidecar {
        pid,
        started: Instant::now(),
        record,
        last_line,
        reader_done,
        peak: TreeUsage::default(),
    };
    if let Err(e) = written {
        let why = e.to_string();
        s.stop(Duration::ZERO);
        return Err(SidecarError::Record { dir, why });
    }
    Ok(s)
}

/// Whether `pid`, a child of this process, has ended (left unreaped, so that /proc still shows
/// its last figures).
fn has_exited(pid: u32, block: bool) -> bool {
    // SAFETY: an all-zero siginfo_t is valid; waitid writes it.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOWAIT | if block { 0 } else { libc::WNOHANG };
    // SAFETY: `info` is a valid siginfo_t to write.
    let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
    // SAFETY: si_pid is set by waitid (zero while none has changed state).
    r == 0 && unsafe { info.si_pid() } != 0
}

/// Reaps `pid`: its exit status in words and its CPU with its waited-for children's.
fn reap(pid: u32) -> (String, Duration) {
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 writes it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `ru` are valid to write.
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut ru) };
    if r != pid as libc::pid_t {
        return ("unknown".into(), Duration::ZERO);
    }
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    let cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
    let words = if libc::WIFEXITED(status) {
        format!("exit {}", libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        let name = match sig {
            libc::SIGTERM => " (SIGTERM)",
            libc::SIGKILL => " (SIGKILL)",
            libc::SIGINT => " (SIGINT)",
            _ => "",
        };
        format!("signal {sig}{name}")
    } else {
        format!("status {status}")
    };
    (words, cpu)
}

fn signal_group(pid: u32, sig: libc::c_int) {
    // SAFETY: kill has no memory preconditions; the group is the sidecar's own, held by its
    // unreaped leader, so its id cannot have been reused.
    unsafe { libc::kill(-(pid as libc::pid_t), sig) };
}

impl Sidecar {
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Reads its tree's usage (kept: the peak of every reading).
    pub fn sample(&mut self) {
        self.peak = self.peak.max(proctree::usage(self.pid));
    }

    /// Waits until `within` after its start: its end, if it ended by then (reaped, its record
    /// removed), else `Err(self)`, still running.
    pub fn exited_within(mut self, within: Duration) -> Result<Ended, Sidecar> {
        while self.started.elapsed() < within {
            if has_exited(self.pid, false) {
                return Ok(self.finish(Stopped::Exited));
            }
            self.sample();
            std::thread::sleep(Duration::from_millis(10));
        }
        if has_exited(self.pid, false) {
            return Ok(self.finish(Stopped::Exited));
        }
        Err(self)
    }

    /// Stops it: SIGTERM to its group, SIGKILL after `grace` if it is still running; its end.
    pub fn stop(mut self, grace: Duration) -> Ended {
        if has_exited(self.pid, false) {
            return self.finish(Stopped::Exited);
        }
        self.sample();
        signal_group(self.pid, libc::SIGTERM);
        let deadline = Instant::now() + grace;
        let mut how = Stopped::Term;
        loop {
            if has_exited(self.pid, false) {
                break;
            }
            if Instant::now() >= deadline {
                signal_group(self.pid, libc::SIGKILL);
                how = Stopped::Kill;
                has_exited(self.pid, true);
                break;
            }
            self.sample();
            std::thread::sleep(Duration::from_millis(10));
        }
        self.finish(how)
    }

    /// Its last reading as a zombie, the rest of its group killed, reaped, its record removed.
    fn finish(mut self, how: Stopped) -> Ended {
        self.sample();
        // What stayed in its group after its leader ended does not outlive it.
        signal_group(self.pid, libc::SIGKILL);
        let (status, cpu) = reap(self.pid);
        let _ = std::fs::remove_file(&self.record);
        // Left empty, the folder goes too (a failure here: another sidecar's record is in it).
        if let Some(dir) = self.record.parent() {
            let _ = std::fs::remove_dir(dir);
        }
        // The reader ends once the last holder of the pipe has gone; a moment for its last line.
        let t0 = Instant::now();
        while !self.reader_done.load(std::sync::atomic::Ordering::Acquire) && t0.elapsed() < Duration::from_millis(200)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        let last_line = self.last_line.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let usage = TreeUsage {
            cpu: self.peak.cpu.max(cpu),
            ..self.peak
        };
        Ended {
            pid: self.pid,
            usage,
            status,
            stopped: how,
            last_line,
        }
    }
}

/// What is left of a recorded sidecar: its process (same pid and start time) or, its leader
/// gone, the members of its process group (a pid is not handed out again while a group of
/// that id has members); none when a process with its pid but another start time leads the
/// group (another process's, never signalled).
fn left_behind(sidecar: &Owner) -> Option<String> {
    let pid = sidecar.pid;
    let leader = crate::sys::owner::start_time(pid);
    if leader.is_some() && sidecar.start_time.is_some() && leader != sidecar.start_time {
        return None;
    }
    if leader.is_some() {
        return Some("still running".into());
    }
    let group = proctree::members(pid).len().saturating_sub(1);
    (group > 0).then(|| format!("{group} process(es) of its group still running"))
}

/// Stops the sidecars that killed runs left, from the records in `base`'s [`RECORDS`]: each
/// whose litebench is dead, and only while the pid still has the recorded start time. One line
/// per sidecar stopped or record removed.
pub fn stop_leftovers(base: &Path) -> Vec<String> {
    let dir = base.join(RECORDS);
    let Ok(meta) = std::fs::symlink_metadata(&dir) else {
        return Vec::new();
    };
    if !meta.is_dir() {
        return Vec::new();
    }
    let mut lines = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return lines;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let mut text = String::new();
        let read = crate::sys::regular::open(&path)
            .map_err(|e| e.to_string())
            .and_then(|mut f| std::io::Read::read_to_string(&mut f, &mut text).map_err(|e| e.to_string()));
        if read.is_err() {
            continue;
        }
        let Ok(rec) = serde_json::from_str::<Record>(&text) else {
            lines.push(format!("left alone: {}: not a sidecar record", path.display()));
            continue;
        };
        if rec.owner.liveness() != Liveness::Dead {
            continue;
        }
        let pid = rec.sidecar.pid;
        if let Some(left) = left_behind(&rec.sidecar) {
            signal_group(pid, libc::SIGTERM);
            let t0 = Instant::now();
            while left_behind(&rec.sidecar).is_some() && t0.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let killed = left_behind(&rec.sidecar).is_some();
            if killed {
                signal_group(pid, libc::SIGKILL);
            }
            lines.push(format!(
                "stopped: sidecar of role \"{}\" (pid {pid}, {}: {left}) a killed run left running{}",
                rec.role,
                rec.command.join(" "),
                if killed { ", killed after SIGTERM" } else { "" }
            ));
        }
        if std::fs::remove_file(&path).is_ok() {
            lines.push(format!("removed: {}", path.display()));
        }
    }
    let _ = std::fs::remove_dir(&dir);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_missing_or_unexecutable_program_is_named_and_a_name_is_found_on_path() {
        assert!(resolve("sh").unwrap().is_absolute());
        let e = resolve("no-such-program-litebench").unwrap_err();
        assert!(e.contains("not found on PATH"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let e = resolve(&script.display().to_string()).unwrap_err();
        assert!(e.contains("is not executable; chmod +x it"), "{e}");
    }

    #[test]
    fn a_sidecar_stops_on_sigterm_and_one_that_ignores_it_is_killed_after_the_grace() {
        let base = tempfile::tempdir().unwrap();
        let s = spawn(&argv(&["sleep", "1000"]), "s", base.path()).unwrap();
        let record = base.path().join(RECORDS).join(format!("{}.json", s.pid()));
        assert!(record.exists(), "its record while it runs");
        let s = s.exited_within(Duration::from_millis(200)).unwrap_err();
        let e = s.stop(Duration::from_secs(5));
        assert_eq!((e.stopped, e.status.as_str()), (Stopped::Term, "signal 15 (SIGTERM)"));
        assert!(!record.exists(), "its record goes with it");
        let s = spawn(
            &argv(&["sh", "-c", "trap '' TERM; echo ready; sleep 1000"]),
            "t",
            base.path(),
        )
        .unwrap();
        let s = s.exited_within(Duration::from_millis(200)).unwrap_err();
        let t0 = Instant::now();
        let e = s.stop(Duration::from_millis(300));
        assert_eq!(e.stopped, Stopped::Kill);
        assert!(e.status.contains("SIGKILL"), "{e:?}");
        assert!(t0.elapsed() >= Duration::from_millis(300));
        assert!(crate::sys::owner::start_time(e.pid).is_none(), "reaped");
        // Its `sleep`, killed with the group, is gone once init has reaped it.
        let t0 = Instant::now();
        while proctree::members(e.pid).len() > 1 && t0.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(proctree::members(e.pid), [e.pid], "nothing of its group is left");
    }

    #[test]
    fn one_that_exits_at_once_gives_its_status_and_last_line() {
        let base = tempfile::tempdir().unwrap();
        let s = spawn(
            &argv(&["sh", "-c", "echo first; echo 'no such database' >&2; exit 3"]),
            "s",
            base.path(),
        )
        .unwrap();
        let e = s.exited_within(Duration::from_millis(200)).unwrap();
        assert_eq!((e.stopped, e.status.as_str()), (Stopped::Exited, "exit 3"));
        assert_eq!(e.last_line, "no such database");
    }
}
