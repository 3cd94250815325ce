//! TPC-H's 22 queries (TPC-H 3.0.1 §2.4) with their substitution parameters, written once and
//! rewritten per dialect where the engines' SQL differs:
//!
//! - [`substitution`]: the parameters, drawn from the run's seed or the validation values;
//! - [`rewrite`]: dates, intervals, `extract` and `substring` per dialect;
//! - [`text`]: the queries themselves.

pub mod rewrite;
pub mod substitution;
pub mod text;

use crate::engines::dialect::Dialect;
use rewrite::Rewrite;
pub use substitution::Substitution;

/// Operation names, in run order (the power test's order is the specification's numbering
/// here, not §5.3.5.4's permutation: one stream, every query once).
pub const NAMES: [&str; 22] = [
    "Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q12", "Q13", "Q14", "Q15", "Q16", "Q17",
    "Q18", "Q19", "Q20", "Q21", "Q22",
];

/// Query `op` (0-based) on `dialect`, one statement (Q15 is Appendix B's variant A, a `WITH`
/// expression, not a view); `None` past the 22.
pub fn sql(op: usize, s: &Substitution, dialect: Dialect) -> Option<String> {
    let d = Rewrite(dialect);
    let one = match op {
        0 => text::q1(s, d),
        1 => text::q2(s, d),
        2 => text::q3(s, d),
        3 => text::q4(s, d),
        4 => text::q5(s, d),
        5 => text::q6(s, d),
        6 => text::q7(s, d),
        7 => text::q8(s, d),
        8 => text::q9(s, d),
        9 => text::q10(s, d),
        10 => text::q11(s, d),
        11 => text::q12(s, d),
        12 => text::q13(s, d),
        13 => text::q14(s, d),
        14 => text::q15(s, d),
        15 => text::q16(s, d),
        16 => text::q17(s, d),
        17 => text::q18(s, d),
        18 => text::q19(s, d),
        19 => text::q20(s, d),
        20 => text::q21(s, d),
        21 => text::q22(s, d),
        _ => return None,
    };
    Some(one)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_on_every_dialect_has_its_parameters_in_place() {
        let v = Substitution::validation();
        for d in Dialect::ALL {
            for (op, name) in NAMES.iter().enumerate() {
                let sql = sql(op, &v, d).expect(name);
                for (param, value) in v.values(op) {
                    // Q6's discount and Q19's quantities are written as numbers.
                    let value = value.trim_start_matches('0');
                    if d == Dialect::Sqlite && param == "DISCOUNT" {
                        assert!(sql.contains("between 0.05 and 0.07"), "{sql}");
                        continue;
                    }
                    assert!(sql.contains(value), "{name} on {d:?} lacks {param}={value}: {sql}");
                }
                assert!(!sql.contains(":1") && !sql.contains("  "), "{sql}");
                if d == Dialect::Sqlite {
                    for ansi in ["interval", "extract", "date '", "substring"] {
                        assert!(!sql.contains(ansi), "{name} on SQLite has {ansi}: {sql}");
                    }
                }
            }
        }
        assert!(sql(22, &v, Dialect::Sqlite).is_none());
    }

    /// Q15 is Appendix B's variant A on every engine: one statement, no view to create or drop.
    #[test]
    fn q15_is_one_statement_with_a_common_table_expression() {
        for d in Dialect::ALL {
            let q15 = sql(14, &Substitution::validation(), d).unwrap();
            assert!(
                q15.starts_with("with revenue (supplier_no, total_revenue) as ("),
                "{q15}"
            );
            assert!(q15.contains("(select max(total_revenue) from revenue)"), "{q15}");
            assert!(!q15.contains("view"), "{q15}");
        }
    }

    #[test]
    fn q1_on_sqlite_and_postgres() {
        let v = Substitution::validation();
        let pg = sql(0, &v, Dialect::Postgres).unwrap();
        assert!(
            pg.contains("where l_shipdate <= date '1998-12-01' - interval '90' day group by"),
            "{pg}"
        );
        let lite = sql(0, &v, Dialect::Sqlite).unwrap();
        assert!(
            lite.contains("where l_shipdate <= date('1998-12-01', '-90 days') group by"),
            "{lite}"
        );
    }
}
