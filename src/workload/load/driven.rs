//! A trial whose clients are driver processes (`--driver`): every transaction made here as data
//! by the workload's own client against a recording connection, untimed, sent to each client's
//! driver in batches, and the driver's results folded into the trial's recorder, so that every
//! report, verdict and `advise` reads them as they read litebench's own loop.
//!
//! Each client runs on a thread of its own: it records its first batch and starts its driver
//! (which prepares the statements recorded so far), all clients meet, each sends `go`, and
//! then keeps one batch ahead: the next is recorded and sent while the driver runs the current
//! one. A time budget ends where the host's clock passes it (no batch is sent after); what a
//! driver started after the budget's end is not recorded. A trial timed per phase (crud's one
//! closed-loop client) gets each operation type's time inside its transactions as its phase.

use super::schedule::Schedule;
use super::series::Buckets;
use super::shared::Shared;
use super::{Budget, Client, Sent, Transactions};
use crate::engines::recording::{Log, Recording};
use crate::engines::BusyCause;
use crate::model::cast::Role;
use crate::model::driver::{Bound, FromDriver, Outcome, Statement, ToDriver, Txn};
use crate::model::load::LoadShape;
use crate::model::params::Params;
use crate::workload::driven::{failed, DriverLink, Wait};
use crate::workload::recorder::Recorder;
use crate::workload::{Trial, WorkloadError};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// The first two batches' size (sent before the driver's rate is known, so small: a time budget
/// ends no later than the batches in flight); later ones hold about [`BATCH_TIME`] of the
/// driver's rate, from [`MIN_BATCH`] to [`MAX_BATCH`] transactions.
const FIRST_BATCH: usize = 100;
const MIN_BATCH: usize = 100;
const BATCH_TIME: Duration = Duration::from_millis(200);
const MAX_BATCH: usize = 20_000;
/// How many times its last batch's time a driver may take to answer the next before it is
/// taken for hung (and never less than [`Wait::SILENCE`]).
const LIMIT_FACTOR: u32 = 100;

/// What one client brings back: its recorder, the end of its last recorded transaction and
/// its time inside each operation type's transactions (ns after `go`).
struct Folded {
    rec: Recorder,
    last_end_ns: u64,
    inside_ns: Vec<u64>,
    /// Its time series, where the trial keeps one.
    buckets: Option<Buckets>,
}

/// Runs one trial of `tx` with every client in a process of driver `name`.
pub(super) fn drive(
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    rec: &mut Recorder,
    name: &str,
) -> Result<(), WorkloadError> {
    let shape = trial.load;
    let clients = shape.clients.max(1);
    let solo = clients == 1 && shape.rate.is_none() && tx.phase_timed(trial.params);
    // A time series as litebench's own loop keeps one (not for a trial timed per phase or
    // inside its operations), counted from the drivers' own times after the common start.
    let series = !(shape.is_default() && (tx.phase_timed(trial.params) || tx.op_timed(trial.params)))
        && tx.series(trial.params, shape);
    let interval = Duration::from_millis(shape.interval_ms.max(1));
    let start = std::sync::OnceLock::new();
    let meet = Barrier::new(clients as usize);
    let bad = AtomicBool::new(false);
    let siblings: Vec<Mutex<Option<Recorder>>> = (0..clients).map(|_| Mutex::new(Some(rec.sibling()))).collect();
    let results: Vec<Result<Folded, WorkloadError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|index| {
                let (meet, bad, own, start) = (&meet, &bad, &siblings[index as usize], &start);
                scope.spawn(move || {
                    let own = own.lock().unwrap_or_else(|e| e.into_inner()).take();
                    let own = own.expect("each client's recorder is taken once");
                    let seat = Seat {
                        index,
                        clients,
                        solo,
                        shape,
                        params: trial.params,
                        seed: super::client_seed(trial.seed, index),
                        role: None,
                    };
                    let buckets = series.then(|| Buckets::new(interval, own.op_names().len()));
                    let r = client(tx, trial, &seat, (own, buckets), (meet, bad, start));
                    if r.is_err() {
                        bad.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(super::panicked())))
            .collect()
    });
    let mut folded = Vec::new();
    let mut errors = Vec::new();
    for r in results {
        match r {
            Ok(f) => folded.push(f),
            Err(e) => errors.push(Err(e)),
        }
    }
    super::first_error(errors).map_err(|e| named(e, name))?;
    let types = rec.op_names().len();
    let mut inside = vec![0u64; types];
    let mut last_end = 0u64;
    let mut all = series.then(|| Buckets::new(interval, types));
    for f in folded {
        if let (Some(all), Some(b)) = (&mut all, f.buckets) {
            all.absorb(b);
        }
        rec.absorb(f.rec);
        last_end = last_end.max(f.last_end_ns);
        for (i, ns) in f.inside_ns.iter().enumerate() {
            inside[i] += ns;
        }
    }
    if solo {
        let per_op: Vec<Duration> = inside.iter().map(|ns| Duration::from_nanos(*ns)).collect();
        rec.set_elapsed(&per_op);
    } else {
        let budget = match tx.budget(trial.params) {
            Budget::Time(d) => d,
            _ => Duration::ZERO,
        };
        rec.set_interval(Duration::from_nanos(last_end).max(budget));
    }
    if let Some(all) = all {
        // No I/O per interval: a driver's SQLite is outside litebench's VFS.
        rec.set_series(all.series(&rec.op_names(), None, Vec::new()));
    }
    Ok(())
}

