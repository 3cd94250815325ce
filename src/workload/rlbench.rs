//! `rlbench`: RL Benchmark: SQLite (Android app `com.redlicense.benchmark.sqlite`), 13 tests.
//!
//! Source of the tests and their titles: Linaro, "SQLite Optimization" (Platform/Android/
//! SQLiteOptimization, 2014), section 4.2, which lists RL Benchmark's 13 timed operations; the
//! APSys'17 paper (Purohith et al.) cites the app as [34] and uses its "1000 INSERTs" in Table 1.
//! The app's statements are not public. Twelve of its titles are tests of SQLite's speed
//! comparison, whose statements are used as they are; "25000 INSERTs into an indexed table in a
//! transaction" is not in the 2002 comparison and is derived from its test 2 with the table and
//! index of the later comparison (`t3`, `CREATE INDEX i3 ON t3(c)`). docs/workloads.md has the
//! mapping.

use super::speedtest::{create_table, Gen, T};
use super::suite::{self, End, Scale, Script, ScriptSuite};
use super::WorkloadKind;
use crate::engines::{Connection, EngineError};

/// The tests, numbered and titled as in Linaro's table.
pub const OPS: &[&str] = &[
    "01 1000 INSERTs",
    "02 25000 INSERTs in a transaction",
    "03 25000 INSERTs into an indexed table in a transaction",
    "04 100 SELECTs without an index",
    "05 100 SELECTs on a string comparison",
    "06 Creating an index",
    "07 5000 SELECTs with an index",
    "08 1000 UPDATEs without an index",
    "09 25000 UPDATEs with an index",
    "10 INSERTs from a SELECT",
    "11 DELETE without an index",
    "12 DELETE with an index",
    "13 DROP TABLE",
];

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
    g.st_create_index();
    g.end(5, false);
    g.st_selects_with_index();
    g.end(6, false);
    g.st_updates_without_index();
    g.end(7, true);
    g.st_updates_with_index();
    g.end(8, true);
    g.st_inserts_from_select();
    g.end(9, true);
    g.st_delete_without_index();
    g.end(10, false);
    g.st_delete_with_index();
    g.end(11, false);
    g.drop_tables(&[T::T1, T::T2, T::T3]);
    g.end(12, false);
    g.finish()
}

/// The tables t1, t2, t3 (empty) and the index on t3(c): the schema every speed-comparison
/// suite with an indexed-table test starts from.
pub fn create_schema_with_t3(conn: &mut dyn Connection) -> Result<(), EngineError> {
    for t in [T::T1, T::T2, T::T3] {
        conn.execute_batch(&create_table(t))?;
    }
    conn.execute_batch("CREATE INDEX i3 ON t3(c)")
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "rlbench",
    about: "RL Benchmark (Android): 13 tests taken from SQLite's speed comparison, plus inserts into an indexed table",
    source: "RL Benchmark: SQLite (com.redlicense.benchmark.sqlite), tests as listed by Linaro's SQLite Optimization page (2014); statements from SQLite's speed comparison",
    operations: OPS,
    ..suite::SUITE
};

/// The workload.
pub static RLBENCH: ScriptSuite = ScriptSuite {
    kind: &KIND,
    script,
    schema: create_schema_with_t3,
    end: End::Dropped(&["t1", "t2", "t3"]),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirteen_tests() {
        let s = script(Scale::ONE, 1);
        let got: Vec<(u64, bool)> = s.tests.iter().map(|t| (t.statements(), t.tx)).collect();
        assert_eq!(
            got,
            vec![
                (1000, false),
                (25_000, true),
                (25_000, true),
                (100, false),
                (100, false),
                (2, false),
                (5000, false),
                (1000, true),
                (25_000, true),
                (2, true),
                (1, false),
                (1, false),
                (3, false),
            ]
        );
        assert!(s.sql.iter().any(|q| q == "INSERT INTO t3 VALUES(?,?,?)"));
    }
}
