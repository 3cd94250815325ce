//! `litebench report`: one self-contained HTML page for stored runs (and `run --report`).
//!
//! The page is built from the runs as stored, exactly as `show` reads them, so a report
//! written at the end of a run and one written a year later from the results store agree.
//! Everything is checked and built before the file is written: a bad run id or a missing
//! font leaves no half-written page behind.

use super::show::open_store;
use super::Failure;
use crate::cli::ReportArgs;
use crate::report::html::{self, RunPage};
use crate::store::Store;
use std::path::{Path, PathBuf};

/// The default output file, never overwritten (the user did not name it).
pub const DEFAULT_OUTPUT: &str = "report.html";

/// Checks, before anything is built or run, that a report can be written to `path`: its
/// directory exists, it is not a directory, it does not exist yet when the user did not name
/// it, and the charts' font is there. `flag` names the option in errors.
pub fn check_output(path: &Path, named: bool, flag: &str) -> Result<(), Failure> {
    let shown = path.display();
    if path.is_dir() {
        return Err(Failure(format!(
            "{flag} {shown}: is a directory; give a file name such as {shown}/report.html"
        )));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(Failure(format!(
            "{flag} {shown}: directory {} does not exist; create it or give another path",
            parent.display()
        )));
    }
    if !named && path.exists() {
        return Err(Failure(format!(
            "{shown} exists; give -o {shown} to overwrite it, or -o FILE for another file"
        )));
    }
    html::font::ensure().map_err(|e| Failure(e.to_string()))?;
    Ok(())
}

/// Builds the page of each run (`None`: the newest).
fn pages(store: &mut Store, results: &Path, runs: &[Option<i64>], noise: Option<f64>) -> Result<Vec<RunPage>, Failure> {
    let mut out = Vec::new();
    let verified = store.verifications()?;
    for id in runs {
        let run = store.load(*id)?;
        let durability = crate::durability::advise::verdict_lines(run.id, &run.manifest, &run.trials, &verified);
        let report = super::show::stored_report(&run, results, noise);
        out.push(html::run_page(&report, &durability).map_err(|e| Failure(e.to_string()))?);
    }
    Ok(out)
}

/// Writes the report of `runs` from the store at `results` to `output` (already checked with
/// [`check_output`]), and the charts' files into `plots` when given. Returns how many chart
/// files were written.
pub fn write(
    results: &Option<PathBuf>,
    runs: &[Option<i64>],
    output: &Path,
    flag: &str,
    plots: Option<&Path>,
    noise: Option<f64>,
) -> Result<usize, Failure> {
    let (mut store, path) = open_store(results)?;
    let pages = pages(&mut store, &path, runs, noise)?;
    let doc = html::document(&pages);
    let mut charts = 0;
    if let Some(dir) = plots {
        charts = html::write_plots(dir, &pages)
            .map_err(|e| Failure(e.to_string()))?
            .len();
    }
    std::fs::write(output, doc).map_err(|e| Failure(format!("{flag} {}: cannot write: {e}", output.display())))?;
    Ok(charts)
}

/// Writes the report of `runs` to `output` with `first` (an HTML section) before the runs'
/// pages: `reproduce`'s paper-against-here section.
pub fn write_with_first(
    results: &Option<PathBuf>,
    runs: &[(i64, String)],
    output: &Path,
    flag: &str,
    first: &str,
    noise: Option<f64>,
) -> Result<(), Failure> {
    let ids: Vec<Option<i64>> = runs.iter().map(|(id, _)| Some(*id)).collect();
    write_after(results, &ids, output, flag, ("Paper against here", first), noise, runs)
}

/// Writes the report of `runs` after a first section (title, HTML body).
fn write_after(
    results: &Option<PathBuf>,
    runs: &[Option<i64>],
    output: &Path,
    flag: &str,
    (title, first): (&str, &str),
    noise: Option<f64>,
    labels: &[(i64, String)],
) -> Result<(), Failure> {
    let mut sections = vec![(0, title.to_string(), first.to_string())];
    if !runs.is_empty() {
        let (mut store, path) = open_store(results)?;
        for p in pages(&mut store, &path, runs, noise)? {
            // A label (the reproduction's experiment) tells apart runs of the same workload.
            let title = match labels.iter().find(|(id, _)| *id == p.id) {
                Some((_, label)) => format!("{} — {label}", p.title),
                None => p.title,
            };
            sections.push((p.id, title, p.body));
        }
    }
    let doc = html::page::document(&sections);
    std::fs::write(output, doc).map_err(|e| Failure(format!("{flag} {}: cannot write: {e}", output.display())))
}

/// Runs the `report` subcommand.
pub fn run(args: &ReportArgs) -> Result<i32, Failure> {
    let (output, named) = match &args.output {
        Some(p) => (p.clone(), true),
        None => (PathBuf::from(DEFAULT_OUTPUT), false),
    };
    check_output(&output, named, "-o")?;
    if let Some(dir) = &args.plots {
        if dir.exists() && !dir.is_dir() {
            return Err(Failure(format!("--plots {}: not a directory", dir.display())));
        }
    }
    if let Some(name) = &args.sweep {
        let (mut store, _) = open_store(&args.results)?;
        let (text, ids) = super::show::sweep(&mut store, name, crate::report::Format::Table)?;
        drop(store);
        let ids: Vec<Option<i64>> = ids.into_iter().map(Some).collect();
        let body = format!("<pre>{}</pre>\n", html::page::esc(&text));
        write_after(
            &args.results,
            &ids,
            &output,
            "-o",
            (&format!("Sweep {name}"), &body),
            args.noise,
            &[],
        )?;
        crate::errln!("wrote {}", output.display());
        return Ok(0);
    }
    // Each run once, in the order given.
    let mut runs: Vec<Option<i64>> = Vec::new();
    for id in &args.runs {
        if !runs.contains(&Some(*id)) {
            runs.push(Some(*id));
        }
    }
    if runs.is_empty() {
        runs.push(None);
    }
    let charts = write(&args.results, &runs, &output, "-o", args.plots.as_deref(), args.noise)?;
    if let Some(dir) = &args.plots {
        crate::errln!("wrote {charts} chart files into {}", dir.display());
    }
    crate::errln!("wrote {}", output.display());
    Ok(0)
}
