//! A VFS shim that counts what SQLite asks of the storage.
//!
//! It wraps the library's default VFS (the unix VFS on Linux) and forwards every call
//! unchanged, bumping [`IoCounters`] on the way: syncs (with their flags), writes, reads,
//! truncates, deletes and opens, per file class. Counting at this layer — rather than with
//! strace — works for every SQLite build litebench loads, costs a few atomic adds, and can be
//! attributed to a phase of a trial. The CLI test suite cross-checks it against strace.
//!
//! One shim is registered per loaded library (VFS registrations are per library) under the
//! name [`SHIM_NAME`]; connections that should be counted open with that VFS name.

use super::api::{sqlite3_file, sqlite3_vfs, Api};
use crate::iocount::{ClassCounters, FileClass, IoCounters};
use libsqlite3_sys as ffi;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};

/// The name connections use to be counted.
pub const SHIM_NAME: &str = "litebench-counting";
const SHIM_NAME_C: &CStr = c"litebench-counting";

/// State behind one registered shim: the VFS it wraps and the counters it feeds.
struct ShimState {
    real: *mut sqlite3_vfs,
    counters: Arc<IoCounters>,
}

/// Our per-file header; the wrapped VFS's own file structure follows it in memory.
#[repr(C)]
struct ShimFile {
    base: sqlite3_file,
    counters: *const IoCounters,
    class: FileClass,
    /// The unix VFS syncs the directory on the first sync of a newly created journal or WAL.
    pending_dir_sync: bool,
    real: *mut sqlite3_file,
}

const HEADER: usize = std::mem::size_of::<ShimFile>().next_multiple_of(16);

/// Why the shim could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum ShimError {
    #[error("SQLite library {origin} has no default VFS")]
    NoDefaultVfs { origin: String },
    #[error("SQLite library {origin} refused to register the counting VFS: {reason}")]
    Register { origin: String, reason: String },
}

/// Registers (once per library) the counting shim around `api`'s default VFS and returns the
/// counters it feeds. Thread-safe.
pub fn install(api: &'static Api) -> Result<Arc<IoCounters>, ShimError> {
    static INSTALLED: Mutex<Vec<(usize, Arc<IoCounters>)>> = Mutex::new(Vec::new());
    let key = api as *const Api as usize;
    let mut installed = INSTALLED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, c)) = installed.iter().find(|(k, _)| *k == key) {
        return Ok(c.clone());
    }
    // SAFETY: a null name asks for the default VFS; the pointer lives as long as the library.
    let real = unsafe { (api.vfs_find)(std::ptr::null()) };
    if real.is_null() {
        return Err(ShimError::NoDefaultVfs {
            origin: api.origin.clone(),
        });
    }
    let counters = Arc::new(IoCounters::default());
    let state = Box::leak(Box::new(ShimState {
        real,
        counters: counters.clone(),
    }));
    // SAFETY: `real` is a valid VFS; we only read its fields.
    let (real_version, real_size, max_path) = unsafe { ((*real).iVersion, (*real).szOsFile, (*real).mxPathname) };
    let vfs = Box::leak(Box::new(sqlite3_vfs {
        iVersion: real_version.min(3),
        szOsFile: (HEADER + real_size as usize) as c_int,
        mxPathname: max_path,
        pNext: std::ptr::null_mut(),
        zName: SHIM_NAME_C.as_ptr(),
        pAppData: state as *mut ShimState as *mut c_void,
        xOpen: Some(x_open),
        xDelete: Some(x_delete),
        xAccess: Some(x_access),
        xFullPathname: Some(x_full_pathname),
        xDlOpen: Some(x_dl_open),
        xDlError: Some(x_dl_error),
        xDlSym: Some(x_dl_sym),
        xDlClose: Some(x_dl_close),
        xRandomness: Some(x_randomness),
        xSleep: Some(x_sleep),
        xCurrentTime: Some(x_current_time),
        xGetLastError: Some(x_get_last_error),
        xCurrentTimeInt64: Some(x_current_time_int64),
        xSetSystemCall: Some(x_set_system_call),
        xGetSystemCall: Some(x_get_system_call),
        xNextSystemCall: Some(x_next_system_call),
    }));
    // SAFETY: the VFS structure is leaked, so it outlives the registration.
    let rc = unsafe { (api.vfs_register)(vfs, 0) };
    if rc != ffi::SQLITE_OK {
        return Err(ShimError::Register {
            origin: api.origin.clone(),
            reason: api.describe(rc),
        });
    }
    installed.push((key, counters.clone()));
    Ok(counters)
}

