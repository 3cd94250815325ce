//! What every test binary shares: the binary under test, a private sandbox per test with the
//! litebench command isolated in it, the checks that nothing outlives a run, and reading a
//! finished command's output. `tests/all.rs` holds it once for every suite.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The smallest crud run: 10 rows, two of each operation, one trial, no warm-up, quiet; for
/// tests that need a run stored, not measured.
pub const SMALLEST_CRUD: &[&str] = &[
    "crud",
    "--param",
    "rows=10",
    "--param",
    "inserts=2",
    "--param",
    "updates=2",
    "--param",
    "deletes=2",
    "--trials",
    "1",
    "--warmup",
    "0",
    "--quiet",
];

/// A crud population far longer than any test waits (100 million small rows: minutes even at a
/// million rows a second), then one quiet trial: for tests that stop a run while it populates.
pub const HUGE_POPULATION: &[&str] = &[
    "--param",
    "rows=100000000",
    "--param",
    "value_size=16",
    "--trials",
    "1",
    "--warmup",
    "0",
    "--quiet",
];

/// Path of the binary under test.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_litebench"))
}

/// True in CI, where a missing tool is a failure rather than a skip.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false")
}

/// Skips (locally) or fails (in CI) when `path` is missing.
pub fn require(path: &str, package: &str) -> bool {
    if Path::new(path).exists() {
        return true;
    }
    assert!(
        !in_ci(),
        "{path} is missing: .ci/run must install the Debian package {package}"
    );
    eprintln!("skipping: {path} missing (apt-get install {package})");
    false
}

/// The cached library of the pinned DuckDB release `version`, where litebench looks for it
/// (`$LITEBENCH_CACHE/duckdb/VERSION/libduckdb.so`, the cache as `litebench` resolves it).
pub fn duckdb_library(version: &str) -> Option<PathBuf> {
    let root = litebench::sys::cachedir::root().ok()?;
    let release = litebench::engines::duckdb::release::find(version).ok()?;
    Some(release.library(&root)).filter(|p| p.is_file())
}

/// The default DuckDB release (`--engine duckdb`).
pub const DUCKDB: &str = litebench::engines::duckdb::release::DEFAULT;

/// Skips (locally) or fails (in CI) when DuckDB `version` is not in the cache: tests fetch
/// nothing themselves; `.ci/run` fetches the pinned releases once per machine.
pub fn require_duckdb(version: &str) -> bool {
    if duckdb_library(version).is_some() {
        return true;
    }
    assert!(
        !in_ci(),
        "DuckDB {version} is not in litebench's cache: .ci/run must run tests/engine/fetch-duckdb.sh \"$LITEBENCH_CACHE\" before the tests"
    );
    eprintln!(
        "skipping: DuckDB {version} not in litebench's cache (bash tests/engine/fetch-duckdb.sh \"${{LITEBENCH_CACHE:-$HOME/.cache/litebench}}\")"
    );
    false
}

/// A private directory tree for one test:
///
/// - `scratch/` is what `--dir` points at;
/// - `results/` holds the results store (`results/r.db`);
/// - `cwd/` is the child's working directory (and `LITEBENCH_RESULTS` / `XDG_DATA_HOME` point
///   into it), so even a forgotten flag cannot write into the repository or the home directory.
///
/// The root and `scratch/` are mode 0755 so servers' system users can reach their data
/// directories.
pub struct Sandbox {
    root: tempfile::TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::new()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::Builder::new()
            .prefix("litebench-test-")
            .tempdir()
            .expect("create a temporary directory");
        for d in ["scratch", "results", "cwd"] {
            std::fs::create_dir(root.path().join(d)).expect("create sandbox subdirectory");
        }
        for d in [root.path().to_path_buf(), root.path().join("scratch")] {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).expect("chmod 0755");
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

