//! The results store under pressure: another process holding it, a run stopped while waiting
//! for it, a full disk under it, damage, a hot journal on a read-only filesystem, and knobs
//! that would reach it. Nothing measured may be lost, and every refusal is one line.

use crate::cli::common::*;
use litebench::engines::sqlite::api::Api;
use litebench::engines::sqlite::conn::SqliteConn;
use litebench::engines::Connection;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Trials of the runs the lock tests hold up: far more than can finish between the first
/// stored trial and the lock being taken.
const TRIALS: usize = 40;

/// A tiny crud run with `trials` trials, no warm-up, quiet.
fn tiny(trials: usize) -> Vec<String> {
    let mut a: Vec<String> = SMALLEST_CRUD.iter().map(|s| s.to_string()).collect();
    let i = a.iter().position(|s| s == "--trials").unwrap();
    a[i + 1] = trials.to_string();
    a
}

fn spawn_run(sb: &Sandbox, results: &Path, trials: usize) -> Child {
    let args = tiny(trials);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    sb.run_in_std(&sb.scratch(), results, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start litebench")
}

/// Trials stored in `store`, or `None` while it cannot be read.
fn stored_trials(store: &Path) -> Option<i64> {
    let mut c = SqliteConn::open_existing(Api::bundled(), store, "test reader").ok()?;
    c.query_value("SELECT count(*) FROM trials").ok()??.parse().ok()
}

/// Waits until `store` holds at least one trial.
fn wait_for_a_trial(store: &Path, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while stored_trials(store).unwrap_or(0) < 1 {
        assert!(
            matches!(child.try_wait(), Ok(None)),
            "litebench exited before a trial was stored"
        );
        assert!(Instant::now() < deadline, "no trial stored within 60 s");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Another process's connection holding `store` with `sql` (a read transaction, or BEGIN
/// EXCLUSIVE) on a thread of its own, until `hold` has passed or it is told to let go.
struct Holder {
    release: mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Holder {
    fn take(store: &Path, sql: &'static str, hold: Duration) -> Holder {
        let (taken_tx, taken) = mpsc::channel();
        let (release, release_rx) = mpsc::channel::<()>();
        let store = store.to_path_buf();
        let thread = std::thread::spawn(move || {
            let mut c = SqliteConn::open_existing(Api::bundled(), &store, "holder").unwrap();
            // litebench may be committing right now: try until the lock is ours.
            let deadline = Instant::now() + Duration::from_secs(30);
            while let Err(e) = c.execute_batch(sql) {
                let _ = c.execute_batch("ROLLBACK");
                assert!(Instant::now() < deadline, "cannot take the lock: {e}");
                std::thread::sleep(Duration::from_millis(5));
            }
            taken_tx.send(()).unwrap();
            let _ = release_rx.recv_timeout(hold);
            c.execute_batch("COMMIT").unwrap();
        });
        taken.recv().expect("the holder took the lock");
        Holder {
            release,
            thread: Some(thread),
        }
    }

    fn release(mut self) {
        let _ = self.release.send(());
        self.thread.take().unwrap().join().unwrap();
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.release.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads a child's stderr on a thread: each line as it comes, and all of it at the end.
fn read_stderr(child: &mut Child) -> (mpsc::Receiver<String>, std::thread::JoinHandle<String>) {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    let t = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
            let _ = tx.send(line);
        }
        all
    });
    (rx, t)
}

fn list(sb: &Sandbox, store: &Path) -> serde_json::Value {
    let mut cmd = sb.litebench();
    cmd.args(["show", "--list", "--format", "json", "--results"]).arg(store);
    let out = output(&mut cmd);
    assert_success(&out);
    json(&out)
}

const WAITING: &str = "waiting for another process to release results store";

/// A run during which another process holds the store with `sql` for 10 s stores every trial.
fn held_for_10_s(sql: &'static str) {
    let sb = Sandbox::new();
    let store = sb.results();
    let mut child = spawn_run(&sb, &store, TRIALS);
    let (_lines, err) = read_stderr(&mut child);
    wait_for_a_trial(&store, &mut child);
    let started = Instant::now();
    let holder = Holder::take(&store, sql, Duration::from_secs(10));
    let status = child.wait().unwrap();
    holder.release();
    let err = err.join().unwrap();
    eprintln!(
        "run ended {:.1} s after the lock was taken (held 10 s)",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(err.matches(WAITING).count(), 1, "said once what it waits for:\n{err}");
    let runs = list(&sb, &store);
    assert_eq!(runs[0]["status"], "complete", "{runs}");
    assert_eq!(runs[0]["trials"], TRIALS, "every trial is stored: {runs}");
    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "no side file for a stored run"
    );
}

#[test]
fn a_reader_holding_the_store_for_10_s_loses_no_trial() {
    held_for_10_s("BEGIN; SELECT count(*) FROM trials;");
}

#[test]
fn an_exclusive_lock_for_10_s_loses_no_trial() {
    held_for_10_s("BEGIN EXCLUSIVE;");
}

/// The side files in the sandbox's scratch directory.
fn side_files(sb: &Sandbox) -> Vec<PathBuf> {
    listing(&sb.scratch())
        .into_iter()
        .filter(|n| n.starts_with("litebench-unsaved-"))
        .map(|n| sb.scratch().join(n))
        .collect()
}

fn side_trials(side: &Path) -> usize {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(side).unwrap()).unwrap();
    v["run"]["trials"].as_array().unwrap().len()
}

#[test]
fn stopped_while_waiting_for_the_store_keeps_the_trials_in_a_side_file_that_run_and_merge_import() {
    let sb = Sandbox::new();
    let store = sb.results();
    let mut child = spawn_run(&sb, &store, TRIALS);
    let (lines, err) = read_stderr(&mut child);
    wait_for_a_trial(&store, &mut child);
    let holder = Holder::take(&store, "BEGIN EXCLUSIVE;", Duration::from_secs(60));
    // Once it says it is waiting, stop it (as Ctrl-C would).
    let deadline = Instant::now() + Duration::from_secs(50);
    loop {
        let line = lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("litebench never said it waits for the store");
        if line.contains(WAITING) {
            break;
        }
    }
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    let err = err.join().unwrap();
    holder.release();
    assert_eq!(status.code(), Some(130), "{err}");
    let sides = side_files(&sb);
    assert_eq!(sides.len(), 1, "one side file: {:?}\n{err}", listing(&sb.scratch()));
    let side = &sides[0];
    let last = err.lines().last().unwrap();
    assert!(
        last.starts_with("interrupted: ") && last.contains(&side.display().to_string()),
        "{err}"
    );
    let measured = side_trials(side);
    let in_store = list(&sb, &store)[0]["trials"].as_u64().unwrap() as usize;
    assert!(
        measured > in_store,
        "the side file holds the trial the store could not take"
    );

    // `merge` imports the side file whole into another store, and leaves it alone.
    let other = sb.results_dir().join("other.db");
    let mut merge = sb.litebench();
    merge.arg("merge").arg(&other).arg(side);
    let out = output(&mut merge);
    assert_success(&out);
    let runs = list(&sb, &other);
    assert_eq!(runs[0]["status"], "interrupted", "{runs}");
    assert_eq!(runs[0]["trials"], measured, "{runs}");
    assert!(side.is_file(), "merge leaves its inputs alone");

    // The next run with the same --dir and store imports it, says so, and removes it.
    let out = output(&mut sb.run(&tiny(1).iter().map(String::as_str).collect::<Vec<_>>()));
    assert_success(&out);
    let said = stderr(&out);
    assert!(
        said.contains(&format!(
            "imported run 1 (interrupted; trials added: {})",
            measured - in_store
        )),
        "{said}"
    );
    assert!(!side.exists(), "the imported side file is removed");
    let runs = list(&sb, &store);
    assert_eq!(runs[0]["status"], "interrupted", "{runs}");
    assert_eq!(runs[0]["trials"], measured, "every measured trial is stored: {runs}");
    assert_eq!(runs[0]["uuid"], list(&sb, &other)[0]["uuid"], "one run, wherever it is");
    assert_eq!(runs[1]["status"], "complete", "{runs}");
}

/// A small tmpfs, unmounted on drop; `None` (a skip) without root, except in CI.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        if !is_root() {
            assert!(!support_in_ci(), "this test needs root in CI");
            eprintln!("note: not root; skipped");
            return None;
        }
        std::fs::create_dir_all(dir).unwrap();
        let ok = StdCommand::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok || !support_in_ci(), "cannot mount a tmpfs");
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        unmount(&self.0);
    }
}

