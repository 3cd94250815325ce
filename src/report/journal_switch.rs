//! A trial whose journal mode changed under it: said beside the numbers, and in `compare`.
//!
//! Litestream puts the database it replicates in WAL mode; an application's own SQL can run
//! `PRAGMA journal_mode` too. A run that did not set the mode then measured its first moments in
//! one mode and the rest in another, and compared with a run without the sidecar, the difference
//! is mostly the journal mode, not the sidecar. The runner reads the mode when each trial
//! begins and ends ([`crate::model::record::JournalModeChange`]); this says what it found.

use crate::model::record::{Manifest, TrialRecord};

/// How configuration `config`'s measured trials ended: `delete -> wal in 3 of 3 trials`, or
/// `None` where no trial's mode changed.
pub fn described(trials: &[TrialRecord], config: usize) -> Option<String> {
    let measured: Vec<&TrialRecord> = trials.iter().filter(|t| t.config == config && !t.warmup).collect();
    let changed: Vec<&crate::model::record::JournalModeChange> =
        measured.iter().filter_map(|t| t.journal_mode_change.as_ref()).collect();
    let first = changed.first()?;
    Some(format!(
        "{} -> {} in {} of {} trials",
        first.start,
        first.end,
        changed.len(),
        measured.len()
    ))
}

/// One warning per configuration whose journal mode changed during its trials, naming the
/// cast's sidecars as the likely cause where there are any.
pub fn warnings(manifest: &Manifest, trials: &[TrialRecord]) -> Vec<String> {
    let sidecars: Vec<&str> = manifest.load.cast.as_ref().map_or_else(Vec::new, |c| {
        c.roles
            .iter()
            .filter(|r| r.kind == crate::model::cast::RoleKind::Sidecar)
            .map(|r| r.name.as_str())
            .collect()
    });
    let cause = match sidecars.as_slice() {
        [] => "the workload's SQL switched it".to_string(),
        names => format!(
            "the sidecar {} (Litestream puts a database in WAL mode) or the workload's SQL switched it",
            names.join(", ")
        ),
    };
    manifest
        .configs
        .iter()
        .filter_map(|c| {
            let what = described(trials, c.index)?;
            let end = trials
                .iter()
                .find_map(|t| t.journal_mode_change.as_ref().filter(|_| t.config == c.index))?
                .end
                .clone();
            Some(format!(
                "#{} {}: the journal mode changed during the trials ({what}): {cause}, so they measured two modes; give --knob journal_mode={end} to measure one throughout",
                c.index, c.label
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::{ConfigInfo, JournalModeChange};

    fn trial(seq: u64, warmup: bool, change: bool) -> TrialRecord {
        TrialRecord {
            seq,
            warmup,
            journal_mode_change: change.then(|| JournalModeChange {
                start: "delete".into(),
                end: "wal".into(),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_changed_mode_is_said_with_its_count_and_the_knob_that_holds_it() {
        let mut m = crate::store::tests::manifest();
        m.configs = vec![ConfigInfo {
            index: 0,
            engine: "sqlite".into(),
            knobs: Default::default(),
            label: "busy_timeout=5000".into(),
            knob_origins: Vec::new(),
            fs: None,
            scheduler: None,
            scheduler_device: None,
            storage: None,
            load: None,
            extension: None,
            driver: None,
            role_drivers: Vec::new(),
        }];
        let trials = [trial(0, true, true), trial(1, false, true), trial(2, false, false)];
        assert_eq!(described(&trials, 0).as_deref(), Some("delete -> wal in 1 of 2 trials"));
        let w = warnings(&m, &trials);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("#0 busy_timeout=5000: the journal mode changed during the trials (delete -> wal in 1 of 2 trials): the workload's SQL switched it"), "{w:?}");
        assert!(
            w[0].ends_with("give --knob journal_mode=wal to measure one throughout"),
            "{w:?}"
        );
        assert!(warnings(&m, &[trial(1, false, false)]).is_empty());
    }
}
