//! speedtest1 run as SQLite's `tool/speed-check.sh` runs it (`--param method=speed-check`):
//! every statement prepared anew after each run (`--reprepare`), the connection's spare memory
//! released after each statement (`--shrink-memory`), every column of every row read as text,
//! text bound in place, and each test's statement finalized at its end. SQLite's published
//! instruction counts (sqlite.org/cpu.html) are of this way of running; litebench's own
//! (`method=litebench`) keeps each test's statement prepared, as an application would, which
//! leaves out the parser and code generator after the first run and so counts a different mix.
//!
//! It talks to SQLite's C API directly ([`SqliteConn`]'s speed-check calls), so it runs on a
//! SQLite library engine only; the engine `sqlite@RELEASE-speed-check` adds the rest of the
//! script's settings (memsys5 on its own heap, serialized connections, SQLite's own VFS).

use super::{is_query, Step, Timed};
use crate::engines::bulk::input_error;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{Connection, Value};
use crate::workload::result_hash::has_order_by;
use crate::workload::WorkloadError;

/// The SQLite connection under `conn`, or the one line refusing the method elsewhere.
pub fn sqlite(conn: &mut dyn Connection) -> Result<&mut SqliteConn, crate::engines::EngineError> {
    conn.as_any_mut()
        .and_then(|a| a.downcast_mut::<SqliteConn>())
        .ok_or_else(|| {
            input_error(
                "speedtest1",
                "--param method=speed-check calls SQLite's C API as speedtest1 does; run it on a SQLite library engine (sqlite, sqlite@RELEASE)".into(),
            )
        })
}

/// Runs one step inside its test's phase, as speed-check runs it.
pub(super) fn run_step(conn: &mut SqliteConn, step: &Step, t: &mut Timed<'_, '_>) -> Result<(), WorkloadError> {
    match step {
        Step::Tx(sql) => {
            conn.exec_and_release(sql)?;
            t.rec.mark();
        }
        Step::Exec(sql) => {
            t.check_stop()?;
            conn.exec_and_release(sql)?;
            t.rec.lap(t.op);
        }
        Step::Run { sql, rows } => run_rows(conn, sql, rows, None, t)?,
        Step::RunSpread { sql, rows, spread } => run_rows(conn, sql, rows, Some(spread), t)?,
    }
    Ok(())
}

/// Prepares `sql`, runs it once per row (each run prepares it anew), and finalizes it: the
/// test's end, where speedtest1 finalizes its statement.
fn run_rows(
    conn: &mut SqliteConn,
    sql: &str,
    rows: &[Vec<super::Arg>],
    spread: Option<&[usize]>,
    t: &mut Timed<'_, '_>,
) -> Result<(), WorkloadError> {
    let stmt = conn.prepare(sql)?;
    let (query, ordered) = (is_query(sql), has_order_by(sql));
    let width = spread.map_or_else(|| rows.first().map_or(0, Vec::len), <[usize]>::len);
    let mut vals: Vec<Value<'_>> = Vec::with_capacity(width);
    t.rec.mark();
    for row in rows {
        t.check_stop()?;
        vals.clear();
        match spread {
            Some(spread) => vals.extend(spread.iter().map(|&k| row[k].value())),
            None => vals.extend(row.iter().map(super::Arg::value)),
        }
        if query {
            t.log.record(ordered, |out| conn.rerun(stmt, sql, &vals, Some(out)))?;
        } else {
            conn.rerun(stmt, sql, &vals, None)?;
        }
        t.rec.lap(t.op);
    }
    conn.finalize(stmt);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Speedtest1, OPS, PARAMS};
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::engines::Connection;
    use crate::workload::recorder::Recorder;
    use crate::workload::{Connector, Trial, Workload, WorkloadError};
    use std::sync::atomic::AtomicBool;

    struct One;
    impl Connector for One {
        fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
            panic!("one connection")
        }
    }

    /// The main set at size 1 by `method`: its prepares, operations and result hash.
    fn main_set(method: &str) -> (u64, u64, Option<String>) {
        let words = ["size=1".to_string(), format!("method={method}")];
        let params = crate::model::params::resolve("speedtest1", PARAMS, &words).unwrap();
        let stop = AtomicBool::new(false);
        let trial = Trial::plain(&params, 1, &stop, &One);
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let mut rec = Recorder::new(OPS, None);
        let before = conn.prepares();
        Speedtest1.run(&mut conn, &trial, &mut rec).unwrap();
        let hash = rec.take_result_hash();
        let ops = rec.finish().0.iter().map(|o| o.ops).sum();
        (conn.prepares() - before, ops, hash)
    }

    #[test]
    fn speed_check_prepares_every_statement_anew_after_each_run_and_gets_the_same_answers() {
        let (again, ops, hash) = main_set("speed-check");
        let (once, same_ops, litebench_hash) = main_set("litebench");
        assert_eq!(ops, same_ops);
        // litebench prepares each test's statement once; speed-check once more after every
        // run of one (an operation), so at least one prepare per operation.
        assert!(once < ops / 10, "litebench prepared {once} times for {ops} operations");
        assert!(
            again >= ops * 9 / 10,
            "speed-check prepared {again} times for {ops} operations"
        );
        assert!(hash.is_some() && hash == litebench_hash, "{hash:?} {litebench_hash:?}");
    }
}