fn unmount(dir: &Path) {
    let ok = StdCommand::new("umount").arg(dir).status().is_ok_and(|s| s.success());
    if !ok {
        let _ = StdCommand::new("umount").arg("-l").arg(dir).status();
    }
}

fn support_in_ci() -> bool {
    crate::support::in_ci()
}

#[test]
fn a_store_on_a_full_disk_keeps_the_trials_in_a_side_file_that_the_next_run_imports() {
    let sb = Sandbox::new();
    let Some(fs) = Tmpfs::mount(&sb.root().join("small"), "4m") else {
        return;
    };
    let store = fs.0.join("r.db");
    let mut child = spawn_run(&sb, &store, 400);
    let (_lines, err) = read_stderr(&mut child);
    wait_for_a_trial(&store, &mut child);
    // Fill the disk under the store: the next trial cannot be stored.
    let filler = fs.0.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 64 << 10];
    while std::io::Write::write_all(&mut f, &block).is_ok() {}
    drop(f);
    let status = child.wait().unwrap();
    let err = err.join().unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| !is_ram_warning(l)).collect();
    assert_eq!(lines.len(), 1, "one line:\n{err}");
    let line = lines[0];
    assert!(line.starts_with("error: results store "), "{line}");
    assert_eq!(line.matches("results store").count(), 1, "said once: {line}");
    let sides = side_files(&sb);
    assert_eq!(sides.len(), 1, "{err}");
    assert!(line.contains(&sides[0].display().to_string()), "{line}");
    let measured = side_trials(&sides[0]);

    std::fs::remove_file(&filler).unwrap();
    let out = output(&mut sb.run_in(
        &sb.scratch(),
        &store,
        &tiny(1).iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    assert_success(&out);
    assert!(
        stderr(&out).contains("imported run 1 (failed; trials added: 1)"),
        "{}",
        describe(&out)
    );
    assert!(side_files(&sb).is_empty());
    let runs = list(&sb, &store);
    assert_eq!(runs[0]["status"], "failed", "{runs}");
    assert_eq!(runs[0]["trials"], measured, "{runs}");
    let mut show = sb.litebench();
    show.args(["show", "1", "--format", "json", "--results"]).arg(&store);
    let shown = json(&output(&mut show));
    let why = shown["run"]["error"].as_str().unwrap_or_default().to_string();
    assert!(why.starts_with("results store ") && why.contains("full"), "{why}");
    drop(fs);
}

/// A store with one finished run.
fn store_with_a_run(sb: &Sandbox) -> PathBuf {
    let out = output(&mut sb.run(SMALLEST_CRUD));
    assert_success(&out);
    sb.results()
}

#[test]
fn a_damaged_store_is_refused_before_anything_runs() {
    let sb = Sandbox::new();
    let store = store_with_a_run(&sb);
    // Garbage over a page in the middle of the file (not the header page).
    let mut bytes = std::fs::read(&store).unwrap();
    let pages = bytes.len() / 4096;
    assert!(pages >= 3, "a store of {pages} pages");
    let at = 4096 * (pages / 2);
    for (i, b) in bytes[at..at + 4096].iter_mut().enumerate() {
        *b = (i * 7 + 13) as u8;
    }
    std::fs::write(&store, &bytes).unwrap();
    let out = output(&mut sb.run(SMALLEST_CRUD));
    assert_run_error_line(
        &out,
        &[
            &format!(
                "--results {}: the store is damaged (PRAGMA quick_check: ",
                store.display()
            ),
            "sqlite3 ",
            ".recover",
        ],
    );
    assert_eq!(std::fs::read(&store).unwrap(), bytes, "the store is left as it was");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "nothing ran");
    // Reading it says the same (it said "database disk image is malformed").
    let shown = output(&mut sb.show(&[]));
    assert_error_line(
        &shown,
        &[
            &format!("--results {}: the store is damaged (", store.display()),
            ".recover",
        ],
    );
    assert_eq!(std::fs::read(&store).unwrap(), bytes, "show left the store as it was");
}

