//! SQLite's own locking between two processes, end to end: what the lock and mapping probes
//! predict, seen through SQLite itself.
//!
//! In rollback-journal mode a second writer must meet `database is locked` while the first holds
//! its write transaction, and get the lock once it commits. In WAL mode a reader in the second
//! process must see each commit the first makes, which it learns through the shared `-shm`
//! index; a reader that keeps its connection and misses a commit is the failure WAL's shared
//! memory exists to prevent.

use super::check::Check;
use super::peer::{Peer, PeerError};
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{Connection, EngineError};
use serde::Serialize;
use std::path::Path;

/// What SQLite's locking did between two processes.
#[derive(Debug, Clone, Serialize)]
pub struct SqliteLocking {
    /// Rollback journal: a second process's `BEGIN IMMEDIATE` refused with `database is locked`
    /// while this one wrote, and granted after its commit.
    pub writer_blocks_writer: Check,
    /// WAL: a reader in the second process, keeping its connection, sees each commit.
    pub wal_reader_sees_commits: Check,
    /// WAL with `locking_mode=exclusive` (the index in this process's heap, no `-shm`): commits
    /// and reads back in one process.
    pub wal_exclusive_works: Check,
}

/// Probes with three new databases, `rollback`, `wal` and `exclusive` (paths in the
/// qualification's directory).
pub fn probe(rollback: &Path, wal: &Path, exclusive: &Path, peer: &mut Peer) -> Result<SqliteLocking, PeerError> {
    let writer_blocks_writer = match writers(rollback, peer) {
        Ok(c) => c,
        Err(Step::Peer(e)) => return Err(e),
        Err(Step::Engine(e)) => Check::unknown(format!("SQLite in this process: {}", e.message)),
    };
    let wal_reader_sees_commits = match reader(wal, peer) {
        Ok(c) => c,
        Err(Step::Peer(e)) => return Err(e),
        Err(Step::Engine(e)) => Check::unknown(format!("SQLite in this process: {}", e.message)),
    };
    peer.ask(&["release"])?;
    let wal_exclusive_works =
        one_process(exclusive).unwrap_or_else(|e| Check::no(format!("SQLite failed: {}", e.message)));
    Ok(SqliteLocking {
        writer_blocks_writer,
        wal_reader_sees_commits,
        wal_exclusive_works,
    })
}

enum Step {
    Peer(PeerError),
    Engine(EngineError),
}

impl From<PeerError> for Step {
    fn from(e: PeerError) -> Step {
        Step::Peer(e)
    }
}

impl From<EngineError> for Step {
    fn from(e: EngineError) -> Step {
        Step::Engine(e)
    }
}

fn open(path: &Path) -> Result<SqliteConn, EngineError> {
    SqliteConn::open(Api::bundled(), path, None, "qualify")
}

fn writers(path: &Path, peer: &mut Peer) -> Result<Check, Step> {
    let mut conn = open(path)?;
    conn.execute_batch("PRAGMA journal_mode=delete; CREATE TABLE t(x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1);")?;
    let p = path.to_string_lossy();
    let during = peer.ask(&["sql", &p, "BEGIN IMMEDIATE"])?;
    conn.execute_batch("COMMIT")?;
    let after = peer.ask(&["sql", &p, "BEGIN IMMEDIATE"])?;
    if after == "ok" {
        peer.ask(&["sql", &p, "ROLLBACK"])?;
    }
    Ok(match (during.as_str(), after.as_str()) {
        (d, "ok") if d.starts_with("busy") => Check::yes(format!(
            "the second writer met `{}` while the first wrote, and began after its commit",
            d.trim_start_matches("busy ")
        )),
        ("ok", _) => Check::no(
            "a second process began a write transaction while the first held one: two writers at once corrupt the database",
        ),
        (d, a) => Check::unknown(format!("the second writer: `{d}` while the first wrote, `{a}` after")),
    })
}

fn reader(path: &Path, peer: &mut Peer) -> Result<Check, Step> {
    let mut conn = open(path)?;
    let mode = conn.query_value("PRAGMA journal_mode=wal")?.unwrap_or_default();
    if mode != "wal" {
        return Ok(Check::no(format!("SQLite refused WAL here (journal_mode is {mode})")));
    }
    conn.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")?;
    let p = path.to_string_lossy();
    let count = "SELECT count(*) FROM t";
    let first = peer.ask(&["sql", &p, count])?;
    if first != "1" {
        return Ok(Check::no(format!("the reader saw {first} rows where 1 was committed")));
    }
    for n in 2..=5 {
        conn.execute_batch("INSERT INTO t VALUES (1)")?;
        let seen = peer.ask(&["sql", &p, count])?;
        if seen != n.to_string() {
            return Ok(Check::no(format!(
                "the reader, keeping its connection, saw {seen} rows after the commit that made {n}"
            )));
        }
    }
    Ok(Check::yes("a reader in the second process saw each of 5 commits"))
}

fn one_process(path: &Path) -> Result<Check, EngineError> {
    let mut conn = open(path)?;
    conn.execute_batch("PRAGMA locking_mode=exclusive")?;
    let mode = conn.query_value("PRAGMA journal_mode=wal")?.unwrap_or_default();
    if mode != "wal" {
        return Ok(Check::no(format!("SQLite refused WAL here (journal_mode is {mode})")));
    }
    conn.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);")?;
    let n = conn.query_value("SELECT count(*) FROM t")?.unwrap_or_default();
    Ok(if n == "2" {
        Check::yes("two commits read back, the WAL index in the process's heap")
    } else {
        Check::no(format!("read {n} rows back after committing 2"))
    })
}
