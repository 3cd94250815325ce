//! One client: its stream of operations, drawn from its seed before each runs, and how each
//! runs on a connection.
//!
//! | operation | statement | successful when |
//! | --- | --- | --- |
//! | and, or, phrase, prefix | the query ranked (`bm25()`, `ts_rank`), `LIMIT k` | it runs (no match is an answer) |
//! | insert | a new document, a lognormal number of Zipf words, under the client's next id | one row is inserted |
//! | update | a populated document's text replaced by new words | one row changes |
//! | delete | the oldest document this client inserted | one row is deleted |
//!
//! Every statement runs alone in autocommit mode (the statement is the transaction), the index
//! kept up to date inside it. A client inserts under ids no other client uses (`documents + 1 +
//! index + clients * n`) and deletes only its own, so the populated documents stay for the
//! updates and the phrases; a delete drawn before the client inserted anything is an insert.

use super::corpus::Corpus;
use super::query::{Kind, Query};
use super::schema;
use crate::engines::values::Values;
use crate::engines::{Connection, Dialect, EngineError, StmtId, Value};
use crate::workload::load::Client;
use rand::distr::weighted::WeightedIndex;
use rand::distr::Distribution;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The operation types, in report order.
pub const OPS: [&str; 7] = ["and", "or", "phrase", "prefix", "insert", "update", "delete"];

/// One operation type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Query(Kind),
    Insert,
    Update,
    Delete,
}

impl Op {
    pub const ALL: [Op; 7] = [
        Op::Query(Kind::And),
        Op::Query(Kind::Or),
        Op::Query(Kind::Phrase),
        Op::Query(Kind::Prefix),
        Op::Insert,
        Op::Update,
        Op::Delete,
    ];

    /// Its place in [`OPS`].
    pub fn index(self) -> usize {
        Op::ALL.iter().position(|o| *o == self).unwrap_or(0)
    }
}

/// What a client's stream is drawn with.
#[derive(Debug, Clone)]
pub struct Mix {
    /// Each operation's weight, in [`OPS`] order.
    pub weights: [f64; 7],
    /// Populated documents (ids 1 to `documents`).
    pub documents: u64,
    /// The ranked queries' `LIMIT`.
    pub k: u64,
}

/// The statements, prepared on one connection.
#[derive(Debug, Clone, Copy)]
pub struct Statements {
    ranked: StmtId,
    insert: StmtId,
    update: StmtId,
    delete: StmtId,
}

impl Statements {
    pub fn prepare(conn: &mut dyn Connection) -> Result<Statements, EngineError> {
        let d = conn.dialect();
        Ok(Statements {
            ranked: conn.prepare(&schema::ranked(d))?,
            insert: conn.prepare(&schema::insert(d))?,
            update: conn.prepare(&schema::update(d))?,
            delete: conn.prepare(&schema::delete(d))?,
        })
    }
}

/// A client for the load driver.
pub struct FtsClient<'c> {
    conn: &'c mut dyn Connection,
    dialect: Dialect,
    statements: Statements,
    corpus: Corpus,
    mix: Mix,
    pick: WeightedIndex<f64>,
    rng: ChaCha8Rng,
    index: u64,
    clients: u64,
    inserts: u64,
    mine: VecDeque<u64>,
    /// The operation drawn last, its id, and its query or its new text.
    op: Op,
    id: u64,
    text: String,
    scratch: String,
    out: Values,
}

impl<'c> FtsClient<'c> {
    /// Client `index` of `clients`, drawing from `seed`, its statements prepared.
    pub fn new(
        conn: &'c mut dyn Connection,
        corpus: Corpus,
        mix: Mix,
        index: u32,
        clients: u32,
        seed: u64,
    ) -> Result<FtsClient<'c>, EngineError> {
        let statements = Statements::prepare(conn)?;
        let pick = WeightedIndex::new(mix.weights).map_err(|e| {
            crate::engines::bulk::input_error(
                "fts",
                format!("the operations' weights: {e}; give one a weight above 0"),
            )
        })?;
        let k = mix.k as usize;
        Ok(FtsClient {
            dialect: conn.dialect(),
            conn,
            statements,
            corpus,
            mix,
            pick,
            rng: ChaCha8Rng::seed_from_u64(seed),
            index: u64::from(index),
            clients: u64::from(clients.max(1)),
            inserts: 0,
            mine: VecDeque::new(),
            op: Op::Insert,
            id: 0,
            text: String::with_capacity(1024),
            scratch: String::with_capacity(1024),
            out: Values::with_capacity(k, 0),
        })
    }

    /// Draws the next operation; its type's index in [`OPS`].
    pub fn draw_op(&mut self) -> Op {
        let mut op = Op::ALL[self.pick.sample(&mut self.rng)];
        if op == Op::Delete && self.mine.is_empty() {
            op = Op::Insert;
        }
        self.op = op;
        match op {
            Op::Query(kind) => {
                let q = Query::draw(kind, &self.corpus, self.mix.documents, &mut self.rng, &mut self.scratch);
                self.text = match self.dialect {
                    Dialect::Postgres => q.tsquery(),
                    _ => q.fts5(),
                };
            }
            Op::Insert => {
                self.id = self.mix.documents + 1 + self.index + self.clients * self.inserts;
                self.inserts += 1;
                self.mine.push_back(self.id);
                self.corpus.text(&mut self.rng, &mut self.text);
            }
            Op::Update => {
                self.id = rand::Rng::random_range(&mut self.rng, 1..=self.mix.documents.max(1));
                self.corpus.text(&mut self.rng, &mut self.text);
            }
            Op::Delete => self.id = self.mine.pop_front().unwrap_or(0),
        }
        op
    }

    /// The text drawn last: the query in the engine's language, or a document's new text.
    pub fn drawn_text(&self) -> &str {
        &self.text
    }
}

impl Client for FtsClient<'_> {
    fn draw(&mut self) -> usize {
        self.draw_op().index()
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let s = self.statements;
        let id = Value::Int(self.id as i64);
        match self.op {
            Op::Query(_) => {
                self.out.clear();
                let params = [Value::Text(&self.text), Value::Int(self.mix.k as i64)];
                self.conn.run_values(s.ranked, &params, &mut self.out)?;
                Ok(true)
            }
            Op::Insert => Ok(self.conn.run(s.insert, &[id, Value::Text(&self.text)])? == 1),
            Op::Update => Ok(self.conn.run(s.update, &[Value::Text(&self.text), id])? == 1),
            Op::Delete => Ok(self.conn.run(s.delete, &[id])? == 1),
        }
    }
}