/// `dir` bind-mounted read-only on `at`, unmounted on drop.
struct ReadOnly(PathBuf);

impl ReadOnly {
    fn mount(dir: &Path, at: &Path) -> Option<ReadOnly> {
        if !is_root() {
            assert!(!support_in_ci(), "this test needs root in CI");
            eprintln!("note: not root; skipped");
            return None;
        }
        std::fs::create_dir_all(at).unwrap();
        let bind = StdCommand::new("mount").arg("--bind").arg(dir).arg(at).status();
        assert!(bind.is_ok_and(|s| s.success()), "mount --bind");
        let ro = ReadOnly(at.to_path_buf());
        let remount = StdCommand::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(at)
            .status();
        assert!(remount.is_ok_and(|s| s.success()), "remount read-only");
        Some(ro)
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        unmount(&self.0);
    }
}

#[test]
fn a_hot_journal_on_a_read_only_filesystem_is_named_as_such() {
    let sb = Sandbox::new();
    let store = store_with_a_run(&sb);
    // A writer killed mid-transaction: a copy of the store and its journal taken while the
    // transaction is open (its pages spilled to the file) is what such a writer leaves.
    let killed = sb.root().join("killed");
    std::fs::create_dir(&killed).unwrap();
    {
        let mut c = SqliteConn::open_existing(Api::bundled(), &store, "writer").unwrap();
        c.execute_batch("PRAGMA cache_size=1; BEGIN; UPDATE trials SET record = record || ' ';")
            .unwrap();
        std::fs::copy(&store, killed.join("r.db")).unwrap();
        let mut journal = store.as_os_str().to_owned();
        journal.push("-journal");
        std::fs::copy(PathBuf::from(journal), killed.join("r.db-journal")).unwrap();
        c.execute_batch("ROLLBACK").unwrap();
    }
    let Some(ro) = ReadOnly::mount(&killed, &sb.root().join("ro")) else {
        return;
    };
    let copy = ro.0.join("r.db");
    let mut show = sb.litebench();
    show.args(["show", "--list", "--results"]).arg(&copy);
    let out = output(&mut show);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "--results {}: a killed writer left a hot journal",
            copy.display()
        )) && err.contains("copy ")
            && !err.contains("not a litebench results store"),
        "{err}"
    );
    drop(ro);
    assert_eq!(listing(&killed), vec!["r.db", "r.db-journal"], "left as it was");
}

#[test]
fn process_wide_pragmas_are_refused_and_threads_leaves_the_store_alone() {
    let sb = Sandbox::new();
    for knob in ["pragma.hard_heap_limit=1", "pragma.soft_heap_limit=1"] {
        let mut args = SMALLEST_CRUD.to_vec();
        args.extend(["--knob", knob]);
        let out = output(&mut sb.run(&args));
        let name = knob.split('=').next().unwrap();
        assert_run_error_line(&out, &[&format!("--knob {name}: "), "whole process", "results store"]);
        assert!(!sb.results().exists(), "a refused run created the store");
    }
    // `threads` is a limit of one connection: the store (another connection) is untouched.
    let mut args = tiny(3);
    args.extend(["--knob".into(), "pragma.threads=8".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    let runs = list(&sb, &sb.results());
    assert_eq!(runs[0]["status"], "complete", "{runs}");
    assert_eq!(runs[0]["trials"], 3, "{runs}");
}
