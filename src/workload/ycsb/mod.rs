//! `ycsb`: the Yahoo! Cloud Serving Benchmark's core workloads A to F (Cooper, Silberstein, Tam,
//! Ramakrishnan, Sears, "Benchmarking Cloud Serving Systems with YCSB", SoCC 2010), as YCSB's
//! `CoreWorkload` and its JDBC binding run them, on every SQL engine.
//!
//! - [`mix`]: the six workloads' operation proportions and request distributions;
//! - [`generators`]: Zipfian, scrambled Zipfian and latest, from their definitions;
//! - [`keys`]: key names (FNV-64 hashed record numbers), field values, and which keys a client
//!   may choose and insert;
//! - [`schema`]: `usertable` and the binding's statements;
//! - [`client`]: a client's operations, drawn from its seed, and how each runs.
//!
//! Operations are independent transactions, so the workload offers them to the load driver
//! ([`load::drive`]): any `--clients`, `--rate`, `--latency-limit` and `--max-tries`. A trial
//! runs `operations` operations over all clients, or every client for `duration`. Every
//! deviation from YCSB is listed in docs/workloads.md.

pub mod client;
pub mod generators;
pub mod keys;
pub mod mix;
pub mod schema;

use super::load::{self, Budget, Client, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, EngineError, Value};
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use client::{Generator, Statements, YcsbClient};
use keys::{fill_value, key_name, FIELDS, FIELD_LENGTH};
use mix::{Core, Op, OPS};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The workload.
pub struct Ycsb;

/// Most records and operations a run may ask for (record numbers stay far from overflow; a
/// billion records is a table of about a terabyte).
pub const MAX_COUNT: u64 = 1_000_000_000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "workload",
        kind: ParamKind::Choice(&mix::NAMES),
        default: "a",
        help: "YCSB core workload: a 50/50 read/update, b 95/5 read/update, c read only, d 95/5 read/insert (latest), e 95/5 scan/insert, f 50/50 read/read-modify-write",
    },
    ParamSpec {
        name: "records",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_COUNT,
        },
        default: "10000",
        help: "records populated into the template (YCSB's recordcount), ten 100-byte fields each",
    },
    ParamSpec {
        name: "operations",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_COUNT,
        },
        default: "10000",
        help: "operations per trial over all clients (YCSB's operationcount); also sizes the zipfian key space for inserts",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run every client for this long instead (0: run `operations` operations)",
    },
    ParamSpec {
        name: "writer",
        kind: ParamKind::Choice(&["off", "on"]),
        default: "off",
        help: "on: the first client only updates and every other client only reads (readers beside one writer, VLDB'22 section 2.2.2), keys as the workload draws them; not part of YCSB",
    },
];

/// The core workload the parameters name.
fn core_of(p: &Params) -> Result<&'static Core, WorkloadError> {
    let name = p.choice("workload");
    mix::core(name).ok_or_else(|| WorkloadError::Verification {
        workload: "ycsb".into(),
        detail: format!("--param workload={name}: no such core workload; use one of a, b, c, d, e, f"),
    })
}

/// Most times the Zipfian key space may exceed the populated records.
pub const KEY_SPACE_RATIO_MAX: u64 = 1000;

/// Refuses a Zipfian key space far larger than the populated table. The key space holds the
/// expected inserts twice over (YCSB's rule), and a draw of a key not inserted yet is drawn
/// again: about `key space / records` draws per operation at the start of a trial, which must
/// stay small (workload E with `records=1` and a million operations would draw a hundred
/// thousand times per operation).
fn check_key_space(p: &Params) -> Result<(), String> {
    let Some(core) = mix::core(p.choice("workload")) else {
        return Err(format!(
            "--param workload={}: no such core workload; use one of a, b, c, d, e, f",
            p.choice("workload")
        ));
    };
    if core.distribution != mix::Distribution::Zipfian {
        return Ok(());
    }
    let records = p.count("records").max(1);
    let operations = p.count("operations");
    let expected = (operations as f64 * core.insert_proportion() * 2.0) as u64;
    if records + expected > KEY_SPACE_RATIO_MAX * records {
        return Err(format!(
            "--param records={records}: workload {} expects {expected} new keys from operations={operations} (twice its inserts, as YCSB sizes its Zipfian key space), more than {} times the records, and most key draws would miss; raise records to at least {} or lower operations",
            core.name,
            KEY_SPACE_RATIO_MAX - 1,
            expected.div_ceil(KEY_SPACE_RATIO_MAX - 1)
        ));
    }
    Ok(())
}

/// An error preparing a client's statements. An extra client that finds no table is almost
/// always on a private in-memory database.
fn setup_error(index: u32, e: EngineError) -> WorkloadError {
    let m = e.message.to_ascii_lowercase();
    if index > 0 && (m.contains("no such table") || m.contains("does not exist")) {
        return WorkloadError::Verification {
            workload: "ycsb".into(),
            detail: format!(
                "client {index} does not see the populated table ({}); an in-memory database belongs to one connection, so use one client there or a database on disk",
                e.message
            ),
        };
    }
    e.into()
}

