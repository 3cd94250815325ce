//! Which of SQLite's lock failures a `SQLITE_BUSY` was ([`BusyCause`]), told from the result
//! code and the connection's transaction state right after the failure.
//!
//! - `SQLITE_BUSY_SNAPSHOT` (517, WAL): the snapshot is too old to write.
//! - Plain `SQLITE_BUSY` with the connection still in a read transaction: an upgrade refused
//!   without the busy handler. `sqlite3BtreeBeginTrans` retries through the busy handler only
//!   while the btree is in no transaction (`pBt->inTransaction==TRANS_NONE`); a transaction
//!   that already read keeps its read lock, so after the failure `sqlite3_txn_state(db, NULL)`
//!   is `SQLITE_TXN_READ` (and autocommit is off).
//! - Any other `SQLITE_BUSY` (no transaction: a lock at a transaction's start or in
//!   autocommit; a write transaction: the exclusive lock at commit), and `SQLITE_BUSY_RECOVERY`
//!   and `SQLITE_BUSY_TIMEOUT`: the busy handler waited or could have (`busy_timeout=0` only
//!   made it give up at once).
//!
//! `sqlite3_txn_state` came with 3.34.0. Without it `sqlite3_get_autocommit` still tells a
//! failure outside any explicit transaction (a busy_timeout), but not an upgrade from a
//! first write inside one: those are [`BusyCause::Unknown`]. `SQLITE_LOCKED` (a conflict
//! inside one process's shared cache or connection, which no busy handler serves) is
//! unknown too.

use super::api::{sqlite3, Api};
use crate::engines::BusyCause;
use libsqlite3_sys as ffi;
use std::ffi::c_int;

/// What the connection said right after a failure: its transaction state where the build can
/// tell it (`sqlite3_txn_state`), and whether it is in autocommit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct After {
    pub txn_state: Option<c_int>,
    pub autocommit: bool,
}

impl After {
    /// Reads it from `db`.
    ///
    /// # Safety
    /// `db` must be an open connection of `api`'s library.
    pub unsafe fn read(api: &Api, db: *mut sqlite3) -> After {
        After {
            // SAFETY: the caller guarantees `db`; a null schema name asks about every schema.
            txn_state: api.txn_state.map(|f| unsafe { f(db, std::ptr::null()) }),
            // SAFETY: as above.
            autocommit: unsafe { (api.get_autocommit)(db) } != 0,
        }
    }
}

