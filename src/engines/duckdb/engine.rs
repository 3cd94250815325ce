//! DuckDB as an engine under test (cargo feature `duckdb`).
//!
//! The VLDB'22 study of SQLite uses DuckDB as its reference engine, with one thread and a
//! 1 GB memory limit for both. DuckDB is embedded through the `duckdb` crate, built from source
//! (`bundled`, without the default features that download a prebuilt library). Databases are
//! files in the scratch directory, cloned for each trial like SQLite's. litebench starts every
//! connection with `threads=1` unless the `threads` knob says otherwise, as the paper did.
//!
//! One DuckDB process may open a database file once: further connections to the same file
//! (several clients) are clones of one primary connection, kept open until the database is
//! cloned or dropped, or its population ends: a template's population is timed until its WAL
//! is checkpointed into the file, as SQLite's until its connection closes.

use crate::engines::values::Values;
use crate::engines::{Connection, DbRef, Dialect, Engine, EngineError, ErrorKind, StmtId, Value, OS_CACHE_DROPPED};
use crate::model::knob::{KnobReading, KnobSet, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::Scratch;
use duckdb::types::{Value as DValue, ValueRef};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{DUCKDB_KNOBS, PREFIX};

/// The DuckDB engine.
pub struct DuckEngine {
    version: String,
    source_id: String,
    primaries: Mutex<HashMap<PathBuf, duckdb::Connection>>,
}

fn error(e: duckdb::Error, context: &str) -> EngineError {
    let message = e.to_string();
    let lower = message.to_ascii_lowercase();
    let kind = if lower.contains("no space left") || lower.contains("disk is full") {
        ErrorKind::Full
    } else if lower.contains("conflict") || lower.contains("could not set lock") {
        ErrorKind::Busy
    } else if lower.contains("io error") {
        ErrorKind::Io
    } else {
        ErrorKind::Other
    };
    EngineError {
        engine: "duckdb".into(),
        kind,
        code: None,
        message,
        context: context.to_string(),
    }
}

fn text(v: DValue) -> Option<String> {
    Some(match v {
        DValue::Null => return None,
        DValue::Boolean(b) => if b { "1" } else { "0" }.to_string(),
        DValue::TinyInt(x) => x.to_string(),
        DValue::SmallInt(x) => x.to_string(),
        DValue::Int(x) => x.to_string(),
        DValue::BigInt(x) => x.to_string(),
        DValue::HugeInt(x) => x.to_string(),
        DValue::UTinyInt(x) => x.to_string(),
        DValue::USmallInt(x) => x.to_string(),
        DValue::UInt(x) => x.to_string(),
        DValue::UBigInt(x) => x.to_string(),
        DValue::Float(x) => x.to_string(),
        DValue::Double(x) => x.to_string(),
        DValue::Text(s) => s,
        DValue::Blob(b) => String::from_utf8_lossy(&b).into_owned(),
        other => format!("{other:?}"),
    })
}

/// Appends one result value to `out`; `Err` names a type litebench does not read.
fn push_value(out: &mut Values, v: ValueRef<'_>) -> Result<(), String> {
    match v {
        ValueRef::Null => out.push_null(),
        ValueRef::Boolean(b) => out.push_int(i64::from(b)),
        ValueRef::TinyInt(x) => out.push_int(i64::from(x)),
        ValueRef::SmallInt(x) => out.push_int(i64::from(x)),
        ValueRef::Int(x) => out.push_int(i64::from(x)),
        ValueRef::BigInt(x) => out.push_int(x),
        ValueRef::UTinyInt(x) => out.push_int(i64::from(x)),
        ValueRef::USmallInt(x) => out.push_int(i64::from(x)),
        ValueRef::UInt(x) => out.push_int(i64::from(x)),
        ValueRef::UBigInt(x) => match i64::try_from(x) {
            Ok(i) => out.push_int(i),
            Err(_) => out.push_real(x as f64),
        },
        ValueRef::HugeInt(x) => match i64::try_from(x) {
            Ok(i) => out.push_int(i),
            Err(_) => out.push_real(x as f64),
        },
        ValueRef::UHugeInt(x) => match i64::try_from(x) {
            Ok(i) => out.push_int(i),
            Err(_) => out.push_real(x as f64),
        },
        ValueRef::Float(x) => out.push_real(f64::from(x)),
        ValueRef::Double(x) => out.push_real(x),
        ValueRef::Decimal(d) => {
            let scale = d.scale();
            out.push_decimal(d.value() as f64 / 10f64.powi(i32::from(scale)), u16::from(scale));
        }
        ValueRef::Text(b) => out.push_text(b),
        ValueRef::Blob(b) => out.push_blob(b),
        other => {
            return Err(format!(
                "cannot read a {:?} value; cast the column, e.g. CAST(x AS VARCHAR)",
                other.data_type()
            ))
        }
    }
    Ok(())
}

/// Parses DuckDB's human-readable sizes ("953.6 MiB", "1.0 GiB", "16 bytes") into bytes.
pub fn parse_size(s: &str) -> Option<f64> {
    crate::base::bytesize::parse(s)
}

/// DuckDB wants a unit on sizes: whole KiB or KB when the byte count allows, else KB rounded up.
fn memory_value(bytes: &str) -> String {
    match bytes.parse::<u64>() {
        Ok(b) if b % 1024 == 0 => format!("{}KiB", b / 1024),
        Ok(b) => format!("{}KB", b.div_ceil(1000)),
        Err(_) => bytes.to_string(),
    }
}

/// DuckDB prints sizes with one decimal: a read-back within that rounding of the request is the
/// request.
fn same_size(requested: &str, readback: &str) -> bool {
    match (requested.parse::<f64>(), parse_size(readback)) {
        (Ok(r), Some(e)) => (r - e).abs() <= r * 0.001 + 1024.0 * 1024.0 * 0.05,
        _ => false,
    }
}

impl DuckEngine {
    /// Checks the library works and reads its version.
    pub fn open() -> Result<DuckEngine, EngineError> {
        let conn = duckdb::Connection::open_in_memory().map_err(|e| error(e, "opening DuckDB"))?;
        let (version, source_id) = conn
            .query_row("SELECT library_version, source_id FROM pragma_version()", [], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(|e| error(e, "reading the DuckDB version"))?;
        Ok(DuckEngine {
            version,
            source_id,
            primaries: Mutex::new(HashMap::new()),
        })
    }

    /// The write-ahead log DuckDB keeps beside `path` while the database is open.
    fn wal_path(path: &Path) -> PathBuf {
        let mut wal = path.as_os_str().to_owned();
        wal.push(".wal");
        PathBuf::from(wal)
    }

    fn close_primary(&self, path: &Path) {
        let conn = self.primaries.lock().unwrap_or_else(|p| p.into_inner()).remove(path);
        if let Some(c) = conn {
            // Checkpoint so the file is complete on its own before it is copied.
            let _ = c.execute_batch("CHECKPOINT");
            drop(c);
        }
    }
}

impl Engine for DuckEngine {
    fn label(&self) -> &str {
        "duckdb"
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn details(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "source_id": self.source_id, "build": "bundled, NDEBUG (release)" }))
    }

    fn device_io(&self) -> Option<DeviceIo> {
        // DuckDB runs in litebench's process, its worker threads included.
        DeviceIo::this_process()
    }

    fn cold_trial(&self) -> Result<String, String> {
        // The trial's copy is a new file opened by a new database instance (`connect`), so
        // DuckDB's buffer manager holds none of its blocks.
        Ok(format!(
            "{OS_CACHE_DROPPED} (DuckDB opens the trial's fresh copy as a new database instance, so its buffer pool starts empty)"
        ))
    }

    fn kind(&self) -> &'static crate::engines::kind::EngineKind {
        &super::KIND
    }

    fn io_counters(&self) -> Option<Arc<IoCounters>> {
        None
    }

    fn create_database(&self, scratch: &Scratch, name: &str) -> Result<DbRef, EngineError> {
        Ok(DbRef {
            name: name.to_string(),
            path: Some(scratch.path(&format!("{name}.duckdb"))),
        })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let src = from.path.as_ref().expect("DuckDB databases are files");
        self.close_primary(src);
        let to = scratch.path(&format!("{name}.duckdb"));
        if let Err(e) = scratch.copy_durable(src, &to) {
            let _ = std::fs::remove_file(&to);
            let kind = if e.is_disk_full() {
                ErrorKind::Full
            } else {
                ErrorKind::Io
            };
            return Err(EngineError {
                engine: "duckdb".into(),
                kind,
                code: None,
                message: e.to_string(),
                context: "copying the template".into(),
            });
        }
        Ok(DbRef {
            name: name.to_string(),
            path: Some(to),
        })
    }

    fn drop_database(&self, _scratch: &Scratch, db: &DbRef) {
        if let Some(p) = &db.path {
            self.close_primary(p);
            let _ = std::fs::remove_file(p);
            let _ = std::fs::remove_file(Self::wal_path(p));
        }
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        let p = db.path.as_ref()?;
        self.close_primary(p);
        // A WAL left over (a checkpoint that failed) is part of the database too.
        let wal = std::fs::metadata(Self::wal_path(p)).map_or(0, |m| m.len());
        std::fs::metadata(p).ok().map(|m| m.len() + wal)
    }

    fn finish_population(&self, db: &DbRef) -> Result<(), EngineError> {
        let Some(p) = &db.path else {
            return Ok(());
        };
        let conn = self.primaries.lock().unwrap_or_else(|p| p.into_inner()).remove(p);
        if let Some(c) = conn {
            c.execute_batch("CHECKPOINT")
                .map_err(|e| error(e, "checkpointing the populated database"))?;
        }
        Ok(())
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let path = db.path.clone().expect("DuckDB databases are files");
        let mut primaries = self.primaries.lock().unwrap_or_else(|p| p.into_inner());
        if !primaries.contains_key(&path) {
            let config = duckdb::Config::default()
                .threads(1)
                .map_err(|e| error(e, "configuring DuckDB"))?;
            let c = duckdb::Connection::open_with_flags(&path, config)
                .map_err(|e| error(e, &format!("opening {}", path.display())))?;
            primaries.insert(path.clone(), c);
        }
        let conn = primaries[&path]
            .try_clone()
            .map_err(|e| error(e, "opening a connection"))?;
        Ok(Box::new(DuckConn {
            conn,
            stmts: Vec::new(),
        }))
    }

    fn bulk_load_mode(&self, _conn: &mut dyn Connection) -> Result<(), EngineError> {
        Ok(())
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        if stage != Stage::Connect {
            return Ok(());
        }
        if knobs.get("threads").is_none() {
            conn.execute_batch("SET threads = 1")?;
        }
        for k in &knobs.0 {
            let name = k.setting_name(PREFIX);
            let value = if k.name == "memory_limit" {
                memory_value(&k.value)
            } else {
                k.value.clone()
            };
            conn.execute_batch(&format!("SET {name} = '{}'", value.replace('\'', "''")))?;
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        crate::model::knob::read_back(DUCKDB_KNOBS, PREFIX, knobs, |name, requested| {
            let raw = conn.query_value(&format!("SELECT current_setting('{name}')"))?;
            Ok(match (name, requested, raw) {
                ("memory_limit", Some(req), Some(eff)) if same_size(req, &eff) => Some(req.to_string()),
                (_, _, raw) => raw,
            })
        })
    }

    fn knob_hint(&self, knob: &str) -> String {
        match knob {
            "memory_limit" => "DuckDB reports it rounded to 0.1 of its unit; give a value in bytes".into(),
            _ => "DuckDB did not accept that value".into(),
        }
    }
}

