//! `run`'s progress bar: on a terminal it shows trials done, the configuration running and the
//! time left; with `--quiet` (and when stderr is not a terminal, as in every other test) nothing.
//!
//! The terminal is a pseudo-terminal from util-linux's `script` (Debian's bsdutils, part of
//! every installation).

use crate::cli::common::*;

const SCRIPT: &str = "/usr/bin/script";

/// Runs a tiny two-configuration crud under a pseudo-terminal; returns what the terminal showed.
fn on_a_terminal(sb: &Sandbox, extra: &str) -> String {
    let line = format!(
        "{} run crud {} --trials 2 --warmup 0 --knob journal_mode=delete,wal --dir {} --results {} --format json {extra}",
        crate::support::bin().display(),
        TINY_PARAMS.join(" "),
        sb.scratch().display(),
        sb.results().display(),
    );
    let o = std::process::Command::new(SCRIPT)
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .current_dir(sb.cwd())
        .env("LITEBENCH_RESULTS", sb.cwd().join("default-results.db"))
        .env("TERM", "xterm")
        .env("COLUMNS", "200")
        .output()
        .expect("run script");
    assert!(o.status.success(), "{}", describe(&o));
    String::from_utf8_lossy(&o.stdout).replace('\r', "\n")
}

#[test]
fn a_terminal_shows_trials_configuration_and_time_left_unless_quiet() {
    if !crate::support::require(SCRIPT, "bsdutils") {
        return;
    }
    let sb = Sandbox::new();
    let shown = on_a_terminal(&sb, "");
    assert!(shown.contains("/4 trials"), "{shown}");
    assert!(shown.contains("configuration 1/2: journal_mode=delete"), "{shown}");
    assert!(shown.contains("configuration 2/2: journal_mode=wal"), "{shown}");
    assert!(shown.contains("time left after the first trial"), "{shown}");
    assert!(shown.contains(" left, configuration"), "{shown}");
    let quiet = on_a_terminal(&sb, "--quiet");
    assert!(!quiet.contains(" elapsed, "), "--quiet shows no progress: {quiet}");
}