/// The cause of the lock failure `rc` (extended result code, `SQLITE_BUSY` or
/// `SQLITE_LOCKED` family), given the connection's state `after` it.
pub fn classify(rc: c_int, after: After) -> BusyCause {
    match rc {
        ffi::SQLITE_BUSY_SNAPSHOT => BusyCause::Snapshot,
        ffi::SQLITE_BUSY_RECOVERY | ffi::SQLITE_BUSY_TIMEOUT => BusyCause::Timeout,
        rc if rc & 0xff != ffi::SQLITE_BUSY => BusyCause::Unknown,
        _ => match after.txn_state {
            Some(ffi::SQLITE_TXN_READ) => BusyCause::Upgrade,
            Some(_) => BusyCause::Timeout,
            None if after.autocommit => BusyCause::Timeout,
            None => BusyCause::Unknown,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::engines::{Connection, ErrorKind};

    /// Two connections to one new database file, with table `t(k, v)` holding one row, in
    /// journal mode `mode`, neither waiting for a lock.
    fn pair(dir: &std::path::Path, mode: &str) -> (SqliteConn, SqliteConn) {
        let api = Api::bundled();
        let path = dir.join("busy.db");
        let mut a = SqliteConn::open(api, &path, None, "a").unwrap();
        a.execute_batch(&format!(
            "PRAGMA journal_mode={mode}; CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t VALUES (1, 0);"
        ))
        .unwrap();
        let b = SqliteConn::open(api, &path, None, "b").unwrap();
        (a, b)
    }

    fn busy(r: Result<(), crate::engines::EngineError>) -> (BusyCause, c_int) {
        let e = r.expect_err("a lock failure");
        assert_eq!(e.kind, ErrorKind::Busy, "{e}");
        (e.lock_cause().unwrap(), e.code.unwrap())
    }

    /// A deferred transaction that read, then writes while another connection holds the write
    /// lock: plain SQLITE_BUSY at once, the handler never called (a 10 s busy timeout does not
    /// wait), and the connection is left in its read transaction.
    #[test]
    fn an_upgrade_refused_without_the_busy_handler_is_busy_upgrade() {
        for mode in ["wal", "delete"] {
            let dir = tempfile::tempdir().unwrap();
            let (mut a, mut b) = pair(dir.path(), mode);
            a.execute_batch("PRAGMA busy_timeout=10000; BEGIN; SELECT v FROM t;")
                .unwrap();
            b.execute_batch("BEGIN IMMEDIATE; UPDATE t SET v = 1;").unwrap();
            let t0 = std::time::Instant::now();
            let (cause, code) = busy(a.execute_batch("UPDATE t SET v = 2"));
            assert!(
                t0.elapsed() < std::time::Duration::from_secs(5),
                "{mode}: the handler waited"
            );
            assert_eq!((cause, code), (BusyCause::Upgrade, ffi::SQLITE_BUSY), "{mode}");
            // SAFETY: a's connection is open.
            let after = unsafe { After::read(a.api(), a.raw_db()) };
            assert_eq!(
                after,
                After {
                    txn_state: Some(ffi::SQLITE_TXN_READ),
                    autocommit: false
                },
                "{mode}"
            );
            // Without sqlite3_txn_state the same failure cannot be told from a first write's.
            assert_eq!(
                classify(
                    code,
                    After {
                        txn_state: None,
                        ..after
                    }
                ),
                BusyCause::Unknown
            );
        }
    }

    /// WAL: a transaction read, another connection committed a write since, and the first now
    /// writes: its snapshot is too old, SQLITE_BUSY_SNAPSHOT.
    #[test]
    fn a_stale_wal_snapshot_is_busy_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let (mut a, mut b) = pair(dir.path(), "wal");
        a.execute_batch("BEGIN; SELECT v FROM t;").unwrap();
        b.execute_batch("UPDATE t SET v = 1").unwrap();
        assert_eq!(
            busy(a.execute_batch("UPDATE t SET v = 2")),
            (BusyCause::Snapshot, ffi::SQLITE_BUSY_SNAPSHOT)
        );
    }

    /// Another connection holds the write lock and a transaction starts IMMEDIATE (or an
    /// autocommit write runs) with busy_timeout=0: the busy handler could have waited and gave
    /// up at once: busy_timeout; autocommit is still on, so old builds tell it too.
    #[test]
    fn a_lock_at_a_transactions_start_is_busy_timeout() {
        for mode in ["wal", "delete"] {
            let dir = tempfile::tempdir().unwrap();
            let (mut a, mut b) = pair(dir.path(), mode);
            b.execute_batch("BEGIN IMMEDIATE; UPDATE t SET v = 1;").unwrap();
            a.execute_batch("PRAGMA busy_timeout=0").unwrap();
            let (cause, code) = busy(a.execute_batch("BEGIN IMMEDIATE"));
            assert_eq!((cause, code), (BusyCause::Timeout, ffi::SQLITE_BUSY), "{mode}");
            // SAFETY: a's connection is open.
            let after = unsafe { After::read(a.api(), a.raw_db()) };
            assert!(after.autocommit, "{mode}");
            assert_eq!(
                classify(
                    code,
                    After {
                        txn_state: None,
                        ..after
                    }
                ),
                BusyCause::Timeout
            );
            assert_eq!(
                busy(a.execute_batch("UPDATE t SET v = 2")).0,
                BusyCause::Timeout,
                "{mode}"
            );
        }
    }

    #[test]
    fn locked_and_recovery_codes() {
        let none = After {
            txn_state: Some(ffi::SQLITE_TXN_NONE),
            autocommit: true,
        };
        assert_eq!(classify(ffi::SQLITE_LOCKED, none), BusyCause::Unknown);
        assert_eq!(classify(ffi::SQLITE_LOCKED_SHAREDCACHE, none), BusyCause::Unknown);
        assert_eq!(classify(ffi::SQLITE_BUSY_RECOVERY, none), BusyCause::Timeout);
    }
}
