//! A trial's time series as its clients count it: per interval and operation type, counts and
//! a latency histogram, differenced from the recorder's running totals so that a transaction
//! pays one comparison for it; the cells a client process sends and the driver adds; the
//! series and the measured interval recorded at the trial's end.

use super::shared::Shared;
use super::Budget;
use crate::model::series::{Series, SeriesFiles, SeriesIo, SeriesPoint};
use crate::sys::iocount::IoSnapshot;
use crate::workload::recorder::{Recorder, Totals};
use crate::workload::remote::CellReport;
use hdrhistogram::Histogram;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// One client's time series: per interval and operation type, counts and a latency histogram;
/// in the trial's own, also the VFS counters at each interval's start (read by a sampler
/// thread on the clock, not by a client, so a client blocked on a lock leaves no gap).
///
/// A client records each transaction once, in its recorder; the series is the difference of
/// the recorder's running totals and histograms between interval ends, taken when a
/// transaction is the first to end in a new interval. Per transaction that costs one
/// comparison, not a second histogram record (see `benches/overhead-instructions.sh`).
pub(super) struct Buckets {
    pub(super) interval: Duration,
    pub(super) ops: usize,
    /// `cells[interval][op]`.
    pub(super) cells: Vec<Vec<Cell>>,
    /// `(interval, counters)` at that interval's start.
    pub(super) io: Vec<(usize, IoSnapshot)>,
    /// The database's files, as the sampler read them.
    pub(super) files: Vec<SeriesFiles>,
    /// The interval being counted, and where it ends (nanoseconds after the measured start).
    pub(super) current: usize,
    pub(super) ends_ns: u64,
    /// `ends_ns` as a reading of the calibrated clock from the start [`Buckets::reach_reading`]
    /// was last given (0: not known yet, so the next call works it out).
    pub(super) ends_reading: u64,
    /// Per operation type, the recorder's totals and latency histogram when the current
    /// interval started (no histogram before the type's first transaction).
    pub(super) at_start: Vec<(Totals, Option<Histogram<u64>>)>,
    /// Counting nothing: the trial keeps no series ([`Streams::series`]).
    pub(super) off: bool,
}

#[derive(Default)]
pub(super) struct Cell {
    pub(super) counts: Totals,
    pub(super) hist: Option<Histogram<u64>>,
}

/// A series histogram: two significant digits are enough for p50/p99/max per interval, and
/// keep each one small.
pub(super) fn series_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, crate::model::op::MAX_NS, 2).expect("static histogram bounds are valid")
}

impl Buckets {
    pub(super) fn new(interval: Duration, ops: usize) -> Buckets {
        Buckets {
            interval,
            ops,
            cells: Vec::new(),
            io: Vec::new(),
            files: Vec::new(),
            current: 0,
            ends_ns: interval.as_nanos().clamp(1, u128::from(u64::MAX)) as u64,
            ends_reading: 0,
            at_start: (0..ops).map(|_| (Totals::default(), None)).collect(),
            off: false,
        }
    }

    /// Counts nothing from now on: no interval ever ends, so a transaction costs the one
    /// comparison and no interval's histograms are differenced.
    pub(super) fn switch_off(&mut self) {
        self.off = true;
        self.ends_ns = u64::MAX;
    }

    pub(super) fn interval_ns(&self) -> u64 {
        self.interval.as_nanos().clamp(1, u128::from(u64::MAX)) as u64
    }

    pub(super) fn cell(&mut self, i: usize, op: usize) -> &mut Cell {
        if self.cells.len() <= i {
            let ops = self.ops;
            self.cells
                .resize_with(i + 1, || (0..ops).map(|_| Cell::default()).collect());
        }
        &mut self.cells[i][op]
    }

    /// Starts counting from `rec`'s totals now (the measured start).
    pub(super) fn begin(&mut self, rec: &mut Recorder) {
        self.ends_reading = 0;
        if self.off {
            return;
        }
        for op in 0..self.ops {
            let (t, h) = rec.totals(op);
            self.at_start[op] = (t, (t.ops > 0).then(|| h.clone()));
        }
    }

