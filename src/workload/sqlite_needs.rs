//! What a workload needs of a SQLite build, checked on the template's connection before
//! anything is measured: a release (`->>` is 3.38.0's, JSONB 3.45.0's) or a compile-time option
//! (`SQLITE_ENABLE_RTREE`). A build without it is refused in one line that names the release
//! or option and what to give instead, rather than failing on its first statement.

use crate::engines::{Connection, EngineError, ErrorKind};

/// A release as SQLite numbers it (`3045001` for 3.45.1).
pub fn version_number(text: &str) -> Option<u32> {
    let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next().flatten().unwrap_or(0);
    let patch = parts.next().flatten().unwrap_or(0);
    Some(major * 1_000_000 + minor * 1000 + patch)
}

/// The connection's `sqlite_version()`, as text and number.
pub fn version(conn: &mut dyn Connection) -> Result<(String, u32), EngineError> {
    let text = conn.query_value("SELECT sqlite_version()")?.unwrap_or_default();
    let number = version_number(&text).unwrap_or(0);
    Ok((text, number))
}

/// Whether the build was compiled with `option` (as `PRAGMA compile_options` lists it, without
/// the `SQLITE_` prefix: `ENABLE_RTREE`).
pub fn has_option(conn: &mut dyn Connection, option: &str) -> Result<bool, EngineError> {
    let rows = conn.query("PRAGMA compile_options")?;
    Ok(rows
        .iter()
        .filter_map(|r| r.first().cloned().flatten())
        .any(|o| o == option || o.starts_with(&format!("{option}="))))
}

/// The refusal of workload `workload` on this build: `message` says what it lacks and what to
/// give instead.
pub fn refusal(workload: &str, message: String) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: "sqlite".into(),
        kind: ErrorKind::Other,
        code: None,
        message,
        context: format!("checking that this build can run {workload}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;

    #[test]
    fn releases_compare_as_numbers() {
        assert_eq!(version_number("3.45.1"), Some(3_045_001));
        assert_eq!(version_number("3.8.4.3"), Some(3_008_004));
        assert!(version_number("3.44.9").unwrap() < version_number("3.45.0").unwrap());
        assert_eq!(version_number("x"), None);
    }

    #[test]
    fn the_bundled_build_is_read() {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let (text, n) = version(&mut conn).unwrap();
        assert_eq!(version_number(&text), Some(n));
        assert!(n >= 3_045_000, "the bundled SQLite is {text}");
        assert!(has_option(&mut conn, "THREADSAFE").unwrap());
        assert!(!has_option(&mut conn, "NO_SUCH_OPTION").unwrap());
    }
}
