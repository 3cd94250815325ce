//! The runner: templates, interleaved trials, and nothing lost on the way.
//!
//! A database is populated once per (engine, create-time knobs) into a template; every trial
//! starts from a byte-identical, durable copy of it. Configurations are interleaved trial by
//! trial (round 0: A B C, round 1: A B C, ...) so drift in the machine hits all of them alike,
//! and every finished trial is handed to the caller at once to be stored.

use crate::bench::cold::{drop_caches, DropCachesError};
use crate::bench::connect::connect_configured;
use crate::bench::plan::Trials;
use crate::engines::interrupt::watching;
use crate::engines::{Connection, DbRef, Engine, EngineError, ErrorKind};
use crate::model::knob::{self, KnobError, KnobReading, KnobSet, Stage};
use crate::model::params::Params;
use crate::model::record::{ConfigInfo, TemplateRecord, TrialRecord};
use crate::store::StoreError;
use crate::sys::dbfiles::{DbFiles, Layout};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::{IoCounters, IoSnapshot};
use crate::sys::procstat::KernelSnapshot;
use crate::sys::scratch::{Scratch, ScratchError};
use crate::workload::recorder::Recorder;
use crate::workload::{Connector, PopulateError, Population, Trial, Workload, WorkloadError};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// One job bound to the opened engines and the places it runs in: what [`execute`] runs.
pub struct JobPlan<'a> {
    pub workload: &'static dyn Workload,
    pub params: &'a Params,
    /// The run's engines, borrowed for the job.
    pub engines: &'a [Box<dyn Engine>],
    /// Configurations in run order.
    pub configs: &'a [Bound],
    pub trials: &'a Trials,
    /// `--clients`, `--rate`, `--latency-limit`, `--max-tries` (a sweep's configuration has
    /// its own, [`ConfigInfo::load`]).
    pub load: &'a crate::model::load::LoadShape,
}

/// A configuration as the manifest records it, with its engine's position in
/// [`JobPlan::engines`].
#[derive(Debug, Clone)]
pub struct Bound {
    pub info: ConfigInfo,
    pub engine: usize,
}

/// How a run or a job ended: complete, interrupted (finished trials kept), or failed with its
/// one-line error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    Complete,
    /// Ctrl-C (or SIGTERM): finished trials are kept, the one in progress is discarded.
    Interrupted,
    Failed(String),
}

impl End {
    /// The status the store records.
    pub fn status(&self) -> &'static str {
        match self {
            End::Complete => "complete",
            End::Interrupted => "interrupted",
            End::Failed(_) => "failed",
        }
    }

    /// The exit code it gives.
    pub fn code(&self) -> i32 {
        match self {
            End::Complete => 0,
            End::Interrupted => crate::sys::signals::EXIT_INTERRUPTED,
            End::Failed(_) => 2,
        }
    }

    /// The error line of a failed end.
    pub fn error(&self) -> Option<&str> {
        match self {
            End::Failed(e) => Some(e),
            _ => None,
        }
    }
}

