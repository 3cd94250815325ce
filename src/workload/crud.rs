//! `crud`: the APSys'17 insert/update/delete experiment.
//!
//! Source: Purohith, Mohan, Chidambaram, "The Dangers and Complexities of SQLite Benchmarking",
//! APSys'17, §3: "We report the throughput (txs/sec) for performing 3000 transactions (1000
//! inserts, 1000 updates, and 1000 deletes). The experiments are performed on a database
//! pre-populated with 100K rows. We report the average of ten runs." The paper does not give the
//! schema or the row size; litebench's choices are written down in docs/workloads.md:
//!
//! - table `crud(id INTEGER PRIMARY KEY, value TEXT NOT NULL)`, `value` is `value_size` random
//!   characters;
//! - pre-population of `rows` rows in one transaction, into the template;
//! - `inserts` new rows, then `updates` updates of random live rows, then `deletes` deletes of
//!   random live rows; every operation is one statement in autocommit mode, hence its own
//!   transaction;
//! - every update writes a value that differs from the stored one (a unique prefix), because
//!   SQLite skips rewriting a record whose new bytes are identical, and such an update does no
//!   I/O at all;
//! - with `duration` > 0 the insert/update/delete sequence repeats until that much measured time
//!   has passed (duration-based measurement) instead of running once. Each round's data is
//!   generated with the recorder paused, so no phase is charged for it;
//! - [`Workload::check`] refuses every parameter combination whose rounds would run out of live
//!   rows (an update or a delete with no row left to pick), so the generator never has to.

use super::load::{self, Budget, Client, Transactions};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, Value};
use crate::engines::{EngineError, StmtId};
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::Ordering;

/// The workload.
pub struct Crud;

const OPS: &[&str] = &["insert", "update", "delete"];
const INSERT: usize = 0;
const UPDATE: usize = 1;
const DELETE: usize = 2;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "rows",
        kind: ParamKind::Count {
            min: 0,
            max: 100_000_000,
        },
        default: "100000",
        help: "rows pre-populated into the template (0: start empty, as most mobile tools do)",
    },
    ParamSpec {
        name: "inserts",
        kind: ParamKind::Count {
            min: 0,
            max: 100_000_000,
        },
        default: "1000",
        help: "insert transactions per round",
    },
    ParamSpec {
        name: "updates",
        kind: ParamKind::Count {
            min: 0,
            max: 100_000_000,
        },
        default: "1000",
        help: "update transactions per round",
    },
    ParamSpec {
        name: "deletes",
        kind: ParamKind::Count {
            min: 0,
            max: 100_000_000,
        },
        default: "1000",
        help: "delete transactions per round",
    },
    ParamSpec {
        name: "value_size",
        kind: ParamKind::Count {
            min: 16,
            max: 1_000_000,
        },
        default: "100",
        help: "bytes of the value column",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "repeat rounds until this much measured time has passed (0: one round, count-based)",
    },
];

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/// A pre-generated round: every id and value decided before timing starts.
struct Round {
    insert_ids: Vec<i64>,
    update_ids: Vec<i64>,
    delete_ids: Vec<i64>,
    /// `(inserts + updates) * value_size` bytes of ASCII; value i is `values[i*size..(i+1)*size]`.
    values: String,
}

/// The rows the database holds, mirrored so random picks always hit a live row.
struct Live {
    ids: Vec<i64>,
    next_id: i64,
    /// Ids this mirror inserts are `next_id`, `next_id + step`, ...: 1 for one client; the
    /// number of clients when each client keeps a disjoint share of the table.
    step: i64,
    serial: u64,
}

fn fill_value(rng: &mut ChaCha8Rng, out: &mut String, size: usize, tag: u8, serial: u64) {
    // A tag and a serial number make every value written in a trial distinct from every other.
    let prefix = format!("{}{:015}", tag as char, serial);
    out.push_str(&prefix[..prefix.len().min(size)]);
    for _ in prefix.len()..size {
        out.push(ALPHABET[rng.random_range(0..64)] as char);
    }
}

