//! The seven transactions: their inputs, their SQL, and what counts as success.
//!
//! Inputs are drawn from a client's own RNG stream before the transaction is timed, in an order
//! that does not depend on any outcome, so two runs with the same seed issue the same
//! transactions. Statements are prepared once per connection.
//!
//! | transaction | statements | successful when |
//! | --- | --- | --- |
//! | GET_SUBSCRIBER_DATA | select the subscriber's row by `s_id` | it is found |
//! | GET_NEW_DESTINATION | join `special_facility` (active, given `sf_type`) and `call_forwarding` (`start_time <= ? AND ? < end_time`) | a row is returned |
//! | GET_ACCESS_DATA | select `access_info` by `s_id`, `ai_type` | it is found |
//! | UPDATE_SUBSCRIBER_DATA | update `subscriber.bit_1`; update `special_facility.data_a` by `s_id`, `sf_type` | the second update changes a row |
//! | UPDATE_LOCATION | update `subscriber.vlr_location` by `sub_nbr` | a row changes |
//! | INSERT_CALL_FORWARDING | look up `s_id` by `sub_nbr`; read its `sf_type`s; insert | the insert adds a row (no key violation, the special facility exists) |
//! | DELETE_CALL_FORWARDING | look up `s_id` by `sub_nbr`; delete by `s_id`, `sf_type`, `start_time` | a row is deleted |
//!
//! Single-statement transactions run in autocommit mode (the statement is the transaction);
//! the others between `BEGIN` (SQLite: `BEGIN IMMEDIATE`, as they all write) and `COMMIT`.
//! An unsuccessful transaction that raised no error commits (its statements simply found no
//! row); one that violated a key rolls back. Lock contention (`ErrorKind::Busy`) rolls the
//! transaction back and is reported as [`Outcome::Busy`] with its cause.

use super::keys::{self, KeyGen, Number};
use super::mix::Mix;
use super::populate::START_TIMES;
use crate::engines::control::Control;
use crate::engines::dialect::Sql;
use crate::engines::{Connection, Dialect, EngineError, StmtId, Value};
use crate::sql;
use crate::workload::result_hash::ResultLog;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Transaction types, in [`super::mix::TXNS`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxKind {
    GetSubscriberData = 0,
    GetNewDestination = 1,
    GetAccessData = 2,
    UpdateSubscriberData = 3,
    UpdateLocation = 4,
    InsertCallForwarding = 5,
    DeleteCallForwarding = 6,
}

impl TxKind {
    /// Every kind, by index.
    pub const ALL: [TxKind; 7] = [
        TxKind::GetSubscriberData,
        TxKind::GetNewDestination,
        TxKind::GetAccessData,
        TxKind::UpdateSubscriberData,
        TxKind::UpdateLocation,
        TxKind::InsertCallForwarding,
        TxKind::DeleteCallForwarding,
    ];

    /// Index into the operation list.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Everything one transaction needs, drawn before it runs. Fields a kind does not use are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxInput {
    pub kind: TxKind,
    pub s_id: u64,
    /// `sub_nbr` of `s_id`, for the transactions that address the subscriber by number.
    pub sub_nbr: Number,
    pub ai_type: u8,
    pub sf_type: u8,
    pub start_time: u8,
    pub end_time: u8,
    pub bit_1: u8,
    pub data_a: u8,
    pub vlr_location: u32,
    pub numberx: Number,
}

/// RNG stream of client `i` (population uses its own).
pub fn client_stream(client: u64) -> u64 {
    1 + client
}

/// One client's transaction sequence.
pub struct TxGen {
    rng: ChaCha8Rng,
    mix: Mix,
    keys: KeyGen,
}

impl TxGen {
    /// The sequence of client `client` for trial seed `seed`.
    pub fn new(seed: u64, client: u64, mix: Mix, subscribers: u64) -> TxGen {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(client_stream(client));
        TxGen {
            rng,
            mix,
            keys: KeyGen::new(subscribers),
        }
    }

    /// The next transaction. Draw order: kind, then `s_id`, then the kind's other inputs in
    /// the order the specification lists them.
    pub fn next_tx(&mut self) -> TxInput {
        let kind = TxKind::ALL[self.mix.pick(&mut self.rng)];
        let rng = &mut self.rng;
        let s_id = self.keys.s_id(rng);
        let mut t = TxInput {
            kind,
            s_id,
            sub_nbr: [b'0'; keys::NUMBER_DIGITS],
            ai_type: 0,
            sf_type: 0,
            start_time: 0,
            end_time: 0,
            bit_1: 0,
            data_a: 0,
            vlr_location: 0,
            numberx: [b'0'; keys::NUMBER_DIGITS],
        };
        let start_time = |rng: &mut ChaCha8Rng| START_TIMES[rng.random_range(0..3)];
        match kind {
            TxKind::GetSubscriberData => {}
            TxKind::GetNewDestination => {
                t.sf_type = rng.random_range(1..=4);
                t.start_time = start_time(rng);
                t.end_time = rng.random_range(1..=24);
            }
            TxKind::GetAccessData => t.ai_type = rng.random_range(1..=4),
            TxKind::UpdateSubscriberData => {
                t.bit_1 = rng.random_range(0..=1);
                t.sf_type = rng.random_range(1..=4);
                t.data_a = rng.random_range(0..=255);
            }
            TxKind::UpdateLocation => {
                t.sub_nbr = keys::sub_nbr(s_id);
                t.vlr_location = rng.random_range(1..=u32::MAX);
            }
            TxKind::InsertCallForwarding => {
                t.sub_nbr = keys::sub_nbr(s_id);
                t.sf_type = rng.random_range(1..=4);
                t.start_time = start_time(rng);
                t.end_time = rng.random_range(1..=24);
                t.numberx = keys::random_number(rng);
            }
            TxKind::DeleteCallForwarding => {
                t.sub_nbr = keys::sub_nbr(s_id);
                t.sf_type = rng.random_range(1..=4);
                t.start_time = start_time(rng);
            }
        }
        t
    }
}

/// How one transaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Committed and successful by the specification's rule.
    Success,
    /// Completed but unsuccessful by the specification's rule (no row found, key violation).
    Unsuccessful,
    /// Rolled back on lock contention, for this cause.
    Busy(crate::engines::BusyCause),
}

