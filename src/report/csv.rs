//! The CSV exporter: one row per summary line, the same fields as the JSON `summary`; unknown
//! values are empty cells.

use super::summary::SummaryRow;
use serde::Serialize;

/// Rows of any serialisable type, with a header from its field names.
pub fn rows<T: Serialize>(rows: &[T]) -> String {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).expect("report rows serialize to CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV is UTF-8")
}

/// Plain string records (the first is the header).
pub fn records(records: &[Vec<String>]) -> String {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    for r in records {
        w.write_record(r).expect("in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV is UTF-8")
}

/// The summary rows.
pub fn summary_rows(summary: &[SummaryRow]) -> String {
    rows(summary)
}
