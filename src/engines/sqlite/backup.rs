//! SQLite's online backup API (`sqlite3_backup_init/step/remaining/pagecount/finish`), for a
//! cast's backup role with `method = "api"`. Unlike `VACUUM INTO` it copies in steps of a few
//! pages, releasing the source between them; another connection's write between steps makes
//! SQLite start again from the first page, which is what "a backup never finishes under
//! writers" reports are about, so the restarts are counted: a step that leaves the copy no
//! further on (`pagecount - remaining`) than the last one restarted.

use super::conn::SqliteConn;
use crate::engines::EngineError;
use crate::model::cast::{BackupApiRun, BackupProgress, BackupSteps};
use libsqlite3_sys as ffi;
use std::path::Path;
use std::time::Duration;

/// How long a busy or locked step waits before it is retried when the role sets no pause.
const BUSY_RETRY: Duration = Duration::from_millis(1);

/// Copies `src`'s main database into the existing, empty file `to` (see
/// [`crate::engines::Connection::online_backup`]).
/// Waits `length` between steps, looking at `stop` every 20 ms (a pause is no reason to hold a
/// trial's end or a stop request up); whether `stop` cut it short.
fn pause(length: Duration, stop: &dyn Fn() -> bool) -> bool {
    let end = std::time::Instant::now() + length;
    loop {
        if stop() {
            return true;
        }
        let now = std::time::Instant::now();
        if now >= end {
            return false;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(20)));
    }
}

pub(super) fn online_backup(
    src: &mut SqliteConn,
    to: &Path,
    steps: BackupSteps,
    stop: &dyn Fn() -> bool,
) -> Result<BackupProgress, EngineError> {
    let api = src.api();
    let dest = SqliteConn::open_existing(api, to, "sqlite backup copy")?;
    // SAFETY: both handles are open; "main" is a static C string.
    let b = unsafe { (api.backup_init)(dest.raw_db(), c"main".as_ptr(), src.raw_db(), c"main".as_ptr()) };
    if b.is_null() {
        // SAFETY: dest is open; the error is on the destination handle.
        let rc = unsafe { (api.extended_errcode)(dest.raw_db()) };
        return Err(dest.error(rc, "starting an online backup"));
    }
    let mut run = BackupApiRun {
        steps: 0,
        retried: 0,
        restarts: 0,
        finished: false,
    };
    // Pages copied so far: SQLite's pagecount less remaining after the last step that copied.
    let mut copied: Option<i64> = None;
    let failed = loop {
        // SAFETY: b is a live backup handle until finish below.
        let rc = unsafe { (api.backup_step)(b, steps.pages) };
        run.steps += 1;
        match rc & 0xff {
            ffi::SQLITE_DONE => {
                run.finished = true;
                break None;
            }
            ffi::SQLITE_OK => {
                // SAFETY: as above.
                let now = unsafe { i64::from((api.backup_pagecount)(b)) - i64::from((api.backup_remaining)(b)) };
                if copied.is_some_and(|last| now <= last) {
                    run.restarts += 1;
                }
                copied = Some(now);
                if pause(steps.pause, stop) {
                    break None;
                }
            }
            ffi::SQLITE_BUSY | ffi::SQLITE_LOCKED => {
                run.retried += 1;
                if pause(if steps.pause.is_zero() { BUSY_RETRY } else { steps.pause }, stop) {
                    break None;
                }
            }
            _ => break Some(rc),
        }
    };
    // SAFETY: as above; finish frees the handle, whatever it returns.
    let pages = u64::try_from(unsafe { (api.backup_pagecount)(b) }).unwrap_or(0);
    // SAFETY: b is live and is not used after this.
    let finish = unsafe { (api.backup_finish)(b) };
    if let Some(rc) = failed {
        return Err(dest.error(rc, "an online backup step"));
    }
    if finish != ffi::SQLITE_OK && run.finished {
        return Err(dest.error(finish, "finishing an online backup"));
    }
    Ok(BackupProgress { pages, run })
}
