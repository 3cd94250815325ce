//! One session of `litebench run`: plan, open the testbed and engines, run and store each job,
//! report, and the exit code. The command line (`app::run`) and `reproduce` both call [`run`]
//! with typed settings and an observer that reports ([`crate::bench::observer`]), and get back
//! the ids of the runs it stored.
//!
//! A run is one workload with one set of parameters, its configurations interleaved trial by
//! trial. Presets (`--preset`) add configurations: each preset is a knob set labelled with its
//! name. Presets of the same workload with the same parameters share one run and are
//! interleaved; presets that need another workload or other parameters (the tools of
//! APSys'17 Table 1) become further runs, executed one after the other with the same engines,
//! scratch directory and results store, each stored as its own run, and compared at the end.

use crate::base::time::now_rfc3339;
use crate::base::Failure;
use crate::bench::observer::{JobRun, RunObserver};
use crate::bench::plan::{Guest, Job, Plan};
use crate::bench::runner::{self, Bound, End, JobPlan, Places, RunError, Sink};
use crate::engines::Engine;
use crate::model::record::{GuestInfo, Manifest, ProcessSyncs, TemplateRecord, TrialRecord};
use crate::model::storage::{StorageSpec, ThrottleInfo};
use crate::report::{Statistics, DEFAULT_NOISE};
use crate::store::unsaved::{self, UnsavedRun};
use crate::store::{Begun, Store, StoreError};
use crate::sys::own_file;
use crate::sys::scratch::{Scratch, HARNESS_SYNCS};
use crate::sys::signals::EXIT_INTERRUPTED;
use crate::testbed::fsmount::Filesystems;
use crate::testbed::scheduler_device::DeviceScheduler;
use crate::testbed::throttle::Cgroup;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
            self.failed = Some(e.clone());
            RunError::Store(e)
        })
    }
}

/// What became of a job's records at its end: its error and exit code (a store that failed makes
/// its failure the run's), the side file they went to instead of the store, and the records
/// themselves, for the report.
struct Kept {
    error: Option<String>,
    code: i32,
    side: Option<PathBuf>,
    templates: Vec<TemplateRecord>,
    trials: Vec<TrialRecord>,
}

