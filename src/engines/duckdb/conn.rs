//! One DuckDB database instance and the connections to it, through a library's [`Api`].
//!
//! A DuckDB process may open a database file once: every connection to the same file (several
//! clients) is a connection to one instance ([`Db`]). Each connection holds the instance, so it
//! is closed only when its last connection is.

use super::api::{self, Api, Appender, Conn, Database, DuckResult, Prepared, SUCCESS};
use super::result::{Cell, Owned};
use crate::engines::values::Values;
use crate::engines::{Connection, Dialect, EngineError, ErrorKind, StmtId, Value};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::path::Path;
use std::sync::Arc;

/// An error of engine `label`, classified from DuckDB's message.
pub fn error(label: &str, message: String, context: &str) -> EngineError {
    let lower = message.to_ascii_lowercase();
    let conflict = lower.contains("conflict");
    let kind = if lower.contains("no space left") || lower.contains("disk is full") {
        ErrorKind::Full
    } else if conflict || lower.contains("could not set lock") {
        ErrorKind::Busy
    } else if lower.contains("io error") {
        ErrorKind::Io
    } else {
        ErrorKind::Other
    };
    EngineError {
        // A transaction conflict (optimistic concurrency): the transaction must start again,
        // as after PostgreSQL's serialization failure.
        busy_cause: (kind == ErrorKind::Busy).then_some(if conflict {
            crate::engines::BusyCause::Serialization
        } else {
            crate::engines::BusyCause::Unknown
        }),
        engine: label.to_string(),
        kind,
        code: None,
        message,
        context: context.to_string(),
    }
}

/// SQL or a name as a C string; an interior NUL is an input error.
fn c_string(label: &str, s: &str, context: &str) -> Result<CString, EngineError> {
    CString::new(s).map_err(|_| nul_error(label, context))
}

/// What [`c_string`] refuses.
fn nul_error(label: &str, context: &str) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: label.to_string(),
        kind: ErrorKind::Input,
        code: None,
        message: "contains a NUL byte".into(),
        context: context.to_string(),
    }
}

/// An open database instance.
pub struct Db {
    api: &'static Api,
    handle: Database,
    label: String,
    /// The directory of its file (`None`: in memory), where the user's SQL may reach once
    /// confined ([`DuckConn`]'s `confine_to_scratch`).
    dir: Option<std::path::PathBuf>,
}

// SAFETY: DuckDB's database handle is thread-safe: connections to it may be opened and used
// from any thread (each connection by one thread at a time).
unsafe impl Send for Db {}
// SAFETY: as above.
unsafe impl Sync for Db {}

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: opened by this library, closed once, after every connection to it (each holds
        // an `Arc<Db>`).
        unsafe { (self.api.close)(&mut self.handle) }
    }
}

impl Db {
    /// Opens `path` (in memory for `None`) with DuckDB's `threads` set before it starts.
    pub fn open(api: &'static Api, label: &str, path: Option<&Path>, threads: &str) -> Result<Db, EngineError> {
        let shown = path.map_or(":memory:".to_string(), |p| p.display().to_string());
        let context = format!("opening {shown}");
        let c_path = match path {
            Some(p) => Some(c_string(label, &p.display().to_string(), &context)?),
            None => None,
        };
        let mut config: api::Config = std::ptr::null_mut();
        // SAFETY: the C API's calls in the order it documents; the config is destroyed below
        // whatever happens, and the error string is freed with duckdb_free.
        unsafe {
            if (api.create_config)(&mut config) != SUCCESS {
                return Err(error(label, "cannot create a configuration".into(), &context));
            }
            let threads_c = c_string(label, threads, &context)?;
            let set = (api.set_config)(config, c"threads".as_ptr(), threads_c.as_ptr());
            let mut handle: Database = std::ptr::null_mut();
            let mut message: *mut c_char = std::ptr::null_mut();
            let rc = if set == SUCCESS {
                (api.open_ext)(
                    c_path.as_ref().map_or(std::ptr::null(), |p| p.as_ptr()),
                    &mut handle,
                    config,
                    &mut message,
                )
            } else {
                set
            };
            (api.destroy_config)(&mut config);
            if set != SUCCESS {
                return Err(error(label, format!("DuckDB refused threads={threads}"), &context));
            }
            if rc != SUCCESS {
                let text = api::cstr(message);
                if !message.is_null() {
                    (api.free)(message as *mut c_void);
                }
                return Err(error(label, text, &context));
            }
            Ok(Db {
                api,
                handle,
                label: label.to_string(),
                dir: path.and_then(Path::parent).map(Path::to_path_buf),
            })
        }
    }

