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
    /// The next message; a driver that ended, sent a line that is not the protocol's, said
    /// `error` or sent nothing within `wait.limit` is an error naming it and what it did (the
    /// process is then stopped); `wait.stop` turning true ends the wait as interrupted.
    fn recv(&mut self, wait: &Wait<'_>) -> Result<FromDriver, WorkloadError>;
    /// Sends `close`, waits for `closed` and for the process to exit.
    fn close(self: Box<Self>) -> Result<(), WorkloadError>;
}

/// How long litebench waits for a driver's next message, and what ends the wait sooner: a
/// driver hung inside a batch (a lock it waits on forever, a loop in its code) fails the trial
/// in words, and Ctrl-C or another client's failure is heard while a batch runs.
pub struct Wait<'a> {
    pub limit: std::time::Duration,
    pub stop: &'a dyn Fn() -> bool,
}

impl Wait<'_> {
    /// The longest a driver may take to answer one message where nothing says how long its
    /// work should take (starting, opening, closing, a batch whose size no rate set yet).
    pub const SILENCE: std::time::Duration = std::time::Duration::from_secs(60);

    /// A wait of [`Wait::SILENCE`] that nothing ends sooner.
    pub fn plain() -> Wait<'static> {
        Wait {
            limit: Self::SILENCE,
            stop: &|| false,
        }
    }
}

/// The failure of driver `who`: `detail` is what it said or did.
pub fn failed(who: &str, detail: impl Into<String>) -> WorkloadError {
    WorkloadError::Verification {
        workload: format!("driver {who}"),
        detail: detail.into(),
    }
}
