//! `--cast FILE` in the plan: the cast read into the load shape, the flags it replaces refused,
//! and each role checked against the engines that would run it.

use super::clients::processes_why;
use super::jobs::{param_name, Job};
use super::load::{clients_text, rates_and_sweep, shape_at, LoadPoint};
use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::model::load::LoadShape;
use crate::model::params;
use crate::workload;

/// The one load point of `--cast FILE` (a cast sweeps nothing): the other load flags as given,
/// its roles over them ([`cast_shape`]).
pub(super) fn cast_points(args: &RunArgs, path: &std::path::Path, jobs: &[Job]) -> Result<Vec<LoadPoint>, Failure> {
    let (rates, sweep) = rates_and_sweep(args)?;
    let shape = shape_at(
        args,
        args.clients.0[0],
        rates[0],
        args.client_mode.0[0],
        args.connections.0[0],
        sweep,
    );
    let shape = cast_shape(args, path, shape, jobs)?;
    Ok(vec![LoadPoint {
        shape,
        label: String::new(),
    }])
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
pub(super) fn check_cast(
    load: &LoadShape,
    jobs: &[Job],
    choices: &[EngineChoice],
    labels: &[String],
) -> Result<(), Failure> {
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
