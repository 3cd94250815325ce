//! Emulated storage: a delay slept after each sync, read or write of a database's files
//! (`--storage sync=2ms`), so a run answers "what if my volume's sync took 2 ms" on a laptop.
//!
//! The delay is added by the counting VFS ([`crate::engines::sqlite::vfs`]) after the real call
//! returned, on the thread that made it, and only while a trial holds an [`Active`] guard: the
//! template's population, the results store and anything outside a trial run at the disk's
//! own speed. A drawn delay (`lognormal(1ms,0.5)`: median and sigma) comes from a generator per
//! thread, seeded from the trial's seed and the client's ([`seed_thread`]), so a trial's draws
//! repeat from run to run, for client threads and client processes alike.
//!
//! `std::thread::sleep` overshoots: measured on the 2-core VM this was written on (200 sleeps
//! each, under two concurrent builds), by a median of 95 µs at 1 ms and 105 µs at 2 ms, p99
//! 1.1-1.5 ms. [`sleep_for`] sleeps all but the last [`SPIN`] and yields until the deadline,
//! which measured a median overshoot of 0 µs (p99 34-308 µs, a descheduled thread). What was
//! actually slept is what is counted ([`crate::sys::iocount::SleptIo`]), so a report states the
//! delay added, not the one asked for.

use crate::sys::iocount::{DelayedOp, IoCounters};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// The part of a delay slept by busy yielding instead of `thread::sleep`, whose overshoot is
/// about 100 µs here.
pub const SPIN: Duration = Duration::from_micros(150);

/// One operation's delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Delay {
    /// The same every time.
    Fixed(Duration),
    /// Drawn from a log-normal law with this median and sigma (of the logarithm).
    LogNormal { median: Duration, sigma: f64 },
    /// Drawn from a measured distribution given by its minimum, median, 99th percentile and
    /// maximum (`qualify`'s sync latency: `--storage from=qualify.json`), linearly between them.
    Quantiles([Duration; 4]),
    /// As [`Delay::Quantiles`] with the 90th and 99.9th percentiles too (minimum, median, p90,
    /// p99, p99.9, maximum): what `qualify` writes now, closer to a bimodal device's syncs.
    Quantiles6([Duration; 6]),
}

/// The cumulative shares [`Delay::Quantiles`]' four durations stand at.
const QUANTILE_AT: [f64; 4] = [0.0, 0.5, 0.99, 1.0];
/// The cumulative shares [`Delay::Quantiles6`]' six durations stand at.
const QUANTILE6_AT: [f64; 6] = [0.0, 0.5, 0.9, 0.99, 0.999, 1.0];

/// A draw `u` in [0, 1) of the distribution whose quantile at share `at[i]` is `q[i]`,
/// linearly between them.
fn between_quantiles(q: &[Duration], at: &[f64], u: f64) -> Duration {
    let last = at.len() - 2;
    let i = at.windows(2).position(|w| u < w[1]).unwrap_or(last);
    let (lo, hi) = (at[i], at[i + 1]);
    let share = ((u - lo) / (hi - lo)).clamp(0.0, 1.0);
    let (a, b) = (q[i].as_secs_f64(), q[i + 1].as_secs_f64());
    Duration::from_secs_f64(a + (b - a) * share)
}

/// Why a delay's text is not one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DelayError {
    #[error("`{0}` has no unit: write it as 2ms, 500us, 0.5s or 100ns")]
    NoUnit(String),
    #[error("`{0}` is not a duration: write it as 2ms, 500us, 0.5s or 100ns")]
    NotDuration(String),
    #[error("`{0}`: a log-normal delay takes a median and a sigma, as lognormal(1ms,0.5)")]
    LogNormalArgs(String),
    #[error("`{0}`: sigma must be a number from 0 to 5, as lognormal(1ms,0.5)")]
    Sigma(String),
    #[error(
        "`{0}`: quantiles takes the minimum, median, p99 and maximum in rising order, as quantiles(100us,1ms,3ms,9ms), or the minimum, median, p90, p99, p99.9 and maximum"
    )]
    Quantiles(String),
}

