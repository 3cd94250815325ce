//! A transaction that meets a lock, tried again: up to `--max-tries` tries, with the load
//! shape's `--retry-backoff` waits between them. Out of the timed loop's hot path (cold, never
//! inlined), and written once for every loop variant.

use super::course::Course;
use super::schedule::wait_until;
use super::shared::Shared;
use super::Client;
use crate::engines::{BusyCause, EngineError};
use crate::workload::recorder::Recorder;
use crate::workload::WorkloadError;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A transaction's tries, run to their outcome: the first, and where it met a lock, [`retry`]'s.
/// Ok(succeeded), or Err(the cause of the last try's lock failure) once out of tries, and how
/// many tries it took. The one try every loop variant times around.
#[inline(always)]
pub(super) fn tries<C: Client>(
    client: &mut C,
    shared: &Shared<'_>,
    course: &Course,
) -> Result<(Result<bool, BusyCause>, u32), WorkloadError> {
    match client.execute() {
        Ok(ok) => Ok((Ok(ok), 1)),
        Err(e) => retry(client, e, shared, course),
    }
}

/// What a transaction's tries count, the same in every loop variant: its retries, and a lock
/// failure out of tries under its cause. Returns whether it succeeded by the workload's rules,
/// or none when it never got through (it has no latency): what the variant then times.
#[inline(always)]
pub(super) fn settle(rec: &mut Recorder, op: usize, outcome: Result<bool, BusyCause>, tries: u32) -> Option<bool> {
    if tries > 1 {
        rec.record_retries(op, u64::from(tries - 1));
    }
    match outcome {
        Ok(ok) => Some(ok),
        Err(cause) => {
            rec.record_busy(op, cause);
            None
        }
    }
}

/// [`run_phased`]'s transaction whose first try failed with `first`: its retries, then its
/// outcome recorded as a lap (a lock failure out of tries has no latency: the stopwatch
/// restarts after it). Apart from the phase loop, whose first try records its lap inline.
#[cold]
#[inline(never)]
pub(super) fn retried<C: Client>(
    client: &mut C,
    first: EngineError,
    op: usize,
    shared: &Shared<'_>,
    course: &Course,
    rec: &mut Recorder,
) -> Result<(), WorkloadError> {
    let (outcome, tries) = retry(client, first, shared, course)?;
    match settle(rec, op, outcome, tries) {
        Some(ok) => rec.lap_outcome(op, ok),
        None => rec.mark(),
    }
    Ok(())
}

/// A transaction's first try failed with `first`: tries it again while it meets a lock and has
/// tries left. Returns its outcome (`Err`: the cause of the last try's lock failure, out of
/// tries) and how many tries it took; an error that is not a lock fails the trial, and after a
/// stop request every error is the stop's. Before each retry it waits as the load shape's
/// `--retry-backoff` says (a stop request cuts the wait short). A transaction the client
/// says is not retried ([`Client::retries`]) gives up after its first lock.
#[cold]
#[inline(never)]
pub(super) fn retry<C: Client>(
    client: &mut C,
    first: EngineError,
    shared: &Shared<'_>,
    course: &Course,
) -> Result<(Result<bool, BusyCause>, u32), WorkloadError> {
    let mut e = first;
    let mut tries = 1;
    loop {
        // Not again once stopped: the stop is what failed it.
        if shared.stop.load(Ordering::Relaxed) {
            return Err(WorkloadError::Interrupted);
        }
        match e.lock_cause() {
            Some(_) if tries < course.max_tries && client.retries() => {
                let wait = course.waits.borrow_mut().before(tries);
                if !wait.is_zero() {
                    wait_until(Instant::now() + wait, shared.stop);
                    if shared.stop.load(Ordering::Relaxed) {
                        return Err(WorkloadError::Interrupted);
                    }
                }
                tries += 1;
                match client.execute() {
                    Ok(ok) => return Ok((Ok(ok), tries)),
                    Err(again) => e = again,
                }
            }
            Some(cause) => return Ok((Err(cause), tries)),
            None => return Err(shared.failed(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::BusyCause;

    /// Every loop variant counts a transaction's tries through [`settle`]: its retries, and a
    /// lock failure out of tries as busy under its cause, with no success to time.
    #[test]
    fn settled_tries_count_their_retries_and_a_failure_out_of_tries_as_busy() {
        let mut rec = Recorder::new(&["write"], None);
        assert_eq!(settle(&mut rec, 0, Ok(true), 1), Some(true));
        assert_eq!(settle(&mut rec, 0, Ok(false), 2), Some(false));
        assert_eq!(settle(&mut rec, 0, Err(BusyCause::Upgrade), 3), None);
        let (ops, _) = rec.finish();
        assert_eq!(ops[0].retries, 3, "{:?}", ops[0]);
        assert_eq!(ops[0].busy, 1, "{:?}", ops[0]);
        assert_eq!(ops[0].busy_upgrade, Some(1), "{:?}", ops[0]);
    }
}
