//! The store's schema, its version and the migrations between versions.
//!
//! A results store outlives the litebench that wrote it: it is kept for years, copied between
//! machines and read by newer and older builds. So the file says which schema it has
//! (`PRAGMA user_version`) and that it is a litebench store at all (`PRAGMA application_id`),
//! and every change of schema is a numbered migration. An older store is upgraded in place, in
//! one transaction, by the migrations it lacks; a store from a newer litebench is refused rather
//! than misread or "upgraded" into something its writer cannot read.
//!
//! Version 0 is the unversioned schema litebench used before versions existed (user_version
//! and application_id 0). A new store is created as version 0 and upgraded by the same
//! migrations, so a new store and an upgraded one cannot differ.

use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{Connection, EngineError};

/// The schema this litebench writes, and the newest it can read.
pub const CURRENT: i64 = 4;

/// `PRAGMA application_id` of a versioned store: "LBen" in ASCII.
pub const APPLICATION_ID: i64 = 0x4c42_656e;

/// Version 0: the schema of unversioned stores. `IF NOT EXISTS` because the oldest of those
/// lack the `templates` table.
pub const V0: &str = "
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL,
  pid INTEGER NOT NULL,
  workload TEXT NOT NULL,
  error TEXT,
  manifest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS templates(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trials(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  config INTEGER NOT NULL,
  round INTEGER NOT NULL,
  warmup INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY(run_id, seq)
);
";

/// `MIGRATIONS[n]` takes a store from version `n` to `n + 1`.
const MIGRATIONS: [&str; CURRENT as usize] = [
    // 1: where a run's process lives, so that only the machine that started a run calls it
    // abandoned (a pid means nothing on another host, or after a reboot).
    "ALTER TABLE runs ADD COLUMN host TEXT; ALTER TABLE runs ADD COLUMN boot_id TEXT;",
    // 2: durability verdicts (`verify-durability`), one row per configuration and crash kind,
    // keyed by the SQLite build they were found on; `record` holds the counterexamples.
    "CREATE TABLE verifications(
  id INTEGER PRIMARY KEY,
  verified_at TEXT NOT NULL,
  engine TEXT NOT NULL,
  sqlite_version TEXT NOT NULL,
  source_id TEXT NOT NULL,
  journal_mode TEXT NOT NULL,
  synchronous TEXT NOT NULL,
  crash TEXT NOT NULL,
  verdict TEXT NOT NULL,
  worst_lost INTEGER,
  states INTEGER NOT NULL,
  violations INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX verifications_config ON verifications(source_id, journal_mode, synchronous, crash);",
    // 3: a globally unique id per run (`litebench merge`); filled for existing runs by
    // `fill_legacy_uuids` before the unique index is made.
    "ALTER TABLE runs ADD COLUMN uuid TEXT;",
    // 4: a run's name (`run --name`), unique within the store (NULLs, unnamed runs, are not
    // compared by a unique index).
    "ALTER TABLE runs ADD COLUMN name TEXT; CREATE UNIQUE INDEX runs_name ON runs(name);",
];

/// What an opened file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// No tables at all: a new (or zero-length) database.
    Empty,
    /// A litebench store of this schema version.
    Version(i64),
    /// A SQLite database with tables, but not a litebench store.
    Foreign,
}

