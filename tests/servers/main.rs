//! End-to-end tests of PostgreSQL and MariaDB as engines, with the real `litebench` binary and
//! the servers installed on the machine (Debian's postgresql and mariadb-server; in CI their
//! absence is a failure, elsewhere those tests are skipped):
//!
//! - crud runs on each server alone and side by side with SQLite, and the durability knobs are
//!   read back from the server and recorded;
//! - bad input and faults (a missing binary, a port in use, a URL that does not answer, a knob
//!   the server refuses, a server that dies mid-run, Ctrl-C) end with one line, exit 2 (130
//!   for Ctrl-C), finished trials kept, and no server process or data directory left behind;
//! - `postgres=URL` / `mysql=URL` run against a server litebench did not start for the run, and
//!   leave its settings as they were;
//! - the `script` workload (pgbench's tpcb-like and dialect variants) on both servers;
//! - `tpcc` under `--knob isolation=...` on both servers, the level read back from each trial
//!   connection and named in the answer, serialization failures counted by cause.

mod auth;
pub mod common;
mod device_io;
mod population;
mod queue;
mod restore;
mod script;
mod stops;
mod tpcc;
mod tpch;
mod trial_start;

use common::*;
use litebench::engines::{DbRef, Engine};
use std::time::Duration;

fn tiny(engines: &[&str], extra: &[&str]) -> Vec<String> {
    let mut v = vec!["crud".to_string()];
    for e in engines {
        v.push("--engine".into());
        v.push((*e).into());
    }
    v.extend(extra.iter().map(|s| s.to_string()));
    v.extend(TINY.iter().map(|s| s.to_string()));
    v
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Checks a complete tiny run on one server engine.
fn completes_on(engine: &str, kind: &str, version_prefix: &str, knobs: &[&str]) {
    let sb = Sandbox::new();
    let out = run(sb.run_std(&args(&tiny(&[engine], &[]))));
    let v = out.assert_success();
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let e = &v["manifest"]["engines"][0];
    assert_eq!(e["label"], engine);
    assert_eq!(e["kind"], kind);
    assert!(
        e["version"].as_str().is_some_and(|s| s.starts_with(version_prefix)),
        "version: {e:#}"
    );
    assert!(e["details"]["port"].as_u64().is_some_and(|p| p > 0), "{e:#}");
    assert!(
        e["details"]["data_dir"]
            .as_str()
            .is_some_and(|d| d.contains("/scratch/run-")),
        "{e:#}"
    );
    assert!(e["details"]["settings"].is_object(), "{e:#}");
    let trials = v["trials"].as_array().expect("trials");
    assert_eq!(trials.len(), 2);
    for t in trials {
        assert_eq!(t["total_ops"], 60, "{t:#}");
        for k in knobs {
            let r = t["knobs"].as_array().unwrap().iter().find(|r| r["name"] == *k);
            assert!(
                r.is_some_and(|r| r["effective"].is_string()),
                "knob {k} not read back: {:#}",
                t["knobs"]
            );
        }
    }
    let durability = v["checklist"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["item"] == "durability settings per engine")
        .expect("checklist item");
    assert_eq!(durability["known"], true, "{durability:#}");
    assert!(
        durability["value"].as_str().unwrap().contains(knobs[0]),
        "{durability:#}"
    );
    sb.assert_clean(engine);
}

#[test]
fn crud_completes_on_postgres() {
    if available(&[Server::Postgres]) {
        completes_on(
            "postgres",
            "postgres",
            "PostgreSQL ",
            &["fsync", "synchronous_commit", "full_page_writes"],
        );
    }
}

#[test]
fn crud_completes_on_mysql() {
    if available(&[Server::Mysql]) {
        completes_on(
            "mysql",
            "mysql",
            "10.",
            &["innodb_flush_log_at_trx_commit", "sync_binlog"],
        );
    }
}

#[test]
fn side_by_side_with_sqlite_and_knobs_read_back() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let out = run(sb.run_std(&args(&tiny(
        &["sqlite", "postgres", "mariadb"],
        &["--knob", "synchronous=full,off", "--knob", "synchronous_commit=on,off"],
    ))));
    let v = out.assert_success();
    let labels: Vec<&str> = v["manifest"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "sqlite synchronous=full",
            "sqlite synchronous=off",
            "postgres synchronous_commit=on",
            "postgres synchronous_commit=off",
            "mysql defaults",
        ]
    );
    assert_eq!(v["trials"].as_array().unwrap().len(), 10);
    let off = config_index(&v, "postgres synchronous_commit=off");
    let on = config_index(&v, "postgres synchronous_commit=on");
    for (cfg, want) in [(off, "off"), (on, "on")] {
        let r = readings(&v, cfg, "synchronous_commit");
        assert_eq!(r.len(), 2);
        for (req, eff) in r {
            assert_eq!(req.as_deref(), Some(want));
            assert_eq!(eff.as_deref(), Some(want), "synchronous_commit read back");
        }
        // Knobs nobody asked for are read back too.
        for (req, eff) in readings(&v, cfg, "fsync") {
            assert_eq!((req, eff.as_deref()), (None, Some("on")));
        }
    }
    let my = config_index(&v, "mysql defaults");
    for (req, eff) in readings(&v, my, "innodb_flush_log_at_trx_commit") {
        assert_eq!((req, eff.as_deref()), (None, Some("1")));
    }
    // Each trial connection's isolation level, unset: the servers' own defaults.
    for (cfg, level) in [(off, "read-committed"), (on, "read-committed"), (my, "repeatable-read")] {
        for (req, eff) in readings(&v, cfg, "isolation") {
            assert_eq!((req, eff.as_deref()), (None, Some(level)));
        }
    }
    let kinds: Vec<&str> = v["manifest"]["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["sqlite", "postgres", "mysql"]);
    let durability = v["checklist"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["item"] == "durability settings per engine")
        .expect("checklist item")["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        durability.contains("#3 postgres: fsync=on, synchronous_commit=off, full_page_writes=on"),
        "{durability}"
    );
    assert!(
        durability.contains("#4 mysql: innodb_flush_log_at_trx_commit=1"),
        "{durability}"
    );
    sb.assert_clean("side by side");
}

