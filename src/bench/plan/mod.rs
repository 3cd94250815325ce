//! The run plan: the command line turned into everything the run will do, validated, before
//! anything runs.
//!
//! A run is one or more jobs (one workload with one set of parameters each), each with knob
//! sets to interleave, run on every engine named. Presets (`--preset`) add knob sets labelled
//! with their name; presets of another workload or other parameters become further jobs. Each
//! job's configurations (engine x knob set x filesystem x scheduler x storage) are expanded here, so the
//! plan says what will run before an engine is opened (`--dry-run` prints it).
//!
//! Everything a user can get wrong is checked here, so a bad flag costs nothing: no scratch
//! directory, no server, no results row. After [`plan`] nothing reads [`RunArgs`] (ripgrep's
//! low-to-high rule): the session, the guest and the shards work from the [`Plan`]. A command
//! makes the plan once (`app::run`: for the dry run, the instruction re-run's outer process or
//! the session) and hands it on; `tests/architecture` holds that no file below the commands but
//! `bench/settings.rs` and this folder names `RunArgs`.
//!
//! One module per part of the plan, each importing only those before it: [`jobs`] (workloads,
//! parameters, stop rules, shards), [`knob_reach`], [`axes`] (knob sets into configurations),
//! [`load`] (the load points of a sweep), [`clients`] (what each engine does with them),
//! [`cast`] (`--cast`'s one point), [`placement`] (filesystems and the guest), [`storage`]
//! (`--storage`'s values), [`output`].

mod axes;
mod cast;
mod clients;
mod drivers;
mod jobs;
mod knob_reach;
mod load;
mod output;
mod placement;
mod storage;

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::model::load::LoadShape;
use crate::model::record::FleetInfo;
use crate::store;
use crate::testbed::fsspec::{FsKind, FsSpec};
use crate::workload::preset::{self, Group, Pick};
use axes::{expand, knob_sets};
use cast::{cast_points, check_cast};
use clients::{client_processes_engines, shared_connection_engines};
use jobs::{check_engines_run, engine_choices, fleet_part, plan_jobs, stop_rule};
pub use jobs::{find_workload, Configuration, Job};
use knob_reach::{check_configurations, check_knob_reach, check_preset_knobs};
use load::{check_first_arrival, check_measure, load_points};
use output::plan_output;
pub use output::Output;
pub use placement::Guest;
use placement::{plan_filesystems, plan_guest};
use std::path::{Path, PathBuf};

/// Everything one `litebench run` will do, validated.
pub struct Plan {
    pub picks: Vec<Pick>,
    pub groups: Vec<&'static Group>,
    pub jobs: Vec<Job>,
    pub choices: Vec<EngineChoice>,
    /// Each engine as `--engine` named it, in `choices`' order (`sqlite` when none was named).
    pub engine_names: Vec<String>,
    /// `--fs`: the filesystems every configuration runs on (empty: the scratch directory).
    pub filesystems: Vec<FsSpec>,
    /// `--fs-size` in bytes.
    pub fs_size_bytes: u64,
    /// `--scheduler`: I/O schedulers for the loop devices of `filesystems`.
    pub schedulers: Vec<String>,
    /// `--scheduler-device`: a real block device that also gets each scheduler.
    pub scheduler_device: Option<String>,
    /// `--storage`: the storages every configuration runs on (empty: the disk as it is).
    pub storages: Vec<crate::model::storage::StorageSpec>,
    /// `--clients`, `--rate`, `--arrival`, `--latency-limit`, `--max-tries`: the load shape, or
    /// in a sweep the first point's (each configuration has its own).
    pub load: LoadShape,
    /// Said before anything runs: each `--param` that some of the run's presets do not take
    /// (their workload has no such parameter), naming them.
    pub warnings: Vec<String>,
    /// Trials, warm-ups and how each trial starts.
    pub trials: Trials,
    /// Where the run keeps its files and its results.
    pub places: Places,
    /// What is printed and written when the run ends.
    pub output: Output,
    /// The command line that asked for this run, as the manifest records it.
    pub command: Vec<String>,
    /// `--guest` on the host, or the run inside a guest kernel.
    pub guest: Guest,
    /// `--shard`: the sweep this process's part belongs to (`plan_job` is set per job).
    pub fleet: Option<FleetInfo>,
    /// The positions in `jobs` this process runs (all of them without `--shard`).
    pub mine: Vec<usize>,
}

/// How many trials each configuration gets, and how each starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Trials {
    /// `--trials`: measured trials per configuration.
    pub trials: u32,
    /// `--warmup`: warm-up trials per configuration, run first.
    pub warmup: u32,
    /// `--seed`.
    pub seed: u64,
    /// `--cold`: the page cache dropped before each trial.
    pub cold: bool,
    /// `--memory`: in-memory databases.
    pub memory: bool,
    /// `--allow-unverified`: pass-through knobs that read back nothing do not stop the run.
    pub allow_unverified: bool,
    /// `--measure instructions`: each trial's measured region is counted under callgrind.
    pub instructions: bool,
}

/// Where a run keeps its scratch files and its results.
#[derive(Debug, Clone, PartialEq)]
pub struct Places {
    /// `--dir`: where the scratch directory is made (`None`: the default).
    pub dir: Option<PathBuf>,
    /// The results store: `--results`, `$LITEBENCH_RESULTS` or the default.
    pub results: PathBuf,
    /// Whether `--results` named it.
    pub results_given: bool,
}

