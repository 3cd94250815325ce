//! Driver processes (`--driver`): a driver's files installed into litebench's cache and set up
//! once per machine, and one process per client started from them, spoken to over the driver
//! protocol ([`crate::model::driver`], docs/drivers.md).
//!
//! Every file of the repository's `drivers/` folder is in litebench's binary, so that a driver
//! runs as this build knows it. A driver's files, and those of the sibling folders its
//! `includes` file names (the Go drivers share `go-common/`: one copy in the repository), are
//! copied to `<cache>/drivers/<name>/<first 16 hex of the SHA-256 of those files>/`, its `setup` runs there
//! once (under a lock, so that concurrent runs set up once; `.ready` is written when it exited
//! 0), and each client's process starts `command` with that folder as its working directory.
//! Nothing outlives litebench: a process gets SIGTERM if litebench dies (`PR_SET_PDEATHSIG`),
//! and one litebench no longer needs is sent SIGTERM, then SIGKILL. Its standard error is
//! litebench's, so what it says is seen.

use crate::model::driver::{DriverInfo, FromDriver, NamedValue, Statement, ToDriver, PROTOCOL, RUST};
use crate::workload::driven::{failed, DriverLink, Wait};
use crate::workload::WorkloadError;
use include_dir::{include_dir, Dir};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Every driver's files, as the repository's `drivers/` holds them.
static DRIVERS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/drivers");

/// Why a driver could not be installed or started.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("driver {0}: litebench has no such driver; it has {list}", list = names().join(", "))]
    Unknown(String),
    #[error("driver {name}: {what} {path}: {source}")]
    Io {
        name: String,
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("driver {name}: its setup failed ({status}): {said}")]
    Setup { name: String, status: String, said: String },
    #[error("driver {name}: {detail}")]
    Protocol { name: String, detail: String },
    #[error("{0}")]
    Cache(String),
}

/// The drivers this build carries (folders of `drivers/` with a `command`).
pub fn names() -> Vec<&'static str> {
    DRIVERS
        .dirs()
        .filter(|d| d.get_file(d.path().join("command")).is_some())
        .filter_map(|d| d.path().to_str())
        .collect()
}

fn folder(name: &str) -> Result<&'static Dir<'static>, DriverError> {
    DRIVERS
        .get_dir(name)
        .filter(|d| d.get_file(d.path().join("command")).is_some())
        .ok_or_else(|| DriverError::Unknown(name.to_string()))
}

/// The file that names, one per line, the sibling folders of `drivers/` whose files a driver
/// is installed with beside its own.
const INCLUDES: &str = "includes";

/// What a driver is installed from: its own files, then those of the folders its `includes`
/// names, each under the name it has in the driver's folder in the cache. A name given twice
/// is an error: one file would hide the other.
fn files(name: &str, dir: &'static Dir<'static>) -> Result<Vec<(&'static str, &'static [u8])>, DriverError> {
    let mut dirs = vec![dir];
    if let Some(list) = dir.get_file(dir.path().join(INCLUDES)).and_then(|f| f.contents_utf8()) {
        for included in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
            dirs.push(DRIVERS.get_dir(included).ok_or_else(|| DriverError::Protocol {
                name: name.to_string(),
                detail: format!("its {INCLUDES} names {included}, which drivers/ does not have"),
            })?);
        }
    }
    let mut out: Vec<(&'static str, &'static [u8])> = Vec::new();
    for d in dirs {
        for f in d.files() {
            let file = f.path().file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if out.iter().any(|(n, _)| *n == file) {
                return Err(DriverError::Protocol {
                    name: name.to_string(),
                    detail: format!("two of its folders hold a file {file}"),
                });
            }
            out.push((file, f.contents()));
        }
    }
    out.sort_by_key(|(n, _)| *n);
    Ok(out)
}

