//! A recorded statement log, read into its statements in order, in the formats people can
//! record without tooling of ours:
//!
//! - `statements`: SQL statements ended by `;`, over as many lines as they take: what the
//!   sqlite3 shell's `.trace FILE` writes (also with `--expanded`, and `--profile`'s
//!   `-- N ns` comments), a `.sql` dump, or a hand-written log;
//! - `lines`: one statement per line, with no `;` (an application's own log line by line);
//! - `timestamped`: each statement led by its start time (`2024-05-01T12:00:00.125Z`,
//!   `2024-05-01 12:00:00.125`, either in `[...]`, or seconds as a number, `12.5`), a
//!   statement running on until the next line that starts with a time.
//!
//! Statements are kept as recorded, literals and all, and split by the shared SQL lexer
//! ([`crate::engines::sql_lex`]), so a `;` inside a string or a comment never ends one. A
//! statement with a parameter whose value the log does not hold (`?`, `?1`, `:name`, `$1`) is
//! refused: replay never guesses values. Every error is one line, `FILE:LINE:COLUMN: what`.
//!
//! A million-statement log takes over a second to read, and a stop (Ctrl-C) must be answered
//! within about one: the reader looks at the stop flag every [`STOP_EVERY`] steps (tokens,
//! lines, statements), and a read cut short ends in [`STOPPED`], which the session answers as
//! every stop (exit 130).

use crate::engines::sql_lex::{Kind, Lexer, LineIndex, Token, NUL_BYTE};
use crate::workload::file_reach;
use std::cell::Cell;

/// Steps (a token, a line or a statement each) between two looks at the stop flag: a few
/// microseconds of reading.
pub const STOP_EVERY: usize = 1 << 12;

/// What a read cut short by a stop request ends in.
pub const STOPPED: &str = "a stop was requested while the log was read";

/// The reader's look at the stop flag, every [`STOP_EVERY`] steps.
pub struct Poll<'a> {
    stop: &'a dyn Fn() -> bool,
    steps: Cell<usize>,
}

impl<'a> Poll<'a> {
    pub fn new(stop: &'a dyn Fn() -> bool) -> Poll<'a> {
        Poll {
            stop,
            steps: Cell::new(0),
        }
    }

    /// One step; true when a stop was requested (looked at every [`STOP_EVERY`] steps).
    #[inline]
    pub fn stopped(&self) -> bool {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        n.is_multiple_of(STOP_EVERY) && (self.stop)()
    }
}

/// How a log is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Statements,
    Lines,
    Timestamped,
}

impl Format {
    pub const NAMES: [&'static str; 3] = ["statements", "lines", "timestamped"];

    pub fn name(self) -> &'static str {
        match self {
            Format::Statements => "statements",
            Format::Lines => "lines",
            Format::Timestamped => "timestamped",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "statements" => Some(Format::Statements),
            "lines" => Some(Format::Lines),
            "timestamped" => Some(Format::Timestamped),
            _ => None,
        }
    }
}

/// One recorded statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// 1-based line of its first character in the log.
    pub line: usize,
    /// Its text as recorded (leading and trailing comments and the `;` left out).
    pub sql: String,
    /// Its recorded start, nanoseconds after the log's first (timestamped logs only).
    pub at_ns: Option<u64>,
    /// Its text with every literal replaced by `?` and blanks and comments by one space.
    pub shape: String,
}

/// A log, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    pub format: Format,
    pub statements: Vec<Statement>,
}

/// Reads `text`, the content of `file`, in `format` (`None`: detected, see [`detect`]); a stop
/// request ([`crate::sys::signals::stop_requested`]) cuts it short.
pub fn read(file: &str, text: &str, format: Option<Format>) -> Result<Log, String> {
    read_polled(file, text, format, &Poll::new(&crate::sys::signals::stop_requested))
}

