//! The timed loop: one client's transactions, each drawn, run (tried again on a lock) and
//! recorded. Compiled per workload and per what a trial needs ([`run_stream`]'s `FULL` and
//! `PHASED`, [`run_interval`], [`run_phased`]), so that the closed loop pays for no schedule,
//! warm-up or series it does not have; its cost per transaction is held to a bound by
//! `benches/overhead-instructions.sh`.

use super::course::Course;
use super::retry::{retried, retry, settle, tries};
use super::schedule::{outside_window, pause_until, wait_until, Schedule, Window};
use super::series::Buckets;
use super::shared::Shared;
use super::Client;
use crate::engines::ErrorKind;
use crate::sys::lock_wait;
use crate::workload::recorder::Recorder;
use crate::workload::WorkloadError;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// One client's loop; returns its last recorded end (nanoseconds after the measured start).
/// `FULL`: with what only some trials need (a schedule or a client's start times, a warm-up,
/// progress lines, checked results, timed parts); without it the loop is a closed loop that
/// reads no wall clock for a count budget. `PHASED`: timed per phase ([`Streams::phase_timed`]),
/// with no time series.
pub(super) fn run_stream<C: Client, const FULL: bool, const PHASED: bool>(
    client: &mut C,
    course: &Course,
    mut schedule: Option<Schedule>,
    shared: &Shared<'_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
) -> Result<u64, WorkloadError> {
    let clock = crate::sys::clock::clock();
    let mut warming = FULL && course.warm_end > course.start;
    // The series' times start where the schedule's do (the measured start, an Instant), not
    // when this thread came to run: a client that woke late under load would otherwise count
    // a scheduled role's first transaction in the interval before its window.
    let mut start_ticks = clock.reading_at(course.warm_end);
    let mut done = 0u64;
    // This client's last recorded end (a reading of the calibrated clock), published once it
    // stops, in nanoseconds after the measured start.
    let mut last_end = 0u64;
    // The open phase's operation type; out of phases, the type the I/O is attributed to.
    let mut phase = None;
    // When this client's last transaction began (open loops only).
    let mut last_began: Option<Instant> = None;
    if !PHASED {
        buckets.begin(rec);
    }
    // The lock waits of the connection's set-up are no transaction's.
    lock_wait::take();
    while done < course.count {
        if shared.halted() || client.done() {
            break;
        }
        if PHASED && client.round_ends() {
            rec.pause();
            phase = None;
            if course.measure.is_some_and(|d| rec.elapsed() >= d) {
                break;
            }
        }
        let turn = Turn { done, last_began };
        let intended = match next_start::<C, FULL, PHASED>(client, course, &mut schedule, shared, rec, buckets, turn) {
            Next::Run(intended) => intended,
            Next::Again => continue,
            Next::End => break,
        };
        let op = client.draw();
        if FULL && warming {
            if Instant::now() < course.warm_end {
                warm_up(client, course, shared)?;
                continue;
            }
            warming = false;
            start_ticks = clock.reading_at(course.warm_end);
            if !PHASED {
                buckets.restart_reading();
            }
            lock_wait::take();
        }
        done += 1;
        // An open loop needs the wall clock for its schedule; the service time of every
        // transaction is read from the calibrated cycle counter, as the recorder's laps are.
        let began = intended.map(|_| Instant::now());
        last_began = began;
        if let (Some(t), Some(b)) = (intended, began) {
            if course.limit.is_some_and(|l| b.saturating_duration_since(t) > l) {
                if !PHASED {
                    buckets.reach(b.saturating_duration_since(course.warm_end).as_nanos() as u64, rec);
                }
                rec.record_skipped(op);
                if shared.shape.progress {
                    shared.progress.skipped.fetch_add(1, Ordering::Relaxed);
                }
                continue;
            }
        }
        // A phase starts with its type's first transaction; its time and I/O are its own. Out of
        // phases, the I/O from here on is `op`'s: it changes hands only where the type changes,
        // as `attribute_io` itself would find (nothing else hands it on within the loop).
        if phase != Some(op) {
            if PHASED {
                rec.phase(op);
            } else {
                rec.attribute_io(op);
            }
            phase = Some(op);
        }
        let lag_ns = intended
            .zip(began)
            .map(|(t, b)| b.saturating_duration_since(t).as_nanos() as u64);
        let (outcome, end) =
            run_and_record::<C, FULL, PHASED>(client, course, shared, rec, buckets, (op, lag_ns, start_ticks))?;
        last_end = end;
        if FULL && course.hooks.check && outcome.is_ok() {
            if let Err(e) = client.check() {
                shared.abort.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        if FULL && course.hooks.pause {
            rest(client, course, shared);
        }
    }
    if PHASED {
        rec.pause();
    } else {
        buckets.close(rec);
    }
    Ok(clock.ns_between(start_ticks, last_end))
}

/// Where [`run_stream`]'s client stands before its next start: how many it ran, and when the
/// last one began (open loops only).
#[derive(Clone, Copy)]
struct Turn {
    done: u64,
    last_began: Option<Instant>,
}

/// What [`next_start`] found.
enum Next {
    /// Draw and run the next transaction, intended at this time (none: a closed loop's now).
    Run(Option<Instant>),
    /// A scheduled role paused until its next window: check the loop's conditions again.
    Again,
    /// The client's run ends here.
    End,
}

/// When [`run_stream`]'s next transaction is intended to start, waited for: the schedule's or
/// the client's own start time, against a scheduled role's windows and the trial's end. A
/// client behind its schedule past the end (or, on a count, by the whole schedule's length)
/// counts what is left of the schedule skipped, not run late; one that was on time when its
/// last transaction began skipped nothing: the trial ended while it served (pgbench counts
/// nothing there either).
#[inline(always)]
fn next_start<C: Client, const FULL: bool, const PHASED: bool>(
    client: &mut C,
    course: &Course,
    schedule: &mut Option<Schedule>,
    shared: &Shared<'_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
    turn: Turn,
) -> Next {
    let intended = if FULL {
        schedule.as_mut().map(Schedule::take).or_else(|| {
            if course.hooks.due {
                client.due().map(|d| course.warm_end + d)
            } else {
                None
            }
        })
    } else {
        None
    };
    if FULL && course.windows.is_some() {
        match outside_window(course, intended, schedule.as_mut(), shared) {
            Window::Open => {}
            Window::Paused => return Next::Again,
            Window::Over => return Next::End,
        }
    }
    if let Some(t) = intended {
        if course.until.is_some_and(|u| t >= u) {
            return Next::End;
        }
        let now = wait_until(t, shared.stop);
        if shared.halted() {
            return Next::End;
        }
        let ended = course.until.is_some_and(|u| now >= u);
        if ended || course.behind.is_some_and(|b| now > t + b) {
            if !(ended && turn.last_began.is_some_and(|b| t >= b)) {
                let skipped = skip_rest::<C, PHASED>(client, course, schedule.as_mut(), turn.done, now, rec, buckets);
                if shared.shape.progress {
                    shared.progress.skipped.fetch_add(skipped, Ordering::Relaxed);
                }
            }
            return Next::End;
        }
    } else if course.until.is_some_and(|u| Instant::now() >= u) {
        return Next::End;
    }
    Next::Run(intended)
}

/// A warm-up transaction of [`run_stream`], drawn already: run, not recorded (a lock is no
/// failure here), its result checked and its rest taken as a measured one's would be.
#[inline(always)]
fn warm_up<C: Client>(client: &mut C, course: &Course, shared: &Shared<'_>) -> Result<(), WorkloadError> {
    match client.execute() {
        Ok(true) if course.hooks.check => client.check()?,
        Ok(_) => {}
        Err(e) if e.kind == ErrorKind::Busy => {}
        Err(e) => return Err(shared.failed(e)),
    }
    if course.hooks.pause {
        rest(client, course, shared);
    }
    Ok(())
}

/// A transaction of [`run_stream`] whose first try met a lock: its type, its schedule's lag
/// (open loops), and on the calibrated clock its start and the measured start.
struct Started {
    op: usize,
    lag_ns: Option<u64>,
    t0: u64,
    start_ticks: u64,
}

/// Runs [`run_stream`]'s transaction of type `op`, drawn (with its schedule's lag, and the
/// measured start on the calibrated clock): timed on that clock from before its first try to
/// the end of its last, and recorded ([`record`]). A first try that went through is recorded
/// on a path of its own, with its outcome and its one try known where it is compiled: no
/// retry's bookkeeping is tested on it. Returns its outcome and end (a reading of the calibrated clock).
#[inline(always)]
fn run_and_record<C: Client, const FULL: bool, const PHASED: bool>(
    client: &mut C,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
    (op, lag_ns, start_ticks): (usize, Option<u64>, u64),
) -> Result<(Result<bool, crate::engines::BusyCause>, u64), WorkloadError> {
    let clock = crate::sys::clock::clock();
    let t0 = clock.now();
    match client.execute() {
        Ok(ok) => {
            let t1 = clock.now();
            let ran = Finished {
                op,
                outcome: Ok(ok),
                tries: 1,
                lag_ns,
                service_ns: clock.ns_between(t0, t1),
                start: start_ticks,
                end: t1,
            };
            Ok((
                Ok(ok),
                record::<C, FULL, PHASED>(client, course, shared, rec, buckets, ran),
            ))
        }
        Err(e) => {
            let started = Started {
                op,
                lag_ns,
                t0,
                start_ticks,
            };
            tried_again::<C, FULL, PHASED>(client, e, course, shared, rec, buckets, started)
        }
    }
}

/// [`run_stream`]'s transaction whose first try failed with `first`: its tries run to their
/// outcome ([`super::retry::retry`]), timed to the end of the last, and recorded as a first
/// try's would be. Returns its outcome and end. Out of line: a closed loop that meets no lock
/// never comes here.
#[cold]
#[inline(never)]
fn tried_again<C: Client, const FULL: bool, const PHASED: bool>(
    client: &mut C,
    first: crate::engines::EngineError,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
    started: Started,
) -> Result<(Result<bool, crate::engines::BusyCause>, u64), WorkloadError> {
    let Started {
        op,
        lag_ns,
        t0,
        start_ticks,
    } = started;
    let clock = crate::sys::clock::clock();
    let (outcome, tries) = retry(client, first, shared, course)?;
    let t1 = clock.now();
    let ran = Finished {
        op,
        outcome,
        tries,
        lag_ns,
        service_ns: clock.ns_between(t0, t1),
        start: start_ticks,
        end: t1,
    };
    Ok((
        outcome,
        record::<C, FULL, PHASED>(client, course, shared, rec, buckets, ran),
    ))
}

/// A transaction [`run_stream`] ran: its type, its outcome after its tries (`Err`: the cause of
/// the last try's lock failure), and its times in nanoseconds (the schedule's lag in an open
/// loop; the service).
struct Finished {
    op: usize,
    outcome: Result<bool, crate::engines::BusyCause>,
    tries: u32,
    lag_ns: Option<u64>,
    service_ns: u64,
    /// The measured start's reading and the transaction's end's, on the calibrated clock.
    start: u64,
    end: u64,
}

/// Records a transaction [`run_stream`] ran, in the interval it ended in: its latency from the
/// intended start in an open loop (the wait for a late start, then the service), its retries,
/// its outcome and timed parts, and `--progress`'s totals. Returns its end.
#[inline(always)]
fn record<C: Client, const FULL: bool, const PHASED: bool>(
    client: &mut C,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
    ran: Finished,
) -> u64 {
    let Finished {
        op,
        outcome,
        tries,
        lag_ns,
        service_ns,
        start,
        end,
    } = ran;
    rec.record_busy_wait(op, lock_wait::take());
    let latency_ns = lag_ns.unwrap_or(0) + service_ns;
    // The series counts a transaction in the interval it ended in.
    if !PHASED {
        buckets.reach_reading(end, start, rec);
    }
    let succeeded = settle(rec, op, outcome, tries);
    if FULL && shared.shape.progress {
        let p = &shared.progress;
        p.retries.fetch_add(u64::from(tries - 1), Ordering::Relaxed);
        match succeeded {
            Some(_) => p.add(latency_ns, lag_ns),
            None => {
                p.busy.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    if let Some(ok) = succeeded {
        rec.record_outcome_ns(op, latency_ns, ok);
        if FULL && course.hooks.parts {
            for &(part, ns) in client.parts() {
                rec.record_outcome_ns(part, ns, true);
            }
        }
        if let Some(lag) = lag_ns {
            rec.record_lag(op, lag);
            if course.limit.is_some_and(|l| latency_ns > l.as_nanos() as u64) {
                rec.record_late(op);
            }
        }
    }
    end
}

/// Draws (and counts one by one, under the types they draw) at most this many of the arrivals
/// a client could not start; past them the rest are counted under the last type drawn, so that
/// an hour at a million a second behind a stalled engine costs no hour to count.
pub(super) const MAX_SKIP_DRAWS: u64 = 1_000_000;

/// Counts as skipped the arrivals a client behind its schedule could not start: the one due
/// now (not drawn yet), then on a time each later one its schedule (or the workload's own start
/// times) had before the trial's end, on a count the rest of its share. Each is drawn, so it
/// is counted under its own type, up to [`MAX_SKIP_DRAWS`]. The series counts them in the
/// interval where the client gave up (the trial's last on a time). Returns how many.
#[cold]
#[inline(never)]
pub(super) fn skip_rest<C: Client, const PHASED: bool>(
    client: &mut C,
    course: &Course,
    mut schedule: Option<&mut Schedule>,
    done: u64,
    now: Instant,
    rec: &mut Recorder,
    buckets: &mut Buckets,
) -> u64 {
    if !PHASED {
        let mut at = now.saturating_duration_since(course.warm_end);
        if let Some(u) = course.until {
            at = at.min(
                u.saturating_duration_since(course.warm_end)
                    .saturating_sub(Duration::from_nanos(1)),
            );
        }
        buckets.reach(at.as_nanos() as u64, rec);
    }
    let mut skipped = 0u64;
    let mut op = client.draw();
    rec.record_skipped(op);
    skipped += 1;
    let on_count = course.until.is_none();
    loop {
        if on_count {
            if done + skipped >= course.count {
                break;
            }
        } else {
            let next = match schedule.as_deref_mut() {
                Some(s) => Some(s.take()),
                None if course.hooks.due => client.due().map(|d| course.warm_end + d),
                None => None,
            };
            match (next, course.until) {
                (Some(t), Some(u)) if t < u => {}
                _ => break,
            }
        }
        if client.done() {
            break;
        }
        if skipped >= MAX_SKIP_DRAWS {
            // The rest at once: on a count what is left of the share; on a time what the
            // schedule's mean gap leaves before the end (the workload's own times: none more).
            let rest = if on_count {
                course.count.saturating_sub(done + skipped)
            } else {
                match (schedule.as_deref(), course.until) {
                    (Some(s), Some(u)) => {
                        (u.saturating_duration_since(s.next).as_nanos() as f64 / s.gap_ns.max(1.0)) as u64 + 1
                    }
                    _ => 0,
                }
            };
            rec.record_skipped_n(op, rest);
            skipped += rest;
            break;
        }
        op = client.draw();
        rec.record_skipped(op);
        skipped += 1;
    }
    skipped
}

/// The rest a client asks for after a transaction ([`Client::pause`]), cut short at the end of
/// a timed budget or on a stop.
pub(super) fn rest<C: Client>(client: &C, course: &Course, shared: &Shared<'_>) {
    if let Some(d) = client.pause() {
        let t = Instant::now() + d;
        pause_until(course.until.map_or(t, |u| t.min(u)), shared);
    }
}

/// The closed loop of a trial measured over one interval, without a series, a schedule or
/// optional calls (TATP's, as VLDB'22 measured it): per transaction no more than the loop it
/// replaced, so that its trials cost what they did. Two readings of the calibrated clock per
/// transaction, around it; the previous transaction's end stands for the next one's start in
/// the warm-up's and the budget's checks (the draw in between takes well under a microsecond).
/// Returns the last recorded end, nanoseconds after the warm-up's end.
pub(super) fn run_interval<C: Client>(
    client: &mut C,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
) -> Result<u64, WorkloadError> {
    let clock = crate::sys::clock::clock();
    let origin = clock.now();
    let at = Instant::now();
    let since_origin = |t: Instant| t.saturating_duration_since(at).as_nanos() as u64;
    let warm_ns = since_origin(course.warm_end);
    let end_ns = course.until.map_or(u64::MAX, since_origin);
    // The previous transaction's end, nanoseconds after `origin`.
    let mut now_ns = 0u64;
    while now_ns < warm_ns {
        if shared.halted() || client.done() {
            return Ok(0);
        }
        client.draw();
        match client.execute() {
            Ok(_) => {}
            Err(e) if e.kind == ErrorKind::Busy => {}
            Err(e) => return Err(shared.failed(e)),
        }
        now_ns = clock.ns_between(origin, clock.now());
    }
    let mut done = 0u64;
    let mut last_end_ns = 0u64;
    // The warm-up's and the set-up's lock waits are no measured transaction's.
    lock_wait::take();
    while done < course.count {
        if shared.halted() || client.done() || now_ns >= end_ns {
            break;
        }
        let op = client.draw();
        done += 1;
        rec.attribute_io(op);
        let t0 = clock.now();
        let (outcome, n) = tries(client, shared, course)?;
        let t1 = clock.now();
        rec.record_busy_wait(op, lock_wait::take());
        if let Some(ok) = settle(rec, op, outcome, n) {
            rec.record_outcome_ns(op, clock.ns_between(t0, t1), ok);
        }
        now_ns = clock.ns_between(origin, t1);
        last_end_ns = now_ns.saturating_sub(warm_ns);
    }
    Ok(last_end_ns)
}

/// The phase-timed closed loop without optional calls (crud's one client, as a run executes
/// it): per transaction it does no more than the phase loop it replaced, so that its cost
/// stays within the project's bound against a bare loop over the C API
/// (`benches/overhead-instructions.sh`). One reading of the calibrated clock per transaction
/// (the recorder's lap: from the phase's start or the previous transaction's end, the client's
/// draw within a round included, as the old loop timed its own indexing); the stop flag; the
/// client's calls. What changes only where a round ends (the other client's failure, none
/// here, one client only; the stream's end; the measured time against the budget) is checked
/// there. No series, no schedule, hence no end to publish.
pub(super) fn run_phased<C: Client>(
    client: &mut C,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
) -> Result<(), WorkloadError> {
    let mut done = 0u64;
    // The open phase's operation type (none between rounds).
    let mut phase = None;
    lock_wait::take();
    while done < course.count {
        if client.round_ends() {
            rec.pause();
            phase = None;
            if shared.halted() || client.done() || course.measure.is_some_and(|d| rec.elapsed() >= d) {
                break;
            }
        } else if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let op = client.draw();
        done += 1;
        // A phase starts with its type's first transaction; its time and I/O are its own.
        if phase != Some(op) {
            rec.phase(op);
            rec.mark();
            phase = Some(op);
        }
        match client.execute() {
            Ok(ok) => rec.lap_outcome(op, ok),
            Err(e) => retried(client, e, op, shared, course, rec)?,
        }
        rec.record_busy_wait(op, lock_wait::take());
    }
    rec.pause();
    Ok(())
}
