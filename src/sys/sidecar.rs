//! An external command run beside a trial (a cast's `sidecar` role: Litestream replicating the
//! trial database, a backup script), started, watched and stopped so that it is never left
//! running.
//!
//! Never left running, in three layers: the command runs in a process group of its own with
//! `PR_SET_PDEATHSIG` (SIGKILL when the thread that started it ends, which is also when
//! litebench ends, even by `kill -9`), and its whole tree is held by a
//! [`crate::sys::contain::Container`] (a cgroup of its own, or a token in its environment), so
//! what leaves the group (`setsid`) is stopped with it; and its container is written, before
//! the command can run, to a record in the scratch directory's `litebench-sidecars/` (its pid
//! and start time replace that record once it has started; each written whole, by a rename), so
//! that the next run in that `--dir` or `litebench cleanup` stops a tree that a killed
//! litebench left — once the record's litebench is dead.
//!
//! Those records make litebench (often root) send signals, so they are believed only when
//! nobody else can have written them: the base directory passes [`crate::sys::confine::check_base`],
//! the records' folder is this user's, mode 0700, each record this user's regular file, mode
//! 0600, with both start times (or, written before its command started, neither pid nor start
//! time, and only its container is acted on); no pid ≤ 1 is ever signalled, and a process group only while
//! its leader has the recorded start time (a reused pid is never signalled).
//!
//! The program is checked as code this user runs ([`crate::sys::trusted::open_given`]: this
//! user's or root's, writable by nobody else) and executed from the descriptor that was checked.
//!
//! Stopping is SIGTERM to the group, then SIGKILL to the whole tree after a grace period, or at
//! once when a stop is requested (Ctrl-C, SIGTERM). Its stdout and stderr are read into one
//! pipe and dropped but for the last line, which names why a sidecar that exited at once did.

use crate::sys::contain::{Container, Hold};
use crate::sys::owner::{Liveness, Owner};
use crate::sys::proctree::{self, TreeUsage};
use crate::sys::trusted::{self, Becomes, Checked};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::MetadataExt;
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
/// or why not, in words that end a one-line refusal. The program is opened and checked as code
/// this user runs ([`trusted::open_given`]).
pub fn resolve(program: &str) -> Result<PathBuf, String> {
    open_program(program).map(|(path, _)| path)
}

/// [`resolve`], and the program open and checked, to be executed from that descriptor.
fn open_program(program: &str) -> Result<(PathBuf, Checked), String> {
    let path = find(program)?;
    let checked = trusted::open_given(&path, Becomes::Program).map_err(|e| e.to_string())?;
    Ok((path, checked))
}

fn find(program: &str) -> Result<PathBuf, String> {
    if program.is_empty() {
        return Err("the command is empty; give the program first".into());
    }
    if !program.contains('/') {
        return which::which(program)
            .or_else(|_| cached(program).ok_or(()))
            .map_err(|_| {
                format!(
                    "\"{program}\" is not found on PATH nor in litebench's cache; give its full path, or install it"
                )
            });
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

/// Programs litebench's cache may hold, built there by `tests/sidecar/fetch-litestream.sh` as
/// `CACHE/NAME/VERSION/bin/NAME`: found by name where `PATH` has none.
const CACHED_PROGRAMS: &[&str] = &["litestream"];

/// `program` in litebench's cache (the newest version there), when it is one the cache may hold
/// and every directory on the way to it passes the cache's trust check.
fn cached(program: &str) -> Option<PathBuf> {
    if !CACHED_PROGRAMS.contains(&program) {
        return None;
    }
    cached_in(&crate::sys::cachedir::root().ok()?, program)
}

/// [`cached`] in the cache `root`.
fn cached_in(root: &Path, program: &str) -> Option<PathBuf> {
    let dir = root.join(program);
    let mut versions: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin").join(program))
        .filter(|p| p.is_file())
        .collect();
    // `v0.5.17` and the like: the newest by its numbers.
    let numbers = |p: &PathBuf| -> Vec<u64> {
        p.parent()
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .map(|n| {
                n.to_string_lossy()
                    .trim_start_matches('v')
                    .split('.')
                    .map(|x| x.parse().unwrap_or(0))
                    .collect()
            })
            .unwrap_or_default()
    };
    versions.sort_by_key(numbers);
    let found = versions.pop()?;
    crate::sys::trusted::check_dir(root, found.parent()?).ok()?;
    Some(found)
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
    /// What holds its whole tree (none in records of older litebench versions).
    #[serde(default)]
    hold: Option<Hold>,
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
    container: Box<Container>,
}

/// Why a records folder or a record is not believed (it could be another user's).
fn not_own_dir(dir: &Path) -> Option<String> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) => return Some(e.to_string()),
    };
    if !meta.is_dir() {
        return Some("it is not a directory litebench made".into());
    }
    let me = crate::sys::own_file::euid();
    if meta.uid() != me {
        return Some(format!("it belongs to uid {}, not to this user (uid {me})", meta.uid()));
    }
    if meta.mode() & 0o077 != 0 {
        return Some(format!(
            "its mode is {:04o}, not 0700: other users could put records in it",
            meta.mode() & 0o7777
        ));
    }
    None
}

