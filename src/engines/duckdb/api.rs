//! A table of function pointers over DuckDB's C API, one per loaded library.
//!
//! DuckDB used to be compiled into litebench from C++ sources (the `duckdb` crate, `bundled`):
//! 30 to 90 minutes of every cold build and CI run. Instead, like another SQLite build
//! (`sqlite/api.rs`), DuckDB is a shared library `dlopen`ed at run time and called only through
//! an [`Api`] filled from it. Each library gets its own table, leaked for the life of the
//! process (DuckDB's threads and caches must outlive every handle), so two DuckDB releases can
//! run side by side in one run. The library is opened `RTLD_LOCAL`: each release keeps its own
//! symbols.
//!
//! Every symbol records the release that made it stable (the `history` notes of `duckdb.h`).
//! All are required; the newest ([`MIN_VERSION`]) bounds the oldest DuckDB litebench loads. A
//! file that is not a DuckDB library is refused in one line naming the path and what is wrong.
//! What is loaded is a file already opened and checked ([`crate::sys::trusted`]), through its
//! descriptor: a library runs code the moment it is loaded, before it could be asked anything.

use crate::sys::trusted::{self, Checked, TrustError};
use std::ffi::{c_char, c_void, CStr};
use std::path::Path;

/// The oldest DuckDB litebench loads: 1.2.0 made `duckdb_appender_add_column` stable, which the
/// bulk loads need.
pub const MIN_VERSION: (u32, u32, u32) = (1, 2, 0);

/// `duckdb_state`: `DuckDBSuccess` is 0.
pub type State = u32;
pub const SUCCESS: State = 0;

/// `idx_t`.
pub type Idx = u64;

/// Opaque handles (`duckdb_database`, `duckdb_connection`, ...): pointers to DuckDB's wrappers.
pub type Database = *mut c_void;
pub type Conn = *mut c_void;
pub type Config = *mut c_void;
pub type Prepared = *mut c_void;
pub type Appender = *mut c_void;
pub type DataChunk = *mut c_void;
pub type Vector = *mut c_void;
pub type LogicalType = *mut c_void;

/// `duckdb_result`, passed by pointer and (to `duckdb_fetch_chunk`) by value.
#[repr(C)]
#[derive(Debug)]
pub struct DuckResult {
    pub deprecated_column_count: Idx,
    pub deprecated_row_count: Idx,
    pub deprecated_rows_changed: Idx,
    pub deprecated_columns: *mut c_void,
    pub deprecated_error_message: *mut c_char,
    pub internal_data: *mut c_void,
}

impl DuckResult {
    /// A result for DuckDB to fill.
    pub fn empty() -> DuckResult {
        DuckResult {
            deprecated_column_count: 0,
            deprecated_row_count: 0,
            deprecated_rows_changed: 0,
            deprecated_columns: std::ptr::null_mut(),
            deprecated_error_message: std::ptr::null_mut(),
            internal_data: std::ptr::null_mut(),
        }
    }

    /// A bitwise copy, for the calls that take the result by value (DuckDB reads only
    /// `internal_data` from it; the original still owns everything).
    pub fn by_value(&self) -> DuckResult {
        DuckResult { ..*self }
    }
}

/// `duckdb_type` values litebench reads.
pub mod types {
    pub const BOOLEAN: u32 = 1;
    pub const TINYINT: u32 = 2;
    pub const SMALLINT: u32 = 3;
    pub const INTEGER: u32 = 4;
    pub const BIGINT: u32 = 5;
    pub const UTINYINT: u32 = 6;
    pub const USMALLINT: u32 = 7;
    pub const UINTEGER: u32 = 8;
    pub const UBIGINT: u32 = 9;
    pub const FLOAT: u32 = 10;
    pub const DOUBLE: u32 = 11;
    pub const HUGEINT: u32 = 16;
    pub const VARCHAR: u32 = 17;
    pub const BLOB: u32 = 18;
    pub const DECIMAL: u32 = 19;
    pub const UHUGEINT: u32 = 32;

    /// The SQL name of a `duckdb_type`, for errors.
    pub fn name(t: u32) -> &'static str {
        match t {
            12 => "TIMESTAMP",
            13 => "DATE",
            14 => "TIME",
            15 => "INTERVAL",
            20..=22 => "TIMESTAMP",
            23 => "ENUM",
            24 => "LIST",
            25 => "STRUCT",
            26 => "MAP",
            27 => "UUID",
            28 => "UNION",
            29 => "BIT",
            30 => "TIMETZ",
            31 => "TIMESTAMPTZ",
            33 => "ARRAY",
            35 => "BIGNUM",
            _ => "value of this type",
        }
    }
}

