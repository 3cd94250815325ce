//! A cast: a trial's load as named roles, each with its own clients, load shape, per-connection
//! knobs and schedule, instead of N identical clients. What SQLite users fight in production
//! happens between *different* parts of an application (one writer and a pool of readers, a
//! reader that keeps its snapshot, a checkpoint thread), so a run says which part did what.
//!
//! Six kinds of role: `workload` (the run's workload's transactions, with parameters of its
//! own), `hold` (a read transaction that keeps its snapshot for a while, the cause of WAL
//! starvation), `checkpoint` (`PRAGMA wal_checkpoint(MODE)` from its own connection),
//! `vacuum` (`VACUUM` or `PRAGMA incremental_vacuum`), `backup` (a copy into the trial's
//! scratch directory) and `sidecar` (an external command beside the trial, such as Litestream
//! replicating it). A workload role's operations are recorded as `ROLE:OP`, so every
//! per-operation statistic is per role; what the other kinds did is recorded as [`CastEvents`]
//! in the trial record. This is
//! the data and its checks; the file it is read from is `bench::cast_file`'s, the driver that
//! runs it `workload::load`'s.

use super::clients::{Arrival, ClientMode, Connections};
use super::op::OpType;
use super::params::Params;
pub use super::role_op::{role_all, role_of, role_op, role_total};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Most roles a cast may have. Every role is at least one thread or process with a
/// connection of its own, a row in every table and a band on the timeline; a cast is parts of
/// one application (a writer, readers, a checkpointer, a backup), and 64 of them is far more
/// than any application has. Many identical clients are one role with `clients = N`.
pub const MAX_ROLES: usize = 64;

/// A trial's roles, in the order the cast file gives them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cast {
    /// The file the cast was read from, as given (for the one-line errors and the manifest).
    pub file: String,
    pub roles: Vec<Role>,
}

/// One named part of the load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Role {
    pub name: String,
    pub kind: RoleKind,
    /// Clients, each with its own connection (threads, or processes as `mode` says); hold and
    /// checkpoint roles have one.
    pub clients: u32,
    #[serde(default, skip_serializing_if = "is_threads")]
    pub mode: ClientMode,
    /// `connections = "shared"`: the role's clients (threads) on one connection behind a
    /// mutex, as `--connections shared` runs a trial's; absent: a connection per client.
    #[serde(default, skip_serializing_if = "Connections::is_per_client")]
    pub connections: Connections,
    /// Open loop: this role's transactions per second over its clients; none: closed loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    #[serde(default)]
    pub arrival: Arrival,
    /// The run's workload parameters this role overrides (a read-only mix for readers).
    #[serde(default, skip_serializing_if = "is_empty_params")]
    pub params: Params,
    /// Per-connection knobs of this role's connections (`busy_timeout`, `cache_size`, `begin`,
    /// `query_only`), set over the configuration's and read back like them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knobs: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Schedule::is_always")]
    pub schedule: Schedule,
    /// A sidecar role's command and grace period (none for every other kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sidecar: Option<SidecarCommand>,
    /// A backup role's method and target (none for every other kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<BackupTarget>,
    /// A hold's own read, run and timed inside its snapshot (none: a generic snapshot read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<HoldQuery>,
}

/// The application's own report query a hold runs in its snapshot (`query = "report.sql"`):
/// the file's statements, read when the cast is (so the run records the SQL that ran), run in
/// order and timed together, every row read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldQuery {
    pub file: String,
    pub statements: Vec<String>,
}

/// How a backup role copies the database, and the file it copies it into: a plain file name,
/// resolved in the trial's scratch directory (never a path: a backup writes only where
/// litebench made the directory, and only a file it then makes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupTarget {
    pub method: BackupMethod,
    pub to: String,
    /// How the online backup API steps (`method = "api"` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<BackupSteps>,
}

