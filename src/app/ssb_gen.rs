//! `litebench ssb-gen`: the SSB tables as ssb-dbgen's `.tbl` files, so that other tools (or a
//! later `--param tbl_dir=`) can use exactly the data litebench generates. `--dates dbgen`
//! writes dbgen's own bytes below scale 1 too (its shrunken date table; see
//! [`litebench_ssbgen::Dates`]). The files are written as [`crate::app::tbl_files`] says.

use crate::app::cli::SsbGenArgs;
use crate::app::tbl_files::{choose, default_threads, write_all};
use crate::base::Failure;
use litebench_ssbgen::{generate, Dates, Scale, Table};

/// Writes the requested tables.
pub fn run(args: &SsbGenArgs) -> Result<i32, Failure> {
    let scale: Scale = args
        .scale
        .parse()
        .map_err(|e| Failure(format!("--scale {}: {e}", args.scale)))?;
    let dates: Dates = args
        .dates
        .parse()
        .map_err(|e| Failure(format!("--dates {}: {e}", args.dates)))?;
    let tables = choose(&args.tables, &Table::all(), Table::from_name, |t| t.name())?;
    let threads = args.threads.map_or_else(default_threads, |n| n as usize);
    write_all(
        &args.out,
        &tables,
        |t| t.file_name().to_string(),
        |t| generate(t, scale, dates, threads),
    )
}
