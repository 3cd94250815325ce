//! A query's answer in a form every engine agrees on: SSB's ([`crate::workload::ssb::answer`])
//! after two evenings-out that TPC-H's schema needs.
//!
//! - Text loses its trailing spaces: PostgreSQL pads a `CHAR(25)` to 25 characters when it
//!   returns it, the other engines do not (the specification allows either, §1.3.1).
//! - A number that is not an integer is rounded to two decimals, the precision of the
//!   specification's answer set (§2.1.3.3): SQLite sums prices as doubles (its `DECIMAL` is a
//!   REAL), the others as exact decimals, and their last digits differ.

use crate::engines::values::{CellRef, Values};
use crate::model::record::Answer;

/// `x` to two decimals.
fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The answer of a query that produced `rows` rows into `values`.
pub fn answer(values: &Values, rows: u64) -> Answer {
    let mut even = Values::with_capacity(values.len(), 0);
    for i in 0..values.len() {
        match values.get(i) {
            CellRef::Null => even.push_null(),
            CellRef::Int(n) => even.push_int(n),
            CellRef::Real(x) | CellRef::Decimal { value: x, .. } => even.push_real(cents(x)),
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
    }
}
