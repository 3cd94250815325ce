//! `blob`'s clients under the load driver: one client timed inside its operations (the default
//! load, [`BlobClient::solo`]), or several clients reading and replacing blobs of one store, or
//! a target rate (`--clients`, `--rate`, `--client-mode`, ...).
//!
//! **One client** draws from the trial's own seed and numbers its writes 1, 2, 3, ...; a
//! version's bytes are its pseudo-random stream seeded by the trial, the blob and the version
//! (no header: no other client can have written it), and a read must be exactly the version
//! this client last wrote (or the loaded content).
//!
//! **Several clients**: each client opens its own [`BlobStore`] on its own connection and draws its operations (read
//! or write by `read_ratio`, the key at random or in key order from its own starting key) from
//! its own seeded stream. New content is made before an operation's clock starts, and a read is
//! checked after it stopped, as with one client. What changes with several clients is what
//! a read may return: another client (or process) may have replaced the blob since this client
//! last saw it. So a write under the driver stores its version number in the blob's first 8
//! bytes (little-endian; the rest is the version's pseudo-random stream, as always), and a read
//! is correct when it is the loaded content or, whole, the version its first bytes name. Blobs
//! shorter than 8 bytes are checked by length only. Versions are unique within a trial without
//! coordination (client `i` of `N` numbers its `n`-th write `n * N + i + 1`), and a version's
//! bytes depend on the blob and the version only ([`VERSIONS`]), so that any client, in any
//! process, can regenerate what another wrote. (Every trial starts from a fresh copy of the
//! loaded blobs, so that trials repeat each other's versions changes nothing they measure.)
//!
//! Throughput is what the driver measures for every workload: completed operations over the
//! trial's wall time, not (as one client's trial is timed) over the time spent inside them.

use super::content;
use super::{Settings, READ, WRITE};
use crate::engines::blob::{store_of, BlobStore};
use crate::engines::{Connection, EngineError};
use crate::workload::load::{Client, Hooks};
use crate::workload::WorkloadError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bytes at the start of a blob written under the driver that hold its version.
const HEADER: usize = 8;

/// The seed of every version's stream under the driver, in place of the trial's seed.
pub const VERSIONS: u64 = 0x6472_6976_6572_7631;

/// The content of version `version` of blob `key` as a driver client writes it.
pub fn fill_versioned(data: &mut [u8], key: u64, version: u64) {
    content::fill(data, content::version_seed(VERSIONS, key, version));
    if data.len() >= HEADER {
        data[..HEADER].copy_from_slice(&version.to_le_bytes());
    }
}

/// One client's blob operations.
pub struct BlobClient<'c> {
    store: Box<dyn BlobStore + 'c>,
    s: Settings,
    rng: ChaCha8Rng,
    /// This client's index and the number of clients: its versions and starting key.
    index: u64,
    clients: u64,
    next_key: u64,
    writes: u64,
    /// The drawn operation and key; the new content of a drawn write.
    op: usize,
    key: u64,
    buf: Vec<u8>,
    /// One client's trial seed ([`BlobClient::solo`]); none under the driver's several clients.
    solo: Option<u64>,
    /// Checksums of the loaded content per blob (0: not computed yet), and of the last
    /// version checked per blob: `(version, checksum)` (one client: the version it last
    /// wrote, 0 for the loaded content, and its checksum, 0 until computed).
    loaded: Vec<u64>,
    seen: Vec<(u64, u64)>,
    /// A scratch buffer for regenerating a version a read returned.
    expect: Vec<u8>,
}

