//! Bulk loading: how a workload fills a template with millions of rows through each engine's
//! fastest way in.
//!
//! Populating is not measured as a workload, but it decides how long a run takes before its
//! first trial (SSB at scale 1 is six million rows) and its rate is reported as the footprint
//! (the VLDB'22 paper's Table 4). Row-by-row `INSERT`s through a client protocol take minutes
//! there, so each engine loads its native way: SQLite prepared inserts in large transactions
//! with the journal off, DuckDB its appender, PostgreSQL `COPY ... FROM STDIN`. Any other engine
//! gets [`insert_rows`]: prepared multi-row `INSERT`s in large transactions.
//!
//! The caller pushes rows into a [`RowSink`] from inside a callback, so rows can be produced on
//! the fly (parsed from a generator's output as it streams) and nothing is buffered beyond one
//! statement's worth of rows.
//!
//! Where the rows already are a file (`ssb --param tbl_dir=...`), an engine with a reader of its
//! own loads it without litebench parsing a line ([`Connection::load_file`], a [`DelimitedFile`]):
//! DuckDB's `COPY ... FROM 'file'` reads and converts on its own threads, faster than any
//! stream of appended rows. Which way a template was filled is part of its footprint
//! ([`BULK_PATH`] and each engine's [`Connection::bulk_path`] name them), since the load rate
//! depends on it.

use super::{Connection, EngineError, ErrorKind, StmtId, Value};

/// What the default [`Connection::bulk_load`] ([`insert_rows`]) is called in the footprint.
pub const BULK_PATH: &str = "multi-row INSERTs";

/// A text file of one row per line, fields separated by one byte, for an engine's own reader.
///
/// The rows it must give are exactly those litebench's own parser reads from it: every field
/// taken as it stands (no quoting, no escapes, no header, an empty field an empty string, not
/// NULL), a line's one trailing delimiter ending its last field (ssb-dbgen ends every line with
/// one), `\n` or `\r\n` line ends.
#[derive(Debug, Clone, Copy)]
pub struct DelimitedFile<'a> {
    pub path: &'a std::path::Path,
    /// An ASCII punctuation byte other than a quote (`|` for `.tbl` files).
    pub delimiter: u8,
}

/// A table an engine filled from a [`DelimitedFile`] with its own reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileLoad {
    pub rows: u64,
    /// The way, for the footprint (`COPY FROM file (native)`).
    pub path: &'static str,
}

/// Where a workload pushes the rows of one table.
pub trait RowSink {
    /// Appends one row: one value per column given to [`Connection::bulk_load`], in order.
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError>;
}

/// The callback that produces a table's rows into a sink.
pub type Fill<'f> = &'f mut dyn FnMut(&mut dyn RowSink) -> Result<(), EngineError>;

/// Rows per transaction of [`insert_rows`]: large enough that commits cost nothing.
pub const ROWS_PER_TRANSACTION: u64 = 1_000_000;

/// Most parameters one multi-row statement binds (below SQLite's old limit of 999 variables
/// times a margin, and far below the servers' 32767/65535).
const MAX_PARAMS: usize = 900;

/// A value copied out of the caller's borrowed row, for multi-row statements.
#[derive(Debug, Clone)]
enum Owned {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Owned {
    fn of(v: &Value<'_>) -> Owned {
        match *v {
            Value::Null => Owned::Null,
            Value::Int(i) => Owned::Int(i),
            Value::Real(r) => Owned::Real(r),
            Value::Text(s) => Owned::Text(s.to_string()),
            Value::Blob(b) => Owned::Blob(b.to_vec()),
        }
    }

    fn value(&self) -> Value<'_> {
        match self {
            Owned::Null => Value::Null,
            Owned::Int(i) => Value::Int(*i),
            Owned::Real(r) => Value::Real(*r),
            Owned::Text(s) => Value::Text(s),
            Owned::Blob(b) => Value::Blob(b),
        }
    }
}

/// An error of a bulk load that is the input's fault, not the engine's (a malformed `.tbl`
/// line): the runner reports it as bad input (exit code 2), naming what to fix.
pub fn input_error(engine: &str, message: String) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: engine.to_string(),
        kind: ErrorKind::Input,
        code: None,
        message,
        context: "loading the input".into(),
    }
}

