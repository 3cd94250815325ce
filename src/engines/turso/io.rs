//! Turso's storage calls, counted: the role litebench's VFS shim plays for SQLite.
//!
//! Turso does not go through a SQLite VFS: every read, write and sync goes through its own
//! I/O layer (`turso_core::IO`, which opens files, and `turso_core::File`, which reads, writes
//! and syncs them). Every database litebench opens is given [`CountingIo`], which wraps
//! Turso's own platform I/O and bumps the same per-file-class counters the SQLite shim bumps
//! ([`IoCounters`]) on every call it forwards, so a Turso trial states its syncs, writes and
//! bytes per transaction exactly as a SQLite trial does, counted at the storage interface
//! instead of inferred from `/proc/self/io`.
//!
//! It also keeps Turso to litebench's scratch directory where it can: Turso has no authorizer,
//! and its `ATTACH` (experimental, and off in 0.8.3) opens its file through the I/O layer of the
//! database it runs on, so [`CountingIo::open_file`] opens only files inside the directories of
//! the databases litebench opened here ([`CountingIo::allow_dir`]), whatever the user's SQL (a
//! replayed log, a script, an `init=` file) names, and Turso's own temporary files (a sort that
//! spills), each in a fresh directory of the system's temporary directory. `VACUUM INTO` writes
//! through an I/O layer Turso makes for it, which this does not see: Turso takes only a literal
//! name there, and the workloads refuse every `VACUUM INTO` of a file when they read the SQL
//! (`workload::file_reach`). Turso's `load_extension()` is off: litebench never enables
//! extensions in the options it opens databases with.
//!
//! What is counted is what Turso asks of its I/O layer: one `sync` is one `fsync(2)` in
//! Turso's Unix backend (it never calls `fdatasync`), one `pwritev` of several pages is one
//! write of their total length.

use crate::sys::confine::resolves_inside;
use crate::sys::iocount::{Bumps, FileClass, IoCounters};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use turso_core::{Buffer, Clock, Completion, File, LimboError, MonotonicInstant, OpenFlags, WallClockInstant, IO};

/// Which counters a file Turso opens bumps, from its name: the database, its write-ahead log
/// (`-wal`), or the MVCC mode's logical log (`.db-log`, also a log written ahead of the
/// database, so counted with the WAL).
pub fn class_of(path: &str) -> FileClass {
    if path.ends_with("-wal") || path.ends_with("-log") {
        FileClass::Wal
    } else if path.ends_with(".db") {
        FileClass::Main
    } else {
        FileClass::Other
    }
}

/// Turso's platform I/O with every file it opens counted.
pub struct CountingIo {
    inner: Arc<dyn IO>,
    counters: Arc<IoCounters>,
    /// The directories, resolved, whose files Turso may open: those of the databases
    /// litebench opened.
    allowed: Mutex<Vec<PathBuf>>,
}

/// The name Turso gives its temporary files, each in a directory of its own.
const TEMP_FILE: &str = "tursodb_temp_file";

impl CountingIo {
    /// Turso's own Unix I/O (`turso_core::PlatformIO`), counted into `counters`.
    pub fn platform(counters: Arc<IoCounters>) -> Result<CountingIo, LimboError> {
        Ok(CountingIo {
            inner: Arc::new(turso_core::PlatformIO::new()?),
            counters,
            allowed: Mutex::new(Vec::new()),
        })
    }

    /// Lets Turso open files in `dir` (a database's directory litebench chose: the scratch
    /// directory).
    pub fn allow_dir(&self, dir: &Path) -> std::io::Result<()> {
        let dir = dir.canonicalize()?;
        let mut allowed = self.allowed.lock().unwrap_or_else(|p| p.into_inner());
        if !allowed.contains(&dir) {
            allowed.push(dir);
        }
        Ok(())
    }

    /// Why Turso may not open `path` (`None`: it may).
    pub fn refusal(&self, path: &str) -> Option<String> {
        let p = Path::new(path);
        let allowed = self.allowed.lock().unwrap_or_else(|p| p.into_inner());
        if allowed.iter().any(|dir| resolves_inside(dir, p)) || is_temp_file(p) {
            return None;
        }
        let dirs: Vec<String> = allowed.iter().map(|d| d.display().to_string()).collect();
        Some(format!(
            "ATTACH or VACUUM INTO of '{path}', a file outside the trial's scratch directory {}: a replayed log or script may change only the trial's own copy; attach a temporary database instead (ATTACH '' AS name) and fill it, or leave the statement out",
            dirs.join(", ")
        ))
    }
}

/// A temporary file of Turso's own: `tursodb_temp_file` in a fresh directory (`.tmpXXXXXX`,
/// made by the `tempfile` crate) right in the system's temporary directory.
fn is_temp_file(p: &Path) -> bool {
    let Some(dir) = p.parent() else { return false };
    p.file_name().is_some_and(|n| n == TEMP_FILE)
        && dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with(".tmp"))
        && dir.parent() == Some(std::env::temp_dir().as_path())
}

