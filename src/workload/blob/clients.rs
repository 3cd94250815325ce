//! `blob` under the load driver: several clients reading and replacing blobs of one store, or a
//! target rate (`--clients`, `--rate`, `--client-mode`, ...).
//!
//! Each client opens its own [`BlobStore`] on its own connection and draws its operations (read
//! or write by `read_ratio`, the key at random or in key order from its own starting key) from
//! its own seeded stream. New content is made before an operation's clock starts, and a read is
//! checked after it stopped, as in one client's loop. What changes with several clients is what
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
//! trial's wall time, not (as the one-client loop does) over the time spent inside them.

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
    /// Checksums of the loaded content per blob (0: not computed yet), and of the last
    /// version checked per blob: `(version, checksum)`.
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
        let mut store = store_of(conn)?;
        store.ready()?;
        let (index, clients) = (u64::from(index), u64::from(clients.max(1)));
        Ok(BlobClient {
            store,
            s,
            rng: ChaCha8Rng::seed_from_u64(client_seed),
            index,
            clients,
            next_key: index * s.count / clients,
            writes: 0,
            op: READ,
            key: 0,
            buf: vec![0u8; s.max_len()],
            loaded: vec![0; s.count as usize],
            seen: vec![(u64::MAX, 0); s.count as usize],
            expect: vec![0u8; s.max_len()],
        })
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
        if self.op == WRITE {
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
}
