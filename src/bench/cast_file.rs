//! `--cast FILE`: a cast ([`crate::model::cast`]) written as TOML, one `[[role]]` table per role.
//! Read and checked before anything runs; every mistake is one line naming the file, the role
//! and the key, and how to fix it.
//!
//! ```toml
//! [[role]]
//! name = "writer"
//! kind = "workload"
//! rate = 50
//! params = { workload = "a" }
//!
//! [[role]]
//! name = "holder"
//! kind = "hold"
//! every = "6s"
//! for = "3s"
//!
//! [[role]]
//! name = "litestream"
//! kind = "sidecar"
//! command = ["litestream", "replicate", "{db}", "file://{scratch}/replica"]
//! grace = "5s"
//! ```
//!
//! A sidecar's program must be found and executable when the file is read: a run never starts
//! to fail at its first trial on a typing mistake.
//!
//! The keys are checked against the kind's own list first (so that an unknown or misplaced key
//! is named with the valid ones, which a derived deserializer cannot say per kind), then each
//! value is read with serde on its own, so that a value of the wrong type is named by its key.

use crate::engines::sqlite::knobs::SQLITE_KNOBS;
use crate::model::cast::{
    BackupMethod, BackupSteps, BackupTarget, Cast, CheckpointMode, HoldQuery, Role, RoleKind, Schedule, SidecarCommand,
    VacuumMode, MAX_ROLES,
};
use crate::model::knob::find_spec;
use crate::model::load::{Arrival, ClientMode, Connections, MAX_CLIENTS, MAX_RATE};
use crate::model::params::{parse_duration, Params, MAX_DURATION};
use std::collections::BTreeMap;
use std::time::Duration;

/// Keys every role has.
const COMMON: &[&str] = &["name", "kind"];
/// The keys of each kind, beyond [`COMMON`].
const WORKLOAD_KEYS: &[&str] = &[
    "clients",
    "mode",
    "connections",
    "rate",
    "arrival",
    "params",
    "busy_timeout",
    "cache_size",
    "begin",
    "query_only",
    "driver",
    "at",
    "every",
    "for",
];
const HOLD_KEYS: &[&str] = &["at", "every", "for", "query", "busy_timeout", "cache_size"];
const CHECKPOINT_KEYS: &[&str] = &["checkpoint", "at", "every", "busy_timeout"];
const SIDECAR_KEYS: &[&str] = &["command", "grace", "keep", "at"];
const VACUUM_KEYS: &[&str] = &["vacuum", "pages", "at", "every", "busy_timeout", "query_only"];
const BACKUP_KEYS: &[&str] = &["method", "to", "pages", "pause", "at", "every", "busy_timeout"];
/// The per-connection knobs a role may set.
const ROLE_KNOBS: &[&str] = &["busy_timeout", "cache_size", "begin", "query_only", "driver"];
const KINDS: &[&str] = &["workload", "hold", "checkpoint", "sidecar", "vacuum", "backup"];

/// A cast file that cannot be read or does not describe a cast.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CastFileError {
    #[error("--cast {file}: cannot read it: {why}; give a readable TOML file")]
    Unreadable { file: String, why: String },
    #[error("--cast {0}")]
    Untrusted(String),
    #[error("--cast {file}: not TOML: {why}")]
    NotToml { file: String, why: String },
    #[error("--cast {file}: unknown key `{key}` at the top; valid keys: role (one [[role]] table per role)")]
    UnknownTop { file: String, key: String },
    #[error(
        "--cast {file}: no roles; give one [[role]] table per role, with name and kind (workload, hold, checkpoint, sidecar, vacuum, backup)"
    )]
    NoRoles { file: String },
    #[error(
        "--cast {file}: role {index}: {key} is missing; give it (valid kinds: workload, hold, checkpoint, sidecar, vacuum, backup)"
    )]
    Missing {
        file: String,
        index: usize,
        key: &'static str,
    },
    #[error("--cast {file}: role \"{role}\": unknown key `{key}` for kind {kind}; valid keys: {valid}")]
    UnknownKey {
        file: String,
        role: String,
        key: String,
        kind: String,
        valid: String,
    },
    #[error("--cast {file}: role \"{role}\": {key}: {why}")]
    Invalid {
        file: String,
        role: String,
        key: String,
        why: String,
    },
    #[error("--cast {file}: role name \"{role}\" is given twice; give each role a name of its own")]
    Duplicate { file: String, role: String },
    #[error(
        "--cast {file}: role {index}: name \"{name}\" is not a role name; give 1 to {max} letters, digits, '.', '_' and '-', not only digits and not starting with '-', as --name takes (e.g. name = \"writer\")",
        max = crate::store::run_name::MAX_LEN
    )]
    BadName { file: String, index: usize, name: String },
    #[error("--cast {file}: {roles} roles, above the {MAX_ROLES} a cast may have; give at most {MAX_ROLES} [[role]] tables (many like clients are one role with clients = N)")]
    TooManyRoles { file: String, roles: usize },
    #[error("--cast {file}: the roles have {clients} clients in all (a workload role's clients, and 1 for each other role), above the {max} a trial may have (as --clients); give the roles fewer clients", max = MAX_CLIENTS)]
    TooManyClients { file: String, clients: u64 },
}

/// The most characters of a value a message shows: a 70,000-character name is not repeated
/// whole in an error line.
const SHOWN_CHARS: usize = 40;

