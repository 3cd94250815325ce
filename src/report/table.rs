//! The terminal table exporter.

use super::Report;

/// The report as aligned text.
pub fn report(report: &Report<'_>) -> String {
    super::text::document(report, false)
}
