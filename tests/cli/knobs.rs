//! Knob read-back: a knob that did not take effect stops the run with both values named; a knob
//! that did take effect is recorded, requested and effective, in every trial.

use crate::cli::common::*;
use litebench::engines::sqlite::knobs::SQLITE_KNOBS;

/// The number after `key ` in `line` (e.g. `effective 2147418112`).
fn number_after(line: &str, key: &str) -> u64 {
    let at = line.find(key).unwrap_or_else(|| panic!("{key:?} not in {line:?}")) + key.len();
    let digits: String = line[at..].chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {key:?} in {line:?}"))
}

/// The run that failed on a knob is stored as failed, with no trials and the error.
fn assert_stored_failure(sb: &Sandbox, knob: &str) {
    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "failed", "{v:#}");
    assert!(
        v["run"]["error"].as_str().unwrap_or("").contains(knob),
        "{:#}",
        v["run"]
    );
    assert_eq!(v["trials"].as_array().map(Vec::len), Some(0));
}

#[test]
fn wal_on_an_in_memory_database_is_refused() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--memory", "--knob", "journal_mode=wal"]));
    assert_run_error_line(
        &out,
        &[
            "error: knob journal_mode did not take effect",
            "requested wal",
            "effective memory",
            "an in-memory database only supports journal_mode memory or off",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "scratch not cleaned up");
    sb.assert_cwd_untouched();
    assert_stored_failure(&sb, "journal_mode");
}

#[test]
fn mmap_size_above_the_build_maximum_is_refused() {
    const TIB: u64 = 1 << 40;
    let sb = Sandbox::new();
    let knob = format!("mmap_size={TIB}");
    let out = output(&mut sb.run_tiny(&["crud", "--knob", &knob]));
    let line = assert_run_error_line(
        &out,
        &[
            "error: knob mmap_size did not take effect",
            &format!("requested {TIB}, effective "),
            "SQLITE_MAX_MMAP_SIZE",
        ],
    );
    let effective = number_after(&line, "effective ");
    assert!(
        effective > 0 && effective < TIB,
        "effective value {effective} in {line:?}"
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "scratch not cleaned up");
    sb.assert_cwd_untouched();
    assert_stored_failure(&sb, "mmap_size");
}

#[test]
fn wal_on_a_file_takes_effect_and_is_recorded_in_every_trial() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--knob", "journal_mode=wal", "--format", "json"]));
    assert_success(&out);
    let v = json(&out);
    assert_eq!(v["run"]["status"], "complete");
    let trials = v["trials"].as_array().expect("trials array");
    assert_eq!(trials.len(), 2, "--trials 2 --warmup 0");
    for t in trials {
        let knobs = t["knobs"].as_array().expect("knob readings");
        let names: Vec<&str> = knobs.iter().filter_map(|k| k["name"].as_str()).collect();
        // The FTS5 options are read from an FTS5 index, which crud makes none of.
        let expected: Vec<&str> = SQLITE_KNOBS
            .iter()
            .map(|k| k.name)
            .filter(|n| !litebench::engines::sqlite::knobs::FTS_KNOBS.contains(n))
            .collect();
        assert_eq!(names, expected, "every named knob is read back");
        for k in knobs {
            assert!(!k["effective"].is_null(), "knob {} has no effective value", k["name"]);
            if k["name"] == "journal_mode" {
                assert_eq!(k["requested"], "wal", "{k}");
                assert_eq!(k["effective"], "wal", "{k}");
            } else {
                assert!(k["requested"].is_null(), "knob {} was not requested: {k}", k["name"]);
            }
        }
    }
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "scratch not cleaned up");
}

/// The knob error says `did not take effect on {engine}`, but the runner passes the
/// configuration's label (`journal_mode=wal`) where the engine belongs.
#[test]
fn knob_failure_names_the_engine() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--memory", "--knob", "journal_mode=wal"]));
    assert_run_error_line(&out, &["error: knob journal_mode did not take effect on sqlite"]);
}

#[test]
fn an_unknown_optimization_is_refused_with_the_valid_names() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--knob", "disable_optimizations=skip_scan+bogus"]));
    assert_error_line(
        &out,
        &[
            "--knob disable_optimizations=skip_scan+bogus",
            "none, or names joined by '+'",
            "bloom_filter",
            "query_flattener",
        ],
    );
}

/// Issue 32, item 1: a knob only a workload's own statements read is refused, in one line and
/// before anything runs, on a workload that never reads it; before, `--knob begin=immediate` on
/// crud was read back and printed as the configuration's label while both configurations ran
/// the same autocommit statements.
#[test]
fn a_knob_the_workload_never_reads_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--knob", "begin=deferred,immediate"]));
    assert_error_line(
        &out,
        &["error: --knob begin: crud runs every statement in autocommit, in no transaction it starts, so it would change nothing crud runs; leave it out (docs/knobs.md lists which knob acts on which workload)"],
    );
    let out = output(&mut sb.run_tiny(&["crud", "--knob", "blob_api=incremental"]));
    assert_error_line(
        &out,
        &[
            "error: --knob blob_api: no statement of crud reads blob_api",
            "leave it out",
        ],
    );
    let out = output(&mut sb.run(&["ycsb", "--param", "workload=a", "--knob", "begin=immediate"]));
    assert_error_line(
        &out,
        &[
            "error: --knob begin: ycsb workload a has no read-modify-write",
            "give --param workload=f",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "nothing was made");
}

/// A create-stage knob on a workload that starts from an empty database (speedtest1 creates no
/// table in its template): the template's empty file keeps no page size, so the trial's
/// connection sets it again where it still acts. Before, `page_size=8192` was read back as the
/// default 4096 and the run stopped ("did not take effect"), and a history on releases before
/// 3.12.0 (default 1024) stopped at its pinned page_size=4096.
#[test]
fn a_page_size_acts_on_a_workload_that_starts_from_an_empty_file() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&[
        "speedtest1",
        "--param",
        "size=1",
        "--knob",
        "page_size=8192",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let j = json(&out);
    let knobs = j["trials"][0]["knobs"].as_array().expect("the trial's knob readings");
    let page = knobs
        .iter()
        .find(|k| k["name"] == "page_size")
        .expect("page_size read back");
    assert_eq!(page["effective"], "8192", "{page}");
}
