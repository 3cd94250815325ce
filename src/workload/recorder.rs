//! Timing and I/O attribution of operations inside a trial.
//!
//! Each operation's latency goes into an HDR histogram of its type (nanoseconds, 3 significant
//! digits, no allocation when recording), and the VFS counters are snapshotted whenever the
//! operation type changes, so syncs and bytes can be reported per operation type. The recorder
//! does nothing else in the timed loop.
//!
//! The snapshots it attributes are the calling thread's own counts
//! ([`IoCounters::thread_snapshot`]), not the process's: a recorder charges its operations with
//! the I/O of the thread that runs them, so each client thread's recorder attributes exactly its
//! own client's I/O however many clients share the process. Its baselines are therefore taken on
//! the thread that uses it (the first [`Recorder::phase`] or [`Recorder::attribute_io`] there),
//! and a recorder that ran on a client thread closes its attribution there
//! ([`Recorder::leave_thread`]) before it is handed back.

use crate::engines::BusyCause;
use crate::model::op::{encode, new_histogram, Latency, OpResult, OpType, MAX_NS};
use crate::sys::iocount::{IoCounters, IoSnapshot};
use crate::workload::tally::Tally;
use hdrhistogram::Histogram;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct OpState {
    name: &'static str,
    part_of: Option<&'static str>,
    ops: u64,
    succeeded: u64,
    failed: u64,
    busy: u64,
    /// Of `busy`, by cause (see [`OpResult::busy_timeout`]).
    busy_causes: BusyCounts,
    elapsed: Duration,
    /// Latencies, with those since the last read still in `tally` ([`OpState::hist`]).
    hist: Histogram<u64>,
    tally: Tally,
    io: IoSnapshot,
    retries: u64,
    skipped: u64,
    late: u64,
    /// Schedule lag of an open loop; `None` until the first is recorded.
    lag: Option<Histogram<u64>>,
    /// Lock waits of the transactions that waited ([`OpResult::busy_wait`]); `None` until the
    /// first.
    busy_wait: Option<Histogram<u64>>,
    /// Instructions of this type's phases under callgrind (`--measure instructions`).
    instructions: Option<u64>,
    /// Of `instructions`, SQLite's library's ([`crate::sys::valgrind::library_instructions`]).
    library_instructions: Option<u64>,
}

/// Transactions given up busy, by cause ([`BusyCause`]); `Unknown` counts in `busy` only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct BusyCounts {
    timeout: u64,
    upgrade: u64,
    snapshot: u64,
    serialization: u64,
    deadlock: u64,
    lock_wait: u64,
}

impl BusyCounts {
    fn add(&mut self, cause: BusyCause) {
        match cause {
            BusyCause::Timeout => self.timeout += 1,
            BusyCause::Upgrade => self.upgrade += 1,
            BusyCause::Snapshot => self.snapshot += 1,
            BusyCause::Serialization => self.serialization += 1,
            BusyCause::Deadlock => self.deadlock += 1,
            BusyCause::LockWait => self.lock_wait += 1,
            BusyCause::Unknown => {}
        }
    }

    /// Adds another's counts; a result stored without causes adds none.
    fn absorb(&mut self, r: &OpResult) {
        self.timeout += r.busy_timeout.unwrap_or(0);
        self.upgrade += r.busy_upgrade.unwrap_or(0);
        self.snapshot += r.busy_snapshot.unwrap_or(0);
        self.serialization += r.busy_serialization.unwrap_or(0);
        self.deadlock += r.busy_deadlock.unwrap_or(0);
        self.lock_wait += r.busy_lock_wait.unwrap_or(0);
    }

    fn plus(self, o: BusyCounts) -> BusyCounts {
        BusyCounts {
            timeout: self.timeout + o.timeout,
            upgrade: self.upgrade + o.upgrade,
            snapshot: self.snapshot + o.snapshot,
            serialization: self.serialization + o.serialization,
            deadlock: self.deadlock + o.deadlock,
            lock_wait: self.lock_wait + o.lock_wait,
        }
    }
}

/// One operation type's running counts in a recorder (see [`Recorder::totals`]): what the load
/// driver's time series takes differences of at each interval's end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Totals {
    pub ops: u64,
    pub succeeded: u64,
    pub retries: u64,
    pub busy: u64,
    pub skipped: u64,
    pub late: u64,
}

