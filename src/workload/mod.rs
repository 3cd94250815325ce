//! Workloads: named, parameterised jobs, each documented against its source.
//!
//! Adding a workload means one module here (its descriptor [`kind::WorkloadKind`] as `KIND`,
//! beside its [`Workload`] implementation) and one line in [`all`].

pub mod acreve;
pub mod aging;
pub mod androbench;
pub mod bare_begin;
pub mod blob;
pub mod crud;
pub mod driven;
pub mod expect;
pub mod file_reach;
pub mod fts;
pub mod json;
pub mod kind;
pub mod knob_reach;
pub mod load;
pub mod mobibench;
pub mod numbers;
pub mod op_answers;
pub mod per_op_answer;
pub mod population;
pub mod preset;
pub mod queue;
pub mod read_once;
pub mod recorder;
pub mod remote;
pub mod replay;
pub mod report;
pub mod result_hash;
pub mod rlbench;
pub mod rtree;
pub mod script;
pub mod speedtest;
pub mod speedtest1;
pub mod sqlite_benchmark;
pub mod sqlite_needs;
pub mod ssb;
pub mod suite;
pub mod tally;
pub mod tatp;
pub mod tpcc;
pub mod tpch;
pub mod user_db;
pub mod vector;
pub mod ycsb;

use crate::engines::{Connection, EngineError};
use crate::model::params::{ParamSpec, Params};
use crate::workload::recorder::Recorder;
pub use kind::WorkloadKind;
pub use population::{PopulateError, Population};
pub use report::{ReportLines, ReportSection, WorkloadReport};
use std::sync::atomic::AtomicBool;

/// Why a trial of a workload stopped early.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("interrupted")]
    Interrupted,
    #[error(transparent)]
    Knob(#[from] crate::model::knob::KnobError),
    #[error("workload {workload} failed its check: {detail}")]
    Verification { workload: String, detail: String },
}

impl WorkloadError {
    /// Workload `workload` found `detail` wrong in what it ran or checked.
    pub fn check_failed(workload: &str, detail: String) -> WorkloadError {
        WorkloadError::Verification {
            workload: workload.to_string(),
            detail,
        }
    }
}

/// Opens further connections to a trial's database, configured (knobs set and verified) like
/// the first one: for workloads with several clients.
pub trait Connector: Sync {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError>;
    /// A further connection with `knobs` (canonical `NAME`, `VALUE`) set over the
    /// configuration's and read back like them: a cast role's own per-connection knobs.
    fn open_with(&self, knobs: &[(String, String)]) -> Result<Box<dyn Connection>, WorkloadError> {
        if let Some((name, _)) = knobs.first() {
            return Err(WorkloadError::Verification {
                workload: "load driver".into(),
                detail: format!("knob {name}: this trial cannot set a role's own knobs"),
            });
        }
        self.open()
    }
    /// Starts client `index` of a trial with `seed` in a process of its own (`--client-mode
    /// processes`, or a cast role's `mode = "processes"`): its connection open and verified and
    /// its statements prepared, waiting for [`remote::RemoteClient::go`]. A role's client runs
    /// with the role's knobs over the configuration's and its parameters over the run's.
    fn spawn(
        &self,
        index: u32,
        _seed: u64,
        _load: &crate::model::load::LoadShape,
        _role: Option<&crate::model::cast::Role>,
    ) -> Result<Box<dyn remote::RemoteClient>, WorkloadError> {
        Err(WorkloadError::Verification {
            workload: "load driver".into(),
            detail: format!("client {index}: this trial cannot start client processes"),
        })
    }
    /// The configuration's `--driver` when it is a driver process, not litebench's own loop
    /// (`None`: `rust`).
    fn driver(&self) -> Option<&str> {
        None
    }
    /// Starts client `index`'s driver process ([`Connector::driver`], or a cast `role`'s own)
    /// on the trial's database with the configuration's knobs (the role's over them),
    /// `statements` to prepare and litebench's retry rule (`max_tries`, the sleep before each
    /// retry in `backoff_ns`), and waits until it opened.
    fn start_driver(
        &self,
        index: u32,
        _role: Option<&crate::model::cast::Role>,
        _statements: &[crate::model::driver::Statement],
        _max_tries: u32,
        _backoff_ns: &[u64],
    ) -> Result<Box<dyn driven::DriverLink>, WorkloadError> {
        Err(WorkloadError::Verification {
            workload: "load driver".into(),
            detail: format!("client {index}: this trial cannot start driver processes"),
        })
    }
}

