//! The scale factor and the row counts it gives, exactly as dbgen derives them.
//!
//! dbgen treats factors below 1 and from 1 up differently: below 1 it multiplies each table's
//! base count by the factor (truncating, at least 1 row — the date table shrinks too), and from 1
//! up it truncates the factor to a whole number. Part grows with log₂ of the factor, and
//! lineorder's part keys with its natural logarithm (a dbgen quirk kept for identical bytes).
//! A factor of 1 or more with a fraction is refused rather than silently truncated. The date
//! table written may be the specification's whole seven years instead ([`Dates`]).

use crate::dates::{Dates, WHOLE_DATE_ROWS};
use std::fmt;
use std::str::FromStr;

/// Rows of each table at scale factor 1 (lineorder: orders; each has 1 to 7 lines).
const PART_BASE: i64 = 200_000;
const SUPPLIER_BASE: i64 = 2_000;
const CUSTOMER_BASE: i64 = 30_000;
const DATE_BASE: i64 = 2_557;
const ORDER_BASE: i64 = 1_500_000;

/// The largest factor accepted (dbgen itself supports up to 1000 and warns above).
pub const MAX_SCALE: f64 = 100_000.0;

/// A validated scale factor.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Scale(f64);

/// Why a scale factor was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScaleError {
    #[error("scale factor `{0}` is not a number; give a positive number such as 1 or 0.01")]
    NotANumber(String),
    #[error("scale factor {0} is not finite; give a positive number such as 1 or 0.01")]
    NotFinite(f64),
    #[error("scale factor {0} is not positive; give a positive number such as 1 or 0.01")]
    NotPositive(f64),
    #[error(
        "scale factor {0} has a fraction above 1, which dbgen would truncate to {trunc}; give a whole number from 1 up, or a fraction below 1",
        trunc = .0.trunc()
    )]
    FractionAboveOne(f64),
    #[error("scale factor {0} is above the largest supported, {MAX_SCALE}")]
    TooLarge(f64),
}

impl Scale {
    /// Checks `factor`: finite, positive, at most [`MAX_SCALE`], and whole when at least 1.
    pub fn new(factor: f64) -> Result<Scale, ScaleError> {
        if !factor.is_finite() {
            Err(ScaleError::NotFinite(factor))
        } else if factor <= 0.0 {
            Err(ScaleError::NotPositive(factor))
        } else if factor > MAX_SCALE {
            Err(ScaleError::TooLarge(factor))
        } else if factor >= 1.0 && factor.fract() != 0.0 {
            Err(ScaleError::FractionAboveOne(factor))
        } else {
            Ok(Scale(factor))
        }
    }

    /// The factor as given.
    pub fn factor(self) -> f64 {
        self.0
    }

    /// The cardinalities dbgen derives from this factor, with the date table `dates` asks for.
    pub(crate) fn plan(self, dates: Dates) -> Plan {
        let mut plan = Plan::new(self.0);
        plan.date_table_rows = match dates {
            Dates::Whole => WHOLE_DATE_ROWS,
            Dates::Dbgen => plan.date_rows,
        };
        plan
    }
}