/// One entry of the table: a C symbol and the DuckDB release that made it stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    pub name: &'static str,
    pub since: &'static str,
}

macro_rules! api_table {
    ($($field:ident : fn($($arg:ty),*) -> $ret:ty = $sym:ident, $since:literal;)*) => {
        /// Function pointers of one DuckDB library, plus where it came from.
        pub struct Api {
            /// The path of the loaded shared library.
            pub origin: String,
            $(#[doc = concat!("`", stringify!($sym), "`, stable since DuckDB ", $since, ".")]
              pub $field: unsafe extern "C" fn($($arg),*) -> $ret,)*
            /// `duckdb_prepared_statement_column_count` and `_column_name` (DuckDB 1.4.0): a
            /// prepared statement's result column names (a script's `\gset`), where the library
            /// has them; the symbols not required (older releases run everything else).
            pub prepared_columns: Option<(
                unsafe extern "C" fn(Prepared) -> Idx,
                unsafe extern "C" fn(Prepared, Idx) -> *mut c_char,
            )>,
        }

        /// Every symbol the table uses.
        pub const SYMBOLS: &[Symbol] = &[$(Symbol { name: stringify!($sym), since: $since },)*];

        impl Api {
            fn from_library(lib: &'static libloading::Library, origin: &str, spec: &str) -> Result<Api, LoadError> {
                Ok(Api {
                    origin: origin.to_string(),
                    // SAFETY: the signatures are the ones duckdb.h declares; the library is
                    // leaked, so the pointers stay valid for the process.
                    prepared_columns: unsafe {
                        let count = lib.get::<unsafe extern "C" fn(Prepared) -> Idx>(
                            b"duckdb_prepared_statement_column_count\0",
                        );
                        let name = lib.get::<unsafe extern "C" fn(Prepared, Idx) -> *mut c_char>(
                            b"duckdb_prepared_statement_column_name\0",
                        );
                        count.ok().zip(name.ok()).map(|(c, n)| (*c, *n))
                    },
                    $($field: {
                        // SAFETY: the signature is the one duckdb.h declares; the library is
                        // leaked, so the pointer stays valid for the process.
                        let sym: libloading::Symbol<unsafe extern "C" fn($($arg),*) -> $ret> =
                            unsafe { lib.get(concat!(stringify!($sym), "\0").as_bytes()) }
                                .map_err(|_| LoadError::MissingSymbol {
                                    spec: spec.to_string(),
                                    symbol: stringify!($sym),
                                    since: $since,
                                })?;
                        *sym
                    },)*
                })
            }
        }
    };
}

