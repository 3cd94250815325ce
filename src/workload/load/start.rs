//! How one client starts: its stream made, its course fixed ([`super::course`]) when the clients
//! meet at the common start, and the variant of the timed loop compiled for what the trial
//! needs. Apart from the loop so that the loop holds only what runs per transaction.

use super::course::{Course, Waits};
use super::op_timed::run_op_timed;
use super::schedule::Schedule;
use super::series::Buckets;
use super::shared::Shared;
use super::shared_connection;
use super::timed_loop::{run_interval, run_phased, run_stream};
use super::{client_seed, Budget, Client, Hooks, Seat, Streams};
use crate::engines::Connection;
use crate::model::load::LoadShape;
use crate::workload::recorder::Recorder;
use crate::workload::{Trial, WorkloadError};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Runs the client of `seat` to the end of its budget: makes its stream, meets the other
/// clients at the common start, and runs the loop compiled for what this trial needs.
pub(super) fn client_loop<S: Streams>(
    tx: &S,
    conn: &mut dyn Connection,
    seat: Seat<'_, '_>,
) -> Result<(), WorkloadError> {
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
    // `--storage`'s drawn delays repeat per trial and client, on a thread or in a process.
    crate::sys::storage_delay::seed_thread(seed);
    let clients = shape.clients;
    let made = match shared.phased || shared.op_timed {
        true => tx.solo_client(conn, trial.seed, params),
        false => tx.client(conn, index, clients, seed, params),
    };
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
pub(super) struct Ran<'r, 'a> {
    pub(super) index: u32,
    pub(super) trial: &'r Trial<'a>,
    pub(super) shared: &'r Shared<'a>,
    pub(super) shape: &'r LoadShape,
    pub(super) clients: u32,
    pub(super) seed: u64,
    pub(super) start: Instant,
}

/// Runs a client made and started (see [`client_loop`]) in the loop compiled for what this
/// trial needs: its stream type `C` is the workload's, or the workload's held to one
/// transaction at a time on a shared connection.
pub(super) fn run_made<C: Client>(
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
        _ if shared.op_timed => run_op_timed(c, &course, shared, rec).map(|()| 0),
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
        for q in client.answers() {
            rec.add_query(q);
        }
    }
    Ok(())
}

/// The least a count's open loop may fall behind before it gives up the rest of its schedule.
pub const MIN_BEHIND: Duration = Duration::from_secs(1);

/// How far behind its schedule a client of a `total`-transaction open loop at `rate` may fall:
/// the time the whole schedule takes, at least [`MIN_BEHIND`].
pub fn behind_limit(total: u64, rate: f64) -> Duration {
    let secs = total as f64 / rate;
    Duration::from_secs_f64(secs.min(crate::model::params::MAX_DURATION.as_secs_f64())).max(MIN_BEHIND)
}
