//! The user's own SQL on a SQLite connection (a replayed log, a script, an `init=` file) kept to
//! the trial's scratch directory, through SQLite's authorizer (`sqlite3_set_authorizer`).
//!
//! Every trial runs on its own copy of the database; `ATTACH` of another file would change a
//! file litebench did not make (a log's `ATTACH '/data/victim.db' AS v; DELETE FROM v.important`
//! emptied the user's database), and `VACUUM INTO` would leave a file that no cleanup knows of.
//! The workloads refuse a name they can see when they read the file
//! ([`crate::workload::file_reach`]); the authorizer is what holds whatever the text: SQLite
//! asks it before it codes any `ATTACH`, including the one `VACUUM INTO` runs inside itself.
//!
//! - `ATTACH` of an in-memory (`:memory:`) or temporary (`''`) database is allowed, and of a file
//!   that resolves inside the scratch directory of the connection's database, relative names
//!   resolved against litebench's working directory as SQLite opens them
//!   ([`crate::sys::confine::resolves_inside`]);
//! - a name SQLite computes while running (`ATTACH '/data/' || 'x.db'`, a bound `:name`) reaches
//!   the authorizer as no name at all, so it is refused: where it leads cannot be told before
//!   SQLite opens it; so is a URI filename (`file:...?...`), whose options this does not read;
//! - the SQL function `load_extension()` is refused too (and `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`
//!   turned off), whatever else enabled extensions.
//!
//! SQLite answers a refused statement "not authorized"; the reason is kept here and added to
//! that message ([`Confinement::take_refusal`]).

use crate::sys::confine::resolves_inside;
use libsqlite3_sys as ffi;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a connection's user SQL may reach, and why it was last refused.
#[derive(Debug)]
pub struct Confinement {
    /// The scratch directory, resolved; `None` (a database in memory): no file at all.
    dir: Option<PathBuf>,
    refused: Mutex<Option<String>>,
}

impl Confinement {
    /// Confinement to `dir`, already resolved (`std::fs::canonicalize`); `None`: no file.
    pub fn new(dir: Option<PathBuf>) -> Confinement {
        Confinement {
            dir,
            refused: Mutex::new(None),
        }
    }

    /// Why attaching `name` is refused (`None`: allowed). `name` is `None` where SQLite computes
    /// it while running.
    pub fn attach_refusal(&self, name: Option<&str>) -> Option<String> {
        let way_out = "a replayed log or script may change only the trial's own copy; attach a temporary database instead (ATTACH '' AS name) and fill it, or leave the statement out";
        let Some(name) = name else {
            return Some(format!(
                "ATTACH or VACUUM INTO of a file name computed while running, which litebench cannot confine before SQLite opens it: {way_out}"
            ));
        };
        if name.is_empty() || name == ":memory:" {
            return None;
        }
        if name.starts_with("file:") {
            return Some(format!(
                "ATTACH or VACUUM INTO of the URI filename '{name}', which litebench does not confine: {way_out}"
            ));
        }
        match &self.dir {
            Some(dir) if resolves_inside(dir, Path::new(name)) => None,
            Some(dir) => Some(format!(
                "ATTACH or VACUUM INTO of '{name}', a file outside the trial's scratch directory {}: {way_out}",
                dir.display()
            )),
            None => Some(format!(
                "ATTACH or VACUUM INTO of '{name}', a file, beside a database in memory: {way_out}"
            )),
        }
    }

