//! `litebench ssb-gen`: writes dbgen-identical `.tbl` files, refuses bad input with one line
//! and exit code 2, and never overwrites a file it did not create.

use crate::cli::common::*;
use sha2::{Digest, Sha256};
use std::path::Path;

fn ssb_gen(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let mut cmd = sb.command();
    cmd.arg("ssb-gen").args(args);
    cmd.output().expect("run litebench")
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read a .tbl file");
    Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn writes_dbgen_identical_tables_into_a_new_directory() {
    let sb = Sandbox::new();
    let out_dir = sb.scratch().join("new").join("sf0.01");
    let out = ssb_gen(
        &sb,
        &["--scale", "0.01", "--out", out_dir.to_str().unwrap(), "--threads", "2"],
    );
    assert_success(&out);
    assert_eq!(
        listing(&out_dir),
        ["customer.tbl", "date.tbl", "lineorder.tbl", "part.tbl", "supplier.tbl"]
    );
    // ssb-dbgen ae1e254, `dbgen -q -s 0.01` (see crates/ssbgen/tests/dbgen_hashes.rs).
    assert_eq!(
        sha256(&out_dir.join("lineorder.tbl")),
        "36bdb8fc2c6edfd9b4b54114d57921b0099dc5ffba55f4b29c7e409c55063e4b"
    );
    assert_eq!(
        sha256(&out_dir.join("customer.tbl")),
        "c82a776ba66bedf340adac8289d91b013285534df80edf456a31bec70aa029ea"
    );
    let report = stdout(&out);
    assert!(report.contains("lineorder.tbl: 60176 lines"), "{report}");
    sb.assert_cwd_untouched();
}

#[test]
fn writes_only_the_tables_asked_for() {
    let sb = Sandbox::new();
    let dir = sb.scratch();
    let out = ssb_gen(
        &sb,
        &[
            "--scale",
            "0.01",
            "--out",
            dir.to_str().unwrap(),
            "--tables",
            "date,part",
        ],
    );
    assert_success(&out);
    assert_eq!(listing(&dir), ["date.tbl", "part.tbl"]);
    // The whole date table by default, at any scale: dbgen's SF 1 date.tbl (1992 to 1998).
    assert_eq!(
        sha256(&dir.join("date.tbl")),
        "a389677a574fc53906f17b3bfb0be93dd4ebe9c12295d45c01eb1c58a1152aa7"
    );
    // --dates dbgen: dbgen's own bytes at 0.01, 25 days of January 1992.
    let dbgen = sb.scratch().join("dbgen");
    let out = ssb_gen(
        &sb,
        &[
            "--scale",
            "0.01",
            "--out",
            dbgen.to_str().unwrap(),
            "--tables",
            "date",
            "--dates",
            "dbgen",
        ],
    );
    assert_success(&out);
    assert!(stdout(&out).contains("date.tbl: 25 lines"), "{}", stdout(&out));
    assert_eq!(
        sha256(&dbgen.join("date.tbl")),
        "20342ada3f2185b008ea9961cc4ce7bd4379844a1216388e720da52d4a3143c2"
    );
    let out = ssb_gen(
        &sb,
        &["--scale", "0.01", "--out", dbgen.to_str().unwrap(), "--dates", "all"],
    );
    assert_error_line(&out, &["error: --dates all: dates `all` is not known; give whole"]);
}

#[test]
fn never_overwrites_an_existing_tbl_file() {
    let sb = Sandbox::new();
    let dir = sb.scratch();
    std::fs::write(dir.join("lineorder.tbl"), "mine\n").unwrap();
    let out = ssb_gen(&sb, &["--scale", "0.01", "--out", dir.to_str().unwrap()]);
    assert_error_line(
        &out,
        &[
            "error: --out ",
            "lineorder.tbl already exists; litebench does not overwrite files it did not create",
        ],
    );
    assert_eq!(std::fs::read_to_string(dir.join("lineorder.tbl")).unwrap(), "mine\n");
    assert_eq!(
        listing(&dir),
        ["lineorder.tbl"],
        "nothing else was written before the refusal"
    );
}

#[test]
fn bad_scales_are_refused_naming_the_flag() {
    for (scale, why) in [
        ("0", "error: --scale 0: scale factor 0 is not positive"),
        ("-1", "error: --scale -1: scale factor -1 is not positive"),
        ("abc", "error: --scale abc: scale factor `abc` is not a number"),
        ("1.5", "error: --scale 1.5: scale factor 1.5 has a fraction above 1"),
        ("inf", "error: --scale inf: scale factor inf is not finite"),
    ] {
        let sb = Sandbox::new();
        let dir = sb.scratch().join("out");
        let out = ssb_gen(&sb, &["--scale", scale, "--out", dir.to_str().unwrap()]);
        assert_error_line(&out, &[why]);
        assert!(!dir.exists(), "--scale {scale}: --out was created");
    }
}

#[test]
fn unknown_tables_and_file_as_out_are_refused() {
    let sb = Sandbox::new();
    let dir = sb.scratch();
    let out = ssb_gen(
        &sb,
        &[
            "--scale",
            "0.01",
            "--out",
            dir.to_str().unwrap(),
            "--tables",
            "part,orders",
        ],
    );
    assert_error_line(
        &out,
        &["error: --tables orders: unknown table; valid tables: part, supplier, customer, date, lineorder"],
    );
    let file = dir.join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let out = ssb_gen(&sb, &["--scale", "0.01", "--out", file.to_str().unwrap()]);
    assert_error_line(&out, &["error: --out ", "plain-file: not a directory"]);
    assert_eq!(listing(&dir), ["plain-file"]);
}

#[test]
fn ctrl_c_removes_only_the_incomplete_file() {
    stop_removes_only_the_incomplete_file(libc::SIGINT);
}

#[test]
fn a_closed_terminal_removes_only_the_incomplete_file() {
    stop_removes_only_the_incomplete_file(libc::SIGHUP);
}

/// Stops `ssb-gen` with `sig` while it writes lineorder: exit 130, the incomplete file removed.
fn stop_removes_only_the_incomplete_file(sig: libc::c_int) {
    use std::time::{Duration, Instant};
    let sb = Sandbox::new();
    let dir = sb.scratch();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    // SF 10's lineorder (6 GB) takes far longer than the test waits; date is written first.
    let mut child = sb
        .command()
        .args([
            "ssb-gen",
            "--scale",
            "10",
            "--tables",
            "date,lineorder",
            "--threads",
            "1",
        ])
        .arg("--out")
        .arg(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start litebench");
    // The table is written under a temporary name beside it until complete.
    let growing = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".lineorder.tbl"))
            .any(|e| e.metadata().map_or(0, |m| m.len()) > 0)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !growing() {
        assert!(Instant::now() < deadline, "lineorder.tbl never grew");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: signalling our own child, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("litebench did not stop within 30 s of signal {sig}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("collect output");
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(130), "{}", describe(&out));
    assert!(
        stderr(&out).contains("interrupted: the incomplete ") && stderr(&out).contains("lineorder.tbl was removed"),
        "{}",
        describe(&out)
    );
    assert_eq!(
        listing(&dir),
        ["date.tbl", "notes.txt"],
        "the finished table and the user's file stay"
    );
}
