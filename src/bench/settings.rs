//! The typed settings of one `litebench run`: what the command line parses into and what
//! [`crate::bench::session`] takes. `reproduce` builds them too, from each experiment's words,
//! and calls the session directly. The clap attributes stay on the fields so that the flag, its
//! help and its validation are written once.

use super::flags::{DirArg, FormatArg, NoiseArg, ResultsArg};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
#[command(mut_arg("results", |a| a.help(
    "Results store (a SQLite database); default $LITEBENCH_RESULTS or ~/.local/share/litebench/results.db"
)))]
pub struct RunArgs {
    /// Workload to run (see `litebench list`); may be left out when `--preset` names it.
    pub workload: Option<String>,
    /// A tool's default configuration (workload, parameters, knobs), e.g. `mobibench`;
    /// repeat to compare tools, or `table1` for APSys'17 Table 1. `--param` and `--knob`
    /// override its values. See `litebench list`.
    #[arg(long = "preset", value_name = "NAME")]
    pub presets: Vec<String>,
    /// Engine: `sqlite` (bundled), `sqlite:<path to libsqlite3.so>`, `sqlite@NAME` (a
    /// `build-sqlite` build), or SQLite releases from the package registries, fetched and
    /// compiled once: `sqlite@3.45.1`, `sqlite@3.20..3.54`, `sqlite@3.8.x`, `sqlite@all`, each
    /// with an optional `-Os`/`-O3` (see `litebench list sqlite-releases`); repeat to compare.
    #[arg(long = "engine", value_name = "ENGINE")]
    pub engines: Vec<String>,
    /// Knob and the values to try, e.g. `journal_mode=delete,wal`; repeat for a matrix.
    #[arg(long = "knob", value_name = "NAME=V1[,V2...]")]
    pub knobs: Vec<String>,
    /// What runs the transactions: `rust` (litebench's own loop, the default) or a driver
    /// process per client, through an application's SQLite binding and the SQLite it carries
    /// (python-sqlite3, ...; docs/drivers.md). Several compare as configurations, crossed with
    /// the knobs. SQLite only; crud, ycsb, tatp, queue, script and replay.
    #[arg(long = "driver", value_name = "D1,D2,...", value_delimiter = ',')]
    pub drivers: Vec<String>,
    /// Vary one knob at a time around the baseline (each knob's first value) instead of
    /// running every combination.
    #[arg(long)]
    pub vary_one: bool,
    /// Workload parameter, e.g. `rows=0`; repeat for several.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Measured trials per configuration.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: u32,
    /// Warm-up trials per configuration, run first and never summarised.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub warmup: u32,
    /// Seed for all generated data (recorded with the run).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    #[command(flatten)]
    pub dir: DirArg,
    #[command(flatten)]
    pub results: ResultsArg,
    #[command(flatten)]
    pub format: FormatArg,
    /// Also write what is printed to FILE, in the format its extension names (.json, .csv, .md,
    /// .txt), a new file; repeat for several. The terminal keeps --format.
    #[arg(long = "export", value_name = "FILE", value_parser = crate::report::exports::parse)]
    pub exports: Vec<crate::report::exports::Export>,
    /// Drop the page cache before every trial (needs root).
    #[arg(long)]
    pub cold: bool,
    /// Run on in-memory databases (measures CPU cost only; no storage involved).
    #[arg(long)]
    pub memory: bool,
    /// Filesystems to compare, each built fresh on a loop device in the scratch directory
    /// (needs root): ext4, ext4:data=journal, ext4:data=writeback, ext4:nojournal, xfs, btrfs,
    /// btrfs:nodatacow, tmpfs. Every configuration runs on each.
    #[arg(long = "fs", value_name = "FS1,FS2,...", value_delimiter = ',')]
    pub fs: Vec<String>,
    /// Size of each `--fs` image (sparse), e.g. 256M, 1G.
    #[arg(long, value_name = "SIZE", default_value = "1G")]
    pub fs_size: String,
    /// Run the whole run inside a throwaway user-mode Linux kernel (Debian's user-mode-linux),
    /// for filesystems this kernel lacks (f2fs): each `--fs` image becomes a guest disk that
    /// the host opens O_SYNC; results come back into this store. Needs no root.
    #[arg(long)]
    pub guest: bool,
    /// Memory of the `--guest` kernel.
    #[arg(long, value_name = "SIZE", default_value = "2G", requires = "guest")]
    pub guest_memory: String,
    /// Run only part I of N of the plan (`I/N`, 0-based), or `auto` to take I and N from a
    /// Slurm array, a Kubernetes Indexed Job (with --shard-count) or an AWS Batch array. Whole
    /// comparison groups (jobs) are split, never the configurations within one.
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<String>,
    /// The number of shards for `--shard auto` under a Kubernetes Indexed Job (its completions).
    #[arg(long, value_name = "N", requires = "shard")]
    pub shard_count: Option<usize>,
    /// Every shard runs the whole plan (the same experiment on many machines).
    #[arg(long, requires = "shard")]
    pub replicate: bool,
    /// Name of the sweep the shards belong to (default: the array job's id and the plan's hash).
    #[arg(long, value_name = "NAME", requires = "shard")]
    pub sweep: Option<String>,
    /// (internal) the job of a run inside a `--guest` kernel.
    #[arg(long, value_name = "FILE", hide = true)]
    pub guest_job: Option<PathBuf>,
    /// I/O schedulers to compare on the loop devices `--fs` makes (none, mq-deadline, bfq,
    /// kyber): each configuration runs under each, set and read back before every trial.
    #[arg(long = "scheduler", value_name = "S1,S2,...", value_delimiter = ',')]
    pub schedulers: Vec<String>,
    /// Also set each `--scheduler` on this real block device (e.g. vda; root), before every
    /// trial and read back; its original scheduler is put back however the run ends.
    #[arg(long, value_name = "DEV", requires = "schedulers")]
    pub scheduler_device: Option<String>,
    /// The disk as an axis: `none`, emulated delays slept by litebench's VFS after each call
    /// (`sync=2ms`, `sync=lognormal(1ms,0.5)`, `read=`, `write=`), the kernel's limits on the
    /// `--fs` loop device (`iops=3000,bw=125MB`), or a preset (`ebs-gp3`); values separated by
    /// commas (`none,sync=1ms,sync=4ms`) or `;`. See docs/storage.md.
    #[arg(long, value_name = "SPEC,...")]
    pub storage: Option<String>,
    /// Name the stored run (unique in the store), e.g. `wal-baseline`: every command that takes
    /// a run id takes the name too (`compare wal-baseline 12`).
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub name: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write the HTML report of the run to FILE, a new file, when it ends (also when interrupted
    /// or failed, for the trials that finished); see `litebench report`.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Run even when a pass-through knob (`pragma.X`, `set.X`) cannot be read back, so that
    /// litebench cannot verify it took effect; the report says so.
    #[arg(long)]
    pub allow_unverified: bool,
    #[command(flatten)]
    pub noise: NoiseArg,
    /// Concurrent clients, each with its own connection (configured and verified like the
    /// first) and thread, for workloads whose operations are independent transactions (see
    /// `litebench list`); several values (`1,2,4,8`) sweep them: a configuration per value,
    /// interleaved trial by trial, and the report draws the scaling curve
    #[arg(long, value_name = "N[,N...]", default_value = "1", value_parser = parse_clients)]
    pub clients: Axis<u32>,
    /// The load as a cast of named roles, from a TOML file (docs/load.md): each role its own
    /// clients, rate, per-connection knobs and schedule, and besides the workload's roles,
    /// `hold` (a read transaction that keeps its snapshot), `checkpoint` (`PRAGMA
    /// wal_checkpoint`), `backup` (the online backup API or `VACUUM INTO`), `vacuum` and
    /// `sidecar` (a command beside each trial, such as Litestream); every operation is recorded
    /// under its role's name. Replaces `--clients`, `--rate` and `--client-mode`
    #[arg(long, value_name = "FILE")]
    pub cast: Option<PathBuf>,
    /// With several clients: `threads` (default) or `processes`, every client but the first a
    /// process of its own, as web workers are (SQLite engines only: its locks, WAL index and
    /// page cache then behave as between processes); `threads,processes` compares both
    #[arg(long, value_name = "MODE[,MODE...]", default_value = "threads", value_parser = parse_client_modes)]
    pub client_mode: Axis<crate::model::load::ClientMode>,
    /// With several clients: `per-client` (default), each client its own connection, or
    /// `shared`, every client on one connection behind a mutex, held for each whole
    /// transaction, as an application with one connection runs (SQLite engines, client threads
    /// only); `per-client,shared` compares both
    #[arg(long, value_name = "HOW[,HOW...]", default_value = "per-client", value_parser = parse_connections)]
    pub connections: Axis<crate::model::load::Connections>,
    /// Open loop: start transactions on a schedule at TPS per second over all clients, and
    /// measure each one's latency from its intended start (so a stall counts against every
    /// transaction queued behind it); several values (`100,300,1000`) sweep the offered rate.
    /// Default: closed loop, each client as fast as it can
    #[arg(long, value_name = "TPS[,TPS...]", value_parser = parse_rates)]
    pub rate: Option<Axis<f64>>,
    /// How `--rate`'s intended start times are spaced: poisson (seeded exponential gaps) or
    /// uniform
    #[arg(long, value_name = "ARRIVAL", default_value = "poisson", value_parser = parse_arrival)]
    pub arrival: crate::model::load::Arrival,
    /// With `--rate`: skip a transaction already later than this when its turn comes, and count
    /// completed ones slower than this as late (pgbench -L), e.g. `5ms`
    #[arg(long, value_name = "DURATION", value_parser = parse_latency_limit)]
    pub latency_limit: Option<std::time::Duration>,
    /// Tries of a transaction that meets a lock (SQLITE_BUSY, a serialization failure, a
    /// deadlock) before it counts as failed; 1: no retry
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_max_tries)]
    pub max_tries: u32,
    /// With `--max-tries` 2 or more: the wait before each retry of a transaction that met a
    /// lock: `none` (default, at once), `fixed:DURATION` (`fixed:5ms`), or `exp:MIN..MAX`
    /// doubling from MIN up to MAX, `exp:MIN..MAX,jitter` each wait drawn between zero and that
    /// (seeded)
    #[arg(long, value_name = "BACKOFF", default_value = "none", value_parser = parse_retry_backoff)]
    pub retry_backoff: crate::model::backoff::Backoff,
    /// With several clients or a rate: the length of each interval of the trial's time series
    /// (counts, latency percentiles and I/O per interval), e.g. `500ms`
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_interval)]
    pub interval: std::time::Duration,
    /// With several clients or a rate: print a line per interval on stderr while a trial runs
    /// (rate, mean latency and lag, retries, failures, skips), like pgbench -P
    #[arg(long)]
    pub progress: bool,
    /// Print the run's whole summary at its end (every column, every statement with its rate
    /// and verdict, the side-by-side table, the reporting checklist) instead of the compact
    /// answer a terminal gets by default (`litebench show --all` prints it later).
    #[arg(long)]
    pub all: bool,
    /// Also count each trial's instructions: litebench runs itself again under valgrind's
    /// callgrind, instrumenting exactly each trial's measured region, and records instructions
    /// per operation, the run's default metric (`--metric instructions`); its wall times are
    /// then under valgrind, not native. Needs valgrind; a closed loop, clients as threads
    #[arg(long, value_name = "WHAT", value_enum)]
    pub measure: Option<crate::model::measure::Measure>,
    /// What the report ranks by and gives verdicts in (default: `instructions` with `--measure
    /// instructions`, p99 in an open loop, else the workload's own metric)
    #[arg(long, value_enum)]
    pub metric: Option<crate::model::metric::Metric>,
    /// Print the plan (configurations, trials and their order, and the time they take where a
    /// duration or a rate fixes it) after every check, and exit 0 without opening a store, an
    /// engine, a filesystem or a guest, and without creating any file
    #[arg(long)]
    pub dry_run: bool,
    /// The whole command line when the run is started by another command in this process
    /// (`reproduce`): recorded in the manifest and handed to a `--guest` kernel in place of
    /// this process's own arguments.
    #[arg(skip)]
    pub command_line: Option<Vec<String>>,
}

