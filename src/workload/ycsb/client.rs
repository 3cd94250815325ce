//! One client: its stream of operations ([`Generator`], drawn before timing from the client's
//! seed) and how each runs on a connection ([`Statements`]).
//!
//! | operation | statements | successful when |
//! | --- | --- | --- |
//! | read | select every column by key | the record is found |
//! | update | set one field (uniform of ten) to a new value, by key | one row changes |
//! | insert | insert a new key with ten new values | one row is inserted |
//! | scan | `YCSB_KEY >= ?` in key order, `LIMIT` a uniform length | a row is returned |
//! | read-modify-write | the read, then the update of one field, in one transaction | both succeed |
//!
//! Read, update, insert and scan run alone in autocommit mode (the statement is the
//! transaction); read-modify-write between the connection's write `BEGIN` (SQLite: the `begin`
//! knob, `BEGIN IMMEDIATE` by default) and `COMMIT`, rolled back on an error so the load driver
//! can run it again.

use super::generators::{Latest, ScrambledZipfian};
use super::keys::{fill_value, key_name, KeySpace, FIELDS, FIELD_LENGTH};
use super::mix::{Core, Distribution, Op};
use super::schema;
use crate::engines::control::Control;
use crate::engines::values::Values;
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::workload::load::Client;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which keys a client's reads, updates and scans choose, as local indexes of its
/// [`KeySpace`].
#[derive(Debug, Clone)]
enum Chooser {
    /// Over `records` plus the inserts this client is expected to make, twice over (YCSB's
    /// "fudge factor"); a draw of a key not inserted yet is drawn again.
    Zipfian(ScrambledZipfian),
    Latest(Latest),
}

/// What the next operation does.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub op: Op,
    pub key: String,
    /// Update, read-modify-write: the field written.
    pub field: usize,
    /// Scan: records to return.
    pub scan_length: u64,
    /// Insert: the ten fields; update, read-modify-write: the new value in the first.
    pub values: [String; FIELDS],
}

/// One client's stream of operations.
#[derive(Debug, Clone)]
pub struct Generator {
    rng: ChaCha8Rng,
    core: &'static Core,
    keys: KeySpace,
    chooser: Chooser,
    drawn: Drawn,
    /// Every operation this type (see [`Generator::force`]).
    forced: Option<Op>,
}

impl Generator {
    /// Client `client` of `clients` of workload `core` on `records` populated records, its share
    /// of `operations`, drawing from `seed`.
    pub fn new(core: &'static Core, records: u64, operations: u64, client: u32, clients: u32, seed: u64) -> Generator {
        let records = records.max(1);
        let clients_n = u64::from(clients.max(1));
        let share = operations / clients_n + u64::from(u64::from(client) < operations % clients_n);
        let chooser = match core.distribution {
            Distribution::Zipfian => {
                let expected_inserts = (share as f64 * core.insert_proportion() * 2.0) as u64;
                Chooser::Zipfian(ScrambledZipfian::new(records + expected_inserts))
            }
            Distribution::Latest => Chooser::Latest(Latest::new(records - 1)),
        };
        Generator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            forced: None,
            core,
            keys: KeySpace::new(records, client, clients),
            chooser,
            drawn: Drawn {
                op: Op::Read,
                key: String::with_capacity(24),
                field: 0,
                scan_length: 0,
                values: std::array::from_fn(|_| String::with_capacity(FIELD_LENGTH)),
            },
        }
    }

    /// The operation drawn last.
    pub fn drawn(&self) -> &Drawn {
        &self.drawn
    }

    /// Inserts drawn so far.
    pub fn inserts(&self) -> u64 {
        self.keys.inserted()
    }

    /// Makes every operation `op` (the `writer` parameter: one writer, the other clients
    /// readers), keys still drawn by the workload's distribution.
    pub fn force(&mut self, op: Op) {
        self.forced = Some(op);
    }

    /// Draws the next operation: its type, then its key, then its field and value or scan
    /// length.
    pub fn draw(&mut self) -> Op {
        let op = self.forced.unwrap_or_else(|| self.core.pick(&mut self.rng));
        self.drawn.op = op;
        if op == Op::Insert {
            let n = self.keys.next_insert();
            key_name(n, &mut self.drawn.key);
            for v in self.drawn.values.iter_mut() {
                fill_value(&mut self.rng, FIELD_LENGTH, v);
            }
            if let Chooser::Latest(l) = &mut self.chooser {
                l.set_newest(self.keys.known() - 1);
            }
            return op;
        }
        let local = self.choose();
        key_name(self.keys.record(local), &mut self.drawn.key);
        match op {
            Op::Update | Op::ReadModifyWrite => {
                self.drawn.field = self.rng.random_range(0..FIELDS);
                fill_value(&mut self.rng, FIELD_LENGTH, &mut self.drawn.values[0]);
            }
            Op::Scan => self.drawn.scan_length = self.rng.random_range(1..=self.core.max_scan_length),
            Op::Read | Op::Insert => {}
        }
        op
    }

    /// A local index of a key this client knows to exist.
    fn choose(&mut self) -> u64 {
        let known = self.keys.known();
        match &self.chooser {
            Chooser::Zipfian(z) => loop {
                let i = z.next(&mut self.rng);
                if i < known {
                    return i;
                }
            },
            Chooser::Latest(l) => l.next(&mut self.rng),
        }
    }
}

