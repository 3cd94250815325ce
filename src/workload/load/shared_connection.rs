//! `--connections shared`: a trial's clients on one connection behind a mutex, as an
//! application with one connection runs (a single mutex-wrapped connection is what several Rust
//! and Node wrappers give their callers). Each client still draws its transactions on its own
//! thread, outside the lock; it holds the lock for each whole transaction (every try of it), so
//! the clients' transactions run one at a time and none sees another's half-done transaction.
//!
//! Two locks, so that the clients' code needs no change: [`Serialized`] wraps a client's
//! stream and holds the *transaction* lock around each [`Client::execute`]; [`Lent`] is the
//! connection each client prepares and runs its statements on, which takes the *connection*
//! lock for each call (uncontended while its holder has the transaction lock; contended only
//! while the clients prepare, before the common start). A run with a connection per client
//! compiles none of it into its loop.

use super::{Client, Hooks, WorkloadError};
use crate::engines::{Connection, Dialect, EngineError, StmtId, Value};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The one connection of a trial whose clients share it, and the lock each holds for a whole
/// transaction.
pub(super) struct SharedConnection<'c> {
    conn: Mutex<Moved<'c>>,
    transaction: Mutex<()>,
}

/// The connection, moved between the clients' threads.
struct Moved<'c>(&'c mut dyn Connection);

// SAFETY: only connections whose `threads_may_share` says so are put here (checked in
// `SharedConnection::new`): a connection that any thread may use while no other thread uses it
// (SQLite's multi-thread mode), and the mutex lets one thread at a time reach it.
unsafe impl Send for Moved<'_> {}

impl<'c> SharedConnection<'c> {
    /// Shares `conn` between the trial's client threads; an error where its engine does not
    /// let several threads use one connection.
    pub(super) fn new(conn: &'c mut dyn Connection) -> Result<SharedConnection<'c>, WorkloadError> {
        if !conn.threads_may_share() {
            return Err(WorkloadError::check_failed(
                "load driver",
                "--connections shared: this engine's connection cannot be used by several threads; use --connections per-client".into(),
            ));
        }
        Ok(SharedConnection {
            conn: Mutex::new(Moved(conn)),
            transaction: Mutex::new(()),
        })
    }

    /// A client's face of the connection.
    pub(super) fn lend(&self) -> Lent<'_, 'c> {
        Lent { shared: self }
    }

    /// The lock a client holds for each whole transaction.
    pub(super) fn transaction_lock(&self) -> &Mutex<()> {
        &self.transaction
    }
}

/// One client's face of the shared connection: every call takes the connection's lock.
pub(super) struct Lent<'s, 'c> {
    shared: &'s SharedConnection<'c>,
}

impl<'c> Lent<'_, 'c> {
    fn conn(&self) -> MutexGuard<'_, Moved<'c>> {
        // A client that panicked while holding it fails the trial anyway; the connection is
        // still whole (a statement's call returned or never started).
        self.shared.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Connection for Lent<'_, '_> {
    fn interrupter(&self) -> Option<crate::engines::Interrupter> {
        self.conn().0.interrupter()
    }
    fn confine_to_scratch(&mut self) -> Result<(), EngineError> {
        self.conn().0.confine_to_scratch()
    }
    fn dialect(&self) -> Dialect {
        self.conn().0.dialect()
    }
    fn begin_write(&self) -> &'static str {
        self.conn().0.begin_write()
    }
    fn begin_knob(&self) -> Option<&'static str> {
        self.conn().0.begin_knob()
    }
    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.conn().0.execute_batch(sql)
    }
    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        self.conn().0.prepare(sql)
    }
    fn run(&mut self, stmt: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        self.conn().0.run(stmt, params)
    }
    fn column_names(&mut self, stmt: StmtId) -> Result<Vec<String>, EngineError> {
        self.conn().0.column_names(stmt)
    }
    fn boolean_columns(&mut self, stmt: StmtId) -> Vec<bool> {
        self.conn().0.boolean_columns(stmt)
    }

    fn run_values(
        &mut self,
        stmt: StmtId,
        params: &[Value<'_>],
        out: &mut crate::engines::values::Values,
    ) -> Result<u64, EngineError> {
        self.conn().0.run_values(stmt, params, out)
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        self.conn().0.query(sql)
    }
    fn stores_blobs_natively(&self) -> bool {
        self.conn().0.stores_blobs_natively()
    }
    fn online_backup(
        &mut self,
        to: &std::path::Path,
        steps: crate::model::cast::BackupSteps,
        stop: &dyn Fn() -> bool,
    ) -> Result<crate::model::cast::BackupProgress, EngineError> {
        self.conn().0.online_backup(to, steps, stop)
    }
    fn threads_may_share(&self) -> bool {
        true
    }
}

/// A client's stream whose transactions each hold the shared connection's transaction lock:
/// the draw, the result check and the rest run outside it.
pub(super) struct Serialized<'l, C> {
    pub(super) inner: C,
    pub(super) lock: &'l Mutex<()>,
}

impl<C: Client> Client for Serialized<'_, C> {
    fn draw(&mut self) -> usize {
        self.inner.draw()
    }
    fn execute(&mut self) -> Result<bool, EngineError> {
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.inner.execute()
    }
    fn done(&self) -> bool {
        self.inner.done()
    }
    fn hooks(&self) -> Hooks {
        self.inner.hooks()
    }
    fn due(&self) -> Option<Duration> {
        self.inner.due()
    }
    fn check(&mut self) -> Result<(), WorkloadError> {
        self.inner.check()
    }
    fn parts(&mut self) -> &[(usize, u64)] {
        self.inner.parts()
    }
    fn round_ends(&self) -> bool {
        self.inner.round_ends()
    }
    fn result_hash(&mut self) -> Option<String> {
        self.inner.result_hash()
    }
    fn answers(&mut self) -> Vec<crate::model::record::QueryRecord> {
        self.inner.answers()
    }
}