impl RunArgs {
    /// The command line that asked for this run: `litebench run ...`.
    pub fn command_line(&self) -> Vec<String> {
        // Lossy: an argument that is not UTF-8 (a --dir path) must not panic here.
        self.command_line
            .clone()
            .unwrap_or_else(|| std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect())
    }
}

/// The values of a flag that sweeps (`--clients 1,2,4`): each a configuration of its own, in
/// the order given; one value is the run without a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis<T>(pub Vec<T>);

impl<T: Clone> Axis<T> {
    /// An axis of one value.
    pub fn one(v: T) -> Axis<T> {
        Axis(vec![v])
    }

    /// Whether it has several values (a sweep).
    pub fn sweeps(&self) -> bool {
        self.0.len() > 1
    }
}

/// Parses a comma-separated list of values for `flag`, each with `one`, refusing an empty
/// value and a value given twice (two identical configurations would be compared as if they
/// were different).
fn parse_list<T: PartialEq>(
    s: &str,
    flag: &str,
    example: &str,
    one: impl Fn(&str) -> Result<T, String>,
) -> Result<Axis<T>, String> {
    let mut values: Vec<T> = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!(
                "an empty value in the list; give values separated by single commas, e.g. {flag} {example}"
            ));
        }
        let v = one(part).map_err(|e| if s.contains(',') { format!("{part}: {e}") } else { e })?;
        if values.contains(&v) {
            return Err(format!(
                "{part} is given twice; give each value once, e.g. {flag} {example}"
            ));
        }
        values.push(v);
    }
    Ok(Axis(values))
}

