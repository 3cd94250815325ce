//! Odd but valid input that once made litebench panic: it is accepted and the run completes.

use crate::cli::common::*;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

#[test]
fn a_scratch_directory_whose_name_is_not_utf8() {
    // The manifest records the command line; reading it with std::env::args panicked on an
    // argument that is not UTF-8.
    let sb = Sandbox::new();
    let dir = sb.scratch().join(OsStr::from_bytes(b"caf\xe9"));
    std::fs::create_dir(&dir).unwrap();
    let out = output(
        sb.run_in(&dir, &sb.results(), &["crud"])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_success(&out);
    assert_eq!(listing(&dir), Vec::<String>::new(), "scratch not cleaned up");
    let v = sb.show_json();
    let command: Vec<&str> = v["manifest"]["command"]
        .as_array()
        .expect("the command line")
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        command.iter().any(|a| a.ends_with("caf\u{fffd}")),
        "the directory is recorded, lossily: {command:?}"
    );
}

#[test]
fn an_empty_litebench_results_is_unset() {
    // An empty path made SQLite keep the results in a temporary database that vanished.
    let sb = Sandbox::new();
    let mut cmd = sb.litebench();
    cmd.env("LITEBENCH_RESULTS", "")
        .args(["run", "crud", "--dir"])
        .arg(sb.scratch())
        .args(TINY_PARAMS)
        .args(TINY_COUNTS);
    let out = output(&mut cmd);
    assert_success(&out);
    let store = sb.cwd().join("xdg").join("litebench").join("results.db");
    assert!(
        store.is_file(),
        "results not in $XDG_DATA_HOME/litebench\n{}",
        describe(&out)
    );
    assert!(
        stdout(&out).contains(&store.display().to_string()),
        "{}",
        describe(&out)
    );
}
