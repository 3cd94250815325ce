//! The Markdown exporter: the terminal report's sections as headings and pipe tables.

use super::Report;

/// The report as Markdown.
pub fn report(report: &Report<'_>) -> String {
    super::text::document(report, true)
}
