//! Side files: a run the results store could not take, kept until a store does.
//!
//! Nothing measured may be lost because the store cannot be written (the disk under it is full
//! or read-only, or the run was stopped while waiting for another process's lock). When that
//! happens the run writes everything it measured (its row, templates, trials and how it ended)
//! to `litebench-unsaved-<uuid>.json` in the scratch base directory (`--dir`). The next `run`
//! with the same `--dir` and store imports it and removes the file, if it is that user's own
//! (see `bench::session`); `litebench merge STORE FILE` imports it into any store (and leaves
//! the file alone, as merge does with its inputs). Importing is idempotent: a run already in
//! the store gets only the trials and templates it lacks, and its end status if it still says
//! `running`.
//!
//! Whoever could write `--dir` could have written a side file, so reading one trusts nothing
//! in it: every string loses its control characters before the file is typed, and a run whose
//! records do not add up against its manifest is refused whole ([`read_from`]).

use super::{run_uuid, Begun, Store, StoreError};
use crate::engines::Value;
use crate::model::consistency;
use crate::model::record::{Manifest, TemplateRecord, TrialRecord};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Every side file's name starts with this.
pub const PREFIX: &str = "litebench-unsaved-";

/// The format version this litebench writes and reads.
const FORMAT: u32 = 1;

/// A problem writing or reading a side file.
#[derive(Debug, thiserror::Error)]
pub enum UnsavedError {
    #[error("cannot write side file {path} ({source})")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a litebench side file ({reason})")]
    Read { path: PathBuf, reason: String },
    #[error("{path}: refused, nothing imported from it: {source}")]
    Inconsistent {
        path: PathBuf,
        source: consistency::Inconsistent,
    },
}

/// One side file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unsaved {
    /// Marks a litebench side file and its format.
    pub litebench_unsaved: u32,
    /// The results store the run was meant for (absolute).
    pub store: PathBuf,
    /// Why the store could not take it.
    pub reason: String,
    pub run: UnsavedRun,
}

/// A run as the store would hold it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnsavedRun {
    pub uuid: String,
    pub pid: i64,
    pub host: Option<String>,
    pub boot_id: Option<String>,
    /// Its name (`run --name`); absent in side files older than names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub manifest: Manifest,
    /// `complete`, `interrupted` or `failed`.
    pub status: String,
    pub finished_at: String,
    pub error: Option<String>,
    pub templates: Vec<TemplateRecord>,
    pub trials: Vec<TrialRecord>,
}

/// What importing a side file changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The run's id in the store.
    pub run_id: i64,
    /// The run was not in the store at all.
    pub added: bool,
    pub trials_added: usize,
    /// Its end status was stored (it said `running`, or it was added).
    pub finished: bool,
    /// Its name in the store (its own, or with a suffix when another run there has it).
    pub name: Option<String>,
}

impl UnsavedRun {
    /// The run `begun` in a store, as it ended.
    pub fn new(
        begun: &Begun,
        manifest: &Manifest,
        status: &str,
        finished_at: &str,
        error: Option<&str>,
        templates: &[TemplateRecord],
        trials: &[TrialRecord],
    ) -> UnsavedRun {
        UnsavedRun {
            uuid: begun.uuid.clone(),
            pid: begun.pid,
            host: begun.host.clone(),
            boot_id: begun.boot_id.clone(),
            name: begun.name.clone(),
            manifest: manifest.clone(),
            status: status.to_string(),
            finished_at: finished_at.to_string(),
            error: error.map(str::to_string),
            templates: templates.to_vec(),
            trials: trials.to_vec(),
        }
    }
}

/// The store path a side file records: absolute, with symbolic links resolved where it exists.
pub fn store_key(store: &Path) -> PathBuf {
    if let Ok(p) = store.canonicalize() {
        return p;
    }
    std::path::absolute(store).unwrap_or_else(|_| store.to_path_buf())
}

/// Writes the side file of `run` (meant for `store`) in `dir`; returns its path. It is written
/// under a temporary name created new (never through an existing file or link), synced, and
/// only then given its name, so a half-written side file never looks like a whole one.
pub fn write(dir: &Path, store: &Path, reason: &str, run: UnsavedRun) -> Result<PathBuf, UnsavedError> {
    let path = dir.join(file_name(&run.uuid));
    let file = Unsaved {
        litebench_unsaved: FORMAT,
        store: store_key(store),
        reason: reason.to_string(),
        run,
    };
    let err = |source| UnsavedError::Write {
        path: path.clone(),
        source,
    };
    let json = serde_json::to_vec_pretty(&file).expect("side files serialize");
    // Complete or not at all, never over an existing file or through a link.
    crate::base::outfile::write_new(&path, &json).map_err(err)?;
    Ok(path)
}