    /// `litebench` with no arguments, isolated in the sandbox: its working directory, default
    /// store locations, and no inherited server overrides or backtraces.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(bin());
        cmd.current_dir(self.cwd())
            .env("LITEBENCH_RESULTS", self.cwd().join("default-results.db"))
            .env("XDG_DATA_HOME", self.cwd().join("xdg"))
            .env_remove("RUST_BACKTRACE")
            // Tables fit COLUMNS when it is set; tests parse full-width tables unless they set it.
            .env_remove("COLUMNS")
            .env_remove("LITEBENCH_PG_BIN")
            .env_remove("LITEBENCH_PG_PORT")
            .env_remove("LITEBENCH_MYSQL_BIN")
            .env_remove("LITEBENCH_MYSQL_PORT");
        // An ignored signal stays ignored across exec, and litebench keeps an ignored SIGHUP
        // ignored on purpose (`nohup`). Tests run under nohup, or by a runner that ignores
        // SIGHUP, would then pass that on; litebench starts with SIGHUP as a terminal gives it.
        // (A test that wants nohup's behaviour adds its own `pre_exec` after this one.)
        use std::os::unix::process::CommandExt;
        // SAFETY: signal() is async-signal-safe, as a pre_exec hook requires.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGHUP, libc::SIG_DFL);
                Ok(())
            });
        }
        cmd
    }

    /// `litebench run ARGS --dir DIR --results RESULTS`.
    pub fn run_in_std(&self, dir: &Path, results: &Path, args: &[&str]) -> Command {
        let mut cmd = self.command();
        cmd.arg("run")
            .args(args)
            .arg("--dir")
            .arg(dir)
            .arg("--results")
            .arg(results);
        cmd
    }

    /// `litebench run ARGS --dir <scratch> --results <store>`.
    pub fn run_std(&self, args: &[&str]) -> Command {
        self.run_in_std(&self.scratch(), &self.results(), args)
    }

    /// `litebench show ARGS --results <store>`.
    pub fn show_std(&self, args: &[&str]) -> Command {
        let mut cmd = self.command();
        cmd.arg("show").args(args).arg("--results").arg(self.results());
        cmd
    }

    /// Asserts that the child's working directory is still empty (nothing was written relative
    /// to it, no default results store was created).
    pub fn assert_cwd_untouched(&self) {
        assert_eq!(
            listing(&self.cwd()),
            Vec::<String>::new(),
            "litebench wrote into its working directory"
        );
    }

    /// Asserts that no process started for this sandbox survives (by command line or working
    /// directory) and that the scratch directory is empty.
    pub fn assert_clean(&self, context: &str) {
        let left = processes_under(self.root());
        assert!(left.is_empty(), "{context}: processes left running: {left:?}");
        let files = listing(&self.scratch());
        assert!(files.is_empty(), "{context}: scratch directory not empty: {files:?}");
    }
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

/// Processes whose command line mentions `dir` or whose working directory is inside it.
pub fn processes_under(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").expect("/proc").filter_map(Result::ok) {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        let in_dir = std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|c| c.starts_with(dir));
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|(_, r)| r.starts_with('Z')))
            .unwrap_or(false);
        if zombie {
            continue;
        }
        // The test's own litebench (cwd in the sandbox) is waited for before this check.
        if (cmdline.contains(&needle) || in_dir) && !cmdline.is_empty() {
            out.push(format!("{pid}: {}", cmdline.trim()));
        }
    }
    out
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

/// Parses stdout as JSON.
pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{}", describe(o)))
}

/// The queue's cast in the CLI's and the servers' tests: producers at 200 jobs/s, two workers
/// polling every 10 ms, a janitor that clears every finished job.
pub const QUEUE_CAST: &str = r#"
[[role]]
name = "producers"
kind = "workload"
rate = 200
params = { role = "producer" }

[[role]]
name = "workers"
kind = "workload"
clients = 2
params = { role = "worker", poll_interval = "10ms" }

[[role]]
name = "janitor"
kind = "workload"
params = { role = "janitor", retention = "0s" }
"#;
