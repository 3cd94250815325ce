//! Per-loop profiles of one query from `sqlite3_stmt_scanstatus_v2`: the nearest thing to the
//! VLDB'22 paper's VDBE profile that a stock build offers.
//!
//! The counters exist only in builds compiled with `SQLITE_ENABLE_STMT_SCANSTATUS` (the bundled
//! one is, see docs/sqlite-build.md) and `_v2`, with cycle counts and every loop
//! (`SQLITE_SCANSTAT_COMPLEX`), since 3.42.0; any other build has no profile (`None`).
//!
//! Counting costs time (a cycle-counter read around every VDBE instruction), and 3.42.0 made
//! it a per-connection switch, `SQLITE_DBCONFIG_STMT_SCANSTATUS`, that must be on both when a
//! statement is prepared and when it runs. In the bundled build it is on by default, and it
//! costs: a 1,000,000-row star join ran 20 times took 0.82-0.90 s with it off and 3.07-3.61 s
//! with it on (3.7x). So every connection litebench opens turns it off
//! ([`set_collection`], in `SqliteEngine::connect`), and [`loop_profile`] turns it on for its
//! own untimed statement only and puts it back.

use super::conn::SqliteConn;
use crate::engines::EngineError;
use crate::model::engine_info::LoopProfile;
use libsqlite3_sys as ffi;
use std::ffi::{c_char, c_int, c_void};

/// `SQLITE_DBCONFIG_STMT_SCANSTATUS` (3.42.0).
pub const DBCONFIG_STMT_SCANSTATUS: c_int = 1018;
const SCANSTAT_NLOOP: c_int = 0;
const SCANSTAT_NVISIT: c_int = 1;
const SCANSTAT_EST: c_int = 2;
const SCANSTAT_EXPLAIN: c_int = 4;
const SCANSTAT_SELECTID: c_int = 5;
const SCANSTAT_PARENTID: c_int = 6;
const SCANSTAT_NCYCLE: c_int = 7;
const SCANSTAT_COMPLEX: c_int = 1;

/// Whether the connection collects scan statistics (`None`: the build has no such switch).
pub fn collection(conn: &SqliteConn) -> Option<bool> {
    let mut out: c_int = -1;
    // SAFETY: the connection is open; the option takes (int onoff, int *out); -1 only reads.
    let rc = unsafe {
        (conn.api().db_config)(
            conn.raw_db(),
            DBCONFIG_STMT_SCANSTATUS,
            -1 as c_int,
            &mut out as *mut c_int,
        )
    };
    (rc == ffi::SQLITE_OK && out >= 0).then_some(out != 0)
}

/// Turns collection on or off; returns whether the build has the switch.
pub fn set_collection(conn: &SqliteConn, on: bool) -> bool {
    let mut out: c_int = -1;
    // SAFETY: as in `collection`.
    let rc = unsafe {
        (conn.api().db_config)(
            conn.raw_db(),
            DBCONFIG_STMT_SCANSTATUS,
            c_int::from(on),
            &mut out as *mut c_int,
        )
    };
    rc == ffi::SQLITE_OK && out >= 0
}

/// Runs `sql` once with collection on and returns its loops; `None` where the build keeps no
/// scan status.
pub fn loop_profile(conn: &mut SqliteConn, sql: &str) -> Result<Option<Vec<LoopProfile>>, EngineError> {
    let api = conn.api();
    let Some(scan) = api.stmt_scanstatus_v2 else {
        return Ok(None);
    };
    let before = collection(conn);
    if before.is_some() {
        set_collection(conn, true);
    }
    let result = profile_once(conn, scan, sql);
    if let Some(b) = before {
        set_collection(conn, b);
    }
    result.map(Some)
}

type ScanFn = unsafe extern "C" fn(*mut ffi::sqlite3_stmt, c_int, c_int, c_int, *mut c_void) -> c_int;