/// A backup's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackupMethod {
    /// `VACUUM INTO 'file'`: one statement, a compacted copy.
    VacuumInto,
    /// SQLite's online backup API (`sqlite3_backup_step`): page by page, in steps
    /// ([`BackupSteps`]); the source stays open to writers between steps.
    Api,
}

impl BackupMethod {
    pub fn name(&self) -> &'static str {
        match self {
            BackupMethod::VacuumInto => "vacuum-into",
            BackupMethod::Api => "api",
        }
    }
}

/// How an online backup steps: `pages` per `sqlite3_backup_step` (-1: all at once, one step),
/// and the pause between steps, when other connections may write (and so make SQLite start the
/// copy again from its first page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupSteps {
    pub pages: i32,
    #[serde(default, with = "millis", skip_serializing_if = "Duration::is_zero")]
    pub pause: Duration,
}

impl BackupSteps {
    /// SQLite's pages per step when the role gives none.
    pub const DEFAULT_PAGES: i32 = 100;
}

/// What an online backup did: the pages SQLite counted in the source at its last step
/// (`sqlite3_backup_pagecount`), and its steps ([`BackupApiRun`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupProgress {
    pub pages: u64,
    pub run: BackupApiRun,
}

/// What a sidecar role runs: an argument list (`{db}`: the trial database's path, `{scratch}`:
/// the trial's own scratch directory, `DB.scratch` beside its database; nothing else
/// substituted) started at the common start (or its `at`), how long it has after SIGTERM before
/// it is killed, and whether the trial's scratch directory is kept after the trial.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SidecarCommand {
    pub command: Vec<String>,
    #[serde(with = "millis")]
    pub grace: Duration,
    /// Keep what the sidecar wrote in the trial's scratch directory (the default: litebench
    /// did not make it), or remove the directory once the sidecar stopped (`keep = false`, so
    /// a long run's replicas do not fill the disk).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub keep: bool,
}

impl SidecarCommand {
    /// The default grace period after SIGTERM.
    pub const GRACE: Duration = Duration::from_secs(5);

    /// The command with `{db}` and `{scratch}` put in.
    pub fn argv(&self, db: &str, scratch: &str) -> Vec<String> {
        self.command
            .iter()
            .map(|a| a.replace("{db}", db).replace("{scratch}", scratch))
            .collect()
    }
}

fn is_threads(m: &ClientMode) -> bool {
    *m == ClientMode::Threads
}

fn is_empty_params(p: &Params) -> bool {
    p.0.is_empty()
}

/// What a role does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleKind {
    /// The run's workload's transactions.
    Workload,
    /// A read transaction kept open (its snapshot held) for the schedule's `for`.
    Hold,
    /// `PRAGMA wal_checkpoint(MODE)` on the schedule.
    Checkpoint(CheckpointMode),
    /// An external command beside the trial ([`SidecarCommand`]).
    Sidecar,
    /// `VACUUM` or `PRAGMA incremental_vacuum(N)` on the schedule.
    Vacuum(VacuumMode),
    /// A copy of the database into the trial's scratch directory on the schedule
    /// ([`BackupTarget`]), removed once measured.
    Backup,
}

impl RoleKind {
    /// The kind as the cast file names it.
    pub fn name(&self) -> &'static str {
        match self {
            RoleKind::Workload => "workload",
            RoleKind::Hold => "hold",
            RoleKind::Checkpoint(_) => "checkpoint",
            RoleKind::Sidecar => "sidecar",
            RoleKind::Vacuum(_) => "vacuum",
            RoleKind::Backup => "backup",
        }
    }
}

/// What a vacuum role runs: `VACUUM` (the whole database rewritten, free pages dropped) or
/// `PRAGMA incremental_vacuum(N)` (up to N free pages moved to the end and truncated; all of
/// them without N), which needs `auto_vacuum=incremental` to free anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VacuumMode {
    Full,
    Incremental {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pages: Option<u32>,
    },
}

