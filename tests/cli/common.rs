//! Shared helpers: a sandbox per test, the litebench command, and assertions on its output.

use assert_cmd::Command;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// The tiny workload every quick run uses.
pub const TINY_PARAMS: &[&str] = &[
    "--param",
    "rows=200",
    "--param",
    "inserts=20",
    "--param",
    "updates=20",
    "--param",
    "deletes=20",
];

/// Trial counts and flags for a quick run.
pub const TINY_COUNTS: &[&str] = &["--trials", "2", "--warmup", "0", "--quiet"];

/// Upper bound on any single litebench invocation, so a hang fails instead of stalling CI.
pub const TIMEOUT: Duration = Duration::from_secs(120);

pub use crate::support::{describe, json, listing, stderr, stdout, Sandbox, HUGE_POPULATION, SMALLEST_CRUD};

/// The sandbox's litebench commands as `assert_cmd` commands, with a time limit.
pub trait Cli {
    /// `litebench` with no arguments, isolated in the sandbox.
    fn litebench(&self) -> Command;
    /// A `std::process::Command` for `litebench`, isolated in the sandbox (for spawning).
    fn std_command(&self) -> std::process::Command;
    /// `litebench run ARGS --results <sandbox store> --dir <sandbox scratch>`.
    fn run(&self, args: &[&str]) -> Command;
    /// `litebench run ARGS` with the tiny workload and trial counts.
    fn run_tiny(&self, args: &[&str]) -> Command;
    /// `litebench run ARGS --results RESULTS --dir DIR`.
    fn run_in(&self, dir: &Path, results: &Path, args: &[&str]) -> Command;
    /// `litebench show ARGS --results <sandbox store>`.
    fn show(&self, args: &[&str]) -> Command;
    /// `show --format json` of the newest run, which must succeed.
    fn show_json(&self) -> serde_json::Value;
    /// `litebench ARGS --results <sandbox store>`: a subcommand that reads stored runs.
    fn stored(&self, args: &[&str]) -> Command;
    /// The text of the page `report ARGS` writes from the sandbox's store, which must succeed
    /// (each call a new file in the sandbox).
    fn page(&self, args: &[&str]) -> String;
}

fn limited(std_cmd: std::process::Command) -> Command {
    let mut cmd = Command::from_std(std_cmd);
    cmd.timeout(TIMEOUT);
    cmd
}

impl Cli for Sandbox {
    fn litebench(&self) -> Command {
        limited(self.command())
    }

    fn std_command(&self) -> std::process::Command {
        self.command()
    }

    fn run(&self, args: &[&str]) -> Command {
        limited(self.run_std(args))
    }

    fn run_tiny(&self, args: &[&str]) -> Command {
        let mut cmd = self.run(args);
        cmd.args(TINY_PARAMS).args(TINY_COUNTS);
        cmd
    }

    fn run_in(&self, dir: &Path, results: &Path, args: &[&str]) -> Command {
        limited(self.run_in_std(dir, results, args))
    }

    fn show(&self, args: &[&str]) -> Command {
        limited(self.show_std(args))
    }

    fn show_json(&self) -> serde_json::Value {
        let out = output(&mut self.show(&["--format", "json"]));
        assert_success(&out);
        json(&out)
    }

    fn stored(&self, args: &[&str]) -> Command {
        let mut cmd = self.litebench();
        cmd.args(args).arg("--results").arg(self.results());
        cmd
    }

    fn page(&self, args: &[&str]) -> String {
        let page = (0..)
            .map(|i| self.root().join(format!("page-{i}.html")))
            .find(|p| !p.exists())
            .unwrap();
        let mut cmd = self.stored(&[&["report"], args].concat());
        assert_success(&output(cmd.arg("-o").arg(&page)));
        std::fs::read_to_string(&page).unwrap()
    }
}

/// Runs a command and returns its output.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().expect("run litebench")
}

pub fn assert_no_panic(o: &Output) {
    let err = stderr(o);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "litebench panicked\n{}",
        describe(o)
    );
}

pub fn assert_success(o: &Output) {
    assert_no_panic(o);
    assert_eq!(o.status.code(), Some(0), "expected success\n{}", describe(o));
}

