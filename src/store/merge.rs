//! `litebench merge`: runs from other stores (other machines, other shards) copied into one.
//!
//! A run is the same run wherever it is stored when its uuid is the same ([`super::run_uuid`]),
//! so a merge copies only runs the target lacks: merging the same input twice adds nothing.
//! Each run goes in with its templates and trials in one transaction, under the target's next
//! integer id (ids are aliases local to a store). Verdicts of `verify-durability` are copied
//! when the target has no identical one. The inputs are opened read-only and never written.
//! What is copied loses its control characters ([`control_chars`]): a store may come from anyone,
//! and its host names, labels and errors reach the terminal.

use super::{run_uuid, Store, StoreError};
use crate::base::control_chars;
use crate::engines::{Connection, Value};
use std::collections::{HashMap, HashSet};

/// A stored text column as a bound value (NULL stays NULL).
fn t(v: &Option<String>) -> Value<'_> {
    v.as_deref().map_or(Value::Null, Value::Text)
}

/// A stored row without control characters ([`control_chars`]): in the JSON column `json`,
/// those of its strings (a JSON text is kept byte for byte when it has none).
fn clean(row: &[Option<String>], json: Option<usize>) -> Vec<Option<String>> {
    row.iter()
        .enumerate()
        .map(|(i, v)| {
            let v = v.as_deref()?;
            Some(if Some(i) == json {
                control_chars::strip_json_text(v).unwrap_or_else(|| v.to_string())
            } else {
                control_chars::strip(v).into_owned()
            })
        })
        .collect()
}

/// What one input added.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Merged {
    pub runs_added: usize,
    pub runs_present: usize,
    pub trials_added: usize,
    pub verdicts_added: usize,
    /// Each run of the input: its id there, its id here, and its name here.
    pub runs: Vec<Mapped>,
}

/// Where one run of an input is in the target.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mapped {
    /// Its id in the input (none for a side file's run, which has no id there).
    pub from: Option<i64>,
    /// Its id in the target.
    pub to: i64,
    /// Copied by this merge (else the target already had it).
    pub added: bool,
    /// Its name in the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its name in the input, when another run of the target had it (so it was renamed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
}

/// The columns of `verifications` that make a verdict the same verdict.
const VERDICT_COLUMNS: &str =
    "verified_at, engine, sqlite_version, source_id, journal_mode, synchronous, crash, verdict, worst_lost, states, violations, record";

impl Store {
    /// A new store for `merge OUT`, made in the temporary file `temp` (empty, see
    /// [`crate::base::outfile::OutFile`]) and named `out` in its errors, since `temp` is put at `out`
    /// once complete.
    pub fn create_merged(temp: &std::path::Path, out: &std::path::Path) -> Result<Store, StoreError> {
        let named = |e| match e {
            StoreError::Open { reason, .. } => StoreError::Open {
                path: out.to_path_buf(),
                reason,
            },
            StoreError::Engine { source, .. } => StoreError::Engine {
                path: out.to_path_buf(),
                source,
            },
            e => e,
        };
        let mut store = Store::open(temp, true).map_err(named)?;
        store.path = out.to_path_buf();
        Ok(store)
    }

