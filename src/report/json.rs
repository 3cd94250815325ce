//! The JSON format: the model as it is, unknown values as `null`.

use super::format::{Document, OutputFormat};
use super::Report;
use serde::Serialize;

/// `--format json`.
pub struct JsonFormat;

impl OutputFormat for JsonFormat {
    fn report(&self, r: &Report<'_>) -> String {
        report(r)
    }

    fn document(&self, doc: &Document) -> String {
        doc.json.clone()
    }
}

/// Any report model, pretty-printed with a final newline.
pub fn value<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("report models serialize") + "\n"
}

/// The whole report.
pub fn report(report: &Report<'_>) -> String {
    value(report)
}
