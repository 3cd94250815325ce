//! A SQLite connection over an [`Api`] table, implementing [`Connection`].

use super::api::{cstr, sqlite3, sqlite3_stmt, transient, Api};
use super::guard;
use crate::engines::values::Values;
use crate::engines::{Connection, Dialect, EngineError, ErrorKind, StmtId, Value};
use libsqlite3_sys as ffi;
use std::ffi::{c_int, CString};
use std::path::Path;

/// One open SQLite connection and the statements prepared on it.
pub struct SqliteConn {
    api: &'static Api,
    db: *mut sqlite3,
    stmts: Vec<*mut sqlite3_stmt>,
    /// Statements this connection has prepared (`sqlite3_prepare_v2` calls, batches' included).
    prepares: std::cell::Cell<u64>,
    label: String,
    /// The mask of disabled optimizations litebench set (see [`super::optimizer`]); 0 until set.
    opt_mask: u32,
    /// How the `blob` workload reaches blobs (the `blob_api` knob).
    blob_api: super::blob::BlobApi,
    /// The statement that starts a write transaction (the `begin` knob).
    begin: &'static str,
    /// Whether the `begin` knob set [`Self::begin`]: only then does a user's bare `BEGIN` start in
    /// its mode ([`crate::engines::Connection::begin_knob`]).
    begin_set: bool,
    /// The `extension` knob's value whose library this connection loaded.
    extension: Option<String>,
    /// Knobs only a workload's statements read, set on this connection (vectorlite's HNSW
    /// parameters; the schema layouts [`super::knobs::LAYOUT_KNOBS`]), as `(name, value)`.
    workload_knobs: Vec<(&'static str, String)>,
    /// The directory of the database file (`None`: in memory): where the user's SQL may attach
    /// files once confined ([`SqliteConn::confine`]).
    dir: Option<std::path::PathBuf>,
    /// The authorizer's state, once confined; freed after the connection is closed.
    confinement: Option<Box<super::authorizer::Confinement>>,
}

impl SqliteConn {
    /// Column `i` of the current row as bytes (text or blob; empty for a NULL pointer).
    ///
    /// # Safety
    /// `stmt` is a live statement of this connection positioned on a row; the slice is valid
    /// only until the next step, reset or finalize of `stmt`.
    unsafe fn column_bytes<'s>(&self, stmt: *mut sqlite3_stmt, i: c_int) -> &'s [u8] {
        // SAFETY: per this function's contract; SQLite returns a buffer of `column_bytes` bytes.
        unsafe {
            let p = (self.api.column_text)(stmt, i);
            let len = (self.api.column_bytes)(stmt, i) as usize;
            if p.is_null() {
                &[]
            } else {
                std::slice::from_raw_parts(p, len)
            }
        }
    }

    /// Column `i` of the current row, by its type, onto `out`.
    ///
    /// # Safety
    /// `stmt` is a live statement of this connection positioned on a row.
    pub(super) unsafe fn push_column(&self, stmt: *mut sqlite3_stmt, i: c_int, out: &mut Values) {
        // SAFETY: per this function's contract; bytes are copied before the next step.
        unsafe {
            match (self.api.column_type)(stmt, i) {
                ffi::SQLITE_NULL => out.push_null(),
                ffi::SQLITE_INTEGER => out.push_int((self.api.column_int64)(stmt, i)),
                ffi::SQLITE_FLOAT => out.push_real((self.api.column_double)(stmt, i)),
                kind => {
                    let bytes = self.column_bytes(stmt, i);
                    if kind == ffi::SQLITE_BLOB {
                        out.push_blob(bytes);
                    } else {
                        out.push_text(bytes);
                    }
                }
            }
        }
    }

