//! What a workload adds to the reports of its runs, apart from what it does: its warnings,
//! tables, charts, question and answer, the labels of its operations, and what its database
//! holds. Reports reach these hooks from the run's workload ([`super::Workload::report`]),
//! looked up once per report, so the trait that runs a workload carries none of them and a
//! workload with nothing to add implements nothing.

use crate::model::params::Params;
use crate::model::record::{Manifest, TrialRecord};
use crate::model::series::{Milestone, Series};

/// A table a workload adds to the reports of its runs ([`WorkloadReport::sections`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportSection {
    pub title: String,
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    /// Printed in the terminal's report right under the answer, as what the run is for (the
    /// queue's jobs and waits); otherwise only the page and `--all` show it.
    pub lead: bool,
}

/// Lines over a trial's seconds that a workload adds to the page's answer
/// ([`WorkloadReport::lines`]): one line per configuration, from its first measured trial.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportLines {
    /// File-name-safe, unique within the workload's lines.
    pub id: &'static str,
    pub title: String,
    pub note: String,
    pub y_label: String,
    /// `(configuration index, [(seconds into the trial, value)])`.
    pub lines: Vec<(usize, Vec<(f64, f64)>)>,
}

/// What a workload adds to the reports of its runs. Every hook adds nothing by default.
pub trait WorkloadReport: Sync {
    /// Warnings about a stored run that only this workload knows to give (TATP's success
    /// rates against its specification, ...).
    fn warnings(&self, _manifest: &Manifest, _trials: &[TrialRecord]) -> Vec<String> {
        Vec::new()
    }
    /// The rows this workload keeps at the end of a trial with parameters `p` in which
    /// `inserted` rows were inserted, and the payload bytes of each, as `(rows, bytes)`: the
    /// live data a report of a workload with [`super::WorkloadKind::reports_db_size`] sets
    /// beside the file's size.
    fn live_rows(&self, _p: &Params, _inserted: u64) -> Option<(u64, u64)> {
        None
    }
    /// This workload's own moments that change the database at once in a trial with
    /// parameters `p` (aging's retention cut), read from the trial's series.
    fn milestones(&self, _p: &Params, _series: &Series) -> Vec<Milestone> {
        Vec::new()
    }
    /// The question the page's answer answers, where this workload asks its own (the queue:
    /// which configuration moves jobs through fastest).
    fn question(&self, _manifest: &Manifest) -> Option<String> {
        None
    }
    /// Charts over time this workload adds to the page's answer (the queue's depth).
    fn lines(&self, _manifest: &Manifest, _trials: &[TrialRecord]) -> Vec<ReportLines> {
        Vec::new()
    }
    /// The run's answer in this workload's own terms, replacing the generic one that ranks
    /// configurations by transactions per second (a queue's transactions include empty polls:
    /// it is ranked by jobs finished). `own` names each configuration by what sets it apart.
    fn answer(&self, _manifest: &Manifest, _trials: &[TrialRecord], _own: &[String]) -> Option<Vec<String>> {
        None
    }
    /// Tables only this workload knows to add to reports of its runs (TATP: each transaction's
    /// success rate beside the specification's), format-neutral: the HTML report draws each
    /// under its title.
    fn sections(&self, _manifest: &Manifest, _trials: &[TrialRecord]) -> Vec<ReportSection> {
        Vec::new()
    }
    /// How operation `op` reads in a report of a run with parameters `p`: the speed comparison
    /// suites' tests name their counts ("01 1000 INSERTs"), which a run scaled by
    /// `scale_percent` or `size` changes. The name itself is what is stored and matched.
    fn operation_label(&self, op: &str, _p: &Params) -> String {
        op.to_string()
    }
    /// Whether operation `op` records a count in the latency's place, not a time (vector's
    /// neighbours found per query, from which its own section computes recall): it has no row
    /// in the latency summaries, where it would read as nanoseconds.
    fn is_count(&self, _op: &str) -> bool {
        false
    }
}

/// What a workload with nothing of its own to report adds, and a run's whose workload this
/// litebench does not have (stored by another): nothing.
pub struct NoReport;

impl WorkloadReport for NoReport {}
