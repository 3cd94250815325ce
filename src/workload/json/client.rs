//! One client: its stream of operations, drawn from its seed before each is timed, and how each
//! runs on its connection.
//!
//! | operation | what it draws | what it runs |
//! | --- | --- | --- |
//! | read | an id | three fields of one document (`->>`) |
//! | filter | a country, a least score | the first 20 documents of that country with at least that score, in id order |
//! | expand | ten consecutive ids | each document's `items` array, one row per item (`json_each`) |
//! | update | an id, a score, a status | the two fields set in place (`json_set`) |
//!
//! Each runs alone in autocommit mode (the statement is the transaction).

use super::docs::{COUNTRIES, MAX_SCORE, STATUSES};
use super::storage::Statements;
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::workload::load::Client;
use crate::workload::op_answers::OpAnswers;
use crate::workload::result_hash::has_order_by;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The operation types, in report order.
pub const OPS: [&str; 4] = ["read", "filter", "expand", "update"];
const READ: usize = 0;
const FILTER: usize = 1;
const EXPAND: usize = 2;
const UPDATE: usize = 3;

/// Documents an expansion reads.
pub const EXPAND_SPAN: u64 = 10;

/// The operation mix, as weights in [`OPS`]' order.
pub type Mix = [u64; 4];

/// One client's stream.
#[derive(Debug, Clone)]
pub struct Generator {
    rng: ChaCha8Rng,
    documents: u64,
    /// Cumulative weights.
    cumulative: [u64; 4],
    /// The last draw: its operation and up to three values (ids, a score, an index into the
    /// countries or statuses).
    pub op: usize,
    pub a: i64,
    pub b: i64,
    pub c: i64,
}

impl Generator {
    /// A stream over `documents` documents with `mix`, drawing from `seed`.
    pub fn new(documents: u64, mix: Mix, seed: u64) -> Generator {
        let mut cumulative = [0; 4];
        let mut sum = 0;
        for (c, w) in cumulative.iter_mut().zip(mix) {
            sum += w;
            *c = sum;
        }
        Generator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            documents: documents.max(1),
            cumulative,
            op: READ,
            a: 0,
            b: 0,
            c: 0,
        }
    }

    /// Draws the next operation and its values; returns its type.
    pub fn draw(&mut self) -> usize {
        let total = self.cumulative[3].max(1);
        let x = self.rng.random_range(0..total);
        self.op = self.cumulative.iter().position(|&c| x < c).unwrap_or(READ);
        let n = self.documents as i64;
        match self.op {
            FILTER => {
                self.a = self.rng.random_range(0..COUNTRIES.len()) as i64;
                self.b = self.rng.random_range(0..MAX_SCORE);
            }
            EXPAND => {
                self.a = self.rng.random_range(1..=(n - EXPAND_SPAN as i64 + 1).max(1));
                self.b = self.a + EXPAND_SPAN as i64 - 1;
            }
            UPDATE => {
                self.a = self.rng.random_range(1..=n);
                self.b = self.rng.random_range(0..MAX_SCORE);
                self.c = self.rng.random_range(0..STATUSES.len()) as i64;
            }
            _ => self.a = self.rng.random_range(1..=n),
        }
        self.op
    }
}

/// The statements, prepared on one connection.
#[derive(Debug, Clone, Copy)]
pub struct Prepared {
    read: StmtId,
    filter: StmtId,
    expand: StmtId,
    update: Option<StmtId>,
    filter_ordered: bool,
}

impl Prepared {
    pub fn prepare(conn: &mut dyn Connection, st: &Statements) -> Result<Prepared, EngineError> {
        Ok(Prepared {
            read: conn.prepare(&st.read)?,
            filter: conn.prepare(&st.filter)?,
            expand: conn.prepare(&st.expand)?,
            update: st.update.as_deref().map(|u| conn.prepare(u)).transpose()?,
            filter_ordered: has_order_by(&st.filter),
        })
    }
}

/// A client for the load driver.
pub struct JsonClient<'c> {
    conn: &'c mut dyn Connection,
    generator: Generator,
    stmts: Prepared,
    answers: OpAnswers,
}

impl<'c> JsonClient<'c> {
    pub fn new(conn: &'c mut dyn Connection, generator: Generator, stmts: Prepared, seed: u64) -> JsonClient<'c> {
        JsonClient {
            conn,
            generator,
            stmts,
            answers: OpAnswers::new(&OPS[..UPDATE], seed),
        }
    }
}

impl Client for JsonClient<'_> {
    fn draw(&mut self) -> usize {
        self.generator.draw()
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let g = &self.generator;
        let conn = &mut *self.conn;
        match g.op {
            READ => Ok(self
                .answers
                .run(conn, READ, self.stmts.read, &[Value::Int(g.a)], false)?
                == 1),
            FILTER => {
                let params = [Value::Text(COUNTRIES[g.a as usize]), Value::Int(g.b)];
                self.answers
                    .run(conn, FILTER, self.stmts.filter, &params, self.stmts.filter_ordered)?;
                Ok(true)
            }
            EXPAND => {
                let params = [Value::Int(g.a), Value::Int(g.b)];
                self.answers.run(conn, EXPAND, self.stmts.expand, &params, false)?;
                Ok(true)
            }
            _ => {
                let Some(update) = self.stmts.update else {
                    return Ok(false);
                };
                let params = [Value::Int(g.b), Value::Text(STATUSES[g.c as usize]), Value::Int(g.a)];
                Ok(conn.run(update, &params)? == 1)
            }
        }
    }

    fn answers(&mut self) -> Vec<crate::model::record::QueryRecord> {
        self.answers.records()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(g: &mut Generator, n: usize) -> Vec<(usize, i64, i64, i64)> {
        (0..n)
            .map(|_| {
                g.draw();
                (g.op, g.a, g.b, g.c)
            })
            .collect()
    }

    #[test]
    fn same_seed_same_stream_and_the_mix_is_kept() {
        let mix = [40, 20, 20, 20];
        let a = draws(&mut Generator::new(1000, mix, 5), 4000);
        assert_eq!(a, draws(&mut Generator::new(1000, mix, 5), 4000));
        assert_ne!(a, draws(&mut Generator::new(1000, mix, 6), 4000));
        let reads = a.iter().filter(|d| d.0 == READ).count();
        assert!((1400..1800).contains(&reads), "{reads} reads of 4000 at 40%");
        for (op, x, y, _) in a {
            match op {
                EXPAND => assert!(x >= 1 && y == x + 9 && y <= 1000),
                FILTER => assert!((x as usize) < COUNTRIES.len() && y < MAX_SCORE),
                _ => assert!((1..=1000).contains(&x)),
            }
        }
        let only_updates = draws(&mut Generator::new(10, [0, 0, 0, 1], 1), 100);
        assert!(only_updates.iter().all(|d| d.0 == UPDATE));
    }
}
