//! Writing a command's output to stdout.
//!
//! A reader that closes the pipe early (`litebench show --format json | head -1`) ends the
//! output quietly, as command-line tools do; litebench ignores SIGPIPE (Rust's default), so a
//! closed pipe is an EPIPE error here, never a signal that kills a run mid-trial.

use std::io::Write;

/// Prints `s`; a closed pipe stops printing silently.
pub fn print(s: &str) {
    let mut out = std::io::stdout().lock();
    if out.write_all(s.as_bytes()).and_then(|_| out.flush()).is_err() {
        // Nothing useful can be said on a closed stdout; the caller goes on (runs have already
        // stored their trials) and exits normally.
    }
}
