//! Population: the eight tables from `tpchgen` (or from dbgen's `.tbl` files), streamed into
//! each engine's bulk path, then the foreign-key indexes and the planner's statistics.
//!
//! Nothing goes through a file unless the user gave one: the generator's threads produce `.tbl`
//! lines in bounded chunks ([`gen::generate`]) while this thread splits them into rows and
//! hands them to the engine ([`Population::bulk_load`]: SQLite's prepared inserts in one
//! transaction per table, PostgreSQL's `COPY FROM STDIN`, DuckDB's appender, MariaDB's and
//! Turso's multi-row `INSERT`s, as SSB loads them). dbgen's files (`tbl_dir`) are read chunk
//! by chunk the same way, unless the engine reads such a file itself (DuckDB's `COPY ... FROM`)
//! and `tbl_load=native`. A malformed line stops the load naming the file, line and column;
//! the runner then drops the half-filled template.

use super::gen::{self, Scale};
use super::schema::{self, Table, LOAD_ORDER};
use super::tbl::parse_line;
use super::Settings;
use crate::engines::bulk::{input_error, DelimitedFile, RowSink};
use crate::engines::{Connection, EngineError, Value};
use crate::workload::{PopulateError, Population};
use litebench_ssbgen::Chunk;
use std::path::Path;

/// Where the rows come from.
#[derive(Debug, Clone)]
pub enum Source<'a> {
    /// `tpchgen` at this scale, on this many threads.
    Generate { scale: Scale, threads: usize },
    /// dbgen's `.tbl` files in this directory, read by the engine itself if `native` and it
    /// can.
    Import { dir: &'a Path, native: bool },
}

/// Pushes every line of `chunk` into `sink` as one row. `file` names the input in errors.
fn feed_chunk(table: Table, chunk: &Chunk, file: &str, sink: &mut dyn RowSink) -> Result<u64, EngineError> {
    let mut values: Vec<Value<'_>> = Vec::with_capacity(table.columns().len());
    let mut n = 0u64;
    for (number, line) in chunk.numbered_lines() {
        parse_line(table, line, &mut values).map_err(|e| input_error("tpch", format!("{file} line {number} {e}")))?;
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
    let columns: Vec<&str> = table.columns().iter().map(|c| c.0).collect();
    match source {
        Source::Generate { scale, threads } => {
            let file = format!("generated {}", table.file_name());
            let mut fill = |sink: &mut dyn RowSink| -> Result<(), EngineError> {
                for chunk in gen::generate(table, *scale, *threads) {
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
                let chunks = litebench_ssbgen::read_tbl(&path).map_err(|e| input_error("tpch", e.to_string()))?;
                for chunk in chunks {
                    let chunk = chunk.map_err(|e| input_error("tpch", e.to_string()))?;
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

/// Creates the schema, loads every table, indexes its foreign keys and gathers statistics
/// (unless `analyze=false`); returns the rows loaded. Stops between rows when `pop` is asked to stop.
pub fn populate(conn: &mut dyn Connection, settings: &Settings, pop: &Population<'_>) -> Result<u64, PopulateError> {
    let dialect = conn.dialect();
    for table in LOAD_ORDER {
        conn.execute_batch(&schema::create_table(dialect, table))?;
        if !settings.analyze {
            if let Some(sql) = schema::no_statistics(dialect, table) {
                conn.execute_batch(&sql)?;
            }
        }
    }
    let source = settings.source();
    let mut total = 0u64;
    for table in LOAD_ORDER {
        let rows = load_table(conn, table, &source, pop)?;
        if let Source::Generate { scale, .. } = source {
            let expected = gen::row_count(table, scale);
            if rows != expected {
                return Err(input_error(
                    "tpch",
                    format!(
                        "the generator gave {rows} rows of {}, expected {expected}",
                        table.name()
                    ),
                )
                .into());
            }
        }
        if rows == 0 {
            return Err(input_error("tpch", format!("{} has no rows", table.name())).into());
        }
        total += rows;
        pop.check()?;
        for sql in schema::create_indexes(dialect, table) {
            conn.execute_batch(&sql)?;
        }
        if let Some(sql) = schema::analyze(dialect, table).filter(|_| settings.analyze) {
            // `query`: MariaDB's ANALYZE TABLE answers with a status row.
            conn.query(&sql)?;
        }
    }
    if let Some(sql) = schema::analyze_all(dialect).filter(|_| settings.analyze) {
        conn.execute_batch(sql)?;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::model::params::resolve;

    /// Scale 0.01 (below it dbgen's partsupp keys repeat) into an in-memory SQLite, with and without `analyze`: SQLite's
    /// statistics table exists only with.
    #[test]
    fn analyze_false_leaves_the_planner_without_statistics() {
        for (analyze, stat_rows) in [("true", true), ("false", false)] {
            let args = ["scale=0.01".to_string(), format!("analyze={analyze}")];
            let params = resolve("tpch", super::super::KIND.params, &args).unwrap();
            let settings = Settings::from_params(&params).unwrap();
            let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
            let rows = populate(&mut conn, &settings, &Population::plain(&params, 42)).unwrap();
            assert_eq!(rows, 86_805);
            let stat = conn
                .query_value("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
                .unwrap();
            assert_eq!(
                stat.as_deref(),
                Some(if stat_rows { "1" } else { "0" }),
                "analyze={analyze}"
            );
        }
    }
}
