//! A user's own SQLite database as the start of every trial (`--param db=app.db` of `script`
//! and `replay`): checked once when the run is planned, so that a copy of the file alone holds
//! every committed transaction; the runner then copies it ([`super::Workload::template_file`])
//! and never opens it.

/// Refuses a `db` file that is not a regular file (a FIFO, a directory, a device), not a SQLite
/// database, or whose last transactions are still in its WAL (a copy of the main file alone
/// would lose them).
pub fn check(path: &str) -> Result<(), String> {
    let mut header = Vec::new();
    // Only a regular file: a FIFO would block the run before it starts, for ever.
    let file = crate::sys::regular::open(std::path::Path::new(path)).map_err(|e| match e {
        crate::sys::regular::RegularFileError::NotRegular { kind, .. } => {
            format!("--param db={path}: {kind}, not a regular file; name a SQLite database file")
        }
        crate::sys::regular::RegularFileError::Open { source, .. } => {
            format!("--param db={path}: cannot read it: {source}")
        }
    })?;
    if let Err(e) = std::io::Read::read_to_end(&mut std::io::Read::take(file, 16), &mut header) {
        return Err(format!("--param db={path}: cannot read it: {e}"));
    }
    // An empty file is an empty SQLite database.
    if !header.is_empty() && header != b"SQLite format 3\0" {
        return Err(format!(
            "--param db={path}: not a SQLite database (its header is not \"SQLite format 3\")"
        ));
    }
    let wal = format!("{path}-wal");
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        return Err(format!(
            "--param db={path}: {wal} holds transactions not yet in the database file; checkpoint it first (sqlite3 {path} 'PRAGMA wal_checkpoint(TRUNCATE)')"
        ));
    }
    Ok(())
}
