//! Population: the five tables from the generator (or from dbgen's `.tbl` files), loaded through
//! each engine's bulk path, then the planner's statistics.
//!
//! The generator ([`litebench_ssbgen::generate`]) produces `.tbl` lines on its own threads, in
//! bounded chunks, while this thread parses them and hands the rows to the engine
//! ([`Connection::bulk_load`]): both cores work, and memory stays flat whatever the scale (one
//! chunk being parsed, a few queued). Imported files go the same way, read chunk by chunk
//! ([`litebench_ssbgen::read_tbl`]), unless the engine reads such files itself (DuckDB's
//! `COPY ... FROM`, faster than any stream of rows: issue 25), when litebench parses nothing
//! ([`Population::load_file`]). A malformed line stops the load with an error naming the file,
//! the line and the column (where the engine's reader refuses a file, the parser reads it again
//! to find that line); the runner then drops the half-filled template, so nothing half-loaded is
//! ever measured.

use super::schema::{self, LOAD_ORDER};
use super::Settings;
use crate::engines::bulk::{input_error, DelimitedFile, RowSink};
use crate::engines::{Connection, EngineError, Value};
use crate::workload::{PopulateError, Population};
use litebench_ssbgen::{Chunk, Field, Table};
use std::path::Path;

/// Where the rows come from.
#[derive(Debug, Clone)]
pub enum Source<'a> {
    /// The built-in generator at this scale, on this many threads.
    Generate {
        scale: litebench_ssbgen::Scale,
        dates: litebench_ssbgen::Dates,
        threads: usize,
    },
    /// dbgen's `.tbl` files in this directory, read by the engine itself if `native` and it
    /// can.
    Import { dir: &'a Path, native: bool },
}

/// Pushes every line of `chunk` into `sink` as one row. `file` names the input in errors.
fn feed_chunk(table: Table, chunk: &Chunk, file: &str, sink: &mut dyn RowSink) -> Result<u64, EngineError> {
    let mut fields: Vec<Field<'_>> = Vec::with_capacity(table.columns().len());
    let mut values: Vec<Value<'_>> = Vec::with_capacity(table.columns().len());
    let mut n = 0u64;
    for (number, line) in chunk.numbered_lines() {
        fields.clear();
        litebench_ssbgen::parse_line(table, line, &mut fields)
            .map_err(|e| input_error("ssb", format!("{file} line {number} {e}")))?;
        values.clear();
        values.extend(fields.iter().map(|f| match *f {
            Field::Int(x) => Value::Int(x),
            Field::Text(t) => Value::Text(t),
        }));
        sink.row(&values)?;
        n += 1;
    }
    Ok(n)
}

/// Loads one table from `source`; returns its rows.
fn load_table(
    conn: &mut dyn Connection,
    table: Table,
    source: &Source<'_>,
    pop: &Population<'_>,
) -> Result<u64, PopulateError> {
    let columns: Vec<&str> = schema::columns(table).iter().map(|c| c.0).collect();
    match source {
        Source::Generate { scale, dates, threads } => {
            let file = format!("generated {}", table.file_name());
            let mut fill = |sink: &mut dyn RowSink| -> Result<(), EngineError> {
                for chunk in litebench_ssbgen::generate(table, *scale, *dates, *threads) {
                    feed_chunk(table, &chunk, &file, sink)?;
                }
                Ok(())
            };
            pop.bulk_load(conn, table.name(), &columns, &mut fill)
        }
        Source::Import { dir, native } => {
            let path = dir.join(table.file_name());
            let tbl = DelimitedFile {
                path: &path,
                delimiter: b'|',
            };
            let file = path.display().to_string();
            let mut fill = |sink: &mut dyn RowSink| -> Result<(), EngineError> {
                let chunks = litebench_ssbgen::read_tbl(&path).map_err(|e| input_error("ssb", e.to_string()))?;
                for chunk in chunks {
                    let chunk = chunk.map_err(|e| input_error("ssb", e.to_string()))?;
                    feed_chunk(table, &chunk, &file, sink)?;
                }
                Ok(())
            };
            if *native {
                pop.load_file(conn, table.name(), &columns, &tbl, &mut fill)
            } else {
                pop.bulk_load(conn, table.name(), &columns, &mut fill)
            }
        }
    }
}

/// Creates the schema, loads every table and gathers statistics; returns the rows loaded.
/// Stops between rows when `pop` is asked to stop.
pub fn populate(conn: &mut dyn Connection, settings: &Settings, pop: &Population<'_>) -> Result<u64, PopulateError> {
    let dialect = conn.dialect();
    for table in LOAD_ORDER {
        conn.execute_batch(&schema::create_table(dialect, table))?;
    }
    let source = settings.source();
    let mut total = 0u64;
    for table in LOAD_ORDER {
        let rows = load_table(conn, table, &source, pop)?;
        if let Source::Generate { scale, dates, .. } = source {
            let expected = litebench_ssbgen::row_count(table, scale, dates);
            if rows != expected {
                return Err(input_error(
                    "ssb",
                    format!(
                        "the generator gave {rows} rows of {}, expected {expected}",
                        table.name()
                    ),
                )
                .into());
            }
        }
        if rows == 0 {
            return Err(input_error("ssb", format!("{} has no rows", table.name())).into());
        }
        total += rows;
        pop.check()?;
        if let Some(sql) = schema::analyze(dialect, table) {
            // `query`: MariaDB's ANALYZE TABLE answers with a status row.
            conn.query(&sql)?;
        }
    }
    if let Some(sql) = schema::analyze_all(dialect) {
        conn.execute_batch(sql)?;
    }
    Ok(total)
}
