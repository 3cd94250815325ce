//! A table of function pointers over the SQLite C API.
//!
//! litebench compares SQLite *builds*: the bundled, pinned one and any `libsqlite3.so` named on
//! the command line. Both must go through exactly the same code, or a difference in the numbers
//! could come from the harness instead of the build. So nothing in litebench calls SQLite
//! directly: everything goes through an [`Api`], filled either from the statically linked
//! library ([`Api::bundled`]) or from a `dlopen`ed one ([`Api::load`]: a file already opened
//! and checked, loaded through its descriptor; see [`crate::sys::trusted`]).
//!
//! # Old builds
//!
//! Papers benchmark the SQLite of their day, so a loaded library may be as old as 3.7.0
//! ([`MIN_VERSION`]). Every symbol in the table records the release that added it (checked
//! against SQLite's change log). Symbols that 3.7.0 already had are required; newer ones are
//! optional (`Option` fields): litebench falls back where an older call does the same job
//! (`sqlite3_changes64` → `sqlite3_changes`, `sqlite3_errstr` → a table of result-code names),
//! lists the rest in [`Api::unavailable`], and a feature that cannot do without one reports
//! [`Unavailable`], naming the symbol and the release that added it.
//!
//! Every library is initialised with `sqlite3_initialize()` before any other call: builds made
//! with `SQLITE_OMIT_AUTOINIT` (as some papers' artifacts are) have no default VFS otherwise.

use crate::sys::trusted::{self, Checked, TrustError};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;
use std::sync::OnceLock;

pub use libsqlite3_sys::{
    sqlite3, sqlite3_backup, sqlite3_blob, sqlite3_file, sqlite3_int64, sqlite3_stmt, sqlite3_vfs,
};

/// The oldest SQLite litebench loads: 3.7.0 added WAL, the version-2 VFS and everything else
/// in the required part of the table.
pub const MIN_VERSION: (u32, u32, u32) = (3, 7, 0);
const MIN_VERSION_NUMBER: c_int = 3_007_000;

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the call returns.
pub fn transient() -> Option<unsafe extern "C" fn(*mut c_void)> {
    // SAFETY: SQLite documents ((sqlite3_destructor_type)-1) as the "copy now" marker.
    Some(unsafe { std::mem::transmute::<isize, unsafe extern "C" fn(*mut c_void)>(-1) })
}

/// An authorizer callback (`sqlite3_set_authorizer`): user data, action code, up to four
/// strings; answers `SQLITE_OK`, `SQLITE_DENY` or `SQLITE_IGNORE`.
pub type Authorizer =
    unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, *const c_char, *const c_char) -> c_int;

/// `sqlite3_exec`'s row callback: user data, columns, values, names.
pub type ExecCallback = unsafe extern "C" fn(*mut c_void, c_int, *mut *mut c_char, *mut *mut c_char) -> c_int;

/// One entry of the table: a C symbol and the SQLite release that added it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    pub name: &'static str,
    /// The first release that has it (from SQLite's change log).
    pub since: &'static str,
    /// Whether a library without it is refused (it predates [`MIN_VERSION`]).
    pub required: bool,
}

