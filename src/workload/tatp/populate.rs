//! Population, exactly as the specification describes it.
//!
//! For every subscriber `s_id` in `1..=N`, in order:
//!
//! - `subscriber`: `sub_nbr` = `s_id` as 15 zero-padded digits; `bit_1..bit_10` 0 or 1;
//!   `hex_1..hex_10` 0..15; `byte2_1..byte2_10` 0..255; `msc_location`, `vlr_location`
//!   1..2^32-1; all uniform;
//! - `access_info`: 1 to 4 rows (uniform), with distinct `ai_type` from 1..4; `data1`, `data2`
//!   0..255; `data3` 3 and `data4` 5 uppercase letters A-Z;
//! - `special_facility`: 1 to 4 rows, distinct `sf_type` from 1..4; `is_active` 1 with
//!   probability 85%, else 0; `error_cntrl`, `data_a` 0..255; `data_b` 5 uppercase letters;
//! - `call_forwarding`: for each special facility, 0 to 3 rows with distinct `start_time` from
//!   {0, 8, 16}; `end_time` = `start_time` + uniform 1..8; `numberx` 15 random digits.
//!
//! Everything comes from one ChaCha8 stream of the run's seed, subscriber after subscriber, so
//! a population depends on the seed and `N` only (not on batch sizes or the engine). Rows go in
//! with prepared statements, in transactions of [`BATCH`] subscribers, the four tables
//! interleaved subscriber by subscriber. On DuckDB, where a prepared insert manages a few
//! thousand rows a second, they go through its appender instead ([`Connection::bulk_load`]),
//! one table at a time: the generator runs once per table (it is cheap next to loading) and
//! each pass keeps that table's rows, so the data are the same.

use super::keys::{self, Number};
use super::schema;
use crate::engines::bulk::RowSink;
use crate::engines::{Connection, Dialect, EngineError, StmtId, Value};
use crate::workload::{PopulateError, Population};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Subscribers per population transaction (about 97,500 rows).
pub const BATCH: u64 = 10_000;

/// RNG stream of the population (transactions use other streams of their trial's seed).
const POPULATION_STREAM: u64 = 0x7A7F;

/// The `start_time` values of `call_forwarding`.
pub const START_TIMES: [u8; 3] = [0, 8, 16];

/// One `subscriber` row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubscriberRow {
    pub s_id: u64,
    pub sub_nbr: Number,
    pub bit: [u8; 10],
    pub hex: [u8; 10],
    pub byte2: [u8; 10],
    pub msc_location: u32,
    pub vlr_location: u32,
}

/// One `access_info` row (of the subscriber it is generated with).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessInfoRow {
    pub ai_type: u8,
    pub data1: u8,
    pub data2: u8,
    pub data3: [u8; 3],
    pub data4: [u8; 5],
}

/// One `special_facility` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialFacilityRow {
    pub sf_type: u8,
    pub is_active: u8,
    pub error_cntrl: u8,
    pub data_a: u8,
    pub data_b: [u8; 5],
}

/// One `call_forwarding` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallForwardingRow {
    pub sf_type: u8,
    pub start_time: u8,
    pub end_time: u8,
    pub numberx: Number,
}

/// A subscriber and the rows that belong to it. Reused from one subscriber to the next, so
/// generation allocates nothing after the first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubscriberData {
    pub subscriber: SubscriberRow,
    pub access_info: Vec<AccessInfoRow>,
    pub special_facility: Vec<SpecialFacilityRow>,
    pub call_forwarding: Vec<CallForwardingRow>,
}

impl SubscriberData {
    /// Rows of all four tables.
    pub fn rows(&self) -> u64 {
        1 + (self.access_info.len() + self.special_facility.len() + self.call_forwarding.len()) as u64
    }
}

/// Generates the population subscriber by subscriber.
pub struct Generator {
    rng: ChaCha8Rng,
}

fn letters<const L: usize>(rng: &mut ChaCha8Rng) -> [u8; L] {
    let mut out = [b'A'; L];
    for c in out.iter_mut() {
        *c = rng.random_range(b'A'..=b'Z');
    }
    out
}

/// `k` distinct values of `from`, in ascending order (a partial Fisher-Yates shuffle).
fn distinct<const L: usize>(rng: &mut ChaCha8Rng, mut from: [u8; L], k: usize) -> ([u8; L], usize) {
    for i in 0..k {
        let j = rng.random_range(i..L);
        from.swap(i, j);
    }
    from[..k].sort_unstable();
    (from, k)
}

impl Generator {
    /// The population generator of `seed`.
    pub fn new(seed: u64) -> Generator {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(POPULATION_STREAM);
        Generator { rng }
    }