/// A duration as the user writes it: a number and a unit (`ns`, `us`, `µs`, `ms`, `s`).
pub fn parse_duration(text: &str) -> Result<Duration, DelayError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| DelayError::NoUnit(t.to_string()))?;
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| DelayError::NotDuration(t.to_string()))?;
    let scale = match unit.trim() {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return Err(DelayError::NotDuration(t.to_string())),
    };
    Duration::try_from_secs_f64(value * scale).map_err(|_| DelayError::NotDuration(t.to_string()))
}

/// A duration written back as [`parse_duration`] reads it, in the largest unit that keeps it
/// whole to the nanosecond.
pub fn duration_text(d: Duration) -> String {
    let ns = d.as_nanos();
    match ns {
        0 => "0ms".to_string(),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}us", n / 1_000),
        n => format!("{n}ns"),
    }
}

impl std::str::FromStr for Delay {
    type Err = DelayError;
    fn from_str(text: &str) -> Result<Delay, DelayError> {
        let t = text.trim();
        if let Some(args) = t.strip_prefix("quantiles(") {
            let bad = || DelayError::Quantiles(t.to_string());
            let args = args.strip_suffix(')').ok_or_else(bad)?;
            let ds = args.split(',').map(parse_duration).collect::<Result<Vec<_>, _>>()?;
            if ds.windows(2).any(|w| w[0] > w[1]) {
                return Err(bad());
            }
            return match ds.len() {
                4 => Ok(Delay::Quantiles(ds.try_into().map_err(|_| bad())?)),
                6 => Ok(Delay::Quantiles6(ds.try_into().map_err(|_| bad())?)),
                _ => Err(bad()),
            };
        }
        let Some(args) = t.strip_prefix("lognormal(") else {
            return parse_duration(t).map(Delay::Fixed);
        };
        let args = args
            .strip_suffix(')')
            .ok_or_else(|| DelayError::LogNormalArgs(t.to_string()))?;
        let (median, sigma) = args
            .split_once(',')
            .ok_or_else(|| DelayError::LogNormalArgs(t.to_string()))?;
        let sigma: f64 = sigma.trim().parse().map_err(|_| DelayError::Sigma(t.to_string()))?;
        if !(0.0..=5.0).contains(&sigma) {
            return Err(DelayError::Sigma(t.to_string()));
        }
        Ok(Delay::LogNormal {
            median: parse_duration(median)?,
            sigma,
        })
    }
}

impl fmt::Display for Delay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delay::Fixed(d) => f.write_str(&duration_text(*d)),
            Delay::LogNormal { median, sigma } => write!(f, "lognormal({},{sigma})", duration_text(*median)),
            Delay::Quantiles(q) => write!(f, "quantiles({})", quantiles_text(q)),
            Delay::Quantiles6(q) => write!(f, "quantiles({})", quantiles_text(q)),
        }
    }
}

fn quantiles_text(q: &[Duration]) -> String {
    q.iter().map(|d| duration_text(*d)).collect::<Vec<_>>().join(",")
}

impl Delay {
    /// One delay, drawn with `rng` where the law is drawn.
    fn draw(&self, rng: &mut ChaCha8Rng) -> Duration {
        match *self {
            Delay::Fixed(d) => d,
            Delay::LogNormal { median, sigma } => {
                let law = rand_distr::LogNormal::new(median.as_secs_f64().max(1e-9).ln(), sigma)
                    .expect("sigma is checked when parsed");
                Duration::from_secs_f64(rng.sample(law).min(60.0))
            }
            Delay::Quantiles(q) => between_quantiles(&q, &QUANTILE_AT, rng.random()),
            Delay::Quantiles6(q) => between_quantiles(&q, &QUANTILE6_AT, rng.random()),
        }
    }
}

