//! What an output format is, and the one registry of them.
//!
//! Every subcommand that prints data prints one of two things: the report of a run
//! ([`Report`]), or a [`Document`] — prose and tables in order, with the JSON document they
//! stand for. A format ([`OutputFormat`]) lays out both; each lives in its own file
//! (`table.rs`, `json.rs`, `csv.rs`, `markdown.rs`) and [`of`] maps a `--format` value to it.
//! Adding a format is one variant of [`Format`], one file implementing [`OutputFormat`] and one
//! line in [`of`]; no subcommand changes, so none can forget it.
//!
//! A document may carry a layout of its own for one format ([`Document::own`]): the typed CSV
//! of records whose fields are their columns (`show --list`, `compare`), or a terminal layout
//! older than this module (`env`, `advise`), kept byte for byte.

use super::{Format, Report};
use serde::Serialize;

/// One output format.
pub trait OutputFormat: Sync {
    /// The report of one run.
    fn report(&self, report: &Report<'_>) -> String;
    /// Anything else a subcommand prints.
    fn document(&self, doc: &Document) -> String;
    /// True for a format people read (the terminal table, Markdown): a session of several
    /// runs prints each run's report as it ends, then their comparison. A data format (JSON,
    /// CSV) prints one document of all the runs at the end instead, so that it parses whole.
    fn for_reading(&self) -> bool {
        false
    }
}

/// The registry: the implementation of each `--format` value.
pub fn of(format: Format) -> &'static dyn OutputFormat {
    match format {
        Format::Table => &super::table::TableFormat,
        Format::Json => &super::json::JsonFormat,
        Format::Csv => &super::csv::CsvFormat,
        Format::Markdown => &super::markdown::MarkdownFormat,
    }
}

/// `doc` in `format`: its own layout for that format if it has one, else the format's.
pub fn render(doc: &Document, format: Format) -> String {
    match doc.own.iter().find(|(f, _)| *f == format) {
        Some((_, text)) => text.clone(),
        None => of(format).document(doc),
    }
}

/// A table: a name (CSV's `table` column when a document has several), headers and rows of
/// cells as people read them.
#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One piece of a document, in order.
#[derive(Debug, Clone)]
pub enum Part {
    /// A section heading (`## ` in Markdown; not in CSV).
    Heading(String),
    /// Prose, printed as it is by the text formats (not in CSV).
    Text(String),
    /// A table.
    Table(Table),
}

/// What a subcommand prints besides a run report.
#[derive(Debug, Clone)]
pub struct Document {
    /// The JSON form, rendered from the typed value (so fields keep their declared order).
    pub json: String,
    pub parts: Vec<Part>,
    /// Layouts of its own for some formats.
    pub own: Vec<(Format, String)>,
}

impl Document {
    /// A document whose JSON form is `value`.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Document {
        Document {
            json: super::json::value(value),
            parts: Vec::new(),
            own: Vec::new(),
        }
    }

    /// Adds a heading.
    pub fn heading(mut self, s: impl Into<String>) -> Document {
        self.parts.push(Part::Heading(s.into()));
        self
    }

    /// Adds prose.
    pub fn text(mut self, s: impl Into<String>) -> Document {
        self.parts.push(Part::Text(s.into()));
        self
    }

    /// Adds a table.
    pub fn table(mut self, name: &str, headers: &[&str], rows: Vec<Vec<String>>) -> Document {
        self.parts.push(Part::Table(Table {
            name: name.to_string(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows,
        }));
        self
    }

    /// Gives `format` a layout of its own.
    pub fn own(mut self, format: Format, text: String) -> Document {
        self.own.push((format, text));
        self
    }

    /// The tables, in order.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.parts.iter().filter_map(|p| match p {
            Part::Table(t) => Some(t),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    fn doc() -> Document {
        Document::new(&serde_json::json!({"a": 1}))
            .heading("things")
            .text("two tables\n")
            .table("first", &["x", "y"], vec![vec!["1".into(), "  2".into()]])
            .table("second", &["y", "z"], vec![vec!["3".into(), "4".into()]])
    }

    #[test]
    fn every_format_is_registered_and_prints_its_own_kind() {
        for f in Format::value_variants() {
            let out = render(&doc(), *f);
            match f {
                Format::Json => assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["a"], 1),
                Format::Csv => assert_eq!(out, "table,x,y,z\nfirst,1,2,\nsecond,,3,4\n"),
                Format::Markdown => assert!(out.contains("## things") && out.contains("|---"), "{out}"),
                Format::Table => assert!(out.starts_with("things\ntwo tables\nx  y\n"), "{out}"),
            }
        }
    }

    #[test]
    fn one_table_is_plain_csv_and_an_own_layout_wins() {
        let d = Document::new(&1).table("t", &["a"], vec![vec!["b".into()]]);
        assert_eq!(render(&d, Format::Csv), "a\nb\n");
        assert_eq!(render(&d.own(Format::Csv, "own\n".into()), Format::Csv), "own\n");
    }
}