impl Live {
    /// The next round's ids and values, drawn from `rng` and the live rows; `None` if an update
    /// or a delete finds no live row, which [`check_rounds`] rules out. Never inlined, so an
    /// instruction count of the trial can subtract it (`benches/overhead-instructions.sh`).
    #[inline(never)]
    fn round(&mut self, rng: &mut ChaCha8Rng, p: &Params) -> Option<Round> {
        let size = p.count("value_size") as usize;
        self.round_of(rng, size, (p.count("inserts"), p.count("updates"), p.count("deletes")))
    }

    /// A round of `ni` inserts, `nu` updates and `nd` deletes of values of `size` bytes. Never
    /// inlined either: the load driver's clients call it directly.
    #[inline(never)]
    fn round_of(&mut self, rng: &mut ChaCha8Rng, size: usize, (ni, nu, nd): (u64, u64, u64)) -> Option<Round> {
        let mut values = String::with_capacity((ni + nu) as usize * size);
        let mut insert_ids = Vec::with_capacity(ni as usize);
        for _ in 0..ni {
            insert_ids.push(self.next_id);
            self.ids.push(self.next_id);
            self.next_id += self.step;
            self.serial += 1;
            fill_value(rng, &mut values, size, b'i', self.serial);
        }
        let mut update_ids = Vec::with_capacity(nu as usize);
        for _ in 0..nu {
            if self.ids.is_empty() {
                return None;
            }
            update_ids.push(self.ids[rng.random_range(0..self.ids.len())]);
            self.serial += 1;
            fill_value(rng, &mut values, size, b'u', self.serial);
        }
        let mut delete_ids = Vec::with_capacity(nd as usize);
        for _ in 0..nd {
            if self.ids.is_empty() {
                return None;
            }
            delete_ids.push(self.ids.swap_remove(rng.random_range(0..self.ids.len())));
        }
        Some(Round {
            insert_ids,
            update_ids,
            delete_ids,
            values,
        })
    }
}

fn rng_for(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "crud",
    about:
        "APSys'17: 1,000 inserts, 1,000 updates, 1,000 deletes, each its own transaction, on 100,000 pre-populated rows",
    source: "Purohith et al., The Dangers and Complexities of SQLite Benchmarking, APSys'17, section 3",
    params: PARAMS,
    operations: OPS,
    ..WorkloadKind::BASE
};

impl Workload for Crud {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        match knob {
            crate::engines::sqlite::knobs::BEGIN_KNOB => {
                Err("crud runs every statement in autocommit, in no transaction it starts".into())
            }
            _ => Err(format!("no statement of crud reads {knob}")),
        }
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        check_rounds(p)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        conn.execute_batch("CREATE TABLE crud(id INTEGER PRIMARY KEY, value TEXT NOT NULL)")?;
        let p = pop.params;
        let rows = p.count("rows");
        if rows == 0 {
            return Ok(0);
        }
        let size = p.count("value_size") as usize;
        let mut rng = rng_for(pop.seed, 0);
        let ins = conn.prepare("INSERT INTO crud(id, value) VALUES (?, ?)")?;
        conn.execute_batch("BEGIN")?;
        let mut value = String::with_capacity(size);
        for id in 1..=rows {
            pop.every(id)?;
            value.clear();
            fill_value(&mut rng, &mut value, size, b'p', id);
            conn.run(ins, &[Value::Int(id as i64), Value::Text(&value)])?;
        }
        conn.execute_batch("COMMIT")?;
        Ok(rows)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        // One client in a closed loop: the paper's phases, timed per phase (the numbers every
        // earlier run has). Any other load shape: the load driver, one stream per client.
        if trial.load.is_default() {
            run_rounds(conn, trial, rec, |_, live, rng, p| live.round(rng, p))
        } else {
            load::drive(conn, self, trial, rec)
        }
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn verify_after(
        &self,
        conn: &mut dyn Connection,
        p: &Params,
        load: &crate::model::load::LoadShape,
    ) -> Result<(), WorkloadError> {
        if load.is_default() {
            return self.verify(conn, p);
        }
        if !p.duration("duration").is_zero() {
            return Ok(());
        }
        // Skipped and failed transactions are counted, not errors: the table holds between
        // every delete and no insert having run, and every insert and no delete.
        let (rows, inserts, deletes) = (p.count("rows"), p.count("inserts"), p.count("deletes"));
        super::suite::verify_rows_between(conn, "crud", "crud", rows.saturating_sub(deletes), rows + inserts)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        if !p.duration("duration").is_zero() {
            return Ok(());
        }
        let expect = p.count("rows") + p.count("inserts") - p.count("deletes");
        let got = conn.query("SELECT count(*) FROM crud")?;
        let got: u64 = got
            .first()
            .and_then(|r| r[0].as_deref())
            .and_then(|s| s.parse().ok())
            .unwrap_or(u64::MAX);
        if got != expect {
            return Err(WorkloadError::Verification {
                workload: "crud".into(),
                detail: format!("{got} rows after the trial, expected {expect}"),
            });
        }
        Ok(())
    }
}

