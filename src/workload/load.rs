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
//! gets its phases as events of this loop, not from a loop of its own, and one timed inside its
//! operations ([`Streams::op_timed`]: blob's VLDB'22 trial) a loop variant that times only them. The loop is compiled per
//! workload ([`Streams::Client`]) and per what a trial needs, so that the closed loop pays for no
//! schedule, warm-up or retry it does not have (`benches/overhead-instructions.sh`).

mod course;
mod driven;
mod driver;
mod op_timed;
mod progress;
mod retry;
mod roles;
mod sampler;
mod schedule;
mod series;
mod shared;
mod shared_connection;
mod sidecar;
mod start;
mod supervision;
mod timed_loop;

pub use driver::drive;
pub use start::{behind_limit, MIN_BEHIND};
pub use supervision::{report_deadline, serve, REPORT_GRACE};

use crate::engines::{Connection, EngineError};
use crate::model::load::LoadShape;
use crate::model::params::Params;
use crate::workload::recorder::Recorder;
use crate::workload::{Trial, WorkloadError};
use driver::{first_error, panicked, thread_client, ThreadConnection};
use sampler::spawn_sampler;
use schedule::wait_until;
use series::{record_series_and_interval, Buckets};
use shared::Shared;
use start::client_loop;
use std::time::Duration;
use supervision::{absorb_report, read_reports, supervise};

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

    /// The budget of a workload whose trials run its `operations` parameter's count, or its
    /// `duration` where one is given ([`OPERATIONS_OR_DURATION`]).
    pub fn operations_or_duration(params: &Params) -> Budget {
        Budget::timed_or(
            params.duration(OPERATIONS_OR_DURATION.duration),
            Budget::Count(params.count(OPERATIONS_OR_DURATION.count)),
        )
    }
}

/// The stop parameters of the workloads whose trials end on `operations` or `duration` (YCSB,
/// aging and the search workloads): [`Streams::stop_params`] and [`Budget::operations_or_duration`].
pub const OPERATIONS_OR_DURATION: crate::model::stop_rule::StopParams = crate::model::stop_rule::StopParams {
    count: "operations",
    duration: "duration",
};

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
    /// The parameter that holds a trial's time, where its budget can be one (`duration`;
    /// `measure_time` for the workloads that name it as their sources do): what a report tells
    /// the user to lengthen.
    fn time_param(&self) -> &'static str {
        "duration"
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
    /// True when one client in a closed loop (the default load shape) is timed inside its
    /// operations with these parameters ([`op_timed`]): only the engine's call of each
    /// transaction is timed, not the client's draw and check around it, and every operation
    /// type's throughput is over the sum of the timed transactions, not over wall time (blob's
    /// VLDB'22 trial, the numbers every earlier run has). False by default.
    fn op_timed(&self, _params: &Params) -> bool {
        false
    }
    /// How a driver process (`--driver`) runs this workload's transactions with these
    /// parameters: as transactions of prepared statements by default.
    fn sent(&self, _params: &Params) -> Sent {
        Sent::Transactions
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
    /// The one client of a trial timed per phase or inside its operations
    /// ([`Streams::phase_timed`], [`Streams::op_timed`]), given the trial's own seed: where a
    /// workload's one-client trials draw what they drew before the driver ran them. By default
    /// client 0 of 1, as under any other load.
    fn solo_client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        trial_seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        self.client(conn, 0, 1, client_seed(trial_seed, 0), params)
    }
}

