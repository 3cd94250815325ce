//! What the storage saw, counted per file class, for the process and for each thread.
//!
//! The APSys'17 paper explains SQLite's journal modes by counting `fsync()` calls (1,000 inserts:
//! 1,000 syncs in WAL mode, 5,000 in DELETE mode). litebench counts them for every trial instead
//! of assuming them: the VFS shim ([`crate::engines::sqlite::vfs`]) bumps these counters on every call it
//! forwards, and the runner takes snapshots around each phase.
//!
//! Every bump lands twice: in the process-wide atomics ([`IoCounters::snapshot`]: the trial's
//! totals, the time series, the strace cross-check), and in the calling thread's own tally when
//! that thread is enrolled with these counters ([`IoCounters::thread_snapshot`]). The shim runs
//! on the thread whose statement asked for the I/O, so a client thread's tally is exactly its
//! own transactions' I/O: with several clients as threads each attributes its own I/O to its
//! own operations, as a client process does with its process's counters. The thread's share
//! costs one thread-local read and a comparison per call, and an add when enrolled.

use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
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
        /// Live process-wide counters of one file class (bumped through [`Bumps`]).
        #[derive(Debug, Default)]
        pub struct ClassCounters { $($(#[$doc])* $name: AtomicU64,)* }

        /// A point-in-time copy of [`ClassCounters`]; subtract two to get a delta.
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        pub struct ClassIo { $($(#[$doc])* pub $name: u64,)* }

        impl ClassCounters {
            fn snapshot(&self) -> ClassIo {
                ClassIo { $($name: self.$name.load(Relaxed),)* }
            }
        }

        impl ClassIo {
            /// Nothing counted.
            pub const ZERO: ClassIo = ClassIo { $($name: 0,)* };

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

        impl Bumps<'_> {
            $(
                $(#[$doc])*
                ///
                /// Adds `n` to the process's counter, and to the calling thread's where it is
                /// enrolled with these counters.
                #[inline]
                pub fn $name(&self, n: u64) {
                    self.live.$name.fetch_add(n, Relaxed);
                    self.add_on_thread(|c| c.$name += n);
                }
            )*
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

/// Live counters for every file class of one SQLite library (or one engine's I/O layer).
#[derive(Debug)]
pub struct IoCounters {
    /// Which counters a thread's tally belongs to ([`IoCounters::thread_snapshot`]); never 0.
    id: u64,
    classes: [ClassCounters; 5],
    /// `--storage`'s emulated delays slept after the calls, per operation: count, nanoseconds.
    slept: [AtomicU64; 6],
}

impl Default for IoCounters {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        IoCounters {
            id: NEXT.fetch_add(1, Relaxed),
            classes: Default::default(),
            slept: Default::default(),
        }
    }
}

/// The calling thread's tally: the counters it is enrolled with (0: none) and what the bump
/// sites counted on it since.
struct ThreadTally {
    owner: Cell<u64>,
    io: RefCell<IoSnapshot>,
}

thread_local! {
    static THREAD: ThreadTally = const {
        ThreadTally {
            owner: Cell::new(0),
            io: RefCell::new(IoSnapshot::ZERO),
        }
    };
}

/// The bump sites' handle on one file class of one [`IoCounters`] (see [`IoCounters::class`]).
#[derive(Clone, Copy)]
pub struct Bumps<'a> {
    live: &'a ClassCounters,
    id: u64,
    class: FileClass,
}

impl Bumps<'_> {
    /// Applies `add` to the calling thread's tally of this class, if the thread is enrolled
    /// with these counters.
    #[inline]
    fn add_on_thread(&self, add: impl FnOnce(&mut ClassIo)) {
        THREAD.with(|t| {
            if t.owner.get() == self.id {
                add(t.io.borrow_mut().class_mut(self.class));
            }
        });
    }
}

impl IoCounters {
    /// The counters of one class, to bump.
    pub fn class(&self, class: FileClass) -> Bumps<'_> {
        Bumps {
            live: &self.classes[class.index()],
            id: self.id,
            class,
        }
    }

    /// A copy of every counter: the whole process's counts.
    pub fn snapshot(&self) -> IoSnapshot {
        let s = |i: usize| self.slept[i].load(Relaxed);
        IoSnapshot {
            main: self.classes[0].snapshot(),
            journal: self.classes[1].snapshot(),
            wal: self.classes[2].snapshot(),
            temp: self.classes[3].snapshot(),
            other: self.classes[4].snapshot(),
            slept: SleptIo {
                syncs: s(0),
                sync_ns: s(1),
                reads: s(2),
                read_ns: s(3),
                writes: s(4),
                write_ns: s(5),
            },
        }
    }

    /// Counts one emulated delay of `op` that slept `ns` nanoseconds (`--storage sync=2ms`),
    /// in the process's counts and the calling thread's where it is enrolled.
    pub fn slept(&self, op: DelayedOp, ns: u64) {
        let i = op as usize * 2;
        self.slept[i].fetch_add(1, Relaxed);
        self.slept[i + 1].fetch_add(ns, Relaxed);
        THREAD.with(|t| {
            if t.owner.get() == self.id {
                let mut io = t.io.borrow_mut();
                let (n, sum) = io.slept.of_mut(op);
                *n += 1;
                *sum += ns;
            }
        });
    }

    /// The calling thread's counts: what was bumped on this thread since it was enrolled with
    /// these counters. The first call on a thread enrolls it, from zero; a thread is enrolled
    /// with one `IoCounters` at a time, so calling this for other counters enrolls the thread
    /// with those instead (and these start from zero again if it comes back). Take differences
    /// of two readings on the same thread only: another thread's reading is another tally.
    pub fn thread_snapshot(&self) -> IoSnapshot {
        THREAD.with(|t| {
            if t.owner.get() != self.id {
                t.owner.set(self.id);
                *t.io.borrow_mut() = IoSnapshot::ZERO;
            }
            *t.io.borrow()
        })
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
    /// `--storage`'s emulated delays slept (absent from JSON where nothing was emulated).
    #[serde(default, skip_serializing_if = "SleptIo::is_zero")]
    pub slept: SleptIo,
}

/// The operations an emulated storage delays ([`crate::sys::storage_delay`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayedOp {
    Sync = 0,
    Read = 1,
    Write = 2,
}

/// The emulated delays slept, per operation: how many and their nanoseconds summed. Counted
/// where they were slept, so a reader sees the delay actually added (a sleep's overshoot
/// included), not the one asked for.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SleptIo {
    pub syncs: u64,
    pub sync_ns: u64,
    pub reads: u64,
    pub read_ns: u64,
    pub writes: u64,
    pub write_ns: u64,
}

impl SleptIo {
    /// Nothing slept.
    pub const ZERO: SleptIo = SleptIo {
        syncs: 0,
        sync_ns: 0,
        reads: 0,
        read_ns: 0,
        writes: 0,
        write_ns: 0,
    };

    /// Whether nothing was slept.
    pub fn is_zero(&self) -> bool {
        *self == SleptIo::ZERO
    }

    /// The count and nanoseconds of one operation.
    pub fn of(&self, op: DelayedOp) -> (u64, u64) {
        match op {
            DelayedOp::Sync => (self.syncs, self.sync_ns),
            DelayedOp::Read => (self.reads, self.read_ns),
            DelayedOp::Write => (self.writes, self.write_ns),
        }
    }

    fn of_mut(&mut self, op: DelayedOp) -> (&mut u64, &mut u64) {
        match op {
            DelayedOp::Sync => (&mut self.syncs, &mut self.sync_ns),
            DelayedOp::Read => (&mut self.reads, &mut self.read_ns),
            DelayedOp::Write => (&mut self.writes, &mut self.write_ns),
        }
    }

    fn zip(&self, o: &SleptIo, f: impl Fn(u64, u64) -> u64) -> SleptIo {
        SleptIo {
            syncs: f(self.syncs, o.syncs),
            sync_ns: f(self.sync_ns, o.sync_ns),
            reads: f(self.reads, o.reads),
            read_ns: f(self.read_ns, o.read_ns),
            writes: f(self.writes, o.writes),
            write_ns: f(self.write_ns, o.write_ns),
        }
    }
}

impl IoSnapshot {
    /// Nothing counted.
    pub const ZERO: IoSnapshot = IoSnapshot {
        main: ClassIo::ZERO,
        journal: ClassIo::ZERO,
        wal: ClassIo::ZERO,
        temp: ClassIo::ZERO,
        other: ClassIo::ZERO,
        slept: SleptIo::ZERO,
    };

    /// The counts of one class, to add to.
    fn class_mut(&mut self, class: FileClass) -> &mut ClassIo {
        match class {
            FileClass::Main => &mut self.main,
            FileClass::Journal => &mut self.journal,
            FileClass::Wal => &mut self.wal,
            FileClass::Temp => &mut self.temp,
            FileClass::Other => &mut self.other,
        }
    }

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
            slept: self.slept.zip(&earlier.slept, u64::saturating_sub),
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
            slept: self.slept.zip(&other.slept, |a, b| a + b),
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
        live.class(FileClass::Wal).syncs(3);
        live.class(FileClass::Main).write_bytes(4096);
        live.class(FileClass::Journal).dir_syncs(1);
        let delta = live.snapshot().since(&before);
        assert_eq!(delta.wal.syncs, 3);
        assert_eq!(delta.main.write_bytes, 4096);
        assert_eq!(delta.total().syncs, 3);
        assert_eq!(delta.sync_syscalls(), 4);
        assert_eq!(delta.since(&delta), IoSnapshot::default());
    }

    /// Two threads enrolled with the same counters each see only their own bumps; the
    /// process-wide counts see both, and a thread not enrolled adds to those only.
    #[test]
    fn each_enrolled_thread_sees_only_its_own_bumps() {
        let live = IoCounters::default();
        let process_before = live.snapshot();
        let bump = |syncs: u64, bytes: u64| {
            let before = live.thread_snapshot();
            for _ in 0..syncs {
                live.class(FileClass::Wal).syncs(1);
            }
            live.class(FileClass::Main).write_bytes(bytes);
            live.thread_snapshot().since(&before)
        };
        let barrier = std::sync::Barrier::new(2);
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                barrier.wait();
                bump(3, 4096)
            });
            let b = s.spawn(|| {
                barrier.wait();
                bump(5, 100)
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!((a.wal.syncs, a.main.write_bytes), (3, 4096));
        assert_eq!((b.wal.syncs, b.main.write_bytes), (5, 100));
        // A thread that never asked for its own counts is not enrolled: the process sees it.
        std::thread::scope(|s| {
            s.spawn(|| live.class(FileClass::Wal).syncs(10));
        });
        let process = live.snapshot().since(&process_before);
        assert_eq!((process.wal.syncs, process.main.write_bytes), (18, 4196));
        // This thread did none of it.
        let here = live.thread_snapshot();
        live.class(FileClass::Temp).reads(1);
        assert_eq!(live.thread_snapshot().since(&here).total().reads, 1);
        assert_eq!(live.thread_snapshot().total().syncs, 0);
    }

    /// A thread counts for the counters it is enrolled with, not for others it bumps.
    #[test]
    fn a_thread_counts_for_the_counters_it_is_enrolled_with() {
        let (one, two) = (IoCounters::default(), IoCounters::default());
        let before = one.thread_snapshot();
        two.class(FileClass::Main).syncs(2);
        one.class(FileClass::Main).syncs(1);
        assert_eq!(one.thread_snapshot().since(&before).main.syncs, 1);
        assert_eq!(two.snapshot().main.syncs, 2);
    }
}
