//! The operation-timed loop: one closed-loop client whose trial is measured inside its
//! operations ([`Streams::op_timed`](super::Streams::op_timed): blob's VLDB'22 trial). Only the
//! engine's call is timed; the client's draw (new content before a write) and its check (a
//! read's checksum after it) are not, and the trial's interval is the sum of the timed
//! operations, not its wall time. A variant of its own, beside [`super::timed_loop`], so that
//! the loops timed per interval or per phase pay nothing for it.

use super::course::Course;
use super::shared::Shared;
use super::Client;
use crate::workload::recorder::Recorder;
use crate::workload::WorkloadError;
use std::time::{Duration, Instant};

/// Runs `client` until its budget (its count of measured operations, or the measured time after
/// the warm-up) and sets the trial's interval to the time spent inside the measured operations.
/// Warm-up operations run and are checked, not recorded. Each operation type is charged the
/// I/O of its own operations from its first measured one. An engine error fails the trial (one
/// client, no retries: the default load shape has none).
pub(super) fn run_op_timed<C: Client>(
    client: &mut C,
    course: &Course,
    shared: &Shared<'_>,
    rec: &mut Recorder,
) -> Result<(), WorkloadError> {
    let mut measured = 0u64;
    let mut timed = Duration::ZERO;
    // The operation type the I/O is charged to.
    let mut owner = None;
    loop {
        if shared.halted() {
            break;
        }
        let now = Instant::now();
        let measuring = now >= course.warm_end;
        if measuring && (measured >= course.count || course.until.is_some_and(|u| now >= u)) {
            break;
        }
        let op = client.draw();
        if measuring && owner != Some(op) {
            rec.attribute_io(op);
            owner = Some(op);
        }
        // The timed region: the engine's operation and nothing else.
        let t0 = Instant::now();
        let result = client.execute();
        let latency = t0.elapsed();
        result.map_err(|e| shared.failed(e))?;
        if measuring {
            rec.record(op, latency);
            timed += latency;
            measured += 1;
        }
        if course.hooks.check {
            client.check()?;
        }
    }
    rec.set_interval(timed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{drive, Budget, Hooks, Streams};
    use super::*;
    use crate::engines::{Connection, EngineError};
    use crate::model::params::Params;
    use crate::workload::Trial;
    use std::sync::atomic::AtomicBool;

    /// A client whose draw and check take 2 ms each (untimed work) and whose operation takes
    /// 1 ms; it alternates two operation types.
    struct Sleepy {
        n: usize,
        checked: u32,
    }

    impl Client for Sleepy {
        fn draw(&mut self) -> usize {
            std::thread::sleep(Duration::from_millis(2));
            self.n += 1;
            self.n % 2
        }
        fn execute(&mut self) -> Result<bool, EngineError> {
            std::thread::sleep(Duration::from_millis(1));
            Ok(true)
        }
        fn hooks(&self) -> Hooks {
            Hooks {
                check: true,
                ..Hooks::default()
            }
        }
        fn check(&mut self) -> Result<(), crate::workload::WorkloadError> {
            self.checked += 1;
            std::thread::sleep(Duration::from_millis(2));
            Ok(())
        }
    }

    struct SleepyTx(bool);

    impl Streams for SleepyTx {
        type Client<'c> = Sleepy;
        fn budget(&self, _: &Params) -> Budget {
            Budget::Count(40)
        }
        fn op_timed(&self, _: &Params) -> bool {
            self.0
        }
        fn client(&self, _: &mut dyn Connection, _: u32, _: u32, _: u64, _: &Params) -> Result<Sleepy, WorkloadError> {
            Ok(Sleepy { n: 0, checked: 0 })
        }
    }

    struct NoMore;

    impl crate::workload::Connector for NoMore {
        fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
            unreachable!("one client")
        }
    }

    /// The measured interval and the operations of one default-load trial of `tx`, and its wall
    /// time.
    fn trial(tx: &SleepyTx) -> (Duration, u64, Duration) {
        use crate::engines::sqlite::api::Api;
        use crate::engines::sqlite::conn::SqliteConn;
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let params = Params::default();
        let stop = AtomicBool::new(false);
        let t = Trial::plain(&params, 1, &stop, &NoMore);
        let mut rec = Recorder::new(&["read", "write"], None);
        let wall = Instant::now();
        drive(&mut conn, tx, &t, &mut rec).unwrap();
        let wall = wall.elapsed();
        let (ops, measured) = rec.finish();
        assert!(
            ops.iter().all(|o| o.elapsed_ns == measured.as_nanos() as u64),
            "{ops:?}"
        );
        (measured, ops.iter().map(|o| o.ops).sum(), wall)
    }

    /// One closed-loop client of an operation-timed workload: the driver runs it in this loop,
    /// and the trial's interval is the sum of its 40 operations of 1 ms (40 ms and a little),
    /// not the wall time that includes 4 ms of untimed draw and check each (200 ms and more).
    /// Timed over the wall clock, the same client's interval is the trial's.
    #[test]
    fn one_client_timed_inside_its_operations_has_their_sum_as_its_interval() {
        let (interval, ops, wall) = trial(&SleepyTx(true));
        assert_eq!(ops, 40);
        assert!(wall >= Duration::from_millis(200), "{wall:?}");
        assert!(
            interval >= Duration::from_millis(40) && interval < Duration::from_millis(120),
            "interval {interval:?} of a {wall:?} trial"
        );
        let (interval, ops, wall) = trial(&SleepyTx(false));
        assert_eq!(ops, 40);
        assert!(
            interval >= Duration::from_millis(150) && interval <= wall,
            "{interval:?}, {wall:?}"
        );
    }
}
