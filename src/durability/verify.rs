//! One verification: record the ledger workload under a configuration, then check its crash
//! states and sum them up as a verdict.

use super::check::{check, CheckError, Outcome, DB_NAME};
use super::crash::{point_rng, CrashKind, CrashState, Model};
use super::ledger::Ledger;
use super::record::{Recorder, Recording};
use crate::base::thousands::grouped;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::sqlite::vfs;
use crate::engines::{Connection, EngineError};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The journal modes SQLite has, in `PRAGMA journal_mode` spelling.
pub const JOURNAL_MODES: [&str; 6] = ["delete", "truncate", "persist", "memory", "wal", "off"];
/// The `synchronous` levels, in the order of their numbers (0 to 3).
pub const SYNCHRONOUS: [&str; 4] = ["off", "normal", "full", "extra"];

/// A configuration under verification.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Config {
    pub journal_mode: String,
    pub synchronous: String,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}",
            self.journal_mode.to_uppercase(),
            self.synchronous.to_uppercase()
        )
    }
}

/// What a configuration gives up in one kind of crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Every acknowledged transaction survived every state tried, intact.
    Durable,
    /// Always intact with whole transactions, but up to `worst` acknowledged ones lost.
    MayLose { worst: u64 },
    /// Some state was unreadable, failed `integrity_check`, or held part of a transaction.
    MayCorrupt,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Durable => f.write_str("durable"),
            Verdict::MayLose { worst } => write!(f, "consistent, may lose {worst}"),
            Verdict::MayCorrupt => f.write_str("may corrupt"),
        }
    }
}

impl Cell {
    /// The verdict and its evidence in words a reader can weigh: what was lost and in how many
    /// of the states tried (`consistent; lost the last commit in 5,349 of 16,484 states`), where
    /// "may lose 1 (16484 states, 5349 violations)" read as alarming for a need that was met.
    pub fn in_words(&self) -> String {
        let (v, n) = (grouped(self.violations), grouped(self.states));
        match self.verdict {
            Verdict::Durable => format!("durable: every acknowledged commit survived in all {n} states"),
            Verdict::MayLose { worst: 1 } => format!("consistent; lost the last commit in {v} of {n} states"),
            Verdict::MayLose { worst } => {
                format!("consistent; lost up to the last {worst} commits in {v} of {n} states")
            }
            Verdict::MayCorrupt => format!("may corrupt: {v} of {n} states broke a guarantee"),
        }
    }
}

/// A state that broke a guarantee, with what it takes to rebuild it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counterexample {
    /// Crash after this many recorded events.
    pub crash_point: usize,
    /// The last event before the crash.
    pub after: String,
    pub acked: u64,
    pub found: Outcome,
    /// Which pending operations survived (power loss).
    pub survived: String,
}

/// The verdict of one configuration for one crash kind, with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cell {
    pub config: Config,
    pub crash: CrashKind,
    pub verdict: Verdict,
    /// Crash states tried.
    pub states: u64,
    /// Distinct file contents among them (each opened once).
    pub distinct: u64,
    pub violations: u64,
    /// Every crash point with every whole-operation subset (power) or every point (process).
    pub exhaustive: bool,
    /// Events recorded (crash points = events + 1).
    pub events: u64,
    /// The first violations found of each kind (corrupt, partial, the worst loss).
    pub counterexamples: Vec<Counterexample>,
}

/// How hard to look.
#[derive(Debug, Clone, Default)]
pub struct Effort {
    /// Power-loss states per configuration, spread over the crash points.
    pub power_states: usize,
    pub seed: u64,
    /// Set (by SIGINT/SIGTERM) to stop at the next crash point.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// Why a verification could not run.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("{0}")]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Check(#[from] CheckError),
    #[error(transparent)]
    Shim(#[from] vfs::ShimError),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("interrupted")]
    Interrupted,
    #[error("{config}: SQLite set {pragma} to {got} instead of {want} (this build may not support it)")]
    NotApplied {
        config: Config,
        pragma: &'static str,
        want: String,
        got: String,
    },
}

fn io_err(p: &Path) -> impl FnOnce(std::io::Error) -> VerifyError + '_ {
    move |source| VerifyError::Io {
        path: p.display().to_string(),
        source,
    }
}

/// Removes what SQLite may have left of `db` in `dir`, then `dir` (both ours).
fn clean(dir: &Path) {
    super::check::remove_db_files(dir);
    let _ = std::fs::remove_dir(dir);
}

/// Loads the ledger's baseline in `dir` (created here), then runs its transactions through the
/// recording VFS under `config`.
pub fn record(api: &'static Api, dir: &Path, config: &Config, ledger: &Ledger) -> Result<Recording, VerifyError> {
    std::fs::create_dir(dir).map_err(io_err(dir))?;
    let result = record_in(api, dir, config, ledger);
    clean(dir);
    result
}

