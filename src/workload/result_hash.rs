//! The results of a trial's queries, kept while it runs and hashed after: the trial's
//! `result_hash`, like SQLite's `speedtest1 --verify`, so two engines (or two builds) that ran
//! the same workload with the same seed can be shown to have answered every query alike.
//!
//! [`ResultLog::run`] runs a query inside the timed loop and only copies its values into a
//! preallocated buffer; [`ResultHash::add`] turns them into their canonical form and feeds
//! SHA-256 outside the timed region. The canonical form is the same on every engine:
//!
//! - the hash starts with `litebench-results-v1\n`; each query result then adds `R<rows>\n`
//!   and its rows, each row its values followed by `\n`;
//! - a value is `N;` for NULL, `n<number>;` for a number, `t<bytes>:<text>;` for text and
//!   `b<bytes>:<bytes>;` for a blob, so NULL and empty text differ and no text can imitate a
//!   separator;
//! - a number is written as an integer when its value is one (an `INTEGER`, or a `REAL` or
//!   `DECIMAL` with nothing after the point, below 2^53), otherwise rounded half away from zero
//!   to 9 significant digits but at most 4 decimal places, without trailing zeros: MariaDB gives
//!   the average of integers as a DECIMAL with 4 decimal places (`div_precision_increment`),
//!   SQLite and DuckDB as a double, PostgreSQL as a NUMERIC with 16 or more;
//! - rows are sorted (by their canonical bytes) unless the query has `ORDER BY`, since without
//!   it the engines may return them in any order.

use crate::engines::values::{CellRef, Values};
use crate::engines::{Connection, EngineError, StmtId, Value};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::ops::Range;

/// What the hash starts with: the version of the canonical form.
const HEADER: &[u8] = b"litebench-results-v1\n";

/// One query result in a [`ResultLog`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    cells: u32,
    rows: u32,
    ordered: bool,
}

/// The values of the queries run so far, in order.
#[derive(Debug, Clone, Default)]
pub struct ResultLog {
    values: Values,
    results: Vec<Span>,
}

impl ResultLog {
    /// Room for `results` query results of `cells` values in all (and `bytes` of text) before
    /// the first allocation.
    pub fn with_capacity(results: usize, cells: usize, bytes: usize) -> ResultLog {
        ResultLog {
            values: Values::with_capacity(cells, bytes),
            results: Vec::with_capacity(results),
        }
    }

    /// Runs a prepared query and keeps its values; `ordered`: the query has `ORDER BY` (see
    /// [`has_order_by`]). Returns the number of rows.
    #[inline]
    pub fn run(
        &mut self,
        conn: &mut dyn Connection,
        stmt: StmtId,
        params: &[Value<'_>],
        ordered: bool,
    ) -> Result<u64, EngineError> {
        self.record(ordered, |values| conn.run_values(stmt, params, values))
    }

    /// Keeps one result, whose values `run` pushes (returning its rows).
    pub fn record(
        &mut self,
        ordered: bool,
        run: impl FnOnce(&mut Values) -> Result<u64, EngineError>,
    ) -> Result<u64, EngineError> {
        let start = self.values.len();
        match run(&mut self.values) {
            Ok(rows) => {
                self.results.push(Span {
                    start: start as u32,
                    cells: (self.values.len() - start) as u32,
                    rows: rows as u32,
                    ordered,
                });
                Ok(rows)
            }
            Err(e) => {
                self.values.truncate(start);
                Err(e)
            }
        }
    }

    /// The values kept.
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// The positions in [`ResultLog::values`] of the last result's values.
    pub fn last(&self) -> Range<usize> {
        self.results
            .last()
            .map_or(0..0, |s| s.start as usize..(s.start + s.cells) as usize)
    }

    /// Query results kept.
    pub fn results(&self) -> usize {
        self.results.len()
    }

    /// Keeps the first `results` results (drops those of a transaction that was rolled back).
    pub fn truncate(&mut self, results: usize) {
        if let Some(s) = self.results.get(results) {
            self.values.truncate(s.start as usize);
        }
        self.results.truncate(results);
    }

    /// Forgets every result, keeping the memory.
    pub fn clear(&mut self) {
        self.values.clear();
        self.results.clear();
    }
}

/// Whether a statement has `ORDER BY` (its rows come in a defined order).
pub fn has_order_by(sql: &str) -> bool {
    let mut prev_order = false;
    for word in sql.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        if prev_order && word.eq_ignore_ascii_case("BY") {
            return true;
        }
        if !word.is_empty() {
            prev_order = word.eq_ignore_ascii_case("ORDER");
        }
    }
    false
}

/// SHA-256 over the canonical form of query results.
#[derive(Debug, Clone)]
pub struct ResultHash {
    sha: Sha256,
    results: u64,
    /// The canonical rows of the result being added, and where each starts.
    rows: Vec<u8>,
    starts: Vec<Range<usize>>,
}

impl Default for ResultHash {
    fn default() -> ResultHash {
        ResultHash::new()
    }
}

