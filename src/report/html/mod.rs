//! The HTML report: one self-contained page for one or more stored runs, with charts.
//!
//! Another exporter over the same [`Report`] model as the text formats: [`data`] picks what
//! each chart shows from the report's own figures, [`draw`] draws it with plotters (SVG for the
//! page, SVG and PNG for `--plots`), [`page`] lays out the tables and sections, and [`font`]
//! finds the one font charts are laid out with, and [`timeline`] puts a cast's roles on one
//! time axis, and [`releases`] draws SQLite's history against release date, and [`storage`] the answer
//! against `--storage`. [`lead`] is what a page of several runs shows
//! before them: a preset group's paper table, the comparison of the runs.

pub mod data;
pub mod draw;
pub mod font;
pub mod lead;
pub mod page;
pub mod releases;
pub mod storage;
pub mod timeline;

use super::Report;
use data::Figure;
use std::path::{Path, PathBuf};

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    #[error(transparent)]
    Font(#[from] font::FontError),
    #[error(transparent)]
    Draw(#[from] draw::DrawError),
    #[error(transparent)]
    Output(#[from] crate::base::outfile::OutputError),
    #[error("--plots {path}: {reason}")]
    Plots { path: String, reason: String },
}

/// A run's report with its figures drawn as SVG.
pub struct RunPage {
    pub id: i64,
    pub title: String,
    pub body: String,
    pub figures: Vec<(Figure, String)>,
}

/// Builds one run's section: extracts and draws its figures. `durability` holds one line per
/// configuration with a stored `verify-durability` verdict (shown beside the summary).
pub fn run_page(report: &Report<'_>, durability: &[String]) -> Result<RunPage, HtmlError> {
    font::ensure()?;
    let mut figures = Vec::new();
    for f in data::figures(report) {
        let svg = draw::svg(&f)?;
        figures.push((f, svg));
    }
    Ok(RunPage {
        id: report.run.id,
        title: format!(
            "Run {}{} — {} — {}",
            report.run.id,
            report.run.name.as_ref().map_or(String::new(), |n| format!(" ({n})")),
            report.manifest.workload,
            report.run.status
        ),
        body: page::run_section(report, &figures, durability),
        figures,
    })
}

/// The whole HTML document of the runs' pages.
pub fn document(pages: &[RunPage]) -> String {
    let sections: Vec<(i64, String, String)> = pages.iter().map(|p| (p.id, p.title.clone(), p.body.clone())).collect();
    page::document(&sections)
}

/// The files `--plots` writes for these pages: `run<ID>-<chart>.svg` and `.png`.
pub fn plot_files(dir: &Path, pages: &[RunPage]) -> Vec<(PathBuf, PathBuf)> {
    pages
        .iter()
        .flat_map(|p| {
            p.figures.iter().map(move |(f, _)| {
                let stem = format!("run{}-{}", p.id, f.id);
                (dir.join(format!("{stem}.svg")), dir.join(format!("{stem}.png")))
            })
        })
        .collect()
}

/// `--plots DIR`: every chart as SVG and PNG. Refuses (before writing anything) when one of
/// the files exists already, even as a dangling symbolic link; creates `dir` when missing.
/// Each file appears complete or not at all ([`crate::base::outfile`]). Returns the files written.
pub fn write_plots(dir: &Path, pages: &[RunPage]) -> Result<Vec<PathBuf>, HtmlError> {
    use crate::base::outfile::{self, OutputError};
    let fail = |reason: String| HtmlError::Plots {
        path: dir.display().to_string(),
        reason,
    };
    if dir.exists() && !dir.is_dir() {
        return Err(fail("not a directory".into()));
    }
    let files = plot_files(dir, pages);
    for (svg, png) in &files {
        for f in [svg, png] {
            if let Ok(m) = f.symlink_metadata() {
                let (flag, path) = ("--plots".to_string(), f.clone());
                return Err(HtmlError::Output(if m.file_type().is_symlink() {
                    OutputError::Symlink { flag, path }
                } else {
                    OutputError::Exists { flag, path }
                }));
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create it: {e}")))?;
    let mut written = Vec::new();
    for (p, (svg_path, png_path)) in pages.iter().flat_map(|p| p.figures.iter()).zip(&files) {
        let (fig, svg) = p;
        outfile::write("--plots", svg_path, svg.as_bytes())?;
        written.push(svg_path.clone());
        outfile::write("--plots", png_path, &draw::png(fig)?)?;
        written.push(png_path.clone());
    }
    Ok(written)
}
