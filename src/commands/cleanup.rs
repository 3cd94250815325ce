//! `litebench cleanup`: undo what a killed run left of its `--fs` filesystems.
//!
//! A run killed with `kill -9` cannot unmount what it mounted; the record it wrote before
//! mounting says exactly what it made, and this command undoes that and nothing else.

use super::Failure;
use crate::cli::CleanupArgs;
use crate::fsmount;
use crate::scratch::DEFAULT_DIR;
use std::path::PathBuf;

/// Runs `cleanup`; exit 0 when everything listed was undone.
pub fn run(args: &CleanupArgs) -> Result<i32, Failure> {
    let base = args.dir.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_DIR));
    if !base.is_dir() {
        return Err(Failure(format!(
            "--dir {}: no such directory; give the --dir the run used",
            base.display()
        )));
    }
    let base = base.canonicalize().unwrap_or(base);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 && fsmount::has_records(&base) {
        return Err(Failure(format!(
            "cleanup of {} needs root: it unmounts filesystems and detaches loop devices; run it as root",
            base.display()
        )));
    }
    let c = fsmount::cleanup_dir(&base);
    for e in &c.undone {
        crate::outln!(
            "undone: {}{}",
            e.mount_point.display(),
            e.image
                .as_ref()
                .map(|i| format!(" (image {})", i.display()))
                .unwrap_or_default()
        );
    }
    for r in &c.restored {
        crate::outln!("restored: {r}");
    }
    for k in &c.kept {
        crate::outln!(
            "kept: {} holds what the killed guest measured; `litebench show --results {}` reads it",
            k.display(),
            k.display()
        );
    }
    for r in &c.running {
        crate::errln!("left alone: {} belongs to a litebench still running", r.display());
    }
    if c.undone.is_empty() && c.problems.is_empty() && c.restored.is_empty() {
        crate::outln!("nothing to clean up in {}", base.display());
    }
    match c.problems.first() {
        None => Ok(0),
        Some(p) => Err(Failure(format!("{p} ({} problem(s) in all)", c.problems.len()))),
    }
}
