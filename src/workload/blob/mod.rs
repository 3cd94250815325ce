//! `blob`: whole blobs read and written by key, the VLDB'22 paper's BLOB benchmark (section
//! 4.3, Figure 7) and SQLite's many-small-blobs comparison with the filesystem (kvtest, "35%
//! Faster Than The Filesystem").
//!
//! The paper stores one blob in one row and has one connection read it (`SELECT`) or replace it
//! (`UPDATE`) with a given read probability, 10 s of warm-up, 60 s measured, operations per
//! second; SQLite, DuckDB and the filesystem. litebench runs the same on every engine through a
//! [`BlobStore`] (SQL statements, SQLite's incremental blob I/O with `blob_api=incremental`, or
//! the `files` engine's one file per blob), and adds what the paper left open (every choice is
//! listed in docs/workloads.md):
//!
//! - every write carries new bytes ([`content`]), made before the operation's clock starts;
//! - every read is checked (length and checksum) after its clock stops;
//! - `count` blobs, picked at random or in sequence, with lengths spread by `size_variance`
//!   (kvtest: `count=100000 size=10000 size_variance=2000`);
//! - `operations` bounds the measured operations instead of `measure_time` (to compare whole
//!   processes against a bare loop).
//!
//! Every trial runs on the load driver ([`clients`]). With one client in a closed loop (the
//! default load) it is timed inside its operations ([`Streams::op_timed`]): throughput is
//! measured operations per second of time spent inside them (the sum of their latencies), since
//! the time to make new content and check reads is not the engine's, and the I/O of each
//! operation type is attributed to it. Under any other load (several clients, a rate) it is
//! timed as every workload under the driver is.

pub mod clients;
pub mod content;

use super::load::{Budget, Streams, Transactions};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::blob::store_of;
use crate::engines::Connection;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use std::time::Duration;

/// The workload.
pub struct Blob;

/// Largest blob: SQLite's default limit on a value's length (SQLITE_MAX_LENGTH).
pub const MAX_SIZE: u64 = 1_000_000_000;

/// Most blobs.
pub const MAX_COUNT: u64 = 100_000_000;

/// Operation types, in report order.
pub const OPS: [&str; 2] = ["read", "write"];
const READ: usize = 0;
const WRITE: usize = 1;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "size",
        kind: ParamKind::Bytes { min: 1, max: MAX_SIZE },
        default: "100KB",
        help: "bytes per blob (VLDB'22: 100KB, 1MB, 10MB; kvtest: 10KB); units KB/MB/GB are powers of 1000",
    },
    ParamSpec {
        name: "size_variance",
        kind: ParamKind::Bytes { min: 0, max: MAX_SIZE },
        default: "0",
        help: "blob lengths spread uniformly over size ± this, fixed per blob (kvtest: 2KB)",
    },
    ParamSpec {
        name: "count",
        kind: ParamKind::Count { min: 1, max: MAX_COUNT },
        default: "1",
        help: "blobs stored (VLDB'22: 1; kvtest: 100000)",
    },
    ParamSpec {
        name: "read_ratio",
        kind: ParamKind::Fraction { min: 0.0, max: 1.0 },
        default: "0.9",
        help: "probability that an operation reads (the rest write) (VLDB'22: 0.9, 0.5, 0.1)",
    },
    ParamSpec {
        name: "access",
        kind: ParamKind::Choice(&["random", "sequential"]),
        default: "random",
        help: "which blob each operation touches: uniformly at random, or in key order, wrapping",
    },
    ParamSpec {
        name: "warmup_time",
        kind: ParamKind::Duration { allow_zero: true },
        default: "10s",
        help: "operations run but not recorded first (VLDB'22: 10 s)",
    },
    ParamSpec {
        name: "measure_time",
        kind: ParamKind::Duration { allow_zero: false },
        default: "60s",
        help: "wall time of the measured phase (VLDB'22: 60 s); ignored when operations > 0",
    },
    ParamSpec {
        name: "operations",
        kind: ParamKind::Count { min: 0, max: 1 << 40 },
        default: "0",
        help: "measured operations per trial instead of measure_time (0: as many as measure_time allows)",
    },
];

/// A trial's settings, from validated parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub size: u64,
    pub variance: u64,
    pub count: u64,
    pub read_ratio: f64,
    pub sequential: bool,
    pub warmup: Duration,
    pub measure: Duration,
    pub operations: u64,
}

impl Settings {
    pub fn from_params(p: &Params) -> Result<Settings, String> {
        let s = Settings {
            size: p.count("size"),
            variance: p.count("size_variance"),
            count: p.count("count").max(1),
            read_ratio: p.real("read_ratio"),
            sequential: p.choice("access") == "sequential",
            warmup: p.duration("warmup_time"),
            measure: p.duration("measure_time"),
            operations: p.count("operations"),
        };
        if s.variance >= s.size {
            return Err(format!(
                "--param size_variance={}: must be smaller than size ({}), so every blob has at least one byte",
                s.variance, s.size
            ));
        }
        if s.size + s.variance > MAX_SIZE {
            return Err(format!(
                "--param size_variance={}: size + size_variance is {}, above the largest blob ({MAX_SIZE} bytes)",
                s.variance,
                s.size + s.variance
            ));
        }
        Ok(s)
    }

