//! One Turso connection and the statements prepared on it, implementing [`Connection`].
//!
//! litebench drives Turso's engine (`turso_core`, which the `turso` crate wraps and
//! re-exports as `turso::core`) through its synchronous statement API, the loop every Turso
//! binding runs underneath: step the statement; when it asks for I/O, let the I/O layer make
//! progress and step again; read a row's values in place. This is the counterpart of
//! SQLite's C API, which litebench uses instead of a wrapper crate: the `turso` crate's async
//! `Statement` adds a mutex, a future and a vector of owned values per row around this loop,
//! which are a wrapper's costs, not the engine's.
//!
//! One cost is Turso's own and stays in: a bound text or blob is an owned value
//! (`turso_core::Value` holds a `String` or a `Vec<u8>`), so binding one copies it.

use crate::engines::values::Values;
use crate::engines::{BusyCause, Connection, Dialect, EngineError, ErrorKind, Interrupter, StmtId, Value};
use std::num::NonZero;
use std::sync::Arc;
use turso_core::{LimboError, Numeric, Statement, StepResult};

/// An error of engine `label` from Turso, classified, with the SQLite result code it stands
/// for: Turso speaks SQLite's dialect, so a workload tells a key violation (19,
/// `SQLITE_CONSTRAINT`) or a busy database (5; a stale snapshot 517, `SQLITE_BUSY_SNAPSHOT`)
/// from other failures as it does on SQLite.
pub fn error(label: &str, e: &LimboError, context: &str) -> EngineError {
    let message = e.to_string();
    let (kind, code) = match e {
        LimboError::Busy => (ErrorKind::Busy, Some(5)),
        LimboError::BusySnapshot => (ErrorKind::Busy, Some(517)),
        LimboError::TableLocked => (ErrorKind::Busy, Some(6)),
        LimboError::DatabaseFull => (ErrorKind::Full, Some(13)),
        LimboError::ReadOnly => (ErrorKind::ReadOnly, Some(8)),
        LimboError::Constraint(_) | LimboError::ForeignKeyConstraint(_) => (ErrorKind::Other, Some(19)),
        LimboError::Corrupt(_) => (ErrorKind::Other, Some(11)),
        LimboError::CompletionError(_) => (ErrorKind::Io, Some(10)),
        _ if message.to_ascii_lowercase().contains("no space left") => (ErrorKind::Full, Some(13)),
        _ => (ErrorKind::Other, None),
    };
    // Turso's busy handler runs on every busy step; a stale snapshot is SQLite's
    // SQLITE_BUSY_SNAPSHOT (an interactive transaction must roll back and start again).
    let busy_cause = match e {
        LimboError::Busy => Some(BusyCause::Timeout),
        LimboError::BusySnapshot => Some(BusyCause::Snapshot),
        LimboError::TableLocked => Some(BusyCause::Unknown),
        _ => None,
    };
    EngineError {
        engine: label.to_string(),
        kind,
        code,
        message,
        context: context.to_string(),
        busy_cause,
    }
}

/// A statement prepared once, for many runs.
struct Prepared {
    sql: String,
    stmt: Statement,
    /// Whether it answers rows (a query) rather than changing them.
    rows: bool,
}

/// One open Turso connection.
pub struct TursoConn {
    conn: Arc<turso_core::Connection>,
    stmts: Vec<Prepared>,
    label: String,
    /// The statement that starts a write transaction (the `begin` knob).
    begin: &'static str,
    /// Whether the `begin` knob set [`Self::begin`]: only then does a user's bare `BEGIN` start in
    /// its mode ([`crate::engines::Connection::begin_knob`]).
    begin_set: bool,
}

/// Steps `stmt` until it has a row (`Some(row)`) or is done (`None`), letting Turso's I/O
/// layer make progress whenever the statement waits for it, and sleeping when its busy
/// handler asks to wait before the next try.
fn next_row(stmt: &mut Statement) -> Result<Option<&turso_core::Row>, LimboError> {
    loop {
        match stmt.step()? {
            StepResult::Row => break,
            StepResult::Done => return Ok(None),
            StepResult::IO | StepResult::Yield => stmt._io().step()?,
            StepResult::Sleep { duration } => {
                std::thread::sleep(duration);
                stmt._io().step()?;
            }
            StepResult::Busy => return Err(LimboError::Busy),
            StepResult::Interrupt => return Err(LimboError::InternalError("interrupted".into())),
        }
    }
    Ok(stmt.row())
}

/// A value litebench binds, as Turso's owned value.
fn owned(v: &Value<'_>) -> turso_core::Value {
    match *v {
        Value::Null => turso_core::Value::Null,
        Value::Int(i) => turso_core::Value::from_i64(i),
        Value::Real(x) => turso_core::Value::from_f64(x),
        Value::Text(s) => turso_core::Value::from_text(s.to_string()),
        Value::Blob(b) => turso_core::Value::Blob(b.to_vec()),
    }
}

/// A result value as text, as SQLite's `sqlite3_column_text` would give it (`None`: NULL).
fn text_of(v: &turso_core::Value) -> Option<String> {
    match v {
        turso_core::Value::Null => None,
        turso_core::Value::Numeric(Numeric::Integer(i)) => Some(i.to_string()),
        turso_core::Value::Numeric(Numeric::Float(f)) => Some(format_real(f64::from(*f))),
        turso_core::Value::Text(t) => Some(t.as_str().to_string()),
        turso_core::Value::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
    }
}

