//! SQLite's incremental blob I/O (`sqlite3_blob_open/read/write/close`) as a [`BlobStore`],
//! behind the knob `blob_api=incremental` (kvtest's `--blob-api`).
//!
//! Each operation opens a handle on the row, reads or writes the whole value and closes the
//! handle: an open handle keeps the statement behind it running, so a handle kept across
//! operations would hold one transaction open for the whole trial (no commit per write, no
//! checkpoint in WAL mode). Opened and closed per operation, a write commits on close like the
//! `UPDATE` of `blob_api=sql`. Incremental I/O cannot change a value's length; the `blob`
//! workload never does. Loading, creating and counting go through SQL.

use super::api::sqlite3_blob;
use super::conn::SqliteConn;
use crate::engines::blob::{self, BlobStore, SqlLoader};
use crate::engines::EngineError;
use libsqlite3_sys as ffi;
use std::ffi::{c_int, CString};

/// How the `blob` workload reaches SQLite's blobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlobApi {
    /// `SELECT` and `UPDATE` of the whole value (the VLDB'22 paper's).
    #[default]
    Sql,
    /// `sqlite3_blob_open`, `_read`/`_write`, `_close`.
    Incremental,
}

impl BlobApi {
    /// The knob's values.
    pub const NAMES: &'static [&'static str] = &["sql", "incremental"];

    pub fn name(self) -> &'static str {
        match self {
            BlobApi::Sql => "sql",
            BlobApi::Incremental => "incremental",
        }
    }

    pub fn parse(s: &str) -> Option<BlobApi> {
        match s {
            "sql" => Some(BlobApi::Sql),
            "incremental" => Some(BlobApi::Incremental),
            _ => None,
        }
    }
}

/// The incremental store over one connection.
pub struct IncrementalBlobs<'c> {
    conn: &'c mut SqliteConn,
    db_name: CString,
    table: CString,
    column: CString,
    loader: SqlLoader,
    /// The one buffer a read lands in, and the length of the last read.
    buf: Vec<u8>,
    last: usize,
}

impl<'c> IncrementalBlobs<'c> {
    pub fn new(conn: &'c mut SqliteConn) -> IncrementalBlobs<'c> {
        IncrementalBlobs {
            conn,
            db_name: CString::new("main").expect("no NUL"),
            table: CString::new(blob::TABLE).expect("no NUL"),
            column: CString::new(blob::DATA_COLUMN).expect("no NUL"),
            loader: SqlLoader::new(),
            buf: Vec::new(),
            last: 0,
        }
    }

    /// Opens a handle on row `key`, read-only or for writing.
    fn open(&mut self, key: u64, write: bool) -> Result<*mut sqlite3_blob, EngineError> {
        let api = self.conn.api();
        let mut handle = std::ptr::null_mut();
        // SAFETY: the connection is open; names are NUL-terminated; the out-pointer is valid.
        let rc = unsafe {
            (api.blob_open)(
                self.conn.raw_db(),
                self.db_name.as_ptr(),
                self.table.as_ptr(),
                self.column.as_ptr(),
                key as i64,
                c_int::from(write),
                &mut handle,
            )
        };
        if rc != ffi::SQLITE_OK {
            // A failed open may still have allocated a handle (SQLite sets it to NULL, but be safe).
            if !handle.is_null() {
                // SAFETY: a handle SQLite gave us.
                unsafe { (api.blob_close)(handle) };
            }
            return Err(self.conn.error(rc, &format!("sqlite3_blob_open of blob {key}")));
        }
        Ok(handle)
    }

    /// Closes `handle` (committing a write), reporting the first error of the operation or of
    /// the close.
    /// Closes `handle`; `what` names the operation for an error, built only then (this runs in
    /// the timed region).
    fn close(
        &mut self,
        handle: *mut sqlite3_blob,
        op_rc: c_int,
        what: impl FnOnce() -> String,
    ) -> Result<(), EngineError> {
        // SAFETY: a handle opened by `open` and not closed yet.
        let close_rc = unsafe { (self.conn.api().blob_close)(handle) };
        let rc = if op_rc != ffi::SQLITE_OK { op_rc } else { close_rc };
        if rc != ffi::SQLITE_OK {
            return Err(self.conn.error(rc, &what()));
        }
        Ok(())
    }
}

impl BlobStore for IncrementalBlobs<'_> {
    fn create(&mut self) -> Result<(), EngineError> {
        blob::create_table(self.conn)
    }

    fn insert(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        self.loader.insert(self.conn, key, data)
    }

    fn finish_load(&mut self) -> Result<(), EngineError> {
        self.loader.finish(self.conn)
    }

    fn read(&mut self, key: u64) -> Result<&[u8], EngineError> {
        let handle = self.open(key, false)?;
        let api = self.conn.api();
        // SAFETY: an open handle.
        let n = unsafe { (api.blob_bytes)(handle) }.max(0) as usize;
        // Grows once to the largest blob; never shrinks, so steady state allocates nothing.
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        // SAFETY: buf holds at least n bytes; the handle is open.
        let rc = unsafe { (api.blob_read)(handle, self.buf.as_mut_ptr().cast(), n as c_int, 0) };
        self.close(handle, rc, || format!("sqlite3_blob_read of blob {key}"))?;
        self.last = n;
        Ok(&self.buf[..n])
    }

    fn last_read(&self) -> &[u8] {
        &self.buf[..self.last]
    }

    fn write(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        let handle = self.open(key, true)?;
        let api = self.conn.api();
        // SAFETY: an open handle.
        let n = unsafe { (api.blob_bytes)(handle) }.max(0) as usize;
        if n != data.len() {
            // SAFETY: an open handle, closed once.
            unsafe { (api.blob_close)(handle) };
            return Err(blob::blob_error(
                self.conn.label(),
                format!(
                    "blob {key} holds {n} bytes and incremental I/O cannot resize it to {}",
                    data.len()
                ),
                "writing a blob",
            ));
        }
        // SAFETY: data is valid for its length; the handle is open for writing.
        let rc = unsafe { (api.blob_write)(handle, data.as_ptr().cast(), n as c_int, 0) };
        self.close(handle, rc, || format!("sqlite3_blob_write of blob {key}"))
    }

    fn count(&mut self) -> Result<u64, EngineError> {
        blob::count_rows(self.conn)
    }
}