/// The first 16 hex digits of the SHA-256 of driver `name`'s files (each as `name/file`, then
/// its length and contents).
fn digest(name: &str, files: &[(&str, &[u8])]) -> String {
    let mut h = Sha256::new();
    for (file, contents) in files {
        h.update(format!("{name}/{file}").as_bytes());
        h.update([0]);
        h.update((contents.len() as u64).to_le_bytes());
        h.update(contents);
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Driver `name` installed and set up in the cache: its folder there. Sets it up first where
/// it is not (once per machine; concurrent callers wait on the lock, which the setup's own
/// processes hold too, so one left running by a killed litebench is waited for as well).
pub fn installed(name: &str) -> Result<PathBuf, DriverError> {
    let files = files(name, folder(name)?)?;
    let root = crate::sys::cachedir::root().map_err(DriverError::Cache)?;
    let parent = root.join("drivers").join(name);
    let dest = parent.join(digest(name, &files));
    let io = |what, path: &Path| {
        let path = path.to_path_buf();
        move |source| DriverError::Io {
            name: name.to_string(),
            what,
            path,
            source,
        }
    };
    if dest.join(".ready").is_file() {
        return Ok(dest);
    }
    std::fs::create_dir_all(&dest).map_err(io("cannot create", &dest))?;
    let lock_path = parent.join(".lock");
    let lock = std::fs::File::create(&lock_path).map_err(io("cannot create", &lock_path))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| io("cannot lock", &lock_path)(e.into()))?;
    if dest.join(".ready").is_file() {
        return Ok(dest);
    }
    for (file, contents) in &files {
        let to = dest.join(file);
        std::fs::write(&to, contents).map_err(io("cannot write", &to))?;
    }
    let setup = dest.join("setup");
    let mut cmd = Command::new("bash");
    cmd.arg(&setup)
        .arg(&dest)
        .current_dir(&dest)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // The setup and every process it starts (npm, a compiler) keep the lock held as long as
    // any of them runs: litebench killed mid-setup (a test's time limit, Ctrl-C) leaves them
    // running, and the next run must wait for them rather than start a second setup in the
    // same folder (a second `npm ci` removes the first's node_modules).
    let held = std::os::fd::AsRawFd::as_raw_fd(&lock);
    // SAFETY: fcntl(F_SETFD) only clears the close-on-exec flag of the child's copy of the
    // lock's descriptor; it is async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(move || match libc::fcntl(held, libc::F_SETFD, 0) {
            -1 => Err(std::io::Error::last_os_error()),
            _ => Ok(()),
        })
    };
    let out = cmd.output().map_err(io("cannot run", &setup))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(DriverError::Setup {
            name: name.to_string(),
            status: out.status.to_string(),
            said: said.lines().last().unwrap_or("(it said nothing)").to_string(),
        });
    }
    let ready = dest.join(".ready");
    std::fs::write(&ready, b"").map_err(io("cannot write", &ready))?;
    Ok(dest)
}

/// What a driver's process is told about its database at `open`.
pub struct OpenSpec<'a> {
    pub name: &'a str,
    pub path: &'a Path,
    pub knobs: &'a [NamedValue],
    pub statements: &'a [Statement],
    pub max_tries: u32,
    pub backoff_ns: &'a [u64],
    pub client: u32,
}

/// A driver process litebench started.
pub struct Process {
    who: String,
    child: Child,
    /// Lines for its standard input, written by a thread of their own: a driver writes a
    /// batch's results while litebench writes the next batch, and either may fill its pipe, so
    /// neither side may block the other's reading.
    stdin: Option<std::sync::mpsc::Sender<Vec<u8>>>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// Lines from its standard output, read by a thread of their own, so that a wait for the
    /// next one has a limit and can be interrupted.
    stdout: std::sync::mpsc::Receiver<String>,
}

/// The thread that writes `lines` to a driver's standard input until they end or it closes.
fn writer(stdin: ChildStdin, lines: std::sync::mpsc::Receiver<Vec<u8>>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut w = BufWriter::new(stdin);
        for line in lines {
            if w.write_all(&line).and_then(|()| w.flush()).is_err() {
                return;
            }
        }
    })
}

/// The thread that reads `stdout`'s lines into `lines` until it ends (EOF, an error, or
/// nobody listening).
fn reader(stdout: ChildStdout, lines: std::sync::mpsc::Sender<String>) {
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if lines.send(line).is_err() => return,
                Ok(_) => {}
            }
        }
    });
}