fn records_dir(base: &Path) -> Result<PathBuf, SidecarError> {
    let dir = base.join(RECORDS);
    let fail = |why: String| SidecarError::Record { dir: dir.clone(), why };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(fail(e.to_string())),
    }
    // Never a link, nor a folder someone else put there.
    if let Some(why) = not_own_dir(&dir) {
        return Err(fail(format!("{why}; remove it")));
    }
    Ok(dir)
}

/// Starts `argv` for role `role`, its record written into `base`'s [`RECORDS`].
pub fn spawn(argv: &[String], role: &str, base: &Path) -> Result<Sidecar, SidecarError> {
    let dir = records_dir(base)?;
    let Some(program) = argv.first() else {
        return Err(SidecarError::Spawn(
            "the command is empty; give the program first".into(),
        ));
    };
    let (_, checked) = open_program(program).map_err(SidecarError::Spawn)?;
    let (reader, writer) = std::io::pipe().map_err(|e| SidecarError::Spawn(e.to_string()))?;
    let writer2 = writer.try_clone().map_err(|e| SidecarError::Spawn(e.to_string()))?;
    // Executed from the descriptor that was checked: nothing swapped in after the check runs.
    let fd = std::os::fd::AsRawFd::as_raw_fd(checked.file());
    let mut cmd = std::process::Command::new(checked.loader_path());
    cmd.arg0(program)
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .process_group(0);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            // A script's interpreter opens the program again by its `/proc/self/fd` name.
            libc::fcntl(fd, libc::F_SETFD, 0);
            Ok(())
        });
    }
    let container = Container::new();
    container.enter(&mut cmd);
    // The record exists before the command can run: first naming only what holds its tree (its
    // pid is known once it has started), so that a litebench killed at any moment after the
    // fork leaves a record `cleanup` can act on, never a command without one.
    let record_of = |sidecar: Owner| Record {
        owner: Owner::current(),
        sidecar,
        role: role.into(),
        command: argv.to_vec(),
        hold: Some(container.hold().clone()),
    };
    let pending = dir.join(format!(
        "pending-{}-{}.json",
        std::process::id(),
        PENDING.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let unstarted = Owner {
        pid: 0,
        start_time: None,
        ..Owner::current()
    };
    if let Err(e) = write_record(base, &pending, &record_of(unstarted)) {
        container.kill_all(Duration::from_secs(1));
        return Err(SidecarError::Record {
            dir,
            why: e.to_string(),
        });
    }
    let child = cmd.spawn().map_err(|e| {
        container.kill_all(Duration::from_secs(1));
        let _ = std::fs::remove_file(&pending);
        SidecarError::Spawn(format!("\"{program}\" cannot start: {e}"))
    })?;
    drop(checked);
    // The command's copies of the pipe's write end go with it: the reader sees the end once
    // the sidecar's tree has closed its own.
    drop(cmd);
    let pid = child.id();
    // The child is reaped with wait4 (for its rusage), never through `Child`.
    drop(child);
    let record = dir.join(format!("{pid}.json"));
    let started = Owner {
        pid,
        start_time: crate::sys::owner::start_time(pid),
        ..Owner::current()
    };
    let written = write_record(base, &record, &record_of(started));
    if written.is_ok() {
        let _ = std::fs::remove_file(&pending);
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
        container: Box::new(container),
    };
    if let Err(e) = written {
        let why = e.to_string();
        s.stop(Duration::ZERO);
        return Err(SidecarError::Record { dir, why });
    }
    Ok(s)
}

/// Numbers the records written before their sidecar's pid is known, within this process.
static PENDING: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Writes `rec` at `path` (in `base`'s [`RECORDS`]) whole or not at all: into a new file only
/// this user can read or write (0600), renamed into place once written, so that a litebench
/// killed while writing leaves no half record for `cleanup` to misread. The folder is made
/// again, once, where another run's cleanup removed it while it was empty.
fn write_record(base: &Path, path: &Path, rec: &Record) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(rec).map_err(std::io::Error::other)?;
    let part = path.with_extension("json.part");
    let mut written = write_new(&part, &bytes);
    if written
        .as_ref()
        .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    {
        written = records_dir(base)
            .map_err(|e| std::io::Error::other(e.to_string()))
            .and_then(|_| write_new(&part, &bytes));
    }
    written.and_then(|()| std::fs::rename(&part, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&part);
    })
}