/// GET_SUBSCRIBER_DATA: the subscriber's row by `s_id`.
pub fn get_subscriber_data() -> String {
    format!(
        "SELECT {} FROM subscriber WHERE s_id = ?",
        super::schema::subscriber_columns()
    )
}

/// GET_NEW_DESTINATION.
pub const GET_NEW_DESTINATION: Sql = Sql::same(
    "SELECT cf.numberx FROM special_facility AS sf, call_forwarding AS cf \
WHERE sf.s_id = ? AND sf.sf_type = ? AND sf.is_active = 1 \
AND cf.s_id = sf.s_id AND cf.sf_type = sf.sf_type \
AND cf.start_time <= ? AND ? < cf.end_time",
);
/// GET_ACCESS_DATA.
pub const GET_ACCESS_DATA: Sql =
    Sql::same("SELECT data1, data2, data3, data4 FROM access_info WHERE s_id = ? AND ai_type = ?");
/// UPDATE_SUBSCRIBER_DATA, its first statement.
pub const UPDATE_SUBSCRIBER_BIT: Sql = Sql::same("UPDATE subscriber SET bit_1 = ? WHERE s_id = ?");
/// UPDATE_SUBSCRIBER_DATA, its second statement.
pub const UPDATE_SPECIAL_FACILITY: Sql =
    Sql::same("UPDATE special_facility SET data_a = ? WHERE s_id = ? AND sf_type = ?");
/// UPDATE_LOCATION.
pub const UPDATE_LOCATION: Sql = Sql::same("UPDATE subscriber SET vlr_location = ? WHERE sub_nbr = ?");
/// INSERT_CALL_FORWARDING and DELETE_CALL_FORWARDING: the subscriber by number.
pub const SUBSCRIBER_BY_NBR: Sql = Sql::same("SELECT s_id FROM subscriber WHERE sub_nbr = ?");
/// INSERT_CALL_FORWARDING: the subscriber's special facilities.
pub const SPECIAL_FACILITY_TYPES: Sql = Sql::same("SELECT sf_type FROM special_facility WHERE s_id = ?");
/// INSERT_CALL_FORWARDING's insert takes `s_id` and `sf_type` from the referenced
/// `special_facility` row: no such row, nothing inserted — what the specification's foreign-key
/// violation does, also where foreign keys are not enforced (SQLite without
/// `PRAGMA foreign_keys=ON`, MariaDB/MySQL with `foreign_key_checks=0` or tables copied without
/// their foreign keys). Parameters: `start_time`, `end_time`, `numberx`, `s_id`, `sf_type`; typed
/// where the engine cannot infer a select-list parameter's type.
pub const INSERT_CALL_FORWARDING: Sql = sql!(
    "INSERT INTO call_forwarding (s_id, sf_type, start_time, end_time, numberx) \
SELECT s_id, sf_type, ?, ?, ? FROM special_facility WHERE s_id = ? AND sf_type = ?",
    Postgres => "INSERT INTO call_forwarding (s_id, sf_type, start_time, end_time, numberx) \
SELECT s_id, sf_type, CAST(? AS SMALLINT), CAST(? AS SMALLINT), CAST(? AS CHAR(15)) \
FROM special_facility WHERE s_id = ? AND sf_type = ?",
    Duckdb => "INSERT INTO call_forwarding (s_id, sf_type, start_time, end_time, numberx) \
SELECT s_id, sf_type, CAST(? AS TINYINT), CAST(? AS TINYINT), CAST(? AS VARCHAR) \
FROM special_facility WHERE s_id = ? AND sf_type = ?",
);
/// DELETE_CALL_FORWARDING's delete.
pub const DELETE_CALL_FORWARDING: Sql =
    Sql::same("DELETE FROM call_forwarding WHERE s_id = ? AND sf_type = ? AND start_time = ?");

