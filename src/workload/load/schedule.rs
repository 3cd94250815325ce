//! When a client's next transaction is due, and how it waits for it: an open loop's intended
//! starts ([`Schedule`]), a scheduled cast role's windows ([`Window`]), and the waits that end
//! early on a stop. Apart from the timed loop because they run between transactions, never
//! inside one's clock.

use super::course::Course;
use super::shared::Shared;
use crate::model::load::Arrival;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The intended start times of one client's open loop.
pub(super) struct Schedule {
    pub(super) next: Instant,
    /// Mean gap between this client's intended starts, nanoseconds.
    pub(super) gap_ns: f64,
    pub(super) arrival: Arrival,
    pub(super) rng: ChaCha8Rng,
}

impl Schedule {
    pub(super) fn new(start: Instant, rate_per_client: f64, arrival: Arrival, seed: u64) -> Schedule {
        let mut s = Schedule {
            next: start,
            gap_ns: 1e9 / rate_per_client,
            arrival,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5C4E_D01E),
        };
        s.next = start + s.gap();
        s
    }

    pub(super) fn gap(&mut self) -> Duration {
        let ns = match self.arrival {
            Arrival::Uniform => self.gap_ns,
            // Exponential: -ln(U) times the mean, U in (0, 1].
            Arrival::Poisson => -(1.0 - self.rng.random::<f64>()).ln() * self.gap_ns,
        };
        Duration::from_nanos(ns.min(1e15) as u64)
    }

    /// Starts again at `t` (a scheduled role's next window), with no backlog from its pause.
    pub(super) fn restart(&mut self, t: Instant) {
        self.next = t;
    }

    /// The next intended start, and moves the schedule past it.
    pub(super) fn take(&mut self) -> Instant {
        let t = self.next;
        let g = self.gap();
        self.next += g;
        t
    }
}

/// Where a scheduled cast role's transaction falls against its windows.
pub(super) enum Window {
    /// In a window: it runs.
    Open,
    /// It was outside: the client paused until the next window (an open loop's starts resume
    /// there, with no backlog from the pause); draw again.
    Paused,
    /// After the last window, or the next one starts past the trial's end.
    Over,
}

/// Checks a transaction intended at `intended` (now, in a closed loop) against the course's
/// windows, and pauses until the next one where it falls outside.
pub(super) fn outside_window(
    course: &Course,
    intended: Option<Instant>,
    schedule: Option<&mut Schedule>,
    shared: &Shared<'_>,
) -> Window {
    let Some(windows) = &course.windows else {
        return Window::Open;
    };
    let at = intended.unwrap_or_else(Instant::now);
    let Some(from) = windows.running_from(at.saturating_duration_since(course.warm_end)) else {
        return Window::Over;
    };
    let from = course.warm_end + from;
    if from <= at {
        return Window::Open;
    }
    if course.until.is_some_and(|u| from >= u) {
        return Window::Over;
    }
    pause_until(from, shared);
    if let Some(s) = schedule {
        s.restart(from);
    }
    Window::Paused
}

/// Waits until `t` in steps, ending early when the trial halts (a stop request, or another
/// client's failure): a scheduled role's pause can last most of a trial.
pub(super) fn pause_until(t: Instant, shared: &Shared<'_>) {
    while Instant::now() < t && !shared.halted() {
        wait_until(t.min(Instant::now() + Duration::from_millis(20)), shared.stop);
    }
}

/// Waits until `t`: sleeps while far, then yields, so that a start is late by microseconds,
/// not by a scheduler tick. Returns the time it read last (`t` or later, unless stopped).
pub(super) fn wait_until(t: Instant, stop: &AtomicBool) -> Instant {
    loop {
        let now = Instant::now();
        if now >= t || stop.load(Ordering::Relaxed) {
            return now;
        }
        let left = t - now;
        if left > Duration::from_millis(2) {
            std::thread::sleep((left - Duration::from_millis(1)).min(Duration::from_millis(50)));
        } else if left > Duration::from_micros(100) {
            std::thread::sleep(Duration::from_micros(50));
        } else {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::load::client_seed;

    #[test]
    fn schedules_keep_their_rate_and_are_seeded() {
        let start = Instant::now();
        for arrival in [Arrival::Poisson, Arrival::Uniform] {
            let mut s = Schedule::new(start, 1000.0, arrival, 7);
            let mut last = start;
            for _ in 0..20_000 {
                let t = s.take();
                assert!(t >= last);
                last = t;
            }
            // 20,000 starts at 1000/s: 20 s of schedule, within 3% for Poisson (sd ~0.7%).
            let secs = (last - start).as_secs_f64();
            assert!((secs - 20.0).abs() < 0.6, "{arrival:?}: {secs}");
        }
        let a: Vec<Instant> = {
            let mut s = Schedule::new(start, 50.0, Arrival::Poisson, 9);
            (0..50).map(|_| s.take()).collect()
        };
        let b: Vec<Instant> = {
            let mut s = Schedule::new(start, 50.0, Arrival::Poisson, 9);
            (0..50).map(|_| s.take()).collect()
        };
        assert_eq!(a, b, "same seed, same schedule");
        assert_ne!(client_seed(1, 0), client_seed(1, 1));
    }
}