unsafe fn state<'a>(vfs: *mut sqlite3_vfs) -> &'a ShimState {
    &*((*vfs).pAppData as *const ShimState)
}

fn classify_open(flags: c_int) -> FileClass {
    if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
        FileClass::Main
    } else if flags & (ffi::SQLITE_OPEN_MAIN_JOURNAL | ffi::SQLITE_OPEN_SUPER_JOURNAL) != 0 {
        FileClass::Journal
    } else if flags & ffi::SQLITE_OPEN_WAL != 0 {
        FileClass::Wal
    } else if flags
        & (ffi::SQLITE_OPEN_TEMP_DB
            | ffi::SQLITE_OPEN_TEMP_JOURNAL
            | ffi::SQLITE_OPEN_SUBJOURNAL
            | ffi::SQLITE_OPEN_TRANSIENT_DB)
        != 0
    {
        FileClass::Temp
    } else {
        FileClass::Other
    }
}

/// Classifies a file being deleted by its name, the only thing `xDelete` is given.
pub fn classify_name(name: &str) -> FileClass {
    let last = name.rsplit('-').next().unwrap_or("");
    let super_journal = last.len() == 10 && last.starts_with("mj") && name.contains('-');
    if name.ends_with("-journal") || super_journal {
        FileClass::Journal
    } else if name.ends_with("-wal") {
        FileClass::Wal
    } else if name.ends_with("-shm") {
        FileClass::Other
    } else if name.contains("etilqs_") {
        FileClass::Temp
    } else {
        FileClass::Main
    }
}

unsafe extern "C" fn x_open(
    vfs: *mut sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let st = state(vfs);
    let shim = file as *mut ShimFile;
    let real_file = (file as *mut u8).add(HEADER) as *mut sqlite3_file;
    (*real_file).pMethods = std::ptr::null();
    let class = classify_open(flags);
    let rc = ((*st.real).xOpen.expect("VFS without xOpen"))(st.real, name, real_file, flags, out_flags);
    let counters: &IoCounters = &st.counters;
    counters.class(class).opens.fetch_add(1, Relaxed);
    let creates_journal = flags & ffi::SQLITE_OPEN_CREATE != 0 && matches!(class, FileClass::Journal | FileClass::Wal);
    shim.write(ShimFile {
        base: sqlite3_file {
            pMethods: if (*real_file).pMethods.is_null() {
                std::ptr::null()
            } else {
                methods_for((*(*real_file).pMethods).iVersion)
            },
        },
        counters: counters as *const IoCounters,
        class,
        pending_dir_sync: creates_journal,
        real: real_file,
    });
    rc
}

unsafe extern "C" fn x_delete(vfs: *mut sqlite3_vfs, name: *const c_char, sync_dir: c_int) -> c_int {
    let st = state(vfs);
    let class = if name.is_null() {
        FileClass::Other
    } else {
        classify_name(&CStr::from_ptr(name).to_string_lossy())
    };
    let rc = ((*st.real).xDelete.expect("VFS without xDelete"))(st.real, name, sync_dir);
    let c = st.counters.class(class);
    c.deletes.fetch_add(1, Relaxed);
    if rc == ffi::SQLITE_OK && sync_dir & 1 != 0 {
        c.dir_syncs.fetch_add(1, Relaxed);
    }
    rc
}

macro_rules! forward_vfs {
    ($name:ident, $field:ident, ($($arg:ident : $ty:ty),*) -> $ret:ty, $missing:expr) => {
        unsafe extern "C" fn $name(vfs: *mut sqlite3_vfs, $($arg: $ty),*) -> $ret {
            let real = state(vfs).real;
            match (*real).$field {
                Some(f) => f(real, $($arg),*),
                None => $missing,
            }
        }
    };
}