/// The statements of all seven transactions, prepared on one connection.
pub struct Statements {
    dialect: Dialect,
    begin_write: Control,
    commit: Control,
    rollback: Control,
    get_subscriber_data: StmtId,
    get_new_destination: StmtId,
    get_access_data: StmtId,
    update_subscriber_bit: StmtId,
    update_special_facility: StmtId,
    update_location: StmtId,
    subscriber_by_nbr: StmtId,
    special_facility_types: StmtId,
    insert_call_forwarding: StmtId,
    delete_call_forwarding: StmtId,
}

impl Statements {
    /// Prepares every statement on `conn`.
    pub fn prepare(conn: &mut dyn Connection) -> Result<Statements, EngineError> {
        let d = conn.dialect();
        let mut prep = |s: Sql| conn.prepare(s.for_dialect(d));
        Ok(Statements {
            dialect: d,
            get_new_destination: prep(GET_NEW_DESTINATION)?,
            get_access_data: prep(GET_ACCESS_DATA)?,
            update_subscriber_bit: prep(UPDATE_SUBSCRIBER_BIT)?,
            update_special_facility: prep(UPDATE_SPECIAL_FACILITY)?,
            update_location: prep(UPDATE_LOCATION)?,
            subscriber_by_nbr: prep(SUBSCRIBER_BY_NBR)?,
            special_facility_types: prep(SPECIAL_FACILITY_TYPES)?,
            insert_call_forwarding: prep(INSERT_CALL_FORWARDING)?,
            delete_call_forwarding: prep(DELETE_CALL_FORWARDING)?,
            get_subscriber_data: conn.prepare(&get_subscriber_data())?,
            begin_write: {
                let begin = conn.begin_write();
                Control::prepare(conn, begin)
            },
            commit: Control::prepare(conn, "COMMIT"),
            rollback: Control::prepare(conn, "ROLLBACK"),
        })
    }

    /// Runs one transaction. Engine errors other than lock contention and (for
    /// INSERT_CALL_FORWARDING) key violations are returned, after a rollback.
    pub fn execute(&self, conn: &mut dyn Connection, t: &TxInput) -> Result<Outcome, EngineError> {
        self.execute_into(conn, t, None)
    }

    /// [`Statements::execute`], keeping the values its queries return in `log` (none for a
    /// transaction rolled back on lock contention).
    pub fn execute_into(
        &self,
        conn: &mut dyn Connection,
        t: &TxInput,
        mut log: Option<&mut ResultLog>,
    ) -> Result<Outcome, EngineError> {
        let kept = log.as_ref().map_or(0, |l| l.results());
        let multi = matches!(
            t.kind,
            TxKind::UpdateSubscriberData | TxKind::InsertCallForwarding | TxKind::DeleteCallForwarding
        );
        let result = if multi {
            self.begin_write
                .run(conn)
                .and_then(|()| self.body(conn, t, log.as_deref_mut()))
                .and_then(|ok| self.commit.run(conn).map(|()| ok))
        } else {
            self.body(conn, t, log.as_deref_mut())
        };
        match result {
            Ok(true) => Ok(Outcome::Success),
            Ok(false) => Ok(Outcome::Unsuccessful),
            Err(e) => {
                if multi {
                    // After an error inside BEGIN..COMMIT the transaction may or may not still
                    // be open (SQLite rolls back by itself on some errors); a failing ROLLBACK
                    // here means there was nothing left to roll back.
                    let _ = self.rollback.run(conn);
                }
                if let Some(cause) = e.lock_cause() {
                    if let Some(log) = log {
                        log.truncate(kept);
                    }
                    Ok(Outcome::Busy(cause))
                } else if t.kind == TxKind::InsertCallForwarding && self.dialect.is_key_violation(&e) {
                    Ok(Outcome::Unsuccessful)
                } else {
                    Err(e)
                }
            }
        }
    }

