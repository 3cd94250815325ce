//! Blobs as a capability of a connection, so one workload (`blob`) runs on SQL engines and on
//! the plain filesystem alike.
//!
//! [`super::Connection`] is SQL-shaped; the filesystem (`files`) speaks no SQL, and SQLite's
//! incremental blob I/O (`sqlite3_blob_*`) is no SQL either. A [`BlobStore`] is the smallest
//! interface the workload needs: create the store, load blobs, read and write a whole blob by
//! key, count them. A connection that stores blobs its own way says so
//! ([`super::Connection::stores_blobs_natively`]) and hands out its store; every other
//! connection gets [`SqlBlobs`], written once over prepared `SELECT`/`UPDATE` statements.
//!
//! The harness adds no copies: a read lands in one buffer owned by the store (the SQL result
//! value, or the buffer the engine reads into) and is returned as a borrowed slice; a write
//! passes the caller's buffer straight to the engine. With the caller's write buffer, that is
//! at most two blob-sized buffers of litebench's own per connection.

use super::values::{CellRef, Values};
use super::{Connection, EngineError, ErrorKind, StmtId, Value};

/// The table and columns of the SQL stores (one row per blob; `id` is the key, which in SQLite
/// is the rowid, as `sqlite3_blob_open` needs).
pub const TABLE: &str = "blobs";
pub const KEY_COLUMN: &str = "id";
pub const DATA_COLUMN: &str = "data";

/// Rows inserted per transaction while loading.
const LOAD_BATCH: u64 = 1000;

/// Whole-blob storage by integer key.
pub trait BlobStore {
    /// Creates the empty store (the table, or nothing).
    fn create(&mut self) -> Result<(), EngineError>;
    /// Stores a new blob under `key` while loading (untimed; may batch).
    fn insert(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError>;
    /// Makes everything inserted so far stored (commits the last batch).
    fn finish_load(&mut self) -> Result<(), EngineError>;
    /// Reads the whole blob `key` into the store's buffer and returns it.
    fn read(&mut self, key: u64) -> Result<&[u8], EngineError>;
    /// What the last successful [`BlobStore::read`] returned, still in the store's buffer: for
    /// checking it after the operation's clock stopped. Empty before any read.
    fn last_read(&self) -> &[u8];
    /// Replaces the whole blob `key` by `data` (same length as before, for stores that cannot
    /// resize in place).
    fn write(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError>;
    /// Blobs stored (not for timed loops).
    fn count(&mut self) -> Result<u64, EngineError>;
    /// Prepares everything a timed operation needs (statements), outside the timed region.
    fn ready(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
}

/// An error of the blob layer itself (a missing blob, a bad length).
pub fn blob_error(engine: &str, message: String, context: &str) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: engine.to_string(),
        kind: ErrorKind::Other,
        code: None,
        message,
        context: context.to_string(),
    }
}

/// Creates the blob table on any SQL connection.
pub fn create_table(conn: &mut dyn Connection) -> Result<(), EngineError> {
    let d = conn.dialect();
    // SQLite: INTEGER PRIMARY KEY makes `id` the rowid.
    let key = match d {
        super::Dialect::Sqlite => "INTEGER",
        _ => "BIGINT",
    };
    conn.execute_batch(&format!(
        "CREATE TABLE {TABLE}({KEY_COLUMN} {key} PRIMARY KEY, {DATA_COLUMN} {})",
        d.blob_type()
    ))
}

/// Loads blobs in transactions of [`LOAD_BATCH`] rows through a prepared `INSERT`.
pub struct SqlLoader {
    insert: Option<StmtId>,
    pending: u64,
}

impl SqlLoader {
    pub fn new() -> SqlLoader {
        SqlLoader {
            insert: None,
            pending: 0,
        }
    }

    pub fn insert(&mut self, conn: &mut dyn Connection, key: u64, data: &[u8]) -> Result<(), EngineError> {
        let stmt = match self.insert {
            Some(s) => s,
            None => {
                let s = conn.prepare(&format!(
                    "INSERT INTO {TABLE}({KEY_COLUMN}, {DATA_COLUMN}) VALUES (?, ?)"
                ))?;
                self.insert = Some(s);
                s
            }
        };
        if self.pending == 0 {
            conn.execute_batch(conn.begin_write())?;
        }
        conn.run(stmt, &[Value::Int(key as i64), Value::Blob(data)])?;
        self.pending += 1;
        if self.pending == LOAD_BATCH {
            self.finish(conn)?;
        }
        Ok(())
    }