/// [`read`], looking at `poll` for a stop.
pub fn read_polled(file: &str, text: &str, format: Option<Format>, poll: &Poll<'_>) -> Result<Log, String> {
    let lines = LineIndex::new(text);
    let at = |offset: usize, what: &str| {
        let (l, c) = lines.line_col(offset);
        format!("{file}:{l}:{c}: {what}")
    };
    if let Some(nul) = text.find('\0') {
        return Err(at(nul, NUL_BYTE));
    }
    let format = match format {
        Some(f) => f,
        None => detect_polled(text, poll).map_err(|(o, e)| at(o, &e))?,
    };
    let mut statements = Vec::new();
    match format {
        Format::Statements | Format::Lines => {
            for span in split(text, 0, text.len(), format == Format::Lines, poll).map_err(|(o, e)| at(o, &e))? {
                if poll.stopped() {
                    return Err(STOPPED.into());
                }
                statements.push(statement(text, &lines, span, None).map_err(|(o, e)| at(o, &e))?);
            }
        }
        Format::Timestamped => {
            let records = records(text, poll).map_err(|(o, e)| at(o, &e))?;
            let first = records.first().map_or(0, |r| r.0);
            let mut last = first;
            for (ns, from, to) in records {
                if ns < last {
                    let line_start = text[..from].rfind('\n').map_or(0, |i| i + 1);
                    return Err(at(
                        line_start,
                        "this time is before the previous statement's; replay needs the log in recorded order",
                    ));
                }
                last = ns;
                let rel = u64::try_from(ns - first).unwrap_or(u64::MAX);
                if poll.stopped() {
                    return Err(STOPPED.into());
                }
                let spans = split(text, from, to, false, poll).map_err(|(o, e)| at(o, &e))?;
                if spans.is_empty() {
                    return Err(at(from, "a time with no statement after it"));
                }
                for span in spans {
                    statements.push(statement(text, &lines, span, Some(rel)).map_err(|(o, e)| at(o, &e))?);
                }
            }
        }
    }
    if statements.is_empty() {
        return Err(format!(
            "{file}: no statements in the log; it needs at least one SQL statement"
        ));
    }
    Ok(Log { format, statements })
}

/// The format of `text`: `timestamped` when its first line that is not blank starts with a
/// time; else `statements` when a `;` outside literals and comments ends a statement anywhere;
/// else `lines`.
pub fn detect(text: &str) -> Result<Format, (usize, String)> {
    detect_polled(text, &Poll::new(&crate::sys::signals::stop_requested))
}

fn detect_polled(text: &str, poll: &Poll<'_>) -> Result<Format, (usize, String)> {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with("--"));
    if first.is_some_and(|l| timestamp(l).is_some()) {
        return Ok(Format::Timestamped);
    }
    for t in Lexer::new(text, 0, false) {
        if poll.stopped() {
            return Err((0, STOPPED.into()));
        }
        if t?.kind == Kind::Semicolon {
            return Ok(Format::Statements);
        }
    }
    Ok(Format::Lines)
}

/// A byte span of the log.
type Span = (usize, usize);

/// The statements of `text[from..to]`: ended by `;` (and, with `by_line`, by a line break
/// outside literals), without leading or trailing blanks and comments; empty ones left out.
fn split(text: &str, from: usize, to: usize, by_line: bool, poll: &Poll<'_>) -> Result<Vec<Span>, (usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<Span> = None;
    for t in Lexer::new(&text[..to], from, false) {
        let t = t?;
        if poll.stopped() {
            return Err((t.start, STOPPED.into()));
        }
        let ends = match t.kind {
            Kind::Semicolon => true,
            Kind::Blank => by_line && text[t.start..t.end].contains('\n'),
            _ => false,
        };
        if ends {
            out.extend(current.take());
        } else if !matches!(t.kind, Kind::Blank | Kind::LineComment | Kind::BlockComment) {
            current = Some(current.map_or((t.start, t.end), |(s, _)| (s, t.end)));
        }
    }
    out.extend(current);
    Ok(out)
}

/// The statement at `span`, refused if it holds a parameter or names a file outside the trial's
/// copy ([`file_reach`]).
fn statement(text: &str, lines: &LineIndex<'_>, span: Span, at_ns: Option<u64>) -> Result<Statement, (usize, String)> {
    if let Some(refused) = file_reach::first_refusal(text, span.0, span.1, false) {
        return Err(refused);
    }
    let mut shape = String::new();
    for t in Lexer::new(&text[..span.1], span.0, false) {
        let Token { kind, start, end } = t?;
        match kind {
            Kind::Param => {
                return Err((
                    start,
                    format!(
                        "a parameter ({}) whose value the log does not hold: replay runs statements with their values as recorded; record with the sqlite3 shell's `.trace FILE --expanded`, or leave the statement out",
                        &text[start..end]
                    ),
                ))
            }
            Kind::String | Kind::Blob | Kind::Number => shape.push('?'),
            Kind::Blank | Kind::LineComment | Kind::BlockComment => {
                if !shape.ends_with(' ') {
                    shape.push(' ');
                }
            }
            _ => shape.push_str(&text[start..end]),
        }
    }
    Ok(Statement {
        line: lines.line(span.0),
        sql: text[span.0..span.1].to_string(),
        at_ns,
        shape: shape.trim().to_string(),
    })
}

