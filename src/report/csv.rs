//! The CSV format: for a run, one row per summary line with the same fields as the JSON
//! `summary`; for any other document its table, or its tables in one (a leading `table` column
//! naming each row's table, and every table's columns). Unknown values are empty cells.

use super::format::{Document, OutputFormat};
use super::summary::SummaryRow;
use super::Report;
use serde::Serialize;

/// `--format csv`.
pub struct CsvFormat;

impl OutputFormat for CsvFormat {
    fn report(&self, r: &Report<'_>) -> String {
        summary_rows(&r.summary)
    }

    fn document(&self, doc: &Document) -> String {
        let tables: Vec<_> = doc.tables().collect();
        // Cells are trimmed: the text formats indent some to show nesting.
        let cells = |row: &[String]| -> Vec<String> { row.iter().map(|c| c.trim().to_string()).collect() };
        if let [t] = tables[..] {
            let mut out = vec![t.headers.clone()];
            out.extend(t.rows.iter().map(|r| cells(r)));
            return records(&out);
        }
        let mut columns: Vec<&String> = Vec::new();
        for h in tables.iter().flat_map(|t| &t.headers) {
            if !columns.contains(&h) {
                columns.push(h);
            }
        }
        let mut header = vec!["table".to_string()];
        header.extend(columns.iter().map(|c| c.to_string()));
        let mut out = vec![header];
        for t in &tables {
            for r in &t.rows {
                let r = cells(r);
                let mut line = vec![t.name.clone()];
                line.extend(columns.iter().map(|c| {
                    t.headers
                        .iter()
                        .position(|h| h == *c)
                        .and_then(|i| r.get(i).cloned())
                        .unwrap_or_default()
                }));
                out.push(line);
            }
        }
        records(&out)
    }
}

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
