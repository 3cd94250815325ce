//! `--cold`: the OS's page cache dropped before each trial, and the check, while the plan is
//! made, that it can be. Below both [`crate::bench::plan`], which checks, and
//! [`crate::bench::runner`], which drops.

/// Why the page cache cannot be dropped (not root, or no `/proc/sys/vm/drop_caches`).
#[derive(Debug, thiserror::Error)]
#[error("--cold: cannot drop the page cache ({0}); run as root or leave out --cold")]
pub struct DropCachesError(pub String);

/// Drops the page cache: `sync`, then `3 > /proc/sys/vm/drop_caches`.
pub fn drop_caches() -> Result<(), DropCachesError> {
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", b"3\n").map_err(|e| DropCachesError(e.to_string()))
}

/// Checks up front that `--cold` can work.
pub fn can_drop_caches() -> Result<(), DropCachesError> {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")
        .map(|_| ())
        .map_err(|e| DropCachesError(e.to_string()))
}
