//! Generated tables written as dbgen's `.tbl` files, for `ssb-gen` and `tpch-gen`: both take
//! `--out DIR`, `--tables` and `--threads` and must keep the same promises, so they are kept
//! here once.
//!
//! Every file is written as a new file that appears only when complete
//! ([`crate::base::outfile`]): an existing `.tbl` file (or a symbolic link by that name) is never
//! overwritten nor followed, and all target names are checked before anything is written, so a
//! refusal leaves nothing behind. A table that fails part-way (a full disk), or is cut short by
//! Ctrl-C, never appears: its temporary file is removed. Finished tables are kept.

use crate::base::outfile::OutFile;
use crate::base::Failure;
use crate::sys::signals::EXIT_INTERRUPTED;
use litebench_ssbgen::Chunk;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One generator thread per CPU.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The tables named in `--tables` (all of `all` when none), in `all`'s order, each once;
/// `find` reads a name, `name` writes one.
pub fn choose<T: Copy + PartialEq>(
    names: &[String],
    all: &[T],
    find: impl Fn(&str) -> Option<T>,
    name: impl Fn(&T) -> &'static str,
) -> Result<Vec<T>, Failure> {
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    let mut chosen = Vec::new();
    for given in names {
        let t = find(given.trim()).ok_or_else(|| {
            let valid: Vec<&str> = all.iter().map(&name).collect();
            Failure(format!(
                "--tables {given}: unknown table; valid tables: {}",
                valid.join(", ")
            ))
        })?;
        if !chosen.contains(&t) {
            chosen.push(t);
        }
    }
    chosen.sort_by_key(|t| all.iter().position(|a| a == t));
    Ok(chosen)
}

/// Writes each of `tables` into `out` as `file_name(table)`, its lines from `chunks(table)`,
/// printing one line per table; the exit status (interrupted when Ctrl-C cut one short).
pub fn write_all<T: Copy, I: Iterator<Item = Chunk>>(
    out: &Path,
    tables: &[T],
    file_name: impl Fn(&T) -> String,
    mut chunks: impl FnMut(T) -> I,
) -> Result<i32, Failure> {
    prepare_dir(out)?;
    for t in tables {
        if out.join(file_name(t)).symlink_metadata().is_ok() {
            return Err(Failure(format!(
                "--out {}: {} already exists; litebench does not overwrite files it did not create, so remove it or choose another --out",
                out.display(),
                file_name(t)
            )));
        }
    }
    let stop = crate::sys::signals::stop_flag()?;
    for &t in tables {
        let path = out.join(file_name(&t));
        let started = Instant::now();
        let Some((lines, bytes)) = write_table(chunks(t), &path, &stop)? else {
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

/// Makes `--out` where it is missing; refuses one that is not a directory.
fn prepare_dir(dir: &Path) -> Result<(), Failure> {
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

/// Writes one table's chunks to a new file at `path`; returns its lines and bytes, or `None`
/// when `stop` was set (the file is then removed).
fn write_table(
    chunks: impl Iterator<Item = Chunk>,
    path: &Path,
    stop: &AtomicBool,
) -> Result<Option<(u64, u64)>, Failure> {
    // Dropped before its commit (Ctrl-C, an error), the incomplete table is removed.
    let mut file = OutFile::create(path).map_err(|e| Failure(format!("{}: cannot create: {e}", path.display())))?;
    let (mut lines, mut bytes) = (0u64, 0u64);
    for chunk in chunks {
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
fn write_failure(path: &Path, e: &std::io::Error) -> Failure {
    Failure(format!(
        "{}: cannot write: {e}; the incomplete file was removed",
        path.display()
    ))
}
