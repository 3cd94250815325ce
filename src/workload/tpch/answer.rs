//! A query's answer in a form every engine agrees on: SSB's ([`crate::workload::ssb::answer`]),
//! with text's trailing spaces taken off first: PostgreSQL pads a `CHAR(25)` to 25 characters
//! when it returns it, the other engines do not (the specification allows either, §1.3.1).
//!
//! Numbers need nothing more: SQLite sums prices as doubles (its `DECIMAL` is a REAL), the
//! others as exact decimals, and their last digits differ, but the canonical text of a number
//! ([`crate::workload::result_hash::write_number`]) keeps nine significant digits, far coarser
//! than that difference and finer than the specification's answer precision (§2.1.3.3).

use crate::engines::values::{CellRef, Values};
use crate::model::record::Answer;

/// The answer of a query that produced `rows` rows into `values`.
pub fn answer(values: &Values, rows: u64) -> Answer {
    let mut even = Values::with_capacity(values.len(), 0);
    for i in 0..values.len() {
        match values.get(i) {
            CellRef::Null => even.push_null(),
            CellRef::Int(n) => even.push_int(n),
            CellRef::Real(x) => even.push_real(x),
            CellRef::Decimal { value, scale } => even.push_decimal(value, scale),
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
    fn padded_text_and_a_sums_last_digits_compare_equal_other_values_do_not() {
        let mut pg = Values::default();
        pg.push_text(b"FRANCE                   ");
        pg.push_decimal(56_586_554_400.73, 2);
        pg.push_decimal(0.05, 2);
        let mut sqlite = Values::default();
        sqlite.push_text(b"FRANCE");
        sqlite.push_real(56_586_554_400.730_06);
        sqlite.push_real(0.050_000_000_000_000_1);
        assert_eq!(answer(&pg, 1), answer(&sqlite, 1));
        let mut other = Values::default();
        other.push_text(b"FRANCE");
        other.push_real(56_586_554_400.73);
        other.push_real(0.06);
        assert_ne!(answer(&pg, 1).hash, answer(&other, 1).hash);
    }
}
