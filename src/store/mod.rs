//! The results store: every trial of every run, in a SQLite database, committed as it finishes.
//!
//! A run is inserted with status `running` before its first trial; each finished trial is its
//! own committed transaction; the status becomes `complete`, `interrupted` or `failed` at the
//! end. `kill -9` therefore leaves a consistent database whose run still says `running`, and
//! `show` reports it as abandoned when that can be known: the run records its host, boot id and
//! pid, and only the same host can tell that the process is gone ([`liveness`]). The store uses
//! the bundled SQLite on the default VFS, so it never shows up in a trial's I/O counts.
//!
//! The file carries its schema version ([`schema`]). Opening it to write ([`Store::open`], what
//! `run` does) upgrades an older store in place, in one transaction. Opening it to read
//! ([`Store::open_read`], what `show` does) never writes: it reads every schema from 0 to
//! [`schema::CURRENT`] as it is, so `show` can be pointed at a store on a read-only disk, or at
//! a copy from another machine, and leaves the file as it found it. (It opens the file
//! read-write where permissions allow only so that SQLite can roll back a transaction a killed
//! run left half-written, which restores the last committed state and loses nothing.) A store
//! written by a newer litebench is refused by both, and not touched.
//!
//! A store is written only when it is this user's alone, as side files and `--export` are
//! (litebench runs as root, and whoever can write the store can rewrite every result in it,
//! with a trigger on `trials`): never through a symbolic link (a dangling one would have
//! SQLite create the store wherever it points), never one owned by another user or writable
//! by group or others; a new store is created with `O_CREAT | O_EXCL | O_NOFOLLOW`.

mod busy;
mod liveness;
pub mod merge;
pub mod run_name;
pub mod run_uuid;
pub mod schema;
pub mod unsaved;

use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::model::record::{Manifest, TemplateRecord, TrialRecord};
use liveness::{Here, Origin};
use schema::Found;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Environment variable that overrides the default store location.
pub const ENV_VAR: &str = "LITEBENCH_RESULTS";

/// A problem with the results store, named with its path.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    #[error("--results {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    /// Said once: the store's path, then SQLite's message and what the store was doing.
    #[error("results store {path}: {} (while {})", source.message, source.context)]
    Engine { path: PathBuf, source: EngineError },
    #[error(
        "--results {path}: the store is damaged ({detail}); recover what it holds with `sqlite3 {path} .recover | sqlite3 recovered.db` and give --results recovered.db, or give another path"
    )]
    Damaged { path: PathBuf, detail: String },
    #[error(
        "--results {path}: a killed writer left a hot journal ({path}-journal) that must be rolled back before the store can be read, and the store cannot be written here (a read-only file or filesystem); copy {path} and {path}-journal together to a writable directory and give --results the copy"
    )]
    HotJournal { path: PathBuf },
    #[error(
        "results store {path}: a stored record does not parse ({reason}); it was written by another litebench version"
    )]
    Corrupt { path: PathBuf, reason: String },
    #[error("results store {path}: no run {run}; `litebench show --list` lists the stored runs")]
    NoRun { path: PathBuf, run: String },
    #[error(
        "results store {path}: no run named `{name}`; `litebench show --list` lists the stored runs and their names"
    )]
    NoName { path: PathBuf, name: String },
    #[error("results store {path} holds no runs yet; run `litebench run crud` first")]
    Empty { path: PathBuf },
    #[error(
        "--results {path}: written by a newer litebench (schema {found}, this one reads up to {known}); upgrade litebench"
    )]
    Newer { path: PathBuf, found: i64, known: i64 },
    /// The store (or its journal) is a symbolic link: a dangling one would have SQLite create
    /// the store wherever it points, another user's would send root's writes there.
    #[error(
        "--results {path}: {what}is a symbolic link; litebench never writes a store through one, so remove it or choose another path"
    )]
    Symlink { path: PathBuf, what: String },
    /// The store (or its journal) is another user's, or others can write it: they could
    /// rewrite the results (a trigger on `trials`) of whoever writes there, root included.
    #[error("--results {path}: {what}{why}; another user could rewrite the results stored there, so {fix}")]
    NotOwn {
        path: PathBuf,
        what: String,
        why: crate::sys::own_file::NotOwnError,
        fix: String,
    },
}

/// Refuses to write a store that is not this user's alone, as side files and `--export` are
/// refused: the store file or one of its journals a symbolic link (dangling or not), another
/// user's, or writable by group or others. Looked at without following links.
fn refuse_not_own(path: &Path) -> Result<(), StoreError> {
    use crate::sys::own_file::{euid, NotOwnError};
    use std::os::unix::fs::MetadataExt;
    let mut files = vec![(String::new(), path.to_path_buf())];
    for suffix in ["-journal", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let file = PathBuf::from(name);
        files.push((format!("its {} ", file.display()), file));
    }
    for (what, file) in files {
        let Ok(m) = file.symlink_metadata() else { continue };
        if m.file_type().is_symlink() {
            return Err(StoreError::Symlink {
                path: path.to_path_buf(),
                what,
            });
        }
        if !m.is_file() {
            continue;
        }
        let (uid, mode, me) = (m.uid(), m.mode() & 0o7777, euid());
        let shown = file.display();
        let (why, fix) = if uid != me {
            (
                NotOwnError::OwnedByOther { uid, euid: me },
                format!("copy it and give --results the copy, `chown {me} {shown}` if it is yours to write, or choose another path"),
            )
        } else if mode & 0o022 != 0 {
            (
                NotOwnError::WritableByOthers { mode },
                format!("`chmod go-w {shown}`, or choose another path"),
            )
        } else {
            continue;
        };
        return Err(StoreError::NotOwn {
            path: path.to_path_buf(),
            what,
            why,
            fix,
        });
    }
    Ok(())
}