/// How a driver process runs a workload's transactions ([`Streams::sent`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// Each transaction's prepared statements between litebench's `BEGIN` (the `begin` knob)
    /// and `COMMIT`, retried by litebench's rule; an error fails the trial.
    Transactions,
    /// Each statement's text as written, its own transaction control included, never retried
    /// (a replayed log); a failing statement is counted as failed where `count_errors`, and
    /// fails the trial otherwise.
    Literal { count_errors: bool },
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
    /// [`Streams::time_param`].
    fn time_param(&self) -> &'static str;
    /// [`Streams::warmup`].
    fn warmup(&self, params: &Params) -> Duration;
    /// [`Streams::phase_timed`].
    fn phase_timed(&self, params: &Params) -> bool;
    /// [`Streams::op_timed`].
    fn op_timed(&self, params: &Params) -> bool;
    /// [`Streams::series`].
    fn series(&self, params: &Params, load: &LoadShape) -> bool;
    /// [`Streams::sent`].
    fn sent(&self, params: &Params) -> Sent;
    /// Runs one client of a trial on `conn` to the end of its budget: the driver's client loop,
    /// compiled for this workload's client type.
    fn run_client(&self, conn: &mut dyn Connection, seat: Seat<'_, '_>) -> Result<(), WorkloadError>;
    /// Client `index` of `clients` of a trial with seed `trial_seed`, the client's own being
    /// `client_seed` (the one client of a trial timed per phase where `solo`), boxed: what a
    /// driven trial records its transactions from ([`driven`]), untimed.
    fn boxed_client<'c>(
        &'c self,
        conn: &'c mut dyn Connection,
        seat: (u32, u32, bool),
        seeds: (u64, u64),
        params: &Params,
    ) -> Result<Box<dyn Client + 'c>, WorkloadError>;
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
    fn time_param(&self) -> &'static str {
        Streams::time_param(self)
    }
    fn warmup(&self, params: &Params) -> Duration {
        Streams::warmup(self, params)
    }
    fn phase_timed(&self, params: &Params) -> bool {
        Streams::phase_timed(self, params)
    }
    fn op_timed(&self, params: &Params) -> bool {
        Streams::op_timed(self, params)
    }
    fn series(&self, params: &Params, load: &LoadShape) -> bool {
        Streams::series(self, params, load)
    }
    fn sent(&self, params: &Params) -> Sent {
        Streams::sent(self, params)
    }
    fn run_client(&self, conn: &mut dyn Connection, seat: Seat<'_, '_>) -> Result<(), WorkloadError> {
        client_loop(self, conn, seat)
    }
    fn boxed_client<'c>(
        &'c self,
        conn: &'c mut dyn Connection,
        (index, clients, solo): (u32, u32, bool),
        (trial_seed, client_seed): (u64, u64),
        params: &Params,
    ) -> Result<Box<dyn Client + 'c>, WorkloadError> {
        Ok(match solo {
            true => Box::new(Streams::solo_client(self, conn, trial_seed, params)?),
            false => Box::new(Streams::client(self, conn, index, clients, client_seed, params)?),
        })
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
    /// [`crate::model::op::OpResult::part_of`]; only with [`Hooks::parts`]). Asked after the
    /// transaction's clock stopped, so a client may work out a part here, untimed (vector's
    /// count of the true neighbours a query returned).
    fn parts(&mut self) -> &[(usize, u64)] {
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
    /// How a driver's result for the transaction just drawn is judged where it runs through a
    /// driver process (`load/driven.rs`), which runs its statements but not the workload's rules:
    /// what in the result its success rests on, and which error is one of its expected ends.
    /// By default a transaction that commits succeeded and an error fails the trial.
    fn judged(&self) -> Judged {
        Judged::default()
    }
    /// Where the client's next transaction rests on what the last one returned and it runs
    /// through a driver (only with [`Hooks::fed`]): the driver's answer for it, handed back
    /// before the next draw (the driver is sent one transaction at a time). A queue worker
    /// learns here which jobs its claim took.
    fn fed(&mut self, _answer: &Fed<'_>) {}
    /// The hash of the query results of the client's first transactions, when it kept one
    /// ([`super::result_hash`]): asked once, of client 0, after its last transaction, in a
    /// trial whose transactions' results depend only on the seed (one client in a closed loop,
    /// one try each). None by default.
    fn result_hash(&mut self) -> Option<String> {
        None
    }
    /// The answers of the client's first transactions, one per operation type that reads,
    /// when it kept them: asked with [`Client::result_hash`], and checked by the runner
    /// against every other configuration's ([`crate::bench::answers`]), so that a different
    /// answer fails the run. None by default.
    fn answers(&mut self) -> Vec<crate::model::record::QueryRecord> {
        Vec::new()
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
    fn parts(&mut self) -> &[(usize, u64)] {
        (**self).parts()
    }
    fn round_ends(&self) -> bool {
        (**self).round_ends()
    }
    fn result_hash(&mut self) -> Option<String> {
        (**self).result_hash()
    }
    fn answers(&mut self) -> Vec<crate::model::record::QueryRecord> {
        (**self).answers()
    }
    fn pause(&self) -> Option<Duration> {
        (**self).pause()
    }
    fn retries(&self) -> bool {
        (**self).retries()
    }
    fn judged(&self) -> Judged {
        (**self).judged()
    }
    fn fed(&mut self, answer: &Fed<'_>) {
        (**self).fed(answer)
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
    /// [`Client::fed`]: through a driver, each transaction's results are handed back before the
    /// next is made.
    pub fed: bool,
}

/// A driver's answer for a fed client's transaction ([`Client::fed`]).
#[derive(Debug, Clone, Copy)]
pub struct Fed<'a> {
    pub outcome: crate::model::driver::Outcome,
    /// Its last step's count: the rows it returned, or changed.
    pub last: u64,
    /// The rows its kept steps returned, `(step, row)`, in order.
    pub kept: &'a [(usize, Vec<crate::model::driver::Bound>)],
}

/// How a transaction sent to a driver is judged ([`Client::judged`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Judged {
    /// It succeeded only where its last statement returned a row, or changed one (TATP's
    /// rules): the driver reports that count.
    pub by_last_count: bool,
    /// A constraint violation rolls it back as one of its expected, unsuccessful ends (TATP's
    /// insert of a call forwarding that exists), not an error.
    pub rejectable: bool,
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

#[cfg(test)]
mod tests {
    use super::course::Waits;
    use super::*;
    use crate::engines::ErrorKind;
    use crate::model::load::Arrival;
    use crate::model::series::Series;
    use std::sync::atomic::AtomicBool;
    use std::time::Instant;

    #[test]
    fn a_client_seed_gives_back_its_trial_seed() {
        for (seed, index) in [(0, 0), (7, 0), (7, 1), (u64::MAX, 1023)] {
            let own = client_seed(seed, index);
            assert_ne!(own, seed);
            assert_eq!(trial_seed(own, index), seed);
        }
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