/// What a trial gives the workload besides its first connection.
pub struct Trial<'a> {
    pub params: &'a Params,
    /// Seed of this trial's data.
    pub seed: u64,
    /// The run's `--seed`, the same for every trial and configuration (what a workload draws
    /// once per run from: TPC-H's substitution parameters).
    pub run_seed: u64,
    /// Set by Ctrl-C: stop between operations with [`WorkloadError::Interrupted`].
    pub stop: &'a AtomicBool,
    pub connector: &'a dyn Connector,
    /// The configuration's first measured trial: capture what is worth keeping once per
    /// configuration and is too costly for every trial (query plans, per-loop profiles), outside
    /// the timed phases.
    pub profile: bool,
    /// The trial connection's settings as read back after they were set: for workloads whose
    /// checks depend on them (SSB's Bloom-filter plan check).
    pub knobs: &'a [crate::model::knob::KnobReading],
    /// Clients, rate, latency limit and tries (`--clients`, `--rate`, ...): what
    /// [`load::drive`] runs the workload's transactions with.
    pub load: &'a crate::model::load::LoadShape,
    /// What interrupts the running statements once `stop` is set: the runner registers the
    /// trial's connection, the load driver each further client's (`None`: nothing is
    /// interrupted, a long statement ends in its own time).
    pub watch: Option<&'a crate::engines::interrupt::Watch<'a>>,
    /// How `--progress` lines name this trial (`#1 journal_mode=wal, trial 2/3`), so that the
    /// interleaved trials of several configurations read apart; empty outside the runner.
    pub name: &'a str,
    /// The trial database's files, read at every interval of the series (`None`: a server's
    /// database, or a client process, whose driver reads them).
    pub files: Option<&'a crate::sys::dbfiles::DbFiles>,
    /// Where the trial's database lives, for what a cast runs beside it (a sidecar's `{db}`
    /// and `{scratch}`, a directory beside it); `None` outside the runner and for a server's database.
    pub place: Option<Place<'a>>,
}

/// A trial database's place on disk.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The database file.
    pub db: &'a std::path::Path,
    /// The trial's name in the run directory (`trial-3`): its sidecars' `{scratch}` is
    /// [`crate::sys::scratch::Scratch::trial_dir`] of it.
    pub trial: &'a str,
    /// The scratch base directory (`--dir`), where records of what must not outlive litebench
    /// are kept for the next run and `cleanup`.
    pub base: &'a std::path::Path,
    /// The run directory's record: a file a role makes there ([`crate::sys::scratch::Scratch::path`])
    /// is named in it before it exists, so `cleanup` after a `kill -9` removes it.
    pub run: &'a crate::sys::scratch::Scratch,
}

