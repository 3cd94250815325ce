//! The sampler's thread: on the clock, not on a client (a client blocked on a lock would leave
//! a gap), it reads the VFS counters and the database's files at every interval's start and
//! prints a `--progress` line per interval, and reads the files a last time before the clients
//! close their connections.

use super::shared::Shared;
use crate::model::series::SeriesFiles;
use crate::sys::dbfiles::DbFiles;
use crate::sys::iocount::IoSnapshot;
use crate::workload::Trial;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What the sampler read: the VFS counters at each interval's start, and the database's files
/// at each interval's start and once more when the clients were done.
#[derive(Default)]
pub(super) struct Marks {
    pub(super) io: Vec<(usize, IoSnapshot)>,
    pub(super) files: Vec<SeriesFiles>,
}

/// One reading of the database's files, `at` after the measured start.
pub(super) fn files_at(files: &DbFiles, at: Duration) -> SeriesFiles {
    let f = files.read();
    SeriesFiles {
        t_ms: at.as_millis() as u64,
        db_bytes: f.db_bytes,
        wal_bytes: f.wal_bytes,
        shm_bytes: f.shm_bytes,
        free_pages: f.free_pages,
    }
}

/// Reads the VFS counters and the database's files (where `files` has them) at every
/// interval's start, on the clock, and calls `tick` with each interval's index from the second
/// on (for `--progress`), until `done`; returns the readings, the files read once more at the
/// end.
/// The sampler's thread, where the trial keeps a series and there is something to sample (the
/// VFS counters, progress lines, the database's files): the counters and files at every
/// interval's start, and a progress line per interval. With client `processes`, a line waits
/// a moment for their totals, sent at the same instant.
pub(super) fn spawn_sampler<'s, 'e>(
    scope: &'s std::thread::Scope<'s, 'e>,
    shared: &'e Shared<'e>,
    trial: &'e Trial<'e>,
    counters: Option<std::sync::Arc<crate::sys::iocount::IoCounters>>,
    done: &'e AtomicBool,
    processes: bool,
) -> Option<std::thread::ScopedJoinHandle<'s, Marks>> {
    let shape = trial.load;
    let interval = Duration::from_millis(shape.interval_ms.max(1));
    let files = trial.files;
    if !((counters.is_some() || shape.progress || files.is_some()) && shared.series) {
        return None;
    }
    Some(scope.spawn(move || {
        let tick = |i: u32| {
            if shape.progress {
                if processes {
                    std::thread::sleep((interval / 10).min(Duration::from_millis(50)));
                }
                crate::errln!(
                    "{}",
                    shared.progress.line(interval * i, interval, shape.open(), trial.name)
                );
            }
        };
        sample(shared, interval, counters, files, done, &tick)
    }))
}

pub(super) fn sample(
    shared: &Shared<'_>,
    interval: Duration,
    counters: Option<std::sync::Arc<crate::sys::iocount::IoCounters>>,
    files: Option<&DbFiles>,
    done: &AtomicBool,
    tick: &dyn Fn(u32),
) -> Marks {
    let mut marks = Marks::default();
    let start = loop {
        if let Some(s) = shared.start.get() {
            break *s;
        }
        if done.load(Ordering::Relaxed) || shared.halted() {
            shared.files_read();
            return marks;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let measured = start + shared.warmup;
    let mut i = 0usize;
    loop {
        let at = measured + interval * i as u32;
        while Instant::now() < at {
            // The last reading: when every client's loop has ended, before any closes its
            // connection (see `Shared::files_final`).
            if done.load(Ordering::Relaxed) || shared.loops_left.load(Ordering::Acquire) == 0 {
                if let Some(f) = files {
                    marks
                        .files
                        .push(files_at(f, Instant::now().saturating_duration_since(measured)));
                }
                shared.files_read();
                return marks;
            }
            std::thread::sleep((at - Instant::now()).min(Duration::from_millis(5)));
        }
        if let Some(c) = &counters {
            marks.io.push((i, c.snapshot()));
        }
        if let Some(f) = files {
            marks.files.push(files_at(f, interval * i as u32));
        }
        if i > 0 {
            tick(i as u32);
        }
        i += 1;
    }
}