macro_rules! api_table {
    (
        required { $($field:ident : fn($($arg:ty),*) -> $ret:ty = $sym:ident, $since:literal;)* }
        optional { $($ofield:ident : fn($($oarg:ty),*) -> $oret:ty = $osym:ident, $osince:literal;)* }
        variadic { $($vfield:ident : fn($($varg:ty),*, ...) -> $vret:ty = $vsym:ident;)* }
    ) => {
        /// Function pointers of one SQLite library, plus where it came from.
        pub struct Api {
            /// `bundled` or the path of the loaded shared library.
            pub origin: String,
            /// What `sqlite3_initialize()` returned (`SQLITE_OK` unless the library is broken).
            pub init_rc: c_int,
            /// `libsql_libversion()`: the library is libSQL, Turso's fork, on the SQLite
            /// release `sqlite3_libversion` gives. Not in the table: no SQLite has it.
            pub libsql_version: Option<String>,
            $(#[doc = concat!("`", stringify!($sym), "`, since SQLite ", $since, ".")]
              pub $field: unsafe extern "C" fn($($arg),*) -> $ret,)*
            $(#[doc = concat!("`", stringify!($osym), "`, since SQLite ", $osince, ": `None` in older builds.")]
              pub $ofield: Option<unsafe extern "C" fn($($oarg),*) -> $oret>,)*
            $(#[doc = concat!("`", stringify!($vsym), "` (variadic), in every release litebench loads.")]
              pub $vfield: unsafe extern "C" fn($($varg),*, ...) -> $vret,)*
        }

        /// Every symbol the table uses, required ones first.
        pub const SYMBOLS: &[Symbol] = &[
            $(Symbol { name: stringify!($sym), since: $since, required: true },)*
            $(Symbol { name: stringify!($osym), since: $osince, required: false },)*
        ];

        impl Api {
            fn from_static() -> Api {
                Api {
                    origin: "bundled".to_string(),
                    init_rc: libsqlite3_sys::SQLITE_OK,
                    libsql_version: None,
                    $($field: libsqlite3_sys::$sym,)*
                    $($ofield: Some(libsqlite3_sys::$osym),)*
                    $($vfield: libsqlite3_sys::$vsym,)*
                }
            }

            fn from_library(lib: &'static libloading::Library, origin: String) -> Result<Api, LoadError> {
                Ok(Api {
                    origin: origin.clone(),
                    init_rc: libsqlite3_sys::SQLITE_OK,
                    // SAFETY: libSQL declares it `const char *libsql_libversion(void)`, returning
                    // a static NUL-terminated string.
                    libsql_version: unsafe { lib.get::<unsafe extern "C" fn() -> *const c_char>(b"libsql_libversion\0") }
                        .ok()
                        .map(|f| unsafe { cstr(f()) }),
                    $($field: {
                        // SAFETY: the symbol's C signature is the one SQLite documents; the
                        // library is leaked, so the pointer stays valid for the process.
                        let sym: libloading::Symbol<unsafe extern "C" fn($($arg),*) -> $ret> =
                            unsafe { lib.get(concat!(stringify!($sym), "\0").as_bytes()) }
                                .map_err(|_| LoadError::MissingSymbol {
                                    path: origin.clone(),
                                    symbol: stringify!($sym),
                                    since: $since,
                                })?;
                        *sym
                    },)*
                    $($ofield: {
                        // SAFETY: as above.
                        let sym: Option<libloading::Symbol<unsafe extern "C" fn($($oarg),*) -> $oret>> =
                            unsafe { lib.get(concat!(stringify!($osym), "\0").as_bytes()) }.ok();
                        sym.map(|s| *s)
                    },)*
                    $($vfield: {
                        // SAFETY: as above; the C function is variadic and declared so.
                        let sym: libloading::Symbol<unsafe extern "C" fn($($varg),*, ...) -> $vret> =
                            unsafe { lib.get(concat!(stringify!($vsym), "\0").as_bytes()) }
                                .map_err(|_| LoadError::MissingSymbol {
                                    path: origin.clone(),
                                    symbol: stringify!($vsym),
                                    since: VARIADIC_SINCE,
                                })?;
                        *sym
                    },)*
                })
            }

            /// The optional symbols this library lacks.
            pub fn unavailable(&self) -> Vec<Symbol> {
                let mut out = Vec::new();
                $(if self.$ofield.is_none() {
                    out.push(Symbol { name: stringify!($osym), since: $osince, required: false });
                })*
                out
            }
        }
    };
}

