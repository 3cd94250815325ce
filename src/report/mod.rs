//! Reports: one model ([`Report`]) built from a stored or just-finished run, and one exporter
//! per format (terminal table, Markdown, CSV, JSON) that only lays that model out; the formats
//! are registered in [`format`], which also lays out what other subcommands print.
//!
//! Every figure is computed here once — summaries, the side-by-side table, spreads, ratios with
//! their intervals and verdicts ([`stats`]), warnings — so `run`, `show` and `compare` print
//! the same numbers, and a new format (the HTML report) is one more exporter over the same
//! model. Numbers are formatted by one formatter ([`number`]).

pub mod advise;
pub mod answer;
pub mod beside;
pub mod busy;
pub mod cast;
pub mod checklist;
pub mod commit_sync;
pub mod compact;
pub mod compare;
pub mod csv;
pub mod curve;
pub mod db_size;
pub mod drivers;
pub mod exports;
pub mod facts;
pub mod format;
pub mod history;
pub mod html;
pub mod journal_switch;
pub mod json;
pub mod layout;
pub mod markdown;
pub mod number;
pub mod order;
pub mod pivot;
pub mod presets;
pub mod profile;
pub mod run_workload;
pub mod schedule;
pub mod stalls;
pub mod stats;
pub mod storage;
pub mod stored;
pub mod summary;
pub mod table;
pub mod text;
pub mod wal;
pub mod wal_causes;
pub mod warnings;

use crate::model::record::{Manifest, ProcessSyncs, TemplateRecord, TrialRecord};
use checklist::ChecklistItem;
use pivot::SideBySide;
pub use run_workload::RunWorkload;
use serde::Serialize;
pub use stats::{Metric, Statistics, DEFAULT_NOISE};
use summary::{Spread, SummaryRow};

/// `--format` values; each one's implementation is in [`format::of`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
}

/// Status of a run as stored.
#[derive(Debug, Clone, Serialize)]
pub struct RunHeader {
    pub id: i64,
    /// Its name (`run --name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub status: String,
    pub error: Option<String>,
    pub finished_at: Option<String>,
    pub results: String,
}

impl RunHeader {
    /// `run 3`, or `run 3 (wal-baseline)` for a named run.
    pub fn title(&self) -> String {
        match &self.name {
            Some(n) => format!("run {} ({n})", self.id),
            None => format!("run {}", self.id),
        }
    }
}

/// Everything a report shows. `--format json` prints exactly this.
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    pub run: RunHeader,
    pub manifest: &'a Manifest,
    /// The workload it ran, looked up once ([`RunWorkload`]).
    #[serde(skip)]
    pub workload: RunWorkload,
    /// How intervals and verdicts were computed (with the noise threshold in use).
    pub statistics: Statistics,
    /// The headline metric: what the answer table, the spread and the knob charts rank by
    /// ([`headline_metric`]).
    pub metric: Metric,
    pub checklist: Vec<ChecklistItem>,
    pub summary: Vec<SummaryRow>,
    pub spread: Option<Spread>,
    pub warnings: Vec<String>,
    /// Templates populated for the run: rows, population time and size on disk.
    pub footprint: &'a [TemplateRecord],
    /// Operations down, configurations across; present with two or more configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side_by_side: Option<SideBySide>,
    /// A sweep's scaling curves (`--clients 1,2,4`, `--rate 100,300`); absent without one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<curve::Curve>,
    /// `--storage`: the answer at each storage value, and whether it was emulated; absent
    /// without.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<storage::StorageCurve>,
    /// Only for a run that just finished in this process (used by the strace cross-check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_syncs: Option<ProcessSyncs>,
    pub trials: &'a [TrialRecord],
    /// Stored `verify-durability` verdicts for the run's SQLite build and settings, one line
    /// per configuration (set by `show` from the store); absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub durability: Vec<String>,
    /// Each configuration's WAL over its trials: peak, final, and whether it grows without
    /// bound ([`wal`]); empty when no configuration had a WAL on disk.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wal: Vec<wal::WalGrowth>,
    /// How big the database file got, per configuration, for a workload that asks
    /// ([`db_size`]: `aging`); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub db_size: Vec<db_size::DbSize>,
    /// The run read as SQLite's history, where each configuration is another SQLite release
    /// ([`history`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<history::History>,
}

/// What a report is built from.
pub struct Input<'a> {
    pub run: RunHeader,
    pub manifest: &'a Manifest,
    pub trials: &'a [TrialRecord],
    pub templates: &'a [TemplateRecord],
    /// `--noise` given to this command (else the run's own threshold).
    pub noise: Option<f64>,
    /// `--metric`: what the side-by-side table, the spread and the charts show (else
    /// [`headline_metric`]'s).
    pub metric: Option<Metric>,
    /// Side-by-side baseline column.
    pub baseline: usize,
    pub process_syncs: Option<ProcessSyncs>,
}