/// The statements, prepared on one connection.
#[derive(Debug, Clone)]
pub struct Statements {
    read: StmtId,
    update: [StmtId; FIELDS],
    insert: StmtId,
    scan: StmtId,
    begin_write: Control,
    commit: Control,
    rollback: Control,
}

impl Statements {
    pub fn prepare(conn: &mut dyn Connection) -> Result<Statements, EngineError> {
        let mut update = [StmtId(0); FIELDS];
        for (i, stmt) in update.iter_mut().enumerate() {
            *stmt = conn.prepare(&schema::update(i))?;
        }
        let begin = conn.begin_write();
        Ok(Statements {
            read: conn.prepare(&schema::read())?,
            update,
            insert: conn.prepare(&schema::insert())?,
            scan: conn.prepare(&schema::scan())?,
            begin_write: Control::prepare(conn, begin),
            commit: Control::prepare(conn, "COMMIT"),
            rollback: Control::prepare(conn, "ROLLBACK"),
        })
    }

    /// Runs operation `d`; true when it succeeded. `out` receives the values read.
    pub fn execute(&self, conn: &mut dyn Connection, d: &Drawn, out: &mut Values) -> Result<bool, EngineError> {
        let key = Value::Text(&d.key);
        match d.op {
            Op::Read => self.read(conn, key, out),
            Op::Update => self.update(conn, d),
            Op::Insert => {
                let mut row = [Value::Null; FIELDS + 1];
                row[0] = key;
                for (slot, v) in row[1..].iter_mut().zip(&d.values) {
                    *slot = Value::Text(v);
                }
                Ok(conn.run(self.insert, &row)? == 1)
            }
            Op::Scan => {
                out.clear();
                let rows = conn.run_values(self.scan, &[key, Value::Int(d.scan_length as i64)], out)?;
                Ok(rows >= 1)
            }
            Op::ReadModifyWrite => {
                self.begin_write.run(conn)?;
                let result = self
                    .read(conn, key, out)
                    .and_then(|found| Ok(self.update(conn, d)? && found))
                    .and_then(|ok| self.commit.run(conn).map(|()| ok));
                if result.is_err() {
                    // The transaction may or may not still be open (SQLite rolls back by itself
                    // on some errors); a failing ROLLBACK means nothing was left to roll back.
                    let _ = self.rollback.run(conn);
                }
                result
            }
        }
    }

    /// Every column of the record `key`: true when it is found.
    fn read(&self, conn: &mut dyn Connection, key: Value<'_>, out: &mut Values) -> Result<bool, EngineError> {
        out.clear();
        let rows = conn.run_values(self.read, &[key], out)?;
        Ok(rows == 1 && out.len() == FIELDS + 1)
    }

    /// The drawn field of the drawn key to the drawn value: true when one row changed.
    fn update(&self, conn: &mut dyn Connection, d: &Drawn) -> Result<bool, EngineError> {
        let changed = conn.run(self.update[d.field], &[Value::Text(&d.values[0]), Value::Text(&d.key)])?;
        Ok(changed == 1)
    }
}