/// Why a run stopped. Trials finished before the error have already been stored.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Knob(#[from] KnobError),
    #[error("{config}: {source}")]
    Engine { config: String, source: EngineError },
    #[error("the disk under {dir} is full ({detail}); free space there or point --dir at a larger filesystem")]
    DiskFull { dir: PathBuf, detail: String },
    #[error(transparent)]
    Scratch(#[from] ScratchError),
    #[error("{config}: {detail}")]
    Verification { config: String, detail: String },
    #[error(transparent)]
    DropCaches(#[from] DropCachesError),
    /// An engine that cannot start trials cold (the message names it and the way out).
    #[error("{0}")]
    Cold(String),
    /// A results store error; its message names the store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Two configurations answered a query differently (see [`crate::bench::answers`]).
    #[error(transparent)]
    WrongAnswer(#[from] Box<crate::bench::answers::Mismatch>),
    /// The workload's input is bad (a malformed `.tbl` line): the message names what to fix.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Scheduler(#[from] crate::testbed::scheduler::SchedulerError),
    #[error(transparent)]
    Throttle(#[from] crate::testbed::throttle::ThrottleError),
    /// `--measure instructions` could not count a trial (the message says why and what to do).
    #[error("{0}")]
    Instructions(String),
}

/// Further connections for multi-client workloads, set up like the trial's first.
struct MoreConnections<'a> {
    /// The workload and parameters, for clients in processes of their own.
    workload: &'static str,
    params: &'a Params,
    engine: &'a dyn Engine,
    db: &'a DbRef,
    cfg: &'a ConfigInfo,
    allow_unverified: bool,
}

impl Connector for MoreConnections<'_> {
    fn open(&self) -> Result<Box<dyn crate::engines::Connection>, WorkloadError> {
        connect_configured(self.engine, self.db, &self.cfg.knobs, self.allow_unverified)
    }

    fn open_with(&self, knobs: &[(String, String)]) -> Result<Box<dyn crate::engines::Connection>, WorkloadError> {
        connect_configured(self.engine, self.db, &self.knobs_with(knobs), self.allow_unverified)
    }

    fn spawn(
        &self,
        index: u32,
        seed: u64,
        load: &crate::model::load::LoadShape,
        role: Option<&crate::model::cast::Role>,
    ) -> Result<Box<dyn crate::workload::remote::RemoteClient>, WorkloadError> {
        let (knobs, params) = match role {
            None => (self.cfg.knobs.clone(), self.params.clone()),
            Some(r) => {
                let mut params = self.params.clone();
                params.0.extend(r.params.0.clone());
                (self.knobs_with(&r.knobs), params)
            }
        };
        crate::bench::client_process::spawn(&crate::bench::client_process::ClientSpec {
            workload: self.workload.to_string(),
            params,
            engine: self.cfg.engine.clone(),
            knobs,
            allow_unverified: self.allow_unverified,
            db_name: self.db.name.clone(),
            db: self.db.path.clone(),
            server: self.engine.process_client_url(),
            index,
            seed,
            load: load.clone(),
            progress: load.progress,
            storage: self.cfg.storage.as_ref().map(|s| s.spec.clone()),
        })
    }

    fn driver(&self) -> Option<&str> {
        crate::bench::driver_process::driver_of(&self.cfg.knobs)
    }

    fn start_driver(
        &self,
        index: u32,
        role: Option<&crate::model::cast::Role>,
        statements: &[crate::model::driver::Statement],
        max_tries: u32,
        backoff_ns: &[u64],
    ) -> Result<Box<dyn crate::workload::driven::DriverLink>, WorkloadError> {
        use crate::bench::driver_process as dp;
        let knobs = match role {
            Some(r) => self.knobs_with(&r.knobs),
            None => self.cfg.knobs.clone(),
        };
        let name = dp::driver_of(&knobs).unwrap_or(crate::model::driver::RUST);
        let path = self.db.path.as_deref().ok_or_else(|| {
            crate::workload::driven::failed(name, "a driver opens a database file; this trial has none")
        })?;
        let knobs = dp::knobs_for_driver(&knobs, self.engine.passthrough_prefix());
        let (process, _) = dp::start(&dp::OpenSpec {
            name,
            path,
            knobs: &knobs,
            statements,
            max_tries,
            backoff_ns,
            client: index,
        })?;
        Ok(Box::new(process))
    }
}

impl MoreConnections<'_> {
    /// The configuration's knobs with `knobs` (a cast role's own) set over them, for this engine.
    fn knobs_with(&self, knobs: &[(String, String)]) -> KnobSet {
        self.cfg
            .knobs
            .with_over(knobs)
            .for_engine(self.engine.knob_specs(), self.engine.passthrough_prefix())
    }
}