impl VacuumMode {
    pub const NAMES: &'static [&'static str] = &["full", "incremental"];

    /// The statement it runs.
    pub fn sql(&self) -> String {
        match self {
            VacuumMode::Full => "VACUUM".into(),
            VacuumMode::Incremental { pages: None } => "PRAGMA incremental_vacuum".into(),
            VacuumMode::Incremental { pages: Some(n) } => format!("PRAGMA incremental_vacuum({n})"),
        }
    }

    /// `full`, `incremental`, `incremental 100 pages`.
    pub fn describe(&self) -> String {
        match self {
            VacuumMode::Full => "full".into(),
            VacuumMode::Incremental { pages: None } => "incremental".into(),
            VacuumMode::Incremental { pages: Some(n) } => format!("incremental {n} pages"),
        }
    }
}

/// The modes of `PRAGMA wal_checkpoint` (SQLite's `SQLITE_CHECKPOINT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum CheckpointMode {
    Passive,
    Full,
    Restart,
    Truncate,
}

impl CheckpointMode {
    pub const NAMES: &'static [&'static str] = &["PASSIVE", "FULL", "RESTART", "TRUNCATE"];

    /// The mode a cast file names, in any case.
    pub fn parse(s: &str) -> Option<CheckpointMode> {
        Some(match s.trim().to_ascii_uppercase().as_str() {
            "PASSIVE" => CheckpointMode::Passive,
            "FULL" => CheckpointMode::Full,
            "RESTART" => CheckpointMode::Restart,
            "TRUNCATE" => CheckpointMode::Truncate,
            _ => return None,
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            CheckpointMode::Passive => "PASSIVE",
            CheckpointMode::Full => "FULL",
            CheckpointMode::Restart => "RESTART",
            CheckpointMode::Truncate => "TRUNCATE",
        }
    }
}

/// When a role acts: first `at` after the measured start, then every `every` (once without
/// it); a hold keeps its snapshot `for` each time, a workload role runs `for` each time (to the
/// trial's end without it). All zero: always.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    #[serde(default, with = "millis", skip_serializing_if = "Duration::is_zero")]
    pub at: Duration,
    #[serde(default, with = "opt_millis", skip_serializing_if = "Option::is_none")]
    pub every: Option<Duration>,
    #[serde(
        default,
        rename = "for",
        with = "opt_millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub hold_for: Option<Duration>,
}

impl Schedule {
    pub fn is_always(&self) -> bool {
        *self == Schedule::default()
    }

    /// The starts of this schedule before `end` (after the measured start).
    pub fn starts(&self, end: Duration) -> impl Iterator<Item = Duration> + '_ {
        let mut next = Some(self.at);
        std::iter::from_fn(move || {
            let t = next.filter(|t| *t < end)?;
            next = self.every.map(|e| t + e.max(Duration::from_millis(1)));
            Some(t)
        })
    }

    /// When a workload role on this schedule is next running, at or after `t` after the measured
    /// start: `t` itself while it runs, the next window's start while it pauses, none once its
    /// last window has ended. A workload role runs from `at` for `for` (to the end without
    /// it), again every `every`.
    pub fn running_from(&self, t: Duration) -> Option<Duration> {
        if t < self.at {
            return Some(self.at);
        }
        let since = t - self.at;
        match (self.every, self.hold_for) {
            (_, None) => Some(t),
            (None, Some(length)) => (since < length).then_some(t),
            (Some(every), Some(length)) => {
                let every_ns = every.as_nanos().max(1);
                let k = since.as_nanos() / every_ns;
                let into = since.as_nanos() - k * every_ns;
                if into < length.as_nanos() {
                    Some(t)
                } else {
                    let next = (k + 1) * every_ns;
                    Some(self.at + Duration::from_nanos(next.min(u128::from(u64::MAX)) as u64))
                }
            }
        }
    }

    /// The share of a trial of length `trial` a workload role on this schedule runs.
    pub fn running_share(&self, trial: Duration) -> f64 {
        if trial.is_zero() {
            return 1.0;
        }
        let on: Duration = match (self.every, self.hold_for) {
            (_, None) => trial.saturating_sub(self.at),
            (None, Some(length)) => length.min(trial.saturating_sub(self.at)),
            (Some(_), Some(length)) => self.starts(trial).map(|s| length.min(trial - s)).sum(),
        };
        on.as_secs_f64() / trial.as_secs_f64()
    }

    /// `every 6 s for 3 s`, `at 20 s`, `always`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.at.is_zero() {
            parts.push(format!("at {}", secs(self.at)));
        }
        if let Some(e) = self.every {
            parts.push(format!("every {}", secs(e)));
        }
        if let Some(f) = self.hold_for {
            parts.push(format!("for {}", secs(f)));
        }
        if parts.is_empty() {
            "always".into()
        } else {
            parts.join(" ")
        }
    }
}

