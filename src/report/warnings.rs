//! The warnings a reader must see beside the numbers, from what was stored with the run.
//!
//! Workload-specific warnings (TATP's success rates against its specification, ...) come from
//! the workload itself ([`crate::workload::WorkloadReport::warnings`]), so this module knows no
//! workload by name.

use super::number::pct;
use super::summary::{outlier_warnings, SummaryRow};
use crate::model::record::{Manifest, TrialRecord};

/// Builds the warnings.
pub fn warnings(
    manifest: &Manifest,
    workload: super::RunWorkload,
    trials: &[TrialRecord],
    rows: &[SummaryRow],
    status: &str,
) -> Vec<String> {
    let mut w = super::drivers::warnings(manifest);
    // Configurations on a `--fs` filesystem ran there, not in the scratch directory (in a guest
    // kernel the scratch directory is always the guest's tmpfs).
    let in_scratch = manifest.configs.iter().any(|c| c.fs.is_none());
    if manifest.environment.storage.ram_backed && !manifest.in_memory && in_scratch {
        w.push(format!(
            "{} is on a RAM filesystem ({}): syncs cost nothing there, so durability numbers mean nothing; use --dir on a real disk",
            manifest.scratch_dir,
            manifest.environment.storage.fs_type.as_deref().unwrap_or("tmpfs")
        ));
    }
    if let Some(g) = &manifest.guest {
        let cost = match (g.syscall_ns_guest, g.syscall_ns_host) {
            (Some(guest), Some(host)) => format!(" (a system call: {guest:.0} ns against {host:.0} ns)"),
            _ => String::new(),
        };
        w.push(format!(
            "ran inside a guest kernel ({} {}){cost}: compare these numbers with runs in the same guest, not with runs on the host",
            g.kernel, g.release
        ));
        if g.o_sync_verified != Some(true) {
            w.push("the guest's disks were not verified to be open O_SYNC on the host: its syncs may not have reached the host's storage".into());
        }
    }
    let noisy: Vec<&SummaryRow> = rows
        .iter()
        .filter(|r| r.throughput.noisy && r.operation == "all")
        .collect();
    // An open loop's schedule moves every configuration's rate alike: named where it is the
    // cause, instead of the machine.
    let schedule = super::schedule::cv_warning(manifest, workload, trials, &noisy);
    let machine = if schedule.is_some() { &[][..] } else { &noisy[..] };
    w.extend(schedule);
    w.extend(super::schedule::skipped_warning(manifest, trials));
    // A trial that stalled, ran long or ran its roles late: its figures look plausible and
    // are not what was asked.
    w.extend(super::stalls::warnings(manifest, trials));
    for r in machine {
        w.push(format!(
            "#{} {}: throughput CV {} exceeds 5%: the machine was too noisy for small differences; add trials or quiet the machine",
            r.config,
            r.label,
            r.throughput.tps_cv.map_or_else(|| "-".into(), pct)
        ));
    }
    // Transactions that gave up busy are not in the rate, which counts completed ones: a rate
    // read without them overstates what the configuration sustained. Their causes need
    // different fixes.
    w.extend(super::busy::warnings(rows));
    w.extend(outlier_warnings(&manifest.configs, trials));
    w.extend(super::cast::unfinished_backups(trials));
    w.extend(super::journal_switch::warnings(manifest, trials));
    if manifest.trials < litebench_stats::MIN_TRIALS as u32 {
        w.push(format!(
            "{} trial{} per configuration: intervals and verdicts need at least {}; use --trials 10 for numbers worth comparing",
            manifest.trials,
            if manifest.trials == 1 { "" } else { "s" },
            litebench_stats::MIN_TRIALS
        ));
    }
    for k in unverified_knobs(trials) {
        w.push(format!(
            "{k} reads back nothing, so litebench could not verify that it took effect (run with --allow-unverified)"
        ));
    }
    w.extend(result_hash_warnings(trials));
    w.extend(workload.hooks().warnings(manifest, trials));
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

/// Knobs that were requested but read back nothing (possible only with `--allow-unverified`),
/// sorted, each once.
pub fn unverified_knobs(trials: &[TrialRecord]) -> Vec<&str> {
    let mut v: Vec<&str> = trials
        .iter()
        .flat_map(|t| t.knobs.iter())
        .filter(|k| k.requested.is_some() && k.effective.is_none())
        .map(|k| k.name.as_str())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Trials of one round run the same operations on the same data (same seed), so their query
/// results must hash alike whatever the configuration or engine; a difference means some
/// configuration returned different answers, and its speed is not comparable.
fn result_hash_warnings(trials: &[TrialRecord]) -> Vec<String> {
    let mut w = Vec::new();
    let mut rounds: Vec<u64> = trials.iter().map(|t| t.seed).collect();
    rounds.sort_unstable();
    rounds.dedup();
    for seed in rounds {
        let hashed: Vec<&TrialRecord> = trials
            .iter()
            .filter(|t| t.seed == seed && t.result_hash.is_some())
            .collect();
        let Some(first) = hashed.first() else { continue };
        if let Some(other) = hashed.iter().find(|t| t.result_hash != first.result_hash) {
            w.push(format!(
                "round {}: query results differ between configurations (#{} trial {} and #{} trial {} hash differently): some configuration returned other answers, so its figures are not comparable",
                first.round, first.config, first.seq, other.config, other.seq
            ));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(seq: u64, config: usize, seed: u64, hash: Option<&str>) -> TrialRecord {
        TrialRecord {
            seq,
            config,
            seed,
            round: seed as u32,
            result_hash: hash.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn differing_results_in_a_round_are_reported() {
        let same = [
            t(0, 0, 1, Some("aa")),
            t(1, 1, 1, Some("aa")),
            t(2, 0, 2, Some("bb")),
            t(3, 1, 2, None),
        ];
        assert!(result_hash_warnings(&same).is_empty());
        let differ = [t(0, 0, 1, Some("aa")), t(1, 1, 1, Some("ab"))];
        let w = result_hash_warnings(&differ);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("#0 trial 0 and #1 trial 1"), "{}", w[0]);
    }
}
