//! Whether each configuration's commit waited for its sync, and the warning beside a
//! cross-engine answer when they differ.
//!
//! SQLite in WAL mode with `synchronous=normal` (Rails 8's setting) returns from a commit
//! before the WAL is synced, so the last commits can be lost on power loss; PostgreSQL with
//! `synchronous_commit=on` (its default) syncs every commit before it returns. A comparison of
//! the two compares different promises, and a faster commit that promises less is not the
//! answer a reader came for. The settings are read back from each configuration's first
//! measured trial (what the engine reported, not what was asked), and the warning names the
//! knob that would make each side promise what the other does.

use crate::model::record::{Manifest, TrialRecord};

/// What a configuration's commit promises.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Promise {
    /// The commit returned only after its sync.
    synced: bool,
    /// The settings that decide it, as read back: `synchronous=normal (WAL)`.
    settings: String,
    /// The knob that would make the commit promise the other thing.
    flip: &'static str,
}

/// A knob's value as read back in `t`.
fn effective<'t>(t: &'t TrialRecord, name: &str) -> Option<&'t str> {
    t.knobs
        .iter()
        .find(|k| k.name == name)
        .and_then(|k| k.effective.as_deref())
        .map(str::trim)
}

/// The promise of a configuration of engine kind `kind` from its trial's readings; none for an
/// engine whose commit this does not know, or whose settings were not read back.
fn promise(kind: &str, t: &TrialRecord) -> Option<Promise> {
    match kind {
        "sqlite" | "libsql" => {
            let sync = effective(t, "synchronous")?.to_ascii_lowercase();
            let wal = effective(t, "journal_mode").is_some_and(|j| j.eq_ignore_ascii_case("wal"));
            let mode = if wal { "WAL" } else { "rollback journal" };
            let synced = matches!(sync.as_str(), "2" | "3" | "full" | "extra");
            let name = match sync.as_str() {
                "0" => "off",
                "1" => "normal",
                "2" => "full",
                "3" => "extra",
                other => other,
            };
            Some(Promise {
                synced,
                settings: format!("synchronous={name} ({mode})"),
                flip: if synced {
                    "synchronous=normal"
                } else {
                    "synchronous=full"
                },
            })
        }
        "postgres" => {
            let commit = effective(t, "synchronous_commit")?.to_ascii_lowercase();
            let fsync = effective(t, "fsync").is_none_or(|f| !f.eq_ignore_ascii_case("off"));
            let synced = fsync && commit != "off";
            Some(Promise {
                synced,
                settings: if fsync {
                    format!("synchronous_commit={commit}")
                } else {
                    "fsync=off".into()
                },
                flip: if synced {
                    "synchronous_commit=off"
                } else {
                    "synchronous_commit=on"
                },
            })
        }
        "mysql" | "mariadb" => {
            let flush = effective(t, "innodb_flush_log_at_trx_commit")?;
            let synced = flush == "1";
            Some(Promise {
                synced,
                settings: format!("innodb_flush_log_at_trx_commit={flush}"),
                flip: if synced {
                    "innodb_flush_log_at_trx_commit=2"
                } else {
                    "innodb_flush_log_at_trx_commit=1"
                },
            })
        }
        _ => None,
    }
}

/// What configuration `config`'s commit promises, in words: `syncs every commit before it
/// returns (synchronous_commit=on)`; none where its engine or readings do not tell.
pub fn described(m: &Manifest, trials: &[TrialRecord], config: usize) -> Option<String> {
    let (_, p) = config_promise(m, trials, config)?;
    Some(if p.synced {
        format!("syncs every commit before it returns ({})", p.settings)
    } else {
        format!("returns from a commit before it is synced ({})", p.settings)
    })
}

/// The engine kind of `engine` (a configuration's `--engine` label) in `m`.
fn kind_of(m: &Manifest, engine: &str) -> String {
    m.engines
        .iter()
        .find(|e| e.label == engine)
        .map_or(engine.to_string(), |e| e.kind.clone())
}