#[test]
fn postgres_fsync_and_full_page_writes_off_take_effect() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let sb = Sandbox::new();
    let out = run(sb.run_std(&args(&tiny(
        &["postgres"],
        &[
            "--knob",
            "fsync=off,on",
            "--knob",
            "full_page_writes=off",
            "--knob",
            "set.work_mem=8MB",
        ],
    ))));
    let v = out.assert_success();
    let off = config_index(&v, "fsync=off full_page_writes=off set.work_mem=8MB");
    let on = config_index(&v, "fsync=on full_page_writes=off set.work_mem=8MB");
    for (cfg, want) in [(off, "off"), (on, "on")] {
        for (req, eff) in readings(&v, cfg, "fsync") {
            assert_eq!((req.as_deref(), eff.as_deref()), (Some(want), Some(want)));
        }
        for (_, eff) in readings(&v, cfg, "full_page_writes") {
            assert_eq!(eff.as_deref(), Some("off"));
        }
        for (_, eff) in readings(&v, cfg, "set.work_mem") {
            assert_eq!(eff.as_deref(), Some("8MB"));
        }
    }
    sb.assert_clean("fsync=off");
}

#[test]
fn mysql_flush_log_knobs_take_effect() {
    if !available(&[Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let out = run(sb.run_std(&args(&tiny(
        &["mysql"],
        &[
            "--knob",
            "innodb_flush_log_at_trx_commit=2,0",
            "--knob",
            "sync_binlog=1",
            "--knob",
            "set.innodb_io_capacity=300",
        ],
    ))));
    let v = out.assert_success();
    for want in ["2", "0"] {
        let cfg = config_index(
            &v,
            &format!("innodb_flush_log_at_trx_commit={want} sync_binlog=1 set.innodb_io_capacity=300"),
        );
        for (req, eff) in readings(&v, cfg, "innodb_flush_log_at_trx_commit") {
            assert_eq!((req.as_deref(), eff.as_deref()), (Some(want), Some(want)));
        }
        for (_, eff) in readings(&v, cfg, "sync_binlog") {
            assert_eq!(eff.as_deref(), Some("1"));
        }
        for (_, eff) in readings(&v, cfg, "set.innodb_io_capacity") {
            assert_eq!(eff.as_deref(), Some("300"));
        }
    }
    sb.assert_clean("innodb_flush_log_at_trx_commit");
}

#[test]
fn a_url_that_does_not_answer_is_one_line() {
    let sb = Sandbox::new();
    let out = run(sb.run_std(&args(&tiny(&["postgres=postgres://127.0.0.1:1/x"], &[]))));
    out.assert_error_line(&[
        "error: --engine postgres=postgres://127.0.0.1:1/x: cannot connect",
        "refused",
    ]);
    assert_eq!(out.stdout, "");
    let out = run(sb.run_std(&args(&tiny(&["mysql=mysql://root:secret@127.0.0.1:1/x"], &[]))));
    let line = out.assert_error_line(&["error: --engine mysql=mysql://root:***@127.0.0.1:1/x: cannot connect"]);
    assert!(!line.contains("secret"), "the password leaked: {line}");
    let out = run(sb.run_std(&args(&tiny(&["postgres=not a url"], &[]))));
    out.assert_error_line(&["--engine postgres=not a url"]);
    sb.assert_clean("unanswered URL");
}

#[test]
fn a_missing_server_binary_names_the_package() {
    let sb = Sandbox::new();
    let mut cmd = sb.run_std(&args(&tiny(&["postgres"], &[])));
    cmd.env("LITEBENCH_PG_BIN", "/nonexistent");
    run(cmd).assert_error_line(&[
        "error: --engine postgres: /nonexistent/initdb not found",
        "install the Debian package postgresql",
    ]);
    let mut cmd = sb.run_std(&args(&tiny(&["sqlite", "mysql"], &[])));
    cmd.env("LITEBENCH_MYSQL_BIN", "/nonexistent");
    run(cmd).assert_error_line(&[
        "error: --engine mysql: /nonexistent/mariadbd not found",
        "install the Debian package mariadb-server",
    ]);
    sb.assert_clean("missing binary");
}

#[test]
fn a_port_in_use_is_named() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = held.local_addr().unwrap().port().to_string();
    let sb = Sandbox::new();
    for (engine, var, server) in [
        ("postgres", "LITEBENCH_PG_PORT", Server::Postgres),
        ("mysql", "LITEBENCH_MYSQL_PORT", Server::Mysql),
    ] {
        if !available(&[server]) {
            continue;
        }
        let mut cmd = sb.run_std(&args(&tiny(&[engine], &[])));
        cmd.env(var, &port);
        run(cmd).assert_error_line(&[&format!("{var}={port}: port {port} on 127.0.0.1 is in use")]);
        sb.assert_clean("port in use");
    }
    drop(held);
}

#[test]
fn a_knob_the_server_refuses_is_one_line_and_cleans_up() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let out = run(sb.run_std(&args(&tiny(&["postgres"], &["--knob", "set.shared_buffers=64MB"]))));
    out.assert_error_line(&["set.shared_buffers=64MB", "only when the server starts"]);
    sb.assert_clean("postgres refused knob");
    let out = run(sb.run_std(&args(&tiny(&["mysql"], &["--knob", "set.innodb_doublewrite=0"]))));
    out.assert_error_line(&["--knob set.innodb_doublewrite=0", "read only variable"]);
    sb.assert_clean("mysql refused knob");
    let out = run(sb.run_std(&args(&tiny(&["postgres"], &["--knob", "set.no_such_setting=1"]))));
    out.assert_error_line(&["--knob set.no_such_setting=1", "unrecognized configuration parameter"]);
    sb.assert_clean("unknown setting");
}

