//! Writing to standard output and standard error, and what a closed pipe means.
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone (`litebench show | head -1`)
//! fails with EPIPE, and `print!` turns that into a panic: exit 101 and a backtrace hint for what
//! is not an error at all. Letting SIGPIPE kill the process instead, as C tools do, would be
//! worse for `run`: a run whose report nobody reads must still store every trial, stop its
//! servers and remove its scratch directory.
//!
//! So every command prints through [`out!`](crate::out!) and [`outln!`](crate::outln!) (or
//! [`Stdout`] for writers such as `csv`). The first failed write closes standard output for the
//! rest of the process: later writes are skipped, nothing is said about a reader that left
//! (EPIPE), and the command finishes its work and exits with its own status — 0 for a run that
//! completed. Not 141 (128 + SIGPIPE, what a shell reports for a C tool killed by the signal):
//! the run did complete, and under `set -o pipefail` a 141 would make `litebench run ... | head`
//! look like a failed benchmark. Any other write error (a full disk under `> file`) is reported
//! once, as the last line on stderr, by [`finish`], and makes the exit status 2 (also where the
//! command would have exited 1, `compare`'s regression verdict: its output was not all written).
//!
//! [`errln!`](crate::errln!) writes a line to stderr and ignores failures: there is nowhere
//! left to report them.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Set by the first failed write to stdout: nothing more is written there.
static CLOSED: AtomicBool = AtomicBool::new(false);
/// The first stdout error that was not a closed pipe, for [`finish`] to report.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// Prints to stdout like `print!`, without panicking when stdout is closed.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::base::out::stdout_fmt(format_args!($($arg)*)) };
}

/// Prints a line to stdout like `println!`, without panicking when stdout is closed.
#[macro_export]
macro_rules! outln {
    () => { $crate::base::out::stdout_fmt(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::base::out::stdout_fmt(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Prints a line to stderr like `eprintln!`, ignoring write errors.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => { $crate::base::out::stderr_fmt(format_args!("{}\n", format_args!($($arg)*))) };
}

fn note(e: &io::Error) {
    CLOSED.store(true, Ordering::Relaxed);
    if e.kind() != io::ErrorKind::BrokenPipe {
        let mut failed = FAILED.lock().unwrap_or_else(|p| p.into_inner());
        failed.get_or_insert_with(|| e.to_string());
    }
}

/// Writes to stdout and flushes, unless stdout is closed; see the module documentation.
pub fn stdout_fmt(args: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        note(&e);
    }
}

/// Writes to stderr, ignoring failures.
pub fn stderr_fmt(args: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Stdout as an [`io::Write`] that follows the same rules: once a write fails, everything is
/// accepted and dropped.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !CLOSED.load(Ordering::Relaxed) {
            if let Err(e) = io::stdout().lock().write_all(buf) {
                note(&e);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !CLOSED.load(Ordering::Relaxed) {
            if let Err(e) = io::stdout().lock().flush() {
                note(&e);
            }
        }
        Ok(())
    }
}

/// True once stdout is closed (a write to it failed).
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// The exit status of a command that would exit with `code`: a stdout error other than a
/// closed pipe is reported on stderr and turns success (0) and `compare`'s regression (1) into
/// 2, so a script never reads an incomplete output as a verdict. An interrupted run keeps 130.
pub fn finish(code: i32) -> i32 {
    if !CLOSED.load(Ordering::Relaxed) {
        if let Err(e) = io::stdout().lock().flush() {
            note(&e);
        }
    }
    let failed = FAILED.lock().unwrap_or_else(|p| p.into_inner()).take();
    match failed {
        Some(e) => {
            errln!("error: cannot write to standard output: {e}; check where it is redirected");
            if code == 0 || code == 1 {
                2
            } else {
                code
            }
        }
        None => code,
    }
}
