//! What identifies the engine behind a number: its kind and version, and for a SQLite build its
//! source id, compile options and (for a `build-sqlite` library) how it was compiled; and the
//! per-loop profile a SQLite build reports for a query. Recorded in every manifest.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One engine (build or server) used by the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineInfo {
    pub label: String,
    /// `sqlite`, `postgres`, `mysql`, `duckdb`.
    pub kind: String,
    pub version: String,
    /// For SQLite builds: version, source id, compile options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqlite: Option<SqliteBuild>,
    /// For other engines: server version string, data directory, settings of note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
    /// Whether litebench's VFS shim counted its I/O (absent in runs stored before this field:
    /// known from `kind`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_counted: Option<bool>,
    /// What a cold trial (`--cold`) does for this engine before each trial, whether or not this
    /// run used it (`Manifest::cold_cache` says whether it did); absent for an engine that
    /// cannot run cold trials, and in runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_trial: Option<String>,
}

/// Identity of one SQLite build, recorded in every result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqliteBuild {
    /// `bundled`, or the path of the shared library.
    pub origin: String,
    /// `sqlite_version()`.
    pub version: String,
    /// `sqlite_source_id()`: the exact check-in the build came from.
    pub source_id: String,
    /// Every `PRAGMA compile_options` entry.
    pub compile_options: Vec<String>,
    /// Interfaces of newer SQLite releases this build lacks, as `symbol (since version)`;
    /// litebench falls back to older ones (see `api`). Empty for current builds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<String>,
    /// `libsql_libversion()` of a libSQL library (absent for SQLite's own builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libsql_version: Option<String>,
    /// For a library `litebench build-sqlite` compiled (`--engine sqlite@NAME`): its flags,
    /// compiler and footprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<CompiledBuild>,
}

/// Everything recorded about one compiled library (its `build.json`, and the manifest of every
/// run that uses it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledBuild {
    /// What `--engine sqlite@NAME` calls it.
    pub name: String,
    /// SHA-256 of source, flags and compiler version.
    pub key: String,
    /// `SQLITE_VERSION` of the source.
    pub version: String,
    /// `LIBSQL_VERSION` of a libSQL source (absent for SQLite's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libsql_version: Option<String>,
    /// `SRC` as given to `build-sqlite`.
    pub source: String,
    pub source_sha256: String,
    /// SHA3-256 of the source (what SQLite and the release catalogue publish): a release
    /// selected by number loads only a build whose source is one the catalogue pins. Absent in
    /// records of older litebench versions (written when the same build is asked for again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_sha3_256: Option<String>,
    /// The registry archive a catalogued release came from (`npm sqlite3@2.0.18`); absent for a
    /// file the user gave and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Whether that archive's `sqlite3.c` is SQLite's own, byte for byte (false: a package's
    /// regenerated amalgamation, labelled modified); absent where `origin` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pristine: Option<bool>,
    /// Every compiler flag, in order (`-shared -fPIC -Os ...user flags`).
    pub flags: Vec<String>,
    pub compiler: String,
    pub compiler_version: String,
    /// Wall time of the compiler call.
    pub compile_ms: u64,
    /// Peak resident memory of the largest compiler process.
    pub peak_compile_kib: u64,
    pub library_bytes: u64,
    /// Size of the library's `.text` section (its machine code), bytes: what the code of one
    /// release or set of flags costs against another's, without symbols and data. Absent in
    /// the records of older litebench versions (read from the library when they are listed or
    /// loaded) and where the library has no section headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_bytes: Option<u64>,
    /// Where the library is: always `<cache>/sqlite/<key prefix>/libsqlite3.so`, the place the
    /// cache reads it from (a record naming another place is not believed).
    pub library: PathBuf,
    /// SHA-256 of the library as compiled, checked on the file loaded (absent in the records
    /// of older litebench versions, whose builds are therefore not loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_sha256: Option<String>,
    /// UTC, RFC 3339.
    pub built_at: String,
}

/// One loop (scan, search or other step) of a query's execution with the counters the engine
/// kept for it: the nearest thing to a profiler that a stock SQLite build offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopProfile {
    /// The step's id and its parent's (0: top level), to draw the tree.
    pub id: i64,
    pub parent: i64,
    /// What the step does, as the plan names it.
    pub explain: String,
    /// Times the loop ran.
    pub loops: Option<i64>,
    /// Rows the loop visited over all its runs.
    pub rows_visited: Option<i64>,
    /// The planner's estimate of rows per run.
    pub rows_estimated: Option<f64>,
    /// CPU cycles spent in the step, where the build counts them.
    pub cycles: Option<i64>,
}

/// A loadable SQLite extension a configuration loaded into every trial connection
/// (`--knob extension=...`): which library, exactly, and what it says of itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtensionInfo {
    /// The knob's value as given (`sqlite-vec@0.1.9`, or a path).
    pub knob: String,
    /// `sqlite-vec`, `vectorlite`, or a path's file name.
    pub name: String,
    /// The pinned version; absent for a library given by path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// SHA-256 of the library loaded, read from the descriptor it was loaded through.
    pub sha256: String,
    /// Where it was loaded from (the cache, or the path given).
    pub path: String,
    /// The entry point SQLite called.
    pub entry: String,
    /// What the library reports of itself (`vec_version()`, `vectorlite_info()`); absent where
    /// it has no such function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reports: Option<String>,
}