fn secs(d: Duration) -> String {
    super::quantity::duration_text(d.as_nanos().min(u128::from(u64::MAX)) as u64)
}

mod millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

mod opt_millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&(d.as_millis() as u64)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

/// A cast that cannot run as given: each names the file, the role and the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CastError {
    #[error("--cast {file}: role \"{role}\": clients = 0; give each role 1 client or more")]
    NoClients { file: String, role: String },
    #[error("--cast {file}: role \"{role}\": {key} = \"{value}\" is not within the trial ({trial}); give {key} a duration shorter than the trial, or a longer trial")]
    ScheduleTooLong {
        file: String,
        role: String,
        key: &'static str,
        value: String,
        trial: String,
    },
    #[error("--cast {file}: role \"{role}\": for = \"{value}\" holds longer than the trial ({trial}); give a hold shorter than the trial, or a longer trial")]
    HoldTooLong {
        file: String,
        role: String,
        value: String,
        trial: String,
    },
}

impl Cast {
    /// Roles of kind `workload`.
    pub fn workload_roles(&self) -> impl Iterator<Item = &Role> {
        self.roles.iter().filter(|r| r.kind == RoleKind::Workload)
    }

    /// True when a role needs a SQLite engine (a hold or a checkpoint).
    pub fn needs_sqlite(&self) -> Option<&Role> {
        self.roles.iter().find(|r| r.kind != RoleKind::Workload)
    }

    /// Clients over every workload role.
    pub fn workload_clients(&self) -> u32 {
        self.workload_roles().map(|r| r.clients).sum()
    }

    /// Threads and processes over every role: a workload role's clients, and one for each
    /// role of another kind (a hold, checkpoint, vacuum or backup role's connection, a
    /// sidecar's process). What `load::MAX_CLIENTS` limits for a cast.
    pub fn total_clients(&self) -> u64 {
        self.roles.iter().map(|r| u64::from(r.clients.max(1))).sum()
    }