    /// The reason of the last refusal, once.
    pub fn take_refusal(&self) -> Option<String> {
        self.refused.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn refuse(&self, why: String) -> c_int {
        *self.refused.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        ffi::SQLITE_DENY
    }
}

/// A C string SQLite passes, or `None`.
///
/// # Safety
/// `p` is null or a NUL-terminated string valid for the call.
unsafe fn text<'a>(p: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    // SAFETY: per this function's contract.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// The authorizer SQLite calls while it prepares a statement.
///
/// # Safety
/// `data` is the [`Confinement`] registered with it, alive while the connection is open; the
/// strings are SQLite's, valid for the call.
pub unsafe extern "C" fn authorize(
    data: *mut c_void,
    action: c_int,
    arg1: *const c_char,
    arg2: *const c_char,
    _db: *const c_char,
    _trigger: *const c_char,
) -> c_int {
    super::guard::callback("authorizer", ffi::SQLITE_DENY, || {
        // SAFETY: per this function's contract.
        let c = unsafe { &*(data as *const Confinement) };
        Ok(match action {
            ffi::SQLITE_ATTACH => {
                // SAFETY: SQLite's string or null.
                let name = unsafe { text(arg1) };
                match c.attach_refusal(name.as_deref()) {
                    Some(why) => c.refuse(why),
                    None => ffi::SQLITE_OK,
                }
            }
            // SAFETY: SQLite's string or null.
            ffi::SQLITE_FUNCTION if unsafe { text(arg2) }.is_some_and(|f| f.eq_ignore_ascii_case("load_extension")) => {
                c.refuse(
                    "load_extension() is disabled: litebench loads no extension from a replayed log or script".into(),
                )
            }
            _ => ffi::SQLITE_OK,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::engines::Connection;

    /// Issue 31, item 4, at the connection: what the authorizer refuses, whatever the text.
    #[test]
    fn a_confined_connection_changes_and_creates_no_file_outside_and_loads_no_extension() {
        let t = tempfile::tempdir().unwrap();
        let (run, top) = (t.path().join("run"), t.path().display().to_string());
        std::fs::create_dir(&run).unwrap();
        let victim = t.path().join("victim.db");
        let mut v = SqliteConn::open(Api::bundled(), &victim, None, "victim").unwrap();
        v.execute_batch("CREATE TABLE important(a); INSERT INTO important VALUES (1), (2), (3);")
            .unwrap();
        let mut conn = SqliteConn::open(Api::bundled(), &run.join("trial.db"), None, "trial").unwrap();
        conn.confine().unwrap();
        for (sql, why) in [
            (
                format!("ATTACH '{top}/victim.db' AS v"),
                "outside the trial's scratch directory",
            ),
            (format!("ATTACH '{top}/' || 'victim.db' AS v"), "computed while running"),
            (
                format!("ATTACH '{top}/run/../victim.db' AS v"),
                "outside the trial's scratch directory",
            ),
            (format!("ATTACH 'file:{top}/victim.db' AS v"), "URI filename"),
            (
                format!("ATTACH '{top}/new.db' AS v"),
                "outside the trial's scratch directory",
            ),
            (
                format!("VACUUM INTO '{top}/out.db'"),
                "outside the trial's scratch directory",
            ),
            (
                format!("VACUUM INTO '{top}/' || 'out.db'"),
                "outside the trial's scratch directory",
            ),
            (
                "SELECT load_extension('/nonexistent.so')".to_string(),
                "load_extension() is disabled",
            ),
        ] {
            let e = conn.execute_batch(&sql).unwrap_err();
            assert!(e.message.contains(why), "{sql}: {e}");
        }
        assert_eq!(
            v.query_value("SELECT count(*) FROM important").unwrap().as_deref(),
            Some("3")
        );
        assert!(!t.path().join("new.db").exists() && !t.path().join("out.db").exists());
        // In memory, temporary and inside the directory: as before.
        conn.execute_batch("ATTACH '' AS tmp; CREATE TABLE tmp.x(a); ATTACH ':memory:' AS m;")
            .unwrap();
        conn.execute_batch(&format!("ATTACH '{}' AS aux", run.join("aux.db").display()))
            .unwrap();
        conn.execute_batch(&format!("VACUUM INTO '{}'", run.join("copy.db").display()))
            .unwrap();
        assert!(run.join("aux.db").exists() && run.join("copy.db").exists());
    }

    #[test]
    fn attach_is_allowed_in_memory_temporary_and_inside_the_directory_only() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().canonicalize().unwrap();
        let c = Confinement::new(Some(dir.clone()));
        assert_eq!(c.attach_refusal(Some("")), None);
        assert_eq!(c.attach_refusal(Some(":memory:")), None);
        assert_eq!(c.attach_refusal(Some(dir.join("aux.db").to_str().unwrap())), None);
        let outside = c.attach_refusal(Some("/data/victim.db")).unwrap();
        assert!(
            outside.starts_with(
                "ATTACH or VACUUM INTO of '/data/victim.db', a file outside the trial's scratch directory"
            ),
            "{outside}"
        );
        assert!(
            c.attach_refusal(Some("victim.db")).is_some(),
            "relative: the working directory"
        );
        assert!(c.attach_refusal(None).unwrap().contains("computed while running"));
        let uri = format!("file:{}?mode=rw", dir.join("aux.db").display());
        assert!(c.attach_refusal(Some(&uri)).unwrap().contains("URI filename"));
        let memory = Confinement::new(None);
        assert!(memory
            .attach_refusal(Some(dir.join("aux.db").to_str().unwrap()))
            .is_some());
        assert_eq!(memory.attach_refusal(Some(":memory:")), None);
    }
}
