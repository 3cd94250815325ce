//! One session of `litebench run`: validate everything, then run, store and report. The command
//! line (`app::run`) and `reproduce` both call [`run`] with typed settings and get back the ids
//! of the runs it stored.
//!
//! A run is one workload with one set of parameters, its configurations interleaved trial by
//! trial. Presets (`--preset`) add configurations: each preset is a knob set labelled with its
//! name. Presets of the same workload with the same parameters share one run and are
//! interleaved; presets that need another workload or other parameters (the tools of
//! APSys'17 Table 1) become further runs, executed one after the other with the same engines,
//! scratch directory and results store, each stored as its own run, and compared at the end.

use crate::base::time::now_rfc3339;
use crate::base::Failure;
use crate::bench::plan::{self, Job, RunPlan};
use crate::bench::runner::{self, Places, Plan, RunEnd, RunError, Sink};
use crate::bench::settings::RunArgs;
use crate::engines::Engine;
use crate::model::knob::KnobSet;
use crate::model::record::FsInfo;
use crate::model::record::{ConfigInfo, Manifest, ProcessSyncs, TemplateRecord, TrialRecord};
use crate::report::summary::SummaryRow;
use crate::report::{self, exports, presets, Format, Input, Report, RunHeader, Statistics, DEFAULT_NOISE};
use crate::store::unsaved::{self, UnsavedRun};
use crate::store::{self, Store, StoreError};
use crate::sys::own_file;
use crate::sys::scratch::{Scratch, HARNESS_SYNCS};
use crate::sys::signals::EXIT_INTERRUPTED;
use crate::testbed::fsmount::Filesystems;
use crate::workload::preset::Pick;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Stores each template and trial the moment it is measured, and keeps them for the report
/// (and for a side file, should the store fail: [`unsaved`]).
struct StoreSink<'a> {
    store: &'a mut Store,
    run_id: i64,
    templates: Vec<TemplateRecord>,
    trials: Vec<TrialRecord>,
    /// Kept in the run's manifest (`Manifest::warnings`).
    warnings: Vec<String>,
    /// The store error that stopped the run; what it could not take is kept in memory.
    failed: Option<StoreError>,
}

impl StoreSink<'_> {
    fn stored(&mut self, r: Result<(), StoreError>) -> Result<(), RunError> {
        r.map_err(|e| {
            let message = e.to_string();
            self.failed = Some(e);
            RunError::Store(message)
        })
    }
}

impl Sink for StoreSink<'_> {
    fn warning(&mut self, message: &str) {
        crate::errln!("warning: {message}");
        self.warnings.push(message.to_string());
    }

    fn template(&mut self, t: &TemplateRecord) -> Result<(), RunError> {
        // Kept first: a template the store cannot take goes to the side file.
        self.templates.push(t.clone());
        let r = self.store.add_template(self.run_id, t);
        self.stored(r)
    }

    fn trial(&mut self, t: &TrialRecord) -> Result<(), RunError> {
        // Kept first: a finished trial the store cannot take goes to the side file.
        self.trials.push(t.clone());
        let r = self.store.add_trial(self.run_id, t);
        self.stored(r)
    }
}

/// What stays the same across the jobs of a run.
struct Context<'a> {
    args: &'a RunArgs,
    scratch: &'a Scratch,
    stop: &'a AtomicBool,
    results_path: &'a Path,
    environment: &'a litebench_env::Environment,
    sync_latency: &'a Option<litebench_env::SyncLatency>,
    sync_latency_not_measured: &'a Option<String>,
    /// `--fs`: the filesystems built for the run (none: configurations run in `scratch`).
    filesystems: Option<&'a Filesystems>,
    /// `--scheduler`: each configuration on a loop device runs under each.
    schedulers: &'a [String],
    /// Inside a `--guest` kernel: what the manifest records about it.
    guest: Option<crate::model::record::GuestInfo>,
    /// `--shard`: the sweep this run belongs to (`plan_job` set per job).
    fleet: Option<crate::model::record::FleetInfo>,
    /// Render each job's report now (one job, or a text format).
    print_each: bool,
    /// The load shape every job runs with.
    load: crate::model::load::LoadShape,
    /// Whether the session compares presets (several, or a group), and its preset groups:
    /// recorded in each run's manifest for later reports.
    compared: bool,
    groups: &'a [&'static crate::workload::preset::Group],
}

