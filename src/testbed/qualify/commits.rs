//! SQLite's commit rate here, per journal mode and `synchronous` level: the syncs a commit
//! makes, counted at the VFS, times what a sync costs here, against the rate measured.
//!
//! A durable commit waits for its syncs and little else on most storage, so the expected rate
//! is one over (syncs per commit x the sync latency measured in the same directory), and the
//! measured rate says how far the rest (writes, the directory's sync) moves it. The syncs are
//! counted, not assumed: WAL at `synchronous=normal` syncs only at checkpoints, and DELETE at
//! `full` makes three to five (APSys'17), depending on the release and the journal's state.

use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::sqlite::vfs;
use crate::engines::{Connection, EngineError};
use crate::sys::iocount::IoCounters;
use serde::Serialize;
use std::path::Path;
use std::time::{Duration, Instant};

/// The journal modes measured: the default and WAL.
pub const MODES: [&str; 2] = ["delete", "wal"];
/// Every `synchronous` level.
pub const LEVELS: [&str; 4] = ["off", "normal", "full", "extra"];
/// Commits measured per pair at most, and the time they may take.
const COMMITS: u32 = 100;
const WINDOW: Duration = Duration::from_millis(500);
/// Commits before the counting starts: the journal or WAL file exists after them.
const WARM_UP: u32 = 3;

/// One pair's commits.
#[derive(Debug, Clone, Serialize)]
pub struct CommitRate {
    pub journal_mode: String,
    pub synchronous: String,
    pub commits: u32,
    /// File syncs (`fsync`/`fdatasync`) per commit, counted at the VFS.
    pub syncs_per_commit: f64,
    /// Directory syncs per commit.
    pub dir_syncs_per_commit: f64,
    /// Commits per second, measured (one single-row insert each).
    pub measured_per_s: f64,
    /// One over the syncs' expected time per commit from the sync latencies measured here;
    /// `None` where a commit makes no sync (then the rate is bound by something else).
    pub expected_per_s: Option<f64>,
    /// Why this pair could not commit here (SQLite's error), where it could not.
    pub failed: Option<String>,
}

/// Measures every pair of [`MODES`] x [`LEVELS`] on new databases in `work`, with the
/// directory's fdatasync and directory-fsync medians (microseconds). A pair SQLite cannot run
/// here (WAL where the `-shm` cannot be mapped) is kept with its error.
pub fn measure(work: &Path, sync_us: f64, dir_sync_us: Option<f64>) -> Result<Vec<CommitRate>, EngineError> {
    let api = Api::bundled();
    let counters = vfs::install(api).map_err(|e| EngineError {
        busy_cause: None,
        engine: "sqlite".into(),
        kind: crate::engines::ErrorKind::Other,
        code: None,
        message: e.to_string(),
        context: "installing the counting VFS".into(),
    })?;
    let mut rates = Vec::new();
    for mode in MODES {
        for level in LEVELS {
            let path = work.join(format!("commit-{mode}-{level}.db"));
            let rate = pair(api, &counters, &path, mode, level, sync_us, dir_sync_us).unwrap_or_else(|e| CommitRate {
                journal_mode: mode.into(),
                synchronous: level.into(),
                commits: 0,
                syncs_per_commit: 0.0,
                dir_syncs_per_commit: 0.0,
                measured_per_s: 0.0,
                expected_per_s: None,
                failed: Some(format!("failed: {}", e.message)),
            });
            rates.push(rate);
        }
    }
    Ok(rates)
}

fn pair(
    api: &'static Api,
    counters: &IoCounters,
    path: &Path,
    mode: &str,
    level: &str,
    sync_us: f64,
    dir_sync_us: Option<f64>,
) -> Result<CommitRate, EngineError> {
    let mut conn = SqliteConn::open(api, path, Some(vfs::SHIM_NAME), "qualify")?;
    conn.execute_batch(&format!(
        "PRAGMA journal_mode={mode}; PRAGMA synchronous={level}; CREATE TABLE t(x INTEGER)"
    ))?;
    let insert = conn.prepare("INSERT INTO t VALUES (1)")?;
    for _ in 0..WARM_UP {
        conn.run(insert, &[])?;
    }
    let before = counters.snapshot();
    let start = Instant::now();
    let mut commits = 0;
    while commits < COMMITS && (commits < 5 || start.elapsed() < WINDOW) {
        conn.run(insert, &[])?;
        commits += 1;
    }
    let took = start.elapsed().as_secs_f64();
    let io = counters.snapshot().since(&before).total();
    drop(conn);
    let per = |n: u64| n as f64 / f64::from(commits);
    let (syncs, dir_syncs) = (per(io.syncs), per(io.dir_syncs));
    let expected_us = syncs * sync_us + dir_syncs * dir_sync_us.unwrap_or(sync_us);
    Ok(CommitRate {
        journal_mode: mode.into(),
        synchronous: level.into(),
        commits,
        syncs_per_commit: syncs,
        dir_syncs_per_commit: dir_syncs,
        measured_per_s: f64::from(commits) / took,
        expected_per_s: (expected_us > 0.0).then(|| 1e6 / expected_us),
        failed: None,
    })
}