/// What a run's reports rank by: `--metric` where given; in a run that counted instructions
/// (`--measure instructions`), instructions per operation; in an open loop (`--rate`), where
/// the schedule fixes the rate, the 99th-percentile latency; else the workload's own metric.
pub fn headline_metric(manifest: &Manifest, workload: RunWorkload, chosen: Option<Metric>) -> Metric {
    chosen.unwrap_or_else(|| {
        if manifest.instructions.is_some() {
            return Metric::Instructions;
        }
        let cast_open = manifest
            .load
            .cast
            .as_ref()
            .is_some_and(|c| c.workload_roles().any(|r| r.rate.is_some()));
        if manifest.load.open() || cast_open {
            Metric::P99
        } else {
            workload.metric()
        }
    })
}

impl<'a> Report<'a> {
    /// Builds the whole model.
    pub fn build(input: Input<'a>) -> Report<'a> {
        let m = input.manifest;
        let w = RunWorkload::of(m);
        let stats = Statistics::of(m, input.noise);
        let ops = operations_of(m, w, input.trials);
        let summary = summary::summarize_run(m, w, &stats, input.trials, &ops);
        let metric = headline_metric(m, w, input.metric);
        Report {
            metric,
            checklist: checklist::checklist(m, input.trials),
            spread: summary::spread(&summary, &stats, input.trials, metric),
            warnings: warnings::warnings(m, w, input.trials, &summary, &input.run.status),
            side_by_side: (m.configs.len() > 1)
                .then(|| pivot::side_by_side(m, w, &stats, input.trials, &ops, metric, input.baseline)),
            curves: curve::curves(m, &stats, input.trials),
            storage: storage::curve(m, &summary, input.trials),
            summary,
            statistics: stats,
            run: input.run,
            manifest: m,
            workload: w,
            footprint: input.templates,
            process_syncs: input.process_syncs,
            trials: input.trials,
            durability: Vec::new(),
            wal: wal::wal_growth(m, w, input.trials),
            db_size: db_size::db_sizes(m, w, input.trials),
            history: history::History::of(m, input.trials, metric, input.noise),
        }
    }
}

impl Report<'_> {
    /// The tables about how the run ran that follow its numbers: the drivers it went through
    /// ([`drivers`]), then a cast's roles beside the workload ([`cast`]).
    pub fn run_sections(&self) -> Vec<crate::workload::ReportSection> {
        drivers::section(self.manifest)
            .into_iter()
            .chain(cast::sections(self.trials))
            .collect()
    }

    /// What the run's workload counts: `tx`, `statements` or `queries` ([`RunWorkload::unit`]).
    pub fn unit(&self) -> String {
        self.workload.unit().to_string()
    }

    /// The throughput axis' words: `transactions per second`, `statements per second`,
    /// `queries per second`, after what the workload counts.
    pub fn rate_words(&self) -> String {
        match self.unit().as_str() {
            "tx" => "transactions per second".to_string(),
            u => format!("{u} per second"),
        }
    }
}

/// The operation types to report, in the workload's order (then any other stored ones).
pub fn operations_of(manifest: &Manifest, workload: RunWorkload, trials: &[TrialRecord]) -> Vec<String> {
    if let Some(cast) = &manifest.load.cast {
        return cast_operations(cast, trials);
    }
    use std::collections::HashSet;
    let mut ops: Vec<String> = workload.operations().iter().map(|s| s.to_string()).collect();
    // Sets, not scans of the list: a script of 20,000 statements has 20,000 types (issue 45).
    let mut listed: HashSet<String> = ops.iter().cloned().collect();
    let mut ran: HashSet<&str> = HashSet::new();
    for o in trials.iter().flat_map(|t| &t.ops) {
        if listed.insert(o.name.clone()) {
            ops.push(o.name.clone());
        }
        if o.ops + o.failed + o.skipped > 0 {
            ran.insert(&o.name);
        }
    }
    // An operation type no trial drew (YCSB A's inserts and scans) has no row: it would read
    // as measured at 0 tx/s. Nor has one that records a count, not a time.
    ops.retain(|name| ran.contains(name.as_str()) && !workload.hooks().is_count(name));
    ops
}

/// A cast's operations: per workload role, `ROLE:all` and then the role's operation types that
/// ran in some trial (a role running a read-only mix has no rows of the writes it never drew).
fn cast_operations(cast: &crate::model::cast::Cast, trials: &[TrialRecord]) -> Vec<String> {
    use crate::model::cast::{role_all, role_of};
    let mut ops = Vec::new();
    let mut listed = std::collections::HashSet::new();
    for role in cast.workload_roles() {
        ops.push(role_all(&role.name));
        for o in trials.iter().flat_map(|t| &t.ops) {
            let ran = o.ops + o.failed + o.skipped > 0;
            if ran && role_of(&o.name) == Some(role.name.as_str()) && listed.insert(o.name.as_str()) {
                ops.push(o.name.clone());
            }
        }
    }
    ops
}

/// Renders a report in the chosen format.
pub fn export(report: &Report<'_>, format: Format) -> String {
    format::of(format).report(report)
}
