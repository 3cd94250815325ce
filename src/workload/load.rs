//! The load driver: runs a workload's transactions from several clients, in a closed loop or on
//! an open-loop schedule at a target rate, the same way for every workload that offers its
//! transactions ([`Transactions`]).
//!
//! **Clients.** Each client has its own connection (the first is the trial's own; the others
//! come from the trial's [`Connector`](super::Connector), configured and verified like it), its
//! own thread and its own seeded stream of transactions; all start together after a barrier.
//!
//! **Open loop and coordinated omission.** With a rate, each client's transactions have intended
//! start times (its share of the rate, Poisson or evenly spaced, seeded), and a transaction's
//! latency is measured **from its intended start**: when the engine stalls, every transaction
//! queued behind the stall is late by the rest of it, as a user waiting on a server would see,
//! instead of the stall being hidden by a client that simply waited (what wrk2 calls coordinated
//! omission, and pgbench `-R` and YCSB's intended-start measurement correct the same way). The
//! schedule lag (actual minus intended start) is kept beside the latency.
//!
//! **Latency limit** (pgbench `-L`): a transaction already later than the limit when its turn
//! comes is skipped and counted; one that completes slower than the limit is counted late.
//!
//! **An engine slower than the rate** never stretches a trial: a trial on a time ends at its
//! time, and the arrivals its schedule had before then that it could not start are counted
//! skipped (not run late: 30,000 tx/s on an engine doing 1,300 made a 1 s trial last 23 s),
//! unless the client was on time when its last transaction began: then the end came while it
//! served, and what came due meanwhile is not counted (as pgbench `-T` counts nothing there; a
//! stall before the end shows as the rate achieved and in the stall warnings instead).
//! A trial on a count gives up the rest of its share once a client is behind its schedule by
//! as long as the whole schedule takes (count / rate, at least [`MIN_BEHIND`] and at least a
//! latency limit, which skips the later ones one by one already): such a trial
//! lasts about twice what its schedule needs at most, and what it gave up is skipped too. The
//! reports say how many were skipped and why ([`crate::model::op::OpResult::skipped`]).
//!
//! **Locks.** A transaction that meets a lock (SQLITE_BUSY and its kin, [`ErrorKind::Busy`]) is
//! tried again, the same transaction, up to `max_tries` tries; the time of failed tries is in
//! its latency; retries, and transactions that never got through, are counted per operation,
//! the latter also by the cause of their last try's failure ([`crate::engines::BusyCause`]).
//! How long each transaction slept in SQLite's busy handler, over all its tries, is taken from
//! [`crate::sys::lock_wait`] after it and kept per operation where it waited.
//!
//! **One loop.** A workload's trials run here whatever the load: with one client in a closed
//! loop, a workload that is timed per phase ([`Streams::phase_timed`]: crud's APSys'17 phases)
//! gets its phases as events of this loop, not from a loop of its own. The loop is compiled per
//! workload ([`Streams::Client`]) and per what a trial needs, so that the closed loop pays for no
//! schedule, warm-up or retry it does not have (`benches/overhead-instructions.sh`).

mod roles;
mod shared_connection;
mod sidecar;

use super::{Trial, WorkloadError};
use crate::engines::{Connection, EngineError, ErrorKind};
use crate::model::load::{Arrival, LoadShape};
use crate::model::params::Params;
use crate::model::series::{Series, SeriesFiles, SeriesIo, SeriesPoint};
use crate::sys::dbfiles::DbFiles;
use crate::sys::iocount::IoSnapshot;
use crate::sys::lock_wait;
use crate::workload::recorder::{Recorder, Totals};
use crate::workload::remote::{CellReport, ClientReport, Kill, ProgressTotals, RemoteClient};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

/// How much a trial runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// This many transactions over all clients (each client its share).
    Count(u64),
    /// Every client runs for this long.
    Time(Duration),
    /// Every client runs until its stream ends ([`Client::done`]): for workloads that split
    /// their own counts between clients.
    Streams,
}

impl Budget {
    /// A workload's `duration` when one is given (not zero), `otherwise` when not.
    pub fn timed_or(duration: Duration, otherwise: Budget) -> Budget {
        if duration.is_zero() {
            otherwise
        } else {
            Budget::Time(duration)
        }
    }
}

/// A workload whose operations are independent transactions, offered to the load driver: what
/// a workload implements. The driver's client loop is compiled once per implementation, over
/// its own [`Streams::Client`] type, so that a client's calls inline into it (the loop is the
/// only timed loop of these workloads, and its cost per transaction is held to a bound by
/// `benches/overhead-instructions.sh`); the runner, the plan and client processes hold the
/// object-safe face every implementation gets, [`Transactions`].
pub trait Streams: Sync {
    /// One client's stream of transactions.
    type Client<'c>: Client
    where
        Self: 'c;
    /// How much one trial runs, from the parameters.
    fn budget(&self, params: &Params) -> Budget;
    /// Why these parameters run only as one closed-loop client, if they do (an ordered script
    /// among a workload's modes): the run is refused with it.
    fn one_client_only(&self, _params: &Params) -> Option<String> {
        None
    }
    /// The parameters of a workload whose trials stop on a count of transactions or on a time,
    /// as the user picks (see [`crate::model::stop_rule`]); none for others.
    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        None
    }
    /// How long every client runs transactions before the measured interval starts (not
    /// recorded); none by default.
    fn warmup(&self, _params: &Params) -> Duration {
        Duration::ZERO
    }
    /// True when one client in a closed loop (the default load shape) is timed per phase with
    /// these parameters: the client marks where its rounds end ([`Client::round_ends`]), each
    /// run of one operation type is a phase whose wall time that type's throughput is over,
    /// the time between rounds (generating the next round's data) is charged to no phase, and
    /// a time budget is measured time, checked where a round ends (the APSys'17 crud phases,
    /// the numbers every earlier run has). False by default: every operation type's
    /// throughput is over the trial's wall time, and the trial has a time series.
    fn phase_timed(&self, _params: &Params) -> bool {
        false
    }
    /// False when a trial with these parameters and this load keeps no time series (nor
    /// `--progress` lines): its records are those of a workload measured over one interval
    /// (TATP's closed loop, as VLDB'22 measured it and every earlier run recorded it). True by
    /// default.
    fn series(&self, _params: &Params, _load: &LoadShape) -> bool {
        true
    }
    /// Client `index` of `clients`: prepares its statements on `conn`, which it keeps, and
    /// returns its stream of transactions, drawn from `seed` (the same seed, the same
    /// transactions).
    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError>;
}

/// The object-safe face of a workload's [`Streams`], which every implementation has: what the
/// driver, the plan and client processes hold.
pub trait Transactions: Sync {
    /// [`Streams::budget`].
    fn budget(&self, params: &Params) -> Budget;
    /// [`Streams::one_client_only`].
    fn one_client_only(&self, params: &Params) -> Option<String>;
    /// [`Streams::stop_params`].
    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams>;
    /// [`Streams::warmup`].
    fn warmup(&self, params: &Params) -> Duration;
    /// [`Streams::phase_timed`].
    fn phase_timed(&self, params: &Params) -> bool;
    /// [`Streams::series`].
    fn series(&self, params: &Params, load: &LoadShape) -> bool;
    /// Runs one client of a trial on `conn` to the end of its budget: the driver's client loop,
    /// compiled for this workload's client type.
    fn run_client(&self, conn: &mut dyn Connection, seat: Seat<'_, '_>) -> Result<(), WorkloadError>;
}

impl<S: Streams> Transactions for S {
    fn budget(&self, params: &Params) -> Budget {
        Streams::budget(self, params)
    }
    fn one_client_only(&self, params: &Params) -> Option<String> {
        Streams::one_client_only(self, params)
    }
    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        Streams::stop_params(self)
    }
    fn warmup(&self, params: &Params) -> Duration {
        Streams::warmup(self, params)
    }
    fn phase_timed(&self, params: &Params) -> bool {
        Streams::phase_timed(self, params)
    }
    fn series(&self, params: &Params, load: &LoadShape) -> bool {
        Streams::series(self, params, load)
    }
    fn run_client(&self, conn: &mut dyn Connection, seat: Seat<'_, '_>) -> Result<(), WorkloadError> {
        client_loop(self, conn, seat)
    }
}

/// What one client of a trial runs with, handed to [`Transactions::run_client`]: its index, the
/// trial, what the trial's clients share, and where it records.
pub struct Seat<'s, 'a> {
    index: u32,
    trial: &'s Trial<'a>,
    shared: &'s Shared<'a>,
    rec: &'s mut Recorder,
    buckets: &'s mut Buckets,
    /// A cast's workload role this client plays ([`roles`]); none: one of the trial's
    /// identical clients.
    role: Option<RoleSeat<'s>>,
    /// The lock held for each whole transaction where the clients share one connection
    /// ([`shared_connection`]); none: a connection of its own.
    serial: Option<&'s std::sync::Mutex<()>>,
}

/// What a client of a cast's workload role runs with instead of the trial's: the role's load
/// shape and parameters, and its seed (from its index over the whole cast, so that no two
/// clients draw the same stream).
struct RoleSeat<'s> {
    shape: &'s LoadShape,
    params: &'s Params,
    seed: u64,
}

