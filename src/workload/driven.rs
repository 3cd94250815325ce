//! A trial's clients in driver processes (`--driver`), as the load driver sees them.
//!
//! A driver is a program in another language that runs the workload's transactions through
//! an application's own SQLite binding (see [`crate::model::driver`] and docs/drivers.md). The
//! load driver makes every transaction as data ([`crate::engines::recording`]) and folds the
//! driver's results into the trial's recorder; [`DriverLink`] is the handle it sends and
//! receives the protocol's messages through. How the process is started (its files, its
//! setup in the cache, its command, the configuration's knobs) is the runner's business, one
//! layer up ([`super::Connector::start_driver`]).

use super::WorkloadError;
use crate::model::driver::{FromDriver, ToDriver};

/// A started driver process, its database open and its statements prepared.
pub trait DriverLink: Send {
    /// The driver's name and process, for messages (`python-sqlite3 (process 4242)`).
    fn who(&self) -> String;
    /// Sends one message.
    fn send(&mut self, msg: &ToDriver<'_>) -> Result<(), WorkloadError>;
    /// The next message; a driver that ended, sent a line that is not the protocol's, or said
    /// `error` is an error naming it and what it said.
    fn recv(&mut self) -> Result<FromDriver, WorkloadError>;
    /// Sends `close`, waits for `closed` and for the process to exit.
    fn close(self: Box<Self>) -> Result<(), WorkloadError>;
}

/// The failure of driver `who`: `detail` is what it said or did.
pub fn failed(who: &str, detail: impl Into<String>) -> WorkloadError {
    WorkloadError::Verification {
        workload: format!("driver {who}"),
        detail: detail.into(),
    }
}