fn long_run(sb: &Sandbox, engines: &[&str]) -> Running {
    let mut a = vec!["crud".to_string()];
    for e in engines {
        a.push("--engine".into());
        a.push((*e).into());
    }
    for s in [
        "--param",
        "rows=1000",
        "--param",
        "duration=2s",
        "--trials",
        "50",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ] {
        a.push(s.into());
    }
    Running::start(sb.run_std(&args(&a)))
}

#[test]
fn ctrl_c_stops_the_servers_and_keeps_finished_trials() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let mut r = long_run(&sb, &["postgres", "mysql"]);
    wait_for_trials(&sb, &mut r, 1, Duration::from_secs(180));
    assert!(
        !processes_under(sb.root()).is_empty(),
        "no server process seen while running"
    );
    r.signal(libc::SIGINT);
    let out = r.finish(Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(130), "{}", out.describe());
    assert!(
        out.stderr.lines().any(|l| l.starts_with("interrupted: ")),
        "{}",
        out.describe()
    );
    let v = out.json();
    assert_eq!(v["run"]["status"], "interrupted");
    assert!(!v["trials"].as_array().unwrap().is_empty());
    sb.assert_clean("after Ctrl-C");
}

/// The postmaster of the run's throwaway server (its command line names the sandbox).
fn postmaster_of(sb: &Sandbox) -> Option<libc::pid_t> {
    processes_under(sb.root())
        .iter()
        .find(|p| p.contains("bin/postgres -D"))
        .and_then(|p| p.split(':').next()?.parse().ok())
}