/// How one job ended, with what the comparison and the multi-run output need.
struct JobEnd {
    run_id: i64,
    code: i32,
    error: Option<String>,
    /// Measured trials kept.
    kept: usize,
    /// Where they are kept when the store could not take them: the side file.
    side: Option<std::path::PathBuf>,
    /// Trials stored, warm-ups included.
    stored: usize,
    manifest: Manifest,
    summary: Vec<SummaryRow>,
    /// Configuration index to the preset it measured.
    presets: Vec<Option<Pick>>,
    /// Configuration index to every preset it stands for (`a+b` when they coincide).
    preset_names: Vec<String>,
    json: Option<serde_json::Value>,
    /// The report in each `--export` format (none when nothing was reported).
    exported: Vec<(Format, String)>,
}

/// The files a job's workload reads (scripts, init file, log, database), each by name and
/// SHA-256 as the run starts: what `compare` tells two runs' files apart by.
fn workload_files(
    wl: &dyn crate::workload::Workload,
    params: &crate::model::params::Params,
) -> Result<Vec<crate::model::record::WorkloadFile>, Failure> {
    wl.files(params)
        .into_iter()
        .map(|(param, path)| {
            let sha256 = crate::sys::regular::sha256_hex(std::path::Path::new(&path))
                .map_err(|e| Failure(format!("--param {param}={path}: {e}")))?;
            Ok(crate::model::record::WorkloadFile {
                param: param.to_string(),
                path,
                sha256,
            })
        })
        .collect()
}

