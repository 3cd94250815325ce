//! `tpcc`: TPC-C (TPC Benchmark C, Standard Specification 5.11), the order-entry benchmark
//! every server engine is compared on, on every engine litebench drives.
//!
//! - [`schema`]: the nine tables and the two secondary indexes;
//! - [`random`]: NURand and its C constants, last names, the population's strings;
//! - [`populate`]: the initial population of §4.3 (`warehouses` the scale);
//! - [`deck`]: the mix as §5.2.4.2's deck of cards;
//! - [`txns`]: the five transactions;
//! - [`check`]: the consistency conditions 1-4 of §3.3.2, after every trial;
//! - [`report`]: the answer, tpmC;
//! - [`size`]: the population's rows and bytes, for the dry run.
//!
//! A trial runs on the load driver ([`super::load`]): each client is a terminal bound to a home
//! warehouse and a district (§5.5; [`txns::Terminal::of`]), deals its transactions from its own
//! deck and stream of the trial's seed, warms up for `warmup_time` (unrecorded) and is measured
//! for `measure_time`. Keying and think times (§5.2.5) are off by default, as go-tpc and
//! BenchBase run it, and on with `think_times=on`. The answer is tpmC: New-Order transactions
//! per minute of the measured interval. Every deviation from the specification is listed in
//! docs/workloads.md.

pub mod check;
pub mod deck;
pub mod populate;
pub mod random;
pub mod report;
pub mod schema;
pub mod size;
pub mod txns;

use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, EngineError};
use crate::model::load::LoadShape;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use deck::TXNS;
use rand::{Rng, SeedableRng};
use std::time::Duration;
use txns::{Outcome, Statements, Terminal, TxGen, TxInput};

/// The workload.
pub struct Tpcc;

/// Most warehouses a run may ask for.
pub const MAX_WAREHOUSES: u64 = 10_000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "warehouses",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_WAREHOUSES,
        },
        default: "1",
        help: "the scale (W, §4.2): each warehouse brings 10 districts, 30,000 customers and orders, 100,000 stock rows (499,011 rows, 68.6 MB of row data, about 80 MB in a SQLite file; --dry-run gives a scale's size); clients are spread over the warehouses",
    },
    ParamSpec {
        name: "warmup_time",
        kind: ParamKind::Duration { allow_zero: true },
        default: "10s",
        help: "transactions run but not recorded before the measurement",
    },
    ParamSpec {
        name: "measure_time",
        kind: ParamKind::Duration { allow_zero: false },
        default: "60s",
        help: "measured interval: every transaction that starts within it is recorded (§5.5 asks for at least 2 hours for a published result)",
    },
    ParamSpec {
        name: "think_times",
        kind: ParamKind::Choice(&["off", "on"]),
        default: "off",
        help: "on: each terminal waits its keying time before and its think time after each transaction, as §5.2.5 sets them (18/3/2/2/2 s keying, 12/12/10/5/5 s mean think); off: none, as go-tpc and BenchBase run",
    },
];

/// Keying times (§5.2.5.7) and mean think times (§5.2.5.7), in [`TXNS`] order, in seconds.
const KEYING: [f64; 5] = [18.0, 3.0, 2.0, 2.0, 2.0];
const THINK: [f64; 5] = [12.0, 12.0, 10.0, 5.0, 5.0];

/// TPC-C's terminals on the load driver.
impl super::load::Streams for Tpcc {
    type Client<'c> = TpccClient<'c>;

    fn time_param(&self) -> &'static str {
        "measure_time"
    }

    fn budget(&self, p: &Params) -> super::load::Budget {
        super::load::Budget::Time(p.duration("measure_time"))
    }

    fn warmup(&self, p: &Params) -> Duration {
        p.duration("warmup_time")
    }

    fn series(&self, _p: &Params, _l: &LoadShape) -> bool {
        true
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        _clients: u32,
        seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let warehouses = p.count("warehouses").max(1) as u32;
        let k = populate::read_constants(conn)?;
        let stmts = Statements::prepare(conn)?;
        let terminal = Terminal::of(index, warehouses);
        let stream = super::load::trial_seed(seed, index);
        Ok(TpccClient {
            conn,
            stmts,
            gen: TxGen::new(stream, terminal, k),
            rest: rand_chacha::ChaCha8Rng::seed_from_u64(stream ^ 0x7417),
            terminal,
            tx: None,
            think: p.choice("think_times") == "on",
            rest_after: None,
        })
    }
}