/// Creates the store file `path` (empty: SQLite reads it as a new database) with `O_CREAT |
/// O_EXCL | O_NOFOLLOW`, so that nothing already at the name, a dangling link least of all, is
/// followed or taken for it. One another litebench created meanwhile is checked instead.
fn create_new(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::OpenOptionsExt;
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path);
    match made {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => refuse_not_own(path),
        Err(e) => Err(StoreError::Open {
            path: path.to_path_buf(),
            reason: format!("cannot create it ({e}); choose another path"),
        }),
    }
}

/// The SQLite build a durability verdict was found on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedBuild {
    /// `sqlite`, `sqlite@NAME` or `sqlite:/path`.
    pub engine: String,
    pub version: String,
    pub source_id: String,
}

/// Where results go when `--results` is not given: `$LITEBENCH_RESULTS`, else
/// `$XDG_DATA_HOME/litebench/results.db`, else `~/.local/share/litebench/results.db`.
pub fn default_path() -> PathBuf {
    // An empty variable counts as unset (as the XDG base directory specification says for
    // XDG_DATA_HOME): an empty path would make SQLite open a temporary database that vanishes
    // with the run.
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(p) = var(ENV_VAR) {
        return PathBuf::from(p);
    }
    let data = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("litebench").join("results.db")
}

/// An open results store.
pub struct Store {
    /// Declared before `busy`, so it is closed before the handler's state is freed.
    conn: SqliteConn,
    /// The busy handler's state ([`busy`]): wait for other processes' locks until stopped.
    busy: Box<busy::Busy>,
    path: PathBuf,
    /// Schema version of the file; `None` for an empty database opened to read.
    version: Option<i64>,
    /// Whether the file has a `templates` table (the oldest version-0 stores do not).
    has_templates: bool,
    /// Statements prepared once per SQL text; the connection finalizes them when it closes.
    stmts: HashMap<&'static str, StmtId>,
}

/// A run's row as [`Store::begin`] stored it.
#[derive(Debug, Clone)]
pub struct Begun {
    /// Its id in this store.
    pub id: i64,
    /// Its id everywhere ([`run_uuid`]).
    pub uuid: String,
    pub pid: i64,
    pub host: Option<String>,
    pub boot_id: Option<String>,
    /// Its name (`run --name`, [`run_name`]).
    pub name: Option<String>,
}

/// A run as stored.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub id: i64,
    /// Its name (`run --name`, schema 4 on).
    pub name: Option<String>,
    /// `running`, `complete`, `interrupted`, `failed`, `abandoned` (running, process gone), or
    /// `running (...)` saying why its state cannot be known here (started on another host).
    pub status: String,
    pub error: Option<String>,
    pub finished_at: Option<String>,
    pub manifest: Manifest,
    pub templates: Vec<TemplateRecord>,
    pub trials: Vec<TrialRecord>,
}

/// One line of `show --list`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunListing {
    pub id: i64,
    pub started_at: String,
    pub workload: String,
    pub status: String,
    /// Measured trials (warm-ups are not counted).
    pub trials: i64,
    /// Warm-up trials stored.
    pub warmups: i64,
    /// The run's globally unique id (schema 3 on); the integer `id` is an alias within this
    /// store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Its name (`run --name`, schema 4 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its configurations' labels, in order.
    pub configurations: Vec<String>,
}

/// Checks, without creating or changing anything, that a store could be opened at `path`: not
/// a directory, (for an explicit `--results`) in an existing directory, not written by a
/// newer litebench, and not damaged (`PRAGMA quick_check`, which reads the whole file: every
/// command that writes a store calls this once, before it measures anything). Other problems
/// with an existing file are left to [`Store::open`].
pub fn check_path(path: &Path, explicit: bool) -> Result<(), StoreError> {
    check(path, explicit, true)
}

