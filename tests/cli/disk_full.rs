//! A full disk under `--dir`: the run stops with one line that says the disk is full and points
//! at `--dir`, keeps what finished, and removes its scratch files.
//!
//! These tests mount a 2 MiB tmpfs, so they need root. Without root they are skipped with a
//! note, except under CI (`CI` set), where a skip would hide the missing coverage, so they fail.

use crate::cli::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small tmpfs mounted on a directory of the sandbox, unmounted on drop.
pub(crate) struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    /// Mounts a 2 MiB tmpfs on `<sandbox>/full`, or returns `None` (after the CI check) when
    /// this process cannot mount.
    pub(crate) fn mount(sb: &Sandbox) -> Option<Tmpfs> {
        let ci = std::env::var_os("CI").is_some();
        if !is_root() {
            assert!(!ci, "disk-full tests need root (to mount a tmpfs) and CI is set");
            eprintln!("note: not root; disk-full test skipped");
            return None;
        }
        let dir = sb.root().join("full");
        std::fs::create_dir(&dir).expect("create mount point");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
            .arg(&dir)
            .output()
            .expect("run mount");
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(!ci, "cannot mount a tmpfs as root and CI is set: {why}");
            eprintln!("note: cannot mount a tmpfs ({why}); disk-full test skipped");
            return None;
        }
        Some(Tmpfs { dir })
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Fills the tmpfs with the file `filler`, until not one more byte fits.
    pub(crate) fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.dir.join("filler")).expect("create the filler");
        let chunk = vec![0u8; 4096];
        while f.write_all(&chunk).is_ok() {}
        while f.write_all(&[0]).is_ok() {}
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            // Busy (a child still running after a failed assertion): detach it lazily so the
            // temporary directory can still be removed.
            let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        }
    }
}

/// Runs `crud` on the tmpfs with `params` and asserts the disk-full failure.
fn assert_disk_full(params: &[&str]) {
    let sb = Sandbox::new();
    let Some(fs) = Tmpfs::mount(&sb) else { return };
    let mut cmd = sb.run_in(
        fs.dir(),
        &sb.results(),
        &["crud", "--trials", "2", "--warmup", "0", "--quiet"],
    );
    for p in params {
        cmd.arg("--param").arg(p);
    }
    let out = output(&mut cmd);
    assert_eq!(
        stdout(&out),
        "",
        "nothing was measured, so nothing is reported\n{}",
        describe(&out)
    );
    assert_run_error_line(
        &out,
        &[
            &format!("the disk under {} is full", fs.dir().display()),
            "point --dir at a larger filesystem",
            "(run 1: 0 finished trials kept in",
        ],
    );
    assert_eq!(
        listing(fs.dir()),
        Vec::<String>::new(),
        "scratch files left on the full disk"
    );
    // The store (on another filesystem) records the failure.
    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "failed", "{:#}", v["run"]);
    assert!(
        v["run"]["error"].as_str().unwrap_or("").contains("full"),
        "{:#}",
        v["run"]
    );
    sb.assert_cwd_untouched();
}

#[test]
fn population_does_not_fit() {
    // 50,000 rows of 200 bytes: about 11 MB, far more than the 2 MiB the tmpfs holds.
    assert_disk_full(&["rows=50000", "value_size=200"]);
}

#[test]
fn population_fits_but_the_trial_does_not() {
    // About 0.9 MB of template plus its copy fit; 5,000 inserts of 200 bytes on top do not.
    assert_disk_full(&["rows=4000", "value_size=200", "inserts=5000", "updates=0", "deletes=0"]);
}

/// ENOSPC while copying the template to a trial file is a full disk too. (At commit 68adebb
/// it surfaced as `<path>: No space left on device (os error 28)`, without `full` or `--dir`.)
#[test]
fn template_fits_but_its_trial_copy_does_not() {
    // About 1.5 MB of template: it fits, a second copy of it does not.
    assert_disk_full(&["rows=7000", "value_size=200", "inserts=0", "updates=1", "deletes=0"]);
}

/// A blob larger than the free space: the run stops with the disk-full line on SQLite and on
/// `files`, and leaves nothing on the full disk.
#[test]
fn blob_larger_than_the_free_space() {
    for engine in ["sqlite", "files"] {
        let sb = Sandbox::new();
        let Some(fs) = Tmpfs::mount(&sb) else { return };
        let mut cmd = sb.run_in(
            fs.dir(),
            &sb.results(),
            &[
                "blob",
                "--engine",
                engine,
                "--trials",
                "1",
                "--warmup",
                "0",
                "--quiet",
                "--param",
                "size=4MB",
                "--param",
                "warmup_time=0",
                "--param",
                "operations=5",
            ],
        );
        let out = output(&mut cmd);
        assert_run_error_line(
            &out,
            &[
                &format!("the disk under {} is full", fs.dir().display()),
                "point --dir at a larger filesystem",
            ],
        );
        assert_eq!(
            listing(fs.dir()),
            Vec::<String>::new(),
            "{engine}: scratch files left on the full disk"
        );
        let v = sb.show_json();
        assert_eq!(v["run"]["status"], "failed", "{engine}: {:#}", v["run"]);
    }
}

/// `--report` and `--export` both on a full disk (issue 31, item 12): each failure is said in
/// its own line, the run is still stored complete, and the exit code is 2. (Before, the report's
/// failure was the only line: the exports were not even tried.)
#[test]
fn report_and_export_on_a_full_disk_each_say_their_failure() {
    let sb = Sandbox::new();
    let Some(fs) = Tmpfs::mount(&sb) else { return };
    fs.fill();
    let report = fs.dir().join("r.html");
    let exports = [fs.dir().join("r.json"), fs.dir().join("r.md")];
    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.arg("--report").arg(&report);
    for e in &exports {
        cmd.arg("--export").arg(e);
    }
    let out = output(&mut cmd);
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = stderr(&out);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 3, "one line per file\n{}", describe(&out));
    for (line, (flag, path)) in errors.iter().zip([
        ("--report", &report),
        ("--export", &exports[0]),
        ("--export", &exports[1]),
    ]) {
        assert!(
            line.contains(&format!("{flag} {}", path.display())),
            "{flag} {}: {line}",
            path.display()
        );
        assert!(!path.exists(), "nothing half-written at {}", path.display());
    }
    assert!(
        err.ends_with(&format!("{}\n", errors[2])),
        "the last failure is the last line\n{err}"
    );
    assert_eq!(sb.show_json()["run"]["status"], "complete", "what was measured is kept");
}