    /// Fills `out` with subscriber `s_id` and its rows. Call with `s_id` = 1, 2, ... in order.
    pub fn next_into(&mut self, s_id: u64, out: &mut SubscriberData) {
        let rng = &mut self.rng;
        let s = &mut out.subscriber;
        s.s_id = s_id;
        s.sub_nbr = keys::sub_nbr(s_id);
        for b in s.bit.iter_mut() {
            *b = rng.random_range(0..=1);
        }
        for h in s.hex.iter_mut() {
            *h = rng.random_range(0..=15);
        }
        for b in s.byte2.iter_mut() {
            *b = rng.random_range(0..=255);
        }
        s.msc_location = rng.random_range(1..=u32::MAX);
        s.vlr_location = rng.random_range(1..=u32::MAX);

        out.access_info.clear();
        let k = rng.random_range(1..=4);
        let (types, k) = distinct(rng, [1, 2, 3, 4], k);
        for &ai_type in &types[..k] {
            out.access_info.push(AccessInfoRow {
                ai_type,
                data1: rng.random_range(0..=255),
                data2: rng.random_range(0..=255),
                data3: letters(rng),
                data4: letters(rng),
            });
        }

        out.special_facility.clear();
        out.call_forwarding.clear();
        let k = rng.random_range(1..=4);
        let (types, k) = distinct(rng, [1, 2, 3, 4], k);
        for &sf_type in &types[..k] {
            out.special_facility.push(SpecialFacilityRow {
                sf_type,
                is_active: (rng.random_range(0..100) < 85) as u8,
                error_cntrl: rng.random_range(0..=255),
                data_a: rng.random_range(0..=255),
                data_b: letters(rng),
            });
            let c = rng.random_range(0..=3);
            let (starts, c) = distinct(rng, START_TIMES, c);
            for &start_time in &starts[..c] {
                out.call_forwarding.push(CallForwardingRow {
                    sf_type,
                    start_time,
                    end_time: start_time + rng.random_range(1..=8),
                    numberx: keys::random_number(rng),
                });
            }
        }
    }
}

/// `INSERT` statements of the four tables.
pub fn insert_sql() -> [String; 4] {
    table_columns().map(|(table, cols)| {
        let marks = vec!["?"; cols.len()].join(", ");
        format!("INSERT INTO {table} ({}) VALUES ({marks})", cols.join(", "))
    })
}

/// The columns of the four tables, in [`insert_sql`]'s order.
fn table_columns() -> [(&'static str, Vec<String>); 4] {
    let sub: Vec<String> = schema::subscriber_columns()
        .split(',')
        .map(|c| c.trim().to_string())
        .collect();
    let list = |cols: &[&str]| cols.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    [
        ("subscriber", sub),
        (
            "access_info",
            list(&["s_id", "ai_type", "data1", "data2", "data3", "data4"]),
        ),
        (
            "special_facility",
            list(&["s_id", "sf_type", "is_active", "error_cntrl", "data_a", "data_b"]),
        ),
        (
            "call_forwarding",
            list(&["s_id", "sf_type", "start_time", "end_time", "numberx"]),
        ),
    ]
}

/// Rows run one by one through a prepared `INSERT` (the row-by-row path of engines without a
/// faster bulk path for TATP's interleaved tables).
struct Prepared<'c> {
    conn: &'c mut dyn Connection,
    stmt: StmtId,
}

impl RowSink for Prepared<'_> {
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError> {
        self.conn.run(self.stmt, values).map(|_| ())
    }
}

/// Pushes table `which` (0..4, [`table_columns`] order) of subscriber data `d` into `sink`.
fn push_rows(which: usize, d: &SubscriberData, sink: &mut dyn RowSink) -> Result<(), EngineError> {
    let int = |v: u8| Value::Int(v as i64);
    let s = &d.subscriber;
    let id = Value::Int(s.s_id as i64);
    match which {
        0 => {
            let mut values = [Value::Null; 34];
            values[0] = id;
            values[1] = Value::Text(keys::ascii(&s.sub_nbr));
            for i in 0..10 {
                values[2 + i] = int(s.bit[i]);
                values[12 + i] = int(s.hex[i]);
                values[22 + i] = int(s.byte2[i]);
            }
            values[32] = Value::Int(s.msc_location as i64);
            values[33] = Value::Int(s.vlr_location as i64);
            sink.row(&values)
        }
        1 => d.access_info.iter().try_for_each(|a| {
            sink.row(&[
                id,
                int(a.ai_type),
                int(a.data1),
                int(a.data2),
                Value::Text(keys::ascii(&a.data3)),
                Value::Text(keys::ascii(&a.data4)),
            ])
        }),
        2 => d.special_facility.iter().try_for_each(|f| {
            sink.row(&[
                id,
                int(f.sf_type),
                int(f.is_active),
                int(f.error_cntrl),
                int(f.data_a),
                Value::Text(keys::ascii(&f.data_b)),
            ])
        }),
        _ => d.call_forwarding.iter().try_for_each(|c| {
            sink.row(&[
                id,
                int(c.sf_type),
                int(c.start_time),
                int(c.end_time),
                Value::Text(keys::ascii(&c.numberx)),
            ])
        }),
    }
}

