//! `litebench run`: validate everything, then run, store and report.

use super::{now_rfc3339, Failure, EXIT_INTERRUPTED};
use crate::checklist::checklist;
use crate::cli::RunArgs;
use crate::knob::{configurations, parse_axis, KnobCatalog, KnobSet};
use crate::pivot::side_by_side;
use crate::registry::EngineChoice;
use crate::render::{render, warnings, Report, RunHeader};
use crate::result::{ConfigInfo, Manifest, ProcessSyncs, TemplateRecord, TrialRecord};
use crate::runner::{self, Plan, RunEnd, RunError, Sink};
use crate::scratch::{Scratch, HARNESS_SYNCS};
use crate::sqlite::engine::SqliteChoice;
use crate::store::{self, Store};
use crate::summary::{spread, summarize_run};
use crate::workload::{self, params};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Stores each template and trial the moment it is measured, and keeps them for the report.
struct StoreSink<'a> {
    store: &'a mut Store,
    run_id: i64,
    templates: Vec<TemplateRecord>,
    trials: Vec<TrialRecord>,
}

impl Sink for StoreSink<'_> {
    fn template(&mut self, t: &TemplateRecord) -> Result<(), RunError> {
        self.store
            .add_template(self.run_id, t)
            .map_err(|e| RunError::Store(e.to_string()))?;
        self.templates.push(t.clone());
        Ok(())
    }

    fn trial(&mut self, t: &TrialRecord) -> Result<(), RunError> {
        self.store
            .add_trial(self.run_id, t)
            .map_err(|e| RunError::Store(e.to_string()))?;
        self.trials.push(t.clone());
        Ok(())
    }
}