impl ResultHash {
    pub fn new() -> ResultHash {
        let mut sha = Sha256::new();
        sha.update(HEADER);
        ResultHash {
            sha,
            results: 0,
            rows: Vec::new(),
            starts: Vec::new(),
        }
    }

    /// Adds every result of `log`, in order.
    pub fn add(&mut self, log: &ResultLog) {
        for span in &log.results {
            self.add_result(&log.values, span);
        }
    }

    fn add_result(&mut self, values: &Values, span: &Span) {
        self.rows.clear();
        self.starts.clear();
        let rows = span.rows as usize;
        let width = (span.cells as usize).checked_div(rows).unwrap_or(0);
        for r in 0..rows {
            let begin = self.rows.len();
            let first = span.start as usize + r * width;
            for i in first..first + width {
                write_value(&mut self.rows, values.get(i));
            }
            self.rows.push(b'\n');
            self.starts.push(begin..self.rows.len());
        }
        if !span.ordered {
            let bytes = &self.rows;
            self.starts
                .sort_unstable_by(|a, b| bytes[a.clone()].cmp(&bytes[b.clone()]));
        }
        self.sha.update(format!("R{rows}\n").as_bytes());
        for r in &self.starts {
            self.sha.update(&self.rows[r.clone()]);
        }
        self.results += 1;
    }

    /// Query results hashed so far.
    pub fn results(&self) -> u64 {
        self.results
    }

