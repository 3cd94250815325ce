//! `acreve`: the ACREVE SQLite benchmark (Android), 20 tests with joins and subqueries.
//!
//! Source of the tests and their titles: Linaro, "SQLite Optimization" (2014), section 4.2,
//! "ACREVE Benchmark". The app's statements are not public. Fifteen titles are tests of SQLite's
//! speed comparison and use its statements; "25000 INSERTs into an indexed table" comes from the
//! later comparison (table t3 with an index on c, as in `rlbench`); the three INNER JOINs and
//! the subquery test have no counterpart and are derived from the comparison's tables, indexes
//! and query form (`SELECT count(*), avg(b) ...`). docs/workloads.md gives each derivation.

use super::rlbench::create_schema_with_t3;
use super::speedtest::{Gen, On, T};
use super::suite::{self, End, Scale, Script, ScriptSuite};
use super::WorkloadKind;

/// The tests, numbered and titled as in Linaro's table ("wih" in test 13 corrected).
pub const OPS: &[&str] = &[
    "01 1000 INSERTs",
    "02 25000 INSERTs in a transaction",
    "03 25000 INSERTs into an indexed table",
    "04 100 SELECTs without an index",
    "05 100 SELECTs on a string comparison",
    "06 INNER JOIN without an index",
    "07 Creating an index",
    "08 5000 SELECTs with an index",
    "09 1000 UPDATEs without an index",
    "10 25000 UPDATEs with an index",
    "11 25000 text UPDATEs with an index",
    "12 INSERTs from a SELECT",
    "13 INNER JOIN with index on one side",
    "14 INNER JOIN on text field with index on one side",
    "15 100 SELECTs with subqueries. Subquery is using index",
    "16 DELETE without an index",
    "17 DELETE with an index",
    "18 A big INSERT after a big DELETE",
    "19 A big DELETE followed by many small INSERTs",
    "20 DROP TABLE",
];

/// Test 6 and test 13: t1 joined to t2 on the integer column a (no index before test 7
/// creates i2a, an index on t2's side after it).
pub const JOIN_ON_A: &str = "SELECT count(*), avg(t2.b) FROM t1 INNER JOIN t2 ON t1.a=t2.a";
/// Test 14: t1 joined to t3 on the text column c (t3 has index i3 on c, t1 none).
pub const JOIN_ON_C: &str = "SELECT count(*), avg(t3.b) FROM t1 INNER JOIN t3 ON t1.c=t3.c";
/// Test 15: a range subquery on t2.b (index i2b) feeding an IN over t1.
pub const SUBQUERY: &str = "SELECT count(*), avg(b) FROM t1 WHERE b IN (SELECT b FROM t2 WHERE b>=? AND b<?)";

/// The trial's script.
pub fn script(scale: Scale, seed: u64) -> Script {
    let mut g = Gen::new(scale, seed);
    g.st_1000_inserts();
    g.end(0, false);
    g.st_25000_inserts(T::T2);
    g.end(1, true);
    g.st_25000_inserts(T::T3);
    g.end(2, true);
    g.st_selects_without_index();
    g.end(3, false);
    g.st_selects_like();
    g.end(4, false);
    g.select_join(T::T1, T::T2, On::A);
    g.end(5, false);
    g.st_create_index();
    g.end(6, false);
    g.st_selects_with_index();
    g.end(7, false);
    g.st_updates_without_index();
    g.end(8, true);
    g.st_updates_with_index();
    g.end(9, true);
    g.st_text_updates();
    g.end(10, true);
    g.st_inserts_from_select();
    g.end(11, true);
    g.select_join(T::T1, T::T2, On::A);
    g.end(12, false);
    g.select_join(T::T1, T::T3, On::C);
    g.end(13, false);
    let n = g.n(100) as i64;
    g.select_b_in_windows(T::T1, T::T2, (0..n).map(|i| (i * 100, (i + 10) * 100)));
    g.end(14, false);
    g.st_delete_without_index();
    g.end(15, false);
    g.st_delete_with_index();
    g.end(16, false);
    g.st_big_insert();
    g.end(17, false);
    g.st_big_delete_small_inserts();
    g.end(18, true);
    g.drop_tables(&[T::T1, T::T2, T::T3]);
    g.end(19, false);
    g.finish()
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "acreve",
    about: "ACREVE benchmark (Android): 20 tests, the speed comparison's plus three INNER JOINs and a subquery test",
    source: "ACREVE SQLite benchmark, tests as listed by Linaro's SQLite Optimization page (2014); statements from SQLite's speed comparison, joins and subqueries derived",
    operations: OPS,
    ..suite::SUITE
};

/// The workload.
pub static ACREVE: ScriptSuite = ScriptSuite {
    kind: &KIND,
    script,
    schema: create_schema_with_t3,
    end: End::Dropped(&["t1", "t2", "t3"]),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_tests() {
        let s = script(Scale::ONE, 1);
        assert_eq!(s.tests.len(), 20);
        let got: Vec<u64> = s.tests.iter().map(|t| t.statements()).collect();
        assert_eq!(
            got,
            vec![1000, 25_000, 25_000, 100, 100, 1, 2, 5000, 1000, 25_000, 25_000, 2, 1, 1, 100, 1, 1, 1, 3001, 3]
        );
        let tx: Vec<usize> = s.tests.iter().filter(|t| t.tx).map(|t| t.op + 1).collect();
        assert_eq!(tx, vec![2, 3, 9, 10, 11, 12, 19]);
        for q in [JOIN_ON_A, JOIN_ON_C, SUBQUERY] {
            assert!(s.sql.iter().any(|x| x == q), "{q} not in the script");
        }
    }
}