/// Runs the `run` subcommand.
pub fn run(args: &RunArgs) -> Result<i32, Failure> {
    // 1. Validate everything before anything runs.
    let wl = workload::find(&args.workload).ok_or_else(|| {
        let names: Vec<&str> = workload::all().iter().map(|w| w.name()).collect();
        Failure(format!(
            "unknown workload `{}`; valid workloads: {}",
            args.workload,
            names.join(", ")
        ))
    })?;
    let params = params::resolve(wl.name(), wl.params(), &args.params)?;
    wl.check(&params).map_err(Failure)?;
    let choices = if args.engines.is_empty() {
        vec![EngineChoice::Sqlite(SqliteChoice::Bundled)]
    } else {
        args.engines
            .iter()
            .map(|e| EngineChoice::parse(e))
            .collect::<Result<Vec<_>, _>>()?
    };
    for (i, c) in choices.iter().enumerate() {
        if choices[..i].contains(c) {
            return Err(Failure(format!("--engine {} is given twice", args.engines[i])));
        }
        if args.memory && !c.supports_memory() {
            return Err(Failure(format!(
                "--memory: engine {} has no in-memory mode; leave out --memory",
                args.engines[i]
            )));
        }
    }
    let tables: Vec<_> = choices.iter().map(EngineChoice::knob_table).collect();
    let catalog = KnobCatalog { tables: &tables };
    let axes = args
        .knobs
        .iter()
        .map(|k| parse_axis(k, &catalog))
        .collect::<Result<Vec<_>, _>>()?;
    let knob_sets = configurations(&axes, args.vary_one)?;
    if args.vary_one && axes.is_empty() {
        return Err(Failure(
            "--vary-one needs at least one --knob with several values".into(),
        ));
    }
    if args.cold {
        runner::can_drop_caches()?;
    }
    if args.cold && args.memory {
        return Err(Failure(
            "--cold and --memory together make no sense: an in-memory database has no page cache to drop".into(),
        ));
    }
    let results_path = args.results.clone().unwrap_or_else(store::default_path);
    store::check_path(&results_path, args.results.is_some())?;
    // From here on Ctrl-C is a request to stop cleanly: finished trials are kept, servers stopped,
    // scratch files removed.
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone())
            .map_err(|e| Failure(format!("cannot install the Ctrl-C handler: {e}")))?;
    }
    let scratch = Scratch::create(args.dir.as_deref())?;
    let mut engines = Vec::new();
    for c in &choices {
        engines.push(c.open(&scratch, args.memory)?);
    }

    // 2. Describe the machine and the storage under the scratch directory.
    let environment = litebench_env::capture(scratch.dir())
        .map_err(|e| Failure(format!("--dir {}: {e}", scratch.base().display())))?;
    let sync_latency = if args.memory {
        None
    } else {
        litebench_env::measure_sync_latency(scratch.dir(), 200, Duration::from_millis(500)).ok()
    };
    let mut configs = Vec::new();
    for (ei, e) in engines.iter().enumerate() {
        // Each engine gets the knobs it understands; configurations that become identical for
        // it (a knob it does not have) are run once.
        let mut seen: Vec<KnobSet> = Vec::new();
        for ks in &knob_sets {
            let ks = ks.for_engine(e.knob_specs(), e.passthrough_prefix());
            if seen.contains(&ks) {
                continue;
            }
            seen.push(ks.clone());
            let label = if engines.len() > 1 {
                format!("{} {}", e.label(), ks.label())
            } else {
                ks.label()
            };
            configs.push((
                ConfigInfo {
                    index: configs.len(),
                    engine: e.label().to_string(),
                    knobs: ks,
                    label,
                },
                ei,
            ));
        }
    }
    let manifest = Manifest {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        command: std::env::args().collect(),
        started_at: now_rfc3339(),
        workload: wl.name().to_string(),
        workload_source: wl.source().to_string(),
        params: params.clone(),
        seed: args.seed,
        trials: args.trials,
        warmup: args.warmup,
        cold_cache: args.cold,
        in_memory: args.memory,
        engines: engines.iter().map(|e| e.info()).collect(),
        configs: configs.iter().map(|(c, _)| c.clone()).collect(),
        environment,
        sync_latency,
        scratch_dir: scratch.dir().display().to_string(),
    };
    if manifest.environment.storage.ram_backed && !args.memory {
        eprintln!(
            "warning: {} is on a RAM filesystem: syncs cost nothing there, so durability numbers mean nothing",
            scratch.dir().display()
        );
    }

    // 3. Run, storing each trial as it finishes.
    let mut store = Store::open(&results_path, args.results.is_some())?;
    let run_id = store.begin_run(&manifest)?;
    let plan = Plan {
        workload: wl,
        params,
        engines,
        configs,
        trials: args.trials,
        warmup: args.warmup,
        seed: args.seed,
        cold: args.cold,
        memory: args.memory,
    };
    let total = (plan.configs.len() as u64) * u64::from(args.trials + args.warmup);
    let progress = if args.quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let p = indicatif::ProgressBar::new(total);
        p.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} trials {elapsed_precise} {msg}")
                .expect("static template"),
        );
        p
    };
    let mut sink = StoreSink {
        store: &mut store,
        run_id,
        templates: Vec::new(),
        trials: Vec::new(),
    };
    let outcome = runner::execute(&plan, &scratch, &stop, &progress, &mut sink);
    let StoreSink { templates, trials, .. } = sink;
    progress.finish_and_clear();
    let (status, error, code) = match &outcome {
        Ok(RunEnd::Complete) => ("complete", None, 0),
        Ok(RunEnd::Interrupted) => ("interrupted", None, EXIT_INTERRUPTED),
        Err(e) => ("failed", Some(e.to_string()), 2),
    };
    let finished_at = now_rfc3339();
    let stored = store.finish_run(run_id, status, &finished_at, error.as_deref());
    let process_syncs = ProcessSyncs {
        vfs: plan
            .engines
            .iter()
            .filter_map(|e| e.io_counters())
            .map(|c| c.snapshot().sync_syscalls())
            .sum(),
        harness: HARNESS_SYNCS.load(Ordering::Relaxed),
    };
    drop(scratch);

    // 4. Report what was measured, even after an error.
    let ops: Vec<String> = wl.operations().iter().map(|s| s.to_string()).collect();
    if !trials.is_empty() || error.is_none() {
        let summary = summarize_run(&manifest, &trials, &ops);
        let report = Report {
            run: RunHeader {
                id: run_id,
                status: status.into(),
                error: error.clone(),
                finished_at: Some(finished_at),
                results: results_path.display().to_string(),
            },
            checklist: checklist(&manifest, &trials),
            spread: spread(&summary),
            warnings: warnings(&manifest, &trials, &summary, status),
            summary,
            manifest: &manifest,
            process_syncs: Some(process_syncs),
            side_by_side: (manifest.configs.len() > 1).then(|| side_by_side(&manifest, &trials, &ops, wl.metric(), 0)),
            footprint: &templates,
            trials: &trials,
        };
        print!("{}", render(&report, args.format));
    }
    stored?;
    if let Some(e) = error {
        let kept = trials.iter().filter(|t| !t.warmup).count();
        return Err(Failure(format!(
            "{e} (run {run_id}: {kept} finished trials kept in {})",
            results_path.display()
        )));
    }
    if code == EXIT_INTERRUPTED {
        eprintln!(
            "interrupted: {} finished trials kept as run {run_id} in {}",
            trials.len(),
            results_path.display()
        );
    }
    Ok(code)
}
