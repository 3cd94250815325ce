//! The five transactions of TPC-C 5.11 §2.4-§2.8: their inputs, drawn outside any timing, and
//! their statements, prepared once per connection.
//!
//! Each runs as one database transaction (`BEGIN` as the engine writes it, SQLite's `begin`
//! knob acting; Order-Status and Stock-Level as read-only ones), in the specification's order of
//! reads and writes, with one change that every engine can run the same way: a row the
//! specification reads and then updates (the district's next order id, a stock row) is
//! updated first and read back after, so the update takes the row's write lock on engines that
//! lock rows (PostgreSQL, MariaDB), where `SELECT ... FOR UPDATE` would be needed otherwise,
//! and SQLite has none. The values the transaction computes from what it read (the order's
//! total, a line's amount and brand, the stock's new quantity, a bad-credit customer's C_DATA)
//! are computed as §2.4.2.2 and §2.5.2.2 say.
//!
//! | transaction | successful when | unsuccessful (counted, not an error) |
//! | --- | --- | --- |
//! | New-Order | committed | the 1% with an unused item id, rolled back as §2.4.2.3 asks |
//! | Payment | committed | never |
//! | Order-Status | the customer has an order | never at load's state |
//! | Delivery | committed (districts without a new order are skipped, §2.7.4.2) | never |
//! | Stock-Level | the count was read | never |
//!
//! Lock contention rolls the transaction back and is reported as [`Outcome::Busy`] with its
//! cause, so the driver can try it again (`--max-tries`) and the report counts it by cause.

use super::deck::{self, Deck};
use super::populate::{CUSTOMERS, DISTRICTS, ITEMS};
use super::random::{self, Constants};
use crate::engines::control::Control;
use crate::engines::values::{CellRef, Values};
use crate::engines::{BusyCause, Connection, Dialect, EngineError, StmtId, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How a transaction names its customer (§2.5.1.2, §2.6.1.2): 60% by last name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Customer {
    Id(u32),
    Last(String),
}

/// One order line's input (§2.4.1.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub item: u32,
    pub supply_w: u32,
    pub quantity: u32,
}

/// Everything one transaction needs, drawn before it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum TxInput {
    NewOrder {
        d_id: u32,
        c_id: u32,
        lines: Vec<Line>,
        /// The 1% whose last line names an unused item id.
        rollback: bool,
        entry_d: String,
    },
    Payment {
        d_id: u32,
        c_w_id: u32,
        c_d_id: u32,
        customer: Customer,
        /// In cents, 100..=500000.
        amount: i64,
        date: String,
    },
    OrderStatus {
        d_id: u32,
        customer: Customer,
    },
    Delivery {
        carrier: u32,
        date: String,
    },
    StockLevel {
        threshold: u32,
    },
}

impl TxInput {
    /// Its index into [`deck::TXNS`].
    pub fn index(&self) -> usize {
        match self {
            TxInput::NewOrder { .. } => deck::NEW_ORDER,
            TxInput::Payment { .. } => deck::PAYMENT,
            TxInput::OrderStatus { .. } => deck::ORDER_STATUS,
            TxInput::Delivery { .. } => deck::DELIVERY,
            TxInput::StockLevel { .. } => deck::STOCK_LEVEL,
        }
    }
}

/// A terminal's identity (§5.5): its home warehouse and, for Stock-Level, its district.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    pub w_id: u32,
    pub d_id: u32,
    pub warehouses: u32,
}

impl Terminal {
    /// Client `index` of a run on `warehouses` warehouses: warehouse `index % warehouses + 1`
    /// and district `index / warehouses % 10 + 1`, so that clients spread over the warehouses
    /// first (every warehouse has a client before any has two) and then over districts.
    pub fn of(index: u32, warehouses: u32) -> Terminal {
        let w = warehouses.max(1);
        Terminal {
            w_id: index % w + 1,
            d_id: index / w % DISTRICTS + 1,
            warehouses: w,
        }
    }
}

