//! Splitting one `.tbl` line into typed fields.
//!
//! dbgen's lines are `|`-separated with a trailing `|`; builds made with `EOL_HANDLING` leave the
//! trailing one out, and both are accepted (a line ending in `|` is always read as having the
//! trailing separator, so an empty last field needs it: `…||`). Errors name the column (its name and 1-based index)
//! so a loader can say exactly what is wrong where.

use crate::table::{ColumnKind, Table};

/// One field of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field<'a> {
    Int(i64),
    Text(&'a str),
}

/// What is wrong with a line. Displays as `column NAME (INDEX): why`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("column {column} ({index}): missing; the line has {found} fields, {table} has {expected} columns")]
    Missing {
        table: Table,
        column: &'static str,
        index: usize,
        found: usize,
        expected: usize,
    },
    #[error("column {index}: one field too many; the line has {found} fields, {table} has {expected} columns")]
    Extra {
        table: Table,
        index: usize,
        found: usize,
        expected: usize,
    },
    #[error("column {column} ({index}): `{value}` is not an integer")]
    NotInteger {
        column: &'static str,
        index: usize,
        value: String,
    },
    #[error("column {column} ({index}): not valid UTF-8")]
    NotUtf8 { column: &'static str, index: usize },
}

impl LineError {
    /// The 1-based index of the column at fault.
    pub fn index(&self) -> usize {
        match self {
            LineError::Missing { index, .. }
            | LineError::Extra { index, .. }
            | LineError::NotInteger { index, .. }
            | LineError::NotUtf8 { index, .. } => *index,
        }
    }
}

/// The longest value an error quotes.
const QUOTE_MAX: usize = 40;

/// Splits `line` (with or without its `\n`) into `out`, one field per column of `table`.
pub fn parse_line<'a>(table: Table, line: &'a [u8], out: &mut Vec<Field<'a>>) -> Result<(), LineError> {
    out.clear();
    let columns = table.columns();
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            let index = line[..e.valid_up_to()].iter().filter(|&&b| b == b'|').count() + 1;
            let column = columns.get(index - 1).map_or("?", |c| c.name);
            return Err(LineError::NotUtf8 { column, index });
        }
    };
    // A trailing separator ends the last field rather than starting an empty one.
    let body = text.strip_suffix('|').unwrap_or(text);
    let mut fields = body.split('|');
    for (i, column) in columns.iter().enumerate() {
        let Some(value) = fields.next() else {
            return Err(LineError::Missing {
                table,
                column: column.name,
                index: i + 1,
                found: i,
                expected: columns.len(),
            });
        };
        out.push(match column.kind {
            ColumnKind::Text => Field::Text(value),
            ColumnKind::Int => Field::Int(parse_int(value).ok_or_else(|| LineError::NotInteger {
                column: column.name,
                index: i + 1,
                value: quote(value),
            })?),
        });
    }
    let extra = fields.count();
    if extra > 0 {
        return Err(LineError::Extra {
            table,
            index: columns.len() + 1,
            found: columns.len() + extra,
            expected: columns.len(),
        });
    }
    Ok(())
}

fn quote(value: &str) -> String {
    match value.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!("{}...", &value[..cut]),
        None => value.to_string(),
    }
}

/// A decimal integer: an optional `-`, then digits only.
fn parse_int(s: &str) -> Option<i64> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut v: i64 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    Some(if negative { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PART_LINE: &[u8] = b"1|lace spring|MFGR#1|MFGR#11|MFGR#1121|goldenrod|PROMO BURNISHED COPPER|7|JUMBO PKG|\n";

    #[test]
    fn parses_a_dbgen_line() {
        let mut out = Vec::new();
        parse_line(Table::Part, PART_LINE, &mut out).unwrap();
        assert_eq!(
            out,
            [
                Field::Int(1),
                Field::Text("lace spring"),
                Field::Text("MFGR#1"),
                Field::Text("MFGR#11"),
                Field::Text("MFGR#1121"),
                Field::Text("goldenrod"),
                Field::Text("PROMO BURNISHED COPPER"),
                Field::Int(7),
                Field::Text("JUMBO PKG"),
            ]
        );
    }

    #[test]
    fn accepts_no_trailing_separator_and_crlf() {
        let mut out = Vec::new();
        parse_line(Table::Part, b"1|a|b|c|d|e|f|7|g\r\n", &mut out).unwrap();
        assert_eq!(out.len(), 9);
        assert_eq!(out[8], Field::Text("g"));
        // An empty last text field, with its trailing separator.
        parse_line(Table::Part, b"1|a|b|c|d|e|f|7||", &mut out).unwrap();
        assert_eq!(out[8], Field::Text(""));
    }

    #[test]
    fn wrong_column_counts_name_the_column() {
        let mut out = Vec::new();
        let e = parse_line(Table::Part, b"1|a|b|c|d|e|f|7|", &mut out).unwrap_err();
        assert_eq!(
            e.to_string(),
            "column p_container (9): missing; the line has 8 fields, part has 9 columns"
        );
        let e = parse_line(Table::Part, b"1|a|b|c|d|e|f|7|g|h|", &mut out).unwrap_err();
        assert_eq!(
            e.to_string(),
            "column 10: one field too many; the line has 10 fields, part has 9 columns"
        );
    }

    #[test]
    fn non_integers_name_the_column_and_value() {
        let mut out = Vec::new();
        let e = parse_line(Table::Part, b"1|a|b|c|d|e|f|seven|g|", &mut out).unwrap_err();
        assert_eq!(e.to_string(), "column p_size (8): `seven` is not an integer");
        assert_eq!(e.index(), 8);
        for bad in ["", "-", "+1", " 1", "1.0", "99999999999999999999"] {
            assert!(parse_int(bad).is_none(), "{bad:?}");
        }
        assert_eq!(parse_int("-99999"), Some(-99_999));
        assert_eq!(parse_int("9223372036854775807"), Some(i64::MAX));
    }

    #[test]
    fn invalid_utf8_names_the_column() {
        let mut out = Vec::new();
        let e = parse_line(Table::Part, b"1|a|b\xff|c|d|e|f|7|g|", &mut out).unwrap_err();
        assert_eq!(e.to_string(), "column p_mfgr (3): not valid UTF-8");
    }
}
