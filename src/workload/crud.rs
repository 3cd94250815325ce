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
//!   has passed (duration-based measurement) instead of running once.

use super::params::{ParamKind, ParamSpec, Params};
use super::{Trial, Workload, WorkloadError};
use crate::engines::{Connection, EngineError, Value};
use crate::recorder::Recorder;
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
    fn round(&mut self, rng: &mut ChaCha8Rng, p: &Params) -> Round {
        let size = p.count("value_size") as usize;
        let (ni, nu, nd) = (p.count("inserts"), p.count("updates"), p.count("deletes"));
        let mut values = String::with_capacity((ni + nu) as usize * size);
        let mut insert_ids = Vec::with_capacity(ni as usize);
        for _ in 0..ni {
            insert_ids.push(self.next_id);
            self.ids.push(self.next_id);
            self.next_id += 1;
            self.serial += 1;
            fill_value(rng, &mut values, size, b'i', self.serial);
        }
        let mut update_ids = Vec::with_capacity(nu as usize);
        for _ in 0..nu {
            update_ids.push(self.ids[rng.random_range(0..self.ids.len())]);
            self.serial += 1;
            fill_value(rng, &mut values, size, b'u', self.serial);
        }
        let mut delete_ids = Vec::with_capacity(nd as usize);
        for _ in 0..nd {
            delete_ids.push(self.ids.swap_remove(rng.random_range(0..self.ids.len())));
        }
        Round {
            insert_ids,
            update_ids,
            delete_ids,
            values,
        }
    }
}

fn rng_for(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

impl Workload for Crud {
    fn name(&self) -> &'static str {
        "crud"
    }

    fn about(&self) -> &'static str {
        "APSys'17: 1,000 inserts, 1,000 updates, 1,000 deletes, each its own transaction, on 100,000 pre-populated rows"
    }

    fn source(&self) -> &'static str {
        "Purohith et al., The Dangers and Complexities of SQLite Benchmarking, APSys'17, section 3"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        let live = p.count("rows") + p.count("inserts");
        if p.count("deletes") > live {
            return Err(format!(
                "--param deletes={}: more deletes than rows + inserts ({live}); lower deletes or raise rows",
                p.count("deletes")
            ));
        }
        if p.count("updates") > 0 && live == 0 {
            return Err(
                "--param updates: there are no rows to update (rows=0 and inserts=0); set rows or inserts above 0"
                    .into(),
            );
        }
        if !p.duration("duration").is_zero() && p.count("deletes") > p.count("inserts") + p.count("rows") / 2 {
            return Err("--param duration: repeated rounds would run out of rows (deletes outgrow inserts); keep deletes <= inserts".into());
        }
        Ok(())
    }

    fn operations(&self) -> &'static [&'static str] {
        OPS
    }

    fn populate(&self, conn: &mut dyn Connection, p: &Params, seed: u64) -> Result<u64, EngineError> {
        conn.execute_batch("CREATE TABLE crud(id INTEGER PRIMARY KEY, value TEXT NOT NULL)")?;
        let rows = p.count("rows");
        if rows == 0 {
            return Ok(0);
        }
        let size = p.count("value_size") as usize;
        let mut rng = rng_for(seed, 0);
        let ins = conn.prepare("INSERT INTO crud(id, value) VALUES (?, ?)")?;
        conn.execute_batch("BEGIN")?;
        let mut value = String::with_capacity(size);
        for id in 1..=rows {
            value.clear();
            fill_value(&mut rng, &mut value, size, b'p', id);
            conn.run(ins, &[Value::Int(id as i64), Value::Text(&value)])?;
        }
        conn.execute_batch("COMMIT")?;
        Ok(rows)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        let (p, seed, stop) = (trial.params, trial.seed, trial.stop);
        let insert = conn.prepare("INSERT INTO crud(id, value) VALUES (?, ?)")?;
        let update = conn.prepare("UPDATE crud SET value = ? WHERE id = ?")?;
        let delete = conn.prepare("DELETE FROM crud WHERE id = ?")?;
        let rows = p.count("rows") as i64;
        let size = p.count("value_size") as usize;
        let mut live = Live {
            ids: (1..=rows).collect(),
            next_id: rows + 1,
            serial: 1 << 40,
        };
        let mut rng = rng_for(seed, 1);
        let duration = p.duration("duration");
        loop {
            let round = live.round(&mut rng, p);
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
            if duration.is_zero() || rec.elapsed() >= duration {
                return Ok(());
            }
        }
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
