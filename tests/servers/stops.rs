//! A stop signal during a measured trial on a server litebench started: a runaway statement
//! (a recursive CTE that never ends by itself) is cancelled on the server (PostgreSQL's cancel
//! request, MariaDB's `KILL QUERY`), the server is stopped, and the run is stored as
//! interrupted (exit 130) within seconds; today the statement ran on until kill -9.

use crate::servers::common::*;
use crate::support::Sandbox;
use std::time::{Duration, Instant};

/// A recursive CTE without an end, in each server's dialect (MariaDB stops a recursion at
/// `max_recursive_iterations`, so it is raised first).
const RUNAWAY_PG: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c;\n";
const RUNAWAY_MY: &str = "SET SESSION max_recursive_iterations = 4294967295;\nWITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c;\n";

fn stop_a_runaway_on(engine: &str, script: &str, sig: libc::c_int) {
    let sb = Sandbox::new();
    let file = sb.root().join("runaway.sql");
    std::fs::write(&file, script).unwrap();
    let file_param = format!("file={}", file.display());
    let mut run = Running::start(sb.run_std(&[
        "script",
        "--param",
        &file_param,
        "--param",
        "transactions=1",
        "--engine",
        engine,
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    // Stored as running once the server is up; the trial (the runaway statement) comes next.
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        assert!(run.is_running(), "litebench exited before the test acted");
        let listed = sb
            .show_std(&["--list", "--format", "json"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok());
        if listed.is_some_and(|v| v[0]["status"] == "running") {
            break;
        }
        assert!(Instant::now() < deadline, "the run did not start within 180 s");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(2));
    assert!(run.is_running(), "the runaway statement ended by itself");
    let sent = Instant::now();
    run.signal(sig);
    let out = run.finish(Duration::from_secs(30));
    let context = format!("{engine}, signal {sig}");
    eprintln!("{context}: exited {:?} after the signal", sent.elapsed());
    assert_eq!(out.status.code(), Some(130), "{context}\n{}", out.describe());
    // Within 10 s of the signal, the server's shutdown included.
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{context}: {:?}",
        sent.elapsed()
    );
    assert_eq!(out.json()["run"]["status"], "interrupted", "{context}");
    sb.assert_clean(&format!("after {context} during a runaway statement"));
}

#[test]
fn a_runaway_statement_on_postgres_is_cancelled() {
    if !available(&[Server::Postgres]) {
        return;
    }
    stop_a_runaway_on("postgres", RUNAWAY_PG, libc::SIGINT);
}

#[test]
fn a_runaway_statement_on_mysql_is_killed() {
    if !available(&[Server::Mysql]) {
        return;
    }
    stop_a_runaway_on("mysql", RUNAWAY_MY, libc::SIGTERM);
}
