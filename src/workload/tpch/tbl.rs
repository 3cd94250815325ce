//! A `.tbl` line (dbgen's, or the generator's: the same bytes) split into the values of one row.
//!
//! Integers are bound as integers; every other field (decimals, dates, text) as the text it is,
//! which each engine converts to the column's type on the way in (PostgreSQL's `COPY` reads
//! text anyway, and the text `17954.55` is exact where a double is not). An error names the
//! column and what is wrong, for the loader to put the file and line in front.

use super::schema::Table;
use crate::engines::Value;

/// What is wrong with a line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("is not UTF-8 text")]
    NotUtf8,
    #[error("has {found} fields, expected {expected} each ended by '|'")]
    Fields { found: usize, expected: usize },
    #[error("column {column}: {value:?} is not an integer")]
    NotAnInteger { column: &'static str, value: String },
}

/// Splits `line` (without its `\n`; a `\r` before it is allowed) into `out`, one value per
/// column of `table`.
pub fn parse_line<'l>(table: Table, line: &'l [u8], out: &mut Vec<Value<'l>>) -> Result<(), LineError> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|_| LineError::NotUtf8)?;
    let columns = table.columns();
    // dbgen ends every field, the last one too, with '|'.
    let body = text.strip_suffix('|').ok_or(LineError::Fields {
        found: text.split('|').count() - 1,
        expected: columns.len(),
    })?;
    out.clear();
    for (i, field) in body.split('|').enumerate() {
        let Some(&(column, domain)) = columns.get(i) else {
            return Err(LineError::Fields {
                found: body.split('|').count(),
                expected: columns.len(),
            });
        };
        if domain.is_integer() {
            let n = field.parse::<i64>().map_err(|_| LineError::NotAnInteger {
                column,
                value: field.to_string(),
            })?;
            out.push(Value::Int(n));
        } else {
            out.push(Value::Text(field));
        }
    }
    if out.len() != columns.len() {
        return Err(LineError::Fields {
            found: out.len(),
            expected: columns.len(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lineitem_line_gives_integers_and_text() {
        let line = b"1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|";
        let mut v = Vec::new();
        parse_line(Table::Lineitem, line, &mut v).unwrap();
        assert_eq!(v.len(), 16);
        assert_eq!(v[0], Value::Int(1));
        assert_eq!(v[3], Value::Int(1));
        assert_eq!(v[4], Value::Text("17"));
        assert_eq!(v[5], Value::Text("21168.23"));
        assert_eq!(v[10], Value::Text("1996-03-13"));
        assert_eq!(v[15], Value::Text("egular courts above the"));
    }

    #[test]
    fn malformed_lines_name_what_is_wrong() {
        let mut v = Vec::new();
        assert_eq!(
            parse_line(Table::Region, b"0|AFRICA|x", &mut v),
            Err(LineError::Fields { found: 2, expected: 3 })
        );
        assert_eq!(
            parse_line(Table::Region, b"0|AFRICA|", &mut v),
            Err(LineError::Fields { found: 2, expected: 3 })
        );
        assert_eq!(
            parse_line(Table::Region, b"0|AFRICA|x|y|", &mut v),
            Err(LineError::Fields { found: 4, expected: 3 })
        );
        assert_eq!(
            parse_line(Table::Region, b"zero|AFRICA|x|", &mut v),
            Err(LineError::NotAnInteger {
                column: "r_regionkey",
                value: "zero".into()
            })
        );
        assert!(parse_line(Table::Region, b"0|AFRICA|x|\r", &mut v).is_ok());
    }
}
