//! Helpers: a populated SQLite database in a temporary directory, and queries on it.

use litebench::engines::sqlite::api::Api;
use litebench::engines::sqlite::conn::SqliteConn;
use litebench::engines::Connection;
use litebench::model::params::{resolve, Params};
use litebench::workload::tatp::Tatp;
use litebench::workload::Workload;
use std::path::{Path, PathBuf};

/// Seed of the test population.
pub const SEED: u64 = 20_240_601;

/// Subscribers of the test population.
pub const SUBSCRIBERS: u64 = 1000;

/// Parameters of the tatp workload with `args` (`NAME=VALUE`).
pub fn params(args: &[&str]) -> Params {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    resolve("tatp", litebench::workload::tatp::KIND.params, &args).expect("valid parameters")
}

/// Opens (creating) a SQLite database file with the bundled SQLite.
pub fn open(path: &Path) -> SqliteConn {
    SqliteConn::open(Api::bundled(), path, None, "sqlite").expect("open the database")
}

/// Opens a database for running many transactions in a test: durability off (what is tested
/// is which rows the transactions touch, not how they reach the disk).
pub fn open_fast(path: &Path) -> SqliteConn {
    let mut c = open(path);
    c.execute_batch("PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY")
        .expect("set pragmas");
    c
}

/// A temporary directory holding `tatp.db`, populated with [`SUBSCRIBERS`] subscribers from
/// [`SEED`]; returns the directory, the database path and the rows `populate` reported.
pub fn populated() -> (tempfile::TempDir, PathBuf, u64) {
    let dir = tempfile::Builder::new()
        .prefix("litebench-tatp-")
        .tempdir()
        .expect("temporary directory");
    let path = dir.path().join("tatp.db");
    let mut conn = open(&path);
    let p = params(&[&format!("subscribers={SUBSCRIBERS}")]);
    let rows = Tatp
        .populate(&mut conn, &litebench::workload::Population::plain(&p, SEED))
        .expect("populate");
    (dir, path, rows)
}

/// The single integer a query returns.
pub fn int(conn: &mut dyn Connection, sql: &str) -> i64 {
    let rows = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.first()
        .and_then(|r| r.first().cloned().flatten())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{sql}: no integer in {rows:?}"))
}

/// Every row a query returns, as text.
pub fn rows(conn: &mut dyn Connection, sql: &str) -> Vec<Vec<Option<String>>> {
    conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

pub use crate::support::bin;