/// A refusal of the recording connection, worded for the workload.
fn named(e: WorkloadError, driver: &str) -> WorkloadError {
    match e {
        WorkloadError::Engine(e) if e.message == crate::engines::recording::NEEDS_RESULTS => failed(
            driver,
            format!("cannot run this workload: {} ({})", e.message, e.context),
        ),
        other => other,
    }
}

/// A batch as made: its transactions, and each one's operation type and whether its success
/// rests on its last step's count ([`crate::workload::load::Judged`]).
type Made = (Vec<Txn>, Vec<(usize, bool)>);

/// How much a client records: its share of a count, or until its stream or the time ends.
struct Share {
    left: Option<u64>,
    until: Option<Duration>,
}

/// A client's recorded transactions: its workload client and what the recording saw.
struct Maker<'c> {
    client: Box<dyn Client + 'c>,
    log: Rc<RefCell<Log>>,
    schedule: Option<(Schedule, Instant)>,
    /// The client says when each transaction is due (a log replayed at its recorded pace).
    due: bool,
    share: Share,
    /// Statements sent as their text ([`Sent::Literal`]).
    literal: bool,
    /// How many of the log's statements the driver was sent.
    sent: usize,
}

impl Maker<'_> {
    /// The next `n` transactions (fewer where the share or the stream ends), recorded untimed,
    /// with each one's operation type and whether its success rests on its last step's count.
    fn batch(&mut self, n: usize) -> Result<Made, WorkloadError> {
        let mut txns = Vec::with_capacity(n);
        let mut ops = Vec::with_capacity(n);
        while txns.len() < n && self.share.left != Some(0) && !self.client.done() {
            // Asked before the draw, as litebench's own loop asks it.
            let due = self.due.then(|| self.client.due()).flatten();
            let op = self.client.draw();
            self.client.execute()?;
            let (begin, steps) = self.log.borrow_mut().take();
            let judged = self.client.judged();
            let due_ns = self
                .schedule
                .as_mut()
                .map(|(s, origin)| s.take().saturating_duration_since(*origin))
                .or(due)
                .map(|d| d.as_nanos() as u64);
            if let Some(left) = &mut self.share.left {
                *left -= 1;
            }
            txns.push(Txn {
                op,
                due_ns,
                autocommit: begin.is_none(),
                literal: self.literal,
                begin,
                rejectable: judged.rejectable,
                steps,
            });
            ops.push((op, judged.by_last_count));
        }
        Ok((txns, ops))
    }

    /// The statements the transactions made since the last call first used, which the driver
    /// is sent with them.
    fn new_statements(&mut self) -> Vec<Statement> {
        let log = self.log.borrow();
        let new = log
            .statements_from(self.sent)
            .into_iter()
            .map(|(id, sql)| Statement { id, sql })
            .collect();
        self.sent = log.len();
        new
    }
}

