//! The terminal table format: aligned columns for people at a terminal.

use super::format::{Document, OutputFormat};
use super::Report;

/// `--format table`.
pub struct TableFormat;

impl OutputFormat for TableFormat {
    fn report(&self, r: &Report<'_>) -> String {
        report(r)
    }

    fn for_reading(&self) -> bool {
        true
    }

    fn document(&self, doc: &Document) -> String {
        super::layout::fit_prose(super::layout::parts(&doc.parts, false))
    }
}

/// The report as aligned text (fitted to the terminal's width, when there is one).
pub fn report(report: &Report<'_>) -> String {
    super::layout::fit_prose(super::text::document(report, false))
}