    /// A new connection to this instance.
    pub fn connect(self: &Arc<Db>) -> Result<DuckConn, EngineError> {
        let mut conn: Conn = std::ptr::null_mut();
        // SAFETY: a live database of this library.
        if unsafe { (self.api.connect)(self.handle, &mut conn) } != SUCCESS {
            return Err(error(&self.label, "cannot open a connection".into(), "connecting"));
        }
        Ok(DuckConn {
            api: self.api,
            db: Arc::clone(self),
            conn,
            stmts: Vec::new(),
            by_sql: HashMap::new(),
        })
    }
}

/// A prepared statement and whether it returns rows.
struct Stmt {
    sql: String,
    handle: Prepared,
    rows: bool,
}

/// A DuckDB connection; statements are prepared once per SQL text.
pub struct DuckConn {
    api: &'static Api,
    /// Keeps the instance open while this connection is.
    db: Arc<Db>,
    conn: Conn,
    stmts: Vec<Stmt>,
    by_sql: HashMap<String, usize>,
}

impl Drop for DuckConn {
    fn drop(&mut self) {
        for s in &mut self.stmts {
            // SAFETY: prepared on this connection, destroyed once.
            unsafe { (self.api.destroy_prepare)(&mut s.handle) };
        }
        // SAFETY: connected by this library, disconnected once, before the instance closes.
        unsafe { (self.api.disconnect)(&mut self.conn) }
    }
}

/// Whether a statement returns rows to read (a count of changed rows otherwise).
pub fn returns_rows(sql: &str) -> bool {
    let head: String = sql
        .trim_start()
        .chars()
        .take(8)
        .collect::<String>()
        .to_ascii_uppercase();
    [
        "SELECT", "WITH", "VALUES", "PRAGMA", "SHOW", "DESCRIBE", "FROM", "EXPLAIN",
    ]
    .iter()
    .any(|k| head.starts_with(k))
}

/// Appends one result cell to `out`.
fn push_cell(out: &mut Values, cell: Cell<'_>) {
    match cell {
        Cell::Null => out.push_null(),
        Cell::Int(i) => out.push_int(i),
        Cell::Wide(i) => out.push_real(i as f64),
        Cell::Real(r) => out.push_real(r),
        Cell::Decimal(v, scale) => out.push_decimal(v as f64 / 10f64.powi(i32::from(scale)), u16::from(scale)),
        Cell::Text(b) => out.push_text(b),
        Cell::Blob(b) => out.push_blob(b),
    }
}

impl DuckConn {
    fn label(&self) -> &str {
        &self.db.label
    }

    fn err(&self, message: String, context: &str) -> EngineError {
        error(self.label(), message, context)
    }

    /// Runs `sql` (one or more statements) and returns the last one's result.
    fn query_raw(&mut self, sql: &str) -> Result<Owned, EngineError> {
        // Formatted only on an error: this runs inside timed transactions (BEGIN, COMMIT).
        let context = || format!("running `{sql}`");
        let c_sql = CString::new(sql).map_err(|_| nul_error(self.label(), &context()))?;
        let mut result = Owned {
            api: self.api,
            raw: DuckResult::empty(),
        };
        // SAFETY: a live connection; the result is destroyed by `Owned`, also on failure.
        if unsafe { (self.api.query)(self.conn, c_sql.as_ptr(), &mut result.raw) } != SUCCESS {
            let message = result.error();
            return Err(self.err(message, &context()));
        }
        Ok(result)
    }