fn check(path: &Path, explicit: bool, intact: bool) -> Result<(), StoreError> {
    let open_err = |reason: String| StoreError::Open {
        path: path.to_path_buf(),
        reason,
    };
    if path.as_os_str().is_empty() {
        return Err(open_err("empty path; give a file path such as results.db".into()));
    }
    refuse_not_own(path)?;
    if path.is_dir() {
        return Err(open_err("is a directory; give a file path such as results.db".into()));
    }
    // A device, FIFO or socket is not a store, and writing a database into one (a disk's
    // block device) would destroy what it holds.
    if path.exists() && !path.is_file() {
        return Err(open_err(
            "not a regular file (a device, FIFO or socket); give a file path such as results.db".into(),
        ));
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if explicit && !parent.is_dir() {
            return Err(open_err(format!(
                "directory {} does not exist; create it or choose another path",
                parent.display()
            )));
        }
    }
    if path.is_file() {
        let conn = SqliteConn::open_existing(Api::bundled(), path, "results store");
        let busy = busy::Busy::new(path.to_path_buf());
        let found = conn.and_then(|mut c| {
            busy.install(&c);
            let found = schema::inspect(&mut c)?;
            Ok((c, found))
        });
        match found {
            Ok((mut c, Found::Version(v))) => {
                refuse_newer(path, v)?;
                if intact {
                    check_intact(&mut c, path)?;
                }
            }
            Ok(_) => {}
            // Other problems (not a database at all, ...) are left to `Store::open`, which
            // says what they are.
            Err(e) => {
                if let e @ (StoreError::Damaged { .. } | StoreError::HotJournal { .. }) = classify(path, e) {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// Refuses a damaged store: `PRAGMA quick_check` (every page's structure, without the index
/// cross-checks of `integrity_check`), before a run adds itself to it.
fn check_intact(conn: &mut SqliteConn, path: &Path) -> Result<(), StoreError> {
    let damaged = |detail: String| StoreError::Damaged {
        path: path.to_path_buf(),
        detail,
    };
    match conn.query("PRAGMA quick_check(1)") {
        Ok(rows) => match rows.first().and_then(|r| r.first().cloned().flatten()) {
            Some(ok) if ok == "ok" => Ok(()),
            Some(problem) => Err(damaged(format!("PRAGMA quick_check: {}", problem.replace('\n', " ")))),
            None => Err(damaged("PRAGMA quick_check returned nothing".into())),
        },
        Err(e) => Err(match classify(path, e) {
            StoreError::Engine { source, .. } => damaged(format!("PRAGMA quick_check: {}", source.message)),
            other => other,
        }),
    }
}

/// SQLite's extended code for a hot journal that cannot be rolled back on a read-only file.
const SQLITE_READONLY_ROLLBACK: i32 = 776;

/// What an error opening or reading the store means: a damaged file, a hot journal on a
/// read-only directory, or (anything else) the error itself.
fn classify(path: &Path, e: EngineError) -> StoreError {
    let code = e.code.unwrap_or(0);
    if code & 0xff == libsqlite3_sys::SQLITE_CORRUPT {
        return StoreError::Damaged {
            path: path.to_path_buf(),
            detail: e.message,
        };
    }
    let mut journal = path.as_os_str().to_owned();
    journal.push("-journal");
    let hot = Path::new(&journal).is_file();
    if code == SQLITE_READONLY_ROLLBACK
        || (hot
            && matches!(
                code & 0xff,
                libsqlite3_sys::SQLITE_READONLY | libsqlite3_sys::SQLITE_CANTOPEN
            ))
    {
        return StoreError::HotJournal {
            path: path.to_path_buf(),
        };
    }
    StoreError::Engine {
        path: path.to_path_buf(),
        source: e,
    }
}

fn refuse_newer(path: &Path, version: i64) -> Result<(), StoreError> {
    if version > schema::CURRENT {
        return Err(StoreError::Newer {
            path: path.to_path_buf(),
            found: version,
            known: schema::CURRENT,
        });
    }
    Ok(())
}

impl Store {
    /// Opens (creating if needed) the store at `path` to write, upgrading an older schema in
    /// place. The parent directory of an explicit path must exist; the default location's
    /// directories are created.
    pub fn open(path: &Path, explicit: bool) -> Result<Store, StoreError> {
        Store::open_until(path, explicit, None)
    }

    /// [`Store::open`], with waits for other processes' locks (from the first statement on)
    /// ended by `stop` (see [`Store::stop_waiting_on`]).
    pub fn open_until(path: &Path, explicit: bool, stop: Option<Arc<AtomicBool>>) -> Result<Store, StoreError> {
        let open_err = |reason: String| StoreError::Open {
            path: path.to_path_buf(),
            reason,
        };
        // The caller checked the store is intact (`check_path`); not read twice.
        check(path, explicit, false)?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| open_err(format!("cannot create {}: {e}", parent.display())))?;
            }
        }
        if path.symlink_metadata().is_err() {
            create_new(path)?;
        }
        let conn = SqliteConn::open(Api::bundled(), path, None, "results store").map_err(|e| {
            open_err(format!(
                "{} ({})",
                e.message, "is it a SQLite database litebench can write?"
            ))
        })?;
        // Looked at again now SQLite has it open: a name swapped since the check is refused.
        refuse_not_own(path)?;
        let mut store = Store::new(conn, path);
        if let Some(stop) = stop {
            store.stop_waiting_on(stop);
        }
        let not_a_store = |e: EngineError| match classify(path, e) {
            StoreError::Engine { source, .. } => {
                open_err(format!("not a litebench results store ({})", source.message))
            }
            other => other,
        };
        // The store keeps SQLite's rollback journal (not WAL): see docs/output-format.md.
        store
            .conn
            .execute_batch("PRAGMA synchronous=FULL;")
            .map_err(not_a_store)?;
        // Refuse a newer store before taking the write lock; look again under the lock, since
        // another litebench may have changed the file in between.
        let found = schema::inspect(&mut store.conn).map_err(not_a_store)?;
        store.identify(found)?;
        if store.version != Some(schema::CURRENT) {
            store.conn.execute_batch("BEGIN IMMEDIATE").map_err(not_a_store)?;
            let upgraded = schema::inspect(&mut store.conn)
                .map_err(not_a_store)
                .and_then(|found| store.identify(found))
                .and_then(|()| match store.version {
                    Some(v) if v == schema::CURRENT => Ok(()),
                    v => schema::upgrade(&mut store.conn, v.unwrap_or(0)).map_err(|e| {
                        open_err(format!(
                            "cannot upgrade it to schema {} ({}); it was left unchanged",
                            schema::CURRENT,
                            e.message
                        ))
                    }),
                })
                .and_then(|()| store.conn.execute_batch("COMMIT").map_err(not_a_store));
            if let Err(e) = upgraded {
                let _ = store.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
            store.version = Some(schema::CURRENT);
        }
        store.has_templates = true;
        Ok(store)
    }

    /// Opens an existing store to read, as it is: never creates, upgrades or writes it (see
    /// the module docs). Reads schemas 0 to [`schema::CURRENT`].
    pub fn open_read(path: &Path) -> Result<Store, StoreError> {
        let open_err = |reason: String| StoreError::Open {
            path: path.to_path_buf(),
            reason,
        };
        let conn = SqliteConn::open_existing(Api::bundled(), path, "results store")
            .map_err(|e| open_err(format!("{} (is it a litebench results store?)", e.message)))?;
        let mut store = Store::new(conn, path);
        let not_a_store = |e: EngineError| match classify(path, e) {
            StoreError::Engine { source, .. } => {
                open_err(format!("not a litebench results store ({})", source.message))
            }
            other => other,
        };
        let found = schema::inspect(&mut store.conn).map_err(not_a_store)?;
        store.identify(found)?;
        if store.version.is_some() {
            store.has_templates = schema::has_table(&mut store.conn, "templates").map_err(not_a_store)?;
        }
        Ok(store)
    }

    fn new(conn: SqliteConn, path: &Path) -> Store {
        let busy = busy::Busy::new(path.to_path_buf());
        busy.install(&conn);
        Store {
            conn,
            busy,
            path: path.to_path_buf(),
            version: None,
            has_templates: false,
            stmts: HashMap::new(),
        }
    }

    /// Takes what [`schema::inspect`] found: refuses foreign and newer files.
    fn identify(&mut self, found: Found) -> Result<(), StoreError> {
        match found {
            Found::Empty => self.version = None,
            Found::Version(v) => {
                refuse_newer(&self.path, v)?;
                self.version = Some(v);
            }
            Found::Foreign => {
                return Err(StoreError::Open {
                    path: self.path.clone(),
                    reason: "not a litebench results store (a SQLite database with other tables); give another path"
                        .into(),
                })
            }
        }
        Ok(())
    }

    /// From now on, waiting for another process's lock ends when `stop` is set (the run's
    /// Ctrl-C flag); until then the store waits for as long as it takes ([`busy`]).
    pub fn stop_waiting_on(&mut self, stop: Arc<AtomicBool>) {
        self.busy.stop_on(stop);
    }

    /// The store's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's schema version (`None`: an empty database opened to read).
    pub fn schema_version(&self) -> Option<i64> {
        self.version
    }

    /// Runs one of the store's statements, preparing it on first use only.
    fn exec(&mut self, sql: &'static str, params: &[Value<'_>]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let wrap = |source| StoreError::Engine {
            path: path.clone(),
            source,
        };
        let stmt = match self.stmts.get(sql) {
            Some(&s) => s,
            None => {
                let s = self.conn.prepare(sql).map_err(wrap)?;
                self.stmts.insert(sql, s);
                s
            }
        };
        self.conn.run(stmt, params).map_err(wrap)?;
        Ok(())
    }

    fn rows(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, StoreError> {
        // A damaged page found while reading says what to do, as `run` does before it starts.
        self.conn.query(sql).map_err(|source| classify(&self.path, source))
    }

    /// The `name` column of `runs`, as NULL for a schema that has none.
    fn name_column(&self) -> &'static str {
        if self.version.is_some_and(|v| v >= 4) {
            "name"
        } else {
            "NULL"
        }
    }

    /// The `host, boot_id` columns of `runs`, as NULLs for a schema that has none.
    fn origin_columns(&self) -> &'static str {
        if self.version.is_some_and(|v| v >= 1) {
            "host, boot_id"
        } else {
            "NULL, NULL"
        }
    }

    /// Records the start of a run; returns its id.
    pub fn begin_run(&mut self, manifest: &Manifest) -> Result<i64, StoreError> {
        self.begin(manifest).map(|b| b.id)
    }

    /// Records the start of a run; returns its row as stored, which a side file needs to
    /// complete it later ([`unsaved`]).
    pub fn begin(&mut self, manifest: &Manifest) -> Result<Begun, StoreError> {
        self.begin_named(manifest, None)
    }

    /// [`Store::begin`] of a run named `name` ([`run_name`]; checked by the caller, and unique:
    /// a name another run has is refused by the store's unique index).
    pub fn begin_named(&mut self, manifest: &Manifest, name: Option<&str>) -> Result<Begun, StoreError> {
        let json = serde_json::to_string(manifest).expect("manifests serialize");
        let here = Here::current();
        let uuid = run_uuid::new_v7();
        if let Some(name) = name {
            self.take_name_given_up(name)?;
        }
        self.exec(
            "INSERT INTO runs(started_at, status, pid, workload, manifest, host, boot_id, uuid, name) VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            &[
                Value::Text(&manifest.started_at),
                Value::Int(std::process::id() as i64),
                Value::Text(&manifest.workload),
                Value::Text(&json),
                here.host.as_deref().map_or(Value::Null, Value::Text),
                here.boot_id.as_deref().map_or(Value::Null, Value::Text),
                Value::Text(&uuid),
                name.map_or(Value::Null, Value::Text),
            ],
        )?;
        let id = self.rows("SELECT last_insert_rowid()")?;
        Ok(Begun {
            id: id[0][0].as_deref().and_then(|s| s.parse().ok()).unwrap_or(0),
            uuid,
            pid: std::process::id() as i64,
            host: here.host,
            boot_id: here.boot_id,
            name: name.map(str::to_string),
        })
    }

    /// Commits one populated template.
    pub fn add_template(&mut self, run: i64, t: &TemplateRecord) -> Result<(), StoreError> {
        let json = serde_json::to_string(t).expect("template records serialize");
        self.exec(
            "INSERT INTO templates(run_id, record) VALUES (?1, ?2)",
            &[Value::Int(run), Value::Text(&json)],
        )
    }

    /// Commits one finished trial.
    pub fn add_trial(&mut self, run: i64, t: &TrialRecord) -> Result<(), StoreError> {
        let json = serde_json::to_string(t).expect("trial records serialize");
        self.exec(
            "INSERT INTO trials(run_id, seq, config, round, warmup, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            &[
                Value::Int(run),
                Value::Int(t.seq as i64),
                Value::Int(t.config as i64),
                Value::Int(t.round as i64),
                Value::Int(t.warmup as i64),
                Value::Text(&json),
            ],
        )
    }

    /// Stores the warnings a run ended with (`Manifest::warnings`) in its manifest; nothing to
    /// do without any.
    pub fn update_warnings(&mut self, run: i64, manifest: &Manifest) -> Result<(), StoreError> {
        if manifest.warnings.is_empty() {
            return Ok(());
        }
        let json = serde_json::to_string(manifest).expect("manifests serialize");
        self.exec(
            "UPDATE runs SET manifest = ?2 WHERE id = ?1",
            &[Value::Int(run), Value::Text(&json)],
        )
    }

    /// Marks a run finished with `status` (`complete`, `interrupted`, `failed`).
    pub fn finish_run(
        &mut self,
        run: i64,
        status: &str,
        finished_at: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.exec(
            "UPDATE runs SET status = ?2, finished_at = ?3, error = ?4 WHERE id = ?1",
            &[
                Value::Int(run),
                Value::Text(status),
                Value::Text(finished_at),
                error.map_or(Value::Null, Value::Text),
            ],
        )
    }

    /// Stores one durability verdict with its evidence (schema 2 on).
    pub fn add_verification(
        &mut self,
        build: &VerifiedBuild,
        cell: &crate::durability::verify::Cell,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(cell).expect("verdicts serialize");
        let worst = match cell.verdict {
            crate::durability::verify::Verdict::MayLose { worst } => Value::Int(worst as i64),
            _ => Value::Null,
        };
        let verdict = cell.verdict.to_string();
        let at = crate::base::time::now_rfc3339();
        self.exec(
            "INSERT INTO verifications(verified_at, engine, sqlite_version, source_id, journal_mode, synchronous, crash, verdict, worst_lost, states, violations, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            &[
                Value::Text(&at),
                Value::Text(&build.engine),
                Value::Text(&build.version),
                Value::Text(&build.source_id),
                Value::Text(&cell.config.journal_mode),
                Value::Text(&cell.config.synchronous),
                Value::Text(cell.crash.name()),
                Value::Text(&verdict),
                worst,
                Value::Int(cell.states as i64),
                Value::Int(cell.violations as i64),
                Value::Text(&json),
            ],
        )
    }

    /// Every stored durability verdict, oldest first (none in a store older than schema 2).
    pub fn verifications(&mut self) -> Result<Vec<(VerifiedBuild, crate::durability::verify::Cell)>, StoreError> {
        if self.version.is_none_or(|v| v < 2) {
            return Ok(Vec::new());
        }
        let rows = self.rows("SELECT engine, sqlite_version, source_id, record FROM verifications ORDER BY id")?;
        rows.into_iter()
            .map(|r| {
                let text = |i: usize| r[i].clone().unwrap_or_default();
                let cell = serde_json::from_str(&text(3)).map_err(|e| StoreError::Corrupt {
                    path: self.path.clone(),
                    reason: e.to_string(),
                })?;
                Ok((
                    VerifiedBuild {
                        engine: text(0),
                        version: text(1),
                        source_id: text(2),
                    },
                    cell,
                ))
            })
            .collect()
    }

    /// Every stored run, newest last.
    pub fn list(&mut self) -> Result<Vec<RunListing>, StoreError> {
        if self.version.is_none() {
            return Ok(Vec::new());
        }
        let rows = self.rows(&format!(
            "SELECT r.id, r.started_at, r.workload, r.status, r.pid, {}, (SELECT count(*) FROM trials t WHERE t.run_id = r.id AND t.warmup = 0), {}, {}, \
             CASE WHEN json_valid(r.manifest) THEN (SELECT json_group_array(json_extract(c.value, '$.label')) FROM json_each(r.manifest, '$.configs') c) END, \
             (SELECT count(*) FROM trials t WHERE t.run_id = r.id AND t.warmup <> 0) \
             FROM runs r ORDER BY r.id",
            self.origin_columns(),
            if self.version.is_some_and(|v| v >= 3) { "r.uuid" } else { "NULL" },
            self.name_column(),
        ))?;
        let here = Here::current();
        Ok(rows
            .into_iter()
            .map(|r| {
                let num = |i: usize| r[i].as_deref().and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
                let origin = Origin {
                    host: r[5].clone(),
                    boot_id: r[6].clone(),
                    pid: num(4),
                };
                RunListing {
                    id: num(0),
                    started_at: r[1].clone().unwrap_or_default(),
                    workload: r[2].clone().unwrap_or_default(),
                    status: liveness::status(r[3].as_deref().unwrap_or(""), &origin, &here, liveness::process_alive),
                    trials: num(7),
                    warmups: num(11),
                    uuid: r[8].clone(),
                    name: r[9].clone(),
                    configurations: r[10]
                        .as_deref()
                        .and_then(|j| serde_json::from_str::<Vec<Option<String>>>(j).ok())
                        .map(|v| v.into_iter().map(Option::unwrap_or_default).collect())
                        .unwrap_or_default(),
                }
            })
            .collect())
    }

    /// Loads a run by id, or the newest run for `None`.
    pub fn load(&mut self, run: Option<i64>) -> Result<StoredRun, StoreError> {
        if self.version.is_none() {
            return Err(StoreError::Empty {
                path: self.path.clone(),
            });
        }
        let id = match run {
            Some(id) => id,
            None => {
                let r = self.rows("SELECT max(id) FROM runs")?;
                match r[0][0].as_deref().and_then(|s| s.parse().ok()) {
                    Some(id) => id,
                    None => {
                        return Err(StoreError::Empty {
                            path: self.path.clone(),
                        })
                    }
                }
            }
        };
        let rows = self.rows(&format!(
            "SELECT status, pid, error, finished_at, manifest, {}, {} FROM runs WHERE id = {id}",
            self.origin_columns(),
            self.name_column(),
        ))?;
        let Some(row) = rows.into_iter().next() else {
            return Err(StoreError::NoRun {
                path: self.path.clone(),
                run: id.to_string(),
            });
        };
        let corrupt = |e: serde_json::Error| StoreError::Corrupt {
            path: self.path.clone(),
            reason: e.to_string(),
        };
        let manifest: Manifest = serde_json::from_str(row[4].as_deref().unwrap_or("")).map_err(corrupt)?;
        let origin = Origin {
            host: row[5].clone(),
            boot_id: row[6].clone(),
            pid: row[1].as_deref().and_then(|s| s.parse().ok()).unwrap_or(0),
        };
        let trials = self
            .rows(&format!("SELECT record FROM trials WHERE run_id = {id} ORDER BY seq"))?
            .into_iter()
            .map(|r| serde_json::from_str(r[0].as_deref().unwrap_or("")))
            .collect::<Result<Vec<TrialRecord>, _>>()
            .map_err(|e| StoreError::Corrupt {
                path: self.path.clone(),
                reason: e.to_string(),
            })?;
        let templates = if self.has_templates {
            self.rows(&format!(
                "SELECT record FROM templates WHERE run_id = {id} ORDER BY rowid"
            ))?
        } else {
            Vec::new()
        }
        .into_iter()
        .map(|r| serde_json::from_str(r[0].as_deref().unwrap_or("")))
        .collect::<Result<Vec<TemplateRecord>, _>>()
        .map_err(|e| StoreError::Corrupt {
            path: self.path.clone(),
            reason: e.to_string(),
        })?;
        Ok(StoredRun {
            id,
            name: row[7].clone(),
            status: liveness::status(
                row[0].as_deref().unwrap_or(""),
                &origin,
                &Here::current(),
                liveness::process_alive,
            ),
            error: row[2].clone(),
            finished_at: row[3].clone(),
            manifest,
            templates,
            trials,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::params::Params;

    pub(crate) fn manifest() -> Manifest {
        let dir = tempfile::tempdir().unwrap();
        Manifest {
            tool_version: "test".into(),
            command: vec!["litebench".into()],
            started_at: "2024-01-01T00:00:00Z".into(),
            workload: "crud".into(),
            workload_source: "builtin".into(),
            params: Params::default(),
            seed: 1,
            trials: 1,
            warmup: 0,
            cold_cache: false,
            in_memory: false,
            engines: vec![],
            configs: vec![],
            environment: litebench_env::capture(dir.path()).unwrap(),
            sync_latency: None,
            sync_latency_not_measured: None,
            scratch_dir: "/scratch".into(),
            statistics: None,
            warnings: Vec::new(),
            load: Default::default(),
            guest: None,
            fleet: None,
            presets: None,
            stop: None,
            workload_files: Vec::new(),
            instructions: None,
            io_per_thread: false,
        }
    }

    pub(crate) fn trial(seq: u64) -> TrialRecord {
        TrialRecord {
            seq,
            round: seq as u32,
            config: 0,
            warmup: false,
            seed: 1,
            started_unix_ms: 0,
            ops: vec![],
            total_ops: 0,
            measured_ns: 0,
            throughput: 0.0,
            io: Default::default(),
            io_trial: Default::default(),
            kernel: Default::default(),
            knobs: vec![],
            ..Default::default()
        }
    }

    /// A store in version 0's schema (the unversioned one) with one run of `status`, as
    /// litebench wrote it before schemas had versions.
    fn old_store(path: &Path, status: &str) {
        let mut c = SqliteConn::open(Api::bundled(), path, None, "old").unwrap();
        c.execute_batch(schema::V0).unwrap();
        let json = serde_json::to_string(&manifest()).unwrap().replace('\'', "''");
        c.execute_batch(&format!(
            "INSERT INTO runs(started_at, status, pid, workload, manifest) VALUES ('2024-01-01T00:00:00Z', '{status}', 1, 'crud', '{json}')"
        ))
        .unwrap();
        let t = serde_json::to_string(&trial(0)).unwrap();
        c.execute_batch(&format!(
            "INSERT INTO trials(run_id, seq, config, round, warmup, record) VALUES (1, 0, 0, 0, 0, '{t}')"
        ))
        .unwrap();
    }

    fn user_version(path: &Path) -> i64 {
        let mut c = SqliteConn::open_existing(Api::bundled(), path, "peek").unwrap();
        c.query_value("PRAGMA user_version").unwrap().unwrap().parse().unwrap()
    }

    #[test]
    fn exec_prepares_each_statement_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db"), true).unwrap();
        let run = s.begin_run(&manifest()).unwrap();
        for seq in 0..300 {
            s.add_trial(run, &trial(seq)).unwrap();
        }
        s.finish_run(run, "complete", "2024-01-01T00:01:00Z", None).unwrap();
        // One statement per distinct SQL text (insert run, insert trial, update run), not
        // one per call.
        assert_eq!(s.conn.open_statements(), 3);
        assert_eq!(s.load(Some(run)).unwrap().trials.len(), 300);
        assert_eq!(s.conn.open_statements(), 3, "queries finalize their statements");
    }

    #[test]
    fn a_new_store_has_the_current_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let mut s = Store::open(&path, true).unwrap();
        assert_eq!(s.schema_version(), Some(schema::CURRENT));
        let run = s.begin_run(&manifest()).unwrap();
        let row = s
            .rows(&format!("SELECT host, boot_id FROM runs WHERE id = {run}"))
            .unwrap();
        assert_eq!(row[0][0], liveness::host_name());
        assert_eq!(row[0][1], Here::current().boot_id);
        assert_eq!(s.load(None).unwrap().status, "running", "this process is alive");
        drop(s);
        assert_eq!(user_version(&path), schema::CURRENT);
    }

    #[test]
    fn an_old_store_is_read_as_it_is_and_upgraded_in_place_to_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        old_store(&path, "complete");
        let before = std::fs::read(&path).unwrap();

        let mut r = Store::open_read(&path).unwrap();
        assert_eq!(r.schema_version(), Some(0));
        let run = r.load(None).unwrap();
        assert_eq!((run.id, run.status.as_str(), run.trials.len()), (1, "complete", 1));
        assert_eq!(r.list().unwrap()[0].trials, 1);
        drop(r);
        assert_eq!(std::fs::read(&path).unwrap(), before, "reading changed the file");

        let mut w = Store::open(&path, true).unwrap();
        assert_eq!(w.schema_version(), Some(schema::CURRENT));
        assert_eq!(w.load(Some(1)).unwrap().status, "complete");
        let new = w.begin_run(&manifest()).unwrap();
        assert_eq!(new, 2);
        drop(w);
        assert_eq!(user_version(&path), schema::CURRENT);
        let listed = Store::open_read(&path).unwrap().list().unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0].status, "complete");
    }

    #[test]
    fn a_store_without_verifications_reads_as_none_and_gains_the_table_on_upgrade() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        old_store(&path, "complete");
        assert!(Store::open_read(&path).unwrap().verifications().unwrap().is_empty());
        let mut w = Store::open(&path, true).unwrap();
        assert_eq!(w.schema_version(), Some(schema::CURRENT));
        assert!(w.verifications().unwrap().is_empty());
        let cell = crate::durability::verify::Cell {
            config: crate::durability::verify::Config {
                journal_mode: "wal".into(),
                synchronous: "normal".into(),
            },
            crash: crate::durability::crash::CrashKind::Power,
            verdict: crate::durability::verify::Verdict::MayLose { worst: 2 },
            states: 10,
            distinct: 7,
            violations: 3,
            exhaustive: false,
            events: 40,
            counterexamples: Vec::new(),
        };
        let build = VerifiedBuild {
            engine: "sqlite".into(),
            version: "3.x".into(),
            source_id: "id".into(),
        };
        w.add_verification(&build, &cell).unwrap();
        assert_eq!(w.verifications().unwrap(), vec![(build, cell)]);
        assert_eq!(w.list().unwrap().len(), 1, "the old run is still there");
    }

    #[test]
    fn a_failed_upgrade_leaves_the_store_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        old_store(&path, "complete");
        // A version-0 store that somehow already has `boot_id`: the first ALTER of the
        // migration succeeds, the second fails, and the first must be rolled back.
        SqliteConn::open(Api::bundled(), &path, None, "old")
            .unwrap()
            .execute_batch("ALTER TABLE runs ADD COLUMN boot_id TEXT")
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        let e = Store::open(&path, true)
            .err()
            .expect("the upgrade must fail")
            .to_string();
        assert!(
            e.contains(&format!("cannot upgrade it to schema {}", schema::CURRENT)) && e.contains("left unchanged"),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let mut c = SqliteConn::open_existing(Api::bundled(), &path, "peek").unwrap();
        assert!(c.query("SELECT host FROM runs").is_err(), "half a migration was kept");
    }

    #[test]
    fn a_newer_store_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let mut s = Store::open(&path, true).unwrap();
        s.begin_run(&manifest()).unwrap();
        s.conn
            .execute_batch(&format!("PRAGMA user_version = {}", schema::CURRENT + 1))
            .unwrap();
        drop(s);
        let before = std::fs::read(&path).unwrap();
        let expected = format!(
            "--results {}: written by a newer litebench (schema {}, this one reads up to {}); upgrade litebench",
            path.display(),
            schema::CURRENT + 1,
            schema::CURRENT
        );
        assert_eq!(check_path(&path, true).unwrap_err().to_string(), expected);
        assert_eq!(Store::open(&path, true).err().unwrap().to_string(), expected);
        assert_eq!(Store::open_read(&path).err().unwrap().to_string(), expected);
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn other_databases_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        SqliteConn::open(Api::bundled(), &path, None, "x")
            .unwrap()
            .execute_batch("CREATE TABLE notes(x)")
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        for e in [
            Store::open(&path, true).err().unwrap(),
            Store::open_read(&path).err().unwrap(),
        ] {
            assert!(e.to_string().contains("not a litebench results store"), "{e}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn a_store_through_a_link_or_not_this_users_alone_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // A dangling link: the store is not created where it points.
        let elsewhere = dir.path().join("elsewhere.db");
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        for e in [
            check_path(&link, true).unwrap_err(),
            Store::open(&link, true).err().unwrap(),
        ] {
            assert!(matches!(e, StoreError::Symlink { .. }), "{e}");
            assert!(
                e.to_string()
                    .starts_with(&format!("--results {}: is a symbolic link", link.display())),
                "{e}"
            );
        }
        assert!(!elsewhere.exists(), "nothing created through the link");
        // Writable by others, then another user's.
        let path = dir.path().join("r.db");
        drop(Store::open(&path, true).unwrap());
        let chmod = |mode| std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        chmod(0o666);
        let e = Store::open(&path, true).err().unwrap().to_string();
        assert!(
            e.contains("other users can write to it (mode 0666)") && e.contains("chmod go-w"),
            "{e}"
        );
        chmod(0o644);
        assert!(Store::open(&path, true).is_ok());
        if crate::sys::own_file::euid() == 0 {
            std::os::unix::fs::chown(&path, Some(65534), None).unwrap();
            let e = check_path(&path, true).unwrap_err().to_string();
            assert!(e.contains("it belongs to uid 65534, not to this user (uid 0)"), "{e}");
            std::os::unix::fs::chown(&path, Some(0), None).unwrap();
        }
        // A journal planted as a link.
        let journal = dir.path().join("r.db-journal");
        std::os::unix::fs::symlink(&elsewhere, &journal).unwrap();
        let e = Store::open(&path, true).err().unwrap().to_string();
        assert!(e.contains("is a symbolic link") && e.contains("r.db-journal"), "{e}");
        assert!(!elsewhere.exists());
    }

    #[test]
    fn an_empty_file_reads_as_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        std::fs::write(&path, b"").unwrap();
        let mut r = Store::open_read(&path).unwrap();
        assert!(r.list().unwrap().is_empty());
        assert!(matches!(r.load(None), Err(StoreError::Empty { .. })));
        drop(r);
        assert_eq!(std::fs::read(&path).unwrap(), b"");
    }

    #[test]
    fn a_running_run_from_elsewhere_is_not_abandoned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let mut s = Store::open(&path, true).unwrap();
        let run = s.begin_run(&manifest()).unwrap();
        // Another host, with a pid that does not exist here.
        s.batch_for_test(&format!(
            "UPDATE runs SET host = 'elsewhere.example', pid = 2147483000 WHERE id = {run}"
        ));
        let status = s.load(Some(run)).unwrap().status;
        assert_eq!(status, "running (on host elsewhere.example, status unknown here)");
        assert_eq!(s.list().unwrap()[0].status, status);
        // This host, an earlier boot: abandoned whatever the pid.
        s.batch_for_test(&format!(
            "UPDATE runs SET host = (SELECT '{}'), boot_id = 'an-earlier-boot', pid = {} WHERE id = {run}",
            liveness::host_name().unwrap(),
            std::process::id()
        ));
        if Here::current().boot_id.is_some() {
            assert_eq!(s.load(Some(run)).unwrap().status, "abandoned");
        }
    }

    impl Store {
        fn batch_for_test(&mut self, sql: &str) {
            self.conn.execute_batch(sql).unwrap();
        }
    }
}