/// Writes `bytes` into a new file only this user can read or write (0600).
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    f.write_all(bytes)
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
    // Never -1 (every process) nor -0 (litebench's own group).
    if pid <= 1 {
        return;
    }
    // SAFETY: kill has no memory preconditions; the group is the sidecar's own, held by its
    // unreaped leader (or, for a record, checked to have the recorded start time).
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

    /// Stops it: SIGTERM to its group, SIGKILL to its whole tree after `grace` if it is still
    /// running, or as soon as a stop is requested (the grace is no reason to hold a stop up);
    /// its end.
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
            if Instant::now() >= deadline || crate::sys::signals::stop_requested() {
                signal_group(self.pid, libc::SIGKILL);
                self.container.kill_all(Duration::from_secs(2));
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
        // What stayed in its group, or left it, after its leader ended does not outlive it.
        signal_group(self.pid, libc::SIGKILL);
        let tree_cpu = self.container.cpu();
        self.container.kill_all(Duration::from_secs(2));
        let (status, cpu) = reap(self.pid);
        let cpu = cpu.max(tree_cpu.unwrap_or_default());
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

/// What is left of a recorded sidecar's leader: still running (same pid and start time), or
/// none (gone, or the pid now another process's, never signalled).
fn leader_left(sidecar: &Owner) -> bool {
    sidecar.pid > 1
        && sidecar.start_time.is_some()
        && crate::sys::owner::start_time(sidecar.pid) == sidecar.start_time
        && !crate::sys::owner::is_zombie(sidecar.pid)
}

/// Why a record cannot be believed, if it cannot.
fn untrusted(rec: &Record) -> Option<&'static str> {
    if rec.owner.start_time.is_some() && unstarted(rec) {
        return None;
    }
    if rec.owner.start_time.is_none() || rec.sidecar.start_time.is_none() {
        return Some("it lacks its litebench's or its sidecar's start time");
    }
    if rec.sidecar.pid <= 1 || rec.owner.pid <= 1 {
        return Some("it names pid 0 or 1");
    }
    None
}

/// Whether `rec` was written before its sidecar started (pid 0, no start time): it is acted on
/// only through what holds the tree it names, never by a pid.
fn unstarted(rec: &Record) -> bool {
    rec.sidecar.pid == 0 && rec.sidecar.start_time.is_none() && rec.hold.is_some()
}

