//! One module per subcommand.

pub mod advise;
pub mod build_sqlite;
pub mod cleanup;
pub mod compare;
pub mod env;
pub mod list;
pub mod merge;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod show;
pub mod ssb_gen;
pub mod verify_durability;

/// A failure to report as one line; exit code 2.
#[derive(Debug)]
pub struct Failure(pub String);

impl Failure {
    /// The message as the one line litebench prints: a message that quotes something with line
    /// breaks (an engine error citing a multi-line SQL statement) has them folded into spaces.
    pub fn line(&self) -> String {
        if !self.0.contains(['\n', '\r']) {
            return self.0.clone();
        }
        self.0
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

/// Exit code of a run interrupted with Ctrl-C (128 + SIGINT), SIGTERM or SIGHUP.
pub const EXIT_INTERRUPTED: i32 = 130;

/// The signals that ask a long command to stop cleanly: Ctrl-C, `kill`, and a closed terminal
/// or ssh session. Each keeps what is finished, stops servers, undoes mounts and removes scratch
/// files, then exits [`EXIT_INTERRUPTED`].
pub const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// A flag that each of [`STOP_SIGNALS`] sets instead of killing the process. A SIGHUP that is
/// ignored when litebench starts (`nohup litebench run ...`) stays ignored: whoever started it
/// asked for it to outlive the terminal.
pub fn stop_flag() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>, Failure> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in STOP_SIGNALS {
        if sig == libc::SIGHUP && ignored(sig) {
            continue;
        }
        signal_hook::flag::register(sig, stop.clone()).map_err(|e| {
            Failure(format!(
                "cannot install the handler of signal {sig} (Ctrl-C, SIGTERM, SIGHUP): {e}"
            ))
        })?;
    }
    Ok(stop)
}

/// True when signal `sig` is ignored (`SIG_IGN`), as `nohup` leaves SIGHUP.
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: a zeroed sigaction is a valid out-parameter; a null new action only reads the
    // current one.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Current time as RFC 3339 UTC, without a date library.
pub fn now_rfc3339() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_print_as_one_line() {
        let f = Failure(
            "results store: disk I/O error (while running `CREATE TABLE t(\n  a INTEGER,\n  b TEXT\n)`)".into(),
        );
        assert_eq!(
            f.line(),
            "results store: disk I/O error (while running `CREATE TABLE t( a INTEGER, b TEXT )`)"
        );
        let spaced = Failure("--dir /tmp/a  b: no such directory".into());
        assert_eq!(spaced.line(), spaced.0, "single-line messages are printed as they are");
    }
}
