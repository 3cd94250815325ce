//! How one client runs, fixed when the clients meet at the common start: its share of the
//! budget, its schedule's bounds, its hooks and the waits before its retries. A type of its own,
//! below the loop, the retries and the schedule that all read it.

use super::Hooks;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// How one client runs, fixed before its first transaction.
pub(super) struct Course {
    /// The common start, and where the warm-up ends and the measured interval starts.
    pub(super) start: Instant,
    pub(super) warm_end: Instant,
    /// A scheduled cast role's windows, after `warm_end`.
    pub(super) windows: Option<crate::model::cast::Schedule>,
    /// This client's share of a count budget (`u64::MAX` for the others).
    pub(super) count: u64,
    /// Where a time budget ends; in a phase-timed trial, the measured time it allows instead.
    pub(super) until: Option<Instant>,
    pub(super) measure: Option<Duration>,
    pub(super) limit: Option<Duration>,
    /// An open loop on a count: how far behind its schedule a client may fall before it gives
    /// up the rest of its share (see the module's docs); none on a time (`until` ends it).
    pub(super) behind: Option<Duration>,
    pub(super) max_tries: u32,
    pub(super) hooks: Hooks,
    /// The waits before retries ([`Waits`]): boxed, so that the loop's own state stays as
    /// small as before `--retry-backoff`.
    pub(super) waits: Box<std::cell::RefCell<Waits>>,
}

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