/// Configuration `config`'s engine kind and its commit's promise, from its first measured
/// trial's readings (a warm-up's where none was measured).
fn config_promise(m: &Manifest, trials: &[TrialRecord], config: usize) -> Option<(String, Promise)> {
    let c = m.configs.iter().find(|c| c.index == config)?;
    let kind = kind_of(m, &c.engine);
    let t = trials
        .iter()
        .find(|t| t.config == config && !t.warmup)
        .or_else(|| trials.iter().find(|t| t.config == config))?;
    let p = promise(&kind, t)?;
    Some((kind, p))
}

/// The warning for a run whose configurations span engines and whose commits do not all
/// promise the same: none otherwise.
pub fn warning(m: &Manifest, trials: &[TrialRecord]) -> Option<String> {
    let mut kinds: Vec<String> = m.configs.iter().map(|c| kind_of(m, &c.engine)).collect();
    kinds.sort();
    kinds.dedup();
    if kinds.len() < 2 {
        return None;
    }
    let promises: Vec<(usize, String, Promise)> = m
        .configs
        .iter()
        .filter_map(|c| Some((c.index, c.engine.clone(), config_promise(m, trials, c.index)?.1)))
        .collect();
    let (synced, not): (Vec<_>, Vec<_>) = promises.iter().partition(|p| p.2.synced);
    if synced.is_empty() || not.is_empty() {
        return None;
    }
    let list = |ps: &[&(usize, String, Promise)]| {
        ps.iter()
            .map(|(i, e, p)| format!("#{i} {e} {}", p.settings))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let knobs = |ps: &[&(usize, String, Promise)]| {
        let mut k: Vec<&str> = ps.iter().map(|p| p.2.flip).collect();
        k.dedup();
        k.iter().map(|k| format!("--knob {k}")).collect::<Vec<_>>().join(" / ")
    };
    Some(format!(
        "Durability differs: {} return from a commit before it is synced (the last commits can be lost on power loss), while {} sync every commit before it returns; to compare like with like, give {} to the first or {} to the second.",
        list(&not),
        list(&synced),
        knobs(&not),
        knobs(&synced)
    ))
}

/// One side of a comparison: a run's manifest, its trials and the configuration compared.
pub type Side<'a> = (&'a Manifest, &'a [TrialRecord], usize);

/// The warning beside `compare` of configuration `a` of one run with `b` of another, on
/// engines of different kinds whose commits promise differently; none otherwise (one engine's
/// settings are in the table of what differs).
pub fn pair_warning(a: Side<'_>, b: Side<'_>) -> Option<String> {
    let side = |(m, trials, config): Side<'_>| {
        let engine = &m.configs.iter().find(|c| c.index == config)?.engine;
        let (kind, p) = config_promise(m, trials, config)?;
        Some((kind, format!("#{config} {engine}"), p))
    };
    let (kind_a, name_a, pa) = side(a)?;
    let (kind_b, name_b, pb) = side(b)?;
    if kind_a == kind_b || pa.synced == pb.synced {
        return None;
    }
    let a = (format!("A {name_a}"), pa);
    let b = (format!("B {name_b}"), pb);
    let (not, synced) = if a.1.synced { (b, a) } else { (a, b) };
    Some(format!(
        "durability differs: {} returns from a commit before it is synced ({}; the last commits can be lost on power loss), while {} syncs every commit before it returns ({}); to compare like with like, run the first with --knob {} or the second with --knob {}",
        not.0, not.1.settings, synced.0, synced.1.settings, not.1.flip, synced.1.flip
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::knob::KnobReading;

    fn trial(config: usize, knobs: &[(&str, &str)]) -> TrialRecord {
        TrialRecord {
            config,
            knobs: knobs
                .iter()
                .map(|(n, v)| KnobReading {
                    name: n.to_string(),
                    requested: None,
                    effective: Some(v.to_string()),
                    note: None,
                })
                .collect(),
            ..TrialRecord::default()
        }
    }

    fn manifest(engines: &[&str]) -> Manifest {
        let mut m = crate::store::tests::manifest();
        m.engines.clear();
        m.configs = engines
            .iter()
            .enumerate()
            .map(|(i, e)| crate::model::record::ConfigInfo {
                index: i,
                engine: e.to_string(),
                knobs: Default::default(),
                label: e.to_string(),
                knob_origins: Vec::new(),
                fs: None,
                scheduler: None,
                scheduler_device: None,
                storage: None,
                load: None,
                extension: None,
                driver: None,
                role_drivers: Vec::new(),
            })
            .collect();
        m
    }

    /// Issue 46, item 24: SQLite in WAL with synchronous=normal against PostgreSQL with
    /// synchronous_commit=on is warned of, with the knob that makes each side like the other;
    /// equal promises, and one engine, are not.
    #[test]
    fn a_cross_engine_run_whose_commits_promise_differently_is_warned_of() {
        let m = manifest(&["sqlite", "postgres"]);
        let wal_normal = trial(0, &[("journal_mode", "wal"), ("synchronous", "1")]);
        let pg_on = trial(1, &[("synchronous_commit", "on"), ("fsync", "on")]);
        let w = warning(&m, &[wal_normal.clone(), pg_on.clone()]).expect("a warning");
        assert!(w.contains("#0 sqlite synchronous=normal (WAL)"), "{w}");
        assert!(w.contains("#1 postgres synchronous_commit=on"), "{w}");
        assert!(
            w.contains("--knob synchronous=full") && w.contains("--knob synchronous_commit=off"),
            "{w}"
        );
        let wal_full = trial(0, &[("journal_mode", "wal"), ("synchronous", "2")]);
        assert_eq!(warning(&m, &[wal_full, pg_on]), None, "both sync every commit");
        let one = manifest(&["sqlite", "sqlite"]);
        let full = trial(1, &[("journal_mode", "wal"), ("synchronous", "2")]);
        assert_eq!(
            warning(&one, &[wal_normal, full]),
            None,
            "one engine: the table says it"
        );
    }

    /// Issue 46, item 24, in `compare`: a SQLite run against a PostgreSQL run is warned of
    /// when their commits promise differently, whichever side is which; the same promise is not.
    #[test]
    fn compare_of_runs_on_two_engines_whose_commits_differ_is_warned_of() {
        let sqlite = manifest(&["sqlite"]);
        let pg = manifest(&["postgres"]);
        let normal = [trial(0, &[("journal_mode", "wal"), ("synchronous", "normal")])];
        let on = [trial(0, &[("synchronous_commit", "on")])];
        let w = pair_warning((&sqlite, &normal, 0), (&pg, &on, 0)).expect("a warning");
        assert!(
            w.starts_with(
                "durability differs: A #0 sqlite returns from a commit before it is synced (synchronous=normal (WAL);"
            ),
            "{w}"
        );
        assert!(
            w.contains("while B #0 postgres syncs every commit before it returns (synchronous_commit=on)"),
            "{w}"
        );
        assert!(
            w.ends_with("run the first with --knob synchronous=full or the second with --knob synchronous_commit=off"),
            "{w}"
        );
        let w = pair_warning((&pg, &on, 0), (&sqlite, &normal, 0)).expect("either way round");
        assert!(
            w.contains("B #0 sqlite returns") && w.contains("while A #0 postgres"),
            "{w}"
        );
        let full = [trial(0, &[("journal_mode", "wal"), ("synchronous", "full")])];
        assert_eq!(pair_warning((&sqlite, &full, 0), (&pg, &on, 0)), None);
        assert_eq!(
            pair_warning((&sqlite, &normal, 0), (&sqlite, &full, 0)),
            None,
            "one engine"
        );
    }
}
