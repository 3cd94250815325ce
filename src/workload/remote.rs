//! Clients in processes of their own (`--client-mode processes`), as the load driver sees them.
//!
//! Applications that share one SQLite file are often several processes (web workers, an
//! Android app and its content provider), and SQLite behaves differently between processes than
//! between threads of one: its POSIX advisory locks, its WAL index in shared memory and every
//! connection's page cache are per process. So a client may run in a process of its own. The
//! driver needs from it what a client thread hands over in memory: its per-operation results
//! (counts, histograms, the I/O its own VFS shim counted), its cells of the time series and its
//! process's I/O per interval. [`ClientReport`] carries that; [`RemoteClient`] is the handle
//! the driver starts, watches and stops such a client with. How the process is started (the
//! litebench binary, the engine and knobs it opens) is the runner's business, one layer up.

use super::recorder::Totals;
use super::WorkloadError;
use crate::model::op::OpResult;
use crate::model::series::SeriesIo;
use serde::{Deserialize, Serialize};

/// A client process, ready to run (its connection open and verified, its statements prepared).
pub trait RemoteClient: Send + Sync {
    /// Its process id, for messages.
    fn pid(&self) -> u32;
    /// Starts its measured loop now; false if the process is gone.
    fn go(&self) -> bool;
    /// Waits for its report, passing each progress line's running totals (see
    /// [`ProgressTotals`]) to `progress` as they come.
    fn wait(&self, progress: &dyn Fn(&ProgressTotals)) -> Result<ClientReport, WorkloadError>;
    /// Asks it to stop after its current transaction (and before it started, not to start).
    fn stop(&self);
    /// Kills it (SIGKILL, which also ends a stopped process): its report is no longer wanted
    /// or did not come in time. [`RemoteClient::wait`] then answers with what `why` says.
    fn kill(&self, why: Kill);
}

/// Why the driver killed a client process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kill {
    /// The trial stopped (a stop request, or another client failed): its report is not needed,
    /// and [`RemoteClient::wait`] answers [`WorkloadError::Interrupted`].
    Abandoned,
    /// It sent no report within this long after the driver's own clients ended: the trial
    /// fails, naming it.
    NoReport(std::time::Duration),
}

/// A client's running totals for `--progress`: transactions, their summed latency and schedule
/// lag (ns), retries, failed and skipped transactions.
pub type ProgressTotals = [u64; 6];

/// One cell of a client's time series: interval, operation type, counts, and the latency
/// histogram of the transactions that ended in it (encoded as [`OpResult::histogram`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellReport {
    pub interval: usize,
    pub op: usize,
    pub counts: Totals,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}

/// What a client process sends back when its loop ends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientReport {
    /// Its results per operation type, with the I/O its own process's VFS shim counted.
    pub ops: Vec<OpResult>,
    pub cells: Vec<CellReport>,
    /// Its process's I/O per interval (the VFS counters are per process).
    pub io: Vec<SeriesIo>,
    /// End of its last recorded transaction, nanoseconds after its measured start.
    pub last_end_ns: u64,
}

/// How a client process's loop ended, when not with a report: the line it sends instead.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientFailure {
    /// Stopped by a signal or by the driver, not by an error of its own.
    pub interrupted: bool,
    pub message: String,
}

impl ClientFailure {
    pub fn of(e: &WorkloadError) -> ClientFailure {
        ClientFailure {
            interrupted: matches!(e, WorkloadError::Interrupted),
            message: e.to_string(),
        }
    }

    /// The driver's error for client `index` (process `pid`).
    pub fn into_error(self, index: u32, pid: u32) -> WorkloadError {
        if self.interrupted {
            WorkloadError::Interrupted
        } else {
            WorkloadError::Verification {
                workload: format!("client {index} (process {pid})"),
                detail: self.message,
            }
        }
    }
}
