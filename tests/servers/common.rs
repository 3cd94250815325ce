//! Shared helpers: a sandbox per test, running the real binary with a time limit, and the
//! checks that no server process or data directory outlives a run.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The tiny crud workload and trial counts every quick run uses.
pub const TINY: &[&str] = &[
    "--param",
    "rows=200",
    "--param",
    "inserts=20",
    "--param",
    "updates=20",
    "--param",
    "deletes=20",
    "--trials",
    "2",
    "--warmup",
    "0",
    "--quiet",
    "--format",
    "json",
];

/// Upper bound on one litebench invocation (server start-up included), so a hang fails.
pub const TIMEOUT: Duration = Duration::from_secs(300);

/// The server binaries a test needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    Postgres,
    Mysql,
}

fn postgres_installed() -> bool {
    std::fs::read_dir("/usr/lib/postgresql").is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.path().join("bin/initdb").is_file() && e.path().join("bin/postgres").is_file())
    })
}

fn mysql_installed() -> bool {
    Path::new("/usr/sbin/mariadbd").is_file() && Path::new("/usr/bin/mariadb-install-db").is_file()
}

/// Whether the servers' binaries are installed. Without them a test is skipped, except in CI
/// (`CI` set), where a missing server is a failure: CI installs them (`.ci/run`).
pub fn available(servers: &[Server]) -> bool {
    for s in servers {
        let (ok, package) = match s {
            Server::Postgres => (postgres_installed(), "postgresql"),
            Server::Mysql => (mysql_installed(), "mariadb-server"),
        };
        if !ok {
            if std::env::var_os("CI").is_some() {
                panic!("the Debian package {package} is not installed; CI must install it (.ci/run)");
            }
            eprintln!("note: skipped: the Debian package {package} is not installed");
            return false;
        }
    }
    true
}

pub use crate::support::{processes_under, Sandbox};

/// What a finished command printed.
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    pub fn describe(&self) -> String {
        format!(
            "status: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status, self.stdout, self.stderr
        )
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{}", self.describe()))
    }

    pub fn assert_success(&self) -> serde_json::Value {
        assert!(!self.stderr.contains("panicked"), "{}", self.describe());
        assert_eq!(self.status.code(), Some(0), "expected success\n{}", self.describe());
        self.json()
    }

    /// Exit code 2 and exactly one `error:` line on stderr (besides the RAM-filesystem warning),
    /// containing every one of `parts`. Returns the line.
    pub fn assert_error_line(&self, parts: &[&str]) -> String {
        assert!(!self.stderr.contains("panicked"), "{}", self.describe());
        assert_eq!(self.status.code(), Some(2), "expected exit code 2\n{}", self.describe());
        let lines: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !(l.starts_with("warning: ") && l.contains("RAM filesystem")))
            .collect();
        assert_eq!(lines.len(), 1, "expected one error line\n{}", self.describe());
        assert!(lines[0].starts_with("error: "), "{}", self.describe());
        for p in parts {
            assert!(lines[0].contains(p), "error line lacks {p:?}\n{}", self.describe());
        }
        lines[0].to_string()
    }
}

/// A started litebench that is killed if the test ends first.
pub struct Running {
    child: Option<Child>,
}

impl Running {
    pub fn start(mut cmd: Command) -> Running {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start litebench");
        Running { child: Some(child) }
    }

    pub fn pid(&self) -> libc::pid_t {
        self.child.as_ref().expect("child").id() as libc::pid_t
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.as_mut().expect("child").try_wait(), Ok(None))
    }

    pub fn signal(&self, sig: libc::c_int) {
        // SAFETY: signalling our own child, not yet reaped.
        let rc = unsafe { libc::kill(self.pid(), sig) };
        assert_eq!(rc, 0, "kill: {}", std::io::Error::last_os_error());
    }

    /// Waits for the exit (at most `limit`), collecting the output.
    pub fn finish(mut self, limit: Duration) -> Finished {
        let mut child = self.child.take().expect("child");
        // Drain the pipes in threads so a chatty child cannot block on a full pipe.
        let mut out_pipe = child.stdout.take().expect("stdout");
        let mut err_pipe = child.stderr.take().expect("stderr");
        let out = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut out_pipe, &mut s);
            s
        });
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut err_pipe, &mut s);
            s
        });
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait") {
                break s;
            }
            if Instant::now() >= deadline {
                // What litebench and its children were doing, for the diagnosis.
                let tree = std::process::Command::new("ps")
                    .args([
                        "-o",
                        "pid,ppid,stat,wchan:32,etime,args",
                        "--ppid",
                        &child.id().to_string(),
                        "-p",
                        &child.id().to_string(),
                    ])
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default();
                let stacks = std::process::Command::new("gdb")
                    .args(["-batch", "-p", &child.id().to_string(), "-ex", "thread apply all bt 25"])
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default();
                eprintln!("{stacks}");
                let _ = child.kill();
                let _ = child.wait();
                let stderr = err.join().unwrap_or_default();
                panic!("litebench did not exit within {limit:?}\n{tree}\n--- stderr ---\n{stderr}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        Finished {
            status,
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Runs a command to completion within [`TIMEOUT`].
pub fn run(cmd: Command) -> Finished {
    Running::start(cmd).finish(TIMEOUT)
}

/// Polls the store until the running run has stored `n` trials.
pub fn wait_for_trials(sb: &Sandbox, run: &mut Running, n: u64, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        assert!(run.is_running(), "litebench exited before the test acted");
        if sb.results().is_file() {
            if let Ok(out) = sb.show_std(&["--list", "--format", "json"]).output() {
                if out.status.success() {
                    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
                    if v[0]["trials"].as_u64().unwrap_or(0) >= n {
                        return;
                    }
                }
            }
        }
        assert!(Instant::now() < deadline, "no {n} trials stored within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The readings of knob `name` in every trial of configuration `config`.
pub fn readings(v: &serde_json::Value, config: u64, name: &str) -> Vec<(Option<String>, Option<String>)> {
    v["trials"]
        .as_array()
        .expect("trials")
        .iter()
        .filter(|t| t["config"] == config)
        .map(|t| {
            let k = t["knobs"]
                .as_array()
                .expect("knobs")
                .iter()
                .find(|k| k["name"] == name)
                .unwrap_or_else(|| panic!("no reading of {name} in {t:#}"));
            (
                k["requested"].as_str().map(str::to_string),
                k["effective"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// Index of the configuration labelled `label`.
pub fn config_index(v: &serde_json::Value, label: &str) -> u64 {
    v["manifest"]["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .find(|c| c["label"] == label)
        .unwrap_or_else(|| panic!("no configuration {label:?} in {:#}", v["manifest"]["configs"]))["index"]
        .as_u64()
        .expect("index")
}

/// A scratch directory outside the sandbox, readable by the server's system user, for a server
/// a test starts through the library as "a server the user runs". Keep the directory (the
/// first) alive as long as the scratch.
pub fn outside_scratch() -> (tempfile::TempDir, litebench::sys::scratch::Scratch) {
    use std::os::unix::fs::PermissionsExt;
    let outside = tempfile::Builder::new()
        .prefix("litebench-outside-")
        .tempdir()
        .expect("tempdir");
    std::fs::set_permissions(outside.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let scratch = litebench::sys::scratch::Scratch::create(Some(outside.path())).expect("scratch");
    (outside, scratch)
}
