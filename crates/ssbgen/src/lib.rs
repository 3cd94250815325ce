//! The Star Schema Benchmark's data: the five tables exactly as ssb-dbgen writes them.
//!
//! Why its own generator rather than running dbgen: litebench must not depend on an external C
//! tool, must stream data straight into engines (no files, flat memory at any scale), and should
//! use both cores; yet results are only comparable with everyone else's if the data are the same.
//! So the goal is byte-identical output to ssb-dbgen (eyalroz/ssb-dbgen, commit ae1e254) for
//! the same scale factor, checked by SHA-256 in `tests/dbgen_hashes.rs`. One deliberate
//! exception, by default: below scale 1 the date table is the specification's seven years, not
//! dbgen's shrunken one, so that the queries have something to answer ([`Dates`]).
//!
//! - [`generate`] yields a table's lines in chunks, on several threads, in dbgen's order.
//! - [`read_tbl`] reads an official `.tbl` file as the same chunks.
//! - [`parse_line`] splits a line into typed [`Field`]s per [`Table::columns`].

mod calendar;
mod chunks;
mod dates;
mod dists;
mod fmt;
mod parse;
pub mod rng;
mod rows;
mod scale;
mod seeds;
mod table;
mod tbl;

pub use chunks::{generate, row_count, Chunk, Chunks};
pub use dates::{Dates, DatesError, WHOLE_DATE_ROWS};
/// dbgen's 92 colours (TPC-H §4.2.3's P_NAME words), 25 nations and 5 regions, which SSB's
/// dbgen kept: TPC-H's substitution parameters are drawn from them too.
pub use dists::{COLORS, NATIONS, REGIONS};
pub use parse::{parse_line, Field, LineError};
pub use scale::{Scale, ScaleError, MAX_SCALE};
pub use table::{Column, ColumnKind, Table};
pub use tbl::{read_tbl, TblChunks, TblError};
