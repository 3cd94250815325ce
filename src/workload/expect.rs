//! What a query must return, and when a returned value counts as that.
//!
//! Integers (counts) must be equal. An average is kept as the exact sum and count it is the
//! average of, and the engine's answer may differ from their quotient by a relative 1e-9 (a
//! double's rounding, whatever order the engine adds in) plus half a unit of the last decimal
//! the engine gave (MariaDB rounds the average of integers to `div_precision_increment`
//! decimals, 4 by default).

use crate::engines::values::CellRef;

/// One expected value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Null,
    Int(i64),
    /// `avg` of `count` (at least one) integers that add up to `sum`.
    Avg {
        sum: i64,
        count: i64,
    },
}

impl Want {
    /// The `avg` of `count` integers adding up to `sum`: NULL when there are none, as in SQL.
    pub fn avg(sum: i64, count: i64) -> Want {
        if count == 0 {
            Want::Null
        } else {
            Want::Avg { sum, count }
        }
    }

    /// Whether `got` is this value.
    pub fn matches(&self, got: CellRef<'_>) -> bool {
        match (*self, got) {
            (Want::Null, CellRef::Null) => true,
            (Want::Int(w), CellRef::Int(g)) => w == g,
            (Want::Int(w), CellRef::Real(g) | CellRef::Decimal { value: g, .. }) => g == w as f64,
            (Want::Avg { sum, count }, got) => {
                let want = sum as f64 / count as f64;
                let decimals = match got {
                    CellRef::Decimal { scale, .. } => 0.5 * 10f64.powi(-i32::from(scale)),
                    _ => 0.0,
                };
                got.number()
                    .is_some_and(|g| (g - want).abs() <= 1e-9 * want.abs().max(1.0) + decimals * (1.0 + 1e-9))
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for Want {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Want::Null => f.write_str("NULL"),
            Want::Int(i) => write!(f, "{i}"),
            Want::Avg { sum, count } => write!(f, "{}", sum as f64 / count as f64),
        }
    }
}

/// Expected values, for messages: `(3, 47.333333333333336)`.
pub fn describe(wants: &[Want]) -> String {
    let parts: Vec<String> = wants.iter().map(Want::to_string).collect();
    format!("({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_exactly_averages_within_the_engines_rounding() {
        assert!(Want::Int(3).matches(CellRef::Int(3)));
        assert!(!Want::Int(3).matches(CellRef::Int(4)));
        assert!(!Want::Int(3).matches(CellRef::Null));
        assert!(Want::Int(3).matches(CellRef::Decimal { value: 3.0, scale: 0 }));
        let avg = Want::avg(142, 3);
        assert!(avg.matches(CellRef::Real(142.0 / 3.0)));
        assert!(avg.matches(CellRef::Decimal {
            value: 47.333333333333336,
            scale: 16
        }));
        assert!(avg.matches(CellRef::Decimal {
            value: 47.3333,
            scale: 4
        }));
        assert!(!avg.matches(CellRef::Real(47.3333)), "a double is not rounded");
        assert!(!avg.matches(CellRef::Decimal { value: 47.33, scale: 4 }));
        assert!(!avg.matches(CellRef::Int(47)));
        assert!(!avg.matches(CellRef::Null));
        assert_eq!(Want::avg(0, 0), Want::Null);
        assert!(Want::avg(0, 0).matches(CellRef::Null));
        assert_eq!(describe(&[Want::Int(3), Want::avg(3, 2), Want::Null]), "(3, 1.5, NULL)");
    }
}