/// A client for the load driver.
pub struct YcsbClient<'c> {
    conn: &'c mut dyn Connection,
    generator: Generator,
    statements: Statements,
    out: Values,
}

impl<'c> YcsbClient<'c> {
    pub fn new(conn: &'c mut dyn Connection, generator: Generator, statements: Statements) -> YcsbClient<'c> {
        YcsbClient {
            conn,
            generator,
            statements,
            // A scan of up to 1,000 records of 11 values and ~1 KB.
            out: Values::with_capacity(11 * 1000, 1024 * 1000),
        }
    }
}

impl Client for YcsbClient<'_> {
    fn draw(&mut self) -> usize {
        self.generator.draw().index()
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        self.statements
            .execute(&mut *self.conn, self.generator.drawn(), &mut self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::ycsb::mix::{core, CORE};
    use std::collections::HashSet;

    fn sequence(g: &mut Generator, n: usize) -> Vec<Drawn> {
        (0..n)
            .map(|_| {
                g.draw();
                g.drawn().clone()
            })
            .collect()
    }

    #[test]
    fn a_forced_writer_only_updates_and_forced_readers_only_read() {
        let core = crate::workload::ycsb::mix::core("c").unwrap();
        let mut writer = Generator::new(core, 100, 1000, 0, 4, 1);
        writer.force(Op::Update);
        let mut reader = Generator::new(core, 100, 1000, 1, 4, 2);
        reader.force(Op::Read);
        for _ in 0..500 {
            assert_eq!(writer.draw(), Op::Update);
            assert_eq!(reader.draw(), Op::Read);
        }
    }

    #[test]
    fn same_seed_same_operations_other_seed_other_operations() {
        for c in &CORE {
            let a = sequence(&mut Generator::new(c, 1000, 2000, 0, 1, 7), 2000);
            let b = sequence(&mut Generator::new(c, 1000, 2000, 0, 1, 7), 2000);
            let other = sequence(&mut Generator::new(c, 1000, 2000, 0, 1, 8), 2000);
            assert_eq!(a, b, "workload {}", c.name);
            assert_ne!(a, other, "workload {}", c.name);
        }
    }

    #[test]
    fn draws_stay_within_the_known_keys() {
        let records = 500;
        let populated: HashSet<String> = (0..records).map(super::super::keys::key).collect();
        for c in &CORE {
            let mut inserted = HashSet::new();
            let mut g = Generator::new(c, records, 5000, 1, 2, 3);
            for _ in 0..5000 {
                let op = g.draw();
                let d = g.drawn();
                if op == Op::Insert {
                    assert!(!populated.contains(&d.key), "insert of a populated key");
                    assert!(inserted.insert(d.key.clone()), "key inserted twice");
                    assert!(d.values.iter().all(|v| v.len() == FIELD_LENGTH));
                } else {
                    assert!(
                        populated.contains(&d.key) || inserted.contains(&d.key),
                        "workload {}: {op:?} of unknown key {}",
                        c.name,
                        d.key
                    );
                }
                if op == Op::Scan {
                    assert!((1..=100).contains(&d.scan_length));
                }
                if matches!(op, Op::Update | Op::ReadModifyWrite) {
                    assert!(d.field < FIELDS && d.values[0].len() == FIELD_LENGTH);
                }
            }
            assert_eq!(inserted.len() as u64, g.inserts());
        }
    }

    #[test]
    fn workload_d_reads_its_newest_inserts_most() {
        let mut g = Generator::new(core("d").unwrap(), 1000, 20_000, 0, 1, 11);
        let mut newest = String::new();
        let (mut reads, mut of_newest) = (0u64, 0u64);
        for _ in 0..20_000 {
            match g.draw() {
                Op::Insert => newest = g.drawn().key.clone(),
                Op::Read if !newest.is_empty() => {
                    reads += 1;
                    of_newest += u64::from(g.drawn().key == newest);
                }
                _ => {}
            }
        }
        // The newest key takes 1/zeta(n, 0.99) of the reads: 1/7.5 at n = 1000, 1/8.5 at
        // n = 2000.
        let share = of_newest as f64 / reads as f64;
        assert!(share > 0.10 && share < 0.16, "reads of the newest insert: {share}");
    }
}
