//! The Markdown format: the terminal layout's sections as headings and pipe tables.

use super::format::{Document, OutputFormat};
use super::Report;

/// `--format markdown`.
pub struct MarkdownFormat;

impl OutputFormat for MarkdownFormat {
    fn report(&self, r: &Report<'_>) -> String {
        report(r)
    }

    fn for_reading(&self) -> bool {
        true
    }

    fn document(&self, doc: &Document) -> String {
        super::layout::parts(&doc.parts, true)
    }
}

/// The report as Markdown.
pub fn report(report: &Report<'_>) -> String {
    super::text::document(report, true)
}