/// One client's stream of transactions.
pub trait Client {
    /// Draws the next transaction (its parameters), outside any timing, and returns its
    /// operation type (an index into the workload's operations).
    fn draw(&mut self) -> usize;
    /// Runs the drawn transaction on the client's connection: `Ok(true)` when it succeeded by
    /// the workload's rules. On an error it leaves no transaction open, so that the driver can
    /// run it again.
    fn execute(&mut self) -> Result<bool, EngineError>;
    /// True when this client's stream has no transaction left (checked before each draw).
    fn done(&self) -> bool {
        false
    }
    /// Which of the optional calls below this client answers, asked once per trial so that
    /// the transactions of clients without them pay no call for them. None by default.
    fn hooks(&self) -> Hooks {
        Hooks::default()
    }
    /// When the next transaction is due, after the measured start: its recorded start in a
    /// replayed log (checked after [`Client::done`], before each draw; only with
    /// [`Hooks::due`]). The driver waits for it and measures the latency from it, as from an
    /// open loop's intended start, so a transaction started late counts its wait. None: the
    /// load shape's schedule, if any.
    fn due(&self) -> Option<Duration> {
        None
    }
    /// Checks what the last transaction that completed returned, after its clock stopped (the
    /// blob workload's read checksums; only with [`Hooks::check`]): an error stops the trial.
    fn check(&mut self) -> Result<(), WorkloadError> {
        Ok(())
    }
    /// Parts of the last transaction, each timed on its own inside it, as `(operation type,
    /// nanoseconds)` (a script's statements, pgbench `-r`): recorded beside the transaction
    /// when it completed, in types that are parts of its own (see
    /// [`crate::model::op::OpResult::part_of`]; only with [`Hooks::parts`]).
    fn parts(&self) -> &[(usize, u64)] {
        &[]
    }
    /// In a phase-timed trial ([`Streams::phase_timed`]), checked before each draw: true when
    /// the next draw starts a new round, so that the phase still open ends here and the draw's
    /// untimed work (generating the round's data) is charged to no phase. False by default.
    fn round_ends(&self) -> bool {
        false
    }
    /// How long the client rests after the transaction that just ended, untimed, before its
    /// next draw (only with [`Hooks::pause`]): a queue worker that found no job polls again
    /// after its polling interval, as Solid Queue's workers do. The rest ends early at the
    /// trial's end or on a stop. None: no rest.
    fn pause(&self) -> Option<Duration> {
        None
    }
    /// Whether the driver may try again the transaction just drawn when it meets a lock (up to
    /// `--max-tries`). True by default; false where the application the workload stands for
    /// never retries it (a Solid Queue worker's claim: its error ends the worker, and the next
    /// claim is another poll), so that `--max-tries` cannot make a failure disappear that the
    /// application would meet.
    fn retries(&self) -> bool {
        true
    }
    /// The hash of the query results of the client's first transactions, when it kept one
    /// ([`super::result_hash`]): asked once, of client 0, after its last transaction, in a
    /// trial whose transactions' results depend only on the seed (one client in a closed loop,
    /// one try each). None by default.
    fn result_hash(&mut self) -> Option<String> {
        None
    }
}

/// A client chosen at run time among several types (a workload's modes): each call goes through
/// the box.
impl<C: Client + ?Sized> Client for Box<C> {
    fn draw(&mut self) -> usize {
        (**self).draw()
    }
    fn execute(&mut self) -> Result<bool, EngineError> {
        (**self).execute()
    }
    fn done(&self) -> bool {
        (**self).done()
    }
    fn hooks(&self) -> Hooks {
        (**self).hooks()
    }
    fn due(&self) -> Option<Duration> {
        (**self).due()
    }
    fn check(&mut self) -> Result<(), WorkloadError> {
        (**self).check()
    }
    fn parts(&self) -> &[(usize, u64)] {
        (**self).parts()
    }
    fn round_ends(&self) -> bool {
        (**self).round_ends()
    }
    fn result_hash(&mut self) -> Option<String> {
        (**self).result_hash()
    }
    fn pause(&self) -> Option<Duration> {
        (**self).pause()
    }
    fn retries(&self) -> bool {
        (**self).retries()
    }
}

/// The optional calls a [`Client`] answers ([`Client::hooks`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hooks {
    /// [`Client::due`]: transactions have their own start times.
    pub due: bool,
    /// [`Client::check`]: a completed transaction's result is checked after its clock stopped.
    pub check: bool,
    /// [`Client::parts`]: a transaction's parts are timed and recorded beside it.
    pub parts: bool,
    /// [`Client::pause`]: the client rests between some transactions.
    pub pause: bool,
}

