//! The run plan: the command line turned into everything the run will do, validated, before
//! anything runs.
//!
//! A run is one or more jobs (one workload with one set of parameters each), each with knob
//! sets to interleave, run on every engine named. Presets (`--preset`) add knob sets labelled
//! with their name; presets of another workload or other parameters become further jobs. Each
//! job's configurations (engine x knob set x filesystem x scheduler) are expanded here, so the
//! plan says what will run before an engine is opened (`--dry-run` prints it).
//!
//! Everything a user can get wrong is checked here, so a bad flag costs nothing: no scratch
//! directory, no server, no results row. After [`plan`] nothing reads [`RunArgs`] (ripgrep's
//! low-to-high rule): the session, the guest and the shards work from the [`Plan`].

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::model::knob::{configurations, parse_axis, KnobAxis, KnobCatalog, KnobError, KnobSet};
use crate::model::load::LoadShape;
use crate::model::params;
use crate::model::params::Params;
use crate::model::record::FleetInfo;
use crate::model::stop_rule::{ChosenBy, StopOn, StopRule};
use crate::report::exports::{self, Export};
use crate::report::Format;
use crate::store::{self, Store};
use crate::testbed::fsspec::{FsKind, FsSpec};
use crate::testbed::guest::GuestJob;
use crate::workload::preset::{self, Group, Pick};
use crate::workload::{self, Workload};
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

/// What a run prints and writes besides its store.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// `--format`.
    pub format: Format,
    /// `--export FILE`s.
    pub exports: Vec<Export>,
    /// `--report FILE`: the HTML page.
    pub report: Option<PathBuf>,
    /// `--noise` (`None`: the default threshold).
    pub noise: Option<f64>,
    /// `--name`.
    pub name: Option<String>,
    /// `--quiet`: no progress bar.
    pub quiet: bool,
    /// `--metric` (`None`: the run's headline metric).
    pub metric: Option<crate::model::metric::Metric>,
}

/// Where the run goes with respect to a `--guest` kernel.
pub enum Guest {
    /// Runs here.
    Off,
    /// `--guest`: the whole run again inside a user-mode Linux kernel with this much memory.
    Host { memory_bytes: u64 },
    /// Inside the guest kernel: the host's job names the disks and what the manifest says.
    Inside(Box<GuestJob>),
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

/// One configuration of a job: an engine, a knob set, a filesystem and a scheduler. The plan
/// has all of it; what only the opened engine and the built filesystem know (the engine's
/// label, the loop device) is added when the run binds it ([`crate::bench::session`]).
#[derive(Debug, Clone)]
pub struct Configuration {
    /// Its number in the job, from 0.
    pub index: usize,
    /// Its engine's position in [`Plan::choices`].
    pub engine: usize,
    pub knobs: KnobSet,
    /// Where each knob came from (`user`, `preset NAME`, `workload NAME default`, ...).
    pub knob_origins: Vec<(String, String)>,
    /// Every preset it stands for (several when their knobs coincide on its engine).
    pub presets: Vec<&'static str>,
    /// The preset it measures (the first of `presets`).
    pub pick: Option<Pick>,
    /// Its `--fs` filesystem's position in [`Plan::filesystems`].
    pub fs: Option<usize>,
    /// Its `--scheduler`.
    pub scheduler: Option<String>,
    /// Its own load shape in a sweep (`--clients 1,2,4`...); `None`: the run's ([`Plan::load`]).
    pub load: Option<LoadShape>,
    /// The sweep's values that name it (`clients=4`); empty without a sweep.
    pub axis: String,
}

impl Configuration {
    /// Its label: `[fs ][scheduler ][engine ][presets ]knobs[ sweep]`, the engine named only where the
    /// run has several (`engine`: `None`).
    pub fn label(&self, engine: Option<&str>, fs: Option<&str>) -> String {
        let mut label = match (self.knobs.0.is_empty(), self.axis.is_empty()) {
            (_, true) => self.knobs.label(),
            (true, false) => self.axis.clone(),
            (false, false) => format!("{} {}", self.knobs.label(), self.axis),
        };
        if !self.presets.is_empty() {
            label = format!("{} {label}", self.presets.join("+"));
        }
        for part in [engine, self.scheduler.as_deref(), fs].into_iter().flatten() {
            label = format!("{part} {label}");
        }
        label
    }

    /// The presets it stands for, as the manifest names them (`a+b`; empty without).
    pub fn preset_names(&self) -> String {
        self.presets.join("+")
    }
}

/// One stored run: a workload, its parameters and the knob sets to interleave.
pub struct Job {
    pub workload: &'static dyn Workload,
    pub params: Params,
    /// Knob sets in run order, each with the preset it belongs to (none without presets).
    pub sets: Vec<(Option<Pick>, KnobSet)>,
    /// Knobs the user set with `--knob` (the rest of a set's knobs come from its preset).
    pub user_knobs: Vec<String>,
    /// Kept in the run's manifest: the `--param`s its workload does not have, which it ran
    /// without.
    pub warnings: Vec<String>,
    /// The parameters given by `--param` or by the preset, and which of the two gave each.
    pub given: Vec<(String, ChosenBy)>,
    /// What ends its trials, for workloads that stop on a count or a time ([`stop_rule`]).
    pub stop: Option<StopRule>,
    /// Its configurations in run order (every round runs each once, in this order).
    pub configs: Vec<Configuration>,
}

impl Job {
    /// Whether its knob sets belong to presets.
    pub fn named(&self) -> bool {
        self.sets.iter().any(|(p, _)| p.is_some())
    }
}

/// One point of the load axes (`--clients`, `--rate`, `--client-mode`): its load shape and the
/// words that name it in a configuration's label (`clients=4`; empty without a sweep).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadPoint {
    pub shape: LoadShape,
    pub label: String,
}

/// The load points of the run in order (clients outermost, then rate, then client mode): one
/// without a sweep, each refused in one line where a job's workload or the run cannot take it.
/// In a sweep a point the run cannot take (several clients on `--memory`, processes with one
/// The load shape of one point of the load axes, the other load flags as given.
fn shape_at(
    args: &RunArgs,
    clients: u32,
    rate: Option<f64>,
    client_mode: crate::model::load::ClientMode,
    connections: crate::model::load::Connections,
    sweep: bool,
) -> LoadShape {
    LoadShape {
        clients,
        rate,
        arrival: args.arrival,
        latency_limit_ns: args
            .latency_limit
            .map(|d| d.as_nanos().min(u128::from(u64::MAX)) as u64),
        max_tries: args.max_tries,
        retry_backoff: args.retry_backoff,
        interval_ms: args.interval.as_millis().min(u128::from(u64::MAX)) as u64,
        client_mode,
        connections,
        sweep,
        progress: args.progress,
        cast: None,
        windows: None,
    }
}

