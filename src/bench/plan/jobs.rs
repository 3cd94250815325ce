//! The jobs of a run: one stored run each, a workload with one set of parameters (from a
//! preset or `--param`), the engines that run it, what ends its trials, and which of them this
//! process runs under `--shard`. A job is what the rest of the plan fills in.

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::model::knob::KnobSet;
use crate::model::load::LoadShape;
use crate::model::params;
use crate::model::params::Params;
use crate::model::record::FleetInfo;
use crate::model::stop_rule::{ChosenBy, StopOn, StopRule};
use crate::workload::preset::{self, Pick};
use crate::workload::{self, Workload};

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
    /// Its `--storage` value.
    pub storage: Option<crate::model::storage::StorageSpec>,
    /// Its own load shape in a sweep (`--clients 1,2,4`...); `None`: the run's ([`Plan::load`]).
    pub load: Option<LoadShape>,
    /// The sweep's values that name it (`clients=4`); empty without a sweep.
    pub axis: String,
}

impl Configuration {
    /// Its label: `[storage ][fs ][scheduler ][engine ][presets ]knobs[ sweep]`, the engine named only where the
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
        let storage = self.storage.as_ref().map(|s| s.text.as_str());
        for part in [engine, self.scheduler.as_deref(), fs, storage].into_iter().flatten() {
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

pub(super) fn param_name(arg: &str) -> &str {
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

/// What ends a job's trials (see [`crate::model::stop_rule`]): the duration where one is
/// given, else the count where one is given; given neither, an open loop stops on time, as long
/// as the default count takes at the rate (set here as the job's duration), and a closed loop
/// on the default count.
pub(super) fn stop_rule(job: &mut Job, load: &LoadShape) -> Option<StopRule> {
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
pub(super) fn plan_jobs(args: &RunArgs, picks: &[Pick]) -> Result<(Vec<Job>, Vec<String>), Failure> {
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

/// `--shard` / `--replicate`: what the manifest records, and the positions of the plan's jobs
/// this process runs (all of them without `--shard`).
pub(super) fn fleet_part(args: &RunArgs, jobs: &[Job]) -> Result<(Option<FleetInfo>, Vec<usize>), Failure> {
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
pub(super) fn engine_choices(specs: &[String], args: &RunArgs) -> Result<Vec<EngineChoice>, Failure> {
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

/// Every engine runs every job's workload, and a job that starts from a SQLite file runs on
/// SQLite, on disk.
pub(super) fn check_engines_run(args: &RunArgs, choices: &[EngineChoice], jobs: &[Job]) -> Result<(), Failure> {
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