/// A per-client seed: the same for the same trial seed and client, different between clients.
pub fn client_seed(seed: u64, index: u32) -> u64 {
    seed ^ (u64::from(index) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The trial's seed back from client `index`'s [`client_seed`] (the derivation is its own
/// inverse): for a workload whose clients draw from the trial's seed and their index, as
/// TATP's own clients always did.
pub fn trial_seed(client_seed: u64, index: u32) -> u64 {
    self::client_seed(client_seed, index)
}

/// The intended start times of one client's open loop.
struct Schedule {
    next: Instant,
    /// Mean gap between this client's intended starts, nanoseconds.
    gap_ns: f64,
    arrival: Arrival,
    rng: ChaCha8Rng,
}

impl Schedule {
    fn new(start: Instant, rate_per_client: f64, arrival: Arrival, seed: u64) -> Schedule {
        let mut s = Schedule {
            next: start,
            gap_ns: 1e9 / rate_per_client,
            arrival,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5C4E_D01E),
        };
        s.next = start + s.gap();
        s
    }

    fn gap(&mut self) -> Duration {
        let ns = match self.arrival {
            Arrival::Uniform => self.gap_ns,
            // Exponential: -ln(U) times the mean, U in (0, 1].
            Arrival::Poisson => -(1.0 - self.rng.random::<f64>()).ln() * self.gap_ns,
        };
        Duration::from_nanos(ns.min(1e15) as u64)
    }

    /// Starts again at `t` (a scheduled role's next window), with no backlog from its pause.
    fn restart(&mut self, t: Instant) {
        self.next = t;
    }

    /// The next intended start, and moves the schedule past it.
    fn take(&mut self) -> Instant {
        let t = self.next;
        let g = self.gap();
        self.next += g;
        t
    }
}

/// Where a scheduled cast role's transaction falls against its windows.
enum Window {
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
fn outside_window(
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
fn pause_until(t: Instant, shared: &Shared<'_>) {
    while Instant::now() < t && !shared.halted() {
        wait_until(t.min(Instant::now() + Duration::from_millis(20)), shared.stop);
    }
}

/// Waits until `t`: sleeps while far, then yields, so that a start is late by microseconds,
/// not by a scheduler tick. Returns the time it read last (`t` or later, unless stopped).
fn wait_until(t: Instant, stop: &AtomicBool) -> Instant {
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

/// One client's time series: per interval and operation type, counts and a latency histogram;
/// in the trial's own, also the VFS counters at each interval's start (read by a sampler
/// thread on the clock, not by a client, so a client blocked on a lock leaves no gap).
///
/// A client records each transaction once, in its recorder; the series is the difference of
/// the recorder's running totals and histograms between interval ends, taken when a
/// transaction is the first to end in a new interval. Per transaction that costs one
/// comparison, not a second histogram record (see `benches/overhead-instructions.sh`).
struct Buckets {
    interval: Duration,
    ops: usize,
    /// `cells[interval][op]`.
    cells: Vec<Vec<Cell>>,
    /// `(interval, counters)` at that interval's start.
    io: Vec<(usize, IoSnapshot)>,
    /// The database's files, as the sampler read them.
    files: Vec<SeriesFiles>,
    /// The interval being counted, and where it ends (nanoseconds after the measured start).
    current: usize,
    ends_ns: u64,
    /// Per operation type, the recorder's totals and latency histogram when the current
    /// interval started (no histogram before the type's first transaction).
    at_start: Vec<(Totals, Option<Histogram<u64>>)>,
    /// Counting nothing: the trial keeps no series ([`Streams::series`]).
    off: bool,
}

#[derive(Default)]
struct Cell {
    counts: Totals,
    hist: Option<Histogram<u64>>,
}

/// A series histogram: two significant digits are enough for p50/p99/max per interval, and
/// keep each one small.
fn series_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, crate::model::op::MAX_NS, 2).expect("static histogram bounds are valid")
}

impl Buckets {
    fn new(interval: Duration, ops: usize) -> Buckets {
        Buckets {
            interval,
            ops,
            cells: Vec::new(),
            io: Vec::new(),
            files: Vec::new(),
            current: 0,
            ends_ns: interval.as_nanos().clamp(1, u128::from(u64::MAX)) as u64,
            at_start: (0..ops).map(|_| (Totals::default(), None)).collect(),
            off: false,
        }
    }

    /// Counts nothing from now on: no interval ever ends, so a transaction costs the one
    /// comparison and no interval's histograms are differenced.
    fn switch_off(&mut self) {
        self.off = true;
        self.ends_ns = u64::MAX;
    }

    fn interval_ns(&self) -> u64 {
        self.interval.as_nanos().clamp(1, u128::from(u64::MAX)) as u64
    }

    fn cell(&mut self, i: usize, op: usize) -> &mut Cell {
        if self.cells.len() <= i {
            let ops = self.ops;
            self.cells
                .resize_with(i + 1, || (0..ops).map(|_| Cell::default()).collect());
        }
        &mut self.cells[i][op]
    }

    /// Starts counting from `rec`'s totals now (the measured start).
    fn begin(&mut self, rec: &Recorder) {
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
    fn reach(&mut self, ns: u64, rec: &Recorder) {
        if ns >= self.ends_ns {
            self.close(rec);
            let width = self.interval_ns();
            self.current = (ns / width) as usize;
            self.ends_ns = (ns / width).saturating_add(1).saturating_mul(width);
        }
    }

    /// Ends the current interval: what `rec` counted since it started.
    #[cold]
    fn close(&mut self, rec: &Recorder) {
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
    fn absorb(&mut self, other: Buckets) {
        self.absorb_at(other, 0);
    }

    /// Adds another client's cells, its operation types at `offset` in this one's (a cast's
    /// role, into the trial's `ROLE:OP` types).
    fn absorb_at(&mut self, other: Buckets, offset: usize) {
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
    fn report_cells(&self) -> Vec<CellReport> {
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
    fn absorb_cells(&mut self, cells: Vec<CellReport>, offset: usize) {
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
    fn io(&self, end: Option<IoSnapshot>) -> Vec<SeriesIo> {
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
    fn series(self, names: &[&'static str], end: Option<IoSnapshot>, more: Vec<SeriesIo>) -> Series {
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

/// Shared by the clients of a trial.
struct Shared<'a> {
    shape: &'a LoadShape,
    budget: Budget,
    stop: &'a AtomicBool,
    /// Set when a client failed: the others stop too.
    abort: AtomicBool,
    ready: Barrier,
    start: OnceLock<Instant>,
    /// Latest end of a recorded transaction, nanoseconds after the measured start.
    last_end_ns: AtomicU64,
    /// The workload's warm-up before the measured interval ([`Transactions::warmup`]).
    warmup: Duration,
    /// Timed per phase, with no time series ([`Streams::phase_timed`]): one client in a closed
    /// loop of a workload that is.
    phased: bool,
    /// `--measure instructions` of a trial timed as one interval (not in phases): callgrind
    /// instruments from the common start to the end of the last client's loop, and each client
    /// thread reads its own count at the end of its loop.
    counting: bool,
    /// Keeps a time series (and prints `--progress` lines): not when phase-timed, nor where the
    /// workload keeps none ([`Streams::series`]).
    series: bool,
    /// Running totals of every client, for `--progress`.
    progress: Progress,
    /// Called once every client of this process is ready, before the measured start: starts
    /// the client processes (in the driver) or waits for the driver's word (in a client
    /// process); false stops the trial.
    gate: Option<&'a (dyn Fn() -> bool + Sync)>,
    /// This process's clients whose loops have not ended yet; at zero the sampler reads the
    /// database's files a last time.
    loops_left: AtomicU32,
    /// Set once the sampler's last reading of the files is taken (or none will be): until then
    /// a client that ended keeps its connection open, because the last connection to close
    /// checkpoints and deletes the WAL, and the trial's last reading would see none.
    files_final: AtomicBool,
}

/// Running totals over every client, read once per interval for `--progress` (pgbench -P):
/// counted only when asked for, so a run without it pays nothing.
#[derive(Default)]
struct Progress {
    ops: AtomicU64,
    latency_ns: AtomicU64,
    lag_ns: AtomicU64,
    retries: AtomicU64,
    busy: AtomicU64,
    skipped: AtomicU64,
    /// The totals at the last line printed.
    last: std::sync::Mutex<[u64; 6]>,
}

impl Progress {
    fn add(&self, latency_ns: u64, lag_ns: Option<u64>) {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.latency_ns.fetch_add(latency_ns, Ordering::Relaxed);
        if let Some(l) = lag_ns {
            self.lag_ns.fetch_add(l, Ordering::Relaxed);
        }
    }

    /// The running totals, as a client process sends them.
    fn totals(&self) -> ProgressTotals {
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
    fn add_totals(&self, d: &ProgressTotals) {
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
    fn line(&self, at: Duration, interval: Duration, open: bool, name: &str) -> String {
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

impl Shared<'_> {
    fn rendezvous(&self, ok: bool) -> Option<Instant> {
        if !ok {
            self.abort.store(true, Ordering::Relaxed);
        }
        self.ready.wait();
        if self.abort.load(Ordering::Relaxed) {
            return None;
        }
        let start = *self.start.get_or_init(|| {
            if self.gate.is_some_and(|go| !go()) {
                self.abort.store(true, Ordering::Relaxed);
            }
            if self.counting {
                crate::sys::valgrind::start_instrumentation();
            }
            Instant::now()
        });
        (!self.abort.load(Ordering::Relaxed)).then_some(start)
    }

    /// A client's transaction failed with `e`: the other clients stop too. After a stop
    /// request the error is the interruption of its statement (see
    /// [`crate::engines::interrupt`]), not a failure of the trial.
    fn failed(&self, e: EngineError) -> WorkloadError {
        if self.stop.load(Ordering::Relaxed) {
            return WorkloadError::Interrupted;
        }
        self.abort.store(true, Ordering::Relaxed);
        e.into()
    }

    fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.abort.load(Ordering::Relaxed)
    }

    /// A client's loop ended (or never started).
    fn loop_ended(&self) {
        // The last loop's end is the measured interval's: callgrind instruments no further.
        if self.loops_left.fetch_sub(1, Ordering::AcqRel) == 1 && self.counting {
            crate::sys::valgrind::stop_instrumentation();
        }
    }

    /// Says that the files have been read a last time (or will not be), letting the clients
    /// close their connections.
    fn files_read(&self) {
        self.files_final.store(true, Ordering::Release);
    }

    /// Called by a client whose loop ended, before it closes its connection: waits until the
    /// sampler has read the files a last time, at most [`FILES_FINAL_WAIT`].
    fn before_close(&self) {
        let deadline = Instant::now() + FILES_FINAL_WAIT;
        while !self.files_final.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// How long a client whose loop ended waits for the sampler's last reading of the files before
/// it closes its connection anyway.
const FILES_FINAL_WAIT: Duration = Duration::from_secs(5);

/// How one client runs, fixed before its first transaction.
struct Course {
    /// The common start, and where the warm-up ends and the measured interval starts.
    start: Instant,
    warm_end: Instant,
    /// A scheduled cast role's windows, after `warm_end`.
    windows: Option<crate::model::cast::Schedule>,
    /// This client's share of a count budget (`u64::MAX` for the others).
    count: u64,
    /// Where a time budget ends; in a phase-timed trial, the measured time it allows instead.
    until: Option<Instant>,
    measure: Option<Duration>,
    limit: Option<Duration>,
    /// An open loop on a count: how far behind its schedule a client may fall before it gives
    /// up the rest of its share (see the module's docs); none on a time (`until` ends it).
    behind: Option<Duration>,
    max_tries: u32,
    hooks: Hooks,
    /// The waits before retries ([`Waits`]): boxed, so that the loop's own state stays as
    /// small as before `--retry-backoff`.
    waits: Box<std::cell::RefCell<Waits>>,
}

/// The waits before one client's retries: its load shape's backoff, and where it has jitter,
/// the draws from a generator seeded from the client's seed (the same seed, the same waits).
struct Waits {
    backoff: crate::model::backoff::Backoff,
    draws: ChaCha8Rng,
}

impl Waits {
    fn new(backoff: crate::model::backoff::Backoff, seed: u64) -> Waits {
        Waits {
            backoff,
            // Apart from the seed's other streams (the transactions', the schedule's).
            draws: ChaCha8Rng::seed_from_u64(seed ^ 0xBAC0_FF00_0000_0001),
        }
    }

    /// The wait before retry `retry` (1: the first).
    fn before(&mut self, retry: u32) -> Duration {
        let step = self.backoff.step(retry);
        if self.backoff.jitter() && !step.is_zero() {
            Duration::from_nanos(self.draws.random_range(0..=step.as_nanos() as u64))
        } else {
            step
        }
    }
}

/// Runs the client of `seat` to the end of its budget: makes its stream, meets the other
/// clients at the common start, and runs the loop compiled for what this trial needs.
fn client_loop<S: Streams>(tx: &S, conn: &mut dyn Connection, seat: Seat<'_, '_>) -> Result<(), WorkloadError> {
    let Seat {
        index,
        trial,
        shared,
        rec,
        buckets,
        role,
        serial,
    } = seat;
    let (shape, params, seed) = match role {
        Some(r) => (r.shape, r.params, r.seed),
        None => (shared.shape, trial.params, client_seed(trial.seed, index)),
    };
    let clients = shape.clients;
    let made = tx.client(conn, index, clients, seed, params);
    let Some(start) = shared.rendezvous(made.is_ok()) else {
        return match made {
            Err(e) => Err(e),
            Ok(_) => Err(WorkloadError::Interrupted),
        };
    };
    let client = made?;
    let ran = Ran {
        index,
        trial,
        shared,
        shape,
        clients,
        seed,
        start,
    };
    let ran = match serial {
        None => run_made(client, &ran, rec, buckets),
        Some(lock) => run_made(
            shared_connection::Serialized { inner: client, lock },
            &ran,
            rec,
            buckets,
        ),
    };
    // `--measure instructions` of a trial timed as one interval: this client's thread's count
    // from the common start to the end of its loop.
    if shared.counting {
        rec.take_thread_instructions();
    }
    ran
}

/// What [`run_made`] runs a client with, fixed when the clients meet at the common start.
struct Ran<'r, 'a> {
    index: u32,
    trial: &'r Trial<'a>,
    shared: &'r Shared<'a>,
    shape: &'r LoadShape,
    clients: u32,
    seed: u64,
    start: Instant,
}

/// Runs a client made and started (see [`client_loop`]) in the loop compiled for what this
/// trial needs: its stream type `C` is the workload's, or the workload's held to one
/// transaction at a time on a shared connection.
fn run_made<C: Client>(
    mut client: C,
    ran: &Ran<'_, '_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
) -> Result<(), WorkloadError> {
    let Ran {
        index,
        trial,
        shared,
        shape,
        clients,
        seed,
        start,
    } = *ran;
    let hooks = client.hooks();
    if !shared.series {
        buckets.switch_off();
    }
    // Warm-up: transactions run on the same schedule but are not recorded; the measured
    // interval, the series and the time budget start where it ends.
    let warm_end = start + shared.warmup;
    let (count, until, measure) = match shared.budget {
        // Client i runs its share; the first `total % clients` run one more.
        Budget::Count(total) => {
            let share = total / u64::from(clients) + u64::from(u64::from(index) < total % u64::from(clients));
            (share, None, None)
        }
        Budget::Time(d) if shared.phased => (u64::MAX, None, Some(d)),
        Budget::Time(d) => (u64::MAX, Some(warm_end + d), None),
        Budget::Streams => (u64::MAX, None, None),
    };
    let behind = match (shared.budget, shape.rate) {
        // A latency limit skips what is later than it one by one: no sooner than that.
        (Budget::Count(total), Some(r)) => Some(behind_limit(total, r).max(shape.latency_limit().unwrap_or_default())),
        _ => None,
    };
    let course = Course {
        start,
        warm_end,
        windows: shape.windows,
        count,
        until,
        measure,
        limit: shape.latency_limit(),
        behind,
        max_tries: shape.max_tries.max(1),
        hooks,
        waits: Box::new(std::cell::RefCell::new(Waits::new(shape.retry_backoff, seed))),
    };
    let schedule = shape
        .rate
        .map(|r| Schedule::new(start, r / f64::from(clients), shape.arrival, seed));
    // The closed loop without a warm-up or optional calls (one client, or several in a closed
    // loop) checks none of what only a schedule, a warm-up, progress lines or a client's
    // optional calls need.
    let full = schedule.is_some()
        || hooks != Hooks::default()
        || !shared.warmup.is_zero()
        || shape.progress
        || shape.windows.is_some();
    let c = &mut client;
    // A trial that keeps no series and is not timed per phase, on no schedule and with no
    // optional calls (TATP's closed loop): the loop of one interval, two clock readings per
    // transaction.
    let plain =
        !shared.series && !shared.phased && schedule.is_none() && hooks == Hooks::default() && shape.windows.is_none();
    let last_end_ns = match (full, shared.phased) {
        _ if plain => run_interval(c, &course, shared, rec),
        (false, false) => run_stream::<C, false, false>(c, &course, schedule, shared, rec, buckets),
        (false, true) => run_phased(c, &course, shared, rec).map(|()| 0),
        (true, false) => run_stream::<C, true, false>(c, &course, schedule, shared, rec, buckets),
        (true, true) => run_stream::<C, true, true>(c, &course, schedule, shared, rec, buckets),
    }?;
    shared.last_end_ns.fetch_max(last_end_ns, Ordering::Relaxed);
    if trial.stop.load(Ordering::Relaxed) {
        return Err(WorkloadError::Interrupted);
    }
    if index == 0 && shared.shape.is_default() {
        if let Some(h) = client.result_hash() {
            rec.set_result_hash(h);
        }
    }
    Ok(())
}

/// One client's loop; returns its last recorded end (nanoseconds after the measured start).
/// `FULL`: with what only some trials need (a schedule or a client's start times, a warm-up,
/// progress lines, checked results, timed parts); without it the loop is a closed loop that
/// reads no wall clock for a count budget. `PHASED`: timed per phase ([`Streams::phase_timed`]),
/// with no time series.
fn run_stream<C: Client, const FULL: bool, const PHASED: bool>(
    client: &mut C,
    course: &Course,
    mut schedule: Option<Schedule>,
    shared: &Shared<'_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
) -> Result<u64, WorkloadError> {
    let clock = crate::sys::clock::clock();
    let mut warming = FULL && course.warm_end > course.start;
    // The series' times start where the schedule's do (the measured start, an Instant), not
    // when this thread came to run: a client that woke late under load would otherwise count
    // a scheduled role's first transaction in the interval before its window.
    let mut start_ticks = clock.reading_at(course.warm_end);
    let mut done = 0u64;
    // This client's last recorded end, published once it stops.
    let mut last_end_ns = 0u64;
    // The open phase's operation type.
    let mut phase = None;
    // When this client's last transaction began (open loops only).
    let mut last_began: Option<Instant> = None;
    if !PHASED {
        buckets.begin(rec);
    }
    // The lock waits of the connection's set-up are no transaction's.
    lock_wait::take();
    while done < course.count {
        if shared.halted() || client.done() {
            break;
        }
        if PHASED && client.round_ends() {
            rec.pause();
            phase = None;
            if course.measure.is_some_and(|d| rec.elapsed() >= d) {
                break;
            }
        }
        let intended = if FULL {
            schedule.as_mut().map(Schedule::take).or_else(|| {
                if course.hooks.due {
                    client.due().map(|d| course.warm_end + d)
                } else {
                    None
                }
            })
        } else {
            None
        };
        if FULL && course.windows.is_some() {
            match outside_window(course, intended, schedule.as_mut(), shared) {
                Window::Open => {}
                Window::Paused => continue,
                Window::Over => break,
            }
        }
        if let Some(t) = intended {
            if course.until.is_some_and(|u| t >= u) {
                break;
            }
            let now = wait_until(t, shared.stop);
            if shared.halted() {
                break;
            }
            // Behind the schedule past the trial's end (or, on a count, by the whole
            // schedule's length): what is left of the schedule is skipped, not run late. A
            // client that was on time when its last transaction began skipped nothing: the
            // trial ended while it served (pgbench counts nothing there either).
            let ended = course.until.is_some_and(|u| now >= u);
            if ended || course.behind.is_some_and(|b| now > t + b) {
                if !(ended && last_began.is_some_and(|b| t >= b)) {
                    let skipped = skip_rest::<C, PHASED>(client, course, schedule.as_mut(), done, now, rec, buckets);
                    if shared.shape.progress {
                        shared.progress.skipped.fetch_add(skipped, Ordering::Relaxed);
                    }
                }
                break;
            }
        } else if course.until.is_some_and(|u| Instant::now() >= u) {
            break;
        }
        let op = client.draw();
        if FULL && warming {
            if Instant::now() < course.warm_end {
                match client.execute() {
                    Ok(true) if course.hooks.check => client.check()?,
                    Ok(_) => {}
                    Err(e) if e.kind == ErrorKind::Busy => {}
                    Err(e) => return Err(shared.failed(e)),
                }
                if course.hooks.pause {
                    rest(client, course, shared);
                }
                continue;
            }
            warming = false;
            start_ticks = clock.reading_at(course.warm_end);
            lock_wait::take();
        }
        done += 1;
        // An open loop needs the wall clock for its schedule; the service time of every
        // transaction is read from the calibrated cycle counter, as the recorder's laps are.
        let began = intended.map(|_| Instant::now());
        last_began = began;
        if let (Some(t), Some(b)) = (intended, began) {
            if course.limit.is_some_and(|l| b.saturating_duration_since(t) > l) {
                if !PHASED {
                    buckets.reach(b.saturating_duration_since(course.warm_end).as_nanos() as u64, rec);
                }
                rec.record_skipped(op);
                if shared.shape.progress {
                    shared.progress.skipped.fetch_add(1, Ordering::Relaxed);
                }
                continue;
            }
        }
        if PHASED {
            // A phase starts with its type's first transaction; its time and I/O are its own.
            if phase != Some(op) {
                rec.phase(op);
                phase = Some(op);
            }
        } else {
            rec.attribute_io(op);
        }
        let t0 = clock.now();
        // Ok(succeeded), or Err(the cause of the last try's lock failure) once out of tries.
        let (outcome, tries) = match client.execute() {
            Ok(ok) => (Ok(ok), 1),
            Err(e) => retry(client, e, shared, course)?,
        };
        let t1 = clock.now();
        rec.record_busy_wait(op, lock_wait::take());
        let end_ns = clock.ns_between(start_ticks, t1);
        // From the intended start in an open loop: the wait for a late start, then the service.
        let lag_ns = match (intended, began) {
            (Some(t), Some(b)) => Some(b.saturating_duration_since(t).as_nanos() as u64),
            _ => None,
        };
        let latency_ns = lag_ns.unwrap_or(0) + clock.ns_between(t0, t1);
        // The series counts a transaction in the interval it ended in.
        if !PHASED {
            buckets.reach(end_ns, rec);
        }
        if tries > 1 {
            rec.record_retries(op, u64::from(tries - 1));
        }
        if FULL && shared.shape.progress {
            let p = &shared.progress;
            p.retries.fetch_add(u64::from(tries - 1), Ordering::Relaxed);
            match outcome {
                Ok(_) => p.add(latency_ns, lag_ns),
                Err(_) => {
                    p.busy.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        match outcome {
            Ok(ok) => {
                rec.record_outcome_ns(op, latency_ns, ok);
                if FULL && course.hooks.parts {
                    for &(part, ns) in client.parts() {
                        rec.record_outcome_ns(part, ns, true);
                    }
                }
                if let Some(lag) = lag_ns {
                    rec.record_lag(op, lag);
                    if course.limit.is_some_and(|l| latency_ns > l.as_nanos() as u64) {
                        rec.record_late(op);
                    }
                }
            }
            Err(cause) => rec.record_busy(op, cause),
        }
        last_end_ns = end_ns;
        if FULL && course.hooks.check && outcome.is_ok() {
            if let Err(e) = client.check() {
                shared.abort.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        if FULL && course.hooks.pause {
            rest(client, course, shared);
        }
    }
    if PHASED {
        rec.pause();
    } else {
        buckets.close(rec);
    }
    Ok(last_end_ns)
}

/// The least a count's open loop may fall behind before it gives up the rest of its schedule.
pub const MIN_BEHIND: Duration = Duration::from_secs(1);

/// Draws (and counts one by one, under the types they draw) at most this many of the arrivals
/// a client could not start; past them the rest are counted under the last type drawn, so that
/// an hour at a million a second behind a stalled engine costs no hour to count.
const MAX_SKIP_DRAWS: u64 = 1_000_000;

/// How far behind its schedule a client of a `total`-transaction open loop at `rate` may fall:
/// the time the whole schedule takes, at least [`MIN_BEHIND`].
pub fn behind_limit(total: u64, rate: f64) -> Duration {
    let secs = total as f64 / rate;
    Duration::from_secs_f64(secs.min(crate::model::params::MAX_DURATION.as_secs_f64())).max(MIN_BEHIND)
}

/// Counts as skipped the arrivals a client behind its schedule could not start: the one due
/// now (not drawn yet), then on a time each later one its schedule (or the workload's own start
/// times) had before the trial's end, on a count the rest of its share. Each is drawn, so it
/// is counted under its own type, up to [`MAX_SKIP_DRAWS`]. The series counts them in the
/// interval where the client gave up (the trial's last on a time). Returns how many.
#[cold]
#[inline(never)]
fn skip_rest<C: Client, const PHASED: bool>(
    client: &mut C,
    course: &Course,
    mut schedule: Option<&mut Schedule>,
    done: u64,
    now: Instant,
    rec: &mut Recorder,
    buckets: &mut Buckets,
) -> u64 {
    if !PHASED {
        let mut at = now.saturating_duration_since(course.warm_end);
        if let Some(u) = course.until {
            at = at.min(
                u.saturating_duration_since(course.warm_end)
                    .saturating_sub(Duration::from_nanos(1)),
            );
        }
        buckets.reach(at.as_nanos() as u64, rec);
    }
    let mut skipped = 0u64;
    let mut op = client.draw();
    rec.record_skipped(op);
    skipped += 1;
    let on_count = course.until.is_none();
    loop {
        if on_count {
            if done + skipped >= course.count {
                break;
            }
        } else {
            let next = match schedule.as_deref_mut() {
                Some(s) => Some(s.take()),
                None if course.hooks.due => client.due().map(|d| course.warm_end + d),
                None => None,
            };
            match (next, course.until) {
                (Some(t), Some(u)) if t < u => {}
                _ => break,
            }
        }
        if client.done() {
            break;
        }
        if skipped >= MAX_SKIP_DRAWS {
            // The rest at once: on a count what is left of the share; on a time what the
            // schedule's mean gap leaves before the end (the workload's own times: none more).
            let rest = if on_count {
                course.count.saturating_sub(done + skipped)
            } else {
                match (schedule.as_deref(), course.until) {
                    (Some(s), Some(u)) => {
                        (u.saturating_duration_since(s.next).as_nanos() as f64 / s.gap_ns.max(1.0)) as u64 + 1
                    }
                    _ => 0,
                }
            };
            rec.record_skipped_n(op, rest);
            skipped += rest;
            break;
        }
        op = client.draw();
        rec.record_skipped(op);
        skipped += 1;
    }
    skipped
}

/// The rest a client asks for after a transaction ([`Client::pause`]), cut short at the end of
/// a timed budget or on a stop.
fn rest<C: Client>(client: &C, course: &Course, shared: &Shared<'_>) {
    if let Some(d) = client.pause() {
        let t = Instant::now() + d;
        pause_until(course.until.map_or(t, |u| t.min(u)), shared);
    }
}

/// The closed loop of a trial measured over one interval, without a series, a schedule or
/// optional calls (TATP's, as VLDB'22 measured it): per transaction no more than the loop it
/// replaced, so that its trials cost what they did. Two readings of the calibrated clock per
/// transaction, around it; the previous transaction's end stands for the next one's start in
/// the warm-up's and the budget's checks (the draw in between takes well under a microsecond).
/// Returns the last recorded end, nanoseconds after the warm-up's end.
fn run_interval<C: Client>(
    client: &mut C,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
) -> Result<u64, WorkloadError> {
    let clock = crate::sys::clock::clock();
    let origin = clock.now();
    let at = Instant::now();
    let since_origin = |t: Instant| t.saturating_duration_since(at).as_nanos() as u64;
    let warm_ns = since_origin(course.warm_end);
    let end_ns = course.until.map_or(u64::MAX, since_origin);
    // The previous transaction's end, nanoseconds after `origin`.
    let mut now_ns = 0u64;
    while now_ns < warm_ns {
        if shared.halted() || client.done() {
            return Ok(0);
        }
        client.draw();
        match client.execute() {
            Ok(_) => {}
            Err(e) if e.kind == ErrorKind::Busy => {}
            Err(e) => return Err(shared.failed(e)),
        }
        now_ns = clock.ns_between(origin, clock.now());
    }
    let mut done = 0u64;
    let mut last_end_ns = 0u64;
    // The warm-up's and the set-up's lock waits are no measured transaction's.
    lock_wait::take();
    while done < course.count {
        if shared.halted() || client.done() || now_ns >= end_ns {
            break;
        }
        let op = client.draw();
        done += 1;
        rec.attribute_io(op);
        let t0 = clock.now();
        // Ok(succeeded), or Err(the cause of the last try's lock failure) once out of tries.
        let (outcome, tries) = match client.execute() {
            Ok(ok) => (Ok(ok), 1),
            Err(e) => retry(client, e, shared, course)?,
        };
        let t1 = clock.now();
        rec.record_busy_wait(op, lock_wait::take());
        if tries > 1 {
            rec.record_retries(op, u64::from(tries - 1));
        }
        match outcome {
            Ok(ok) => rec.record_outcome_ns(op, clock.ns_between(t0, t1), ok),
            Err(cause) => rec.record_busy(op, cause),
        }
        now_ns = clock.ns_between(origin, t1);
        last_end_ns = now_ns.saturating_sub(warm_ns);
    }
    Ok(last_end_ns)
}

/// The phase-timed closed loop without optional calls (crud's one client, as a run executes
/// it): per transaction it does no more than the phase loop it replaced, so that its cost
/// stays within the project's bound against a bare loop over the C API
/// (`benches/overhead-instructions.sh`). One reading of the calibrated clock per transaction
/// (the recorder's lap: from the phase's start or the previous transaction's end, the client's
/// draw within a round included, as the old loop timed its own indexing); the stop flag; the
/// client's calls. What changes only where a round ends (the other client's failure, none
/// here, one client only; the stream's end; the measured time against the budget) is checked
/// there. No series, no schedule, hence no end to publish.
fn run_phased<C: Client>(
    client: &mut C,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
) -> Result<(), WorkloadError> {
    let mut done = 0u64;
    // The open phase's operation type (none between rounds).
    let mut phase = None;
    lock_wait::take();
    while done < course.count {
        if client.round_ends() {
            rec.pause();
            phase = None;
            if shared.halted() || client.done() || course.measure.is_some_and(|d| rec.elapsed() >= d) {
                break;
            }
        } else if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let op = client.draw();
        done += 1;
        // A phase starts with its type's first transaction; its time and I/O are its own.
        if phase != Some(op) {
            rec.phase(op);
            rec.mark();
            phase = Some(op);
        }
        match client.execute() {
            Ok(ok) => rec.lap_outcome(op, ok),
            Err(e) => retried(client, e, op, shared, course, rec)?,
        }
        rec.record_busy_wait(op, lock_wait::take());
    }
    rec.pause();
    Ok(())
}

/// [`run_phased`]'s transaction whose first try failed with `first`: its retries, then its
/// outcome recorded as a lap (a lock failure out of tries has no latency: the stopwatch
/// restarts after it).
#[cold]
#[inline(never)]
fn retried<C: Client>(
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
fn retry<C: Client>(
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

/// The first error of the clients that is not just "stopped because another failed".
fn first_error(results: Vec<Result<(), WorkloadError>>) -> Result<(), WorkloadError> {
    let mut interrupted = false;
    for r in results {
        match r {
            Ok(()) => {}
            Err(WorkloadError::Interrupted) => interrupted = true,
            Err(e) => return Err(e),
        }
    }
    if interrupted {
        Err(WorkloadError::Interrupted)
    } else {
        Ok(())
    }
}

/// What the sampler read: the VFS counters at each interval's start, and the database's files
/// at each interval's start and once more when the clients were done.
#[derive(Default)]
struct Marks {
    io: Vec<(usize, IoSnapshot)>,
    files: Vec<SeriesFiles>,
}

/// One reading of the database's files, `at` after the measured start.
fn files_at(files: &DbFiles, at: Duration) -> SeriesFiles {
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
fn spawn_sampler<'s, 'e>(
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

fn sample(
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

impl<'a> Shared<'a> {
    fn new(
        trial: &'a Trial<'a>,
        tx: &dyn Transactions,
        in_process: u32,
        gate: Option<&'a (dyn Fn() -> bool + Sync)>,
    ) -> Shared<'a> {
        let phased = trial.load.is_default() && tx.phase_timed(trial.params);
        let series = !phased && tx.series(trial.params, trial.load);
        Shared {
            shape: trial.load,
            budget: tx.budget(trial.params),
            stop: trial.stop,
            abort: AtomicBool::new(false),
            ready: Barrier::new(in_process as usize),
            start: OnceLock::new(),
            last_end_ns: AtomicU64::new(0),
            warmup: tx.warmup(trial.params),
            phased,
            counting: false,
            series,
            progress: Progress::default(),
            gate,
            loops_left: AtomicU32::new(in_process),
            // No sampler reads the files where the trial keeps no series.
            files_final: AtomicBool::new(trial.files.is_none() || !series),
        }
    }
}

/// Runs one trial of `tx` with the trial's load shape: client 0 on this thread with `conn`, the
/// others on threads of their own, or (`--client-mode processes`) in processes of their own,
/// started through the trial's connector and sent off together with client 0. The trial's
/// measured interval is from the common start to the end of the last transaction (at least the
/// budget's time), and every operation type's throughput is over it.
pub fn drive(
    conn: &mut dyn Connection,
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    rec: &mut Recorder,
) -> Result<(), WorkloadError> {
    if let Some(cast) = &trial.load.cast {
        return roles::drive(conn, tx, trial, rec, cast);
    }
    let shape = trial.load;
    let processes = shape.processes();
    // Client processes are started, and ready, before client 0 prepares; the gate sends them
    // off at the common start.
    let remotes = if processes { spawn_remotes(trial)? } else { Vec::new() };
    let go = || remotes.iter().all(|r| r.go());
    let in_process = if processes { 1 } else { shape.clients };
    let mut shared = Shared::new(
        trial,
        tx,
        in_process,
        processes.then_some(&go as &(dyn Fn() -> bool + Sync)),
    );
    shared.counting = rec.counts_instructions() && !shared.phased;
    let interval = Duration::from_millis(shape.interval_ms.max(1));
    let names = rec.op_names();
    let mut series = Buckets::new(interval, names.len());
    let counters = rec.counters();
    let clients_done = AtomicBool::new(false);
    let mut more_io = Vec::new();
    // `--connections shared`: every client, client 0 included, on the trial's connection.
    let (one, alone) = match shape.shares_connection() {
        true => (Some(shared_connection::SharedConnection::new(conn)?), None),
        false => (None, Some(conn)),
    };
    let one = one.as_ref();
    let serial = one.map(shared_connection::SharedConnection::transaction_lock);
    let results = std::thread::scope(|scope| {
        // The counters at every interval's start, on the clock.
        // A phase-timed trial has no series, and no progress lines (as its phases never had).
        let sampler = spawn_sampler(scope, &shared, trial, counters.clone(), &clients_done, processes);
        let readers = read_reports(scope, &remotes, &shared);
        let mut handles = Vec::new();
        for index in (1..shape.clients).filter(|_| !processes) {
            // Every client attributes its own thread's I/O to its own operations.
            let mut own = rec.sibling();
            let mut buckets = Buckets::new(interval, names.len());
            let shared = &shared;
            handles.push(scope.spawn(move || {
                let conn = match one {
                    Some(one) => ThreadConnection::Lent(one),
                    None => ThreadConnection::Own(None),
                };
                let result = thread_client(tx, trial, shared, (index, None), conn, &mut own, &mut buckets);
                (result, own, buckets)
            }));
        }
        let seat = Seat {
            index: 0,
            trial,
            shared: &shared,
            rec,
            buckets: &mut series,
            role: None,
            serial,
        };
        let mut lent = one.map(shared_connection::SharedConnection::lend);
        let conn: &mut dyn Connection = match (lent.as_mut(), alone) {
            (Some(l), _) => l,
            (None, Some(c)) => c,
            (None, None) => unreachable!("the trial's connection is client 0's or the shared one"),
        };
        let mut results = vec![tx.run_client(conn, seat)];
        shared.loop_ended();
        if shared.halted() || results[0].is_err() {
            // Client processes stop too (or, if client 0 never started, never start).
            remotes.iter().for_each(|r| r.stop());
        }
        for h in handles {
            match h.join() {
                Ok((result, own, buckets)) => {
                    rec.absorb(own);
                    series.absorb(buckets);
                    results.push(result);
                }
                Err(_) => results.push(Err(panicked())),
            }
        }
        // Client processes send their reports once their loops end; one that is stopped
        // (SIGSTOP), hung or lost would hold the trial up for ever, so it is killed: at once
        // after a stop request or a failed client, and after a deadline otherwise.
        supervise(&remotes, &readers, &shared);
        for h in readers {
            results.push(match h.join() {
                Ok(report) => report.map(|r| absorb_report(r, 0, rec, &mut series, &mut more_io, &shared)),
                Err(_) => Err(panicked()),
            });
        }
        clients_done.store(true, Ordering::Relaxed);
        if let Some(Ok(marks)) = sampler.map(|s| s.join()) {
            series.io = marks.io;
            series.files = marks.files;
        }
        results
    });
    first_error(results)?;
    if !shared.phased {
        // (A phased trial's time per operation type is its phases' wall time, as the recorder
        // summed it.)
        record_series_and_interval(rec, &shared, series, &names, more_io);
    }
    Ok(())
}

/// Where a client thread's connection comes from: its own, opened with a cast role's knobs
/// over the configuration's (none: the configuration's), or the one shared connection, lent
/// for each transaction (`--connections shared`).
enum ThreadConnection<'c, 'a> {
    Own(Option<&'c [(String, String)]>),
    Lent(&'c shared_connection::SharedConnection<'a>),
}

/// Runs client `index` (of `role`, in a cast) on a thread of its own, as [`drive`] and a cast's
/// roles do for every client but the trial's own: its loop on its connection, its thread's I/O
/// left to its own recorder. A connection of its own is kept until the sampler's last reading
/// of the files, and a client that cannot open one stops the others at the common start.
fn thread_client(
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    shared: &Shared<'_>,
    (index, role): (u32, Option<RoleSeat<'_>>),
    conn: ThreadConnection<'_, '_>,
    own: &mut Recorder,
    buckets: &mut Buckets,
) -> Result<(), WorkloadError> {
    let opened = match conn {
        ThreadConnection::Lent(one) => {
            let seat = Seat {
                index,
                trial,
                shared,
                rec: own,
                buckets,
                role,
                serial: Some(one.transaction_lock()),
            };
            let ran = tx.run_client(&mut one.lend(), seat);
            own.leave_thread();
            shared.loop_ended();
            return ran;
        }
        ThreadConnection::Own(None) => trial.connector.open(),
        ThreadConnection::Own(Some(knobs)) => trial.connector.open_with(knobs),
    };
    match opened {
        Ok(mut c) => {
            // Dropped before the connection: its statements are interrupted on a stop request
            // while it is open.
            let _interrupted_on_stop = trial.watch.map(|w| w.register(c.as_ref()));
            let seat = Seat {
                index,
                trial,
                shared,
                rec: own,
                buckets,
                role,
                serial: None,
            };
            let ran = tx.run_client(c.as_mut(), seat);
            own.leave_thread();
            shared.loop_ended();
            shared.before_close();
            ran
        }
        Err(e) => {
            shared.loop_ended();
            shared.rendezvous(false);
            Err(e)
        }
    }
}

/// Client processes 1.. started and ready before client 0 prepares (the gate sends them off at
/// the common start); those already started are stopped if one cannot start.
fn spawn_remotes(trial: &Trial<'_>) -> Result<Vec<Box<dyn RemoteClient>>, WorkloadError> {
    let mut remotes: Vec<Box<dyn RemoteClient>> = Vec::new();
    for index in 1..trial.load.clients {
        match trial.connector.spawn(index, trial.seed, trial.load, None) {
            Ok(r) => remotes.push(r),
            Err(e) => {
                remotes.iter().for_each(|r| r.stop());
                return Err(e);
            }
        }
    }
    Ok(remotes)
}

/// One thread per client process reading its lines: progress as they come (added to the
/// trial's), then its report (a failed one halts the trial).
fn read_reports<'s, 'e>(
    scope: &'s std::thread::Scope<'s, 'e>,
    remotes: &'e [Box<dyn RemoteClient>],
    shared: &'e Shared<'e>,
) -> Vec<std::thread::ScopedJoinHandle<'s, Result<ClientReport, WorkloadError>>> {
    remotes
        .iter()
        .map(|r| {
            scope.spawn(move || {
                let last = std::sync::Mutex::new([0u64; 6]);
                let progress = |now: &ProgressTotals| {
                    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                    let d: Vec<u64> = now.iter().zip(last.iter()).map(|(n, l)| n.saturating_sub(*l)).collect();
                    shared.progress.add_totals(&[d[0], d[1], d[2], d[3], d[4], d[5]]);
                    *last = *now;
                };
                let report = r.wait(&progress);
                if report.is_err() {
                    shared.abort.store(true, Ordering::Relaxed);
                }
                report
            })
        })
        .collect()
}

/// A client process's report folded into the trial's, its operation types at `offset` in the
/// trial's (a cast role's `ROLE:OP` types; 0 otherwise): its operations, series cells and I/O,
/// and the end of its last transaction.
fn absorb_report(
    report: ClientReport,
    offset: usize,
    rec: &mut Recorder,
    series: &mut Buckets,
    more_io: &mut Vec<SeriesIo>,
    shared: &Shared<'_>,
) {
    rec.absorb_results_at(&report.ops, offset);
    series.absorb_cells(report.cells, offset);
    more_io.extend(report.io);
    shared.last_end_ns.fetch_max(report.last_end_ns, Ordering::Relaxed);
}

/// The trial's time series (where it keeps one) and its measured interval: the last
/// transaction's end, at least a time budget's length.
fn record_series_and_interval(
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

/// How long client processes have to send their reports once the driver's own clients ended:
/// as long again as the trial took so far, and at least [`REPORT_GRACE`].
pub fn report_deadline(trial_so_far: Duration) -> Duration {
    trial_so_far.max(REPORT_GRACE)
}

/// The least time a client process has for its report after the driver's own clients ended.
pub const REPORT_GRACE: Duration = Duration::from_secs(10);

/// Waits until every reader of a client process's report has its answer, killing the client
/// processes that hold it up (see [`RemoteClient::kill`]).
fn supervise<T>(
    remotes: &[Box<dyn RemoteClient>],
    readers: &[std::thread::ScopedJoinHandle<'_, T>],
    shared: &Shared<'_>,
) {
    if remotes.is_empty() {
        return;
    }
    // The reports are due once the trial's own clients ended; where this process ran none of
    // them (a cast whose workload roles are all processes), not before the trial's planned end.
    let now = Instant::now();
    let ended = match (&shared.budget, shared.start.get()) {
        (Budget::Time(d), Some(s)) => now.max(*s + shared.warmup + *d),
        _ => now,
    };
    let so_far = shared
        .start
        .get()
        .map_or(Duration::ZERO, |s| ended.saturating_duration_since(*s));
    let deadline = ended + report_deadline(so_far);
    while !readers.iter().all(|h| h.is_finished()) {
        let why = if shared.stop.load(Ordering::Relaxed) || shared.abort.load(Ordering::Relaxed) {
            Some(Kill::Abandoned)
        } else if Instant::now() >= deadline {
            Some(Kill::NoReport(deadline - ended))
        } else {
            None
        };
        if let Some(why) = why {
            for (r, h) in remotes.iter().zip(readers) {
                if !h.is_finished() {
                    r.kill(why);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn panicked() -> WorkloadError {
    WorkloadError::Verification {
        workload: "load driver".into(),
        detail: "a client thread panicked".into(),
    }
}

/// Runs client `index` of `trial` in this process, a client process of a trial driven by
/// another (see [`crate::workload::remote`]): `ready` is called once its statements are
/// prepared and returns when the driver sends it off (false: stop); `progress` gets its running
/// totals once per interval with `--progress`. Returns what the driver adds to the trial.
pub fn serve(
    conn: &mut dyn Connection,
    tx: &dyn Transactions,
    index: u32,
    trial: &Trial<'_>,
    mut rec: Recorder,
    ready: &(dyn Fn() -> bool + Sync),
    progress: &(dyn Fn(&ProgressTotals) + Sync),
) -> Result<ClientReport, WorkloadError> {
    let shape = trial.load;
    let shared = Shared::new(trial, tx, 1, Some(ready));
    let interval = Duration::from_millis(shape.interval_ms.max(1));
    let mut buckets = Buckets::new(interval, rec.op_names().len());
    let counters = rec.counters();
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        let sampler = (counters.is_some() || shape.progress).then(|| {
            let (shared, done, counters) = (&shared, &done, counters.clone());
            scope.spawn(move || {
                let tick = |_: u32| {
                    if shape.progress {
                        progress(&shared.progress.totals());
                    }
                };
                sample(shared, interval, counters, None, done, &tick)
            })
        });
        let seat = Seat {
            index,
            trial,
            shared: &shared,
            rec: &mut rec,
            buckets: &mut buckets,
            role: None,
            serial: None,
        };
        let result = tx.run_client(conn, seat);
        done.store(true, Ordering::Relaxed);
        if let Some(Ok(marks)) = sampler.map(|s| s.join()) {
            buckets.io = marks.io;
        }
        result
    });
    result?;
    let io = buckets.io(rec.io_snapshot());
    Ok(ClientReport {
        cells: buckets.report_cells(),
        io,
        last_end_ns: shared.last_end_ns.load(Ordering::Relaxed),
        ops: rec.finish().0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_seed_gives_back_its_trial_seed() {
        for (seed, index) in [(0, 0), (7, 0), (7, 1), (u64::MAX, 1023)] {
            let own = client_seed(seed, index);
            assert_ne!(own, seed);
            assert_eq!(trial_seed(own, index), seed);
        }
    }

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

    /// A client that writes one row per transaction into `t`; the first transaction that
    /// starts 300 ms or more after the client was made stalls for 200 ms inside the engine
    /// call (what a checkpoint or another connection's lock does to a real one).
    struct Writes<'c> {
        conn: &'c mut dyn Connection,
        stmt: crate::engines::StmtId,
        n: i64,
        made: Instant,
        stalled: bool,
    }

    impl Client for Writes<'_> {
        fn draw(&mut self) -> usize {
            self.n += 1;
            0
        }
        fn execute(&mut self) -> Result<bool, EngineError> {
            if !self.stalled && self.made.elapsed() >= Duration::from_millis(300) {
                self.stalled = true;
                std::thread::sleep(Duration::from_millis(200));
            }
            self.conn.run(self.stmt, &[crate::engines::Value::Int(self.n)])?;
            Ok(true)
        }
    }

    struct WriteTx;

    impl Streams for WriteTx {
        type Client<'c> = Writes<'c>;
        fn budget(&self, _: &Params) -> Budget {
            Budget::Time(Duration::from_millis(900))
        }
        fn client<'c>(
            &self,
            conn: &'c mut dyn Connection,
            _: u32,
            _: u32,
            _: u64,
            _: &Params,
        ) -> Result<Writes<'c>, WorkloadError> {
            let stmt = conn.prepare("INSERT INTO t(v) VALUES (?)")?;
            Ok(Writes {
                conn,
                stmt,
                n: 0,
                made: Instant::now(),
                stalled: false,
            })
        }
    }

    struct NoMore;

    impl crate::workload::Connector for NoMore {
        fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
            unreachable!("one client")
        }
    }

    /// Transactions of one trial that took at least 50 ms, all of them, and the trial's series.
    fn slow_and_all(shape: &LoadShape) -> (u64, u64, Series) {
        use crate::engines::sqlite::api::Api;
        use crate::engines::sqlite::conn::SqliteConn;
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        conn.execute_batch("CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER);")
            .unwrap();
        let params = Params::default();
        let stop = AtomicBool::new(false);
        let mut trial = Trial::plain(&params, 1, &stop, &NoMore);
        trial.load = shape;
        let mut rec = Recorder::new(&["write"], None);
        drive(&mut conn, &WriteTx, &trial, &mut rec).unwrap();
        let series = rec.take_series().expect("the driver keeps a series");
        let (ops, _) = rec.finish();
        let h = crate::model::op::decode(&ops[0].histogram).unwrap();
        (h.count_between(50_000_000, u64::MAX), h.len(), series)
    }

    /// Coordinated omission: a 200 ms stall at 1000 tx/s delays about 200 scheduled
    /// transactions, each by the rest of the stall; an open loop counts them all from their
    /// intended starts, a closed loop sees one slow transaction.
    #[test]
    fn a_stall_counts_against_every_transaction_scheduled_behind_it_in_an_open_loop_only() {
        let open = LoadShape {
            rate: Some(1000.0),
            arrival: Arrival::Uniform,
            interval_ms: 100,
            ..LoadShape::default()
        };
        let (slow, all, series) = slow_and_all(&open);
        println!("open loop at 1000 tx/s: {slow} of {all} transactions took 50 ms or more");
        // Intended starts in the first 150 ms of the stall wait at least 50 ms: about 150
        // (more only if the machine itself stalls the test, which an open loop also counts).
        assert!(
            (120..=300).contains(&slow),
            "open loop: {slow} of {all} transactions took 50 ms or more"
        );
        assert!((700..=1000).contains(&all), "open loop at 1000/s for 0.9 s ran {all}");
        // Over time: the stall's transactions end together just after 500 ms, their p99 is most
        // of the stall; the intervals before it are fast, and no interval lost a transaction.
        assert_eq!(series.interval_ms, 100);
        let p99 = |t: u64| series.points.iter().find(|p| p.t_ms == t).and_then(|p| p.p99_us);
        assert!(p99(500).is_some_and(|us| us >= 100_000.0), "{series:?}");
        assert!(p99(100).is_some_and(|us| us < 50_000.0), "{series:?}");
        assert_eq!(series.points.iter().map(|p| p.ops).sum::<u64>(), all);
        let (slow, all, _) = slow_and_all(&LoadShape::default());
        println!("closed loop: {slow} of {all} transactions took 50 ms or more");
        // The stalled transaction itself, and at most a few the machine stalled too (tests run
        // side by side on two cores): two orders of magnitude fewer than the open loop counts.
        assert!(
            (1..=5).contains(&slow),
            "closed loop: {slow} of {all} transactions took 50 ms or more"
        );
        assert!(all > 100, "closed loop ran {all}");
    }

    /// A client whose every transaction takes `ms` milliseconds: an engine slower than the rate.
    struct Slow {
        ms: u64,
        /// The nth transaction (from 1) that takes longer, and how long.
        long: Option<(u32, u64)>,
        n: u32,
    }

    impl Client for Slow {
        fn draw(&mut self) -> usize {
            0
        }
        fn execute(&mut self) -> Result<bool, EngineError> {
            self.n += 1;
            let ms = match self.long {
                Some((n, ms)) if n == self.n => ms,
                _ => self.ms,
            };
            std::thread::sleep(Duration::from_millis(ms));
            Ok(true)
        }
    }

    struct SlowTx {
        budget: Budget,
        ms: u64,
        long: Option<(u32, u64)>,
    }

    impl Streams for SlowTx {
        type Client<'c> = Slow;
        fn budget(&self, _: &Params) -> Budget {
            self.budget
        }
        fn client(&self, _: &mut dyn Connection, _: u32, _: u32, _: u64, _: &Params) -> Result<Slow, WorkloadError> {
            Ok(Slow {
                ms: self.ms,
                long: self.long,
                n: 0,
            })
        }
    }

    /// One trial of `tx` at `rate` (uniform): its result and its series.
    fn behind(tx: &SlowTx, rate: f64) -> (crate::model::op::OpResult, Series) {
        use crate::engines::sqlite::api::Api;
        use crate::engines::sqlite::conn::SqliteConn;
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let params = Params::default();
        let stop = AtomicBool::new(false);
        let shape = LoadShape {
            rate: Some(rate),
            arrival: Arrival::Uniform,
            interval_ms: 100,
            ..LoadShape::default()
        };
        let mut trial = Trial::plain(&params, 1, &stop, &NoMore);
        trial.load = &shape;
        let mut rec = Recorder::new(&["tx"], None);
        drive(&mut conn, tx, &trial, &mut rec).unwrap();
        let series = rec.take_series().expect("the driver keeps a series");
        let (ops, _) = rec.finish();
        (ops[0].clone(), series)
    }

    /// Issue 45, item 9: at a rate the engine cannot keep, every scheduled transaction ran
    /// however late (a 1 s trial at 30,000 tx/s took 23 s). A trial on a time ends at its
    /// time; what its schedule had before then and it could not start is skipped, and the
    /// series ends with the trial. Counts, not times: an engine of 5 ms a transaction starts
    /// at most 61 in 300 ms, whatever the machine.
    #[test]
    fn a_trial_on_time_behind_its_rate_ends_at_its_time_and_counts_the_rest_skipped() {
        let tx = SlowTx {
            budget: Budget::Time(Duration::from_millis(300)),
            ms: 5,
            long: None,
        };
        let (o, series) = behind(&tx, 2000.0);
        // Uniform arrivals every 0.5 ms from 0.5 ms: 599 before 300 ms.
        assert_eq!(o.ops + o.skipped, 599, "{} run, {} skipped", o.ops, o.skipped);
        assert!(o.ops <= 61 && o.skipped >= 538, "{} run, {} skipped", o.ops, o.skipped);
        assert_eq!(series.points.iter().map(|p| p.ops).sum::<u64>(), o.ops);
        assert_eq!(series.points.iter().map(|p| p.skipped).sum::<u64>(), o.skipped);
        // The last transaction started before 300 ms may end in the interval from 300 ms;
        // nothing later.
        assert!(series.points.iter().all(|p| p.t_ms <= 300), "{series:?}");
    }

    /// A client on time when its last transaction began skipped nothing when the trial ends
    /// while that transaction runs: arrivals every 50 ms, the fifth (at 250 ms) takes 100 ms,
    /// and the sixth (due at 300 ms, before the end at 320 ms) comes due while it runs.
    #[test]
    fn the_end_of_a_trial_during_an_on_time_transaction_skips_nothing() {
        let tx = SlowTx {
            budget: Budget::Time(Duration::from_millis(320)),
            ms: 2,
            long: Some((5, 100)),
        };
        let (o, _) = behind(&tx, 20.0);
        assert_eq!((o.ops, o.skipped), (5, 0));
    }

    /// A trial on a count gives up the rest of its share once it is behind its schedule by the
    /// whole schedule's length (at least 1 s): 200 at 2,000 tx/s on an engine of 20 ms a
    /// transaction would take 4 s; it gives up after about 1 s, with at most 56 run.
    #[test]
    fn a_trial_on_a_count_behind_its_rate_gives_up_the_rest_of_its_share_as_skipped() {
        assert_eq!(behind_limit(200, 2000.0), MIN_BEHIND);
        assert_eq!(behind_limit(20_000, 2000.0), Duration::from_secs(10));
        let tx = SlowTx {
            budget: Budget::Count(200),
            ms: 20,
            long: None,
        };
        let (o, _) = behind(&tx, 2000.0);
        assert_eq!(o.ops + o.skipped, 200, "{} run, {} skipped", o.ops, o.skipped);
        assert!(o.ops <= 56 && o.skipped >= 144, "{} run, {} skipped", o.ops, o.skipped);
    }

    /// Each try of [`Busy`]'s one transaction, when it started.
    static TRIES: std::sync::Mutex<Vec<Instant>> = std::sync::Mutex::new(Vec::new());

    /// A client whose one transaction meets a lock on its first three tries and gets through on
    /// the fourth.
    struct Busy {
        tries: u32,
    }

    impl Client for Busy {
        fn draw(&mut self) -> usize {
            0
        }
        fn execute(&mut self) -> Result<bool, EngineError> {
            TRIES.lock().unwrap().push(Instant::now());
            self.tries += 1;
            if self.tries < 4 {
                return Err(EngineError {
                    engine: "test".into(),
                    kind: ErrorKind::Busy,
                    code: Some(5),
                    message: "database is locked".into(),
                    context: "a test".into(),
                    busy_cause: Some(crate::engines::BusyCause::Timeout),
                });
            }
            Ok(true)
        }
    }

    struct BusyTx;

    impl Streams for BusyTx {
        type Client<'c> = Busy;
        fn budget(&self, _: &Params) -> Budget {
            Budget::Count(1)
        }
        fn client(&self, _: &mut dyn Connection, _: u32, _: u32, _: u64, _: &Params) -> Result<Busy, WorkloadError> {
            Ok(Busy { tries: 0 })
        }
    }

    /// The gaps between the tries of one transaction under `backoff`, and the waits the
    /// client's seeded schedule gives.
    fn gaps(backoff: &str) -> (Vec<Duration>, Vec<Duration>) {
        use crate::engines::sqlite::api::Api;
        use crate::engines::sqlite::conn::SqliteConn;
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let backoff = crate::model::backoff::Backoff::parse(backoff).unwrap();
        let shape = LoadShape {
            max_tries: 4,
            retry_backoff: backoff,
            ..LoadShape::default()
        };
        let params = Params::default();
        let stop = AtomicBool::new(false);
        let mut trial = Trial::plain(&params, 7, &stop, &NoMore);
        trial.load = &shape;
        let mut rec = Recorder::new(&["write"], None);
        TRIES.lock().unwrap().clear();
        drive(&mut conn, &BusyTx, &trial, &mut rec).unwrap();
        let tries = std::mem::take(&mut *TRIES.lock().unwrap());
        let (ops, _) = rec.finish();
        assert_eq!(ops[0].retries, 3, "{:?}", ops[0]);
        let gaps = tries.windows(2).map(|w| w[1] - w[0]).collect();
        let mut waits = Waits::new(backoff, client_seed(7, 0));
        (gaps, (1..4).map(|r| waits.before(r)).collect())
    }

    /// `--retry-backoff`: the driver waits its schedule before each retry, no less and not
    /// much more (a sleep overshoots by a scheduler tick or so, on a loaded two-core machine by
    /// more); with jitter the waits are the client's seeded draws below each step.
    #[test]
    fn retries_wait_as_the_backoff_says() {
        let ms = Duration::from_millis;
        for backoff in ["exp:20ms..50ms", "exp:20ms..80ms,jitter", "fixed:15ms", "none"] {
            let (seen, waits) = gaps(backoff);
            match backoff {
                "exp:20ms..50ms" => assert_eq!(waits, [ms(20), ms(40), ms(50)]),
                "fixed:15ms" => assert_eq!(waits, [ms(15); 3]),
                "none" => assert_eq!(waits, [Duration::ZERO; 3]),
                _ => {
                    let steps = [ms(20), ms(40), ms(80)];
                    assert!(waits.iter().zip(&steps).all(|(w, s)| w <= s), "{waits:?}");
                    assert_ne!(waits, steps, "jitter drew every wait at its step");
                    let again = gaps(backoff).1;
                    assert_eq!(waits, again, "the same seed, the same waits");
                }
            }
            for (gap, wait) in seen.iter().zip(&waits) {
                assert!(
                    gap >= wait && *gap < *wait + ms(40),
                    "{backoff}: gaps {seen:?} against waits {waits:?}"
                );
            }
        }
    }
}
