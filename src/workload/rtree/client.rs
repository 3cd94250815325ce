//! One client: its operations, drawn from its seed before each is timed, and how each runs.
//!
//! | operation | share | what it runs |
//! | --- | --- | --- |
//! | window-small, -medium, -large | 20%, 20%, 10% | the ids and names of every box meeting a square window whose area is the parameter's fraction of the map |
//! | nearest | 20% | the box whose centre is nearest a point among those meeting a window around it, the window doubled until one does |
//! | insert | 15% | a new box (a new tile or segment) |
//! | move | 15% | a box shifted by up to 1,000 units each way |
//!
//! Each runs alone in autocommit mode; with the R*Tree, the triggers keep it in step with
//! the features table within the same statement, as GeoPackage's do.

use super::boxes::{Bbox, MAP};
use super::schema::Statements;
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::workload::load::Client;
use crate::workload::op_answers::OpAnswers;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The operation types, in report order.
pub const OPS: [&str; 6] = [
    "window-small",
    "window-medium",
    "window-large",
    "nearest",
    "insert",
    "move",
];
const NEAREST: usize = 3;
const INSERT: usize = 4;
const MOVE: usize = 5;

/// The mix, as cumulative percentages in [`OPS`]' order.
const CUMULATIVE: [u32; 6] = [20, 40, 50, 70, 85, 100];

/// Most doublings of a nearest lookup's window (from a side of about four boxes' worth to more
/// than the map).
const MAX_DOUBLINGS: u32 = 24;

/// The sides of the three windows, from their fractions of the map's area.
pub fn window_sides(fractions: [f64; 3]) -> [i64; 3] {
    fractions.map(|f| ((f.sqrt() * MAP as f64) as i64).max(1))
}

/// One client's stream.
#[derive(Debug, Clone)]
pub struct Generator {
    rng: ChaCha8Rng,
    boxes: u64,
    sides: [i64; 3],
    /// The first side a nearest lookup tries.
    near_side: i64,
    next_id: i64,
    id_step: i64,
    pub op: usize,
    /// A window or point and size, a box to insert, or a move's deltas in `[0]`, `[2]`.
    pub bbox: Bbox,
    pub id: i64,
}

impl Generator {
    /// Client `index` of `clients` over `boxes` populated boxes, drawing from `seed`: its
    /// inserts take the ids after the population, every `clients`th from its own.
    pub fn new(boxes: u64, sides: [i64; 3], index: u32, clients: u32, seed: u64) -> Generator {
        let n = boxes.max(1);
        Generator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            boxes: n,
            sides,
            near_side: ((2.0 * MAP as f64 / (n as f64).sqrt()) as i64).max(1),
            next_id: n as i64 + 1 + i64::from(index),
            id_step: i64::from(clients.max(1)),
            op: 0,
            bbox: [0; 4],
            id: 0,
        }
    }

    /// Draws the next operation; returns its type.
    pub fn draw(&mut self) -> usize {
        let x = self.rng.random_range(0..100);
        self.op = CUMULATIVE.iter().position(|&c| x < c).unwrap_or(0);
        match self.op {
            0..=2 => {
                let side = self.sides[self.op];
                let x = self.rng.random_range(0..MAP);
                let y = self.rng.random_range(0..MAP);
                self.bbox = [x, x + side, y, y + side];
            }
            NEAREST => {
                let x = self.rng.random_range(0..MAP);
                let y = self.rng.random_range(0..MAP);
                self.bbox = [x, x, y, y];
            }
            INSERT => {
                let x = self.rng.random_range(0..MAP - 2000);
                let y = self.rng.random_range(0..MAP - 2000);
                let (w, h) = (self.rng.random_range(10..2000), self.rng.random_range(10..2000));
                self.bbox = [x, x + w, y, y + h];
                self.id = self.next_id;
                self.next_id += self.id_step;
            }
            _ => {
                self.id = self.rng.random_range(1..=self.boxes as i64);
                self.bbox = [
                    self.rng.random_range(-1000..=1000),
                    0,
                    self.rng.random_range(-1000..=1000),
                    0,
                ];
            }
        }
        self.op
    }
}

/// A client for the load driver.
pub struct RtreeClient<'c> {
    conn: &'c mut dyn Connection,
    generator: Generator,
    stmts: Prepared,
    answers: OpAnswers,
    name: String,
}