    /// Checks the roles against each other's and the trial's length (`trial`: a time budget,
    /// where the trial has one).
    pub fn check(&self, trial: Option<Duration>) -> Result<(), CastError> {
        for r in &self.roles {
            if r.clients == 0 {
                return Err(CastError::NoClients {
                    file: self.file.clone(),
                    role: r.name.clone(),
                });
            }
            let Some(t) = trial else { continue };
            let s = &r.schedule;
            let long = |key: &'static str, d: Duration| CastError::ScheduleTooLong {
                file: self.file.clone(),
                role: r.name.clone(),
                key,
                value: secs(d),
                trial: secs(t),
            };
            if !s.at.is_zero() && s.at >= t {
                return Err(long("at", s.at));
            }
            if let Some(e) = s.every.filter(|e| *e > t) {
                return Err(long("every", e));
            }
            // The default grace serves every trial; a grace given is held to the trial.
            if let Some(g) = r
                .sidecar
                .as_ref()
                .map(|c| c.grace)
                .filter(|g| *g > t.max(SidecarCommand::GRACE))
            {
                return Err(long("grace", g));
            }
            if let Some(p) = r
                .backup
                .as_ref()
                .and_then(|b| b.steps)
                .map(|s| s.pause)
                .filter(|p| *p > t)
            {
                return Err(long("pause", p));
            }
            if let Some(f) = s.hold_for.filter(|f| *f > t) {
                if r.kind == RoleKind::Workload {
                    return Err(long("for", f));
                }
                return Err(CastError::HoldTooLong {
                    file: self.file.clone(),
                    role: r.name.clone(),
                    value: secs(f),
                    trial: secs(t),
                });
            }
        }
        Ok(())
    }

    /// The operation types of a trial with this cast: each workload role's types (`of_role`:
    /// the workload's types with that role's parameters, e.g. its own script's statements),
    /// named `ROLE:OP` (parts of a type stay parts of the role's), role after role.
    pub fn op_types(&self, of_role: &dyn Fn(&Role) -> Vec<OpType>) -> Vec<OpType> {
        self.workload_roles()
            .flat_map(|r| {
                of_role(r).into_iter().map(move |t| OpType {
                    name: role_op(&r.name, t.name),
                    part_of: t.part_of.map(|p| role_op(&r.name, p)),
                })
            })
            .collect()
    }

    /// `writer: 1 client at 50 tx/s; readers: 4 clients; holder: hold every 6 s for 3 s; ...`
    pub fn describe(&self) -> String {
        let roles: Vec<String> = self.roles.iter().map(Role::describe).collect();
        format!("cast {}", roles.join("; "))
    }
}

impl Role {
    /// The driver the role's own `driver` knob names (`rust` included), where it names one:
    /// over the configuration's `--driver` for this role's clients.
    pub fn driver(&self) -> Option<&str> {
        self.knobs
            .iter()
            .find(|(k, _)| k == super::driver::KNOB)
            .map(|(_, v)| v.as_str())
    }

    /// What of this workload role cannot go with running its clients through a driver process
    /// (each a process of its own, on a connection of its own, from the common start to the
    /// trial's end): the setting as the cast file writes it, why, and the key to leave out.
    pub fn driver_conflict(&self) -> Option<(&'static str, &'static str, &'static str)> {
        if self.mode == ClientMode::Processes {
            Some((
                "mode = \"processes\"",
                "each client of a driver is a process of its own already",
                "mode",
            ))
        } else if self.connections == Connections::Shared {
            Some((
                "connections = \"shared\"",
                "each client of a driver has a connection of its own",
                "connections",
            ))
        } else if !self.schedule.is_always() {
            Some((
                "at, every or for",
                "a driver's clients run from the common start to the trial's end",
                "schedule",
            ))
        } else {
            None
        }
    }

    /// `writer: 1 client at 50 tx/s`, `holder: hold every 6 s for 3 s`.
    pub fn describe(&self) -> String {
        let r = self;
        {
            let what = match r.kind {
                RoleKind::Workload => {
                    let processes = r.mode == ClientMode::Processes;
                    let clients = match (r.clients, processes) {
                        (1, false) => "1 client".to_string(),
                        (1, true) => "1 client process".to_string(),
                        (n, false) if r.connections == Connections::Shared => {
                            format!("{n} clients on one shared connection")
                        }
                        (n, false) => format!("{n} clients"),
                        (n, true) => format!("{n} client processes"),
                    };
                    let clients = match r.driver() {
                        Some(d) => format!("{clients} through {d}"),
                        None => clients,
                    };
                    let mut what = match r.rate {
                        Some(rate) => format!("{clients} at {} tx/s", super::quantity::rate_text(rate)),
                        None => clients,
                    };
                    if !r.schedule.is_always() {
                        what += &format!(" {}", r.schedule.describe());
                    }
                    what
                }
                RoleKind::Hold => match &r.query {
                    Some(q) => format!("hold {} running {}", r.schedule.describe(), q.file),
                    None => format!("hold {}", r.schedule.describe()),
                },
                RoleKind::Checkpoint(m) => format!("checkpoint {} {}", m.name(), r.schedule.describe()),
                RoleKind::Vacuum(m) => format!("vacuum {} {}", m.describe(), r.schedule.describe()),
                RoleKind::Backup => {
                    let method = r.backup.as_ref().map_or("", |b| b.method.name());
                    format!("backup {method} {}", r.schedule.describe())
                }
                RoleKind::Sidecar => {
                    let command = r.sidecar.as_ref().map(|s| s.command.join(" ")).unwrap_or_default();
                    let at = if r.schedule.at.is_zero() {
                        String::new()
                    } else {
                        format!(" {}", r.schedule.describe())
                    };
                    format!("sidecar `{command}`{at}")
                }
            };
            format!("{}: {what}", r.name)
        }
    }