fn run_job(
    ctx: &Context<'_>,
    store: &mut Store,
    job: &Job,
    plan_job: usize,
    engines: Vec<Box<dyn Engine>>,
) -> Result<(JobEnd, Vec<Box<dyn Engine>>), Failure> {
    let args = ctx.args;
    let wl = job.workload;
    let named = job.sets.iter().any(|(p, _)| p.is_some());
    // (engine index, knob set, preset names, first preset, workload defaults added) per
    // configuration.
    #[allow(clippy::type_complexity)]
    let mut entries: Vec<(usize, KnobSet, Vec<&'static str>, Option<Pick>, Vec<String>)> = Vec::new();
    for (ei, e) in engines.iter().enumerate() {
        // Each engine gets the knobs it understands; configurations that become identical for
        // it (a knob it does not have) are run once. Presets whose knobs an engine does not
        // have (SQLite presets on a server) become one configuration named after all of them.
        for (pick, ks) in &job.sets {
            let ks = ks.for_engine(e.knob_specs(), e.passthrough_prefix());
            let (ks, defaults) = plan::with_workload_defaults(wl, e.knob_specs(), e.passthrough_prefix(), ks);
            match entries.iter_mut().find(|(i, k, _, _, _)| *i == ei && *k == ks) {
                Some((_, _, names, _, _)) => {
                    if let Some(p) = pick {
                        if !names.contains(&p.preset.name) {
                            names.push(p.preset.name);
                        }
                    }
                }
                None => entries.push((ei, ks, pick.iter().map(|p| p.preset.name).collect(), *pick, defaults)),
            }
        }
    }
    let mut configs = Vec::new();
    let mut presets = Vec::new();
    let mut preset_names = Vec::new();
    // Every configuration runs on each filesystem (`--fs`), side by side.
    let fs_infos: Vec<Option<FsInfo>> = match ctx.filesystems {
        Some(f) => (0..f.len()).map(|i| f.info(i).cloned()).collect(),
        None => vec![None],
    };
    for (ei, ks, names, pick, defaults) in entries {
        let e = &engines[ei];
        let mut label = ks.label();
        if !names.is_empty() {
            label = format!("{} {label}", names.join("+"));
        }
        if engines.len() > 1 {
            label = format!("{} {label}", e.label());
        }
        for fs in &fs_infos {
            // Schedulers apply where litebench made a loop device (not tmpfs).
            let scheds: Vec<Option<&String>> = match fs {
                _ if ctx.args.scheduler_device.is_some() => ctx.schedulers.iter().map(Some).collect(),
                Some(f) if f.block_device().is_some() && !ctx.schedulers.is_empty() => {
                    ctx.schedulers.iter().map(Some).collect()
                }
                _ => vec![None],
            };
            for sched in scheds {
                preset_names.push(names.join("+"));
                let mut l = label.clone();
                if let Some(s) = sched {
                    l = format!("{s} {l}");
                }
                if let Some(f) = fs {
                    l = format!("{} {l}", f.spec);
                }
                configs.push((
                    ConfigInfo {
                        index: configs.len(),
                        engine: e.label().to_string(),
                        knob_origins: plan::knob_origins(&ks, pick.as_ref(), &job.user_knobs, wl.name(), &defaults)
                            .into_iter()
                            .chain(plan::begin_as_written(wl, &job.params, e.knob_specs(), &ks))
                            .collect(),
                        knobs: ks.clone(),
                        label: l,
                        fs: fs.clone(),
                        scheduler: sched.cloned(),
                        scheduler_device: sched.and(ctx.args.scheduler_device.clone()),
                    },
                    ei,
                ));
                presets.push(pick);
            }
        }
    }
    let workload_files = workload_files(wl, &job.params)?;
    let mut manifest = Manifest {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        command: crate::engines::server::redact_command(&args.command_line()),
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
        sync_latency_not_measured: ctx.sync_latency_not_measured.clone(),
        scratch_dir: ctx.scratch.dir().display().to_string(),
        statistics: Some(Statistics::new(args.seed, args.noise.value.unwrap_or(DEFAULT_NOISE))),
        warnings: if args.allow_unverified {
            vec!["--allow-unverified: pass-through knobs that read back nothing were not verified".into()]
        } else {
            Vec::new()
        }
        .into_iter()
        .chain(job.warnings.iter().cloned())
        .collect(),
        load: ctx.load.clone(),
        guest: ctx.guest.clone(),
        fleet: ctx.fleet.clone().map(|mut f| {
            f.plan_job = plan_job;
            f
        }),
        workload_files,
        presets: (ctx.compared || named).then(|| crate::model::record::PresetInfo {
            compared: ctx.compared,
            groups: ctx.groups.iter().map(|g| g.name.to_string()).collect(),
            measured: presets.iter().map(|p| p.map(|p| p.preset.name.to_string())).collect(),
            names: preset_names.clone(),
        }),
        stop: job.stop.clone(),
    };
    let syncs_before: u64 = engines
        .iter()
        .filter_map(|e| e.io_counters())
        .map(|c| c.snapshot().sync_syscalls())
        .sum();
    let harness_before = HARNESS_SYNCS.load(Ordering::Relaxed);
    let begun = store.begin_named(&manifest, args.name.as_deref())?;
    let run_id = begun.id;
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
        allow_unverified: args.allow_unverified,
        load: ctx.load.clone(),
    };
    let total = (plan.configs.len() as u64) * u64::from(args.trials + args.warmup);
    let progress = if args.quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let p = indicatif::ProgressBar::new(total);
        let template = if named {
            "{prefix} {bar:30} {pos}/{len} trials, {elapsed_precise} elapsed, {left}, {msg}"
        } else {
            "{bar:30} {pos}/{len} trials, {elapsed_precise} elapsed, {left}, {msg}"
        };
        p.set_style(
            indicatif::ProgressStyle::with_template(template)
                .expect("static template")
                .with_key("left", time_left),
        );
        p.set_prefix(wl.name());
        p
    };
    let mut sink = StoreSink {
        store,
        run_id,
        templates: Vec::new(),
        trials: Vec::new(),
        // The manifest's own warnings stay; the trials' are added to them.
        warnings: manifest.warnings.clone(),
        failed: None,
    };
    let places = Places {
        scratch: ctx.scratch,
        on_fs: match ctx.filesystems {
            Some(f) => (0..f.len())
                .map(|i| f.scratch(i).expect("every --fs filesystem is mounted once built"))
                .collect(),
            None => Vec::new(),
        },
    };
    let outcome = runner::execute(&plan, &places, ctx.stop, &progress, &mut sink);
    let StoreSink {
        store,
        templates,
        trials,
        warnings: after_trials,
        failed,
        ..
    } = sink;
    manifest.warnings = after_trials;
    progress.finish_and_clear();
    let (status, mut error, mut code) = match &outcome {
        Ok(RunEnd::Complete) => ("complete", None, 0),
        Ok(RunEnd::Interrupted) => ("interrupted", None, EXIT_INTERRUPTED),
        // Stopped (Ctrl-C) while waiting for another process's lock on the store.
        Err(RunError::Store(_)) if ctx.stop.load(Ordering::Relaxed) => ("interrupted", None, EXIT_INTERRUPTED),
        Err(e) => ("failed", Some(e.to_string()), 2),
    };
    let finished_at = now_rfc3339();
    // A store that failed once is not tried again (it would only wait, or fail, again): the
    // whole run goes to a side file, as it does when the end itself cannot be stored.
    let stored = match failed {
        Some(e) => Err(e),
        None => store
            .update_warnings(run_id, &manifest)
            .and_then(|()| store.finish_run(run_id, status, &finished_at, error.as_deref())),
    };
    let side = match stored {
        Ok(()) => None,
        Err(e) => {
            let run = UnsavedRun::new(
                &begun,
                &manifest,
                status,
                &finished_at,
                error.as_deref(),
                &templates,
                &trials,
            );
            let base = ctx.scratch.base();
            match unsaved::write(base, ctx.results_path, &e.to_string(), run) {
                Ok(p) => {
                    // An interrupted run stays interrupted (its line names the side file);
                    // otherwise the store's failure is the run's error.
                    if code != EXIT_INTERRUPTED {
                        error = Some(error.unwrap_or_else(|| e.to_string()));
                        code = 2;
                    }
                    Some(p)
                }
                Err(w) => {
                    // Nowhere to keep them: say so, with what was measured still reported below.
                    let lost = format!("{e}; {w}: run {run_id}'s unstored trials are lost");
                    if error.is_none() {
                        code = 2;
                    }
                    error = Some(lost);
                    None
                }
            }
        }
    };
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
    let mut json = None;
    let mut summary = Vec::new();
    let mut exported = Vec::new();
    if !trials.is_empty() || error.is_none() {
        let report = Report::build(Input {
            run: RunHeader {
                id: run_id,
                name: args.name.clone(),
                status: status.into(),
                error: error.clone(),
                finished_at: Some(finished_at),
                results: ctx.results_path.display().to_string(),
            },
            manifest: &manifest,
            trials: &trials,
            templates: &templates,
            noise: args.noise.value,
            metric: None,
            baseline: 0,
            process_syncs: Some(process_syncs),
        });
        summary = report.summary.clone();
        for e in &args.exports {
            if !exported.iter().any(|(f, _)| *f == e.format) {
                exported.push((e.format, report::export(&report, e.format)));
            }
        }
        if ctx.print_each {
            crate::out!("{}", report::export(&report, args.format.value));
        }
        // The JSON of several runs is printed (or exported) as one document at the end.
        let json_at_end = !ctx.print_each && args.format.value == Format::Json;
        if json_at_end || args.exports.iter().any(|e| e.format == Format::Json) {
            json = Some(serde_json::to_value(&report).map_err(|e| Failure(format!("report: {e}")))?);
        }
    }
    let engines = std::mem::take(&mut plan.engines);
    Ok((
        JobEnd {
            run_id,
            code,
            error,
            kept: trials.iter().filter(|t| !t.warmup).count(),
            side,
            stored: trials.len(),
            manifest,
            summary,
            presets,
            preset_names,
            json,
            exported,
        },
        engines,
    ))
}

