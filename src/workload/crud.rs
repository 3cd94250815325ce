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

use super::load::{self, Budget, Client, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, Value};
use crate::engines::{EngineError, StmtId};
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
    /// A round of `ni` inserts, `nu` updates and `nd` deletes of values of `size` bytes, drawn
    /// from `rng` and the live rows; `None` if an update or a delete finds no live row, which
    /// [`check_rounds`] rules out for one client. Never inlined, so an instruction count of the
    /// trial can subtract it (`benches/overhead-instructions.sh`).
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
        // One client in a closed loop is timed per phase, the paper's phases (the numbers
        // every earlier run has): see `Streams::phase_timed`.
        load::drive(conn, self, trial, rec)
    }

    /// Its transactions never read what an earlier statement returned: they run as data.
    fn driver_refusal(&self, _p: &Params) -> Option<String> {
        None
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
impl Streams for Crud {
    type Client<'c> = CrudClient<'c>;

    fn budget(&self, p: &Params) -> Budget {
        Budget::timed_or(p.duration("duration"), Budget::Streams)
    }

    /// One client in a closed loop: each round's inserts, updates and deletes are three phases,
    /// and each round is generated between phases, untimed.
    fn phase_timed(&self, _p: &Params) -> bool {
        true
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let stmts = [
            conn.prepare("INSERT INTO crud(id, value) VALUES (?, ?)")?,
            conn.prepare("UPDATE crud SET value = ? WHERE id = ?")?,
            conn.prepare("DELETE FROM crud WHERE id = ?")?,
        ];
        let (n, i) = (i64::from(clients), i64::from(index));
        let rows = p.count("rows") as i64;
        Ok(CrudClient {
            conn,
            stmts,
            live: Live {
                ids: (0..(rows - i + n - 1).max(0) / n).map(|k| 1 + i + k * n).collect(),
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
        })
    }
}

/// One client's stream: its rounds, flattened into transactions.
pub struct CrudClient<'c> {
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

    /// The next round's data, once per round: out of the line of the per-transaction draw, which
    /// the driver's loop inlines.
    #[cold]
    #[inline(never)]
    fn next_round(&mut self) {
        self.round = self.live.round_of(&mut self.rng, self.size, self.counts);
        self.at = 0;
        self.rounds += 1;
    }
}

// `draw` and `execute` are inlined into the driver's loop (`load::run_phased`): as calls they
// cost crud's phase-timed path instructions per transaction that its old loop did not spend
// (see `benches/overhead-instructions.sh`).
impl Client for CrudClient<'_> {
    #[inline(always)]
    fn draw(&mut self) -> usize {
        if self.round.is_none() || self.at >= self.round_len() {
            self.next_round();
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

    #[inline(always)]
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

    #[inline]
    fn done(&self) -> bool {
        let len = self.round_len();
        len == 0 || (!self.repeat && self.rounds >= 1 && self.at >= len)
    }

    #[inline]
    fn round_ends(&self) -> bool {
        self.round.is_none() || self.at >= self.round_len()
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

    /// Crud's streams with a slow generator: every draw that starts a round sleeps the given
    /// time first, as a round of large values takes long to generate.
    struct SlowRounds(std::time::Duration);

    /// A round's generation time in duration mode, where a trial has many rounds.
    const SLOW: std::time::Duration = std::time::Duration::from_millis(5);
    /// A round's generation time in count mode (one round): far above what the round's 30
    /// statements take on a loaded machine (12 ms seen in CI with 5 ms here).
    const SLOWER: std::time::Duration = std::time::Duration::from_millis(250);

    struct SlowClient<'c>(CrudClient<'c>, std::time::Duration);

    impl Streams for SlowRounds {
        type Client<'c> = SlowClient<'c>;
        fn budget(&self, p: &Params) -> Budget {
            Streams::budget(&Crud, p)
        }
        fn phase_timed(&self, p: &Params) -> bool {
            Streams::phase_timed(&Crud, p)
        }
        fn client<'c>(
            &self,
            conn: &'c mut dyn Connection,
            index: u32,
            clients: u32,
            seed: u64,
            p: &Params,
        ) -> Result<SlowClient<'c>, WorkloadError> {
            Ok(SlowClient(Crud.client(conn, index, clients, seed, p)?, self.0))
        }
    }

    impl Client for SlowClient<'_> {
        fn draw(&mut self) -> usize {
            if self.0.round_ends() {
                std::thread::sleep(self.1);
            }
            self.0.draw()
        }
        fn execute(&mut self) -> Result<bool, EngineError> {
            self.0.execute()
        }
        fn done(&self) -> bool {
            self.0.done()
        }
        fn round_ends(&self) -> bool {
            self.0.round_ends()
        }
    }

    /// Runs one trial of crud, its rounds slow to generate, through the load driver as a run
    /// does (one client, closed loop) on an in-memory database of the bundled SQLite: the
    /// results and the measured time.
    fn slow_trial(p: &Params, slow: std::time::Duration) -> (Vec<crate::model::op::OpResult>, std::time::Duration) {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").expect("in-memory SQLite");
        Crud.populate(&mut conn, &Population::plain(p, 7)).expect("populate");
        let stop = AtomicBool::new(false);
        let trial = Trial::plain(p, 7, &stop, &OneConnection);
        let mut rec = Recorder::new(OPS, None);
        load::drive(&mut conn, &SlowRounds(slow), &trial, &mut rec).expect("trial");
        assert!(rec.take_series().is_none(), "a phase-timed trial keeps no series");
        Crud.verify(&mut conn, p).expect("verify");
        rec.finish()
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
        let (ops, measured) = slow_trial(&p, SLOW);
        let rounds = ops[0].ops / 10;
        assert!(rounds >= 2, "duration mode ran {rounds} round(s)");
        let counts: Vec<u64> = ops.iter().map(|o| o.ops).collect();
        assert_eq!(counts, vec![rounds * 10; 3], "whole rounds only");
        // The time budget is measured time: the rounds' generation is in none of it.
        assert!(measured >= std::time::Duration::from_millis(30), "{measured:?}");
        assert!(
            measured < SLOW * rounds as u32,
            "{rounds} rounds generated inside the timed phases: {measured:?}"
        );
        let phases: u64 = ops.iter().map(|o| o.elapsed_ns).sum();
        assert_eq!(
            phases,
            measured.as_nanos() as u64,
            "the measured time is the phases' time"
        );

        // Count mode: one round, also generated untimed.
        let (ops, measured) = slow_trial(&params(&["rows=50", "inserts=10", "updates=10", "deletes=10"]), SLOWER);
        assert_eq!(ops.iter().map(|o| o.ops).collect::<Vec<_>>(), vec![10; 3]);
        assert!(
            measured < SLOWER,
            "the round was generated inside a timed phase: {measured:?}"
        );
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
        let counts = (p.count("inserts"), p.count("updates"), p.count("deletes"));
        (0..rounds).all(|_| {
            live.round_of(&mut rng, p.count("value_size") as usize, counts)
                .is_some()
        })
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
