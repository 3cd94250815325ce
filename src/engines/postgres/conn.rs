//! One connection to a PostgreSQL database: statements prepared with their `?` placeholders
//! numbered, values bound by the parameter types PostgreSQL inferred (rust-postgres will not
//! convert an i64 for an int4 parameter by itself) and read back in the binary format without
//! allocating, `COPY ... FROM STDIN` for bulk loads, the cancel request, and the client's
//! errors as litebench's kinds. The messages go over [`super::wire`]'s blocking client.

use super::bind::PgParam;
use super::wire::{Prepared, WireConn, WireError};
use crate::engines::server::error_chain;
use crate::engines::server::one_line;
use crate::engines::server::process::ServerProcess;
use crate::engines::values::Values;
use crate::engines::{Connection, Dialect, EngineError, ErrorKind, StmtId, Value};
use postgres::error::SqlState;
use postgres::types::{FromSql, IsNull, Kind, ToSql, Type};
use std::sync::Arc;
use std::time::Duration;

/// One connection to a PostgreSQL database.
pub struct PgConn {
    pub(super) client: WireConn,
    stmts: Vec<(Prepared, Vec<Type>)>,
    label: String,
    server: Option<Arc<ServerProcess>>,
}

impl PgConn {
    pub(super) fn new(client: WireConn, label: &str, server: Option<Arc<ServerProcess>>) -> PgConn {
        PgConn {
            client,
            stmts: Vec::new(),
            label: label.to_string(),
            server,
        }
    }
}

/// Maps a client error to an [`EngineError`]; a lost connection to a server that has exited is
/// reported as that.
pub(super) fn pg_error(label: &str, server: Option<&ServerProcess>, e: WireError, context: &str) -> EngineError {
    // A lost connection, or a backend's farewell (SQLSTATE class 57: "terminating connection
    // due to unexpected postmaster exit", shutdowns): first see whether the server itself died.
    let farewell = e.as_db_error().is_none_or(|db| db.code.starts_with("57"));
    if let (true, Some(s)) = (farewell, server) {
        if let Some(died) = s.died(Duration::from_millis(500)) {
            return crate::engines::server::error(label, ErrorKind::Io, died, context);
        }
    }
    if let Some(db) = e.as_db_error() {
        let code = &SqlState::from_code(&db.code);
        // Lock failures keep PostgreSQL's own kinds (never a SQLite cause).
        let busy_cause = if *code == SqlState::T_R_SERIALIZATION_FAILURE {
            Some(crate::engines::BusyCause::Serialization)
        } else if *code == SqlState::T_R_DEADLOCK_DETECTED {
            Some(crate::engines::BusyCause::Deadlock)
        } else if *code == SqlState::LOCK_NOT_AVAILABLE {
            Some(crate::engines::BusyCause::LockWait)
        } else {
            None
        };
        let kind = if *code == SqlState::DISK_FULL {
            ErrorKind::Full
        } else if busy_cause.is_some() {
            ErrorKind::Busy
        } else if *code == SqlState::READ_ONLY_SQL_TRANSACTION {
            ErrorKind::ReadOnly
        } else if code.code().starts_with("58") {
            ErrorKind::Io
        } else {
            ErrorKind::Other
        };
        let message = match &db.detail {
            Some(d) => format!("{} ({d}; SQLSTATE {})", db.message, code.code()),
            None => format!("{} (SQLSTATE {})", db.message, code.code()),
        };
        return EngineError {
            busy_cause,
            ..crate::engines::server::error(label, kind, message, context)
        };
    }
    if let Some(s) = server {
        if s.log_contains("No space left on device") {
            return crate::engines::server::error(
                label,
                ErrorKind::Full,
                format!("{} (the server log says: No space left on device)", e),
                context,
            );
        }
    }
    let kind = if e.is_closed() { ErrorKind::Io } else { ErrorKind::Other };
    crate::engines::server::error(label, kind, error_chain(&e), context)
}