impl Totals {
    /// The counts added since `earlier`.
    pub fn since(&self, earlier: &Totals) -> Totals {
        Totals {
            ops: self.ops - earlier.ops,
            succeeded: self.succeeded - earlier.succeeded,
            retries: self.retries - earlier.retries,
            busy: self.busy - earlier.busy,
            skipped: self.skipped - earlier.skipped,
            late: self.late - earlier.late,
        }
    }
}

/// Collects per-operation-type latencies and I/O during one trial.
pub struct Recorder {
    ops: Vec<OpState>,
    /// Wall time of all closed phases: the trial's measured time.
    measured: Duration,
    counters: Option<Arc<IoCounters>>,
    current: Option<(usize, Instant, IoSnapshot)>,
    /// The operation type I/O is attributed to by [`Recorder::attribute_io`], and the counters
    /// when it started.
    io_owner: Option<(usize, IoSnapshot)>,
    /// The operation stopwatch: the calibrated clock and its last reading (see [`Recorder::lap`]).
    clock: &'static crate::sys::clock::Clock,
    lap_start: u64,
    /// Hash of the trial's query results, set by the workload (see
    /// [`crate::workload::result_hash`]).
    result_hash: Option<String>,
    /// Per-query records of the trial (see [`crate::model::record::QueryRecord`]).
    queries: Vec<crate::model::record::QueryRecord>,
    /// The trial over time, set by the load driver.
    series: Option<crate::model::series::Series>,
    /// What a cast's hold and checkpoint roles did, set by the load driver.
    cast: Option<crate::model::cast::CastEvents>,
    /// `--measure instructions` under callgrind: each phase is instrumented, dumped and read
    /// back into its operation type's count.
    instructions: Option<Instructions>,
}

/// A recorder's instruction counting: where the dumps go, and the first dump that could not
/// be read (the trial then fails: a count missing one phase would be too low).
struct Instructions {
    dumps: crate::sys::valgrind::Dumps,
    error: Option<crate::sys::valgrind::DumpError>,
    /// Instructions of a trial timed as one interval, which no operation type owns.
    interval: Option<u64>,
}

impl Instructions {
    /// Counting as `self` does, from nothing (a client thread's recorder).
    fn fresh(&self) -> Instructions {
        Instructions {
            dumps: self.dumps.clone(),
            error: None,
            interval: None,
        }
    }

    /// Adds another client thread's counts and first error.
    fn absorb(&mut self, other: Instructions) {
        if let Some(n) = other.interval {
            self.interval = Some(self.interval.unwrap_or(0) + n);
        }
        if let Some(e) = other.error {
            self.error.get_or_insert(e);
        }
    }
}

