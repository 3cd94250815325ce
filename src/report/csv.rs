//! The CSV format. A run's report is one CSV of several tables, as every multi-table document
//! is (`list --format csv`): a leading `table` column names each row's table, and the columns
//! are every table's, empty where a table has no such field. So one `pandas.read_csv` (or one
//! spreadsheet import) holds every fact the terminal table shows, and
//! `df[df.table == "summary"]` is the JSON `summary`, with the same columns:
//!
//! - `summary`: one row per configuration and operation — medians, their 95% interval and CV
//!   (each row's spread), the speed ratio against #0 with its interval and verdict, latency,
//!   I/O, and the stored durability verdicts;
//! - `spread`: fastest over slowest configuration (`ratio`, `ratio_ci95_low`/`_high`, `verdict`,
//!   `fastest`, `slowest`), present with two or more configurations;
//! - `statistics`: how intervals and verdicts were computed;
//! - `warning`: one row per warning (column `warning`);
//! - `footprint`: the template databases populated (engine, create knobs, rows, time, bytes);
//! - `checklist`: the reporting checklist (`item`, `value`, `known`);
//! - `run`: the run itself (id, name, workload, status, error, trials, warm-ups, seed, load).
//!
//! Any other document is its table, or its tables in one in the same way. Unknown values are
//! empty cells.

use super::format::{Document, OutputFormat, Table};
use super::summary::SummaryRow;
use super::Report;
use serde::Serialize;

/// `--format csv`.
pub struct CsvFormat;

impl OutputFormat for CsvFormat {
    fn report(&self, r: &Report<'_>) -> String {
        tables_in_one(&report_tables(r), true)
    }

    fn document(&self, doc: &Document) -> String {
        let tables: Vec<Table> = doc.tables().cloned().collect();
        tables_in_one(&tables, false)
    }
}

/// A run's report as named tables (see the module's documentation), in order.
pub fn report_tables(r: &Report<'_>) -> Vec<Table> {
    let mut tables = vec![table_of("summary", &r.summary)];
    if let Some(s) = &r.spread {
        #[derive(Serialize)]
        struct SpreadRow<'a> {
            ratio: f64,
            ratio_ci95_low: Option<f64>,
            ratio_ci95_high: Option<f64>,
            verdict: Option<litebench_stats::Verdict>,
            fastest: &'a str,
            slowest: &'a str,
            /// What the spread compares: `tps`, or a latency (`p99`, the open loop's default).
            metric: super::Metric,
        }
        tables.push(table_of(
            "spread",
            &[SpreadRow {
                ratio: s.ratio,
                ratio_ci95_low: s.ci95_low,
                ratio_ci95_high: s.ci95_high,
                verdict: s.verdict,
                fastest: &s.fastest,
                slowest: &s.slowest,
                metric: s.metric,
            }],
        ));
    }
    tables.push(table_of("statistics", std::slice::from_ref(&r.statistics)));
    tables.push(Table {
        name: "warning".into(),
        headers: vec!["warning".into()],
        rows: r.warnings.iter().map(|w| vec![w.clone()]).collect(),
    });
    tables.push(table_of("footprint", r.footprint));
    tables.push(table_of("checklist", &r.checklist));
    #[derive(Serialize)]
    struct RunRow<'a> {
        run: i64,
        name: Option<&'a str>,
        workload: &'a str,
        status: &'a str,
        error: Option<&'a str>,
        finished_at: Option<&'a str>,
        /// Measured trials and warm-ups per configuration, as the run was asked for.
        trials: u32,
        warmup: u32,
        seed: u64,
        load: String,
        results: &'a str,
    }
    let m = r.manifest;
    tables.push(table_of(
        "run",
        &[RunRow {
            run: r.run.id,
            name: r.run.name.as_deref(),
            workload: &m.workload,
            status: &r.run.status,
            error: r.run.error.as_deref(),
            finished_at: r.run.finished_at.as_deref(),
            trials: m.trials,
            warmup: m.warmup,
            seed: m.seed,
            load: m.load.describe(),
            results: &r.run.results,
        }],
    ));
    tables
}

/// `rows` as a table of cells with their field names as headers (no headers without rows).
pub fn table_of<T: Serialize>(name: &str, rows: &[T]) -> Table {
    let text = self::rows(rows);
    let mut reader = ::csv::Reader::from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map(|h| h.iter().map(String::from).collect())
        .unwrap_or_default();
    let rows = reader
        .records()
        .map(|r| {
            r.expect("CSV written here reads back")
                .iter()
                .map(String::from)
                .collect()
        })
        .collect();
    Table {
        name: name.to_string(),
        headers,
        rows,
    }
}