/// Seed of one round's data: every configuration in a round sees the same operations.
pub fn trial_seed(run_seed: u64, round: u32) -> u64 {
    run_seed ^ (round as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn engine_error(scratch: &Scratch, config: &str, e: EngineError) -> RunError {
    if e.kind == ErrorKind::Input {
        return RunError::Input(e.message);
    }
    if e.kind == ErrorKind::Full {
        RunError::DiskFull {
            dir: scratch.base().to_path_buf(),
            detail: e.message,
        }
    } else {
        RunError::Engine {
            config: config.to_string(),
            source: e,
        }
    }
}

fn workload_error(scratch: &Scratch, config: &str, e: WorkloadError) -> Option<RunError> {
    match e {
        WorkloadError::Engine(e) => Some(engine_error(scratch, config, e)),
        WorkloadError::Interrupted => None,
        WorkloadError::Knob(k) => Some(RunError::Knob(k)),
        WorkloadError::Verification { detail, .. } => Some(RunError::Verification {
            config: config.to_string(),
            detail,
        }),
    }
}

fn create_stage(engine: &dyn Engine, knobs: &KnobSet) -> String {
    let specs = engine.knob_specs();
    knobs
        .0
        .iter()
        .filter(|k| k.stage_in(specs) == Stage::Create)
        .map(|k| format!("{}={}", k.name, k.value))
        .collect::<Vec<_>>()
        .join(",")
}

/// Runs the workload's population while a [`Watch`](crate::engines::interrupt::Watch) turns a
/// stop request into an interrupt of the statement running (where the engine has one): row
/// loops check the flag themselves, but one long statement (an index build, `ANALYZE`) would
/// otherwise hold a stop up until it ends. An error after a stop request is the interruption.
fn populate_interruptibly(
    plan: &JobPlan<'_>,
    conn: &mut dyn Connection,
    pop: &Population<'_>,
) -> Result<u64, PopulateError> {
    let result = watching(pop.stop, |watch| {
        let _interrupted_on_stop = watch.register(&*conn);
        plan.workload.populate(conn, pop)
    });
    match result {
        Err(PopulateError::Engine(_)) if pop.stop.load(Ordering::Relaxed) => Err(PopulateError::Interrupted),
        r => r,
    }
}

/// Creates a template and fills it the workload's way, with the create-stage knobs applied;
/// returns it with its population record (rows, time, size on disk once closed). Once `stop`
/// is set the population ends within a few hundred rows and the half-filled template is
/// dropped: [`PopulateError::Interrupted`], also for an engine error that follows the request
/// (what stopping a statement looks like to the engine).
fn populate(
    plan: &JobPlan<'_>,
    engine: &dyn Engine,
    scratch: &Scratch,
    stop: &AtomicBool,
    name: &str,
    cfg: &ConfigInfo,
) -> Result<(DbRef, TemplateRecord), PopulateError> {
    let mut pop = Population::new(plan.params, plan.trials.seed, stop);
    pop.knobs = cfg.knobs.clone();
    pop.check()?;
    let db = engine.create_database(scratch, name)?;
    let start = Instant::now();
    let filled = (|| -> Result<u64, PopulateError> {
        if let Some(source) = plan.workload.template_file(plan.params) {
            copy_template(engine, &source, &db)?;
            return Ok(0);
        }
        let mut conn = engine.connect(&db)?;
        engine.apply_knobs(conn.as_mut(), &cfg.knobs, Stage::Create)?;
        engine.bulk_load_mode(conn.as_mut())?;
        let rows = populate_interruptibly(plan, conn.as_mut(), &pop)?;
        drop(conn);
        pop.check()?;
        engine.finish_population(&db)?;
        Ok(rows)
    })();
    let elapsed = start.elapsed();
    match filled {
        Ok(rows) => {
            let record = TemplateRecord {
                config: cfg.index,
                engine: engine.label().to_string(),
                create_knobs: create_stage(engine, &cfg.knobs),
                rows,
                populate_ns: elapsed.as_nanos() as u64,
                rows_per_sec: if elapsed.is_zero() {
                    0.0
                } else {
                    rows as f64 / elapsed.as_secs_f64()
                },
                bytes: engine.database_size(&db),
                load_path: pop.load_path(),
            };
            Ok((db, record))
        }
        Err(e) => {
            engine.drop_database(scratch, &db);
            match e {
                PopulateError::Engine(_) if pop.check().is_err() => Err(PopulateError::Interrupted),
                e => Err(e),
            }
        }
    }
}

/// Makes the template a byte-identical copy of the user's database file `source` (read, never
/// opened by an engine, so never written), for workloads that start from one
/// ([`crate::workload::Workload::template_file`]).
fn copy_template(engine: &dyn Engine, source: &std::path::Path, db: &DbRef) -> Result<(), EngineError> {
    let err = |message: String| EngineError {
        busy_cause: None,
        engine: engine.label().to_string(),
        kind: ErrorKind::Io,
        code: None,
        message,
        context: format!("copying {} into the template", source.display()),
    };
    let Some(to) = &db.path else {
        return Err(err(
            "this engine's databases are not files; a database file is SQLite's".into(),
        ));
    };
    // Checked again on the descriptor that is copied: the path may have become a FIFO since
    // the plan checked it.
    let mut from = crate::sys::regular::open(source).map_err(|e| err(e.to_string()))?;
    // A new file in the run's own directory: never one that is there already, nor a link.
    let mut into = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(|e| err(e.to_string()))?;
    std::io::copy(&mut from, &mut into).map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// Where the runner delivers what it measured, as soon as it is measured.
pub trait Sink {
    /// A template was populated.
    fn template(&mut self, t: &TemplateRecord) -> Result<(), RunError>;
    /// A trial finished (warm-ups included).
    fn trial(&mut self, t: &TrialRecord) -> Result<(), RunError>;
    /// Something after the trials went wrong without changing their numbers (a server setting
    /// that could not be put back): one line, saying what to do. Printed on stderr unless the
    /// sink also keeps it.
    fn warning(&mut self, message: &str) {
        crate::errln!("warning: {message}");
    }
}

/// Checks that every engine can start trials cold and reads the settings the run will change,
/// before anything is changed.
fn prepare_engines(plan: &JobPlan<'_>) -> Result<(), RunError> {
    if plan.trials.cold {
        for engine in plan.engines {
            engine.cold_trial().map_err(RunError::Cold)?;
        }
    }
    for Bound { info: cfg, engine } in plan.configs {
        plan.engines[*engine]
            .prepare_settings(&[&cfg.knobs])
            .map_err(|source| RunError::Engine {
                config: cfg.label.clone(),
                source,
            })?;
    }
    Ok(())
}

/// Where each configuration's databases live: the run's scratch directory, or the trial
/// directory on the `--fs` filesystem the configuration names.
pub struct Places<'a> {
    pub scratch: &'a Scratch,
    /// Per `--fs` index.
    pub on_fs: Vec<&'a Scratch>,
}

impl<'a> Places<'a> {
    /// The directory of filesystem `fs` (`None`: the scratch directory).
    fn at(&self, fs: Option<usize>) -> &'a Scratch {
        match fs {
            None => self.scratch,
            Some(i) => self.on_fs[i],
        }
    }

    fn of(&self, cfg: &ConfigInfo) -> &'a Scratch {
        self.at(cfg.fs.as_ref().map(|f| f.index))
    }
}