api_table! {
    required {
        initialize: fn() -> c_int = sqlite3_initialize, "3.6.0";
        libversion: fn() -> *const c_char = sqlite3_libversion, "3.0.0";
        sourceid: fn() -> *const c_char = sqlite3_sourceid, "3.6.18";
        libversion_number: fn() -> c_int = sqlite3_libversion_number, "3.3.0";
        open_v2: fn(*const c_char, *mut *mut sqlite3, c_int, *const c_char) -> c_int = sqlite3_open_v2, "3.5.0";
        close: fn(*mut sqlite3) -> c_int = sqlite3_close, "3.0.0";
        extended_result_codes: fn(*mut sqlite3, c_int) -> c_int = sqlite3_extended_result_codes, "3.3.8";
        extended_errcode: fn(*mut sqlite3) -> c_int = sqlite3_extended_errcode, "3.6.5";
        errmsg: fn(*mut sqlite3) -> *const c_char = sqlite3_errmsg, "3.0.0";
        prepare_v2: fn(*mut sqlite3, *const c_char, c_int, *mut *mut sqlite3_stmt, *mut *const c_char) -> c_int = sqlite3_prepare_v2, "3.3.9";
        step: fn(*mut sqlite3_stmt) -> c_int = sqlite3_step, "3.0.0";
        reset: fn(*mut sqlite3_stmt) -> c_int = sqlite3_reset, "3.0.0";
        finalize: fn(*mut sqlite3_stmt) -> c_int = sqlite3_finalize, "3.0.0";
        exec: fn(*mut sqlite3, *const c_char, Option<ExecCallback>, *mut c_void, *mut *mut c_char) -> c_int = sqlite3_exec, "3.0.0";
        free: fn(*mut c_void) -> () = sqlite3_free, "3.0.0";
        next_stmt: fn(*mut sqlite3, *mut sqlite3_stmt) -> *mut sqlite3_stmt = sqlite3_next_stmt, "3.6.0";
        bind_int64: fn(*mut sqlite3_stmt, c_int, sqlite3_int64) -> c_int = sqlite3_bind_int64, "3.0.0";
        bind_double: fn(*mut sqlite3_stmt, c_int, f64) -> c_int = sqlite3_bind_double, "3.0.0";
        bind_null: fn(*mut sqlite3_stmt, c_int) -> c_int = sqlite3_bind_null, "3.0.0";
        bind_text: fn(*mut sqlite3_stmt, c_int, *const c_char, c_int, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int = sqlite3_bind_text, "3.0.0";
        bind_blob: fn(*mut sqlite3_stmt, c_int, *const c_void, c_int, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int = sqlite3_bind_blob, "3.0.0";
        column_count: fn(*mut sqlite3_stmt) -> c_int = sqlite3_column_count, "3.0.0";
        column_name: fn(*mut sqlite3_stmt, c_int) -> *const c_char = sqlite3_column_name, "3.0.0";
        column_type: fn(*mut sqlite3_stmt, c_int) -> c_int = sqlite3_column_type, "3.0.0";
        column_int64: fn(*mut sqlite3_stmt, c_int) -> sqlite3_int64 = sqlite3_column_int64, "3.0.0";
        column_double: fn(*mut sqlite3_stmt, c_int) -> f64 = sqlite3_column_double, "3.0.0";
        column_text: fn(*mut sqlite3_stmt, c_int) -> *const u8 = sqlite3_column_text, "3.0.0";
        column_bytes: fn(*mut sqlite3_stmt, c_int) -> c_int = sqlite3_column_bytes, "3.0.0";
        changes: fn(*mut sqlite3) -> c_int = sqlite3_changes, "3.0.0";
        busy_timeout: fn(*mut sqlite3, c_int) -> c_int = sqlite3_busy_timeout, "3.0.0";
        interrupt: fn(*mut sqlite3) -> () = sqlite3_interrupt, "3.0.0";
        vfs_find: fn(*const c_char) -> *mut sqlite3_vfs = sqlite3_vfs_find, "3.5.0";
        vfs_register: fn(*mut sqlite3_vfs, c_int) -> c_int = sqlite3_vfs_register, "3.5.0";
        blob_open: fn(*mut sqlite3, *const c_char, *const c_char, *const c_char, sqlite3_int64, c_int, *mut *mut sqlite3_blob) -> c_int = sqlite3_blob_open, "3.4.0";
        blob_close: fn(*mut sqlite3_blob) -> c_int = sqlite3_blob_close, "3.4.0";
        blob_bytes: fn(*mut sqlite3_blob) -> c_int = sqlite3_blob_bytes, "3.4.0";
        blob_read: fn(*mut sqlite3_blob, *mut c_void, c_int, c_int) -> c_int = sqlite3_blob_read, "3.4.0";
        blob_write: fn(*mut sqlite3_blob, *const c_void, c_int, c_int) -> c_int = sqlite3_blob_write, "3.4.0";
        set_authorizer: fn(*mut sqlite3, Option<Authorizer>, *mut c_void) -> c_int = sqlite3_set_authorizer, "3.0.0";
        get_autocommit: fn(*mut sqlite3) -> c_int = sqlite3_get_autocommit, "3.2.2";
        backup_init: fn(*mut sqlite3, *const c_char, *mut sqlite3, *const c_char) -> *mut sqlite3_backup = sqlite3_backup_init, "3.6.11";
        backup_step: fn(*mut sqlite3_backup, c_int) -> c_int = sqlite3_backup_step, "3.6.11";
        backup_remaining: fn(*mut sqlite3_backup) -> c_int = sqlite3_backup_remaining, "3.6.11";
        backup_pagecount: fn(*mut sqlite3_backup) -> c_int = sqlite3_backup_pagecount, "3.6.11";
        backup_finish: fn(*mut sqlite3_backup) -> c_int = sqlite3_backup_finish, "3.6.11";
        memory_used: fn() -> sqlite3_int64 = sqlite3_memory_used, "3.5.0";
    }
    optional {
        errstr: fn(c_int) -> *const c_char = sqlite3_errstr, "3.7.15";
        changes64: fn(*mut sqlite3) -> sqlite3_int64 = sqlite3_changes64, "3.37.0";
        stmt_scanstatus_v2: fn(*mut sqlite3_stmt, c_int, c_int, c_int, *mut c_void) -> c_int = sqlite3_stmt_scanstatus_v2, "3.42.0";
        txn_state: fn(*mut sqlite3, *const c_char) -> c_int = sqlite3_txn_state, "3.34.0";
        db_release_memory: fn(*mut sqlite3) -> c_int = sqlite3_db_release_memory, "3.7.10";
        load_extension: fn(*mut sqlite3, *const c_char, *const c_char, *mut *mut c_char) -> c_int = sqlite3_load_extension, "3.3.6";
        compileoption_used: fn(*const c_char) -> c_int = sqlite3_compileoption_used, "3.6.23";
    }
    variadic {
        test_control: fn(c_int, ...) -> c_int = sqlite3_test_control;
        db_config: fn(*mut sqlite3, c_int, ...) -> c_int = sqlite3_db_config;
    }
}

/// Symbols older than [`MIN_VERSION`] that a build may still lack because a compile option
/// leaves them out (`SQLITE_OMIT_LOAD_EXTENSION`, `SQLITE_OMIT_COMPILEOPTION_DIAGS`): optional
/// in the table, so such a build loads, and only `--knob extension=` refuses it.
pub const OMITTABLE: &[&str] = &["sqlite3_load_extension", "sqlite3_compileoption_used"];

/// When the variadic entry points appeared: before [`MIN_VERSION`] (both are in 3.7.8, the
/// oldest amalgamation the tests load; their first release is not recorded here).
const VARIADIC_SINCE: &str = "before 3.7.0";

/// Why a shared library could not be used as SQLite.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("--engine sqlite:{path}: cannot load it ({reason}); give the path of a libsqlite3.so, e.g. sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0")]
    Open { path: String, reason: String },
    #[error("--engine sqlite:{path}: {source}")]
    Untrusted {
        path: String,
        #[source]
        source: TrustError,
    },
    #[error("--engine sqlite:{path}: not a SQLite library (it has no `sqlite3_libversion_number`); give the path of a libsqlite3.so")]
    NotSqlite { path: String },
    #[error("--engine sqlite:{path}: this SQLite build has no `{symbol}` (in SQLite since {since}; it was built without that interface); give the path of a complete libsqlite3.so")]
    MissingSymbol {
        path: String,
        symbol: &'static str,
        since: &'static str,
    },
    #[error("--engine sqlite:{path}: SQLite {version} is too old: litebench needs {}.{}.{} or newer; give the path of a newer libsqlite3.so", MIN_VERSION.0, MIN_VERSION.1, MIN_VERSION.2)]
    TooOld { path: String, version: String },
    #[error("--engine sqlite:{path}: sqlite3_initialize() failed with result code {rc}; the library is unusable (out of memory, or a broken build)")]
    Initialize { path: String, rc: c_int },
    #[error("--engine sqlite:{path}: sqlite3_config(SQLITE_CONFIG_HEAP) failed with result code {rc}: the build has no memsys5 (compile it with -DSQLITE_ENABLE_MEMSYS5, as sqlite@RELEASE-speed-check is)")]
    Heap { path: String, rc: c_int },
}

/// SQLite's own allocator on a fixed heap (`sqlite3_config(SQLITE_CONFIG_HEAP)`, memsys5), set
/// before the library is initialised: what speedtest1's `--heap SIZE MIN` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heap {
    pub bytes: usize,
    /// The smallest allocation, a power of two.
    pub min: usize,
}

