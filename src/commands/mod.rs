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

/// Exit code of a run interrupted with Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

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