/// A timestamped record: its time (ns) and its body's span.
type Record = (i128, usize, usize);

/// The timestamped records of `text`: `(time in ns, body start, body end)`, each body running
/// to the start of the next line that starts with a time. Every time has the form of the
/// first (a date and time, or seconds).
fn records(text: &str, poll: &Poll<'_>) -> Result<Vec<Record>, (usize, String)> {
    let mut out: Vec<Record> = Vec::new();
    let mut first_is_date = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let here = offset;
        if poll.stopped() {
            return Err((here, STOPPED.into()));
        }
        offset += line.len();
        match timestamp(line) {
            Some((ns, is_date, len)) => {
                if *first_is_date.get_or_insert(is_date) != is_date {
                    return Err((
                        here,
                        "this time's form differs from the first's (a date and time against seconds); write every time alike".into(),
                    ));
                }
                if let Some(last) = out.last_mut() {
                    last.2 = here;
                }
                out.push((ns, here + len, offset));
            }
            None if out.is_empty() => {
                if !line.trim().is_empty() && !line.trim_start().starts_with("--") {
                    return Err((
                        here,
                        "a timestamped log's first statement needs a leading time (2024-05-01T12:00:00.125Z, 2024-05-01 12:00:00.125, or seconds such as 12.5)".into(),
                    ));
                }
            }
            None => {
                if let Some(last) = out.last_mut() {
                    last.2 = offset;
                }
            }
        }
    }
    Ok(out)
}

/// A leading time of `line`: nanoseconds (since the Unix epoch for a date, as written for
/// seconds), whether it was a date, and the bytes it and the blanks after it take. A time is
/// followed by at least one blank and then text.
pub fn timestamp(line: &str) -> Option<(i128, bool, usize)> {
    let b = line.as_bytes();
    let bracket = b.first() == Some(&b'[');
    let mut i = usize::from(bracket);
    let (ns, is_date) = if let Some((ns, n)) = date_time(&b[i..]) {
        i += n;
        (ns, true)
    } else {
        let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 12 {
            return None;
        }
        let whole: i128 = line[i..i + n].parse().ok()?;
        i += n;
        let mut ns = whole * 1_000_000_000;
        if b.get(i) == Some(&b'.') {
            let f = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            ns += fraction_ns(&b[i + 1..i + 1 + f]);
            i += 1 + f;
        }
        (ns, false)
    };
    if bracket {
        if b.get(i) != Some(&b']') {
            return None;
        }
        i += 1;
    }
    let blanks = b[i..].iter().take_while(|c| **c == b' ' || **c == b'\t').count();
    let rest = line[i + blanks..].trim();
    (blanks > 0 && !rest.is_empty()).then_some((ns, is_date, i + blanks))
}

