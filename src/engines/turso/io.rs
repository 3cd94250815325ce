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
//! What is counted is what Turso asks of its I/O layer: one `sync` is one `fsync(2)` in
//! Turso's Unix backend (it never calls `fdatasync`), one `pwritev` of several pages is one
//! write of their total length.

use crate::sys::iocount::{ClassCounters, FileClass, IoCounters};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
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
}

impl CountingIo {
    /// Turso's own Unix I/O (`turso_core::PlatformIO`), counted into `counters`.
    pub fn platform(counters: Arc<IoCounters>) -> Result<CountingIo, LimboError> {
        Ok(CountingIo {
            inner: Arc::new(turso_core::PlatformIO::new()?),
            counters,
        })
    }
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
        let file = self.inner.open_file(path, flags, direct)?;
        let counters = Arc::clone(&self.counters);
        let class = class_of(path);
        counters.class(class).opens.fetch_add(1, Relaxed);
        Ok(Arc::new(CountingFile {
            inner: file,
            counters,
            class,
        }))
    }

    fn remove_file(&self, path: &str) -> Result<(), LimboError> {
        self.counters.class(class_of(path)).deletes.fetch_add(1, Relaxed);
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
    fn count(&self) -> &ClassCounters {
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
        c_.reads.fetch_add(1, Relaxed);
        c_.read_bytes.fetch_add(c.as_read().buf().len() as u64, Relaxed);
        self.inner.pread(pos, c)
    }

    fn pwrite(&self, pos: u64, buffer: Arc<Buffer>, c: Completion) -> Result<Completion, LimboError> {
        let c_ = self.count();
        c_.writes.fetch_add(1, Relaxed);
        c_.write_bytes.fetch_add(buffer.len() as u64, Relaxed);
        self.inner.pwrite(pos, buffer, c)
    }

    fn pwritev(&self, pos: u64, buffers: Vec<Arc<Buffer>>, c: Completion) -> Result<Completion, LimboError> {
        let c_ = self.count();
        c_.writes.fetch_add(1, Relaxed);
        c_.write_bytes
            .fetch_add(buffers.iter().map(|b| b.len() as u64).sum(), Relaxed);
        self.inner.pwritev(pos, buffers, c)
    }

    fn sync(&self, c: Completion, sync_type: turso_core::io::FileSyncType) -> Result<Completion, LimboError> {
        let c_ = self.count();
        c_.syncs.fetch_add(1, Relaxed);
        // Every sync of Turso's Unix backend is a whole-file fsync(2), never data-only.
        c_.syncs_full.fetch_add(1, Relaxed);
        self.inner.sync(c, sync_type)
    }

    fn size(&self) -> Result<u64, LimboError> {
        self.inner.size()
    }

    fn truncate(&self, len: u64, c: Completion) -> Result<Completion, LimboError> {
        self.count().truncates.fetch_add(1, Relaxed);
        self.inner.truncate(len, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_classed_by_name() {
        assert_eq!(class_of("/s/trial-1.db"), FileClass::Main);
        assert_eq!(class_of("/s/trial-1.db-wal"), FileClass::Wal);
        assert_eq!(class_of("/s/trial-1.db-log"), FileClass::Wal);
        assert_eq!(class_of("/s/other"), FileClass::Other);
    }
}
