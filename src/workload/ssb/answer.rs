//! A query's answer in a form every engine agrees on, to prove that all of them (and every
//! configuration) computed the same thing.
//!
//! Values come from [`Connection::run_values`](crate::engines::Connection::run_values) as
//! numbers or bytes. Their canonical text is the trial result hash's (see
//! [`crate::workload::result_hash`]): a number that is an integer is written as one whether the
//! engine gave an `INTEGER`, a `HUGEINT`, a `NUMERIC` or a `DECIMAL`, so the sums compare
//! exactly. The hash is SHA-256 over the rows sorted by their canonical bytes (order-insensitive:
//! two engines may order the ties of an `ORDER BY` differently); the rows themselves are kept as
//! text, in the engine's order, when there are at most [`MAX_ROWS_KEPT`].

use crate::engines::values::{CellRef, Values};
use crate::model::record::Answer;
use crate::workload::result_hash::write_number;
use sha2::{Digest, Sha256};
use std::io::Write;

/// Answers with more rows keep only their count and hash.
pub const MAX_ROWS_KEPT: u64 = 1000;

fn canonical(v: CellRef<'_>) -> Option<String> {
    match v {
        CellRef::Null => None,
        CellRef::Int(i) => Some(i.to_string()),
        CellRef::Real(x) | CellRef::Decimal { value: x, .. } => {
            let mut out = Vec::new();
            write_number(&mut out, x);
            Some(String::from_utf8_lossy(&out).into_owned())
        }
        CellRef::Text(t) | CellRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
    }
}

fn is_number(v: CellRef<'_>) -> bool {
    matches!(v, CellRef::Int(_) | CellRef::Real(_) | CellRef::Decimal { .. })
}

/// The answer of a query that produced `rows` rows into `values` (all of it).
pub fn answer(values: &Values, rows: u64) -> Answer {
    let width = values.len().checked_div(rows as usize).unwrap_or(0);
    let mut encoded: Vec<Vec<u8>> = Vec::with_capacity(rows as usize);
    let mut text: Vec<Vec<Option<String>>> = Vec::new();
    for r in 0..rows as usize {
        let mut line = Vec::new();
        let mut row = Vec::with_capacity(width);
        for i in r * width..(r + 1) * width {
            let v = values.get(i);
            let c = canonical(v);
            // Typed, length-prefixed: NULL, the number 1 and the text "1" all differ.
            match &c {
                None => line.extend_from_slice(b"N;"),
                Some(s) if is_number(v) => {
                    let _ = write!(line, "n{s};");
                }
                Some(s) => {
                    let _ = write!(line, "t{}:{s};", s.len());
                }
            }
            row.push(c);
        }
        line.push(b'\n');
        encoded.push(line);
        text.push(row);
    }
    encoded.sort_unstable();
    let mut sha = Sha256::new();
    sha.update(format!("litebench-answer-v1\nR{rows}\n").as_bytes());
    for line in &encoded {
        sha.update(line);
    }
    Answer {
        rows,
        hash: sha.finalize().iter().map(|b| format!("{b:02x}")).collect(),
        values: (rows <= MAX_ROWS_KEPT).then_some(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_agree_whatever_type_the_engine_gives() {
        let mut a = Values::default();
        a.push_int(446_031_203_850);
        a.push_int(1992);
        a.push_text(b"MFGR#121");
        let mut b = Values::default();
        b.push_decimal(446_031_203_850.0, 0);
        b.push_int(1992);
        b.push_text(b"MFGR#121");
        assert_eq!(answer(&a, 1), answer(&b, 1));
        assert_eq!(
            answer(&a, 1).values.unwrap()[0],
            vec![
                Some("446031203850".into()),
                Some("1992".into()),
                Some("MFGR#121".into())
            ]
        );
    }

    #[test]
    fn order_does_not_matter_but_every_value_does() {
        let rows = |r: &[(i64, &str)]| {
            let mut v = Values::default();
            for (n, t) in r {
                v.push_int(*n);
                v.push_text(t.as_bytes());
            }
            answer(&v, r.len() as u64)
        };
        let ab = rows(&[(1, "a"), (2, "b")]);
        let ba = rows(&[(2, "b"), (1, "a")]);
        assert_eq!(ab.hash, ba.hash);
        assert_ne!(ab.hash, rows(&[(1, "a"), (3, "b")]).hash);
        assert_ne!(ab.hash, rows(&[(1, "a")]).hash);
        let mut t = Values::default();
        t.push_text(b"1");
        t.push_text(b"a");
        let mut n = Values::default();
        n.push_int(1);
        n.push_text(b"a");
        assert_ne!(answer(&t, 1).hash, answer(&n, 1).hash, "text 1 is not the number 1");
    }

    #[test]
    fn large_answers_keep_count_and_hash_only() {
        let mut v = Values::default();
        for i in 0..=MAX_ROWS_KEPT as i64 {
            v.push_int(i);
        }
        let a = answer(&v, MAX_ROWS_KEPT + 1);
        assert_eq!(a.rows, MAX_ROWS_KEPT + 1);
        assert!(a.values.is_none());
        assert_eq!(answer(&Values::default(), 0).rows, 0);
    }
}