    /// Copies every run (and verdict) of `from` that this store lacks.
    pub fn merge_from(&mut self, from: &mut Store) -> Result<Merged, StoreError> {
        let mut merged = Merged::default();
        if from.version.is_none() {
            return Ok(merged);
        }
        let present: HashMap<String, (i64, Option<String>)> = self
            .rows(&format!("SELECT uuid, id, {} FROM runs", self.name_column()))?
            .into_iter()
            .filter_map(|r| {
                let id = r[1].as_deref().and_then(|s| s.parse().ok()).unwrap_or(0);
                Some((r[0].clone()?, (id, r[2].clone())))
            })
            .collect();
        let uuid_column = if from.version.is_some_and(|v| v >= 3) {
            "uuid"
        } else {
            "NULL"
        };
        let runs = from.rows(&format!(
            "SELECT id, started_at, finished_at, status, pid, workload, error, manifest, {}, {uuid_column}, {} FROM runs ORDER BY id",
            from.origin_columns(),
            from.name_column(),
        ))?;
        for r in runs {
            let text = |i: usize| r[i].clone().unwrap_or_default();
            let uuid = r[10]
                .clone()
                .unwrap_or_else(|| run_uuid::legacy(&text(1), &text(4), r[8].as_deref(), &text(7)));
            let old_id: i64 = text(0).parse().unwrap_or(-1);
            if let Some((id, name)) = present.get(&uuid) {
                merged.runs_present += 1;
                merged.runs.push(Mapped {
                    from: Some(old_id),
                    to: *id,
                    added: false,
                    name: name.clone(),
                    renamed_from: None,
                });
                continue;
            }
            // What goes in, and reaches a terminal from here on, without control characters
            // (the uuid above is derived from the run as the input stores it).
            let r = clean(&r, Some(7));
            let templates = if from.has_templates {
                from.rows(&format!("SELECT record FROM templates WHERE run_id = {old_id}"))?
            } else {
                Vec::new()
            };
            let templates: Vec<_> = templates.iter().map(|t| clean(t, Some(0))).collect();
            let trials = from.rows(&format!(
                "SELECT seq, config, round, warmup, record FROM trials WHERE run_id = {old_id} ORDER BY seq"
            ))?;
            let trials: Vec<_> = trials.iter().map(|t| clean(t, Some(4))).collect();
            self.conn
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(|e| self.engine_error(e))?;
            // A name another run has here is kept with a suffix ([`Store::free_name`]).
            let name = match &r[11] {
                Some(n) => Some(self.free_name(n)?),
                None => None,
            };
            let copied = self.copy_run(&r, &uuid, name.as_deref(), &templates, &trials);
            let new_id = match copied {
                Ok(id) => {
                    self.conn.execute_batch("COMMIT").map_err(|e| self.engine_error(e))?;
                    id
                }
                Err(e) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    return Err(e);
                }
            };
            merged.runs.push(Mapped {
                from: Some(old_id),
                to: new_id,
                added: true,
                renamed_from: r[11].clone().filter(|n| Some(n) != name.as_ref()),
                name,
            });
            merged.runs_added += 1;
            merged.trials_added += trials.len();
        }
        if from.version.is_some_and(|v| v >= 2) {
            merged.verdicts_added = self.merge_verdicts(from)?;
        }
        Ok(merged)
    }

    pub(super) fn engine_error(&self, source: crate::engines::EngineError) -> StoreError {
        StoreError::Engine {
            path: self.path.clone(),
            source,
        }
    }

    fn copy_run(
        &mut self,
        r: &[Option<String>],
        uuid: &str,
        name: Option<&str>,
        templates: &[Vec<Option<String>>],
        trials: &[Vec<Option<String>>],
    ) -> Result<i64, StoreError> {
        let int = |v: &Option<String>| Value::Int(v.as_deref().and_then(|s| s.parse().ok()).unwrap_or(0));
        self.exec(
            "INSERT INTO runs(started_at, finished_at, status, pid, workload, error, manifest, host, boot_id, uuid, name) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            &[
                t(&r[1]),
                t(&r[2]),
                t(&r[3]),
                int(&r[4]),
                t(&r[5]),
                t(&r[6]),
                t(&r[7]),
                t(&r[8]),
                t(&r[9]),
                Value::Text(uuid),
                name.map_or(Value::Null, Value::Text),
            ],
        )?;
        let id = self.rows("SELECT last_insert_rowid()")?[0][0]
            .as_deref()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        for tr in templates {
            self.exec(
                "INSERT INTO templates(run_id, record) VALUES (?1, ?2)",
                &[Value::Int(id), t(&tr[0])],
            )?;
        }
        for tr in trials {
            self.exec(
                "INSERT INTO trials(run_id, seq, config, round, warmup, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &[
                    Value::Int(id),
                    int(&tr[0]),
                    int(&tr[1]),
                    int(&tr[2]),
                    int(&tr[3]),
                    t(&tr[4]),
                ],
            )?;
        }
        Ok(id)
    }

    fn merge_verdicts(&mut self, from: &mut Store) -> Result<usize, StoreError> {
        let key = |r: &Vec<Option<String>>| serde_json::to_string(r).unwrap_or_default();
        let have: HashSet<String> = self
            .rows(&format!("SELECT {VERDICT_COLUMNS} FROM verifications"))?
            .iter()
            .map(key)
            .collect();
        let mut added = 0;
        for r in from.rows(&format!("SELECT {VERDICT_COLUMNS} FROM verifications ORDER BY id"))? {
            let r = clean(&r, Some(11));
            if have.contains(&key(&r)) {
                continue;
            }
            let int = |v: &Option<String>| match v.as_deref().and_then(|s| s.parse().ok()) {
                Some(n) => Value::Int(n),
                None => Value::Null,
            };
            self.exec(
                "INSERT INTO verifications(verified_at, engine, sqlite_version, source_id, journal_mode, synchronous, crash, verdict, worst_lost, states, violations, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                &[
                    t(&r[0]),
                    t(&r[1]),
                    t(&r[2]),
                    t(&r[3]),
                    t(&r[4]),
                    t(&r[5]),
                    t(&r[6]),
                    t(&r[7]),
                    int(&r[8]),
                    int(&r[9]),
                    int(&r[10]),
                    t(&r[11]),
                ],
            )?;
            added += 1;
        }
        Ok(added)
    }
}
