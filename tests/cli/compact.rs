//! The compact answer a terminal gets (`src/report/compact.rs`): for the run shape an application
//! developer brings (8 configurations, a 2-script mix with a statement row per statement, an open
//! loop of client processes), `show` at 80 columns puts the answer in words and every
//! configuration's figures on the first 40-line screen, one row per configuration and script,
//! never a line wider than 80; `--all` prints the whole summary, as a pipe does. Before, the same
//! run printed 2,517 lines in 9 panels at 80 columns.

use crate::cli::common::*;

/// An 8-configuration open-loop run of a read script and a writing script with a bare BEGIN.
pub fn eight_by_two(sb: &Sandbox) {
    let write = |name: &str, text: &str| std::fs::write(sb.cwd().join(name), text).unwrap();
    write(
        "schema.sql",
        "CREATE TABLE users(id INTEGER PRIMARY KEY, visits INTEGER);\n\
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 200)\n\
         INSERT INTO users SELECT i, 0 FROM n;\n",
    );
    write(
        "read.sql",
        "\\set uid random(1, 200)\nSELECT visits FROM users WHERE id = :uid;\n",
    );
    write(
        "write.sql",
        "\\set uid random(1, 200)\nBEGIN;\nSELECT visits FROM users WHERE id = :uid;\n\
         UPDATE users SET visits = visits + 1 WHERE id = :uid;\nCOMMIT;\n",
    );
    let mut cmd = sb.run(&[
        "script",
        "--param",
        "file=read.sql@7,write.sql@3",
        "--param",
        "init=schema.sql",
        "--param",
        "duration=200ms",
    ]);
    cmd.args(["--trials", "2", "--warmup", "0", "--clients", "2", "--rate", "400"])
        .args(["--max-tries", "3", "--knob", "journal_mode=wal,delete"])
        .args(["--knob", "busy_timeout=0,100", "--knob", "begin=deferred,immediate"])
        .args(["--knob", "synchronous=normal"]);
    assert_success(&output(&mut cmd));
}

#[test]
fn show_at_80_columns_answers_on_the_first_screen_and_all_prints_every_column() {
    let sb = Sandbox::new();
    eight_by_two(&sb);
    let compact = stdout(&output(sb.show(&[]).env("COLUMNS", "80")));
    for l in compact.lines() {
        assert!(l.chars().count() <= 80, "a line wider than 80: {l:?}\n{compact}");
    }
    let screen: Vec<&str> = compact.lines().take(40).collect();
    let screen = screen.join("\n");
    assert!(
        screen.contains("\nanswer: "),
        "no answer on the first screen:\n{screen}"
    );
    assert!(
        screen.contains("configurations (every one: synchronous=normal)"),
        "{screen}"
    );
    // The configurations' table: the knobs that differ as columns, one row each, all on screen.
    let header = screen
        .lines()
        .find(|l| l.starts_with("#  tx/s"))
        .unwrap_or_else(|| panic!("no configurations' table:\n{screen}"));
    for knob in ["p99 ms", "p99 vs #0", "failed", "journal_mode", "busy_timeout", "begin"] {
        assert!(header.contains(knob), "{knob} missing: {header}");
    }
    for i in 0..8 {
        assert!(
            screen.lines().any(|l| l.starts_with(&format!("{i}  "))),
            "configuration #{i} is not on the first screen:\n{screen}"
        );
    }
    // One row per configuration and script, statements in a latency table of their own.
    let rows = |text: &str, op: &str| text.lines().filter(|l| l.split_whitespace().nth(1) == Some(op)).count();
    assert_eq!(rows(&compact, "read.sql"), 8, "{compact}");
    assert_eq!(rows(&compact, "write.sql"), 8, "{compact}");
    assert!(compact.contains("statements (latency"), "{compact}");
    assert!(!compact.contains("side by side"), "{compact}");
    // --all: the whole summary (its configuration column, the side-by-side table, the checklist).
    let all = stdout(&output(sb.show(&["--all"]).env("COLUMNS", "80")));
    assert!(all.contains("side by side") && all.contains("reporting checklist (APSys'17)\n"));
    assert!(
        all.lines().count() > 3 * compact.lines().count(),
        "--all is the whole summary: {} lines against {}",
        all.lines().count(),
        compact.lines().count()
    );
    // A pipe without COLUMNS keeps the whole summary, as scripts parse it.
    let piped = stdout(&output(&mut sb.show(&[])));
    assert!(piped.contains("side by side"), "{piped}");
}

/// One configuration has nothing to compare with: the compact answer has no `vs #0` column (it
/// would read `baseline` on every row) and still answers in words.
#[test]
fn one_configuration_gets_no_verdict_columns() {
    let sb = Sandbox::new();
    let mut run = sb.run_tiny(&["crud"]);
    run.env("COLUMNS", "80");
    let o = output(&mut run);
    assert_success(&o);
    let text = stdout(&o);
    assert!(text.contains("\nanswer: #0 (defaults): "), "{text}");
    assert!(text.contains("\n#  op "), "{text}");
    assert!(!text.contains("vs #0") && !text.contains("baseline"), "{text}");
}