/// Runs the plan, handing every template and finished trial to `sink` before going on;
/// `progress` is ticked once per trial.
pub fn execute(
    plan: &JobPlan<'_>,
    places: &Places<'_>,
    stop: &AtomicBool,
    progress: &indicatif::ProgressBar,
    sink: &mut dyn Sink,
) -> Result<End, RunError> {
    prepare_engines(plan)?;
    // Templates, one per engine, create-time knob set and filesystem.
    let mut templates: Templates = HashMap::new();
    let mut result = Ok(End::Complete);
    if !plan.trials.memory {
        for Bound {
            info: cfg,
            engine: engine_idx,
        } in plan.configs
        {
            let engine = plan.engines[*engine_idx].as_ref();
            let key = template_key(engine, *engine_idx, cfg);
            if templates.contains_key(&key) {
                continue;
            }
            progress.set_message(format!("populating {}", cfg.label));
            let scratch = places.of(cfg);
            match populate(
                plan,
                engine,
                scratch,
                stop,
                &format!("template-{}", templates.len()),
                cfg,
            ) {
                Ok((db, record)) => {
                    templates.insert(key, db);
                    if let Err(e) = sink.template(&record) {
                        result = Err(e);
                        break;
                    }
                }
                Err(PopulateError::Interrupted) => {
                    result = Ok(End::Interrupted);
                    break;
                }
                Err(PopulateError::Engine(e)) => {
                    result = Err(engine_error(scratch, &cfg.label, e));
                    break;
                }
            }
        }
    }
    if matches!(result, Ok(End::Complete)) {
        result = run_rounds(plan, places, stop, progress, sink, &templates);
    }
    for ((engine_idx, _, fs), db) in &templates {
        plan.engines[*engine_idx].drop_database(places.at(*fs), db);
    }
    // However the run ended: a server is left with the settings it had.
    for engine in plan.engines {
        for w in engine.restore_settings() {
            sink.warning(&w);
        }
    }
    result
}

/// Puts the configuration's I/O scheduler (`--scheduler`) on the loop device litebench made for
/// its filesystem, and checks it reads back.
fn set_scheduler(cfg: &ConfigInfo) -> Result<(), RunError> {
    if let (Some(s), Some(dev)) = (&cfg.scheduler, cfg.fs.as_ref().and_then(|f| f.block_device())) {
        crate::testbed::scheduler::set(dev, s)?;
    }
    if let (Some(s), Some(dev)) = (&cfg.scheduler, &cfg.scheduler_device) {
        crate::testbed::scheduler::set(dev, s)?;
    }
    Ok(())
}

/// Templates by (engine index, create-stage knobs, `--fs` index).
type Templates = HashMap<(usize, String, Option<usize>), DbRef>;

fn template_key(engine: &dyn Engine, engine_idx: usize, cfg: &ConfigInfo) -> (usize, String, Option<usize>) {
    (
        engine_idx,
        create_stage(engine, &cfg.knobs),
        cfg.fs.as_ref().map(|f| f.index),
    )
}

fn run_rounds(
    plan: &JobPlan<'_>,
    places: &Places<'_>,
    stop: &AtomicBool,
    progress: &indicatif::ProgressBar,
    sink: &mut dyn Sink,
    templates: &Templates,
) -> Result<End, RunError> {
    let mut seq = 0u64;
    let mut answers = crate::bench::answers::AnswerBook::default();
    for round in 0..plan.trials.warmup + plan.trials.trials {
        for Bound {
            info: cfg,
            engine: engine_idx,
        } in plan.configs
        {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok(End::Interrupted);
            }
            let warmup = round < plan.trials.warmup;
            progress.set_message(format!(
                "configuration {}/{}: {}{}",
                cfg.index + 1,
                plan.configs.len(),
                if warmup { "warm-up " } else { "" },
                cfg.label
            ));
            let engine = plan.engines[*engine_idx].as_ref();
            let template = templates.get(&template_key(engine, *engine_idx, cfg));
            let scratch = places.of(cfg);
            set_scheduler(cfg)?;
            match trial(plan, scratch, stop, cfg, *engine_idx, template, round, seq)? {
                Some(record) => {
                    sink.trial(&record)?;
                    // Stored first: a wrong answer fails the run, but the trial stays on record.
                    answers.check(&cfg.label, &record.queries)?;
                }
                None => return Ok(End::Interrupted),
            }
            progress.inc(1);
            seq += 1;
        }
    }
    Ok(End::Complete)
}

