//! The answers of a client's first reads, one per operation type, for the runner to check
//! against every other configuration's ([`crate::bench::answers`]): the workloads whose
//! configurations store the same data in different ways (`json`'s text, JSONB and generated
//! column; `rtree`'s R*Tree and B-tree indexes; each engine's own type) must answer alike, and
//! a timing of a wrong answer means nothing.
//!
//! The first [`KEEP`] results of each type are copied into a [`ResultLog`] inside the timed
//! loop (a copy into a preallocated buffer); later ones only run. After the trial each type's
//! log becomes one [`QueryRecord`]: the rows over all its results and the hash of their
//! canonical form ([`crate::workload::result_hash`]). Its name carries the client's seed, so
//! that trials of different rounds, which draw other operations, are compared only with the
//! same round's.

use crate::engines::values::Values;
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::model::record::{Answer, QueryRecord};
use crate::workload::result_hash::{ResultHash, ResultLog};

/// Results kept per operation type.
pub const KEEP: usize = 200;

/// The kept results of each operation type that reads.
#[derive(Debug)]
pub struct OpAnswers {
    /// Per operation type: its name, the log, and the rows of its kept results.
    logs: Vec<(&'static str, ResultLog, u64)>,
    scratch: Values,
    seed: u64,
}

impl OpAnswers {
    /// Logs for operation types `names` (by index) of the client drawing from `seed`.
    pub fn new(names: &[&'static str], seed: u64) -> OpAnswers {
        OpAnswers {
            logs: names
                .iter()
                .map(|n| (*n, ResultLog::with_capacity(KEEP, KEEP * 8, KEEP * 64), 0))
                .collect(),
            scratch: Values::with_capacity(256, 4096),
            seed,
        }
    }

    /// Runs `stmt` for operation type `op`, keeping its values while fewer than [`KEEP`] are;
    /// `ordered`: the statement has `ORDER BY`. Returns the rows.
    #[inline]
    pub fn run(
        &mut self,
        conn: &mut dyn Connection,
        op: usize,
        stmt: StmtId,
        params: &[Value<'_>],
        ordered: bool,
    ) -> Result<u64, EngineError> {
        let (_, log, rows) = &mut self.logs[op];
        if log.results() < KEEP {
            let n = log.run(conn, stmt, params, ordered)?;
            *rows += n;
            return Ok(n);
        }
        self.scratch.clear();
        conn.run_values(stmt, params, &mut self.scratch)
    }

    /// The values of the last result kept for `op`, when the last run kept one (the caller's
    /// own checks of what it read).
    pub fn last(&self, op: usize) -> (&Values, std::ops::Range<usize>) {
        let (_, log, _) = &self.logs[op];
        (log.values(), log.last())
    }

    /// One record per operation type that kept a result.
    pub fn records(&self) -> Vec<QueryRecord> {
        self.logs
            .iter()
            .filter(|(_, log, _)| log.results() > 0)
            .map(|(name, log, rows)| {
                let mut h = ResultHash::new();
                h.add(log);
                QueryRecord {
                    op: format!("{name} of stream {:016x} (first {} results)", self.seed, log.results()),
                    answer: Answer {
                        rows: *rows,
                        hash: h.finish(),
                        values: None,
                    },
                    ..QueryRecord::default()
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;

    #[test]
    fn the_same_reads_hash_alike_and_a_different_value_differently() {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        conn.execute_batch(
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t VALUES (1,'x'),(2,'y'),(3,'z');",
        )
        .unwrap();
        let stmt = conn.prepare("SELECT b FROM t WHERE a >= ?").unwrap();
        let hash = |conn: &mut SqliteConn| {
            let mut a = OpAnswers::new(&["read", "write"], 7);
            for k in [1, 2, 3] {
                a.run(conn, 0, stmt, &[Value::Int(k)], false).unwrap();
            }
            a.records()
        };
        let first = hash(&mut conn);
        assert_eq!(first.len(), 1, "only the type that ran keeps a record");
        assert_eq!(first[0].answer.rows, 6);
        assert_eq!(first[0].op, "read of stream 0000000000000007 (first 3 results)");
        assert_eq!(hash(&mut conn), first);
        conn.execute_batch("UPDATE t SET b = 'w' WHERE a = 3").unwrap();
        assert_ne!(hash(&mut conn)[0].answer.hash, first[0].answer.hash);
    }

    #[test]
    fn only_the_first_results_are_kept() {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let stmt = conn.prepare("SELECT 1").unwrap();
        let mut a = OpAnswers::new(&["read"], 1);
        for _ in 0..KEEP + 10 {
            assert_eq!(a.run(&mut conn, 0, stmt, &[], false).unwrap(), 1);
        }
        assert_eq!(a.records()[0].answer.rows, KEEP as u64);
    }
}