impl Recorder {
    /// A recorder for the given operation types; `counters` are the VFS counters to attribute
    /// (`None` for engines without a VFS).
    pub fn new(names: &[&'static str], counters: Option<Arc<IoCounters>>) -> Recorder {
        Recorder::of_types(&OpType::whole(names), counters)
    }

    /// A recorder for the given operation types, some of which may be parts of others (a
    /// script's statements: see [`OpResult::part_of`]).
    pub fn of_types(types: &[OpType], counters: Option<Arc<IoCounters>>) -> Recorder {
        // Calibrate the operation clock now, outside any timed phase.
        let clock = crate::sys::clock::clock();
        Recorder {
            clock,
            lap_start: clock.now(),
            ops: types
                .iter()
                .map(|t| OpState {
                    name: t.name,
                    part_of: t.part_of,
                    ops: 0,
                    succeeded: 0,
                    failed: 0,
                    busy: 0,
                    busy_causes: BusyCounts::default(),
                    elapsed: Duration::ZERO,
                    hist: new_histogram(),
                    tally: Tally::default(),
                    io: IoSnapshot::default(),
                    retries: 0,
                    skipped: 0,
                    late: 0,
                    lag: None,
                    busy_wait: None,
                    instructions: None,
                    library_instructions: None,
                })
                .collect(),
            counters,
            current: None,
            io_owner: None,
            measured: Duration::ZERO,
            result_hash: None,
            queries: Vec::new(),
            series: None,
            cast: None,
            instructions: None,
        }
    }

    /// Counts each phase's instructions from now on through callgrind's `dumps` (`--measure
    /// instructions`, in the process valgrind runs): instrumentation starts with each phase's
    /// clock and stops with it.
    pub fn count_instructions(&mut self, dumps: crate::sys::valgrind::Dumps) {
        self.instructions = Some(Instructions {
            dumps,
            error: None,
            interval: None,
        });
    }

    /// Whether this recorder counts instructions (`--measure instructions` under callgrind).
    pub fn counts_instructions(&self) -> bool {
        self.instructions.is_some()
    }

    /// For a trial timed as one interval (the load driver's, not in phases): dumps what the
    /// calling thread executed since its instrumentation started and adds it to the trial's
    /// count, which no operation type owns. Called on each client's thread at the end of its
    /// loop.
    pub fn take_thread_instructions(&mut self) {
        let Some(i) = &mut self.instructions else {
            return;
        };
        match i.dumps.take("client") {
            Ok(n) => i.interval = Some(i.interval.unwrap_or(0) + n.total),
            Err(e) => {
                i.error.get_or_insert(e);
            }
        }
    }

    /// The instructions of a trial timed as one interval ([`Recorder::take_thread_instructions`]
    /// of every client), where it was so timed.
    pub fn interval_instructions(&self) -> Option<u64> {
        self.instructions.as_ref().and_then(|i| i.interval)
    }

    /// The first callgrind dump of this trial that could not be read, if any.
    pub fn take_instruction_error(&mut self) -> Option<crate::sys::valgrind::DumpError> {
        self.instructions.as_mut().and_then(|i| i.error.take())
    }

    /// This thread's counts now: what its operations are charged from.
    fn io_now(&self) -> IoSnapshot {
        self.counters.as_ref().map(|c| c.thread_snapshot()).unwrap_or_default()
    }

    /// Starts a phase of operation type `op`: time and I/O until the next `phase` or `finish`
    /// are attributed to it.
    pub fn phase(&mut self, op: usize) {
        self.close_phase();
        if self.instructions.is_some() {
            crate::sys::valgrind::start_instrumentation();
        }
        self.current = Some((op, Instant::now(), self.io_now()));
    }

    /// Ends the open phase without starting another: until the next [`Recorder::phase`] nothing
    /// is measured. Workloads call it before untimed work between phases (generating the next
    /// round's data), which would otherwise be charged to the phase still open.
    pub fn pause(&mut self) {
        self.close_phase();
    }

    /// True while a phase is open, i.e. while wall time is being charged to an operation type.
    pub fn timing(&self) -> bool {
        self.current.is_some()
    }

    /// Stores the hash of the trial's query results, for the trial record.
    pub fn set_result_hash(&mut self, hash: String) {
        self.result_hash = Some(hash);
    }

    /// Takes the hash of the trial's query results, if the workload set one.
    pub fn take_result_hash(&mut self) -> Option<String> {
        self.result_hash.take()
    }

    /// Keeps one query's answer (and plan and profile) for the trial record.
    pub fn add_query(&mut self, q: crate::model::record::QueryRecord) {
        self.queries.push(q);
    }

    /// The trial's query records, moved out.
    pub fn take_queries(&mut self) -> Vec<crate::model::record::QueryRecord> {
        std::mem::take(&mut self.queries)
    }

    fn close_phase(&mut self) {
        if let Some((op, since)) = self.io_owner.take() {
            let now = self.io_now();
            let s = &mut self.ops[op];
            s.io = s.io.plus(&now.since(&since));
        }
        if let Some((op, start, io)) = self.current.take() {
            let now_io = self.io_now();
            let s = &mut self.ops[op];
            let d = start.elapsed();
            s.elapsed += d;
            self.measured += d;
            s.io = s.io.plus(&now_io.since(&io));
            if let Some(i) = &mut self.instructions {
                crate::sys::valgrind::stop_instrumentation();
                match i.dumps.take(s.name) {
                    Ok(n) => {
                        s.instructions = Some(s.instructions.unwrap_or(0) + n.total);
                        s.library_instructions = add(s.library_instructions, n.library);
                    }
                    Err(e) => {
                        i.error.get_or_insert(e);
                    }
                }
            }
        }
    }

    /// For mixed workloads, whose operation types interleave within one measured interval (see
    /// [`Recorder::set_interval`]): the I/O from now on belongs to `op`. Cheaper than
    /// [`Recorder::phase`] (one counter snapshot, no clock reading; nothing without counters),
    /// and it leaves the timing to `set_interval`.
    #[inline]
    pub fn attribute_io(&mut self, op: usize) {
        let Some(c) = &self.counters else {
            return;
        };
        // Already `op`'s: nothing changes hands (a run of one type costs one snapshot).
        if self.io_owner.as_ref().is_some_and(|(prev, _)| *prev == op) {
            return;
        }
        let now = c.thread_snapshot();
        if let Some((prev, since)) = self.io_owner.replace((op, now)) {
            let s = &mut self.ops[prev];
            s.io = s.io.plus(&now.since(&since));
        }
    }

    /// Records one completed, successful operation of type `op`.
    #[inline]
    pub fn record(&mut self, op: usize, latency: Duration) {
        self.record_outcome(op, latency, true);
    }

    /// Starts the operation stopwatch: the next [`Recorder::lap`] times from here.
    #[inline]
    pub fn mark(&mut self) {
        self.lap_start = self.clock.now();
    }

    /// Records one successful operation of type `op`, timed from the last `mark` or `lap`, and
    /// restarts the stopwatch: one reading of the calibrated clock per operation, the cheapest
    /// way to time a tight loop.
    #[inline]
    pub fn lap(&mut self, op: usize) {
        self.lap_outcome(op, true);
    }

    /// [`Recorder::lap`] for an operation that either succeeded or was, by the workload's own
    /// rules, unsuccessful (see [`Recorder::record_outcome`]).
    #[inline]
    pub fn lap_outcome(&mut self, op: usize, succeeded: bool) {
        let now = self.clock.now();
        let ns = self.clock.ns_between(self.lap_start, now);
        self.lap_start = now;
        let s = &mut self.ops[op];
        s.ops += 1;
        s.succeeded += succeeded as u64;
        s.tally.record(ns.clamp(1, MAX_NS), &mut s.hist);
    }

    /// Records one completed operation of type `op` that either succeeded or was, by the
    /// workload's own rules, unsuccessful (TATP: no row found, a constraint violation). Both are
    /// completed transactions and count in `ops`; only successful ones count in `succeeded`.
    #[inline]
    pub fn record_outcome(&mut self, op: usize, latency: Duration, succeeded: bool) {
        self.record_outcome_ns(op, latency.as_nanos().min(MAX_NS as u128) as u64, succeeded);
    }

    /// [`Recorder::record_outcome`] with the latency in nanoseconds.
    #[inline]
    pub fn record_outcome_ns(&mut self, op: usize, ns: u64, succeeded: bool) {
        let s = &mut self.ops[op];
        s.ops += 1;
        s.succeeded += succeeded as u64;
        s.tally.record(ns.min(MAX_NS), &mut s.hist);
    }

    /// Records an operation that failed in a way the workload tolerates (e.g. SQLITE_BUSY).
    pub fn record_failure(&mut self, op: usize) {
        self.ops[op].failed += 1;
    }

    /// Records an operation rolled back because of lock contention (SQLITE_BUSY or an engine's
    /// equivalent) of `cause`: a tolerated failure (`failed`) that is also counted in `busy`,
    /// and under its cause. It is not a completed operation and has no latency.
    pub fn record_busy(&mut self, op: usize, cause: BusyCause) {
        let s = &mut self.ops[op];
        s.failed += 1;
        s.busy += 1;
        s.busy_causes.add(cause);
    }

    /// The operation types, in report order.
    pub fn op_names(&self) -> Vec<&'static str> {
        self.ops.iter().map(|o| o.name).collect()
    }