/// Parses `--clients N[,N...]`.
fn parse_clients(s: &str) -> Result<Axis<u32>, String> {
    let max = crate::model::load::MAX_CLIENTS;
    parse_list(s, "--clients", "1,2,4,8", |p| match p.parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("give a number of clients from 1 to {max}")),
    })
}

/// Parses `--client-mode MODE[,MODE...]`.
fn parse_client_modes(s: &str) -> Result<Axis<crate::model::load::ClientMode>, String> {
    use clap::ValueEnum;
    parse_list(s, "--client-mode", "threads,processes", |p| {
        crate::model::load::ClientMode::from_str(p, true).map_err(|_| "give threads or processes".to_string())
    })
}

/// Parses `--connections HOW[,HOW...]`.
fn parse_connections(s: &str) -> Result<Axis<crate::model::load::Connections>, String> {
    use clap::ValueEnum;
    parse_list(s, "--connections", "per-client,shared", |p| {
        crate::model::load::Connections::from_str(p, true).map_err(|_| "give per-client or shared".to_string())
    })
}

/// Parses `--rate TPS[,TPS...]`.
fn parse_rates(s: &str) -> Result<Axis<f64>, String> {
    parse_list(s, "--rate", "100,300,1000", parse_rate)
}

/// A flag that takes one value: a list is refused with the flags that do sweep.
fn one_value(s: &str) -> Result<&str, String> {
    match s.contains(',') {
        true => Err("takes one value, not a list (only --clients, --rate, --client-mode and --connections sweep); give one value, or run once per value".into()),
        false => Ok(s),
    }
}

