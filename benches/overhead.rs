//! Harness overhead: litebench's per-operation cost versus a bare loop over the SQLite C API.
//!
//! Both sides run the crud statements (autocommit INSERT, UPDATE, DELETE by integer key with a
//! 100-byte text value) on an in-memory database of the same size with the bundled SQLite,
//! interleaved A B A B so machine drift hits both alike. Side A is litebench's own trial code:
//! the `crud` workload through the load driver's client loop (one client in a closed loop,
//! timed per phase, as a run executes it), the `Connection` trait, the function-pointer API
//! table, per-op timing and HDR histograms. Side B is the minimum: prepared statements, bind, step, reset, one
//! clock reading per phase. Run with `cargo bench --bench overhead` and read the ratio.
//!
//! Wall-clock ratios wander on shared machines (1.00 and 1.06 an hour apart on the same VM), so
//! the bench can also run one side once (`LITEBENCH_OVERHEAD_SIDE=litebench|driver|bare`,
//! `LITEBENCH_OVERHEAD_OPS=N`) for an instruction count under valgrind, as SQLite's own speed
//! checks do: `benches/overhead-instructions.sh` counts each side's timed loop with callgrind
//! (population and start-up are outside it) and divides by the operations.

use libsqlite3_sys as ffi;
use litebench::engines::sqlite::engine::{SqliteChoice, SqliteEngine};
use litebench::engines::{DbRef, Engine};
use litebench::model::params;
use litebench::workload::recorder::Recorder;
use litebench::workload::{crud::Crud, Connector, Trial, Workload, WorkloadError};
use rand::{Rng, SeedableRng};
use std::ffi::c_int;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

const ROWS: u64 = 20_000;
const DEFAULT_OPS: u64 = 20_000;
const VALUE: usize = 100;
const ROUNDS: usize = 30;
/// The `driver` side's series interval: an hour, longer than its trial.
const ONE_INTERVAL_MS: u64 = 3_600_000;

struct NoMore;

impl Connector for NoMore {
    fn open(&self) -> Result<Box<dyn litebench::engines::Connection>, WorkloadError> {
        unreachable!("crud uses one connection")
    }
}

/// litebench's side: crud's trial as a run executes it, through the load driver's client loop
/// with one client in a closed loop, timed per phase. `driver`: the same loop timed as a run
/// with several clients, a rate or lock retries times it (`max_tries=2`): every operation type
/// over the trial's wall time, with a time series and lock retries armed.
fn litebench_side(engine: &SqliteEngine, round: u64, ops: u64, driver: bool) -> Duration {
    let args: Vec<String> = [
        format!("rows={ROWS}"),
        format!("inserts={ops}"),
        format!("updates={ops}"),
        format!("deletes={ops}"),
    ]
    .into();
    let p = params::resolve("crud", Crud.kind().params, &args).unwrap();
    let mut conn = engine
        .connect(&DbRef {
            name: "bench".into(),
            path: None,
        })
        .unwrap();
    Crud.populate(conn.as_mut(), &litebench::workload::Population::plain(&p, 7))
        .unwrap();
    let mut rec = Recorder::new(Crud.kind().operations, Some(engine.counters.clone()));
    let stop = AtomicBool::new(false);
    let mut trial = Trial::plain(&p, round, &stop, &NoMore);
    // A second try on a lock makes the load shape other than the default, so crud's trial is
    // not timed per phase; an in-memory database never meets a lock. The series' interval is
    // longer than any trial here, under valgrind too: the trial is one interval, closed once
    // at its end, so that what an instruction count includes does not depend on how long the
    // trial took (a one-second interval closed once or twice, by the machine's speed).
    let shaped = litebench::model::load::LoadShape {
        max_tries: 2,
        interval_ms: ONE_INTERVAL_MS,
        ..Default::default()
    };
    if driver {
        trial.load = &shaped;
    }
    Crud.run(conn.as_mut(), &trial, &mut rec).unwrap();
    if driver {
        // One interval, or the instruction count would depend on the machine's speed.
        let intervals = rec.take_series().map_or(0, |s| {
            let starts: std::collections::BTreeSet<u64> = s.points.iter().map(|p| p.t_ms).collect();
            starts.len()
        });
        assert_eq!(
            intervals, 1,
            "the driver side's trial spanned {intervals} series intervals: raise ONE_INTERVAL_MS"
        );
    }
    rec.finish().1
}

unsafe fn exec(db: *mut ffi::sqlite3, sql: &std::ffi::CStr) {
    assert_eq!(
        ffi::sqlite3_exec(db, sql.as_ptr(), None, std::ptr::null_mut(), std::ptr::null_mut()),
        ffi::SQLITE_OK
    );
}

unsafe fn prepare(db: *mut ffi::sqlite3, sql: &std::ffi::CStr) -> *mut ffi::sqlite3_stmt {
    let mut s = std::ptr::null_mut();
    assert_eq!(
        ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut s, std::ptr::null_mut()),
        ffi::SQLITE_OK
    );
    s
}

unsafe fn step(s: *mut ffi::sqlite3_stmt) {
    assert_eq!(ffi::sqlite3_step(s), ffi::SQLITE_DONE);
    ffi::sqlite3_reset(s);
}