fn record_in(api: &'static Api, dir: &Path, config: &Config, ledger: &Ledger) -> Result<Recording, VerifyError> {
    let dir = dir.canonicalize().map_err(io_err(dir))?;
    let db = dir.join(DB_NAME);
    ledger.create(api, &db, &config.journal_mode)?;
    vfs::install(api)?;
    let recorder = Arc::new(Recorder::new(&dir).map_err(io_err(&dir))?);
    let watch = vfs::watch(&dir, recorder.clone());
    let mut conn = SqliteConn::open(api, &db, Some(vfs::SHIM_NAME), "durability")?;
    let mode = conn
        .query_value(&format!("PRAGMA journal_mode={}", config.journal_mode))?
        .unwrap_or_default();
    if mode != config.journal_mode {
        return Err(VerifyError::NotApplied {
            config: config.clone(),
            pragma: "journal_mode",
            want: config.journal_mode.clone(),
            got: mode,
        });
    }
    // A checkpoint within the workload, so WAL resets and unsynced checkpoints are covered.
    conn.execute_batch(&format!(
        "PRAGMA synchronous={}; PRAGMA wal_autocheckpoint=8",
        config.synchronous
    ))?;
    let level = conn.query_value("PRAGMA synchronous")?.unwrap_or_default();
    let want = SYNCHRONOUS
        .iter()
        .position(|s| *s == config.synchronous)
        .map(|n| n.to_string());
    if Some(&level) != want.as_ref() {
        return Err(VerifyError::NotApplied {
            config: config.clone(),
            pragma: "synchronous",
            want: config.synchronous.clone(),
            got: level,
        });
    }
    ledger.run(&mut conn, |tx| recorder.ack(tx))?;
    let rec = recorder.finish();
    drop(conn);
    drop(watch);
    Ok(rec)
}

/// Checks crash states, each distinct content once, and sums them up.
struct Tally<'a> {
    api: &'static Api,
    dir: &'a Path,
    ledger: &'a Ledger,
    cache: &'a mut HashMap<[u8; 32], Outcome>,
    states: u64,
    violations: u64,
    worst_lost: u64,
    corrupt: bool,
    examples: Vec<Counterexample>,
}

impl Tally<'_> {
    fn add(&mut self, s: &CrashState, after: impl FnOnce() -> String) -> Result<(), CheckError> {
        self.states += 1;
        let mut h = Sha256::new();
        for (n, b) in &s.files {
            h.update(n.as_bytes());
            h.update((b.len() as u64).to_le_bytes());
            h.update(b);
        }
        let key: [u8; 32] = h.finalize().into();
        let outcome = match self.cache.get(&key) {
            Some(o) => o.clone(),
            None => {
                let o = check(self.api, self.dir, &s.files, self.ledger)?;
                self.cache.insert(key, o.clone());
                o
            }
        };
        let example = |found: Outcome| Counterexample {
            crash_point: s.point,
            after: after(),
            acked: s.acked,
            found,
            survived: s.survived.clone(),
        };
        match outcome {
            Outcome::Intact { applied } if applied >= s.acked => {}
            Outcome::Intact { applied } => {
                self.violations += 1;
                let lost = s.acked - applied;
                if lost > self.worst_lost {
                    self.worst_lost = lost;
                    self.examples.retain(|e| !matches!(e.found, Outcome::Intact { .. }));
                    self.examples.push(example(outcome));
                }
            }
            ref bad => {
                self.violations += 1;
                self.corrupt = true;
                if !self
                    .examples
                    .iter()
                    .any(|e| std::mem::discriminant(&e.found) == std::mem::discriminant(bad))
                {
                    self.examples.push(example(outcome));
                }
            }
        }
        Ok(())
    }
}

/// Checks `crash` states of a recording, materialising them in `dir` (created and removed here).
pub fn verify(
    api: &'static Api,
    dir: &Path,
    config: &Config,
    crash: CrashKind,
    ledger: &Ledger,
    rec: &Recording,
    effort: &Effort,
) -> Result<Cell, VerifyError> {
    std::fs::create_dir(dir).map_err(io_err(dir))?;
    let mut cache = HashMap::new();
    let result = verify_in(api, dir, config, crash, ledger, rec, effort, &mut cache);
    clean(dir);
    result
}

