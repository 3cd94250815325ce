//! What one operation type did in a trial: its counts, its latency percentiles and histogram
//! (HDR, nanoseconds, kept whole in every record so that runs merge percentiles exactly) and its
//! share of the VFS's I/O counters. The recorder fills these in; the store keeps them; reports
//! read them.

use crate::sys::iocount::IoSnapshot;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest latency a histogram tracks: one hour.
pub const MAX_NS: u64 = 3_600_000_000_000;

/// A fresh latency histogram (nanoseconds).
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_NS, 3).expect("static histogram bounds are valid")
}

/// Latency percentiles of one operation type, in nanoseconds.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub mean_ns: f64,
    pub min_ns: u64,
    pub p50_ns: u64,
    pub p95_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}

impl Latency {
    /// Percentiles of a histogram (all zero if it is empty).
    pub fn of(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        Latency {
            mean_ns: h.mean(),
            min_ns: h.min(),
            p50_ns: h.value_at_quantile(0.50),
            p95_ns: h.value_at_quantile(0.95),
            p99_ns: h.value_at_quantile(0.99),
            p999_ns: h.value_at_quantile(0.999),
            max_ns: h.max(),
        }
    }
}

/// What one operation type did in one trial.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpResult {
    pub name: String,
    /// Completed operations (each one transaction unless the workload says otherwise).
    pub ops: u64,
    /// Completed operations that succeeded by the workload's rules (TATP: a transaction that
    /// found its row and violated no constraint); equal to `ops` for workloads where every
    /// completed operation succeeds. Null in runs stored before litebench counted it: read it
    /// as `ops` ([`OpResult::succeeded`]).
    #[serde(default)]
    pub succeeded: Option<u64>,
    /// Operations that failed in a tolerated way (lock contention); not in `ops`.
    pub failed: u64,
    /// Of `failed`: transactions rolled back because of lock contention (SQLITE_BUSY).
    #[serde(default)]
    pub busy: u64,
    /// Of `busy`, by the cause of the transaction's last try (see docs/load.md): SQLite's
    /// `SQLITE_BUSY` after the busy handler waited or could have (`busy_timeout`), a read
    /// transaction's refused upgrade to a writer (`busy_upgrade`), a WAL snapshot too old to
    /// write (`busy_snapshot`; Turso's stale snapshot too). The rest of `busy` (a server's
    /// serialization failures and deadlocks, `SQLITE_LOCKED`, what an old build cannot tell)
    /// is in none of them. Null in runs stored before litebench counted causes: unknown, not 0.
    #[serde(default)]
    pub busy_timeout: Option<u64>,
    #[serde(default)]
    pub busy_upgrade: Option<u64>,
    #[serde(default)]
    pub busy_snapshot: Option<u64>,
    /// Of `busy`, a server's: serialization failures (PostgreSQL's SQLSTATE 40001 under
    /// `repeatable read` or `serializable`; DuckDB's transaction conflicts), deadlocks the
    /// server broke (PostgreSQL 40P01, MariaDB 1213) and lock waits that ran out (MariaDB 1205,
    /// PostgreSQL 55P03). `None` where none happened, and in runs stored before they were
    /// counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_serialization: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_deadlock: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_lock_wait: Option<u64>,
    /// Wall time of the phases of this type, nanoseconds.
    pub elapsed_ns: u64,
    pub latency: Latency,
    /// What the VFS shim counted during this type's phases.
    pub io: IoSnapshot,
    /// The latency histogram, HDR V2 + deflate, base64: lets runs merge percentiles exactly.
    pub histogram: String,
    /// Instructions this type's phases executed, counted under callgrind (`--measure
    /// instructions`), for workloads that run each type as a phase of its own (suites such as
    /// `speedtest`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u64>,
    /// Of `instructions`, those of SQLite's library (a build loaded as its own object) and its
    /// calls into the C library: the rest are litebench's own. Absent where SQLite is linked
    /// into litebench, or instructions were not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_instructions: Option<u64>,
    /// Tries beyond the first of transactions that met a lock (`--max-tries`); the time of
    /// failed tries is inside the transaction's latency. Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u64,
    /// Open loop with `--latency-limit`: transactions skipped because they were already later
    /// than the limit when their turn came; not in `ops`. Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u64,
    /// Open loop with `--latency-limit`: completed transactions slower than the limit, from
    /// their intended start; in `ops`. Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub late: u64,
    /// Open loop: how late transactions started against their schedule (actual minus intended
    /// start). Absent in closed loops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag: Option<Latency>,
    /// The schedule lag's histogram, in the form of [`OpResult::histogram`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_histogram: Option<String>,
    /// SQLite's lock waits: how long each transaction that waited slept in SQLite's busy
    /// handler before it got its locks or gave up, summed
    /// over its tries (the `--retry-backoff` waits between tries are not in it); see
    /// docs/load.md "Locks and retries". Only the transactions that waited, completed or given
    /// up busy, are in it; absent when none waited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_wait: Option<Latency>,
    /// The busy waits' histogram (nanoseconds), in the form of [`OpResult::histogram`]: its
    /// count is the transactions that waited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_wait_histogram: Option<String>,
    /// The operation type this one is a part of (a script's statement, timed inside its
    /// script's transaction, as pgbench `-r` reports it): its operations are already counted in
    /// that type's, so the trial's totals ("all") leave it out. Absent for whole operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_of: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One operation type of a trial: its name, and the type it is a part of, if any (see