    /// [`Role::describe`] with the parameters the role gives its workload over the run's
    /// (`params file=write.sql`), where it gives any: what `--dry-run` lists per role.
    pub fn describe_with_params(&self) -> String {
        // What settling derived (a script's hash, an emptied default) is not the user's word:
        // left out.
        let given: Vec<String> = self
            .params
            .0
            .iter()
            .filter(|(k, _)| k.as_str() != "sha256")
            .map(|(k, v)| (k, super::params::value_text(v)))
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if given.is_empty() {
            self.describe()
        } else {
            format!("{}, params {}", self.describe(), given.join(" "))
        }
    }
}

/// What a trial's hold and checkpoint roles did, in the trial record (absent without them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CastEvents {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holds: Vec<Hold>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkpoints: Vec<Checkpoint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sidecars: Vec<SidecarRun>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vacuums: Vec<Vacuum>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backups: Vec<Backup>,
}

impl CastEvents {
    pub fn is_empty(&self) -> bool {
        self.holds.is_empty()
            && self.checkpoints.is_empty()
            && self.sidecars.is_empty()
            && self.vacuums.is_empty()
            && self.backups.is_empty()
    }

    pub fn absorb(&mut self, other: CastEvents) {
        self.holds.extend(other.holds);
        self.checkpoints.extend(other.checkpoints);
        self.sidecars.extend(other.sidecars);
        self.vacuums.extend(other.vacuums);
        self.backups.extend(other.backups);
        self.backups.sort_by_key(|b| b.t_ms);
        self.holds.sort_by_key(|h| h.start_ms);
        self.checkpoints.sort_by_key(|c| c.t_ms);
        self.vacuums.sort_by_key(|v| v.t_ms);
    }
}

/// One vacuum: when it started (milliseconds after the measured start), how long it took,
/// and the database before and after it (`PRAGMA page_count` and `freelist_count`, the main
/// file's bytes; in WAL mode the file shrinks only once a checkpoint has copied the pages back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vacuum {
    pub role: String,
    pub t_ms: u64,
    pub duration_us: u64,
    /// SQLITE_BUSY: another connection's lock kept it from running.
    pub busy: bool,
    pub page_count: BeforeAfter<i64>,
    pub freelist_count: BeforeAfter<i64>,
    pub file_bytes: BeforeAfter<u64>,
}

/// One backup: when it started (milliseconds after the measured start), how long it took, the
/// source's pages then and the pages and bytes of the copy it wrote (then removed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Backup {
    pub role: String,
    pub method: BackupMethod,
    pub t_ms: u64,
    pub duration_us: u64,
    /// SQLITE_BUSY: another connection's lock kept it from running.
    pub busy: bool,
    /// `PRAGMA page_count` of the source when it started.
    pub source_pages: i64,
    /// The copy's pages (its bytes over the page size) and bytes.
    pub pages: u64,
    pub bytes: u64,
    /// The online backup API's steps, busy or locked steps retried and restarts (method api;
    /// none in a record of vacuum-into, or from before the api method).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<BackupApiRun>,
}

