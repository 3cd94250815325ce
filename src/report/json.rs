//! The JSON exporter: the report model as it is, unknown values as `null`.

use super::Report;
use serde::Serialize;

/// Any report model, pretty-printed with a final newline.
pub fn value<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("report models serialize") + "\n"
}

/// The whole report.
pub fn report(report: &Report<'_>) -> String {
    value(report)
}
