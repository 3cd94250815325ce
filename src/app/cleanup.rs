//! `litebench cleanup`: undo what a killed run left in its scratch directory.
//!
//! A run killed with `kill -9` cannot remove its files, unmount what it mounted or stop the
//! sidecars it started; the records it wrote before making anything say exactly what it made,
//! and this command undoes that and nothing else, once that run is dead on this host. One line per thing undone, refused or kept.

use crate::app::cli::CleanupArgs;
use crate::base::Failure;
use crate::sys::confine;
use crate::sys::scratch::DEFAULT_DIR;
use crate::testbed::fsmount::{self};
use crate::testbed::leftovers::report;
use std::path::PathBuf;

/// Runs `cleanup`; exit 0 when everything listed was undone, 2 when something was refused or
/// failed (each said on its own line).
pub fn run(args: &CleanupArgs) -> Result<i32, Failure> {
    let base = args.dir.value.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_DIR));
    if !base.is_dir() {
        return Err(Failure(format!(
            "--dir {}: no such directory; give the --dir the run used",
            base.display()
        )));
    }
    let base = base.canonicalize().unwrap_or(base);
    confine::check_base(&base).map_err(|e| Failure(e.to_string()))?;
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root && fsmount::has_records(&base) {
        return Err(Failure(format!(
            "cleanup of {} needs root: it unmounts filesystems and detaches loop devices; run it as root",
            base.display()
        )));
    }
    // A sidecar a killed run left running is stopped first: it may hold the files below open.
    let sidecars = crate::sys::sidecar::stop_leftovers(&base);
    for line in &sidecars {
        crate::outln!("{line}");
    }
    let c = fsmount::cleanup_dir(&base, root);
    report(&c, "");
    for r in &c.unrecorded {
        crate::outln!(
            "left alone: {} has no record of what made it (an older litebench's, or not litebench's); remove it yourself if no run uses it",
            r.display()
        );
    }
    if c.is_empty() && sidecars.is_empty() {
        crate::outln!("nothing to clean up in {}", base.display());
    }
    Ok(if c.refused.is_empty() && c.problems.is_empty() {
        0
    } else {
        2
    })
}