impl<'a> Trial<'a> {
    /// A trial outside the runner (unit tests, benches): `seed` the run's too, not the first
    /// measured one of a configuration, and no knob readings.
    pub fn plain(params: &'a Params, seed: u64, stop: &'a AtomicBool, connector: &'a dyn Connector) -> Trial<'a> {
        Trial {
            params,
            seed,
            run_seed: seed,
            stop,
            connector,
            profile: false,
            knobs: &[],
            load: &crate::model::load::ONE_CLIENT,
            watch: None,
            name: "",
            files: None,
            place: None,
        }
    }
}

/// A benchmark workload: what it does. What it is, its [`WorkloadKind`], is data.
pub trait Workload: Sync {
    /// What the workload is: name, about, source, parameters, operations, unit, metric,
    /// whether it writes, its default knobs ([`WorkloadKind`]).
    fn kind(&self) -> &'static WorkloadKind;
    /// Checks relations between parameters (each is already in range).
    fn check(&self, _p: &Params) -> Result<(), String> {
        Ok(())
    }
    /// What `run --dry-run` says of this workload with `p` beside the plan's configurations
    /// and trials, a line each (tpcc: the population's rows and bytes, the warm-up and measured
    /// intervals): what a run will cost before it starts. None by default.
    fn plan_lines(&self, _p: &Params) -> Vec<String> {
        Vec::new()
    }
    /// What it adds to the reports of its runs ([`WorkloadReport`]): nothing by default.
    fn report(&self) -> &dyn WorkloadReport {
        &report::NoReport
    }
    /// The workload's transactions, for the load driver ([`load::drive`]): workloads that offer
    /// them run with any `--clients`, `--rate`, `--latency-limit` and `--max-tries`; the others
    /// refuse a load shape other than one client in a closed loop.
    fn transactions(&self) -> Option<&dyn load::Transactions> {
        None
    }
    /// Why this workload, with these parameters, cannot run through a driver process
    /// (`--driver`), whose transactions are sent as data made ahead of time
    /// ([`crate::engines::recording`]): `None` where it can. By default it cannot; a workload
    /// whose transactions never read what an earlier statement returned says so.
    fn driver_refusal(&self, _p: &Params) -> Option<String> {
        Some(
            "its transactions are not offered as data to drivers (drivers run crud, ycsb, tatp, queue, script and replay)"
                .into(),
        )
    }
    /// How many of the user's statements this workload runs are bare `BEGIN`s
    /// ([`bare_begin`]): those the `begin` knob, where set, starts in its mode. `None`: the
    /// workload runs no user SQL, and its transactions start as the knob says, set or not.
    fn bare_begins(&self, _p: &Params) -> Option<usize> {
        None
    }
    /// Whether this workload, run with `p`, reads `knob`, one that only a workload's own
    /// statements read ([`crate::model::knob::ReadBy::Workload`]: `begin`, `blob_api`).
    /// `Err(why not)`, a phrase that names the workload, refuses the knob for it
    /// ([`knob_reach`]): accepted, it would label configurations that run the same statements.
    fn reads_knob(&self, _knob: &str, _p: &Params) -> Result<(), String> {
        Err(format!(
            "no statement of {} reads it (what {0} runs is written as its source wrote it)",
            self.kind().name
        ))
    }
    /// The knobs of `knobs` that change nothing this workload, run with `p`, does in that
    /// configuration (`vector`: vectorlite's `hnsw_*` beside sqlite-vec): the plan drops them
    /// from it, and a configuration left equal to an earlier one runs once. None by default.
    fn inert_knobs(&self, _p: &Params, _knobs: &crate::model::knob::KnobSet) -> Vec<&'static str> {
        Vec::new()
    }
    /// Refuses a whole configuration this workload, run with `p`, cannot run: its engine, its
    /// knob values and its clients together (`fts`: a phrase query under `fts_detail=column`,
    /// which FTS5 refuses; `vector`: SQLite with no vector extension loaded, vectorlite's
    /// in-memory index with two clients). `Err(the one line)`, before anything runs.
    /// Everything by default.
    fn check_configuration(
        &self,
        _p: &Params,
        _engine: &crate::engines::kind::EngineKind,
        _knobs: &crate::model::knob::KnobSet,
        _clients: u32,
    ) -> Result<(), String> {
        Ok(())
    }
    /// What `run --dry-run` says of this workload's run with parameters `p` and `--seed` `seed`
    /// besides the plan: operations known to take long and the limit on them, what is drawn
    /// from the seed (TPC-H's queries on SQLite, its substitution parameters). None by default.
    fn plan_notes(&self, _p: &Params, _seed: u64, _engines: &[String]) -> Vec<String> {
        Vec::new()
    }