/// The population through the engine's bulk path, one table per generator pass.
fn populate_bulk(conn: &mut dyn Connection, n: u64, pop: &Population<'_>) -> Result<u64, PopulateError> {
    let mut rows = 0u64;
    for (which, (table, columns)) in table_columns().iter().enumerate() {
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        let mut fill = |sink: &mut dyn RowSink| -> Result<(), EngineError> {
            let mut gen = Generator::new(pop.seed);
            let mut data = SubscriberData::default();
            for s_id in 1..=n {
                gen.next_into(s_id, &mut data);
                push_rows(which, &data, sink)?;
            }
            Ok(())
        };
        rows += pop.bulk_load(conn, table, &columns, &mut fill)?;
    }
    Ok(rows)
}

/// Creates the schema and inserts `n` subscribers with their rows; returns the rows inserted.
/// Stops between subscribers when `pop` is asked to stop.
pub fn populate(conn: &mut dyn Connection, n: u64, pop: &Population<'_>) -> Result<u64, PopulateError> {
    for stmt in schema::statements(&schema::tables(conn.dialect())) {
        conn.execute_batch(stmt)?;
    }
    if conn.dialect() == Dialect::Duckdb {
        let rows = populate_bulk(conn, n, pop)?;
        pop.check()?;
        conn.execute_batch(schema::SUB_NBR_INDEX)?;
        return Ok(rows);
    }
    let mut stmts = [StmtId(0); 4];
    for (stmt, sql) in stmts.iter_mut().zip(insert_sql()) {
        *stmt = conn.prepare(&sql)?;
    }
    let mut gen = Generator::new(pop.seed);
    let mut data = SubscriberData::default();
    let mut rows = 0u64;
    conn.execute_batch("BEGIN")?;
    for s_id in 1..=n {
        // About ten rows per subscriber.
        if s_id % 32 == 0 {
            pop.check()?;
        }
        gen.next_into(s_id, &mut data);
        for (which, stmt) in stmts.iter().enumerate() {
            push_rows(
                which,
                &data,
                &mut Prepared {
                    conn: &mut *conn,
                    stmt: *stmt,
                },
            )?;
        }
        rows += data.rows();
        if s_id % BATCH == 0 && s_id < n {
            conn.execute_batch("COMMIT")?;
            conn.execute_batch("BEGIN")?;
        }
    }
    conn.execute_batch("COMMIT")?;
    pop.check()?;
    conn.execute_batch(schema::SUB_NBR_INDEX)?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_name_every_column_of_the_schema() {
        let sql = insert_sql();
        assert_eq!(
            sql[1],
            "INSERT INTO access_info (s_id, ai_type, data1, data2, data3, data4) VALUES (?, ?, ?, ?, ?, ?)"
        );
        assert_eq!(
            sql[3],
            "INSERT INTO call_forwarding (s_id, sf_type, start_time, end_time, numberx) VALUES (?, ?, ?, ?, ?)"
        );
        assert_eq!(table_columns()[0].1.len(), 34);
        assert_eq!(sql[0].matches('?').count(), 34);
    }

    #[test]
    fn same_seed_same_population_and_domains() {
        let mut a = Generator::new(5);
        let mut b = Generator::new(5);
        let mut c = Generator::new(6);
        let (mut da, mut db, mut dc) = Default::default();
        let mut differs = false;
        for s_id in 1..=2000 {
            a.next_into(s_id, &mut da);
            b.next_into(s_id, &mut db);
            c.next_into(s_id, &mut dc);
            assert_eq!(da, db);
            differs |= da != dc;
            let d: &SubscriberData = &da;
            assert!((1..=4).contains(&d.access_info.len()));
            assert!((1..=4).contains(&d.special_facility.len()));
            assert!(d.call_forwarding.len() <= 3 * d.special_facility.len());
            assert!(d.subscriber.msc_location >= 1 && d.subscriber.vlr_location >= 1);
            assert!(d.subscriber.bit.iter().all(|&x| x <= 1));
            assert!(d.subscriber.hex.iter().all(|&x| x <= 15));
            for w in d.access_info.windows(2) {
                assert!(w[0].ai_type < w[1].ai_type);
            }
            for f in &d.special_facility {
                assert!((1..=4).contains(&f.sf_type) && f.is_active <= 1);
                assert!(f.data_b.iter().all(u8::is_ascii_uppercase));
                let cfs: Vec<&CallForwardingRow> =
                    d.call_forwarding.iter().filter(|c| c.sf_type == f.sf_type).collect();
                assert!(cfs.len() <= 3);
                for w in cfs.windows(2) {
                    assert!(w[0].start_time < w[1].start_time);
                }
                for c in cfs {
                    assert!(START_TIMES.contains(&c.start_time));
                    assert!((c.start_time + 1..=c.start_time + 8).contains(&c.end_time));
                }
            }
        }
        assert!(differs, "another seed must give another population");
    }
}
