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