/// [`OpResult::part_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpType {
    pub name: &'static str,
    pub part_of: Option<&'static str>,
}

impl OpType {
    /// Whole operation types with these names.
    pub fn whole(names: &[&'static str]) -> Vec<OpType> {
        names.iter().map(|&name| OpType { name, part_of: None }).collect()
    }
}

impl OpResult {
    /// True when this operation type counts in the figures of `operation`: itself, "all"
    /// (every whole operation type, not the parts of one), or a cast role's `ROLE:all` (every
    /// whole operation type of the role, [`crate::model::role_op::role_total`]).
    pub fn counts_in(&self, operation: &str) -> bool {
        compared();
        if operation == "all" {
            self.part_of.is_none()
        } else if let Some(role) = super::role_op::role_total(operation) {
            self.part_of.is_none() && super::role_op::role_of(&self.name) == Some(role)
        } else {
            self.name == operation
        }
    }

    /// Completed operations that succeeded (all of them in runs stored before litebench
    /// counted successes).
    pub fn succeeded(&self) -> u64 {
        self.succeeded.unwrap_or(self.ops)
    }

    /// Operations per second of measured time (0 when nothing was measured).
    pub fn throughput(&self) -> f64 {
        if self.elapsed_ns == 0 {
            0.0
        } else {
            self.ops as f64 / (self.elapsed_ns as f64 / 1e9)
        }
    }
}

#[cfg(test)]
thread_local! {
    static COMPARED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts one comparison of an operation type against a name, in tests: a report's work per
/// operation type is asserted by this count (issue 45: a summary of 20,000 statements made
/// 20,000 scans of 20,000 types per trial), never by a time. Nothing outside tests.
#[inline(always)]
pub fn compared() {
    #[cfg(test)]
    COMPARED.with(|c| c.set(c.get() + 1));
}

/// The comparisons [`compared`] counted on this thread so far.
#[cfg(test)]
pub fn comparisons() -> u64 {
    COMPARED.with(std::cell::Cell::get)
}

/// The form [`OpResult::histogram`] stores: HDR V2 + deflate, base64 (standard alphabet, padded).
pub fn encode(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    if V2DeflateSerializer::new().serialize(h, &mut buf).is_err() {
        return String::new();
    }
    BASE64.encode(&buf)
}

/// Decodes a histogram stored by [`OpResult`].
pub fn decode(s: &str) -> Option<Histogram<u64>> {
    let bytes = BASE64.decode(s).ok()?;
    Deserializer::new().deserialize(&mut &bytes[..]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 32, item 4. A record stored before busy failures were counted by cause loads, with
    /// the causes unknown (null), never 0; a new one keeps its counts.
    #[test]
    fn records_stored_before_busy_causes_load_with_the_causes_unknown() {
        let mut old = serde_json::to_value(OpResult {
            name: "w".into(),
            failed: 3,
            busy: 3,
            ..Default::default()
        })
        .unwrap();
        for cause in ["busy_timeout", "busy_upgrade", "busy_snapshot"] {
            assert!(old.as_object_mut().unwrap().remove(cause).is_some(), "{cause}");
        }
        let o: OpResult = serde_json::from_value(old).unwrap();
        assert_eq!(o.busy, 3);
        assert_eq!((o.busy_timeout, o.busy_upgrade, o.busy_snapshot), (None, None, None));
        let new = OpResult {
            busy_timeout: Some(0),
            busy_upgrade: Some(2),
            busy_snapshot: Some(1),
            ..o
        };
        let back: OpResult = serde_json::from_str(&serde_json::to_string(&new).unwrap()).unwrap();
        assert_eq!(
            (back.busy_timeout, back.busy_upgrade, back.busy_snapshot),
            (Some(0), Some(2), Some(1))
        );
    }

    #[test]
    fn histograms_round_trip_through_their_text_form() {
        let mut h = new_histogram();
        for ns in [1, 999, 30_000, 7_000_000, MAX_NS] {
            h.record(ns).unwrap();
        }
        let text = encode(&h);
        assert!(
            text.len().is_multiple_of(4) && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)),
            "{text}"
        );
        let back = decode(&text).unwrap();
        assert_eq!(back, h);
        assert_eq!(Latency::of(&back), Latency::of(&h));
        assert!(decode("not base64!").is_none());
    }
}