/// Parses `--arrival poisson|uniform`.
fn parse_arrival(s: &str) -> Result<crate::model::load::Arrival, String> {
    use clap::ValueEnum;
    crate::model::load::Arrival::from_str(one_value(s)?, true).map_err(|_| "give poisson or uniform".to_string())
}

/// Parses `--max-tries N` (1 to 1000).
fn parse_max_tries(s: &str) -> Result<u32, String> {
    match one_value(s)?.parse::<u32>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err("give a number of tries from 1 to 1000 (1: no retry)".into()),
    }
}

/// Parses `--retry-backoff none|fixed:DUR|exp:MIN..MAX[,jitter]`.
fn parse_retry_backoff(s: &str) -> Result<crate::model::backoff::Backoff, String> {
    crate::model::backoff::Backoff::parse(s).map_err(|e| e.to_string())
}

/// Parses `--rate TPS`: a positive, finite rate a clock can keep to.
fn parse_rate(s: &str) -> Result<f64, String> {
    let max = crate::model::load::MAX_RATE;
    match s.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 && r < crate::model::load::MIN_RATE => {
            Err(crate::model::load::rate_too_low(r))
        }
        Ok(r) if r.is_finite() && r > 0.0 && r <= max => Ok(r),
        Ok(r) if r.is_finite() && r > max => Err(format!(
            "above {max} transactions per second, the clock cannot keep a schedule; give a lower rate"
        )),
        _ => Err("give a rate in transactions per second above 0, e.g. 2000".into()),
    }
}

/// Parses `--interval DURATION` (10 ms or more).
fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    match crate::model::params::parse_duration(one_value(s)?) {
        Some(d) if d >= std::time::Duration::from_millis(10) => Ok(d),
        _ => Err("give a duration of 10ms or more, e.g. 500ms or 1s".into()),
    }
}

/// Parses `--latency-limit DURATION` (`5ms`, `0.5s`, above zero).
fn parse_latency_limit(s: &str) -> Result<std::time::Duration, String> {
    match crate::model::params::parse_duration(one_value(s)?) {
        Some(d) if !d.is_zero() => Ok(d),
        _ => Err("give a duration above zero, e.g. 5ms or 1s".into()),
    }
}

/// Parses `--name NAME` ([`crate::store::run_name`]).
fn parse_name(s: &str) -> Result<String, String> {
    crate::store::run_name::check(s).map_err(|e| e.to_string())?;
    Ok(s.to_string())
}

/// The settings of a `litebench run` written as its words (what follows `litebench run`), as
/// `reproduce`'s experiments hold them: the flags are parsed by the same definitions as the
/// command line's, with their defaults.
pub fn from_words(words: &[String]) -> Result<RunArgs, String> {
    use clap::Parser;
    #[derive(Parser)]
    #[command(name = "litebench run", no_binary_name = true)]
    struct Words {
        #[command(flatten)]
        run: RunArgs,
    }
    Words::try_parse_from(words).map(|w| w.run).map_err(|e| e.to_string())
}