/// Whether `path` is a side file (by its first byte: a store starts with "SQLite format 3").
pub fn is_side_file(path: &Path) -> bool {
    use std::io::Read;
    let mut b = [0u8; 1];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut b)).is_ok() && b[0] == b'{'
}

/// Reads a side file named on the command line (`merge STORE FILE`).
pub fn read(path: &Path) -> Result<Unsaved, UnsavedError> {
    let mut file = std::fs::File::open(path).map_err(|e| UnsavedError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    read_from(path, &mut file)
}

/// Reads the side file `path` from `file`, already open: its strings without control
/// characters ([`crate::base::control_chars`]), and refused unless every trial and template adds
/// up against its manifest ([`crate::model::consistency`]).
pub fn read_from(path: &Path, file: &mut std::fs::File) -> Result<Unsaved, UnsavedError> {
    use std::io::Read;
    let bad = |reason: String| UnsavedError::Read {
        path: path.to_path_buf(),
        reason,
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| bad(e.to_string()))?;
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
    crate::base::control_chars::strip_json(&mut value);
    let u: Unsaved = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    if u.litebench_unsaved != FORMAT {
        return Err(bad(format!(
            "format {}, this litebench reads {FORMAT}; upgrade litebench",
            u.litebench_unsaved
        )));
    }
    if !run_uuid::is_valid(&u.run.uuid) {
        return Err(bad(format!("run uuid {:?} is malformed", u.run.uuid)));
    }
    consistency::check(&u.run.manifest, &u.run.templates, &u.run.trials).map_err(|source| {
        UnsavedError::Inconsistent {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(u)
}

/// The name litebench gives the side file of run `uuid`.
pub fn file_name(uuid: &str) -> String {
    format!("{PREFIX}{uuid}.json")
}

/// The side files in `dir`, oldest run first (their names hold UUIDv7s, which sort by time).
pub fn list(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with(PREFIX) && n.ends_with(".json") && e.file_type().is_ok_and(|t| t.is_file())
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

impl Store {
    /// Imports a side file's run: adds it whole if the store lacks it, else adds the trials
    /// and templates it lacks and, if it still says `running`, how it ended. One transaction.
    pub fn import_unsaved(&mut self, run: &UnsavedRun) -> Result<Imported, StoreError> {
        self.conn_batch("BEGIN IMMEDIATE")?;
        match self.import_in_transaction(run) {
            Ok(i) => {
                self.conn_batch("COMMIT")?;
                Ok(i)
            }
            Err(e) => {
                let _ = self.conn_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn import_in_transaction(&mut self, run: &UnsavedRun) -> Result<Imported, StoreError> {
        // The uuid is checked by `read` (hex digits and dashes), so it can be quoted as is.
        debug_assert!(run_uuid::is_valid(&run.uuid));
        let found = self.rows(&format!(
            "SELECT id, status, {} FROM runs WHERE uuid = '{}'",
            self.name_column(),
            run.uuid
        ))?;
        let manifest = serde_json::to_string(&run.manifest).expect("manifests serialize");
        let name;
        let (run_id, added, finished, have_seq, have_templates) = match found.first() {
            None => {
                // The side file's name, unless another run has it here ([`Store::free_name`]).
                name = match run.name.as_deref().filter(|n| super::run_name::check(n).is_ok()) {
                    Some(n) => Some(self.free_name(n)?),
                    None => None,
                };
                self.exec(
                    "INSERT INTO runs(started_at, finished_at, status, pid, workload, error, manifest, host, boot_id, uuid, name) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                    &[
                        Value::Text(&run.manifest.started_at),
                        Value::Text(&run.finished_at),
                        Value::Text(&run.status),
                        Value::Int(run.pid),
                        Value::Text(&run.manifest.workload),
                        run.error.as_deref().map_or(Value::Null, Value::Text),
                        Value::Text(&manifest),
                        run.host.as_deref().map_or(Value::Null, Value::Text),
                        run.boot_id.as_deref().map_or(Value::Null, Value::Text),
                        Value::Text(&run.uuid),
                        name.as_deref().map_or(Value::Null, Value::Text),
                    ],
                )?;
                let id = self.rows("SELECT last_insert_rowid()")?[0][0]
                    .as_deref()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                (id, true, true, HashSet::new(), HashSet::new())
            }
            Some(row) => {
                let id: i64 = row[0].as_deref().and_then(|s| s.parse().ok()).unwrap_or(0);
                name = row[2].clone();
                let running = row[1].as_deref() == Some("running");
                if running {
                    self.exec(
                        "UPDATE runs SET status = ?2, finished_at = ?3, error = ?4, manifest = ?5 WHERE id = ?1",
                        &[
                            Value::Int(id),
                            Value::Text(&run.status),
                            Value::Text(&run.finished_at),
                            run.error.as_deref().map_or(Value::Null, Value::Text),
                            Value::Text(&manifest),
                        ],
                    )?;
                }
                let seqs: HashSet<u64> = self
                    .rows(&format!("SELECT seq FROM trials WHERE run_id = {id}"))?
                    .into_iter()
                    .filter_map(|r| r[0].as_deref().and_then(|s| s.parse().ok()))
                    .collect();
                let templates: HashSet<String> = self
                    .rows(&format!("SELECT record FROM templates WHERE run_id = {id}"))?
                    .into_iter()
                    .filter_map(|r| r[0].clone())
                    .collect();
                (id, false, running, seqs, templates)
            }
        };
        for t in &run.templates {
            let json = serde_json::to_string(t).expect("template records serialize");
            if !have_templates.contains(&json) {
                self.add_template(run_id, t)?;
            }
        }
        let mut trials_added = 0;
        for t in run.trials.iter().filter(|t| !have_seq.contains(&t.seq)) {
            self.add_trial(run_id, t)?;
            trials_added += 1;
        }
        Ok(Imported {
            run_id,
            added,
            trials_added,
            finished,
            name,
        })
    }

    fn conn_batch(&mut self, sql: &str) -> Result<(), StoreError> {
        use crate::engines::Connection;
        self.conn.execute_batch(sql).map_err(|e| self.engine_error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn importing_completes_a_running_run_once_and_adds_a_missing_one_whole() {
        use crate::store::tests::{manifest, trial};
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db"), true).unwrap();
        let begun = s.begin(&manifest()).unwrap();
        s.add_trial(begun.id, &trial(0)).unwrap();
        let trials: Vec<TrialRecord> = (0..3).map(trial).collect();
        let run = UnsavedRun::new(
            &begun,
            &manifest(),
            "failed",
            "2024-01-01T00:01:00Z",
            Some("disk full"),
            &[],
            &trials,
        );
        let first = s.import_unsaved(&run).unwrap();
        assert_eq!(
            first,
            Imported {
                run_id: begun.id,
                added: false,
                trials_added: 2,
                finished: true,
                name: None,
            }
        );
        let again = s.import_unsaved(&run).unwrap();
        assert_eq!(
            (again.trials_added, again.finished),
            (0, false),
            "a second import adds nothing"
        );
        let stored = s.load(Some(begun.id)).unwrap();
        assert_eq!(
            (stored.status.as_str(), stored.error.as_deref()),
            ("failed", Some("disk full"))
        );
        assert_eq!(stored.trials, trials);

        let mut other = Store::open(&dir.path().join("o.db"), true).unwrap();
        let added = other.import_unsaved(&run).unwrap();
        assert!(added.added && added.trials_added == 3);
        assert_eq!(other.load(Some(added.run_id)).unwrap().trials, trials);
        assert_eq!(other.list().unwrap()[0].uuid.as_deref(), Some(begun.uuid.as_str()));
    }

    #[test]
    fn a_side_file_is_written_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = crate::store::tests::manifest();
        manifest.configs.push(crate::model::consistency::tests::config(0));
        let run = UnsavedRun::new(
            &Begun {
                id: 1,
                uuid: run_uuid::new_v7(),
                pid: 7,
                host: Some("h".into()),
                boot_id: None,
                name: Some("side".into()),
            },
            &manifest,
            "failed",
            "2024-01-01T00:01:00Z",
            Some("why"),
            &[],
            &[crate::store::tests::trial(0)],
        );
        let store = dir.path().join("r.db");
        let path = write(dir.path(), &store, "disk full", run.clone()).unwrap();
        assert_eq!(list(dir.path()), vec![path.clone()], "no temporary file is left");
        assert!(is_side_file(&path));
        let back = read(&path).unwrap();
        assert_eq!(back.store, store_key(&store));
        assert_eq!(back.run.trials, run.trials);
        assert_eq!(back.run.name.as_deref(), Some("side"));
        // Written again under the same name: refused, the first one kept.
        assert!(write(dir.path(), &store, "again", run).is_err());
        assert_eq!(read(&path).unwrap().reason, "disk full");
        assert_eq!(list(dir.path()).len(), 1);
    }
}
