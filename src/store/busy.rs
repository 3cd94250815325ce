//! Waiting for another process's lock on the results store, for as long as it takes.
//!
//! A finished trial must never be lost because someone else (a `show`, a `sqlite3` shell, a
//! backup) holds the store: SQLite's `busy_timeout` gives up after a fixed time and the trial
//! with it. This busy handler waits instead, says once on stderr what it is waiting for (after
//! a second, so a brief overlap with another litebench's commit stays silent), and gives up
//! only when the run's stop flag is set (Ctrl-C, SIGTERM) and a second has passed, so a stop
//! is never held up long by a lock. What could not be stored then goes to a side file ([`super::unsaved`]).
//!
//! The handler runs only inside the store's own statements, which run between trials: it never
//! runs inside a timed trial.

use crate::engines::sqlite::conn::SqliteConn;
use std::ffi::{c_int, c_void};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Busy calls before the wait is announced (or, once stopped, given up): their sleeps (1 ms,
/// 2 ms, ...) add up to about a second.
const ANNOUNCE_AFTER: c_int = 45;

/// What the handler needs; boxed by the store so its address outlives the connection.
pub(super) struct Busy {
    path: PathBuf,
    stop: Option<Arc<AtomicBool>>,
    said: AtomicBool,
}

impl Busy {
    pub(super) fn new(path: PathBuf) -> Box<Busy> {
        Box::new(Busy {
            path,
            stop: None,
            said: AtomicBool::new(false),
        })
    }

    /// From now on a set `stop` ends the wait (the statement then fails with "database is
    /// locked").
    pub(super) fn stop_on(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Whether the stop flag is set.
    pub(super) fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Installs the handler on `conn` (a connection of the bundled SQLite). `self` must stay
    /// where it is until the connection is closed.
    pub(super) fn install(&self, conn: &SqliteConn) {
        debug_assert!(std::ptr::eq(conn.api(), crate::engines::sqlite::api::Api::bundled()));
        // SAFETY: the handle is an open connection of the bundled library (the store only
        // opens those); `self` outlives it (the store drops its connection first).
        unsafe {
            libsqlite3_sys::sqlite3_busy_handler(conn.raw_db(), Some(on_busy), self as *const Busy as *mut c_void);
        }
    }
}

/// SQLite's busy callback: nonzero to try again, 0 to give up with SQLITE_BUSY.
extern "C" fn on_busy(ctx: *mut c_void, count: c_int) -> c_int {
    // SAFETY: `ctx` is the `Busy` installed with this callback, alive while the connection is.
    let busy = unsafe { &*(ctx as *const Busy) };
    // Stopped: a brief overlap (another litebench committing) is still waited out, for about
    // a second, so a Ctrl-C does not send the last trials to a side file for nothing.
    if busy.stopped() && count >= ANNOUNCE_AFTER {
        return 0;
    }
    if count >= ANNOUNCE_AFTER && !busy.said.swap(true, Ordering::Relaxed) {
        use std::io::Write;
        // Not eprintln!: a panic must not unwind into SQLite.
        let _ = writeln!(
            std::io::stderr(),
            "waiting for another process to release results store {} (it holds a lock); the trials are kept meanwhile",
            busy.path.display()
        );
    }
    // 1 ms at first, growing to 100 ms: a short overlap costs little, a long one no CPU.
    let ms = (1 + count as u64).min(100);
    std::thread::sleep(Duration::from_millis(ms));
    1
}