/// Asserts a failure reported the litebench way: exit code 2, nothing on stdout, and exactly one
/// line on stderr that starts with `error: ` and contains every one of `parts`. Returns the line.
pub fn assert_error_line(o: &Output, parts: &[&str]) -> String {
    assert_no_panic(o);
    assert_eq!(o.status.code(), Some(2), "expected exit code 2\n{}", describe(o));
    assert_eq!(stdout(o), "", "expected nothing on stdout\n{}", describe(o));
    let err = stderr(o);
    assert!(err.ends_with('\n'), "stderr must end with a newline\n{}", describe(o));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected exactly one line on stderr\n{}", describe(o));
    let line = lines[0];
    assert!(
        line.starts_with("error: "),
        "stderr must start with `error: `\n{}",
        describe(o)
    );
    for p in parts {
        assert!(line.contains(p), "stderr does not contain {p:?}\n{}", describe(o));
    }
    line.to_string()
}

/// True for the warning `run` prints when its scratch directory is on tmpfs or ramfs.
pub fn is_ram_warning(line: &str) -> bool {
    line.starts_with("warning: ") && line.contains("is on a RAM filesystem")
}

/// Like [`assert_error_line`], for a failure that happens after the run started: if the scratch
/// directory is on a RAM filesystem (a tmpfs `/tmp`, or the disk-full tests' tmpfs), `run` warns
/// about that first, so the RAM-filesystem warning may precede the one error line.
pub fn assert_run_error_line(o: &Output, parts: &[&str]) -> String {
    assert_no_panic(o);
    assert_eq!(o.status.code(), Some(2), "expected exit code 2\n{}", describe(o));
    assert_eq!(stdout(o), "", "expected nothing on stdout\n{}", describe(o));
    let err = stderr(o);
    let lines: Vec<&str> = err.lines().filter(|l| !is_ram_warning(l)).collect();
    assert_eq!(
        lines.len(),
        1,
        "expected exactly one error line on stderr\n{}",
        describe(o)
    );
    let line = lines[0];
    assert!(
        line.starts_with("error: "),
        "the error must start with `error: `\n{}",
        describe(o)
    );
    assert!(
        err.ends_with(&format!("{line}\n")),
        "the error must be the last line\n{}",
        describe(o)
    );
    for p in parts {
        assert!(line.contains(p), "error line does not contain {p:?}\n{}", describe(o));
    }
    line.to_string()
}

/// A usage error reported by the argument parser (clap): like any litebench error, exit code 2,
/// nothing on stdout and one line on stderr that starts with `error: ` and contains every one of
/// `parts` (clap's own several lines are folded into one).
pub fn assert_clap_error(o: &Output, parts: &[&str]) {
    assert_error_line(o, parts);
}

/// The keys of a JSON object in document order (serde_json's `Value` sorts them).
#[derive(Debug)]
pub struct OrderedKeys(pub Vec<String>);

impl<'de> Deserialize<'de> for OrderedKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(OrderedKeys(keys))
            }
        }
        d.deserialize_map(V)
    }
}

/// True when running as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Sends SIGINT to `child` and waits for it to exit, failing with `why` if it takes `limit` or
/// longer: its exit status, and how long it took.
pub fn interrupt_within(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    why: &str,
) -> (std::process::ExitStatus, std::time::Duration) {
    // SAFETY: signalling our own child, not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let t0 = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("its status") {
            return (s, t0.elapsed());
        }
        assert!(t0.elapsed() < limit, "{why}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `cmd` (a sandbox's litebench) run on a terminal: `script` gives it a pseudo-terminal and
/// copies what it wrote there, standard output and error together, into `typescript`
/// (flushed as written), with the command's environment and working directory.
pub fn on_a_terminal(cmd: &std::process::Command, typescript: &Path) -> std::process::Command {
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', "'\\''"));
    let mut line = quote(cmd.get_program());
    for a in cmd.get_args() {
        line.push(' ');
        line.push_str(&quote(a));
    }
    let mut term = std::process::Command::new("script");
    term.args(["-qfec", &line]).arg(typescript);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => term.env(k, v),
            None => term.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        term.current_dir(dir);
    }
    term.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    term
}
