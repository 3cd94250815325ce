//! `litebench run`: validate everything, then run, store and report.
//!
//! A run is one workload with one set of parameters, its configurations interleaved trial by
//! trial. Presets (`--preset`) add configurations: each preset is a knob set labelled with its
//! name. Presets of the same workload with the same parameters share one run and are
//! interleaved; presets that need another workload or other parameters (the tools of
//! APSys'17 Table 1) become further runs, executed one after the other with the same engines,
//! scratch directory and results store, each stored as its own run, and compared at the end.

use super::{now_rfc3339, Failure, EXIT_INTERRUPTED};
use crate::checklist::checklist;
use crate::cli::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::engines::sqlite::engine::SqliteChoice;
use crate::engines::Engine;
use crate::knob::{configurations, parse_axis, KnobAxis, KnobCatalog, KnobError, KnobSet};
use crate::pivot::side_by_side;
use crate::preset::{self, Group, Pick};
use crate::render::{csv_rows, render, table, warnings, Format, Report, RunHeader};
use crate::result::{ConfigInfo, Manifest, ProcessSyncs, TemplateRecord, TrialRecord};
use crate::runner::{self, Plan, RunEnd, RunError, Sink};
use crate::scratch::{Scratch, HARNESS_SYNCS};
use crate::store::{self, Store};
use crate::summary::{spread, summarize_run, SummaryRow};
use crate::workload::params::Params;
use crate::workload::{self, params, Workload};
use std::io::IsTerminal;
use std::path::Path;
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

/// One stored run: a workload, its parameters and the knob sets to interleave.
struct Job {
    workload: &'static dyn Workload,
    params: Params,
    /// Knob sets in run order, each with the preset it belongs to (none without presets).
    sets: Vec<(Option<Pick>, KnobSet)>,
}

/// The workload a run names, or the one-line error listing the valid ones.
fn find_workload(name: &str) -> Result<&'static dyn Workload, Failure> {
    workload::find(name).ok_or_else(|| {
        let names: Vec<&str> = workload::all().iter().map(|w| w.name()).collect();
        Failure(format!(
            "unknown workload `{name}`; valid workloads: {}",
            names.join(", ")
        ))
    })
}

fn param_name(arg: &str) -> &str {
    arg.split_once('=').map_or(arg, |(n, _)| n).trim()
}

/// Parameters of a job: the preset's values, overridden by `--param` flags. In a run of
/// several workloads a `--param` applies to the workloads that have it.
fn job_params(wl: &dyn Workload, pick: Option<&Pick>, user: &[String], several: bool) -> Result<Params, Failure> {
    let user: Vec<String> = user
        .iter()
        .filter(|a| !several || !a.contains('=') || wl.params().iter().any(|s| s.name == param_name(a)))
        .cloned()
        .collect();
    let mut args: Vec<String> = pick
        .map(|p| p.params())
        .unwrap_or_default()
        .iter()
        .filter(|s| !user.iter().any(|u| param_name(u) == s.name))
        .map(|s| format!("{}={}", s.name, s.value))
        .collect();
    args.extend(user);
    let params = params::resolve(wl.name(), wl.params(), &args)?;
    wl.check(&params).map_err(Failure)?;
    Ok(params)
}