/// The recording connection a client in `seat` makes its transactions on: its transactions
/// open, and a bare `BEGIN` of the user's starts, as the `begin` knob says where the client's
/// cast role or else the configuration set it (as on litebench's own connection).
fn recording(tx: &dyn Transactions, trial: &Trial<'_>, seat: &Seat<'_>) -> (Recording, Rc<RefCell<Log>>) {
    let knob = crate::engines::sqlite::knobs::BEGIN_KNOB;
    let role = seat
        .role
        .and_then(|r| r.knobs.iter().find(|(n, _)| n == knob).map(|(_, v)| v.as_str()));
    let set = role.or_else(|| {
        trial
            .knobs
            .iter()
            .find(|k| k.name == knob)
            .and_then(|k| k.requested.as_deref())
    });
    // The value was checked when the configuration's (or role's) connection took it.
    let begin = set.and_then(crate::engines::sqlite::knobs::begin_statement);
    match tx.sent(seat.params) {
        Sent::Transactions => Recording::new(begin),
        Sent::Literal { .. } => Recording::literal(begin),
    }
}

/// A client ready to go: its transactions' maker, its first batch, its driver opened.
struct Ready<'c> {
    maker: Maker<'c>,
    first: Made,
    link: Box<dyn DriverLink>,
    /// A failing statement is counted as failed, not the trial's failure ([`Sent::Literal`]).
    count_errors: bool,
}

/// One client: its transactions made, its driver started (before every client meets, so that
/// all go together), run and closed, its results folded.
fn client(
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    seat: &Seat<'_>,
    (mut rec, mut buckets): (Recorder, Option<Buckets>),
    (meet, bad, start): (&Barrier, &AtomicBool, &std::sync::OnceLock<Instant>),
) -> Result<Folded, WorkloadError> {
    let (mut conn, log) = recording(tx, trial, seat);
    let ready = prepare(tx, trial, seat, &mut conn, log);
    if ready.is_err() {
        bad.store(true, Ordering::Relaxed);
    }
    meet.wait();
    let start = *start.get_or_init(Instant::now);
    let ready = ready?;
    if bad.load(Ordering::Relaxed) {
        // Another client could not start: its error is the trial's (this driver is killed).
        return Err(WorkloadError::Interrupted);
    }
    let stopped = || trial.stop.load(Ordering::Relaxed) || bad.load(Ordering::Relaxed);
    if let Some(b) = &mut buckets {
        b.begin(&mut rec);
    }
    let series = buckets.as_mut().map(|buckets| Series {
        buckets,
        start,
        shared: None,
    });
    let (last_end_ns, inside_ns) = run(ready, trial, &mut rec, &stopped, series)?;
    if let Some(b) = &mut buckets {
        b.close(&mut rec);
    }
    Ok(Folded {
        rec,
        last_end_ns,
        inside_ns,
        buckets,
    })
}

