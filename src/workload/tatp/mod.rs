//! `tatp`: the Telecommunication Application Transaction Processing benchmark, to the letter of
//! its specification (TATP Benchmark Description, version 1.0), as the VLDB'22 study of SQLite
//! ran it: one client, a 10-second warm-up, a 60-second measurement, throughput in transactions
//! per second.
//!
//! - [`schema`]: the four tables per SQL dialect;
//! - [`populate`]: the population rules;
//! - [`keys`]: the non-uniform subscriber-id generator;
//! - [`txns`]: the seven transactions, their inputs and what counts as success;
//! - [`mix`]: weights by transaction name;
//! - [`rates`]: the expected success rates and the check of observed ones.
//!
//! A trial runs on the load driver ([`super::load`]): `clients` connections (the first is the
//! trial's own), every client on its own thread with its own RNG stream of the trial's seed,
//! warms up for `warmup_time` (run, not recorded), then records every transaction that starts
//! within `measure_time`. Per type it
//! records completed transactions, successful ones, lock-contention rollbacks and latency;
//! throughput is per second of the measured wall interval. Every deviation from the
//! specification is listed in docs/workloads.md.
//!
//! The trial's result hash ([`super::result_hash`]) covers the query results of the first
//! [`HASHED_TRANSACTIONS`] transactions of a single-client trial, warm-up included: their inputs
//! come from the trial's seed and the database from the run's, so every engine gives the same
//! results. Beyond them the number of transactions depends on the engine's speed, and with
//! several clients their interleaving (which transaction sees which write) depends on timing,
//! so no hash is kept then, nor for a trial that ran fewer transactions. The client keeps the
//! log and hands the hash to the driver when its trial ends ([`TatpClient`]).

pub mod keys;
pub mod mix;
pub mod populate;
pub mod rates;
pub mod schema;
pub mod txns;

use super::result_hash::{ResultHash, ResultLog};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, EngineError};
use crate::model::load::LoadShape;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use mix::{Mix, TXNS, WEIGHT_MAX};
use std::time::Duration;
use txns::{Outcome, Statements, TxGen};

/// The workload.
pub struct Tatp;

/// Most subscribers a run may ask for (s_id and the 15-digit sub_nbr stay far from overflow).
pub const MAX_SUBSCRIBERS: u64 = 1_000_000_000;

/// Most client threads.
pub const MAX_CLIENTS: u64 = 1024;

/// Transactions of a single-client trial whose query results make its result hash.
pub const HASHED_TRANSACTIONS: u64 = 500;

const fn weight(name: &'static str, default: &'static str, help: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Count {
            min: 0,
            max: WEIGHT_MAX,
        },
        default,
        help,
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "subscribers",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_SUBSCRIBERS,
        },
        default: "100000",
        help: "rows of subscriber (the spec's population size N); the other tables scale with it (about 9.75 rows per subscriber in all)",
    },
    ParamSpec {
        name: "warmup_time",
        kind: ParamKind::Duration { allow_zero: false },
        default: "10s",
        help: "transactions run but not recorded before the measurement (VLDB'22: 10 s)",
    },
    ParamSpec {
        name: "measure_time",
        kind: ParamKind::Duration { allow_zero: false },
        default: "60s",
        help: "measured interval: every transaction that starts within it is recorded (VLDB'22: 60 s)",
    },
    ParamSpec {
        name: "clients",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_CLIENTS,
        },
        default: "1",
        help: "concurrent clients, each with its own connection and thread (VLDB'22: 1)",
    },
    weight("weight.GET_SUBSCRIBER_DATA", "35", "relative weight of GET_SUBSCRIBER_DATA in the mix"),
    weight("weight.GET_NEW_DESTINATION", "10", "relative weight of GET_NEW_DESTINATION in the mix"),
    weight("weight.GET_ACCESS_DATA", "35", "relative weight of GET_ACCESS_DATA in the mix"),
    weight("weight.UPDATE_SUBSCRIBER_DATA", "2", "relative weight of UPDATE_SUBSCRIBER_DATA in the mix"),
    weight("weight.UPDATE_LOCATION", "14", "relative weight of UPDATE_LOCATION in the mix"),
    weight("weight.INSERT_CALL_FORWARDING", "2", "relative weight of INSERT_CALL_FORWARDING in the mix"),
    weight("weight.DELETE_CALL_FORWARDING", "2", "relative weight of DELETE_CALL_FORWARDING in the mix"),
];

/// A trial's settings, from validated parameters.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub subscribers: u64,
    pub warmup: Duration,
    pub measure: Duration,
    pub clients: u64,
    pub mix: Mix,
}

impl Settings {
    pub fn from_params(p: &Params) -> Result<Settings, String> {
        Ok(Settings {
            subscribers: p.count("subscribers").max(1),
            warmup: p.duration("warmup_time"),
            measure: p.duration("measure_time"),
            clients: p.count("clients").max(1),
            mix: Mix::from_params(p)?,
        })
    }
}

