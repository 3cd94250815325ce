//! A query's answer in a form every engine agrees on: SSB's ([`crate::workload::ssb::answer`])
//! after two evenings-out that TPC-H's schema needs.
//!
//! - Text loses its trailing spaces: PostgreSQL pads a `CHAR(25)` to 25 characters when it
//!   returns it, the other engines do not (the specification allows either, §1.3.1).
//! - A number that is not an integer is rounded to two decimals, the precision of the
//!   specification's answer set (§2.1.3.3): SQLite sums prices as doubles (its `DECIMAL` is a
//!   REAL), the others as exact decimals, and their last digits differ; MariaDB keeps an
//!   average or a quotient to six or more decimals (`div_precision_increment`), where
//!   PostgreSQL keeps sixteen, so nine significant digits would still tell them apart.

use crate::engines::values::{CellRef, Values};
use crate::model::record::Answer;

/// `x` to two decimals, half away from zero, after rounding it to a millionth: a sum whose
/// exact value ends in a half cent (a price times a discount has four decimals, so one sum in a
/// hundred does) comes out of SQLite's doubles a hair above or below that half, and out of
/// another engine's decimal as a double just as near it; rounded straight to cents, the two
/// could land a cent apart. The millionth takes the hair away first, in integers.
fn cents(x: f64) -> f64 {
    if !x.is_finite() || x.abs() >= 9.0e12 {
        return (x * 100.0).round() / 100.0;
    }
    let micros = (x * 1e6).round() as i64;
    let half = if micros < 0 { -5_000 } else { 5_000 };
    ((micros + half) / 10_000) as f64 / 100.0
}

/// A number in cents as every engine's answer writes it: a whole number as an integer (SQLite's
/// `sum` of whole quantities is one, DuckDB's a `DECIMAL`), any other as its text with two
/// decimals, every digit kept (the result hash's numbers keep nine significant digits, and a
/// sum of money at SF 1 has thirteen, which the comparison with the specification's answer
/// set needs).
fn push_cents(out: &mut Values, c: f64) {
    if c.fract() == 0.0 && c.abs() < 9.0e15 {
        out.push_int(c as i64);
    } else {
        out.push_text(format!("{c:.2}").as_bytes());
    }
}

/// The answer of a query that produced `rows` rows into `values`.
pub fn answer(values: &Values, rows: u64) -> Answer {
    let mut even = Values::with_capacity(values.len(), 0);
    for i in 0..values.len() {
        match values.get(i) {
            CellRef::Null => even.push_null(),
            CellRef::Int(n) => even.push_int(n),
            CellRef::Real(x) | CellRef::Decimal { value: x, .. } => push_cents(&mut even, cents(x)),
            CellRef::Text(t) => even.push_text(t.trim_ascii_end()),
            CellRef::Blob(b) => even.push_blob(b),
        }
    }
    crate::workload::ssb::answer::answer(&even, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_text_and_a_sums_last_digits_compare_equal() {
        let mut pg = Values::default();
        pg.push_text(b"FRANCE                   ");
        pg.push_decimal(37_734_107.0, 2);
        pg.push_decimal(0.0499, 4);
        let mut sqlite = Values::default();
        sqlite.push_text(b"FRANCE");
        sqlite.push_real(37_734_107.000_000_01);
        sqlite.push_real(0.050_000_000_1);
        assert_eq!(answer(&pg, 1), answer(&sqlite, 1));
        let mut other = Values::default();
        other.push_text(b"FRANCE");
        other.push_real(37_734_107.01);
        other.push_real(0.05);
        assert_ne!(answer(&pg, 1).hash, answer(&other, 1).hash);
        // Q1's sum_base_price at SF 1: every cent kept, where nine digits would lose 302.26.
        let mut big = Values::default();
        big.push_decimal(111_701_729_697.74, 2);
        big.push_real(305.0);
        let kept = answer(&big, 1).values.unwrap();
        assert_eq!(
            kept[0],
            vec![Some("111701729697.74".to_string()), Some("305".to_string())]
        );
    }

    /// Q9's FRANCE 1998 at SF 0.01: exactly 135723.4050 on DuckDB, 135723.40500000003 from
    /// SQLite's doubles; either side of the half cent, both are 135723.41.
    #[test]
    fn a_half_cent_rounds_alike_from_either_side() {
        for x in [135_723.405, 135_723.405_000_000_03, 135_723.404_999_999_97] {
            assert_eq!(cents(x), 135_723.41, "{x}");
            assert_eq!(cents(-x), -135_723.41, "{x}");
        }
        assert_eq!(cents(0.044_999), 0.04);
        assert_eq!(cents(25.522_005_853_257_337), 25.52);
        assert_eq!(cents(2.0e13), 2.0e13);
    }
}
