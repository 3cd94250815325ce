//! SQLite's knobs: the pragmas litebench sets by name, the optimizer switches (see
//! [`super::optimizer`]), and the prefix for any other pragma.

use super::optimizer::OPTIMIZATIONS;
use crate::model::knob::{KnobKind, KnobSpec, ReadBy, Stage};

/// The knobs set through `sqlite3_test_control`, not a pragma.
pub const OPTIMIZER_KNOBS: &[&str] = &["bloom_filter", "disable_optimizations"];

/// The knob that picks how the `blob` workload reaches blobs: litebench's own setting on the
/// connection, not a pragma.
pub const BLOB_API_KNOB: &str = "blob_api";

/// The loadable extension every trial connection loads ([`super::extension`]): litebench's
/// own step on the connection, not a pragma.
pub const EXTENSION_KNOB: &str = "extension";

/// Which program runs the trial's transactions (`--driver`): litebench's own loop (`rust`) or
/// a driver process with its own binding and SQLite ([`crate::model::driver`]). Not a pragma:
/// kept on the connection and read back from it, so that drivers compare as configurations.
pub const DRIVER_KNOB: &str = crate::model::driver::KNOB;

/// vectorlite's HNSW index parameters, which only the `vector` workload's statements read
/// (when it builds the index and when it asks `knn_param`): kept on the connection and read back
/// from it, so that several values compare as configurations of one run.
pub const HNSW_KNOBS: &[&str] = &["hnsw_m", "hnsw_ef_construction", "hnsw_ef_search"];

/// How write transactions start (`BEGIN DEFERRED|IMMEDIATE|EXCLUSIVE`): not a pragma, but the
/// statement the workloads issue, which the connection keeps and reads back.
pub const BEGIN_KNOB: &str = "begin";

/// The FTS5 options the `fts` workload creates its index with (`tokenize=`, `detail=`): set
/// when the template is made, so each value gets a template of its own, and read back from the
/// index's declaration ([`super::fts5::declared`]).
pub const FTS_KNOBS: &[&str] = &["fts_tokenizer", "fts_detail"];

/// How the `json` workload stores its documents (text, JSONB, or text with a generated column
/// and its index on the hot path): decided when the template is created, kept on the
/// connection and read back from it, not a pragma.
pub const JSON_STORAGE_KNOB: &str = "json_storage";

/// Which index the `rtree` workload's window and nearest queries use: an R*Tree virtual table
/// kept by triggers (the GeoPackage shape), or B-tree indexes on the coordinates.
pub const SPATIAL_INDEX_KNOB: &str = "spatial_index";

/// The knobs that pick a workload's schema when its template is created: the connection keeps
/// their values for the workload's population and reads them back.
pub const LAYOUT_KNOBS: &[&str] = &[JSON_STORAGE_KNOB, SPATIAL_INDEX_KNOB];

/// The values of [`BEGIN_KNOB`], and the statement each makes.
pub const BEGIN_MODES: &[(&str, &str)] = &[
    ("deferred", "BEGIN DEFERRED"),
    ("immediate", "BEGIN IMMEDIATE"),
    ("exclusive", "BEGIN EXCLUSIVE"),
];

/// The statement `begin=mode` makes (`immediate`: `BEGIN IMMEDIATE`); `None` for no mode of
/// [`BEGIN_MODES`].
pub fn begin_statement(mode: &str) -> Option<&'static str> {
    BEGIN_MODES.iter().find(|(n, _)| *n == mode).map(|(_, stmt)| *stmt)
}