/// Rewrites `?` placeholders to `$1..$n` (and SQLite's numbered `?NNN` to `$NNN`), leaving a `?`
/// inside string literals, quoted identifiers, dollar-quoted strings and comments alone: the
/// tokens are [`crate::engines::sql_lex`]'s. Text after an unterminated form is left as it is
/// (the server then reports it).
pub fn translate_placeholders(sql: &str) -> String {
    use crate::engines::sql_lex::{Kind, Lexer};
    let mut out = String::with_capacity(sql.len() + 8);
    let mut copied = 0;
    let params = Lexer::new(sql, 0, false).map_while(Result::ok);
    for (t, n) in params
        .filter(|t| t.kind == Kind::Param && sql[t.start..].starts_with('?'))
        .zip(1..)
    {
        out.push_str(&sql[copied..t.start]);
        out.push('$');
        match &sql[t.start + 1..t.end] {
            "" => out.push_str(&n.to_string()),
            digits => out.push_str(digits),
        }
        copied = t.end;
    }
    out.push_str(&sql[copied..]);
    out
}

/// The parameter (1-based) an error says the server could not determine the type of
/// (SQLSTATE 42P18, `could not determine data type of parameter $N`).
fn undetermined_parameter(e: &WireError) -> Option<usize> {
    let db = e.as_db_error().filter(|db| db.code == "42P18")?;
    let n = db.message.rsplit('$').next()?;
    n.parse::<usize>().ok().filter(|n| *n >= 1)
}

/// The type of a parameter or column by its OID; one PostgreSQL does not build in (an enum, a
/// domain) gets a name of its own and is bound or read only if it is text-like.
fn type_of(oid: u32) -> Type {
    Type::from_oid(oid).unwrap_or_else(|| Type::new(format!("oid {oid}"), oid, Kind::Simple, "pg_catalog".into()))
}

/// Appends one binary-format value of type `ty` to `out`; `Err` names what could not be read.
fn push_value(out: &mut Values, ty: &Type, raw: Option<&[u8]>) -> Result<(), String> {
    let Some(raw) = raw else {
        out.push_null();
        return Ok(());
    };
    let bad = || format!("cannot read a {ty} value of {} bytes", raw.len());
    let int = |raw: &[u8]| -> Option<i64> {
        Some(match raw.len() {
            2 => i16::from_be_bytes(raw.try_into().ok()?) as i64,
            4 => i32::from_be_bytes(raw.try_into().ok()?) as i64,
            8 => i64::from_be_bytes(raw.try_into().ok()?),
            _ => return None,
        })
    };
    match *ty {
        Type::INT2 | Type::INT4 | Type::INT8 => out.push_int(int(raw).ok_or_else(bad)?),
        Type::OID => out.push_int(u32::from_be_bytes(raw.try_into().map_err(|_| bad())?) as i64),
        Type::BOOL => out.push_int(i64::from(raw.first().copied().ok_or_else(bad)? != 0)),
        Type::FLOAT4 => out.push_real(f32::from_be_bytes(raw.try_into().map_err(|_| bad())?) as f64),
        Type::FLOAT8 => out.push_real(f64::from_be_bytes(raw.try_into().map_err(|_| bad())?)),
        Type::NUMERIC => {
            let (v, scale) = numeric(raw).ok_or_else(bad)?;
            out.push_decimal(v, scale);
        }
        Type::BYTEA => out.push_blob(raw),
        _ if <&str as FromSql>::accepts(ty) => out.push_text(raw),
        _ => {
            return Err(format!(
                "cannot read a value of type {ty}; cast the column, e.g. CAST(x AS text)"
            ))
        }
    }
    Ok(())
}

/// PostgreSQL's binary `NUMERIC` (base-10000 digits, weight, sign, display scale) as the nearest
/// `f64` and the display scale. Converted through a decimal string on the stack (no allocation);
/// digits after the 64th significant one are dropped.
fn numeric(raw: &[u8]) -> Option<(f64, u16)> {
    let be16 = |i: usize| -> Option<u16> { Some(u16::from_be_bytes([*raw.get(i)?, *raw.get(i + 1)?])) };
    let ndigits = be16(0)? as usize;
    let weight = be16(2)? as i16 as i32;
    let sign = be16(4)?;
    let scale = be16(6)?;
    match sign {
        0x0000 | 0x4000 => {}
        0xC000 => return Some((f64::NAN, scale)),
        0xD000 => return Some((f64::INFINITY, scale)),
        0xF000 => return Some((f64::NEG_INFINITY, scale)),
        _ => return None,
    }
    let mut buf = [0u8; 96];
    let mut len = 0;
    if sign == 0x4000 {
        buf[0] = b'-';
        len = 1;
    }
    let kept = ndigits.min(16);
    for k in 0..kept {
        let d = be16(8 + 2 * k)?;
        if d > 9999 {
            return None;
        }
        for p in [1000, 100, 10, 1] {
            buf[len] = b'0' + (d / p % 10) as u8;
            len += 1;
        }
    }
    if kept == 0 {
        buf[len] = b'0';
        len += 1;
    }
    // The digits kept, as an integer, times 10^exp.
    let exp = 4 * (weight + 1 - kept as i32);
    buf[len] = b'e';
    len += 1;
    if exp < 0 {
        buf[len] = b'-';
        len += 1;
    }
    let mut e = exp.unsigned_abs();
    let start = len;
    loop {
        buf[len] = b'0' + (e % 10) as u8;
        len += 1;
        e /= 10;
        if e == 0 {
            break;
        }
    }
    buf[start..len].reverse();
    let text = std::str::from_utf8(&buf[..len]).ok()?;
    Some((text.parse().ok()?, scale))
}

