//! Stopping the statements that are running when a stop is requested.
//!
//! Loops over rows or transactions check the stop flag between steps, but one long statement
//! (an index build, a runaway recursive CTE in a script or a replayed log) checks nothing until
//! it ends, which may be never. A [`Watch`] runs beside the work: every connection doing it is
//! registered with it, and once the stop flag is set it calls each one's
//! [`Interrupter`](super::Interrupter) (SQLite's `sqlite3_interrupt`, DuckDB's and Turso's
//! interrupt, PostgreSQL's cancel request, MariaDB's `KILL QUERY`), and again every
//! [`PERIOD`] while the work goes on, so that a statement started after the first interrupt
//! (a `ROLLBACK`, the next transaction) is stopped too. The interrupted statement fails with
//! an engine error, which the caller reads as the stop it is.

use super::{Connection, Interrupter};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How often the watcher looks at the stop flag, and interrupts again while stopped.
pub const PERIOD: Duration = Duration::from_millis(20);

/// The connections whose statements a stop request interrupts.
pub struct Watch<'s> {
    stop: &'s AtomicBool,
    /// Registered interrupters by registration id; the lock is held while they are called, so
    /// none is called once its [`Registration`] is dropped.
    running: Mutex<Vec<(u64, Interrupter)>>,
    next: AtomicU64,
    /// How many rounds of interrupts were sent (for tests).
    rounds: AtomicU64,
}

/// A connection registered with a [`Watch`]; dropping it (before the connection) ends the
/// interrupts.
pub struct Registration<'w> {
    running: &'w Mutex<Vec<(u64, Interrupter)>>,
    id: Option<u64>,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            lock(self.running).retain(|(i, _)| *i != id);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'s> Watch<'s> {
    /// Registers `conn`: its running statement is interrupted once a stop is requested, until
    /// the registration is dropped, which must happen before `conn` is closed. A connection
    /// whose engine has no interrupt registers nothing.
    pub fn register(&self, conn: &dyn Connection) -> Registration<'_> {
        let id = conn.interrupter().map(|interrupt| {
            let id = self.next.fetch_add(1, Ordering::Relaxed);
            lock(&self.running).push((id, interrupt));
            id
        });
        Registration {
            running: &self.running,
            id,
        }
    }

    /// The stop flag it watches.
    pub fn stop(&self) -> &'s AtomicBool {
        self.stop
    }

    /// Rounds of interrupts sent so far.
    pub fn rounds(&self) -> u64 {
        self.rounds.load(Ordering::Relaxed)
    }

    fn interrupt_all(&self) {
        let running = lock(&self.running);
        for (_, interrupt) in running.iter() {
            interrupt();
        }
        self.rounds.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs `work` with a [`Watch`] on `stop` beside it, on a thread of its own that ends with
/// `work` (so nothing is interrupted after it returns).
pub fn watching<R>(stop: &AtomicBool, work: impl FnOnce(&Watch<'_>) -> R) -> R {
    let watch = Watch {
        stop,
        running: Mutex::new(Vec::new()),
        next: AtomicU64::new(0),
        rounds: AtomicU64::new(0),
    };
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (watch, done) = (&watch, &done);
        let watcher = s.spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if watch.stop.load(Ordering::Relaxed) {
                    watch.interrupt_all();
                }
                // Parked, so that the end of the work wakes it at once.
                std::thread::park_timeout(PERIOD);
            }
        });
        let result = work(watch);
        done.store(true, Ordering::Relaxed);
        watcher.thread().unpark();
        result
    })
}

/// Runs `work` (a statement on the connection `interrupter` came from) with a time limit: past
/// `limit`, the running statement is interrupted, once, and the statement fails with the
/// engine's error. Returns `work`'s result and whether the limit interrupted it. Without a
/// limit or an interrupter, `work` runs in its own time.
pub fn within<R>(limit: Option<Duration>, interrupter: Option<&Interrupter>, work: impl FnOnce() -> R) -> (R, bool) {
    let (Some(limit), Some(interrupt)) = (limit, interrupter) else {
        return (work(), false);
    };
    let fired = AtomicBool::new(false);
    let (done, ended) = std::sync::mpsc::channel::<()>();
    // The limit runs from here, not from when the watcher first runs: on a loaded machine a new
    // thread may wait to be scheduled longer than a short limit.
    let deadline = std::time::Instant::now() + limit;
    let result = std::thread::scope(|s| {
        let fired = &fired;
        s.spawn(move || {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(left) {
                fired.store(true, Ordering::Relaxed);
                interrupt();
            }
        });
        let result = work();
        drop(done);
        result
    });
    (result, fired.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use std::time::Instant;

    const RUNAWAY: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c";

    /// A runaway statement on a registered connection ends soon after the stop flag is set,
    /// and so does one started after the first interrupt.
    #[test]
    fn a_stop_interrupts_a_runaway_statement_and_the_next_one() {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let stop = AtomicBool::new(false);
        let (first, second, rounds) = watching(&stop, |watch| {
            let _on = watch.register(&conn);
            std::thread::scope(|s| {
                s.spawn(|| {
                    std::thread::sleep(Duration::from_millis(200));
                    stop.store(true, Ordering::Relaxed);
                });
                let t0 = Instant::now();
                let first = conn.query(RUNAWAY).map(|_| ()).map_err(|e| (e.message, t0.elapsed()));
                std::thread::sleep(PERIOD * 3);
                let t1 = Instant::now();
                let second = conn.query(RUNAWAY).map(|_| ()).map_err(|e| (e.message, t1.elapsed()));
                (first, second, watch.rounds())
            })
        });
        let (message, took) = first.expect_err("the runaway statement ran to its end");
        assert!(message.contains("interrupt"), "{message}");
        assert!(took < Duration::from_secs(5), "stopped after {took:?}");
        let (_, took) = second.expect_err("a statement started after the stop ran to its end");
        assert!(took < Duration::from_secs(5), "stopped after {took:?}");
        assert!(rounds >= 2, "{rounds} rounds of interrupts");
    }

    /// A statement past its limit is interrupted and said to be; one within it is not.
    #[test]
    fn a_statement_past_its_limit_is_interrupted() {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let interrupter = conn.interrupter();
        let t0 = Instant::now();
        let (result, fired) = within(Some(Duration::from_millis(100)), interrupter.as_ref(), || {
            conn.query(RUNAWAY)
        });
        assert!(fired && result.is_err(), "{:?}", result.map(|_| ()));
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "stopped after {:?}",
            t0.elapsed()
        );
        let (result, fired) = within(Some(Duration::from_secs(60)), interrupter.as_ref(), || {
            conn.query_value("SELECT 7")
        });
        assert!(!fired && result.unwrap().as_deref() == Some("7"));
        let (result, fired) = within(None, interrupter.as_ref(), || conn.query_value("SELECT 8"));
        assert!(!fired && result.unwrap().as_deref() == Some("8"));
    }

    /// Nothing is interrupted without a stop, and a dropped registration is never called.
    #[test]
    fn no_stop_no_interrupt() {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let stop = AtomicBool::new(false);
        let n = watching(&stop, |watch| {
            let on = watch.register(&conn);
            std::thread::sleep(PERIOD * 3);
            drop(on);
            assert!(lock(&watch.running).is_empty());
            conn.query_value(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000) SELECT count(*) FROM c",
            )
            .unwrap()
        });
        assert_eq!(n.as_deref(), Some("100000"));
    }
}