/// The bare side's timed loop, in a function of its own so an instruction count can be limited
/// to it (`benches/overhead-instructions.sh`).
#[inline(never)]
fn bare_timed(
    [ins, upd, del]: [*mut ffi::sqlite3_stmt; 3],
    inserts: &[(i64, Vec<u8>)],
    updates: &[(i64, Vec<u8>)],
    deletes: &[i64],
) -> Duration {
    let t = Instant::now();
    // SAFETY: the statements are prepared on an open connection and outlive the loop; the
    // values outlive each step (SQLITE_TRANSIENT copies them anyway).
    unsafe {
        for (id, v) in inserts {
            ffi::sqlite3_bind_int64(ins, 1, *id);
            ffi::sqlite3_bind_text(ins, 2, v.as_ptr().cast(), VALUE as c_int, ffi::SQLITE_TRANSIENT());
            step(ins);
        }
        for (id, v) in updates {
            ffi::sqlite3_bind_int64(upd, 1, *id);
            ffi::sqlite3_bind_text(upd, 2, v.as_ptr().cast(), VALUE as c_int, ffi::SQLITE_TRANSIENT());
            step(upd);
        }
        for id in deletes {
            ffi::sqlite3_bind_int64(del, 1, *id);
            step(del);
        }
    }
    t.elapsed()
}

fn bare_side(round: u64, ops: u64) -> Duration {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(round);
    let text = |rng: &mut rand_chacha::ChaCha8Rng| -> Vec<u8> {
        (0..VALUE).map(|_| b'A' + rng.random_range(0..26u8)).collect()
    };
    // Generate everything first, as litebench does.
    let pop: Vec<Vec<u8>> = (0..ROWS).map(|_| text(&mut rng)).collect();
    let mut live: Vec<i64> = (1..=ROWS as i64).collect();
    let inserts: Vec<(i64, Vec<u8>)> = (0..ops as i64).map(|i| (ROWS as i64 + 1 + i, text(&mut rng))).collect();
    live.extend(inserts.iter().map(|x| x.0));
    let updates: Vec<(i64, Vec<u8>)> = (0..ops)
        .map(|_| (live[rng.random_range(0..live.len())], text(&mut rng)))
        .collect();
    let deletes: Vec<i64> = (0..ops)
        .map(|_| live.swap_remove(rng.random_range(0..live.len())))
        .collect();
    unsafe {
        let mut db = std::ptr::null_mut();
        // The same open flags litebench uses (no per-connection mutex: one thread per connection).
        let flags = ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE | ffi::SQLITE_OPEN_NOMUTEX;
        assert_eq!(
            ffi::sqlite3_open_v2(c":memory:".as_ptr(), &mut db, flags, std::ptr::null()),
            ffi::SQLITE_OK
        );
        exec(db, c"CREATE TABLE crud(id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
        let ins = prepare(db, c"INSERT INTO crud(id, value) VALUES (?1, ?2)");
        let upd = prepare(db, c"UPDATE crud SET value = ?2 WHERE id = ?1");
        let del = prepare(db, c"DELETE FROM crud WHERE id = ?1");
        exec(db, c"BEGIN");
        for (i, v) in pop.iter().enumerate() {
            ffi::sqlite3_bind_int64(ins, 1, i as i64 + 1);
            ffi::sqlite3_bind_text(ins, 2, v.as_ptr().cast(), VALUE as c_int, ffi::SQLITE_TRANSIENT());
            step(ins);
        }
        exec(db, c"COMMIT");
        let elapsed = bare_timed([ins, upd, del], &inserts, &updates, &deletes);
        for s in [ins, upd, del] {
            ffi::sqlite3_finalize(s);
        }
        ffi::sqlite3_close(db);
        elapsed
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    litebench_stats::median(&v)
}

fn main() {
    let engine = SqliteEngine::open(&SqliteChoice::Bundled, true).unwrap();
    let ops: u64 = std::env::var("LITEBENCH_OVERHEAD_OPS")
        .ok()
        .map(|v| v.parse().expect("LITEBENCH_OVERHEAD_OPS: a number of operations"))
        .unwrap_or(DEFAULT_OPS);
    let per_op = |d: Duration| d.as_nanos() as f64 / (3 * ops) as f64;
    // One side, once: for an instruction count under cachegrind.
    if let Ok(side) = std::env::var("LITEBENCH_OVERHEAD_SIDE") {
        let d = match side.as_str() {
            "litebench" => litebench_side(&engine, 1, ops, false),
            "driver" => litebench_side(&engine, 1, ops, true),
            "bare" => bare_side(1, ops),
            other => panic!("LITEBENCH_OVERHEAD_SIDE={other}: litebench, driver or bare"),
        };
        println!("{side}: {ops} ops of each kind, {:.0} ns/op", per_op(d));
        return;
    }
    let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    litebench_side(&engine, 0, ops, false);
    bare_side(0, ops);
    for round in 1..=ROUNDS as u64 {
        let x = per_op(litebench_side(&engine, round, ops, false));
        let y = per_op(bare_side(round, ops));
        a.push(x);
        b.push(y);
        ratios.push(x / y);
    }
    let s = litebench_stats::summarize(&ratios).unwrap();
    let r = litebench_stats::ratio_of_medians(&b, &a, litebench_stats::Better::Lower, 0.02, 42).unwrap();
    println!("in-memory crud, {ROWS} rows, {ops} inserts + {ops} updates + {ops} deletes, {ROUNDS} interleaved rounds");
    println!(
        "litebench: median {:.0} ns/op   bare C API loop: median {:.0} ns/op",
        median(a),
        median(b)
    );
    println!(
        "ratio of medians litebench/bare: {:.3}, 95% bootstrap CI {:.3}..{:.3}",
        r.ratio,
        r.ci95.map_or(f64::NAN, |c| c.low),
        r.ci95.map_or(f64::NAN, |c| c.high),
    );
    println!(
        "per-round ratios: median {:.3} (95% CI of the median {:.3}..{:.3}), min {:.3}, max {:.3}",
        s.median,
        s.median_ci95.map_or(f64::NAN, |c| c.low),
        s.median_ci95.map_or(f64::NAN, |c| c.high),
        s.min,
        s.max
    );
}