/// `SQLITE_CONFIG_HEAP` (sqlite3.h).
const SQLITE_CONFIG_HEAP: c_int = 8;

/// Gives a library not yet initialised a heap of its own: memory leaked for the process, as
/// the library stays loaded and allocates from it until the process ends.
fn configure_heap(lib: &'static libloading::Library, heap: Heap, origin: &str) -> Result<(), LoadError> {
    let fail = |rc| LoadError::Heap {
        path: origin.to_string(),
        rc,
    };
    // SAFETY: `int sqlite3_config(int, ...)`, in every release litebench loads.
    let config = unsafe { lib.get::<unsafe extern "C" fn(c_int, ...) -> c_int>(b"sqlite3_config\0") }
        .map_err(|_| fail(libsqlite3_sys::SQLITE_ERROR))?;
    let words: &'static mut [u64] = Box::leak(vec![0u64; heap.bytes.div_ceil(8)].into_boxed_slice());
    // SAFETY: SQLITE_CONFIG_HEAP takes a buffer (8-byte aligned, kept for the process), its size
    // and the smallest allocation, both int; called before sqlite3_initialize.
    let rc = unsafe {
        config(
            SQLITE_CONFIG_HEAP,
            words.as_mut_ptr().cast::<c_void>(),
            heap.bytes as c_int,
            heap.min as c_int,
        )
    };
    if rc != libsqlite3_sys::SQLITE_OK {
        return Err(fail(rc));
    }
    Ok(())
}