impl Clock for CountingIo {
    fn current_time_monotonic(&self) -> MonotonicInstant {
        self.inner.current_time_monotonic()
    }

    fn current_time_wall_clock(&self) -> WallClockInstant {
        self.inner.current_time_wall_clock()
    }
}

impl IO for CountingIo {
    fn open_file(&self, path: &str, flags: OpenFlags, direct: bool) -> Result<Arc<dyn File>, LimboError> {
        if let Some(why) = self.refusal(path) {
            return Err(LimboError::InvalidArgument(why));
        }
        let file = self.inner.open_file(path, flags, direct)?;
        let counters = Arc::clone(&self.counters);
        let class = class_of(path);
        counters.class(class).opens(1);
        Ok(Arc::new(CountingFile {
            inner: file,
            counters,
            class,
        }))
    }

    fn remove_file(&self, path: &str) -> Result<(), LimboError> {
        self.counters.class(class_of(path)).deletes(1);
        self.inner.remove_file(path)
    }

    fn step(&self) -> Result<(), LimboError> {
        self.inner.step()
    }
}

/// One open file whose calls are counted.
struct CountingFile {
    inner: Arc<dyn File>,
    counters: Arc<IoCounters>,
    class: FileClass,
}

impl CountingFile {
    fn count(&self) -> Bumps<'_> {
        self.counters.class(self.class)
    }
}

impl File for CountingFile {
    fn lock_file(&self, exclusive: bool) -> Result<(), LimboError> {
        self.inner.lock_file(exclusive)
    }

    fn unlock_file(&self) -> Result<(), LimboError> {
        self.inner.unlock_file()
    }

    fn pread(&self, pos: u64, c: Completion) -> Result<Completion, LimboError> {
        let c_ = self.count();
        c_.reads(1);
        c_.read_bytes(c.as_read().buf().len() as u64);
        self.inner.pread(pos, c)
    }

    fn pwrite(&self, pos: u64, buffer: Arc<Buffer>, c: Completion) -> Result<Completion, LimboError> {
        let c_ = self.count();
        c_.writes(1);
        c_.write_bytes(buffer.len() as u64);
        self.inner.pwrite(pos, buffer, c)
    }

    fn pwritev(&self, pos: u64, buffers: Vec<Arc<Buffer>>, c: Completion) -> Result<Completion, LimboError> {
        let c_ = self.count();
        c_.writes(1);
        c_.write_bytes(buffers.iter().map(|b| b.len() as u64).sum());
        self.inner.pwritev(pos, buffers, c)
    }

    fn sync(&self, c: Completion, sync_type: turso_core::io::FileSyncType) -> Result<Completion, LimboError> {
        let c_ = self.count();
        c_.syncs(1);
        // Every sync of Turso's Unix backend is a whole-file fsync(2), never data-only.
        c_.syncs_full(1);
        self.inner.sync(c, sync_type)
    }

    fn size(&self) -> Result<u64, LimboError> {
        self.inner.size()
    }

    fn truncate(&self, len: u64, c: Completion) -> Result<Completion, LimboError> {
        self.count().truncates(1);
        self.inner.truncate(len, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_an_allowed_directory_or_turso_temporary_files_open() {
        let t = tempfile::tempdir().unwrap();
        let io = CountingIo::platform(Arc::new(IoCounters::default())).unwrap();
        let inside = t.path().join("trial-1.db");
        let inside = inside.to_str().unwrap();
        assert!(io.refusal(inside).is_some(), "nothing is allowed before a directory is");
        io.allow_dir(t.path()).unwrap();
        assert_eq!(io.refusal(inside), None);
        assert_eq!(io.refusal(&format!("{inside}-wal")), None);
        let why = io.refusal("/data/victim.db").unwrap();
        assert!(
            why.starts_with("ATTACH or VACUUM INTO of '/data/victim.db', a file outside"),
            "{why}"
        );
        assert!(io.refusal("victim.db").is_some(), "relative: the working directory");
        let temp = std::env::temp_dir().join(".tmpAbC123").join(TEMP_FILE);
        assert_eq!(io.refusal(temp.to_str().unwrap()), None);
        let elsewhere = std::env::temp_dir().join(".tmpAbC123").join("victim.db");
        assert!(io.refusal(elsewhere.to_str().unwrap()).is_some());
        assert!(io
            .open_file("/nonexistent-dir/victim.db", OpenFlags::Create, false)
            .is_err());
    }

    #[test]
    fn files_are_classed_by_name() {
        assert_eq!(class_of("/s/trial-1.db"), FileClass::Main);
        assert_eq!(class_of("/s/trial-1.db-wal"), FileClass::Wal);
        assert_eq!(class_of("/s/trial-1.db-log"), FileClass::Wal);
        assert_eq!(class_of("/s/other"), FileClass::Other);
    }
}