api_table! {
    library_version: fn() -> *const c_char = duckdb_library_version, "0.6.0";
    create_config: fn(*mut Config) -> State = duckdb_create_config, "0.2.8";
    set_config: fn(Config, *const c_char, *const c_char) -> State = duckdb_set_config, "0.2.8";
    destroy_config: fn(*mut Config) -> () = duckdb_destroy_config, "0.2.8";
    open_ext: fn(*const c_char, *mut Database, Config, *mut *mut c_char) -> State = duckdb_open_ext, "0.2.8";
    close: fn(*mut Database) -> () = duckdb_close, "0.1.0";
    connect: fn(Database, *mut Conn) -> State = duckdb_connect, "0.1.0";
    disconnect: fn(*mut Conn) -> () = duckdb_disconnect, "0.1.0";
    interrupt: fn(Conn) -> () = duckdb_interrupt, "0.9.0";
    query: fn(Conn, *const c_char, *mut DuckResult) -> State = duckdb_query, "0.1.0";
    destroy_result: fn(*mut DuckResult) -> () = duckdb_destroy_result, "0.1.0";
    result_error: fn(*mut DuckResult) -> *const c_char = duckdb_result_error, "0.2.9";
    column_count: fn(*mut DuckResult) -> Idx = duckdb_column_count, "0.2.9";
    rows_changed: fn(*mut DuckResult) -> Idx = duckdb_rows_changed, "0.2.9";
    column_logical_type: fn(*mut DuckResult, Idx) -> LogicalType = duckdb_column_logical_type, "0.3.3";
    get_type_id: fn(LogicalType) -> u32 = duckdb_get_type_id, "0.3.3";
    decimal_scale: fn(LogicalType) -> u8 = duckdb_decimal_scale, "0.3.3";
    decimal_internal_type: fn(LogicalType) -> u32 = duckdb_decimal_internal_type, "0.3.3";
    destroy_logical_type: fn(*mut LogicalType) -> () = duckdb_destroy_logical_type, "0.3.3";
    fetch_chunk: fn(DuckResult) -> DataChunk = duckdb_fetch_chunk, "1.0.0";
    data_chunk_get_size: fn(DataChunk) -> Idx = duckdb_data_chunk_get_size, "0.3.3";
    data_chunk_get_vector: fn(DataChunk, Idx) -> Vector = duckdb_data_chunk_get_vector, "0.3.3";
    destroy_data_chunk: fn(*mut DataChunk) -> () = duckdb_destroy_data_chunk, "0.3.3";
    vector_get_data: fn(Vector) -> *mut c_void = duckdb_vector_get_data, "0.3.3";
    vector_get_validity: fn(Vector) -> *mut u64 = duckdb_vector_get_validity, "0.3.3";
    prepare: fn(Conn, *const c_char, *mut Prepared) -> State = duckdb_prepare, "0.1.0";
    prepare_error: fn(Prepared) -> *const c_char = duckdb_prepare_error, "0.2.8";
    destroy_prepare: fn(*mut Prepared) -> () = duckdb_destroy_prepare, "0.1.0";
    bind_int64: fn(Prepared, Idx, i64) -> State = duckdb_bind_int64, "0.1.0";
    bind_double: fn(Prepared, Idx, f64) -> State = duckdb_bind_double, "0.1.0";
    bind_varchar_length: fn(Prepared, Idx, *const c_char, Idx) -> State = duckdb_bind_varchar_length, "0.2.5";
    bind_blob: fn(Prepared, Idx, *const c_void, Idx) -> State = duckdb_bind_blob, "0.2.5";
    bind_null: fn(Prepared, Idx) -> State = duckdb_bind_null, "0.1.2";
    execute_prepared: fn(Prepared, *mut DuckResult) -> State = duckdb_execute_prepared, "0.1.0";
    appender_create: fn(Conn, *const c_char, *const c_char, *mut Appender) -> State = duckdb_appender_create, "0.2.5";
    appender_add_column: fn(Appender, *const c_char) -> State = duckdb_appender_add_column, "1.2.0";
    appender_error: fn(Appender) -> *const c_char = duckdb_appender_error, "0.2.9";
    appender_end_row: fn(Appender) -> State = duckdb_appender_end_row, "0.2.5";
    appender_flush: fn(Appender) -> State = duckdb_appender_flush, "0.2.5";
    appender_destroy: fn(*mut Appender) -> State = duckdb_appender_destroy, "0.2.5";
    append_int64: fn(Appender, i64) -> State = duckdb_append_int64, "0.2.5";
    append_double: fn(Appender, f64) -> State = duckdb_append_double, "0.2.5";
    append_varchar_length: fn(Appender, *const c_char, Idx) -> State = duckdb_append_varchar_length, "0.2.5";
    append_blob: fn(Appender, *const c_void, Idx) -> State = duckdb_append_blob, "0.2.5";
    append_null: fn(Appender) -> State = duckdb_append_null, "0.2.5";
    free: fn(*mut c_void) -> () = duckdb_free, "0.2.7";
}

/// Why a file could not be used as DuckDB. `spec` is the `--engine` value it came from.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("--engine {spec}: cannot load {path} ({reason}); give the path of a libduckdb.so, e.g. duckdb:/opt/duckdb/libduckdb.so")]
    Open { spec: String, path: String, reason: String },
    #[error("--engine {spec}: {source}")]
    Untrusted {
        spec: String,
        #[source]
        source: TrustError,
    },
    #[error("--engine {spec}: {path} is not a DuckDB library (it has no `duckdb_library_version`); give the path of a libduckdb.so")]
    NotDuckdb { spec: String, path: String },
    #[error("--engine {spec}: this DuckDB library has no `{symbol}` (stable in DuckDB since {since}); give the path of a libduckdb.so of DuckDB {}.{}.{} or newer", MIN_VERSION.0, MIN_VERSION.1, MIN_VERSION.2)]
    MissingSymbol {
        spec: String,
        symbol: &'static str,
        since: &'static str,
    },
    #[error("--engine {spec}: {path} needs {library} loaded first, which cannot be loaded ({reason}); install the Debian package {debian}")]
    Needs {
        spec: String,
        path: String,
        library: String,
        debian: String,
        reason: String,
    },
    #[error("--engine {spec}: DuckDB {version} is too old: litebench needs {}.{}.{} or newer", MIN_VERSION.0, MIN_VERSION.1, MIN_VERSION.2)]
    TooOld { spec: String, version: String },
}