impl<'c> BlobClient<'c> {
    pub fn new(
        conn: &'c mut dyn Connection,
        s: Settings,
        client_seed: u64,
        index: u32,
        clients: u32,
    ) -> Result<BlobClient<'c>, WorkloadError> {
        BlobClient::made(conn, s, client_seed, (index, clients), None)
    }

    /// The one client of a trial timed inside its operations, drawing from the trial's seed:
    /// the keys, operations and contents every earlier one-client trial had.
    pub fn solo(conn: &'c mut dyn Connection, s: Settings, trial_seed: u64) -> Result<BlobClient<'c>, WorkloadError> {
        BlobClient::made(conn, s, trial_seed, (0, 1), Some(trial_seed))
    }

    fn made(
        conn: &'c mut dyn Connection,
        s: Settings,
        seed: u64,
        (index, clients): (u32, u32),
        solo: Option<u64>,
    ) -> Result<BlobClient<'c>, WorkloadError> {
        let mut store = store_of(conn)?;
        store.ready()?;
        let (index, clients) = (u64::from(index), u64::from(clients.max(1)));
        Ok(BlobClient {
            store,
            s,
            rng: ChaCha8Rng::seed_from_u64(seed),
            index,
            clients,
            next_key: index * s.count / clients,
            writes: 0,
            op: READ,
            key: 0,
            buf: vec![0u8; s.max_len()],
            solo,
            loaded: vec![0; s.count as usize],
            seen: vec![(if solo.is_some() { 0 } else { u64::MAX }, 0); s.count as usize],
            expect: vec![0u8; s.max_len()],
        })
    }

    /// One client's write: version `writes` of the trial's stream, its checksum kept.
    fn write_solo(&mut self, trial_seed: u64) {
        self.writes += 1;
        let (key, len) = (self.key, self.s.len(self.key));
        let data = &mut self.buf[..len];
        content::fill(data, content::version_seed(trial_seed, key, self.writes));
        self.seen[key as usize] = (self.writes, content::checksum(data));
    }

    /// One client's read: exactly the version it last wrote of the blob (or the loaded one).
    fn check_solo(&mut self, trial_seed: u64) -> Result<(), WorkloadError> {
        let (key, len) = (self.key, self.s.len(self.key));
        let k = key as usize;
        if self.seen[k].1 == 0 {
            let data = &mut self.expect[..len];
            content::fill(data, content::version_seed(trial_seed, key, self.seen[k].0));
            self.seen[k].1 = content::checksum(data);
        }
        let (version, sum) = self.seen[k];
        let bytes = self.store.last_read();
        let got = content::checksum(bytes);
        if bytes.len() != len || got != sum {
            return Err(WorkloadError::check_failed("blob", format!(
                "blob {key} read back {} bytes (checksum {got:016x}); expected {len} bytes of version {version} (checksum {sum:016x})",
                bytes.len()
            )));
        }
        Ok(())
    }
}