/// `n` split between `clients`: client `index`'s share (the first `n % clients` get one more).
fn share(n: u64, index: u32, clients: u32) -> u64 {
    n / u64::from(clients) + u64::from(u64::from(index) < n % u64::from(clients))
}

/// Several clients, or a rate: each client keeps a disjoint share of the table (the
/// pre-populated ids with `(id - 1) % clients == index`, and inserts every `clients`-th id from
/// `rows + 1 + index`), and runs its share of the inserts, updates and deletes, in that order,
/// each its own transaction, round after round in duration mode. Disjoint shares keep every
/// update and delete hitting a live row however the clients interleave, so a lock, not the
/// data, is what clients contend on.
impl Transactions for Crud {
    fn budget(&self, p: &Params) -> Budget {
        Budget::timed_or(p.duration("duration"), Budget::Streams)
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        p: &Params,
    ) -> Result<Box<dyn Client + 'c>, WorkloadError> {
        let stmts = [
            conn.prepare("INSERT INTO crud(id, value) VALUES (?, ?)")?,
            conn.prepare("UPDATE crud SET value = ? WHERE id = ?")?,
            conn.prepare("DELETE FROM crud WHERE id = ?")?,
        ];
        let (n, i) = (i64::from(clients), i64::from(index));
        let rows = p.count("rows") as i64;
        Ok(Box::new(CrudClient {
            conn,
            stmts,
            live: Live {
                ids: (1..=rows).filter(|id| (id - 1) % n == i).collect(),
                next_id: rows + 1 + i,
                step: n,
                // Distinct per client, so every value written in a trial differs from the others.
                serial: (1 << 40) + (u64::from(index) << 38),
            },
            rng: rng_for(seed, 1),
            size: p.count("value_size") as usize,
            counts: (
                share(p.count("inserts"), index, clients),
                share(p.count("updates"), index, clients),
                share(p.count("deletes"), index, clients),
            ),
            repeat: !p.duration("duration").is_zero(),
            round: None,
            at: 0,
            rounds: 0,
            current: (INSERT, 0, None),
        }))
    }
}

/// One client's stream: its rounds, flattened into transactions.
struct CrudClient<'c> {
    conn: &'c mut dyn Connection,
    stmts: [StmtId; 3],
    live: Live,
    rng: ChaCha8Rng,
    size: usize,
    counts: (u64, u64, u64),
    /// Duration mode: rounds repeat until the driver's time is up.
    repeat: bool,
    round: Option<Round>,
    /// Position in the round: inserts, then updates, then deletes.
    at: usize,
    rounds: u64,
    /// The drawn transaction: operation, id, and the offset of its value (none for a delete).
    current: (usize, i64, Option<usize>),
}

impl CrudClient<'_> {
    fn round_len(&self) -> usize {
        (self.counts.0 + self.counts.1 + self.counts.2) as usize
    }
}