/// What the run cannot take at a load point: several connections to an in-memory database, and
/// processes with one client (client 0 always runs on the trial's own thread: no process would
/// start, and a run that asked for processes would silently measure threads).
fn point_refusal(args: &RunArgs, shape: &LoadShape) -> Option<String> {
    if shape.clients > 1 && args.memory {
        return Some(format!(
            "--clients {}: with --memory each connection would have a database of its own; leave out --memory or use --clients 1",
            shape.clients
        ));
    }
    if shape.client_mode == crate::model::load::ClientMode::Processes && shape.clients < 2 {
        return Some(format!(
            "--client-mode processes with --clients {}: client 0 runs in litebench's own process, so no client process would start; give --clients 2 or more, or leave out --client-mode",
            shape.clients
        ));
    }
    if shape.connections == crate::model::load::Connections::Shared {
        if shape.client_mode == crate::model::load::ClientMode::Processes {
            return Some(
                "--connections shared with --client-mode processes: a connection cannot be shared between processes; use --client-mode threads, or --connections per-client".into(),
            );
        }
        if shape.clients < 2 {
            return Some(format!(
                "--connections shared with --clients {}: one client has one connection either way; give --clients 2 or more, or leave out --connections",
                shape.clients
            ));
        }
    }
    None
}

/// The load points of the run in order (clients outermost, then rate, then client mode): one
/// without a sweep, each refused in one line where a job's workload or the run cannot take it.
/// In a sweep a point the run cannot take (several clients on `--memory`, processes with one
/// client) is left out with one warning, and refused as without a sweep when none is left.
fn load_points(args: &RunArgs, jobs: &mut [Job], warnings: &mut Vec<String>) -> Result<Vec<LoadPoint>, Failure> {
    let rates: Vec<Option<f64>> = match &args.rate {
        None => vec![None],
        Some(r) => r.0.iter().copied().map(Some).collect(),
    };
    if !args.retry_backoff.is_none() && args.max_tries < 2 {
        return Err(Failure(format!(
            "--retry-backoff: with --max-tries {} no transaction is tried again, so nothing would wait; give --max-tries 2 or more, or leave out --retry-backoff",
            args.max_tries
        )));
    }
    let sweep = args.clients.sweeps() || args.client_mode.sweeps() || args.connections.sweeps() || rates.len() > 1;
    if let Some(path) = &args.cast {
        let shape = shape_at(
            args,
            args.clients.0[0],
            rates[0],
            args.client_mode.0[0],
            args.connections.0[0],
            sweep,
        );
        let shape = cast_shape(args, path, shape, jobs)?;
        return Ok(vec![LoadPoint {
            shape,
            label: String::new(),
        }]);
    }
    let mut points = sweep_points(args, &rates, sweep);
    if args.latency_limit.is_some() && args.rate.is_none() {
        return Err(Failure(
            "--latency-limit: only an open loop has intended start times to be late against; give --rate TPS too"
                .into(),
        ));
    }
    clients_param(args, jobs, &mut points)?;
    skip_refused(args, &mut points, warnings)?;
    let shape = &points[0].shape;
    if shape.is_default() {
        if shape.progress {
            return Err(Failure(
                "--progress: the lines per interval come from the load driver, which runs with several clients or a rate; give --clients N or --rate TPS too".into(),
            ));
        }
        return Ok(points);
    }
    workloads_take(args, jobs, shape, sweep)?;
    Ok(points)
}

/// Every point of the sweep (one without a sweep), each labelled with the values it sweeps:
/// what tells its configurations apart.
fn sweep_points(args: &RunArgs, rates: &[Option<f64>], sweep: bool) -> Vec<LoadPoint> {
    let mut points = Vec::new();
    for &clients in &args.clients.0 {
        for &rate in rates {
            for &client_mode in &args.client_mode.0 {
                for &connections in &args.connections.0 {
                    let mut label = Vec::new();
                    if args.clients.sweeps() {
                        label.push(format!("clients={clients}"));
                    }
                    if let (true, Some(r)) = (rates.len() > 1, rate) {
                        label.push(format!("rate={}", crate::model::load::rate_text(r)));
                    }
                    if args.client_mode.sweeps() {
                        label.push(format!("client_mode={}", client_mode_name(client_mode)));
                    }
                    if args.connections.sweeps() {
                        label.push(format!("connections={}", connections.name()));
                    }
                    points.push(LoadPoint {
                        shape: shape_at(args, clients, rate, client_mode, connections, sweep),
                        label: label.join(" "),
                    });
                }
            }
        }
    }
    points
}

/// A workload's own `clients` parameter (TATP's) is the flag's alias: the flag sets it, and a
/// parameter given alone sets the run's clients. A sweep of clients leaves it alone (the
/// parameters are the job's, the clients each configuration's).
fn clients_param(args: &RunArgs, jobs: &mut [Job], points: &mut [LoadPoint]) -> Result<(), Failure> {
    let named = args.params.iter().any(|p| p.trim_start().starts_with("clients="));
    for job in jobs.iter_mut() {
        if !job.workload.params().iter().any(|p| p.name == "clients") {
            continue;
        }
        let given = job.params.count("clients");
        if args.clients.sweeps() {
            if named {
                return Err(Failure(format!(
                    "--clients {} and --param clients={given}: give the clients once, as the sweep --clients {}",
                    clients_text(args),
                    clients_text(args)
                )));
            }
            continue;
        }
        let clients = args.clients.0[0];
        if clients > 1 {
            if named && given != u64::from(clients) {
                return Err(Failure(format!(
                    "--clients {clients} and --param clients={given} disagree; give one of them"
                )));
            }
            job.params
                .0
                .insert("clients".into(), params::ParamValue::Count(u64::from(clients)));
        } else if given > 1 {
            for p in points.iter_mut() {
                p.shape.clients = u32::try_from(given).unwrap_or(crate::model::load::MAX_CLIENTS);
            }
        }
    }
    Ok(())
}

