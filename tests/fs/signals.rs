//! Ctrl-C, SIGTERM and SIGHUP (a closed terminal) on a `--fs` run, during the population of a
//! template and during trials: each ends the run `interrupted` with exit 130, and leaves no
//! mount, loop device or file behind.

use super::*;

const SIGNALS: [(libc::c_int, &str); 3] = [
    (libc::SIGINT, "SIGINT"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGHUP, "SIGHUP"),
];

/// The template files anywhere under `dir` (on the mounted filesystems too), with their sizes.
fn templates_under(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_dir() {
            out.extend(templates_under(&e.path()));
        } else if e.file_name().to_string_lossy().starts_with("template-") {
            out.push((e.path(), meta.len()));
        }
    }
    out
}

/// A crud run on ext4 whose population alone takes minutes (100 million rows; the 2 GB sparse
/// image fills long after the test's bound).
fn start_huge_population(sb: &Sandbox) -> Child {
    sb.run_std(&[&["crud", "--fs", "ext4", "--fs-size", "2G"][..], HUGE_POPULATION].concat())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start litebench")
}

/// Waits until a template on the mounted filesystem is being filled (over 1 MiB).
fn wait_for_population(sb: &Sandbox, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(matches!(child.try_wait(), Ok(None)), "litebench exited early");
        if !mounts_under(sb.root()).is_empty() && templates_under(&sb.scratch()).iter().any(|(_, n)| *n > 1 << 20) {
            return;
        }
        assert!(Instant::now() < deadline, "no template grew within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits (at most `limit`) for the child to exit; kills it and fails if it does not.
fn finish_within(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    while matches!(child.try_wait(), Ok(None)) {
        if Instant::now() > deadline {
            let _ = child.kill();
            let o = finish(child);
            panic!(
                "litebench did not exit within {limit:?} of the signal\n{}",
                describe(&o)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    finish(child)
}

/// On a failed assertion, undoes what a run that did not clean up left (its record lists it),
/// so a failing test leaves no mount or loop device behind either.
struct UndoOnFailure<'a>(&'a Sandbox);

impl Drop for UndoOnFailure<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut cmd = self.0.command();
            let _ = cmd.arg("cleanup").arg("--dir").arg(self.0.scratch()).output();
        }
    }
}

/// What every stopped run must leave: exit 130 without a panic, the run stored as
/// interrupted, and nothing of its filesystems.
fn assert_stopped(sb: &Sandbox, o: &Output, context: &str) {
    assert_eq!(o.status.code(), Some(130), "{context}\n{}", describe(o));
    assert!(!stderr(o).contains("panicked"), "{context}\n{}", describe(o));
    let listed = json(&output(&mut sb.show_std(&["--list", "--format", "json"])));
    assert_eq!(listed[0]["status"], "interrupted", "{context}: {listed:#}");
    assert_nothing_left(sb, context);
}

#[test]
fn each_stop_signal_during_a_population_on_fs_ends_it_and_undoes_the_mounts() {
    if !require_root() {
        return;
    }
    for (sig, name) in SIGNALS {
        let sb = Sandbox::new();
        let _undo = UndoOnFailure(&sb);
        let mut child = start_huge_population(&sb);
        wait_for_population(&sb, &mut child);
        assert_eq!(loops_under(sb.root()).len(), 1, "ext4's loop device");
        signal(&child, sig);
        // Generous: the run exits within about a second; today it populated for minutes.
        let o = finish_within(child, Duration::from_secs(30));
        let context = format!("{name} during the population");
        assert_stopped(&sb, &o, &context);
        assert_eq!(templates_under(sb.root()), Vec::new(), "{context}: template left");
    }
}

#[test]
fn each_stop_signal_during_trials_on_fs_keeps_them_and_undoes_the_mounts() {
    if !require_root() {
        return;
    }
    for (sig, name) in SIGNALS {
        let sb = Sandbox::new();
        let _undo = UndoOnFailure(&sb);
        let mut child = start_long_run(&sb);
        wait_for_mounts(&sb, &mut child);
        assert_eq!(loops_under(sb.root()).len(), 1, "ext4's loop device");
        signal(&child, sig);
        let o = finish_within(child, Duration::from_secs(30));
        assert_stopped(&sb, &o, &format!("{name} during trials"));
    }
}
