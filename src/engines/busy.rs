//! Why a transaction met a lock ([`crate::engines::ErrorKind::Busy`]): the cause decides the
//! advice. SQLite's `SQLITE_BUSY` comes in three kinds that call for opposite fixes: a lock held
//! longer than the busy handler waited (raise `busy_timeout`, try again, fewer writers), a
//! deferred transaction that already read and now wants to write while another connection
//! writes (SQLite refuses it at once, without calling the busy handler, to avoid a deadlock:
//! raising `busy_timeout` cannot help, `BEGIN IMMEDIATE` does), and in WAL a snapshot too old to
//! write (`SQLITE_BUSY_SNAPSHOT`: only restarting the transaction helps). Counting them as one
//! `busy` made "raise busy_timeout" the advice for all three; the load driver counts them apart
//! per operation ([`crate::model::op::OpResult`]). The servers' lock failures keep their own
//! kinds: they are counted in `busy`, never under a SQLite cause.

/// The cause of one lock failure, as the engine could tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BusyCause {
    /// `busy_timeout`: SQLite's `SQLITE_BUSY` where the busy handler waited or could have
    /// (with `busy_timeout=0` too): a lock taken at a transaction's start, in autocommit, or at
    /// commit. Turso's busy, after its busy handler.
    Timeout,
    /// `busy_upgrade`: a transaction that already read tried to write while another connection
    /// held the write lock; SQLite returns `SQLITE_BUSY` without calling the busy handler.
    Upgrade,
    /// `busy_snapshot`: `SQLITE_BUSY_SNAPSHOT` in WAL (another connection committed after this
    /// transaction's snapshot); Turso's "Database snapshot is stale".
    Snapshot,
    /// PostgreSQL's serialization failure (SQLSTATE 40001), DuckDB's transaction conflict.
    Serialization,
    /// A deadlock the server broke by failing this transaction (PostgreSQL 40P01, MariaDB 1213).
    Deadlock,
    /// A server's lock wait that ran out (MariaDB 1205, PostgreSQL 55P03).
    LockWait,
    /// Not told apart: `SQLITE_LOCKED`, or a SQLite build without `sqlite3_txn_state` (before
    /// 3.34.0) inside a transaction.
    Unknown,
}

impl BusyCause {
    /// The cause's name, as reports and counts call it.
    pub fn name(self) -> &'static str {
        match self {
            BusyCause::Timeout => "busy_timeout",
            BusyCause::Upgrade => "busy_upgrade",
            BusyCause::Snapshot => "busy_snapshot",
            BusyCause::Serialization => "serialization failure",
            BusyCause::Deadlock => "deadlock",
            BusyCause::LockWait => "lock wait timeout",
            BusyCause::Unknown => "unknown cause",
        }
    }
}