    /// Binds `params` to statement `id` and executes it.
    fn execute(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<Owned, EngineError> {
        let api = self.api;
        let stmt = &self.stmts[id.0];
        let handle = stmt.handle;
        for (i, p) in params.iter().enumerate() {
            let idx = i as api::Idx + 1;
            // SAFETY: a live prepared statement; text and blobs are copied before the call
            // returns.
            let rc = unsafe {
                match *p {
                    Value::Null => (api.bind_null)(handle, idx),
                    Value::Int(v) => (api.bind_int64)(handle, idx, v),
                    Value::Real(v) => (api.bind_double)(handle, idx, v),
                    Value::Text(s) => {
                        (api.bind_varchar_length)(handle, idx, s.as_ptr() as *const c_char, s.len() as api::Idx)
                    }
                    Value::Blob(b) => (api.bind_blob)(handle, idx, b.as_ptr() as *const c_void, b.len() as api::Idx),
                }
            };
            if rc != SUCCESS {
                // SAFETY: the statement's own error text.
                let message = unsafe { api::cstr((api.prepare_error)(handle)) };
                let message = if message.is_empty() {
                    format!("cannot bind parameter {idx}")
                } else {
                    message
                };
                return Err(self.err(message, &format!("running `{}`", stmt.sql)));
            }
        }
        let mut result = Owned {
            api,
            raw: DuckResult::empty(),
        };
        // SAFETY: a live prepared statement; the result is destroyed by `Owned`.
        if unsafe { (api.execute_prepared)(handle, &mut result.raw) } != SUCCESS {
            let message = result.error();
            return Err(self.err(message, &format!("running `{}`", stmt.sql)));
        }
        Ok(result)
    }
}

impl Connection for DuckConn {
    fn dialect(&self) -> Dialect {
        Dialect::Duckdb
    }

    fn interrupter(&self) -> Option<crate::engines::Interrupter> {
        /// The connection handle, for another thread: DuckDB's interrupt is thread-safe, and
        /// the trait's contract is that it is called only while the connection is open.
        struct Handle(Conn);
        // SAFETY: see above.
        unsafe impl Send for Handle {}
        // SAFETY: see above.
        unsafe impl Sync for Handle {}
        impl Handle {
            fn get(&self) -> Conn {
                self.0
            }
        }
        let handle = Handle(self.conn);
        let interrupt = self.api.interrupt;
        // SAFETY: duckdb_interrupt on an open connection, from any thread.
        Some(Box::new(move || unsafe { interrupt(handle.get()) }))
    }

    /// External access off (`enable_external_access=false`: no `ATTACH`, `COPY`, file reader or
    /// extension outside), but for the scratch directory of the instance's database
    /// (`allowed_directories`, DuckDB 1.2.0 and later; the pinned releases have it). Both are
    /// global to the instance, and once off, DuckDB refuses to turn access on again while the
    /// instance runs, from this SQL or any other: a connection to an instance already confined
    /// has nothing to do.
    fn confine_to_scratch(&mut self) -> Result<(), EngineError> {
        let on = self.query_value("SELECT CAST(current_setting('enable_external_access') AS VARCHAR)")?;
        if on.as_deref() == Some("false") {
            return Ok(());
        }
        if let Some(dir) = &self.db.dir {
            let dir = dir.canonicalize().map_err(|e| {
                error(
                    &self.db.label,
                    format!("{}: {e}", dir.display()),
                    "confining the user's SQL to the scratch directory",
                )
            })?;
            let quoted = dir.display().to_string().replace('\'', "''");
            self.execute_batch(&format!("SET allowed_directories = ['{quoted}/']"))?;
        }
        self.execute_batch("SET enable_external_access = false")
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.query_raw(sql).map(drop)
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        if let Some(&i) = self.by_sql.get(sql) {
            return Ok(StmtId(i));
        }
        let context = format!("preparing `{sql}`");
        let c_sql = c_string(self.label(), sql, &context)?;
        let mut handle: Prepared = std::ptr::null_mut();
        // SAFETY: a live connection; a failed statement is destroyed at once, a good one when
        // the connection drops.
        unsafe {
            if (self.api.prepare)(self.conn, c_sql.as_ptr(), &mut handle) != SUCCESS {
                let message = api::cstr((self.api.prepare_error)(handle));
                (self.api.destroy_prepare)(&mut handle);
                return Err(self.err(message, &context));
            }
        }
        self.stmts.push(Stmt {
            sql: sql.to_string(),
            handle,
            rows: returns_rows(sql),
        });
        self.by_sql.insert(sql.to_string(), self.stmts.len() - 1);
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        let rows = self.stmts[id.0].rows;
        let mut result = self.execute(id, params)?;
        Ok(if rows {
            result.count_rows()
        } else {
            result.rows_changed()
        })
    }