#[test]
fn a_server_that_dies_mid_run_is_one_line_and_leaves_nothing() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let sb = Sandbox::new();
    let mut r = long_run(&sb, &["postgres"]);
    wait_for_trials(&sb, &mut r, 1, Duration::from_secs(180));
    let pid = postmaster_of(&sb).expect("the postmaster is running");
    // SAFETY: a server process this test's litebench started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let out = r.finish(Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(2), "{}", out.describe());
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line\n{}", out.describe()))
        .to_string();
    assert_eq!(
        out.stderr.lines().filter(|l| !l.contains("RAM filesystem")).count(),
        1,
        "{}",
        out.describe()
    );
    assert!(
        line.contains(&format!("the postgres server (pid {pid}) exited unexpectedly")),
        "{line}"
    );
    assert!(line.contains("finished trials kept"), "{line}");
    let v = out.json();
    assert_eq!(v["run"]["status"], "failed");
    assert!(
        !v["trials"].as_array().unwrap().is_empty(),
        "finished trials are reported"
    );
    sb.assert_clean("after the server died");
}

/// `postgres=URL` against a server litebench did not start for the run (one started through
/// the library here): the run works, the password is not shown, and the server's settings are
/// put back afterwards.
#[test]
fn postgres_url_runs_and_leaves_the_server_as_it_was() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let sb = Sandbox::new();
    let (outside, scratch) = outside_scratch();
    let server = litebench::engines::postgres::PostgresEngine::start(&scratch).expect("start a server");
    let port = server.info().details.unwrap()["port"].as_u64().unwrap();
    let url = format!("postgres://litebench:secret@127.0.0.1:{port}/postgres");
    let engine = format!("postgres={url}");
    let out = run(sb.run_std(&args(&tiny(&[&engine], &["--knob", "synchronous_commit=off"]))));
    let v = out.assert_success();
    let label = v["manifest"]["engines"][0]["label"].as_str().unwrap();
    assert_eq!(
        label,
        format!("postgres=postgres://litebench:***@127.0.0.1:{port}/postgres")
    );
    for part in ["engines", "configs"] {
        let shown = v["manifest"][part].to_string();
        assert!(
            !shown.contains("secret"),
            "the password leaked into manifest.{part}: {shown}"
        );
    }
    assert!(
        !v["trials"].to_string().contains("secret"),
        "the password leaked into the trials"
    );
    assert_eq!(v["manifest"]["engines"][0]["details"]["data_dir"], "external");
    for (req, eff) in readings(&v, 0, "synchronous_commit") {
        assert_eq!((req.as_deref(), eff.as_deref()), (Some("off"), Some("off")));
    }
    // fts on the same server beside SQLite: the same seed gives both the same text and the same
    // operations, and after each trial the check compared each engine's matching ids for the
    // same queries with a scan of that text, so PostgreSQL's ids are SQLite's.
    let fts = [
        "fts", "--engine", "sqlite", "--engine", &engine, "--trials", "1", "--warmup", "0", "--quiet", "--format",
        "json",
    ];
    let tiny_fts = [
        "documents=100",
        "vocabulary=300",
        "length=12",
        "operations=200",
        "check=20",
    ];
    let params = tiny_fts.iter().flat_map(|p| ["--param", p]);
    let f = run(sb.run_std(&fts.into_iter().chain(params).collect::<Vec<_>>())).assert_success();
    assert_eq!(f["run"]["status"], "complete", "{:#}", f["run"]);
    let ops = |t: &serde_json::Value| -> Vec<(String, u64)> {
        let ops = t["ops"].as_array().unwrap().iter();
        ops.map(|o| (o["name"].as_str().unwrap().to_string(), o["ops"].as_u64().unwrap()))
            .collect()
    };
    let trials = f["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 2, "{f:#}");
    assert_eq!(ops(&trials[0]), ops(&trials[1]), "both engines ran the same operations");
    let mut conn = server
        .connect(&DbRef {
            name: "postgres".into(),
            path: None,
        })
        .expect("connect");
    let entries = conn
        .query("SELECT name FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'")
        .unwrap();
    assert!(entries.is_empty(), "ALTER SYSTEM entries left behind: {entries:?}");
    let dbs = conn
        .query("SELECT datname FROM pg_database WHERE datname LIKE 'lb\\_%'")
        .unwrap();
    assert!(dbs.is_empty(), "databases left behind: {dbs:?}");
    drop(conn);
    drop(server);
    drop(scratch);
    sb.assert_clean("postgres URL");
    assert!(
        processes_under(outside.path()).is_empty(),
        "the library's server was not stopped"
    );
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "its data directory was left"
    );
}