/// Rows of a `COPY ... FROM STDIN` in text format: tab-separated, `\N` for NULL, backslash
/// escapes for the characters the format reserves.
struct CopySink<'a> {
    client: &'a mut WireConn,
    pending: Vec<u8>,
    line: Vec<u8>,
    width: usize,
    label: &'a str,
}

/// Appends `text` to a COPY line with PostgreSQL's text-format escapes.
pub fn copy_escape(line: &mut Vec<u8>, text: &[u8]) {
    for &b in text {
        match b {
            b'\\' => line.extend_from_slice(b"\\\\"),
            b'\t' => line.extend_from_slice(b"\\t"),
            b'\n' => line.extend_from_slice(b"\\n"),
            b'\r' => line.extend_from_slice(b"\\r"),
            _ => line.push(b),
        }
    }
}

impl crate::engines::bulk::RowSink for CopySink<'_> {
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError> {
        use std::io::Write;
        if values.len() != self.width {
            return Err(crate::engines::bulk::input_error(
                self.label,
                format!("a row of {} values for {} columns", values.len(), self.width),
            ));
        }
        self.line.clear();
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.line.push(b'\t');
            }
            match *v {
                Value::Null => self.line.extend_from_slice(b"\\N"),
                Value::Int(x) => {
                    let _ = write!(self.line, "{x}");
                }
                Value::Real(x) => {
                    let _ = write!(self.line, "{x:?}");
                }
                Value::Text(t) => copy_escape(&mut self.line, t.as_bytes()),
                Value::Blob(b) => {
                    // bytea's hex input form.
                    self.line.extend_from_slice(b"\\\\x");
                    for byte in b {
                        let _ = write!(self.line, "{byte:02x}");
                    }
                }
            }
        }
        self.line.push(b'\n');
        self.client
            .copy_data(&self.line, &mut self.pending)
            .map_err(|e| crate::engines::server::error(self.label, ErrorKind::Io, e.to_string(), "sending COPY data"))
    }
}