    /// Length of blob `key`.
    pub fn len(&self, key: u64) -> usize {
        content::blob_len(key, self.size, self.variance)
    }

    /// The longest blob.
    pub fn max_len(&self) -> usize {
        (self.size + self.variance) as usize
    }
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "blob",
    about: "BLOB: whole blobs read or replaced by key with a read probability; operations per second (VLDB'22 Figure 7; kvtest with many blobs)",
    source: "Gaffney et al., SQLite: Past, Present, and Future, VLDB 2022, section 4.3 (its artifact's blob benchmark); SQLite's \"35% Faster Than The Filesystem\" (test/kvtest.c)",
    params: PARAMS,
    operations: &OPS,
    ..WorkloadKind::BASE
};

impl Workload for Blob {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    /// `blob_api`: how its reads and writes reach the blobs. Not `begin`: each measured read or
    /// write is one autocommit statement, and the load that starts transactions is the
    /// template's, before any configuration's connection knobs are set.
    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        match knob {
            crate::engines::sqlite::knobs::BLOB_API_KNOB => Ok(()),
            _ => Err(format!(
                "blob reads or replaces each blob in one autocommit statement, and no statement of it reads {knob}"
            )),
        }
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        Settings::from_params(p).map(|_| ())
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        let s =
            Settings::from_params(pop.params).map_err(|m| crate::engines::blob::blob_error("blob", m, "loading"))?;
        let mut store = store_of(conn)?;
        store.create()?;
        let mut buf = vec![0u8; s.max_len()];
        for key in 0..s.count {
            // Blobs are up to megabytes each: checked for every one.
            pop.check()?;
            let data = &mut buf[..s.len(key)];
            content::fill(data, content::version_seed(0, key, 0));
            store.insert(key, data)?;
        }
        store.finish_load()?;
        Ok(s.count)
    }

    fn transactions(&self) -> Option<&dyn Transactions> {
        Some(self)
    }

    /// Every trial on the load driver; one client in a closed loop is timed inside its
    /// operations ([`Streams::op_timed`]).
    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        super::load::drive(conn, self, trial, rec)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let s = Settings::from_params(p).map_err(|d| WorkloadError::check_failed("blob", d))?;
        let n = store_of(conn)?.count()?;
        if n != s.count {
            return Err(WorkloadError::check_failed(
                "blob",
                format!("{n} blobs stored after the trial, expected {}", s.count),
            ));
        }
        Ok(())
    }
}

impl Streams for Blob {
    type Client<'c> = clients::BlobClient<'c>;

    fn time_param(&self) -> &'static str {
        "measure_time"
    }

    fn budget(&self, p: &Params) -> Budget {
        match p.count("operations") {
            0 => Budget::Time(p.duration("measure_time")),
            n => Budget::Count(n),
        }
    }

    fn warmup(&self, p: &Params) -> Duration {
        p.duration("warmup_time")
    }

    /// One closed-loop client: the VLDB'22 trial, timed inside its operations.
    fn op_timed(&self, _p: &Params) -> bool {
        true
    }

    fn solo_client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        trial_seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let s = Settings::from_params(p).map_err(|d| WorkloadError::check_failed("blob", d))?;
        clients::BlobClient::solo(conn, s, trial_seed)
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let s = Settings::from_params(p).map_err(|d| WorkloadError::check_failed("blob", d))?;
        clients::BlobClient::new(conn, s, seed, index, clients)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::model::params::resolve;
    use std::sync::atomic::AtomicBool;
    use std::time::Instant;

    struct NoMore;

    impl crate::workload::Connector for NoMore {
        fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
            unreachable!("one client")
        }
    }

    /// One client's trial, through the driver: exactly `operations` measured reads and writes,
    /// every type's time the same interval, the time inside the operations, below the trial's
    /// wall time (which includes making the content of 100 KB writes and checking reads).
    #[test]
    fn one_client_trial_counts_its_operations_over_the_time_inside_them() {
        let dir = tempfile::tempdir().unwrap();
        let args: Vec<String> = [
            "size=100KB",
            "count=4",
            "read_ratio=0.5",
            "operations=300",
            "warmup_time=0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let p = resolve("blob", PARAMS, &args).unwrap();
        let mut conn = SqliteConn::open(Api::bundled(), &dir.path().join("b.db"), None, "sqlite").unwrap();
        let stop = AtomicBool::new(false);
        Blob.populate(&mut conn, &Population::new(&p, 1, &stop)).unwrap();
        let trial = Trial::plain(&p, 5, &stop, &NoMore);
        let mut rec = Recorder::new(&OPS, None);
        let wall = Instant::now();
        Blob.run(&mut conn, &trial, &mut rec).unwrap();
        let wall = wall.elapsed();
        assert!(rec.take_series().is_none(), "one client's trial keeps no series");
        let (ops, measured) = rec.finish();
        assert_eq!(ops.iter().map(|o| o.ops).sum::<u64>(), 300, "{ops:?}");
        assert!(
            ops.iter()
                .all(|o| o.ops > 0 && o.elapsed_ns == measured.as_nanos() as u64),
            "{ops:?}"
        );
        assert!(measured < wall, "{measured:?} of {wall:?}");
    }
}