/// `s` as a message shows it: its first [`SHOWN_CHARS`] characters (an ellipsis after them),
/// control characters escaped, so that an error line is one short line a terminal prints as
/// it is.
fn shown(s: &str) -> String {
    let mut out: String = s.chars().take(SHOWN_CHARS).flat_map(char::escape_debug).collect();
    if s.chars().nth(SHOWN_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// One `[[role]]` as written; its keys are checked before it is read, and each value is read
/// on its own ([`typed`]), so that a wrong type is named by its key.
struct RoleFile {
    name: String,
    kind: String,
    clients: Option<u32>,
    mode: Option<ClientMode>,
    connections: Option<Connections>,
    rate: Option<f64>,
    arrival: Option<Arrival>,
    params: BTreeMap<String, toml::Value>,
    busy_timeout: Option<toml::Value>,
    cache_size: Option<toml::Value>,
    begin: Option<toml::Value>,
    query_only: Option<toml::Value>,
    driver: Option<toml::Value>,
    at: Option<String>,
    every: Option<String>,
    hold_for: Option<String>,
    checkpoint: Option<String>,
    command: Option<Vec<String>>,
    grace: Option<String>,
    keep: Option<bool>,
    query: Option<String>,
    vacuum: Option<String>,
    pages: Option<i64>,
    method: Option<String>,
    to: Option<String>,
    pause: Option<String>,
}

/// The value of `key` in `t` as a `T`, if given: a wrong type is that key's error.
fn typed<T: serde::de::DeserializeOwned>(
    t: &toml::Table,
    key: &str,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<Option<T>, CastFileError> {
    let Some(v) = t.get(key) else { return Ok(None) };
    // An integer rate reads as a number too.
    let v = match v {
        toml::Value::Integer(i) if key == "rate" => toml::Value::Float(*i as f64),
        v => v.clone(),
    };
    v.try_into().map(Some).map_err(|e: toml::de::Error| {
        invalid(
            key,
            format!("{}; give it as docs/load.md's cast example does", one_line(e.message())),
        )
    })
}

impl RoleFile {
    fn read(
        t: &toml::Table,
        name: String,
        kind: String,
        invalid: &dyn Fn(&str, String) -> CastFileError,
    ) -> Result<RoleFile, CastFileError> {
        Ok(RoleFile {
            name,
            kind,
            clients: typed(t, "clients", invalid)?,
            mode: typed(t, "mode", invalid)?,
            connections: typed(t, "connections", invalid)?,
            rate: typed(t, "rate", invalid)?,
            arrival: typed(t, "arrival", invalid)?,
            params: typed(t, "params", invalid)?.unwrap_or_default(),
            busy_timeout: t.get("busy_timeout").cloned(),
            cache_size: t.get("cache_size").cloned(),
            begin: t.get("begin").cloned(),
            query_only: t.get("query_only").cloned(),
            driver: t.get("driver").cloned(),
            at: typed(t, "at", invalid)?,
            every: typed(t, "every", invalid)?,
            hold_for: typed(t, "for", invalid)?,
            checkpoint: typed(t, "checkpoint", invalid)?,
            command: typed(t, "command", invalid)?,
            grace: typed(t, "grace", invalid)?,
            keep: typed(t, "keep", invalid)?,
            query: typed(t, "query", invalid)?,
            vacuum: typed(t, "vacuum", invalid)?,
            pages: typed(t, "pages", invalid)?,
            method: typed(t, "method", invalid)?,
            to: typed(t, "to", invalid)?,
            pause: typed(t, "pause", invalid)?,
        })
    }
}

/// Reads the cast in `path`; `resolve` turns a workload role's `params` (as `NAME=VALUE`) into
/// the parameters it overrides, or says why not.
pub fn read(
    path: &std::path::Path,
    resolve: &dyn Fn(&[String]) -> Result<Params, String>,
) -> Result<Cast, CastFileError> {
    let file = path.display().to_string();
    let unreadable = |why: String| CastFileError::Unreadable {
        file: file.clone(),
        why,
    };
    // Its sidecars are commands litebench starts: read only from a file nobody else can change,
    // from the descriptor that was checked.
    let checked = crate::sys::trusted::open_given(path, crate::sys::trusted::Becomes::Cast).map_err(|e| match e {
        crate::sys::trusted::TrustError::Io { source, .. } => unreadable(source.to_string()),
        refused => CastFileError::Untrusted(refused.to_string()),
    })?;
    let bytes = checked.read_all().map_err(|e| unreadable(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| unreadable("it is not UTF-8 text".into()))?;
    parse(&file, &text, resolve)
}

/// Parses a cast file's text (`file`: how errors name it).
pub fn parse(
    file: &str,
    text: &str,
    resolve: &dyn Fn(&[String]) -> Result<Params, String>,
) -> Result<Cast, CastFileError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| CastFileError::NotToml {
        file: file.into(),
        why: one_line(e.message()),
    })?;
    if let Some(key) = table.keys().find(|k| *k != "role") {
        return Err(CastFileError::UnknownTop {
            file: file.into(),
            key: key.clone(),
        });
    }
    let roles = match table.get("role") {
        Some(toml::Value::Array(a)) if !a.is_empty() => a,
        _ => return Err(CastFileError::NoRoles { file: file.into() }),
    };
    if roles.len() > MAX_ROLES {
        return Err(CastFileError::TooManyRoles {
            file: file.into(),
            roles: roles.len(),
        });
    }
    let mut out: Vec<Role> = Vec::new();
    for (index, value) in roles.iter().enumerate() {
        let t = value
            .as_table()
            .ok_or_else(|| CastFileError::NoRoles { file: file.into() })?;
        let name = match t.get("name") {
            Some(toml::Value::String(s)) if !s.trim().is_empty() => s.clone(),
            _ => {
                return Err(CastFileError::Missing {
                    file: file.into(),
                    index: index + 1,
                    key: "name",
                })
            }
        };
        // As `--name` (no colon: `ROLE:OP` names its operations; no space, no control
        // character, at most 64 characters: every table and message prints it).
        if crate::store::run_name::check(&name).is_err() {
            return Err(CastFileError::BadName {
                file: file.into(),
                index: index + 1,
                name: shown(&name),
            });
        }
        let invalid = |key: &str, why: String| CastFileError::Invalid {
            file: file.into(),
            role: name.clone(),
            key: key.into(),
            why,
        };
        let kind = match t.get("kind").and_then(toml::Value::as_str) {
            Some(k) if KINDS.contains(&k) => k.to_string(),
            Some(k) => {
                return Err(invalid(
                    "kind",
                    format!("\"{k}\" is not a kind; valid kinds: {}", KINDS.join(", ")),
                ))
            }
            None => {
                return Err(CastFileError::Missing {
                    file: file.into(),
                    index: index + 1,
                    key: "kind",
                })
            }
        };
        let own = match kind.as_str() {
            "workload" => WORKLOAD_KEYS,
            "hold" => HOLD_KEYS,
            "sidecar" => SIDECAR_KEYS,
            "vacuum" => VACUUM_KEYS,
            "backup" => BACKUP_KEYS,
            _ => CHECKPOINT_KEYS,
        };
        if let Some(key) = t
            .keys()
            .find(|k| !COMMON.contains(&k.as_str()) && !own.contains(&k.as_str()))
        {
            let valid: Vec<&str> = COMMON.iter().chain(own).copied().collect();
            return Err(CastFileError::UnknownKey {
                file: file.into(),
                role: name.clone(),
                key: key.clone(),
                kind,
                valid: valid.join(", "),
            });
        }
        if out.iter().any(|r| r.name == name) {
            return Err(CastFileError::Duplicate {
                file: file.into(),
                role: name,
            });
        }
        let raw = RoleFile::read(t, name.clone(), kind, &invalid)?;
        out.push(role(raw, &invalid, resolve)?);
    }
    let cast = Cast {
        file: file.into(),
        roles: out,
    };
    let clients = cast.total_clients();
    if clients > u64::from(MAX_CLIENTS) {
        return Err(CastFileError::TooManyClients {
            file: file.into(),
            clients,
        });
    }
    Ok(cast)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn role(
    raw: RoleFile,
    invalid: &dyn Fn(&str, String) -> CastFileError,
    resolve: &dyn Fn(&[String]) -> Result<Params, String>,
) -> Result<Role, CastFileError> {
    let schedule = Schedule {
        at: duration("at", &raw.at, true, invalid)?.unwrap_or_default(),
        every: duration("every", &raw.every, false, invalid)?,
        hold_for: duration("for", &raw.hold_for, false, invalid)?,
    };
    let (kind, sidecar) = kind_of(&raw, &schedule, invalid)?;
    let backup = (kind == RoleKind::Backup)
        .then(|| backup_of(&raw, &schedule, invalid))
        .transpose()?;
    let query = raw.query.as_deref().map(|f| hold_query(f, invalid)).transpose()?;
    let clients = clients_of(&raw, invalid)?;
    let knobs = knobs_of(&raw, invalid)?;
    let params = params_of(&raw, invalid, resolve)?;
    let role = Role {
        name: raw.name,
        kind,
        clients,
        mode: raw.mode.unwrap_or_default(),
        connections: raw.connections.unwrap_or_default(),
        rate: raw.rate,
        arrival: raw.arrival.unwrap_or_default(),
        params,
        knobs,
        schedule,
        sidecar,
        backup,
        query,
    };
    // A role's own driver, with what its own loop would do instead: refused here (one taken
    // from --driver is checked in the plan).
    if let Some(driver) = role.driver().filter(|d| *d != crate::model::driver::RUST) {
        if let Some((what, why, leave)) = role.driver_conflict() {
            return Err(invalid(
                "driver",
                format!("\"{driver}\" with {what}: {why}; leave out {leave}, or the driver"),
            ));
        }
    }
    Ok(role)
}

/// A hold's report query: the statements of SQL file `file`, read now (the run records what
/// ran). A file that cannot be read, holds no statement, or takes a parameter is refused here,
/// before anything runs.
fn hold_query(file: &str, invalid: &dyn Fn(&str, String) -> CastFileError) -> Result<HoldQuery, CastFileError> {
    use crate::engines::sql_lex::{Kind, Lexer};
    let text = std::fs::read_to_string(file).map_err(|e| {
        invalid(
            "query",
            format!("cannot read {file}: {e}; give the file of your report's SQL"),
        )
    })?;
    let mut statements = Vec::new();
    let (mut start, mut code) = (0, false);
    for token in Lexer::new(&text, 0, false) {
        let token = token.map_err(|(at, why)| {
            let (line, col) = crate::engines::sql_lex::line_col(&text, at);
            invalid("query", format!("{file}:{line}:{col}: {why}"))
        })?;
        match token.kind {
            Kind::Semicolon => {
                if code {
                    statements.push(text[start..token.start].trim().to_string());
                }
                (start, code) = (token.end, false);
            }
            Kind::Param => {
                let (line, col) = crate::engines::sql_lex::line_col(&text, token.start);
                return Err(invalid(
                    "query",
                    format!(
                        "{file}:{line}:{col}: `{}` is a parameter, and a report query is run as written; write its value into the SQL",
                        &text[token.start..token.end]
                    ),
                ));
            }
            Kind::Blank | Kind::LineComment | Kind::BlockComment => {}
            _ => code = true,
        }
    }
    if code {
        statements.push(text[start..].trim().to_string());
    }
    if statements.is_empty() {
        return Err(invalid(
            "query",
            format!("{file} holds no SQL statement; give your report's query"),
        ));
    }
    Ok(HoldQuery {
        file: file.to_string(),
        statements,
    })
}

/// The duration under `key`, if given (zero allowed only where `zero`).
fn duration(
    key: &str,
    v: &Option<String>,
    zero: bool,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<Option<Duration>, CastFileError> {
    let Some(s) = v else { return Ok(None) };
    match parse_duration(s) {
        Some(d) if d <= MAX_DURATION && (zero || !d.is_zero()) => Ok(Some(d)),
        _ => Err(invalid(
            key,
            format!(
                "\"{s}\" is not a duration; give one such as 500ms, 20s or 1m{}",
                if zero { "" } else { ", above zero" }
            ),
        )),
    }
}

/// The role's kind, checked against its schedule, and a sidecar's command.
fn kind_of(
    raw: &RoleFile,
    schedule: &Schedule,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<(RoleKind, Option<SidecarCommand>), CastFileError> {
    Ok(match raw.kind.as_str() {
        "sidecar" => (RoleKind::Sidecar, Some(sidecar_of(raw, invalid)?)),
        "workload" => {
            workload_schedule(schedule, invalid)?;
            (RoleKind::Workload, None)
        }
        "hold" => {
            hold_schedule(schedule, raw.query.is_some(), invalid)?;
            (RoleKind::Hold, None)
        }
        "vacuum" => (RoleKind::Vacuum(vacuum_of(raw, schedule, invalid)?), None),
        "backup" => (RoleKind::Backup, None),
        _ => (RoleKind::Checkpoint(checkpoint_of(raw, schedule, invalid)?), None),
    })
}

/// A backup role's method and target file: a plain file name, made in the trial's scratch
/// directory (the default `ROLE.backup.db`); it needs a schedule.
fn backup_of(
    raw: &RoleFile,
    schedule: &Schedule,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<BackupTarget, CastFileError> {
    let method = match raw.method.as_deref().map(str::trim) {
        None | Some("api") => BackupMethod::Api,
        Some("vacuum-into") => BackupMethod::VacuumInto,
        Some(other) => {
            return Err(invalid(
                "method",
                format!("\"{other}\" is not a backup method; valid methods: api, vacuum-into"),
            ))
        }
    };
    let steps = match method {
        BackupMethod::Api => Some(steps_of(raw, invalid)?),
        BackupMethod::VacuumInto => {
            if let Some(key) = [("pages", raw.pages.is_some()), ("pause", raw.pause.is_some())]
                .into_iter()
                .find_map(|(k, given)| given.then_some(k))
            {
                return Err(invalid(
                    key,
                    "VACUUM INTO copies in one statement; give pages and pause only with method = \"api\"".into(),
                ));
            }
            None
        }
    };
    let to = raw.to.clone().unwrap_or_else(|| format!("{}.backup.db", raw.name));
    // One component, a name (not `.`, `..`, a root or a prefix), no separator.
    let plain = std::path::Path::new(&to)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    // Nor a name litebench gives its own files there (a trial's or template's database, its
    // records), nor one with control characters.
    let reserved = ["trial-", "template-", "litebench-", ".litebench-"]
        .iter()
        .find(|p| to.starts_with(*p));
    if let Some(p) = reserved {
        return Err(invalid(
            "to",
            format!("\"{to}\" starts with \"{p}\", as litebench's own files in the scratch directory do; give another file name, e.g. to = \"{}.backup.db\"", raw.name),
        ));
    }
    if to.chars().any(char::is_control) {
        return Err(invalid(
            "to",
            format!(
                "{to:?} holds a control character; give a plain file name, e.g. to = \"{}.backup.db\"",
                raw.name
            ),
        ));
    }
    if to.is_empty() || to.contains('/') || to.contains('\\') || !plain {
        return Err(invalid(
            "to",
            format!("\"{to}\" is not a plain file name; `to` takes a file name in the trial's scratch directory, e.g. to = \"{}.backup.db\"", raw.name),
        ));
    }
    if schedule.every.is_none() && schedule.at.is_zero() {
        return Err(invalid(
            "every",
            "a backup role needs a schedule; give at = \"2s\" for one (or every = \"10s\")".into(),
        ));
    }
    Ok(BackupTarget { method, to, steps })
}

/// An online backup's pages per step (default [`BackupSteps::DEFAULT_PAGES`]; -1: all at once)
/// and pause between steps (default none).
fn steps_of(raw: &RoleFile, invalid: &dyn Fn(&str, String) -> CastFileError) -> Result<BackupSteps, CastFileError> {
    let pages = match raw.pages {
        None => BackupSteps::DEFAULT_PAGES,
        Some(n) if n == -1 || (n > 0 && n <= i64::from(i32::MAX)) => n as i32,
        Some(n) => {
            return Err(invalid(
                "pages",
                format!("{n}: give the pages to copy each step, 1 or more, or -1 for all at once"),
            ))
        }
    };
    let pause = duration("pause", &raw.pause, true, invalid)?.unwrap_or_default();
    Ok(BackupSteps { pages, pause })
}

/// A vacuum role's mode and pages; it needs a schedule, and a connection that may write.
fn vacuum_of(
    raw: &RoleFile,
    schedule: &Schedule,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<VacuumMode, CastFileError> {
    let valid = VacuumMode::NAMES.join(", ");
    let mode = match raw.vacuum.as_deref().map(str::trim) {
        None => {
            return Err(invalid(
                "vacuum",
                format!("a vacuum role needs its statement; give vacuum = one of {valid}"),
            ))
        }
        Some("full") => {
            if raw.pages.is_some() {
                return Err(invalid(
                    "pages",
                    "VACUUM rewrites the whole database; give pages only with vacuum = \"incremental\"".into(),
                ));
            }
            VacuumMode::Full
        }
        Some("incremental") => {
            let pages = match raw.pages {
                None => None,
                Some(n) if n > 0 && n <= i64::from(u32::MAX) => Some(n as u32),
                Some(n) => {
                    return Err(invalid(
                        "pages",
                        format!(
                        "{n}: give the free pages to vacuum each time, 1 or more, or leave out pages for all of them"
                    ),
                    ))
                }
            };
            VacuumMode::Incremental { pages }
        }
        Some(other) => {
            return Err(invalid(
                "vacuum",
                format!("\"{other}\" is not a vacuum; valid values: {valid}"),
            ))
        }
    };
    if raw
        .query_only
        .as_ref()
        .and_then(scalar)
        .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "on" | "1" | "true" | "yes"))
    {
        return Err(invalid(
            "query_only",
            "a vacuum writes the database, and query_only = true forbids it; leave out query_only".into(),
        ));
    }
    if schedule.every.is_none() && schedule.at.is_zero() {
        return Err(invalid(
            "every",
            "a vacuum role needs a schedule; give at = \"2s\" for one (or every = \"10s\")".into(),
        ));
    }
    Ok(mode)
}

/// A sidecar's command (its program found and executable) and grace.
fn sidecar_of(
    raw: &RoleFile,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<SidecarCommand, CastFileError> {
    let command = raw.command.clone().unwrap_or_default();
    let Some(program) = command.first() else {
        return Err(invalid(
            "command",
            "a sidecar needs its command as a list; give command = [\"litestream\", \"replicate\", \"{db}\", \"file://{scratch}/replica\"]".into(),
        ));
    };
    crate::sys::sidecar::resolve(program).map_err(|why| invalid("command", why))?;
    let grace = duration("grace", &raw.grace, true, invalid)?.unwrap_or(SidecarCommand::GRACE);
    Ok(SidecarCommand {
        command,
        grace,
        keep: raw.keep.unwrap_or(true),
    })
}

/// A workload role's schedule: `every` needs `for`, shorter than it.
fn workload_schedule(
    schedule: &Schedule,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<(), CastFileError> {
    let Some(e) = schedule.every else { return Ok(()) };
    let Some(f) = schedule.hold_for else {
        return Err(invalid(
            "every",
            format!(
                "a workload role that starts every {} needs how long it runs each time; give for = \"{}\"",
                show(e),
                show(e / 2)
            ),
        ));
    };
    if f >= e {
        return Err(invalid(
            "for",
            format!(
                "a role that runs {} every {} never pauses; give for shorter than every, or leave out every and for",
                show(f),
                show(e)
            ),
        ));
    }
    Ok(())
}

/// A hold's schedule: it needs `for` (unless it runs a report `query`, which holds the snapshot
/// while it runs), shorter than its `every`.
fn hold_schedule(
    schedule: &Schedule,
    query: bool,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<(), CastFileError> {
    let Some(f) = schedule.hold_for else {
        if query {
            return Ok(());
        }
        return Err(invalid(
            "for",
            "a hold needs how long it keeps its snapshot; give for = \"3s\", or a query = \"report.sql\" it runs"
                .into(),
        ));
    };
    if let Some(e) = schedule.every.filter(|e| f >= *e) {
        return Err(invalid(
            "for",
            format!(
                "a hold of {} every {} never ends before the next; give for shorter than every",
                show(f),
                show(e)
            ),
        ));
    }
    Ok(())
}

/// A checkpoint role's mode; it needs a schedule.
fn checkpoint_of(
    raw: &RoleFile,
    schedule: &Schedule,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<CheckpointMode, CastFileError> {
    let Some(m) = &raw.checkpoint else {
        return Err(invalid(
            "checkpoint",
            format!(
                "a checkpoint role needs its mode; give checkpoint = one of {}",
                CheckpointMode::NAMES.join(", ")
            ),
        ));
    };
    let mode = CheckpointMode::parse(m).ok_or_else(|| {
        invalid(
            "checkpoint",
            format!(
                "\"{m}\" is not a mode of PRAGMA wal_checkpoint; valid modes: {}",
                CheckpointMode::NAMES.join(", ")
            ),
        )
    })?;
    if schedule.every.is_none() && schedule.at.is_zero() {
        return Err(invalid(
            "every",
            "a checkpoint role needs a schedule; give every = \"1s\" (or at = \"20s\" for one)".into(),
        ));
    }
    Ok(mode)
}

/// The role's clients, checked with its connections and rate.
fn clients_of(raw: &RoleFile, invalid: &dyn Fn(&str, String) -> CastFileError) -> Result<u32, CastFileError> {
    let clients = raw.clients.unwrap_or(1);
    if clients > MAX_CLIENTS {
        return Err(invalid(
            "clients",
            format!("{clients} is above {MAX_CLIENTS}; give fewer clients"),
        ));
    }
    if raw.connections == Some(Connections::Shared) {
        if raw.mode == Some(ClientMode::Processes) {
            return Err(invalid(
                "connections",
                "\"shared\" with mode = \"processes\": a connection cannot be shared between processes; give mode = \"threads\", or leave out connections".into(),
            ));
        }
        if clients < 2 {
            return Err(invalid(
                "connections",
                format!("\"shared\" with clients = {clients}: one client has one connection either way; give clients = 2 or more, or leave out connections"),
            ));
        }
    }
    if let Some(r) = raw.rate {
        if r.is_finite() && r > 0.0 && r < crate::model::load::MIN_RATE {
            return Err(invalid("rate", format!("{r}: {}", crate::model::load::rate_too_low(r))));
        }
        if !(r.is_finite() && r > 0.0 && r <= MAX_RATE) {
            return Err(invalid(
                "rate",
                format!("{r}: give transactions per second above 0 and at most {MAX_RATE}"),
            ));
        }
    }
    Ok(clients)
}

/// The role's per-connection knobs, canonical as SQLite's knob table reads them.
fn knobs_of(
    raw: &RoleFile,
    invalid: &dyn Fn(&str, String) -> CastFileError,
) -> Result<Vec<(String, String)>, CastFileError> {
    let mut knobs = Vec::new();
    for (key, value) in [
        ("busy_timeout", &raw.busy_timeout),
        ("cache_size", &raw.cache_size),
        ("begin", &raw.begin),
        ("query_only", &raw.query_only),
        ("driver", &raw.driver),
    ] {
        let Some(v) = value else { continue };
        let text = scalar(v).ok_or_else(|| invalid(key, "give a number, a word or true/false".into()))?;
        debug_assert!(ROLE_KNOBS.contains(&key));
        let spec = find_spec(SQLITE_KNOBS, key).expect("role knobs are SQLite knobs");
        let canonical = spec.kind.canonical(&text).ok_or_else(|| {
            invalid(
                key,
                format!("\"{text}\" is not valid; valid values: {}", spec.kind.describe()),
            )
        })?;
        knobs.push((key.to_string(), canonical));
    }
    Ok(knobs)
}

/// The role's workload parameters, resolved as `--param` would be.
fn params_of(
    raw: &RoleFile,
    invalid: &dyn Fn(&str, String) -> CastFileError,
    resolve: &dyn Fn(&[String]) -> Result<Params, String>,
) -> Result<Params, CastFileError> {
    let mut args = Vec::new();
    for (k, v) in &raw.params {
        let v =
            scalar(v).ok_or_else(|| invalid("params", format!("{k}: give a number or a word, e.g. {k} = \"a\"")))?;
        args.push(format!("{k}={v}"));
    }
    if args.is_empty() {
        Ok(Params::default())
    } else {
        resolve(&args).map_err(|why| invalid("params", why))
    }
}

/// A TOML scalar as a command line would give it (`true`: `on`).
fn scalar(v: &toml::Value) -> Option<String> {
    Some(match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => if *b { "on" } else { "off" }.to_string(),
        _ => return None,
    })
}

fn show(d: Duration) -> String {
    crate::model::load::duration_text(d.as_nanos().min(u128::from(u64::MAX)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_params(_: &[String]) -> Result<Params, String> {
        Err("no parameters here".into())
    }

    fn err(text: &str) -> String {
        parse("c.toml", text, &no_params).unwrap_err().to_string()
    }

    #[test]
    fn a_cast_of_every_kind_reads_with_its_knobs_and_schedules() {
        let text = r#"
[[role]]
name = "writer"
kind = "workload"
rate = 50
busy_timeout = 5000
begin = "immediate"

[[role]]
name = "readers"
kind = "workload"
clients = 2
query_only = true

[[role]]
name = "holder"
kind = "hold"
every = "1s"
for = "500ms"

[[role]]
name = "ckpt"
kind = "checkpoint"
checkpoint = "truncate"
every = "500ms"
"#;
        let c = parse("c.toml", text, &no_params).unwrap();
        assert_eq!(c.roles.len(), 4);
        assert_eq!(c.roles[0].rate, Some(50.0));
        assert_eq!(
            c.roles[0].knobs,
            vec![
                ("busy_timeout".into(), "5000".into()),
                ("begin".into(), "immediate".into())
            ]
        );
        assert_eq!(c.roles[1].clients, 2);
        assert_eq!(c.roles[1].knobs, vec![("query_only".into(), "on".into())]);
        assert_eq!(c.roles[2].kind, RoleKind::Hold);
        assert_eq!(c.roles[2].schedule.hold_for, Some(Duration::from_millis(500)));
        assert_eq!(c.roles[3].kind, RoleKind::Checkpoint(CheckpointMode::Truncate));
        assert_eq!(c.workload_clients(), 3);
        assert_eq!(
            c.describe(),
            "cast writer: 1 client at 50 tx/s; readers: 2 clients; holder: hold every 1 s for 500 ms; ckpt: checkpoint TRUNCATE every 500 ms"
        );
    }

    /// Issue 45, item 4: ten roles of 1,000 clients were accepted (8,189 threads); a cast's
    /// roles and its clients in all are limited when it is read.
    #[test]
    fn a_cast_is_held_to_the_clients_of_a_trial_and_a_number_of_roles() {
        let workloads = |n: usize, clients: u32| -> String {
            (0..n)
                .map(|i| format!("[[role]]\nname = \"w{i}\"\nkind = \"workload\"\nclients = {clients}\n"))
                .collect()
        };
        assert_eq!(
            err(&workloads(10, 1000)),
            "--cast c.toml: the roles have 10000 clients in all (a workload role's clients, and 1 for each other role), above the 1024 a trial may have (as --clients); give the roles fewer clients"
        );
        // Every role counts: 1,023 clients and a hold are the limit, 1,024 and a hold are over it.
        let hold = "[[role]]\nname = \"h\"\nkind = \"hold\"\nfor = \"1s\"\n";
        let c = parse("c.toml", &(workloads(1, 1023) + hold), &no_params).unwrap();
        assert_eq!(c.total_clients(), 1024);
        assert!(err(&(workloads(1, 1024) + hold)).contains("the roles have 1025 clients in all"));
        assert_eq!(
            parse("c.toml", &workloads(MAX_ROLES, 1), &no_params)
                .unwrap()
                .roles
                .len(),
            MAX_ROLES
        );
        assert_eq!(
            err(&workloads(MAX_ROLES + 1, 1)),
            "--cast c.toml: 65 roles, above the 64 a cast may have; give at most 64 [[role]] tables (many like clients are one role with clients = N)"
        );
        assert!(err(&workloads(500, 1000)).starts_with("--cast c.toml: 500 roles, above the 64"));
    }

    /// Issue 45, item 8: a role name is held to `--name`'s rules when the cast is read; the
    /// refusal shows a long or odd name cut and escaped, on one line.
    #[test]
    fn role_names_follow_the_rules_of_run_names_and_are_shown_cut_and_escaped() {
        let named = |name: &str| format!("[[role]]\nname = \"{name}\"\nkind = \"workload\"\n");
        for good in ["writer", "w-1_v.2", &"x".repeat(64)] {
            assert_eq!(parse("c.toml", &named(good), &no_params).unwrap().roles[0].name, good);
        }
        for bad in ["a:b", "a b", "12", "-w", "ü", &"x".repeat(65)] {
            let e = err(&named(bad));
            assert!(
                e.starts_with(&format!("--cast c.toml: role 1: name \"{}", shown(bad)))
                    && e.ends_with("as --name takes (e.g. name = \"writer\")"),
                "{e}"
            );
        }
        let e = err(&named(&"a".repeat(70_000)));
        assert!(e.len() < 300 && e.contains(&format!("\"{}…\"", "a".repeat(40))), "{e}");
        let e = err(&named("a\\u001b[31mRED\\u0007"));
        assert!(!e.chars().any(char::is_control) && !e.contains('\n'), "{e:?}");
        assert!(e.contains("name \"a\\u{1b}[31mRED\\u{7}\""), "{e}");
    }

    #[test]
    fn a_vacuum_role_reads_its_statement_and_pages() {
        let c = parse(
            "c.toml",
            "[[role]]\nname = \"v\"\nkind = \"vacuum\"\nvacuum = \"incremental\"\npages = 50\nat = \"1s\"\n\n[[role]]\nname = \"f\"\nkind = \"vacuum\"\nvacuum = \"full\"\nevery = \"2s\"\n",
            &no_params,
        )
        .unwrap();
        assert_eq!(
            c.roles[0].kind,
            RoleKind::Vacuum(VacuumMode::Incremental { pages: Some(50) })
        );
        assert_eq!(c.roles[1].kind, RoleKind::Vacuum(VacuumMode::Full));
        assert_eq!(
            c.describe(),
            "cast v: vacuum incremental 50 pages at 1 s; f: vacuum full every 2 s"
        );
    }

    #[test]
    fn a_vacuum_on_a_query_only_role_or_without_a_schedule_is_refused_in_one_line() {
        let e = err("[[role]]\nname = \"v\"\nkind = \"vacuum\"\nvacuum = \"full\"\nat = \"1s\"\nquery_only = true\n");
        assert_eq!(
            e,
            "--cast c.toml: role \"v\": query_only: a vacuum writes the database, and query_only = true forbids it; leave out query_only"
        );
        let e = err("[[role]]\nname = \"v\"\nkind = \"vacuum\"\nvacuum = \"full\"\n");
        assert!(e.contains("role \"v\": every: a vacuum role needs a schedule"), "{e}");
        let e = err("[[role]]\nname = \"v\"\nkind = \"vacuum\"\nvacuum = \"quick\"\nat = \"1s\"\n");
        assert!(
            e.contains("\"quick\" is not a vacuum; valid values: full, incremental"),
            "{e}"
        );
        let e = err("[[role]]\nname = \"v\"\nkind = \"vacuum\"\nvacuum = \"incremental\"\npages = 0\nat = \"1s\"\n");
        assert!(e.contains("role \"v\": pages: 0: give the free pages"), "{e}");
        let ok = "[[role]]\nname = \"v\"\nkind = \"vacuum\"\nvacuum = \"full\"\nat = \"1s\"\nquery_only = false\n";
        assert!(parse("c.toml", ok, &no_params).is_ok());
    }

    #[test]
    fn a_backup_role_steps_through_the_online_backup_api_by_default_and_refuses_bad_steps_in_one_line() {
        let backup = |keys: &str| format!("[[role]]\nname = \"b\"\nkind = \"backup\"\nat = \"1s\"\n{keys}");
        let steps = |keys: &str| {
            parse("c.toml", &backup(keys), &no_params).unwrap().roles[0]
                .backup
                .clone()
                .unwrap()
        };
        let d = steps("");
        assert_eq!(d.method, BackupMethod::Api);
        assert_eq!(
            d.steps,
            Some(BackupSteps {
                pages: 100,
                pause: Duration::ZERO
            })
        );
        assert_eq!(
            steps("method = \"api\"\npages = -1\npause = \"10ms\"\n").steps,
            Some(BackupSteps {
                pages: -1,
                pause: Duration::from_millis(10)
            })
        );
        for n in ["0", "-2"] {
            assert_eq!(
                err(&backup(&format!("pages = {n}\n"))),
                format!("--cast c.toml: role \"b\": pages: {n}: give the pages to copy each step, 1 or more, or -1 for all at once")
            );
        }
        assert_eq!(
            err(&backup("pause = \"soon\"\n")),
            "--cast c.toml: role \"b\": pause: \"soon\" is not a duration; give one such as 500ms, 20s or 1m"
        );
        for key in ["pages = 10", "pause = \"1ms\""] {
            let name = &key[..5];
            assert_eq!(
                err(&backup(&format!("method = \"vacuum-into\"\n{key}\n"))),
                format!("--cast c.toml: role \"b\": {name}: VACUUM INTO copies in one statement; give pages and pause only with method = \"api\"")
            );
        }
        assert!(err(&backup("method = \"tar\"\n"))
            .contains("\"tar\" is not a backup method; valid methods: api, vacuum-into"));
    }

    #[test]
    fn a_backup_role_reads_its_method_and_a_plain_target_and_refuses_a_path() {
        let c = parse(
            "c.toml",
            "[[role]]\nname = \"b\"\nkind = \"backup\"\nmethod = \"vacuum-into\"\nat = \"1s\"\n",
            &no_params,
        )
        .unwrap();
        assert_eq!(c.roles[0].kind, RoleKind::Backup);
        assert_eq!(
            c.roles[0].backup,
            Some(BackupTarget {
                method: BackupMethod::VacuumInto,
                to: "b.backup.db".into(),
                steps: None,
            })
        );
        for to in ["../x.db", "/tmp/x.db", "a/b.db", "..", ""] {
            let e = err(&format!(
                "[[role]]\nname = \"b\"\nkind = \"backup\"\nto = \"{to}\"\nat = \"1s\"\n"
            ));
            assert_eq!(
                e,
                format!("--cast c.toml: role \"b\": to: \"{to}\" is not a plain file name; `to` takes a file name in the trial's scratch directory, e.g. to = \"b.backup.db\"")
            );
        }
        let e = err("[[role]]\nname = \"b\"\nkind = \"backup\"\n");
        assert!(e.contains("role \"b\": every: a backup role needs a schedule"), "{e}");
    }

    /// A copy named as litebench's own files (a trial's database) or with a control character
    /// is refused when the cast is read; a grace or pause longer than the trial when it is
    /// checked against the trial.
    #[test]
    fn a_backup_over_litebench_s_own_files_or_a_wait_past_the_trial_is_refused() {
        for to in ["trial-0.db", "template-0.db", "litebench-run.json"] {
            let e = err(&format!(
                "[[role]]\nname = \"b\"\nkind = \"backup\"\nto = \"{to}\"\nat = \"1s\"\n"
            ));
            assert!(
                e.contains(&format!("to: \"{to}\" starts with")) && e.contains("as litebench's own files"),
                "{e}"
            );
        }
        let e = err("[[role]]\nname = \"b\"\nkind = \"backup\"\nto = \"a\\u0000b\"\nat = \"1s\"\n");
        assert!(e.contains("holds a control character"), "{e}");
        let trial = Some(Duration::from_secs(10));
        let c = parse(
            "c.toml",
            "[[role]]\nname = \"b\"\nkind = \"backup\"\nat = \"1s\"\npause = \"10h\"\n",
            &no_params,
        )
        .unwrap();
        let e = c.check(trial).unwrap_err().to_string();
        assert!(
            e.starts_with("--cast c.toml: role \"b\": pause = ")
                && e.ends_with("give pause a duration shorter than the trial, or a longer trial"),
            "{e}"
        );
        let c = parse(
            "c.toml",
            "[[role]]\nname = \"s\"\nkind = \"sidecar\"\ncommand = [\"sleep\", \"1\"]\ngrace = \"720h\"\n",
            &no_params,
        )
        .unwrap();
        assert!(
            c.check(trial).unwrap_err().to_string().contains("role \"s\": grace = "),
            "refused"
        );
    }

    #[test]
    fn an_unknown_key_is_named_with_the_valid_ones_of_its_kind() {
        let e = err("[[role]]\nname = \"w\"\nkind = \"workload\"\nrat = 5\n");
        assert_eq!(
            e,
            "--cast c.toml: role \"w\": unknown key `rat` for kind workload; valid keys: name, kind, clients, mode, connections, rate, arrival, params, busy_timeout, cache_size, begin, query_only, driver, at, every, for"
        );
        let e = err("[[role]]\nname = \"h\"\nkind = \"hold\"\nfor = \"1s\"\nrate = 5\n");
        assert!(
            e.contains("unknown key `rate` for kind hold; valid keys: name, kind, at, every, for"),
            "{e}"
        );
        let e = err("[[roles]]\nname = \"h\"\n");
        assert!(e.contains("unknown key `roles` at the top"), "{e}");
    }

    #[test]
    fn bad_values_are_one_line_naming_role_and_key() {
        let e = err("[[role]]\nname = \"c\"\nkind = \"checkpoint\"\ncheckpoint = \"LAZY\"\nevery = \"1s\"\n");
        assert_eq!(
            e,
            "--cast c.toml: role \"c\": checkpoint: \"LAZY\" is not a mode of PRAGMA wal_checkpoint; valid modes: PASSIVE, FULL, RESTART, TRUNCATE"
        );
        let e = err("[[role]]\nname = \"w\"\nkind = \"workload\"\nclients = \"two\"\n");
        assert!(
            e.starts_with("--cast c.toml: role \"w\": clients: ") && !e.contains('\n'),
            "{e}"
        );
        let e = err("[[role]]\nname = \"w\"\nkind = \"workload\"\nbegin = \"sometimes\"\n");
        assert!(
            e.contains("role \"w\": begin: \"sometimes\" is not valid; valid values: deferred"),
            "{e}"
        );
        let e = err("[[role]]\nname = \"h\"\nkind = \"hold\"\n");
        assert!(e.contains("role \"h\": for: a hold needs"), "{e}");
        let e = err("[[role]]\nname = \"w\"\nkind = \"workload\"\nmode = \"forks\"\n");
        assert!(e.contains("role \"w\": mode:"), "{e}");
        let e = err("[[role]]\nname = \"w\"\nkind = \"workload\"\n[[role]]\nname = \"w\"\nkind = \"workload\"\n");
        assert!(e.contains("role name \"w\" is given twice"), "{e}");
        let e = err("[[role]]\nname = \"w\"\nkind = \"workload\"\nparams = { workload = \"a\" }\n");
        assert_eq!(e, "--cast c.toml: role \"w\": params: no parameters here");
    }

    #[test]
    fn a_sidecar_reads_with_its_command_and_grace_and_an_unrunnable_one_is_refused() {
        let c = parse(
            "c.toml",
            "[[role]]\nname = \"ls\"\nkind = \"sidecar\"\ncommand = [\"sleep\", \"{db}\"]\ngrace = \"1s\"\n",
            &no_params,
        )
        .unwrap();
        assert_eq!(c.roles[0].kind, RoleKind::Sidecar);
        let s = c.roles[0].sidecar.as_ref().unwrap();
        assert_eq!(s.grace, Duration::from_secs(1));
        assert_eq!(s.argv("/d/t.db", "/d"), ["sleep", "/d/t.db"]);
        assert_eq!(c.describe(), "cast ls: sidecar `sleep {db}`");
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("replicate.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let e = err(&format!(
            "[[role]]\nname = \"ls\"\nkind = \"sidecar\"\ncommand = [\"{}\"]\n",
            script.display()
        ));
        assert_eq!(
            e,
            format!(
                "--cast c.toml: role \"ls\": command: \"{}\" is not executable; chmod +x it, or give an executable program",
                script.display()
            )
        );
        let e = err("[[role]]\nname = \"ls\"\nkind = \"sidecar\"\ncommand = [\"litestream-nowhere\"]\n");
        assert!(
            e.contains("command: \"litestream-nowhere\" is not found on PATH"),
            "{e}"
        );
        let e = err("[[role]]\nname = \"ls\"\nkind = \"sidecar\"\n");
        assert!(e.contains("role \"ls\": command: a sidecar needs its command"), "{e}");
        let e = err("[[role]]\nname = \"ls\"\nkind = \"sidecar\"\ncommand = [\"sleep\"]\nevery = \"1s\"\n");
        assert!(
            e.contains("unknown key `every` for kind sidecar; valid keys: name, kind, command, grace, keep, at"),
            "{e}"
        );
    }
}