    /// Sets the trial's time series (the load driver's).
    pub fn set_series(&mut self, series: crate::model::series::Series) {
        self.series = Some(series);
    }

    /// Takes the trial's time series.
    pub fn take_series(&mut self) -> Option<crate::model::series::Series> {
        self.series.take()
    }

    /// Sets what a cast's hold and checkpoint roles did (the load driver's).
    pub fn set_cast_events(&mut self, events: crate::model::cast::CastEvents) {
        self.cast = Some(events);
    }

    /// Takes what a cast's hold and checkpoint roles did.
    pub fn take_cast_events(&mut self) -> Option<crate::model::cast::CastEvents> {
        self.cast.take()
    }

    /// Adds another recorder's operations at `offset` in this one's (a cast's role, whose
    /// clients record the workload's types, into the trial's `ROLE:OP` types): what
    /// [`Recorder::absorb`] adds.
    pub fn absorb_at(&mut self, other: Recorder, offset: usize) {
        let mut other = other;
        other.close_phase();
        add_ops(&mut self.ops[offset..], other.ops);
    }

    /// The VFS counters this recorder attributes, if any.
    pub fn counters(&self) -> Option<Arc<IoCounters>> {
        self.counters.clone()
    }

    /// The VFS counters now, the whole process's, when this recorder has them.
    pub fn io_snapshot(&self) -> Option<IoSnapshot> {
        self.counters.as_ref().map(|c| c.snapshot())
    }

