//! A transaction that meets a lock, tried again: up to `--max-tries` tries, with the load
//! shape's `--retry-backoff` waits between them. Out of the timed loop's hot path (cold, never
//! inlined), and written once for every loop variant.

use super::course::Course;
use super::schedule::wait_until;
use super::shared::Shared;
use super::Client;
use crate::engines::EngineError;
use crate::workload::recorder::Recorder;
use crate::workload::WorkloadError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The waits before one client's retries: its load shape's backoff, and where it has jitter,
/// the draws from a generator seeded from the client's seed (the same seed, the same waits).
pub(super) struct Waits {
    pub(super) backoff: crate::model::backoff::Backoff,
    pub(super) draws: ChaCha8Rng,
}

impl Waits {
    pub(super) fn new(backoff: crate::model::backoff::Backoff, seed: u64) -> Waits {
        Waits {
            backoff,
            // Apart from the seed's other streams (the transactions', the schedule's).
            draws: ChaCha8Rng::seed_from_u64(seed ^ 0xBAC0_FF00_0000_0001),
        }
    }

    /// The wait before retry `retry` (1: the first).
    pub(super) fn before(&mut self, retry: u32) -> Duration {
        let step = self.backoff.step(retry);
        if self.backoff.jitter() && !step.is_zero() {
            Duration::from_nanos(self.draws.random_range(0..=step.as_nanos() as u64))
        } else {
            step
        }
    }
}

/// [`run_phased`]'s transaction whose first try failed with `first`: its retries, then its
/// outcome recorded as a lap (a lock failure out of tries has no latency: the stopwatch
/// restarts after it).
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
    if tries > 1 {
        rec.record_retries(op, u64::from(tries - 1));
    }
    match outcome {
        Ok(ok) => rec.lap_outcome(op, ok),
        Err(cause) => {
            rec.record_busy(op, cause);
            rec.mark();
        }
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
) -> Result<(Result<bool, crate::engines::BusyCause>, u32), WorkloadError> {
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