    /// Moves to the interval that `ns` nanoseconds after the measured start falls in, closing
    /// the current one first: a comparison, unless an interval ended.
    #[inline]
    pub(super) fn reach(&mut self, ns: u64, rec: &mut Recorder) {
        if ns >= self.ends_ns {
            self.close(rec);
            let width = self.interval_ns();
            self.current = (ns / width) as usize;
            self.ends_ns = (ns / width).saturating_add(1).saturating_mul(width);
        }
    }

    /// [`Buckets::reach`] for a transaction that ended at `reading` of the calibrated clock,
    /// `start` being the measured start's reading: the interval's end is kept as a reading, so
    /// a transaction that ends inside it costs one comparison and no conversion.
    #[inline(always)]
    pub(super) fn reach_reading(&mut self, reading: u64, start: u64, rec: &mut Recorder) {
        if reading >= self.ends_reading {
            self.crossed(reading, start, rec);
        }
    }

    /// A transaction ended at or past the kept end: the interval it ended in, and that
    /// interval's end as a reading. Once per interval (and once at the start).
    #[inline(never)]
    fn crossed(&mut self, reading: u64, start: u64, rec: &mut Recorder) {
        let clock = crate::sys::clock::clock();
        self.reach(clock.ns_between(start, reading), rec);
        self.ends_reading = clock.first_reading_after(start, self.ends_ns);
    }

    /// The measured start moved (a warm-up ended): the kept end is worked out again.
    pub(super) fn restart_reading(&mut self) {
        self.ends_reading = 0;
    }

    /// Ends the current interval: what `rec` counted since it started. Never inlined: a cost
    /// per interval, which `benches/overhead-instructions.sh` counts apart from the loop's.
    #[cold]
    #[inline(never)]
    pub(super) fn close(&mut self, rec: &mut Recorder) {
        if self.off {
            return;
        }
        for op in 0..self.ops {
            let (now, hist) = rec.totals(op);
            let counts = now.since(&self.at_start[op].0);
            if counts == Totals::default() {
                continue;
            }
            let mut added = None;
            if counts.ops > 0 {
                let mut delta = hist.clone();
                if let Some(before) = &self.at_start[op].1 {
                    let _ = delta.subtract(before);
                }
                let mut h = series_histogram();
                for v in delta.iter_recorded() {
                    let _ = h.record_n(v.value_iterated_to(), v.count_at_value());
                }
                added = Some(h);
                self.at_start[op].1 = Some(hist.clone());
            }
            self.at_start[op].0 = now;
            let i = self.current;
            *self.cell(i, op) = Cell { counts, hist: added };
        }
    }

    /// Adds another client's cells.
    pub(super) fn absorb(&mut self, other: Buckets) {
        self.absorb_at(other, 0);
    }

    /// Adds another client's cells, its operation types at `offset` in this one's (a cast's
    /// role, into the trial's `ROLE:OP` types).
    pub(super) fn absorb_at(&mut self, other: Buckets, offset: usize) {
        for (i, row) in other.cells.into_iter().enumerate() {
            for (op, c) in row.into_iter().enumerate() {
                let mine = self.cell(i, offset + op);
                let (m, t) = (&mut mine.counts, c.counts);
                m.ops += t.ops;
                m.succeeded += t.succeeded;
                m.retries += t.retries;
                m.busy += t.busy;
                m.skipped += t.skipped;
                m.late += t.late;
                if let Some(h) = c.hist {
                    let _ = mine.hist.get_or_insert_with(series_histogram).add(&h);
                }
            }
        }
    }

    /// Its cells, as a client process sends them.
    pub(super) fn report_cells(&self) -> Vec<CellReport> {
        let mut out = Vec::new();
        for (interval, row) in self.cells.iter().enumerate() {
            for (op, c) in row.iter().enumerate() {
                if c.counts != Totals::default() {
                    out.push(CellReport {
                        interval,
                        op,
                        counts: c.counts,
                        histogram: c.hist.as_ref().map(crate::model::op::encode),
                    });
                }
            }
        }
        out
    }

