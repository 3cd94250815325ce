//! `sqlite-benchmark`: the "SQLite Benchmark" Android app, 7 tests.
//!
//! Source of the tests and their titles: Linaro, "SQLite Optimization" (2014), section 4.2,
//! "SQLite Benchmark": insert 200 statements, insert 15000 in a transaction, update 500, update
//! 15000 in a transaction, select 15000, delete 200, delete 15000 in a transaction. The app's
//! statements are not public; they are derived from SQLite's speed comparison (docs/
//! workloads.md): the comparison's table t1 with an index on a, INSERTs as its tests 1 and 2,
//! single-row UPDATEs as its test 8, single-row aggregate SELECTs in the form of its test 6 and
//! single-row DELETEs as its test 12, each addressed by the indexed column a.

use super::speedtest::{create_table, Gen, T};
use super::suite::{self, End, Scale, Script, ScriptSuite};
use super::WorkloadKind;
use crate::engines::{Connection, EngineError};

/// The tests, numbered and titled as in Linaro's table.
pub const OPS: &[&str] = &[
    "01 Insert 200 Statements",
    "02 Insert 15000 Statements in Transaction",
    "03 Update 500 Statements",
    "04 Update 15000 Statements in Transaction",
    "05 Select 15000 Statements",
    "06 Delete 200 Statements",
    "07 Delete 15000 Statements in Transaction",
];

/// The trial's script.
pub fn script(scale: Scale, seed: u64) -> Script {
    let mut g = Gen::new(scale, seed);
    let range = g.n(100_000);
    let (small, big) = (g.n(200) as i64, g.n(15_000) as i64);
    let updates = g.n(500) as i64;
    g.insert_rows(T::T1, 1, small as u64, range);
    g.end(0, false);
    g.insert_rows(T::T1, small + 1, big as u64, range);
    g.end(1, true);
    g.update_b(T::T1, 1..=updates, range);
    g.end(2, false);
    g.update_b(T::T1, 1..=big, range);
    g.end(3, true);
    g.select_a_eq(T::T1, 1..=big);
    g.end(4, false);
    g.delete_a_eq(T::T1, 1..=small);
    g.end(5, false);
    g.delete_a_eq(T::T1, small + 1..=small + big);
    g.end(6, true);
    g.finish()
}

/// The template holds t1 with its index on a, empty.
fn schema(conn: &mut dyn Connection) -> Result<(), EngineError> {
    conn.execute_batch(&create_table(T::T1))?;
    conn.execute_batch("CREATE INDEX i1a ON t1(a)")
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "sqlite-benchmark",
    about: "the SQLite Benchmark app (Android): 200/15000 inserts, 500/15000 updates, 15000 selects, 200/15000 deletes",
    source: "SQLite Benchmark (Android app), tests as listed by Linaro's SQLite Optimization page (2014); statements derived from SQLite's speed comparison",
    operations: OPS,
    ..suite::SUITE
};

/// The workload.
pub static SQLITE_BENCHMARK: ScriptSuite = ScriptSuite {
    kind: &KIND,
    script,
    schema,
    end: End::Empty("t1"),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::suite::Step;

    #[test]
    fn seven_tests_every_statement_one_row() {
        let s = script(Scale::ONE, 1);
        let got: Vec<(u64, bool)> = s.tests.iter().map(|t| (t.statements(), t.tx)).collect();
        assert_eq!(
            got,
            vec![
                (200, false),
                (15_000, true),
                (500, false),
                (15_000, true),
                (15_000, false),
                (200, false),
                (15_000, true),
            ]
        );
        for t in &s.tests {
            for step in &t.steps {
                if let Step::Run { rows, .. } = step {
                    assert!(rows.iter().all(|a| a.expect == 1), "test {}", t.op + 1);
                }
            }
        }
    }
}
