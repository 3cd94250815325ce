//! litebench's answers against the specification's answer set (TPC-H 3.0.1 §2.1.3.5: the
//! queries' output at scale factor 1 with the validation values, as dbgen's `answers/q*.out`
//! files carry it: a header line, then rows of `|`-separated fields padded with spaces).
//!
//! Each column is compared by its kind, with §2.1.3.5's tolerances: text, keys, exact numbers
//! and counts exactly; a sum of money within 100; an average or a ratio within 1% once rounded
//! to the hundredth. The files themselves are TPC's and are not part of litebench:
//! `benches/tpch-answers.sh` takes their directory.

/// What a column of an answer holds, and so how it is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text: equal once trailing spaces are gone.
    Str,
    /// An exact number (a key, a year, a balance): equal as numbers, to the hundredth.
    Num,
    /// A count: equal.
    Cnt,
    /// A sum of money: within 100 of the specification's.
    Sum,
    /// An average or a ratio: rounded to the hundredth, within 1% of the specification's.
    Ratio,
}

/// Each query's columns, in order (Q1 first), from the queries' select lists in §2.4.
pub const COLUMNS: [&str; 22] = [
    "s s S S S S R R R C",
    "N s s N s s s s",
    "N S s N",
    "s C",
    "s S",
    "S",
    "s s N S",
    "N R",
    "s N S",
    "N s S N s s s s",
    "N S",
    "s C C",
    "C C",
    "R",
    "N s s s S",
    "s s N C",
    "R",
    "s N N s N S",
    "S",
    "s s",
    "s C",
    "s C S",
];

/// The kinds of query `op`'s (0-based) columns.
pub fn kinds(op: usize) -> Vec<Kind> {
    COLUMNS[op]
        .split(' ')
        .map(|k| match k {
            "s" => Kind::Str,
            "N" => Kind::Num,
            "C" => Kind::Cnt,
            "S" => Kind::Sum,
            _ => Kind::Ratio,
        })
        .collect()
}

/// Where litebench's answer leaves the specification's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Difference {
    #[error("{got} rows where the specification has {expected}")]
    Rows { got: usize, expected: usize },
    #[error("row {row} has {got} columns where the specification has {expected}")]
    Columns { row: usize, got: usize, expected: usize },
    #[error("row {row}, column {column}: {got} where the specification has {expected} ({rule})")]
    Value {
        row: usize,
        column: usize,
        got: String,
        expected: String,
        rule: &'static str,
    },
}

/// The rows of an answer file: every line after the header, split at `|` and trimmed.
pub fn parse(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('|').map(|f| f.trim().to_string()).collect())
        .collect()
}

fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Whether `got` passes for `expected` as a column of `kind`; `Err` the rule it broke.
fn matches(kind: Kind, got: &str, expected: &str) -> Result<(), &'static str> {
    let number = |s: &str| s.trim().parse::<f64>().ok();
    let (g, e) = (number(got), number(expected));
    match kind {
        // The files' fields are padded, so a value's own leading spaces (a comment's) are lost.
        Kind::Str if got.trim() == expected => Ok(()),
        Kind::Str => Err("text must be equal"),
        Kind::Cnt => match (g, e) {
            (Some(g), Some(e)) if g == e => Ok(()),
            _ => Err("a count must be equal"),
        },
        Kind::Num => match (g, e) {
            (Some(g), Some(e)) if (cents(g) - e).abs() < 0.005 => Ok(()),
            _ => Err("an exact number must be equal"),
        },
        Kind::Sum => match (g, e) {
            (Some(g), Some(e)) if (g - e).abs() <= 100.0 => Ok(()),
            _ => Err("a sum of money must be within 100"),
        },
        Kind::Ratio => match (g, e) {
            (Some(g), Some(e)) if (cents(g) - e).abs() <= 0.01 * e.abs() + 1e-9 => Ok(()),
            _ => Err("an average or ratio must be within 1% once rounded to the hundredth"),
        },
    }
}

/// Compares litebench's answer to query `op` (its rows as text, in the engine's order) with
/// the specification's, row by row in order.
pub fn compare(op: usize, got: &[Vec<Option<String>>], expected: &[Vec<String>]) -> Result<(), Difference> {
    if got.len() != expected.len() {
        return Err(Difference::Rows {
            got: got.len(),
            expected: expected.len(),
        });
    }
    let kinds = kinds(op);
    for (row, (g, e)) in got.iter().zip(expected).enumerate() {
        if g.len() != e.len() || g.len() != kinds.len() {
            return Err(Difference::Columns {
                row: row + 1,
                got: g.len(),
                expected: e.len(),
            });
        }
        for (column, ((g, e), kind)) in g.iter().zip(e).zip(&kinds).enumerate() {
            let g = g.as_deref().unwrap_or("NULL");
            if let Err(rule) = matches(*kind, g, e) {
                return Err(Difference::Value {
                    row: row + 1,
                    column: column + 1,
                    got: g.to_string(),
                    expected: e.clone(),
                    rule,
                });
            }
        }
    }
    Ok(())
}

