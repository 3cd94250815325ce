//! `litebench compare A B`: B against the baseline A, with every manifest difference above the
//! figures. Exit 0 when nothing regressed, 1 when B is significantly slower beyond the noise
//! threshold somewhere, 2 on bad input.

use crate::app::cli::CompareArgs;
use crate::base::Failure;
use crate::report::compare::{compare, Side};
use crate::report::format::render;
use crate::report::stored::open_store;
use crate::report::{operations_of, RunWorkload, Statistics};
use crate::store::StoredRun;

/// `RUN` or `RUN:CONFIG`, split at the first `:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRef {
    /// A run id or name ([`crate::store::run_name::RunRef`]).
    pub run: String,
    pub config: Option<String>,
}

/// Parses one side of the command line; `which` is `A` or `B` for messages.
pub fn parse_ref(s: &str, which: &str) -> Result<RunRef, Failure> {
    let (run, config) = match s.split_once(':') {
        Some((r, c)) => (r, Some(c.to_string())),
        None => (s, None),
    };
    let run = run.trim().to_string();
    if run.is_empty() {
        return Err(Failure(format!(
            "{which} `{s}`: expected a run id or name, or RUN:CONFIG (e.g. 3, wal-baseline or 3:1); `litebench show --list` lists the runs"
        )));
    }
    if config.as_deref().is_some_and(|c| c.is_empty()) {
        return Err(Failure(format!(
            "{which} `{s}`: missing configuration after `:`; give its index or exact label"
        )));
    }
    Ok(RunRef { run, config })
}

/// The configuration a `RUN:CONFIG` names: its index, or an exact label.
fn resolve(r: &RunRef, run: &StoredRun, which: &str) -> Result<Option<usize>, Failure> {
    let Some(c) = &r.config else { return Ok(None) };
    let cfgs = &run.manifest.configs;
    if let Ok(i) = c.trim().parse::<usize>() {
        if i < cfgs.len() {
            return Ok(Some(i));
        }
        return Err(Failure(format!(
            "{which} {}:{c}: run {} has configurations 0 to {}",
            r.run,
            r.run,
            cfgs.len().saturating_sub(1)
        )));
    }
    cfgs.iter()
        .find(|x| x.label == *c)
        .map(|x| Some(x.index))
        .ok_or_else(|| {
            let labels: Vec<String> = cfgs.iter().map(|x| format!("{} `{}`", x.index, x.label)).collect();
            Failure(format!(
                "{which} {}:{c}: no configuration with that label; run {} has {}",
                r.run,
                r.run,
                labels.join(", ")
            ))
        })
}

/// Runs the `compare` subcommand.
pub fn run(args: &CompareArgs) -> Result<i32, Failure> {
    let ra = parse_ref(&args.a, "A")?;
    let rb = parse_ref(&args.b, "B")?;
    if ra.config.is_some() != rb.config.is_some() {
        return Err(Failure(
            "compare: give both sides as runs (3 5) or both as configurations (3:0 5:1)".into(),
        ));
    }
    let (mut store, path) = open_store(&args.stored.results.value)?;
    crate::report::exports::check(&args.stored.exports, &path, &[])?;
    let id_a = store.resolve_word(&ra.run)?;
    let id_b = store.resolve_word(&rb.run)?;
    let run_a = store.load(Some(id_a))?;
    let run_b = store.load(Some(id_b))?;
    let ca = resolve(&ra, &run_a, "A")?;
    let cb = resolve(&rb, &run_b, "B")?;
    let (ma, mb) = (&run_a.manifest, &run_b.manifest);
    if !args.force {
        if ma.workload != mb.workload {
            return Err(Failure(format!(
                "compare: A ran workload {} and B ran {}; their figures are not comparable (--force compares anyway)",
                ma.workload, mb.workload
            )));
        }
        if ma.params != mb.params {
            let differing: Vec<String> = ma
                .params
                .0
                .iter()
                .filter(|(k, v)| mb.params.0.get(*k) != Some(*v))
                .map(|(k, _)| k.clone())
                .chain(mb.params.0.keys().filter(|k| !ma.params.0.contains_key(*k)).cloned())
                .collect();
            return Err(Failure(format!(
                "compare: A and B ran {} with different parameters ({}); --force compares anyway",
                ma.workload,
                differing.join(", ")
            )));
        }
    }
    let metric = crate::report::compare::metric_for(ma, mb, args.metric);
    let stats = Statistics::of(ma, args.stored.noise.value);
    let mut ops = operations_of(ma, RunWorkload::of(ma), &run_a.trials);
    for o in operations_of(mb, RunWorkload::of(mb), &run_b.trials) {
        if !ops.contains(&o) {
            ops.push(o);
        }
    }
    fn side(run: &StoredRun, config: Option<usize>) -> Side<'_> {
        Side {
            run: run.id,
            name: run.name.clone(),
            status: run.status.clone(),
            config,
            manifest: &run.manifest,
            trials: &run.trials,
        }
    }
    let c = compare(side(&run_a, ca), side(&run_b, cb), metric, stats, &ops);
    let doc = c.document();
    crate::report::exports::write(&args.stored.exports, &|f| render(&doc, f))?;
    crate::out!("{}", render(&doc, args.stored.format.value));
    Ok(if c.regressions > 0 { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_refs() {
        assert_eq!(
            parse_ref("3", "A").unwrap(),
            RunRef {
                run: "3".into(),
                config: None
            }
        );
        assert_eq!(
            parse_ref("wal-baseline:1", "A").unwrap(),
            RunRef {
                run: "wal-baseline".into(),
                config: Some("1".into())
            }
        );
        assert_eq!(
            parse_ref("3:sqlite journal_mode=wal", "A").unwrap(),
            RunRef {
                run: "3".into(),
                config: Some("sqlite journal_mode=wal".into())
            }
        );
        // Split at the first colon only: labels of loaded builds contain colons.
        assert_eq!(
            parse_ref("4:sqlite:/lib.so defaults", "B").unwrap().config.as_deref(),
            Some("sqlite:/lib.so defaults")
        );
        assert!(parse_ref(":1", "A").unwrap_err().0.contains("A `:1`"));
        assert!(parse_ref("3:", "B").unwrap_err().0.contains("missing configuration"));
    }
}
