//! `litebench report`: one self-contained HTML page for stored runs (and `run --report`).
//!
//! The page is built from the runs as stored, exactly as `show` reads them, so a report
//! written at the end of a run and one written a year later from the results store agree.
//! Everything is checked and built before the file is written, and the file appears complete
//! or not at all ([`crate::base::outfile`]): a bad run id, a missing font or a full disk leaves no
//! half-written page behind, and an existing file is never replaced.

use crate::app::cli::ReportArgs;
use crate::base::Failure;
use crate::report::html;
use crate::report::stored::{check_output, open_store, write, write_after};
use std::path::PathBuf;

/// The default output file.
pub const DEFAULT_OUTPUT: &str = "report.html";

/// Without `-o`: `report.html`, or the first of `report-2.html`, `report-3.html`, ... that
/// nothing is at yet (a symbolic link counts as something), so a second plain `report` writes
/// a second page instead of failing; litebench still never replaces a file.
fn free_default() -> PathBuf {
    (1..=999)
        .map(|n| match n {
            1 => PathBuf::from(DEFAULT_OUTPUT),
            n => PathBuf::from(format!("report-{n}.html")),
        })
        .find(|p| p.symlink_metadata().is_err())
        .unwrap_or_else(|| PathBuf::from(DEFAULT_OUTPUT))
}

/// Runs the `report` subcommand.
pub fn run(args: &ReportArgs) -> Result<i32, Failure> {
    let (output, named) = match &args.output {
        Some(p) => (p.clone(), true),
        None => (free_default(), false),
    };
    let results = args.results.value.clone().unwrap_or_else(crate::store::default_path);
    check_output(&output, named, "-o", &results)?;
    if let Some(dir) = &args.plots {
        if dir.exists() && !dir.is_dir() {
            return Err(Failure(format!("--plots {}: not a directory", dir.display())));
        }
    }
    if let Some(name) = &args.sweep {
        let (mut store, _) = open_store(&args.results.value)?;
        let (doc, ids) = super::show::sweep(&mut store, name)?;
        let text = crate::report::format::render(&doc, crate::report::Format::Table);
        drop(store);
        let ids: Vec<Option<i64>> = ids.into_iter().map(Some).collect();
        let body = format!(
            "<section id=\"run-0\">\n<h2>Sweep {}</h2>\n<pre>{}</pre>\n</section>\n",
            html::page::esc(name),
            html::page::esc(&text)
        );
        write_after(
            &args.results.value,
            &ids,
            &output,
            "-o",
            (&format!("Sweep {name}"), &body),
            args.noise.value,
            &[],
        )?;
        crate::errln!("wrote {}{}", output.display(), taken_note(&output, named));
        return Ok(0);
    }
    // Each run once, in the order given, names read as the ids they stand for.
    let mut runs: Vec<Option<i64>> = Vec::new();
    if !args.runs.is_empty() {
        let (mut store, _) = open_store(&args.results.value)?;
        for word in &args.runs {
            let id = store.resolve_word(word)?;
            if !runs.contains(&Some(id)) {
                runs.push(Some(id));
            }
        }
    }
    if runs.is_empty() {
        runs.push(None);
    }
    let charts = write(
        &args.results.value,
        &runs,
        &output,
        "-o",
        args.plots.as_deref(),
        args.noise.value,
        args.metric,
    )?;
    if let Some(dir) = &args.plots {
        crate::errln!("wrote {charts} chart files into {}", dir.display());
    }
    crate::errln!("wrote {}{}", output.display(), taken_note(&output, named));
    Ok(0)
}

/// `(report.html exists)` when the default name was taken and another was chosen.
fn taken_note(output: &std::path::Path, named: bool) -> String {
    if named || output == std::path::Path::new(DEFAULT_OUTPUT) {
        String::new()
    } else {
        format!(" ({DEFAULT_OUTPUT} exists; litebench never replaces a file)")
    }
}
