//! The records a run produces: its manifest and one record per trial.
//!
//! These types are what the results store keeps (as JSON), what `--format json` prints and what
//! the CSV rows are derived from, so a number is never separated from its configuration.

use crate::model::engine_info::EngineInfo;
use crate::model::knob::{KnobReading, KnobSet};
use crate::model::metric::{Statistics, DEFAULT_NOISE};
use crate::model::op::OpResult;
use crate::model::params::Params;
use crate::sys::deviceio::DeviceIoDelta;
use crate::sys::iocount::IoSnapshot;
use crate::sys::procstat::KernelDelta;
use litebench_env::{Environment, SyncLatency};
use serde::{Deserialize, Serialize};

/// `sync_latency_not_measured` of a `--memory` run: there is no database directory to sync.
pub const NOT_MEASURED_IN_MEMORY: &str = "in-memory databases";

/// `sync_latency_not_measured` of a `--guest` run's scratch directory (the guest's tmpfs); each
/// filesystem's latency is in its configuration (`configs[i].fs.sync_latency`).
pub const NOT_MEASURED_IN_GUEST: &str = "the guest's scratch directory is a tmpfs; see each filesystem's own";

/// One configuration of a run: an engine with a set of knobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigInfo {
    pub index: usize,
    /// `--engine` label (`sqlite`, `sqlite:/path/libsqlite3.so.0`).
    pub engine: String,
    pub knobs: KnobSet,
    /// `engine knob=value ...`, as shown in tables.
    pub label: String,
    /// Where each knob's value came from (`user`, `preset NAME`, `workload NAME default`, or
    /// `as written` for an unset `begin` on a workload that runs the user's SQL: its `BEGIN`s
    /// run as the user wrote them); knobs not listed are at the engine's default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knob_origins: Vec<(String, String)>,
    /// The filesystem litebench built for this configuration (`--fs`); `None` when it ran in
    /// the scratch directory itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<FsInfo>,
    /// `--scheduler`: the I/O scheduler set on the configuration's loop device before each of
    /// its trials (and read back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
    /// `--scheduler-device`: the real device `scheduler` was also set on (and read back from)
    /// before each trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_device: Option<String>,
    /// `--storage`: the disk it ran on, emulated or throttled, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<crate::model::storage::StorageInfo>,
    /// Its own load shape, where the run sweeps one (`--clients 1,2,4`, `--rate`,
    /// `--client-mode` with several values); absent where every configuration has the run's
    /// ([`Manifest::load`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<crate::model::load::LoadShape>,
    /// `--knob extension=...`: the library every trial connection of this configuration loaded,
    /// its SHA-256 and what it reports of itself; absent without the knob.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<crate::model::engine_info::ExtensionInfo>,
    /// `--driver`: the driver process that ran this configuration's transactions, as it
    /// described itself (runtime, binding, its SQLite, the knobs it read back, what it sets by
    /// itself); absent for litebench's own loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<crate::model::driver::DriverInfo>,
    /// A cast's workload roles that ran through a driver process (the role's own `driver`, or
    /// the configuration's), each as its driver described itself with the role's knobs set;
    /// absent where no role did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub role_drivers: Vec<crate::model::driver::RoleDriver>,
}

/// A stored run's statistics are read from its manifest, so that reading sits here beside the
/// manifest, and [`Statistics`] (how intervals are computed) knows nothing of records.
impl Statistics {
    /// A stored run's settings (runs stored before they were recorded: their seed, 2% noise),
    /// with the noise thresholds (time's and instructions') replaced when the user gave
    /// `--noise`.
    pub fn of(manifest: &Manifest, noise: Option<f64>) -> Statistics {
        let mut s = manifest
            .statistics
            .clone()
            .unwrap_or_else(|| Statistics::new(manifest.seed, DEFAULT_NOISE));
        if let Some(n) = noise {
            s.noise = n;
            if s.instruction_noise.is_some() {
                s.instruction_noise = Some(n);
            }
        }
        s
    }
}

impl Manifest {
    /// The load shape configuration `config` ran under: its own in a sweep, else the run's.
    pub fn load_of(&self, config: usize) -> &crate::model::load::LoadShape {
        self.configs
            .get(config)
            .and_then(|c| c.load.as_ref())
            .unwrap_or(&self.load)
    }

    /// Whether any configuration ran a load other than one client in a closed loop.
    pub fn shaped(&self) -> bool {
        !self.load.is_default()
            || self
                .configs
                .iter()
                .any(|c| c.load.as_ref().is_some_and(|l| !l.is_default()))
    }

    /// Whether the run sweeps the load: configurations with load shapes of their own.
    pub fn sweeps(&self) -> bool {
        self.configs.iter().any(|c| c.load.is_some())
    }