/// The points the run cannot take left out with one warning naming them; refused in one line
/// where that is all of them.
fn skip_refused(args: &RunArgs, points: &mut Vec<LoadPoint>, warnings: &mut Vec<String>) -> Result<(), Failure> {
    let refusal = |shape: &LoadShape| point_refusal(args, shape);
    let refused: Vec<(String, String)> = points
        .iter()
        .filter_map(|p| refusal(&p.shape).map(|why| (p.label.clone(), why)))
        .collect();
    if let Some((_, why)) = refused.first() {
        if refused.len() == points.len() {
            return Err(Failure(why.clone()));
        }
        let names: Vec<&str> = refused.iter().map(|(l, _)| l.as_str()).collect();
        warnings.push(format!("{} skipped: {why}", names.join(", ")));
        points.retain(|p| refusal(&p.shape).is_none());
    }
    Ok(())
}

/// A load other than one client in a closed loop refused in one line, naming the flag that
/// asked for it, where a job's workload cannot take it: it runs its operations as one ordered
/// script, or its parameters allow one client only.
fn workloads_take(args: &RunArgs, jobs: &[Job], shape: &LoadShape, sweep: bool) -> Result<(), Failure> {
    let takers = || {
        workload::all()
            .iter()
            .filter(|w| w.transactions().is_some())
            .map(|w| w.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let flag = if sweep {
        sweep_flags(args)
    } else if shape.clients > 1 && shape.rate.is_none() && shape.max_tries == 1 && shape.latency_limit_ns.is_none() {
        format!("--clients {}", shape.clients)
    } else if let Some(r) = shape.rate {
        format!("--rate {}", crate::model::load::rate_text(r))
    } else {
        format!("--max-tries {}", shape.max_tries)
    };
    for job in jobs.iter() {
        let w = job.workload;
        if let Some(tx) = w.transactions() {
            if let Some(why) = tx.one_client_only(&job.params) {
                return Err(Failure(format!("{flag}: workload {}: {why}", w.name())));
            }
            continue;
        }
        return Err(Failure(format!(
            "{flag}: workload {} runs its operations as one ordered script, with one client in a closed loop; workloads that take it: {}",
            w.name(),
            takers()
        )));
    }
    Ok(())
}

/// `--client-mode`'s word for a mode (`threads`, `processes`).
fn client_mode_name(m: crate::model::load::ClientMode) -> &'static str {
    match m {
        crate::model::load::ClientMode::Threads => "threads",
        crate::model::load::ClientMode::Processes => "processes",
    }
}

/// `--clients` as given (`1,2,4`).
fn clients_text(args: &RunArgs) -> String {
    args.clients.0.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// The flags that sweep, as given (`--clients 1,2,4 --rate 100,300`), for refusals of a sweep.
fn sweep_flags(args: &RunArgs) -> String {
    let mut flags = Vec::new();
    if args.clients.sweeps() {
        flags.push(format!("--clients {}", clients_text(args)));
    }
    if let Some(r) = args.rate.as_ref().filter(|r| r.sweeps()) {
        let rates: Vec<String> = r.0.iter().map(|&x| crate::model::load::rate_text(x)).collect();
        flags.push(format!("--rate {}", rates.join(",")));
    }
    if args.client_mode.sweeps() {
        let modes: Vec<&str> = args.client_mode.0.iter().map(|&m| client_mode_name(m)).collect();
        flags.push(format!("--client-mode {}", modes.join(",")));
    }
    if args.connections.sweeps() {
        let how: Vec<&str> = args.connections.0.iter().map(|c| c.name()).collect();
        flags.push(format!("--connections {}", how.join(",")));
    }
    flags.join(" ")
}

/// The load shape of `--cast FILE`: its roles read and checked against the run's workload and
/// flags (the trial-length checks come with the stop rule, [`check_cast_length`]).
fn cast_shape(
    args: &RunArgs,
    path: &std::path::Path,
    mut shape: LoadShape,
    jobs: &[Job],
) -> Result<LoadShape, Failure> {
    let file = path.display();
    let conflicts = [
        (args.clients.0 != [1], format!("--clients {}", clients_text(args))),
        (args.rate.is_some(), "--rate".to_string()),
        (
            args.client_mode.0 != [crate::model::load::ClientMode::Threads],
            "--client-mode".to_string(),
        ),
        (
            args.connections.0 != [crate::model::load::Connections::PerClient],
            "--connections".to_string(),
        ),
    ];
    if let Some((_, flag)) = conflicts.iter().find(|(c, _)| *c) {
        return Err(Failure(format!(
            "--cast {file} with {flag}: a cast gives each role its own clients and rate; leave out {flag}, or give the load on the command line without --cast"
        )));
    }
    if args.memory {
        return Err(Failure(format!(
            "--cast {file}: with --memory each connection would have a database of its own; leave out --memory"
        )));
    }
    let Some(job) = jobs.first() else {
        return Err(Failure(format!("--cast {file}: no workload to run; name one")));
    };
    let w = job.workload;
    let Some(tx) = w.transactions() else {
        let takers: Vec<&str> = workload::all()
            .iter()
            .filter(|w| w.transactions().is_some())
            .map(|w| w.name())
            .collect();
        return Err(Failure(format!(
            "--cast {file}: workload {} runs its operations as one ordered script, with one client in a closed loop; workloads that take a cast: {}",
            w.name(),
            takers.join(", ")
        )));
    };
    if let Some(why) = tx.one_client_only(&job.params) {
        return Err(Failure(format!("--cast {file}: workload {}: {why}", w.name())));
    }
    if w.params().iter().any(|p| p.name == "clients") {
        return Err(Failure(format!(
            "--cast {file}: workload {} splits its own work between its clients (its clients parameter); run it without --cast",
            w.name()
        )));
    }
    // A role's parameters are the run's with its own over them: resolved as `--param`s are,
    // against the workload, keeping only the role's.
    let resolve = |role_args: &[String]| -> Result<params::Params, String> {
        let mut all: Vec<String> = args.params.clone();
        all.retain(|a| !role_args.iter().any(|r| param_name(r) == param_name(a)));
        all.extend(role_args.iter().cloned());
        let mut p = params::resolve(w.name(), w.params(), &all).map_err(|e| e.to_string())?;
        w.check(&p)?;
        w.settle(&mut p)?;
        // The role's own, and every value settling gave the role that is not the run's (a
        // script role's `sha256` of its own files; the run's `builtin`, which a role with a
        // `file` of its own does not run): a trial's role runs the run's parameters with these
        // over them.
        p.0.retain(|k, v| role_args.iter().any(|r| param_name(r) == k) || job.params.0.get(k) != Some(v));
        Ok(p)
    };
    let cast = crate::bench::cast_file::read(path, &resolve).map_err(|e| Failure(e.to_string()))?;
    cast.check(None).map_err(|e| Failure(e.to_string()))?;
    if cast.workload_clients() == 0 {
        return Err(Failure(format!(
            "--cast {file}: no role of kind workload; give at least one, which the holds and checkpoints run beside"
        )));
    }
    shape.clients = cast.workload_clients().min(crate::model::load::MAX_CLIENTS);
    shape.cast = Some(cast);
    Ok(shape)
}

/// A cast's schedules and holds against a job's trial length, where its trials stop on a time;
/// and its holds, checkpoints and per-role knobs need a SQLite engine.
fn check_cast(load: &LoadShape, jobs: &[Job], choices: &[EngineChoice], labels: &[String]) -> Result<(), Failure> {
    let Some(cast) = &load.cast else { return Ok(()) };
    for job in jobs {
        let Some(tx) = job.workload.transactions() else {
            continue;
        };
        match tx.budget(&job.params) {
            crate::workload::load::Budget::Time(d) => cast.check(Some(d)).map_err(|e| Failure(e.to_string()))?,
            // Roles at different rates end together only on a time.
            _ => {
                let how = tx.stop_params().map_or_else(
                    || "a workload whose trials run for a time".to_string(),
                    |s| format!("--param {}=10s", s.duration),
                );
                return Err(Failure(format!(
                    "--cast {}: workload {}'s trials stop on a count, which roles at different rates would reach at different times; give {how}",
                    cast.file,
                    job.workload.name()
                )));
            }
        }
    }
    for role in &cast.roles {
        for (i, c) in choices.iter().enumerate() {
            let label = labels.get(i).map_or(c.kind.name, String::as_str);
            if let Some(why) = role_refusal(role, c, label) {
                return Err(Failure(format!("--cast {}: role \"{}\": {why}", cast.file, role.name)));
            }
        }
    }
    Ok(())
}

/// Why `role` cannot run on engine `c`: holds, checkpoints, per-connection knobs and shared
/// connections need SQLite; client processes need SQLite or PostgreSQL.
fn role_refusal(role: &crate::model::cast::Role, c: &EngineChoice, label: &str) -> Option<String> {
    let sqlite = std::ptr::eq(c.kind, &crate::engines::sqlite::KIND);
    let what = if sqlite {
        return None;
    } else if role.kind != crate::model::cast::RoleKind::Workload {
        format!("kind {}", role.kind.name())
    } else if role.connections == crate::model::load::Connections::Shared {
        "connections \"shared\" (one connection used by several threads)".to_string()
    } else if !role.knobs.is_empty() {
        format!(
            "per-connection knobs ({})",
            role.knobs.iter().map(|k| k.0.as_str()).collect::<Vec<_>>().join(", ")
        )
    } else if role.mode == crate::model::load::ClientMode::Processes {
        let why = processes_why(c)?;
        return Some(format!(
            "mode \"processes\" on engine {label}: {why}; give the role mode \"threads\", or run the cast on sqlite"
        ));
    } else {
        return None;
    };
    Some(format!(
        "{what} needs a SQLite engine, and engine {label} is not one; run the cast on sqlite, or leave the role out"
    ))
}

/// `--measure instructions` counts what callgrind sees of litebench's own process, phase by
/// phase or, where the load driver times a trial as one interval, from its common start to
/// its last client's end: a client process would run outside it, an open loop's waits for its
/// schedule would be counted as work, and a cast's roles are not bracketed.
fn check_measure(args: &RunArgs, points: &[LoadPoint]) -> Result<(), Failure> {
    if args.measure.is_none() {
        return match args.metric {
            Some(crate::model::metric::Metric::Instructions) => Err(Failure(
                "--metric instructions: this run counts no instructions; add --measure instructions, or choose another --metric".into(),
            )),
            _ => Ok(()),
        };
    }
    let refuse = |why: &str| Err(Failure(format!("--measure instructions {why}")));
    if points.iter().any(|p| p.shape.processes()) {
        return refuse("with --client-mode processes: callgrind counts litebench's own process only, and valgrind runs client threads one at a time anyway; leave out --client-mode");
    }
    if points.iter().any(|p| p.shape.rate.is_some()) || args.cast.is_some() {
        return refuse(
            "counts a closed loop, whose measured region it brackets: an open loop's waits for its schedule would count as work, and a cast's roles are not bracketed; leave out --rate and --cast",
        );
    }
    if args.guest {
        return refuse("with --guest: valgrind would run outside the guest kernel; leave out --guest");
    }
    Ok(())
}

/// `--client-mode processes` runs SQLite and PostgreSQL: a SQLite client process opens the
/// trial's database file itself, a PostgreSQL one dials the server its parent configured (every
/// PostgreSQL knob is a server setting). DuckDB cannot share a file between writer processes, and
/// MariaDB sets some knobs per session, which a client process would have to repeat.
fn processes_refusal(c: &EngineChoice, label: &str) -> Option<String> {
    let why = processes_why(c)?;
    Some(format!(
        "--client-mode processes: engine {label}: {why}; use --client-mode threads for it"
    ))
}

/// Why engine `c` runs no client processes (`None`: it does).
fn processes_why(c: &EngineChoice) -> Option<&'static str> {
    if std::ptr::eq(c.kind, &crate::engines::sqlite::KIND) || std::ptr::eq(c.kind, &crate::engines::postgres::KIND) {
        return None;
    }
    Some(match c.kind.name {
        "duckdb" => "DuckDB cannot share a database file between writer processes",
        _ if !c.kind.files_in_scratch => "MariaDB sets some knobs per session, which client processes do not do yet",
        _ => "only SQLite and PostgreSQL run clients in processes of their own",
    })
}

/// The engines that cannot run the points with client processes (by position in `choices`):
/// refused in one line where an engine has no other point, else its configurations with
/// processes are left out with one warning each.
fn client_processes_engines(
    choices: &[EngineChoice],
    labels: &[String],
    points: &[LoadPoint],
    warnings: &mut Vec<String>,
) -> Result<Vec<usize>, Failure> {
    let with_processes: Vec<&str> = points
        .iter()
        .filter(|p| p.shape.processes())
        .map(|p| p.label.as_str())
        .collect();
    if with_processes.is_empty() {
        return Ok(Vec::new());
    }
    let mut refused = Vec::new();
    for (i, c) in choices.iter().enumerate() {
        let label = labels.get(i).map_or(c.kind.name, String::as_str);
        let Some(why) = processes_refusal(c, label) else {
            continue;
        };
        if with_processes.len() == points.len() {
            return Err(Failure(why));
        }
        warnings.push(format!("engine {label}: {} skipped: {why}", with_processes.join(", ")));
        refused.push(i);
    }
    Ok(refused)
}

/// `--connections shared` runs SQLite only: one connection used by several threads, one at a
/// time, is what SQLite's multi-thread mode allows; the other engines' connections are not
/// known to be movable between threads.
fn shared_connection_engines(choices: &[EngineChoice], labels: &[String], points: &[LoadPoint]) -> Result<(), Failure> {
    if !points.iter().any(|p| p.shape.shares_connection()) {
        return Ok(());
    }
    for (i, c) in choices.iter().enumerate() {
        if std::ptr::eq(c.kind, &crate::engines::sqlite::KIND) {
            continue;
        }
        let label = labels.get(i).map_or(c.kind.name, String::as_str);
        return Err(Failure(format!(
            "--connections shared: engine {label}: only SQLite engines share one connection between client threads; use --connections per-client for it"
        )));
    }
    Ok(())
}

/// The workload a run names, or the one-line error listing the valid ones.
pub fn find_workload(name: &str) -> Result<&'static dyn Workload, Failure> {
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
/// several workloads a `--param` applies to the workloads that have it. With them, the names
/// given and by whom.
fn job_params(
    wl: &dyn Workload,
    pick: Option<&Pick>,
    user: &[String],
    several: bool,
) -> Result<(Params, Vec<(String, ChosenBy)>), Failure> {
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
    let mut given: Vec<(String, ChosenBy)> = args
        .iter()
        .map(|a| (param_name(a).to_string(), ChosenBy::Preset))
        .collect();
    given.extend(user.iter().map(|a| (param_name(a).to_string(), ChosenBy::Param)));
    args.extend(user);
    let mut params = params::resolve(wl.name(), wl.params(), &args)?;
    wl.check(&params).map_err(Failure)?;
    wl.settle(&mut params).map_err(Failure)?;
    Ok((params, given))
}

/// An open loop whose first arrival would come after its trial ends, or whose count's
/// schedule outlasts the longest trial, is refused with when that would be: its trials would
/// measure nothing, or wait for days without a word (`--rate 1e-300` on a count).
fn check_first_arrival(points: &[LoadPoint], jobs: &[Job]) -> Result<(), Failure> {
    use crate::model::load::{duration_text, first_arrival_text, rate_text};
    for p in points {
        let Some(rate) = p.shape.rate else { continue };
        let clients = f64::from(p.shape.clients.max(1));
        // Each client runs its share of the rate: its first start is clients / rate away.
        let first = clients / rate;
        for job in jobs {
            let Some(stop) = &job.stop else { continue };
            match &stop.on {
                StopOn::Duration { param, ms } if first > *ms as f64 / 1000.0 => {
                    return Err(Failure(format!(
                        "--rate {}: with {} each client's first transaction would come after {} on average, after the trial's end at {}; give a rate of at least {} tx/s, or a longer --param {param}",
                        rate_text(rate),
                        if clients > 1.0 { format!("{clients} clients") } else { "1 client".into() },
                        first_arrival_text(first),
                        duration_text(ms.saturating_mul(1_000_000)),
                        rate_text((clients * 1000.0 / (*ms).max(1) as f64 * 1000.0).ceil() / 1000.0),
                    )));
                }
                StopOn::Count { param, count } => {
                    let takes = *count as f64 / rate;
                    if takes > params::MAX_DURATION.as_secs_f64() {
                        return Err(Failure(format!(
                            "--rate {}: {count} transactions at that rate take {}, past the longest trial ({} h); give a higher rate, a smaller --param {param} or --param duration",
                            rate_text(rate),
                            first_arrival_text(takes).trim_start_matches("about ").to_owned(),
                            params::MAX_DURATION.as_secs() / 3600,
                        )));
                    }
                }
                StopOn::Duration { .. } => {}
            }
        }
    }
    Ok(())
}

/// What ends a job's trials (see [`crate::model::stop_rule`]): the duration where one is
/// given, else the count where one is given; given neither, an open loop stops on time, as long
/// as the default count takes at the rate (set here as the job's duration), and a closed loop
/// on the default count.
fn stop_rule(job: &mut Job, load: &LoadShape) -> Option<StopRule> {
    let names = job.workload.transactions()?.stop_params()?;
    let by = |name: &str| job.given.iter().rev().find(|(n, _)| n == name).map(|(_, b)| *b);
    let duration = job.params.duration(names.duration);
    let count = job.params.count(names.count);
    let on_time = |ms: u128| StopOn::Duration {
        param: names.duration.to_string(),
        ms: ms.min(u128::from(u64::MAX)) as u64,
    };
    let on_count = StopOn::Count {
        param: names.count.to_string(),
        count,
    };
    let (on, chosen_by) = match (by(names.duration), by(names.count), load.rate) {
        (Some(b), _, _) if !duration.is_zero() => (on_time(duration.as_millis()), b),
        (_, Some(b), _) => (on_count, b),
        // `duration=0` given: the count, as its help says.
        (Some(b), None, _) => (on_count, b),
        (None, None, Some(rate)) if duration.is_zero() => {
            let d = StopRule::time_of(count, rate);
            job.params
                .0
                .insert(names.duration.to_string(), params::ParamValue::Duration(d));
            (on_time(d.as_millis()), ChosenBy::OpenLoopDefault)
        }
        _ if !duration.is_zero() => (on_time(duration.as_millis()), ChosenBy::Default),
        _ => (on_count, ChosenBy::Default),
    };
    Some(StopRule { on, chosen_by })
}

/// Validates the workload, presets and parameters and groups presets into jobs (knob sets are
/// filled in once the engines' knob tables are known); with the warnings of `--param`s that
/// some presets do not take.
fn plan_jobs(args: &RunArgs, picks: &[Pick]) -> Result<(Vec<Job>, Vec<String>), Failure> {
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
        let (params, given) = job_params(wl, None, &args.params, false)?;
        return Ok((
            vec![Job {
                workload: wl,
                params,
                sets: Vec::new(),
                user_knobs: Vec::new(),
                warnings: Vec::new(),
                given,
                stop: None,
                configs: Vec::new(),
            }],
            Vec::new(),
        ));
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
    // A --param overrides each preset's own value where its workload has the parameter; the
    // presets whose workload lacks it run without it, and are named.
    let lacks =
        |wl: &dyn Workload, arg: &str| arg.contains('=') && !wl.params().iter().any(|s| s.name == param_name(arg));
    let mut warnings = Vec::new();
    if several {
        for a in &args.params {
            let without: Vec<String> = picks
                .iter()
                .zip(&workloads)
                .filter(|(_, wl)| lacks(**wl, a))
                .map(|(p, wl)| format!("{} (workload {})", p.preset.name, wl.name()))
                .collect();
            if !without.is_empty() {
                warnings.push(format!(
                    "--param {a} does not apply to preset {}, whose workload has no parameter {}; they run with their own parameters",
                    without.join(", "),
                    param_name(a)
                ));
            }
        }
    }
    let mut jobs: Vec<Job> = Vec::new();
    for (pick, wl) in picks.iter().zip(&workloads) {
        let (params, given) = job_params(*wl, Some(pick), &args.params, several)?;
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
                user_knobs: Vec::new(),
                warnings: args
                    .params
                    .iter()
                    .filter(|a| several && lacks(*wl, a))
                    .map(|a| {
                        format!(
                            "--param {a} was not applied: workload {} has no parameter {}",
                            wl.name(),
                            param_name(a)
                        )
                    })
                    .collect(),
                given,
                stop: None,
                configs: Vec::new(),
            }),
        }
    }
    Ok((jobs, warnings))
}