/// Nanoseconds of a decimal fraction's digits (`125` -> 125,000,000).
fn fraction_ns(digits: &[u8]) -> i128 {
    let mut ns = 0i128;
    for k in 0..9 {
        ns = ns * 10 + digits.get(k).map_or(0, |d| i128::from(d - b'0'));
    }
    ns
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.fff][Z|+HH:MM|-HHMM]` at the start of `b`: nanoseconds since the
/// Unix epoch (a time without a zone taken as UTC: only differences matter) and its length.
fn date_time(b: &[u8]) -> Option<(i128, usize)> {
    let num = |from: usize, n: usize| -> Option<i64> {
        let s = b.get(from..from + n)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(s).ok()?.parse().ok())?
    };
    let sep = |at: usize, c: &[u8]| b.get(at).is_some_and(|x| c.contains(x));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"T ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, s) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut i = 19;
    let mut frac = 0;
    if b.get(i) == Some(&b'.') {
        let f = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        frac = fraction_ns(&b[i + 1..i + 1 + f]);
        i += 1 + f;
    }
    let mut offset_s = 0i64;
    match b.get(i) {
        Some(b'Z') => i += 1,
        Some(&c @ (b'+' | b'-')) => {
            let colon = usize::from(b.get(i + 3) == Some(&b':'));
            let (oh, om) = (num(i + 1, 2)?, num(i + 3 + colon, 2)?);
            offset_s = (oh * 3600 + om * 60) * if c == b'+' { 1 } else { -1 };
            i += 5 + colon;
        }
        _ => {}
    }
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset_s;
    Some((i128::from(secs) * 1_000_000_000 + frac, i))
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqls(log: &Log) -> Vec<(usize, &str)> {
        log.statements.iter().map(|s| (s.line, s.sql.as_str())).collect()
    }

    #[test]
    fn statements_as_the_sqlite3_shell_traces_them() {
        let text = "CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT);\nBEGIN;\nINSERT INTO kv VALUES (1, 'a;b'), (2, 'it''s');\nUPDATE kv SET v = 'multi\nline' WHERE k = 1;\nSELECT * FROM kv WHERE k = 2; -- 1000000 ns\n-- a comment\nCOMMIT;";
        let log = read("t.log", text, None).unwrap();
        assert_eq!(log.format, Format::Statements);
        assert_eq!(
            sqls(&log),
            vec![
                (1, "CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT)"),
                (2, "BEGIN"),
                (3, "INSERT INTO kv VALUES (1, 'a;b'), (2, 'it''s')"),
                (4, "UPDATE kv SET v = 'multi\nline' WHERE k = 1"),
                (6, "SELECT * FROM kv WHERE k = 2"),
                (8, "COMMIT"),
            ]
        );
        assert_eq!(log.statements[2].shape, "INSERT INTO kv VALUES (?, ?), (?, ?)");
        assert_eq!(log.statements[3].shape, "UPDATE kv SET v = ? WHERE k = ?");
        assert!(log.statements.iter().all(|s| s.at_ns.is_none()));
    }

    #[test]
    fn one_statement_per_line() {
        let log = read(
            "t.log",
            "SELECT 1\n\n  UPDATE t SET a = x'00' WHERE b = -2.5e3 -- x\nSELECT 'a\nb'\n",
            None,
        )
        .unwrap();
        assert_eq!(log.format, Format::Lines);
        assert_eq!(
            sqls(&log),
            vec![
                (1, "SELECT 1"),
                (3, "UPDATE t SET a = x'00' WHERE b = -2.5e3"),
                (4, "SELECT 'a\nb'")
            ]
        );
        assert_eq!(log.statements[1].shape, "UPDATE t SET a = ? WHERE b = -?");
    }

    #[test]
    fn timestamped_in_every_form() {
        let text = "2024-05-01T12:00:00Z BEGIN\n2024-05-01T12:00:00.2Z INSERT INTO t\n  VALUES (1);\n[2024-05-01 14:00:00.400+02:00] COMMIT; SELECT 1\n";
        let log = read("t.log", text, None).unwrap();
        assert_eq!(log.format, Format::Timestamped);
        let at: Vec<(usize, &str, Option<u64>)> = log
            .statements
            .iter()
            .map(|s| (s.line, s.sql.as_str(), s.at_ns))
            .collect();
        assert_eq!(
            at,
            vec![
                (1, "BEGIN", Some(0)),
                (2, "INSERT INTO t\n  VALUES (1)", Some(200_000_000)),
                (4, "COMMIT", Some(400_000_000)),
                (4, "SELECT 1", Some(400_000_000)),
            ]
        );
        let secs = read("t.log", "0 SELECT 1\n0.2 SELECT 2\n0.400 SELECT 3\n", None).unwrap();
        assert_eq!(
            secs.statements.iter().map(|s| s.at_ns).collect::<Vec<_>>(),
            vec![Some(0), Some(200_000_000), Some(400_000_000)]
        );
        assert_eq!(date_time(b"1970-01-02T00:00:01Z").unwrap().0, 86_401_000_000_000);
    }

    #[test]
    fn a_nul_byte_is_refused_with_file_line_and_column() {
        // Before: the statement after the NUL counted as run, though SQLite ran nothing.
        for format in [None, Some(Format::Lines), Some(Format::Timestamped)] {
            let text = "0 SELECT 1;\n0 SELECT 2\0; DELETE FROM t;\n";
            assert_eq!(
                read("app.log", text, format).unwrap_err(),
                format!("app.log:2:11: {NUL_BYTE}"),
                "{format:?}"
            );
        }
    }

    #[test]
    fn a_file_outside_the_copy_is_refused_where_the_log_names_it() {
        // Before: read and replayed, and the user's own database emptied.
        let e = read(
            "app.log",
            "SELECT 1;\n  ATTACH '/data/victim.db' AS v; DELETE FROM v.important;\n",
            None,
        )
        .unwrap_err();
        assert!(
            e.starts_with("app.log:2:10: ATTACH of '/data/victim.db', a file outside the trial's copy"),
            "{e}"
        );
        let e = read("app.log", "0.5 VACUUM INTO 'out.db'\n", None).unwrap_err();
        assert!(e.starts_with("app.log:1:17: VACUUM INTO 'out.db'"), "{e}");
        assert!(read("app.log", "ATTACH '' AS t;\nCREATE TABLE t.x(a);\n", None).is_ok());
    }

    #[test]
    fn reading_is_linear_in_the_size_of_the_log() {
        use crate::engines::sql_lex::position_work;
        let read_n = |n: usize, format: Option<Format>| {
            let line = if format == Some(Format::Timestamped) {
                "12.5 INSERT INTO kv VALUES (1, 'a');\n"
            } else {
                "INSERT INTO kv VALUES (1, 'a');\n"
            };
            let text = line.repeat(n);
            let before = position_work();
            let log = read("big.log", &text, format).unwrap();
            assert_eq!(log.statements.len(), n);
            assert_eq!(log.statements[n - 1].line, n);
            (position_work() - before, text.len() as u64)
        };
        for format in [None, Some(Format::Lines), Some(Format::Timestamped)] {
            let (small, small_bytes) = read_n(2_000, format);
            let (large, large_bytes) = read_n(8_000, format);
            // The file once for its line starts, then a binary search per statement; counting
            // each statement's line from the start read 128 MB for the large one.
            assert!(
                large <= 2 * large_bytes,
                "{format:?}: {large} units for {large_bytes} bytes"
            );
            assert!(
                large * small_bytes <= small * large_bytes * 5 / 4,
                "{format:?}: 4 times the log, {large} units against {small}"
            );
        }
    }

    /// Issue 45, item 11: a stop during a million-statement read waited for the whole read
    /// (1.3 s). The reader looks at the stop flag every [`STOP_EVERY`] steps in every format,
    /// and ends at the first look that finds a stop.
    #[test]
    fn the_reader_looks_for_a_stop_every_few_thousand_steps_and_ends_at_one() {
        let statements = 50_000;
        let semicolons: String = (0..statements)
            .map(|i| format!("INSERT INTO t VALUES({i});\n"))
            .collect();
        let lines: String = (0..statements)
            .map(|i| format!("INSERT INTO t VALUES({i})\n"))
            .collect();
        let timed: String = (0..statements)
            .map(|i| format!("{i}.5 INSERT INTO t VALUES({i})\n"))
            .collect();
        for (text, format) in [
            (&semicolons, None),
            (&lines, None),
            (&lines, Some(Format::Lines)),
            (&timed, None),
        ] {
            let looks = Cell::new(0usize);
            let never = || {
                looks.set(looks.get() + 1);
                false
            };
            let log = read_polled("big.log", text, format, &Poll::new(&never)).unwrap();
            assert_eq!(log.statements.len(), statements);
            // At least one look per STOP_EVERY statements (each is several steps).
            assert!(
                looks.get() >= statements / STOP_EVERY,
                "{format:?}: {} looks",
                looks.get()
            );
            let asked = Cell::new(0usize);
            let third = || {
                asked.set(asked.get() + 1);
                asked.get() == 3
            };
            let e = read_polled("big.log", text, format, &Poll::new(&third)).unwrap_err();
            assert!(e.ends_with(STOPPED), "{format:?}: {e}");
            assert_eq!(asked.get(), 3, "{format:?}: it ended at the look that found the stop");
        }
    }

    #[test]
    fn bad_logs_are_one_line_with_file_line_and_column() {
        let err = |t: &str| read("app.log", t, None).unwrap_err();
        assert_eq!(
            err("SELECT 1;\nSELECT 'abc;\n"),
            "app.log:2:8: unterminated string literal"
        );
        assert!(err("SELECT 1;\nSELECT * FROM t WHERE k = ?1;")
            .starts_with("app.log:2:27: a parameter (?1) whose value the log does not hold"));
        assert!(err("0.5 SELECT 1\n0.2 SELECT 2\n").starts_with("app.log:2:1: this time is before"));
        assert!(err("0.5 SELECT 1\n2024-05-01 12:00:00 SELECT 2\n").starts_with("app.log:2:1: this time's form"));
        assert_eq!(
            err("\n-- nothing\n"),
            "app.log: no statements in the log; it needs at least one SQL statement"
        );
        assert!(read("app.log", "SELECT 1\n0.5 SELECT 2", Some(Format::Timestamped))
            .unwrap_err()
            .starts_with("app.log:1:1: a timestamped log's first statement needs a leading time"));
    }
}