    /// Opens (creating if needed) `path` through the VFS named `vfs` (`None`: default VFS).
    pub fn open(api: &'static Api, path: &Path, vfs: Option<&str>, label: &str) -> Result<SqliteConn, EngineError> {
        let cpath = Self::c_path(path, label)?;
        let mut conn = Self::open_c(api, &cpath, vfs, label, ffi::SQLITE_OPEN_CREATE)?;
        conn.dir = path
            .parent()
            .map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d }.to_path_buf());
        Ok(conn)
    }

    /// Opens (creating if needed) `path` on SQLite's default VFS in its serialized mode (no
    /// `SQLITE_OPEN_NOMUTEX`), as speedtest1 opens its database: SQLite takes its connection
    /// mutex in every call, and litebench's counting VFS is not between SQLite and the file.
    pub fn open_serialized(api: &'static Api, path: &Path, label: &str) -> Result<SqliteConn, EngineError> {
        let cpath = Self::c_path(path, label)?;
        let mut conn = Self::open_c(
            api,
            &cpath,
            None,
            label,
            ffi::SQLITE_OPEN_CREATE | ffi::SQLITE_OPEN_FULLMUTEX,
        )?;
        conn.dir = path.parent().map(Path::to_path_buf);
        Ok(conn)
    }

    /// Opens `path` only if it exists, on the default VFS: read-write where the file allows
    /// it (so SQLite can roll back a transaction a killed writer left behind), read-only where
    /// it does not. Never creates a file.
    pub fn open_existing(api: &'static Api, path: &Path, label: &str) -> Result<SqliteConn, EngineError> {
        Self::open_c(api, &Self::c_path(path, label)?, None, label, 0)
    }

    fn c_path(path: &Path, label: &str) -> Result<CString, EngineError> {
        CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| EngineError {
            busy_cause: None,
            engine: label.to_string(),
            kind: ErrorKind::Other,
            code: None,
            message: format!("path {} contains a NUL byte", path.display()),
            context: "opening the database".into(),
        })
    }

    /// Opens a private in-memory database.
    pub fn open_memory(api: &'static Api, label: &str) -> Result<SqliteConn, EngineError> {
        Self::open_c(api, c":memory:", None, label, ffi::SQLITE_OPEN_CREATE)
    }

    fn open_c(
        api: &'static Api,
        path: &std::ffi::CStr,
        vfs: Option<&str>,
        label: &str,
        create: c_int,
    ) -> Result<SqliteConn, EngineError> {
        if api.init_rc != ffi::SQLITE_OK {
            return Err(EngineError {
                busy_cause: None,
                engine: label.to_string(),
                kind: ErrorKind::Other,
                code: Some(api.init_rc),
                message: format!("sqlite3_initialize() failed: {}", api.describe(api.init_rc)),
                context: "opening the database".into(),
            });
        }
        let cvfs = vfs.map(|v| CString::new(v).expect("VFS names have no NUL"));
        let mut db = std::ptr::null_mut();
        // Multi-thread mode unless the caller asks for serialized (`SQLITE_OPEN_FULLMUTEX`).
        let threading = if create & ffi::SQLITE_OPEN_FULLMUTEX != 0 {
            0
        } else {
            ffi::SQLITE_OPEN_NOMUTEX
        };
        let flags = ffi::SQLITE_OPEN_READWRITE | create | threading;
        // SAFETY: valid C strings and out-pointer; SQLite allocates the handle even on error.
        let rc = unsafe {
            (api.open_v2)(
                path.as_ptr(),
                &mut db,
                flags,
                cvfs.as_ref().map_or(std::ptr::null(), |v| v.as_ptr()),
            )
        };
        let conn = SqliteConn {
            api,
            db,
            stmts: Vec::new(),
            prepares: std::cell::Cell::new(0),
            label: label.to_string(),
            opt_mask: 0,
            blob_api: super::blob::BlobApi::Sql,
            begin: "BEGIN IMMEDIATE",
            begin_set: false,
            extension: None,
            workload_knobs: Vec::new(),
            dir: None,
            confinement: None,
        };
        if rc != ffi::SQLITE_OK {
            return Err(conn.error(rc, &format!("opening {}", path.to_string_lossy())));
        }
        // SAFETY: db is open.
        unsafe { (api.extended_result_codes)(db, 1) };
        Ok(conn)
    }

    /// Confines the user's SQL on this connection to the directory of its database file (none
    /// for a database in memory): SQLite's authorizer refuses `ATTACH` and `VACUUM INTO` of any
    /// other file and `load_extension()` ([`super::authorizer`]), and extension loading is
    /// turned off. Once set, it stays for the connection's life.
    pub fn confine(&mut self) -> Result<(), EngineError> {
        if self.confinement.is_some() {
            return Ok(());
        }
        let dir = match &self.dir {
            Some(d) => Some(d.canonicalize().map_err(|e| EngineError {
                busy_cause: None,
                engine: self.label.clone(),
                kind: ErrorKind::Other,
                code: None,
                message: format!("{}: {e}", d.display()),
                context: "confining the user's SQL to the scratch directory".into(),
            })?),
            None => None,
        };
        let confinement = Box::new(super::authorizer::Confinement::new(dir));
        let data = &*confinement as *const super::authorizer::Confinement as *mut std::ffi::c_void;
        // SAFETY: db is open; the confinement is kept in this connection and freed only after
        // the connection is closed (fields drop after `Drop::drop`), so SQLite's pointer to it
        // stays valid while it can call the authorizer.
        let rc = unsafe { (self.api.set_authorizer)(self.db, Some(super::authorizer::authorize), data) };
        if rc != ffi::SQLITE_OK {
            return Err(self.error(rc, "setting the authorizer"));
        }
        self.confinement = Some(confinement);
        const OFF: c_int = 0;
        // SAFETY: db is open; SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION takes an int and an int*
        // (null: not read back). Builds before 3.13.0 do not know it and answer an error, and
        // have the C call only, off unless enabled; the authorizer refuses the SQL function
        // either way (from 3.8.3, which asks it about functions).
        unsafe {
            (self.api.db_config)(
                self.db,
                ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
                OFF,
                std::ptr::null_mut::<c_int>(),
            )
        };
        Ok(())
    }

    /// The library this connection runs on.
    pub fn api(&self) -> &'static Api {
        self.api
    }

    /// The raw handle, for the calls [`Api`] makes on a connection outside this module
    /// (test control, db config, scan status), and for the results store's busy handler.
    pub(crate) fn raw_db(&self) -> *mut sqlite3 {
        self.db
    }

    /// The engine label errors name.
    pub(super) fn label(&self) -> &str {
        &self.label
    }

    /// The mask of disabled optimizations litebench set on this connection (0: none set).
    pub fn opt_mask(&self) -> u32 {
        self.opt_mask
    }

    pub(super) fn set_opt_mask(&mut self, mask: u32) {
        self.opt_mask = mask;
    }

    /// How the `blob` workload reaches blobs on this connection.
    pub fn blob_api(&self) -> super::blob::BlobApi {
        self.blob_api
    }

    pub(super) fn set_begin(&mut self, begin: &'static str) {
        self.begin = begin;
        self.begin_set = true;
    }

    /// The `begin` knob's value as the connection issues it.
    pub fn begin_mode(&self) -> &'static str {
        super::knobs::BEGIN_MODES
            .iter()
            .find(|(_, s)| *s == self.begin)
            .map_or("immediate", |(n, _)| *n)
    }

    /// The `extension` knob's value whose library this connection loaded, if any.
    pub fn extension(&self) -> Option<&str> {
        self.extension.as_deref()
    }

    /// The bytes SQLite's own allocator holds now, in this whole library (page caches, schemas,
    /// statements): what an extension's own C heap use is told apart from. Zero on a build
    /// that keeps no memory statistics (`SQLITE_DEFAULT_MEMSTATUS=0`).
    pub fn library_memory_used(&self) -> u64 {
        // SAFETY: sqlite3_memory_used takes no arguments and is safe from any thread.
        unsafe { (self.api.memory_used)() }.max(0) as u64
    }

    /// The value of a knob only a workload reads (`hnsw_ef_search`), as set on this connection.
    pub fn workload_knob(&self, name: &str) -> Option<&str> {
        self.workload_knobs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn set_workload_knob(&mut self, name: &'static str, value: &str) {
        self.workload_knobs.retain(|(n, _)| *n != name);
        self.workload_knobs.push((name, value.to_string()));
    }

    pub(super) fn set_extension(&mut self, value: &str) {
        self.extension = Some(value.to_string());
    }

    pub(super) fn set_blob_api(&mut self, api: super::blob::BlobApi) {
        self.blob_api = api;
    }

    /// Statements SQLite holds open on this connection (`sqlite3_next_stmt`), whether prepared
    /// through [`Connection::prepare`] or leaked by anything else: lets a caller that prepares
    /// statements check that it does not accumulate them.
    pub fn open_statements(&self) -> usize {
        let mut n = 0;
        let mut s = std::ptr::null_mut();
        loop {
            // SAFETY: db is open; next_stmt walks the connection's own statement list.
            s = unsafe { (self.api.next_stmt)(self.db, s) };
            if s.is_null() {
                return n;
            }
            n += 1;
        }
    }

    pub(super) fn error(&self, rc: c_int, context: &str) -> EngineError {
        let mut message = if self.db.is_null() {
            self.api.describe(rc)
        } else {
            // SAFETY: db is a valid handle (possibly in an error state); errmsg is static or owned by db.
            unsafe { cstr((self.api.errmsg)(self.db)) }
        };
        // An I/O error may come from litebench's own VFS shim failing, not from the storage.
        let faults = guard::faults();
        if rc & 0xff == ffi::SQLITE_IOERR || rc & 0xff == ffi::SQLITE_CANTOPEN {
            if let Some(first) = faults.first {
                message = format!(
                    "{message} [litebench's counting VFS failed {} time(s), first in {first}: this is a litebench bug, please report it]",
                    faults.count
                );
            }
        }
        // "not authorized", from the statement itself or from the ATTACH that VACUUM INTO runs.
        if let Some(why) = self.confinement.as_ref().and_then(|c| c.take_refusal()) {
            message = format!("{message}: {why}");
        }
        let kind = match rc & 0xff {
            ffi::SQLITE_FULL => ErrorKind::Full,
            ffi::SQLITE_BUSY | ffi::SQLITE_LOCKED => ErrorKind::Busy,
            ffi::SQLITE_IOERR => ErrorKind::Io,
            ffi::SQLITE_READONLY | ffi::SQLITE_CANTOPEN | ffi::SQLITE_PERM => ErrorKind::ReadOnly,
            _ => ErrorKind::Other,
        };
        // Read right after the failure (a reset keeps an explicit transaction's state).
        let busy_cause = (kind == ErrorKind::Busy && !self.db.is_null()).then(|| {
            // SAFETY: db is a valid handle.
            super::busy::classify(rc, unsafe { super::busy::After::read(self.api, self.db) })
        });
        EngineError {
            engine: self.label.clone(),
            kind,
            code: Some(rc),
            message,
            context: context.to_string(),
            busy_cause,
        }
    }

    /// How many statements this connection has prepared: each `sqlite3_prepare_v2` call,
    /// those of [`Connection::execute_batch`] included.
    pub fn prepares(&self) -> u64 {
        self.prepares.get()
    }

    /// Prepared statement `id` (null once finalized by [`SqliteConn::set_stmt`]).
    pub(super) fn stmt(&self, id: StmtId) -> *mut sqlite3_stmt {
        self.stmts[id.0]
    }

    /// Puts `stmt` in `id`'s place, returning the statement that was there (the caller
    /// finalizes it).
    pub(super) fn set_stmt(&mut self, id: StmtId, stmt: *mut sqlite3_stmt) -> *mut sqlite3_stmt {
        std::mem::replace(&mut self.stmts[id.0], stmt)
    }

    pub(super) fn prepare_raw(&self, sql: &str) -> Result<*mut sqlite3_stmt, EngineError> {
        self.prepares.set(self.prepares.get() + 1);
        let mut stmt = std::ptr::null_mut();
        // SAFETY: sql is valid for its length; SQLite copies what it needs.
        let rc = unsafe {
            (self.api.prepare_v2)(
                self.db,
                sql.as_ptr().cast(),
                sql.len() as c_int,
                &mut stmt,
                std::ptr::null_mut(),
            )
        };
        if rc != ffi::SQLITE_OK {
            return Err(self.error(rc, &format!("preparing `{sql}`")));
        }
        Ok(stmt)
    }

    fn bind(&self, stmt: *mut sqlite3_stmt, params: &[Value<'_>]) -> c_int {
        // SAFETY: text and blobs are copied (TRANSIENT).
        unsafe { self.bind_as(stmt, params, transient()) }
    }

    /// Binds `params` to `stmt`, text and blobs with destructor `how` (`SQLITE_TRANSIENT`:
    /// copied; `None`, `SQLITE_STATIC`: used in place).
    ///
    /// # Safety
    /// `stmt` is a live statement of this connection; with `SQLITE_STATIC`, the text and blobs
    /// of `params` outlive every use of `stmt` until it is rebound or finalized.
    pub(super) unsafe fn bind_as(
        &self,
        stmt: *mut sqlite3_stmt,
        params: &[Value<'_>],
        how: Option<unsafe extern "C" fn(*mut std::ffi::c_void)>,
    ) -> c_int {
        for (i, p) in params.iter().enumerate() {
            let idx = (i + 1) as c_int;
            // SAFETY: per this function's contract.
            let rc = unsafe {
                match *p {
                    Value::Null => (self.api.bind_null)(stmt, idx),
                    Value::Int(v) => (self.api.bind_int64)(stmt, idx, v),
                    Value::Real(v) => (self.api.bind_double)(stmt, idx, v),
                    Value::Text(s) => (self.api.bind_text)(stmt, idx, s.as_ptr().cast(), s.len() as c_int, how),
                    Value::Blob(b) => (self.api.bind_blob)(stmt, idx, b.as_ptr().cast(), b.len() as c_int, how),
                }
            };
            if rc != ffi::SQLITE_OK {
                return rc;
            }
        }
        ffi::SQLITE_OK
    }

    /// Steps `stmt` to completion; returns rows produced, or the error code.
    pub(super) fn step_all(&self, stmt: *mut sqlite3_stmt) -> Result<u64, c_int> {
        let mut rows = 0u64;
        loop {
            // SAFETY: stmt is live and bound.
            match unsafe { (self.api.step)(stmt) } {
                ffi::SQLITE_ROW => rows += 1,
                ffi::SQLITE_DONE => return Ok(rows),
                rc => return Err(rc),
            }
        }
    }
}

impl Connection for SqliteConn {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    /// Opened with `SQLITE_OPEN_NOMUTEX` (multi-thread mode): any thread may use it while no
    /// other thread uses it or its statements.
    fn threads_may_share(&self) -> bool {
        true
    }

    fn begin_knob(&self) -> Option<&'static str> {
        self.begin_set.then_some(self.begin)
    }

    fn begin_write(&self) -> &'static str {
        self.begin
    }

    fn confine_to_scratch(&mut self) -> Result<(), EngineError> {
        self.confine()
    }

    fn interrupter(&self) -> Option<super::super::Interrupter> {
        let interrupt = self.api.interrupt;
        // As an address: a raw pointer is not Send, and sqlite3_interrupt is the one call SQLite
        // documents as safe from another thread while the connection is open.
        let db = self.db as usize;
        // SAFETY: the caller stops calling this before the connection is closed (the trait's
        // contract), so `db` is an open connection whenever it runs.
        Some(Box::new(move || unsafe { interrupt(db as *mut sqlite3) }))
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        let mut rest = sql.trim();
        while !rest.is_empty() {
            let mut stmt = std::ptr::null_mut();
            let mut tail = std::ptr::null();
            self.prepares.set(self.prepares.get() + 1);
            // SAFETY: rest is valid for its length; tail points into it.
            let rc = unsafe {
                (self.api.prepare_v2)(self.db, rest.as_ptr().cast(), rest.len() as c_int, &mut stmt, &mut tail)
            };
            if rc != ffi::SQLITE_OK {
                return Err(self.error(rc, &format!("preparing `{rest}`")));
            }
            let used = (tail as usize).saturating_sub(rest.as_ptr() as usize).min(rest.len());
            let this = &rest[..used];
            if !stmt.is_null() {
                let r = self.step_all(stmt);
                // SAFETY: finalize accepts any statement we prepared.
                unsafe { (self.api.finalize)(stmt) };
                if let Err(rc) = r {
                    return Err(self.error(rc, &format!("running `{}`", this.trim())));
                }
            }
            if used == 0 {
                break;
            }
            rest = rest[used..].trim();
        }
        Ok(())
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let stmt = self.prepare_raw(sql)?;
        self.stmts.push(stmt);
        Ok(StmtId(self.stmts.len() - 1))
    }

    fn run(&mut self, id: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        let stmt = self.stmts[id.0];
        let rc = self.bind(stmt, params);
        let result = if rc != ffi::SQLITE_OK {
            Err(rc)
        } else {
            self.step_all(stmt)
        };
        // SAFETY: stmt is live; reset keeps bindings but releases locks and read cursors.
        unsafe { (self.api.reset)(stmt) };
        match result {
            Ok(rows) if rows > 0 => Ok(rows),
            // A query that found nothing produced 0 rows; `changes64` would report the last DML
            // statement's count instead (SELECTs do not reset it).
            // SAFETY: stmt is live.
            Ok(_) if unsafe { (self.api.column_count)(stmt) } > 0 => Ok(0),
            // SAFETY: db is open.
            Ok(_) => Ok(unsafe { self.api.changes(self.db) } as u64),
            Err(rc) => Err(self.error(rc, "running a prepared statement")),
        }
    }

    fn run_values(&mut self, id: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        let stmt = self.stmts[id.0];
        let mut rc = self.bind(stmt, params);
        let mut rows = 0u64;
        if rc == ffi::SQLITE_OK {
            // SAFETY: stmt is live and bound; column values are copied before the next step.
            unsafe {
                let n = (self.api.column_count)(stmt);
                loop {
                    match (self.api.step)(stmt) {
                        ffi::SQLITE_ROW => {
                            rows += 1;
                            for i in 0..n {
                                self.push_column(stmt, i, out);
                            }
                        }
                        ffi::SQLITE_DONE => {
                            rc = ffi::SQLITE_OK;
                            break;
                        }
                        other => {
                            rc = other;
                            break;
                        }
                    }
                }
            }
        }
        // SAFETY: stmt is live.
        unsafe { (self.api.reset)(stmt) };
        if rc != ffi::SQLITE_OK {
            return Err(self.error(rc, "running a prepared query"));
        }
        Ok(rows)
    }

    fn column_names(&mut self, id: StmtId) -> Result<Vec<String>, EngineError> {
        let stmt = self.stmts[id.0];
        // SAFETY: stmt is live; a name is copied before the next call on it.
        let n = unsafe { (self.api.column_count)(stmt) };
        Ok((0..n)
            .map(|i| unsafe { cstr((self.api.column_name)(stmt, i)) })
            .collect())
    }

    /// Prepared single-row inserts (bound straight from the caller's row) in transactions of
    /// a million rows, with the rollback journal off while loading: a template needs no crash
    /// safety (`bulk_load_mode` has turned `synchronous` off already), and the journal would
    /// write every page twice. The journal mode the connection had is put back afterwards.
    fn bulk_load(
        &mut self,
        table: &str,
        columns: &[&str],
        fill: crate::engines::bulk::Fill<'_>,
    ) -> Result<u64, EngineError> {
        let before = self
            .query_value("PRAGMA journal_mode")?
            .unwrap_or_else(|| "delete".into());
        self.query("PRAGMA journal_mode=OFF")?;
        let loaded = crate::engines::bulk::insert_rows(self, table, columns, 1, fill);
        let restored = self.query(&format!("PRAGMA journal_mode={before}"));
        let rows = loaded?;
        restored?;
        Ok(rows)
    }

    fn bulk_path(&self) -> &'static str {
        "prepared INSERTs"
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        let stmt = self.prepare_raw(sql)?;
        let mut rows = Vec::new();
        // SAFETY: stmt is live until finalize below; column pointers are copied immediately.
        unsafe {
            let n = (self.api.column_count)(stmt);
            loop {
                match (self.api.step)(stmt) {
                    ffi::SQLITE_ROW => {
                        let mut row = Vec::with_capacity(n as usize);
                        for i in 0..n {
                            if (self.api.column_type)(stmt, i) == ffi::SQLITE_NULL {
                                row.push(None);
                            } else {
                                let bytes = self.column_bytes(stmt, i);
                                row.push(Some(String::from_utf8_lossy(bytes).into_owned()));
                            }
                        }
                        rows.push(row);
                    }
                    ffi::SQLITE_DONE => break,
                    rc => {
                        (self.api.finalize)(stmt);
                        return Err(self.error(rc, &format!("running `{sql}`")));
                    }
                }
            }
            (self.api.finalize)(stmt);
        }
        Ok(rows)
    }

    fn query_plan(&mut self, sql: &str) -> Result<Option<Vec<String>>, EngineError> {
        super::plan::checked_plan(self, sql).map(Some)
    }

    fn loop_profile(&mut self, sql: &str) -> Result<Option<Vec<crate::model::engine_info::LoopProfile>>, EngineError> {
        super::scanstatus::loop_profile(self, sql)
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn online_backup(
        &mut self,
        to: &Path,
        steps: crate::model::cast::BackupSteps,
        stop: &dyn Fn() -> bool,
    ) -> Result<crate::model::cast::BackupProgress, EngineError> {
        super::backup::online_backup(self, to, steps, stop)
    }

    fn stores_blobs_natively(&self) -> bool {
        self.blob_api == super::blob::BlobApi::Incremental
    }

    fn native_blob_store(&mut self) -> Result<Box<dyn crate::engines::blob::BlobStore + '_>, EngineError> {
        Ok(Box::new(super::blob::IncrementalBlobs::new(self)))
    }
}

impl Drop for SqliteConn {
    fn drop(&mut self) {
        // SAFETY: every statement and the handle were created by this connection.
        unsafe {
            for s in self.stmts.drain(..) {
                (self.api.finalize)(s);
            }
            (self.api.close)(self.db);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interrupter_ends_a_long_statement_from_another_thread() {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "test").unwrap();
        let interrupt = conn.interrupter().expect("SQLite can interrupt");
        let done = std::sync::atomic::AtomicBool::new(false);
        let start = std::time::Instant::now();
        let result = std::thread::scope(|s| {
            s.spawn(|| {
                // Until the statement has ended: an interrupt before it starts has no effect.
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    interrupt();
                }
            });
            // A count to ten billion: hours, unless interrupted.
            let r = conn.query(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) FROM c",
            );
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            r
        });
        let e = result.expect_err("the statement was interrupted");
        assert!(e.message.contains("interrupt"), "{e:?}");
        // The connection stays usable afterwards.
        assert_eq!(conn.query("SELECT 7").unwrap(), vec![vec![Some("7".to_string())]]);
        eprintln!("interrupted after {:?}", start.elapsed());
    }
}