/// A feature needs a symbol this SQLite build does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: SQLite {version} has no `{symbol}` (added in SQLite {since}), which {feature} needs; use SQLite {since} or newer")]
pub struct Unavailable {
    pub origin: String,
    pub version: String,
    pub symbol: &'static str,
    pub since: &'static str,
    pub feature: String,
}

impl Api {
    /// The SQLite compiled into litebench (see docs/sqlite-build.md for its flags).
    pub fn bundled() -> &'static Api {
        static BUNDLED: OnceLock<Api> = OnceLock::new();
        BUNDLED.get_or_init(|| {
            let mut api = Api::from_static();
            // SAFETY: sqlite3_initialize takes no arguments and may be called at any time.
            api.init_rc = unsafe { (api.initialize)() };
            api
        })
    }

    /// Opens the library a user named (`sqlite:<path>`) for [`Api::load`]: a regular file, and
    /// as root one of root's that nobody else can write ([`trusted::open_given`]).
    pub fn open_path(path: &Path) -> Result<Checked, LoadError> {
        let origin = path.display().to_string();
        if !path.is_file() {
            return Err(LoadError::Open {
                path: origin,
                reason: if path.is_dir() {
                    "it is a directory"
                } else {
                    "no such file"
                }
                .into(),
            });
        }
        trusted::open_given(path, trusted::Becomes::Library).map_err(|e| match e {
            TrustError::Io { source, .. } => LoadError::Open {
                path: origin.clone(),
                reason: source.to_string(),
            },
            refused => LoadError::Untrusted {
                path: origin.clone(),
                source: refused,
            },
        })
    }

    /// [`Api::open_path`], then [`Api::load`].
    pub fn load_path(path: &Path) -> Result<&'static Api, LoadError> {
        Api::load(Api::open_path(path)?)
    }

    /// Loads another SQLite build from `file`, opened and checked by the caller: the loader
    /// opens that very file through its descriptor, so nothing can be swapped in after the
    /// check. The library stays loaded for the life of the process (SQLite keeps global state,
    /// such as registered VFSes, that must outlive every connection).
    pub fn load(file: Checked) -> Result<&'static Api, LoadError> {
        Api::load_on(file, None)
    }

    /// [`Api::load`], SQLite's allocator set to `heap` first. A library is initialised once per
    /// process, so the same library loaded again is the one already loaded, heap and all.
    pub fn load_with_heap(file: Checked, heap: Heap) -> Result<&'static Api, LoadError> {
        static LOADED: OnceLock<std::sync::Mutex<Vec<(std::path::PathBuf, &'static Api)>>> = OnceLock::new();
        let loaded = LOADED.get_or_init(Default::default);
        let mut loaded = loaded.lock().unwrap_or_else(|p| p.into_inner());
        let path = file.path().to_path_buf();
        if let Some((_, api)) = loaded.iter().find(|(p, _)| *p == path) {
            return Ok(api);
        }
        let api = Api::load_on(file, Some(heap))?;
        loaded.push((path, api));
        Ok(api)
    }

    fn load_on(file: Checked, heap: Option<Heap>) -> Result<&'static Api, LoadError> {
        let origin = file.path().display().to_string();
        let loader_path = file.loader_path();
        // Before the loader maps it: a library cut short would kill the process with SIGBUS.
        crate::sys::elf::check_shared_object(&loader_path).map_err(|reason| LoadError::Open {
            path: origin.clone(),
            reason,
        })?;
        // SAFETY: loading a library runs its initialisers; SQLite's have no side effects
        // beyond its own state. RTLD_LOCAL keeps its symbols away from the bundled build.
        let lib = unsafe { libloading::Library::new(&loader_path) }.map_err(|e| LoadError::Open {
            path: origin.clone(),
            reason: e.to_string().replace(&loader_path.display().to_string(), &origin),
        })?;
        // The loader knows the library by its descriptor's name from now on.
        file.keep_open();
        let lib: &'static libloading::Library = Box::leak(Box::new(lib));
        // SAFETY (all three look-ups): signatures as SQLite documents them, for a library that
        // stays loaded.
        let version_number = unsafe { lib.get::<unsafe extern "C" fn() -> c_int>(b"sqlite3_libversion_number\0") }
            .map_err(|_| LoadError::NotSqlite { path: origin.clone() })?;
        // SAFETY: sqlite3_libversion_number takes no arguments and needs no initialisation.
        let number = unsafe { version_number() };
        let version = || match unsafe { lib.get::<unsafe extern "C" fn() -> *const c_char>(b"sqlite3_libversion\0") } {
            // SAFETY: returns a static NUL-terminated string.
            Ok(f) => unsafe { cstr(f()) },
            // The number says the same (X * 1000000 + Y * 1000 + Z).
            Err(_) => format!("{}.{}.{}", number / 1_000_000, number / 1000 % 1000, number % 1000),
        };
        // Before any other call (builds with SQLITE_OMIT_AUTOINIT need it). It appeared in
        // 3.6.0: a library without it is too old, or not a real SQLite, and the error says which.
        let Ok(initialize) = (unsafe { lib.get::<unsafe extern "C" fn() -> c_int>(b"sqlite3_initialize\0") }) else {
            if number < MIN_VERSION_NUMBER {
                return Err(LoadError::TooOld {
                    path: origin,
                    version: version(),
                });
            }
            return Err(LoadError::MissingSymbol {
                path: origin,
                symbol: "sqlite3_initialize",
                since: "3.6.0",
            });
        };
        if let Some(heap) = heap {
            configure_heap(lib, heap, &origin)?;
        }
        // SAFETY: sqlite3_initialize takes no arguments and may be called at any time.
        let init_rc = unsafe { initialize() };
        if init_rc != libsqlite3_sys::SQLITE_OK {
            return Err(LoadError::Initialize {
                path: origin,
                rc: init_rc,
            });
        }
        if number < MIN_VERSION_NUMBER {
            return Err(LoadError::TooOld {
                path: origin,
                version: version(),
            });
        }
        let api = Api::from_library(lib, origin)?;
        Ok(Box::leak(Box::new(api)))
    }

    /// `sqlite_version()` of this build.
    pub fn version(&self) -> String {
        // SAFETY: returns a static NUL-terminated string.
        unsafe { cstr((self.libversion)()) }
    }

    /// `sqlite_source_id()` of this build.
    pub fn source_id(&self) -> String {
        // SAFETY: returns a static NUL-terminated string.
        unsafe { cstr((self.sourceid)()) }
    }

    /// The English text of a result code (SQLite's own words from 3.7.15 on, the name of the
    /// primary code before).
    pub fn describe(&self, code: c_int) -> String {
        match self.errstr {
            // SAFETY: sqlite3_errstr returns a static string for any code.
            Some(errstr) => unsafe { cstr(errstr(code)) },
            None => result_code_text(code),
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE on `db` (`sqlite3_changes64`, or
    /// `sqlite3_changes` before 3.37.0: the same count, limited to 2^31 - 1).
    ///
    /// # Safety
    /// `db` must be an open connection of this library.
    pub unsafe fn changes(&self, db: *mut sqlite3) -> i64 {
        match self.changes64 {
            // SAFETY: the caller guarantees `db`.
            Some(f) => unsafe { f(db) },
            // SAFETY: the caller guarantees `db`.
            None => i64::from(unsafe { (self.changes)(db) }),
        }
    }

    /// An optional symbol that `feature` cannot do without, or the error naming it and the
    /// release that added it.
    pub fn need<F: Copy>(&self, f: Option<F>, symbol: &'static str, feature: &str) -> Result<F, Unavailable> {
        f.ok_or_else(|| Unavailable {
            origin: self.origin.clone(),
            version: self.version(),
            symbol,
            since: SYMBOLS.iter().find(|s| s.name == symbol).map_or("?", |s| s.since),
            feature: feature.to_string(),
        })
    }
}

/// What `sqlite3_errstr` would say, for builds older than 3.7.15: the primary result code's name.
fn result_code_text(code: c_int) -> String {
    let name = match code & 0xff {
        0 => "not an error",
        1 => "SQL logic error",
        2 => "internal logic error",
        3 => "access permission denied",
        4 => "query aborted",
        5 => "database is locked",
        6 => "database table is locked",
        7 => "out of memory",
        8 => "attempt to write a readonly database",
        9 => "interrupted",
        10 => "disk I/O error",
        11 => "database disk image is malformed",
        12 => "unknown operation",
        13 => "database or disk is full",
        14 => "unable to open database file",
        15 => "locking protocol",
        17 => "database schema has changed",
        18 => "string or blob too big",
        19 => "constraint failed",
        20 => "datatype mismatch",
        21 => "bad parameter or other API misuse",
        22 => "large file support is disabled",
        23 => "authorization denied",
        25 => "column index out of range",
        26 => "file is not a database",
        100 => "another row available",
        101 => "no more rows available",
        _ => return format!("result code {code}"),
    };
    if code & !0xff != 0 {
        format!("{name} (extended result code {code})")
    } else {
        name.to_string()
    }
}

/// Copies a C string owned by SQLite into a `String` (lossy for invalid UTF-8).
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

    fn triple(version: &str) -> (u32, u32, u32) {
        let v: Vec<u32> = version.split('.').map(|p| p.parse().unwrap()).collect();
        (v[0], v[1], v[2])
    }

    #[test]
    fn exactly_the_symbols_newer_than_the_minimum_are_optional() {
        for s in SYMBOLS {
            assert_eq!(
                s.required,
                triple(s.since) <= MIN_VERSION && !OMITTABLE.contains(&s.name),
                "{} (since {})",
                s.name,
                s.since
            );
        }
        assert_eq!(
            MIN_VERSION_NUMBER,
            (MIN_VERSION.0 * 1_000_000 + MIN_VERSION.1 * 1000 + MIN_VERSION.2) as c_int
        );
    }

    #[test]
    fn the_bundled_build_has_every_symbol_and_is_initialised() {
        let api = Api::bundled();
        assert_eq!(api.unavailable(), vec![]);
        assert_eq!(api.init_rc, libsqlite3_sys::SQLITE_OK);
    }

    #[test]
    fn a_missing_symbol_names_itself_and_its_release() {
        let api = Api::bundled();
        let none: Option<unsafe extern "C" fn(*mut sqlite3) -> sqlite3_int64> = None;
        let e = api
            .need(none, "sqlite3_changes64", "counting changed rows")
            .unwrap_err();
        assert_eq!(e.since, "3.37.0");
        let text = e.to_string();
        assert!(
            text.contains("has no `sqlite3_changes64` (added in SQLite 3.37.0)"),
            "{text}"
        );
        assert!(text.contains("counting changed rows"), "{text}");
        assert!(api.need(api.changes64, "sqlite3_changes64", "x").is_ok());
    }

    #[test]
    fn result_codes_have_text_without_errstr() {
        assert_eq!(result_code_text(10), "disk I/O error");
        assert_eq!(result_code_text(266), "disk I/O error (extended result code 266)");
        assert_eq!(result_code_text(999), "result code 999");
        // The fallback agrees with SQLite's own words for primary codes.
        let api = Api::bundled();
        for code in [1, 5, 10, 13, 14, 19, 26] {
            assert_eq!(result_code_text(code), api.describe(code), "code {code}");
        }
    }
}
