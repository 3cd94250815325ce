//! A cast's sidecar role: Litestream (built by tests/sidecar/fetch-litestream.sh) replicating
//! the trial database beside a writer, its process tree's CPU recorded and nothing of it left
//! running; a sidecar stopped by SIGTERM, one that ignores it killed after its grace (said), one
//! that exits at once failing the trial in one line, a program that cannot run refused before
//! anything runs, and one a `kill -9`ed litebench left stopped by `cleanup`.

use crate::cli::common::*;
use crate::support::in_ci;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Litestream as CI builds it: `LITEBENCH_LITESTREAM`, or the pinned version in litebench's
/// cache. Skipped locally where missing; a failure in CI.
fn litestream() -> Option<PathBuf> {
    let path = std::env::var_os("LITEBENCH_LITESTREAM")
        .map(PathBuf::from)
        .or_else(|| {
            let root = litebench::sys::cachedir::root().ok()?;
            Some(root.join("litestream/v0.5.17/bin/litestream"))
        })
        .filter(|p| p.is_file());
    if path.is_none() {
        assert!(
            !in_ci(),
            "Litestream is missing: .ci/run must run tests/sidecar/fetch-litestream.sh \"$LITEBENCH_CACHE\" before the tests"
        );
        eprintln!("skipping: no Litestream (bash tests/sidecar/fetch-litestream.sh \"$LITEBENCH_CACHE\")");
    }
    path
}