fn insert_sql(table: &str, columns: &[&str], rows: usize) -> String {
    let marks = format!("({})", vec!["?"; columns.len()].join(", "));
    format!(
        "INSERT INTO {table} ({}) VALUES {}",
        columns.join(", "),
        vec![marks.as_str(); rows].join(", ")
    )
}

/// Multi-row statements, flushed whenever `rows_per_statement` rows are buffered, committed
/// every [`ROWS_PER_TRANSACTION`] rows.
struct InsertSink<'c, C: Connection + ?Sized> {
    conn: &'c mut C,
    table: String,
    columns: Vec<String>,
    rows_per_statement: usize,
    single: StmtId,
    multi: Option<StmtId>,
    buffered: Vec<Owned>,
    rows: u64,
    in_transaction: u64,
}

impl<C: Connection + ?Sized> InsertSink<'_, C> {
    fn flush(&mut self) -> Result<(), EngineError> {
        let width = self.columns.len().max(1);
        let n = self.buffered.len() / width;
        if n == 0 {
            return Ok(());
        }
        let values: Vec<Value<'_>> = self.buffered.iter().map(Owned::value).collect();
        if n == self.rows_per_statement {
            let stmt = match self.multi {
                Some(s) => s,
                None => {
                    let cols: Vec<&str> = self.columns.iter().map(String::as_str).collect();
                    let s = self.conn.prepare(&insert_sql(&self.table, &cols, n))?;
                    self.multi = Some(s);
                    s
                }
            };
            self.conn.run(stmt, &values)?;
        } else {
            for row in values.chunks(width) {
                self.conn.run(self.single, row)?;
            }
        }
        self.buffered.clear();
        Ok(())
    }

    fn counted(&mut self) -> Result<(), EngineError> {
        self.rows += 1;
        self.in_transaction += 1;
        if self.in_transaction >= ROWS_PER_TRANSACTION {
            self.flush()?;
            self.conn.execute_batch("COMMIT")?;
            self.conn.execute_batch("BEGIN")?;
            self.in_transaction = 0;
        }
        Ok(())
    }
}

impl<C: Connection + ?Sized> RowSink for InsertSink<'_, C> {
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError> {
        if values.len() != self.columns.len() {
            return Err(input_error(
                "bulk load",
                format!(
                    "{}: a row of {} values for {} columns",
                    self.table,
                    values.len(),
                    self.columns.len()
                ),
            ));
        }
        if self.rows_per_statement == 1 {
            // Bound straight from the caller's row: nothing copied.
            self.conn.run(self.single, values)?;
        } else {
            self.buffered.extend(values.iter().map(Owned::of));
            if self.buffered.len() >= self.rows_per_statement * self.columns.len() {
                self.flush()?;
            }
        }
        self.counted()
    }
}

/// The portable bulk path: prepared `INSERT`s of `rows_per_statement` rows each (at most what
/// fits [`MAX_PARAMS`]), in transactions of [`ROWS_PER_TRANSACTION`] rows. Returns the rows
/// loaded.
pub fn insert_rows<C: Connection + ?Sized>(
    conn: &mut C,
    table: &str,
    columns: &[&str],
    rows_per_statement: usize,
    fill: Fill<'_>,
) -> Result<u64, EngineError> {
    let per = rows_per_statement.clamp(1, (MAX_PARAMS / columns.len().max(1)).max(1));
    let single = conn.prepare(&insert_sql(table, columns, 1))?;
    conn.execute_batch("BEGIN")?;
    let mut sink = InsertSink {
        conn,
        table: table.to_string(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows_per_statement: per,
        single,
        multi: None,
        buffered: Vec::new(),
        rows: 0,
        in_transaction: 0,
    };
    let filled = fill(&mut sink).and_then(|()| sink.flush());
    let rows = sink.rows;
    match filled {
        Ok(()) => {
            conn.execute_batch("COMMIT")?;
            Ok(rows)
        }
        Err(e) => {
            // The error is what matters; a failed rollback adds nothing to it.
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_row_statements_list_every_row() {
        assert_eq!(
            insert_sql("t", &["a", "b"], 2),
            "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)"
        );
    }

    #[test]
    fn owned_values_round_trip() {
        for v in [
            Value::Null,
            Value::Int(-3),
            Value::Real(2.5),
            Value::Text("x|y"),
            Value::Blob(b"\0\x01"),
        ] {
            assert_eq!(Owned::of(&v).value(), v);
        }
    }
}