/// The current time as the transactions write it (O_ENTRY_D, H_DATE, OL_DELIVERY_D).
fn now() -> String {
    let t = jiff::Timestamp::now();
    jiff::Timestamp::from_second(t.as_second())
        .unwrap_or(t)
        .strftime("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// One client's transaction inputs.
pub struct TxGen {
    rng: ChaCha8Rng,
    deck: Deck,
    /// The next card, when it was dealt ahead ([`TxGen::peek_next`]).
    upcoming: Option<usize>,
    k: Constants,
    t: Terminal,
}

impl TxGen {
    /// The sequence of a client of terminal `t` from its stream `seed`.
    pub fn new(seed: u64, t: Terminal, k: Constants) -> TxGen {
        TxGen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            deck: Deck::default(),
            upcoming: None,
            k,
            t,
        }
    }

    fn other_warehouse(&mut self) -> u32 {
        let w = self.t.warehouses;
        if w < 2 {
            return self.t.w_id;
        }
        let o = self.rng.random_range(1..w);
        if o >= self.t.w_id {
            o + 1
        } else {
            o
        }
    }

    fn customer(&mut self) -> Customer {
        if self.rng.random_range(1..=100) <= 60 {
            Customer::Last(random::last_name(random::last_name_number(&mut self.rng, &self.k)))
        } else {
            Customer::Id(random::customer_id(&mut self.rng, &self.k))
        }
    }

    /// The type (index into [`deck::TXNS`]) of the transaction after the one drawn last,
    /// dealt ahead for a keying time.
    pub fn peek_next(&mut self) -> usize {
        let rng = &mut self.rng;
        *self.upcoming.get_or_insert_with(|| self.deck.deal(rng))
    }

    /// The next transaction.
    pub fn next_tx(&mut self) -> TxInput {
        let card = match self.upcoming.take() {
            Some(c) => c,
            None => self.deck.deal(&mut self.rng),
        };
        match card {
            deck::NEW_ORDER => {
                let d_id = self.rng.random_range(1..=DISTRICTS);
                let c_id = random::customer_id(&mut self.rng, &self.k);
                let n = self.rng.random_range(5..=15);
                let rollback = self.rng.random_range(1..=100) == 1;
                let mut lines = Vec::with_capacity(n);
                for i in 0..n {
                    let item = if rollback && i + 1 == n {
                        ITEMS + 1
                    } else {
                        random::item_id(&mut self.rng, &self.k)
                    };
                    let supply_w = if self.rng.random_range(1..=100) == 1 {
                        self.other_warehouse()
                    } else {
                        self.t.w_id
                    };
                    let quantity = self.rng.random_range(1..=10);
                    lines.push(Line {
                        item,
                        supply_w,
                        quantity,
                    });
                }
                TxInput::NewOrder {
                    d_id,
                    c_id,
                    lines,
                    rollback,
                    entry_d: now(),
                }
            }
            deck::PAYMENT => {
                let d_id = self.rng.random_range(1..=DISTRICTS);
                let home = self.rng.random_range(1..=100) <= 85 || self.t.warehouses < 2;
                let (c_w_id, c_d_id) = if home {
                    (self.t.w_id, d_id)
                } else {
                    (self.other_warehouse(), self.rng.random_range(1..=DISTRICTS))
                };
                let customer = self.customer();
                TxInput::Payment {
                    d_id,
                    c_w_id,
                    c_d_id,
                    customer,
                    amount: self.rng.random_range(100..=500_000),
                    date: now(),
                }
            }
            deck::ORDER_STATUS => TxInput::OrderStatus {
                d_id: self.rng.random_range(1..=DISTRICTS),
                customer: self.customer(),
            },
            deck::DELIVERY => TxInput::Delivery {
                carrier: self.rng.random_range(1..=10),
                date: now(),
            },
            _ => TxInput::StockLevel {
                threshold: self.rng.random_range(10..=20),
            },
        }
    }
}

/// How a transaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// Ran to its end by the rules without doing its work (New-Order's rollback).
    Unsuccessful,
    /// Rolled back on lock contention.
    Busy(BusyCause),
}

const NEW_ORDER_SQL: [&str; 8] = [
    "SELECT w_tax FROM warehouse WHERE w_id = ?",
    "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?",
    "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
    "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, {ts?}, NULL, ?, ?)",
    "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
    "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?",
    "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= ? + 10 THEN s_quantity - ? ELSE s_quantity - ? + 91 END, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?",
];
const INSERT_ORDER_LINE: &str = "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)";

const PAYMENT_SQL: [&str; 8] = [
    "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?",
    "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?",
    "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
    "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?",
    "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, {c_since}, c_credit, c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "UPDATE customer SET c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
];
const INSERT_HISTORY: &str = "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, {ts?}, ?, ?)";
const CUSTOMERS_BY_LAST: &str =
    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first";

const ORDER_STATUS_SQL: [&str; 3] = [
    "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "SELECT o_id, {o_entry_d}, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
    "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, {ol_delivery_d} FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
];