impl StoreSink<'_> {
    /// The run's end stored, or, where the store failed (during the run or now), the whole run
    /// kept in a side file ([`unsaved`]) so that nothing measured is lost to a store's failure.
    fn keep(self, ctx: &Context<'_>, begun: &Begun, manifest: &Manifest, end: &End, finished_at: &str) -> Kept {
        let StoreSink {
            store,
            run_id,
            templates,
            trials,
            failed,
            ..
        } = self;
        let mut error = end.error().map(str::to_string);
        let mut code = end.code();
        // A store that failed once is not tried again (it would only wait, or fail, again): the
        // whole run goes to a side file, as it does when the end itself cannot be stored.
        let stored = match failed {
            Some(e) => Err(e),
            None => store
                .update_warnings(run_id, manifest)
                .and_then(|()| store.finish_run(run_id, end.status(), finished_at, error.as_deref())),
        };
        let side = match stored {
            Ok(()) => None,
            Err(e) => {
                let run = UnsavedRun::new(
                    begun,
                    manifest,
                    end.status(),
                    finished_at,
                    error.as_deref(),
                    &templates,
                    &trials,
                );
                match unsaved::write(ctx.bed.scratch.base(), &ctx.plan.places.results, &e.to_string(), run) {
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
        Kept {
            error,
            code,
            side,
            templates,
            trials,
        }
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

/// What the run is placed on, opened in this order and closed in the reverse: the scratch
/// directory, the real device's scheduler, the `--fs` filesystems, the engines.
struct Testbed {
    // Dropped in declaration order: engines before the filesystems they keep files on, the
    // device's scheduler put back, the scratch directory last.
    engines: Vec<Box<dyn Engine>>,
    /// `--storage iops=,bw=`: a throttling cgroup per filesystem and storage value, removed
    /// before the filesystems are unmounted.
    cgroups: Vec<Throttled>,
    filesystems: Option<Filesystems>,
    /// Held for its drop, which puts the device's own scheduler back.
    _device_scheduler: Option<DeviceScheduler>,
    scratch: Scratch,
}

impl Testbed {
    /// Makes the scratch directory (first undoing what killed runs left in it), takes the
    /// `--scheduler-device`, builds the filesystems (on the guest's disks inside a guest) and
    /// opens the engines.
    fn open(plan: &Plan) -> Result<Testbed, Failure> {
        let dir = plan.places.dir.as_deref();
        crate::testbed::leftovers::undo_dead_runs(dir);
        let scratch = Scratch::create(dir)?;
        // Recorded before anything changes; dropped (the original put back) after the last trial.
        let device_scheduler = match &plan.scheduler_device {
            Some(d) => Some(DeviceScheduler::take(d, scratch.dir()).map_err(|e| Failure(e.to_string()))?),
            None => None,
        };
        // Built before the engines are opened, so they are dropped (unmounted) after them.
        let filesystems = if plan.filesystems.is_empty() {
            None
        } else {
            let disks = match &plan.guest {
                Guest::Inside(job) => job.disks.as_slice(),
                _ => &[],
            };
            Some(Filesystems::build(
                scratch.dir(),
                &plan.filesystems,
                plan.fs_size_bytes,
                disks,
            )?)
        };
        if let Some(f) = &filesystems {
            for dev in (0..f.len()).filter_map(|i| f.info(i).and_then(|i| i.block_device())) {
                crate::testbed::scheduler::check_offered(dev, &plan.schedulers)?;
            }
        }
        let cgroups = throttles(plan, filesystems.as_ref())?;
        let mut engines = Vec::new();
        for c in &plan.choices {
            engines.push(c.open(&scratch, plan.trials.memory)?);
        }
        if plan.trials.cold {
            for e in &engines {
                e.cold_trial().map_err(Failure)?;
            }
        }
        Ok(Testbed {
            engines,
            cgroups,
            filesystems,
            _device_scheduler: device_scheduler,
            scratch,
        })
    }
}

impl Testbed {
    /// The throttle of storage `s` on filesystem `fs`, where the kernel limits it.
    fn cgroup_of(&self, fs: Option<usize>, s: &StorageSpec) -> Option<ThrottleInfo> {
        let fs = fs?;
        self.cgroups
            .iter()
            .find(|t| t.fs == fs && t.storage == s.text)
            .map(|t| t.cgroup.info().clone())
    }

    /// The sync latency measured inside that throttle's cgroup.
    fn throttled_sync(&self, fs: Option<usize>, s: &StorageSpec) -> Option<litebench_env::SyncLatency> {
        let fs = fs?;
        self.cgroups
            .iter()
            .find(|t| t.fs == fs && t.storage == s.text)
            .and_then(|t| t.sync.clone())
    }
}

/// One throttled storage value on one filesystem: its cgroup, and the sync latency measured
/// from inside it (`None` where the measurement failed: the run goes on without it).
struct Throttled {
    fs: usize,
    storage: String,
    cgroup: Cgroup,
    sync: Option<litebench_env::SyncLatency>,
}

/// `--storage iops=,bw=`: a cgroup limiting each block device litebench built, per throttled
/// storage value; a throttle the kernel refuses stops the run before anything is measured.
fn throttles(plan: &Plan, filesystems: Option<&Filesystems>) -> Result<Vec<Throttled>, Failure> {
    let mut made = Vec::new();
    let Some(f) = filesystems else {
        return Ok(made);
    };
    for s in plan.storages.iter().filter(|s| s.throttled()) {
        for i in 0..f.len() {
            let Some(dev) = f.info(i).and_then(|info| info.block_device()) else {
                continue;
            };
            let cgroup = Cgroup::create(std::path::Path::new(dev), &s.throttle)
                .map_err(|e| Failure(format!("--storage {}: {e}", s.text)))?;
            let sync = f
                .info(i)
                .and_then(|info| throttled_sync(&cgroup, std::path::Path::new(&info.dir)));
            made.push(Throttled {
                fs: i,
                storage: s.text.clone(),
                cgroup,
                sync,
            });
        }
    }
    Ok(made)
}

/// The sync latency of a throttled device as its trials will meet it: measured with this
/// process inside the cgroup (the throttle counts the I/O its tasks submit), as many syncs as
/// `--fs` measures each filesystem with, or half a second.
fn throttled_sync(cgroup: &Cgroup, dir: &std::path::Path) -> Option<litebench_env::SyncLatency> {
    let _inside = crate::testbed::throttle::enter(cgroup.info()).ok()?;
    litebench_env::measure_sync_latency(dir, 200, Duration::from_millis(500)).ok()
}

/// The machine and the storage under the scratch directory, as every run's manifest states them.
struct Machine {
    environment: litebench_env::Environment,
    sync_latency: Option<litebench_env::SyncLatency>,
    sync_latency_not_measured: Option<String>,
}

impl Machine {
    /// Describes the machine and measures the sync latency where the trials run; warns when
    /// that is a RAM filesystem.
    fn describe(plan: &Plan, scratch: &Scratch) -> Result<Machine, Failure> {
        let environment = litebench_env::capture(scratch.dir())
            .map_err(|e| Failure(format!("--dir {}: {e}", scratch.base().display())))?;
        let (sync_latency, sync_latency_not_measured) = if plan.trials.memory {
            (None, Some(crate::model::record::NOT_MEASURED_IN_MEMORY.to_string()))
        } else if plan.in_guest() {
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
        if environment.storage.ram_backed && !plan.trials.memory && !plan.in_guest() {
            crate::errln!(
                "warning: {} is on a RAM filesystem: syncs cost nothing there, so durability numbers mean nothing",
                scratch.dir().display()
            );
        }
        Ok(Machine {
            environment,
            sync_latency,
            sync_latency_not_measured,
        })
    }
}

/// What stays the same across the jobs of a run.
struct Context<'a> {
    plan: &'a Plan,
    bed: &'a Testbed,
    machine: &'a Machine,
    stop: &'a AtomicBool,
}

/// What one job stored, and how it ended.
struct Stored {
    run_id: i64,
    code: i32,
    error: Option<String>,
    /// Measured trials kept.
    kept: usize,
    /// Where they are kept when the store could not take them: the side file.
    side: Option<PathBuf>,
    /// Trials stored, warm-ups included.
    stored: usize,
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

/// The job's configurations bound to the opened engines (their labels) and the built
/// filesystems (their loop devices): what the manifest records and the runner runs.
fn bind(plan: &Plan, job: &Job, bed: &Testbed) -> Vec<Bound> {
    let several = bed.engines.len() > 1;
    job.configs
        .iter()
        .map(|c| {
            let e = &bed.engines[c.engine];
            let fs = c.fs.and_then(|i| bed.filesystems.as_ref()?.info(i)).cloned();
            Bound {
                info: crate::model::record::ConfigInfo {
                    index: c.index,
                    engine: e.label().to_string(),
                    knob_origins: c.knob_origins.clone(),
                    knobs: c.knobs.clone(),
                    label: c.label(several.then(|| e.label()), fs.as_ref().map(|f| f.spec.as_str())),
                    fs,
                    scheduler: c.scheduler.clone(),
                    scheduler_device: c.scheduler.as_ref().and(plan.scheduler_device.clone()),
                    storage: c.storage.as_ref().map(|s| crate::model::storage::StorageInfo {
                        spec: s.clone(),
                        kind: s.kind().to_string(),
                        throttle: bed.cgroup_of(c.fs, s),
                        throttled_sync: bed.throttled_sync(c.fs, s),
                    }),
                    load: c.load.clone(),
                    extension: None,
                    driver: None,
                    role_drivers: Vec::new(),
                },
                engine: c.engine,
            }
        })
        .collect()
}

/// The configuration's driver process, started once on a database of its own with the
/// configuration's knobs and asked what it is, before anything is measured (`None`: litebench's
/// own loop). A driver that cannot be set up, or refuses a knob, is the run's one line.
fn driver_info(
    ctx: &Context<'_>,
    info: &crate::model::record::ConfigInfo,
) -> Result<Option<crate::model::driver::DriverInfo>, Failure> {
    probe_driver(ctx, &info.knobs, &format!("driver-probe-{}", info.index), &info.label)
}

/// Each of a cast's workload roles that runs through a driver process (its own `driver`, or
/// the configuration's), probed as [`driver_info`] probes a configuration's, with the role's
/// knobs over the configuration's.
fn role_drivers(
    ctx: &Context<'_>,
    info: &crate::model::record::ConfigInfo,
) -> Result<Vec<crate::model::driver::RoleDriver>, Failure> {
    let Some(cast) = ctx.plan.load.cast.as_ref() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for role in cast.workload_roles() {
        let knobs = info.knobs.with_over(&role.knobs);
        let file = format!("driver-probe-{}-{}", info.index, role.name);
        let label = format!("{}: role \"{}\"", info.label, role.name);
        if let Some(probed) = probe_driver(ctx, &knobs, &file, &label)? {
            out.push(crate::model::driver::RoleDriver {
                role: role.name.clone(),
                info: probed,
            });
        }
    }
    Ok(out)
}

/// Driver `knobs` name, started on a database of its own (`file`.db in the scratch directory)
/// with `knobs` and asked what it is; every knob it read back must be the one asked.
fn probe_driver(
    ctx: &Context<'_>,
    knobs: &crate::model::knob::KnobSet,
    file: &str,
    label: &str,
) -> Result<Option<crate::model::driver::DriverInfo>, Failure> {
    use crate::bench::driver_process as dp;
    let Some(name) = dp::driver_of(knobs) else {
        return Ok(None);
    };
    let db = ctx.bed.scratch.path(&format!("{file}.db"));
    let engine = &ctx.bed.engines[0];
    let prefix = engine.passthrough_prefix();
    let knobs = dp::knobs_for_driver(&knobs.for_engine(engine.knob_specs(), prefix), prefix);
    let probed = dp::probe(name, &db, &knobs);
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let probed = probed.map_err(|e| Failure(format!("{label}: {e}")))?;
    // Every knob the driver read back is what was asked (a driver that reads nothing back, a
    // no-op driver, says null).
    // SQLite reads some knobs back as numbers (`synchronous` 1 is normal), which a driver passes
    // on as its PRAGMA gave them: compared as the knob's table reads them back.
    let specs = engine.knob_specs();
    for (asked, read) in knobs.iter().zip(&probed.knobs) {
        if let (Some(a), Some(r)) = (&asked.value, &read.value) {
            let r = crate::model::knob::find_spec(specs, &asked.name).map_or(r.clone(), |s| s.kind.readback(r));
            if !a.eq_ignore_ascii_case(&r) || asked.name != read.name {
                return Err(Failure(format!(
                    "{label}: driver {name} read knob {} back as {r} where {a} was asked; the driver did not set it",
                    asked.name
                )));
            }
        }
    }
    Ok(Some(probed))
}

/// The run's manifest as it starts (the trials' warnings are added as they come).
fn manifest(ctx: &Context<'_>, job: &Job, plan_job: usize, configs: &[Bound]) -> Result<Manifest, Failure> {
    let (plan, machine) = (ctx.plan, ctx.machine);
    let wl = job.workload;
    let guest: Option<GuestInfo> = match &plan.guest {
        Guest::Inside(j) => Some(j.info.clone()),
        _ => None,
    };
    Ok(Manifest {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        command: crate::engines::server::redact_command(&plan.command),
        started_at: now_rfc3339(),
        workload: wl.name().to_string(),
        workload_source: wl.source().to_string(),
        params: job.params.clone(),
        seed: plan.trials.seed,
        trials: plan.trials.trials,
        warmup: plan.trials.warmup,
        cold_cache: plan.trials.cold,
        in_memory: plan.trials.memory,
        engines: ctx.bed.engines.iter().map(|e| e.info()).collect(),
        configs: configs
            .iter()
            .map(|c| {
                let mut info = c.info.clone();
                // The configuration's extension checked, loaded once and asked what it is,
                // before anything is measured: a refusal is the run's one line.
                info.extension = ctx.bed.engines[c.engine]
                    .extension_info(&info.knobs)
                    .map_err(|e| Failure(e.message))?;
                info.driver = driver_info(ctx, &info)?;
                info.role_drivers = role_drivers(ctx, &info)?;
                Ok(info)
            })
            .collect::<Result<_, Failure>>()?,
        environment: machine.environment.clone(),
        sync_latency: machine.sync_latency.clone(),
        sync_latency_not_measured: machine.sync_latency_not_measured.clone(),
        scratch_dir: ctx.bed.scratch.dir().display().to_string(),
        statistics: Some(Statistics {
            instruction_noise: plan.trials.instructions.then(|| {
                plan.output
                    .noise
                    .unwrap_or(crate::model::metric::DEFAULT_INSTRUCTION_NOISE)
            }),
            ..Statistics::new(plan.trials.seed, plan.output.noise.unwrap_or(DEFAULT_NOISE))
        }),
        warnings: if plan.trials.allow_unverified {
            vec!["--allow-unverified: pass-through knobs that read back nothing were not verified".into()]
        } else {
            Vec::new()
        }
        .into_iter()
        .chain(job.warnings.iter().cloned())
        .collect(),
        load: plan.load.clone(),
        io_per_thread: std::iter::once(&plan.load)
            .chain(configs.iter().filter_map(|c| c.info.load.as_ref()))
            .any(|l| l.clients > 1 && !l.processes()),
        guest,
        fleet: plan.fleet.clone().map(|mut f| {
            f.plan_job = plan_job;
            f
        }),
        workload_files: workload_files(wl, &job.params)?,
        presets: (plan.compares_presets() || job.named()).then(|| crate::model::record::PresetInfo {
            compared: plan.compares_presets(),
            groups: plan.groups.iter().map(|g| g.name.to_string()).collect(),
            measured: job
                .configs
                .iter()
                .map(|c| c.pick.map(|p| p.preset.name.to_string()))
                .collect(),
            names: job.configs.iter().map(|c| c.preset_names()).collect(),
        }),
        stop: job.stop.clone(),
        instructions: plan.trials.instructions.then(crate::bench::instructions::counting),
    })
}

/// The progress bar of a job's trials on a terminal (hidden under `--quiet` or into a pipe).
fn progress_bar(plan: &Plan, job: &Job) -> indicatif::ProgressBar {
    let total = (job.configs.len() as u64) * u64::from(plan.trials.trials + plan.trials.warmup);
    if plan.output.quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let p = indicatif::ProgressBar::new(total);
    let template = if job.named() {
        "{prefix} {bar:30} {pos}/{len} trials, {elapsed_precise} elapsed, {left}, {msg}"
    } else {
        "{bar:30} {pos}/{len} trials, {elapsed_precise} elapsed, {left}, {msg}"
    };
    p.set_style(
        indicatif::ProgressStyle::with_template(template)
            .expect("static template")
            .with_key("left", time_left),
    );
    p.set_prefix(job.workload.name());
    p
}

/// Sync system calls the engines' VFS shims have counted so far.
fn vfs_syncs(engines: &[Box<dyn Engine>]) -> u64 {
    engines
        .iter()
        .filter_map(|e| e.io_counters())
        .map(|c| c.snapshot().sync_syscalls())
        .sum()
}

/// How the runner's end reads as the run's end: a store error after a stop request is the
/// stop (Ctrl-C while waiting for another process's lock on the store).
fn end_of(outcome: Result<End, RunError>, stop: &AtomicBool) -> End {
    match outcome {
        Ok(end) => end,
        Err(RunError::Store(_)) if stop.load(Ordering::Relaxed) => End::Interrupted,
        Err(e) => End::Failed(e.to_string()),
    }
}

/// Runs one job of the plan: binds its configurations, begins its run in the store, executes
/// it (each trial stored as it ends), finishes the run in the store (or keeps it in a side file)
/// and hands it to the observer.
fn run_job(
    ctx: &Context<'_>,
    store: &mut Store,
    plan_job: usize,
    observer: &mut dyn RunObserver,
) -> Result<Stored, Failure> {
    let (plan, bed) = (ctx.plan, ctx.bed);
    let job = &plan.jobs[plan_job];
    let configs = bind(plan, job, bed);
    let mut manifest = manifest(ctx, job, plan_job, &configs)?;
    let syncs_before = vfs_syncs(&bed.engines);
    let harness_before = HARNESS_SYNCS.load(Ordering::Relaxed);
    let begun = store.begin_named(&manifest, plan.output.name.as_deref())?;
    let run_id = begun.id;
    let progress = progress_bar(plan, job);
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
        scratch: &bed.scratch,
        on_fs: match &bed.filesystems {
            Some(f) => (0..f.len())
                .map(|i| f.scratch(i).expect("every --fs filesystem is mounted once built"))
                .collect(),
            None => Vec::new(),
        },
    };
    let work = JobPlan {
        workload: job.workload,
        params: &job.params,
        engines: &bed.engines,
        configs: &configs,
        trials: &plan.trials,
        load: &plan.load,
    };
    let outcome = runner::execute(&work, &places, ctx.stop, &progress, &mut sink);
    manifest.warnings = std::mem::take(&mut sink.warnings);
    progress.finish_and_clear();
    let end = end_of(outcome, ctx.stop);
    let finished_at = now_rfc3339();
    let Kept {
        error,
        code,
        side,
        templates,
        trials,
    } = sink.keep(ctx, &begun, &manifest, &end, &finished_at);
    let process_syncs = ProcessSyncs {
        vfs: vfs_syncs(&bed.engines) - syncs_before,
        harness: HARNESS_SYNCS.load(Ordering::Relaxed) - harness_before,
    };
    // Reported, even after an error.
    observer.job_ended(&JobRun {
        job,
        run_id,
        status: end.status(),
        error: error.as_deref(),
        finished_at: &finished_at,
        manifest: &manifest,
        trials: &trials,
        templates: &templates,
        process_syncs,
    })?;
    Ok(Stored {
        run_id,
        code,
        error,
        kept: trials.iter().filter(|t| !t.warmup).count(),
        side,
        stored: trials.len(),
    })
}

/// How a session ended: the ids of the runs it stored (as they were stored, however it ended)
/// and its exit code or the one-line failure.
#[derive(Debug)]
pub struct Outcome {
    pub run_ids: Vec<i64>,
    pub result: Result<i32, Failure>,
}

/// Runs one session: every job of the plan (or this shard's part of it), reported through
/// `observer`. `planned` is the plan [`crate::bench::plan::plan_to_run`] made, or why it could not: after a
/// stop request, the stop (a read the stop cut short fails the plan).
pub fn run(planned: Result<Plan, Failure>, observer: &mut dyn RunObserver) -> Outcome {
    let mut run_ids = Vec::new();
    let result = session(planned, observer, &mut run_ids);
    Outcome { run_ids, result }
}

/// Says how many SQLite builds opening the engines will fetch and compile, and about how long
/// that takes, before the first starts (`--engine sqlite@all`: about a hundred, an hour and
/// more). One build says so itself as it starts.
fn announce_builds(engines: &[String]) {
    use crate::engines::sqlite::compiled::{selection, BuildCache};
    let Ok(cache) = BuildCache::from_env() else {
        return;
    };
    let to_build = selection::to_build(engines, &cache);
    if to_build.builds > 1 {
        crate::errln!("engines: {}", to_build.describe(1));
    }
}

fn session(
    planned: Result<Plan, Failure>,
    observer: &mut dyn RunObserver,
    run_ids: &mut Vec<i64>,
) -> Result<i32, Failure> {
    // Ctrl-C, SIGTERM and SIGHUP are a request to stop cleanly: finished trials are kept,
    // servers stopped, mounts undone, scratch files removed (installed before the plan was made).
    let stop = crate::sys::signals::stop_flag()?;
    let plan = match planned {
        Ok(plan) => plan,
        // A read the stop cut short (a long log's) fails the plan: the stop is the answer.
        Err(_) if stop.load(Ordering::Relaxed) => return Ok(interrupted_before_trials()),
        Err(e) => return Err(e),
    };
    observer.started(&plan);
    if let Some(code) = before_start(&plan, &stop) {
        return Ok(code);
    }
    if let Guest::Host { memory_bytes } = plan.guest {
        return crate::bench::guest::run(&plan, memory_bytes, &stop, observer, run_ids);
    }
    announce_builds(&plan.engine_names);
    let bed = Testbed::open(&plan)?;
    if stop.load(Ordering::Relaxed) {
        return Ok(interrupted_before_trials());
    }
    let stored = run_jobs(&plan, &bed, &stop, observer, run_ids)?;
    close(bed);
    let failures = observer.ended(run_ids);
    exit_code(&plan, &stored, failures)
}

/// Says the plan's warnings once (kept in the manifest of each run concerned); the exit code
/// when a stop request came while the plan was made.
fn before_start(plan: &Plan, stop: &AtomicBool) -> Option<i32> {
    if !plan.in_guest() {
        for w in &plan.warnings {
            crate::errln!("warning: {w}");
        }
    }
    stop.load(Ordering::Relaxed).then(interrupted_before_trials)
}

/// Opens the results store (once everything else is accepted, so a refused run creates no store,
/// and before anything is measured, so a store that cannot be used stops the run first), then
/// runs this process's jobs one after the other until one does not end complete.
fn run_jobs(
    plan: &Plan,
    bed: &Testbed,
    stop: &Arc<AtomicBool>,
    observer: &mut dyn RunObserver,
    run_ids: &mut Vec<i64>,
) -> Result<Vec<Stored>, Failure> {
    let mut store = Store::open_until(&plan.places.results, plan.places.results_given, Some(stop.clone()))?;
    import_side_files(bed.scratch.base(), &mut store)?;
    let machine = Machine::describe(plan, &bed.scratch)?;
    let ctx = Context {
        plan,
        bed,
        machine: &machine,
        stop,
    };
    let mut stored: Vec<Stored> = Vec::new();
    for &j in &plan.mine {
        if plan.several() && stop.load(Ordering::Relaxed) {
            break;
        }
        let s = run_job(&ctx, &mut store, j, observer)?;
        run_ids.push(s.run_id);
        let done = s.code != 0;
        stored.push(s);
        if done {
            break;
        }
    }
    Ok(stored)
}

/// Closes the testbed (servers stopped, filesystems unmounted, the device's scheduler put back,
/// scratch files removed) and says what the counting VFS caught.
fn close(bed: Testbed) {
    drop(bed);
    let faults = crate::engines::sqlite::guard::faults();
    if faults.count > 0 {
        crate::errln!(
            "warning: the counting VFS caught {} failure(s) in its callbacks (first: {}); each became an I/O error for SQLite, so the affected trials failed rather than being miscounted",
            faults.count,
            faults.first.as_deref().unwrap_or("unknown")
        );
    }
}

/// The session's exit code or its one-line failure, from how its last job ended and what the
/// observer could not write (each said in a line of its own, the last one the session's error
/// when the run itself went well).
fn exit_code(plan: &Plan, stored: &[Stored], mut output_failures: Vec<Failure>) -> Result<i32, Failure> {
    let Some(last) = stored.last() else {
        return Ok(EXIT_INTERRUPTED);
    };
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
    let (base, results) = (plan.places.base(), &plan.places.results);
    if let Some(e) = &last.error {
        if plan.in_guest() {
            return Err(Failure(e.clone()));
        }
        if let Some(side) = &last.side {
            return Err(Failure(format!(
                "{e}; run {}'s {} finished trials are kept in {}",
                last.run_id,
                last.kept,
                side_note(side, base, results)
            )));
        }
        return Err(Failure(format!(
            "{e} (run {}: {} finished trials kept in {})",
            last.run_id,
            last.kept,
            results.display()
        )));
    }
    let interrupted = last.code == EXIT_INTERRUPTED || stored.len() < plan.mine.len();
    if interrupted && plan.in_guest() {
        return Ok(EXIT_INTERRUPTED);
    }
    if interrupted {
        let kept: usize = stored.iter().map(|s| s.stored).sum();
        let ids: Vec<String> = stored.iter().map(|s| s.run_id.to_string()).collect();
        match stored.iter().find_map(|s| s.side.as_ref()) {
            Some(side) => crate::errln!(
                "interrupted: {kept} finished trials of run {}; the results store could not take them all, so they are kept in {}",
                ids.join(", "),
                side_note(side, base, results)
            ),
            None => crate::errln!(
                "interrupted: {kept} finished trials kept as run {} in {}",
                ids.join(", "),
                results.display()
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