fn count(conn: &mut dyn Connection, sql: &str) -> Result<u64, EngineError> {
    Ok(conn.query_value(sql)?.and_then(|s| s.parse().ok()).unwrap_or(u64::MAX))
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "ycsb",
    about: "YCSB core workloads A-F: reads, updates, inserts, scans and read-modify-writes of 1 KB records under a Zipfian or latest key distribution",
    source: "Cooper et al., Benchmarking Cloud Serving Systems with YCSB, SoCC 2010; the core workloads and CoreWorkload of github.com/brianfrankcooper/YCSB",
    params: PARAMS,
    operations: &OPS,
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

impl Workload for Ycsb {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    /// `begin`: the statement a read-modify-write starts with, the one operation in a
    /// transaction of its own (workload f; the others run each statement in autocommit).
    fn reads_knob(&self, knob: &str, p: &Params) -> Result<(), String> {
        if knob != crate::engines::sqlite::knobs::BEGIN_KNOB {
            return Err(format!("no statement of ycsb reads {knob}"));
        }
        let name = p.choice("workload");
        match mix::core(name) {
            Some(core) if core.proportions[mix::Op::ReadModifyWrite.index()] == 0.0 => Err(format!(
                "ycsb workload {name} has no read-modify-write, its only operation that starts a transaction (workload f has; give --param workload=f)"
            )),
            _ => Ok(()),
        }
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        check_key_space(p)
    }

    /// Its transactions never read what an earlier statement returned: they run as data.
    fn driver_refusal(&self, _p: &Params) -> Option<String> {
        None
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        conn.execute_batch(&schema::create_table(conn.dialect()))?;
        let records = pop.params.count("records").max(1);
        let columns = schema::columns();
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        let mut fill = |sink: &mut dyn crate::engines::bulk::RowSink| -> Result<(), EngineError> {
            let mut rng = ChaCha8Rng::seed_from_u64(pop.seed);
            let mut key = String::with_capacity(24);
            let mut values: [String; FIELDS] = std::array::from_fn(|_| String::with_capacity(FIELD_LENGTH));
            for n in 0..records {
                key_name(n, &mut key);
                for v in values.iter_mut() {
                    fill_value(&mut rng, FIELD_LENGTH, v);
                }
                let mut row = [Value::Null; FIELDS + 1];
                row[0] = Value::Text(&key);
                for (slot, v) in row[1..].iter_mut().zip(&values) {
                    *slot = Value::Text(v);
                }
                sink.row(&row)?;
            }
            Ok(())
        };
        pop.bulk_load(conn, schema::TABLE, &columns, &mut fill)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let core = core_of(p)?;
        let records = p.count("records").max(1);
        let got = count(conn, &format!("SELECT count(*) FROM {}", schema::TABLE))?;
        // Inserts depend on the draws of every client, which the parameters alone do not give;
        // at most every operation of a count-based trial is one.
        let most = if core.insert_proportion() == 0.0 {
            records
        } else if p.duration("duration").is_zero() {
            records + p.count("operations")
        } else {
            u64::MAX
        };
        let fail = |detail: String| WorkloadError::Verification {
            workload: "ycsb".into(),
            detail,
        };
        if got < records || got > most {
            let expect = if most == records {
                format!("{records}")
            } else if most == u64::MAX {
                format!("at least {records}")
            } else {
                format!("{records} to {most}")
            };
            return Err(fail(format!("{got} records after the trial, expected {expect}")));
        }
        let first = keys::key(0);
        let found = count(
            conn,
            &format!("SELECT count(*) FROM {} WHERE YCSB_KEY = '{first}'", schema::TABLE),
        )?;
        if found != 1 {
            return Err(fail(format!(
                "record 0 ({first}) found {found} times; the table was not populated with YCSB's key names"
            )));
        }
        Ok(())
    }
}

impl Streams for Ycsb {
    type Client<'c> = Box<dyn Client + 'c>;

    fn budget(&self, params: &Params) -> Budget {
        Budget::operations_or_duration(params)
    }

    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        Some(load::OPERATIONS_OR_DURATION)
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let core = core_of(params)?;
        let statements = Statements::prepare(conn).map_err(|e| setup_error(index, e))?;
        let mut generator = Generator::new(
            core,
            params.count("records"),
            params.count("operations"),
            index,
            clients,
            seed,
        );
        if params.choice("writer") == "on" {
            generator.force(if index == 0 { Op::Update } else { Op::Read });
        }
        Ok(Box::new(YcsbClient::new(conn, generator, statements)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::model::load::LoadShape;
    use crate::model::params::resolve;
    use crate::workload::Connector;
    use mix::Op;
    use std::path::PathBuf;
    use std::sync::atomic::AtomicBool;

    fn params(args: &[&str]) -> Params {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        resolve("ycsb", PARAMS, &args).expect("valid parameters")
    }

    struct OneConnection;

    impl Connector for OneConnection {
        fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
            panic!("one client uses the trial's connection")
        }
    }

    /// Opens further connections to one database file.
    struct File(PathBuf);

    impl Connector for File {
        fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
            let mut c = SqliteConn::open(Api::bundled(), &self.0, None, "sqlite")?;
            c.execute_batch("PRAGMA busy_timeout = 5000")?;
            Ok(Box::new(c))
        }
    }

    /// Inserts the clients of a trial draw: the same generators, replayed.
    fn inserts_drawn(p: &Params, clients: u32, seed: u64) -> u64 {
        let core = core_of(p).unwrap();
        let total = p.count("operations");
        (0..clients)
            .map(|c| {
                let mut g = Generator::new(core, p.count("records"), total, c, clients, load::client_seed(seed, c));
                let share = total / u64::from(clients) + u64::from(u64::from(c) < total % u64::from(clients));
                for _ in 0..share {
                    g.draw();
                }
                g.inserts()
            })
            .sum()
    }

    #[test]
    fn a_trial_of_every_workload_on_sqlite_runs_and_verifies() {
        for w in mix::NAMES {
            let p = params(&[&format!("workload={w}"), "records=300", "operations=600"]);
            let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").expect("in-memory SQLite");
            let rows = Ycsb.populate(&mut conn, &Population::plain(&p, 5)).expect("populate");
            assert_eq!(rows, 300);
            let stop = AtomicBool::new(false);
            let trial = Trial::plain(&p, 9, &stop, &OneConnection);
            let mut rec = Recorder::new(&OPS, None);
            Ycsb.run(&mut conn, &trial, &mut rec).expect("trial");
            Ycsb.verify(&mut conn, &p).expect("verify");
            let (ops, _) = rec.finish();
            let done: u64 = ops.iter().map(|o| o.ops).sum();
            assert_eq!(done, 600, "workload {w}");
            for o in &ops {
                assert_eq!(
                    o.succeeded.unwrap_or(o.ops),
                    o.ops,
                    "workload {w}: every {} succeeds",
                    o.name
                );
            }
            let core = mix::core(w).unwrap();
            for op in Op::ALL {
                let used = core.proportions[op.index()] > 0.0;
                assert_eq!(ops[op.index()].ops > 0, used, "workload {w}: {}", OPS[op.index()]);
            }
            let expect = 300 + inserts_drawn(&p, 1, 9);
            let got = count(&mut conn, "SELECT count(*) FROM usertable").unwrap();
            assert_eq!(got, expect, "workload {w}");
        }
    }

    #[test]
    fn two_clients_on_a_file_insert_disjoint_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ycsb.db");
        let p = params(&["workload=d", "records=200", "operations=2000"]);
        let mut conn = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
        Ycsb.populate(&mut conn, &Population::plain(&p, 5)).unwrap();
        conn.execute_batch("PRAGMA journal_mode = wal; PRAGMA busy_timeout = 5000")
            .unwrap();
        let stop = AtomicBool::new(false);
        let shape = LoadShape {
            clients: 2,
            max_tries: 1000,
            ..LoadShape::default()
        };
        let connector = File(path.clone());
        let mut trial = Trial::plain(&p, 4, &stop, &connector);
        trial.load = &shape;
        let mut rec = Recorder::new(&OPS, None);
        Ycsb.run(&mut conn, &trial, &mut rec).expect("trial");
        Ycsb.verify(&mut conn, &p).expect("verify");
        let (ops, _) = rec.finish();
        let inserted = ops[Op::Insert.index()].ops;
        assert_eq!(ops[Op::Insert.index()].busy, 0);
        assert_eq!(inserted, inserts_drawn(&p, 2, 4));
        let got = count(&mut conn, "SELECT count(*) FROM usertable").unwrap();
        assert_eq!(got, 200 + inserted, "every insert of both clients landed");
    }

    #[test]
    fn the_budget_is_operations_or_duration() {
        assert_eq!(Ycsb.budget(&params(&["operations=123"])), Budget::Count(123));
        assert_eq!(
            Ycsb.budget(&params(&["duration=2s"])),
            Budget::Time(std::time::Duration::from_secs(2))
        );
        assert!(resolve("ycsb", PARAMS, &["workload=g".to_string()]).is_err());
        assert!(resolve("ycsb", PARAMS, &["records=0".to_string()]).is_err());
    }

    #[test]
    fn a_key_space_far_larger_than_the_table_is_refused() {
        // E: 5% inserts, twice over: 100,000 operations expect 10,000 new keys.
        let e = Ycsb
            .check(&params(&["workload=e", "records=10", "operations=100000"]))
            .unwrap_err();
        assert!(
            e.starts_with("--param records=10: workload e expects 10000 new keys"),
            "{e}"
        );
        assert!(e.contains("raise records to at least 11"), "{e}");
        assert!(Ycsb
            .check(&params(&["workload=e", "records=11", "operations=100000"]))
            .is_ok());
        // D draws its keys back from the newest, and A has no inserts: nothing to miss.
        assert!(Ycsb
            .check(&params(&["workload=d", "records=1", "operations=100000"]))
            .is_ok());
        assert!(Ycsb
            .check(&params(&["workload=a", "records=1", "operations=100000"]))
            .is_ok());
        assert!(Ycsb.check(&params(&[])).is_ok());
    }
}
