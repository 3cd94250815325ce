//! How wide the text that a person reads may be: the terminal's columns, or no limit.
//!
//! Tables of a run are 300-690 characters wide; on an 80-column terminal each line wraps into
//! unreadable pieces. So a table printed for a terminal is fitted to its width
//! ([`crate::report::layout`]), while output into a pipe or a file keeps the full width, byte
//! for byte, for the scripts and tests that parse it. `COLUMNS` (as shells, `ls` and Python's
//! `shutil.get_terminal_size` read it) sets the width even into a pipe; `--wide` turns fitting
//! off. The width itself comes from the `terminal_size` crate (the `TIOCGWINSZ` ioctl, kept
//! portable there rather than as unsafe code here).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by `--wide`: never fit, whatever the terminal.
static WIDE: AtomicBool = AtomicBool::new(false);

/// Set by `--all`: every column of a run's summary, not the compact answer.
static ALL: AtomicBool = AtomicBool::new(false);

/// Narrower than this, fitting helps nobody (a `COLUMNS` of 5 is a mistake, not a terminal).
pub const MIN_COLUMNS: usize = 20;

/// `--wide`: print full-width tables even on a terminal.
pub fn set_wide(wide: bool) {
    WIDE.store(wide, Ordering::Relaxed);
}

/// `--all`: print every column of a run's summary where the compact answer would be printed.
pub fn set_all(all: bool) {
    ALL.store(all, Ordering::Relaxed);
}

/// Whether a run's summary is printed whole: with `--all`, and wherever tables are not fitted
/// ([`width`] is `None`: `--wide`, a pipe without `COLUMNS`), so scripts that parse the full
/// table keep reading it.
pub fn all_columns() -> bool {
    ALL.load(Ordering::Relaxed) || width().is_none()
}

/// The width to fit text to, or `None` for full width: with `--wide`, and when standard output
/// is not a terminal and `COLUMNS` is not set.
pub fn width() -> Option<usize> {
    if WIDE.load(Ordering::Relaxed) {
        return None;
    }
    width_from(
        std::env::var("COLUMNS").ok().as_deref(),
        std::io::stdout().is_terminal(),
        || terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)),
    )
}

/// The rows of one screen, for output that must not scroll its answer away: a valid `LINES`,
/// else the terminal's own height, else 40 (the 80x40 screen output is read at).
pub fn height() -> usize {
    let terminal = std::io::stdout().is_terminal();
    std::env::var("LINES")
        .ok()
        .and_then(|l| l.trim().parse::<usize>().ok())
        .filter(|h| *h >= 10)
        .or_else(|| {
            terminal
                .then(|| terminal_size::terminal_size().map(|(_, h)| usize::from(h.0)))
                .flatten()
        })
        .unwrap_or(40)
}

/// How many rows `text` takes on a screen `width` columns wide (each line wraps).
pub fn rows(text: &str, width: usize) -> usize {
    text.lines()
        .map(|l| l.chars().count().div_ceil(width.max(1)).max(1))
        .sum()
}

/// [`width`]'s rule: a valid `COLUMNS` wins; otherwise a terminal's own width.
fn width_from(columns: Option<&str>, terminal: bool, size: impl FnOnce() -> Option<usize>) -> Option<usize> {
    let valid = |w: usize| (w >= MIN_COLUMNS).then_some(w);
    match columns.and_then(|c| c.trim().parse::<usize>().ok()) {
        Some(w) => valid(w),
        None if terminal => size().and_then(valid),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_wins_then_the_terminal_and_a_pipe_is_full_width() {
        let never = || -> Option<usize> { panic!("not asked") };
        assert_eq!(width_from(Some("80"), false, never), Some(80));
        assert_eq!(width_from(Some("132"), true, never), Some(132));
        assert_eq!(width_from(None, true, || Some(100)), Some(100));
        assert_eq!(width_from(None, false, never), None, "a pipe or a file: full width");
        assert_eq!(width_from(Some("junk"), false, never), None);
        assert_eq!(width_from(Some("5"), true, never), None, "too narrow to mean anything");
        assert_eq!(width_from(None, true, || None), None, "a terminal that does not say");
    }

    #[test]
    fn a_long_line_takes_as_many_rows_as_it_wraps_into() {
        assert_eq!(rows("a\n\nbc", 80), 3);
        assert_eq!(rows(&"x".repeat(161), 80), 3);
        assert_eq!(rows(&"x".repeat(160), 80), 2);
    }
}