/// One terminal's stream under the load driver.
pub struct TpccClient<'c> {
    conn: &'c mut dyn Connection,
    stmts: Statements,
    gen: TxGen,
    /// Draws the keying and think times, apart from the transactions' inputs.
    rest: rand_chacha::ChaCha8Rng,
    terminal: Terminal,
    tx: Option<TxInput>,
    think: bool,
    /// The rest after the transaction drawn last (with `think_times=on`).
    rest_after: Option<Duration>,
}

impl super::load::Client for TpccClient<'_> {
    fn draw(&mut self) -> usize {
        let tx = self.gen.next_tx();
        let op = tx.index();
        self.tx = Some(tx);
        if self.think {
            // The think time after this transaction and the keying time of the next (its card
            // dealt ahead), drawn here, untimed: §5.2.5's cycle.
            let next = self.gen.peek_next();
            let r: f64 = self.rest.random_range(f64::MIN_POSITIVE..1.0);
            let think = (-r.ln() * THINK[op]).min(10.0 * THINK[op]);
            self.rest_after = Some(Duration::from_secs_f64(think + KEYING[next]));
        }
        op
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let Some(tx) = &self.tx else {
            return Ok(false);
        };
        match self.stmts.execute(&mut *self.conn, &self.terminal, tx)? {
            Outcome::Success => Ok(true),
            Outcome::Unsuccessful => Ok(false),
            Outcome::Busy(cause) => Err(EngineError {
                busy_cause: Some(cause),
                engine: "tpcc".into(),
                kind: crate::engines::ErrorKind::Busy,
                code: None,
                message: "rolled back on lock contention".into(),
                context: format!("running {}", TXNS[tx.index()]),
            }),
        }
    }

    fn hooks(&self) -> super::load::Hooks {
        super::load::Hooks {
            pause: self.think,
            ..Default::default()
        }
    }

    fn pause(&self) -> Option<Duration> {
        self.rest_after
    }
}

/// tpmC as the run's answer.
impl super::WorkloadReport for Tpcc {
    fn answer(
        &self,
        m: &crate::model::record::Manifest,
        trials: &[crate::model::record::TrialRecord],
        own: &[String],
    ) -> Option<Vec<String>> {
        report::answer(m, trials, own)
    }
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "tpcc",
    about: "TPC-C: New-Order, Payment, Order-Status, Delivery and Stock-Level on nine tables, terminals bound to warehouses; tpmC (New-Orders per minute), consistency checked after every trial",
    source: "TPC Benchmark C, Standard Specification, Revision 5.11 (Transaction Processing Performance Council, 2010)",
    params: PARAMS,
    operations: &TXNS,
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

impl Workload for Tpcc {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    /// `begin`: the statement its transactions start with.
    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        match knob {
            crate::engines::sqlite::knobs::BEGIN_KNOB => Ok(()),
            _ => Err(format!("no statement of tpcc reads {knob}")),
        }
    }

    fn check(&self, _p: &Params) -> Result<(), String> {
        Ok(())
    }

    /// The population's rows and bytes, and the trial's two intervals.
    fn plan_lines(&self, p: &Params) -> Vec<String> {
        let words = |d: Duration| match d.as_nanos() {
            0 => "no".to_string(),
            ns => crate::model::load::duration_text(ns.min(u128::from(u64::MAX)) as u64),
        };
        vec![
            size::plan_line(p.count("warehouses").max(1)),
            format!(
                "each trial: {} warm-up (warmup_time, not recorded), then {} measured (measure_time); tpmC is New-Orders per minute of the measured interval",
                words(p.duration("warmup_time")),
                words(p.duration("measure_time"))
            ),
        ]
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        self
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        populate::populate(conn, pop.params.count("warehouses").max(1) as u32, pop)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        super::load::drive(conn, self, trial, rec)
    }

    fn transactions(&self) -> Option<&dyn super::load::Transactions> {
        Some(self)
    }

    /// The consistency conditions 1-4 (§3.3.2), whatever the load.
    fn verify(&self, conn: &mut dyn Connection, _p: &Params) -> Result<(), WorkloadError> {
        match check::consistency(conn)? {
            Some(broken) => Err(WorkloadError::check_failed("tpcc", broken.0)),
            None => Ok(()),
        }
    }
}