/// Stops the sidecars that killed runs left, from the records in `base`'s [`RECORDS`]: each
/// whose litebench is dead; its group only while its leader has the recorded start time, and
/// its whole tree through what held it. Records are read only where nobody else can have
/// written them (see the module's doc); one line per sidecar stopped, record removed or
/// records left alone.
pub fn stop_leftovers(base: &Path) -> Vec<String> {
    let dir = base.join(RECORDS);
    let Ok(meta) = std::fs::symlink_metadata(&dir) else {
        return Vec::new();
    };
    if let Err(e) = crate::sys::confine::check_base(base) {
        return vec![format!("left alone: {}: {e}", dir.display())];
    }
    if !meta.is_dir() {
        return vec![format!("left alone: {}: not a directory litebench made", dir.display())];
    }
    if let Some(why) = not_own_dir(&dir) {
        return vec![format!(
            "left alone: {}: {why}, so its records could be another user's; remove it",
            dir.display()
        )];
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
        let own = match crate::sys::own_file::open(&path) {
            Ok(own) => own,
            Err(why) => {
                lines.push(format!("left alone: {}: {why}", path.display()));
                continue;
            }
        };
        let mode = own.file.metadata().map(|m| m.mode() & 0o777).unwrap_or(0o777);
        if mode & 0o077 != 0 {
            lines.push(format!(
                "left alone: {}: its mode is {mode:04o}, not 0600, so it could be another user's",
                path.display()
            ));
            continue;
        }
        let mut text = String::new();
        let mut file = &own.file;
        if std::io::Read::read_to_string(&mut file, &mut text).is_err() {
            continue;
        }
        let Ok(rec) = serde_json::from_str::<Record>(&text) else {
            lines.push(format!("left alone: {}: not a sidecar record", path.display()));
            continue;
        };
        if let Some(why) = untrusted(&rec) {
            lines.push(format!("left alone: {}: {why}", path.display()));
            continue;
        }
        if rec.owner.liveness() != Liveness::Dead {
            continue;
        }
        let pid = rec.sidecar.pid;
        let leader = leader_left(&rec.sidecar);
        let tree = rec.hold.as_ref().map_or(0, crate::sys::contain::running);
        if leader || tree > 0 {
            let mut killed = false;
            if leader {
                signal_group(pid, libc::SIGTERM);
                let t0 = Instant::now();
                while leader_left(&rec.sidecar) && t0.elapsed() < Duration::from_secs(2) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                if leader_left(&rec.sidecar) {
                    signal_group(pid, libc::SIGKILL);
                    killed = true;
                }
            }
            let held = tree > 0
                && rec
                    .hold
                    .as_ref()
                    .is_some_and(|h| crate::sys::contain::kill_held(h, Duration::from_secs(2)));
            if leader || held {
                let left = match (leader, tree) {
                    (true, 0) => "still running".to_string(),
                    (_, n) => format!("{n} process(es) of its tree still running"),
                };
                let pid = if unstarted(&rec) {
                    "started as its run was killed".to_string()
                } else {
                    format!("pid {pid}")
                };
                lines.push(format!(
                    "stopped: sidecar of role \"{}\" ({pid}, {}: {left}) a killed run left running{}",
                    crate::base::control_chars::strip(&rec.role),
                    crate::base::control_chars::strip(&rec.command.join(" ")),
                    if killed { ", killed after SIGTERM" } else { "" }
                ));
            }
        }
        if own.still_the_same(&path) && std::fs::remove_file(&path).is_ok() {
            lines.push(format!("removed: {}", path.display()));
        }
    }
    let _ = std::fs::remove_dir(&dir);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

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

    /// A process group of its own (`sleep`), as a victim a forged record would name.
    fn victim() -> std::process::Child {
        std::process::Command::new("sleep")
            .arg("1000")
            .process_group(0)
            .spawn()
            .unwrap()
    }

    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
    }

    /// A record as another user could plant it: a dead owner, the victim's pid.
    fn forged(victim: u32, start_times: bool) -> String {
        let dead = Owner {
            pid: 4_000_000,
            start_time: start_times.then_some(1),
            ..Owner::current()
        };
        let sidecar = Owner {
            pid: victim,
            start_time: if start_times {
                crate::sys::owner::start_time(victim)
            } else {
                None
            },
            ..Owner::current()
        };
        serde_json::to_string(&Record {
            owner: dead,
            sidecar,
            role: "x".into(),
            command: vec!["harmless".into()],
            hold: None,
        })
        .unwrap()
    }

    fn plant(base: &Path, dir_mode: u32, file_mode: u32, text: &str) -> PathBuf {
        let dir = base.join(RECORDS);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(dir_mode)).unwrap();
        let f = dir.join("1.json");
        std::fs::write(&f, text).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(file_mode)).unwrap();
        f
    }

    /// Records anyone else could have written are never believed: a folder others can write
    /// (or in a base others can write), a file not 0600, one without start times, pid 1.
    #[test]
    fn a_planted_record_never_makes_litebench_signal() {
        let mut v = victim();
        let base = tempfile::tempdir().unwrap();
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let cases: Vec<(u32, u32, String, &str)> = vec![
            (0o777, 0o600, forged(v.id(), true), "not 0700"),
            (0o700, 0o644, forged(v.id(), true), "not 0600"),
            (
                0o700,
                0o600,
                forged(v.id(), false),
                "lacks its litebench's or its sidecar's start time",
            ),
            (
                0o700,
                0o600,
                forged(1, true).replace("\"start_time\":null", "\"start_time\":1"),
                "pid 0 or 1",
            ),
        ];
        for (dir_mode, file_mode, text, why) in cases {
            let f = plant(base.path(), dir_mode, file_mode, &text);
            let lines = stop_leftovers(base.path());
            assert!(
                lines.iter().any(|l| l.starts_with("left alone: ") && l.contains(why)),
                "{why}: {lines:?}"
            );
            assert!(alive(v.id()), "{why}: the victim's group was not signalled");
            assert!(f.exists(), "{why}: the record is left where it was");
            std::fs::remove_dir_all(base.path().join(RECORDS)).unwrap();
        }
        // A base directory others can write (without the sticky bit) is not read at all.
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        plant(base.path(), 0o700, 0o600, &forged(v.id(), true));
        let lines = stop_leftovers(base.path());
        assert!(
            lines.iter().any(|l| l.contains("other users can write to it")),
            "{lines:?}"
        );
        assert!(alive(v.id()));
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        // As root, a folder another user owns is theirs, whatever its mode.
        if crate::sys::own_file::euid() == 0 {
            std::fs::remove_dir_all(base.path().join(RECORDS)).unwrap();
            plant(base.path(), 0o700, 0o600, &forged(v.id(), true));
            std::os::unix::fs::chown(base.path().join(RECORDS), Some(65534), None).unwrap();
            let lines = stop_leftovers(base.path());
            assert!(lines.iter().any(|l| l.contains("belongs to uid 65534")), "{lines:?}");
            assert!(alive(v.id()));
        }
        // The same record, this user's own and its victim's start time right, is acted on:
        // the checks above are what kept the victim alive.
        std::fs::remove_dir_all(base.path().join(RECORDS)).unwrap();
        plant(base.path(), 0o700, 0o600, &forged(v.id(), true));
        let lines = stop_leftovers(base.path());
        assert!(
            lines.iter().any(|l| l.starts_with("stopped: sidecar of role \"x\"")),
            "{lines:?}"
        );
        let _ = v.wait();
    }

    /// The record is there before the command runs: what the command sees first in the folder
    /// is a record, so a litebench killed right after the fork leaves one.
    #[test]
    fn the_record_is_written_before_the_command_runs() {
        let base = tempfile::tempdir().unwrap();
        let seen = base.path().join("seen");
        let dir = base.path().join(RECORDS);
        let script = format!(
            "ls {} > {}.tmp; mv {1}.tmp {1}; exec sleep 1000",
            dir.display(),
            seen.display()
        );
        let s = spawn(&argv(&["sh", "-c", &script]), "s", base.path()).unwrap();
        let t0 = Instant::now();
        while !seen.exists() && t0.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let listed = std::fs::read_to_string(&seen).unwrap();
        s.stop(Duration::ZERO);
        assert!(
            listed.lines().any(|l| l.ends_with(".json")),
            "the command ran before its record was written: {listed:?}"
        );
    }

    /// A record written before its command started (no pid yet) still stops the tree its
    /// container holds once its litebench is dead, and names no pid.
    #[test]
    fn a_record_from_before_the_command_started_stops_what_its_container_holds() {
        let base = tempfile::tempdir().unwrap();
        let container = Container::new();
        let mut cmd = std::process::Command::new("sleep");
        cmd.arg("1000");
        container.enter(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        let rec = Record {
            owner: Owner {
                pid: 4_000_000,
                start_time: Some(1),
                ..Owner::current()
            },
            sidecar: Owner {
                pid: 0,
                start_time: None,
                ..Owner::current()
            },
            role: "x".into(),
            command: vec!["sleep".into(), "1000".into()],
            hold: Some(container.hold().clone()),
        };
        records_dir(base.path()).unwrap();
        let path = base.path().join(RECORDS).join("pending-4000000-0.json");
        write_record(base.path(), &path, &rec).unwrap();
        let lines = stop_leftovers(base.path());
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("stopped: sidecar of role \"x\" (started as its run was killed")),
            "{lines:?}"
        );
        let t0 = Instant::now();
        while child.try_wait().unwrap().is_none() && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(child.try_wait().unwrap().is_some(), "the held sleep was stopped");
        assert!(!path.exists(), "the record is removed");
    }

    /// A sidecar whose program another user owns is refused as root; its record is 0600 in a
    /// 0700 folder.
    #[test]
    fn a_program_another_user_owns_is_refused_and_records_are_private() {
        let base = tempfile::tempdir().unwrap();
        let s = spawn(&argv(&["sleep", "1000"]), "s", base.path()).unwrap();
        let dir = base.path().join(RECORDS);
        let record = dir.join(format!("{}.json", s.pid()));
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(&record).unwrap().mode() & 0o777, 0o600);
        s.stop(Duration::from_secs(1));
        if crate::sys::own_file::euid() != 0 {
            return;
        }
        let prog = base.path().join("prog.sh");
        std::fs::write(&prog, "#!/bin/sh\nexec sleep 1000\n").unwrap();
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::chown(&prog, Some(65534), None).unwrap();
        let e = resolve(&prog.display().to_string()).unwrap_err();
        assert!(
            e.contains("is owned by uid 65534, not root: root runs no program"),
            "{e}"
        );
        assert!(spawn(&argv(&[&prog.display().to_string()]), "s", base.path()).is_err());
        // Root's own script runs, from the descriptor that was checked.
        std::os::unix::fs::chown(&prog, Some(0), None).unwrap();
        let s = spawn(&argv(&[&prog.display().to_string()]), "s", base.path()).unwrap();
        let s = s.exited_within(Duration::from_millis(200)).unwrap_err();
        assert_eq!(s.stop(Duration::from_secs(1)).stopped, Stopped::Term);
    }

    /// `setsid` takes a process out of the sidecar's group; stopping the sidecar stops it too.
    #[test]
    fn what_a_sidecar_starts_outside_its_group_stops_with_it() {
        let base = tempfile::tempdir().unwrap();
        let pidfile = base.path().join("escaped");
        let script = format!("setsid sleep 777 & echo $! > {}; exec sleep 1000", pidfile.display());
        let s = spawn(&argv(&["sh", "-c", &script]), "s", base.path()).unwrap();
        let t0 = Instant::now();
        let escaped: u32 = loop {
            if let Some(p) = std::fs::read_to_string(&pidfile)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                break p;
            }
            assert!(t0.elapsed() < Duration::from_secs(5));
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(alive(escaped));
        let _ = s.stop(Duration::from_secs(1));
        let t0 = Instant::now();
        while alive(escaped) && t0.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !alive(escaped),
            "the process that left the group was stopped with the sidecar"
        );
    }

    /// A program the cache holds (Litestream, as CI builds it) is found by name, its newest
    /// version by number; another name, or a cache others can write, is not looked in.
    #[test]
    fn litestream_in_the_cache_is_found_by_name() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("cache");
        for v in ["v0.5.2", "v0.5.17"] {
            let bin = root.join("litestream").join(v).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::fs::write(bin.join("litestream"), "#!/bin/sh\n").unwrap();
        }
        for d in walk_dirs(&root) {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let found = cached_in(&root, "litestream").unwrap();
        assert!(
            found.ends_with("litestream/v0.5.17/bin/litestream"),
            "{}",
            found.display()
        );
        assert_eq!(cached_in(&root, "sh"), None);
        std::fs::set_permissions(root.join("litestream"), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(
            cached_in(&root, "litestream"),
            None,
            "a cache others can write is not looked in"
        );
    }

    fn walk_dirs(d: &Path) -> Vec<PathBuf> {
        let mut out = vec![d.to_path_buf()];
        for e in std::fs::read_dir(d).unwrap().flatten() {
            if e.path().is_dir() {
                out.extend(walk_dirs(&e.path()));
            }
        }
        out
    }
}