/// The knob axes of one configuration family: a preset's values (single-valued axes),
/// replaced or extended by the `--knob` axes.
fn merged_axes(pick: Option<&Pick>, user: &[KnobAxis], catalog: &KnobCatalog<'_>) -> Result<Vec<KnobAxis>, Failure> {
    let mut axes: Vec<KnobAxis> = Vec::new();
    if let Some(p) = pick {
        for k in p.preset.knobs {
            match parse_axis(&format!("{}={}", k.name, k.value), catalog) {
                Ok(a) => axes.push(a),
                // A preset for several engines (vldb22-ssb) may hold knobs no engine of this run
                // has; they are left out as long as another of its knobs applies.
                Err(KnobError::Unknown { .. }) if p.preset.knobs.iter().any(|o| catalog.knows(o.name)) => {}
                Err(KnobError::Unknown { .. }) => return Err(preset_knob_unknown(p, k.name, "any engine of this run")),
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

fn preset_knob_unknown(p: &Pick, knob: &str, engine: &str) -> Failure {
    Failure(format!(
        "--preset {}: its knob {knob} means nothing to {engine}, which would run its own defaults under the preset's name; run the preset on an engine that has {knob} (see litebench list), or compare engines without --preset",
        p.preset.name
    ))
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
    let mut skipped = Vec::new();
    let points = load_points(args, &mut jobs, &mut skipped)?;
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
        );
    }
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

/// Fills in each job's knob sets: the `--knob` axes' configurations, or each preset's knobs
/// with the `--knob` axes merged in.
fn knob_sets(args: &RunArgs, jobs: &mut [Job], choices: &[EngineChoice]) -> Result<(), Failure> {
    let tables: Vec<_> = choices.iter().map(EngineChoice::knob_table).collect();
    let catalog = KnobCatalog {
        tables: &tables,
        // SQLite's pragmas that change the whole library, not one connection, are refused
        // (only where SQLite's `pragma.` prefix is in the catalog).
        refused: &[(
            crate::engines::sqlite::knobs::PASSTHROUGH_PREFIX,
            crate::engines::sqlite::knobs::PROCESS_WIDE_PRAGMAS,
        )],
    };
    let user_axes = args
        .knobs
        .iter()
        .map(|k| parse_axis(k, &catalog))
        .collect::<Result<Vec<_>, _>>()?;
    // Duplicate --knob flags are refused before presets are merged in.
    configurations(&user_axes, false)?;
    for job in jobs.iter_mut() {
        job.user_knobs = user_axes.iter().map(|a| a.name.clone()).collect();
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
    Ok(())
}

/// A job's configurations in run order: each engine's knob sets (each with the knobs that
/// engine has, so sets that become identical for it run once, named after every preset they
/// stand for), each on every filesystem, each under every scheduler that applies there.
#[allow(clippy::too_many_arguments)]
fn expand(
    job: &Job,
    choices: &[EngineChoice],
    points: &[LoadPoint],
    skip: &dyn Fn(usize, &LoadShape) -> bool,
    filesystems: &[FsSpec],
    schedulers: &[String],
    scheduler_device: bool,
) -> Vec<Configuration> {
    let wl = job.workload;
    // The knob sets per engine, before filesystems and schedulers multiply them.
    let mut sets: Vec<Configuration> = Vec::new();
    for (engine, c) in choices.iter().enumerate() {
        let (specs, prefix) = c.knob_table();
        for (pick, ks) in &job.sets {
            let ks = ks.for_engine(specs, prefix);
            let (knobs, defaults) = with_workload_defaults(wl, specs, prefix, ks);
            if let Some(same) = sets.iter_mut().find(|s| s.engine == engine && s.knobs == knobs) {
                if let Some(p) = pick.filter(|p| !same.presets.contains(&p.preset.name)) {
                    same.presets.push(p.preset.name);
                }
                continue;
            }
            sets.push(Configuration {
                index: 0,
                engine,
                knob_origins: knob_origins(&knobs, pick.as_ref(), &job.user_knobs, wl.name(), &defaults)
                    .into_iter()
                    .chain(begin_as_written(wl, &job.params, specs, &knobs))
                    .collect(),
                knobs,
                presets: pick.iter().map(|p| p.preset.name).collect(),
                pick: *pick,
                fs: None,
                scheduler: None,
                load: None,
                axis: String::new(),
            });
        }
    }
    // Each knob set at every load point (a sweep's axes vary fastest after knobs).
    let sweep = points.len() > 1;
    let sets: Vec<Configuration> = sets
        .into_iter()
        .flat_map(|set| {
            points
                .iter()
                .filter(|p| !skip(set.engine, &p.shape))
                .map(|p| Configuration {
                    load: sweep.then(|| p.shape.clone()),
                    axis: p.label.clone(),
                    ..set.clone()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let places: Vec<Option<usize>> = match filesystems.len() {
        0 => vec![None],
        n => (0..n).map(Some).collect(),
    };
    let mut configs = Vec::new();
    for set in sets {
        for &fs in &places {
            // Schedulers apply where litebench makes a block device (every filesystem but
            // tmpfs), and on `--scheduler-device` wherever the configuration runs.
            let on_device = fs.is_some_and(|i| filesystems[i].kind != FsKind::Tmpfs);
            let scheds: Vec<Option<&String>> = if scheduler_device || (on_device && !schedulers.is_empty()) {
                schedulers.iter().map(Some).collect()
            } else {
                vec![None]
            };
            for scheduler in scheds {
                configs.push(Configuration {
                    index: configs.len(),
                    fs,
                    scheduler: scheduler.cloned(),
                    ..set.clone()
                });
            }
        }
    }
    configs
}

/// `--name`, `--report`, `--export` and the rest of what is printed, each checked.
fn plan_output(args: &RunArgs, runs: usize, results: &Path) -> Result<Output, Failure> {
    if let Some(name) = &args.name {
        name_is_free(name, runs, results)?;
    }
    if let Some(file) = &args.report {
        crate::report::stored::check_output(file, true, "--report", results)?;
    }
    if !args.exports.is_empty() {
        if args.guest {
            return Err(Failure(
                "--export: not with --guest (the runs come back from the guest after it stops); write the files afterwards with `litebench show RUN --export FILE`".into(),
            ));
        }
        let others: Vec<(&str, &Path)> = args.report.iter().map(|r| ("--report", r.as_path())).collect();
        exports::check(&args.exports, results, &others)?;
    }
    Ok(Output {
        format: args.format.value,
        exports: args.exports.clone(),
        report: args.report.clone(),
        noise: args.noise.value,
        name: args.name.clone(),
        quiet: args.quiet,
        metric: args.metric,
    })
}

/// `--guest` (its memory checked) or `--guest-job` (the host's job read).
fn plan_guest(args: &RunArgs) -> Result<Guest, Failure> {
    if args.guest {
        let memory_bytes = crate::base::bytesize::whole(&args.guest_memory)
            .filter(|b| *b >= 128 << 20)
            .ok_or_else(|| {
                Failure(format!(
                    "--guest-memory {}: give a size of at least 128M, e.g. 2G",
                    args.guest_memory
                ))
            })?;
        return Ok(Guest::Host { memory_bytes });
    }
    let Some(p) = &args.guest_job else {
        return Ok(Guest::Off);
    };
    std::fs::read(p)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .map(|job| Guest::Inside(Box::new(job)))
        .ok_or_else(|| Failure(format!("--guest-job {}: not a guest job", p.display())))
}

/// Refuses `--name NAME` before anything runs when another stored run has it, or when the run
/// would store several runs (a name names one). An existing store is read, never written.
fn name_is_free(name: &str, runs: usize, results: &Path) -> Result<(), Failure> {
    if runs > 1 {
        return Err(Failure(format!(
            "--name {name}: this run stores {runs} runs (one per workload and parameters), and a name names one run; run them one at a time to name each, or leave out --name"
        )));
    }
    if results.is_file() {
        let mut store = Store::open_read(results)?;
        // A run that failed before keeping a trial gives its name up to this one.
        let held = match store.find_name(name)? {
            Some(id) if !store.gives_name_up(id)? => Some(id),
            _ => None,
        };
        if let Some(id) = held {
            return Err(Failure(format!(
                "--name {name}: run {id} in results store {} already has that name; names are unique per store, so choose another",
                results.display()
            )));
        }
    }
    Ok(())
}

/// `--shard` / `--replicate`: what the manifest records, and the positions of the plan's jobs
/// this process runs (all of them without `--shard`).
fn fleet_part(args: &RunArgs, jobs: &[Job]) -> Result<(Option<FleetInfo>, Vec<usize>), Failure> {
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
    let fleet = FleetInfo {
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

/// The engines of `--engine` (the bundled SQLite without one), each once, each able to run
/// in memory where `--memory` asks.
fn engine_choices(specs: &[String], args: &RunArgs) -> Result<Vec<EngineChoice>, Failure> {
    let choices: Vec<EngineChoice> = if specs.is_empty() {
        vec![EngineChoice::default_engine()]
    } else {
        specs
            .iter()
            .map(|e| EngineChoice::parse(e))
            .collect::<Result<Vec<_>, _>>()?
    };
    for (i, c) in choices.iter().enumerate() {
        if choices[..i].contains(c) {
            return Err(Failure(format!("--engine {} is given twice", specs[i])));
        }
        if args.memory && !c.supports_memory() {
            return Err(Failure(format!(
                "--memory: engine {} has no in-memory mode; leave out --memory",
                specs[i]
            )));
        }
    }
    Ok(choices)
}

/// Every knob of every preset is known to each engine of the run that it applies to.
fn check_preset_knobs(picks: &[preset::Pick], choices: &[EngineChoice]) -> Result<(), Failure> {
    // A preset's knob that one engine of the run does not know would be dropped for that
    // engine, which would then run its defaults under the preset's name.
    // A preset for several engines (its knobs belong to different engines) is refused only on
    // an engine that has none of them.
    let has = |kind: &crate::engines::kind::EngineKind, name: &str| {
        crate::model::knob::find_spec(kind.knobs, name).is_some() || name.starts_with(kind.passthrough)
    };
    for pick in picks {
        let knobs = pick.preset.knobs;
        let several = !crate::engines::registry::kinds()
            .iter()
            .any(|kind| knobs.iter().all(|k| has(kind, k.name)));
        for k in knobs {
            if let Some(c) = choices
                .iter()
                .find(|c| !has(c.kind, k.name) && (!several || !knobs.iter().any(|o| has(c.kind, o.name))))
            {
                return Err(preset_knob_unknown(pick, k.name, c.kind.name));
            }
        }
    }
    Ok(())
}

/// Every knob set on a job reaches what its workload runs ([`crate::workload::knob_reach`]).
fn check_knob_reach(jobs: &[Job], choices: &[EngineChoice]) -> Result<(), Failure> {
    let kinds: Vec<&crate::engines::kind::EngineKind> = choices.iter().map(|c| c.kind).collect();
    for job in jobs {
        let given = job.sets.iter().flat_map(|(pick, ks)| {
            ks.0.iter().map(move |k| {
                let given = match pick {
                    Some(p) if !job.user_knobs.contains(&k.name) => format!("--preset {}: its knob", p.preset.name),
                    _ => "--knob".to_string(),
                };
                (k.name.as_str(), given)
            })
        });
        crate::workload::knob_reach::check(job.workload, &job.params, &kinds, given)?;
    }
    Ok(())
}

/// Every engine runs every job's workload, and a job that starts from a SQLite file runs on
/// SQLite, on disk.
fn check_engines_run(args: &RunArgs, choices: &[EngineChoice], jobs: &[Job]) -> Result<(), Failure> {
    for c in choices {
        for job in jobs {
            if !c.kind.runs(job.workload.name()) {
                return Err(Failure(format!(
                    "--engine {}: cannot run workload {}; see litebench list",
                    c.kind.name,
                    job.workload.name()
                )));
            }
        }
    }
    for job in jobs {
        let Some(file) = job.workload.template_file(&job.params) else {
            continue;
        };
        if let Some(c) = choices
            .iter()
            .find(|c| !std::ptr::eq(c.kind, &crate::engines::sqlite::KIND))
        {
            // Only workloads with an `init` parameter can populate another engine instead.
            let instead = if job.workload.params().iter().any(|p| p.name == "init") {
                ", or populate with --param init=SCHEMA.sql"
            } else {
                ", or leave out --param db to start from an empty database"
            };
            return Err(Failure(format!(
                "--param db={}: a database file is SQLite's, and engine {} cannot start from it; run --engine sqlite{instead}",
                file.display(),
                c.kind.name
            )));
        }
        if args.memory {
            return Err(Failure(format!(
                "--param db={}: an in-memory database cannot start from a file; leave out --memory",
                file.display()
            )));
        }
    }
    Ok(())
}

/// Validates `--fs` and `--fs-size`: values first, then what they need of this host (root,
/// the kernel's support, the mkfs tools).
fn plan_filesystems(
    args: &RunArgs,
    choices: &[EngineChoice],
) -> Result<(Vec<crate::testbed::fsspec::FsSpec>, u64), Failure> {
    use crate::testbed::fsspec;
    let specs = fsspec::parse_all(&args.fs)?;
    let size = fsspec::parse_size(&args.fs_size)?;
    if specs.is_empty() {
        if args.guest {
            return Err(Failure(
                "--guest runs the --fs filesystems inside a guest kernel; give --fs (e.g. --fs ext4,f2fs)".into(),
            ));
        }
        return Ok((specs, size));
    }
    fsspec::check_sizes(&specs, &args.fs_size, size)?;
    if args.memory {
        return Err(Failure(
            "--fs and --memory together make no sense: in-memory databases touch no filesystem; leave out one".into(),
        ));
    }
    if let Some(c) = choices.iter().find(|c| !c.kind.files_in_scratch) {
        return Err(Failure(format!(
            "--fs: engine {} keeps its data in its server's own directory, not on the filesystems --fs builds; compare filesystems with sqlite, duckdb or files",
            c.kind.name
        )));
    }
    // With --guest the guest kernel mounts them (checked when it is set up), not this one.
    if !args.guest {
        fsspec::check_host(&specs)?;
    }
    Ok((specs, size))
}

/// Adds the workload's default knob values ([`Workload::default_knobs`]) that `set` does not
/// set and the engine (`specs`, `prefix`) has, in canonical form; returns the set and the names
/// of the knobs added.
pub fn with_workload_defaults(
    wl: &dyn Workload,
    specs: &'static [crate::model::knob::KnobSpec],
    prefix: &str,
    set: KnobSet,
) -> (KnobSet, Vec<String>) {
    let mut added = Vec::new();
    let mut v = set.0;
    for (name, value) in wl.default_knobs() {
        let Some(spec) = crate::model::knob::find_spec(specs, name) else {
            continue;
        };
        if v.iter().any(|k| k.name == *name) {
            continue;
        }
        let value = spec.kind.canonical(value).unwrap_or_else(|| value.to_string());
        v.push(crate::model::knob::KnobSetting {
            name: name.to_string(),
            value,
        });
        added.push(name.to_string());
    }
    (KnobSet(v).for_engine(specs, prefix), added)
}

/// Where each knob of a configuration came from: `user` (a `--knob` flag), `preset NAME`, or
/// `workload NAME default` (the knobs in `defaults`); knobs not listed are at the engine's
/// default.
pub fn knob_origins(
    set: &KnobSet,
    pick: Option<&Pick>,
    user_knobs: &[String],
    workload: &str,
    defaults: &[String],
) -> Vec<(String, String)> {
    set.0
        .iter()
        .map(|k| {
            let origin = match pick {
                _ if defaults.contains(&k.name) => format!("workload {workload} default"),
                Some(p) if !user_knobs.contains(&k.name) => format!("preset {}", p.preset.name),
                _ => "user".to_string(),
            };
            (k.name.clone(), origin)
        })
        .collect()
}

/// The `begin` knob's origin where a workload runs the user's SQL (script, replay) on an engine
/// that has the knob and the configuration leaves it unset: `as written`, since its default is
/// for litebench's own transactions and rewrites none of the user's `BEGIN`s (the trials'
/// read-back says the same).
pub fn begin_as_written(
    wl: &dyn Workload,
    params: &crate::model::params::Params,
    specs: &'static [crate::model::knob::KnobSpec],
    set: &KnobSet,
) -> Option<(String, String)> {
    let begin = crate::engines::sqlite::knobs::BEGIN_KNOB;
    let unset = set.get(begin).is_none() && crate::model::knob::find_spec(specs, begin).is_some();
    (unset && wl.bare_begins(params).is_some())
        .then(|| (begin.to_string(), crate::model::knob::BEGIN_AS_WRITTEN.to_string()))
}