/// How a session ended: the ids of the runs it stored (as they were stored, however it ended)
/// and its exit code or the one-line failure.
#[derive(Debug)]
pub struct Ended {
    pub run_ids: Vec<i64>,
    pub result: Result<i32, Failure>,
}

/// Runs one session: every job of the plan `args` describes (or this shard's part of it).
pub fn run(args: &RunArgs) -> Ended {
    let mut run_ids = Vec::new();
    let result = session(args, &mut run_ids);
    Ended { run_ids, result }
}

fn session(args: &RunArgs, run_ids: &mut Vec<i64>) -> Result<i32, Failure> {
    // From here on Ctrl-C, SIGTERM and SIGHUP are a request to stop cleanly: finished trials are
    // kept, servers stopped, mounts undone, scratch files removed. Installed first, so that a
    // stop while the plan reads scripts or logs ends the run as every other stop does (130),
    // not killed by the signal (143, 129).
    let stop = crate::sys::signals::stop_flag()?;
    // 1. Validate everything before anything runs.
    let RunPlan {
        picks,
        groups,
        jobs,
        choices,
        filesystems: fs_specs,
        fs_size_bytes,
        schedulers,
        load,
        warnings: plan_warnings,
    } = plan::plan(args)?;
    let results_path = args.results.value.clone().unwrap_or_else(store::default_path);
    store::check_path(&results_path, args.results.value.is_some())?;
    // `--shard`: this machine's jobs of the plan, by their position in it.
    let (fleet, mine) = fleet_part(args, &jobs)?;
    if let Some(name) = &args.name {
        name_is_free(name, mine.len(), &results_path)?;
    }
    if let Some(file) = &args.report {
        crate::report::stored::check_output(file, true, "--report", &results_path)?;
    }
    if !args.exports.is_empty() {
        if args.guest {
            return Err(Failure(
                "--export: not with --guest (the runs come back from the guest after it stops); write the files afterwards with `litebench show RUN --export FILE`".into(),
            ));
        }
        let others: Vec<(&str, &Path)> = args.report.iter().map(|r| ("--report", r.as_path())).collect();
        exports::check(&args.exports, &results_path, &others)?;
    }
    // Said once, before anything runs (and kept in the manifest of each run concerned).
    if args.guest_job.is_none() {
        for w in &plan_warnings {
            crate::errln!("warning: {w}");
        }
    }
    if stop.load(Ordering::Relaxed) {
        return Ok(interrupted_before_trials());
    }
    if args.guest {
        return crate::bench::guest::run(args, &fs_specs, fs_size_bytes, &schedulers, &stop, run_ids);
    }
    // Inside a guest kernel: the host's job names the disks and what the manifest says.
    let job: Option<crate::testbed::guest::GuestJob> = match &args.guest_job {
        Some(p) => Some(
            std::fs::read(p)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .ok_or_else(|| Failure(format!("--guest-job {}: not a guest job", p.display())))?,
        ),
        None => None,
    };
    crate::testbed::leftovers::undo_dead_runs(args.dir.value.as_deref());
    let scratch = Scratch::create(args.dir.value.as_deref())?;
    // Recorded before anything changes; dropped (the original put back) after the last trial.
    let device_scheduler = match &args.scheduler_device {
        Some(d) => Some(
            crate::testbed::scheduler_device::DeviceScheduler::take(d, scratch.dir())
                .map_err(|e| Failure(e.to_string()))?,
        ),
        None => None,
    };
    // Built before the engines are opened, so they are dropped (unmounted) after them.
    let filesystems = if fs_specs.is_empty() {
        None
    } else {
        let disks = job.as_ref().map(|j| j.disks.as_slice()).unwrap_or_default();
        Some(Filesystems::build(scratch.dir(), &fs_specs, fs_size_bytes, disks)?)
    };
    if let Some(f) = &filesystems {
        for dev in (0..f.len()).filter_map(|i| f.info(i).and_then(|i| i.block_device())) {
            crate::testbed::scheduler::check_offered(dev, &schedulers)?;
        }
    }
    let mut engines = Vec::new();
    for c in &choices {
        engines.push(c.open(&scratch, args.memory)?);
    }
    if args.cold {
        for e in &engines {
            e.cold_trial().map_err(Failure)?;
        }
    }
    if stop.load(Ordering::Relaxed) {
        return Ok(interrupted_before_trials());
    }
    // Opened once everything else is accepted (a refused run creates no store) and before
    // anything is measured, so a store that cannot be used stops the run first.
    let mut store = Store::open_until(&results_path, args.results.value.is_some(), Some(stop.clone()))?;
    import_side_files(scratch.base(), &mut store)?;

    // 2. Describe the machine and the storage under the scratch directory.
    let environment = litebench_env::capture(scratch.dir())
        .map_err(|e| Failure(format!("--dir {}: {e}", scratch.base().display())))?;
    let (sync_latency, sync_latency_not_measured) = if args.memory {
        (None, Some(crate::model::record::NOT_MEASURED_IN_MEMORY.to_string()))
    } else if args.guest_job.is_some() {
        // The guest's scratch directory is its tmpfs: each --fs filesystem's own latency is
        // measured where its trials run, and recorded with it.
        (None, Some(crate::model::record::NOT_MEASURED_IN_GUEST.to_string()))
    } else {
        match litebench_env::measure_sync_latency(scratch.dir(), 200, Duration::from_millis(500)) {
            Ok(l) => (Some(l), None),
            Err(e) => (None, Some(e.to_string())),
        }
    };
    // In a guest the scratch directory is the guest's tmpfs; the trials run on its disks.
    if environment.storage.ram_backed && !args.memory && args.guest_job.is_none() {
        crate::errln!(
            "warning: {} is on a RAM filesystem: syncs cost nothing there, so durability numbers mean nothing",
            scratch.dir().display()
        );
    }

    // 3. Run each job, storing each trial as it finishes.
    let several = mine.len() > 1;
    let ctx = Context {
        args,
        scratch: &scratch,
        stop: &stop,
        results_path: &results_path,
        environment: &environment,
        sync_latency: &sync_latency,
        sync_latency_not_measured: &sync_latency_not_measured,
        filesystems: filesystems.as_ref(),
        schedulers: &schedulers,
        guest: job.map(|j| j.info),
        fleet,
        // In a guest the host prints the runs once it has stored them under its own ids.
        print_each: args.guest_job.is_none() && (!several || report::format::of(args.format.value).for_reading()),
        load,
        compared: picks.len() > 1 || !groups.is_empty(),
        groups: &groups,
    };
    let mut ends: Vec<JobEnd> = Vec::new();
    for &j in &mine {
        if several && stop.load(Ordering::Relaxed) {
            break;
        }
        let (end, back) = run_job(&ctx, &mut store, &jobs[j], j, engines)?;
        engines = back;
        run_ids.push(end.run_id);
        let done = end.code != 0;
        ends.push(end);
        if done {
            break;
        }
    }
    drop(engines);
    drop(filesystems);
    drop(device_scheduler);
    drop(scratch);
    let faults = crate::engines::sqlite::guard::faults();
    if faults.count > 0 {
        crate::errln!(
            "warning: the counting VFS caught {} failure(s) in its callbacks (first: {}); each became an I/O error for SQLite, so the affected trials failed rather than being miscounted",
            faults.count,
            faults.first.as_deref().unwrap_or("unknown")
        );
    }

    // 4. Compare presets; for several runs in JSON or CSV, print everything together.
    let compared = picks.len() > 1 || !groups.is_empty();
    let in_guest = args.guest_job.is_some();
    let reading = report::format::of(args.format.value).for_reading();
    if !in_guest && reading && compared {
        crate::out!(
            "{}",
            presets::comparison_text(&preset_runs(&ends), &groups, args.format.value == Format::Markdown)
        );
    } else if !in_guest && !reading && several {
        crate::out!("{}", report::format::render(&several_runs(&ends), args.format.value));
    }
    // The HTML report and the exports of what was measured, however the run ended; each is
    // tried whatever became of the others, and each failure is said in its own line.
    let mut output_failures: Vec<Failure> = Vec::new();
    if let Some(file) = args.report.as_ref().filter(|_| !ends.is_empty()) {
        let ids: Vec<Option<i64>> = ends.iter().map(|e| Some(e.run_id)).collect();
        // Presets compared lead the page (from what each run's manifest records, as a
        // later `report` of the runs reads it), a group's paper table (Table 1) at the top.
        if let Err(f) = crate::report::stored::write(
            &Some(results_path.clone()),
            &ids,
            file,
            "--report",
            None,
            args.noise.value,
            None,
        ) {
            output_failures.push(f);
        }
    }
    if !in_guest {
        output_failures.extend(write_exports(args, &ends, several, compared, &groups));
    }
    let Some(last) = ends.last() else {
        return Ok(EXIT_INTERRUPTED);
    };
    // The last failure is the run's error line when the run itself went well.
    let last_failure = if last.error.is_none() {
        output_failures.pop()
    } else {
        None
    };
    for f in &output_failures {
        crate::errln!("error: {}", f.line());
    }
    if let Some(f) = last_failure {
        return Err(f);
    }
    let base = args
        .dir
        .value
        .as_deref()
        .unwrap_or(Path::new(crate::sys::scratch::DEFAULT_DIR));
    if let Some(e) = &last.error {
        if in_guest {
            return Err(Failure(e.clone()));
        }
        if let Some(side) = &last.side {
            return Err(Failure(format!(
                "{e}; run {}'s {} finished trials are kept in {}",
                last.run_id,
                last.kept,
                side_note(side, base, &results_path)
            )));
        }
        return Err(Failure(format!(
            "{e} (run {}: {} finished trials kept in {})",
            last.run_id,
            last.kept,
            results_path.display()
        )));
    }
    let interrupted = last.code == EXIT_INTERRUPTED || ends.len() < mine.len();
    if interrupted && in_guest {
        return Ok(EXIT_INTERRUPTED);
    }
    if interrupted {
        let kept: usize = ends.iter().map(|e| e.stored).sum();
        let ids: Vec<String> = ends.iter().map(|e| e.run_id.to_string()).collect();
        match ends.iter().find_map(|e| e.side.as_ref()) {
            Some(side) => crate::errln!(
                "interrupted: {kept} finished trials of run {}; the results store could not take them all, so they are kept in {}",
                ids.join(", "),
                side_note(side, base, &results_path)
            ),
            None => crate::errln!(
                "interrupted: {kept} finished trials kept as run {} in {}",
                ids.join(", "),
                results_path.display()
            ),
        }
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(last.code)
}

/// A stop request that came before the first trial (while scripts or logs were read, engines
/// opened): nothing was measured, so nothing is stored; says so and gives the exit code.
fn interrupted_before_trials() -> i32 {
    crate::errln!("interrupted before the first trial: nothing was measured or stored");
    EXIT_INTERRUPTED
}

/// Refuses `--name NAME` before anything runs when another stored run has it, or when the run
/// would store several runs (a name names one).
fn name_is_free(name: &str, runs: usize, results: &Path) -> Result<(), Failure> {
    if runs > 1 {
        return Err(Failure(format!(
            "--name {name}: this run stores {runs} runs (one per workload and parameters), and a name names one run; run them one at a time to name each, or leave out --name"
        )));
    }
    if results.is_file() {
        if let Some(id) = Store::open_read(results)?.find_name(name)? {
            return Err(Failure(format!(
                "--name {name}: run {id} in results store {} already has that name; names are unique per store, so choose another",
                results.display()
            )));
        }
    }
    Ok(())
}

/// `--export`: each file gets what the terminal would have shown in its format: the report of
/// the one run, or for several runs what a session of several prints (each report and their
/// comparison in a format for reading; one document of them all in a data format). Nothing is
/// written when nothing was reported. Every file is tried; returns each one's failure.
fn write_exports(
    args: &RunArgs,
    ends: &[JobEnd],
    several: bool,
    compared: bool,
    groups: &[&crate::workload::preset::Group],
) -> Vec<Failure> {
    let of = |e: &JobEnd, f: Format| e.exported.iter().find(|(x, _)| *x == f).map(|(_, t)| t.clone());
    if ends.iter().all(|e| e.exported.is_empty()) {
        return Vec::new();
    }
    let render = |f: Format| -> String {
        if !several {
            return ends.first().and_then(|e| of(e, f)).unwrap_or_default();
        }
        if report::format::of(f).for_reading() {
            let mut text: String = ends.iter().filter_map(|e| of(e, f)).collect();
            if compared {
                text += &presets::comparison_text(&preset_runs(ends), groups, f == Format::Markdown);
            }
            text
        } else {
            report::format::render(&several_runs(ends), f)
        }
    };
    exports::write_each(&args.exports, &render)
}

/// Where a side file is and how it reaches the store.
fn side_note(side: &Path, base: &Path, store: &Path) -> String {
    format!(
        "side file {} (the next `litebench run --dir {}` with this store imports it, or `litebench merge {} {}`)",
        side.display(),
        base.display(),
        store.display(),
        side.display()
    )
}

/// Imports the side files earlier runs left in `base` for this store ([`unsaved`]), saying so,
/// and removes each once its run is stored. Side files for other stores are named, not touched.
///
/// Only this user's own side files are imported by themselves: in a `--dir` no other user can
/// write, owned by this user and writable by no one else ([`own_file`]). Any other is left as
/// it is, with one line saying why and how to import it if it is trusted (`merge`). A side
/// file is removed only while its name still leads to the file read, and that name is the one
/// litebench gives the run it held.
fn import_side_files(base: &Path, store: &mut Store) -> Result<(), Failure> {
    let key = unsaved::store_key(store.path());
    let sides = unsaved::list(base);
    if sides.is_empty() {
        return Ok(());
    }
    let store_path = store.path().to_path_buf();
    let left_alone = |path: &Path, why: &dyn std::fmt::Display| {
        crate::errln!(
            "note: side file {} left alone, not imported: {why}; if you trust it, `litebench merge {} {}` imports it",
            path.display(),
            store_path.display(),
            path.display()
        )
    };
    let dir = own_file::check_dir(base);
    for path in sides {
        if let Err(why) = &dir {
            left_alone(&path, why);
            continue;
        }
        let mut own = match own_file::open(&path) {
            Ok(f) => f,
            Err(why) => {
                left_alone(&path, &why);
                continue;
            }
        };
        let side = match unsaved::read_from(&path, &mut own.file) {
            Ok(s) => s,
            Err(e) => {
                crate::errln!("warning: {e}; left as it is");
                continue;
            }
        };
        if side.store != key {
            crate::errln!(
                "note: {} holds a run for results store {}; `litebench merge {} {}` imports it",
                path.display(),
                side.store.display(),
                side.store.display(),
                path.display()
            );
            continue;
        }
        let i = store.import_unsaved(&side.run)?;
        let ours = path.file_name() == Some(std::ffi::OsStr::new(&unsaved::file_name(&side.run.uuid)))
            && own.still_the_same(&path);
        let removed = if ours {
            std::fs::remove_file(&path)
                .map_err(|e| Failure(format!("{}: cannot remove it once imported ({e})", path.display())))?;
            String::new()
        } else {
            "; left in place: its name is not the one litebench gives that run, or the file changed".to_string()
        };
        crate::errln!(
            "imported run {} ({}; trials added: {}) from {}, kept there when the store could not take it ({}){removed}",
            i.run_id,
            side.run.status,
            i.trials_added,
            path.display(),
            side.reason
        );
    }
    Ok(())
}

/// The progress bar's time left: indicatif's estimate from the recent trials' pace, once a trial
/// has finished to set a pace (before that there is nothing to estimate from).
fn time_left(state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write) {
    let _ = if state.pos() == 0 {
        write!(w, "time left after the first trial")
    } else {
        write!(w, "~{} left", indicatif::HumanDuration(state.eta()))
    };
}

/// `--shard` / `--replicate`: what the manifest records, and the positions of the plan's jobs
/// this process runs (all of them without `--shard`).
fn fleet_part(args: &RunArgs, jobs: &[Job]) -> Result<(Option<crate::model::record::FleetInfo>, Vec<usize>), Failure> {
    let Some(value) = &args.shard else {
        return Ok((None, (0..jobs.len()).collect()));
    };
    let shard = crate::bench::shard::parse(value, args.shard_count, &|k| std::env::var(k).ok())?;
    let mine = crate::bench::shard::select(jobs.len(), &shard, args.replicate)?;
    // The plan as every shard computes it: workloads, parameters and knob sets in order.
    let mut h = sha2::Sha256::new();
    use sha2::Digest;
    for job in jobs {
        h.update(job.workload.name().as_bytes());
        h.update(serde_json::to_vec(&job.params).unwrap_or_default());
        for (_, set) in &job.sets {
            h.update(set.label().as_bytes());
            h.update([0u8]);
        }
        h.update([1u8]);
    }
    for e in &args.engines {
        h.update(e.as_bytes());
        h.update([0u8]);
    }
    let plan_hash: String = h.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect();
    let fleet = crate::model::record::FleetInfo {
        sweep: crate::bench::shard::sweep_id(args.sweep.as_deref(), &shard, &plan_hash),
        shard: shard.index,
        shards: shard.count,
        replicate: args.replicate,
        scheduler: shard.scheduler.to_string(),
        job_ids: shard.job_ids,
        plan_hash,
        plan_jobs: jobs.len(),
        plan_job: 0,
    };
    Ok((Some(fleet), mine))
}

/// The document a data format prints for a session of several runs: every run's report and
/// the presets' comparison (JSON), or every run's summary rows (CSV, and any other format, as
/// one table), each row led by the run it belongs to and that run's workload, since the runs'
/// configurations are numbered from 0 in each.
fn several_runs(ends: &[JobEnd]) -> report::format::Document {
    let v = serde_json::json!({
        "runs": ends.iter().filter_map(|e| e.json.clone()).collect::<Vec<_>>(),
        "presets": presets::comparison_rows(&preset_runs(ends)),
    });
    let mut headers: Vec<String> = vec!["run".into(), "workload".into()];
    let mut cells: Vec<Vec<String>> = Vec::new();
    for e in ends {
        let t = report::csv::table_of("summary", &e.summary);
        if headers.len() == 2 {
            headers.extend(t.headers);
        }
        cells.extend(t.rows.into_iter().map(|r| {
            let mut row = vec![e.run_id.to_string(), e.manifest.workload.clone()];
            row.extend(r);
            row
        }));
    }
    let mut records = vec![headers.clone()];
    records.extend(cells.iter().cloned());
    let csv = report::csv::records(&records);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    report::format::Document::new(&v)
        .own(Format::Csv, csv)
        .table("summary", &headers, cells)
}

fn preset_runs(ends: &[JobEnd]) -> Vec<presets::PresetRun<'_>> {
    ends.iter()
        .map(|e| presets::PresetRun {
            run_id: e.run_id,
            manifest: &e.manifest,
            summary: &e.summary,
            presets: &e.presets,
            preset_names: &e.preset_names,
        })
        .collect()
}
