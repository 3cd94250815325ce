//! SQLite's knobs: the pragmas litebench sets by name, the optimizer switches (see
//! [`super::optimizer`]), and the prefix for any other pragma.

use super::optimizer::OPTIMIZATIONS;
use crate::model::knob::{KnobKind, KnobSpec, Stage};

/// The knobs set through `sqlite3_test_control`, not a pragma.
pub const OPTIMIZER_KNOBS: &[&str] = &["bloom_filter", "disable_optimizations"];

/// The knob that picks how the `blob` workload reaches blobs: litebench's own setting on the
/// connection, not a pragma.
pub const BLOB_API_KNOB: &str = "blob_api";

/// Every named SQLite knob, in the order they are applied (locking mode before journal mode,
/// journal mode before the WAL settings).
pub const SQLITE_KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "page_size",
        kind: KnobKind::PowerOfTwo { min: 512, max: 65536 },
        stage: Stage::Create,
        default: "4096",
        help: "bytes per database page; applied when the template is created",
    },
    KnobSpec {
        name: "auto_vacuum",
        kind: KnobKind::Choice(&["none", "full", "incremental"]),
        stage: Stage::Create,
        default: "none",
        help: "free-page handling; applied when the template is created",
    },
    KnobSpec {
        name: "locking_mode",
        kind: KnobKind::Choice(&["normal", "exclusive"]),
        stage: Stage::Connect,
        default: "normal",
        help: "exclusive keeps the lock (and skips the -shm file in WAL mode)",
    },
    KnobSpec {
        name: "journal_mode",
        kind: KnobKind::Choice(&["delete", "truncate", "persist", "memory", "wal", "off"]),
        stage: Stage::Connect,
        default: "delete",
        help: "rollback journal or write-ahead log",
    },
    KnobSpec {
        name: "synchronous",
        kind: KnobKind::Choice(&["off", "normal", "full", "extra"]),
        stage: Stage::Connect,
        default: "full",
        help: "how often SQLite waits for the storage (fsync)",
    },
    KnobSpec {
        name: "journal_size_limit",
        kind: KnobKind::Int { min: -1, max: i64::MAX },
        stage: Stage::Connect,
        default: "-1",
        help: "bytes of journal/WAL kept after a transaction or checkpoint (-1: no limit)",
    },
    KnobSpec {
        name: "wal_autocheckpoint",
        kind: KnobKind::Int {
            min: 0,
            max: i32::MAX as i64,
        },
        stage: Stage::Connect,
        default: "1000",
        help: "WAL pages that trigger an automatic checkpoint (0: never)",
    },
    KnobSpec {
        name: "cache_size",
        kind: KnobKind::Int {
            min: i32::MIN as i64 + 1,
            max: i32::MAX as i64,
        },
        stage: Stage::Connect,
        default: "-2000",
        help: "page cache: pages if positive, KiB if negative",
    },
    KnobSpec {
        name: "mmap_size",
        kind: KnobKind::Int { min: 0, max: i64::MAX },
        stage: Stage::Connect,
        default: "0",
        help: "bytes of the database read through mmap (clamped to the build's SQLITE_MAX_MMAP_SIZE)",
    },
    KnobSpec {
        name: "temp_store",
        kind: KnobKind::Choice(&["default", "file", "memory"]),
        stage: Stage::Connect,
        default: "default",
        help: "where temporary tables and indices live",
    },
    KnobSpec {
        name: "foreign_keys",
        kind: KnobKind::Bool,
        stage: Stage::Connect,
        default: "off",
        help: "enforce foreign key constraints",
    },
    KnobSpec {
        name: "busy_timeout",
        kind: KnobKind::Int {
            min: 0,
            max: i32::MAX as i64,
        },
        stage: Stage::Connect,
        default: "0",
        help: "milliseconds to wait for a lock before SQLITE_BUSY",
    },
    KnobSpec {
        name: "bloom_filter",
        kind: KnobKind::Bool,
        stage: Stage::Connect,
        default: "on",
        help: "Bloom filters on star joins (3.38.0+); off through sqlite3_test_control, checked in the plan",
    },
    KnobSpec {
        name: "disable_optimizations",
        kind: KnobKind::Flags(OPTIMIZATIONS),
        stage: Stage::Connect,
        default: "none",
        help: "optimizer switches to turn off (3.38.0+), names joined by '+'; see docs/knobs.md",
    },
    KnobSpec {
        name: BLOB_API_KNOB,
        kind: KnobKind::Choice(super::blob::BlobApi::NAMES),
        stage: Stage::Connect,
        default: "sql",
        help: "how the blob workload reads and writes: SELECT/UPDATE (sql) or sqlite3_blob_* (incremental); other workloads ignore it",
    },
];

/// Prefix that passes any other pragma through: `--knob pragma.cell_size_check=on`.
pub const PASSTHROUGH_PREFIX: &str = "pragma.";

/// Pragmas that set the whole SQLite library, not one connection: as pass-through knobs they
/// would apply to every configuration of a run and to litebench's own results store (a
/// `hard_heap_limit` of 1 byte makes the store fail with "out of memory"), so they are
/// refused, with why. `threads` is not here: it sets `SQLITE_LIMIT_WORKER_THREADS` of the
/// connection it runs on only.
pub const PROCESS_WIDE_PRAGMAS: &[(&str, &str)] = &[
    ("hard_heap_limit", "sets the heap limit of the whole SQLite library"),
    ("soft_heap_limit", "sets the heap limit of the whole SQLite library"),
    ("temp_store_directory", "sets SQLite's global temporary directory"),
    ("data_store_directory", "sets SQLite's global data directory"),
];
