//! Knob axes into configurations: the `--knob` axes and each preset's knobs merged into a job's
//! knob sets, and each set expanded over the engines, load points, filesystems and schedulers
//! into the configurations the job runs, in order, each knob's origin said.

use super::jobs::{Configuration, Job};
use super::knob_reach::preset_knob_unknown;
use super::load::LoadPoint;
use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::model::knob::{configurations, parse_axis, KnobAxis, KnobCatalog, KnobError, KnobSet};
use crate::model::load::LoadShape;
use crate::testbed::fsspec::{FsKind, FsSpec};
use crate::workload::preset::Pick;
use crate::workload::Workload;

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

/// Fills in each job's knob sets: the `--knob` axes' configurations, or each preset's knobs
/// with the `--knob` axes merged in.
pub(super) fn knob_sets(args: &RunArgs, jobs: &mut [Job], choices: &[EngineChoice]) -> Result<(), Failure> {
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
    refuse_extension_without_sqlite(&args.knobs, choices)?;
    let knobs = super::drivers::with_driver_axis(args, choices, jobs)?;
    let user_axes = knobs
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
    for job in jobs.iter_mut() {
        drop_inert_knobs(job)?;
    }
    if args.vary_one && user_axes.is_empty() {
        return Err(Failure(
            "--vary-one needs at least one --knob with several values".into(),
        ));
    }
    Ok(())
}

/// Takes out of each knob set what its workload says changes nothing there
/// ([`crate::workload::Workload::inert_knobs`]), and the sets that leaves equal to an earlier
/// one: `--knob extension=sqlite-vec@0.1.9,vectorlite@0.2.0 --knob hnsw_ef_search=10,64` runs
/// sqlite-vec once and vectorlite twice, not sqlite-vec twice under two labels.
/// A `--knob` that changes nothing in any configuration is refused, naming it.
fn drop_inert_knobs(job: &mut Job) -> Result<(), Failure> {
    let mut kept: Vec<(Option<Pick>, KnobSet)> = Vec::with_capacity(job.sets.len());
    let mut live: Vec<String> = Vec::new();
    for (pick, mut ks) in std::mem::take(&mut job.sets) {
        let inert = job.workload.inert_knobs(&job.params, &ks);
        ks.0.retain(|k| !inert.contains(&k.name.as_str()));
        live.extend(ks.0.iter().map(|k| k.name.clone()));
        if !kept.iter().any(|(p, k)| *p == pick && *k == ks) {
            kept.push((pick, ks));
        }
    }
    job.sets = kept;
    match job.user_knobs.iter().find(|k| !live.contains(k)) {
        Some(k) => Err(Failure(format!(
            "--knob {k}: changes nothing in any configuration of this {} run (docs/knobs.md says what reads it); leave it out, or add a configuration that reads it",
            job.workload.kind().name
        ))),
        None => Ok(()),
    }
}

/// `--knob extension=...` on a run none of whose engines loads extensions: refused naming the
/// engines that do, rather than as an unknown knob. With SQLite beside another engine, only
/// SQLite's configurations load it, as with any knob one engine has.
fn refuse_extension_without_sqlite(knobs: &[String], choices: &[EngineChoice]) -> Result<(), Failure> {
    let knob = crate::engines::sqlite::knobs::EXTENSION_KNOB;
    let Some(given) = knobs.iter().find(|k| {
        k.split_once('=')
            .is_some_and(|(n, _)| n.trim().eq_ignore_ascii_case(knob))
    }) else {
        return Ok(());
    };
    let takes = |c: &EngineChoice| crate::model::knob::find_spec(c.knob_table().0, knob).is_some();
    if choices.iter().any(takes) {
        return Ok(());
    }
    let engines: Vec<&str> = choices.iter().map(|c| c.kind.name).collect();
    Err(Failure(format!(
        "--knob {given}: only SQLite loads extensions (--engine sqlite, sqlite@RELEASE or sqlite:PATH), not {}; add a SQLite engine or leave the knob out",
        engines.join(", ")
    )))
}

/// A job's configurations in run order: each engine's knob sets (each with the knobs that
/// engine has, so sets that become identical for it run once, named after every preset they
/// stand for), each on every filesystem, each under every scheduler that applies there, each on every
/// `--storage`.
#[allow(clippy::too_many_arguments)]
pub(super) fn expand(
    job: &Job,
    choices: &[EngineChoice],
    points: &[LoadPoint],
    skip: &dyn Fn(usize, &LoadShape) -> bool,
    filesystems: &[FsSpec],
    schedulers: &[String],
    scheduler_device: bool,
    storages: &[crate::model::storage::StorageSpec],
) -> Vec<Configuration> {
    let wl = job.workload;
    // The knob sets per engine, before filesystems and schedulers multiply them.
    let mut sets: Vec<Configuration> = Vec::new();
    for (engine, c) in choices.iter().enumerate() {
        let (specs, prefix) = c.knob_table();
        for (pick, ks) in &job.sets {
            let ks = ks.for_engine(specs, prefix);
            let (knobs, defaults) = with_workload_defaults(wl, specs, prefix, ks);
            // A driver process runs its own SQLite whatever the engine's library (which only
            // makes the template database): on a second SQLite engine it would measure the same
            // again under another label, so it runs once, on the first.
            let driven = crate::bench::driver_process::driver_of(&knobs).is_some();
            if driven && sets.iter().any(|s| s.engine != engine && s.knobs == knobs) {
                continue;
            }
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
                storage: None,
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
            // `--storage` varies fastest: its curve is read configuration by configuration.
            let stores: Vec<Option<&crate::model::storage::StorageSpec>> = match storages.is_empty() {
                true => vec![None],
                false => storages.iter().map(Some).collect(),
            };
            for scheduler in scheds {
                // The kernel throttles a device: a throttled storage runs only where
                // litebench made one.
                for storage in stores.iter().filter(|s| on_device || !s.is_some_and(|s| s.throttled())) {
                    configs.push(Configuration {
                        index: configs.len(),
                        fs,
                        scheduler: scheduler.cloned(),
                        storage: storage.cloned(),
                        ..set.clone()
                    });
                }
            }
        }
    }
    configs
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
