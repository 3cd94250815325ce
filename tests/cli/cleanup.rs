//! What a run killed with `kill -9` leaves in its scratch directory (a half-built template and
//! its journal, or an empty directory for `--memory`) is removed by `litebench cleanup` and by
//! the next run in the same `--dir`: exactly the files its record lists, and the directory when
//! nothing else is in it. A file the user put there stays.

use crate::cli::common::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A litebench child, killed if the test ends first.
struct Killed(Option<Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The one `run-*` directory in the scratch directory, if there is one.
fn run_dir(sb: &Sandbox) -> Option<PathBuf> {
    std::fs::read_dir(sb.scratch())
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("run-")))
}

/// Bytes in `dir` outside litebench's record.
fn data_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| !e.file_name().to_string_lossy().contains("litebench-run"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Starts `run ARGS`, waits until `ready(run dir)` holds, then kills it with SIGKILL; returns
/// the run directory it left.
fn kill_9_when(sb: &Sandbox, args: &[&str], ready: impl Fn(&Path) -> bool) -> PathBuf {
    let child = sb
        .run_std(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start litebench");
    let mut child = Killed(Some(child));
    let deadline = Instant::now() + Duration::from_secs(120);
    let dir = loop {
        let c = child.0.as_mut().unwrap();
        assert!(
            matches!(c.try_wait(), Ok(None)),
            "litebench exited before it was killed"
        );
        if let Some(d) = run_dir(sb).filter(|d| ready(d)) {
            break d;
        }
        assert!(Instant::now() < deadline, "the run never got there");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut c = child.0.take().unwrap();
    c.kill().expect("kill -9");
    c.wait().unwrap();
    assert!(dir.is_dir(), "kill -9 leaves the run directory");
    dir
}

/// A crud run killed during population, with megabytes of template on disk.
fn kill_9_during_population(sb: &Sandbox) -> PathBuf {
    let dir = kill_9_when(
        sb,
        &[
            "crud",
            "--param",
            "rows=20000000",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ],
        |d| data_bytes(d) > 4 << 20,
    );
    let left = listing(&dir);
    assert!(left.iter().any(|f| f.ends_with(".db")), "a template is left: {left:?}");
    dir
}

#[test]
fn cleanup_removes_what_a_run_killed_during_population_left_and_keeps_the_users_file() {
    let sb = Sandbox::new();
    let dir = kill_9_during_population(&sb);
    std::fs::write(dir.join("users-notes.txt"), b"mine").unwrap();
    let o = sb
        .litebench()
        .arg("cleanup")
        .arg("--dir")
        .arg(sb.scratch())
        .output()
        .unwrap();
    eprintln!("{}", describe(&o));
    assert!(o.status.success(), "{}", describe(&o));
    let out = stdout(&o);
    assert!(
        out.lines().any(|l| l.starts_with("removed: ") && l.contains(".db")),
        "{}",
        describe(&o)
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("kept: ") && l.contains("users-notes.txt")),
        "{}",
        describe(&o)
    );
    assert_eq!(listing(&dir), ["users-notes.txt"], "only the user's file stays");
    assert_eq!(std::fs::read(dir.join("users-notes.txt")).unwrap(), b"mine");
}

#[test]
fn the_next_run_removes_what_a_run_killed_during_population_left() {
    let sb = Sandbox::new();
    kill_9_during_population(&sb);
    sb.run(SMALLEST_CRUD)
        .assert()
        .success()
        .stderr(predicates::str::contains("cleaned up after a killed run: removed: "));
    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "scratch directory not empty"
    );
}

#[test]
fn a_killed_memory_run_leaves_nothing_after_cleanup() {
    let sb = Sandbox::new();
    // Killed once it is measuring: its run directory holds its record and nothing else.
    let dir = kill_9_when(
        &sb,
        &[
            "crud",
            "--memory",
            "--param",
            "rows=1000",
            "--param",
            "duration=1s",
            "--trials",
            "100",
            "--warmup",
            "0",
            "--quiet",
        ],
        |_| sb.results().is_file(),
    );
    assert!(dir.is_dir());
    let o = sb
        .litebench()
        .arg("cleanup")
        .arg("--dir")
        .arg(sb.scratch())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    assert!(stdout(&o).contains("removed: "), "{}", describe(&o));
    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "scratch directory not empty"
    );
}
