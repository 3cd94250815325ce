//! The results store: every trial of every run, in a SQLite database, committed as it finishes.
//!
//! A run is inserted with status `running` before its first trial; each finished trial is its
//! own committed transaction; the status becomes `complete`, `interrupted` or `failed` at the
//! end. `kill -9` therefore leaves a consistent database whose run still says `running` — and
//! `show` reports such a run as abandoned when its process is gone. The store uses the bundled
//! SQLite on the default VFS, so it never shows up in a trial's I/O counts.

use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{Connection, EngineError, Value};
use crate::result::{Manifest, TemplateRecord, TrialRecord};
use std::path::{Path, PathBuf};

/// Environment variable that overrides the default store location.
pub const ENV_VAR: &str = "LITEBENCH_RESULTS";

/// A problem with the results store, named with its path.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("--results {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("results store {path}: {source}")]
    Engine { path: PathBuf, source: EngineError },
    #[error(
        "results store {path}: a stored record does not parse ({reason}); it was written by another litebench version"
    )]
    Corrupt { path: PathBuf, reason: String },
    #[error("results store {path}: no run {run}; `litebench show --list` lists the stored runs")]
    NoRun { path: PathBuf, run: String },
    #[error("results store {path} holds no runs yet; run `litebench run crud` first")]
    Empty { path: PathBuf },
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
    conn: SqliteConn,
    path: PathBuf,
}

/// A run as stored.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub id: i64,
    /// `running`, `complete`, `interrupted`, `failed`, or `abandoned` (running, process gone).
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
    pub trials: i64,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL,
  pid INTEGER NOT NULL,
  workload TEXT NOT NULL,
  error TEXT,
  manifest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS templates(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trials(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  config INTEGER NOT NULL,
  round INTEGER NOT NULL,
  warmup INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY(run_id, seq)
);
";

fn process_alive(pid: i64) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    pid > 0
        && (unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

/// Checks, without creating anything, that a store could be opened at `path`: not a directory,
/// and (for an explicit `--results`) in an existing directory.
pub fn check_path(path: &Path, explicit: bool) -> Result<(), StoreError> {
    let open_err = |reason: String| StoreError::Open {
        path: path.to_path_buf(),
        reason,
    };
    if path.as_os_str().is_empty() {
        return Err(open_err("empty path; give a file path such as results.db".into()));
    }
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
    Ok(())
}

impl Store {
    /// Opens (creating if needed) the store at `path`. The parent directory of an explicit
    /// path must exist; the default location's directories are created.
    pub fn open(path: &Path, explicit: bool) -> Result<Store, StoreError> {
        let open_err = |reason: String| StoreError::Open {
            path: path.to_path_buf(),
            reason,
        };
        check_path(path, explicit)?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| open_err(format!("cannot create {}: {e}", parent.display())))?;
            }
        }
        let conn = SqliteConn::open(Api::bundled(), path, None, "results store").map_err(|e| {
            open_err(format!(
                "{} ({})",
                e.message, "is it a SQLite database litebench can write?"
            ))
        })?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store
            .batch("PRAGMA busy_timeout=5000; PRAGMA synchronous=FULL;")
            .and_then(|_| store.batch(SCHEMA))
            .map_err(|e| open_err(format!("not a litebench results store ({})", e)))?;
        Ok(store)
    }

    /// The store's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.conn.execute_batch(sql).map_err(|source| StoreError::Engine {
            path: self.path.clone(),
            source,
        })
    }

    fn exec(&mut self, sql: &str, params: &[Value<'_>]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let wrap = |source| StoreError::Engine {
            path: path.clone(),
            source,
        };
        let stmt = self.conn.prepare(sql).map_err(wrap)?;
        self.conn.run(stmt, params).map_err(wrap)?;
        Ok(())
    }

    fn rows(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, StoreError> {
        self.conn.query(sql).map_err(|source| StoreError::Engine {
            path: self.path.clone(),
            source,
        })
    }

    /// Records the start of a run; returns its id.
    pub fn begin_run(&mut self, manifest: &Manifest) -> Result<i64, StoreError> {
        let json = serde_json::to_string(manifest).expect("manifests serialize");
        self.exec(
            "INSERT INTO runs(started_at, status, pid, workload, manifest) VALUES (?1, 'running', ?2, ?3, ?4)",
            &[
                Value::Text(&manifest.started_at),
                Value::Int(std::process::id() as i64),
                Value::Text(&manifest.workload),
                Value::Text(&json),
            ],
        )?;
        let id = self.rows("SELECT last_insert_rowid()")?;
        Ok(id[0][0].as_deref().and_then(|s| s.parse().ok()).unwrap_or(0))
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

    /// Every stored run, newest last.
    pub fn list(&mut self) -> Result<Vec<RunListing>, StoreError> {
        let rows = self.rows("SELECT r.id, r.started_at, r.workload, r.status, r.pid, (SELECT count(*) FROM trials t WHERE t.run_id = r.id) FROM runs r ORDER BY r.id")?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let num = |i: usize| r[i].as_deref().and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
                let status = r[3].clone().unwrap_or_default();
                RunListing {
                    id: num(0),
                    started_at: r[1].clone().unwrap_or_default(),
                    workload: r[2].clone().unwrap_or_default(),
                    status: effective_status(&status, num(4)),
                    trials: num(5),
                }
            })
            .collect())
    }

    /// Loads a run by id, or the newest run for `None`.
    pub fn load(&mut self, run: Option<i64>) -> Result<StoredRun, StoreError> {
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
            "SELECT status, pid, error, finished_at, manifest FROM runs WHERE id = {id}"
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
        let pid = row[1].as_deref().and_then(|s| s.parse().ok()).unwrap_or(0);
        let trials = self
            .rows(&format!("SELECT record FROM trials WHERE run_id = {id} ORDER BY seq"))?
            .into_iter()
            .map(|r| serde_json::from_str(r[0].as_deref().unwrap_or("")))
            .collect::<Result<Vec<TrialRecord>, _>>()
            .map_err(|e| StoreError::Corrupt {
                path: self.path.clone(),
                reason: e.to_string(),
            })?;
        let templates = self
            .rows(&format!(
                "SELECT record FROM templates WHERE run_id = {id} ORDER BY rowid"
            ))?
            .into_iter()
            .map(|r| serde_json::from_str(r[0].as_deref().unwrap_or("")))
            .collect::<Result<Vec<TemplateRecord>, _>>()
            .map_err(|e| StoreError::Corrupt {
                path: self.path.clone(),
                reason: e.to_string(),
            })?;
        Ok(StoredRun {
            id,
            status: effective_status(row[0].as_deref().unwrap_or(""), pid),
            error: row[2].clone(),
            finished_at: row[3].clone(),
            manifest,
            templates,
            trials,
        })
    }
}

fn effective_status(status: &str, pid: i64) -> String {
    if status == "running" && !process_alive(pid) {
        "abandoned".to_string()
    } else {
        status.to_string()
    }
}