/// One trial on its own database (or the template), then its sidecars' scratch directory
/// removed as the cast says ([`Scratch::end_trial_dir`]).
#[allow(clippy::too_many_arguments)]
fn trial(
    plan: &JobPlan<'_>,
    scratch: &Scratch,
    stop: &AtomicBool,
    cfg: &ConfigInfo,
    engine_idx: usize,
    template: Option<&DbRef>,
    round: u32,
    seq: u64,
) -> Result<Option<TrialRecord>, RunError> {
    let outcome = trial_on_db(plan, scratch, stop, cfg, engine_idx, template, round, seq);
    let load = cfg.load.as_ref().unwrap_or(plan.load);
    if let Some(cast) = &load.cast {
        let sidecars: Vec<_> = cast.roles.iter().filter_map(|r| r.sidecar.as_ref()).collect();
        if !sidecars.is_empty() {
            scratch.end_trial_dir(&trial_files(seq), sidecars.iter().all(|s| !s.keep));
        }
    }
    outcome
}

/// The name of trial `seq`'s files in the run directory (its database, its scratch directory).
fn trial_files(seq: u64) -> String {
    format!("trial-{seq}")
}

#[allow(clippy::too_many_arguments)]
fn trial_on_db(
    plan: &JobPlan<'_>,
    scratch: &Scratch,
    stop: &AtomicBool,
    cfg: &ConfigInfo,
    engine_idx: usize,
    template: Option<&DbRef>,
    round: u32,
    seq: u64,
) -> Result<Option<TrialRecord>, RunError> {
    let engine = plan.engines[engine_idx].as_ref();
    let seed = trial_seed(plan.trials.seed, round);
    let name = trial_files(seq);
    // A workload that never writes runs on the template itself (no copy of a database of
    // hundreds of megabytes per trial), except for cold trials, which start from a copy no
    // cache has seen (DuckDB: a new database instance), and for configurations whose knobs write
    // into the file (SQLite's WAL mode), which would carry over to the next configuration.
    let file_knob = cfg
        .knobs
        .0
        .iter()
        .any(|k| engine.kind().file_knobs.contains(&k.name.as_str()));
    if let (Some(t), true) = (template, plan.workload.read_only() && !plan.trials.cold && !file_knob) {
        return measure(plan, scratch, stop, cfg, engine, t, round, seq, seed);
    }
    // Without a template (in-memory databases) the trial's own connection populates.
    let db = match template {
        Some(t) => engine.clone_database(scratch, t, &name),
        None => engine.create_database(scratch, &name),
    };
    let db = match db {
        Ok(db) => db,
        // A stop request that ended the copy: the trial never started.
        Err(_) if stop.load(std::sync::atomic::Ordering::Relaxed) => return Ok(None),
        Err(e) => return Err(engine_error(scratch, &cfg.label, e)),
    };
    let outcome = measure(plan, scratch, stop, cfg, engine, &db, round, seq, seed);
    engine.drop_database(scratch, &db);
    outcome
}

/// How `--progress` lines name a trial: `#1 journal_mode=wal, trial 2/3` (or `warm-up 1/1`).
/// The operation types a trial records: the workload's, or with a cast each workload role's
/// under its name (`ROLE:OP`), each role's from its own parameters (the run's with the role's
/// over them).
fn operation_types(plan: &JobPlan<'_>, dialect: Option<crate::engines::Dialect>) -> Vec<crate::model::op::OpType> {
    match &plan.load.cast {
        Some(cast) => cast.op_types(&|role| {
            let mut params = plan.params.clone();
            params.0.extend(role.params.0.clone());
            plan.workload.operation_types(&params, dialect)
        }),
        None => plan.workload.operation_types(plan.params, dialect),
    }
}

fn trial_name(plan: &JobPlan<'_>, cfg: &ConfigInfo, round: u32) -> String {
    if round < plan.trials.warmup {
        format!(
            "#{} {}, warm-up {}/{}",
            cfg.index,
            cfg.label,
            round + 1,
            plan.trials.warmup
        )
    } else {
        format!(
            "#{} {}, trial {}/{}",
            cfg.index,
            cfg.label,
            round - plan.trials.warmup + 1,
            plan.trials.trials
        )
    }
}

/// One trial's place in the run: what each piece of [`measure`] reads.
struct TrialAt<'a> {
    plan: &'a JobPlan<'a>,
    scratch: &'a Scratch,
    stop: &'a AtomicBool,
    cfg: &'a ConfigInfo,
    engine: &'a dyn Engine,
    db: &'a DbRef,
    round: u32,
    seq: u64,
    seed: u64,
}

impl TrialAt<'_> {
    /// An engine's error as the run reports it: naming the configuration and its scratch directory.
    fn fail(&self, e: EngineError) -> RunError {
        engine_error(self.scratch, &self.cfg.label, e)
    }

    /// A workload's error: the run's, or `Ok(None)` where only the trial is discarded.
    fn workload_failed<T>(&self, e: WorkloadError) -> Result<Option<T>, RunError> {
        match workload_error(self.scratch, &self.cfg.label, e) {
            Some(err) => Err(err),
            None => Ok(None),
        }
    }
}