/// A `vX.Y.Z[-suffix]` version as numbers (`None` if it is not one).
pub fn version_triple(v: &str) -> Option<(u32, u32, u32)> {
    let v = v.trim().trim_start_matches('v');
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next().flatten().unwrap_or(0)))
}

impl Api {
    /// Opens the library a user named (`duckdb:<path>`) for [`Api::load`]: a regular file, and
    /// as root one of root's that nobody else can write ([`trusted::open_given`]).
    pub fn open_path(path: &Path, spec: &str) -> Result<Checked, LoadError> {
        let open_error = |reason: String| LoadError::Open {
            spec: spec.to_string(),
            path: path.display().to_string(),
            reason,
        };
        if !path.is_file() {
            return Err(open_error(
                if path.is_dir() {
                    "it is a directory"
                } else {
                    "no such file"
                }
                .into(),
            ));
        }
        trusted::open_given(path, trusted::Becomes::Library).map_err(|e| match e {
            TrustError::Io { source, .. } => open_error(source.to_string()),
            refused => LoadError::Untrusted {
                spec: spec.to_string(),
                source: refused,
            },
        })
    }

    /// [`Api::open_path`], then [`Api::load`].
    pub fn load_path(path: &Path, spec: &str, preload: Option<(&str, &str)>) -> Result<&'static Api, LoadError> {
        Api::load(Api::open_path(path, spec)?, spec, preload)
    }

    /// Loads the DuckDB library `file`, opened and checked by the caller (`spec` is what the
    /// command line said, for errors): the loader opens that very file through its descriptor,
    /// so nothing can be swapped in after the check. `preload` (`(dlopen name, Debian
    /// package)`), if given, is loaded globally first: a Python extension module leaves
    /// libpython's symbols to the process. The libraries stay loaded for the life of the process.
    pub fn load(file: Checked, spec: &str, preload: Option<(&str, &str)>) -> Result<&'static Api, LoadError> {
        let origin = file.path().display().to_string();
        let loader_path = file.loader_path();
        let open_error = |reason: String| LoadError::Open {
            spec: spec.to_string(),
            path: origin.clone(),
            reason,
        };
        // Before the loader maps it: a library cut short would kill the process with SIGBUS.
        crate::sys::elf::check_shared_object(&loader_path).map_err(&open_error)?;
        if let Some((library, debian)) = preload {
            load_global(library).map_err(|reason| LoadError::Needs {
                spec: spec.to_string(),
                path: origin.clone(),
                library: library.to_string(),
                debian: debian.to_string(),
                reason,
            })?;
        }
        // SAFETY: loading a library runs its initialisers; DuckDB's set up only its own state.
        // libloading opens with RTLD_LOCAL | RTLD_NOW: every reference resolved now, and its
        // symbols kept away from other DuckDB releases and from litebench's own.
        let lib = unsafe { libloading::Library::new(&loader_path) }
            .map_err(|e| open_error(one_line_reason(&loader_message(&e), &loader_path)))?;
        // The loader knows the library by its descriptor's name from now on.
        file.keep_open();
        // SAFETY: the signature duckdb.h declares.
        let version_fn = unsafe { lib.get::<unsafe extern "C" fn() -> *const c_char>(b"duckdb_library_version\0") }
            .map(|f| *f)
            .map_err(|_| LoadError::NotDuckdb {
                spec: spec.to_string(),
                path: origin.clone(),
            })?;
        let lib: &'static libloading::Library = Box::leak(Box::new(lib));
        // SAFETY: returns a static NUL-terminated string.
        let version = unsafe { cstr(version_fn()) };
        match version_triple(&version) {
            Some(v) if v >= MIN_VERSION => {}
            _ => {
                return Err(LoadError::TooOld {
                    spec: spec.to_string(),
                    version,
                })
            }
        }
        let api = Api::from_library(lib, &origin, spec)?;
        Ok(Box::leak(Box::new(api)))
    }

    /// `duckdb_library_version()`: `v1.5.6`.
    pub fn version(&self) -> String {
        // SAFETY: returns a static NUL-terminated string.
        unsafe { cstr((self.library_version)()) }
    }
}