/// A cast of a writer at 100 tx/s and a sidecar role running `command` with `extra` keys.
fn cast(sb: &Sandbox, command: &[&str], extra: &str) -> String {
    let words: Vec<String> = command.iter().map(|w| format!("{w:?}")).collect();
    let text = format!(
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 100\nparams = {{ workload = \"a\" }}\n\n\
         [[role]]\nname = \"side\"\nkind = \"sidecar\"\ncommand = [{}]\n{extra}",
        words.join(", ")
    );
    let path = sb.root().join("cast.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn run(sb: &Sandbox, file: &str, duration: &str) -> std::process::Output {
    run_trials(sb, file, duration, "1")
}

/// `run` with `trials` trials.
fn run_trials(sb: &Sandbox, file: &str, duration: &str, trials: &str) -> std::process::Output {
    output(&mut sb.run(&[
        "ycsb",
        "--cast",
        file,
        "--param",
        "records=200",
        "--param",
        &format!("duration={duration}"),
        "--knob",
        "journal_mode=wal",
        "--trials",
        trials,
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
}

/// `run ycsb --cast FILE` of one trial of `duration` on 200 records, started in the background
/// (its output dropped): for tests that stop or kill it on their own.
fn start(sb: &Sandbox, file: &str, duration: &str) -> std::process::Child {
    sb.run_std(&[
        "ycsb",
        "--cast",
        file,
        "--param",
        "records=200",
        "--param",
        &format!("duration={duration}"),
        "--knob",
        "journal_mode=wal",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .expect("start litebench")
}

/// The trial's sidecar record.
fn sidecar(out: &std::process::Output) -> serde_json::Value {
    json(out)["trials"][0]["cast"]["sidecars"][0].clone()
}

/// Processes whose executable is `exe`.
fn running(exe: &Path) -> Vec<u32> {
    let exe = exe.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == exe))
        .collect()
}

fn files_under(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .map(|e| if e.path().is_dir() { files_under(&e.path()) } else { 1 })
            .sum()
    })
}

#[test]
fn litestream_replicates_beside_a_writer_with_its_cpu_recorded_and_none_left_running() {
    let Some(ls) = litestream() else { return };
    let sb = Sandbox::new();
    let ls_text = ls.display().to_string();
    let file = cast(&sb, &[&ls_text, "replicate", "{db}", "file://{scratch}/replica"], "");
    // Four seconds: Litestream's first sync to its replica comes a second after it has started
    // and read the database, which on two loaded cores took longer than a 2 s trial.
    let out = run(&sb, &file, "4s");
    assert_success(&out);
    let s = sidecar(&out);
    assert_eq!(s["role"], "side");
    assert_eq!(s["stopped"], "term", "{s}");
    assert!(s["cpu_ms"].as_u64().unwrap() > 0, "its CPU: {s}");
    assert!(s["ran_ms"].as_u64().unwrap() >= 3500, "{s}");
    let replicas: Vec<PathBuf> = trial_dirs(&sb)
        .into_iter()
        .map(|d| d.join("replica"))
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(replicas.len(), 1, "the trial's scratch directory holds the replica");
    assert!(files_under(&replicas[0]) > 0, "Litestream replicated into it");
    assert_eq!(running(&ls), Vec::<u32>::new(), "no Litestream left running");
}

#[test]
fn a_sidecar_stops_on_sigterm_and_one_that_ignores_it_is_killed_after_its_grace_and_said() {
    let sb = Sandbox::new();
    let file = cast(&sb, &["sleep", "1000"], "");
    let out = run(&sb, &file, "1s");
    assert_success(&out);
    let s = sidecar(&out);
    assert_eq!(
        (s["stopped"].as_str(), s["exit"].as_str()),
        (Some("term"), Some("signal 15 (SIGTERM)"))
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("SIGKILL"));

    let sb = Sandbox::new();
    let file = cast(&sb, &["sh", "-c", "trap '' TERM; sleep 1000"], "grace = \"300ms\"\n");
    let t0 = Instant::now();
    let out = run(&sb, &file, "1s");
    assert_success(&out);
    let s = sidecar(&out);
    assert_eq!(s["stopped"], "kill", "{s}");
    assert!(s["exit"].as_str().unwrap().contains("SIGKILL"), "{s}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("was killed")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].starts_with("warning: --cast ")
            && said[0].contains("role \"side\": the sidecar (pid ")
            && said[0].contains("was still running 300 ms after SIGTERM and was killed (SIGKILL)"),
        "{}",
        said[0]
    );
    assert!(t0.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_sidecar_that_exits_at_once_fails_the_trial_in_one_line_with_its_status_and_last_line() {
    let sb = Sandbox::new();
    let file = cast(
        &sb,
        &["sh", "-c", "echo starting; echo 'cannot open replica' >&2; exit 3"],
        "",
    );
    let out = run(&sb, &file, "1s");
    let line = assert_run_error_line(
        &out,
        &[
            "role \"side\": the sidecar `sh -c",
            "exited at once (exit 3, within 200 ms of its start); its last line: cannot open replica",
        ],
    );
    assert!(line.starts_with(&format!("error: --cast {file}: role")), "{line}");
}

#[test]
fn a_sidecar_program_that_is_not_executable_is_refused_before_anything_runs() {
    let sb = Sandbox::new();
    let script = sb.root().join("replicate.sh");
    std::fs::write(&script, "#!/bin/sh\nsleep 1000\n").unwrap();
    let script = script.display().to_string();
    let file = cast(&sb, &[&script, "{db}"], "");
    let out = run(&sb, &file, "1s");
    assert_eq!(out.status.code(), Some(2));
    assert_error_line(
        &out,
        &[&format!(
            "--cast {file}: role \"side\": command: \"{script}\" is not executable; chmod +x it, or give an executable program"
        )],
    );
    assert!(!sb.results().exists(), "nothing ran, nothing stored");
}

/// The sidecar's own `sh` dies with litebench (its death signal); the `sleep` it started stays
/// in its process group until `cleanup` finds the record and stops it.
#[test]
fn what_a_kill_9ed_run_left_of_a_sidecar_is_stopped_by_cleanup() {
    let sb = Sandbox::new();
    let file = cast(&sb, &["sh", "-c", "sleep 1000 & wait"], "");
    let mut child = start(&sb, &file, "60s");
    let records = sb.scratch().join("litebench-sidecars");
    let t0 = Instant::now();
    let record = loop {
        // The record named after the sidecar's pid, written once it started (the one written
        // before it, `pending-….json`, names only its container).
        let found = std::fs::read_dir(&records).ok().and_then(|d| {
            d.flatten().map(|e| e.path()).find(|p| {
                p.file_stem()
                    .is_some_and(|s| s.to_string_lossy().parse::<u32>().is_ok())
            })
        });
        if let Some(r) = found.filter(|r| std::fs::read_to_string(r).is_ok_and(|t| t.ends_with('}'))) {
            break r;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "no sidecar record appeared");
        std::thread::sleep(Duration::from_millis(50));
    };
    let rec: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let pgid = rec["sidecar"]["pid"].as_u64().unwrap() as i32;
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let group = || litebench::sys::proctree::members(pgid as u32).len() - 1;
    let t0 = Instant::now();
    while litebench::sys::owner::start_time(pgid as u32).is_some() && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(group(), 1, "its sleep outlived litebench and the sidecar's sh");
    let out = output(
        sb.litebench()
            .args(["cleanup", "--dir", &sb.scratch().display().to_string()]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("stopped: sidecar of role \"side\" (pid {pgid}, sh -c sleep 1000 & wait: 1 process(es) of its tree still running) a killed run left running")),
        "{stdout}"
    );
    let t0 = Instant::now();
    while group() > 0 && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(group(), 0, "nothing of the sidecar is left");
    assert!(!record.exists());
}

#[test]
fn what_a_sidecar_leaves_keeps_the_run_directory_said_once_not_as_a_killed_runs() {
    let sb = Sandbox::new();
    let file = cast(&sb, &["sh", "-c", "echo x > '{scratch}/its-own'; exec sleep 1000"], "");
    let first = run(&sb, &file, "1s");
    assert_success(&first);
    let said = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(
        said.lines().any(|l| l.starts_with("kept ")
            && l.ends_with(
                "it holds what litebench did not make (trial-0.scratch); remove it when you are done with them"
            )),
        "{said}"
    );
    // The next run in the same --dir finds a finished run's directory, not a killed one's.
    let second = run(&sb, &file, "1s");
    assert_success(&second);
    let said = String::from_utf8_lossy(&second.stderr).into_owned();
    assert!(!said.contains("killed run"), "{said}");
}

/// Every trial's scratch directory (`RUN/trial-N.scratch`) under the sandbox's `--dir`.
fn trial_dirs(sb: &Sandbox) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(sb.scratch())
        .unwrap()
        .flatten()
        .filter(|run| run.path().is_dir())
        .flat_map(|run| std::fs::read_dir(run.path()).unwrap().flatten().map(|e| e.path()))
        .filter(|p| p.is_dir() && p.extension().is_some_and(|x| x == "scratch"))
        .collect();
    dirs.sort();
    dirs
}

/// `{scratch}` is each trial's own directory: a later trial's sidecar never starts beside what
/// an earlier trial's wrote (a replica of another database); kept by default, removed with
/// `keep = false`.
#[test]
fn each_trial_s_sidecar_gets_a_scratch_directory_of_its_own() {
    let sb = Sandbox::new();
    let seen = [
        "sh",
        "-c",
        "l=$(ls -A '{scratch}'); printf %s \"$l\" > '{scratch}/seen'; exec sleep 1000",
    ];
    let file = cast(&sb, &seen, "grace = \"1s\"\n");
    let out = run_trials(&sb, &file, "500ms", "3");
    assert_success(&out);
    let dirs = trial_dirs(&sb);
    assert_eq!(dirs.len(), 3, "one directory per trial: {dirs:?}");
    for d in &dirs {
        let listed = std::fs::read_to_string(d.join("seen")).unwrap();
        assert_eq!(
            listed,
            "",
            "{} started empty, not with an earlier trial's files",
            d.display()
        );
    }

    let sb = Sandbox::new();
    let file = cast(&sb, &seen, "grace = \"1s\"\nkeep = false\n");
    let out = run_trials(&sb, &file, "500ms", "2");
    assert_success(&out);
    assert_eq!(
        trial_dirs(&sb),
        Vec::<PathBuf>::new(),
        "keep = false removed each trial's"
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !said.contains("kept "),
        "nothing of the sidecar's is left to keep: {said}"
    );
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

/// The pid a sidecar wrote into `file` once it started.
fn pid_in(file: &Path) -> u32 {
    let t0 = Instant::now();
    loop {
        if let Some(p) = std::fs::read_to_string(file).ok().and_then(|t| t.trim().parse().ok()) {
            return p;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the sidecar never wrote {}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A process a sidecar starts outside its process group (`setsid`) does not outlive the run,
/// nor a `kill -9`ed run once `cleanup` has run.
#[test]
fn what_a_sidecar_starts_outside_its_group_does_not_outlive_the_run_or_a_kill_9() {
    let sb = Sandbox::new();
    let pidfile = sb.root().join("escaped.pid");
    let script = format!("setsid sleep 777 & echo $! > {}; exec sleep 1000", pidfile.display());
    let file = cast(&sb, &["sh", "-c", &script], "");
    let out = run(&sb, &file, "1s");
    assert_success(&out);
    let escaped = pid_in(&pidfile);
    let t0 = Instant::now();
    while alive(escaped) && t0.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(escaped), "the setsid sleep ({escaped}) outlived the run");
    std::fs::remove_file(&pidfile).unwrap();
    let mut child = start(&sb, &file, "60s");
    let escaped = pid_in(&pidfile);
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(alive(escaped), "kill -9 leaves the setsid sleep running until cleanup");
    let out = output(
        sb.litebench()
            .args(["cleanup", "--dir", &sb.scratch().display().to_string()]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("stopped: sidecar of role \"side\""), "{stdout}");
    let t0 = Instant::now();
    while alive(escaped) && t0.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(escaped), "cleanup stopped the setsid sleep ({escaped})");
}

/// Ctrl-C while a sidecar that ignores SIGTERM has its grace: the run stops at once (not
/// after the grace), exit 130, the sidecar killed.
#[test]
fn a_stop_during_a_sidecar_s_grace_is_answered_at_once() {
    let sb = Sandbox::new();
    let pidfile = sb.root().join("side.pid");
    let script = format!("trap '' TERM; echo $$ > {}; exec sleep 1000", pidfile.display());
    let file = cast(&sb, &["sh", "-c", &script], "grace = \"20s\"\n");
    let mut child = start(&sb, &file, "20s");
    let side = pid_in(&pidfile);
    std::thread::sleep(Duration::from_millis(500));
    // The grace is 20 s: a run that honours the stop ends long before it.
    let (status, took) = interrupt_within(
        &mut child,
        Duration::from_secs(10),
        "litebench held the stop up for the sidecar's grace",
    );
    eprintln!("exited {status:?} {took:?} after SIGINT");
    assert_eq!(status.code(), Some(130));
    assert!(!alive(side), "the sidecar was killed");
}

/// As root, a cast file or a sidecar program another user owns is refused before anything
/// runs: its content would become commands root starts.
#[test]
fn as_root_a_cast_file_or_program_another_user_owns_is_refused() {
    if !is_root() {
        eprintln!("skipping: needs root to give files away");
        return;
    }
    let sb = Sandbox::new();
    let file = cast(&sb, &["sleep", "1000"], "");
    std::os::unix::fs::chown(&file, Some(65534), None).unwrap();
    let out = run(&sb, &file, "1s");
    assert_eq!(out.status.code(), Some(2));
    assert_error_line(
        &out,
        &[&format!(
            "--cast {file} is owned by uid 65534, not root: root runs no cast file (its sidecars are commands it starts) another user can change; run `chown root {file}`"
        )],
    );
    // The cast file root writes anew (writing over it would keep its owner).
    std::fs::remove_file(&file).unwrap();
    let script = sb.root().join("replicate.sh");
    std::fs::write(&script, "#!/bin/sh\nexec sleep 1000\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&script, Some(65534), None).unwrap();
    let script = script.display().to_string();
    let file = cast(&sb, &[&script, "{db}"], "");
    let out = run(&sb, &file, "1s");
    assert_eq!(out.status.code(), Some(2));
    assert_error_line(
        &out,
        &[&format!(
            "role \"side\": command: {script} is owned by uid 65534, not root: root runs no program"
        )],
    );
    assert!(!sb.results().exists(), "nothing ran, nothing stored");
}
