//! What a run reports, handed in by the command that starts it.
//!
//! `bench` measures and stores; it renders and prints no report. The command that starts a run
//! (`app::run`, and `reproduce` through it) hands the session a [`RunObserver`], as hyperfine's
//! `Scheduler` holds its `ExportManager` and criterion's runner calls its `Report`: the observer
//! is told of the plan, of each stored run the moment its job ends (so what was measured is
//! reported even when a later job fails), of each run a guest kernel brought back, and of the
//! session's end, and prints and writes what the user asked for. Progress (the bar, warnings,
//! the exit lines) stays with the session: it is about the run, not its results.

use crate::base::Failure;
use crate::bench::plan::{Job, Plan};
use crate::model::record::{Manifest, ProcessSyncs, TemplateRecord, TrialRecord};
use crate::store::StoredRun;

/// Told what a session stored, in order; renders, prints and writes the reports.
pub trait RunObserver {
    /// The session starts with this plan. An observer serves one session at a time: what it
    /// kept of an earlier one goes.
    fn started(&mut self, plan: &Plan);
    /// A job's run ended and is stored (or kept in a side file); an error stops the session.
    fn job_ended(&mut self, run: &JobRun<'_>) -> Result<(), Failure>;
    /// A run stored inside a `--guest` kernel is now in this host's store as `run.id`.
    fn imported(&mut self, run: &StoredRun);
    /// The session ended after storing `run_ids` (a guest's runs as imported): what is printed
    /// and written once for the whole session. Each file is tried; returns each failure.
    fn ended(&mut self, run_ids: &[i64]) -> Vec<Failure>;
}

/// One job's stored run as it ended: what its report is built from.
pub struct JobRun<'a> {
    /// The plan's job it ran (its configurations name their presets).
    pub job: &'a Job,
    pub run_id: i64,
    /// The status stored: `complete`, `interrupted` or `failed`.
    pub status: &'static str,
    /// The run's error line (also where the store could not take it).
    pub error: Option<&'a str>,
    pub finished_at: &'a str,
    pub manifest: &'a Manifest,
    pub trials: &'a [TrialRecord],
    pub templates: &'a [TemplateRecord],
    pub process_syncs: ProcessSyncs,
}