/// Client `seat.index` of a cast's role that runs through a driver ([`super::roles`]): its
/// transactions made with the role's shape, parameters and seed, its driver started with the
/// role's knobs, sent off at the common start with every other client of the cast, and its
/// results folded into its role's recorder and series (each counted in the interval it ended
/// in, from the driver's own times after the common start).
pub(super) fn role_client(
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    shared: &Shared<'_>,
    seat: &Seat<'_>,
    rec: &mut Recorder,
    buckets: &mut Buckets,
) -> Result<(), WorkloadError> {
    let (mut conn, log) = recording(tx, trial, seat);
    let ready = prepare(tx, trial, seat, &mut conn, log);
    let Some(start) = shared.rendezvous(ready.is_ok()) else {
        shared.loop_ended();
        return ready.and(Err(WorkloadError::Interrupted));
    };
    let ready = ready?;
    if !shared.series {
        buckets.switch_off();
    }
    buckets.begin(rec);
    let stopped = || shared.halted();
    let series = Series {
        buckets: &mut *buckets,
        start,
        shared: Some(shared),
    };
    let ran = run(ready, trial, rec, &stopped, Some(series));
    buckets.close(rec);
    shared.loop_ended();
    match ran {
        Ok((last_end_ns, _)) => {
            shared.last_end_ns.fetch_max(last_end_ns, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => {
            if !matches!(e, WorkloadError::Interrupted) {
                shared.abort.store(true, Ordering::Relaxed);
            }
            Err(e)
        }
    }
}

/// Who a driven client is: its index among its clients (the trial's, or its role's), its load
/// shape, parameters and seed, and the cast role whose knobs and driver it runs with.
pub(super) struct Seat<'a> {
    pub(super) index: u32,
    pub(super) clients: u32,
    /// The one client of a trial timed per phase.
    pub(super) solo: bool,
    pub(super) shape: &'a LoadShape,
    pub(super) params: &'a Params,
    /// The client's own seed ([`super::client_seed`]).
    pub(super) seed: u64,
    pub(super) role: Option<&'a Role>,
}

/// Where a cast role's driven client counts its series: its buckets, the common start, and
/// what the cast's clients share (the sampler's last reading of the files, before the driver
/// closes its connection).
struct Series<'b, 's> {
    buckets: &'b mut Buckets,
    start: Instant,
    shared: Option<&'b Shared<'s>>,
}

fn prepare<'c>(
    tx: &'c dyn Transactions,
    trial: &Trial<'_>,
    seat: &Seat<'_>,
    conn: &'c mut Recording,
    log: Rc<RefCell<Log>>,
) -> Result<Ready<'c>, WorkloadError> {
    let Seat {
        index,
        clients,
        solo,
        shape,
        params,
        seed,
        role,
    } = *seat;
    let client = tx.boxed_client(conn, (index, clients, solo), (trial.seed, seed), params)?;
    let origin = Instant::now();
    let schedule = shape.rate.map(|r| {
        (
            Schedule::new(origin, r / f64::from(clients), shape.arrival, seed),
            origin,
        )
    });
    let sent = tx.sent(params);
    let mut maker = Maker {
        due: client.hooks().due,
        client,
        log,
        schedule,
        share: share_of(tx.budget(params), index, clients),
        literal: sent != Sent::Transactions,
        sent: 0,
    };
    // A fed client's next transaction rests on the last one's results: one at a time.
    let fed = maker.client.hooks().fed;
    let first = maker.batch(if fed { 1 } else { FIRST_BATCH })?;
    // Statements sent as written are not prepared at open (a log's first may create the table
    // the next one reads): they go with the batch that first runs them.
    let statements = match sent {
        Sent::Transactions => maker.new_statements(),
        Sent::Literal { .. } => Vec::new(),
    };
    // A statement sent as written is never retried (a log runs once, in order), nor a
    // transaction the application never retries (a queue worker's claim).
    let max_tries = match sent {
        Sent::Transactions if maker.client.retries() => shape.max_tries.max(1),
        _ => 1,
    };
    let backoff: Vec<u64> = (1..max_tries)
        .map(|r| shape.retry_backoff.step(r).as_nanos() as u64)
        .collect();
    let link = trial
        .connector
        .start_driver(index, role, &statements, max_tries, &backoff)?;
    Ok(Ready {
        maker,
        first,
        link,
        count_errors: sent == Sent::Literal { count_errors: true },
    })
}

fn share_of(budget: Budget, index: u32, clients: u32) -> Share {
    match budget {
        Budget::Count(total) => Share {
            left: Some(total / u64::from(clients) + u64::from(u64::from(index) < total % u64::from(clients))),
            until: None,
        },
        Budget::Time(d) => Share {
            left: None,
            until: Some(d),
        },
        Budget::Streams => Share {
            left: None,
            until: None,
        },
    }
}

/// The batches sent and not yet answered, and whether more are to be made.
struct Ahead {
    pending: VecDeque<(u64, Vec<(usize, bool)>)>,
    seq: u64,
    more: bool,
}

impl Ahead {
    /// Makes the next `size` transactions and sends them, unless the share, the stream or the
    /// time has ended or the trial stopped.
    fn send(
        &mut self,
        maker: &mut Maker<'_>,
        link: &mut dyn DriverLink,
        size: usize,
        over: bool,
    ) -> Result<(), WorkloadError> {
        self.more = self.more && !over;
        if !self.more {
            return Ok(());
        }
        let (txns, ops) = maker.batch(size)?;
        self.more = !txns.is_empty();
        self.sent(maker, link, (txns, ops))
    }

    /// Sends a batch already made (none if it is empty).
    fn sent(
        &mut self,
        maker: &mut Maker<'_>,
        link: &mut dyn DriverLink,
        (txns, ops): Made,
    ) -> Result<(), WorkloadError> {
        if txns.is_empty() {
            return Ok(());
        }
        link.send(&ToDriver::Batch {
            seq: self.seq,
            statements: &maker.new_statements(),
            txns: &txns,
        })?;
        self.pending.push_back((self.seq, ops));
        self.seq += 1;
        Ok(())
    }
}