    /// The files the parameters name for this workload to read, as `(parameter, path as
    /// given)`: recorded in the manifest with their SHA-256 ([`crate::model::record::WorkloadFile`]).
    /// None by default.
    fn files(&self, _p: &Params) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// The operation types of a trial with these parameters on an engine of `dialect`, in
    /// report order: the descriptor's [`WorkloadKind::operations`] unless they depend on the parameters (the script
    /// workload: one per script and one per statement of each, the statements as parts of
    /// their script's type).
    fn operation_types(&self, _p: &Params, _dialect: Option<crate::engines::Dialect>) -> Vec<crate::model::op::OpType> {
        crate::model::op::OpType::whole(self.kind().operations)
    }
    /// Reads what the parameters name (script files) once, before anything runs, refuses what
    /// does not parse (one line naming the file, line and column), and adds to the parameters
    /// what identifies their content beyond its name (the scripts' SHA-256), so that the
    /// manifest tells runs of different files apart. Nothing by default.
    fn settle(&self, _p: &mut Params) -> Result<(), String> {
        Ok(())
    }
    /// A database file (SQLite's) every trial starts from a byte-identical copy of, instead of
    /// a population: the runner copies it into the template and never opens it. None by
    /// default.
    fn template_file(&self, _p: &Params) -> Option<std::path::PathBuf> {
        None
    }
    /// Creates the schema and pre-populates: run once into the template database. Returns the
    /// number of rows inserted (for the population rate in the footprint report). Checks
    /// `pop.stop` every few hundred rows ([`Population::every`], [`Population::bulk_load`]) and
    /// returns [`PopulateError::Interrupted`] once it is set.
    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError>;
    /// One measured trial. Everything untimed (statement preparation, data generation) happens
    /// before `rec.phase` is called; `trial.stop` is checked between operations.
    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError>;
    /// Checks the database after a trial (row counts and the like).
    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError>;
    /// The check after a trial run with `load`: [`Workload::verify`] unless the workload knows
    /// better (under a rate with a latency limit, or with lock retries that ran out, some
    /// transactions never ran, and their counts are reported instead of being an error).
    fn verify_after(
        &self,
        conn: &mut dyn Connection,
        p: &Params,
        _load: &crate::model::load::LoadShape,
    ) -> Result<(), WorkloadError> {
        self.verify(conn, p)
    }
}

/// Every workload litebench has.
pub fn all() -> &'static [&'static dyn Workload] {
    static ALL: [&dyn Workload; 22] = [
        &crud::Crud,
        &tatp::Tatp,
        &tpcc::Tpcc,
        &speedtest::SPEEDTEST,
        &speedtest1::Speedtest1,
        &rlbench::RLBENCH,
        &acreve::ACREVE,
        &sqlite_benchmark::SQLITE_BENCHMARK,
        &androbench::ANDROBENCH,
        &mobibench::Mobibench,
        &ssb::Ssb,
        &tpch::Tpch,
        &blob::Blob,
        &ycsb::Ycsb,
        &queue::Queue,
        &script::ScriptWorkload,
        &replay::Replay,
        &aging::Aging,
        &vector::Vector,
        &fts::Fts,
        &json::Json,
        &rtree::Rtree,
    ];
    &ALL
}

/// Every workload's descriptor, in [`all`]'s order (`litebench list`'s).
pub fn kinds() -> impl Iterator<Item = &'static WorkloadKind> {
    all().iter().map(|w| w.kind())
}

/// What workload `name` counts in its reports ([`WorkloadKind::unit`]); `tx` for a name no
/// workload has (a run stored by another litebench).
pub fn unit_of(name: &str) -> &'static str {
    find(name).map_or("tx", |w| w.kind().unit)
}

/// Finds a workload by name.
pub fn find(name: &str) -> Option<&'static dyn Workload> {
    all().iter().copied().find(|w| w.kind().name == name)
}

/// The descriptor's fields the plan, the session and the runner read, through the workload:
/// the answer is always the [`WorkloadKind`]'s, since no implementation can override these.
impl dyn Workload + '_ {
    /// [`WorkloadKind::name`].
    pub fn name(&self) -> &'static str {
        self.kind().name
    }
    /// [`WorkloadKind::source`].
    pub fn source(&self) -> &'static str {
        self.kind().source
    }
    /// [`WorkloadKind::params`].
    pub fn params(&self) -> &'static [ParamSpec] {
        self.kind().params
    }
    /// [`WorkloadKind::read_only`].
    pub fn read_only(&self) -> bool {
        self.kind().read_only
    }
    /// [`WorkloadKind::default_knobs`].
    pub fn default_knobs(&self) -> &'static [(&'static str, &'static str)] {
        self.kind().default_knobs
    }
}