/// Starts driver `spec.name` (set up first where it is not), sends `open`, and waits for
/// `opened`: the process, and what it said of itself.
pub fn start(spec: &OpenSpec<'_>) -> Result<(Process, DriverInfo), WorkloadError> {
    let name = spec.name;
    let dest = installed(name).map_err(|e| failed(name, e.to_string()))?;
    let line = std::fs::read_to_string(dest.join("command")).map_err(|e| failed(name, format!("its command: {e}")))?;
    let mut argv = line.split_whitespace();
    let program = argv.next().ok_or_else(|| failed(name, "its command is empty"))?;
    let program = match program.contains('/') {
        true => dest.join(program),
        false => PathBuf::from(program),
    };
    let mut cmd = Command::new(&program);
    cmd.args(argv)
        .current_dir(&dest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // SAFETY: prctl(PR_SET_PDEATHSIG) only sets the child's parent-death signal; it is
    // async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        })
    };
    let child = cmd
        .spawn()
        .map_err(|e| failed(name, format!("cannot start {}: {e}", program.display())))?;
    let mut p = Process::new(
        format!("{name} (client {}, process {})", spec.client, child.id()),
        child,
    )?;
    let path = spec.path.to_string_lossy();
    p.send(&ToDriver::Open {
        protocol: PROTOCOL,
        path: &path,
        knobs: spec.knobs,
        statements: spec.statements,
        max_tries: spec.max_tries,
        backoff_ns: spec.backoff_ns,
        client: spec.client,
    })?;
    match p.recv(&Wait::plain())? {
        FromDriver::Opened(info) => Ok((p, info)),
        other => Err(failed(&p.who, format!("sent {other:?} where opened was due"))),
    }
}

impl Process {
    /// `child`, started with piped standard input and output, spoken to as `who`.
    fn new(who: String, mut child: Child) -> Result<Process, WorkloadError> {
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(failed(&who, "no pipes to its process"));
        };
        let (lines, queue) = std::sync::mpsc::channel();
        let (out, read) = std::sync::mpsc::channel();
        reader(stdout, out);
        Ok(Process {
            who,
            child,
            stdin: Some(lines),
            writer: Some(writer(stdin, queue)),
            stdout: read,
        })
    }

    /// Why it ended, once it did: its exit status.
    fn ended(&mut self) -> WorkloadError {
        let status = match self.child.wait() {
            Ok(s) => s.to_string(),
            Err(e) => e.to_string(),
        };
        failed(&self.who, format!("ended ({status}) in the middle of the protocol"))
    }
}

impl DriverLink for Process {
    fn who(&self) -> String {
        self.who.clone()
    }

    fn send(&mut self, msg: &ToDriver<'_>) -> Result<(), WorkloadError> {
        let mut line = serde_json::to_vec(msg).map_err(|e| failed(&self.who, e.to_string()))?;
        line.push(b'\n');
        match self.stdin.as_ref().map(|s| s.send(line)) {
            Some(Ok(())) => Ok(()),
            _ => Err(self.ended()),
        }
    }

    fn recv(&mut self, wait: &Wait<'_>) -> Result<FromDriver, WorkloadError> {
        use std::sync::mpsc::RecvTimeoutError;
        // The stop is looked at this often while a batch runs.
        const GLANCE: Duration = Duration::from_millis(50);
        let until = Instant::now() + wait.limit;
        let line = loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(left.min(GLANCE)) {
                Ok(line) => break line,
                Err(RecvTimeoutError::Disconnected) => return Err(self.ended()),
                Err(RecvTimeoutError::Timeout) if (wait.stop)() => return Err(WorkloadError::Interrupted),
                Err(RecvTimeoutError::Timeout) if left.is_zero() => {
                    return Err(failed(
                        &self.who,
                        format!(
                            "answered nothing for {:?}, the most litebench waits here (docs/drivers.md), so it was taken for hung and stopped; what it printed above may say why",
                            wait.limit
                        ),
                    ))
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        };
        match serde_json::from_str::<FromDriver>(&line) {
            Ok(FromDriver::Error { stage, message, knob }) => {
                let _ = self.child.wait();
                Err(failed(
                    &self.who,
                    match knob {
                        Some(k) => format!("knob {k}: {message}"),
                        None => format!("{stage}: {message}"),
                    },
                ))
            }
            Ok(msg) => Ok(msg),
            Err(e) => Err(failed(
                &self.who,
                format!("sent a line that is not the protocol's ({e}): {}", line.trim_end()),
            )),
        }
    }

    fn close(mut self: Box<Self>) -> Result<(), WorkloadError> {
        self.send(&ToDriver::Close)?;
        self.stdin = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
        match self.recv(&Wait::plain())? {
            FromDriver::Closed => {}
            other => return Err(failed(&self.who, format!("sent {other:?} where closed was due"))),
        }
        match self.child.wait() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(failed(&self.who, format!("exited {s} after closing"))),
            Err(e) => Err(failed(&self.who, e.to_string())),
        }
    }
}

