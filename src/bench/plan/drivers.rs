//! `--driver`: the driver as an axis of a run's configurations, and the runs it is refused for.
//!
//! A driver is SQLite's knob `driver` ([`crate::engines::sqlite::knobs::DRIVER_KNOB`]), so that
//! it crosses with the other knobs, names every configuration it runs in, and is read back like
//! them: `--driver rust,python-sqlite3` is `--knob driver=rust,python-sqlite3`, checked here
//! first. A driver carries its own SQLite and opens the trial's file, so it runs only with a
//! SQLite engine, on a file, with the workloads whose transactions can be sent ahead of time
//! ([`crate::workload::Workload::driver_refusal`]). In a cast, a workload role runs through its
//! own `driver`, or else through the configuration's ([`check_cast_drivers`]).

use super::jobs::Job;
use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::model::driver::{DRIVERS, RUST};
use crate::model::load::LoadShape;

/// The drivers `--driver` (or `--knob driver=`) names, checked; `given_as_knob` says which.
fn named(args: &RunArgs) -> Result<(Vec<String>, bool), Failure> {
    let knob = crate::engines::sqlite::knobs::DRIVER_KNOB;
    let given_as_knob = args.knobs.iter().find_map(|k| {
        k.split_once('=')
            .filter(|(n, _)| n.trim().eq_ignore_ascii_case(knob))
            .map(|(_, v)| v.split(',').map(|s| s.trim().to_string()).collect::<Vec<_>>())
    });
    let names = match (given_as_knob, args.drivers.is_empty()) {
        (Some(_), false) => {
            return Err(Failure(
                "--driver and --knob driver= together: name the drivers once, with --driver".into(),
            ))
        }
        (Some(v), true) => return Ok((v, true)),
        (None, false) => args.drivers.iter().map(|s| s.trim().to_string()).collect(),
        (None, true) => Vec::new(),
    };
    for n in &names {
        if !DRIVERS.contains(&n.as_str()) {
            return Err(Failure(format!(
                "--driver {n}: no such driver; litebench has {}",
                DRIVERS.join(", ")
            )));
        }
    }
    Ok((names, false))
}

/// The `--knob` axes with `--driver`'s as one more (`driver=A,B`), once the drivers are known
/// to run here; unchanged without `--driver` (and with `--driver rust` alone: today's path).
pub(super) fn with_driver_axis(args: &RunArgs, choices: &[EngineChoice], jobs: &[Job]) -> Result<Vec<String>, Failure> {
    let knob = crate::engines::sqlite::knobs::DRIVER_KNOB;
    let mut knobs = args.knobs.clone();
    let (names, given_as_knob) = named(args)?;
    if names.iter().all(|n| n == RUST) {
        return Ok(knobs);
    }
    let first = names.iter().find(|n| *n != RUST).map_or(RUST, String::as_str);
    let flag = format!("--driver {first}");
    if let Some(other) = choices
        .iter()
        .find(|c| !std::ptr::eq(c.kind, &crate::engines::sqlite::KIND))
    {
        return Err(Failure(format!(
            "{flag}: a driver carries its own SQLite, so it runs only with --engine sqlite, not {}; leave --driver out for other engines",
            other.kind.name
        )));
    }
    let refuse = |what: &str| Err(Failure(format!("{flag}: {what}")));
    if args.memory {
        return refuse("a driver opens the trial's database file; leave --memory out");
    }
    if args
        .client_mode
        .0
        .iter()
        .any(|m| *m != crate::model::load::ClientMode::Threads)
    {
        return refuse("every driver's client is a process of its own already; leave --client-mode out");
    }
    for job in jobs {
        if let Some(why) = job.workload.driver_refusal(&job.params) {
            return refuse(&format!(
                "workload {} cannot run through a driver: {why}",
                job.workload.name()
            ));
        }
    }
    if !given_as_knob {
        knobs.push(format!("{knob}={}", names.join(",")));
    }
    Ok(knobs)
}

/// A cast's workload roles against the drivers they run through: a role's own `driver`, or
/// else each of `--driver`'s. A role through a driver runs its clients as driver processes from
/// the common start to the end (the cast file refused the rest of a role's own `driver`), on
/// the workload's transactions with the role's parameters.
pub(super) fn check_cast_drivers(args: &RunArgs, load: &LoadShape, jobs: &[Job]) -> Result<(), Failure> {
    let Some(cast) = &load.cast else { return Ok(()) };
    let (given, _) = named(args)?;
    for role in cast.workload_roles() {
        let drivers: Vec<&str> = match role.driver() {
            Some(d) => vec![d],
            None => given.iter().map(String::as_str).collect(),
        };
        let Some(driver) = drivers.into_iter().find(|d| *d != RUST) else {
            continue;
        };
        let refuse = |what: &str| -> Result<(), Failure> {
            Err(Failure(format!(
                "--cast {}: role \"{}\" through driver {driver}: {what}",
                cast.file, role.name
            )))
        };
        if let Some((what, why, leave)) = role.driver_conflict() {
            return refuse(&format!(
                "{what}, but {why}; leave out the role's {leave}, or give it driver = \"rust\""
            ));
        }
        for job in jobs {
            let mut params = job.params.clone();
            params.0.extend(role.params.0.clone());
            if let Some(why) = job.workload.driver_refusal(&params) {
                return refuse(&format!(
                    "workload {} cannot run through a driver: {why}",
                    job.workload.name()
                ));
            }
        }
    }
    Ok(())
}
