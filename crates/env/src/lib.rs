//! What litebench states under every number: the machine, the filesystem, the
//! device and how long a durable write takes there.
//!
//! A SQLite benchmark result is only comparable to another one when the two
//! ran on comparable hardware, on a comparable filesystem mounted with
//! comparable options, on a device with a comparable write cache and sync
//! latency. This crate captures exactly that, from `/proc` and `/sys`, and
//! reports anything it could not read as `None` (serialized as `null`)
//! instead of guessing.
//!
//! ```no_run
//! use std::path::Path;
//! use std::time::Duration;
//!
//! let dir = Path::new(".");
//! let env = litebench_env::capture(dir)?;
//! let sync = litebench_env::measure_sync_latency(dir, 200, Duration::from_secs(2))?;
//! print!("{}", litebench_env::render_text(&env, Some(&sync)));
//! # Ok::<(), litebench_env::EnvError>(())
//! ```

mod blockdev;
mod cpuinfo;
mod error;
mod fsread;
mod machine;
mod meminfo;
mod mounts;
mod os_release;
mod report;
mod storage;
mod synclatency;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use blockdev::BlockDevice;
pub use error::EnvError;
pub use machine::{machine, Machine};
pub use report::{render_text, sections, Sections};
pub use storage::{storage, Storage};
pub use synclatency::{measure_sync_latency, SyncLatency};

/// Everything litebench records about where a benchmark ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub machine: Machine,
    pub storage: Storage,
}

/// Captures the machine and the storage under `dir`.
///
/// Every unknown is `None`.
///
/// # Errors
///
/// [`EnvError::Canonicalize`] if `dir` cannot be canonicalized.
pub fn capture(dir: &Path) -> Result<Environment, EnvError> {
    Ok(Environment {
        machine: machine(),
        storage: storage(dir)?,
    })
}
