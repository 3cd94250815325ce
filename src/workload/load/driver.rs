//! The driver: one trial's clients started together (client 0 on this thread, the others on
//! threads or in client processes of their own), their records gathered into the trial's, and
//! the first failure among them returned.

use super::sampler::spawn_sampler;
use super::series::{record_series_and_interval, Buckets};
use super::shared::Shared;
use super::supervision::{absorb_report, read_reports, spawn_remotes, supervise};
use super::{roles, shared_connection, RoleSeat, Seat, Transactions};
use crate::engines::Connection;
use crate::workload::recorder::Recorder;
use crate::workload::{Trial, WorkloadError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The first error of the clients that is not just "stopped because another failed".
pub(super) fn first_error(results: Vec<Result<(), WorkloadError>>) -> Result<(), WorkloadError> {
    let mut interrupted = false;
    for r in results {
        match r {
            Ok(()) => {}
            Err(WorkloadError::Interrupted) => interrupted = true,
            Err(e) => return Err(e),
        }
    }
    if interrupted {
        Err(WorkloadError::Interrupted)
    } else {
        Ok(())
    }
}

/// Runs one trial of `tx` with the trial's load shape: client 0 on this thread with `conn`, the
/// others on threads of their own, or (`--client-mode processes`) in processes of their own,
/// started through the trial's connector and sent off together with client 0. The trial's
/// measured interval is from the common start to the end of the last transaction (at least the
/// budget's time), and every operation type's throughput is over it.
pub fn drive(
    conn: &mut dyn Connection,
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    rec: &mut Recorder,
) -> Result<(), WorkloadError> {
    if let Some(cast) = &trial.load.cast {
        return roles::drive(conn, tx, trial, rec, cast);
    }
    if let Some(name) = trial.connector.driver() {
        return super::driven::drive(tx, trial, rec, name);
    }
    let shape = trial.load;
    let processes = shape.processes();
    // Client processes are started, and ready, before client 0 prepares; the gate sends them
    // off at the common start.
    let remotes = if processes { spawn_remotes(trial)? } else { Vec::new() };
    let go = || remotes.iter().all(|r| r.go());
    let in_process = if processes { 1 } else { shape.clients };
    let mut shared = Shared::new(
        trial,
        tx,
        in_process,
        processes.then_some(&go as &(dyn Fn() -> bool + Sync)),
    );
    shared.counting = rec.counts_instructions() && !shared.phased && !shared.op_timed;
    let interval = Duration::from_millis(shape.interval_ms.max(1));
    let names = rec.op_names();
    let mut series = Buckets::new(interval, names.len());
    let counters = rec.counters();
    let clients_done = AtomicBool::new(false);
    let mut more_io = Vec::new();
    // `--connections shared`: every client, client 0 included, on the trial's connection.
    let (one, alone) = match shape.shares_connection() {
        true => (Some(shared_connection::SharedConnection::new(conn)?), None),
        false => (None, Some(conn)),
    };
    let one = one.as_ref();
    let serial = one.map(shared_connection::SharedConnection::transaction_lock);
    let results = std::thread::scope(|scope| {
        // The counters at every interval's start, on the clock.
        // A phase-timed trial has no series, and no progress lines (as its phases never had).
        let sampler = spawn_sampler(scope, &shared, trial, counters.clone(), &clients_done, processes);
        let readers = read_reports(scope, &remotes, &shared);
        let mut handles = Vec::new();
        for index in (1..shape.clients).filter(|_| !processes) {
            // Every client attributes its own thread's I/O to its own operations.
            let mut own = rec.sibling();
            let mut buckets = Buckets::new(interval, names.len());
            let shared = &shared;
            handles.push(scope.spawn(move || {
                let conn = match one {
                    Some(one) => ThreadConnection::Lent(one),
                    None => ThreadConnection::Own(None),
                };
                let result = thread_client(tx, trial, shared, (index, None), conn, &mut own, &mut buckets);
                (result, own, buckets)
            }));
        }
        let seat = Seat {
            index: 0,
            trial,
            shared: &shared,
            rec,
            buckets: &mut series,
            role: None,
            serial,
        };
        let mut lent = one.map(shared_connection::SharedConnection::lend);
        let conn: &mut dyn Connection = match (lent.as_mut(), alone) {
            (Some(l), _) => l,
            (None, Some(c)) => c,
            (None, None) => unreachable!("the trial's connection is client 0's or the shared one"),
        };
        let mut results = vec![tx.run_client(conn, seat)];
        shared.loop_ended();
        if shared.halted() || results[0].is_err() {
            // Client processes stop too (or, if client 0 never started, never start).
            remotes.iter().for_each(|r| r.stop());
        }
        for h in handles {
            match h.join() {
                Ok((result, own, buckets)) => {
                    rec.absorb(own);
                    series.absorb(buckets);
                    results.push(result);
                }
                Err(_) => results.push(Err(panicked())),
            }
        }
        // Client processes send their reports once their loops end; one that is stopped
        // (SIGSTOP), hung or lost would hold the trial up for ever, so it is killed: at once
        // after a stop request or a failed client, and after a deadline otherwise.
        supervise(&remotes, &readers, &shared);
        for h in readers {
            results.push(match h.join() {
                Ok(report) => report.map(|r| absorb_report(r, 0, rec, &mut series, &mut more_io, &shared)),
                Err(_) => Err(panicked()),
            });
        }
        clients_done.store(true, Ordering::Relaxed);
        if let Some(Ok(marks)) = sampler.map(|s| s.join()) {
            series.io = marks.io;
            series.files = marks.files;
        }
        results
    });
    first_error(results)?;
    if !shared.phased && !shared.op_timed {
        // (A phased trial's time per operation type is its phases' wall time, as the recorder
        // summed it; an operation-timed trial's the time inside its operations.)
        record_series_and_interval(rec, &shared, series, &names, more_io);
    }
    Ok(())
}

/// Where a client thread's connection comes from: its own, opened with a cast role's knobs
/// over the configuration's (none: the configuration's), or the one shared connection, lent
/// for each transaction (`--connections shared`).
pub(super) enum ThreadConnection<'c, 'a> {
    Own(Option<&'c [(String, String)]>),
    Lent(&'c shared_connection::SharedConnection<'a>),
}

/// Runs client `index` (of `role`, in a cast) on a thread of its own, as [`drive`] and a cast's
/// roles do for every client but the trial's own: its loop on its connection, its thread's I/O
/// left to its own recorder. A connection of its own is kept until the sampler's last reading
/// of the files, and a client that cannot open one stops the others at the common start.
pub(super) fn thread_client(
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    shared: &Shared<'_>,
    (index, role): (u32, Option<RoleSeat<'_>>),
    conn: ThreadConnection<'_, '_>,
    own: &mut Recorder,
    buckets: &mut Buckets,
) -> Result<(), WorkloadError> {
    // The client's seat; only a lent connection's transactions are serialized.
    let seat = |serial| Seat {
        index,
        trial,
        shared,
        rec: own,
        buckets,
        role,
        serial,
    };
    let opened = match conn {
        ThreadConnection::Lent(one) => {
            let ran = tx.run_client(&mut one.lend(), seat(Some(one.transaction_lock())));
            own.leave_thread();
            shared.loop_ended();
            return ran;
        }
        ThreadConnection::Own(None) => trial.connector.open(),
        ThreadConnection::Own(Some(knobs)) => trial.connector.open_with(knobs),
    };
    match opened {
        Ok(mut c) => {
            // Dropped before the connection: its statements are interrupted on a stop request
            // while it is open.
            let _interrupted_on_stop = trial.watch.map(|w| w.register(c.as_ref()));
            let ran = tx.run_client(c.as_mut(), seat(None));
            own.leave_thread();
            shared.loop_ended();
            shared.before_close();
            ran
        }
        Err(e) => {
            shared.loop_ended();
            shared.rendezvous(false);
            Err(e)
        }
    }
}

pub(super) fn panicked() -> WorkloadError {
    WorkloadError::Verification {
        workload: "load driver".into(),
        detail: "a client thread panicked".into(),
    }
}