    /// The statements of `t`; true when the transaction is successful. Queries keep their
    /// values in `log` if there is one.
    fn body(
        &self,
        conn: &mut dyn Connection,
        t: &TxInput,
        mut log: Option<&mut ResultLog>,
    ) -> Result<bool, EngineError> {
        let s_id = Value::Int(t.s_id as i64);
        let int = |v: u8| Value::Int(v as i64);
        // No query of a transaction has ORDER BY: the hash sorts their rows.
        let mut query = |conn: &mut dyn Connection, stmt: StmtId, params: &[Value<'_>]| match log.as_deref_mut() {
            Some(log) => log.run(conn, stmt, params, false),
            None => conn.run(stmt, params),
        };
        Ok(match t.kind {
            TxKind::GetSubscriberData => query(conn, self.get_subscriber_data, &[s_id])? == 1,
            TxKind::GetNewDestination => {
                query(
                    conn,
                    self.get_new_destination,
                    &[s_id, int(t.sf_type), int(t.start_time), int(t.end_time)],
                )? > 0
            }
            TxKind::GetAccessData => query(conn, self.get_access_data, &[s_id, int(t.ai_type)])? > 0,
            TxKind::UpdateSubscriberData => {
                conn.run(self.update_subscriber_bit, &[int(t.bit_1), s_id])?;
                conn.run(self.update_special_facility, &[int(t.data_a), s_id, int(t.sf_type)])? > 0
            }
            TxKind::UpdateLocation => {
                conn.run(
                    self.update_location,
                    &[Value::Int(t.vlr_location as i64), Value::Text(keys::ascii(&t.sub_nbr))],
                )? > 0
            }
            TxKind::InsertCallForwarding => {
                // The subscriber is looked up by number; its s_id is the one the number was
                // made from (sub_nbr is unique and derived from s_id).
                if query(conn, self.subscriber_by_nbr, &[Value::Text(keys::ascii(&t.sub_nbr))])? == 0 {
                    return Ok(false);
                }
                query(conn, self.special_facility_types, &[s_id])?;
                let numberx = Value::Text(keys::ascii(&t.numberx));
                let inserted = conn.run(
                    self.insert_call_forwarding,
                    &[int(t.start_time), int(t.end_time), numberx, s_id, int(t.sf_type)],
                )?;
                inserted > 0
            }
            TxKind::DeleteCallForwarding => {
                if query(conn, self.subscriber_by_nbr, &[Value::Text(keys::ascii(&t.sub_nbr))])? == 0 {
                    return Ok(false);
                }
                conn.run(self.delete_call_forwarding, &[s_id, int(t.sf_type), int(t.start_time)])? > 0
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::tatp::mix::DEFAULT_WEIGHTS;

    #[test]
    fn same_seed_same_sequence_other_client_other_sequence() {
        let mix = Mix::new(DEFAULT_WEIGHTS).unwrap();
        let mut a = TxGen::new(9, 0, mix, 1000);
        let mut b = TxGen::new(9, 0, mix, 1000);
        let mut c = TxGen::new(9, 1, mix, 1000);
        let sa: Vec<TxInput> = (0..1000).map(|_| a.next_tx()).collect();
        let sb: Vec<TxInput> = (0..1000).map(|_| b.next_tx()).collect();
        let sc: Vec<TxInput> = (0..1000).map(|_| c.next_tx()).collect();
        assert_eq!(sa, sb);
        assert_ne!(sa, sc);
    }

    #[test]
    fn inputs_are_in_the_specs_domains() {
        let mix = Mix::new(DEFAULT_WEIGHTS).unwrap();
        let mut g = TxGen::new(1, 0, mix, 50);
        for _ in 0..20_000 {
            let t = g.next_tx();
            assert!((1..=50).contains(&t.s_id));
            match t.kind {
                TxKind::GetNewDestination | TxKind::InsertCallForwarding => {
                    assert!(START_TIMES.contains(&t.start_time));
                    assert!((1..=24).contains(&t.end_time));
                    assert!((1..=4).contains(&t.sf_type));
                }
                TxKind::GetAccessData => assert!((1..=4).contains(&t.ai_type)),
                TxKind::UpdateLocation => {
                    assert_eq!(t.sub_nbr, keys::sub_nbr(t.s_id));
                    assert!(t.vlr_location >= 1);
                }
                TxKind::UpdateSubscriberData => assert!(t.bit_1 <= 1 && (1..=4).contains(&t.sf_type)),
                TxKind::DeleteCallForwarding => {
                    assert_eq!(t.sub_nbr, keys::sub_nbr(t.s_id));
                    assert!(START_TIMES.contains(&t.start_time));
                }
                TxKind::GetSubscriberData => {}
            }
        }
    }
}