forward_vfs!(x_access, xAccess, (name: *const c_char, flags: c_int, out: *mut c_int) -> c_int, ffi::SQLITE_ERROR);
forward_vfs!(x_full_pathname, xFullPathname, (name: *const c_char, n: c_int, out: *mut c_char) -> c_int, ffi::SQLITE_ERROR);
forward_vfs!(x_dl_open, xDlOpen, (name: *const c_char) -> *mut c_void, std::ptr::null_mut());
forward_vfs!(x_dl_error, xDlError, (n: c_int, msg: *mut c_char) -> (), ());
forward_vfs!(x_dl_sym, xDlSym, (h: *mut c_void, sym: *const c_char) -> Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut c_void, *const c_char)>, None);
forward_vfs!(x_dl_close, xDlClose, (h: *mut c_void) -> (), ());
forward_vfs!(x_randomness, xRandomness, (n: c_int, out: *mut c_char) -> c_int, 0);
forward_vfs!(x_sleep, xSleep, (us: c_int) -> c_int, 0);
forward_vfs!(x_current_time, xCurrentTime, (out: *mut f64) -> c_int, ffi::SQLITE_ERROR);
forward_vfs!(x_get_last_error, xGetLastError, (n: c_int, out: *mut c_char) -> c_int, 0);
forward_vfs!(x_current_time_int64, xCurrentTimeInt64, (out: *mut ffi::sqlite3_int64) -> c_int, ffi::SQLITE_ERROR);
forward_vfs!(x_set_system_call, xSetSystemCall, (name: *const c_char, f: ffi::sqlite3_syscall_ptr) -> c_int, ffi::SQLITE_NOTFOUND);
forward_vfs!(x_get_system_call, xGetSystemCall, (name: *const c_char) -> ffi::sqlite3_syscall_ptr, None);
forward_vfs!(x_next_system_call, xNextSystemCall, (name: *const c_char) -> *const c_char, std::ptr::null());

// ---- file methods ----

unsafe fn parts<'a>(file: *mut sqlite3_file) -> (&'a ClassCounters, *mut sqlite3_file, &'a ffi::sqlite3_io_methods) {
    let shim = &*(file as *mut ShimFile);
    let counters = (*shim.counters).class(shim.class);
    (counters, shim.real, &*(*shim.real).pMethods)
}

unsafe extern "C" fn f_close(file: *mut sqlite3_file) -> c_int {
    let (_, real, m) = parts(file);
    let rc = (m.xClose.expect("xClose"))(real);
    (*real).pMethods = std::ptr::null();
    rc
}

unsafe extern "C" fn f_read(file: *mut sqlite3_file, buf: *mut c_void, amt: c_int, off: ffi::sqlite3_int64) -> c_int {
    let (c, real, m) = parts(file);
    c.reads.fetch_add(1, Relaxed);
    c.read_bytes.fetch_add(amt.max(0) as u64, Relaxed);
    (m.xRead.expect("xRead"))(real, buf, amt, off)
}

unsafe extern "C" fn f_write(
    file: *mut sqlite3_file,
    buf: *const c_void,
    amt: c_int,
    off: ffi::sqlite3_int64,
) -> c_int {
    let (c, real, m) = parts(file);
    c.writes.fetch_add(1, Relaxed);
    c.write_bytes.fetch_add(amt.max(0) as u64, Relaxed);
    (m.xWrite.expect("xWrite"))(real, buf, amt, off)
}

unsafe extern "C" fn f_truncate(file: *mut sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    let (c, real, m) = parts(file);
    c.truncates.fetch_add(1, Relaxed);
    (m.xTruncate.expect("xTruncate"))(real, size)
}

unsafe extern "C" fn f_sync(file: *mut sqlite3_file, flags: c_int) -> c_int {
    let (c, real, m) = parts(file);
    c.syncs.fetch_add(1, Relaxed);
    if flags & 0x0f == ffi::SQLITE_SYNC_FULL {
        c.syncs_full.fetch_add(1, Relaxed);
    }
    if flags & ffi::SQLITE_SYNC_DATAONLY != 0 {
        c.syncs_dataonly.fetch_add(1, Relaxed);
    }
    let shim = &mut *(file as *mut ShimFile);
    if shim.pending_dir_sync {
        shim.pending_dir_sync = false;
        c.dir_syncs.fetch_add(1, Relaxed);
    }
    (m.xSync.expect("xSync"))(real, flags)
}

unsafe extern "C" fn f_fetch(
    file: *mut sqlite3_file,
    off: ffi::sqlite3_int64,
    amt: c_int,
    pp: *mut *mut c_void,
) -> c_int {
    let (c, real, m) = parts(file);
    let rc = match m.xFetch {
        Some(f) => f(real, off, amt, pp),
        None => {
            *pp = std::ptr::null_mut();
            ffi::SQLITE_OK
        }
    };
    if rc == ffi::SQLITE_OK && !(*pp).is_null() {
        c.mmap_fetches.fetch_add(1, Relaxed);
    }
    rc
}