    /// Adds a client process's cells.
    pub(super) fn absorb_cells(&mut self, cells: Vec<CellReport>, offset: usize) {
        let width = self.ops.saturating_sub(offset);
        let mut other = Buckets::new(self.interval, width);
        for c in cells.into_iter().filter(|c| c.op < width) {
            *other.cell(c.interval, c.op) = Cell {
                counts: c.counts,
                hist: c.histogram.as_deref().and_then(crate::model::op::decode),
            };
        }
        self.absorb_at(other, offset);
    }

    /// Each interval's I/O: the counters' differences between interval starts (and `end`,
    /// taken after the last transaction).
    pub(super) fn io(&self, end: Option<IoSnapshot>) -> Vec<SeriesIo> {
        let ms = self.interval.as_millis() as u64;
        let mut marks = self.io.clone();
        if let (Some(end), Some((last, _))) = (end, marks.last().cloned()) {
            marks.push((last + 1, end));
        }
        marks
            .windows(2)
            .map(|w| {
                let d = w[1].1.since(&w[0].1);
                SeriesIo {
                    t_ms: w[0].0 as u64 * ms,
                    syncs: d.sync_syscalls(),
                    write_bytes: d.total().write_bytes,
                    main_syncs: d.main.syncs,
                    main_write_bytes: d.main.write_bytes,
                }
            })
            .collect()
    }

    /// The series, with each interval's I/O (see [`Buckets::io`]) plus `more`: what client
    /// processes counted in theirs.
    pub(super) fn series(self, names: &[&'static str], end: Option<IoSnapshot>, more: Vec<SeriesIo>) -> Series {
        let ms = self.interval.as_millis() as u64;
        let us = |ns: u64| ns as f64 / 1000.0;
        let mut points = Vec::new();
        for (i, row) in self.cells.iter().enumerate() {
            for (op, c) in row.iter().enumerate() {
                let n = &c.counts;
                if n.ops + n.busy + n.skipped == 0 {
                    continue;
                }
                let h = c.hist.as_ref().filter(|h| !h.is_empty());
                points.push(SeriesPoint {
                    t_ms: i as u64 * ms,
                    op: names.get(op).copied().unwrap_or("?").to_string(),
                    ops: n.ops,
                    succeeded: n.succeeded,
                    retries: n.retries,
                    busy: n.busy,
                    skipped: n.skipped,
                    late: n.late,
                    p50_us: h.map(|h| us(h.value_at_quantile(0.5))),
                    p99_us: h.map(|h| us(h.value_at_quantile(0.99))),
                    max_us: h.map(|h| us(h.max())),
                });
            }
        }
        let mut io = self.io(end);
        for m in more {
            match io.iter_mut().find(|i| i.t_ms == m.t_ms) {
                Some(i) => {
                    i.syncs += m.syncs;
                    i.write_bytes += m.write_bytes;
                    i.main_syncs += m.main_syncs;
                    i.main_write_bytes += m.main_write_bytes;
                }
                None => io.push(m),
            }
        }
        io.sort_by_key(|i| i.t_ms);
        Series {
            interval_ms: ms,
            points,
            io,
            files: self.files,
        }
    }
}

/// The trial's time series (where it keeps one) and its measured interval: the last
/// transaction's end, at least a time budget's length. Never inlined: a cost per trial, which
/// `benches/overhead-instructions.sh` counts apart from the loop's.
#[inline(never)]
pub(super) fn record_series_and_interval(
    rec: &mut Recorder,
    shared: &Shared<'_>,
    series: Buckets,
    names: &[&'static str],
    more_io: Vec<SeriesIo>,
) {
    if shared.series {
        let end_io = rec.io_snapshot();
        rec.set_series(series.series(names, end_io, more_io));
    }
    let mut interval = Duration::from_nanos(shared.last_end_ns.load(Ordering::Relaxed));
    if let Budget::Time(d) = shared.budget {
        interval = interval.max(d);
    }
    rec.set_interval(interval.max(Duration::from_nanos(1)));
}
