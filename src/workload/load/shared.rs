//! What the clients of one trial share: the common start (a barrier, then the gate that sends
//! client processes off), the stop and abort flags, the latest end, and the hand-over of the
//! files' last reading before connections close. Its own module because the driver, the timed
//! loop, the sampler, the supervision of client processes and a cast's roles all meet here.

use super::progress::Progress;
use super::{Budget, Transactions};
use crate::engines::EngineError;
use crate::model::load::LoadShape;
use crate::workload::{Trial, WorkloadError};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

/// Shared by the clients of a trial.
pub(super) struct Shared<'a> {
    pub(super) shape: &'a LoadShape,
    pub(super) budget: Budget,
    pub(super) stop: &'a AtomicBool,
    /// Set when a client failed: the others stop too.
    pub(super) abort: AtomicBool,
    pub(super) ready: Barrier,
    pub(super) start: OnceLock<Instant>,
    /// Latest end of a recorded transaction, nanoseconds after the measured start.
    pub(super) last_end_ns: AtomicU64,
    /// The workload's warm-up before the measured interval ([`Transactions::warmup`]).
    pub(super) warmup: Duration,
    /// Timed per phase, with no time series ([`Streams::phase_timed`]): one client in a closed
    /// loop of a workload that is.
    pub(super) phased: bool,
    /// Timed inside its operations, with no time series ([`Streams::op_timed`]): one client in
    /// a closed loop of a workload that is.
    pub(super) op_timed: bool,
    /// `--measure instructions` of a trial timed as one interval (not in phases): callgrind
    /// instruments from the common start to the end of the last client's loop, and each client
    /// thread reads its own count at the end of its loop.
    pub(super) counting: bool,
    /// Keeps a time series (and prints `--progress` lines): not when phase-timed, nor where the
    /// workload keeps none ([`Streams::series`]).
    pub(super) series: bool,
    /// Running totals of every client, for `--progress`.
    pub(super) progress: Progress,
    /// Called once every client of this process is ready, before the measured start: starts
    /// the client processes (in the driver) or waits for the driver's word (in a client
    /// process); false stops the trial.
    pub(super) gate: Option<&'a (dyn Fn() -> bool + Sync)>,
    /// This process's clients whose loops have not ended yet; at zero the sampler reads the
    /// database's files a last time.
    pub(super) loops_left: AtomicU32,
    /// Set once the sampler's last reading of the files is taken (or none will be): until then
    /// a client that ended keeps its connection open, because the last connection to close
    /// checkpoints and deletes the WAL, and the trial's last reading would see none.
    pub(super) files_final: AtomicBool,
}

impl Shared<'_> {
    pub(super) fn rendezvous(&self, ok: bool) -> Option<Instant> {
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
    pub(super) fn failed(&self, e: EngineError) -> WorkloadError {
        if self.stop.load(Ordering::Relaxed) {
            return WorkloadError::Interrupted;
        }
        self.abort.store(true, Ordering::Relaxed);
        e.into()
    }

    /// A stop request, or another client failed: checked before each transaction (inlined into
    /// the timed loop, as it was when they shared a module).
    #[inline]
    pub(super) fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.abort.load(Ordering::Relaxed)
    }

    /// A client's loop ended (or never started).
    pub(super) fn loop_ended(&self) {
        // The last loop's end is the measured interval's: callgrind instruments no further.
        if self.loops_left.fetch_sub(1, Ordering::AcqRel) == 1 && self.counting {
            crate::sys::valgrind::stop_instrumentation();
        }
    }

    /// Says that the files have been read a last time (or will not be), letting the clients
    /// close their connections.
    pub(super) fn files_read(&self) {
        self.files_final.store(true, Ordering::Release);
    }

    /// Called by a client whose loop ended, before it closes its connection: waits until the
    /// sampler has read the files a last time, at most [`FILES_FINAL_WAIT`].
    pub(super) fn before_close(&self) {
        let deadline = Instant::now() + FILES_FINAL_WAIT;
        while !self.files_final.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// How long a client whose loop ended waits for the sampler's last reading of the files before
/// it closes its connection anyway.
pub(super) const FILES_FINAL_WAIT: Duration = Duration::from_secs(5);

impl<'a> Shared<'a> {
    pub(super) fn new(
        trial: &'a Trial<'a>,
        tx: &dyn Transactions,
        in_process: u32,
        gate: Option<&'a (dyn Fn() -> bool + Sync)>,
    ) -> Shared<'a> {
        let phased = trial.load.is_default() && tx.phase_timed(trial.params);
        let op_timed = trial.load.is_default() && !phased && tx.op_timed(trial.params);
        let series = !phased && !op_timed && tx.series(trial.params, trial.load);
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
            op_timed,
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
