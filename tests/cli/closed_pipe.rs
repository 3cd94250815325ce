//! Standard output closed under litebench (`litebench show | head -1`): every command ends
//! quietly with its own exit status, and a run still stores every trial and cleans up.
//!
//! The child's stdout is the write end of a pipe whose read end is closed before the child
//! starts, so its very first write fails with EPIPE, every time: no race with a reader.

use crate::cli::common::*;
use std::process::{Command, Output, Stdio};

/// Runs `cmd` with stdout a pipe nobody reads (already closed) and stderr captured.
fn with_closed_stdout(mut cmd: Command) -> Output {
    let (reader, writer) = std::io::pipe().expect("create a pipe");
    drop(reader);
    cmd.stdin(Stdio::null()).stdout(writer).stderr(Stdio::piped());
    let child = cmd.spawn().expect("start litebench");
    drop(cmd); // the parent's copy of the write end
    child.wait_with_output().expect("wait for litebench")
}

/// Exit 0 (not killed by SIGPIPE, no panic), and nothing on stderr but the RAM-filesystem
/// warning `run` gives for a tmpfs scratch directory.
fn assert_quiet_success(o: &Output, what: &str) {
    assert_no_panic(o);
    assert_eq!(o.status.code(), Some(0), "{what}\n{}", describe(o));
    let err = stderr(o);
    let noise: Vec<&str> = err.lines().filter(|l| !is_ram_warning(l)).map(str::trim).collect();
    assert!(noise.is_empty(), "{what}: stderr is not quiet\n{}", describe(o));
}

fn tiny_run(sb: &Sandbox) {
    let out = output(&mut sb.run_tiny(&["crud"]));
    assert_success(&out);
}

fn std_args(sb: &Sandbox, args: &[&str]) -> Command {
    let mut cmd = sb.std_command();
    cmd.args(args);
    cmd
}

#[test]
fn show_and_list_end_quietly_when_the_reader_has_gone() {
    let sb = Sandbox::new();
    tiny_run(&sb);
    let results = sb.results();
    let results = results.to_str().unwrap();
    let scratch = sb.scratch();
    for args in [
        vec!["show", "--format", "json", "--results", results],
        vec!["show", "--results", results],
        vec!["show", "--format", "csv", "--results", results],
        vec!["show", "--side-by-side", "--results", results],
        vec!["show", "--list", "--format", "csv", "--results", results],
        vec!["show", "--list", "--format", "json", "--results", results],
        vec!["list"],
        vec!["list", "--format", "json"],
        vec!["env", "--no-sync", "--dir", scratch.to_str().unwrap()],
    ] {
        let out = with_closed_stdout(std_args(&sb, &args));
        assert_quiet_success(&out, &args.join(" "));
    }
}

#[test]
fn a_run_whose_reader_has_gone_still_stores_every_trial_and_cleans_up() {
    let sb = Sandbox::new();
    let mut cmd = sb.std_command();
    cmd.args(["run", "crud"])
        .args(TINY_PARAMS)
        .args(TINY_COUNTS)
        .arg("--results")
        .arg(sb.results())
        .arg("--dir")
        .arg(sb.scratch());
    let out = with_closed_stdout(cmd);
    assert_quiet_success(&out, "run crud");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "scratch not cleaned up");
    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    assert_eq!(v["trials"].as_array().map(Vec::len), Some(2), "every trial stored");
}

#[test]
fn later_runs_of_a_preset_comparison_go_on_after_the_reader_has_gone() {
    // Two workloads, so two runs: the first report hits the closed pipe, the second run must
    // still happen and be stored.
    let sb = Sandbox::new();
    let mut cmd = sb.std_command();
    cmd.args([
        "run",
        "--preset",
        "mobibench",
        "--preset",
        "androbench",
        "--param",
        "count=5",
        "--param",
        "scale_percent=1",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
    ])
    .arg("--results")
    .arg(sb.results())
    .arg("--dir")
    .arg(sb.scratch());
    let out = with_closed_stdout(cmd);
    // Said before anything runs: each --param names the preset it does not apply to.
    let err = stderr(&out);
    assert!(
        err.contains("warning: --param count=5 does not apply to preset androbench")
            && err.contains("warning: --param scale_percent=1 does not apply to preset mobibench"),
        "{}",
        describe(&out)
    );
    let mut out = out;
    out.stderr = err
        .lines()
        .filter(|l| !l.starts_with("warning: --param "))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes();
    assert_quiet_success(&out, "run --preset mobibench --preset androbench");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "scratch not cleaned up");
    let list = output(&mut sb.show(&["--list", "--format", "json"]));
    assert_success(&list);
    let runs = json(&list);
    let runs = runs.as_array().expect("a list of runs");
    let got: Vec<(&str, &str)> = runs
        .iter()
        .map(|r| (r["workload"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [("mobibench", "complete"), ("androbench", "complete")],
        "{runs:#?}"
    );
}

#[test]
fn other_stdout_errors_are_one_error_line_and_exit_2() {
    let full = std::path::Path::new("/dev/full");
    if !full.exists() {
        eprintln!("note: no /dev/full; skipping");
        return;
    }
    let sb = Sandbox::new();
    let mut cmd = sb.std_command();
    cmd.arg("list")
        .stdout(std::fs::File::create(full).unwrap())
        .stderr(Stdio::piped());
    let out = cmd.output().expect("run litebench");
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{}", describe(&out));
    assert!(
        err.starts_with("error: cannot write to standard output: No space left on device"),
        "{}",
        describe(&out)
    );
}
