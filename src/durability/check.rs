//! Checking one crash state: materialise it, let SQLite recover it, and judge what is left.
//!
//! The files are written into a fresh directory and opened with the same SQLite build that
//! wrote them, so hot-journal rollback and WAL recovery happen exactly as they would after a
//! real crash. The `-shm` file is never materialised: the first connection after a crash
//! rebuilds it from the WAL.

use super::ledger::{read_digest, Ledger};
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::Connection;
use std::path::Path;

/// The database file's name in recordings and crash states.
pub const DB_NAME: &str = "ledger.db";

/// What SQLite made of a crash state.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    /// Intact, holding the first `applied` transactions exactly.
    Intact { applied: u64 },
    /// Intact by `integrity_check`, but holding part of a transaction.
    Partial,
    /// Unreadable, or `integrity_check` failed.
    Corrupt { reason: String },
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Intact { applied } => write!(f, "intact with the first {applied} transaction(s)"),
            Outcome::Partial => write!(f, "intact but holding part of a transaction"),
            Outcome::Corrupt { reason } => write!(f, "corrupt ({reason})"),
        }
    }
}

/// Why a state could not be checked at all (the scratch directory failed, not the database).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct CheckError {
    pub path: String,
    pub source: std::io::Error,
}

/// Companion files SQLite may create beside the database during recovery.
const SUFFIXES: [&str; 4] = ["", "-journal", "-wal", "-shm"];

/// Removes the ledger database and its companion files from `dir` (a directory of ours),
/// ignoring those that are not there.
pub fn remove_db_files(dir: &Path) {
    for s in SUFFIXES {
        let _ = std::fs::remove_file(dir.join(format!("{DB_NAME}{s}")));
    }
}

/// Writes `files` into `dir` (which holds nothing of ours), opens the database, judges it, and
/// removes the files again.
pub fn check(
    api: &'static Api,
    dir: &Path,
    files: &[(String, Vec<u8>)],
    ledger: &Ledger,
) -> Result<Outcome, CheckError> {
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |source| CheckError { path, source }
    };
    for (name, bytes) in files {
        let p = dir.join(name);
        std::fs::write(&p, bytes).map_err(io(&p))?;
    }
    let outcome = judge(api, &dir.join(DB_NAME), files, ledger);
    for s in SUFFIXES {
        let p = dir.join(format!("{DB_NAME}{s}"));
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&p)(e)),
        }
    }
    Ok(outcome)
}

/// Judges the database a real crash left in `dir`, in place (recovery changes it).
pub fn check_in_place(api: &'static Api, dir: &Path, ledger: &Ledger) -> Outcome {
    let db = dir.join(DB_NAME);
    judge_db(api, &db, db.exists(), ledger)
}

fn judge(api: &'static Api, db: &Path, files: &[(String, Vec<u8>)], ledger: &Ledger) -> Outcome {
    judge_db(api, db, files.iter().any(|(n, _)| n == DB_NAME), ledger)
}

fn judge_db(api: &'static Api, db: &Path, present: bool, ledger: &Ledger) -> Outcome {
    let corrupt = |reason: String| Outcome::Corrupt { reason };
    if !present {
        return corrupt("the database file is gone".into());
    }
    let mut conn = match SqliteConn::open_existing(api, db, "crash state") {
        Ok(c) => c,
        Err(e) => return corrupt(format!("open: {}", e.message)),
    };
    match conn.query("PRAGMA integrity_check") {
        Ok(rows) if rows.len() == 1 && rows[0][0].as_deref() == Some("ok") => {}
        Ok(rows) => {
            let first = rows.first().and_then(|r| r[0].clone()).unwrap_or_default();
            return corrupt(format!("integrity_check: {first}"));
        }
        Err(e) => return corrupt(format!("integrity_check: {}", e.message)),
    }
    match read_digest(&mut conn) {
        Ok(d) => match ledger.applied(&d) {
            Some(applied) => Outcome::Intact { applied },
            None => Outcome::Partial,
        },
        Err(e) => corrupt(format!("reading the ledger: {}", e.message)),
    }
}