/// What [`prepare`] opened and read for the pieces after it. Fields drop in the order they are
/// declared: the connection before the database's files, whose descriptor must outlive every
/// connection (see `sys::dbfiles`).
struct Prepared {
    rec: Recorder,
    knobs: Vec<KnobReading>,
    conn: Box<dyn Connection>,
    files: Option<DbFiles>,
    /// Whether this trial counts instructions (`--measure instructions`, under callgrind).
    counting: bool,
    mode_at_start: Option<String>,
    started_unix_ms: u64,
    counters: Option<Arc<IoCounters>>,
    kernel0: KernelSnapshot,
    device0: Option<DeviceIo>,
    io0: IoSnapshot,
}

/// One trial, as a pipeline: [`prepare`], [`run_workload`], [`harvest`]. `None` where a stop
/// request or the workload discarded the trial.
#[allow(clippy::too_many_arguments)]
fn measure(
    plan: &JobPlan<'_>,
    scratch: &Scratch,
    stop: &AtomicBool,
    cfg: &ConfigInfo,
    engine: &dyn Engine,
    db: &DbRef,
    round: u32,
    seq: u64,
    seed: u64,
) -> Result<Option<TrialRecord>, RunError> {
    let at = TrialAt {
        plan,
        scratch,
        stop,
        cfg,
        engine,
        db,
        round,
        seq,
        seed,
    };
    let Some(mut prepared) = prepare(&at)? else {
        return Ok(None);
    };
    let on_storage = storage_on(cfg, seed)?;
    let ran = run_workload(&at, &mut prepared)?;
    drop(on_storage);
    if !ran {
        return Ok(None);
    }
    harvest(&at, prepared)
}

/// `--storage` in force for the workload's run: the emulated delays on (seeded by the trial),
/// and this process inside the cgroup that throttles the configuration's device. Both end when
/// the returned guards drop, whatever happened.
fn storage_on(
    cfg: &ConfigInfo,
    seed: u64,
) -> Result<
    (
        Option<crate::sys::storage_delay::Active>,
        Option<crate::testbed::throttle::Entered>,
    ),
    RunError,
> {
    let Some(s) = &cfg.storage else {
        return Ok((None, None));
    };
    let entered = match &s.throttle {
        Some(t) => Some(crate::testbed::throttle::enter(t)?),
        None => None,
    };
    let emulated = s
        .spec
        .emulated()
        .then(|| crate::sys::storage_delay::activate(s.spec.delays, seed));
    Ok((emulated, entered))
}

/// Everything a trial needs before its clock starts, so that the clock times the workload
/// alone: the caches emptied (`--cold`), the counters read, the connection opened (an
/// in-memory database populated) with its knobs set and read back, and the recorder.
fn prepare(at: &TrialAt<'_>) -> Result<Option<Prepared>, RunError> {
    let (plan, engine) = (at.plan, at.engine);
    if plan.trials.cold {
        make_cold(at)?;
    }
    let started_unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let counters = engine.io_counters();
    let kernel0 = KernelSnapshot::take();
    let device0 = engine.device_io();
    let io0 = io_now(&counters);
    // Opened before the connection and dropped after it: see `sys::dbfiles` on why.
    let files = db_files(engine, at.db).filter(|_| !plan.trials.memory);
    let mut conn = engine.connect(at.db).map_err(|e| at.fail(e))?;
    if plan.trials.memory {
        engine
            .apply_knobs(conn.as_mut(), &at.cfg.knobs, Stage::Create)
            .map_err(|e| at.fail(e))?;
        let mut pop = Population::new(plan.params, plan.trials.seed, at.stop);
        pop.knobs = at.cfg.knobs.clone();
        match populate_interruptibly(plan, conn.as_mut(), &pop) {
            Ok(_) => {}
            Err(PopulateError::Interrupted) => return Ok(None),
            Err(PopulateError::Engine(e)) => return Err(at.fail(e)),
        }
    }
    let knobs = set_knobs(at, conn.as_mut())?;
    let mode_at_start = journal_mode(engine, conn.as_mut());
    let types = operation_types(plan, engine.kind().dialect);
    let mut rec = Recorder::of_types(&types, counters.clone());
    let counting = plan.trials.instructions && crate::bench::instructions::inner();
    if let Some(dumps) = crate::sys::valgrind::Dumps::of_this_process().filter(|_| counting) {
        rec.count_instructions(dumps);
    }
    Ok(Some(Prepared {
        rec,
        knobs,
        conn,
        files,
        counting,
        mode_at_start,
        started_unix_ms,
        counters,
        kernel0,
        device0,
        io0,
    }))
}