/// True when the mix inserts and deletes call forwardings equally often, so the
/// `call_forwarding` table keeps its populated state and its success expectations hold.
pub fn call_forwarding_balanced(p: &Params) -> bool {
    p.count(mix::WEIGHT_PARAMS[5]) == p.count(mix::WEIGHT_PARAMS[6])
}

/// TATP's clients, on the load driver: every client draws TATP's mix from its own stream (the
/// trial's seed and its index), warms up for `warmup_time` and is measured for `measure_time`;
/// under a rate, a latency limit or lock retries a transaction rolled back on a lock is tried
/// again, the same one.
impl super::load::Streams for Tatp {
    type Client<'c> = TatpClient<'c>;

    fn time_param(&self) -> &'static str {
        "measure_time"
    }

    fn budget(&self, p: &Params) -> super::load::Budget {
        super::load::Budget::Time(p.duration("measure_time"))
    }

    fn warmup(&self, p: &Params) -> Duration {
        p.duration("warmup_time")
    }

    /// TATP's closed loop (threads, one try per transaction) keeps no series, as its records
    /// never had one; a rate, a latency limit, lock retries or client processes do.
    fn series(&self, _p: &Params, l: &LoadShape) -> bool {
        l.open() || l.latency_limit_ns.is_some() || l.max_tries > 1 || l.processes()
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let settings = Settings::from_params(p).map_err(|detail| WorkloadError::Verification {
            workload: "tatp".into(),
            detail,
        })?;
        let stmts = Statements::prepare(conn).map_err(|e| setup_error(u64::from(index), e))?;
        // The first transactions of a single client keep their query results (about 2 queries
        // of 8 values each per transaction), for the hash.
        let log = (clients == 1).then(|| {
            let n = HASHED_TRANSACTIONS as usize;
            ResultLog::with_capacity(3 * n, 40 * n, 64 * n)
        });
        let trial_seed = super::load::trial_seed(seed, index);
        Ok(TatpClient {
            conn,
            stmts,
            gen: TxGen::new(trial_seed, u64::from(index), settings.mix, settings.subscribers),
            tx: None,
            log,
            executed: 0,
            busy: false,
        })
    }
}

/// One client's stream under the load driver.
pub struct TatpClient<'c> {
    conn: &'c mut dyn Connection,
    stmts: Statements,
    gen: TxGen,
    tx: Option<txns::TxInput>,
    /// The query results of the first [`HASHED_TRANSACTIONS`] transactions (a single client).
    log: Option<ResultLog>,
    /// Transactions run, warm-up included (each try of one counts).
    executed: u64,
    /// True once a transaction was rolled back on lock contention.
    busy: bool,
}

impl super::load::Client for TatpClient<'_> {
    fn draw(&mut self) -> usize {
        let tx = self.gen.next_tx();
        let op = tx.kind.index();
        self.tx = Some(tx);
        op
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let Some(tx) = &self.tx else {
            return Ok(false);
        };
        let keep = if self.executed < HASHED_TRANSACTIONS {
            self.log.as_mut()
        } else {
            None
        };
        self.executed += 1;
        match self.stmts.execute_into(&mut *self.conn, tx, keep)? {
            Outcome::Success => Ok(true),
            Outcome::Unsuccessful => Ok(false),
            // Rolled back already: the driver may run it again.
            Outcome::Busy(cause) => {
                self.busy = true;
                Err(EngineError {
                    busy_cause: Some(cause),
                    engine: "tatp".into(),
                    kind: crate::engines::ErrorKind::Busy,
                    code: None,
                    message: "rolled back on lock contention".into(),
                    context: format!("running {}", TXNS[tx.kind.index()]),
                })
            }
        }
    }

    /// Through a driver, each kind's rule (module `txns`) rests on its last statement: the
    /// row it found or changed; and INSERT_CALL_FORWARDING's key violation is its expected,
    /// unsuccessful end. Every statement binds the `s_id` its number was made from, so none
    /// reads an earlier one's result and the transaction travels as data; the driver runs the
    /// insert's and the delete's statements after a subscriber lookup that found nobody, which
    /// the population never gives (every number in 1..=subscribers exists).
    fn judged(&self) -> super::load::Judged {
        super::load::Judged {
            by_last_count: true,
            rejectable: self
                .tx
                .as_ref()
                .is_some_and(|t| t.kind == txns::TxKind::InsertCallForwarding),
        }
    }

    /// A transaction rolled back on lock contention did not run to its end: its successors saw
    /// another database than on an engine without contention, so no hash then, nor before
    /// [`HASHED_TRANSACTIONS`] transactions ran.
    fn result_hash(&mut self) -> Option<String> {
        let log = self
            .log
            .take()
            .filter(|_| self.executed >= HASHED_TRANSACTIONS && !self.busy)?;
        let mut h = ResultHash::new();
        h.add(&log);
        Some(h.finish())
    }
}

