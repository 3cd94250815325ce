//! The 22 TPC-H queries (TPC-H 3.0.1 §2.4) with their substitution parameters, per dialect.
//!
//! Only Q1 and Q6 are written here so far; the others return no statements and the trial
//! skips them. Where SQL differs by engine: SQLite has no `DATE` literal nor interval
//! arithmetic (dates are `YYYY-MM-DD` text, compared as text; `date(d, '-90 days')` computes
//! one), and Q6's discount bounds are written as the two literals they come to, since on
//! SQLite `0.06 + 0.01` is a double just below the stored 0.07 and would drop that discount.

use crate::engines::Dialect;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Operation names, in run order.
pub const NAMES: [&str; 22] = [
    "Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q12", "Q13", "Q14", "Q15", "Q16", "Q17",
    "Q18", "Q19", "Q20", "Q21", "Q22",
];

/// The substitution parameters of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substitution {
    /// Q1's DELTA: days before 1998-12-01, 60 to 120.
    q1_delta_days: u32,
    /// Q6's DATE: January 1st of this year, 1993 to 1997.
    q6_year: u32,
    /// Q6's DISCOUNT in hundredths, 2 to 9.
    q6_discount_cents: u32,
    /// Q6's QUANTITY, 24 or 25.
    q6_quantity: u32,
}

impl Substitution {
    /// §2.4's validation values (each query's "Query Validation" paragraph).
    pub fn validation() -> Substitution {
        Substitution {
            q1_delta_days: 90,
            q6_year: 1994,
            q6_discount_cents: 6,
            q6_quantity: 24,
        }
    }

    /// Values drawn uniformly from each parameter's range (§2.4), from `seed`.
    pub fn draw(seed: u64, _scale: f64) -> Substitution {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Substitution {
            q1_delta_days: rng.random_range(60..=120),
            q6_year: rng.random_range(1993..=1997),
            q6_discount_cents: rng.random_range(2..=9),
            q6_quantity: rng.random_range(24..=25),
        }
    }
}

/// `'YYYY-MM-DD'` as a date literal of `dialect`.
fn date(dialect: Dialect, ymd: &str) -> String {
    match dialect {
        Dialect::Sqlite => format!("'{ymd}'"),
        _ => format!("DATE '{ymd}'"),
    }
}

/// `d` moved by `n` `unit`s (`day`, `month`, `year`; `n` may be negative) on `dialect`.
fn shift(dialect: Dialect, d: &str, n: i64, unit: &str) -> String {
    match dialect {
        Dialect::Sqlite => format!("date('{d}', '{n:+} {unit}s')"),
        _ if n < 0 => format!("DATE '{d}' - INTERVAL '{}' {unit}", -n),
        _ => format!("DATE '{d}' + INTERVAL '{n}' {unit}"),
    }
}

fn q1(s: &Substitution, dialect: Dialect) -> String {
    format!(
        "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, \
         sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, \
         sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, \
         avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order \
         FROM lineitem WHERE l_shipdate <= {} \
         GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
        shift(dialect, "1998-12-01", -i64::from(s.q1_delta_days), "day")
    )
}

fn q6(s: &Substitution, dialect: Dialect) -> String {
    let from = format!("{}-01-01", s.q6_year);
    let cents = |c: u32| format!("0.{c:02}");
    format!(
        "SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem \
         WHERE l_shipdate >= {} AND l_shipdate < {} \
         AND l_discount BETWEEN {} AND {} AND l_quantity < {}",
        date(dialect, &from),
        shift(dialect, &from, 1, "year"),
        cents(s.q6_discount_cents - 1),
        cents(s.q6_discount_cents + 1),
        s.q6_quantity
    )
}

/// The statements of query `op` (0-based) on `dialect`; the last one returns the answer
/// (Q15 creates a view, selects, drops it). Empty for a query not written yet.
pub fn statements(op: usize, s: &Substitution, dialect: Dialect) -> Vec<String> {
    match op {
        0 => vec![q1(s, dialect)],
        5 => vec![q6(s, dialect)],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_values_are_written_per_dialect() {
        let v = Substitution::validation();
        let sqlite = &statements(0, &v, Dialect::Sqlite)[0];
        assert!(
            sqlite.contains("l_shipdate <= date('1998-12-01', '-90 days')"),
            "{sqlite}"
        );
        let pg = &statements(0, &v, Dialect::Postgres)[0];
        assert!(
            pg.contains("l_shipdate <= DATE '1998-12-01' - INTERVAL '90' day"),
            "{pg}"
        );
        let q6 = &statements(5, &v, Dialect::Duckdb)[0];
        assert!(
            q6.contains("l_shipdate < DATE '1994-01-01' + INTERVAL '1' year")
                && q6.contains("BETWEEN 0.05 AND 0.07")
                && q6.contains("l_quantity < 24"),
            "{q6}"
        );
    }

    #[test]
    fn drawn_values_stay_in_range_and_follow_the_seed() {
        for seed in 0..200 {
            let s = Substitution::draw(seed, 1.0);
            assert!((60..=120).contains(&s.q1_delta_days));
            assert!((1993..=1997).contains(&s.q6_year));
            assert!((2..=9).contains(&s.q6_discount_cents));
            assert!((24..=25).contains(&s.q6_quantity));
            assert_eq!(s, Substitution::draw(seed, 1.0));
        }
        assert_ne!(Substitution::draw(1, 1.0), Substitution::draw(2, 1.0));
    }
}