    /// The load in words: [`crate::model::load::LoadShape::describe`] of the run's, and in a
    /// sweep what it swept, which the first part then leaves out: `closed loop; swept: clients
    /// 1,2,4` (not `closed loop, 1 client; swept: ...`, which said one client and several).
    pub fn load_words(&self) -> String {
        use crate::model::load::{rate_text, ClientMode, Connections, Varied};
        if !self.sweeps() {
            return self.load.describe();
        }
        let loads: Vec<_> = (0..self.configs.len()).map(|i| self.load_of(i)).collect();
        let mut clients: Vec<u32> = loads.iter().map(|l| l.clients).collect();
        clients.sort_unstable();
        clients.dedup();
        let mut rates: Vec<f64> = loads.iter().filter_map(|l| l.rate).collect();
        rates.sort_by(f64::total_cmp);
        rates.dedup();
        let processes = loads.iter().any(|l| l.client_mode == ClientMode::Processes);
        let threads = loads.iter().any(|l| l.client_mode == ClientMode::Threads);
        let shared = loads.iter().any(|l| l.connections == Connections::Shared);
        let per_client = loads.iter().any(|l| l.connections == Connections::PerClient);
        let mut swept = Vec::new();
        if clients.len() > 1 {
            let c: Vec<String> = clients.iter().map(u32::to_string).collect();
            swept.push(format!("clients {}", c.join(",")));
        }
        if rates.len() > 1 {
            let r: Vec<String> = rates.iter().map(|&r| rate_text(r)).collect();
            swept.push(format!("rate {}", r.join(",")));
        }
        if processes && threads {
            swept.push("client mode threads,processes".into());
        }
        if shared && per_client {
            swept.push("connections per-client,shared".into());
        }
        let varied = Varied {
            clients: clients.len() > 1,
            rate: rates.len() > 1,
            client_kind: (processes && threads) || (shared && per_client),
        };
        format!("{}; swept: {}", self.load.describe_but(varied), swept.join(", "))
    }
}

/// A filesystem built for a run (`--fs`): what was made, how, where, and what the kernel
/// reports about it once mounted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FsInfo {
    /// Position in the run's `--fs` list.
    pub index: usize,
    /// The `--fs` value (`ext4:data=journal`).
    pub spec: String,
    /// Image file (none for tmpfs), sparse, of `size_bytes`.
    pub image: Option<String>,
    pub size_bytes: u64,
    /// The mkfs command as run (empty for tmpfs).
    pub mkfs: Vec<String>,
    /// Options given to `mount -o`.
    pub mount_options: String,
    pub loop_device: Option<String>,
    /// In a guest kernel (`--guest`): the guest's block device for the image (`/dev/ubda`), in
    /// place of a loop device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest_disk: Option<String>,
    /// Whether the loop device reads and writes the image with direct I/O (sysfs `loop/dio`);
    /// litebench attaches with the kernel's default, buffered I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_direct_io: Option<bool>,
    /// The storage under the image file (the scratch directory's filesystem and device).
    pub underneath: Option<litebench_env::Storage>,
    /// The mounted filesystem as the kernel reports it (type, superblock options, journaling
    /// mode), read back from /proc/mounts after mounting.
    pub mounted: litebench_env::Storage,
    /// Where the trials ran: a directory on the mounted filesystem.
    pub dir: String,
    pub sync_latency: Option<SyncLatency>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_latency_not_measured: Option<String>,
}

impl FsInfo {
    /// The block device litebench made for this filesystem: its loop device, or in a guest
    /// kernel the guest's disk; `None` for tmpfs.
    pub fn block_device(&self) -> Option<&str> {
        self.loop_device.as_deref().or(self.guest_disk.as_deref())
    }
}

/// A run inside a throwaway guest kernel (`--guest`): which kernel, how it was started, how
/// its disks reach the host's storage, and what the guest costs against the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestInfo {
    /// `user-mode Linux` and the kernel binary.
    pub kernel: String,
    /// The guest kernel's release (`uname -r` inside it).
    pub release: String,
    /// The command line the host started it with.
    pub command: Vec<String>,
    pub memory_mib: u64,
    /// How each disk reaches the host: the image file opened with O_SYNC (a write-through
    /// disk: every guest write is durable on the host's storage when it completes).
    pub disk_mode: String,
    /// The host checked, in /proc of the running guest, that every image was open with O_SYNC.
    /// `None` until the host has looked (it looks while the guest runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o_sync_verified: Option<bool>,
    /// The host's kernel release and the storage under the images.
    pub host_release: String,
    pub host_storage: Option<litebench_env::Storage>,
    /// Cost of one trivial system call (getppid), measured in the guest and on the host.
    pub syscall_ns_guest: Option<f64>,
    pub syscall_ns_host: Option<f64>,
}