/// The statements, prepared on one connection.
#[derive(Debug, Clone, Copy)]
pub struct Prepared {
    window: StmtId,
    nearest: StmtId,
    insert: StmtId,
    shift: StmtId,
}

impl Prepared {
    pub fn prepare(conn: &mut dyn Connection, st: &Statements) -> Result<Prepared, EngineError> {
        Ok(Prepared {
            window: conn.prepare(&st.window)?,
            nearest: conn.prepare(&st.nearest)?,
            insert: conn.prepare(&st.insert)?,
            shift: conn.prepare(&st.shift)?,
        })
    }
}

impl<'c> RtreeClient<'c> {
    pub fn new(conn: &'c mut dyn Connection, generator: Generator, stmts: Prepared, seed: u64) -> RtreeClient<'c> {
        RtreeClient {
            conn,
            generator,
            stmts,
            answers: OpAnswers::new(&OPS[..INSERT], seed),
            name: String::with_capacity(16),
        }
    }

    /// The nearest lookup: windows around the point, doubled until one meets a box.
    fn nearest(&mut self) -> Result<bool, EngineError> {
        let [x, _, y, _] = self.generator.bbox;
        let mut half = self.generator.near_side / 2;
        for _ in 0..MAX_DOUBLINGS {
            let params = [
                Value::Int(x - half),
                Value::Int(y - half),
                Value::Int(x + half),
                Value::Int(y + half),
                Value::Int(2 * x),
                Value::Int(2 * x),
                Value::Int(2 * y),
                Value::Int(2 * y),
            ];
            if self
                .answers
                .run(&mut *self.conn, NEAREST, self.stmts.nearest, &params, true)?
                == 1
            {
                return Ok(true);
            }
            half *= 2;
        }
        Ok(false)
    }
}

impl Client for RtreeClient<'_> {
    fn draw(&mut self) -> usize {
        self.generator.draw()
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let g = &self.generator;
        let [a, b, c, d] = g.bbox;
        match g.op {
            op @ 0..=2 => {
                let params = [Value::Int(a), Value::Int(c), Value::Int(b), Value::Int(d)];
                self.answers
                    .run(&mut *self.conn, op, self.stmts.window, &params, false)?;
                Ok(true)
            }
            NEAREST => self.nearest(),
            INSERT => {
                self.name.clear();
                self.name.push_str("new-");
                self.name.push_str(&g.id.to_string());
                let params = [
                    Value::Int(g.id),
                    Value::Int(a),
                    Value::Int(b),
                    Value::Int(c),
                    Value::Int(d),
                    Value::Text(&self.name),
                ];
                Ok(self.conn.run(self.stmts.insert, &params)? == 1)
            }
            MOVE => {
                let params = [
                    Value::Int(a),
                    Value::Int(a),
                    Value::Int(c),
                    Value::Int(c),
                    Value::Int(g.id),
                ];
                Ok(self.conn.run(self.stmts.shift, &params)? == 1)
            }
            _ => Ok(false),
        }
    }

    fn answers(&mut self) -> Vec<crate::model::record::QueryRecord> {
        self.answers.records()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_inserts_take_ids_of_their_own() {
        let sides = window_sides([0.0001, 0.001, 0.01]);
        assert_eq!(sides, [10_000, 31_622, 100_000]);
        let draw = |index, seed| {
            let mut g = Generator::new(1000, sides, index, 2, seed);
            (0..2000).map(|_| (g.draw(), g.bbox, g.id)).collect::<Vec<_>>()
        };
        assert_eq!(draw(0, 5), draw(0, 5));
        assert_ne!(draw(0, 5), draw(0, 6));
        let ids = |index| -> Vec<i64> {
            draw(index, 5 + u64::from(index))
                .into_iter()
                .filter(|d| d.0 == INSERT)
                .map(|d| d.2)
                .collect()
        };
        let (a, b) = (ids(0), ids(1));
        assert!(a.len() > 200, "about 15% inserts: {}", a.len());
        assert!(a.iter().all(|i| i % 2 == 1 && *i > 1000) && b.iter().all(|i| i % 2 == 0 && *i > 1000));
        let moves = draw(0, 5).into_iter().filter(|d| d.0 == MOVE);
        assert!(moves
            .into_iter()
            .all(|d| (1..=1000).contains(&d.2) && d.1[0].abs() <= 1000));
    }
}