/// Every named SQLite knob, in the order they are applied (locking mode before journal mode,
/// journal mode before the WAL settings).
pub const SQLITE_KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "page_size",
        kind: KnobKind::PowerOfTwo { min: 512, max: 65536 },
        stage: Stage::Create,
        read_by: ReadBy::Engine,
        default: "4096",
        help: "bytes per database page; applied when the template is created",
    },
    KnobSpec {
        name: "auto_vacuum",
        kind: KnobKind::Choice(&["none", "full", "incremental"]),
        stage: Stage::Create,
        read_by: ReadBy::Engine,
        default: "none",
        help: "free-page handling; applied when the template is created",
    },
    KnobSpec {
        name: "locking_mode",
        kind: KnobKind::Choice(&["normal", "exclusive"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "normal",
        help: "exclusive keeps the lock (and skips the -shm file in WAL mode)",
    },
    KnobSpec {
        name: "journal_mode",
        kind: KnobKind::Choice(&["delete", "truncate", "persist", "memory", "wal", "off"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "delete",
        help: "rollback journal or write-ahead log",
    },
    KnobSpec {
        name: "synchronous",
        kind: KnobKind::Choice(&["off", "normal", "full", "extra"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "full",
        help: "how often SQLite waits for the storage (fsync)",
    },
    KnobSpec {
        name: "journal_size_limit",
        kind: KnobKind::Int { min: -1, max: i64::MAX },
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
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
        read_by: ReadBy::Engine,
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
        read_by: ReadBy::Engine,
        default: "-2000",
        help: "page cache: pages if positive, KiB if negative",
    },
    KnobSpec {
        name: "mmap_size",
        kind: KnobKind::Int { min: 0, max: i64::MAX },
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "0",
        help: "bytes of the database read through mmap (clamped to the build's SQLITE_MAX_MMAP_SIZE)",
    },
    KnobSpec {
        name: "temp_store",
        kind: KnobKind::Choice(&["default", "file", "memory"]),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "default",
        help: "where temporary tables and indices live",
    },
    KnobSpec {
        name: "foreign_keys",
        kind: KnobKind::Bool,
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
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
        read_by: ReadBy::Engine,
        default: "0",
        help: "milliseconds to wait for a lock before SQLITE_BUSY",
    },
    KnobSpec {
        name: "query_only",
        kind: KnobKind::Bool,
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "off",
        help: "refuse every write on this connection (a reader's connection in a cast; 3.8.0+)",
    },
    KnobSpec {
        name: "bloom_filter",
        kind: KnobKind::Bool,
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "on",
        help: "Bloom filters on star joins (3.38.0+); off through sqlite3_test_control, checked in the plan",
    },
    KnobSpec {
        name: "disable_optimizations",
        kind: KnobKind::Flags(OPTIMIZATIONS),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "none",
        help: "optimizer switches to turn off (3.38.0+), names joined by '+'; see docs/knobs.md",
    },
    KnobSpec {
        name: BLOB_API_KNOB,
        kind: KnobKind::Choice(super::blob::BlobApi::NAMES),
        stage: Stage::Connect,
        read_by: ReadBy::Workload,
        default: "sql",
        help: "how the blob workload reads and writes: SELECT/UPDATE (sql) or sqlite3_blob_* (incremental); other workloads ignore it",
    },
    KnobSpec {
        name: BEGIN_KNOB,
        kind: KnobKind::Choice(&["deferred", "immediate", "exclusive"]),
        stage: Stage::Connect,
        read_by: ReadBy::Workload,
        default: "immediate",
        help: "how workloads start a transaction that writes (BEGIN DEFERRED takes the write lock at the first write, so two readers turning writers fail with SQLITE_BUSY; IMMEDIATE takes it up front); single-statement transactions (crud) are autocommit and ignore it",
    },
    KnobSpec {
        name: DRIVER_KNOB,
        kind: KnobKind::Choice(crate::model::driver::DRIVERS),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: crate::model::driver::RUST,
        help: "what runs the transactions (`--driver`): litebench's own loop (rust) or a driver process through an application's binding with its own SQLite (docs/drivers.md)",
    },
    KnobSpec {
        name: EXTENSION_KNOB,
        kind: KnobKind::Text(super::extension::ACCEPTS),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "none",
        help: "a loadable extension loaded into every trial connection (never the results store's): sqlite-vec@0.1.9 or vectorlite@0.2.0 (PyPI wheels fetched once into the cache, pinned by SHA-256), or the path of one's own library",
    },
    KnobSpec {
        name: "hnsw_m",
        kind: KnobKind::Int { min: 2, max: 128 },
        stage: Stage::Connect,
        read_by: ReadBy::Workload,
        default: "16",
        help: "vectorlite's HNSW index: links per node (M), for the vector workload's index build",
    },
    KnobSpec {
        name: "hnsw_ef_construction",
        kind: KnobKind::Int { min: 1, max: 100_000 },
        stage: Stage::Connect,
        read_by: ReadBy::Workload,
        default: "200",
        help: "vectorlite's HNSW index: candidates kept while building (ef_construction), for the vector workload",
    },
    KnobSpec {
        name: "hnsw_ef_search",
        kind: KnobKind::Int { min: 1, max: 100_000 },
        stage: Stage::Connect,
        read_by: ReadBy::Workload,
        default: "10",
        help: "vectorlite's HNSW index: candidates kept while searching (knn_param's ef), for the vector workload's queries",
    },
    KnobSpec {
        name: "fts_tokenizer",
        kind: KnobKind::Choice(&["unicode61", "porter", "trigram"]),
        stage: Stage::Create,
        read_by: ReadBy::Workload,
        default: "unicode61",
        help: "the fts workload's FTS5 tokenizer (read back from the index's declaration); other workloads refuse it",
    },
    KnobSpec {
        name: "fts_detail",
        kind: KnobKind::Choice(&["full", "column", "none"]),
        stage: Stage::Create,
        read_by: ReadBy::Workload,
        default: "full",
        help: "the fts workload's FTS5 detail= (positions kept: full; columns only; none); other workloads refuse it",
    },
    KnobSpec {
        name: JSON_STORAGE_KNOB,
        kind: KnobKind::Choice(&["text", "jsonb", "generated"]),
        stage: Stage::Create,
        read_by: ReadBy::Workload,
        default: "text",
        help: "how the json workload stores its documents: text JSON, JSONB (3.45.0+), or text with a generated column and its index on the hot field; other workloads refuse it",
    },
    KnobSpec {
        name: SPATIAL_INDEX_KNOB,
        kind: KnobKind::Choice(&["rtree", "btree"]),
        stage: Stage::Create,
        read_by: ReadBy::Workload,
        default: "rtree",
        help: "the rtree workload's index: an R*Tree kept by triggers (SQLITE_ENABLE_RTREE) or B-tree indexes on the coordinates; other workloads refuse it",
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

#[cfg(test)]
mod catalog_tests {
    //! The knob machinery of `model::knob`, exercised with SQLite's table.
    use super::{PASSTHROUGH_PREFIX, PROCESS_WIDE_PRAGMAS, SQLITE_KNOBS};
    use crate::model::knob::*;

    const SQLITE_CATALOG: KnobCatalog<'static> = KnobCatalog {
        tables: &[(SQLITE_KNOBS, PASSTHROUGH_PREFIX)],
        refused: &[(PASSTHROUGH_PREFIX, PROCESS_WIDE_PRAGMAS)],
    };

    fn spec(name: &str) -> Option<&'static KnobSpec> {
        find_spec(SQLITE_KNOBS, name)
    }

    fn parse_axis_sqlite(arg: &str) -> Result<KnobAxis, KnobError> {
        parse_axis(arg, &SQLITE_CATALOG)
    }

    #[test]
    fn parses_and_canonicalises() {
        let a = parse_axis_sqlite("journal_mode=DELETE, wal").unwrap();
        assert_eq!(a.values, vec!["delete", "wal"]);
        assert_eq!(parse_axis_sqlite("synchronous=2").unwrap().values, vec!["full"]);
        assert_eq!(parse_axis_sqlite("foreign_keys=1").unwrap().values, vec!["on"]);
        assert_eq!(
            parse_axis_sqlite("pragma.cell_size_check=on").unwrap().values,
            vec!["on"]
        );
    }

    #[test]
    fn process_wide_pragmas_are_refused_naming_why() {
        for name in [
            "hard_heap_limit",
            "soft_heap_limit",
            "temp_store_directory",
            "data_store_directory",
        ] {
            let e = parse_axis_sqlite(&format!("pragma.{name}=1")).unwrap_err();
            assert!(matches!(e, KnobError::ProcessWide { .. }), "{name}: {e}");
            let line = e.to_string();
            assert!(
                line.starts_with(&format!("--knob pragma.{name}: it "))
                    && line.contains("litebench's own results store"),
                "{line}"
            );
        }
        // A per-connection limit, like every other pass-through pragma.
        assert_eq!(parse_axis_sqlite("pragma.threads=2").unwrap().values, vec!["2"]);
    }

    #[test]
    fn rejects_bad_input_naming_valid_values() {
        let e = parse_axis_sqlite("journal_mode=fast").unwrap_err();
        assert!(
            e.to_string().contains("delete, truncate, persist, memory, wal, off"),
            "{e}"
        );
        assert!(matches!(
            parse_axis_sqlite("page_size=1000"),
            Err(KnobError::InvalidValue { .. })
        ));
        assert!(matches!(
            parse_axis_sqlite("journal_mode=1"),
            Err(KnobError::InvalidValue { .. })
        ));
        assert!(matches!(parse_axis_sqlite("nosuch=1"), Err(KnobError::Unknown { .. })));
        assert!(matches!(
            parse_axis_sqlite("journal_mode"),
            Err(KnobError::Malformed { .. })
        ));
        assert!(matches!(
            parse_axis_sqlite("journal_mode=wal,"),
            Err(KnobError::Malformed { .. })
        ));
        assert!(matches!(
            parse_axis_sqlite("pragma.x;drop=1"),
            Err(KnobError::Malformed { .. })
        ));
    }

    #[test]
    fn cross_product_and_vary_one() {
        let axes = vec![
            parse_axis_sqlite("journal_mode=delete,wal,off").unwrap(),
            parse_axis_sqlite("synchronous=full,normal").unwrap(),
        ];
        let all = configurations(&axes, false).unwrap();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0].label(), "journal_mode=delete synchronous=full");
        let one = configurations(&axes, true).unwrap();
        let labels: Vec<String> = one.iter().map(KnobSet::label).collect();
        assert_eq!(
            labels,
            vec![
                "journal_mode=delete synchronous=full",
                "journal_mode=wal synchronous=full",
                "journal_mode=off synchronous=full",
                "journal_mode=delete synchronous=normal",
            ]
        );
        assert_eq!(configurations(&[], false).unwrap(), vec![KnobSet::default()]);
        assert!(
            matches!(parse_axis_sqlite("nosuch=1"), Err(KnobError::Unknown { valid, .. }) if valid.contains("pragma.NAME=VALUE"))
        );
        let dup = vec![axes[0].clone(), axes[0].clone()];
        assert!(matches!(configurations(&dup, false), Err(KnobError::Duplicate { .. })));
    }

    #[test]
    fn too_many_configurations_are_refused_before_they_are_made() {
        let values = |name: &str, n: usize| {
            let list: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
            parse_axis_sqlite(&format!("{name}={}", list.join(","))).unwrap()
        };
        let axes = vec![values("cache_size", 101), values("busy_timeout", 100)];
        let e = configurations(&axes, false).unwrap_err();
        assert_eq!(e, KnobError::TooMany { count: 10_100 });
        assert!(
            e.to_string()
                .starts_with("--knob: the values given make 10100 configurations"),
            "{e}"
        );
        assert!(e.to_string().contains("--vary-one"), "{e}");
        assert_eq!(configurations(&axes, true).unwrap().len(), 200);
        // Exactly the limit is fine; a product that overflows any integer is refused.
        let at_limit = vec![values("cache_size", 100), values("busy_timeout", 100)];
        assert_eq!(configurations(&at_limit, false).unwrap().len(), 10_000);
        let names = [
            "cache_size",
            "busy_timeout",
            "wal_autocheckpoint",
            "mmap_size",
            "journal_size_limit",
        ];
        let huge: Vec<KnobAxis> = names.iter().map(|n| values(n, 10_000)).collect();
        assert!(matches!(configurations(&huge, false), Err(KnobError::TooMany { .. })));
    }

    #[test]
    fn application_order_puts_locking_before_journal() {
        let axes = vec![
            parse_axis_sqlite("journal_mode=wal").unwrap(),
            parse_axis_sqlite("locking_mode=exclusive").unwrap(),
        ];
        let set = configurations(&axes, false).unwrap()[0].for_engine(SQLITE_KNOBS, PASSTHROUGH_PREFIX);
        assert_eq!(set.0[0].name, "locking_mode");
    }

    #[test]
    fn flag_sets_parse_in_table_order_and_name_the_valid_flags() {
        const FLAGS: &[(&str, u32)] = &[("alpha", 1), ("beta", 2), ("gamma", 4)];
        let k = KnobKind::Flags(FLAGS);
        assert_eq!(k.canonical("gamma+ALPHA").as_deref(), Some("alpha+gamma"));
        assert_eq!(k.canonical("beta+beta").as_deref(), Some("beta"));
        assert_eq!(k.canonical("None").as_deref(), Some("none"));
        assert_eq!(k.canonical("alpha+bogus"), None);
        assert_eq!(k.canonical(""), None);
        assert_eq!(
            k.describe(),
            "none, or names joined by '+' (a+b) from: alpha, beta, gamma"
        );
        let e = parse_axis_sqlite("disable_optimizations=bogus").unwrap_err();
        let text = e.to_string();
        assert!(text.contains("disable_optimizations=bogus"), "{text}");
        assert!(text.contains("bloom_filter, bloom_pulldown"), "{text}");
        let a = parse_axis_sqlite("disable_optimizations=none,bloom_filter+skip_scan").unwrap();
        assert_eq!(a.values, vec!["none", "skip_scan+bloom_filter"]);
    }

    #[test]
    fn readback_normalises_numbers() {
        let sync = spec("synchronous").unwrap();
        assert_eq!(sync.kind.readback("1"), "normal");
        assert_eq!(spec("temp_store").unwrap().kind.readback("2"), "memory");
        assert_eq!(spec("journal_mode").unwrap().kind.readback("wal"), "wal");
        assert!(passthrough_matches("on", "1"));
        assert!(!passthrough_matches("on", "0"));
    }
}