    /// DuckDB 1.4.0's prepared-statement columns; an older library cannot tell them without
    /// running the statement: refused, naming the release that can.
    fn column_names(&mut self, id: StmtId) -> Result<Vec<String>, EngineError> {
        let Some((count, name)) = self.api.prepared_columns else {
            return Err(self.err(
                "this DuckDB library cannot name a prepared statement's columns (duckdb_prepared_statement_column_name, DuckDB 1.4.0); use DuckDB 1.4.0 or newer for \\gset and \\aset".into(),
                &format!("reading the columns of `{}`", self.stmts[id.0].sql),
            ));
        };
        let handle = self.stmts[id.0].handle;
        // SAFETY: a live prepared statement; each name is DuckDB's copy, freed with duckdb_free.
        let names = unsafe {
            (0..count(handle))
                .map(|i| {
                    let p = name(handle, i);
                    let s = api::cstr(p);
                    (self.api.free)(p.cast());
                    s
                })
                .collect()
        };
        Ok(names)
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        let mut result = self.execute(id, params)?;
        let n = result.for_each(|c| push_cell(out, c));
        n.map_err(|m| self.err(m, &format!("running `{}`", self.stmts[id.0].sql)))
    }

    fn query_plan(&mut self, sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        // Rows (explain_key, explain_value): the physical plan is drawn in the last column.
        let rows = self.query(&format!("EXPLAIN {sql}"))?;
        let last = rows.first().map_or(0, |r| r.len().saturating_sub(1));
        Ok(Some(crate::engines::explain_lines(&rows, Some(last))))
    }

    /// DuckDB's appender: rows go straight into the table's column segments, without SQL
    /// (inserting row by row through prepared statements manages a few thousand rows a second).
    fn bulk_load(
        &mut self,
        table: &str,
        columns: &[&str],
        fill: crate::engines::bulk::Fill<'_>,
    ) -> Result<u64, EngineError> {
        let ctx = format!("appending to {table}");
        let c_table = c_string(self.label(), table, &ctx)?;
        let mut sink = AppendSink {
            api: self.api,
            label: self.label().to_string(),
            appender: std::ptr::null_mut(),
            width: columns.len(),
            rows: 0,
            context: ctx,
        };
        // SAFETY: a live connection; the appender is destroyed by the sink, also on failure.
        if unsafe { (self.api.appender_create)(self.conn, std::ptr::null(), c_table.as_ptr(), &mut sink.appender) }
            != SUCCESS
        {
            return Err(sink.error());
        }
        for c in columns {
            let c_col = c_string(self.label(), c, &sink.context)?;
            // SAFETY: a live appender.
            if unsafe { (self.api.appender_add_column)(sink.appender, c_col.as_ptr()) } != SUCCESS {
                return Err(sink.error());
            }
        }
        fill(&mut sink)?;
        // SAFETY: a live appender.
        if unsafe { (self.api.appender_flush)(sink.appender) } != SUCCESS {
            return Err(sink.error());
        }
        Ok(sink.rows)
    }

    fn bulk_path(&self) -> &'static str {
        "appender"
    }