fn profile_once(conn: &mut SqliteConn, scan: ScanFn, sql: &str) -> Result<Vec<LoopProfile>, EngineError> {
    let stmt = conn.prepare_raw(sql)?;
    if let Err(rc) = conn.step_all(stmt) {
        let e = conn.error(rc, &format!("running `{sql}` for its loop profile"));
        // SAFETY: the statement was prepared above and is finalized once.
        unsafe { (conn.api().finalize)(stmt) };
        return Err(e);
    }
    let mut loops = Vec::new();
    // SAFETY (every call below): `stmt` is live until the finalize; each out-pointer has the
    // type SQLite documents for its op (i64, double, const char*, int).
    unsafe {
        let get_i64 = |idx: c_int, op: c_int| {
            let mut v: i64 = -1;
            let rc = scan(stmt, idx, op, SCANSTAT_COMPLEX, (&mut v as *mut i64).cast());
            (rc == 0 && v >= 0).then_some(v)
        };
        let get_int = |idx: c_int, op: c_int| {
            let mut v: c_int = 0;
            let rc = scan(stmt, idx, op, SCANSTAT_COMPLEX, (&mut v as *mut c_int).cast());
            (rc == 0).then_some(i64::from(v))
        };
        for idx in 0.. {
            let mut explain: *const c_char = std::ptr::null();
            if scan(
                stmt,
                idx,
                SCANSTAT_EXPLAIN,
                SCANSTAT_COMPLEX,
                (&mut explain as *mut *const c_char).cast(),
            ) != 0
            {
                break;
            }
            let mut est: f64 = -1.0;
            let est_ok = scan(stmt, idx, SCANSTAT_EST, SCANSTAT_COMPLEX, (&mut est as *mut f64).cast()) == 0;
            loops.push(LoopProfile {
                id: get_int(idx, SCANSTAT_SELECTID).unwrap_or(0),
                parent: get_int(idx, SCANSTAT_PARENTID).unwrap_or(0),
                explain: super::api::cstr(explain),
                loops: get_i64(idx, SCANSTAT_NLOOP),
                rows_visited: get_i64(idx, SCANSTAT_NVISIT),
                rows_estimated: (est_ok && est >= 0.0).then_some(est),
                cycles: get_i64(idx, SCANSTAT_NCYCLE),
            });
        }
        (conn.api().finalize)(stmt);
    }
    Ok(loops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::Connection;

    fn star() -> SqliteConn {
        let api = super::super::api::Api::bundled();
        let mut c = SqliteConn::open_memory(api, "sqlite").unwrap();
        c.execute_batch(
            "CREATE TABLE dim(k INTEGER PRIMARY KEY, c INTEGER);
             CREATE TABLE fact(d INTEGER, v INTEGER);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<100)
               INSERT INTO dim SELECT i, i%10 FROM n;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<5000)
               INSERT INTO fact SELECT i%100+1, i FROM n;
             ANALYZE;",
        )
        .unwrap();
        c
    }

    #[test]
    fn the_bundled_build_profiles_every_loop_and_restores_collection() {
        let mut c = star();
        let before = collection(&c);
        let p = c
            .loop_profile("SELECT sum(v) FROM fact, dim WHERE d=k AND c=3")
            .unwrap()
            .expect("the bundled build keeps scan status");
        let scan = p
            .iter()
            .find(|l| l.explain.starts_with("SCAN fact"))
            .expect("the fact scan");
        assert_eq!(scan.loops, Some(1));
        assert_eq!(scan.rows_visited, Some(5000));
        assert!(scan.cycles.unwrap_or(0) > 0, "{scan:?}");
        let search = p
            .iter()
            .find(|l| l.explain.starts_with("SEARCH dim"))
            .expect("the dim search");
        // The Bloom filter lets only the matching tenth through to the search.
        assert_eq!(search.rows_visited, Some(500), "{p:#?}");
        assert!(p.iter().any(|l| l.explain.contains("BLOOM FILTER")), "{p:#?}");
        assert_eq!(collection(&c), before, "collection restored");
    }
}
