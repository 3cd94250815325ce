//! Reproducing a seed paper (`litebench reproduce TARGET`): run its experiments, store them,
//! and write a report that starts with the paper's values beside this machine's.
//!
//! Each experiment is a `litebench run` command line parsed by the same parser and run by the
//! same function as `run` (in this process), so what `reproduce` measures is exactly what the
//! equivalent `run` would; the report names those command lines. An experiment that cannot
//! run here (no root for loop devices) or fails does not stop the others: the report says so
//! and the exit code is 2.

use crate::base::Failure;
use crate::bench::flags::{DirArg, NoiseArg, ResultsArg};
use crate::bench::observer::RunObserver;
use crate::bench::{session, settings};
use crate::report::DEFAULT_NOISE;
use crate::reproduce::measure::{Outcome, RunData};
use crate::reproduce::{self, section, Experiment, Needs, Scale, SqliteBuild};
use crate::store::{self, Store};
use crate::sys::signals::EXIT_INTERRUPTED;
use clap::Args;
use std::path::{Path, PathBuf};

/// What `litebench reproduce` takes: the target, its scale, and where runs and the report go.
#[derive(Debug, Args)]
#[command(mut_arg("results", |a| a.help(
    "Results store for the runs; default $LITEBENCH_RESULTS or ~/.local/share/litebench/results.db"
)))]
#[command(mut_arg("dir", |a| a.help("Directory under which each run makes its scratch directory (default ./litebench-scratch)")))]
#[command(mut_arg("noise", |a| a.help("Noise threshold in percent for the verdicts (default 2)")))]
pub struct ReproduceArgs {
    /// The paper: apsys17 (APSys'17: Figures 1-4, Table 1, fsync counts), speed2002 (SQLite's
    /// 2002 speed comparison: 15 tests on SQLite sync/nosync, PostgreSQL, MariaDB), vldb22
    /// (VLDB'22: TATP, SSB with Bloom filters, BLOB, SQLite's footprint) or linaro2014 (Linaro's
    /// 2014 page: four Android apps on ext4 and F2FS, three I/O schedulers, a SQLite upgrade).
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// The paper's sizes and trials instead of the scaled-down default (about 10 minutes).
    #[arg(long)]
    pub full: bool,
    /// (internal) Seconds per target, for tests.
    #[arg(long, hide = true, conflicts_with = "full")]
    pub tiny: bool,
    /// HTML report to write, a new file: an existing file is never replaced. Default:
    /// reproduce-TARGET.html in the current directory.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub results: ResultsArg,
    #[command(flatten)]
    pub dir: DirArg,
    /// Workload parameter for every experiment whose workloads have it, replacing the
    /// experiment's own value, e.g. `value_size=200`; a warning names the experiments it does
    /// not apply to, and one no experiment's workload has is an error.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    #[command(flatten)]
    pub noise: NoiseArg,
}

/// Refuses a target that does not exist, in one line.
fn check_target(name: &str) -> Result<(), Failure> {
    if reproduce::IMPLEMENTED.contains(&name) {
        return Ok(());
    }
    Err(Failure(format!(
        "reproduce {name}: unknown target; targets: {}",
        reproduce::IMPLEMENTED.join(", ")
    )))
}

/// Makes sure each library of `builds` is in `build-sqlite`'s cache under its default name,
/// compiling the missing ones (sources from the cache, the npm registry or sqlite.org). The
/// error says what could not be had.
fn ensure_builds(builds: &[SqliteBuild]) -> Result<(), String> {
    use crate::engines::sqlite::compiled::compiler::OptLevel;
    use crate::engines::sqlite::compiled::{source, BuildCache};
    let cache = BuildCache::from_env().map_err(|e| e.to_string())?;
    for b in builds {
        let (r, name) = (b.release, b.name());
        if cache.list().iter().any(|c| c.name == name) {
            continue;
        }
        let needs = format!("needs a build of SQLite {r} (litebench build-sqlite {r} -O {})", b.opt);
        let amalgamation = source::resolve(r, &cache.sources_dir()).map_err(|e| format!("{needs}: {e}"))?;
        let announce = |flags: &[String]| {
            crate::errln!(
                "reproduce: compiling SQLite {r} from {} with {} (once; kept in the cache)",
                amalgamation.path.display(),
                flags.join(" ")
            )
        };
        let level = OptLevel::parse(b.opt).map_err(|e| e.to_string())?;
        cache
            .build(&amalgamation, level, &[], Some(&name), &announce)
            .map_err(|e| format!("{needs}: {e}"))?;
    }
    Ok(())
}

