//! Whether each knob reaches what it is asked to change: a preset's knobs known to the engines
//! that run it, and each knob read by the workload's statements (`workload::knob_reach`).

use super::jobs::Job;
use crate::base::Failure;
use crate::engines::registry::EngineChoice;
use crate::workload::preset::{self, Pick};

pub(super) fn preset_knob_unknown(p: &Pick, knob: &str, engine: &str) -> Failure {
    Failure(format!(
        "--preset {}: its knob {knob} means nothing to {engine}, which would run its own defaults under the preset's name; run the preset on an engine that has {knob} (see litebench list), or compare engines without --preset",
        p.preset.name
    ))
}

/// Every knob of every preset is known to each engine of the run that it applies to.
pub(super) fn check_preset_knobs(picks: &[preset::Pick], choices: &[EngineChoice]) -> Result<(), Failure> {
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
pub(super) fn check_knob_reach(jobs: &[Job], choices: &[EngineChoice]) -> Result<(), Failure> {
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

/// Every configuration of every job, at every load point, is one its workload can run
/// ([`crate::workload::Workload::check_configuration`]): refused here, before anything runs,
/// not at its first trial.
pub(super) fn check_configurations(
    jobs: &[Job],
    choices: &[EngineChoice],
    points: &[super::load::LoadPoint],
) -> Result<(), Failure> {
    for job in jobs {
        for c in &job.configs {
            // A sweep's configuration runs at its own point; any other at every point.
            let clients: Vec<u32> = match &c.load {
                Some(l) => vec![l.clients],
                None => points.iter().map(|p| p.shape.clients).collect(),
            };
            for shape_clients in clients {
                job.workload
                    .check_configuration(&job.params, choices[c.engine].kind, &c.knobs, shape_clients)
                    .map_err(Failure)?;
            }
        }
    }
    Ok(())
}
