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

/// A trial's time series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub interval_ms: u64,
    pub points: Vec<SeriesPoint>,
    /// Empty for engines whose I/O litebench does not count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub io: Vec<SeriesIo>,
}

impl Series {
    /// The intervals in which the main database file was synced (checkpoints, in WAL mode).
    pub fn checkpoints(&self) -> impl Iterator<Item = u64> + '_ {
        self.io.iter().filter(|i| i.main_syncs > 0).map(|i| i.t_ms)
    }
}