/// The delays of an emulated storage, per operation (`None`: that operation is not delayed).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Delays {
    pub sync: Option<Delay>,
    pub read: Option<Delay>,
    pub write: Option<Delay>,
}

impl Delays {
    fn of(&self, op: DelayedOp) -> Option<Delay> {
        match op {
            DelayedOp::Sync => self.sync,
            DelayedOp::Read => self.read,
            DelayedOp::Write => self.write,
        }
    }
}

/// Whether a trial's delays are on: the VFS's one atomic read per call when they are not.
static ON: AtomicBool = AtomicBool::new(false);
static DELAYS: RwLock<Option<(Delays, u64)>> = RwLock::new(None);
/// Bumped at every activation, so a thread's generator seeded for an earlier trial is
/// seeded again.
static GENERATION: AtomicU64 = AtomicU64::new(0);
/// How many threads seeded themselves in this activation without a client's seed.
static UNSEEDED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static RNG: RefCell<Option<(u64, ChaCha8Rng)>> = const { RefCell::new(None) };
}

/// While alive, the VFS sleeps `delays` after the calls it forwards. Dropped at the trial's end.
#[must_use = "the delays stop when the guard is dropped"]
pub struct Active(());

/// Turns `delays` on for this process until the guard is dropped; the calling thread draws
/// from `seed`, every client thread from the seed it gives [`seed_thread`].
pub fn activate(delays: Delays, seed: u64) -> Active {
    let mut d = DELAYS.write().unwrap_or_else(|p| p.into_inner());
    *d = Some((delays, seed));
    GENERATION.fetch_add(1, Relaxed);
    UNSEEDED.store(0, Relaxed);
    seed_thread(seed);
    ON.store(true, Relaxed);
    Active(())
}

impl Drop for Active {
    fn drop(&mut self) {
        ON.store(false, Relaxed);
        *DELAYS.write().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Seeds the calling thread's draws (a client's, from its own seed), so they repeat per
/// trial and client wherever the client runs.
pub fn seed_thread(seed: u64) {
    let generation = GENERATION.load(Relaxed);
    let rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5354_4f52_4147_4521);
    RNG.with(|r| *r.borrow_mut() = Some((generation, rng)));
}

/// After a forwarded call: sleeps the delay `op` has while a trial's delays are on, and counts
/// it in `counters`. A no-op (one atomic read) otherwise.
#[inline]
pub fn after(op: DelayedOp, counters: &IoCounters) {
    if !ON.load(Relaxed) {
        return;
    }
    let Some((delays, seed)) = *DELAYS.read().unwrap_or_else(|p| p.into_inner()) else {
        return;
    };
    let Some(delay) = delays.of(op) else {
        return;
    };
    let want = RNG.with(|r| {
        let mut r = r.borrow_mut();
        let generation = GENERATION.load(Relaxed);
        if r.as_ref().is_none_or(|(g, _)| *g != generation) {
            // A thread no client seeded (a helper of the workload's): seeded in the order such
            // threads first delay.
            let n = UNSEEDED.fetch_add(1, Relaxed);
            *r = Some((
                generation,
                ChaCha8Rng::seed_from_u64(seed.wrapping_add(n + 1) ^ 0x7468_7265_6164),
            ));
        }
        let (_, rng) = r.as_mut().expect("seeded above");
        delay.draw(rng)
    });
    let slept = sleep_for(want);
    counters.slept(op, u64::try_from(slept.as_nanos()).unwrap_or(u64::MAX));
}