macro_rules! forward_file {
    ($name:ident, $field:ident, ($($arg:ident : $ty:ty),*) -> $ret:ty, $missing:expr) => {
        unsafe extern "C" fn $name(file: *mut sqlite3_file, $($arg: $ty),*) -> $ret {
            let (_, real, m) = parts(file);
            match m.$field {
                Some(f) => f(real, $($arg),*),
                None => $missing,
            }
        }
    };
}

forward_file!(f_file_size, xFileSize, (out: *mut ffi::sqlite3_int64) -> c_int, ffi::SQLITE_IOERR);
forward_file!(f_lock, xLock, (l: c_int) -> c_int, ffi::SQLITE_OK);
forward_file!(f_unlock, xUnlock, (l: c_int) -> c_int, ffi::SQLITE_OK);
forward_file!(f_check_reserved_lock, xCheckReservedLock, (out: *mut c_int) -> c_int, ffi::SQLITE_OK);
forward_file!(f_file_control, xFileControl, (op: c_int, arg: *mut c_void) -> c_int, ffi::SQLITE_NOTFOUND);
forward_file!(f_sector_size, xSectorSize, () -> c_int, 4096);
forward_file!(f_device_characteristics, xDeviceCharacteristics, () -> c_int, 0);
forward_file!(f_shm_map, xShmMap, (pg: c_int, sz: c_int, extend: c_int, pp: *mut *mut c_void) -> c_int, ffi::SQLITE_IOERR);
forward_file!(f_shm_lock, xShmLock, (off: c_int, n: c_int, flags: c_int) -> c_int, ffi::SQLITE_IOERR);
forward_file!(f_shm_barrier, xShmBarrier, () -> (), ());
forward_file!(f_shm_unmap, xShmUnmap, (delete: c_int) -> c_int, ffi::SQLITE_OK);
forward_file!(f_unfetch, xUnfetch, (off: ffi::sqlite3_int64, p: *mut c_void) -> c_int, ffi::SQLITE_OK);

const fn methods(version: c_int) -> ffi::sqlite3_io_methods {
    ffi::sqlite3_io_methods {
        iVersion: version,
        xClose: Some(f_close),
        xRead: Some(f_read),
        xWrite: Some(f_write),
        xTruncate: Some(f_truncate),
        xSync: Some(f_sync),
        xFileSize: Some(f_file_size),
        xLock: Some(f_lock),
        xUnlock: Some(f_unlock),
        xCheckReservedLock: Some(f_check_reserved_lock),
        xFileControl: Some(f_file_control),
        xSectorSize: Some(f_sector_size),
        xDeviceCharacteristics: Some(f_device_characteristics),
        xShmMap: Some(f_shm_map),
        xShmLock: Some(f_shm_lock),
        xShmBarrier: Some(f_shm_barrier),
        xShmUnmap: Some(f_shm_unmap),
        xFetch: Some(f_fetch),
        xUnfetch: Some(f_unfetch),
    }
}

static METHODS_V1: ffi::sqlite3_io_methods = methods(1);
static METHODS_V2: ffi::sqlite3_io_methods = methods(2);
static METHODS_V3: ffi::sqlite3_io_methods = methods(3);

/// The shim's methods advertise no more than the wrapped file supports, so SQLite never
/// calls a shared-memory or mmap method the real file lacks.
fn methods_for(version: c_int) -> *const ffi::sqlite3_io_methods {
    match version {
        ..=1 => &METHODS_V1,
        2 => &METHODS_V2,
        _ => &METHODS_V3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_classify_like_sqlite_names_them() {
        assert_eq!(classify_name("/d/t.db-journal"), FileClass::Journal);
        assert_eq!(classify_name("/d/t.db-wal"), FileClass::Wal);
        assert_eq!(classify_name("/d/t.db-shm"), FileClass::Other);
        assert_eq!(classify_name("/d/t.db-mj1A2B3C4D"), FileClass::Journal);
        assert_eq!(classify_name("/d/t.db"), FileClass::Main);
    }

    #[test]
    fn open_flags_classify() {
        assert_eq!(
            classify_open(ffi::SQLITE_OPEN_MAIN_DB | ffi::SQLITE_OPEN_CREATE),
            FileClass::Main
        );
        assert_eq!(classify_open(ffi::SQLITE_OPEN_WAL), FileClass::Wal);
        assert_eq!(classify_open(ffi::SQLITE_OPEN_MAIN_JOURNAL), FileClass::Journal);
        assert_eq!(classify_open(ffi::SQLITE_OPEN_SUBJOURNAL), FileClass::Temp);
    }
}