/// `mysql=URL`: the same, with a global variable put back to its value.
#[test]
fn mysql_url_runs_and_leaves_the_server_as_it_was() {
    if !available(&[Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let (outside, scratch) = outside_scratch();
    let server = litebench::engines::mysql::MysqlEngine::start(&scratch).expect("start a server");
    let port = server.info().details.unwrap()["port"].as_u64().unwrap();
    let engine = format!("mariadb=mysql://root@127.0.0.1:{port}/");
    let out = run(sb.run_std(&args(&tiny(
        &[&engine],
        &["--knob", "innodb_flush_log_at_trx_commit=2"],
    ))));
    let v = out.assert_success();
    for (req, eff) in readings(&v, 0, "innodb_flush_log_at_trx_commit") {
        assert_eq!((req.as_deref(), eff.as_deref()), (Some("2"), Some("2")));
    }
    let mut conn = server
        .connect(&DbRef {
            name: "mysql".into(),
            path: None,
        })
        .expect("connect");
    let now = conn.query("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit").unwrap();
    assert_eq!(
        now,
        vec![vec![Some("1".to_string())]],
        "the global variable was not put back"
    );
    let dbs = conn.query("SHOW DATABASES LIKE 'lb\\_%'").unwrap();
    assert!(dbs.is_empty(), "databases left behind: {dbs:?}");
    drop(conn);
    drop(server);
    drop(scratch);
    sb.assert_clean("mysql URL");
    assert!(processes_under(outside.path()).is_empty());
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// Every suite and TATP run on PostgreSQL and MariaDB too, with their checks passing (each
/// suite verifies every statement's row count and every query's values): the speed
/// comparison's point was SQLite side by side with the servers. SQLite runs beside them, and
/// with the same seed all three answer every query alike: the trials' result hashes are equal
/// (none for the suites without queries; TATP's covers its first transactions, so its warm-up
/// is long enough for the slowest engine to run them).
#[test]
fn every_suite_and_tatp_run_on_both_servers() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let suites: &[(&str, &[&str], bool)] = &[
        ("speedtest", &["--param", "scale_percent=2"], true),
        ("rlbench", &["--param", "scale_percent=2"], true),
        ("acreve", &["--param", "scale_percent=2"], true),
        ("sqlite-benchmark", &["--param", "scale_percent=2"], true),
        ("androbench", &["--param", "scale_percent=5"], false),
        ("mobibench", &["--param", "count=20"], false),
        (
            "tatp",
            &[
                "--param",
                "subscribers=100",
                "--param",
                "warmup_time=3s",
                "--param",
                "measure_time=300ms",
            ],
            true,
        ),
    ];
    for (workload, params, queries) in suites {
        let sb = Sandbox::new();
        let mut a = vec![
            *workload, "--engine", "sqlite", "--engine", "postgres", "--engine", "mysql", "--trials", "1", "--warmup",
            "0",
        ];
        a.extend_from_slice(params);
        a.extend_from_slice(&["--quiet", "--format", "json"]);
        let v = run(sb.run_std(&a)).assert_success();
        assert_eq!(v["run"]["status"], "complete", "{workload}: {:#}", v["run"]);
        let trials = v["trials"].as_array().unwrap();
        assert_eq!(trials.len(), 3, "{workload}: one trial per engine");
        for t in trials {
            assert!(t["total_ops"].as_u64().unwrap() > 0, "{workload}: {t:#}");
        }
        let hashes: Vec<&serde_json::Value> = trials.iter().map(|t| &t["result_hash"]).collect();
        if *queries {
            let first = hashes[0]
                .as_str()
                .unwrap_or_else(|| panic!("{workload}: no result hash: {hashes:?}"));
            assert_eq!(first.len(), 64, "{workload}: {first}");
            assert!(
                hashes.iter().all(|h| h.as_str() == Some(first)),
                "{workload}: SQLite, PostgreSQL and MariaDB answered differently: {hashes:?}"
            );
        } else {
            assert!(hashes.iter().all(|h| h.is_null()), "{workload}: {hashes:?}");
        }
        sb.assert_clean(workload);
    }
    // json: SQLite's three storages and PostgreSQL's jsonb with GIN answer every read, filter
    // and expansion alike (MariaDB is refused: its JSON has no binary form or index of its own).
    let sb = Sandbox::new();
    let a = [
        "json",
        "--engine",
        "sqlite",
        "--engine",
        "postgres",
        "--knob",
        "json_storage=text,jsonb,generated",
        "--param",
        "documents=100",
        "--param",
        "operations=120",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ];
    let v = run(sb.run_std(&a)).assert_success();
    assert_eq!(v["run"]["status"], "complete", "json: {:#}", v["run"]);
    let trials = v["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 4, "json: three SQLite storages and PostgreSQL");
    let answers: Vec<&serde_json::Value> = trials.iter().map(|t| &t["queries"]).collect();
    assert_eq!(answers[0].as_array().map(Vec::len), Some(3), "json: {answers:?}");
    assert!(
        answers.iter().all(|a| *a == answers[0]),
        "json: the engines answered differently: {answers:?}"
    );
    sb.assert_clean("json");
}