/// The runs `ids` (stored by experiment `exp`), summarised as `show` summarises them.
fn runs_of(
    path: &Path,
    exp: &'static str,
    ids: &[i64],
    noise: Option<f64>,
) -> Result<(Vec<RunData>, Option<String>), Failure> {
    if ids.is_empty() {
        return Ok((Vec::new(), None));
    }
    let mut store = Store::open_read(path)?;
    let mut out = Vec::new();
    let mut machine = None;
    for &id in ids {
        let run = store.load(Some(id))?;
        let m = &run.manifest.environment.machine;
        // A run inside a guest kernel describes the guest; "here" is the host.
        if run.manifest.guest.is_none() && machine.is_none() {
            machine = Some(format!(
                "{} x{}, {} MiB, {}, Linux {}",
                m.cpu_model.as_deref().unwrap_or("unknown CPU"),
                m.cpu_count,
                m.memory_bytes.map_or("?".into(), |b| (b >> 20).to_string()),
                m.os.as_deref().unwrap_or("unknown OS"),
                m.kernel.as_deref().unwrap_or("(unknown kernel)")
            ));
        }
        let report = crate::report::stored::stored_report(&run, path, noise);
        out.push(RunData {
            id,
            experiment: exp,
            configs: run.manifest.configs.clone(),
            summary: report.summary.clone(),
            seed: crate::report::stats::Statistics::of(&run.manifest, noise).bootstrap_seed,
            trials: run.trials.clone(),
            templates: run.templates.clone(),
        });
    }
    Ok((out, machine))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The `run` command line of an experiment with the reproduction's store, scratch directory
/// and extra parameters: what the manifest records as the command that made the run (and what
/// a reader types to run the experiment alone).
fn run_argv(e: &Experiment, args: &ReproduceArgs, results: &Path) -> Vec<String> {
    let mut argv = vec!["litebench".to_string(), "run".to_string()];
    argv.extend(e.args.iter().cloned());
    for p in &args.params {
        argv.push("--param".into());
        argv.push(p.clone());
    }
    argv.extend(["--results".into(), results.display().to_string(), "--quiet".into()]);
    if let Some(d) = &args.dir.value {
        argv.extend(["--dir".into(), d.display().to_string()]);
    }
    argv
}

/// Runs one experiment, its run reported through `observer`; the second value is true when it
/// was interrupted.
fn experiment(
    e: &Experiment,
    args: &ReproduceArgs,
    results: &Path,
    observer: &mut dyn RunObserver,
) -> Result<(Outcome, bool), Failure> {
    if e.needs == Needs::Root && !is_root() {
        return Ok((
            Outcome::Skipped("needs root (loop devices and mounts for --fs); run litebench reproduce as root".into()),
            false,
        ));
    }
    if e.needs == Needs::Duckdb {
        // The default release, fetched once per machine; a machine that cannot fetch it skips
        // only the DuckDB experiments.
        if let Err(why) = crate::engines::duckdb::resolve(None, &|line| crate::errln!("{line}")) {
            return Ok((Outcome::Skipped(why.0), false));
        }
    }
    if let Needs::SqliteBuilds(builds) = e.needs {
        if let Err(why) = ensure_builds(builds) {
            return Ok((Outcome::Skipped(why), false));
        }
    }
    // The experiment's own settings, then the reproduction's: its store, scratch directory and
    // extra parameters, set on the typed settings the session takes.
    let mut settings = match settings::from_words(&e.args) {
        Ok(s) => s,
        Err(err) => {
            return Ok((
                Outcome::Failed(format!("{}: {}", e.id, err.lines().next().unwrap_or(""))),
                false,
            ))
        }
    };
    super::params::apply(&mut settings, &args.params);
    settings.results.value = Some(results.to_path_buf());
    settings.quiet = true;
    settings.dir.value.clone_from(&args.dir.value);
    settings.command_line = Some(run_argv(e, args, results));
    crate::errln!("reproduce: {} — {}", e.id, e.title);
    let ended = session::run(crate::bench::plan::plan_to_run(&settings), observer);
    let (runs, _) = runs_of(results, e.id, &ended.run_ids, args.noise.value)?;
    Ok(match ended.result {
        Ok(EXIT_INTERRUPTED) => (
            Outcome::Ran {
                runs,
                error: Some("interrupted".into()),
            },
            true,
        ),
        Ok(0) => (Outcome::Ran { runs, error: None }, false),
        Ok(code) => (
            Outcome::Ran {
                runs,
                error: Some(format!("exit code {code}")),
            },
            false,
        ),
        Err(f) if runs.is_empty() => (Outcome::Failed(f.line()), false),
        Err(f) => (
            Outcome::Ran {
                runs,
                error: Some(f.line()),
            },
            false,
        ),
    })
}

/// Reproduces the target `args` names, each experiment's run reported through `observer`.
pub fn run(args: &ReproduceArgs, observer: &mut dyn RunObserver) -> Result<i32, Failure> {
    check_target(&args.target)?;
    let scale = match (args.full, args.tiny) {
        (true, _) => Scale::Full,
        (_, true) => Scale::Tiny,
        _ => Scale::Default,
    };
    let target = reproduce::target(&args.target, scale)
        .ok_or_else(|| Failure(format!("reproduce {}: no such target", args.target)))?;
    let (output, named) = match &args.report {
        Some(p) => (p.clone(), true),
        None => (PathBuf::from(format!("reproduce-{}.html", target.name)), false),
    };
    let results = args.results.value.clone().unwrap_or_else(store::default_path);
    crate::report::stored::check_output(&output, named, "--report", &results)?;
    store::check_path(&results, args.results.value.is_some())?;
    if let Some(d) = &args.dir.value {
        if !d.is_dir() {
            return Err(Failure(format!(
                "--dir {}: no such directory; create it or give another",
                d.display()
            )));
        }
    }
    let parsed: Vec<(&str, settings::RunArgs)> = target
        .experiments
        .iter()
        .filter_map(|e| settings::from_words(&e.args).ok().map(|s| (e.id, s)))
        .collect();
    for w in super::params::check(&parsed, &args.params)? {
        crate::errln!("{w}");
    }
    let started = std::time::Instant::now();
    let mut outcomes: Vec<(&Experiment, Outcome)> = Vec::new();
    let mut machine = None;
    let mut interrupted = false;
    for e in &target.experiments {
        let (o, stop) = experiment(e, args, &results, observer)?;
        if machine.is_none() {
            if let Outcome::Ran { runs, .. } = &o {
                let ids: Vec<i64> = runs.iter().map(|r| r.id).collect();
                machine = runs_of(&results, e.id, &ids, args.noise.value)?.1;
            }
        }
        outcomes.push((e, o));
        if stop {
            interrupted = true;
            break;
        }
    }
    let noise = args.noise.value.unwrap_or(DEFAULT_NOISE);
    let rows = section::rows(&target, &outcomes, noise);
    let elapsed = started.elapsed().as_secs_f64();
    let in_guest: Vec<&str> = outcomes
        .iter()
        .filter(|(e, o)| e.args.iter().any(|a| a == "--guest") && matches!(o, Outcome::Ran { .. }))
        .map(|(e, _)| e.id)
        .collect();
    let guest_note = if in_guest.is_empty() {
        String::new()
    } else {
        format!(
            "; experiments {} ran inside a user-mode Linux guest kernel on this machine (their manifests describe it)",
            in_guest.join(", ")
        )
    };
    let machine = format!(
        "{}{guest_note}; all experiments took {:.0} s",
        machine.unwrap_or_else(|| "no run stored outside a guest".into()),
        elapsed
    );
    let first = section::html(&target, scale.name(), &outcomes, &rows, &machine);
    let ids: Vec<(i64, String)> = outcomes
        .iter()
        .flat_map(|(e, o)| match o {
            Outcome::Ran { runs, .. } => runs.iter().map(|r| (r.id, format!("experiment {}", e.id))).collect(),
            _ => Vec::new(),
        })
        .collect();
    crate::report::stored::write_with_first(
        &Some(results.clone()),
        &ids,
        &output,
        "--report",
        &first,
        args.noise.value,
    )?;
    crate::out!("{}", section::text(&target, &outcomes, &rows));
    crate::errln!("wrote {} ({:.0} s)", output.display(), elapsed);
    if interrupted {
        return Ok(EXIT_INTERRUPTED);
    }
    let not_ran: Vec<&str> = outcomes
        .iter()
        .filter(|(_, o)| !matches!(o, Outcome::Ran { error: None, .. }))
        .map(|(e, _)| e.id)
        .collect();
    if !not_ran.is_empty() {
        crate::errln!(
            "error: an experiment failed or could not run here: {} (the report says why)",
            not_ran.join(", ")
        );
        return Ok(2);
    }
    Ok(0)
}
