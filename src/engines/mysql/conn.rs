//! One connection to a MariaDB database: prepared statements on the binary protocol, result
//! values read by column type (DECIMAL parsed without allocating), `KILL QUERY` from a second
//! connection as the interrupt, and the client's errors as litebench's kinds.

use crate::engines::server::one_line;
use crate::engines::server::process::ServerProcess;
use crate::engines::values::{parse_decimal, Values};
use crate::engines::{Connection, Dialect, EngineError, ErrorKind, StmtId, Value};
use mysql::consts::ColumnType;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, Statement};
use std::sync::Arc;
use std::time::Duration;

/// One connection to a MariaDB database.
pub struct MyConn {
    pub(super) conn: Conn,
    stmts: Vec<Statement>,
    label: String,
    server: Option<Arc<ServerProcess>>,
    /// How to reach the server from a second connection, which stops this one's statement
    /// (`KILL QUERY`; see [`Connection::interrupter`]).
    opts: Opts,
}

impl MyConn {
    pub(super) fn new(conn: Conn, label: &str, server: Option<Arc<ServerProcess>>, opts: Opts) -> MyConn {
        MyConn {
            conn,
            stmts: Vec::new(),
            label: label.to_string(),
            server,
            opts,
        }
    }
}

/// Maps a client error to an [`EngineError`]; a lost connection to a server that has exited is
/// reported as that.
pub(super) fn my_error(label: &str, server: Option<&ServerProcess>, e: mysql::Error, context: &str) -> EngineError {
    // A lost connection, or the server saying it shuts down (1053) or killed the connection
    // (1927): first see whether the server itself died.
    let farewell = match &e {
        mysql::Error::MySqlError(m) => matches!(m.code, 1053 | 1927),
        _ => true,
    };
    if let (true, Some(s)) = (farewell, server) {
        if let Some(died) = s.died(Duration::from_millis(500)) {
            return crate::engines::server::error(label, ErrorKind::Io, died, context);
        }
    }
    if let mysql::Error::MySqlError(m) = &e {
        let full =
            m.message.contains("No space left") || m.message.contains("Errcode: 28") || m.message.contains("error 28");
        let kind = match m.code {
            1021 | 1114 => ErrorKind::Full,
            _ if full => ErrorKind::Full,
            1205 | 1213 => ErrorKind::Busy,
            1036 | 1290 | 1792 => ErrorKind::ReadOnly,
            _ => ErrorKind::Other,
        };
        return EngineError {
            // Lock failures keep MariaDB's own kinds (never a SQLite cause).
            busy_cause: match m.code {
                1205 => Some(crate::engines::BusyCause::LockWait),
                1213 => Some(crate::engines::BusyCause::Deadlock),
                _ => None,
            },
            engine: label.to_string(),
            kind,
            code: Some(i32::from(m.code)),
            message: one_line(&format!("{} (error {}, SQLSTATE {})", m.message, m.code, m.state)),
            context: context.to_string(),
        };
    }
    let kind = match &e {
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) | mysql::Error::DriverError(_) => ErrorKind::Io,
        _ => ErrorKind::Other,
    };
    crate::engines::server::error(label, kind, my_message(&e), context)
}

/// The client library's message without its Rust debug wrapping.
pub(super) fn my_message(e: &mysql::Error) -> String {
    match e {
        mysql::Error::DriverError(d) => one_line(&d.to_string()),
        mysql::Error::IoError(io) => one_line(&io.to_string()),
        other => one_line(&other.to_string()),
    }
}

fn to_mysql(v: &Value<'_>) -> mysql::Value {
    match *v {
        Value::Null => mysql::Value::NULL,
        Value::Int(i) => mysql::Value::Int(i),
        Value::Real(f) => mysql::Value::Double(f),
        Value::Text(s) => mysql::Value::Bytes(s.as_bytes().to_vec()),
        Value::Blob(b) => mysql::Value::Bytes(b.to_vec()),
    }
}