/// Validates the workload, presets and parameters and groups presets into jobs (knob sets are
/// filled in once the engines' knob tables are known).
fn plan_jobs(args: &RunArgs, picks: &[Pick]) -> Result<Vec<Job>, Failure> {
    if picks.is_empty() {
        let Some(name) = &args.workload else {
            let names: Vec<&str> = workload::all().iter().map(|w| w.name()).collect();
            return Err(Failure(format!(
                "missing workload: name one ({}) or give --preset NAME ({})",
                names.join(", "),
                preset::valid_names()
            )));
        };
        let wl = find_workload(name)?;
        let params = job_params(wl, None, &args.params, false)?;
        return Ok(vec![Job {
            workload: wl,
            params,
            sets: Vec::new(),
        }]);
    }
    if let Some(name) = &args.workload {
        let wl = find_workload(name)?;
        if let Some(p) = picks.iter().find(|p| p.preset.workload != wl.name()) {
            return Err(Failure(format!(
                "--preset {} runs workload {}, not {}; leave out the workload or pick presets of {}",
                p.preset.name,
                p.preset.workload,
                wl.name(),
                wl.name()
            )));
        }
    }
    let workloads: Vec<&'static dyn Workload> = picks
        .iter()
        .map(|p| find_workload(p.preset.workload))
        .collect::<Result<_, _>>()?;
    let several = workloads.iter().any(|w| w.name() != workloads[0].name());
    if several {
        // Every --param must belong to at least one workload of the run.
        for a in &args.params {
            let n = param_name(a);
            if a.contains('=') && !workloads.iter().any(|w| w.params().iter().any(|s| s.name == n)) {
                let mut ws: Vec<&str> = workloads.iter().map(|w| w.name()).collect();
                ws.sort_unstable();
                ws.dedup();
                return Err(Failure(format!(
                    "--param {n}: none of this run's workloads ({}) has such a parameter; see litebench list",
                    ws.join(", ")
                )));
            }
        }
    }
    let mut jobs: Vec<Job> = Vec::new();
    for (pick, wl) in picks.iter().zip(&workloads) {
        let params = job_params(*wl, Some(pick), &args.params, several)?;
        let set = (Some(*pick), KnobSet::default());
        match jobs
            .iter_mut()
            .find(|j| j.workload.name() == wl.name() && j.params == params)
        {
            Some(j) => j.sets.push(set),
            None => jobs.push(Job {
                workload: *wl,
                params,
                sets: vec![set],
            }),
        }
    }
    Ok(jobs)
}

/// The knob axes of one configuration family: a preset's values (single-valued axes),
/// replaced or extended by the `--knob` axes.
fn merged_axes(pick: Option<&Pick>, user: &[KnobAxis], catalog: &KnobCatalog<'_>) -> Result<Vec<KnobAxis>, Failure> {
    let mut axes: Vec<KnobAxis> = Vec::new();
    if let Some(p) = pick {
        for k in p.preset.knobs {
            match parse_axis(&format!("{}={}", k.name, k.value), catalog) {
                Ok(a) => axes.push(a),
                // A SQLite knob on a run of engines without it: it does not apply.
                Err(KnobError::Unknown { .. }) => {}
                Err(e) => return Err(Failure(format!("preset {}: {e}", p.preset.name))),
            }
        }
    }
    for u in user {
        match axes.iter_mut().find(|a| a.name == u.name) {
            Some(a) => *a = u.clone(),
            None => axes.push(u.clone()),
        }
    }
    Ok(axes)
}

/// What stays the same across the jobs of a run.
struct Context<'a> {
    args: &'a RunArgs,
    scratch: &'a Scratch,
    stop: &'a AtomicBool,
    results_path: &'a Path,
    environment: &'a litebench_env::Environment,
    sync_latency: &'a Option<litebench_env::SyncLatency>,
    /// Render each job's report now (one job, or a text format).
    print_each: bool,
}

/// How one job ended, with what the comparison and the multi-run output need.
struct JobEnd {
    run_id: i64,
    code: i32,
    error: Option<String>,
    /// Measured trials kept.
    kept: usize,
    /// Trials stored, warm-ups included.
    stored: usize,
    manifest: Manifest,
    summary: Vec<SummaryRow>,
    /// Configuration index to the preset it measured.
    presets: Vec<Option<Pick>>,
    /// Configuration index to every preset it stands for (`a+b` when they coincide).
    preset_names: Vec<String>,
    json: Option<serde_json::Value>,
}