#[allow(clippy::too_many_arguments)]
fn verify_in(
    api: &'static Api,
    dir: &Path,
    config: &Config,
    crash: CrashKind,
    ledger: &Ledger,
    rec: &Recording,
    effort: &Effort,
    cache: &mut HashMap<[u8; 32], Outcome>,
) -> Result<Cell, VerifyError> {
    let mut tally = Tally {
        api,
        dir,
        ledger,
        cache,
        states: 0,
        violations: 0,
        worst_lost: 0,
        corrupt: false,
        examples: Vec::new(),
    };
    let mut model = Model::new(rec);
    let points = model.points();
    let per_point = effort.power_states.div_ceil(points).max(2);
    let salt = {
        let mut h = Sha256::new();
        h.update(config.to_string().as_bytes());
        u64::from_le_bytes(h.finalize()[..8].try_into().expect("8 bytes"))
    };
    let mut exhaustive = true;
    loop {
        if effort
            .stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Err(VerifyError::Interrupted);
        }
        match crash {
            CrashKind::Process => {
                let s = model.process_state();
                tally.add(&s, || model.last_event())?;
            }
            CrashKind::Power => {
                let mut rng = point_rng(effort.seed, salt, model.point);
                let (states, all) = model.power_states(per_point, &mut rng);
                exhaustive &= all;
                for s in &states {
                    tally.add(s, || model.last_event())?;
                }
            }
        }
        if !model.step() {
            break;
        }
    }
    let verdict = if tally.corrupt {
        Verdict::MayCorrupt
    } else if tally.worst_lost > 0 {
        Verdict::MayLose {
            worst: tally.worst_lost,
        }
    } else {
        Verdict::Durable
    };
    Ok(Cell {
        config: config.clone(),
        crash,
        verdict,
        states: tally.states,
        distinct: tally.cache.len() as u64,
        violations: tally.violations,
        exhaustive,
        events: rec.events.len() as u64,
        counterexamples: tally.examples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durability::ledger::LedgerSize;

    #[test]
    fn a_verdict_reads_as_what_was_lost_in_how_many_states() {
        let mut c = cell(("delete", "full"), CrashKind::Power);
        (c.states, c.violations) = (16_484, 5_349);
        c.verdict = Verdict::MayLose { worst: 1 };
        assert_eq!(
            c.in_words(),
            "consistent; lost the last commit in 5,349 of 16,484 states"
        );
        c.verdict = Verdict::MayLose { worst: 3 };
        assert_eq!(
            c.in_words(),
            "consistent; lost up to the last 3 commits in 5,349 of 16,484 states"
        );
        c.verdict = Verdict::MayCorrupt;
        assert_eq!(c.in_words(), "may corrupt: 5,349 of 16,484 states broke a guarantee");
        (c.verdict, c.violations, c.states) = (Verdict::Durable, 0, 999);
        assert_eq!(
            c.in_words(),
            "durable: every acknowledged commit survived in all 999 states"
        );
        assert_eq!(
            [0, 7, 100, 1_000, 999_999, 1_234_567].map(grouped),
            ["0", "7", "100", "1,000", "999,999", "1,234,567"]
        );
    }

    fn cell(config: (&str, &str), crash: CrashKind) -> Cell {
        let size = LedgerSize {
            initial_rows: 6,
            transactions: 2,
            inserts_per_tx: 2,
            payload_bytes: 600,
        };
        let ledger = Ledger::generate(size, 9);
        let t = tempfile::tempdir().unwrap();
        let config = Config {
            journal_mode: config.0.into(),
            synchronous: config.1.into(),
        };
        let rec = record(Api::bundled(), &t.path().join("rec"), &config, &ledger).unwrap();
        assert!(rec
            .events
            .iter()
            .any(|e| matches!(e, crate::durability::record::Event::Ack { tx: 2 })));
        let effort = Effort {
            power_states: 600,
            seed: 1,
            stop: None,
        };
        let c = verify(
            Api::bundled(),
            &t.path().join("chk"),
            &config,
            crash,
            &ledger,
            &rec,
            &effort,
        )
        .unwrap();
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0, "files left behind");
        c
    }

    #[test]
    fn the_unsynced_journal_deletion_of_delete_full_loses_the_last_commit_and_extra_does_not() {
        let full = cell(("delete", "full"), CrashKind::Power);
        assert_eq!(full.verdict, Verdict::MayLose { worst: 1 }, "{full:#?}");
        let e = &full.counterexamples[0];
        assert_eq!(e.found, Outcome::Intact { applied: e.acked - 1 });
        let extra = cell(("delete", "extra"), CrashKind::Power);
        assert_eq!(extra.verdict, Verdict::Durable, "{extra:#?}");
        assert!(extra.states > 100 && extra.violations == 0);
    }

    #[test]
    fn a_process_crash_tries_every_point_once() {
        let c = cell(("wal", "off"), CrashKind::Process);
        assert_eq!(c.verdict, Verdict::Durable);
        assert!(c.exhaustive);
        assert_eq!(c.states, c.events + 1);
        let memory = cell(("memory", "full"), CrashKind::Process);
        assert_eq!(memory.verdict, Verdict::MayCorrupt, "{memory:#?}");
    }
}