/// A client's driver sent off, kept one batch ahead until its share ends (or `stopped`), and
/// closed: the end of its last recorded transaction and its time inside each operation type's
/// transactions (ns after `go`). A client fed its results ([`super::Hooks::fed`]) is sent one
/// transaction at a time instead, each made once the one before was answered and handed back,
/// and rests between them as it asks ([`Client::pause`]).
fn run(
    ready: Ready<'_>,
    trial: &Trial<'_>,
    rec: &mut Recorder,
    stopped: &dyn Fn() -> bool,
    mut series: Option<Series<'_, '_>>,
) -> Result<(u64, Vec<u64>), WorkloadError> {
    let Ready {
        mut maker,
        first,
        mut link,
        count_errors,
    } = ready;
    let until = maker.share.until;
    let types = rec.op_names().len();
    link.send(&ToDriver::Go)?;
    let go = Instant::now();
    // The driver's times are after its `go`; the series' after the common start.
    let since_start = series
        .as_ref()
        .map_or(0, |s| go.saturating_duration_since(s.start).as_nanos() as u64);
    let hooks = maker.client.hooks();
    let mut ahead = Ahead {
        pending: VecDeque::new(),
        seq: 0,
        more: true,
    };
    ahead.sent(&mut maker, link.as_mut(), first)?;
    let mut fold = Fold {
        rec,
        last_end_ns: 0,
        inside_ns: vec![0; types],
        until_ns: until.map(|d| d.as_nanos() as u64),
        series: series.as_mut().map(|s| (&mut *s.buckets, since_start)),
        count_errors,
    };
    let mut size = FIRST_BATCH;
    // A batch may take up to LIMIT_FACTOR times the one before it (a lock wait, a checkpoint)
    // and at least Wait::SILENCE: past that the driver is taken for hung.
    let mut wait = Wait {
        limit: Wait::SILENCE,
        stop: stopped,
    };
    let over = |stopped: &dyn Fn() -> bool| stopped() || until.is_some_and(|d| go.elapsed() >= d);
    while let Some((want, ops)) = ahead.pending.pop_front() {
        if !hooks.fed {
            ahead.send(&mut maker, link.as_mut(), size, over(stopped))?;
        }
        let t = Instant::now();
        let answer = link.recv(&wait)?;
        let back = hooks.fed.then(|| Back::of(&answer));
        fold.done(want, &ops, answer, &link.who())?;
        let took = t.elapsed();
        wait.limit = Wait::SILENCE.max(took * LIMIT_FACTOR);
        if let Some(back) = back {
            back.hand(&mut maker, &mut fold, hooks.parts);
            if let Some(d) = maker.client.pause() {
                rest(d, until.map(|u| go + u), stopped);
            }
            ahead.send(&mut maker, link.as_mut(), 1, over(stopped))?;
            continue;
        }
        // About BATCH_TIME of the driver's rate next time (its last batch's, waited for here).
        let per = took.as_nanos().max(1) as f64 / ops.len().max(1) as f64;
        size = ((BATCH_TIME.as_nanos() as f64 / per) as usize).clamp(MIN_BATCH, MAX_BATCH);
    }
    let (last_end_ns, inside_ns) = (fold.last_end_ns, std::mem::take(&mut fold.inside_ns));
    // The last connection to close checkpoints and deletes the WAL: the sampler reads the
    // files first.
    if let Some(shared) = series.as_ref().and_then(|s| s.shared) {
        shared.before_close();
    }
    link.close()?;
    if trial.stop.load(Ordering::Relaxed) {
        return Err(WorkloadError::Interrupted);
    }
    Ok((since_start + last_end_ns, inside_ns))
}

/// What a fed client's one transaction came back with ([`Client::fed`]).
struct Back {
    outcome: Option<Outcome>,
    start_ns: u64,
    last: u64,
    kept: Vec<(usize, Vec<Bound>)>,
}