    /// Operation type `op`'s counts so far, and its latency histogram.
    pub fn totals(&mut self, op: usize) -> (Totals, &Histogram<u64>) {
        let s = &mut self.ops[op];
        s.tally.drain_into(&mut s.hist);
        let t = Totals {
            ops: s.ops,
            succeeded: s.succeeded,
            retries: s.retries,
            busy: s.busy,
            skipped: s.skipped,
            late: s.late,
        };
        (t, &s.hist)
    }

    /// Records `n` tries of a transaction of type `op` that met a lock and were tried again.
    pub fn record_retries(&mut self, op: usize, n: u64) {
        self.ops[op].retries += n;
    }

    /// Records a transaction of type `op` skipped by the latency limit (open loop).
    pub fn record_skipped(&mut self, op: usize) {
        self.ops[op].skipped += 1;
    }

    /// Records `n` transactions of type `op` skipped at once: the arrivals an open loop could
    /// not start before its trial ended, past those drawn one by one.
    pub fn record_skipped_n(&mut self, op: usize, n: u64) {
        self.ops[op].skipped += n;
    }

    /// Records a completed transaction of type `op` slower than the latency limit.
    pub fn record_late(&mut self, op: usize) {
        self.ops[op].late += 1;
    }

    /// Records how late, in nanoseconds, a transaction of type `op` started against its
    /// schedule (open loop).
    #[inline]
    pub fn record_lag(&mut self, op: usize, lag_ns: u64) {
        self.ops[op]
            .lag
            .get_or_insert_with(new_histogram)
            .saturating_record(lag_ns.min(MAX_NS));
    }

    /// Records how long, in microseconds, a transaction of type `op` slept waiting for locks
    /// ([`crate::sys::lock_wait`]), completed or given up: nothing when it did not wait, so a
    /// transaction without contention pays one comparison.
    #[inline]
    pub fn record_busy_wait(&mut self, op: usize, waited_us: u64) {
        if waited_us != 0 {
            self.add_busy_wait(op, waited_us);
        }
    }

    #[cold]
    #[inline(never)]
    fn add_busy_wait(&mut self, op: usize, waited_us: u64) {
        self.ops[op]
            .busy_wait
            .get_or_insert_with(new_histogram)
            .saturating_record(waited_us.saturating_mul(1000).min(MAX_NS));
    }

    /// An empty recorder for the same operation types, for another client thread: it shares
    /// this recorder's VFS counters and attributes the I/O of the thread it runs on (made here,
    /// it takes its first reading there).
    pub fn sibling(&self) -> Recorder {
        let types: Vec<OpType> = self
            .ops
            .iter()
            .map(|o| OpType {
                name: o.name,
                part_of: o.part_of,
            })
            .collect();
        let mut r = Recorder::of_types(&types, self.counters.clone());
        r.instructions = self.instructions.as_ref().map(Instructions::fresh);
        r
    }

    /// Closes the open phase and I/O attribution on the thread that ran them, before the
    /// recorder goes back to another thread ([`Recorder::absorb`] there would otherwise read
    /// that thread's counts against this one's).
    pub fn leave_thread(&mut self) {
        self.close_phase();
    }

    /// An empty recorder for `len` of this one's operation types from `offset` on (a cast's
    /// role: its clients record the workload's types by index, [`Recorder::absorb_at`] puts
    /// them back in place), attributing its own thread's I/O as [`Recorder::sibling`] does.
    pub fn part(&self, offset: usize, len: usize) -> Recorder {
        let types: Vec<OpType> = self.ops[offset..offset + len]
            .iter()
            .map(|o| OpType {
                name: o.name,
                part_of: o.part_of,
            })
            .collect();
        let mut r = Recorder::of_types(&types, self.counters.clone());
        r.instructions = self.instructions.as_ref().map(Instructions::fresh);
        r
    }

    /// Adds another recorder's operations, failures, histograms, I/O and phase times (for
    /// workloads whose clients each record on their own thread).
    pub fn absorb(&mut self, mut other: Recorder) {
        other.close_phase();
        if let (Some(mine), Some(theirs)) = (&mut self.instructions, other.instructions.take()) {
            mine.absorb(theirs);
        }
        add_ops(&mut self.ops, other.ops);
    }

    /// Adds the results of a client that ran in a process of its own (see
    /// [`crate::workload::remote`]): what [`Recorder::absorb`] adds from a client thread.
    pub fn absorb_results(&mut self, results: &[OpResult]) {
        self.absorb_results_at(results, 0);
    }