/// An error preparing a client's statements. An extra client that finds no tables is almost
/// always on a private in-memory database.
fn setup_error(index: u64, e: EngineError) -> WorkloadError {
    if index > 0 && e.message.contains("no such table") {
        return WorkloadError::Verification {
            workload: "tatp".into(),
            detail: format!(
                "--param clients: client {index} does not see the populated tables ({}); an in-memory database (--memory) belongs to one connection, so use clients=1 there or a database on disk",
                e.message
            ),
        };
    }
    e.into()
}

fn count(conn: &mut dyn Connection, sql: &str) -> Result<u64, EngineError> {
    Ok(conn
        .query(sql)?
        .first()
        .and_then(|r| r.first().cloned().flatten())
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::MAX))
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "tatp",
    about: "TATP: seven telecom transactions (80% reads) on subscriber, access_info, special_facility, call_forwarding; transactions per second over a timed interval",
    source: "Neuvonen, Wolski, Manner, Raatikka, Telecommunication Application Transaction Processing (TATP) Benchmark Description 1.0; as run in Gaffney et al., SQLite: Past, Present, and Future, VLDB 2022, section 4.1",
    params: PARAMS,
    operations: &TXNS,
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

impl Workload for Tatp {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    /// Its transactions travel as data: see [`TatpClient`]'s `judged`.
    fn driver_refusal(&self, _p: &Params) -> Option<String> {
        None
    }

    /// `begin`: the statement its writing transactions start with.
    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        match knob {
            crate::engines::sqlite::knobs::BEGIN_KNOB => Ok(()),
            _ => Err(format!("no statement of tatp reads {knob}")),
        }
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        self
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        Settings::from_params(p).map(|_| ())
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        populate::populate(conn, pop.params.count("subscribers").max(1), pop)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        super::load::drive(conn, self, trial, rec)
    }

    fn transactions(&self) -> Option<&dyn super::load::Transactions> {
        Some(self)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        // No transaction inserts or deletes subscribers, access_info or special_facility rows.
        let n = p.count("subscribers").max(1);
        let checks = [
            ("subscriber", "SELECT count(*) FROM subscriber", n, n),
            ("access_info", "SELECT count(*) FROM access_info", n, 4 * n),
            ("special_facility", "SELECT count(*) FROM special_facility", n, 4 * n),
        ];
        for (table, sql, lo, hi) in checks {
            let got = count(conn, sql)?;
            if got < lo || got > hi {
                return Err(WorkloadError::Verification {
                    workload: "tatp".into(),
                    detail: format!("{table} has {got} rows after the trial, expected {lo} to {hi}"),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::params::{resolve, ParamError};

    fn params(args: &[&str]) -> Result<Params, ParamError> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        resolve("tatp", PARAMS, &args)
    }

    #[test]
    fn defaults_are_the_specs_mix_and_the_papers_times() {
        let p = params(&[]).unwrap();
        let s = Settings::from_params(&p).unwrap();
        assert_eq!(s.mix.weights(), mix::DEFAULT_WEIGHTS);
        assert_eq!(s.warmup, Duration::from_secs(10));
        assert_eq!(s.measure, Duration::from_secs(60));
        assert_eq!(s.clients, 1);
        assert!(Tatp.check(&p).is_ok());
        assert!(call_forwarding_balanced(&p));
    }

    #[test]
    fn weights_are_addressed_by_name() {
        let p = params(&["weight.GET_ACCESS_DATA=0", "weight.UPDATE_LOCATION=86"]).unwrap();
        let s = Settings::from_params(&p).unwrap();
        assert_eq!(s.mix.weights(), [35, 10, 0, 2, 86, 2, 2]);
        assert!(!call_forwarding_balanced(
            &params(&["weight.INSERT_CALL_FORWARDING=3"]).unwrap()
        ));
    }

    #[test]
    fn bad_weights_are_refused() {
        let e = params(&["weight.GET_NOTHING=3"]).unwrap_err().to_string();
        assert!(
            e.starts_with("--param weight.GET_NOTHING: workload tatp has no such parameter"),
            "{e}"
        );
        assert!(e.contains("weight.GET_SUBSCRIBER_DATA"), "{e}");
        let e = params(&["weight.GET_ACCESS_DATA=-1"]).unwrap_err().to_string();
        assert!(e.contains("an integer from 0 to 1000000"), "{e}");
        let zero: Vec<String> = mix::WEIGHT_PARAMS.iter().map(|w| format!("{w}=0")).collect();
        let zero: Vec<&str> = zero.iter().map(String::as_str).collect();
        let e = Tatp.check(&params(&zero).unwrap()).unwrap_err();
        assert!(e.contains("sum to zero"), "{e}");
    }

    #[test]
    fn bad_sizes_and_durations_are_refused() {
        for (arg, valid) in [
            ("subscribers=0", "an integer from 1 to 1000000000"),
            ("clients=0", "an integer from 1 to 1024"),
            ("warmup_time=0", "a duration greater than zero"),
            ("measure_time=0s", "a duration greater than zero"),
        ] {
            let e = params(&[arg]).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--param {arg}: invalid value")), "{e}");
            assert!(e.contains(valid), "{e}");
        }
    }
}
