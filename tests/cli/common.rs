//! Shared helpers: a sandbox per test, the litebench command, and assertions on its output.

use assert_cmd::Command;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::path::{Path, PathBuf};
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

/// Path of the binary under test.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_litebench"))
}

/// A private directory tree for one test:
///
/// - `scratch/` is what `--dir` points at;
/// - `results/` holds the results store (`results/r.db`);
/// - `cwd/` is the child's working directory (and `LITEBENCH_RESULTS` / `XDG_DATA_HOME` point
///   into it), so even a forgotten flag cannot write into the repository or the home directory.
pub struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let root = tempfile::Builder::new()
            .prefix("litebench-cli-")
            .tempdir()
            .expect("create a temporary directory");
        for d in ["scratch", "results", "cwd"] {
            std::fs::create_dir(root.path().join(d)).expect("create sandbox subdirectory");
        }
        Sandbox { root }
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The `--dir` directory.
    pub fn scratch(&self) -> PathBuf {
        self.root().join("scratch")
    }

    /// The directory holding the results store.
    pub fn results_dir(&self) -> PathBuf {
        self.root().join("results")
    }

    /// The `--results` store.
    pub fn results(&self) -> PathBuf {
        self.results_dir().join("r.db")
    }

    /// The child's working directory.
    pub fn cwd(&self) -> PathBuf {
        self.root().join("cwd")
    }

    fn isolate(&self, cmd: &mut std::process::Command) {
        cmd.current_dir(self.cwd())
            .env("LITEBENCH_RESULTS", self.cwd().join("default-results.db"))
            .env("XDG_DATA_HOME", self.cwd().join("xdg"))
            .env_remove("RUST_BACKTRACE");
    }

    /// `litebench` with no arguments, isolated in the sandbox.
    pub fn litebench(&self) -> Command {
        let mut std_cmd = std::process::Command::new(bin());
        self.isolate(&mut std_cmd);
        let mut cmd = Command::from_std(std_cmd);
        cmd.timeout(TIMEOUT);
        cmd
    }

    /// A `std::process::Command` for `litebench`, isolated in the sandbox (for spawning).
    pub fn std_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(bin());
        self.isolate(&mut cmd);
        cmd
    }

    /// `litebench run ARGS --results <sandbox store> --dir <sandbox scratch>`.
    pub fn run(&self, args: &[&str]) -> Command {
        self.run_in(&self.scratch(), &self.results(), args)
    }

    /// `litebench run ARGS` with the tiny workload and trial counts.
    pub fn run_tiny(&self, args: &[&str]) -> Command {
        let mut cmd = self.run(args);
        cmd.args(TINY_PARAMS).args(TINY_COUNTS);
        cmd
    }

    /// `litebench run ARGS --results RESULTS --dir DIR`.
    pub fn run_in(&self, dir: &Path, results: &Path, args: &[&str]) -> Command {
        let mut cmd = self.litebench();
        cmd.arg("run")
            .args(args)
            .arg("--results")
            .arg(results)
            .arg("--dir")
            .arg(dir);
        cmd
    }

    /// `litebench show ARGS --results <sandbox store>`.
    pub fn show(&self, args: &[&str]) -> Command {
        let mut cmd = self.litebench();
        cmd.arg("show").args(args).arg("--results").arg(self.results());
        cmd
    }

    /// `show --format json` of the newest run, which must succeed.
    pub fn show_json(&self) -> serde_json::Value {
        let out = output(&mut self.show(&["--format", "json"]));
        assert_success(&out);
        json(&out)
    }

    /// Asserts that the child's working directory is still empty (nothing was written relative
    /// to it, e.g. a default `./litebench-scratch`, and no default results store was created).
    pub fn assert_cwd_untouched(&self) {
        assert_eq!(
            listing(&self.cwd()),
            Vec::<String>::new(),
            "litebench wrote into its working directory"
        );
    }
}

/// Runs a command and returns its output.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().expect("run litebench")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Everything about a finished command, for assertion messages.
pub fn describe(o: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        o.status,
        stdout(o),
        stderr(o)
    )
}

/// Sorted names of the entries of a directory.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
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

/// A usage error reported by the argument parser (clap): exit code 2, nothing on stdout, the
/// first stderr line starts with `error: ` and contains every one of `parts`.
pub fn assert_clap_error(o: &Output, parts: &[&str]) {
    assert_no_panic(o);
    assert_eq!(o.status.code(), Some(2), "expected exit code 2\n{}", describe(o));
    assert_eq!(stdout(o), "", "expected nothing on stdout\n{}", describe(o));
    let err = stderr(o);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with("error: "),
        "stderr must start with `error: `\n{}",
        describe(o)
    );
    for p in parts {
        assert!(first.contains(p), "stderr does not contain {p:?}\n{}", describe(o));
    }
}

/// Parses stdout as JSON.
pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{}", describe(o)))
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
