//! What the run prints and writes besides its store: the format, `--export` and `--report`
//! files checked before anything runs, and `--name` checked free in the store.

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::report::exports;
use crate::report::exports::Export;
use crate::report::Format;
use crate::store::Store;
use std::path::Path;
use std::path::PathBuf;

/// `--name`, `--report`, `--export` and the rest of what is printed, each checked.
pub(super) fn plan_output(args: &RunArgs, runs: usize, results: &Path) -> Result<Output, Failure> {
    if let Some(name) = &args.name {
        name_is_free(name, runs, results)?;
    }
    if let Some(file) = &args.report {
        crate::report::stored::check_output(file, true, "--report", results)?;
    }
    if !args.exports.is_empty() {
        if args.guest {
            return Err(Failure(
                "--export: not with --guest (the runs come back from the guest after it stops); write the files afterwards with `litebench show RUN --export FILE`".into(),
            ));
        }
        let others: Vec<(&str, &Path)> = args.report.iter().map(|r| ("--report", r.as_path())).collect();
        exports::check(&args.exports, results, &others)?;
    }
    Ok(Output {
        format: args.format.value,
        exports: args.exports.clone(),
        report: args.report.clone(),
        noise: args.noise.value,
        name: args.name.clone(),
        quiet: args.quiet,
        metric: args.metric,
    })
}

/// Refuses `--name NAME` before anything runs when another stored run has it, or when the run
/// would store several runs (a name names one). An existing store is read, never written.
fn name_is_free(name: &str, runs: usize, results: &Path) -> Result<(), Failure> {
    if runs > 1 {
        return Err(Failure(format!(
            "--name {name}: this run stores {runs} runs (one per workload and parameters), and a name names one run; run them one at a time to name each, or leave out --name"
        )));
    }
    if results.is_file() {
        let mut store = Store::open_read(results)?;
        // A run that failed before keeping a trial gives its name up to this one.
        let held = match store.find_name(name)? {
            Some(id) if !store.gives_name_up(id)? => Some(id),
            _ => None,
        };
        if let Some(id) = held {
            return Err(Failure(format!(
                "--name {name}: run {id} in results store {} already has that name; names are unique per store, so choose another",
                results.display()
            )));
        }
    }
    Ok(())
}

/// What a run prints and writes besides its store.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// `--format`.
    pub format: Format,
    /// `--export FILE`s.
    pub exports: Vec<Export>,
    /// `--report FILE`: the HTML page.
    pub report: Option<PathBuf>,
    /// `--noise` (`None`: the default threshold).
    pub noise: Option<f64>,
    /// `--name`.
    pub name: Option<String>,
    /// `--quiet`: no progress bar.
    pub quiet: bool,
    /// `--metric` (`None`: the run's headline metric).
    pub metric: Option<crate::model::metric::Metric>,
}
