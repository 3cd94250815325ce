//! `--progress` (pgbench -P): running totals over every client, in this process and in client
//! processes, and the line printed once per interval. Counted only when asked for.

use crate::workload::remote::ProgressTotals;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Running totals over every client, read once per interval for `--progress` (pgbench -P):
/// counted only when asked for, so a run without it pays nothing.
#[derive(Default)]
pub(super) struct Progress {
    pub(super) ops: AtomicU64,
    pub(super) latency_ns: AtomicU64,
    pub(super) lag_ns: AtomicU64,
    pub(super) retries: AtomicU64,
    pub(super) busy: AtomicU64,
    pub(super) skipped: AtomicU64,
    /// The totals at the last line printed.
    pub(super) last: std::sync::Mutex<[u64; 6]>,
}

impl Progress {
    pub(super) fn add(&self, latency_ns: u64, lag_ns: Option<u64>) {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.latency_ns.fetch_add(latency_ns, Ordering::Relaxed);
        if let Some(l) = lag_ns {
            self.lag_ns.fetch_add(l, Ordering::Relaxed);
        }
    }

    /// The running totals, as a client process sends them.
    pub(super) fn totals(&self) -> ProgressTotals {
        [
            self.ops.load(Ordering::Relaxed),
            self.latency_ns.load(Ordering::Relaxed),
            self.lag_ns.load(Ordering::Relaxed),
            self.retries.load(Ordering::Relaxed),
            self.busy.load(Ordering::Relaxed),
            self.skipped.load(Ordering::Relaxed),
        ]
    }

    /// Adds what a client process counted since its last line.
    pub(super) fn add_totals(&self, d: &ProgressTotals) {
        for (a, v) in [
            &self.ops,
            &self.latency_ns,
            &self.lag_ns,
            &self.retries,
            &self.busy,
            &self.skipped,
        ]
        .into_iter()
        .zip(d)
        {
            a.fetch_add(*v, Ordering::Relaxed);
        }
    }

    /// `progress: 5.0 s, 1998.4 tps, lat 0.412 ms, lag 0.031 ms, 3 retries, 0 failed, 0 skipped
    /// [#1 journal_mode=wal, trial 2/3]`: the last interval's rate and mean latency, its counts,
    /// and the trial's `name` (configurations' trials interleave, and their lines would read
    /// alike).
    pub(super) fn line(&self, at: Duration, interval: Duration, open: bool, name: &str) -> String {
        let now = self.totals();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let d: Vec<u64> = now.iter().zip(last.iter()).map(|(n, l)| n.saturating_sub(*l)).collect();
        *last = now;
        let ms = |ns: u64| if d[0] == 0 { 0.0 } else { ns as f64 / d[0] as f64 / 1e6 };
        let lag = if open {
            format!(", lag {:.3} ms", ms(d[2]))
        } else {
            String::new()
        };
        let name = if name.is_empty() {
            String::new()
        } else {
            format!(" [{name}]")
        };
        format!(
            "progress: {:.1} s, {:.1} tps, lat {:.3} ms{lag}, {} retries, {} failed, {} skipped{name}",
            at.as_secs_f64(),
            d[0] as f64 / interval.as_secs_f64(),
            ms(d[1]),
            d[3],
            d[4],
            d[5]
        )
    }
}