const DELIVERY_SQL: [&str; 7] = [
    "SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = ? AND no_d_id = ?",
    "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
    "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
    "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
    "UPDATE order_line SET ol_delivery_d = {ts?} WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
    "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
    "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
];

const STOCK_LEVEL_SQL: [&str; 2] = [
    "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
    "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
];

/// Every statement, prepared on one connection.
pub struct Statements {
    begin_write: Control,
    begin_read: Control,
    commit: Control,
    rollback: Control,
    new_order: [StmtId; 8],
    /// The stock row and its S_DIST_xx of each district (1..=10 at 0..=9).
    stock_of: [StmtId; 10],
    insert_order_line: StmtId,
    payment: [StmtId; 8],
    insert_history: StmtId,
    by_last: StmtId,
    order_status: [StmtId; 3],
    delivery: [StmtId; 7],
    stock_level: [StmtId; 2],
    values: Values,
    /// H_DATA of the Payment running (W_NAME, four spaces, D_NAME), reused so that the timed
    /// transaction allocates nothing for it.
    h_data: String,
}

/// A timestamp column read as text (`{col}` in a statement): not every engine's client decodes
/// timestamps, and the transactions only show them.
fn timestamps_as_text(sql: &str, d: Dialect) -> String {
    let mut out = sql.to_string();
    for col in ["c_since", "o_entry_d", "ol_delivery_d"] {
        let cast = match d {
            Dialect::Mysql => format!("CAST({col} AS CHAR(19))"),
            _ => format!("CAST({col} AS VARCHAR(19))"),
        };
        out = out.replace(&format!("{{{col}}}"), &cast);
    }
    // A timestamp parameter, typed where the engine does not take text for one (SQLite keeps
    // the text: its TIMESTAMP affinity is NUMERIC, and a cast would keep only the year).
    let param = match d {
        Dialect::Sqlite => "?",
        Dialect::Mysql => "CAST(? AS DATETIME)",
        _ => "CAST(CAST(? AS VARCHAR) AS TIMESTAMP)",
    };
    out.replace("{ts?}", param)
}

fn prepare_all<const N: usize>(conn: &mut dyn Connection, sql: [&str; N]) -> Result<[StmtId; N], EngineError> {
    let d = conn.dialect();
    let mut out = [StmtId(0); N];
    for (o, s) in out.iter_mut().zip(sql) {
        *o = conn.prepare(&timestamps_as_text(s, d))?;
    }
    Ok(out)
}

fn int(v: u32) -> Value<'static> {
    Value::Int(i64::from(v))
}

fn money(cents: i64) -> Value<'static> {
    Value::Real(cents as f64 / 100.0)
}

/// A number read back, in cents where `scale` is 100.
fn number(c: CellRef<'_>) -> f64 {
    c.number().unwrap_or(0.0)
}

