//! A trial over time: per interval (`--interval`, default 1 s), each operation type's counts and
//! latency percentiles, and the I/O the VFS shim saw, including the main database file's writes
//! and syncs, which in WAL mode only a checkpoint makes. A p99 that averages well over a trial
//! can hide a stall every few seconds; the series shows it, and whether a checkpoint was behind
//! it. Kept with every trial the load driver runs.

use serde::{Deserialize, Serialize};

/// One operation type in one interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Start of the interval, milliseconds after the trial's start.
    pub t_ms: u64,
    pub op: String,
    /// Completed transactions (ended in this interval).
    pub ops: u64,
    pub succeeded: u64,
    /// Tries beyond the first, transactions that failed on a lock after their last try, and
    /// (open loop with a limit) skipped and late transactions.
    pub retries: u64,
    pub busy: u64,
    pub skipped: u64,
    pub late: u64,
    /// Latency percentiles of the interval's completed transactions, microseconds (from the
    /// intended start in an open loop); null when none completed.
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub max_us: Option<f64>,
}

/// What the VFS shim counted in one interval (every client's I/O: the counters are
/// process-wide).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesIo {
    pub t_ms: u64,
    /// fsync/fdatasync calls, all files.
    pub syncs: u64,
    pub write_bytes: u64,
    /// The main database file's syncs and written bytes: in WAL mode, checkpoints.
    pub main_syncs: u64,
    pub main_write_bytes: u64,
}

/// The trial database's files at one instant (the start of an interval, and once more when the
/// last transaction ended), read from the file system, not through a connection. Only for
/// engines whose database is a file litebench made (SQLite, libSQL, Turso, DuckDB); a server's
/// trials have none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesFiles {
    /// Milliseconds after the trial's measured start.
    pub t_ms: u64,
    /// The main database file's size, bytes.
    pub db_bytes: u64,
    /// The write-ahead log's size, bytes (`-wal`; DuckDB's `.wal`); 0 when there is none.
    pub wal_bytes: u64,
    /// The `-shm` file's size, bytes (0 when absent); absent for engines without one (Turso,
    /// DuckDB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shm_bytes: Option<u64>,
    /// Free pages, from the main file's header (4 bytes at offset 36). In WAL mode the main
    /// file is only written by a checkpoint, so this is the count as of the last checkpoint,
    /// not as of the last commit. Absent where the file is not SQLite's format (DuckDB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_pages: Option<u64>,
}

/// A moment of a workload's own that changes the database at once (aging's retention cut),
/// read from a trial's series: what happened, in the interval from `t_ms` to `until_ms`
/// (milliseconds after the measured start). Reports place the WAL's steps and a cast's
/// scheduled roles against it ("after the cut").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Milestone {
    pub t_ms: u64,
    pub until_ms: u64,
    /// `the retention cut`.
    pub what: String,
}

/// A trial's time series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub interval_ms: u64,
    pub points: Vec<SeriesPoint>,
    /// Empty for engines whose I/O litebench does not count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub io: Vec<SeriesIo>,
    /// The database's files over the trial; empty for a server, and in runs stored before
    /// litebench read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<SeriesFiles>,
}

impl Series {
    /// The intervals in which the main database file was synced (checkpoints, in WAL mode).
    pub fn checkpoints(&self) -> impl Iterator<Item = u64> + '_ {
        self.io.iter().filter(|i| i.main_syncs > 0).map(|i| i.t_ms)
    }
}
