//! `litebench report`: one self-contained HTML page for stored runs (and `run --report`).
//!
//! The page is built from the runs as stored, exactly as `show` reads them, so a report
//! written at the end of a run and one written a year later from the results store agree.
//! Everything is checked and built before the file is written, and the file appears complete
//! or not at all ([`crate::base::outfile`]): a bad run id, a missing font or a full disk leaves no
//! half-written page behind, and an existing file is never replaced.

use super::show::open_store;
use crate::app::cli::ReportArgs;
use crate::base::outfile;
use crate::base::Failure;
use crate::report::html::{self, RunPage};
use crate::store::Store;
use std::path::{Path, PathBuf};

/// The default output file.
pub const DEFAULT_OUTPUT: &str = "report.html";

/// Checks, before anything is built or run, that a report can be written to `path`: it is not
/// the results store at `results`, nothing is there yet (litebench never replaces a file, nor
/// writes through a symbolic link), its directory exists and takes a new file, and the charts'
/// font is there. `named`: the user gave `path` (with `flag`, which errors name).
pub fn check_output(path: &Path, named: bool, flag: &str, results: &Path) -> Result<(), Failure> {
    outfile::refuse_same(flag, path, "the results store", results)?;
    if !named && path.symlink_metadata().is_ok() {
        let shown = path.display();
        return Err(Failure(format!(
            "{shown} exists; litebench never replaces a file, so remove it or give {flag} FILE for another file"
        )));
    }
    outfile::check(flag, path)?;
    html::font::ensure().map_err(|e| Failure(e.to_string()))?;
    Ok(())
}

/// Builds the page of each run (`None`: the newest).
fn pages(store: &mut Store, results: &Path, runs: &[Option<i64>], noise: Option<f64>) -> Result<Vec<RunPage>, Failure> {
    let mut out = Vec::new();
    let verified = store.verifications()?;
    for id in runs {
        let run = store.load(*id)?;
        let durability = crate::report::advise::verdict_lines(run.id, &run.manifest, &run.trials, &verified);
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
        if let Some(f) = html::plot_files(dir, &pages)
            .into_iter()
            .flat_map(|(svg, png)| [svg, png])
            .find(|f| outfile::same_file(f, output))
        {
            return Err(Failure(format!(
                "{flag} {}: is also the chart file {} of --plots; choose another path",
                output.display(),
                f.display()
            )));
        }
        charts = html::write_plots(dir, &pages)
            .map_err(|e| Failure(e.to_string()))?
            .len();
    }
    outfile::write(flag, output, doc.as_bytes())?;
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
    Ok(outfile::write(flag, output, doc.as_bytes())?)
}

/// Runs the `report` subcommand.
pub fn run(args: &ReportArgs) -> Result<i32, Failure> {
    let (output, named) = match &args.output {
        Some(p) => (p.clone(), true),
        None => (PathBuf::from(DEFAULT_OUTPUT), false),
    };
    let results = args.results.clone().unwrap_or_else(crate::store::default_path);
    check_output(&output, named, "-o", &results)?;
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