fn number(conn: &mut SqliteConn, sql: &str) -> Result<i64, EngineError> {
    Ok(conn.query_value(sql)?.and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// Reads what the file holds, without writing anything.
pub fn inspect(conn: &mut SqliteConn) -> Result<Found, EngineError> {
    let app = number(conn, "PRAGMA application_id")?;
    let version = number(conn, "PRAGMA user_version")?;
    if app == APPLICATION_ID {
        return Ok(Found::Version(version));
    }
    let tables = conn.query("SELECT name FROM sqlite_master WHERE type = 'table'")?;
    if tables.is_empty() {
        Ok(Found::Empty)
    } else if app == 0 && version == 0 && tables.iter().any(|t| t[0].as_deref() == Some("runs")) {
        Ok(Found::Version(0))
    } else {
        Ok(Found::Foreign)
    }
}

/// Whether the file has table `name` (the oldest version-0 stores have no `templates`).
pub fn has_table(conn: &mut SqliteConn, name: &str) -> Result<bool, EngineError> {
    Ok(number(
        conn,
        &format!("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '{name}'"),
    )? > 0)
}

/// Gives every run without a uuid the one derived from what identifies it
/// ([`super::run_uuid::legacy`]), as `merge` derives it when reading an older store.
fn fill_legacy_uuids(conn: &mut SqliteConn) -> Result<(), EngineError> {
    let rows = conn.query("SELECT id, started_at, pid, host, manifest FROM runs WHERE uuid IS NULL")?;
    for r in rows {
        let text = |i: usize| r[i].clone().unwrap_or_default();
        let uuid = super::run_uuid::legacy(&text(1), &text(2), r[3].as_deref(), &text(4));
        // Both values are ours: an integer id and a hex-and-dash uuid.
        conn.execute_batch(&format!(
            "UPDATE runs SET uuid = '{uuid}' WHERE id = {}",
            text(0).parse::<i64>().unwrap_or(-1)
        ))?;
    }
    Ok(())
}

/// Brings an empty database or a store of version `from` (< [`CURRENT`]) to [`CURRENT`]: the
/// migrations it lacks, the version and the application id, in one transaction the caller
/// has begun (`BEGIN IMMEDIATE`) and commits.
pub fn upgrade(conn: &mut SqliteConn, from: i64) -> Result<(), EngineError> {
    conn.execute_batch(V0)?;
    for m in &MIGRATIONS[from.clamp(0, CURRENT) as usize..] {
        conn.execute_batch(m)?;
    }
    if from < 3 {
        fill_legacy_uuids(conn)?;
        conn.execute_batch("CREATE UNIQUE INDEX runs_uuid ON runs(uuid);")?;
    }
    conn.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {CURRENT};"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;

    fn memory() -> SqliteConn {
        SqliteConn::open_memory(Api::bundled(), "test").unwrap()
    }

    #[test]
    fn an_empty_database_becomes_the_current_version() {
        let mut c = memory();
        assert_eq!(inspect(&mut c).unwrap(), Found::Empty);
        upgrade(&mut c, 0).unwrap();
        assert_eq!(inspect(&mut c).unwrap(), Found::Version(CURRENT));
        // Version 1's columns and version 2's table are there.
        c.execute_batch("SELECT host, boot_id FROM runs").unwrap();
        c.execute_batch("SELECT verdict, record FROM verifications").unwrap();
        c.execute_batch("SELECT uuid FROM runs").unwrap();
        c.execute_batch("SELECT name FROM runs").unwrap();
    }

    #[test]
    fn version_0_is_recognised_and_upgraded_with_its_rows() {
        let mut c = memory();
        c.execute_batch(V0).unwrap();
        c.execute_batch(
            "INSERT INTO runs(started_at, status, pid, workload, manifest) VALUES ('t', 'complete', 1, 'crud', '{}')",
        )
        .unwrap();
        assert_eq!(inspect(&mut c).unwrap(), Found::Version(0));
        upgrade(&mut c, 0).unwrap();
        assert_eq!(inspect(&mut c).unwrap(), Found::Version(CURRENT));
        let rows = c.query("SELECT status, host FROM runs").unwrap();
        assert_eq!(rows, vec![vec![Some("complete".to_string()), None]]);
        // The run got the uuid derived from what identifies it.
        let uuid = c.query_value("SELECT uuid FROM runs").unwrap().unwrap();
        assert_eq!(uuid, crate::store::run_uuid::legacy("t", "1", None, "{}"));
    }

    #[test]
    fn the_oldest_version_0_gains_its_templates_table() {
        let mut c = memory();
        c.execute_batch("CREATE TABLE runs(id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL, pid INTEGER NOT NULL, workload TEXT NOT NULL, error TEXT, manifest TEXT NOT NULL); CREATE TABLE trials(run_id INTEGER, seq INTEGER, config INTEGER, round INTEGER, warmup INTEGER, record TEXT)").unwrap();
        assert_eq!(inspect(&mut c).unwrap(), Found::Version(0));
        assert!(!has_table(&mut c, "templates").unwrap());
        upgrade(&mut c, 0).unwrap();
        assert!(has_table(&mut c, "templates").unwrap());
    }

    #[test]
    fn other_databases_are_foreign() {
        let mut c = memory();
        c.execute_batch("CREATE TABLE notes(x)").unwrap();
        assert_eq!(inspect(&mut c).unwrap(), Found::Foreign);
        // Another application's versioned `runs` table is not a litebench store either.
        let mut c = memory();
        c.execute_batch("CREATE TABLE runs(x); PRAGMA user_version = 7")
            .unwrap();
        assert_eq!(inspect(&mut c).unwrap(), Found::Foreign);
    }

    #[test]
    fn a_newer_store_reports_its_version() {
        let mut c = memory();
        upgrade(&mut c, 0).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {}", CURRENT + 1))
            .unwrap();
        assert_eq!(inspect(&mut c).unwrap(), Found::Version(CURRENT + 1));
    }
}