impl Client for CrudClient<'_> {
    fn draw(&mut self) -> usize {
        if self.round.is_none() || self.at >= self.round_len() {
            self.round = self.live.round_of(&mut self.rng, self.size, self.counts);
            self.at = 0;
            self.rounds += 1;
        }
        let (ni, nu) = (self.counts.0 as usize, self.counts.1 as usize);
        let Some(round) = &self.round else {
            // Out of live rows in this client's share: `execute` says so.
            self.at += 1;
            return UPDATE;
        };
        let k = self.at;
        self.at += 1;
        self.current = if k < ni {
            (INSERT, round.insert_ids[k], Some(k * self.size))
        } else if k < ni + nu {
            (UPDATE, round.update_ids[k - ni], Some(k * self.size))
        } else {
            (DELETE, round.delete_ids[k - ni - nu], None)
        };
        self.current.0
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let conn = &mut *self.conn;
        let (op, id, value) = self.current;
        let stmt = self.stmts[op];
        let Some(round) = &self.round else {
            return Err(EngineError {
busy_cause: None,
                engine: "crud".into(),
                kind: crate::engines::ErrorKind::Other,
                code: None,
                message: "a client's share of the table ran out of live rows to update or delete; raise rows or lower updates and deletes".into(),
                context: "drawing the next round".into(),
            });
        };
        let changed = match value {
            None => conn.run(stmt, &[Value::Int(id)])?,
            Some(at) => {
                let v = &round.values[at..at + self.size];
                if op == INSERT {
                    conn.run(stmt, &[Value::Int(id), Value::Text(v)])?
                } else {
                    conn.run(stmt, &[Value::Text(v), Value::Int(id)])?
                }
            }
        };
        Ok(changed == 1)
    }

    fn done(&self) -> bool {
        let len = self.round_len();
        len == 0 || (!self.repeat && self.rounds >= 1 && self.at >= len)
    }
}

/// Most bytes of values one round may pre-generate in memory (`(inserts + updates) *
/// value_size`): 4 GiB, twice what the default counts need at the largest `value_size`.
const ROUND_BYTES_MAX: u64 = 4 << 30;

/// Refuses parameters whose rounds would run out of live rows, or that measure nothing.
///
/// Within a round the inserts come first, so the updates and deletes pick from `rows + inserts`
/// live rows; a round ends with `inserts - deletes` more live rows than it started with. In count
/// mode there is one round; with `duration` rounds repeat without a bound known in advance, so a
/// round may not shrink the table at all (deletes <= inserts), and then no later round has fewer
/// live rows than the first.
fn check_rounds(p: &Params) -> Result<(), String> {
    let (rows, inserts, updates, deletes) = (
        p.count("rows"),
        p.count("inserts"),
        p.count("updates"),
        p.count("deletes"),
    );
    let live = rows + inserts;
    if inserts + updates + deletes == 0 {
        return Err(
            "--param inserts=0, updates=0, deletes=0: a trial would measure nothing; set at least one above 0".into(),
        );
    }
    if updates > 0 && live == 0 {
        return Err(
            "--param updates: there are no rows to update (rows=0 and inserts=0); set rows or inserts above 0".into(),
        );
    }
    if deletes > live {
        return Err(format!(
            "--param deletes={deletes}: more deletes than rows + inserts ({live}); lower deletes or raise rows"
        ));
    }
    let duration = p.duration("duration");
    if !duration.is_zero() && deletes > inserts {
        return Err(format!(
            "--param deletes={deletes}: with duration={}ms rounds repeat, and each would delete more rows than it inserts (inserts={inserts}), so the table would run out of rows; keep deletes <= inserts, or leave out duration",
            duration.as_millis()
        ));
    }
    let bytes = (inserts + updates).saturating_mul(p.count("value_size"));
    if bytes > ROUND_BYTES_MAX {
        return Err(format!(
            "--param value_size={}: a round's values, (inserts + updates) x value_size = {bytes} bytes, are generated in memory before timing starts, and at most {ROUND_BYTES_MAX} are allowed; lower inserts, updates or value_size",
            p.count("value_size")
        ));
    }
    Ok(())
}

