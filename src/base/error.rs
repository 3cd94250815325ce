//! The one error every layer can return when the only thing left to do is to say what went wrong
//! in one line and exit 2: an engine that cannot open, a plan that cannot be built, a store that
//! refuses a write. It lives at the bottom so that opening an engine does not return a
//! command-line type; the typed errors of each module convert into it with `?`.

/// A failure to report as one line; exit code 2.
#[derive(Debug)]
pub struct Failure(pub String);

impl Failure {
    /// The message as the one line litebench prints: a message that quotes something with line
    /// breaks (an engine error citing a multi-line SQL statement) has them folded into spaces,
    /// and a very long word (a value of megabytes) is cut short ([`super::clip::long_words`]).
    pub fn line(&self) -> String {
        let folded = if !self.0.contains(['\n', '\r']) {
            self.0.clone()
        } else {
            self.0
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        super::clip::long_words(&folded).into_owned()
    }
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
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
        let huge = Failure(format!("--param rows={}: invalid value", "9".repeat(50 << 20)));
        assert!(huge.line().len() < 300, "a 50 MB value is cut short");
        assert!(
            huge.line()
                .ends_with(&format!("… ({} bytes) invalid value", (50 << 20) + 6)),
            "{}",
            &huge.line()[180..]
        );
    }
}
