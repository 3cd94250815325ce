//! The time the calling thread slept waiting for a database lock, in microseconds.
//!
//! SQLite's busy handler waits for a lock another connection holds by sleeping through the
//! connection's VFS (`xSleep`), on `busy_timeout`'s schedule (1, 2, 5, 10, 15, 20, 25, 25, 25,
//! 50, 50, 100 ms ... up to the timeout). The counting VFS times each of those sleeps with the
//! monotonic clock and adds it here, on the thread that slept, which is the thread running the
//! connection's statement; the load driver takes the count after each transaction ([`take`]). Measuring the sleeps where SQLite makes them, instead of installing a
//! busy handler of litebench's own, keeps every build's own handler and schedule (and `PRAGMA
//! busy_timeout` as the user's SQL sets and reads it) exactly as they are: the measurement
//! cannot change the answer.
//!
//! A thread-local counter and no atomics: adding and taking cost a few instructions, so a
//! transaction that waited for nothing pays one read of a zero.

use std::cell::Cell;
use std::time::Duration;

thread_local! {
    static SLEPT_US: Cell<u64> = const { Cell::new(0) };
}

/// Adds a sleep this thread made waiting for a lock.
pub fn add(slept: Duration) {
    let us = u64::try_from(slept.as_micros()).unwrap_or(u64::MAX);
    SLEPT_US.with(|c| c.set(c.get().saturating_add(us)));
}

/// The microseconds this thread slept waiting for locks since the last `take`, and starts
/// again from zero.
#[inline]
pub fn take() -> u64 {
    SLEPT_US.with(|c| {
        // Almost always zero: read, and write only what has to be reset.
        let slept = c.get();
        if slept != 0 {
            c.set(0);
        }
        slept
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_add_up_per_thread_and_take_starts_again() {
        take();
        add(Duration::from_micros(1500));
        add(Duration::from_millis(2));
        // Another thread's sleeps are its own.
        std::thread::spawn(|| add(Duration::from_secs(1))).join().unwrap();
        assert_eq!(take(), 3500);
        assert_eq!(take(), 0);
    }
}
