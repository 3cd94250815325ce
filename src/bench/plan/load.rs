//! The load shape and its sweeps: the `--clients`, `--rate`, `--client-mode` and
//! `--connections` axes as load points, each checked against the workloads, the engines and
//! the rest of the run, so a point that cannot run is refused (or, in a sweep, left out with a
//! warning) before anything starts.

use super::jobs::Job;
use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::model::load::LoadShape;
use crate::model::params;
use crate::model::stop_rule::StopOn;
use crate::workload;

/// One point of the load axes (`--clients`, `--rate`, `--client-mode`): its load shape and the
/// words that name it in a configuration's label (`clients=4`; empty without a sweep).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadPoint {
    pub shape: LoadShape,
    pub label: String,
}

/// `--clients` as given (`1,2,4`).
pub(super) fn clients_text(args: &RunArgs) -> String {
    args.clients.0.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// The rates `--rate` gives (one `None` without it) and whether the load flags sweep; a
/// `--retry-backoff` that no retry would wait for refused.
pub(super) fn rates_and_sweep(args: &RunArgs) -> Result<(Vec<Option<f64>>, bool), Failure> {
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
    Ok((rates, sweep))
}

/// The load points of the run in order (clients outermost, then rate, then client mode): one
/// without a sweep, each refused in one line where a job's workload or the run cannot take it.
/// In a sweep a point the run cannot take (several clients on `--memory`, processes with one
/// The load shape of one point of the load axes, the other load flags as given.
pub(super) fn shape_at(
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
pub(super) fn load_points(
    args: &RunArgs,
    jobs: &mut [Job],
    warnings: &mut Vec<String>,
) -> Result<Vec<LoadPoint>, Failure> {
    let (rates, sweep) = rates_and_sweep(args)?;
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

/// `--measure instructions` counts what callgrind sees of litebench's own process, phase by
/// phase or, where the load driver times a trial as one interval, from its common start to
/// its last client's end: a client process would run outside it, an open loop's waits for its
/// schedule would be counted as work, and a cast's roles are not bracketed.
pub(super) fn check_measure(args: &RunArgs, points: &[LoadPoint]) -> Result<(), Failure> {
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

/// An open loop whose first arrival would come after its trial ends, or whose count's
/// schedule outlasts the longest trial, is refused with when that would be: its trials would
/// measure nothing, or wait for days without a word (`--rate 1e-300` on a count).
pub(super) fn check_first_arrival(points: &[LoadPoint], jobs: &[Job]) -> Result<(), Failure> {
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
