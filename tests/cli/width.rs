//! Tables fitted to the terminal's width: `show`, `run` and `list` at `COLUMNS=80` print no line
//! wider than 80, and `show --all` loses no cell; without `COLUMNS` (a pipe, as here) and with `--wide` they
//! print the full-width tables, byte for byte, that scripts and the other tests parse.

use crate::cli::common::*;

/// Words longer than this may be cut across lines in a fitted column of an 80-column table.
const CUT: usize = 30;

/// Every line of `text` within `width` characters.
fn assert_within(text: &str, width: usize) {
    for l in text.lines() {
        assert!(
            l.chars().count() <= width,
            "a line of {} > {width}: {l:?}\n{text}",
            l.chars().count()
        );
    }
}

/// The words of `text`, in order (what no layout may lose).
fn words(text: &str) -> Vec<&str> {
    let mut w: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.chars().any(|c| c != '-'))
        .collect();
    w.sort_unstable();
    w
}

#[test]
fn show_and_run_fit_80_columns_and_pipes_keep_full_width() {
    let sb = Sandbox::new();
    let mut run = sb.run_tiny(&[
        "crud",
        "--vary-one",
        "--knob",
        "journal_mode=delete,wal",
        "--knob",
        "synchronous=full,off",
    ]);
    run.env("COLUMNS", "80");
    let o = output(&mut run);
    assert_success(&o);
    assert_within(&stdout(&o), 80);
    let full = stdout(&output(&mut sb.show(&[])));
    let widest = full.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(
        widest > 80,
        "the full-width report must be wider than the terminal to test fitting"
    );
    // At a terminal the compact answer is printed (tests/cli/compact.rs); --all prints every
    // column, fitted.
    let fitted = stdout(&output(sb.show(&["--all"]).env("COLUMNS", "80")));
    assert_within(&fitted, 80);
    // Every cell of the full table is in the fitted one (the key columns repeat, so more words);
    // a word wider than its fitted column (SQLite's source id, a hash of 64) is cut across lines.
    let (all, some) = (words(&full), words(&fitted));
    for w in &all {
        if w.chars().count() > CUT {
            assert!(fitted.contains(&w[..CUT / 2]), "{w:?} lost at 80 columns\n{fitted}");
        } else {
            assert!(some.binary_search(w).is_ok(), "{w:?} lost at 80 columns\n{fitted}");
        }
    }
    // --wide on a terminal-sized COLUMNS: the full width again, byte for byte.
    assert_eq!(stdout(&output(sb.show(&["--wide"]).env("COLUMNS", "80"))), full);
}

#[test]
fn list_shows_one_section_and_fits_80_columns() {
    let sb = Sandbox::new();
    let list = |args: &[&str], columns: Option<&str>| {
        let mut cmd = sb.litebench();
        cmd.arg("list").args(args);
        if let Some(c) = columns {
            cmd.env("COLUMNS", c);
        }
        let o = output(&mut cmd);
        assert_success(&o);
        stdout(&o)
    };
    let everything = list(&[], None);
    let knobs = list(&["knobs"], None);
    assert!(knobs.starts_with("knobs (") && !knobs.contains("workloads\n") && !knobs.contains("presets ("));
    assert!(
        everything.contains(&knobs),
        "the section is printed as in the whole list"
    );
    let json: serde_json::Value = serde_json::from_str(&list(&["presets", "--format", "json"], None)).unwrap();
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["preset_groups", "presets"]);
    for section in ["workloads", "engines", "knobs", "presets"] {
        assert_within(&list(&[section], Some("80")), 80);
    }
}

/// A fitted view longer than one screen says its answer again at its end, where the terminal
/// leaves the reader; one that fits the screen says it once.
#[test]
fn a_view_longer_than_a_screen_ends_with_its_answer_again() {
    let sb = Sandbox::new();
    let mut run = sb.run_tiny(&[
        "crud",
        "--knob",
        "journal_mode=wal,delete",
        "--knob",
        "synchronous=off,normal,full",
    ]);
    run.env("COLUMNS", "80").env("LINES", "40");
    let out = output(&mut run);
    assert_success(&out);
    let text = stdout(&out);
    // A paragraph (its wrapped lines) from the line that starts with `start`.
    let paragraph = |start: &str| -> String {
        let from = text.find(start).unwrap_or_else(|| panic!("no {start:?}: {text}"));
        let rest = &text[from + start.len()..];
        let end = rest.find("\n\n").unwrap_or(rest.len());
        rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let again = paragraph("\nanswer (as above): ");
    assert!(again.starts_with("Fastest"), "{again}");
    assert!(
        text.trim_end().ends_with(again.split(' ').next_back().unwrap()),
        "the view ends with it: {text}"
    );
    assert_eq!(again, paragraph("answer: "));

    let tall = stdout(&output(sb.show(&[]).env("COLUMNS", "80").env("LINES", "1000")));
    assert!(tall.contains("answer: "), "{tall}");
    assert!(!tall.contains("answer (as above)"), "{tall}");
}