    /// The hash, 64 lowercase hex digits.
    pub fn finish(self) -> String {
        self.sha.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The hash of a set of query results in one call (tests, tools).
pub fn hash_of(log: &ResultLog) -> String {
    let mut h = ResultHash::new();
    h.add(log);
    h.finish()
}

fn write_value(out: &mut Vec<u8>, v: CellRef<'_>) {
    match v {
        CellRef::Null => out.extend_from_slice(b"N;"),
        CellRef::Int(i) => {
            let _ = write!(out, "n{i};");
        }
        CellRef::Real(x) | CellRef::Decimal { value: x, .. } => {
            out.push(b'n');
            write_number(out, x);
            out.push(b';');
        }
        CellRef::Text(t) => {
            let _ = write!(out, "t{}:", t.len());
            out.extend_from_slice(t);
            out.push(b';');
        }
        CellRef::Blob(b) => {
            let _ = write!(out, "b{}:", b.len());
            out.extend_from_slice(b);
            out.push(b';');
        }
    }
}

/// Largest integer every engine's doubles hold exactly (2^53).
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// How close to a half (in units of the last kept digit) counts as a half: an average computed
/// as a double, and the same average given as a decimal rounded by the engine, differ by far
/// less, so both round the same way.
const HALF_SLACK: f64 = 1e-6;

/// The canonical text of a number that may not be an integer (see the module documentation).
pub fn write_number(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(b"nan");
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"inf" } else { b"-inf" });
        return;
    }
    if x == x.trunc() && x.abs() < EXACT_INTEGERS {
        let _ = write!(out, "{}", x as i64);
        return;
    }
    let a = x.abs();
    let magnitude = a.log10().floor() as i32;
    // Digits after the point: 9 significant digits in all, at most 4 after the point.
    let decimals = (8 - magnitude).min(4);
    let scaled = if decimals >= 0 {
        a * 10f64.powi(decimals)
    } else {
        a / 10f64.powi(-decimals)
    };
    let mut n = scaled.floor();
    if scaled - n >= 0.5 - HALF_SLACK {
        n += 1.0;
    }
    let n = n as u64;
    if x < 0.0 && n != 0 {
        out.push(b'-');
    }
    if decimals <= 0 {
        let _ = write!(out, "{n}");
        if n != 0 {
            out.extend(std::iter::repeat_n(b'0', (-decimals) as usize));
        }
        return;
    }
    let d = decimals as usize;
    let digits = format!("{n:0width$}", width = d + 1);
    let (int, frac) = digits.split_at(digits.len() - d);
    out.extend_from_slice(int.as_bytes());
    let frac = frac.trim_end_matches('0');
    if !frac.is_empty() {
        out.push(b'.');
        out.extend_from_slice(frac.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(x: f64) -> String {
        let mut v = Vec::new();
        write_number(&mut v, x);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn numbers_are_canonical_across_engines() {
        assert_eq!(number(5.0), "5");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(47.333333333333336), "47.3333", "SQLite's double");
        assert_eq!(number(47.3333), "47.3333", "MariaDB's DECIMAL(,4)");
        assert_eq!(number(12345.666666666666), "12345.6667");
        assert_eq!(number(123456.66666666667), "123456.667", "9 significant digits");
        assert_eq!(number(12345678.25), "12345678.3", "a half rounds away from zero");
        assert_eq!(number(-2.5e-5), "0", "below the 4th decimal, and no sign on zero");
        // A tie at the 5th decimal: MariaDB rounds the exact 47.03125 up; the double is exact.
        assert_eq!(number(47.03125), "47.0313");
        assert_eq!(number(47.0313), "47.0313");
        // 3/160 is not a binary fraction: the double lies just below the tie.
        assert_eq!(number(3.0 / 160.0), "0.0188");
        assert_eq!(number(0.0188), "0.0188");
        assert_eq!(number(4.999995), "5");
        assert_eq!(number(1.5e20), "150000000000000000000");
        assert_eq!(number(1.234567891e12 + 0.5), "1234567890000");
        assert_eq!(number(f64::NAN), "nan");
        assert_eq!(number(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn null_and_empty_text_differ_and_integers_match_integral_reals() {
        let mut a = Vec::new();
        write_value(&mut a, CellRef::Null);
        let mut b = Vec::new();
        write_value(&mut b, CellRef::Text(b""));
        assert_ne!(a, b);
        let mut i = Vec::new();
        write_value(&mut i, CellRef::Int(3));
        let mut r = Vec::new();
        write_value(&mut r, CellRef::Decimal { value: 3.0, scale: 4 });
        assert_eq!(i, r);
        let mut t = Vec::new();
        write_value(&mut t, CellRef::Text(b"a;n1;"));
        assert_eq!(t, b"t5:a;n1;;");
    }

    /// A log of results built by hand, as `run` would keep them.
    fn log_of(results: &[(&[&[CellRef<'_>]], bool)]) -> ResultLog {
        let mut log = ResultLog::default();
        for (rows, ordered) in results {
            let start = log.values.len();
            for row in *rows {
                for v in *row {
                    match *v {
                        CellRef::Null => log.values.push_null(),
                        CellRef::Int(i) => log.values.push_int(i),
                        CellRef::Real(x) => log.values.push_real(x),
                        CellRef::Decimal { value, scale } => log.values.push_decimal(value, scale),
                        CellRef::Text(t) => log.values.push_text(t),
                        CellRef::Blob(b) => log.values.push_blob(b),
                    }
                }
            }
            log.results.push(Span {
                start: start as u32,
                cells: (log.values.len() - start) as u32,
                rows: rows.len() as u32,
                ordered: *ordered,
            });
        }
        log
    }

    #[test]
    fn row_order_counts_only_with_order_by() {
        use CellRef::*;
        let ab: &[&[CellRef<'_>]] = &[&[Int(1), Text(b"a")], &[Int(2), Text(b"b")]];
        let ba: &[&[CellRef<'_>]] = &[&[Int(2), Text(b"b")], &[Int(1), Text(b"a")]];
        assert_eq!(hash_of(&log_of(&[(ab, false)])), hash_of(&log_of(&[(ba, false)])));
        assert_ne!(hash_of(&log_of(&[(ab, true)])), hash_of(&log_of(&[(ba, true)])));
        // The same values split into other results hash differently.
        let one: &[&[CellRef<'_>]] = &[&[Int(1), Text(b"a")]];
        let two: &[&[CellRef<'_>]] = &[&[Int(2), Text(b"b")]];
        assert_ne!(
            hash_of(&log_of(&[(ab, true)])),
            hash_of(&log_of(&[(one, true), (two, true)]))
        );
        // Averages as SQLite, PostgreSQL and MariaDB give them.
        let sqlite: &[&[CellRef<'_>]] = &[&[Int(3), Real(47.333333333333336)]];
        let pg: &[&[CellRef<'_>]] = &[&[
            Int(3),
            Decimal {
                value: 47.333333333333336,
                scale: 16,
            },
        ]];
        let maria: &[&[CellRef<'_>]] = &[&[
            Int(3),
            Decimal {
                value: 47.3333,
                scale: 4,
            },
        ]];
        let h = hash_of(&log_of(&[(sqlite, false)]));
        assert_eq!(h.len(), 64);
        assert_eq!(h, hash_of(&log_of(&[(pg, false)])));
        assert_eq!(h, hash_of(&log_of(&[(maria, false)])));
        let empty: &[&[CellRef<'_>]] = &[];
        assert_ne!(hash_of(&log_of(&[(empty, false)])), hash_of(&ResultLog::default()));
    }

    #[test]
    fn order_by_is_found_in_any_spacing() {
        assert!(has_order_by("SELECT a FROM t ORDER BY a"));
        assert!(has_order_by("select a from t order\n  by a"));
        assert!(has_order_by("SELECT a FROM (SELECT a FROM t)ORDER BY a"));
        assert!(!has_order_by("SELECT border, by FROM t"));
        assert!(!has_order_by("SELECT count(*), avg(b) FROM t1"));
    }

    #[test]
    fn truncate_drops_whole_results() {
        let x: &[&[CellRef<'_>]] = &[&[CellRef::Text(b"x")]];
        let yz: &[&[CellRef<'_>]] = &[&[CellRef::Text(b"yz")]];
        let log = log_of(&[(x, false), (yz, false)]);
        let mut cut = log.clone();
        cut.truncate(1);
        assert_eq!(cut.results(), 1);
        assert_eq!(cut.values().len(), 1);
        assert_eq!(hash_of(&cut), hash_of(&log_of(&[(x, false)])));
        assert_eq!(log.last(), 1..2);
    }
}