    /// `COPY table (columns) FROM 'file'`: DuckDB's own CSV reader, told everything its sniffer
    /// would otherwise guess: no header (the sniffer takes the first line of `date.tbl` for
    /// one), no quotes or escapes, and every column `FORCE_NOT_NULL`, so an empty field is an
    /// empty string (an error in a number column) as the appender path has it. DuckDB ignores
    /// the trailing delimiter of ssb-dbgen's lines and reads `\r\n` line ends by itself. A
    /// path that is not UTF-8 cannot be written into the statement: `Ok(None)`, and the caller
    /// appends.
    fn load_file(
        &mut self,
        table: &str,
        columns: &[&str],
        file: &crate::engines::bulk::DelimitedFile<'_>,
    ) -> Result<Option<crate::engines::bulk::FileLoad>, EngineError> {
        let Some(path) = file.path.to_str() else {
            return Ok(None);
        };
        let sql = copy_from_sql(table, columns, path, file.delimiter);
        let rows = self.query(&sql)?;
        let n = rows
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|v| v.parse::<u64>().ok());
        let Some(rows) = n else {
            return Err(self.err(format!("COPY answered {rows:?}, not a row count"), "loading a file"));
        };
        Ok(Some(crate::engines::bulk::FileLoad { rows, path: COPY_PATH }))
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let mut result = self.query_raw(sql)?;
        let width = {
            // SAFETY: a result of this library.
            unsafe { (self.api.column_count)(&mut result.raw) as usize }
        };
        let mut cells = Vec::new();
        result
            .for_each(|c| cells.push(c.text()))
            .map_err(|m| self.err(m, &format!("running `{sql}`")))?;
        if width == 0 {
            return Ok(Vec::new());
        }
        let mut out = Vec::with_capacity(cells.len() / width);
        let mut it = cells.into_iter();
        loop {
            let row: Vec<Option<String>> = it.by_ref().take(width).collect();
            if row.is_empty() {
                break;
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// What DuckDB's `COPY ... FROM 'file'` is called in the footprint.
pub const COPY_PATH: &str = "COPY FROM file (native)";

/// The `COPY` statement of [`DuckConn::load_file`]; quotes in the path are doubled.
fn copy_from_sql(table: &str, columns: &[&str], path: &str, delimiter: u8) -> String {
    let columns = columns.join(", ");
    let delimiter = char::from(delimiter).to_string().replace('\'', "''");
    format!(
        "COPY {table} ({columns}) FROM '{}' (DELIMITER '{delimiter}', HEADER false, QUOTE '', ESCAPE '', FORCE_NOT_NULL ({columns}))",
        path.replace('\'', "''")
    )
}

/// The rows of one table, appended as they come.
struct AppendSink {
    api: &'static Api,
    label: String,
    appender: Appender,
    width: usize,
    rows: u64,
    context: String,
}

impl Drop for AppendSink {
    fn drop(&mut self) {
        if !self.appender.is_null() {
            // SAFETY: created by this library, destroyed once.
            unsafe { (self.api.appender_destroy)(&mut self.appender) };
        }
    }
}

impl AppendSink {
    fn error(&self) -> EngineError {
        let message = if self.appender.is_null() {
            String::new()
        } else {
            // SAFETY: a live appender's error text.
            unsafe { api::cstr((self.api.appender_error)(self.appender)) }
        };
        let message = if message.is_empty() {
            "the appender failed".to_string()
        } else {
            message
        };
        error(&self.label, message, &self.context)
    }
}

impl crate::engines::bulk::RowSink for AppendSink {
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError> {
        if values.len() != self.width {
            return Err(crate::engines::bulk::input_error(
                &self.label,
                format!("a row of {} values for {} columns", values.len(), self.width),
            ));
        }
        let (api, a) = (self.api, self.appender);
        for v in values {
            // SAFETY: a live appender; DuckDB copies text and blobs before the call returns.
            let rc = unsafe {
                match *v {
                    Value::Null => (api.append_null)(a),
                    Value::Int(i) => (api.append_int64)(a, i),
                    Value::Real(r) => (api.append_double)(a, r),
                    Value::Text(t) => (api.append_varchar_length)(a, t.as_ptr() as *const c_char, t.len() as api::Idx),
                    Value::Blob(b) => (api.append_blob)(a, b.as_ptr() as *const c_void, b.len() as api::Idx),
                }
            };
            if rc != SUCCESS {
                return Err(self.error());
            }
        }
        // SAFETY: a live appender.
        if unsafe { (api.appender_end_row)(a) } != SUCCESS {
            return Err(self.error());
        }
        self.rows += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_names_every_reading_choice_and_quotes_the_path() {
        let sql = copy_from_sql("part", &["p_partkey", "p_name"], "/tmp/o'k/part.tbl", b'|');
        assert_eq!(
            sql,
            "COPY part (p_partkey, p_name) FROM '/tmp/o''k/part.tbl' (DELIMITER '|', HEADER false, QUOTE '', ESCAPE '', FORCE_NOT_NULL (p_partkey, p_name))"
        );
    }

    #[test]
    fn row_returning_statements() {
        assert!(returns_rows("  select 1"));
        assert!(!returns_rows("INSERT INTO t VALUES (1)"));
    }

    #[test]
    fn result_cells_keep_their_kinds() {
        let mut out = Values::default();
        for c in [
            Cell::Int(3),
            Cell::Int(4_000_000_000),
            Cell::Real(2.5),
            Cell::Text(b"abc"),
            Cell::Null,
            Cell::Wide(i128::from(i64::MAX) + 1),
            Cell::Decimal(12345, 2),
        ] {
            push_cell(&mut out, c);
        }
        assert_eq!(out.describe(0..5), "(3, 4000000000, 2.5, 'abc', NULL)");
        assert_eq!(
            out.get(6),
            crate::engines::values::CellRef::Decimal {
                value: 123.45,
                scale: 2
            }
        );
    }
}