/// What one online backup (method api) did, step by step: see [`BackupProgress`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupApiRun {
    pub steps: u64,
    /// Steps SQLite answered SQLITE_BUSY or SQLITE_LOCKED, retried.
    #[serde(default)]
    pub retried: u64,
    /// Times SQLite started the copy again from the first page (another connection wrote).
    #[serde(default)]
    pub restarts: u64,
    /// False when the trial ended (or the pages never settled) before the copy was whole.
    #[serde(default = "yes")]
    pub finished: bool,
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}

/// A figure before and after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeforeAfter<T> {
    pub before: T,
    pub after: T,
}

/// One held snapshot: from its first read to its end, milliseconds after the measured start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hold {
    pub role: String,
    pub start_ms: u64,
    pub end_ms: u64,
    /// The hold's report query ([`HoldQuery`]), as it ran; absent for a generic snapshot read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<QueryRun>,
}

/// A hold's report query as it ran: how long its statements took and the rows they returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryRun {
    pub duration_us: u64,
    pub rows: u64,
}

/// One `PRAGMA wal_checkpoint(MODE)`: when it started (milliseconds after the measured start),
/// what it returned and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub role: String,
    pub t_ms: u64,
    /// SQLite's first column: 1 when the checkpoint could not finish (a reader or writer in
    /// the way; RESTART and TRUNCATE then also could not reset the WAL).
    pub busy: bool,
    /// Frames in the WAL, and frames checkpointed into the database (-1: not in WAL mode).
    pub log_frames: i64,
    pub checkpointed_frames: i64,
    pub duration_us: u64,
}