/// Sleeps `d` accurately: `thread::sleep` for all but [`SPIN`], then yields until the
/// deadline. Returns the time actually slept.
pub fn sleep_for(d: Duration) -> Duration {
    let start = Instant::now();
    let end = start + d;
    if d > SPIN {
        std::thread::sleep(d - SPIN);
    }
    while Instant::now() < end {
        std::thread::yield_now();
    }
    start.elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_parse_and_print_back() {
        for text in ["2ms", "500us", "100ns", "lognormal(1ms,0.5)"] {
            let d: Delay = text.parse().unwrap();
            assert_eq!(d.to_string(), text);
        }
        assert_eq!(
            "1.5ms".parse::<Delay>().unwrap(),
            Delay::Fixed(Duration::from_micros(1500))
        );
        assert_eq!(
            "0.5s".parse::<Delay>().unwrap(),
            Delay::Fixed(Duration::from_millis(500))
        );
    }

    #[test]
    fn bad_delays_say_how_to_write_one() {
        assert!(matches!("2".parse::<Delay>(), Err(DelayError::NoUnit(_))));
        assert!(matches!("2 parsecs".parse::<Delay>(), Err(DelayError::NotDuration(_))));
        assert!(matches!(
            "lognormal(1ms)".parse::<Delay>(),
            Err(DelayError::LogNormalArgs(_))
        ));
        assert!(matches!("lognormal(1ms,x)".parse::<Delay>(), Err(DelayError::Sigma(_))));
        assert!(matches!("lognormal(1ms,9)".parse::<Delay>(), Err(DelayError::Sigma(_))));
    }

    /// The same seed draws the same delays; another seed others; the median of many draws is
    /// near the law's.
    #[test]
    fn drawn_delays_repeat_per_seed_and_have_their_median() {
        let law: Delay = "lognormal(1ms,0.5)".parse().unwrap();
        let draws = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..2001).map(|_| law.draw(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(draws(7), draws(7));
        assert_ne!(draws(7), draws(8));
        let mut d = draws(7);
        d.sort();
        let median = d[1000].as_secs_f64() * 1e3;
        assert!((0.9..1.1).contains(&median), "median {median} ms");
    }

    /// A measured distribution is drawn within its range, about half below its median and
    /// about 1% above its p99.
    #[test]
    fn quantiles_draw_the_measured_distribution() {
        let d: Delay = "quantiles(100us,1ms,3ms,9ms)".parse().unwrap();
        assert_eq!(d.to_string(), "quantiles(100us,1ms,3ms,9ms)");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let draws: Vec<Duration> = (0..10_000).map(|_| d.draw(&mut rng)).collect();
        let ms = Duration::from_millis;
        assert!(draws.iter().all(|x| *x >= Duration::from_micros(100) && *x <= ms(9)));
        let below = draws.iter().filter(|x| **x < ms(1)).count();
        assert!((4_800..5_200).contains(&below), "{below}");
        let above = draws.iter().filter(|x| **x > ms(3)).count();
        assert!((50..160).contains(&above), "{above}");
        // Six: p90 and p99.9 too; 10% of draws above p90, 0.1% above p99.9.
        let d6: Delay = "quantiles(100us,1ms,2ms,3ms,8ms,9ms)".parse().unwrap();
        assert_eq!(d6.to_string(), "quantiles(100us,1ms,2ms,3ms,8ms,9ms)");
        let draws: Vec<Duration> = (0..10_000).map(|_| d6.draw(&mut rng)).collect();
        let above_p90 = draws.iter().filter(|x| **x > ms(2)).count();
        assert!((850..1_150).contains(&above_p90), "{above_p90}");
        assert!(draws.iter().filter(|x| **x > ms(8)).count() < 40);
        assert!(matches!(
            "quantiles(1ms,2ms,3ms,4ms,5ms)".parse::<Delay>(),
            Err(DelayError::Quantiles(_))
        ));
        assert!(matches!(
            "quantiles(1ms,2ms)".parse::<Delay>(),
            Err(DelayError::Quantiles(_))
        ));
        assert!(matches!(
            "quantiles(3ms,2ms,4ms,5ms)".parse::<Delay>(),
            Err(DelayError::Quantiles(_))
        ));
    }

    #[test]
    fn a_sleep_lasts_at_least_its_delay() {
        for us in [50, 1000] {
            let d = Duration::from_micros(us);
            assert!(sleep_for(d) >= d);
        }
    }
}
