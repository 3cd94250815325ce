//! A statement run as SQLite's `tool/speed-check.sh` runs speedtest1's (`--reprepare
//! --shrink-memory`): SQLite's published instruction counts (sqlite.org/cpu.html) are of that
//! way of running, which prepares every statement anew after each run and hands the
//! connection's spare memory back after each statement, so litebench runs speedtest1 the same
//! way when it draws SQLite's own curve (`--method speed-check`); an application keeps its
//! statements prepared instead, which is `litebench`'s method.

use super::conn::SqliteConn;
use crate::engines::values::Values;
use crate::engines::{EngineError, StmtId, Value};
use libsqlite3_sys as ffi;
use std::ffi::{c_int, CString};

impl SqliteConn {
    /// speedtest1's `speedtest1_run` with `--reprepare --shrink-memory`: binds `params` (text
    /// in place, `SQLITE_STATIC`, as speedtest1 binds its buffer), steps `id` to its end
    /// reading every column of every row with `sqlite3_column_text` (and keeping the row's
    /// values, by type, in `out` where given), prepares `sql` anew in `id`'s place, finalizes
    /// the statement that ran, and releases the connection's spare memory. Returns the rows.
    pub fn rerun(
        &mut self,
        id: StmtId,
        sql: &str,
        params: &[Value<'_>],
        mut out: Option<&mut Values>,
    ) -> Result<u64, EngineError> {
        let stmt = self.stmt(id);
        let api = self.api();
        // SAFETY: `stmt` is live; the bound text lives in `params`, which outlive this call, and
        // the statement is finalized below, before it returns.
        let mut rc = unsafe { self.bind_as(stmt, params, None) };
        let mut rows = 0u64;
        while rc == ffi::SQLITE_OK {
            // SAFETY: `stmt` is live and bound; columns are read before the next step.
            match unsafe { (api.step)(stmt) } {
                ffi::SQLITE_ROW => unsafe {
                    rows += 1;
                    for i in 0..(api.column_count)(stmt) {
                        (api.column_text)(stmt, i);
                        if let Some(out) = out.as_deref_mut() {
                            self.push_column(stmt, i, out);
                        }
                    }
                },
                ffi::SQLITE_DONE => break,
                other => rc = other,
            }
        }
        let error = (rc != ffi::SQLITE_OK).then(|| self.error(rc, "running a prepared statement"));
        let fresh = self.prepare_raw(sql);
        let ran = self.set_stmt(id, *fresh.as_ref().unwrap_or(&std::ptr::null_mut()));
        // SAFETY: `ran` is the statement that ran, no longer in the connection's list.
        unsafe { (api.finalize)(ran) };
        self.release_memory();
        match (error, fresh) {
            (Some(e), _) | (None, Err(e)) => Err(e),
            (None, Ok(_)) => Ok(rows),
        }
    }

    /// speedtest1's `speedtest1_exec` with `--shrink-memory`: `sqlite3_exec`, then the
    /// connection's spare memory released.
    pub fn exec_and_release(&mut self, sql: &str) -> Result<(), EngineError> {
        let text = CString::new(sql).map_err(|_| self.error(ffi::SQLITE_MISUSE, &format!("`{sql}` has a NUL")))?;
        let mut message = std::ptr::null_mut();
        // SAFETY: the connection is open; `text` is NUL-terminated; no callback.
        let rc: c_int =
            unsafe { (self.api().exec)(self.raw_db(), text.as_ptr(), None, std::ptr::null_mut(), &mut message) };
        if !message.is_null() {
            // SAFETY: sqlite3_exec's message is SQLite's, freed with sqlite3_free.
            unsafe { (self.api().free)(message.cast()) };
        }
        if rc != ffi::SQLITE_OK {
            return Err(self.error(rc, &format!("running `{sql}`")));
        }
        self.release_memory();
        Ok(())
    }

    /// speedtest1's end of a test: its statement finalized.
    pub fn finalize(&mut self, id: StmtId) {
        let stmt = self.set_stmt(id, std::ptr::null_mut());
        // SAFETY: the statement is this connection's and out of its list (finalize takes null).
        unsafe { (self.api().finalize)(stmt) };
    }

    /// `sqlite3_db_release_memory` (SQLite 3.7.10 and later; older releases have none, and
    /// speedtest1 built against them skips it too).
    pub fn release_memory(&self) {
        if let Some(release) = self.api().db_release_memory {
            // SAFETY: the connection is open.
            unsafe { release(self.raw_db()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::api::Api;
    use super::*;
    use crate::engines::Connection;

    #[test]
    fn each_run_prepares_the_statement_anew_and_finalizing_ends_it() {
        let mut c = SqliteConn::open_memory(Api::bundled(), "test").unwrap();
        c.exec_and_release("CREATE TABLE t(a INTEGER, b TEXT)").unwrap();
        let insert = "INSERT INTO t VALUES(?1, ?2)";
        let before = c.prepares();
        let id = c.prepare(insert).unwrap();
        for i in 0..5 {
            let name = format!("row {i}");
            c.rerun(id, insert, &[Value::Int(i), Value::Text(&name)], None).unwrap();
        }
        // One prepare for the statement, and one after each of its five runs.
        assert_eq!(c.prepares() - before, 6);
        assert_eq!(c.open_statements(), 1);
        let query = "SELECT a, b FROM t WHERE a >= ?1 ORDER BY a";
        let q = c.prepare(query).unwrap();
        let mut out = Values::default();
        assert_eq!(c.rerun(q, query, &[Value::Int(3)], Some(&mut out)).unwrap(), 2);
        assert_eq!(out.len(), 4, "two rows of two columns, by type");
        c.finalize(id);
        c.finalize(q);
        assert_eq!(c.open_statements(), 0);
    }
}