impl Back {
    fn of(answer: &FromDriver) -> Back {
        match answer {
            FromDriver::Done { results, kept, .. } => Back {
                outcome: results.first().map(|r| r.0),
                start_ns: results.first().map_or(0, |r| r.1),
                last: results.first().map_or(0, |r| r.5),
                kept: kept
                    .get("0")
                    .map(|rows| {
                        rows.iter()
                            .map(|(step, row)| (*step, row.iter().map(Bound::from_json).collect()))
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            _ => Back {
                outcome: None,
                start_ns: 0,
                last: 0,
                kept: Vec::new(),
            },
        }
    }

    /// Hands the result to the client, and records the parts it then gives (a claim's queue
    /// waits) where the transaction was recorded, as litebench's own loop records them.
    fn hand(self, maker: &mut Maker<'_>, fold: &mut Fold<'_>, parts: bool) {
        let Some(outcome) = self.outcome else { return };
        maker.client.fed(&super::Fed {
            outcome,
            last: self.last,
            kept: &self.kept,
        });
        if parts && outcome == Outcome::Ok && fold.until_ns.is_none_or(|u| self.start_ns < u) {
            for &(part, ns) in maker.client.parts() {
                fold.rec.record_outcome_ns(part, ns, true);
            }
        }
    }
}

/// Sleeps `d` (a fed client's rest, untimed), cut short at `until` or on a stop.
fn rest(d: Duration, until: Option<Instant>, stopped: &dyn Fn() -> bool) {
    let end = Instant::now() + d;
    let end = until.map_or(end, |u| end.min(u));
    while !stopped() {
        let now = Instant::now();
        if now >= end {
            break;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// A client's results going into its recorder.
struct Fold<'r> {
    rec: &'r mut Recorder,
    last_end_ns: u64,
    inside_ns: Vec<u64>,
    /// A time budget's end: what started after it is not recorded.
    until_ns: Option<u64>,
    /// A cast role's series, and how long after the common start the driver's `go` was.
    series: Option<(&'r mut Buckets, u64)>,
    /// A transaction that failed with an error is counted as failed ([`Sent::Literal`]);
    /// otherwise the error is the trial's.
    count_errors: bool,
}

impl Fold<'_> {
    /// The driver's answer to batch `want` of `ops`: its results folded, or the error it is.
    fn done(&mut self, want: u64, ops: &[(usize, bool)], answer: FromDriver, who: &str) -> Result<(), WorkloadError> {
        match answer {
            FromDriver::Done {
                seq, results, errors, ..
            } if seq == want && results.len() == ops.len() => {
                if let Some((i, msg)) = errors.iter().next().filter(|_| !self.count_errors) {
                    return Err(failed(who, format!("transaction {i} of batch {seq} failed: {msg}")));
                }
                self.results(ops, &results, who)
            }
            FromDriver::Done { seq, results, .. } => Err(failed(
                who,
                format!(
                    "answered batch {seq} with {} results where batch {want} of {} transactions was due",
                    results.len(),
                    ops.len()
                ),
            )),
            other => Err(failed(who, format!("sent {other:?} where a batch's results were due"))),
        }
    }

    fn results(
        &mut self,
        ops: &[(usize, bool)],
        results: &[crate::model::driver::TxnResult],
        who: &str,
    ) -> Result<(), WorkloadError> {
        for (&(op, by_last_count), &(outcome, start, latency, tries, _rows, last)) in ops.iter().zip(results) {
            if self.until_ns.is_some_and(|u| start >= u) {
                continue;
            }
            // The series counts a transaction in the interval it ended in.
            if let Some((buckets, since_start)) = &mut self.series {
                buckets.reach(*since_start + start + latency, self.rec);
            }
            if tries > 1 {
                self.rec.record_retries(op, u64::from(tries - 1));
            }
            let cause = match outcome {
                Outcome::Ok | Outcome::Rejected => {
                    // Rejected: rolled back on the constraint its transaction expects, as the
                    // workload's own loop counts it, completed and unsuccessful.
                    let success = outcome == Outcome::Ok && (!by_last_count || last > 0);
                    self.rec.record_outcome_ns(op, latency, success);
                    self.last_end_ns = self.last_end_ns.max(start + latency);
                    if let Some(t) = self.inside_ns.get_mut(op) {
                        *t += latency;
                    }
                    continue;
                }
                Outcome::BusyTimeout => BusyCause::Timeout,
                Outcome::BusyUpgrade => BusyCause::Upgrade,
                Outcome::BusySnapshot => BusyCause::Snapshot,
                Outcome::Locked => BusyCause::Unknown,
                Outcome::Error if self.count_errors => {
                    self.rec.record_outcome_ns(op, latency, false);
                    self.last_end_ns = self.last_end_ns.max(start + latency);
                    continue;
                }
                Outcome::Error => return Err(failed(who, "a transaction failed (the driver named no error)")),
            };
            self.rec.record_busy(op, cause);
            self.last_end_ns = self.last_end_ns.max(start + latency);
        }
        Ok(())
    }
}