/// The trial: rounds of inserts, updates and deletes. Each round's data is generated by
/// `generate` while the recorder is paused (before the first phase, and after `rec.pause()`
/// ends the previous round's delete phase), so only statements are timed. `generate` gets the
/// recorder so a test can check that; the workload passes [`Live::round`].
fn run_rounds(
    conn: &mut dyn Connection,
    trial: &Trial<'_>,
    rec: &mut Recorder,
    mut generate: impl FnMut(&Recorder, &mut Live, &mut ChaCha8Rng, &Params) -> Option<Round>,
) -> Result<(), WorkloadError> {
    let (p, seed, stop) = (trial.params, trial.seed, trial.stop);
    let insert = conn.prepare("INSERT INTO crud(id, value) VALUES (?, ?)")?;
    let update = conn.prepare("UPDATE crud SET value = ? WHERE id = ?")?;
    let delete = conn.prepare("DELETE FROM crud WHERE id = ?")?;
    let rows = p.count("rows") as i64;
    let size = p.count("value_size") as usize;
    let mut live = Live {
        ids: (1..=rows).collect(),
        next_id: rows + 1,
        step: 1,
        serial: 1 << 40,
    };
    let mut rng = rng_for(seed, 1);
    let duration = p.duration("duration");
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(WorkloadError::Interrupted);
        }
        let round = generate(rec, &mut live, &mut rng, p).ok_or_else(|| WorkloadError::Verification {
            workload: "crud".into(),
            detail: "the table ran out of live rows to update or delete".into(),
        })?;
        let value = |i: usize| &round.values[i * size..(i + 1) * size];
        let phases: [(usize, _, &[i64]); 3] = [
            (INSERT, insert, &round.insert_ids),
            (UPDATE, update, &round.update_ids),
            (DELETE, delete, &round.delete_ids),
        ];
        let mut value_index = 0;
        for (op, stmt, ids) in phases {
            rec.phase(op);
            rec.mark();
            for id in ids {
                if stop.load(Ordering::Relaxed) {
                    return Err(WorkloadError::Interrupted);
                }
                let changed = if op == DELETE {
                    conn.run(stmt, &[Value::Int(*id)])?
                } else {
                    let v = value(value_index);
                    value_index += 1;
                    if op == INSERT {
                        conn.run(stmt, &[Value::Int(*id), Value::Text(v)])?
                    } else {
                        conn.run(stmt, &[Value::Text(v), Value::Int(*id)])?
                    }
                };
                rec.lap(op);
                if changed != 1 {
                    return Err(WorkloadError::Verification {
                        workload: "crud".into(),
                        detail: format!("{} of id {id} changed {changed} rows, expected 1", OPS[op]),
                    });
                }
            }
        }
        // The delete phase ends here, not when the next round's data is ready.
        rec.pause();
        if duration.is_zero() || rec.elapsed() >= duration {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::model::params::resolve;
    use crate::workload::Connector;
    use std::sync::atomic::AtomicBool;

    fn params(args: &[&str]) -> Params {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        resolve("crud", PARAMS, &args).expect("valid parameters")
    }

    struct OneConnection;

    impl Connector for OneConnection {
        fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
            panic!("crud uses one connection")
        }
    }

    /// What the instrumented generator saw.
    #[derive(Default)]
    struct Seen {
        rounds: u64,
        bytes: u64,
        /// Rounds generated while a phase was open.
        while_timing: u64,
        /// Rounds during whose generation the measured time grew.
        measured_grew: u64,
    }

    /// Runs one trial of crud on an in-memory database of the bundled SQLite, with the real
    /// generator wrapped in a probe that reads the recorder before and after each round is made.
    fn trial_with_probe(p: &Params) -> (Seen, Vec<crate::model::op::OpResult>) {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").expect("in-memory SQLite");
        Crud.populate(&mut conn, &Population::plain(p, 7)).expect("populate");
        let stop = AtomicBool::new(false);
        let trial = Trial::plain(p, 7, &stop, &OneConnection);
        let mut rec = Recorder::new(OPS, None);
        let mut seen = Seen::default();
        run_rounds(&mut conn, &trial, &mut rec, |rec, live, rng, p| {
            let (timing, measured) = (rec.timing(), rec.elapsed());
            let round = live.round(rng, p)?;
            seen.rounds += 1;
            seen.bytes += round.values.len() as u64;
            seen.while_timing += u64::from(timing || rec.timing());
            seen.measured_grew += u64::from(rec.elapsed() != measured);
            Some(round)
        })
        .expect("trial");
        Crud.verify(&mut conn, p).expect("verify");
        (seen, rec.finish().0)
    }

    #[test]
    fn every_round_is_generated_outside_the_timed_phases() {
        let p = params(&[
            "rows=50",
            "inserts=10",
            "updates=10",
            "deletes=10",
            "value_size=64",
            "duration=30ms",
        ]);
        let (seen, ops) = trial_with_probe(&p);
        assert!(seen.rounds >= 2, "duration mode ran {} round(s)", seen.rounds);
        assert_eq!(seen.bytes, seen.rounds * 20 * 64, "every round generated its values");
        assert_eq!(seen.while_timing, 0, "rounds generated inside a timed phase");
        assert_eq!(seen.measured_grew, 0, "generation charged to the measured time");
        let counts: Vec<u64> = ops.iter().map(|o| o.ops).collect();
        assert_eq!(counts, vec![seen.rounds * 10; 3]);

        // Count mode: one round, also generated untimed.
        let (seen, ops) = trial_with_probe(&params(&["rows=50", "inserts=10", "updates=10", "deletes=10"]));
        assert_eq!((seen.rounds, seen.while_timing, seen.measured_grew), (1, 0, 0));
        assert_eq!(ops.iter().map(|o| o.ops).collect::<Vec<_>>(), vec![10; 3]);
    }

    /// Plays `rounds` rounds of the real generator: false if one runs out of live rows.
    fn rounds_last(p: &Params, rounds: usize) -> bool {
        let rows = p.count("rows") as i64;
        let mut live = Live {
            ids: (1..=rows).collect(),
            next_id: rows + 1,
            step: 1,
            serial: 0,
        };
        let mut rng = rng_for(1, 1);
        (0..rounds).all(|_| live.round(&mut rng, p).is_some())
    }

    #[test]
    fn the_check_refuses_exactly_the_rounds_that_run_out_of_rows() {
        let mut refused_run_out = 0;
        for duration in ["0", "1s"] {
            // A table of at most 3 + 2 rows that shrinks runs dry within 6 rounds.
            let rounds = if duration == "0" { 1 } else { 8 };
            for (rows, inserts, updates, deletes) in grid(&[0, 1, 3], &[0, 1, 2], &[0, 1, 2], &[0, 1, 2, 3, 6]) {
                if inserts + updates + deletes == 0 {
                    continue;
                }
                let args: Vec<String> = [
                    format!("rows={rows}"),
                    format!("inserts={inserts}"),
                    format!("updates={updates}"),
                    format!("deletes={deletes}"),
                    "value_size=16".into(),
                    format!("duration={duration}"),
                ]
                .into();
                let p = resolve("crud", PARAMS, &args).unwrap();
                let accepted = Crud.check(&p);
                let lasts = rounds_last(&p, rounds);
                assert_eq!(accepted.is_ok(), lasts, "{args:?}: check says {accepted:?}");
                refused_run_out += u32::from(!lasts);
            }
        }
        assert!(refused_run_out > 10, "the grid exercises refusals");
    }

    fn grid(a: &[u64], b: &[u64], c: &[u64], d: &[u64]) -> Vec<(u64, u64, u64, u64)> {
        let mut v = Vec::new();
        for &w in a {
            for &x in b {
                for &y in c {
                    for &z in d {
                        v.push((w, x, y, z));
                    }
                }
            }
        }
        v
    }

    #[test]
    fn refusals_name_the_parameter() {
        let e = Crud
            .check(&params(&[
                "rows=2",
                "inserts=0",
                "updates=1",
                "deletes=1",
                "duration=1s",
            ]))
            .unwrap_err();
        assert!(e.starts_with("--param deletes=1: with duration=1000ms"), "{e}");
        assert!(e.contains("keep deletes <= inserts"), "{e}");
        let e = Crud
            .check(&params(&["inserts=0", "updates=0", "deletes=0"]))
            .unwrap_err();
        assert!(e.contains("a trial would measure nothing"), "{e}");
        let e = Crud
            .check(&params(&["inserts=5000", "updates=0", "value_size=1000000"]))
            .unwrap_err();
        assert!(e.starts_with("--param value_size=1000000: a round's values"), "{e}");
        // The defaults, the paper's configuration, and duration mode with them are fine.
        assert!(Crud.check(&params(&[])).is_ok());
        assert!(Crud.check(&params(&["duration=30s"])).is_ok());
        assert!(Crud.check(&params(&["value_size=1000000"])).is_ok());
    }
}
