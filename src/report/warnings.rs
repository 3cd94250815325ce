//! The warnings a reader must see beside the numbers, from what was stored with the run.
//!
//! Workload-specific warnings (TATP's success rates against its specification, ...) come from
//! the workload itself ([`crate::workload::Workload::warnings`]), so this module knows no
//! workload by name.

use super::number::pct;
use super::summary::{outlier_warnings, SummaryRow};
use crate::result::{Manifest, TrialRecord};

/// Builds the warnings.
pub fn warnings(manifest: &Manifest, trials: &[TrialRecord], rows: &[SummaryRow], status: &str) -> Vec<String> {
    let mut w = Vec::new();
    if manifest.environment.storage.ram_backed && !manifest.in_memory {
        w.push(format!(
            "{} is on a RAM filesystem ({}): syncs cost nothing there, so durability numbers mean nothing; use --dir on a real disk",
            manifest.scratch_dir,
            manifest.environment.storage.fs_type.as_deref().unwrap_or("tmpfs")
        ));
    }
    for r in rows.iter().filter(|r| r.noisy && r.operation == "all") {
        w.push(format!(
            "#{} {}: throughput CV {} exceeds 5%: the machine was too noisy for small differences; add trials or quiet the machine",
            r.config,
            r.label,
            r.tps_cv.map_or_else(|| "-".into(), pct)
        ));
    }
    w.extend(outlier_warnings(&manifest.configs, trials));
    if manifest.trials < litebench_stats::MIN_TRIALS as u32 {
        w.push(format!(
            "{} trial{} per configuration: intervals and verdicts need at least {}; use --trials 10 for numbers worth comparing",
            manifest.trials,
            if manifest.trials == 1 { "" } else { "s" },
            litebench_stats::MIN_TRIALS
        ));
    }
    let mut unverified: Vec<String> = trials
        .iter()
        .flat_map(|t| t.knobs.iter())
        .filter(|k| k.requested.is_some() && k.effective.is_none())
        .map(|k| k.name.clone())
        .collect();
    unverified.sort();
    unverified.dedup();
    for k in unverified {
        w.push(format!(
            "{k} reads back nothing, so litebench could not verify that it took effect (run with --allow-unverified)"
        ));
    }
    if let Some(wl) = crate::workload::find(&manifest.workload) {
        w.extend(wl.warnings(manifest, trials));
    }
    w.extend(manifest.warnings.iter().cloned());
    match status {
        "interrupted" => w.push("run was interrupted: only the trials that finished are shown".into()),
        "abandoned" => w.push(
            "run never finished (its process is gone, e.g. killed): only the trials that finished are shown".into(),
        ),
        "failed" => w.push("run failed: only the trials that finished before the error are shown".into()),
        s if s.starts_with("running") => w.push(format!(
            "run is {s}: it may still be going or may have died; only the trials that finished are shown"
        )),
        _ => {}
    }
    w
}