/// `--cold`: the OS's page cache dropped and the engine's own cache emptied (a server
/// restarts around the drop), so the trial starts from storage.
fn make_cold(at: &TrialAt<'_>) -> Result<(), RunError> {
    let engine = at.engine;
    let mut os_error = None;
    let cold = engine.make_cold(&mut || {
        drop_caches().map_err(|e| {
            let err = EngineError {
                busy_cause: None,
                engine: engine.label().to_string(),
                kind: ErrorKind::Io,
                code: None,
                message: e.to_string(),
                context: "dropping the page cache".into(),
            };
            os_error = Some(e);
            err
        })
    });
    if let Some(e) = os_error {
        return Err(e.into());
    }
    cold.map_err(|e| at.fail(e))
}

/// The configuration's connect-time knobs set on the trial's connection and read back, so a
/// knob the engine did not take stops the run before anything is timed; what was read is
/// what the trial records.
fn set_knobs(at: &TrialAt<'_>, conn: &mut dyn Connection) -> Result<Vec<KnobReading>, RunError> {
    let (engine, plan) = (at.engine, at.plan);
    engine
        .apply_knobs(conn, &at.cfg.knobs, Stage::Connect)
        .map_err(|e| at.fail(e))?;
    let mut knobs = engine.read_knobs(conn, &at.cfg.knobs).map_err(|e| at.fail(e))?;
    knob::verify(
        &knobs,
        engine.label(),
        engine.passthrough_prefix(),
        plan.trials.allow_unverified,
        &|k| engine.knob_hint(k),
    )?;
    if let Some(bare) = plan.workload.bare_begins(plan.params) {
        knob::begin_of_user_sql(&mut knobs, bare);
    }
    Ok(knobs)
}

/// The workload run under the stop watch: a stop request interrupts the statements running
/// (this connection's, and each further client's, which the load driver registers), since one
/// long statement would otherwise hold the stop up until it ends. False where the trial is
/// discarded.
fn run_workload(at: &TrialAt<'_>, p: &mut Prepared) -> Result<bool, RunError> {
    let plan = at.plan;
    let connector = MoreConnections {
        workload: plan.workload.name(),
        params: plan.params,
        engine: at.engine,
        db: at.db,
        cfg: at.cfg,
        allow_unverified: plan.trials.allow_unverified,
    };
    let name = trial_name(plan, at.cfg, at.round);
    let files_name = trial_files(at.seq);
    let ran = watching(at.stop, |watch| {
        let _interrupted_on_stop = watch.register(p.conn.as_ref());
        let trial = Trial {
            params: plan.params,
            seed: at.seed,
            run_seed: plan.trials.seed,
            stop: at.stop,
            connector: &connector,
            profile: at.round == plan.trials.warmup,
            knobs: &p.knobs,
            load: at.cfg.load.as_ref().unwrap_or(plan.load),
            watch: Some(watch),
            name: &name,
            files: p.files.as_ref(),
            place: at.db.path.as_deref().map(|path| crate::workload::Place {
                db: path,
                trial: &files_name,
                base: at.scratch.base(),
                run: at.scratch,
            }),
        };
        plan.workload.run(p.conn.as_mut(), &trial, &mut p.rec)
    });
    match ran {
        Ok(_) => Ok(true),
        // After a stop request an error is the interruption (what a stopped statement looks
        // like to the engine): the trial is discarded, not the run failed.
        Err(_) if at.stop.load(Ordering::Relaxed) => Ok(false),
        Err(e) => at.workload_failed::<()>(e).map(|_| false),
    }
}

/// The trial's record, read once the workload is done: what the recorder holds, the
/// workload's own check of the database (`verify_after`), and the I/O, CPU and device
/// counters since [`prepare`] read them.
fn harvest(at: &TrialAt<'_>, mut p: Prepared) -> Result<Option<TrialRecord>, RunError> {
    let (plan, cfg, engine) = (at.plan, at.cfg, at.engine);
    let journal_mode_change = mode_changed(p.mode_at_start.take(), journal_mode(engine, p.conn.as_mut()));
    let result_hash = p.rec.take_result_hash();
    let queries = p.rec.take_queries();
    let series = p.rec.take_series();
    let cast = p.rec.take_cast_events();
    let instruction_error = p.rec.take_instruction_error();
    let interval_instructions = p.rec.interval_instructions();
    let (ops, measured) = p.rec.finish();
    let instructions = trial_instructions(
        p.counting,
        instruction_error,
        &ops,
        interval_instructions,
        &cfg.label,
        plan.workload.name(),
    )?;
    if let Err(e) = plan
        .workload
        .verify_after(p.conn.as_mut(), plan.params, cfg.load.as_ref().unwrap_or(plan.load))
    {
        return at.workload_failed(e);
    }
    // Before the connection closes: a server backend's counters go with its process.
    let device_io = p.device0.and_then(|d0| Some(engine.device_io()?.since(&d0)));
    drop(p.conn);
    let io_trial = io_now(&p.counters).since(&p.io0);
    let kernel = KernelSnapshot::take().since(&p.kernel0);
    let io = ops
        .iter()
        .fold(Default::default(), |acc: IoSnapshot, o| acc.plus(&o.io));
    let total_ops: u64 = ops.iter().filter(|o| o.part_of.is_none()).map(|o| o.ops).sum();
    let measured_ns = measured.as_nanos() as u64;
    let throughput = if measured_ns == 0 {
        0.0
    } else {
        total_ops as f64 / (measured_ns as f64 / 1e9)
    };
    Ok(Some(TrialRecord {
        seq: at.seq,
        round: at.round,
        config: cfg.index,
        warmup: at.round < plan.trials.warmup,
        seed: at.seed,
        started_unix_ms: p.started_unix_ms,
        ops,
        total_ops,
        measured_ns,
        throughput,
        instructions,
        io,
        io_trial,
        kernel,
        device_io,
        knobs: p.knobs,
        result_hash,
        queries,
        series,
        cast,
        journal_mode_change,
    }))
}

