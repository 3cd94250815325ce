//! The `queue` workload on the servers litebench starts: producers, workers and a janitor as
//! roles on PostgreSQL and MariaDB, whose claims take `FOR UPDATE SKIP LOCKED` as Solid Queue's
//! do there. Every trial passes the queue's check (each unfinished job has exactly one
//! execution), the workers' claims record each job's wait, and two workers claiming at once
//! skip each other's locked rows instead of failing.

use crate::servers::common::*;

use crate::support::QUEUE_CAST as CAST;

#[test]
fn producers_workers_and_a_janitor_run_on_both_servers_and_lose_no_job() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let cast = sb.root().join("queue.toml");
    std::fs::write(&cast, CAST).unwrap();
    let v = run(sb.run_std(&[
        "queue",
        "--cast",
        cast.to_str().unwrap(),
        "--param",
        "duration=2s",
        "--param",
        "backlog=50",
        "--engine",
        "postgres",
        "--engine",
        "mysql",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
    .assert_success();
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let trials = v["trials"].as_array().expect("trials");
    assert_eq!(trials.len(), 2);
    for t in trials {
        let op = |name: &str| {
            t["ops"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == name)
                .unwrap_or_else(|| panic!("no {name} in {:#}", t["ops"]))
                .clone()
        };
        let enqueued = op("producers:enqueue")["ops"].as_u64().unwrap();
        let claimed = op("workers:queue wait")["ops"].as_u64().unwrap();
        let finished = op("workers:finish")["ops"].as_u64().unwrap();
        assert!(enqueued >= 300, "about 200 jobs/s for 2 s: {enqueued}");
        assert!(
            claimed >= 50 + enqueued * 9 / 10,
            "the backlog and the jobs enqueued are claimed: {claimed}"
        );
        assert!(finished + 2 >= claimed, "claimed {claimed}, finished {finished}");
        assert_eq!(op("workers:claim")["busy"], 0, "SKIP LOCKED: no claim fails on a lock");
        assert!(op("workers:queue wait")["latency"]["p99_ns"].as_u64().unwrap() > 0);
    }
}

/// Item 28 of issue 46: Solid Queue's workers are processes of their own; on PostgreSQL each
/// dials the server the run configured, reads the knobs back through its own session, and the
/// queue loses no job.
#[test]
fn workers_as_processes_run_on_postgres_and_read_the_knobs_back() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let sb = Sandbox::new();
    let cast = sb.root().join("queue.toml");
    std::fs::write(
        &cast,
        CAST.replace("clients = 2\n", "clients = 2\nmode = \"processes\"\n"),
    )
    .unwrap();
    assert!(std::fs::read_to_string(&cast).unwrap().contains("mode = \"processes\""));
    let v = run(sb.run_std(&[
        "queue",
        "--cast",
        cast.to_str().unwrap(),
        "--param",
        "duration=2s",
        "--param",
        "backlog=50",
        "--engine",
        "postgres",
        "--knob",
        "synchronous_commit=off",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
    .assert_success();
    let roles = v["manifest"]["load"]["cast"]["roles"].as_array().expect("roles");
    let workers = roles.iter().find(|r| r["name"] == "workers").expect("workers");
    assert_eq!(workers["mode"], "processes", "{workers:#}");
    let t = &v["trials"][0];
    let op = |name: &str| {
        t["ops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {:#}", t["ops"]))
            .clone()
    };
    let enqueued = op("producers:enqueue")["ops"].as_u64().unwrap();
    let claimed = op("workers:queue wait")["ops"].as_u64().unwrap();
    assert!(
        claimed >= 50 + enqueued * 9 / 10,
        "the worker processes claimed the backlog and the jobs enqueued: {claimed} of {enqueued} + 50"
    );
    assert_eq!(op("workers:claim")["busy"], 0, "SKIP LOCKED: no claim fails on a lock");
    sb.assert_clean("queue workers as processes on postgres");
}
