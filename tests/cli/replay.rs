//! The `replay` workload end to end: a `.trace` that the real sqlite3 shell recorded while it
//! ran a small script is replayed on a copy of the database it started from (left byte for
//! byte as it was) under journal_mode=wal and delete, with a row per statement shape; a log
//! with times 0, 200 ms and 400 ms takes at least 400 ms at `pace=recorded`; the format is
//! detected and recorded; bad logs, a failing statement and `--clients 2` are one line, exit 2.

use crate::cli::common::*;
use std::process::Command;

const QUICK: &[&str] = &["--trials", "1", "--warmup", "0", "--quiet"];

fn write(sb: &Sandbox, name: &str, text: &str) {
    std::fs::write(sb.cwd().join(name), text).unwrap();
}

/// Runs the sqlite3 shell on `db` in the sandbox with `input` on its standard input.
fn sqlite3(sb: &Sandbox, db: &str, input: &str) {
    use std::io::Write;
    let mut child = Command::new("sqlite3")
        .arg(db)
        .current_dir(sb.cwd())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the sqlite3 shell (Debian package sqlite3) runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_sqlite3_trace_replays_under_two_journal_modes_with_a_row_per_shape() {
    if !crate::support::require("/usr/bin/sqlite3", "sqlite3") {
        return;
    }
    let sb = Sandbox::new();
    sqlite3(
        &sb,
        "app.db",
        "CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT);\nCREATE TABLE log(id INTEGER PRIMARY KEY, msg TEXT);\n",
    );
    std::fs::copy(sb.cwd().join("app.db"), sb.cwd().join("before.db")).unwrap();
    // The application's session, traced by the shell itself.
    sqlite3(
        &sb,
        "app.db",
        ".trace trace.sql\nBEGIN;\nINSERT INTO kv VALUES (1, 'one');\nINSERT INTO kv VALUES (2, 'it''s two; really');\nINSERT INTO kv VALUES (3, 'three');\nCOMMIT;\nUPDATE kv SET v = 'uno' WHERE k = 1;\nUPDATE kv SET v = 'dos' WHERE k = 2;\n-- a comment\nSELECT v FROM kv WHERE k = 3;\nINSERT INTO log(msg) VALUES ('done /* not a comment */');\n",
    );
    let before = std::fs::read(sb.cwd().join("before.db")).unwrap();
    let mut cmd = sb.run(&[
        "replay",
        "--param",
        "log=trace.sql",
        "--param",
        "db=before.db",
        "--knob",
        "journal_mode=wal,delete",
    ]);
    cmd.args(QUICK).args(["--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let params = &v["manifest"]["params"];
    assert_eq!(params["format"], "statements", "{params}");
    assert_eq!(params["sha256"].as_str().map(str::len), Some(64), "{params}");
    let rows = v["summary"].as_array().unwrap();
    for config in [0, 1] {
        let of: Vec<(&str, f64)> = rows
            .iter()
            .filter(|r| r["config"] == config)
            .map(|r| (r["operation"].as_str().unwrap(), r["ops_per_trial"].as_f64().unwrap()))
            .collect();
        assert_eq!(
            of,
            vec![
                ("all", 9.0),
                ("BEGIN", 1.0),
                ("INSERT INTO kv VALUES (?, ?)", 3.0),
                ("COMMIT", 1.0),
                ("UPDATE kv SET v = ? WHERE k = ?", 2.0),
                ("SELECT v FROM kv WHERE k = ?", 1.0),
                ("INSERT INTO log(msg) VALUES (?)", 1.0),
            ],
            "config {config}"
        );
        assert!(
            rows.iter()
                .filter(|r| r["config"] == config)
                .all(|r| r["success_rate"] == 1.0 && r["latency_p50_us"].as_f64().is_some()),
            "{rows:?}"
        );
    }
    let labels: Vec<&str> = v["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["journal_mode=wal", "journal_mode=delete"]);
    assert_eq!(
        std::fs::read(sb.cwd().join("before.db")).unwrap(),
        before,
        "the user's database is never written"
    );
}

#[test]
fn pace_recorded_holds_the_recorded_gaps() {
    let sb = Sandbox::new();
    write(
        &sb,
        "timed.log",
        "2024-05-01T12:00:00.000Z CREATE TABLE t(a)\n2024-05-01T12:00:00.200Z INSERT INTO t VALUES (1)\n2024-05-01T12:00:00.400Z SELECT count(*) FROM t\n",
    );
    let mut cmd = sb.run(&["replay", "--param", "log=timed.log", "--param", "pace=recorded"]);
    cmd.args(QUICK).args(["--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    assert_eq!(v["manifest"]["params"]["format"], "timestamped");
    let t = &v["trials"][0];
    assert_eq!(t["total_ops"], 3, "{t:#}");
    // The last statement is due 400 ms after the trial's start; the measured span begins a
    // few microseconds after that start (measured: 399.97 ms on a loaded machine), so 1 ms is
    // allowed. Unpaced, the three statements take about a millisecond in all.
    assert!(t["measured_ns"].as_u64().unwrap() >= 399_000_000, "{t:#}");
}

#[test]
fn bad_logs_failing_statements_and_clients_are_one_line() {
    let sb = Sandbox::new();
    write(&sb, "quote.sql", "SELECT 1;\nSELECT 'abc\n");
    write(&sb, "param.sql", "SELECT 1;\nSELECT * FROM t WHERE k = ?1;\n");
    write(&sb, "back.log", "0.4 SELECT 1\n0.2 SELECT 2\n");
    sqlite3(&sb, "app.db", "CREATE TABLE t(a);");
    write(
        &sb,
        "fails.sql",
        "CREATE TABLE t(a);\nINSERT INTO t VALUES (1);\nINSERT INTO nope VALUES (2);\n",
    );
    for (args, parts) in [
        (
            &["--param", "log=quote.sql"][..],
            &["quote.sql:2:8: unterminated string literal"][..],
        ),
        (
            &["--param", "log=param.sql"],
            &["param.sql:2:27: a parameter (?1)", "--expanded"],
        ),
        (&["--param", "log=back.log"], &["back.log:2:1: this time is before"]),
        (
            &["--param", "log=missing.sql"],
            &["--param log=missing.sql: cannot read it"],
        ),
        (
            &[
                "--param",
                "log=quote.sql",
                "--param",
                "format=lines",
                "--param",
                "pace=recorded",
            ],
            &["quote.sql:2:8"],
        ),
        (
            &["--param", "log=fails.sql", "--param", "pace=recorded"],
            &["--param pace=recorded: fails.sql is a log of format statements"],
        ),
        (
            &["--param", "log=fails.sql", "--clients", "2"],
            &["--clients 2: workload replay: a log is one ordered stream"],
        ),
        (
            &["--param", "log=fails.sql", "--param", "db=fails.sql"],
            &["--param db=fails.sql: not a SQLite database"],
        ),
        (
            &[
                "--param",
                "log=fails.sql",
                "--param",
                "db=app.db",
                "--engine",
                "postgres",
            ],
            &["engine postgres cannot start from it", "leave out --param db"],
        ),
    ] {
        let mut cmd = sb.run(&["replay"]);
        cmd.args(args).args(QUICK);
        assert_error_line(&output(&mut cmd), parts);
    }
    assert!(!sb.results().exists(), "nothing is stored for a refused run");
    let mut cmd = sb.run(&["replay", "--param", "log=fails.sql"]);
    cmd.args(QUICK);
    assert_error_line(
        &output(&mut cmd),
        &["fails.sql:3: no such table: nope", "on_error=count"],
    );
    let mut cmd = sb.run(&["replay", "--param", "log=fails.sql", "--param", "on_error=count"]);
    cmd.args(QUICK).args(["--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let rows = json(&out)["summary"].as_array().unwrap().clone();
    let nope = rows
        .iter()
        .find(|r| r["operation"] == "INSERT INTO nope VALUES (?)")
        .unwrap();
    assert_eq!(nope["success_rate"], 0.0, "{nope}");
}

/// Issue 31, item 9: a NUL byte in a log is refused when it is read, in one line naming file,
/// line and column; before, the statement after it counted as one successful transaction with a
/// latency though SQLite ran nothing.
#[test]
fn a_nul_byte_in_a_log_is_one_line_before_anything_runs() {
    let sb = Sandbox::new();
    write(
        &sb,
        "nul.sql",
        "CREATE TABLE t(a);\nINSERT INTO t VALUES (1);\0 DELETE FROM t;\n",
    );
    let mut cmd = sb.run(&["replay", "--param", "log=nul.sql"]);
    cmd.args(QUICK);
    assert_error_line(&output(&mut cmd), &["nul.sql:2:26: a NUL byte", "tr -d"]);
    assert!(!sb.results().exists(), "nothing is stored for a refused run");
}

/// Issue 31, item 4: a log changes and creates nothing outside its copy. A literal `ATTACH` of a
/// file, and any `VACUUM INTO` of one, is refused when the log is read (FILE:LINE:COLUMN and the
/// way out); an `ATTACH` whose name is built while running is refused by SQLite's authorizer, and
/// on DuckDB anything reaching a file outside by its external access turned off. Before: the victim's 3 rows were deleted and the files created,
/// exit 0.
#[test]
fn a_log_changes_and_creates_no_file_outside_its_copy() {
    use litebench::engines::sqlite::{api::Api, conn::SqliteConn};
    use litebench::engines::Connection;
    let sb = Sandbox::new();
    let top = sb.cwd().display().to_string();
    let victim = sb.cwd().join("victim.db");
    let mut v = SqliteConn::open(Api::bundled(), &victim, None, "victim").unwrap();
    v.execute_batch("CREATE TABLE important(a); INSERT INTO important VALUES (1), (2), (3);")
        .unwrap();
    let logs = [
        (
            "literal.sql",
            format!("SELECT 1;\nATTACH '{top}/victim.db' AS v;\nDELETE FROM v.important;\n"),
            "literal.sql:2:8: ATTACH of '",
        ),
        (
            "computed.sql",
            format!("ATTACH '{top}/' || 'victim.db' AS v;\nDELETE FROM v.important;\n"),
            "computed.sql:1: not authorized: ATTACH or VACUUM INTO of a file name computed while running",
        ),
        (
            "new.sql",
            format!("ATTACH '{top}/new' || '.db' AS n;\nCREATE TABLE n.t(a);\n"),
            "new.sql:1: not authorized",
        ),
        (
            "into.sql",
            format!("CREATE TABLE t(a);\nVACUUM INTO '{top}/out.db';\n"),
            "into.sql:2:13: VACUUM INTO '",
        ),
        (
            "vacuum.sql",
            format!("CREATE TABLE t(a);\nVACUUM INTO '{top}/' || 'out.db';\n"),
            "vacuum.sql:2:13: VACUUM INTO '",
        ),
        (
            "ext.sql",
            "SELECT load_extension('/nonexistent.so');\n".to_string(),
            "load_extension() is disabled",
        ),
    ];
    for (name, text, part) in &logs {
        write(&sb, name, text);
        let mut cmd = sb.run(&["replay", "--param", &format!("log={name}")]);
        cmd.args(QUICK);
        let line = assert_error_line(&output(&mut cmd), &[part]);
        if !["ext.sql", "into.sql", "vacuum.sql"].contains(name) {
            assert!(
                line.contains("attach a temporary database instead (ATTACH '' AS name)"),
                "{line}"
            );
        }
    }
    assert_eq!(
        v.query_value("SELECT count(*) FROM important").unwrap().as_deref(),
        Some("3")
    );
    for made in ["new.db", "out.db"] {
        assert!(!sb.cwd().join(made).exists(), "{made} was created outside the copy");
    }
    // A temporary database is the way out, and works.
    write(
        &sb,
        "temp.sql",
        "ATTACH '' AS t;\nCREATE TABLE t.x(a);\nINSERT INTO t.x VALUES (1);\nSELECT count(*) FROM t.x;\n",
    );
    let mut cmd = sb.run(&["replay", "--param", "log=temp.sql"]);
    cmd.args(QUICK);
    assert_success(&output(&mut cmd));
    // DuckDB: no file outside the scratch directory, however the statement reaches it.
    if crate::support::require_duckdb(crate::support::DUCKDB) {
        write(
            &sb,
            "copy.sql",
            &format!("CREATE TABLE t(a INTEGER);\nCOPY t TO '{top}/out.csv';\n"),
        );
        let mut cmd = sb.run(&["replay", "--param", "log=copy.sql", "--engine", "duckdb"]);
        cmd.args(QUICK);
        assert_error_line(
            &output(&mut cmd),
            &["copy.sql:2: Permission Error", "disabled by configuration"],
        );
        assert!(!sb.cwd().join("out.csv").exists());
    }
}

/// Issue 32, item 1. A log's bare `BEGIN`s run in the `begin` knob's mode where it is set, and
/// its reading counts them; the `BEGIN IMMEDIATE` the application wrote is not one of them;
/// unset, the reading says the log's BEGINs ran as written.
#[test]
fn the_begin_knob_counts_a_logs_bare_begins_and_reads_as_written_when_unset() {
    let sb = Sandbox::new();
    write(
        &sb,
        "app.sql",
        "CREATE TABLE t(a);\nBEGIN;\nINSERT INTO t VALUES (1);\nCOMMIT;\nbegin deferred transaction;\nINSERT INTO t VALUES ('BEGIN');\nCOMMIT;\nBEGIN IMMEDIATE;\nINSERT INTO t VALUES (3);\nCOMMIT;\n",
    );
    let begin = |knob: Option<&str>| {
        let mut cmd = sb.run(&["replay", "--param", "log=app.sql"]);
        cmd.args(QUICK).args(["--format", "json"]);
        if let Some(k) = knob {
            cmd.args(["--knob", k]);
        }
        let out = output(&mut cmd);
        assert_success(&out);
        let v = json(&out);
        let r = v["trials"][0]["knobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == "begin")
            .expect("a begin reading")
            .clone();
        (
            r["effective"].as_str().unwrap().to_string(),
            r["note"].as_str().unwrap().to_string(),
        )
    };
    let (effective, note) = begin(Some("begin=exclusive"));
    assert_eq!(effective, "exclusive");
    assert_eq!(note, "2 bare BEGINs of the workload's SQL start as BEGIN EXCLUSIVE");
    let (effective, note) = begin(None);
    assert_eq!(effective, "as written");
    assert!(
        note.starts_with("2 bare BEGINs of the workload's SQL run as written"),
        "{note}"
    );
}

/// Issue 32, item 12: a short log measured once is all noise; `repeat=N` runs it N times per
/// trial (the statements counted), `duration=` loops it until the time is up, paced passes keep
/// the recorded gaps, and both together are one line.
#[test]
fn repeat_and_duration_loop_a_short_log() {
    let sb = Sandbox::new();
    write(
        &sb,
        "short.sql",
        "CREATE TABLE IF NOT EXISTS t(a);\nINSERT INTO t VALUES (1);\nSELECT count(*) FROM t;\n",
    );
    let trial_of = |log: &str, extra: &[&str]| {
        let mut cmd = sb.run(&["replay", "--param", &format!("log={log}")]);
        cmd.args(extra).args(QUICK).args(["--format", "json"]);
        let out = output(&mut cmd);
        assert_success(&out);
        json(&out)["trials"][0].clone()
    };
    let trial = |extra: &[&str]| trial_of("short.sql", extra);
    let once = trial(&[]);
    assert_eq!(once["total_ops"], 3, "{once:#}");
    let four = trial(&["--param", "repeat=4"]);
    assert_eq!(four["total_ops"], 12, "four passes of three statements: {four:#}");
    let insert = four["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "INSERT INTO t VALUES (?)")
        .unwrap()
        .clone();
    assert_eq!(insert["ops"], 4, "{insert:#}");
    // Three statements take about a millisecond: only looping fills 300 ms, and the trial
    // stops when the time is up, not with the log.
    let timed = trial(&["--param", "duration=300ms"]);
    let ns = timed["measured_ns"].as_u64().unwrap();
    assert!((300_000_000..5_000_000_000).contains(&ns), "{timed:#}");
    assert!(timed["total_ops"].as_u64().unwrap() > 30, "{timed:#}");
    // Paced: times 0 and 100 ms, so a period of 200 ms; the third pass's last statement is due
    // at 500 ms.
    write(
        &sb,
        "timed.log",
        "0.0 CREATE TABLE IF NOT EXISTS t(a)\n0.1 SELECT count(*) FROM t\n",
    );
    let paced = trial_of("timed.log", &["--param", "pace=recorded", "--param", "repeat=3"]);
    assert_eq!(paced["total_ops"], 6, "{paced:#}");
    assert!(paced["measured_ns"].as_u64().unwrap() >= 499_000_000, "{paced:#}");
    let mut cmd = sb.run(&[
        "replay",
        "--param",
        "log=short.sql",
        "--param",
        "repeat=2",
        "--param",
        "duration=1s",
    ]);
    cmd.args(QUICK);
    assert_error_line(
        &output(&mut cmd),
        &["--param repeat=2 and --param duration=1000ms: a trial stops on one of them"],
    );
}