/// The VFS shim's counts now (zero for an engine without them): read at a trial's start and end.
fn io_now(counters: &Option<Arc<IoCounters>>) -> IoSnapshot {
    counters.as_ref().map(|c| c.snapshot()).unwrap_or_default()
}

/// SQLite's journal mode on `conn` (`delete`, `wal`, ...); `None` for other engines, or where
/// it cannot be read (a lock held past the busy timeout).
fn journal_mode(engine: &dyn Engine, conn: &mut dyn crate::engines::Connection) -> Option<String> {
    if !std::ptr::eq(engine.kind(), &crate::engines::sqlite::KIND) {
        return None;
    }
    // A connection learns that another switched the file to WAL when it next reads it: read
    // first, so the pragma says the file's mode, not the mode this connection opened it in.
    conn.query("SELECT 1 FROM sqlite_schema LIMIT 1").ok()?;
    let rows = conn.query("PRAGMA journal_mode").ok()?;
    Some(rows.first()?.first()?.as_ref()?.to_ascii_lowercase())
}

/// The change between the journal modes a trial began and ended in, if any.
fn mode_changed(start: Option<String>, end: Option<String>) -> Option<crate::model::record::JournalModeChange> {
    match (start, end) {
        (Some(start), Some(end)) if start != end => Some(crate::model::record::JournalModeChange { start, end }),
        _ => None,
    }
}

/// The trial database's files, watched for the series, for an engine whose database is a file
/// in the scratch directory (or on a `--fs` filesystem); `None` for a server.
fn db_files(engine: &dyn Engine, db: &DbRef) -> Option<DbFiles> {
    let layout = match engine.kind().name {
        "sqlite" => Layout::Sqlite,
        "turso" => Layout::Turso,
        "duckdb" => Layout::DuckDb,
        _ => return None,
    };
    Some(DbFiles::open(db.path.as_deref()?, layout))
}

/// A trial's instructions under `--measure instructions`: its operation types' counts summed,
/// else the load driver's interval count; `None` when not counting. A count callgrind could not
/// give, or none at all (a workload that times itself), stops the run in one line.
fn trial_instructions(
    counting: bool,
    error: Option<crate::sys::valgrind::DumpError>,
    ops: &[crate::model::op::OpResult],
    interval: Option<u64>,
    label: &str,
    workload: &str,
) -> Result<Option<u64>, RunError> {
    if !counting {
        return Ok(None);
    }
    if let Some(e) = error {
        return Err(RunError::Instructions(format!(
            "{label}: --measure instructions: reading callgrind's count: {e}"
        )));
    }
    match ops.iter().filter_map(|o| o.instructions).reduce(|a, b| a + b).or(interval) {
        Some(n) => Ok(Some(n)),
        None => Err(RunError::Instructions(format!(
            "--measure instructions: workload {workload} gave callgrind no measured region to count (it times its trials by itself, or only inside its operations, as blob's one client does); count instructions with another workload (speedtest, crud, script, ycsb, tatp), blob with --clients 2 or more, or leave out --measure"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 48: a store's failure reaches the run as the store's own typed error (what the
    /// session's side file and its stop rule read), its one line unchanged.
    #[test]
    fn a_store_error_is_carried_typed_with_its_line() {
        let e = StoreError::Empty {
            path: PathBuf::from("/r/results.db"),
        };
        let line = e.to_string();
        let run = RunError::from(e);
        assert!(matches!(&run, RunError::Store(StoreError::Empty { path }) if path.ends_with("results.db")));
        assert_eq!(run.to_string(), line);
        assert_eq!(
            line,
            "results store /r/results.db holds no runs yet; run `litebench run crud` first"
        );
    }

    #[test]
    fn seeds_differ_per_round_and_repeat_per_run() {
        assert_ne!(trial_seed(42, 0), trial_seed(42, 1));
        assert_eq!(trial_seed(42, 3), trial_seed(42, 3));
        assert_ne!(trial_seed(42, 0), trial_seed(43, 0));
    }
}
