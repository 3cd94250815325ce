//! `litebench ssb-gen`: the SSB tables as ssb-dbgen's `.tbl` files, so that other tools (or a
//! later `--param tbl_dir=`) can use exactly the data litebench generates. `--dates dbgen`
//! writes dbgen's own bytes below scale 1 too (its shrunken date table; see
//! [`litebench_ssbgen::Dates`]).
//!
//! Every file is written as a new file that appears only when complete ([`crate::base::outfile`]): an
//! existing `.tbl` file (or a symbolic link by that name) is never overwritten nor followed,
//! and all target names are checked before anything is written so a refusal leaves nothing
//! behind. A table that fails part-way (a full disk), or is cut short by Ctrl-C, never appears:
//! its temporary file is removed. Finished tables are kept.

use crate::app::cli::SsbGenArgs;
use crate::base::outfile::OutFile;
use crate::base::Failure;
use crate::sys::signals::EXIT_INTERRUPTED;
use litebench_ssbgen::{generate, Dates, Scale, Table};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

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
    let tables = tables(&args.tables)?;
    let threads = args.threads.map_or_else(default_threads, |n| n as usize);
    prepare_dir(&args.out)?;
    for t in &tables {
        let path = args.out.join(t.file_name());
        if path.symlink_metadata().is_ok() {
            return Err(Failure(format!(
                "--out {}: {} already exists; litebench does not overwrite files it did not create, so remove it or choose another --out",
                args.out.display(),
                t.file_name()
            )));
        }
    }
    let stop = crate::sys::signals::stop_flag()?;
    for t in tables {
        let path = args.out.join(t.file_name());
        let started = Instant::now();
        let Some((lines, bytes)) = write_table(t, scale, dates, threads, &path, &stop)? else {
            crate::errln!(
                "interrupted: the incomplete {} was removed; finished tables are kept",
                path.display()
            );
            return Ok(EXIT_INTERRUPTED);
        };
        crate::outln!(
            "{}: {lines} lines, {:.1} MB in {:.2} s",
            path.display(),
            bytes as f64 / 1e6,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(0)
}

/// One generator thread per CPU.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The tables named in `--tables` (all when none), in dbgen's order, each once.
fn tables(names: &[String]) -> Result<Vec<Table>, Failure> {
    if names.is_empty() {
        return Ok(Table::all().to_vec());
    }
    let mut chosen = Vec::new();
    for name in names {
        let t = Table::from_name(name.trim()).ok_or_else(|| {
            let valid: Vec<&str> = Table::all().iter().map(|t| t.name()).collect();
            Failure(format!(
                "--tables {name}: unknown table; valid tables: {}",
                valid.join(", ")
            ))
        })?;
        if !chosen.contains(&t) {
            chosen.push(t);
        }
    }
    chosen.sort();
    Ok(chosen)
}

/// Makes `--out` where it is missing; refuses one that is not a directory.
pub fn prepare_dir(dir: &Path) -> Result<(), Failure> {
    if dir.is_dir() {
        return Ok(());
    }
    if dir.exists() {
        return Err(Failure(format!(
            "--out {}: not a directory; give a directory (it is created if missing)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure(format!("--out {}: cannot create the directory: {e}", dir.display())))
}

/// Writes one table to a new file at `path`; returns its lines and bytes, or `None` when `stop`
/// was set (the file is then removed).
fn write_table(
    table: Table,
    scale: Scale,
    dates: Dates,
    threads: usize,
    path: &Path,
    stop: &AtomicBool,
) -> Result<Option<(u64, u64)>, Failure> {
    // Dropped before its commit (Ctrl-C, an error), the incomplete table is removed.
    let mut file = OutFile::create(path).map_err(|e| Failure(format!("{}: cannot create: {e}", path.display())))?;
    let (mut lines, mut bytes) = (0u64, 0u64);
    for chunk in generate(table, scale, dates, threads) {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        file.write_all(&chunk.bytes).map_err(|e| write_failure(path, &e))?;
        lines += chunk.lines;
        bytes += chunk.bytes.len() as u64;
    }
    file.commit().map_err(|e| write_failure(path, &e))?;
    Ok(Some((lines, bytes)))
}

/// A table that could not be written, its incomplete file removed.
pub fn write_failure(path: &Path, e: &std::io::Error) -> Failure {
    Failure(format!(
        "{}: cannot write: {e}; the incomplete file was removed",
        path.display()
    ))
}