fn run_job(
    ctx: &Context<'_>,
    store: &mut Store,
    job: &Job,
    engines: Vec<Box<dyn Engine>>,
) -> Result<(JobEnd, Vec<Box<dyn Engine>>), Failure> {
    let args = ctx.args;
    let wl = job.workload;
    let named = job.sets.iter().any(|(p, _)| p.is_some());
    // (engine index, knob set, preset names, first preset) per configuration.
    let mut entries: Vec<(usize, KnobSet, Vec<&'static str>, Option<Pick>)> = Vec::new();
    for (ei, e) in engines.iter().enumerate() {
        // Each engine gets the knobs it understands; configurations that become identical for
        // it (a knob it does not have) are run once. Presets whose knobs an engine does not
        // have (SQLite presets on a server) become one configuration named after all of them.
        for (pick, ks) in &job.sets {
            let ks = ks.for_engine(e.knob_specs(), e.passthrough_prefix());
            match entries.iter_mut().find(|(i, k, _, _)| *i == ei && *k == ks) {
                Some((_, _, names, _)) => {
                    if let Some(p) = pick {
                        if !names.contains(&p.preset.name) {
                            names.push(p.preset.name);
                        }
                    }
                }
                None => entries.push((ei, ks, pick.iter().map(|p| p.preset.name).collect(), *pick)),
            }
        }
    }
    let mut configs = Vec::new();
    let mut presets = Vec::new();
    let mut preset_names = Vec::new();
    for (ei, ks, names, pick) in entries {
        preset_names.push(names.join("+"));
        let e = &engines[ei];
        let mut label = ks.label();
        if !names.is_empty() {
            label = format!("{} {label}", names.join("+"));
        }
        if engines.len() > 1 {
            label = format!("{} {label}", e.label());
        }
        configs.push((
            ConfigInfo {
                index: configs.len(),
                engine: e.label().to_string(),
                knobs: ks,
                label,
            },
            ei,
        ));
        presets.push(pick);
    }
    let manifest = Manifest {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        command: crate::engines::server::redact_command(
            &std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
        ),
        started_at: now_rfc3339(),
        workload: wl.name().to_string(),
        workload_source: wl.source().to_string(),
        params: job.params.clone(),
        seed: args.seed,
        trials: args.trials,
        warmup: args.warmup,
        cold_cache: args.cold,
        in_memory: args.memory,
        engines: engines.iter().map(|e| e.info()).collect(),
        configs: configs.iter().map(|(c, _)| c.clone()).collect(),
        environment: ctx.environment.clone(),
        sync_latency: ctx.sync_latency.clone(),
        scratch_dir: ctx.scratch.dir().display().to_string(),
    };
    let syncs_before: u64 = engines
        .iter()
        .filter_map(|e| e.io_counters())
        .map(|c| c.snapshot().sync_syscalls())
        .sum();
    let harness_before = HARNESS_SYNCS.load(Ordering::Relaxed);
    let run_id = store.begin_run(&manifest)?;
    let mut plan = Plan {
        workload: wl,
        params: job.params.clone(),
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
        let template = if named {
            "{prefix} {bar:30} {pos}/{len} trials {elapsed_precise} {msg}"
        } else {
            "{bar:30} {pos}/{len} trials {elapsed_precise} {msg}"
        };
        p.set_style(indicatif::ProgressStyle::with_template(template).expect("static template"));
        p.set_prefix(wl.name());
        p
    };
    let mut sink = StoreSink {
        store,
        run_id,
        templates: Vec::new(),
        trials: Vec::new(),
    };
    let outcome = runner::execute(&plan, ctx.scratch, ctx.stop, &progress, &mut sink);
    let StoreSink {
        store,
        templates,
        trials,
        ..
    } = sink;
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
            .sum::<u64>()
            - syncs_before,
        harness: HARNESS_SYNCS.load(Ordering::Relaxed) - harness_before,
    };

    // Report what was measured, even after an error.
    let ops: Vec<String> = wl.operations().iter().map(|s| s.to_string()).collect();
    let summary = summarize_run(&manifest, &trials, &ops);
    let mut json = None;
    if !trials.is_empty() || error.is_none() {
        let report = Report {
            run: RunHeader {
                id: run_id,
                status: status.into(),
                error: error.clone(),
                finished_at: Some(finished_at),
                results: ctx.results_path.display().to_string(),
            },
            checklist: checklist(&manifest, &trials),
            spread: spread(&summary),
            warnings: warnings(&manifest, &trials, &summary, status),
            summary: summary.clone(),
            manifest: &manifest,
            process_syncs: Some(process_syncs),
            side_by_side: (manifest.configs.len() > 1).then(|| side_by_side(&manifest, &trials, &ops, wl.metric(), 0)),
            footprint: &templates,
            trials: &trials,
        };
        if ctx.print_each {
            crate::out!("{}", render(&report, args.format));
        } else if args.format == Format::Json {
            json = Some(serde_json::to_value(&report).map_err(|e| Failure(format!("report: {e}")))?);
        }
    }
    stored?;
    let engines = std::mem::take(&mut plan.engines);
    Ok((
        JobEnd {
            run_id,
            code,
            error,
            kept: trials.iter().filter(|t| !t.warmup).count(),
            stored: trials.len(),
            manifest,
            summary,
            presets,
            preset_names,
            json,
        },
        engines,
    ))
}