impl Client for BlobClient<'_> {
    fn draw(&mut self) -> usize {
        self.key = if self.s.sequential {
            let k = self.next_key;
            self.next_key = (self.next_key + 1) % self.s.count;
            k
        } else {
            self.rng.random_range(0..self.s.count)
        };
        self.op = if self.rng.random::<f64>() < self.s.read_ratio {
            READ
        } else {
            WRITE
        };
        if let (WRITE, Some(seed)) = (self.op, self.solo) {
            self.write_solo(seed);
        } else if self.op == WRITE {
            let version = self.writes * self.clients + self.index + 1;
            self.writes += 1;
            let len = self.s.len(self.key);
            fill_versioned(&mut self.buf[..len], self.key, version);
        }
        self.op
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        if self.op == READ {
            self.store.read(self.key)?;
        } else {
            let len = self.s.len(self.key);
            self.store.write(self.key, &self.buf[..len])?;
        }
        Ok(true)
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            check: true,
            ..Hooks::default()
        }
    }

    fn check(&mut self) -> Result<(), WorkloadError> {
        if self.op != READ {
            return Ok(());
        }
        if let Some(seed) = self.solo {
            return self.check_solo(seed);
        }
        let (key, len) = (self.key, self.s.len(self.key));
        let k = key as usize;
        let bytes = self.store.last_read();
        if bytes.len() != len {
            return Err(WorkloadError::check_failed(
                "blob",
                format!("blob {key} read back {} bytes; expected {len}", bytes.len()),
            ));
        }
        if len < HEADER {
            return Ok(());
        }
        let got = content::checksum(bytes);
        if self.loaded[k] == 0 {
            let data = &mut self.expect[..len];
            content::fill(data, content::version_seed(0, key, 0));
            self.loaded[k] = content::checksum(data);
        }
        if got == self.loaded[k] {
            return Ok(());
        }
        let mut v = [0u8; HEADER];
        v.copy_from_slice(&bytes[..HEADER]);
        let version = u64::from_le_bytes(v);
        if self.seen[k].0 != version {
            let data = &mut self.expect[..len];
            fill_versioned(data, key, version);
            self.seen[k] = (version, content::checksum(data));
        }
        if got != self.seen[k].1 {
            return Err(WorkloadError::check_failed("blob", format!(
                "blob {key} read back {len} bytes (checksum {got:016x}) that are neither its loaded content nor whole version {version} (checksum {:016x})",
                self.seen[k].1
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::model::params::resolve;
    use crate::workload::{Population, Workload};
    use std::sync::atomic::AtomicBool;

    /// Two connections to one file: a client reads what the other wrote (another version,
    /// whole), and refuses a blob that is neither the loaded content nor a whole version.
    #[test]
    fn a_read_is_the_loaded_blob_or_a_whole_version_another_client_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blob.db");
        let args: Vec<String> = ["size=1000", "count=2", "read_ratio=1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let p = resolve("blob", super::super::PARAMS, &args).unwrap();
        let s = Settings::from_params(&p).unwrap();
        let mut a = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
        let mut b = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
        let stop = AtomicBool::new(false);
        let pop = Population::new(&p, 1, &stop);
        super::super::Blob.populate(&mut a, &pop).unwrap();
        // Client 1 of 2 writes version 2 of blob 0 (its first write), as the driver would.
        let mut data = vec![0u8; s.len(0)];
        fill_versioned(&mut data, 0, 2);
        store_of(&mut b).unwrap().write(0, &data).unwrap();
        let mut reader = BlobClient::new(&mut a, s, 7, 0, 2).unwrap();
        let mut checked = 0;
        while checked < 20 {
            reader.draw();
            reader.execute().unwrap();
            reader.check().unwrap();
            checked += 1;
        }
        // A torn blob: version 2's header over other bytes.
        let mut torn = vec![9u8; s.len(0)];
        torn[..HEADER].copy_from_slice(&2u64.to_le_bytes());
        drop(reader);
        store_of(&mut b).unwrap().write(0, &torn).unwrap();
        let mut reader = BlobClient::new(&mut a, s, 7, 0, 2).unwrap();
        let failed = (0..50).find_map(|_| {
            reader.draw();
            reader.execute().unwrap();
            reader.check().err()
        });
        let e = failed.expect("the torn blob is read within 50 random reads of 2 blobs");
        assert!(
            e.to_string().contains("neither its loaded content nor whole version 2"),
            "{e}"
        );
    }

    /// The one client's trial (the default load) writes what every one-client trial wrote: its
    /// `n`-th write is version `n` of the trial's stream, whole, with no header, to the keys
    /// the trial's seed draws; a read that is not the version it last wrote fails with the
    /// one-client message.
    #[test]
    fn the_one_client_writes_the_trial_seeds_versions_without_a_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blob.db");
        let args: Vec<String> = ["size=100", "count=3", "read_ratio=0.5"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let p = resolve("blob", super::super::PARAMS, &args).unwrap();
        let s = Settings::from_params(&p).unwrap();
        let mut a = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
        let stop = AtomicBool::new(false);
        super::super::Blob
            .populate(&mut a, &Population::new(&p, 1, &stop))
            .unwrap();
        // The keys and operations of the seed's stream, as the one-client loop drew them.
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut c = BlobClient::solo(&mut a, s, 42).unwrap();
        let mut last = [0u64; 3];
        let mut writes = 0;
        for _ in 0..30 {
            let key = rng.random_range(0..3u64);
            let op = if rng.random::<f64>() < 0.5 { READ } else { WRITE };
            assert_eq!(c.draw(), op);
            assert_eq!(c.key, key);
            c.execute().unwrap();
            c.check().unwrap();
            if op == WRITE {
                writes += 1;
                last[key as usize] = writes;
            }
        }
        assert!(writes > 5, "{writes} writes");
        drop(c);
        let mut b = SqliteConn::open(Api::bundled(), &path, None, "sqlite").unwrap();
        let mut store = store_of(&mut b).unwrap();
        store.ready().unwrap();
        for key in 0..3u64 {
            let mut want = vec![0u8; 100];
            content::fill(&mut want, content::version_seed(42, key, last[key as usize]));
            assert_eq!(store.read(key).unwrap(), &want[..], "blob {key}");
        }
        // A client that has written nothing expects the loaded blobs: another writer's are not.
        store.write(0, &[7u8; 100]).unwrap();
        drop(store);
        let reads = Settings { read_ratio: 1.0, ..s };
        let mut c = BlobClient::solo(&mut b, reads, 42).unwrap();
        let e = (0..50)
            .find_map(|_| {
                c.draw();
                c.execute().unwrap();
                c.check().err()
            })
            .expect("a blob another writer changed is read within 50 reads of 3 blobs");
        let e = e.to_string();
        assert!(
            e.contains(" read back 100 bytes (checksum ")
                && e.contains("); expected 100 bytes of version 0 (checksum "),
            "{e}"
        );
    }
}