impl Places {
    /// The directory the scratch directory is made in.
    pub fn base(&self) -> &Path {
        self.dir
            .as_deref()
            .unwrap_or(Path::new(crate::sys::scratch::DEFAULT_DIR))
    }
}

impl Plan {
    /// Whether the run compares presets (several, or a group).
    pub fn compares_presets(&self) -> bool {
        self.picks.len() > 1 || !self.groups.is_empty()
    }

    /// Whether this is the run inside a guest kernel (the host prints and reports).
    pub fn in_guest(&self) -> bool {
        matches!(self.guest, Guest::Inside(_))
    }

    /// Whether this process runs several jobs (stores several runs).
    pub fn several(&self) -> bool {
        self.mine.len() > 1
    }
}

/// [`plan`] for a run that goes on to its trials ([`crate::bench::session::run`] takes what it
/// returns): from here on Ctrl-C, SIGTERM and SIGHUP are a request to stop cleanly, installed
/// first so that a stop while the plan reads scripts or logs ends the run as every other stop
/// does (130), not killed by the signal (143, 129).
pub fn plan_to_run(args: &RunArgs) -> Result<Plan, Failure> {
    crate::sys::signals::stop_flag()?;
    plan(args)
}

/// Validates the whole command line into a plan.
pub fn plan(args: &RunArgs) -> Result<Plan, Failure> {
    let (picks, groups) = preset::resolve(&args.presets).map_err(Failure)?;
    let (mut jobs, mut warnings) = plan_jobs(args, &picks)?;
    let (engine_specs, engine_notes) = crate::engines::registry::expand(&args.engines)?;
    let choices = engine_choices(&engine_specs, args)?;
    check_preset_knobs(&picks, &choices)?;
    knob_sets(args, &mut jobs, &choices)?;
    check_knob_reach(&jobs, &choices)?;
    if args.cold {
        crate::bench::cold::can_drop_caches()?;
    }
    if args.cold && args.memory {
        return Err(Failure(
            "--cold and --memory together make no sense: an in-memory database has no page cache to drop".into(),
        ));
    }
    check_engines_run(args, &choices, &jobs)?;
    let (filesystems, fs_size_bytes) = plan_filesystems(args, &choices)?;
    let schedulers = crate::testbed::scheduler::parse_all(&args.schedulers)?;
    let storages = storage::plan_storages(args, &choices, &filesystems)?;
    let mut skipped = Vec::new();
    let points = match &args.cast {
        Some(path) => cast_points(args, path, &jobs)?,
        None => load_points(args, &mut jobs, &mut skipped)?,
    };
    // A sweep's trials stop alike: on the same count or the same time. An open loop's default
    // duration is the time the count takes at the sweep's lowest rate, so that every rate runs
    // the count at least, whatever order the rates were given in.
    let load = points[0].shape.clone();
    let lowest = points.iter().filter_map(|p| p.shape.rate).min_by(f64::total_cmp);
    let stop_load = LoadShape {
        rate: lowest,
        ..load.clone()
    };
    for job in &mut jobs {
        job.stop = stop_rule(job, &stop_load);
    }
    check_first_arrival(&points, &jobs)?;
    check_cast(&load, &jobs, &choices, &engine_specs)?;
    drivers::check_cast_drivers(args, &load, &jobs)?;
    check_measure(args, &points)?;
    let no_processes = client_processes_engines(&choices, &engine_specs, &points, &mut skipped)?;
    shared_connection_engines(&choices, &engine_specs, &points)?;
    skipped.extend(engine_notes);
    for job in &mut jobs {
        job.warnings.extend(skipped.iter().cloned());
    }
    warnings.extend(skipped);
    if let Some(dev) = &args.scheduler_device {
        crate::testbed::scheduler_device::check(dev, &schedulers, args.guest)?;
    } else if !schedulers.is_empty() && filesystems.iter().all(|f| f.kind == FsKind::Tmpfs) {
        return Err(crate::testbed::scheduler::SchedulerError::NoDevice.into());
    }
    for job in &mut jobs {
        job.configs = expand(
            job,
            &choices,
            &points,
            &|engine, shape| shape.processes() && no_processes.contains(&engine),
            &filesystems,
            &schedulers,
            args.scheduler_device.is_some(),
            &storages,
        );
    }
    check_configurations(&jobs, &choices, &points)?;
    let places = Places {
        dir: args.dir.value.clone(),
        results: args.results.value.clone().unwrap_or_else(store::default_path),
        results_given: args.results.value.is_some(),
    };
    store::check_path(&places.results, places.results_given)?;
    // `--shard`: this machine's jobs of the plan, by their position in it.
    let (fleet, mine) = fleet_part(args, &jobs)?;
    let output = plan_output(args, mine.len(), &places.results)?;
    let guest = plan_guest(args)?;
    Ok(Plan {
        picks,
        groups,
        jobs,
        engine_names: match engine_specs.is_empty() {
            true => choices.iter().map(|c| c.kind.name.to_string()).collect(),
            false => engine_specs,
        },
        choices,
        filesystems,
        fs_size_bytes,
        schedulers,
        scheduler_device: args.scheduler_device.clone(),
        storages,
        load,
        warnings,
        trials: Trials {
            trials: args.trials,
            warmup: args.warmup,
            seed: args.seed,
            cold: args.cold,
            memory: args.memory,
            allow_unverified: args.allow_unverified,
            instructions: args.measure == Some(crate::model::measure::Measure::Instructions),
        },
        places,
        output,
        command: args.command_line(),
        guest,
        fleet,
        mine,
    })
}
