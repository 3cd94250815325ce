//! `--guest`: the run inside a user-mode Linux kernel (Debian's user-mode-linux), F2FS
//! included, stored in the host's store under the host's ids, and nothing left behind after
//! success, Ctrl-C, or `kill -9` followed by `litebench cleanup`.

use super::*;

/// Skips (locally) or fails (in CI) without the guest kernel and F2FS's mkfs.
fn require_guest() -> bool {
    require("/usr/bin/linux.uml", "user-mode-linux")
        && require("/usr/sbin/mkfs.f2fs", "f2fs-tools")
        && require("/usr/bin/kmod", "kmod")
}

/// A tiny crud run in the guest on ext4 and f2fs.
fn guest_run(sb: &Sandbox, trials: &str, extra: &[&str]) -> std::process::Command {
    let mut args = vec![
        "crud",
        "--guest",
        "--guest-memory",
        "512M",
        "--fs",
        "ext4,f2fs",
        "--fs-size",
        "64M",
        "--param",
        "rows=200",
        "--param",
        "inserts=20",
        "--param",
        "updates=20",
        "--param",
        "deletes=20",
        "--trials",
        trials,
        "--warmup",
        "0",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    sb.run_std(&args)
}

/// No guest kernel process of this sandbox is left (its command line names the sandbox).
fn assert_no_guest(sb: &Sandbox, context: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_under(sb.root());
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "{context}: left running: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_guest_run_mounts_f2fs_verifies_o_sync_and_stores_under_the_hosts_ids() {
    if !require_guest() {
        return;
    }
    let sb = Sandbox::new();
    // A run already in the host's store, so the guest's first run must not keep its id 1.
    let o = output(&mut sb.run_std(SMALLEST_CRUD));
    assert!(o.status.success(), "{}", describe(&o));
    let o = output(&mut guest_run(&sb, "1", &[]));
    assert!(o.status.success(), "{}", describe(&o));
    let v = json(&o);
    assert_eq!(v["run"]["id"], 2, "stored under the host store's next id: {v}");
    let m = &v["manifest"];
    let g = &m["guest"];
    assert!(g["release"].as_str().is_some_and(|r| !r.is_empty()), "{g}");
    assert_eq!(g["o_sync_verified"], true, "{g}");
    // The guest's scratch directory is its tmpfs: no sync latency is claimed for it.
    assert!(
        m["sync_latency"].is_null()
            && m["sync_latency_not_measured"]
                .as_str()
                .is_some_and(|w| w.contains("tmpfs")),
        "{m}"
    );
    assert!(g["syscall_ns_guest"].as_f64().unwrap() > 0.0 && g["syscall_ns_host"].as_f64().unwrap() > 0.0);
    let configs = m["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 2);
    for (c, (spec, disk)) in configs.iter().zip([("ext4", "/dev/ubda"), ("f2fs", "/dev/ubdb")]) {
        let fs = &c["fs"];
        assert_eq!(fs["spec"], spec);
        assert_eq!(fs["guest_disk"], disk, "{fs}");
        assert_eq!(
            fs["mounted"]["fs_type"], spec,
            "the kernel reports what was mounted: {fs}"
        );
        assert!(
            fs["sync_latency"]["median_us"].as_f64().is_some_and(|n| n > 0.0),
            "{fs}"
        );
    }
    // Every configuration measured, each trial with its syncs counted inside the guest.
    let show = output(&mut sb.show_std(&["--format", "json"]));
    let trials = json(&show)["trials"].as_array().cloned().unwrap_or_default();
    assert_eq!(trials.len(), 2, "{}", describe(&show));
    assert_no_guest(&sb, "after a guest run");
    sb.assert_clean("after a guest run");
}

#[test]
fn guest_refusals_name_the_flag() {
    let sb = Sandbox::new();
    let line = refusal(&output(&mut sb.run_std(&["crud", "--guest"])));
    assert!(line.contains("--guest") && line.contains("--fs"), "{line}");
    if require_guest() {
        let line = refusal(&output(&mut sb.run_std(&[
            "crud",
            "--guest",
            "--guest-memory",
            "1M",
            "--fs",
            "ext4",
        ])));
        assert!(line.contains("--guest-memory 1M"), "{line}");
    }
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

/// Starts a guest run long enough to be stopped, and waits until the guest has stored a trial.
fn start_guest_and_wait_for_a_trial(sb: &Sandbox) -> (Child, PathBuf) {
    let mut child = guest_run(sb, "200", &["--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start litebench");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if !matches!(child.try_wait(), Ok(None)) {
            let o = child.wait_with_output().expect("its output");
            panic!("litebench exited early: {}", describe(&o));
        }
        let run_dir = std::fs::read_dir(sb.scratch())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.join("guest-results.db").is_file());
        if let Some(dir) = run_dir {
            // Read a copy: a host SQLite reading the store the guest is writing through hostfs
            // shares no locks with it, and could make the guest's next write fail.
            let peek = sb.root().join("peek");
            let _ = std::fs::remove_dir_all(&peek);
            std::fs::create_dir(&peek).unwrap();
            for suffix in ["", "-journal", "-wal"] {
                let from = dir.join(format!("guest-results.db{suffix}"));
                if from.is_file() {
                    let _ = std::fs::copy(&from, peek.join(format!("r.db{suffix}")));
                }
            }
            let o = output(
                sb.command()
                    .arg("show")
                    .arg("--results")
                    .arg(peek.join("r.db"))
                    .args(["--format", "json"]),
            );
            if o.status.success() && json(&o)["trials"].as_array().is_some_and(|t| !t.is_empty()) {
                return (child, dir);
            }
        }
        assert!(Instant::now() < deadline, "no trial within 120 s");
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn ctrl_c_stops_the_run_in_the_guest_and_keeps_its_trials() {
    if !require_guest() {
        return;
    }
    let sb = Sandbox::new();
    let (child, _) = start_guest_and_wait_for_a_trial(&sb);
    signal(&child, libc::SIGINT);
    let o = finish(child);
    assert_eq!(o.status.code(), Some(130), "{}", describe(&o));
    let show = json(&output(&mut sb.show_std(&["--format", "json"])));
    assert_eq!(show["run"]["status"], "interrupted", "{show}");
    assert!(
        !show["trials"].as_array().unwrap().is_empty(),
        "the finished trials are kept"
    );
    assert_no_guest(&sb, "after Ctrl-C");
    sb.assert_clean("after Ctrl-C");
}

#[test]
fn kill_9_then_cleanup_stops_the_guest_removes_its_images_and_keeps_its_results() {
    if !require_guest() {
        return;
    }
    let sb = Sandbox::new();
    let (child, dir) = start_guest_and_wait_for_a_trial(&sb);
    signal(&child, libc::SIGKILL);
    finish(child);
    assert!(dir.join("fs0.img").is_file() && dir.join("litebench-fs.json").is_file());
    let o = output(sb.command().arg("cleanup").arg("--dir").arg(sb.scratch()));
    assert!(o.status.success(), "{}", describe(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().filter(|l| l.starts_with("undone: ")).count(), 2, "{out}");
    assert!(out.contains("kept: ") && out.contains("guest-results.db"), "{out}");
    assert_no_guest(&sb, "after kill -9 and cleanup");
    // Only the guest's results are left, readable.
    assert_eq!(listing(&dir), vec!["guest-results.db".to_string()]);
    let o = output(
        sb.command()
            .arg("show")
            .arg("--results")
            .arg(dir.join("guest-results.db")),
    );
    assert!(o.status.success(), "{}", describe(&o));
}

#[test]
fn schedulers_in_the_guest_are_set_on_its_disks_including_a_module() {
    if !require_guest() {
        return;
    }
    let sb = Sandbox::new();
    let o = output(&mut sb.run_std(&[
        "crud",
        "--guest",
        "--guest-memory",
        "512M",
        "--fs",
        "ext4",
        "--fs-size",
        "64M",
        "--scheduler",
        "none,bfq",
        "--param",
        "rows=50",
        "--param",
        "inserts=5",
        "--param",
        "updates=5",
        "--param",
        "deletes=5",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
    ]));
    assert!(o.status.success(), "{}", describe(&o));
    let v = json(&o);
    let got: Vec<(String, String)> = v["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["scheduler"].as_str().unwrap_or("").to_string(),
                c["fs"]["guest_disk"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    // bfq is a module of the guest kernel, loaded by the guest's init; each trial's scheduler
    // was set on the guest's disk and read back, or the run would have stopped.
    assert_eq!(
        got,
        vec![("none".into(), "/dev/ubda".into()), ("bfq".into(), "/dev/ubda".into())]
    );
    assert_eq!(v["trials"].as_array().map(Vec::len), Some(2));
    assert_no_guest(&sb, "after a guest run with schedulers");
    sb.assert_clean("after a guest run with schedulers");
}

/// `qualify --guest --dir D`: D qualified as the guest sees it through hostfs. Between two
/// processes in the guest the locks and the shared mapping hold (one kernel keeps them), but a
/// lock held on the host is not seen in the guest nor one held in the guest on the host (hostfs
/// keeps locks in the guest kernel), so every journal mode is unsafe between processes, with
/// the line that says why; and nothing is left in D.
#[test]
fn qualify_in_the_guest_finds_hostfs_locks_not_shared_with_the_host() {
    if !require("/usr/bin/linux.uml", "user-mode-linux") {
        return;
    }
    let sb = Sandbox::new();
    let dir = sb.root().join("volume");
    std::fs::create_dir(&dir).unwrap();
    let o = output(
        sb.command()
            .args(["qualify", "--guest", "--format", "json", "--dir"])
            .arg(&dir),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let v = json(&o);
    assert_eq!(v["environment"]["storage"]["fs_type"], "hostfs", "{}", v["environment"]);
    let result = |at: &serde_json::Value| at["result"].as_str().unwrap_or_default().to_string();
    for within in [
        &v["posix_locks"]["conflicts"],
        &v["shared_memory"],
        &v["sqlite"]["writer_blocks_writer"],
    ] {
        assert_eq!(result(within), "yes", "between two guest processes: {within}");
    }
    let a = &v["across_hostfs"];
    assert_eq!(result(&a["host_lock_seen_in_guest"]), "no", "{a}");
    assert_eq!(result(&a["guest_lock_seen_on_host"]), "no", "{a}");
    for m in v["verdicts"].as_array().expect("verdicts") {
        assert_eq!(m["between_processes"], "unsafe", "{m}");
        assert_eq!(m["verdict"], "unsafe", "{m}");
        let why = m["why"].as_str().unwrap_or_default();
        assert!(
            why.starts_with("locks are not shared between host and guest")
                && why.contains("two writers, one on each side, would corrupt the database"),
            "{m}"
        );
    }
    assert_eq!(listing(&dir), Vec::<String>::new(), "qualify --guest left files in D");
    assert_no_guest(&sb, "after qualify --guest");
    // The terminal view leads with the same line, once.
    let o = output(sb.command().args(["qualify", "--guest", "--dir"]).arg(&dir));
    assert!(o.status.success(), "{}", describe(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!("qualify {}: hostfs", dir.canonicalize().unwrap().display())),
        "{text}"
    );
    assert_eq!(
        text.matches("locks are not shared between host and guest").count(),
        1,
        "{text}"
    );
    assert_eq!(listing(&dir), Vec::<String>::new(), "qualify --guest left files in D");
}

/// Ctrl-C while the guest's qualify is probing: the stop reaches it through the host's stop
/// file, it empties its own directory, the host removes its own, and the exit code is 130.
#[test]
fn ctrl_c_stops_qualify_in_the_guest_and_leaves_nothing_in_d() {
    if !require("/usr/bin/linux.uml", "user-mode-linux") {
        return;
    }
    let sb = Sandbox::new();
    let dir = sb.root().join("volume");
    std::fs::create_dir(&dir).unwrap();
    let mut child = sb
        .command()
        .args(["qualify", "--guest", "--dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The guest's own probe directory (the host's is `.litebench-qualify-host-...`).
    let deadline = Instant::now() + Duration::from_secs(120);
    let probing = || {
        listing(&dir)
            .iter()
            .any(|n| n.starts_with(".litebench-qualify-") && !n.starts_with(".litebench-qualify-host-"))
    };
    while !probing() {
        assert!(child.try_wait().unwrap().is_none(), "qualify ended before it probed");
        assert!(Instant::now() < deadline, "the guest never started probing");
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(&child, libc::SIGINT);
    let o = finish(child);
    assert_eq!(o.status.code(), Some(130), "{}", describe(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", describe(&o));
    assert_eq!(listing(&dir), Vec::<String>::new(), "left in D after Ctrl-C");
    assert_no_guest(&sb, "after Ctrl-C");
}