    /// [`Recorder::absorb_results`] with the client's operation types at `offset` in this
    /// recorder's (a cast role's `ROLE:OP` types).
    pub fn absorb_results_at(&mut self, results: &[OpResult], offset: usize) {
        for (mine, theirs) in self.ops.iter_mut().skip(offset).zip(results) {
            mine.ops += theirs.ops;
            mine.succeeded += theirs.succeeded();
            mine.failed += theirs.failed;
            mine.busy += theirs.busy;
            mine.busy_causes.absorb(theirs);
            mine.io = mine.io.plus(&theirs.io);
            if let Some(h) = crate::model::op::decode(&theirs.histogram) {
                let _ = mine.hist.add(&h);
            }
            mine.retries += theirs.retries;
            mine.skipped += theirs.skipped;
            mine.late += theirs.late;
            if let Some(lag) = theirs.lag_histogram.as_deref().and_then(crate::model::op::decode) {
                let _ = mine.lag.get_or_insert_with(new_histogram).add(&lag);
            }
            if let Some(w) = theirs.busy_wait_histogram.as_deref().and_then(crate::model::op::decode) {
                let _ = mine.busy_wait.get_or_insert_with(new_histogram).add(&w);
            }
        }
    }

    /// For mixed workloads, where every operation type runs throughout one measured interval:
    /// sets each type's elapsed time, and the trial's measured time, to `interval`.
    pub fn set_interval(&mut self, interval: Duration) {
        self.close_phase();
        for o in &mut self.ops {
            o.elapsed = interval;
        }
        self.measured = interval;
    }

    /// Sets each operation type's elapsed time to `per_op` (the time inside its transactions,
    /// as a driver timed them), and the trial's measured time to their sum: a trial timed per
    /// phase whose transactions ran in a driver process.
    pub fn set_elapsed(&mut self, per_op: &[Duration]) {
        self.close_phase();
        for (o, d) in self.ops.iter_mut().zip(per_op) {
            o.elapsed = *d;
        }
        self.measured = per_op.iter().sum();
    }

    /// Ends the last phase; returns the results per operation type and the measured time.
    pub fn finish(mut self) -> (Vec<OpResult>, Duration) {
        self.close_phase();
        let measured = self.measured;
        (self.ops.into_iter().map(result_of).collect(), measured)
    }

    /// Measured time so far (closed phases plus the open one).
    pub fn elapsed(&self) -> Duration {
        let open = self.current.as_ref().map_or(Duration::ZERO, |(_, t, _)| t.elapsed());
        self.ops.iter().map(|o| o.elapsed).sum::<Duration>() + open
    }
}

/// Adds `theirs`' operations, failures, histograms, I/O and phase times to `mine`, type by type.
fn add_ops(mine: &mut [OpState], theirs: Vec<OpState>) {
    for (mine, mut theirs) in mine.iter_mut().zip(theirs) {
        theirs.tally.drain_into(&mut theirs.hist);
        mine.ops += theirs.ops;
        mine.succeeded += theirs.succeeded;
        mine.failed += theirs.failed;
        mine.busy += theirs.busy;
        mine.busy_causes = mine.busy_causes.plus(theirs.busy_causes);
        mine.elapsed += theirs.elapsed;
        mine.io = mine.io.plus(&theirs.io);
        let _ = mine.hist.add(&theirs.hist);
        mine.retries += theirs.retries;
        mine.skipped += theirs.skipped;
        mine.late += theirs.late;
        if let Some(lag) = theirs.lag {
            let _ = mine.lag.get_or_insert_with(new_histogram).add(&lag);
        }
        if let Some(w) = theirs.busy_wait {
            let _ = mine.busy_wait.get_or_insert_with(new_histogram).add(&w);
        }
        if let Some(n) = theirs.instructions {
            mine.instructions = Some(mine.instructions.unwrap_or(0) + n);
        }
        mine.library_instructions = add(mine.library_instructions, theirs.library_instructions);
    }
}

/// A count so far plus another, either possibly absent.
fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

