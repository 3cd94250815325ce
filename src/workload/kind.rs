//! The descriptor of a workload: everything litebench knows about `crud`, `tatp` or `ssb`
//! without running it.
//!
//! Like an engine's [`crate::engines::kind::EngineKind`], each workload module declares one
//! `static KIND: WorkloadKind` beside its [`super::Workload`] implementation, whose
//! [`super::Workload::kind`] returns it. `list`, the plan and the reports read the descriptor,
//! so what a workload is (its name, parameters, operations, unit and metric) is data written
//! once, and the trait keeps only what it does. What depends on a run's parameters (the script
//! workload's operation types, TATP's warnings) stays a method of the trait.

use crate::model::metric::Metric;
use crate::model::params::ParamSpec;

/// One workload's description.
#[derive(Debug)]
pub struct WorkloadKind {
    /// Name used on the command line, and the `workload` stored in a run's manifest.
    pub name: &'static str,
    /// One line for `litebench list`: what it measures.
    pub about: &'static str,
    /// Where it comes from (paper, tool, specification).
    pub source: &'static str,
    /// Parameters with defaults and valid ranges.
    pub params: &'static [ParamSpec],
    /// Operation types, in report order; none where they depend on the parameters (the
    /// script and replay workloads: [`super::Workload::operation_types`]).
    pub operations: &'static [&'static str],
    /// What one counted operation of a report is: `tx` (a transaction), `statements` for the
    /// suites that time and count each statement of a test, `queries` for SSB.
    pub unit: &'static str,
    /// What the side-by-side table compares: transactions per second, or time per test for
    /// the speed-comparison suites and SSB.
    pub metric: Metric,
    /// True when a trial never writes: the runner may then give trials the template itself
    /// instead of a fresh copy (SSB at scale 1 is a database of hundreds of megabytes).
    pub read_only: bool,
    /// Knob values this workload runs with unless the user or a preset sets the knob (SSB: the
    /// VLDB'22 artifact's cache sizes), as `(knob, value)`; each engine takes those it has.
    /// Recorded in a configuration's knob origins as `workload NAME default`.
    pub default_knobs: &'static [(&'static str, &'static str)],
    /// True when the reports end with how big the database file got: its final size, its free
    /// pages and the live payload (`aging`; the report's `db_size` reads it).
    pub reports_db_size: bool,
}

/// A writer waits up to 5 s for a lock, as Python's `sqlite3` (`timeout=5.0`) and Rails 8
/// (`timeout: 5000`) wait by default, instead of SQLite's own default of not waiting: where
/// several clients write (TPC-C's terminals, TATP's and YCSB's clients, beside a scheduled
/// VACUUM), a client that gave up at once spins through up to a million instant `busy_timeout`
/// failures a trial that no application sees, while the servers it is compared with wait for
/// their row locks. A `default_knobs` entry: `--knob busy_timeout=0` gives SQLite's default
/// back. `begin=deferred`'s upgrade failures stay: SQLite refuses those without waiting.
pub const WAIT_FOR_LOCKS: &[(&str, &str)] = &[("busy_timeout", "5000")];

impl WorkloadKind {
    /// What a workload is unless its descriptor says otherwise, written after its own name,
    /// about, source, parameters and operations as `..WorkloadKind::BASE`: it counts
    /// transactions, is compared by their rate, writes, and sets no knob of its own.
    pub const BASE: WorkloadKind = WorkloadKind {
        name: "",
        about: "",
        source: "",
        params: &[],
        operations: &[],
        unit: "tx",
        metric: Metric::Tps,
        read_only: false,
        default_knobs: &[],
        reports_db_size: false,
    };
}

#[cfg(test)]
mod tests {
    use crate::workload::all;

    /// `..WorkloadKind::BASE` fills every field, its empty name, about and source included:
    /// each workload must write its own, and no two share a name.
    #[test]
    fn every_workload_names_and_describes_itself() {
        let mut names = Vec::new();
        for w in all() {
            let k = w.kind();
            assert!(!k.name.is_empty(), "a workload without a name: {k:?}");
            assert!(
                !k.about.is_empty() && !k.source.is_empty(),
                "{}: no about or source",
                k.name
            );
            assert!(!names.contains(&k.name), "two workloads named {}", k.name);
            names.push(k.name);
        }
        assert_eq!(crate::workload::find("ssb").map(|w| w.kind().name), Some("ssb"));
    }
}