/// Runs the `run` subcommand.
pub fn run(args: &RunArgs) -> Result<i32, Failure> {
    // 1. Validate everything before anything runs.
    let (picks, groups) = preset::resolve(&args.presets).map_err(Failure)?;
    let mut jobs = plan_jobs(args, &picks)?;
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
    let user_axes = args
        .knobs
        .iter()
        .map(|k| parse_axis(k, &catalog))
        .collect::<Result<Vec<_>, _>>()?;
    // Duplicate --knob flags are refused before presets are merged in.
    configurations(&user_axes, false)?;
    for job in &mut jobs {
        if job.sets.is_empty() {
            job.sets = configurations(&user_axes, args.vary_one)?
                .into_iter()
                .map(|ks| (None, ks))
                .collect();
            continue;
        }
        let mut sets = Vec::new();
        for (pick, _) in &job.sets {
            let axes = merged_axes(pick.as_ref(), &user_axes, &catalog)?;
            for ks in configurations(&axes, args.vary_one)? {
                sets.push((*pick, ks));
            }
        }
        job.sets = sets;
    }
    if args.vary_one && user_axes.is_empty() {
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
    if environment.storage.ram_backed && !args.memory {
        crate::errln!(
            "warning: {} is on a RAM filesystem: syncs cost nothing there, so durability numbers mean nothing",
            scratch.dir().display()
        );
    }

    // 3. Run each job, storing each trial as it finishes.
    let several = jobs.len() > 1;
    let ctx = Context {
        args,
        scratch: &scratch,
        stop: &stop,
        results_path: &results_path,
        environment: &environment,
        sync_latency: &sync_latency,
        print_each: !several || matches!(args.format, Format::Table | Format::Markdown),
    };
    let mut store = Store::open(&results_path, args.results.is_some())?;
    let mut ends: Vec<JobEnd> = Vec::new();
    for job in &jobs {
        if several && stop.load(Ordering::Relaxed) {
            break;
        }
        let (end, back) = run_job(&ctx, &mut store, job, engines)?;
        engines = back;
        let done = end.code != 0;
        ends.push(end);
        if done {
            break;
        }
    }
    drop(engines);
    drop(scratch);

    // 4. Compare presets; for several runs in JSON or CSV, print everything together.
    let compared = picks.len() > 1 || !groups.is_empty();
    match args.format {
        Format::Table | Format::Markdown if compared => {
            crate::out!("{}", comparison_text(&ends, &groups, args.format == Format::Markdown));
        }
        Format::Json if several => {
            let v = serde_json::json!({
                "runs": ends.iter().filter_map(|e| e.json.clone()).collect::<Vec<_>>(),
                "presets": comparison_rows(&ends),
            });
            crate::outln!("{}", serde_json::to_string_pretty(&v).expect("json"));
        }
        Format::Csv if several => {
            let rows: Vec<SummaryRow> = ends.iter().flat_map(|e| e.summary.iter().cloned()).collect();
            crate::out!("{}", csv_rows(&rows));
        }
        _ => {}
    }
    let Some(last) = ends.last() else {
        return Ok(EXIT_INTERRUPTED);
    };
    if let Some(e) = &last.error {
        return Err(Failure(format!(
            "{e} (run {}: {} finished trials kept in {})",
            last.run_id,
            last.kept,
            results_path.display()
        )));
    }
    let interrupted = last.code == EXIT_INTERRUPTED || ends.len() < jobs.len();
    if interrupted {
        let kept: usize = ends.iter().map(|e| e.stored).sum();
        let ids: Vec<String> = ends.iter().map(|e| e.run_id.to_string()).collect();
        crate::errln!(
            "interrupted: {kept} finished trials kept as run {} in {}",
            ids.join(", "),
            results_path.display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(last.code)
}

/// One row of the preset comparison: a preset's headline operation.
#[derive(Debug, Clone, serde::Serialize)]
struct ComparisonRow {
    preset: String,
    /// Every preset the configuration stands for.
    presets: String,
    workload: String,
    run: i64,
    config: usize,
    engine: String,
    operation: String,
    knobs: String,
    trials: usize,
    tps_median: f64,
    tps_ci95_low: Option<f64>,
    tps_ci95_high: Option<f64>,
    time_ms_median: f64,
    /// None for engines whose I/O litebench does not count.
    syncs_per_tx: Option<f64>,
}

fn comparison_rows(ends: &[JobEnd]) -> Vec<ComparisonRow> {
    let mut out = Vec::new();
    for e in ends {
        for (ci, pick) in e.presets.iter().enumerate() {
            let Some(pick) = pick else { continue };
            let cfg = &e.manifest.configs[ci];
            let op = pick.preset.headline;
            let Some(r) = e.summary.iter().find(|r| r.config == ci && r.operation == op) else {
                continue;
            };
            out.push(ComparisonRow {
                preset: pick.preset.name.to_string(),
                presets: e.preset_names[ci].clone(),
                workload: e.manifest.workload.clone(),
                run: e.run_id,
                config: ci,
                engine: cfg.engine.clone(),
                operation: op.to_string(),
                knobs: cfg.knobs.label(),
                trials: r.trials,
                tps_median: r.tps_median,
                tps_ci95_low: r.tps_ci95_low,
                tps_ci95_high: r.tps_ci95_high,
                time_ms_median: r.time_ms_median,
                syncs_per_tx: r.io_counted.then_some(r.syncs_per_tx),
            });
        }
    }
    out
}

fn num(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn ci(r: &ComparisonRow) -> String {
    match (r.tps_ci95_low, r.tps_ci95_high) {
        (Some(l), Some(h)) => format!("{}..{}", num(l), num(h)),
        _ => "-".into(),
    }
}

/// The comparison of the presets measured, and each group's paper table beside the measurement.
fn comparison_text(ends: &[JobEnd], groups: &[&Group], md: bool) -> String {
    let rows = comparison_rows(ends);
    if rows.is_empty() {
        return String::new();
    }
    let h = |s: &str| if md { format!("## {s}\n\n") } else { format!("{s}\n") };
    let mut out = String::from("\n");
    out += &h("presets compared (median of trials; each preset's headline operation)");
    let engines = rows.iter().any(|r| r.engine != rows[0].engine);
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                if engines {
                    format!("{} ({})", r.presets, r.engine)
                } else {
                    r.presets.clone()
                },
                format!("{} #{}", r.run, r.config),
                r.operation.clone(),
                num(r.tps_median),
                ci(r),
                num(r.time_ms_median),
                r.syncs_per_tx.map_or("-".into(), num),
                r.knobs.clone(),
            ]
        })
        .collect();
    out += &table(
        &[
            "preset",
            "run #cfg",
            "operation",
            "tx/s",
            "95% CI",
            "ms/trial",
            "syncs/tx",
            "knobs",
        ],
        &body,
        md,
    );
    for g in groups {
        out += "\n";
        out += &h(&format!("{}: {}", g.name, g.about));
        // With several engines, the paper's table is drawn for the first one.
        let find = |name: &str| rows.iter().find(|r| r.preset == name && r.engine == rows[0].engine);
        let cell = |name: Option<&str>| -> String {
            match name.and_then(find) {
                Some(r) => format!("{} ({})", num(r.tps_median), ci(r)),
                None => "-".into(),
            }
        };
        let body: Vec<Vec<String>> = g
            .paper
            .iter()
            .map(|p| {
                let ratio = match (find(p.default), p.custom.and_then(find)) {
                    (Some(d), Some(c)) if d.tps_median > 0.0 => format!("{:.2}x", c.tps_median / d.tps_median),
                    _ => "-".into(),
                };
                vec![
                    p.tool.to_string(),
                    cell(Some(p.default)),
                    cell(p.custom),
                    ratio,
                    num(p.paper_default),
                    p.paper_custom.map_or("-".into(), num),
                ]
            })
            .collect();
        out += &table(
            &[
                "tool",
                "default tx/s (95% CI)",
                "custom tx/s (95% CI)",
                "custom/default",
                "paper default",
                "paper custom",
            ],
            &body,
            md,
        );
        out += &format!(
            "paper: {}; here: this machine, {}, the presets' headline operation\n",
            g.paper_unit, rows[0].engine
        );
    }
    out
}
