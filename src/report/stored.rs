//! Reports of stored runs: opening the store a read-only command names, the report of a run as
//! stored, and the HTML page of stored runs written to a new file. `show`, `report`, `run
//! --report`, a run in the guest kernel and `reproduce` all go through here, so a report
//! written at the end of a run and one written a year later from the store agree.

use crate::base::outfile;
use crate::base::Failure;
use crate::report::html::{self, RunPage};
use crate::report::summary::SummaryRow;
use crate::report::{Input, Report, RunHeader};
use crate::store::{self, Store, StoredRun};
use std::path::{Path, PathBuf};

/// Opens the results store a read-only command names, refusing a path with none.
pub fn open_store(results: &Option<PathBuf>) -> Result<(Store, PathBuf), Failure> {
    let path = results.clone().unwrap_or_else(store::default_path);
    if !path.is_file() {
        // Named by where the path came from: the flag, the variable, or the default.
        let from = match results {
            Some(_) => "--results".to_string(),
            None if std::env::var_os(store::ENV_VAR).is_some_and(|v| !v.is_empty()) => {
                format!("{}=", store::ENV_VAR)
            }
            None => "the default results store".to_string(),
        };
        let sep = if from.ends_with('=') { "" } else { " " };
        return Err(Failure(format!(
            "{from}{sep}{}: no results store there; run `litebench run` first or give --results PATH",
            path.display()
        )));
    }
    Ok((Store::open_read(&path)?, path))
}

/// The header of a stored run.
pub fn header(run: &StoredRun, path: &Path) -> RunHeader {
    RunHeader {
        id: run.id,
        name: run.name.clone(),
        status: run.status.clone(),
        error: run.error.clone(),
        finished_at: run.finished_at.clone(),
        results: path.display().to_string(),
    }
}

/// The report of a stored run as `show` prints it by default (its own metric, the first
/// configuration as baseline), with noise threshold `noise` (None: the run's own).
pub fn stored_report<'a>(run: &'a StoredRun, path: &Path, noise: Option<f64>) -> Report<'a> {
    stored_report_in(run, path, noise, None)
}

/// [`stored_report`] ranked by `metric` (`report --metric`; None: the run's headline metric).
pub fn stored_report_in<'a>(
    run: &'a StoredRun,
    path: &Path,
    noise: Option<f64>,
    metric: Option<crate::report::Metric>,
) -> Report<'a> {
    Report::build(Input {
        run: header(run, path),
        manifest: &run.manifest,
        trials: &run.trials,
        templates: &run.templates,
        noise,
        metric,
        baseline: 0,
        process_syncs: None,
    })
}

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

/// Loads each run (`None`: the newest).
fn load(store: &mut Store, runs: &[Option<i64>]) -> Result<Vec<StoredRun>, Failure> {
    runs.iter().map(|id| Ok(store.load(*id)?)).collect()
}

/// Builds the page of each run, and returns each run's summary rows with it.
fn pages(
    store: &mut Store,
    results: &Path,
    runs: &[StoredRun],
    noise: Option<f64>,
    metric: Option<crate::report::Metric>,
) -> Result<(Vec<RunPage>, Vec<Vec<SummaryRow>>), Failure> {
    let (mut out, mut summaries) = (Vec::new(), Vec::new());
    let verified = store.verifications()?;
    for run in runs {
        let durability = crate::report::advise::verdict_lines(run.id, &run.manifest, &run.trials, &verified);
        let report = stored_report_in(run, results, noise, metric);
        out.push(html::run_page(&report, &durability).map_err(|e| Failure(e.to_string()))?);
        summaries.push(report.summary);
    }
    Ok((out, summaries))
}

/// The comparison of the runs (`compare`'s verdict table), as a titled HTML part, when two of
/// them compare.
fn comparison(runs: &[StoredRun], noise: Option<f64>, name_others: bool) -> Option<String> {
    let refs: Vec<&StoredRun> = runs.iter().collect();
    html::lead::runs_comparison(&refs, noise, name_others).map(|c| {
        format!(
            "<h2 id=\"comparison\">Comparison of the runs (run {} as the baseline)</h2>\n{c}",
            runs[0].id
        )
    })
}

/// Writes the report of `runs` from the store at `results` to `output` (already checked with
/// [`check_output`]), and the charts' files into `plots` when given. Returns how many chart
/// files were written. Runs whose session compared presets (`run --preset table1`, as their
/// manifests record) lead with that comparison, a group's paper table (Table 1) at the top;
/// then the comparison of the runs; then the runs themselves.
pub fn write(
    results: &Option<PathBuf>,
    runs: &[Option<i64>],
    output: &Path,
    flag: &str,
    plots: Option<&Path>,
    noise: Option<f64>,
    metric: Option<crate::report::Metric>,
) -> Result<usize, Failure> {
    let (mut store, path) = open_store(results)?;
    let mut loaded = load(&mut store, runs)?;
    // A run named twice is shown once.
    let mut seen = Vec::new();
    loaded.retain(|r| {
        let first = !seen.contains(&r.id);
        seen.push(r.id);
        first
    });
    let (pages, summaries) = pages(&mut store, &path, &loaded, noise, metric)?;
    let refs: Vec<&StoredRun> = loaded.iter().collect();
    let lead = html::lead::stored_presets(&refs, &summaries);
    let mut first = String::new();
    if let Some((title, body)) = &lead {
        first += &format!("<h2>{}</h2>\n{body}", html::page::esc(title));
    }
    if let Some(c) = comparison(&loaded, noise, true) {
        first += &c;
    }
    let mut sections: Vec<(i64, String, String)> = Vec::new();
    if !first.is_empty() {
        let title = lead.as_ref().map_or("Comparison of the runs", |(t, _)| t.as_str());
        sections.push((
            0,
            title.to_string(),
            format!("<section id=\"run-0\">\n{first}</section>\n"),
        ));
    }
    sections.extend(pages.iter().map(|p| (p.id, p.title.clone(), p.body.clone())));
    let doc = html::page::document(&sections);
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
pub fn write_after(
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
        let loaded = load(&mut store, runs)?;
        // The runs that compare (same workload and parameters), compared before the runs.
        if let Some(c) = comparison(&loaded, noise, false) {
            sections[0].2 += &format!("<section id=\"runs-compared\">\n{c}</section>\n");
        }
        for p in pages(&mut store, &path, &loaded, noise, None)?.0 {
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