/// Loads `name` with its symbols global (RTLD_GLOBAL), for a library loaded after it to use,
/// once per process. Loading libpython runs no Python: the interpreter starts only when
/// `Py_Initialize` is called, and nothing here calls it.
fn load_global(name: &str) -> Result<(), String> {
    use std::sync::Mutex;
    static LOADED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    if loaded.iter().any(|l| l == name) {
        return Ok(());
    }
    // SAFETY: a system library, whose initialisers only set up its own state.
    let lib = unsafe { libloading::os::unix::Library::open(Some(name), libc::RTLD_NOW | libc::RTLD_GLOBAL) }
        .map_err(|e| loader_message(&e))?;
    // Kept for the life of the process: the DuckDB library binds to its symbols.
    std::mem::forget(lib);
    loaded.push(name.to_string());
    Ok(())
}

/// What a Python extension module of DuckDB (`_duckdb.cpython-311-x86_64-linux-gnu.so`, the
/// wheel's) needs loaded first: its Python's libpython and the Debian package that has it.
pub fn python_needs(path: &Path) -> Option<(String, String)> {
    let name = path.file_name()?.to_str()?;
    let minor = name.strip_prefix("_duckdb.cpython-3")?.split('-').next()?;
    minor.parse::<u32>().ok()?;
    Some((format!("libpython3.{minor}.so.1.0"), format!("libpython3.{minor}")))
}

/// libloading's error with the loader's own words (its `source`).
fn loader_message(e: &libloading::Error) -> String {
    match std::error::Error::source(e) {
        Some(s) => s.to_string(),
        None => e.to_string(),
    }
}

/// The dynamic loader's message without the path it repeats (the error names the path once).
fn one_line_reason(message: &str, path: &Path) -> String {
    let shown = path.display().to_string();
    let m = message.replace('\n', " ");
    let m = m.strip_prefix(&format!("{shown}: ")).unwrap_or(&m);
    m.trim().to_string()
}

/// Copies a C string owned by DuckDB into a `String` (lossy for invalid UTF-8).
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string valid for the call.
pub unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_as_numbers() {
        assert_eq!(version_triple("v1.5.6"), Some((1, 5, 6)));
        assert_eq!(version_triple("1.4.0-dev123"), Some((1, 4, 0)));
        assert_eq!(version_triple("v2.0"), Some((2, 0, 0)));
        assert_eq!(version_triple("banana"), None);
        assert!(version_triple("v1.1.3").unwrap() < MIN_VERSION);
    }

    #[test]
    fn python_modules_name_their_libpython() {
        let p = Path::new("/c/_duckdb.cpython-311-x86_64-linux-gnu.so");
        assert_eq!(
            python_needs(p),
            Some(("libpython3.11.so.1.0".into(), "libpython3.11".into()))
        );
        assert_eq!(python_needs(Path::new("/c/libduckdb.so")), None);
        let e = Api::load_path(
            Path::new("/nonexistent"),
            "duckdb@2.0.0",
            Some(("libnosuch.so.9", "nosuch")),
        );
        assert!(e.err().unwrap().to_string().contains("no such file"));
        assert!(load_global("libnosuch-litebench.so.9").is_err());
    }

    #[test]
    fn every_symbol_is_stable_by_the_minimum() {
        for s in SYMBOLS {
            assert!(version_triple(s.since).unwrap() <= MIN_VERSION, "{}", s.name);
        }
        assert!(SYMBOLS.iter().any(|s| version_triple(s.since) == Some(MIN_VERSION)));
    }

    #[test]
    fn files_that_are_not_duckdb_are_refused_in_one_line() {
        let t = tempfile::tempdir().unwrap();
        let text = t.path().join("libduckdb.so");
        std::fs::write(&text, "not a library\n").unwrap();
        let e = Api::load_path(&text, "duckdb:x", None).err().unwrap().to_string();
        assert!(
            e.starts_with("--engine duckdb:x: cannot load") && !e.contains('\n'),
            "{e}"
        );
        assert!(e.contains(&text.display().to_string()), "{e}");
        let e = Api::load_path(t.path(), "duckdb:x", None).err().unwrap().to_string();
        assert!(e.contains("it is a directory"), "{e}");
        let e = Api::load_path(&t.path().join("none.so"), "duckdb:x", None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no such file"), "{e}");
    }
}
