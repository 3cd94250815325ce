//! The ledger workload: small crud transactions whose every acknowledged commit is known, so a
//! recovered database can be told apart from every state the application could have seen.
//!
//! Each transaction inserts rows, updates one older row, deletes another, and logs itself in
//! `txlog`. All of it is derived from the seed, so the exact content of the database after
//! the first `m` transactions is known in advance ([`Ledger::expected`]): a recovered database
//! is *consistent* when its content equals one of those states (whole transactions only, in
//! order), and the `m` it equals says how many commits survived.

use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{Connection, EngineError, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

pub const SCHEMA: &str = "CREATE TABLE item(id INTEGER PRIMARY KEY, tx INTEGER NOT NULL, payload BLOB NOT NULL);
CREATE TABLE txlog(tx INTEGER PRIMARY KEY, changes INTEGER NOT NULL);";

/// The size of a verification workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LedgerSize {
    /// Rows loaded before recording starts (the durable baseline).
    pub initial_rows: u32,
    /// Transactions recorded.
    pub transactions: u32,
    /// Rows each transaction inserts.
    pub inserts_per_tx: u32,
    /// Bytes of each row's payload: about a quarter page, so a transaction touches several pages.
    pub payload_bytes: u32,
}

impl LedgerSize {
    /// The default verification size (`verify-durability` without `--transactions`).
    pub const DEFAULT: LedgerSize = LedgerSize {
        initial_rows: 24,
        transactions: 6,
        inserts_per_tx: 3,
        payload_bytes: 900,
    };
}

/// One transaction's changes.
#[derive(Debug, Clone)]
pub struct Tx {
    pub id: u64,
    pub inserts: Vec<(i64, Vec<u8>)>,
    pub update: Option<(i64, Vec<u8>)>,
    pub delete: Option<i64>,
}

/// The whole workload, generated from a seed.
#[derive(Debug, Clone)]
pub struct Ledger {
    pub initial: Vec<(i64, Vec<u8>)>,
    pub txs: Vec<Tx>,
    /// `expected[m]`: the content digest after the first `m` transactions.
    pub expected: Vec<[u8; 32]>,
}

fn payload(rng: &mut ChaCha8Rng, size: u32) -> Vec<u8> {
    (0..size).map(|_| rng.random()).collect()
}