impl FromStr for Scale {
    type Err = ScaleError;
    fn from_str(s: &str) -> Result<Scale, ScaleError> {
        let f: f64 = s.trim().parse().map_err(|_| ScaleError::NotANumber(s.to_string()))?;
        Scale::new(f)
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Everything about a data set that depends on the scale factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub part_rows: u64,
    pub supplier_rows: u64,
    pub customer_rows: u64,
    /// dbgen's date rows: they advance lineorder's order streams, whatever table is written.
    pub date_rows: u64,
    /// The rows of the date table written ([`Dates`]).
    pub date_table_rows: u64,
    pub orders: u64,
    /// Lineorder's part keys are drawn from 1 ..= this.
    pub part_key_max: i64,
    /// Lineorder's supplier keys are drawn from 1 ..= this.
    pub supplier_key_max: i64,
    /// Lineorder's customer keys are drawn from 1 ..= this.
    pub customer_key_max: i64,
}

impl Plan {
    fn new(factor: f64) -> Plan {
        // dbgen: below 1, `base = (long)(base * factor)` at least 1, and `scale = 1`.
        let fraction = factor < 1.0;
        let whole = if fraction { 1 } else { factor as i64 };
        let scaled = |base: i64| {
            if fraction {
                ((base as f64 * factor) as i64).max(1)
            } else {
                base
            }
        };
        let (part, supp, cust, date, orders) = (
            scaled(PART_BASE),
            scaled(SUPPLIER_BASE),
            scaled(CUSTOMER_BASE),
            scaled(DATE_BASE),
            scaled(ORDER_BASE),
        );
        let w = whole as f64;
        let part_rows = (part as f64 * (1.0 + w.ln() / 2f64.ln()).floor()) as i64;
        let part_key_max = (part as f64 * (w.ln().floor() + 1.0)) as i64;
        Plan {
            part_rows: part_rows as u64,
            supplier_rows: (supp * whole) as u64,
            customer_rows: (cust * whole) as u64,
            date_rows: date as u64,
            date_table_rows: date as u64,
            orders: (orders * whole) as u64,
            part_key_max,
            supplier_key_max: supp * whole,
            customer_key_max: cust * whole,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_dbgen_would_mangle() {
        assert!(matches!(Scale::new(0.0), Err(ScaleError::NotPositive(_))));
        assert!(matches!(Scale::new(-1.0), Err(ScaleError::NotPositive(_))));
        assert!(matches!(Scale::new(f64::NAN), Err(ScaleError::NotFinite(_))));
        assert!(matches!(Scale::new(f64::INFINITY), Err(ScaleError::NotFinite(_))));
        assert!(matches!(Scale::new(1.5), Err(ScaleError::FractionAboveOne(_))));
        assert!(matches!("abc".parse::<Scale>(), Err(ScaleError::NotANumber(_))));
        assert_eq!(
            Scale::new(2.5).unwrap_err().to_string(),
            "scale factor 2.5 has a fraction above 1, which dbgen would truncate to 2; give a whole number from 1 up, or a fraction below 1"
        );
        assert_eq!("0.01".parse::<Scale>().unwrap().factor(), 0.01);
    }

    #[test]
    fn cardinalities_follow_dbgen() {
        let p = Scale::new(1.0).unwrap().plan(Dates::Dbgen);
        assert_eq!(
            (p.part_rows, p.supplier_rows, p.customer_rows, p.date_rows, p.orders),
            (200_000, 2_000, 30_000, 2_557, 1_500_000)
        );
        assert_eq!(p.part_key_max, 200_000);
        // Fractions scale every base, the date table's too.
        let p = Scale::new(0.01).unwrap().plan(Dates::Dbgen);
        assert_eq!(
            (p.part_rows, p.supplier_rows, p.customer_rows, p.date_rows, p.orders),
            (2_000, 20, 300, 25, 15_000)
        );
        assert_eq!(p.date_table_rows, 25);
        // The whole date table is written, but dbgen's 25 rows still position the order streams.
        let p = Scale::new(0.01).unwrap().plan(Dates::Whole);
        assert_eq!((p.date_rows, p.date_table_rows), (25, 2_557));
        // Tiny fractions keep at least one row.
        let p = Scale::new(0.0001).unwrap().plan(Dates::Dbgen);
        assert_eq!((p.supplier_rows, p.date_rows), (1, 1));
        // Part grows with floor(1 + log2 SF); its keys in lineorder with floor(ln SF) + 1.
        let p = Scale::new(10.0).unwrap().plan(Dates::Whole);
        assert_eq!((p.date_rows, p.date_table_rows), (2_557, 2_557));
        assert_eq!((p.part_rows, p.part_key_max), (800_000, 600_000));
        assert_eq!(
            (p.supplier_rows, p.customer_rows, p.orders),
            (20_000, 300_000, 15_000_000)
        );
    }
}
