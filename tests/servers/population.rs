//! A stop signal during the population of a template on a server litebench started: the
//! population stops within a few hundred rows, the server is stopped and its data directory
//! removed, and the run is stored as interrupted (exit 130).

use crate::servers::common::*;
use crate::support::{processes_under, Sandbox, HUGE_POPULATION};
use std::time::{Duration, Instant};

/// Starts a crud run on `engine` whose population would take hours row by row through the
/// server's protocol (100 million rows).
fn huge_population(sb: &Sandbox, engine: &str) -> Running {
    let args = [
        &["crud", "--engine", engine][..],
        HUGE_POPULATION,
        &["--format", "json"],
    ]
    .concat();
    Running::start(sb.run_std(&args))
}

/// Waits until the run is stored as running (its server is up: engines start before the run is
/// stored, and the population comes next), then gives the population a few seconds.
fn wait_for_population(sb: &Sandbox, run: &mut Running) {
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
    std::thread::sleep(Duration::from_secs(3));
    assert!(run.is_running(), "litebench exited while populating");
    assert!(
        !processes_under(sb.root()).is_empty(),
        "no server process seen while populating"
    );
}

fn stop_a_server_population(engine: &str, sig: libc::c_int) {
    let sb = Sandbox::new();
    let mut run = huge_population(&sb, engine);
    wait_for_population(&sb, &mut run);
    run.signal(sig);
    // Generous (a server takes a moment to shut down); today the population went on for hours.
    let out = run.finish(Duration::from_secs(60));
    let context = format!("{engine}, signal {sig}");
    assert_eq!(out.status.code(), Some(130), "{context}\n{}", out.describe());
    assert!(
        out.stderr
            .lines()
            .any(|l| l.starts_with("interrupted: 0 finished trials kept")),
        "{context}\n{}",
        out.describe()
    );
    let v = out.json();
    assert_eq!(v["run"]["status"], "interrupted", "{context}");
    sb.assert_clean(&format!("after {context} during the population"));
}

#[test]
fn a_stopped_population_on_postgres_stops_its_server() {
    if !available(&[Server::Postgres]) {
        return;
    }
    stop_a_server_population("postgres", libc::SIGINT);
    stop_a_server_population("postgres", libc::SIGHUP);
}

#[test]
fn a_stopped_population_on_mysql_stops_its_server() {
    if !available(&[Server::Mysql]) {
        return;
    }
    stop_a_server_population("mysql", libc::SIGTERM);
}