/// One sidecar's run beside a trial: its whole process tree's CPU and storage I/O from /proc,
/// its exit status and how it was stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SidecarRun {
    pub role: String,
    pub pid: u32,
    /// When it started, milliseconds after the measured start, and how long it ran.
    pub start_ms: u64,
    pub ran_ms: u64,
    /// User and system CPU of its tree.
    pub cpu_ms: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// `exit 0`, `signal 15 (SIGTERM)`.
    pub exit: String,
    pub stopped: crate::sys::sidecar::Stopped,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A workload role runs from `at` for `for`, again every `every`; outside its windows the
    /// next start is the next window's, and after the last one there is none.
    #[test]
    fn a_scheduled_workload_role_runs_in_its_windows_and_their_share() {
        let s = Schedule {
            at: ms(1000),
            every: Some(ms(4000)),
            hold_for: Some(ms(2000)),
        };
        assert_eq!(s.running_from(ms(0)), Some(ms(1000)));
        assert_eq!(s.running_from(ms(1500)), Some(ms(1500)));
        assert_eq!(s.running_from(ms(3000)), Some(ms(5000)), "the window ends at 3 s");
        assert_eq!(s.running_from(ms(5999)), Some(ms(5999)));
        assert!((s.running_share(ms(8000)) - 0.5).abs() < 1e-9);
        let once = Schedule {
            at: ms(500),
            every: None,
            hold_for: Some(ms(1000)),
        };
        assert_eq!(once.running_from(ms(1600)), None, "one window, over");
        assert!((once.running_share(ms(2000)) - 0.5).abs() < 1e-9);
        let late = Schedule {
            at: ms(2000),
            ..Schedule::default()
        };
        assert_eq!(late.running_from(ms(7000)), Some(ms(7000)), "to the end");
        assert!((late.running_share(ms(8000)) - 0.75).abs() < 1e-9);
        assert_eq!(Schedule::default().running_share(ms(8000)), 1.0);
    }

    fn role(name: &str, kind: RoleKind, schedule: Schedule) -> Role {
        Role {
            name: name.into(),
            kind,
            clients: 1,
            mode: ClientMode::Threads,
            connections: Connections::PerClient,
            rate: None,
            arrival: Arrival::Poisson,
            params: Params::default(),
            knobs: Vec::new(),
            schedule,
            sidecar: None,
            backup: None,
            query: None,
        }
    }

    fn cast(roles: Vec<Role>) -> Cast {
        Cast {
            file: "c.toml".into(),
            roles,
        }
    }

    #[test]
    fn a_schedule_starts_at_its_at_and_repeats_every_every_until_the_end() {
        let s = Schedule {
            at: Duration::from_secs(1),
            every: Some(Duration::from_secs(2)),
            hold_for: None,
        };
        let starts: Vec<u64> = s.starts(Duration::from_secs(6)).map(|d| d.as_secs()).collect();
        assert_eq!(starts, vec![1, 3, 5]);
        let once = Schedule {
            at: Duration::from_secs(1),
            ..Schedule::default()
        };
        assert_eq!(once.starts(Duration::from_secs(6)).count(), 1);
        assert_eq!(s.describe(), "at 1 s every 2 s");
        assert_eq!(Schedule::default().describe(), "always");
    }

    #[test]
    fn zero_clients_and_schedules_or_holds_past_the_trial_are_refused_naming_file_role_and_key() {
        let mut w = role("writer", RoleKind::Workload, Schedule::default());
        w.clients = 0;
        let e = cast(vec![w]).check(None).unwrap_err().to_string();
        assert_eq!(
            e,
            "--cast c.toml: role \"writer\": clients = 0; give each role 1 client or more"
        );
        let every = Schedule {
            every: Some(Duration::from_secs(20)),
            ..Schedule::default()
        };
        let c = cast(vec![role(
            "ckpt",
            RoleKind::Checkpoint(CheckpointMode::Truncate),
            every,
        )]);
        assert!(c.check(None).is_ok(), "no time budget: nothing to be longer than");
        let e = c.check(Some(Duration::from_secs(10))).unwrap_err().to_string();
        assert!(
            e.contains("role \"ckpt\": every = \"20 s\"") && e.contains("(10 s)"),
            "{e}"
        );
        let hold = Schedule {
            hold_for: Some(Duration::from_secs(30)),
            ..Schedule::default()
        };
        let e = cast(vec![role("holder", RoleKind::Hold, hold)])
            .check(Some(Duration::from_secs(10)))
            .unwrap_err();
        assert!(matches!(e, CastError::HoldTooLong { .. }), "{e}");
        let fits = Schedule {
            every: Some(Duration::from_secs(6)),
            hold_for: Some(Duration::from_secs(3)),
            ..Schedule::default()
        };
        assert!(cast(vec![role("holder", RoleKind::Hold, fits)])
            .check(Some(Duration::from_secs(12)))
            .is_ok());
    }

    #[test]
    fn each_workload_role_gets_the_workloads_types_under_its_name() {
        let c = cast(vec![
            role("writer", RoleKind::Workload, Schedule::default()),
            role("holder", RoleKind::Hold, Schedule::default()),
            role("readers", RoleKind::Workload, Schedule::default()),
        ]);
        let types = [
            OpType {
                name: "tx",
                part_of: None,
            },
            OpType {
                name: "stmt",
                part_of: Some("tx"),
            },
        ];
        let got: Vec<(&str, Option<&str>)> = c
            .op_types(&|_| types.to_vec())
            .iter()
            .map(|t| (t.name, t.part_of))
            .collect();
        assert_eq!(
            got,
            vec![
                ("writer:tx", None),
                ("writer:stmt", Some("writer:tx")),
                ("readers:tx", None),
                ("readers:stmt", Some("readers:tx")),
            ]
        );
        assert!(std::ptr::eq(role_op("writer", "tx"), role_op("writer", "tx")));
        assert_eq!(CheckpointMode::parse("truncate"), Some(CheckpointMode::Truncate));
        assert_eq!(CheckpointMode::parse("LAZY"), None);
    }
}
