//! A table of function pointers over the SQLite C API.
//!
//! litebench compares SQLite *builds*: the bundled, pinned one and any `libsqlite3.so` named on
//! the command line. Both must go through exactly the same code, or a difference in the numbers
//! could come from the harness instead of the build. So nothing in litebench calls SQLite
//! directly: everything goes through an [`Api`], filled either from the statically linked
//! library ([`Api::bundled`]) or from a `dlopen`ed one ([`Api::load`]).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;
use std::sync::OnceLock;

pub use libsqlite3_sys::{sqlite3, sqlite3_file, sqlite3_int64, sqlite3_stmt, sqlite3_vfs};

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the call returns.
pub fn transient() -> Option<unsafe extern "C" fn(*mut c_void)> {
    // SAFETY: SQLite documents ((sqlite3_destructor_type)-1) as the "copy now" marker.
    Some(unsafe { std::mem::transmute::<isize, unsafe extern "C" fn(*mut c_void)>(-1) })
}

macro_rules! api_table {
    ($($field:ident : fn($($arg:ty),*) -> $ret:ty = $sym:ident;)*) => {
        /// Function pointers of one SQLite library, plus where it came from.
        pub struct Api {
            /// `bundled` or the path of the loaded shared library.
            pub origin: String,
            $(pub $field: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }

        impl Api {
            fn from_static() -> Api {
                Api {
                    origin: "bundled".to_string(),
                    $($field: libsqlite3_sys::$sym,)*
                }
            }

            fn from_library(lib: &'static libloading::Library, origin: String) -> Result<Api, LoadError> {
                Ok(Api {
                    origin: origin.clone(),
                    $($field: {
                        // SAFETY: the symbol's C signature is the one SQLite documents; the
                        // library is leaked, so the pointer stays valid for the process.
                        let sym: libloading::Symbol<unsafe extern "C" fn($($arg),*) -> $ret> =
                            unsafe { lib.get(concat!(stringify!($sym), "\0").as_bytes()) }
                                .map_err(|_| LoadError::MissingSymbol {
                                    path: origin.clone(),
                                    symbol: stringify!($sym),
                                })?;
                        *sym
                    },)*
                })
            }
        }
    };
}

api_table! {
    libversion: fn() -> *const c_char = sqlite3_libversion;
    sourceid: fn() -> *const c_char = sqlite3_sourceid;
    libversion_number: fn() -> c_int = sqlite3_libversion_number;
    open_v2: fn(*const c_char, *mut *mut sqlite3, c_int, *const c_char) -> c_int = sqlite3_open_v2;
    close: fn(*mut sqlite3) -> c_int = sqlite3_close;
    extended_result_codes: fn(*mut sqlite3, c_int) -> c_int = sqlite3_extended_result_codes;
    extended_errcode: fn(*mut sqlite3) -> c_int = sqlite3_extended_errcode;
    errmsg: fn(*mut sqlite3) -> *const c_char = sqlite3_errmsg;
    errstr: fn(c_int) -> *const c_char = sqlite3_errstr;
    prepare_v2: fn(*mut sqlite3, *const c_char, c_int, *mut *mut sqlite3_stmt, *mut *const c_char) -> c_int = sqlite3_prepare_v2;
    step: fn(*mut sqlite3_stmt) -> c_int = sqlite3_step;
    reset: fn(*mut sqlite3_stmt) -> c_int = sqlite3_reset;
    finalize: fn(*mut sqlite3_stmt) -> c_int = sqlite3_finalize;
    next_stmt: fn(*mut sqlite3, *mut sqlite3_stmt) -> *mut sqlite3_stmt = sqlite3_next_stmt;
    bind_int64: fn(*mut sqlite3_stmt, c_int, sqlite3_int64) -> c_int = sqlite3_bind_int64;
    bind_double: fn(*mut sqlite3_stmt, c_int, f64) -> c_int = sqlite3_bind_double;
    bind_null: fn(*mut sqlite3_stmt, c_int) -> c_int = sqlite3_bind_null;
    bind_text: fn(*mut sqlite3_stmt, c_int, *const c_char, c_int, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int = sqlite3_bind_text;
    bind_blob: fn(*mut sqlite3_stmt, c_int, *const c_void, c_int, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int = sqlite3_bind_blob;
    column_count: fn(*mut sqlite3_stmt) -> c_int = sqlite3_column_count;
    column_type: fn(*mut sqlite3_stmt, c_int) -> c_int = sqlite3_column_type;
    column_int64: fn(*mut sqlite3_stmt, c_int) -> sqlite3_int64 = sqlite3_column_int64;
    column_double: fn(*mut sqlite3_stmt, c_int) -> f64 = sqlite3_column_double;
    column_text: fn(*mut sqlite3_stmt, c_int) -> *const u8 = sqlite3_column_text;
    column_bytes: fn(*mut sqlite3_stmt, c_int) -> c_int = sqlite3_column_bytes;
    changes64: fn(*mut sqlite3) -> sqlite3_int64 = sqlite3_changes64;
    busy_timeout: fn(*mut sqlite3, c_int) -> c_int = sqlite3_busy_timeout;
    vfs_find: fn(*const c_char) -> *mut sqlite3_vfs = sqlite3_vfs_find;
    vfs_register: fn(*mut sqlite3_vfs, c_int) -> c_int = sqlite3_vfs_register;
}

/// Why a shared library could not be used as SQLite.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("--engine sqlite:{path}: cannot load it ({reason}); give the path of a libsqlite3.so, e.g. sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0")]
    Open { path: String, reason: String },
    #[error("--engine sqlite:{path}: not a SQLite library (it has no `{symbol}`, SQLite 3.37 or newer is needed); give the path of a libsqlite3.so")]
    MissingSymbol { path: String, symbol: &'static str },
}

impl Api {
    /// The SQLite compiled into litebench (see docs/sqlite-build.md for its flags).
    pub fn bundled() -> &'static Api {
        static BUNDLED: OnceLock<Api> = OnceLock::new();
        BUNDLED.get_or_init(Api::from_static)
    }

    /// Loads another SQLite build. The library stays loaded for the life of the process
    /// (SQLite keeps global state, such as registered VFSes, that must outlive every connection).
    pub fn load(path: &Path) -> Result<&'static Api, LoadError> {
        let origin = path.display().to_string();
        if !path.is_file() {
            return Err(LoadError::Open {
                path: origin,
                reason: "no such file".into(),
            });
        }
        // SAFETY: loading a library runs its initialisers; SQLite's have no side effects
        // beyond its own state. RTLD_LOCAL keeps its symbols away from the bundled build.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| LoadError::Open {
            path: origin.clone(),
            reason: e.to_string(),
        })?;
        let lib: &'static libloading::Library = Box::leak(Box::new(lib));
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

    /// The English text of a result code.
    pub fn describe(&self, code: c_int) -> String {
        // SAFETY: sqlite3_errstr returns a static string for any code.
        unsafe { cstr((self.errstr)(code)) }
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
    CStr::from_ptr(p).to_string_lossy().into_owned()
}