/// Everything needed to reproduce a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub tool_version: String,
    /// The command line, as given.
    pub command: Vec<String>,
    /// UTC, RFC 3339.
    pub started_at: String,
    pub workload: String,
    pub workload_source: String,
    /// Every parameter, defaults filled in.
    pub params: Params,
    pub seed: u64,
    pub trials: u32,
    pub warmup: u32,
    /// Page cache dropped before each trial.
    pub cold_cache: bool,
    /// Databases in memory (`--memory`) instead of files.
    pub in_memory: bool,
    pub engines: Vec<EngineInfo>,
    pub configs: Vec<ConfigInfo>,
    pub environment: Environment,
    /// Measured in the scratch directory at the start of the run.
    pub sync_latency: Option<SyncLatency>,
    /// Why `sync_latency` is missing: `in-memory databases`, or the measurement's error.
    /// `None` when it was measured, and in runs stored before the reason was kept.
    #[serde(default)]
    pub sync_latency_not_measured: Option<String>,
    pub scratch_dir: String,
    /// How intervals and verdicts are computed (absent in runs stored before it was recorded:
    /// the defaults with the run's seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<Statistics>,
    /// What the run itself found worth a warning: pass-through knobs allowed unverified, and
    /// problems found after the trials that do not change their numbers but need the user's
    /// attention, e.g. a server setting litebench could not put back (with how to do it by
    /// hand). Empty in runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// `--guest`: the run ran inside a throwaway guest kernel, described here.
    /// Clients, rate, latency limit and tries; absent for one client in a closed loop (every
    /// run stored before load shapes).
    #[serde(default, skip_serializing_if = "crate::model::load::LoadShape::is_default")]
    pub load: crate::model::load::LoadShape,
    /// True where several clients ran as threads and each charged its own operations with its
    /// own thread's I/O (the VFS shim counts per calling thread): per-operation I/O exact, as
    /// with client processes. Absent where no client ran as a thread beside client 0, and in
    /// runs stored before, whose client 0 charged every client thread's I/O to its own current
    /// operation (their per-operation I/O is approximate).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub io_per_thread: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest: Option<GuestInfo>,
    /// `--shard` / `--replicate`: this run is one part of a sweep over several machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<crate::model::record::FleetInfo>,
    /// `--preset`: what each configuration measured, so a later report of the stored runs
    /// shows the same comparison of presets and paper table (Table 1) as the run's own; absent
    /// for runs without presets and runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presets: Option<PresetInfo>,
    /// What ended each trial of a workload the load driver runs (a count or a time) and what
    /// chose it; absent for other workloads and runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<crate::model::stop_rule::StopRule>,
    /// The files the workload read (scripts, init file, replayed log, database file), each by
    /// name and content, so that two runs of files of the same names are told apart file by
    /// file; absent for workloads that read none and runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workload_files: Vec<WorkloadFile>,
    /// `--measure instructions`: each trial's instructions were counted, and how; its wall
    /// times are under valgrind. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<crate::model::measure::InstructionCounting>,
}

/// A file a workload read, as `compare` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkloadFile {
    /// The parameter that named it (`file`, `init`, `log`, `db`).
    pub param: String,
    /// Its path as given.
    pub path: String,
    /// SHA-256 of its content when the run started, hex.
    pub sha256: String,
}

/// The presets of a run (`--preset`), by name (`workload::preset` holds the presets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PresetInfo {
    /// Whether the session compared presets (several presets, or a group): its report leads
    /// with their comparison.
    pub compared: bool,
    /// The session's preset groups (`table1`), each of whose paper table the report shows.
    pub groups: Vec<String>,
    /// Per configuration: the preset whose headline operation it measured, if any.
    pub measured: Vec<Option<String>>,
    /// Per configuration: every preset it stands for, joined by `+` (`a+b` when they coincide).
    pub names: Vec<String>,
}