/// One value bound to an appender column, borrowed from the caller's row.
struct AppendParam<'a>(Value<'a>);

impl duckdb::ToSql for AppendParam<'_> {
    fn to_sql(&self) -> duckdb::Result<duckdb::types::ToSqlOutput<'_>> {
        Ok(duckdb::types::ToSqlOutput::Borrowed(match self.0 {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::BigInt(i),
            Value::Real(r) => ValueRef::Double(r),
            Value::Text(t) => ValueRef::Text(t.as_bytes()),
            Value::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

/// The rows of one table, appended as they come.
struct AppendSink<'a> {
    appender: duckdb::Appender<'a>,
    width: usize,
    rows: u64,
    context: &'a str,
}

impl crate::engines::bulk::RowSink for AppendSink<'_> {
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError> {
        if values.len() != self.width {
            return Err(crate::engines::bulk::input_error(
                "duckdb",
                format!("a row of {} values for {} columns", values.len(), self.width),
            ));
        }
        self.appender
            .append_row(duckdb::appender_params_from_iter(
                values.iter().map(|v| AppendParam(*v)),
            ))
            .map_err(|e| error(e, self.context))?;
        self.rows += 1;
        Ok(())
    }
}

/// A DuckDB connection; statements are cached by SQL text.
struct DuckConn {
    conn: duckdb::Connection,
    /// SQL of each prepared statement and whether it returns rows.
    stmts: Vec<(String, bool)>,
}

fn returns_rows(sql: &str) -> bool {
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

impl DuckConn {
    fn bind(stmt: &mut duckdb::Statement<'_>, params: &[Value<'_>]) -> duckdb::Result<()> {
        for (i, p) in params.iter().enumerate() {
            match *p {
                Value::Null => stmt.raw_bind_parameter(i + 1, DValue::Null)?,
                Value::Int(v) => stmt.raw_bind_parameter(i + 1, v)?,
                Value::Real(v) => stmt.raw_bind_parameter(i + 1, v)?,
                Value::Text(s) => stmt.raw_bind_parameter(i + 1, s)?,
                Value::Blob(b) => stmt.raw_bind_parameter(i + 1, b)?,
            }
        }
        Ok(())
    }
}

impl Connection for DuckConn {
    fn dialect(&self) -> Dialect {
        Dialect::Duckdb
    }

    fn interrupter(&self) -> Option<crate::engines::Interrupter> {
        let handle = self.conn.interrupt_handle();
        Some(Box::new(move || handle.interrupt()))
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.conn
            .execute_batch(sql)
            .map_err(|e| error(e, &format!("running `{sql}`")))
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        self.conn
            .prepare_cached(sql)
            .map_err(|e| error(e, &format!("preparing `{sql}`")))?;
        self.stmts.push((sql.to_string(), returns_rows(sql)));
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        let (sql, rows) = &self.stmts[id.0];
        let ctx = || format!("running `{sql}`");
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| error(e, &ctx()))?;
        Self::bind(&mut stmt, params).map_err(|e| error(e, &ctx()))?;
        if *rows {
            // `raw_query` only reads the result of the last execution: execute first.
            stmt.raw_execute().map_err(|e| error(e, &ctx()))?;
            let mut n = 0u64;
            let mut it = stmt.raw_query();
            while it.next().map_err(|e| error(e, &ctx()))?.is_some() {
                n += 1;
            }
            Ok(n)
        } else {
            stmt.raw_execute().map(|n| n as u64).map_err(|e| error(e, &ctx()))
        }
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        let (sql, _) = &self.stmts[id.0];
        let ctx = || format!("running `{sql}`");
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| error(e, &ctx()))?;
        Self::bind(&mut stmt, params).map_err(|e| error(e, &ctx()))?;
        // `raw_query` only reads the result of the last execution: execute first.
        stmt.raw_execute().map_err(|e| error(e, &ctx()))?;
        let mut n = 0u64;
        let mut it = stmt.raw_query();
        while let Some(row) = it.next().map_err(|e| error(e, &ctx()))? {
            n += 1;
            let columns = row.as_ref().column_count();
            for i in 0..columns {
                let v = row.get_ref(i).map_err(|e| error(e, &ctx()))?;
                push_value(out, v).map_err(|message| EngineError {
                    engine: "duckdb".into(),
                    kind: ErrorKind::Other,
                    code: None,
                    message,
                    context: ctx(),
                })?;
            }
        }
        Ok(n)
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
        let appender = self
            .conn
            .appender_with_columns(table, columns)
            .map_err(|e| error(e, &ctx))?;
        let mut sink = AppendSink {
            appender,
            width: columns.len(),
            rows: 0,
            context: &ctx,
        };
        fill(&mut sink)?;
        let AppendSink { mut appender, rows, .. } = sink;
        appender.flush().map_err(|e| error(e, &ctx))?;
        Ok(rows)
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let ctx = || format!("running `{sql}`");
        let mut stmt = self.conn.prepare(sql).map_err(|e| error(e, &ctx()))?;
        let mut rows = stmt.query([]).map_err(|e| error(e, &ctx()))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| error(e, &ctx()))? {
            let n = row.as_ref().column_count();
            let mut line = Vec::with_capacity(n);
            for i in 0..n {
                line.push(text(row.get::<_, DValue>(i).map_err(|e| error(e, &ctx()))?));
            }
            out.push(line);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_compare_with_duckdb_rounding() {
        assert_eq!(parse_size("1.0 GiB"), Some(1024.0 * 1024.0 * 1024.0));
        assert_eq!(parse_size("16 bytes"), Some(16.0));
        assert!(same_size("1000000000", "953.6 MiB"));
        assert!(!same_size("1000000000", "1.9 GiB"));
        assert_eq!(memory_value("1000000000"), "1000000KB");
        assert_eq!(memory_value("1073741824"), "1048576KiB");
    }

    #[test]
    fn result_values_keep_their_kinds() {
        let mut out = Values::default();
        push_value(&mut out, ValueRef::BigInt(3)).unwrap();
        push_value(&mut out, ValueRef::UInt(4_000_000_000)).unwrap();
        push_value(&mut out, ValueRef::Double(2.5)).unwrap();
        push_value(&mut out, ValueRef::Text(b"abc")).unwrap();
        push_value(&mut out, ValueRef::Null).unwrap();
        push_value(&mut out, ValueRef::HugeInt(i128::from(i64::MAX) + 1)).unwrap();
        let d = duckdb::types::Decimal::new(9, 2, 12345).unwrap();
        push_value(&mut out, ValueRef::Decimal(d)).unwrap();
        assert_eq!(out.describe(0..5), "(3, 4000000000, 2.5, 'abc', NULL)");
        assert_eq!(
            out.get(6),
            crate::engines::values::CellRef::Decimal {
                value: 123.45,
                scale: 2
            }
        );
    }

    #[test]
    fn row_returning_statements() {
        assert!(returns_rows("  select 1"));
        assert!(!returns_rows("INSERT INTO t VALUES (1)"));
    }
}