/// Tables in one CSV: a single table as it is (unless `named`), else a leading `table` column
/// and the union of their columns in order of first appearance. Cells are trimmed: the text
/// formats indent some to show nesting.
fn tables_in_one(tables: &[Table], named: bool) -> String {
    let cells = |row: &[String]| -> Vec<String> { row.iter().map(|c| c.trim().to_string()).collect() };
    if let ([t], false) = (tables, named) {
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
    for t in tables {
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

/// Rows of any serialisable type, with a header from its field names.
///
/// Each row goes through its JSON form, read back as its fields in order: the `csv` crate
/// cannot write a struct with `#[serde(flatten)]` groups (serde writes those as maps), and the
/// summary row is one ([`SummaryRow`]). So the CSV's columns are the JSON's keys, in the same
/// order, and each cell the JSON value's text (numbers as both crates write them, by `ryu`;
/// null as an empty cell).
pub fn rows<T: Serialize>(rows: &[T]) -> String {
    // Rows of one type may still carry different fields (`skip_serializing_if`: failure
    // columns only where there were failures): the header is every field any row has, in
    // the type's order, and each row's cells are looked up by the header's columns.
    let mut header: Vec<String> = Vec::new();
    let mut keyed: Vec<Vec<(String, serde_json::Value)>> = Vec::new();
    for r in rows {
        let Ok(text) = serde_json::to_string(r) else { continue };
        let Ok(Fields(fields)) = serde_json::from_str(&text) else {
            continue;
        };
        // A field first seen in a later row goes right after the field before it in that
        // row, so the columns keep the type's order.
        let mut at = 0;
        for (k, _) in &fields {
            match header.iter().position(|h| h == k) {
                Some(i) => at = i + 1,
                None => {
                    header.insert(at, k.clone());
                    at += 1;
                }
            }
        }
        keyed.push(fields);
    }
    if keyed.is_empty() {
        return String::new();
    }
    let mut out = vec![header.clone()];
    for fields in keyed {
        let mut fields: std::collections::HashMap<String, serde_json::Value> = fields.into_iter().collect();
        out.push(
            header
                .iter()
                .map(|h| fields.remove(h).map(cell).unwrap_or_default())
                .collect(),
        );
    }
    records(&out)
}

/// A JSON value as a CSV cell.
fn cell(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// A JSON object's fields in the order they were written (`serde_json`'s own map sorts them).
struct Fields(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> serde::de::Visitor<'de> for InOrder {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, serde_json::Value>()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(InOrder)
    }
}

/// Plain string records (the first is the header). Every record is written at the header's
/// width: a shorter one is padded with empty cells, and a longer one widens the header with
/// unnamed columns, so no table's shape can make writing it fail (a table's rows are built
/// from its header's columns in [`rows`]; this is the floor under every other caller).
pub fn records(records: &[Vec<String>]) -> String {
    let width = records.iter().map(Vec::len).max().unwrap_or(0);
    let mut w = ::csv::WriterBuilder::new().flexible(false).from_writer(Vec::new());
    for r in records {
        let mut cells: Vec<&str> = r.iter().map(String::as_str).collect();
        cells.resize(width, "");
        // Writing to memory fails only on a record of another width, ruled out above.
        let _ = w.write_record(&cells);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// The summary rows.
pub fn summary_rows(summary: &[SummaryRow]) -> String {
    rows(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        operation: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        failures: Option<u64>,
        p99: f64,
    }

    /// Rows that carry different fields (failures only where there were some) share one
    /// header, the union of their fields, and each cell sits under its own column.
    #[test]
    fn rows_with_different_fields_share_one_header_and_keep_their_columns() {
        let rows = [
            Row {
                operation: "read",
                failures: None,
                p99: 1.5,
            },
            Row {
                operation: "write",
                failures: Some(3),
                p99: 2.0,
            },
        ];
        assert_eq!(super::rows(&rows), "operation,failures,p99\nread,,1.5\nwrite,3,2.0\n");
        let t = table_of("t", &rows);
        assert!(t.rows.iter().all(|r| r.len() == t.headers.len()), "{t:?}");
    }

    #[test]
    fn records_of_unequal_lengths_are_written_at_one_width() {
        let out = records(&[
            vec!["a".into(), "b".into()],
            vec!["1".into()],
            vec!["1".into(), "2".into(), "3".into()],
        ]);
        assert_eq!(out, "a,b,\n1,,\n1,2,3\n");
    }
}