fn to_text(v: &mysql::Value) -> Option<String> {
    match v {
        mysql::Value::NULL => None,
        mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        mysql::Value::Int(i) => Some(i.to_string()),
        mysql::Value::UInt(u) => Some(u.to_string()),
        mysql::Value::Float(f) => Some(f.to_string()),
        mysql::Value::Double(f) => Some(f.to_string()),
        other => Some(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

/// The binary collation: text columns in it hold bytes.
const BINARY_CHARSET: u16 = 63;

/// Appends one value of a binary-protocol result row to `out`; `Err` names what could not be
/// read. DECIMAL arrives as text and is parsed (no allocation).
fn push_value(out: &mut Values, column: &mysql::Column, v: Option<&mysql::Value>) -> Result<(), String> {
    match v {
        None | Some(mysql::Value::NULL) => out.push_null(),
        Some(mysql::Value::Int(i)) => out.push_int(*i),
        Some(mysql::Value::UInt(u)) => match i64::try_from(*u) {
            Ok(i) => out.push_int(i),
            Err(_) => out.push_real(*u as f64),
        },
        Some(mysql::Value::Float(f)) => out.push_real(f64::from(*f)),
        Some(mysql::Value::Double(f)) => out.push_real(*f),
        Some(mysql::Value::Bytes(b)) => match column.column_type() {
            ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
                let (v, scale) =
                    parse_decimal(b).ok_or_else(|| format!("cannot read DECIMAL {:?}", String::from_utf8_lossy(b)))?;
                out.push_decimal(v, scale);
            }
            _ if column.character_set() == BINARY_CHARSET => out.push_blob(b),
            _ => out.push_text(b),
        },
        Some(other) => {
            return Err(format!(
                "cannot read a {:?} value ({other:?}); cast the column, e.g. CAST(x AS CHAR)",
                column.column_type()
            ))
        }
    }
    Ok(())
}

impl MyConn {
    fn err(&self, e: mysql::Error, context: &str) -> EngineError {
        my_error(&self.label, self.server.as_deref(), e, context)
    }
}

impl Connection for MyConn {
    /// MariaDB has no cancel request in its protocol: `KILL QUERY <connection id>` from a
    /// second connection (opened at the first interrupt, kept for the next) stops the
    /// statement this connection runs, which fails with `Query execution was interrupted`; the
    /// connection itself stays open.
    fn interrupter(&self) -> Option<crate::engines::Interrupter> {
        let id = self.conn.connection_id();
        let opts = self.opts.clone();
        let killer: std::sync::Mutex<Option<Conn>> = std::sync::Mutex::new(None);
        Some(Box::new(move || {
            let mut killer = killer.lock().unwrap_or_else(|e| e.into_inner());
            if killer.is_none() {
                *killer = Conn::new(opts.clone()).ok();
            }
            // A server that refused the connection or the kill: the watch tries again.
            if let Some(k) = killer.as_mut() {
                if k.query_drop(format!("KILL QUERY {id}")).is_err() {
                    *killer = None;
                }
            }
        }))
    }

    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.conn
            .query_drop(sql)
            .map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let stmt = self
            .conn
            .prep(sql)
            .map_err(|e| self.err(e, &format!("preparing `{}`", one_line(sql))))?;
        self.stmts.push(stmt);
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        let bound = if params.is_empty() {
            mysql::Params::Empty
        } else {
            mysql::Params::Positional(params.iter().map(to_mysql).collect())
        };
        let counted = (|| -> Result<u64, mysql::Error> {
            let mut result = self.conn.exec_iter(&self.stmts[id.0], bound)?;
            let affected = result.affected_rows();
            let mut rows = 0u64;
            if let Some(set) = result.iter() {
                for r in set {
                    r?;
                    rows += 1;
                }
            }
            Ok(if rows > 0 { rows } else { affected })
        })();
        counted.map_err(|e| self.err(e, "running a prepared statement"))
    }

    /// The column definitions the server sent when the statement was prepared.
    fn column_names(&mut self, id: StmtId) -> Result<Vec<String>, EngineError> {
        Ok(self.stmts[id.0]
            .columns()
            .iter()
            .map(|c| c.name_str().into_owned())
            .collect())
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        let bound = if params.is_empty() {
            mysql::Params::Empty
        } else {
            mysql::Params::Positional(params.iter().map(to_mysql).collect())
        };
        let read = (|| -> Result<Result<u64, String>, mysql::Error> {
            let mut result = self.conn.exec_iter(&self.stmts[id.0], bound)?;
            let mut rows = 0u64;
            if let Some(set) = result.iter() {
                for r in set {
                    let r = r?;
                    rows += 1;
                    for (i, column) in r.columns_ref().iter().enumerate() {
                        if let Err(m) = push_value(out, column, r.as_ref(i)) {
                            return Ok(Err(m));
                        }
                    }
                }
            }
            Ok(Ok(rows))
        })();
        match read {
            Ok(Ok(rows)) => Ok(rows),
            Ok(Err(message)) => Err(crate::engines::server::error(
                &self.label,
                ErrorKind::Other,
                message,
                "reading a query result",
            )),
            Err(e) => Err(self.err(e, "running a prepared query")),
        }
    }

    fn query_plan(&mut self, sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        // The JSON form is the one tree both MariaDB and MySQL print (the tabular EXPLAIN has
        // no nesting); it comes as one multi-line cell.
        Ok(Some(crate::engines::explain_lines(
            &self.query(&format!("EXPLAIN FORMAT=JSON {sql}"))?,
            None,
        )))
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let rows = (|| -> Result<Vec<Vec<Option<String>>>, mysql::Error> {
            let mut out = Vec::new();
            let mut result = self.conn.query_iter(sql)?;
            while let Some(set) = result.iter() {
                for r in set {
                    let r = r?;
                    out.push((0..r.len()).map(|i| r.as_ref(i).and_then(to_text)).collect());
                }
            }
            Ok(out)
        })();
        rows.map_err(|e| self.err(e, &format!("running `{}`", one_line(sql))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_values_by_column_type() {
        let col = |t| mysql::Column::new(t);
        let mut out = Values::default();
        let decimal = col(ColumnType::MYSQL_TYPE_NEWDECIMAL);
        push_value(&mut out, &decimal, Some(&mysql::Value::Bytes(b"47.3333".to_vec()))).unwrap();
        let text = col(ColumnType::MYSQL_TYPE_VAR_STRING).with_character_set(45);
        push_value(&mut out, &text, Some(&mysql::Value::Bytes(b"ABC".to_vec()))).unwrap();
        let binary = col(ColumnType::MYSQL_TYPE_BLOB).with_character_set(BINARY_CHARSET);
        push_value(&mut out, &binary, Some(&mysql::Value::Bytes(vec![1]))).unwrap();
        let int = col(ColumnType::MYSQL_TYPE_LONG);
        push_value(&mut out, &int, Some(&mysql::Value::UInt(4_000_000_000))).unwrap();
        push_value(&mut out, &int, Some(&mysql::Value::NULL)).unwrap();
        use crate::engines::values::CellRef;
        assert_eq!(
            out.get(0),
            CellRef::Decimal {
                value: 47.3333,
                scale: 4
            }
        );
        assert_eq!(out.get(1), CellRef::Text(b"ABC"));
        assert_eq!(out.get(2), CellRef::Blob(&[1]));
        assert_eq!(out.get(3), CellRef::Int(4_000_000_000));
        assert_eq!(out.get(4), CellRef::Null);
        assert!(push_value(&mut out, &decimal, Some(&mysql::Value::Bytes(b"x".to_vec()))).is_err());
    }
}