fn text(c: CellRef<'_>) -> &[u8] {
    match c {
        CellRef::Text(t) => t,
        _ => b"",
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

impl Statements {
    /// Prepares every statement on `conn`.
    pub fn prepare(conn: &mut dyn Connection) -> Result<Statements, EngineError> {
        let mut stock_of = [StmtId(0); 10];
        for (d, s) in stock_of.iter_mut().enumerate() {
            *s = conn.prepare(&format!(
                "SELECT s_quantity, s_data, s_dist_{:02} FROM stock WHERE s_w_id = ? AND s_i_id = ?",
                d + 1
            ))?;
        }
        let begin = conn.begin_write();
        Ok(Statements {
            new_order: prepare_all(conn, NEW_ORDER_SQL)?,
            stock_of,
            insert_order_line: conn.prepare(&timestamps_as_text(INSERT_ORDER_LINE, conn.dialect()))?,
            payment: prepare_all(conn, PAYMENT_SQL)?,
            insert_history: conn.prepare(&timestamps_as_text(INSERT_HISTORY, conn.dialect()))?,
            by_last: conn.prepare(CUSTOMERS_BY_LAST)?,
            order_status: prepare_all(conn, ORDER_STATUS_SQL)?,
            delivery: prepare_all(conn, DELIVERY_SQL)?,
            stock_level: prepare_all(conn, STOCK_LEVEL_SQL)?,
            begin_write: Control::prepare(conn, begin),
            begin_read: Control::prepare(conn, "BEGIN"),
            commit: Control::prepare(conn, "COMMIT"),
            rollback: Control::prepare(conn, "ROLLBACK"),
            values: Values::with_capacity(64, 4096),
            h_data: String::with_capacity(24),
        })
    }

    /// Runs one transaction of terminal `t`. Engine errors other than lock contention are
    /// returned, after a rollback.
    pub fn execute(&mut self, conn: &mut dyn Connection, t: &Terminal, tx: &TxInput) -> Result<Outcome, EngineError> {
        let read_only = matches!(tx, TxInput::OrderStatus { .. } | TxInput::StockLevel { .. });
        let begin = if read_only { self.begin_read } else { self.begin_write };
        let result = begin.run(conn).and_then(|()| self.body(conn, t, tx)).and_then(|ok| {
            if ok || read_only {
                self.commit.run(conn).map(|()| ok)
            } else {
                // New-Order's rollback (§2.4.2.3): the work done so far is undone.
                self.rollback.run(conn).map(|()| ok)
            }
        });
        match result {
            Ok(true) => Ok(Outcome::Success),
            Ok(false) => Ok(Outcome::Unsuccessful),
            Err(e) => {
                // SQLite may have rolled back by itself; a failing ROLLBACK adds nothing.
                let _ = self.rollback.run(conn);
                match e.lock_cause() {
                    Some(cause) => Ok(Outcome::Busy(cause)),
                    None => Err(e),
                }
            }
        }
    }

    fn body(&mut self, conn: &mut dyn Connection, t: &Terminal, tx: &TxInput) -> Result<bool, EngineError> {
        match tx {
            TxInput::NewOrder {
                d_id,
                c_id,
                lines,
                entry_d,
                ..
            } => self.new_order(conn, t.w_id, *d_id, *c_id, lines, entry_d),
            TxInput::Payment {
                d_id,
                c_w_id,
                c_d_id,
                customer,
                amount,
                date,
            } => self.payment(conn, t.w_id, *d_id, (*c_w_id, *c_d_id), customer, *amount, date),
            TxInput::OrderStatus { d_id, customer } => self.order_status(conn, t.w_id, *d_id, customer),
            TxInput::Delivery { carrier, date } => self.delivery(conn, t.w_id, *carrier, date),
            TxInput::StockLevel { threshold } => self.stock_level(conn, t.w_id, t.d_id, *threshold),
        }
    }

    /// Runs `stmt` and keeps what it returned in `self.values`; the rows it returned.
    fn read(&mut self, conn: &mut dyn Connection, stmt: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        self.values.clear();
        conn.run_values(stmt, params, &mut self.values)
    }

    fn new_order(
        &mut self,
        conn: &mut dyn Connection,
        w: u32,
        d: u32,
        c: u32,
        lines: &[Line],
        entry_d: &str,
    ) -> Result<bool, EngineError> {
        let s = self.new_order;
        self.read(conn, s[0], &[int(w)])?;
        let w_tax = number(self.values.get(0));
        conn.run(s[1], &[int(w), int(d)])?;
        self.read(conn, s[2], &[int(w), int(d)])?;
        let d_tax = number(self.values.get(0));
        let o_id = number(self.values.get(1)) as i64 - 1;
        self.read(conn, s[3], &[int(w), int(d), int(c)])?;
        let discount = number(self.values.get(0));
        let all_local = lines.iter().all(|l| l.supply_w == w);
        conn.run(
            s[4],
            &[
                Value::Int(o_id),
                int(d),
                int(w),
                int(c),
                Value::Text(entry_d),
                int(lines.len() as u32),
                int(u32::from(all_local)),
            ],
        )?;
        conn.run(s[5], &[Value::Int(o_id), int(d), int(w)])?;
        let mut total = 0.0;
        for (n, l) in lines.iter().enumerate() {
            if self.read(conn, s[6], &[int(l.item)])? == 0 {
                // "Item number is not valid": the rollback of §2.4.2.3.
                return Ok(false);
            }
            let price = number(self.values.get(0));
            let original = contains(text(self.values.get(2)), b"ORIGINAL");
            let q = int(l.quantity);
            let remote = int(u32::from(l.supply_w != w));
            conn.run(s[7], &[q, q, q, q, remote, int(l.supply_w), int(l.item)])?;
            self.read(conn, self.stock_of[d as usize - 1], &[int(l.supply_w), int(l.item)])?;
            // The brand-generic indicator, shown to the terminal (§2.4.3.3).
            let _brand = original && contains(text(self.values.get(1)), b"ORIGINAL");
            let amount = f64::from(l.quantity) * price;
            total += amount;
            // S_DIST_xx bound straight from the values read (no copy inside the transaction).
            let dist = std::str::from_utf8(text(self.values.get(2))).unwrap_or("");
            conn.run(
                self.insert_order_line,
                &[
                    Value::Int(o_id),
                    int(d),
                    int(w),
                    int(n as u32 + 1),
                    int(l.item),
                    int(l.supply_w),
                    q,
                    Value::Real((amount * 100.0).round() / 100.0),
                    Value::Text(dist),
                ],
            )?;
        }
        let _total = total * (1.0 - discount) * (1.0 + w_tax + d_tax);
        Ok(true)
    }

    /// The customer's id: given, or the middle one by first name of those with the last name
    /// (§2.5.2.2: position n/2 rounded up). `None`: no customer has that name.
    fn customer_id(
        &mut self,
        conn: &mut dyn Connection,
        w: u32,
        d: u32,
        c: &Customer,
    ) -> Result<Option<u32>, EngineError> {
        match c {
            Customer::Id(id) => Ok(Some(*id)),
            Customer::Last(last) => {
                let n = self.read(conn, self.by_last, &[int(w), int(d), Value::Text(last)])? as usize;
                if n == 0 {
                    return Ok(None);
                }
                Ok(Some(number(self.values.get(n.div_ceil(2) - 1)) as u32))
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn payment(
        &mut self,
        conn: &mut dyn Connection,
        w: u32,
        d: u32,
        (c_w, c_d): (u32, u32),
        customer: &Customer,
        amount: i64,
        date: &str,
    ) -> Result<bool, EngineError> {
        let s = self.payment;
        let h = money(amount);
        conn.run(s[0], &[h, int(w)])?;
        self.read(conn, s[1], &[int(w)])?;
        self.h_data.clear();
        self.h_data.push_str(&String::from_utf8_lossy(text(self.values.get(0))));
        self.h_data.push_str("    ");
        conn.run(s[2], &[h, int(w), int(d)])?;
        self.read(conn, s[3], &[int(w), int(d)])?;
        self.h_data.push_str(&String::from_utf8_lossy(text(self.values.get(0))));
        let Some(c) = self.customer_id(conn, c_w, c_d, customer)? else {
            return Ok(false);
        };
        self.read(conn, s[4], &[int(c_w), int(c_d), int(c)])?;
        let bad_credit = text(self.values.get(10)) == b"BC";
        conn.run(s[5], &[h, h, int(c_w), int(c_d), int(c)])?;
        if bad_credit {
            self.read(conn, s[6], &[int(c_w), int(c_d), int(c)])?;
            let old = String::from_utf8_lossy(text(self.values.get(0))).into_owned();
            let mut data = format!("{c} {c_d} {c_w} {d} {w} {} | {old}", random::money(amount));
            data.truncate(500);
            conn.run(s[7], &[Value::Text(&data), int(c_w), int(c_d), int(c)])?;
        }
        conn.run(
            self.insert_history,
            &[
                int(c),
                int(c_d),
                int(c_w),
                int(d),
                int(w),
                Value::Text(date),
                h,
                Value::Text(&self.h_data),
            ],
        )?;
        Ok(true)
    }

    fn order_status(
        &mut self,
        conn: &mut dyn Connection,
        w: u32,
        d: u32,
        customer: &Customer,
    ) -> Result<bool, EngineError> {
        let s = self.order_status;
        let Some(c) = self.customer_id(conn, w, d, customer)? else {
            return Ok(false);
        };
        self.read(conn, s[0], &[int(w), int(d), int(c)])?;
        if self.read(conn, s[1], &[int(w), int(d), int(c)])? == 0 {
            return Ok(false);
        }
        let o_id = number(self.values.get(0)) as i64;
        self.read(conn, s[2], &[int(w), int(d), Value::Int(o_id)])?;
        Ok(true)
    }

    fn delivery(&mut self, conn: &mut dyn Connection, w: u32, carrier: u32, date: &str) -> Result<bool, EngineError> {
        let s = self.delivery;
        for d in 1..=DISTRICTS {
            self.read(conn, s[0], &[int(w), int(d)])?;
            let CellRef::Int(o) = self.values.get(0) else {
                // No new order in this district: skipped (§2.7.4.2).
                continue;
            };
            if conn.run(s[1], &[int(w), int(d), Value::Int(o)])? == 0 {
                continue;
            }
            self.read(conn, s[2], &[int(w), int(d), Value::Int(o)])?;
            let c = number(self.values.get(0)) as i64;
            conn.run(s[3], &[int(carrier), int(w), int(d), Value::Int(o)])?;
            conn.run(s[4], &[Value::Text(date), int(w), int(d), Value::Int(o)])?;
            self.read(conn, s[5], &[int(w), int(d), Value::Int(o)])?;
            let sum = number(self.values.get(0));
            conn.run(s[6], &[Value::Real(sum), int(w), int(d), Value::Int(c)])?;
        }
        Ok(true)
    }

    fn stock_level(&mut self, conn: &mut dyn Connection, w: u32, d: u32, threshold: u32) -> Result<bool, EngineError> {
        let s = self.stock_level;
        self.read(conn, s[0], &[int(w), int(d)])?;
        let next = number(self.values.get(0)) as i64;
        self.read(
            conn,
            s[1],
            &[
                int(w),
                int(d),
                Value::Int(next),
                Value::Int(next - 20),
                int(w),
                int(threshold),
            ],
        )?;
        Ok(true)
    }
}

/// Customers per district, for the checks of inputs.
pub const CUSTOMER_IDS: std::ops::RangeInclusive<u32> = 1..=CUSTOMERS;

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(index: u32, warehouses: u32) -> TxGen {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        TxGen::new(
            u64::from(index),
            Terminal::of(index, warehouses),
            Constants::draw(&mut rng),
        )
    }

    #[test]
    fn terminals_spread_over_warehouses_first_then_districts() {
        let t: Vec<(u32, u32)> = (0..6).map(|i| Terminal::of(i, 3)).map(|t| (t.w_id, t.d_id)).collect();
        assert_eq!(t, [(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2)]);
        assert_eq!(
            Terminal::of(31, 3).d_id,
            1,
            "the eleventh client of a warehouse wraps to district 1"
        );
    }

    #[test]
    fn inputs_are_in_the_specification_s_domains() {
        let mut g = gen(1, 4);
        let (mut rollbacks, mut remote_lines, mut lines, mut by_name, mut customers) = (0, 0, 0, 0, 0);
        let mut remote_payments = 0;
        let mut payments = 0;
        for _ in 0..23_000 {
            match g.next_tx() {
                TxInput::NewOrder {
                    d_id,
                    c_id,
                    lines: l,
                    rollback,
                    ..
                } => {
                    assert!((1..=10).contains(&d_id) && CUSTOMER_IDS.contains(&c_id));
                    assert!((5..=15).contains(&l.len()));
                    rollbacks += u32::from(rollback);
                    assert_eq!(l.last().unwrap().item == ITEMS + 1, rollback);
                    for x in &l {
                        assert!((1..=10).contains(&x.quantity) && (1..=4).contains(&x.supply_w));
                        remote_lines += u32::from(x.supply_w != 2);
                    }
                    lines += l.len() as u32;
                }
                TxInput::Payment {
                    c_w_id,
                    customer,
                    amount,
                    ..
                } => {
                    payments += 1;
                    remote_payments += u32::from(c_w_id != 2);
                    assert!((100..=500_000).contains(&amount));
                    customers += 1;
                    by_name += u32::from(matches!(customer, Customer::Last(_)));
                }
                TxInput::OrderStatus { customer, .. } => {
                    customers += 1;
                    by_name += u32::from(matches!(customer, Customer::Last(_)));
                }
                TxInput::Delivery { carrier, .. } => assert!((1..=10).contains(&carrier)),
                TxInput::StockLevel { threshold } => assert!((10..=20).contains(&threshold)),
            }
        }
        // 10,000 New-Orders: about 100 rollbacks; about 1% of lines remote; 15% of payments
        // remote; 60% of customers by name.
        assert!((50..=160).contains(&rollbacks), "{rollbacks}");
        assert!(
            (remote_lines * 1000 / lines).abs_diff(10) <= 4,
            "{remote_lines} of {lines}"
        );
        assert!((remote_payments * 100 / payments).abs_diff(15) <= 2);
        assert!((by_name * 100 / customers).abs_diff(60) <= 2);
    }

    #[test]
    fn one_warehouse_has_no_remote_lines_or_payments() {
        let mut g = gen(0, 1);
        for _ in 0..5_000 {
            match g.next_tx() {
                TxInput::NewOrder { lines, .. } => assert!(lines.iter().all(|l| l.supply_w == 1)),
                TxInput::Payment { c_w_id, .. } => assert_eq!(c_w_id, 1),
                _ => {}
            }
        }
    }
}
