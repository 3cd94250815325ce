//! The run's workload, looked up by the manifest's name once, when a report is built
//! ([`super::Report::build`]), and handed to every part that asks: what it counts and ranks by,
//! its operations, its transactions' budget, and what it adds to reports ([`WorkloadReport`]).
//! A run stored by a litebench with a workload this one lacks counts `tx`, ranks by throughput
//! and adds nothing.

use crate::model::record::Manifest;
use crate::workload::load::Transactions;
use crate::workload::report::NoReport;
use crate::workload::{Workload, WorkloadReport};

/// The run's workload, or none where this litebench does not have it.
#[derive(Clone, Copy)]
pub struct RunWorkload(Option<&'static dyn Workload>);

impl RunWorkload {
    /// The workload `manifest` ran.
    pub fn of(manifest: &Manifest) -> RunWorkload {
        RunWorkload(crate::workload::find(&manifest.workload))
    }

    /// What it adds to reports; nothing for a workload this litebench does not have.
    pub fn hooks(self) -> &'static dyn WorkloadReport {
        self.0.map_or(&NoReport, |w| w.report())
    }

    /// What its comparisons rank by; throughput where unknown.
    pub fn metric(self) -> super::Metric {
        self.0.map_or(super::Metric::Tps, |w| w.kind().metric)
    }

    /// What it counts ([`crate::workload::WorkloadKind::unit`]); `tx` where unknown.
    pub fn unit(self) -> &'static str {
        self.0.map_or("tx", |w| w.kind().unit)
    }

    /// Its operation types in report order; none where unknown.
    pub fn operations(self) -> &'static [&'static str] {
        self.0.map_or(&[], |w| w.kind().operations)
    }

    /// Whether it never writes; false where unknown.
    pub fn read_only(self) -> bool {
        self.0.is_some_and(|w| w.read_only())
    }

    /// Whether it asks for its database file's size ([`super::db_size`]); false where unknown.
    pub fn reports_db_size(self) -> bool {
        self.0.is_some_and(|w| w.kind().reports_db_size)
    }

    /// Its transactions, whose budget tells what ended a trial stored before the manifest said.
    pub fn transactions(self) -> Option<&'static dyn Transactions> {
        self.0?.transactions()
    }
}

impl std::fmt::Debug for RunWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(w) => write!(f, "RunWorkload({})", w.name()),
            None => f.write_str("RunWorkload(unknown)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::data::tests::{manifest, trials};

    fn run_of(workload: &str, params: &[&str]) -> Manifest {
        let mut m = manifest(&[&[("journal_mode", "wal")]]);
        m.workload = workload.into();
        if let Some(w) = crate::workload::all().iter().find(|w| w.name() == workload) {
            let args: Vec<String> = params.iter().map(|s| s.to_string()).collect();
            m.params = crate::model::params::resolve(workload, w.params(), &args).unwrap();
        }
        m
    }

    #[test]
    fn an_unknown_workload_counts_tx_ranks_by_throughput_and_adds_nothing() {
        let m = run_of("nosuch", &[]);
        let w = RunWorkload::of(&m);
        assert_eq!(
            (w.metric(), w.unit(), w.operations()),
            (super::super::Metric::Tps, "tx", &[][..])
        );
        assert!(!w.read_only() && !w.reports_db_size() && w.transactions().is_none());
        let t = trials(1, 1, &["insert"]);
        assert!(w.hooks().sections(&m, &t).is_empty() && w.hooks().question(&m).is_none());
        assert_eq!(w.hooks().operation_label("insert", &m.params), "insert");
        assert_eq!(format!("{w:?}"), "RunWorkload(unknown)");
    }

    /// Each workload that adds to its reports is reached through [`RunWorkload::hooks`]: a
    /// workload whose `Workload::report` were left at its default would add nothing, silently.
    #[test]
    fn each_workload_with_a_report_of_its_own_is_reached_through_the_run() {
        let t = trials(1, 1, &["insert"]);
        let hooks = |name: &str, params: &[&str]| {
            let m = run_of(name, params);
            (RunWorkload::of(&m).hooks(), m)
        };
        let (queue, m) = hooks("queue", &[]);
        assert!(queue.question(&m).is_some(), "the queue asks its own question");
        let (tatp, m) = hooks("tatp", &[]);
        assert_eq!(tatp.sections(&m, &t).len(), 1, "TATP's success rates");
        let (aging, m) = hooks("aging", &[]);
        assert!(aging.live_rows(&m.params, 10).is_some(), "aging's live rows");
        for (name, params) in [("speedtest1", &["size=1"][..]), ("speedtest", &["scale_percent=1"][..])] {
            let (w, m) = hooks(name, params);
            let op = RunWorkload::of(&m).operations()[0];
            assert_ne!(w.operation_label(op, &m.params), op, "{name} labels {op} at its size");
        }
        let (crud, m) = hooks("crud", &[]);
        assert!(
            crud.sections(&m, &t).is_empty() && crud.question(&m).is_none(),
            "crud adds nothing"
        );
    }

    /// Issue 48: the reports asked the registry for the run's workload fifteen times over; now
    /// [`RunWorkload::of`] is the one place in `src/report` that looks it up.
    #[test]
    fn the_reports_look_the_workload_up_in_one_place() {
        fn walk(dir: &std::path::Path, out: &mut Vec<(String, usize)>) {
            for e in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let n = std::fs::read_to_string(&p)
                        .unwrap()
                        .matches(concat!("workload::", "find("))
                        .count();
                    out.push((p.display().to_string(), n));
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report"),
            &mut found,
        );
        let finds: Vec<&(String, usize)> = found.iter().filter(|(_, n)| *n > 0).collect();
        assert!(found.len() > 30, "read the report's files: {found:?}");
        assert_eq!(finds.len(), 1, "{finds:?}");
        assert!(finds[0].0.ends_with("run_workload.rs") && finds[0].1 == 1, "{finds:?}");
    }
}
