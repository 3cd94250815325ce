//! What killed runs left behind in a scratch directory (mounted filesystems, loop devices,
//! schedulers, throttling cgroups, files): undone by the next run in the same `--dir` and by `litebench cleanup`,
//! and said line by line, in the same words by both.

use crate::testbed::fsmount::{self, Cleaned};
use std::path::Path;

/// The next run in a `--dir` undoes what a killed run left of its `--fs` filesystems (as its
/// record lists), as `litebench cleanup` would.
pub fn undo_dead_runs(dir: Option<&Path>) {
    let base = dir.unwrap_or(Path::new(crate::sys::scratch::DEFAULT_DIR));
    // A sidecar a killed run left running is stopped first: it may hold the files below open.
    for line in crate::sys::sidecar::stop_leftovers(base) {
        crate::errln!("cleaned up after a killed run: {line}");
    }
    // `--storage iops=`'s cgroups, whose run is gone: its processes moved out, then removed.
    for cgroup in crate::testbed::throttle::dead_cgroups() {
        crate::testbed::throttle::remove(&cgroup);
        crate::errln!(
            "cleaned up after a killed run: removed the throttling cgroup {}",
            cgroup.display()
        );
    }
    if !fsmount::has_run_dirs(base) {
        return;
    }
    let base = base.canonicalize().unwrap_or(base.to_path_buf());
    if let Err(e) = crate::sys::confine::check_base(&base) {
        crate::errln!("warning: {e}; what killed runs left there is not cleaned up");
        return;
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let c = fsmount::cleanup_dir(&base, root);
    if !c.need_root.is_empty() {
        crate::errln!(
            "warning: {} holds filesystems a killed run left mounted; run `litebench cleanup --dir {}` as root",
            base.display(),
            base.display()
        );
    }
    // On stderr: the run's own output stays its report.
    report(&c, "cleaned up after a killed run: ");
}

/// One line per thing undone, removed, kept, refused or failed; what was done goes to stdout,
/// or with a `prefix` to stderr (the next run's "cleaned up after a killed run: ", whose stdout
/// is its report).
pub fn report(c: &Cleaned, prefix: &str) {
    let say = |line: String| {
        if prefix.is_empty() {
            crate::outln!("{line}");
        } else {
            crate::errln!("{prefix}{line}");
        }
    };
    for e in &c.undone {
        say(format!(
            "undone: {}{}",
            e.mount_point.display(),
            e.image
                .as_ref()
                .map(|i| format!(" (image {})", i.display()))
                .unwrap_or_default()
        ));
    }
    for r in &c.restored {
        say(format!("restored: {r}"));
    }
    for (dir, files, gone) in &c.removed {
        say(format!("removed: {}", removed_line(dir, files, *gone)));
    }
    for k in &c.kept {
        say(format!("kept: {k}"));
    }
    // A run going on beside the next one is no news to it.
    for r in c.running.iter().filter(|_| prefix.is_empty()) {
        crate::errln!("left alone: {}: the run that made it is still running", r.display());
    }
    for r in &c.refused {
        crate::errln!("refused: {r}");
    }
    for p in &c.problems {
        crate::errln!("failed: {p}; run `litebench cleanup` to try again");
    }
}

fn removed_line(dir: &Path, files: &[String], gone: bool) -> String {
    let what = match files.len() {
        0 => String::new(),
        1 => format!("1 file ({})", files[0]),
        n => format!("{n} files ({})", files.join(", ")),
    };
    match (gone, what.is_empty()) {
        (true, true) => format!("{} (empty)", dir.display()),
        (true, false) => format!("{} and its {what}", dir.display()),
        (false, _) => format!("{what} from {}", dir.display()),
    }
}