/// What a closed phase of one operation type comes to.
fn result_of(mut s: OpState) -> OpResult {
    s.tally.drain_into(&mut s.hist);
    OpResult {
        name: s.name.to_string(),
        ops: s.ops,
        succeeded: Some(s.succeeded),
        failed: s.failed,
        busy: s.busy,
        busy_timeout: Some(s.busy_causes.timeout),
        busy_upgrade: Some(s.busy_causes.upgrade),
        busy_snapshot: Some(s.busy_causes.snapshot),
        busy_serialization: (s.busy_causes.serialization > 0).then_some(s.busy_causes.serialization),
        busy_deadlock: (s.busy_causes.deadlock > 0).then_some(s.busy_causes.deadlock),
        busy_lock_wait: (s.busy_causes.lock_wait > 0).then_some(s.busy_causes.lock_wait),
        elapsed_ns: s.elapsed.as_nanos() as u64,
        latency: Latency::of(&s.hist),
        io: s.io,
        histogram: encode(&s.hist),
        retries: s.retries,
        skipped: s.skipped,
        late: s.late,
        lag: s.lag.as_ref().map(Latency::of),
        lag_histogram: s.lag.as_ref().map(encode),
        busy_wait: s.busy_wait.as_ref().map(Latency::of),
        instructions: s.instructions,
        library_instructions: s.library_instructions,
        busy_wait_histogram: s.busy_wait.as_ref().map(encode),
        part_of: s.part_of.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::op::decode;

    /// Issue 35: a transaction's lock wait is kept only where it waited; the waits merge across
    /// client threads and client processes as the latencies do.
    #[test]
    fn busy_waits_are_kept_only_where_a_transaction_waited_and_merge() {
        let mut r = Recorder::new(&["read", "write"], None);
        r.record_busy_wait(0, 0);
        r.record_busy_wait(1, 78_000);
        let mut thread = r.sibling();
        thread.record_busy_wait(1, 3_000);
        r.absorb(thread);
        let (out, _) = r.finish();
        assert_eq!(
            (out[0].busy_wait.as_ref(), out[0].busy_wait_histogram.as_ref()),
            (None, None)
        );
        let w = out[1].busy_wait.as_ref().expect("the writes waited");
        assert!(w.max_ns >= 77_900_000 && w.max_ns <= 78_100_000, "{w:?}");
        assert!(w.min_ns >= 2_990_000 && w.min_ns <= 3_010_000, "{w:?}");
        // A client process's results add the same way.
        let mut parent = Recorder::new(&["read", "write"], None);
        parent.absorb_results(&out);
        parent.absorb_results(&out);
        let (merged, _) = parent.finish();
        let h = decode(merged[1].busy_wait_histogram.as_deref().unwrap()).unwrap();
        assert_eq!(h.len(), 4);
        assert_eq!(merged[0].busy_wait, None);
        // A record without waits serialises as before: no busy-wait fields.
        let json = serde_json::to_string(&out[0]).unwrap();
        assert!(!json.contains("busy_wait"), "{json}");
    }

    #[test]
    fn records_per_type_and_round_trips_histograms() {
        let mut r = Recorder::new(&["insert", "update"], None);
        r.phase(0);
        r.record(0, Duration::from_micros(10));
        r.record(0, Duration::from_micros(30));
        r.phase(1);
        r.record(1, Duration::from_micros(5));
        let (out, measured) = r.finish();
        assert!(measured.as_nanos() as u64 >= out[0].elapsed_ns + out[1].elapsed_ns);
        assert_eq!(out[0].ops, 2);
        assert_eq!(out[1].ops, 1);
        assert!(out[0].latency.max_ns >= 29_900 && out[0].latency.max_ns <= 30_100);
        let h = decode(&out[0].histogram).unwrap();
        assert_eq!(h.len(), 2);
        // Every plainly recorded operation succeeds.
        assert_eq!(out[0].succeeded(), 2);
        assert_eq!(out[0].busy, 0);
    }

    #[test]
    fn pause_stops_the_clock_until_the_next_phase() {
        let mut r = Recorder::new(&["insert"], None);
        assert!(!r.timing());
        r.phase(0);
        assert!(r.timing());
        r.pause();
        assert!(!r.timing());
        let paused = r.elapsed();
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(r.elapsed(), paused, "time after pause is not measured");
        let (out, measured) = r.finish();
        assert_eq!(measured, paused);
        assert_eq!(out[0].elapsed_ns, paused.as_nanos() as u64);
    }

    #[test]
    fn result_hash_is_kept_for_the_trial() {
        let mut r = Recorder::new(&["a", "b"], None);
        assert_eq!(r.take_result_hash(), None);
        r.phase(0);
        r.pause();
        let measured = r.elapsed();
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(r.elapsed(), measured, "nothing measured between phases");
        r.set_result_hash("ab".into());
        assert_eq!(r.take_result_hash().as_deref(), Some("ab"));
        let (_, total) = r.finish();
        assert_eq!(total, measured);
    }

    #[test]
    fn outcomes_busy_and_absorb() {
        let mut a = Recorder::new(&["read", "write"], None);
        a.record_outcome(0, Duration::from_micros(3), true);
        a.record_outcome(0, Duration::from_micros(4), false);
        a.record_busy(1, BusyCause::Upgrade);
        let mut b = a.sibling();
        b.record_outcome(1, Duration::from_micros(9), true);
        b.record_busy(1, BusyCause::Snapshot);
        b.record_busy(1, BusyCause::Deadlock);
        a.absorb(b);
        a.set_interval(Duration::from_secs(2));
        let (out, measured) = a.finish();
        assert_eq!(measured, Duration::from_secs(2));
        assert_eq!(
            (out[0].ops, out[0].succeeded(), out[0].busy, out[0].failed),
            (2, 1, 0, 0)
        );
        assert_eq!(
            (out[1].ops, out[1].succeeded(), out[1].busy, out[1].failed),
            (1, 1, 3, 3)
        );
        // By cause: a server's deadlock is in `busy` only.
        assert_eq!(
            (out[1].busy_timeout, out[1].busy_upgrade, out[1].busy_snapshot),
            (Some(0), Some(1), Some(1))
        );
        assert_eq!(out[1].elapsed_ns, 2_000_000_000);
        // A client process's results (sent back whole) add their causes too.
        let mut c = Recorder::new(&["read", "write"], None);
        c.record_busy(1, BusyCause::Timeout);
        c.absorb_results(&out);
        let (back, _) = c.finish();
        assert_eq!(
            (
                back[1].busy,
                back[1].busy_timeout,
                back[1].busy_upgrade,
                back[1].busy_snapshot
            ),
            (4, Some(1), Some(1), Some(1))
        );
        assert!((out[0].throughput() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn attribute_io_splits_io_by_type_without_timing() {
        use crate::sys::iocount::FileClass;
        let counters = Arc::new(IoCounters::default());
        let mut r = Recorder::new(&["read", "write"], Some(counters.clone()));
        counters.class(FileClass::Main).syncs(7); // before: nobody's
        r.attribute_io(1);
        counters.class(FileClass::Main).syncs(2);
        r.attribute_io(0);
        counters.class(FileClass::Wal).writes(3);
        r.attribute_io(1);
        counters.class(FileClass::Main).syncs(1);
        r.set_interval(Duration::from_secs(1));
        counters.class(FileClass::Main).syncs(5); // after: nobody's
        let (out, measured) = r.finish();
        assert_eq!(measured, Duration::from_secs(1));
        assert_eq!((out[0].io.total().syncs, out[0].io.total().writes), (0, 3));
        assert_eq!((out[1].io.total().syncs, out[1].io.total().writes), (3, 0));
    }

    /// A sibling made on this thread and run on another charges its operations with that
    /// thread's I/O only, while this thread's I/O goes to this recorder's: neither sees the
    /// other's, as two clients as threads run.
    #[test]
    fn a_sibling_on_another_thread_attributes_that_threads_io_only() {
        use crate::sys::iocount::FileClass;
        let counters = Arc::new(IoCounters::default());
        let mut reader = Recorder::new(&["read", "write"], Some(counters.clone()));
        let mut writer = reader.sibling();
        let both = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            let (counters, both) = (&counters, &both);
            let w = s.spawn(move || {
                writer.attribute_io(1);
                both.wait();
                counters.class(FileClass::Wal).syncs(4);
                counters.class(FileClass::Wal).write_bytes(8192);
                both.wait();
                writer.leave_thread();
                writer
            });
            reader.attribute_io(0);
            both.wait();
            counters.class(FileClass::Main).reads(6);
            both.wait();
            let writer = w.join().unwrap();
            reader.absorb(writer);
        });
        reader.set_interval(Duration::from_secs(1));
        let (out, _) = reader.finish();
        let (read, write) = (out[0].io.total(), out[1].io.total());
        assert_eq!((read.reads, read.syncs, read.write_bytes), (6, 0, 0));
        assert_eq!((write.reads, write.syncs, write.write_bytes), (0, 4, 8192));
        assert_eq!(counters.snapshot().total().syncs, 4);
    }

    #[test]
    fn runs_stored_before_success_counting_still_load() {
        let r = Recorder::new(&["insert"], None);
        let (out, _) = r.finish();
        let mut v = serde_json::to_value(&out[0]).unwrap();
        let obj = v.as_object_mut().unwrap();
        obj.remove("succeeded");
        obj.remove("busy");
        obj.insert("ops".into(), serde_json::json!(7));
        let old: OpResult = serde_json::from_value(v).unwrap();
        assert_eq!(old.succeeded, None);
        assert_eq!(old.succeeded(), 7);
        assert_eq!(old.busy, 0);
    }
}
