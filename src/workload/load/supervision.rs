//! Client processes (`--client-mode processes`): started and ready before the common start,
//! their progress and reports read on threads of their own, killed when they hold the trial up;
//! and [`serve`], the loop a client process runs for a trial driven by another.

use super::sampler::sample;
use super::series::Buckets;
use super::shared::Shared;
use super::{Budget, Seat, Transactions};
use crate::engines::Connection;
use crate::model::series::SeriesIo;
use crate::workload::recorder::Recorder;
use crate::workload::remote::{ClientReport, Kill, ProgressTotals, RemoteClient};
use crate::workload::{Trial, WorkloadError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Client processes 1.. started and ready before client 0 prepares (the gate sends them off at
/// the common start); those already started are stopped if one cannot start.
pub(super) fn spawn_remotes(trial: &Trial<'_>) -> Result<Vec<Box<dyn RemoteClient>>, WorkloadError> {
    let mut remotes: Vec<Box<dyn RemoteClient>> = Vec::new();
    for index in 1..trial.load.clients {
        match trial.connector.spawn(index, trial.seed, trial.load, None) {
            Ok(r) => remotes.push(r),
            Err(e) => {
                remotes.iter().for_each(|r| r.stop());
                return Err(e);
            }
        }
    }
    Ok(remotes)
}

/// One thread per client process reading its lines: progress as they come (added to the
/// trial's), then its report (a failed one halts the trial).
pub(super) fn read_reports<'s, 'e>(
    scope: &'s std::thread::Scope<'s, 'e>,
    remotes: &'e [Box<dyn RemoteClient>],
    shared: &'e Shared<'e>,
) -> Vec<std::thread::ScopedJoinHandle<'s, Result<ClientReport, WorkloadError>>> {
    remotes
        .iter()
        .map(|r| {
            scope.spawn(move || {
                let last = std::sync::Mutex::new([0u64; 6]);
                let progress = |now: &ProgressTotals| {
                    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                    let d: Vec<u64> = now.iter().zip(last.iter()).map(|(n, l)| n.saturating_sub(*l)).collect();
                    shared.progress.add_totals(&[d[0], d[1], d[2], d[3], d[4], d[5]]);
                    *last = *now;
                };
                let report = r.wait(&progress);
                if report.is_err() {
                    shared.abort.store(true, Ordering::Relaxed);
                }
                report
            })
        })
        .collect()
}

/// A client process's report folded into the trial's, its operation types at `offset` in the
/// trial's (a cast role's `ROLE:OP` types; 0 otherwise): its operations, series cells and I/O,
/// and the end of its last transaction.
pub(super) fn absorb_report(
    report: ClientReport,
    offset: usize,
    rec: &mut Recorder,
    series: &mut Buckets,
    more_io: &mut Vec<SeriesIo>,
    shared: &Shared<'_>,
) {
    rec.absorb_results_at(&report.ops, offset);
    series.absorb_cells(report.cells, offset);
    more_io.extend(report.io);
    shared.last_end_ns.fetch_max(report.last_end_ns, Ordering::Relaxed);
}

/// How long client processes have to send their reports once the driver's own clients ended:
/// as long again as the trial took so far, and at least [`REPORT_GRACE`].
pub fn report_deadline(trial_so_far: Duration) -> Duration {
    trial_so_far.max(REPORT_GRACE)
}

/// The least time a client process has for its report after the driver's own clients ended.
pub const REPORT_GRACE: Duration = Duration::from_secs(10);

/// Waits until every reader of a client process's report has its answer, killing the client
/// processes that hold it up (see [`RemoteClient::kill`]).
pub(super) fn supervise<T>(
    remotes: &[Box<dyn RemoteClient>],
    readers: &[std::thread::ScopedJoinHandle<'_, T>],
    shared: &Shared<'_>,
) {
    if remotes.is_empty() {
        return;
    }
    // The reports are due once the trial's own clients ended; where this process ran none of
    // them (a cast whose workload roles are all processes), not before the trial's planned end.
    let now = Instant::now();
    let ended = match (&shared.budget, shared.start.get()) {
        (Budget::Time(d), Some(s)) => now.max(*s + shared.warmup + *d),
        _ => now,
    };
    let so_far = shared
        .start
        .get()
        .map_or(Duration::ZERO, |s| ended.saturating_duration_since(*s));
    let deadline = ended + report_deadline(so_far);
    while !readers.iter().all(|h| h.is_finished()) {
        let why = if shared.stop.load(Ordering::Relaxed) || shared.abort.load(Ordering::Relaxed) {
            Some(Kill::Abandoned)
        } else if Instant::now() >= deadline {
            Some(Kill::NoReport(deadline - ended))
        } else {
            None
        };
        if let Some(why) = why {
            for (r, h) in remotes.iter().zip(readers) {
                if !h.is_finished() {
                    r.kill(why);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs client `index` of `trial` in this process, a client process of a trial driven by
/// another (see [`crate::workload::remote`]): `ready` is called once its statements are
/// prepared and returns when the driver sends it off (false: stop); `progress` gets its running
/// totals once per interval with `--progress`. Returns what the driver adds to the trial.
pub fn serve(
    conn: &mut dyn Connection,
    tx: &dyn Transactions,
    index: u32,
    trial: &Trial<'_>,
    mut rec: Recorder,
    ready: &(dyn Fn() -> bool + Sync),
    progress: &(dyn Fn(&ProgressTotals) + Sync),
) -> Result<ClientReport, WorkloadError> {
    let shape = trial.load;
    let shared = Shared::new(trial, tx, 1, Some(ready));
    let interval = Duration::from_millis(shape.interval_ms.max(1));
    let mut buckets = Buckets::new(interval, rec.op_names().len());
    let counters = rec.counters();
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        let sampler = (counters.is_some() || shape.progress).then(|| {
            let (shared, done, counters) = (&shared, &done, counters.clone());
            scope.spawn(move || {
                let tick = |_: u32| {
                    if shape.progress {
                        progress(&shared.progress.totals());
                    }
                };
                sample(shared, interval, counters, None, done, &tick)
            })
        });
        let seat = Seat {
            index,
            trial,
            shared: &shared,
            rec: &mut rec,
            buckets: &mut buckets,
            role: None,
            serial: None,
        };
        let result = tx.run_client(conn, seat);
        done.store(true, Ordering::Relaxed);
        if let Some(Ok(marks)) = sampler.map(|s| s.join()) {
            buckets.io = marks.io;
        }
        result
    });
    result?;
    let io = buckets.io(rec.io_snapshot());
    Ok(ClientReport {
        cells: buckets.report_cells(),
        io,
        last_end_ns: shared.last_end_ns.load(Ordering::Relaxed),
        ops: rec.finish().0,
    })
}
