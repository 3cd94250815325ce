//! What the engines can do with a trial's clients: run them in processes of their own
//! (`--client-mode processes`) or share one connection between them (`--connections shared`),
//! refused in one line, or in a sweep left out with a warning, where an engine cannot.

use super::load::LoadPoint;
use crate::base::Failure;
use crate::engines::registry::EngineChoice;

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
pub(super) fn processes_why(c: &EngineChoice) -> Option<&'static str> {
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
pub(super) fn client_processes_engines(
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
pub(super) fn shared_connection_engines(
    choices: &[EngineChoice],
    labels: &[String],
    points: &[LoadPoint],
) -> Result<(), Failure> {
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