/// Binds `params` by the statement's parameter types and runs it; rows go to `row`.
fn execute(
    client: &mut WireConn,
    (stmt, types): &(Prepared, Vec<Type>),
    params: &[Value<'_>],
    row: super::wire::RowValues<'_>,
) -> Result<u64, WireError> {
    if params.len() != stmt.params.len() {
        return Err(WireError::Protocol(format!(
            "expected {} parameters but got {}",
            stmt.params.len(),
            params.len()
        )));
    }
    client.execute(
        stmt,
        params.iter().zip(types.iter()),
        |(v, ty), buf| Ok(matches!(PgParam(*v).to_sql(ty, buf)?, IsNull::Yes)),
        row,
    )
}

impl PgConn {
    fn err(&self, e: WireError, context: &str) -> EngineError {
        pg_error(&self.label, self.server.as_deref(), e, context)
    }
}

impl Connection for PgConn {
    /// PostgreSQL's cancel request: a connection of its own to the server, carrying this
    /// backend's key, which cancels the statement the backend runs (one that is idle is left
    /// alone); the statement fails with `canceling statement due to user request`.
    fn interrupter(&self) -> Option<crate::engines::Interrupter> {
        let key = self.client.cancel_key();
        Some(Box::new(move || {
            // Nothing to do about a cancel the server did not take: the watch sends another.
            let _ = key.cancel();
        }))
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.client
            .simple(sql, &mut |_, _| Ok(()))
            .map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let translated = translate_placeholders(sql);
        // A parameter whose type the server cannot infer (`CASE WHEN $1 IS NULL`) is declared
        // text and the statement parsed again: pgbench's pasted text is a literal there, of
        // type unknown, which PostgreSQL reads as text.
        let mut declared: Vec<u32> = Vec::new();
        let stmt = loop {
            match self.client.prepare(&translated, &declared) {
                Ok(stmt) => break stmt,
                Err(e) => match undetermined_parameter(&e).filter(|n| declared.get(n - 1).is_none_or(|t| *t == 0)) {
                    Some(n) => {
                        declared.resize(declared.len().max(n), 0);
                        declared[n - 1] = Type::TEXT.oid();
                    }
                    None => return Err(self.err(e, &format!("preparing `{}`", one_line(&translated)))),
                },
            }
        };
        let types = stmt
            .params
            .iter()
            .chain(&stmt.columns)
            .map(|&oid| type_of(oid))
            .collect();
        self.stmts.push((stmt, types));
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        // The rows a statement changed, or the rows a query produced.
        execute(&mut self.client, &self.stmts[id.0], params, &mut |_, _| Ok(()))
            .map_err(|e| self.err(e, "running a prepared statement"))
    }

    fn column_names(&mut self, id: StmtId) -> Result<Vec<String>, EngineError> {
        Ok(self.stmts[id.0].0.names.clone())
    }

    fn boolean_columns(&mut self, id: StmtId) -> Vec<bool> {
        let (stmt, types) = &self.stmts[id.0];
        types[stmt.params.len()..].iter().map(|t| *t == Type::BOOL).collect()
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        let prepared = &self.stmts[id.0];
        let columns = &prepared.1[prepared.0.params.len()..];
        let mut bad = None;
        let r = execute(&mut self.client, prepared, params, &mut |buf, cells| {
            for (ty, cell) in columns.iter().zip(cells) {
                if let Err(message) = push_value(out, ty, cell.clone().map(|r| &buf[r])) {
                    bad.get_or_insert(message);
                }
            }
            Ok(())
        });
        let rows = r.map_err(|e| self.err(e, "running a prepared query"))?;
        if let Some(message) = bad {
            return Err(crate::engines::server::error(
                &self.label,
                ErrorKind::Other,
                message,
                "reading a query result",
            ));
        }
        Ok(rows)
    }

    fn query_plan(&mut self, sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        // One row per plan line, as psql prints it.
        Ok(Some(crate::engines::explain_lines(
            &self.query(&format!("EXPLAIN {sql}"))?,
            None,
        )))
    }

    fn bulk_path(&self) -> &'static str {
        "COPY FROM STDIN"
    }

    /// `COPY table (columns) FROM STDIN` in PostgreSQL's text format, one statement (and so
    /// one transaction) per table.
    fn bulk_load(
        &mut self,
        table: &str,
        columns: &[&str],
        fill: crate::engines::bulk::Fill<'_>,
    ) -> Result<u64, EngineError> {
        let sql = format!("COPY {table} ({}) FROM STDIN", columns.join(", "));
        let label = self.label.clone();
        let server = self.server.clone();
        let err = |e: WireError, what: &str| pg_error(&label, server.as_deref(), e, what);
        self.client
            .copy_start(&sql)
            .map_err(|e| err(e, &format!("starting `{sql}`")))?;
        let mut sink = CopySink {
            client: &mut self.client,
            pending: Vec::with_capacity(64 * 1024),
            line: Vec::with_capacity(256),
            width: columns.len(),
            label: &label,
        };
        let filled = fill(&mut sink);
        let CopySink { mut pending, .. } = sink;
        if let Err(e) = filled {
            // End the COPY so that the connection stays usable; the fill's error is the one reported.
            let _ = self.client.copy_fail(&e.to_string());
            return Err(e);
        }
        self.client
            .copy_finish(&mut pending)
            .map_err(|e| err(e, &format!("finishing `{sql}`")))
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let mut rows = Vec::new();
        self.client
            .simple(sql, &mut |buf, cells| {
                let row = cells
                    .iter()
                    .map(|c| c.clone().map(|r| String::from_utf8_lossy(&buf[r]).into_owned()));
                rows.push(row.collect());
                Ok(())
            })
            .map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_outside_quotes_become_numbered() {
        assert_eq!(
            translate_placeholders("INSERT INTO t(a, b) VALUES (?, ?)"),
            "INSERT INTO t(a, b) VALUES ($1, $2)"
        );
        assert_eq!(
            translate_placeholders(
                "SELECT '?', \"a?\", ? -- what?\n, ? /* ? /* ? */ */ , $$?$$, $x$ ? $x$, E'\\'?', ?"
            ),
            "SELECT '?', \"a?\", $1 -- what?\n, $2 /* ? /* ? */ */ , $$?$$, $x$ ? $x$, E'\\'?', $3"
        );
        assert_eq!(translate_placeholders("SELECT 'it''s ?', ?"), "SELECT 'it''s ?', $1");
        assert_eq!(
            translate_placeholders("SELECT ?::text || 'é'"),
            "SELECT $1::text || 'é'"
        );
        assert_eq!(
            translate_placeholders("SELECT 'unterminated ?"),
            "SELECT 'unterminated ?"
        );
    }

    #[test]
    fn placeholders_in_strings_comments_dollar_quotes_and_casts() {
        let t = translate_placeholders;
        // `?` inside strings (E'' with a backslash-escaped quote, doubled quotes), untouched.
        assert_eq!(t("SELECT E'a\\'?', 'b''?', ?"), "SELECT E'a\\'?', 'b''?', $1");
        // Both comment kinds.
        assert_eq!(t("-- ?\n? /* ? */ ?"), "-- ?\n$1 /* ? */ $2");
        // Dollar quotes, with and without a tag, and one unterminated.
        assert_eq!(t("SELECT $$ ? $$, $q$?$q$, ?"), "SELECT $$ ? $$, $q$?$q$, $1");
        assert_eq!(t("SELECT ?, $q$ ?"), "SELECT $1, $q$ ?");
        // `::` casts right after a placeholder, and a parameter already numbered.
        assert_eq!(t("SELECT ?::int8, ?::text, $9"), "SELECT $1::int8, $2::text, $9");
        assert_eq!(t("SELECT ?2, ?1"), "SELECT $2, $1");
    }

    /// NUMERIC in PostgreSQL's binary format: digits base 10000.
    fn numeric_bytes(weight: i16, negative: bool, scale: u16, digits: &[u16]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&(digits.len() as u16).to_be_bytes());
        v.extend_from_slice(&weight.to_be_bytes());
        v.extend_from_slice(&(if negative { 0x4000u16 } else { 0 }).to_be_bytes());
        v.extend_from_slice(&scale.to_be_bytes());
        for d in digits {
            v.extend_from_slice(&d.to_be_bytes());
        }
        v
    }

    #[test]
    fn numerics_decode_to_the_nearest_double() {
        // 12345.6667 = 1|2345|.6667
        assert_eq!(
            numeric(&numeric_bytes(1, false, 4, &[1, 2345, 6667])),
            Some((12345.6667, 4))
        );
        // -0.0005 = .0005 at weight -1
        assert_eq!(numeric(&numeric_bytes(-1, true, 4, &[5])), Some((-0.0005, 4)));
        // 2000000 = 200|0000 with the trailing zero group left out
        assert_eq!(numeric(&numeric_bytes(1, false, 0, &[200])), Some((2_000_000.0, 0)));
        assert_eq!(numeric(&numeric_bytes(0, false, 2, &[])), Some((0.0, 2)));
        // avg(1, 2) = 1.5000000000000000 (PostgreSQL's scale for it)
        assert_eq!(numeric(&numeric_bytes(0, false, 16, &[1, 5000])), Some((1.5, 16)));
        assert_eq!(numeric(&[0, 1]), None, "truncated");
        let mut out = Values::default();
        push_value(&mut out, &Type::INT4, Some(&7i32.to_be_bytes())).unwrap();
        push_value(&mut out, &Type::BPCHAR, Some(b"ABC")).unwrap();
        push_value(&mut out, &Type::TEXT, None).unwrap();
        assert_eq!(out.describe(0..3), "(7, 'ABC', NULL)");
        assert!(push_value(&mut out, &Type::INT4, Some(&[1, 2, 3])).is_err());
    }

    #[test]
    fn copy_text_escapes_what_the_format_reserves() {
        let mut line = Vec::new();
        copy_escape(&mut line, b"a\tb\\c\nd\re|f");
        assert_eq!(line, b"a\\tb\\\\c\\nd\\re|f");
    }
}