/// The hash litebench stores for an engine's answer ([`super::answer::answer`]), computed over
/// the specification's rows of query `op`: each field as an engine would give it, text as text,
/// every other kind as a number (an integer where the file writes one), rounded to the cent
/// alike. An answer of more than [`crate::workload::ssb::answer::MAX_ROWS_KEPT`] rows is stored
/// as this hash only (Q11 and Q16 at scale factor 1), so it is compared by it: exactly, with
/// none of the tolerances above, which the two queries' values allow (keys, text, counts, and
/// Q11's sums of whole cents).
pub fn hash_of(op: usize, expected: &[Vec<String>]) -> String {
    let kinds = kinds(op);
    let mut values = crate::engines::values::Values::default();
    for row in expected {
        for (field, kind) in row.iter().zip(kinds.iter().chain(std::iter::repeat(&Kind::Str))) {
            match (kind, field.parse::<i64>(), field.parse::<f64>()) {
                (Kind::Str, _, _) => values.push_text(field.as_bytes()),
                (_, Ok(n), _) => values.push_int(n),
                (_, _, Ok(x)) => values.push_real(x),
                _ => values.push_text(field.as_bytes()),
            }
        }
    }
    super::answer::answer(&values, expected.len() as u64).hash
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Q1's shape by hand: two rows as an answer file writes them.
    const Q1: &str =
        "l|l|sum_qty |sum_base_price |sum_disc_price |sum_charge |avg_qty |avg_price |avg_disc |count_order
A|F|37734107.00|56586554400.73|53758257134.87|55909065222.83|25.52|38273.13|0.05|               1478493
N|F|991417.00|1487504710.38|1413082168.05|1469649223.19|25.52|38284.47|0.05|                 38854
";

    fn row(cells: &[&str]) -> Vec<Option<String>> {
        cells.iter().map(|c| Some(c.to_string())).collect()
    }

    #[test]
    fn every_query_has_its_columns() {
        let widths: Vec<usize> = (0..22).map(|op| kinds(op).len()).collect();
        assert_eq!(
            widths,
            [10, 8, 4, 2, 2, 1, 4, 2, 3, 8, 2, 3, 2, 1, 5, 4, 1, 6, 1, 2, 2, 3]
        );
    }

    #[test]
    fn tolerances_are_the_specifications() {
        let expected = parse(Q1);
        assert_eq!(expected.len(), 2);
        assert_eq!(expected[0][9], "1478493");
        let good = [
            row(&[
                "A",
                "F",
                "37734107",
                "56586554450.01",
                "53758257134.87",
                "55909065222.83",
                "25.5220",
                "38273.129",
                "0.05",
                "1478493",
            ]),
            row(&[
                "N",
                "F",
                "991417",
                "1487504710.38",
                "1413082168.05",
                "1469649223.19",
                "25.52",
                "38284.47",
                "0.0499",
                "38854",
            ]),
        ];
        assert_eq!(compare(0, &good, &expected), Ok(()));
        // A sum 100.01 off, an average 1% off, a count off by one, a flag that differs.
        let mut sum = good.clone();
        sum[0][3] = Some("56586554500.74".into());
        assert!(matches!(
            compare(0, &sum, &expected),
            Err(Difference::Value { row: 1, column: 4, .. })
        ));
        let mut avg = good.clone();
        avg[1][6] = Some("25.78".into());
        let e = compare(0, &avg, &expected).unwrap_err();
        assert_eq!(
            e.to_string(),
            "row 2, column 7: 25.78 where the specification has 25.52 (an average or ratio must be within 1% once rounded to the hundredth)"
        );
        let mut count = good.clone();
        count[1][9] = Some("38855".into());
        assert!(compare(0, &count, &expected).is_err());
        let mut comment = good.clone();
        comment[0][0] = Some(" A".into());
        assert_eq!(compare(0, &comment, &expected), Ok(()), "padding is lost in the file");
        let mut flag = good.clone();
        flag[0][1] = Some("O".into());
        assert!(compare(0, &flag, &expected).is_err());
        assert_eq!(
            compare(0, &good[..1], &expected),
            Err(Difference::Rows { got: 1, expected: 2 })
        );
    }

    /// Q11's shape with 1,001 rows, more than litebench keeps: the engine's answer (keys as
    /// integers, sums as decimals) is stored as a hash only, and the specification's file of the
    /// same rows, padded as dbgen writes it, hashes to it; one cent off anywhere does not.
    #[test]
    fn an_answer_kept_only_as_a_hash_compares_with_the_files_rows() {
        use crate::engines::values::Values;
        let rows = 1001;
        let value = |i: i64| 17_538_456.86 - i as f64 * 1000.07;
        let mut engine = Values::default();
        for i in 0..rows {
            engine.push_int(129_760 + i);
            engine.push_decimal(value(i), 2);
        }
        let stored = crate::workload::tpch::answer::answer(&engine, rows as u64);
        assert!(stored.values.is_none(), "kept only as a hash");
        let mut file = String::from("ps_partkey|value\n");
        for i in 0..rows {
            file += &format!("{:>10}|{:>20.2}\n", 129_760 + i, value(i));
        }
        let expected = parse(&file);
        assert_eq!(expected.len(), rows as usize);
        assert_eq!(hash_of(10, &expected), stored.hash);
        let mut off = expected.clone();
        off[500][1] = format!("{:.2}", value(500) + 0.01);
        assert_ne!(hash_of(10, &off), stored.hash);
        assert_ne!(hash_of(10, &expected[1..]), stored.hash, "a row missing");
        // Q16's text padded in the file as PostgreSQL pads it, the engine's not.
        let mut q16 = Values::default();
        for i in 0..rows {
            q16.push_text(b"Brand#41");
            q16.push_text(format!("MEDIUM BRUSHED TIN {i}").as_bytes());
            q16.push_int(3);
            q16.push_int(28);
        }
        let stored = crate::workload::tpch::answer::answer(&q16, rows as u64);
        let mut file = String::from("p_brand|p_type|p_size|supplier_cnt\n");
        for i in 0..rows {
            file += &format!("Brand#41  |MEDIUM BRUSHED TIN {i:<10}|          3|          28\n");
        }
        assert_eq!(hash_of(15, &parse(&file)), stored.hash);
    }
}
