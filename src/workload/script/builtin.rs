//! pgbench's three built-in scripts and its initialisation (`pgbench -i`), so that pgbench's own
//! workload runs on every engine: four tables, 1 branch, 10 tellers and 100,000 accounts per
//! unit of scale, pgbench's filler widths, an empty history.
//!
//! The scripts are pgbench's, written in the script syntax this workload reads (they go through
//! the same parser as a user's file), with one change: a transaction ends with `COMMIT`, not
//! pgbench's `END`, which MariaDB does not know.

use crate::engines::{Connection, EngineError, Value};
use crate::workload::{PopulateError, Population, WorkloadError};

/// The built-in scripts' names, as pgbench's `-b` takes them.
pub const NAMES: [&str; 3] = ["tpcb-like", "simple-update", "select-only"];

/// Rows per unit of scale.
pub const BRANCHES: i64 = 1;
pub const TELLERS: i64 = 10;
pub const ACCOUNTS: i64 = 100_000;

/// The text of built-in script `name`.
pub fn script(name: &str) -> Option<&'static str> {
    Some(match name {
        "tpcb-like" => {
            "\\set aid random(1, 100000 * :scale)
\\set bid random(1, 1 * :scale)
\\set tid random(1, 10 * :scale)
\\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
COMMIT;
"
        }
        "simple-update" => {
            "\\set aid random(1, 100000 * :scale)
\\set bid random(1, 1 * :scale)
\\set tid random(1, 10 * :scale)
\\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
COMMIT;
"
        }
        "select-only" => {
            "\\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
"
        }
        _ => return None,
    })
}

/// pgbench's tables, with its column types and filler widths. Keys are declared with the table
/// (pgbench adds them after loading); on SQLite `INTEGER PRIMARY KEY` makes the key the rowid.
const TABLES: &str = "
CREATE TABLE pgbench_branches (bid INTEGER NOT NULL PRIMARY KEY, bbalance INTEGER, filler CHAR(88));
CREATE TABLE pgbench_tellers (tid INTEGER NOT NULL PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84));
CREATE TABLE pgbench_accounts (aid INTEGER NOT NULL PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84));
CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TIMESTAMP, filler CHAR(22));
";

/// Creates and fills pgbench's tables at `scale`; returns the rows inserted. As `pgbench -i`:
/// branches and tellers with a NULL filler, accounts with a blank one of the column's full
/// width (what PostgreSQL's `CHAR(84)` stores for pgbench's `''`, written out so that every
/// engine stores the same width).
pub fn populate(conn: &mut dyn Connection, pop: &Population<'_>, scale: i64) -> Result<u64, PopulateError> {
    conn.execute_batch(TABLES)?;
    let mut rows = 0;
    rows += pop.bulk_load(conn, "pgbench_branches", &["bid", "bbalance"], &mut |sink| {
        for bid in 1..=BRANCHES * scale {
            sink.row(&[Value::Int(bid), Value::Int(0)])?;
        }
        Ok(())
    })?;
    rows += pop.bulk_load(conn, "pgbench_tellers", &["tid", "bid", "tbalance"], &mut |sink| {
        for tid in 1..=TELLERS * scale {
            sink.row(&[Value::Int(tid), Value::Int((tid - 1) / TELLERS + 1), Value::Int(0)])?;
        }
        Ok(())
    })?;
    let filler = " ".repeat(84);
    rows += pop.bulk_load(
        conn,
        "pgbench_accounts",
        &["aid", "bid", "abalance", "filler"],
        &mut |sink| {
            for aid in 1..=ACCOUNTS * scale {
                sink.row(&[
                    Value::Int(aid),
                    Value::Int((aid - 1) / ACCOUNTS + 1),
                    Value::Int(0),
                    Value::Text(&filler),
                ])?;
            }
            Ok(())
        },
    )?;
    Ok(rows)
}

fn sum(conn: &mut dyn Connection, sql: &str) -> Result<i64, EngineError> {
    Ok(conn
        .query_value(sql)?
        .and_then(|s| s.trim().parse::<f64>().ok())
        .map_or(0, |f| f as i64))
}

/// pgbench's consistency after a trial of built-in scripts only: the accounts as populated, and
/// every balance change in the history (the sum of the accounts' balances is the sum of the
/// history's deltas; with `tpcb-like` alone, the tellers' and branches' sums too).
pub fn verify(conn: &mut dyn Connection, scale: i64, tpcb_only: bool) -> Result<(), WorkloadError> {
    let fail = |detail: String| WorkloadError::Verification {
        workload: "script".into(),
        detail,
    };
    let accounts = sum(conn, "SELECT count(*) FROM pgbench_accounts")?;
    if accounts != ACCOUNTS * scale {
        return Err(fail(format!(
            "pgbench_accounts holds {accounts} rows after the trial, expected {}",
            ACCOUNTS * scale
        )));
    }
    let deltas = sum(conn, "SELECT coalesce(sum(delta), 0) FROM pgbench_history")?;
    let mut sums = vec![(
        "pgbench_accounts",
        sum(conn, "SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts")?,
    )];
    if tpcb_only {
        sums.push((
            "pgbench_tellers",
            sum(conn, "SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers")?,
        ));
        sums.push((
            "pgbench_branches",
            sum(conn, "SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches")?,
        ));
    }
    for (table, s) in sums {
        if s != deltas {
            return Err(fail(format!(
                "the balances of {table} sum to {s}, but pgbench_history's deltas to {deltas}: a transaction was lost or half applied"
            )));
        }
    }
    Ok(())
}
