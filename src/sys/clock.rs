//! The clock of the timed loop: one cheap reading per operation.
//!
//! `Instant::now()` costs about 25 ns here (vDSO `clock_gettime`); an in-memory SQLite insert
//! costs under 1 us, so a reading per operation alone would be a 3% harness cost. On x86-64
//! with an invariant TSC (`constant_tsc` and `nonstop_tsc` in /proc/cpuinfo) litebench reads the
//! time-stamp counter instead (a few ns) and converts ticks to nanoseconds with a factor
//! calibrated once per process against the monotonic clock. Elsewhere it falls back to
//! `Instant`. Phase boundaries, which decide throughput, always use `Instant`.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A calibrated operation clock.
#[derive(Debug)]
pub struct Clock {
    /// Nanoseconds per tick, as a 32.32 fixed-point factor (0 when the TSC is not used).
    ns_per_tick_fp: u64,
    epoch: Instant,
}

fn invariant_tsc() -> bool {
    cfg!(target_arch = "x86_64")
        && std::fs::read_to_string("/proc/cpuinfo")
            .map(|c| c.contains("constant_tsc") && c.contains("nonstop_tsc"))
            .unwrap_or(false)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ticks() -> u64 {
    // SAFETY: RDTSC has no preconditions on x86-64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn ticks() -> u64 {
    0
}

/// The process-wide clock (calibrated on first use, about 20 ms).
pub fn clock() -> &'static Clock {
    static CLOCK: OnceLock<Clock> = OnceLock::new();
    CLOCK.get_or_init(|| {
        let epoch = Instant::now();
        if !invariant_tsc() {
            return Clock {
                ns_per_tick_fp: 0,
                epoch,
            };
        }
        let (i0, t0) = (Instant::now(), ticks());
        while i0.elapsed() < Duration::from_millis(20) {
            std::hint::spin_loop();
        }
        let (ns, t1) = (i0.elapsed().as_nanos() as u64, ticks());
        let dt = t1.saturating_sub(t0).max(1);
        Clock {
            ns_per_tick_fp: ((ns as u128) << 32).checked_div(dt as u128).unwrap_or(0) as u64,
            epoch,
        }
    })
}

impl Clock {
    /// True when readings come from the time-stamp counter.
    pub fn uses_tsc(&self) -> bool {
        self.ns_per_tick_fp != 0
    }

    /// A reading, in ticks (TSC) or nanoseconds since the clock's epoch.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        if self.ns_per_tick_fp != 0 {
            ticks()
        } else {
            self.epoch.elapsed().as_nanos() as u64
        }
    }

    /// The reading this clock gives at `t` (before or after now): times measured from it
    /// share their start with what was timed on [`Instant`]s.
    pub fn reading_at(&self, t: Instant) -> u64 {
        let (now, at) = (self.now(), Instant::now());
        let ticks = |d: Duration| {
            let ns = d.as_nanos().min(u128::from(u64::MAX));
            if self.ns_per_tick_fp != 0 {
                (ns << 32).checked_div(self.ns_per_tick_fp as u128).unwrap_or(0) as u64
            } else {
                ns as u64
            }
        };
        if t <= at {
            now.saturating_sub(ticks(at - t))
        } else {
            now.saturating_add(ticks(t - at))
        }
    }

    /// The first reading at least `ns` nanoseconds after reading `start` by [`Clock::ns_between`]
    /// (`u64::MAX` where there is none): a time kept as a reading is compared with readings
    /// without converting each of them.
    pub fn first_reading_after(&self, start: u64, ns: u64) -> u64 {
        if self.ns_per_tick_fp == 0 {
            return start.saturating_add(ns);
        }
        let ticks = ((u128::from(ns) << 32) / self.ns_per_tick_fp as u128).min(u128::from(u64::MAX)) as u64;
        let mut r = start.saturating_add(ticks);
        // The division rounds: step to the exact first reading that converts to `ns` or more.
        while r > start && self.ns_between(start, r - 1) >= ns {
            r -= 1;
        }
        while r < u64::MAX && self.ns_between(start, r) < ns {
            r += 1;
        }
        r
    }

    /// Nanoseconds between two readings.
    #[inline(always)]
    pub fn ns_between(&self, earlier: u64, later: u64) -> u64 {
        let d = later.saturating_sub(earlier);
        if self.ns_per_tick_fp != 0 {
            ((d as u128 * self.ns_per_tick_fp as u128) >> 32) as u64
        } else {
            d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_reading_after_a_time_is_the_first_that_converts_to_it() {
        let tsc = |fp: u64| Clock {
            ns_per_tick_fp: fp,
            epoch: Instant::now(),
        };
        // 0.4 ns a tick (2.5 GHz, which rounds), 1 ns a tick, no TSC, and this machine's.
        for c in [
            tsc((4u64 << 32) / 10),
            tsc(1 << 32),
            tsc(0),
            tsc(clock().ns_per_tick_fp),
        ] {
            let start = 1_000_003;
            for ns in [1, 7, 999, 1_000_000, 123_456_789, 1_000_000_000_000] {
                let r = c.first_reading_after(start, ns);
                assert!(c.ns_between(start, r) >= ns, "{ns}: {r}");
                assert!(c.ns_between(start, r - 1) < ns, "{ns}: {r}");
            }
            assert_eq!(c.first_reading_after(start, 0), start);
            assert_eq!(c.first_reading_after(start, u64::MAX), u64::MAX);
        }
    }

    #[test]
    fn a_reading_at_an_earlier_instant_is_that_long_before_now() {
        let c = clock();
        let t = Instant::now();
        std::thread::sleep(Duration::from_millis(30));
        let (then, now) = (c.reading_at(t), c.now());
        let ns = c.ns_between(then, now);
        assert!((30_000_000..200_000_000).contains(&ns), "{ns} ns");
        let later = c.reading_at(Instant::now() + Duration::from_secs(1));
        let ns = c.ns_between(c.now(), later);
        assert!((900_000_000..1_000_100_000).contains(&ns), "{ns} ns");
    }

    #[test]
    fn agrees_with_the_monotonic_clock() {
        let c = clock();
        let (a, i) = (c.now(), Instant::now());
        std::thread::sleep(Duration::from_millis(30));
        let (b, real) = (c.now(), i.elapsed().as_nanos() as f64);
        let measured = c.ns_between(a, b) as f64;
        assert!(
            (measured - real).abs() < real * 0.05 + 200_000.0,
            "clock {measured} ns vs Instant {real} ns"
        );
        assert_eq!(c.ns_between(b, a), 0, "never negative");
    }
}