    pub fn finish(&mut self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        if self.pending > 0 {
            self.pending = 0;
            conn.execute_batch("COMMIT")?;
        }
        Ok(())
    }
}

impl Default for SqlLoader {
    fn default() -> Self {
        SqlLoader::new()
    }
}

/// Counts the rows of the blob table.
pub fn count_rows(conn: &mut dyn Connection) -> Result<u64, EngineError> {
    let v = conn.query_value(&format!("SELECT count(*) FROM {TABLE}"))?;
    Ok(v.and_then(|s| s.parse().ok()).unwrap_or(0))
}

/// The generic store: `SELECT data ... WHERE id = ?` and `UPDATE ... SET data = ? WHERE id = ?`,
/// prepared once, each run in autocommit (one transaction per operation, as the paper's).
pub struct SqlBlobs<'c> {
    conn: &'c mut dyn Connection,
    select: Option<StmtId>,
    update: Option<StmtId>,
    loader: SqlLoader,
    /// The one buffer a read lands in (the query's result value).
    out: Values,
}

impl<'c> SqlBlobs<'c> {
    pub fn new(conn: &'c mut dyn Connection) -> SqlBlobs<'c> {
        SqlBlobs {
            conn,
            select: None,
            update: None,
            loader: SqlLoader::new(),
            out: Values::with_capacity(1, 0),
        }
    }

    fn engine(&self) -> String {
        format!("{:?}", self.conn.dialect()).to_ascii_lowercase()
    }

    fn select(&mut self) -> Result<StmtId, EngineError> {
        if let Some(s) = self.select {
            return Ok(s);
        }
        let s = self
            .conn
            .prepare(&format!("SELECT {DATA_COLUMN} FROM {TABLE} WHERE {KEY_COLUMN} = ?"))?;
        self.select = Some(s);
        Ok(s)
    }

    fn update(&mut self) -> Result<StmtId, EngineError> {
        if let Some(s) = self.update {
            return Ok(s);
        }
        let s = self
            .conn
            .prepare(&format!("UPDATE {TABLE} SET {DATA_COLUMN} = ? WHERE {KEY_COLUMN} = ?"))?;
        self.update = Some(s);
        Ok(s)
    }
}

impl BlobStore for SqlBlobs<'_> {
    fn create(&mut self) -> Result<(), EngineError> {
        create_table(self.conn)
    }

    fn insert(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        self.loader.insert(self.conn, key, data)
    }

    fn finish_load(&mut self) -> Result<(), EngineError> {
        self.loader.finish(self.conn)
    }

    fn read(&mut self, key: u64) -> Result<&[u8], EngineError> {
        let stmt = self.select()?;
        self.out.clear();
        let rows = self.conn.run_values(stmt, &[Value::Int(key as i64)], &mut self.out)?;
        if rows != 1 || self.out.len() != 1 {
            return Err(blob_error(
                &self.engine(),
                format!("blob {key}: the SELECT returned {rows} rows"),
                "reading a blob",
            ));
        }
        match self.out.get(0) {
            CellRef::Blob(b) | CellRef::Text(b) => Ok(b),
            other => Err(blob_error(
                &self.engine(),
                format!("blob {key}: the SELECT returned {other} instead of a blob"),
                "reading a blob",
            )),
        }
    }

    fn last_read(&self) -> &[u8] {
        if self.out.len() != 1 {
            return &[];
        }
        match self.out.get(0) {
            CellRef::Blob(b) | CellRef::Text(b) => b,
            _ => &[],
        }
    }

    fn write(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        let stmt = self.update()?;
        let changed = self.conn.run(stmt, &[Value::Blob(data), Value::Int(key as i64)])?;
        if changed != 1 {
            return Err(blob_error(
                &self.engine(),
                format!("blob {key}: the UPDATE changed {changed} rows"),
                "writing a blob",
            ));
        }
        Ok(())
    }

    fn count(&mut self) -> Result<u64, EngineError> {
        count_rows(self.conn)
    }

    fn ready(&mut self) -> Result<(), EngineError> {
        self.select()?;
        self.update().map(|_| ())
    }
}

/// The store a workload uses on `conn`: the connection's own where it has one, else SQL.
pub fn store_of(conn: &mut dyn Connection) -> Result<Box<dyn BlobStore + '_>, EngineError> {
    if conn.stores_blobs_natively() {
        conn.native_blob_store()
    } else {
        Ok(Box::new(SqlBlobs::new(conn)))
    }
}