/// A real as SQLite prints one: whole numbers keep a `.0`.
fn format_real(x: f64) -> String {
    if x.is_finite() && x == x.trunc() && x.abs() < 1e15 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

impl TursoConn {
    /// A connection to an open database instance.
    pub fn new(conn: Arc<turso_core::Connection>, label: &str) -> TursoConn {
        TursoConn {
            conn,
            stmts: Vec::new(),
            label: label.to_string(),
            begin: "BEGIN IMMEDIATE",
            begin_set: false,
        }
    }

    fn err(&self, e: &LimboError, context: &str) -> EngineError {
        error(&self.label, e, context)
    }

    /// Sets the statement write transactions start with (the `begin` knob).
    pub fn set_begin(&mut self, begin: &'static str) {
        self.begin = begin;
        self.begin_set = true;
    }

    /// The `begin` knob's value: the word after `BEGIN`, lower case.
    pub fn begin_mode(&self) -> String {
        self.begin.trim_start_matches("BEGIN ").to_ascii_lowercase()
    }

    /// The connection itself, for what this trait does not cover (checkpoints).
    pub fn inner(&self) -> &Arc<turso_core::Connection> {
        &self.conn
    }

    /// Resets statement `id` and binds `params`: it is ready to step.
    fn bind(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<(), EngineError> {
        let label = &self.label;
        let p = &mut self.stmts[id.0];
        let fail = |e: &LimboError, p: &Prepared| error(label, e, &format!("binding `{}`", p.sql));
        p.stmt.reset().map_err(|e| fail(&e, p))?;
        for (i, v) in params.iter().enumerate() {
            let at = NonZero::new(i + 1).expect("i + 1 > 0");
            if let Err(e) = p.stmt.bind_at(at, owned(v)) {
                return Err(fail(&e, p));
            }
        }
        Ok(())
    }

    /// Runs `sql` to completion and returns its rows as text.
    fn rows_of(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let context = format!("running `{sql}`");
        let mut stmt = match self.conn.query(sql) {
            Ok(Some(s)) => s,
            Ok(None) => return Ok(Vec::new()),
            Err(e) => return Err(self.err(&e, &context)),
        };
        let mut out = Vec::new();
        loop {
            match next_row(&mut stmt) {
                Ok(Some(row)) => out.push(row.get_values().map(text_of).collect()),
                Ok(None) => return Ok(out),
                Err(e) => return Err(self.err(&e, &context)),
            }
        }
    }
}

impl Connection for TursoConn {
    fn interrupter(&self) -> Option<Interrupter> {
        let conn = Arc::clone(&self.conn);
        Some(Box::new(move || conn.interrupt()))
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn begin_knob(&self) -> Option<&'static str> {
        self.begin_set.then_some(self.begin)
    }

    fn begin_write(&self) -> &'static str {
        self.begin
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.conn
            .execute(sql)
            .map_err(|e| self.err(&e, &format!("running `{sql}`")))
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let stmt = self
            .conn
            .prepare(sql)
            .map_err(|e| self.err(&e, &format!("preparing `{sql}`")))?;
        let rows = stmt.num_columns() > 0;
        self.stmts.push(Prepared {
            sql: sql.to_string(),
            stmt,
            rows,
        });
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        self.bind(id, params)?;
        let (label, p) = (&self.label, &mut self.stmts[id.0]);
        let mut n = 0u64;
        loop {
            match next_row(&mut p.stmt) {
                Ok(Some(_)) => n += 1,
                Ok(None) => break,
                Err(e) => return Err(error(label, &e, &format!("running `{}`", p.sql))),
            }
        }
        Ok(if p.rows { n } else { p.stmt.n_change().max(0) as u64 })
    }

    fn column_names(&mut self, id: StmtId) -> Result<Vec<String>, EngineError> {
        let stmt = &self.stmts[id.0].stmt;
        Ok((0..stmt.num_columns())
            .map(|i| stmt.get_column_name(i).into_owned())
            .collect())
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        self.bind(id, params)?;
        let (label, p) = (&self.label, &mut self.stmts[id.0]);
        let mut n = 0u64;
        loop {
            match next_row(&mut p.stmt) {
                Ok(Some(row)) => {
                    n += 1;
                    for v in row.get_values() {
                        match v {
                            turso_core::Value::Null => out.push_null(),
                            turso_core::Value::Numeric(Numeric::Integer(i)) => out.push_int(*i),
                            turso_core::Value::Numeric(Numeric::Float(f)) => out.push_real(f64::from(*f)),
                            turso_core::Value::Text(t) => out.push_text(t.as_str().as_bytes()),
                            turso_core::Value::Blob(b) => out.push_blob(b),
                        }
                    }
                }
                Ok(None) => return Ok(n),
                Err(e) => return Err(error(label, &e, &format!("running `{}`", p.sql))),
            }
        }
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        self.rows_of(sql)
    }

    fn query_plan(&mut self, sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        // SQLite's rows (id, parent, notused, detail), drawn as SQLite's plans are.
        let rows = self.rows_of(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        Ok(Some(crate::engines::sqlite::plan::plan_lines(&rows, true)))
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::format_real;

    #[test]
    fn reals_print_as_sqlite_prints_them() {
        assert_eq!(format_real(1.0), "1.0");
        assert_eq!(format_real(0.25), "0.25");
        assert_eq!(format_real(-3.0), "-3.0");
    }
}