impl Drop for Process {
    /// Nothing left running: SIGTERM, a moment to act on it, then SIGKILL.
    fn drop(&mut self) {
        self.stdin = None;
        if !matches!(self.child.try_wait(), Ok(None)) {
            return;
        }
        // (Its writer thread ends once the process does: its pipe then refuses writes.)
        // SAFETY: kill has no memory effects; the pid is our own child's, not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The knobs a driver is sent: the configuration's, but for `driver` itself, pass-through
/// knobs by their pragma's name.
pub fn knobs_for_driver(knobs: &crate::model::knob::KnobSet, prefix: &str) -> Vec<NamedValue> {
    knobs
        .0
        .iter()
        .filter(|k| k.name != crate::engines::sqlite::knobs::DRIVER_KNOB)
        .map(|k| NamedValue {
            name: k.setting_name(prefix).to_string(),
            value: Some(k.value.clone()),
        })
        .collect()
}

/// The driver a knob set names, where it is a process (`None`: litebench's own loop).
pub fn driver_of(knobs: &crate::model::knob::KnobSet) -> Option<&str> {
    knobs
        .get(crate::engines::sqlite::knobs::DRIVER_KNOB)
        .filter(|d| *d != RUST)
}

/// What driver `name` says of itself with `knobs` set, on a database of its own at `db` (a
/// file litebench made for it): for the manifest, before anything is measured.
pub fn probe(name: &str, db: &Path, knobs: &[NamedValue]) -> Result<DriverInfo, WorkloadError> {
    let (p, info) = start(&OpenSpec {
        name,
        path: db,
        knobs,
        statements: &[],
        max_tries: 1,
        backoff_ns: &[],
        client: 0,
    })?;
    Box::new(p).close()?;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A process that reads its input and says nothing, as a driver hung inside a batch.
    fn silent() -> Process {
        let child = Command::new("sleep")
            .arg("30")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        Process::new("silent".into(), child).unwrap()
    }

    #[test]
    fn a_driver_that_answers_nothing_is_taken_for_hung_at_the_limit_and_stopped() {
        let mut p = silent();
        let t = Instant::now();
        let wait = Wait {
            limit: Duration::from_millis(300),
            stop: &|| false,
        };
        let e = p.recv(&wait).unwrap_err().to_string();
        assert!(t.elapsed() >= Duration::from_millis(300), "{:?}", t.elapsed());
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert!(e.contains("silent") && e.contains("answered nothing for 300ms"), "{e}");
        let pid = p.child.id();
        drop(p);
        // Dropped, the process is gone (reaped: no such pid of ours).
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, 0) }, -1);
    }

    #[test]
    fn a_stop_ends_the_wait_for_a_batch_at_once() {
        let mut p = silent();
        let stop = AtomicBool::new(false);
        let t = Instant::now();
        let flag = || {
            if t.elapsed() > Duration::from_millis(200) {
                stop.store(true, Ordering::Relaxed);
            }
            stop.load(Ordering::Relaxed)
        };
        let wait = Wait {
            limit: Duration::from_secs(60),
            stop: &flag,
        };
        assert!(matches!(p.recv(&wait), Err(WorkloadError::Interrupted)));
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }

    #[test]
    fn a_driver_that_ends_is_said_to_have_ended_not_to_have_hung() {
        let child = Command::new("true")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut p = Process::new("quitter".into(), child).unwrap();
        let e = p.recv(&Wait::plain()).unwrap_err().to_string();
        assert!(e.contains("quitter") && e.contains("ended"), "{e}");
    }
}
