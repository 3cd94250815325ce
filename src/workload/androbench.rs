//! `androbench`: AndroBench's SQLite test: 1000 INSERTs, 1000 UPDATEs, 1000 DELETEs.
//!
//! Sources: Kim and Kim, "AndroBench: Benchmarking the Storage Performance of Android-Based
//! Mobile Devices" (2012), which measures SQLite insert, update and delete transactions; Linaro,
//! "SQLite Optimization" (2014), section 4.2, which lists its three tests as "1000 INSERTs",
//! "1000 UPDATEs" and "1000 DELETEs"; APSys'17 Table 1, which reports its insert throughput in
//! transactions per second. The app's statements are not public. They are derived from SQLite's
//! speed comparison: the INSERTs are its test 1 (table t1, autocommit), the UPDATEs its test 7
//! (`UPDATE t1 SET b=b*2 WHERE a>=? AND a<?`) and the DELETEs its test 12 (`DELETE FROM t1 WHERE
//! a>? AND a<?`), with the windows narrowed to one row so that each statement, in its own
//! transaction, changes exactly one row (AndroBench reports per-transaction throughput, and
//! Linaro's update and delete times equal its insert times). The table starts empty and ends
//! empty.

use super::speedtest::{create_table, Gen, T};
use super::suite::{self, End, Scale, Script, ScriptSuite};
use super::WorkloadKind;
use crate::engines::{Connection, EngineError};

/// The tests, numbered and titled as in Linaro's table.
pub const OPS: &[&str] = &["01 1000 INSERTs", "02 1000 UPDATEs", "03 1000 DELETEs"];

/// The trial's script.
pub fn script(scale: Scale, seed: u64) -> Script {
    let mut g = Gen::new(scale, seed);
    let n = g.n(1000) as i64;
    let range = g.n(100_000);
    g.insert_rows(T::T1, 1, n as u64, range);
    g.end(0, false);
    g.update_double(T::T1, (1..=n).map(|a| (a, a + 1)));
    g.end(1, false);
    g.delete_a_between(T::T1, (1..=n).map(|a| (a - 1, a + 1)));
    g.end(2, false);
    g.finish()
}

/// The template holds t1, empty.
fn schema(conn: &mut dyn Connection) -> Result<(), EngineError> {
    conn.execute_batch(&create_table(T::T1))
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "androbench",
    about: "AndroBench's SQLite test: 1000 INSERTs, 1000 UPDATEs, 1000 DELETEs, each its own transaction, on an empty table",
    source: "AndroBench (Kim and Kim, 2012), tests as listed by Linaro (2014) and APSys'17 Table 1; statements derived from SQLite's speed comparison",
    operations: OPS,
    ..suite::SUITE
};

/// The workload.
pub static ANDROBENCH: ScriptSuite = ScriptSuite {
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
    fn three_tests_of_single_row_autocommit_statements() {
        let s = script(Scale::ONE, 9);
        assert_eq!(s.tests.len(), 3);
        for t in &s.tests {
            assert!(!t.tx);
            assert_eq!(t.statements(), 1000);
            let Step::Run { rows, .. } = &t.steps[0] else {
                panic!("not a prepared statement")
            };
            assert!(rows.iter().all(|a| a.expect == 1));
        }
        assert_eq!(
            s.sql,
            vec![
                "INSERT INTO t1 VALUES(?,?,?)",
                "UPDATE t1 SET b=b*2 WHERE a>=? AND a<?",
                "DELETE FROM t1 WHERE a>? AND a<?",
            ]
        );
    }
}