/// The digest [`read_digest`] computes from a database, over a model of its rows.
fn digest(rows: &BTreeMap<i64, (u64, Vec<u8>)>, log: &[(u64, u64)]) -> [u8; 32] {
    let mut h = Sha256::new();
    for (id, (tx, p)) in rows {
        h.update(id.to_le_bytes());
        h.update(tx.to_le_bytes());
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.update(b"txlog");
    for (tx, n) in log {
        h.update(tx.to_le_bytes());
        h.update(n.to_le_bytes());
    }
    h.finalize().into()
}

impl Ledger {
    pub fn generate(size: LedgerSize, seed: u64) -> Ledger {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut rows: BTreeMap<i64, (u64, Vec<u8>)> = BTreeMap::new();
        let mut next_id = 1i64;
        let mut initial = Vec::new();
        for _ in 0..size.initial_rows {
            let p = payload(&mut rng, size.payload_bytes);
            rows.insert(next_id, (0, p.clone()));
            initial.push((next_id, p));
            next_id += 1;
        }
        let mut log = Vec::new();
        let mut expected = vec![digest(&rows, &log)];
        let mut txs = Vec::new();
        for t in 1..=u64::from(size.transactions) {
            let pick = |rng: &mut ChaCha8Rng, rows: &BTreeMap<i64, (u64, Vec<u8>)>| {
                let keys: Vec<i64> = rows.keys().copied().collect();
                (!keys.is_empty()).then(|| keys[rng.random_range(0..keys.len())])
            };
            let update = pick(&mut rng, &rows).map(|id| (id, payload(&mut rng, size.payload_bytes)));
            if let Some((id, p)) = &update {
                rows.insert(*id, (t, p.clone()));
            }
            let delete = pick(&mut rng, &rows);
            if let Some(id) = delete {
                rows.remove(&id);
            }
            let mut inserts = Vec::new();
            for _ in 0..size.inserts_per_tx {
                let p = payload(&mut rng, size.payload_bytes);
                rows.insert(next_id, (t, p.clone()));
                inserts.push((next_id, p));
                next_id += 1;
            }
            let changes = inserts.len() as u64 + u64::from(update.is_some()) + u64::from(delete.is_some());
            log.push((t, changes));
            expected.push(digest(&rows, &log));
            txs.push(Tx {
                id: t,
                inserts,
                update,
                delete,
            });
        }
        Ledger { initial, txs, expected }
    }

    /// Creates the database `db` with 4 KiB pages in `journal_mode` and loads the initial rows,
    /// then closes it: the state every recorded run and every killed child starts from.
    pub fn create(&self, api: &'static Api, db: &Path, journal_mode: &str) -> Result<(), EngineError> {
        let mut setup = SqliteConn::open(api, db, None, "durability setup")?;
        setup.execute_batch(&format!("PRAGMA page_size=4096; PRAGMA journal_mode={journal_mode}"))?;
        self.load(&mut setup)
    }

    /// Creates the tables and loads the initial rows (one transaction).
    pub fn load(&self, conn: &mut SqliteConn) -> Result<(), EngineError> {
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch("BEGIN")?;
        let ins = conn.prepare("INSERT INTO item(id, tx, payload) VALUES (?1, 0, ?2)")?;
        for (id, p) in &self.initial {
            conn.run(ins, &[Value::Int(*id), Value::Blob(p)])?;
        }
        conn.execute_batch("COMMIT")
    }

    /// Runs the transactions, calling `acked(tx)` after each COMMIT returned.
    pub fn run(&self, conn: &mut SqliteConn, mut acked: impl FnMut(u64)) -> Result<(), EngineError> {
        let ins = conn.prepare("INSERT INTO item(id, tx, payload) VALUES (?1, ?2, ?3)")?;
        let upd = conn.prepare("UPDATE item SET tx = ?2, payload = ?3 WHERE id = ?1")?;
        let del = conn.prepare("DELETE FROM item WHERE id = ?1")?;
        let log = conn.prepare("INSERT INTO txlog(tx, changes) VALUES (?1, ?2)")?;
        for t in &self.txs {
            let tx = t.id as i64;
            conn.execute_batch("BEGIN")?;
            let mut changes = 0;
            if let Some((id, p)) = &t.update {
                changes += conn.run(upd, &[Value::Int(*id), Value::Int(tx), Value::Blob(p)])?;
            }
            if let Some(id) = t.delete {
                changes += conn.run(del, &[Value::Int(id)])?;
            }
            for (id, p) in &t.inserts {
                changes += conn.run(ins, &[Value::Int(*id), Value::Int(tx), Value::Blob(p)])?;
            }
            conn.run(log, &[Value::Int(tx), Value::Int(changes as i64)])?;
            conn.execute_batch("COMMIT")?;
            acked(t.id);
        }
        Ok(())
    }

    /// How many transactions a database's content shows applied, or `None` when it equals no
    /// state the application could have seen (part of a transaction).
    pub fn applied(&self, digest: &[u8; 32]) -> Option<u64> {
        self.expected.iter().position(|d| d == digest).map(|m| m as u64)
    }
}

/// The content digest of a database holding the ledger tables.
pub fn read_digest(conn: &mut SqliteConn) -> Result<[u8; 32], EngineError> {
    let mut rows = BTreeMap::new();
    for r in conn.query("SELECT id, tx, hex(payload) FROM item ORDER BY id")? {
        let num = |i: usize| r[i].as_deref().and_then(|v| v.parse::<i64>().ok()).unwrap_or(-1);
        let hex = r[2].as_deref().unwrap_or("");
        let bytes = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect();
        rows.insert(num(0), (num(1) as u64, bytes));
    }
    let mut log = Vec::new();
    for r in conn.query("SELECT tx, changes FROM txlog ORDER BY tx")? {
        let num = |i: usize| r[i].as_deref().and_then(|v| v.parse::<u64>().ok()).unwrap_or(u64::MAX);
        log.push((num(0), num(1)));
    }
    Ok(digest(&rows, &log))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;

    #[test]
    fn a_database_after_m_transactions_reads_as_m() {
        let size = LedgerSize {
            initial_rows: 5,
            transactions: 4,
            inserts_per_tx: 2,
            payload_bytes: 50,
        };
        let ledger = Ledger::generate(size, 7);
        assert_eq!(ledger.expected.len(), 5);
        let mut conn = SqliteConn::open_memory(Api::bundled(), "test").unwrap();
        ledger.load(&mut conn).unwrap();
        assert_eq!(ledger.applied(&read_digest(&mut conn).unwrap()), Some(0));
        let mut acks = Vec::new();
        ledger.run(&mut conn, |t| acks.push(t)).unwrap();
        assert_eq!(acks, vec![1, 2, 3, 4]);
        assert_eq!(ledger.applied(&read_digest(&mut conn).unwrap()), Some(4));
        // Half a transaction is no state the application saw.
        conn.execute_batch("DELETE FROM item WHERE id = (SELECT max(id) FROM item)")
            .unwrap();
        assert_eq!(ledger.applied(&read_digest(&mut conn).unwrap()), None);
    }
}
