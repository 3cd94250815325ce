//! Typed errors. Reading the environment is best effort and almost never
//! fails; when it does, the message names the path involved and what the
//! user can do about it, because "No such file or directory" alone is not
//! actionable in a benchmark log.

use std::io;
use std::path::PathBuf;

/// Why an environment query or the sync-latency probe failed.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// The directory asked about could not be resolved to a canonical path.
    #[error(
        "cannot resolve directory {}: {source}; check that it exists and that every parent directory is searchable",
        path.display()
    )]
    Canonicalize {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The sync probe file could not be created.
    #[error(
        "cannot create a sync probe file in {}: {source}; the directory must exist and be writable",
        dir.display()
    )]
    CreateProbe {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },

    /// Every probe file name tried already existed (they are never reused or removed).
    #[error(
        "every sync probe file name tried in {} already exists ({attempts} attempts); remove stale .litebench-synctest-* files there once you are sure nothing uses them",
        dir.display()
    )]
    NoFreeProbeName { dir: PathBuf, attempts: u32 },

    /// Writing or syncing the probe file failed.
    #[error(
        "{op} failed on sync probe file {}: {source}; the filesystem may be full, read-only or failing",
        path.display()
    )]
    Probe {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: io::Error,
    },

    /// The probe file this crate created could not be removed.
    #[error(
        "could not remove sync probe file {}: {source}; delete it by hand{}",
        path.display(),
        after.as_ref().map(|e| format!(" (the measurement had already failed: {e})")).unwrap_or_default()
    )]
    CleanupFailed {
        path: PathBuf,
        #[source]
        source: io::Error,
        /// The measurement error that preceded the failed cleanup, if any.
        after: Option<Box<EnvError>>,
    },
}