/// One trial: a configuration measured once from a fresh copy of the template.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Position in the run (0-based, in execution order).
    pub seq: u64,
    /// Repetition round; configurations are interleaved within a round.
    pub round: u32,
    pub config: usize,
    /// Warm-up trials are stored but never summarised.
    pub warmup: bool,
    /// Seed of this trial's data (derived from the run seed and the round, so every
    /// configuration in a round sees the same operations).
    pub seed: u64,
    pub started_unix_ms: u64,
    pub ops: Vec<OpResult>,
    /// Operations over all types.
    pub total_ops: u64,
    /// Measured time over all types, nanoseconds.
    pub measured_ns: u64,
    /// `total_ops` per second of measured time.
    pub throughput: f64,
    /// Instructions of the measured region, counted under callgrind (`--measure
    /// instructions`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u64>,
    /// VFS counts during the measured phases.
    pub io: IoSnapshot,
    /// VFS counts from opening to closing the connection (includes knob setting and close,
    /// e.g. the checkpoint a WAL database does when its last connection closes).
    pub io_trial: IoSnapshot,
    /// Kernel counters from opening to closing the connection.
    pub kernel: KernelDelta,
    /// Device bytes of the processes doing the engine's I/O (server processes, or litebench's
    /// own for embedded engines), from the trial's start to just before its connection closed;
    /// never VFS counts. Absent where they cannot be attributed (a server litebench did not
    /// start) and in runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_io: Option<DeviceIoDelta>,
    /// Every knob, requested and effective.
    pub knobs: Vec<KnobReading>,
    /// SHA-256 (hex) of every query result of the trial in a canonical form, the same on every
    /// engine for the same workload and seed (`crate::workload::result_hash`). Null for
    /// workloads without queries, TATP with several clients or too short a run, and runs stored
    /// before litebench kept it.
    #[serde(default)]
    pub result_hash: Option<String>,
    /// Per query of workloads that time each query as its own operation (SSB): its answer, and
    /// on a configuration's first measured trial its plan and per-loop profile. Empty for other
    /// workloads and runs stored before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<QueryRecord>,
    /// The trial over time (trials the load driver ran: several clients or a rate); absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<crate::model::series::Series>,
    /// What a cast's hold and checkpoint roles did (`--cast`); absent without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast: Option<crate::model::cast::CastEvents>,
    /// SQLite's journal mode when the trial began and when it ended, where they differ:
    /// something in the trial switched it (Litestream puts a database in WAL mode; so can the
    /// workload's own SQL), so the trial measured two modes. Absent where it held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_mode_change: Option<JournalModeChange>,
}

/// A journal mode a trial began in and the one it ended in (`delete` -> `wal`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JournalModeChange {
    pub start: String,
    pub end: String,
}

/// One query of a trial: what it answered, and how the engine ran it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryRecord {
    /// The operation name the query is timed under.
    pub op: String,
    pub answer: Answer,
    /// The engine's plan (`Connection::query_plan`), where it has one and it was captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Vec<String>>,
    /// Per-loop counters (`Connection::loop_profile`), where the engine keeps them and they were
    /// captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Vec<crate::model::engine_info::LoopProfile>>,
    /// The values the query's parameters had (TPC-H's substitution parameters, `NAME=value`
    /// words), where the workload draws them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<String>,
    /// Why the query gave no answer (`timed out after 60 s`); its answer is then empty and
    /// compared with no other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// A query's answer, comparable across engines: the row count and an order-insensitive hash
/// always, the rows themselves (as text, `None` for NULL) when the answer is small.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub rows: u64,
    /// SHA-256 (hex) of the rows in a canonical, order-insensitive form.
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Vec<Option<String>>>>,
}

/// Sync system calls the process made on workload files, for the strace cross-check.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessSyncs {
    /// Counted by the VFS shims (file syncs plus directory syncs), templates included.
    pub vfs: u64,
    /// Made by litebench itself to make trial copies durable.
    pub harness: u64,
}

/// A template database populated for the run: the footprint report (the VLDB'22 paper's
/// Table 4 compares population time and size on disk across engines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateRecord {
    /// First configuration that uses it.
    pub config: usize,
    pub engine: String,
    /// Create-time knobs it was made with (`page_size=...`), empty for defaults.
    pub create_knobs: String,
    /// Rows the workload inserted.
    pub rows: u64,
    pub populate_ns: u64,
    pub rows_per_sec: f64,
    /// Size on disk after population, if the engine can tell.
    pub bytes: Option<u64>,
    /// Which way the rows went in (`appender`, `COPY FROM file (native)`, ...; several joined by
    /// `, `), since the rate depends on it; `None` for a workload that inserts row by row
    /// itself, and in runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_path: Option<String>,
}

/// What the manifest records about a sharded or replicated run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleetInfo {
    /// Shared by every shard of one sweep.
    pub sweep: String,
    pub shard: usize,
    pub shards: usize,
    pub replicate: bool,
    pub scheduler: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub job_ids: Vec<(String, String)>,
    /// SHA-256 (hex, first 16 digits) of the plan every shard computed.
    pub plan_hash: String,
    /// Jobs in the whole plan, and the position of this run's job in it.
    pub plan_jobs: usize,
    pub plan_job: usize,
}
