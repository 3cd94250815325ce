//! `litebench qualify --dir D` on the test's own directory, and its refusals. The filesystems
//! it is run on besides (tmpfs, FUSE, ext4 and xfs on loop devices) are in tests/fs/qualify.rs.

use crate::cli::common::*;

/// The check names every qualification reports, as the JSON keeps them.
fn check<'a>(v: &'a serde_json::Value, path: &[&str]) -> &'a str {
    let mut at = v;
    for p in path {
        at = &at[*p];
    }
    at["result"]
        .as_str()
        .unwrap_or_else(|| panic!("{path:?}: no result in {at}"))
}

#[test]
fn a_local_directory_qualifies_for_every_mode_with_syncs_counted_and_nothing_left() {
    let sb = Sandbox::new();
    let dir = sb.scratch();
    let out = output(sb.litebench().args(["qualify", "--format", "json", "--dir"]).arg(&dir));
    assert_success(&out);
    let v = json(&out);
    for path in [
        &["posix_locks", "conflicts"][..],
        &["posix_locks", "released_on_close"],
        &["ofd_locks", "conflicts"],
        &["shared_memory"],
        &["sqlite", "writer_blocks_writer"],
        &["sqlite", "wal_reader_sees_commits"],
        &["sqlite", "wal_exclusive_works"],
        &["files", "rename_atomic"],
    ] {
        assert_eq!(
            check(&v, path),
            "yes",
            "{path:?} on a local filesystem\n{}",
            describe(&out)
        );
    }
    let memory = v["environment"]["storage"]["ram_backed"].as_bool().expect("ram_backed");
    for m in v["verdicts"].as_array().expect("verdicts") {
        assert_eq!(m["between_processes"], "safe", "{m}");
        let power = if memory { "unsafe" } else { "safe" };
        assert_eq!(m["after_power_loss"], power, "{m}");
    }
    // The syncs are counted at the VFS: WAL commits without one at normal and with one at full.
    let syncs = |mode: &str, level: &str| {
        v["commits"]
            .as_array()
            .expect("commits")
            .iter()
            .find(|c| c["journal_mode"] == mode && c["synchronous"] == level)
            .and_then(|c| c["syncs_per_commit"].as_f64())
            .unwrap_or_else(|| panic!("no {mode}/{level} commits in {}", v["commits"]))
    };
    assert_eq!(syncs("wal", "normal"), 0.0);
    assert_eq!(syncs("wal", "full"), 1.0);
    assert_eq!(syncs("delete", "off"), 0.0);
    assert!(
        syncs("delete", "full") >= 2.0,
        "DELETE at full syncs journal and database"
    );
    assert_eq!(listing(&dir), Vec::<String>::new(), "qualify left files behind");
}

#[test]
fn the_verdicts_lead_the_terminal_view_at_80_columns() {
    let sb = Sandbox::new();
    let out = output(
        sb.litebench()
            .env("COLUMNS", "80")
            .args(["qualify", "--dir"])
            .arg(sb.scratch()),
    );
    assert_success(&out);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("verdict per journal mode"));
    assert!(at.is_some_and(|i| i < 5), "the verdicts are not on top:\n{text}");
    for mode in ["delete (truncate, persist)", "wal ", "wal, locking_mode=exclusive"] {
        assert!(
            lines[..12].iter().any(|l| l.starts_with(mode)),
            "{mode} not among the first lines:\n{text}"
        );
    }
    let wide: Vec<&&str> = lines.iter().filter(|l| l.chars().count() > 80).collect();
    assert!(wide.is_empty(), "lines over 80 columns: {wide:?}");
}

#[test]
fn qualify_refuses_a_missing_directory_or_a_file_in_one_line() {
    let sb = Sandbox::new();
    let missing = sb.root().join("nope");
    let out = output(sb.litebench().args(["qualify", "--dir"]).arg(&missing));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let line = stderr(&out);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("--dir") && line.contains("no such directory"), "{line}");
    let file = sb.root().join("f");
    std::fs::write(&file, "x").unwrap();
    let out = output(sb.litebench().args(["qualify", "--dir"]).arg(&file));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(stderr(&out).contains("not a directory"), "{}", describe(&out));
}

/// The exchange `qualify --guest` makes across hostfs, run here on one kernel (the hidden
/// `--across-host` the guest's qualify gets, with this test as the host's side): a lock held by
/// either process is seen by the other, so the verdicts stay what the directory deserves and
/// the line says the locks are shared. The guest's own answer is in tests/fs/guest.rs.
#[test]
fn on_one_kernel_a_lock_held_on_either_side_of_the_exchange_is_seen_by_the_other() {
    use litebench::testbed::qualify::across;
    let sb = Sandbox::new();
    let dir = sb.scratch();
    let host = sb.root().join("host-side");
    std::fs::create_dir(&host).unwrap();
    let held = across::hold(&host).unwrap();
    let child = sb
        .command()
        .args(["qualify", "--format", "json", "--dir"])
        .arg(&dir)
        .arg("--across-host")
        .arg(&host)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Answered from this process, as the host's watch does while the guest runs.
    let answered = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while !host.join(across::HOST_SAW).exists() && std::time::Instant::now() < deadline {
                across::answer_guest(&host);
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        let out = child.wait_with_output().unwrap();
        h.join().unwrap();
        out
    });
    drop(held);
    assert_success(&answered);
    let v = json(&answered);
    let a = &v["across_hostfs"];
    assert_eq!(check(a, &["host_lock_seen_in_guest"]), "yes", "{a}");
    assert_eq!(check(a, &["guest_lock_seen_on_host"]), "yes", "{a}");
    for m in v["verdicts"].as_array().expect("verdicts") {
        assert_eq!(m["between_processes"], "safe", "{m}");
    }
    assert_eq!(listing(&dir), Vec::<String>::new(), "qualify left files behind");
    // The guest's side left its files in the host's directory, for the host to remove.
    let mut made = listing(&host);
    made.sort();
    let mut expected: Vec<String> = across::NAMES
        .iter()
        .filter(|n| !n.ends_with(".part"))
        .map(|n| n.to_string())
        .collect();
    expected.sort();
    assert_eq!(made, expected);
}

#[test]
fn qualify_refuses_a_guest_memory_below_128m_in_one_line() {
    let sb = Sandbox::new();
    let out = output(
        sb.litebench()
            .args(["qualify", "--guest", "--guest-memory", "64M", "--dir"])
            .arg(sb.scratch()),
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let line = stderr(&out);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains("--guest-memory 64M") && line.contains("at least 128M"),
        "{line}"
    );
}
