//! What the storage saw, counted per file class.
//!
//! The APSys'17 paper explains SQLite's journal modes by counting `fsync()` calls (1,000 inserts:
//! 1,000 syncs in WAL mode, 5,000 in DELETE mode). litebench counts them for every trial instead
//! of assuming them: the VFS shim ([`crate::engines::sqlite::vfs`]) bumps these counters on every call it
//! forwards, and the runner takes snapshots around each phase.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The kind of file SQLite opened, from the flags it passed to `xOpen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileClass {
    /// The main database file.
    Main,
    /// A rollback journal (`-journal`) or super-journal.
    Journal,
    /// A write-ahead log (`-wal`).
    Wal,
    /// Temporary databases, temporary journals, statement sub-journals, transient files.
    Temp,
    /// Anything else.
    Other,
}

impl FileClass {
    /// Every class, in the order counters are stored and printed.
    pub const ALL: [FileClass; 5] = [
        FileClass::Main,
        FileClass::Journal,
        FileClass::Wal,
        FileClass::Temp,
        FileClass::Other,
    ];

    /// Lower-case name used in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            FileClass::Main => "main",
            FileClass::Journal => "journal",
            FileClass::Wal => "wal",
            FileClass::Temp => "temp",
            FileClass::Other => "other",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

macro_rules! counters {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// Live counters of one file class, shared with the VFS callbacks.
        #[derive(Debug, Default)]
        pub struct ClassCounters { $($(#[$doc])* pub $name: AtomicU64,)* }

        /// A point-in-time copy of [`ClassCounters`]; subtract two to get a delta.
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        pub struct ClassIo { $($(#[$doc])* pub $name: u64,)* }

        impl ClassCounters {
            fn snapshot(&self) -> ClassIo {
                ClassIo { $($name: self.$name.load(Relaxed),)* }
            }
        }

        impl ClassIo {
            /// Counts accumulated between `earlier` and `self`.
            pub fn since(&self, earlier: &ClassIo) -> ClassIo {
                ClassIo { $($name: self.$name.saturating_sub(earlier.$name),)* }
            }

            /// Element-wise sum.
            pub fn plus(&self, other: &ClassIo) -> ClassIo {
                ClassIo { $($name: self.$name + other.$name,)* }
            }

            /// Field names and values, for tables and CSV columns.
            pub fn fields(&self) -> Vec<(&'static str, u64)> {
                vec![$((stringify!($name), self.$name),)*]
            }
        }
    };
}

counters! {
    /// `xOpen` calls.
    opens,
    /// `xSync` calls: each is one fsync/fdatasync system call in the unix VFS.
    syncs,
    /// `xSync` calls with `SQLITE_SYNC_FULL`.
    syncs_full,
    /// `xSync` calls with `SQLITE_SYNC_DATAONLY`.
    syncs_dataonly,
    /// Directory syncs the unix VFS makes on our behalf: on `xDelete` with `syncDir` set, and
    /// on the first `xSync` of a journal or WAL that was opened with `SQLITE_OPEN_CREATE`.
    dir_syncs,
    /// `xWrite` calls.
    writes,
    /// Bytes passed to `xWrite`.
    write_bytes,
    /// `xRead` calls.
    reads,
    /// Bytes asked for by `xRead`.
    read_bytes,
    /// `xFetch` calls that returned a memory-mapped page (reads that bypass `xRead`).
    mmap_fetches,
    /// `xTruncate` calls.
    truncates,
    /// `xDelete` calls.
    deletes,
}

/// Live counters for every file class of one SQLite library.
#[derive(Debug, Default)]
pub struct IoCounters {
    classes: [ClassCounters; 5],
}

impl IoCounters {
    /// The counters of one class.
    pub fn class(&self, class: FileClass) -> &ClassCounters {
        &self.classes[class.index()]
    }

    /// A copy of every counter.
    pub fn snapshot(&self) -> IoSnapshot {
        IoSnapshot {
            main: self.classes[0].snapshot(),
            journal: self.classes[1].snapshot(),
            wal: self.classes[2].snapshot(),
            temp: self.classes[3].snapshot(),
            other: self.classes[4].snapshot(),
        }
    }
}

/// Counts per file class at one moment, or the difference between two moments.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoSnapshot {
    pub main: ClassIo,
    pub journal: ClassIo,
    pub wal: ClassIo,
    pub temp: ClassIo,
    pub other: ClassIo,
}

impl IoSnapshot {
    /// The counts of one class.
    pub fn class(&self, class: FileClass) -> &ClassIo {
        match class {
            FileClass::Main => &self.main,
            FileClass::Journal => &self.journal,
            FileClass::Wal => &self.wal,
            FileClass::Temp => &self.temp,
            FileClass::Other => &self.other,
        }
    }

    /// Counts accumulated between `earlier` and `self`.
    pub fn since(&self, earlier: &IoSnapshot) -> IoSnapshot {
        IoSnapshot {
            main: self.main.since(&earlier.main),
            journal: self.journal.since(&earlier.journal),
            wal: self.wal.since(&earlier.wal),
            temp: self.temp.since(&earlier.temp),
            other: self.other.since(&earlier.other),
        }
    }

    /// Element-wise sum.
    pub fn plus(&self, other: &IoSnapshot) -> IoSnapshot {
        IoSnapshot {
            main: self.main.plus(&other.main),
            journal: self.journal.plus(&other.journal),
            wal: self.wal.plus(&other.wal),
            temp: self.temp.plus(&other.temp),
            other: self.other.plus(&other.other),
        }
    }

    /// All classes added together.
    pub fn total(&self) -> ClassIo {
        FileClass::ALL
            .iter()
            .fold(ClassIo::default(), |acc, c| acc.plus(self.class(*c)))
    }

    /// Every sync system call the unix VFS made: file syncs plus directory syncs.
    pub fn sync_syscalls(&self) -> u64 {
        let t = self.total();
        t.syncs + t.dir_syncs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_subtract_per_class() {
        let live = IoCounters::default();
        let before = live.snapshot();
        live.class(FileClass::Wal).syncs.fetch_add(3, Relaxed);
        live.class(FileClass::Main).write_bytes.fetch_add(4096, Relaxed);
        live.class(FileClass::Journal).dir_syncs.fetch_add(1, Relaxed);
        let delta = live.snapshot().since(&before);
        assert_eq!(delta.wal.syncs, 3);
        assert_eq!(delta.main.write_bytes, 4096);
        assert_eq!(delta.total().syncs, 3);
        assert_eq!(delta.sync_syscalls(), 4);
        assert_eq!(delta.since(&delta), IoSnapshot::default());
    }
}
