//! `litebench run queue`: the job queue after Solid Queue on SQLite, as one client mix and as a
//! cast of producers, workers and a janitor; its answer and table in the terminal (jobs per
//! second, the wait from enqueue to claim, lock failures by cause), and its refusal of DuckDB.

use crate::cli::common::*;

use crate::support::QUEUE_CAST as CAST;

#[test]
fn a_cast_of_producers_workers_and_a_janitor_answers_in_jobs_and_waits() {
    let sb = Sandbox::new();
    let cast = sb.root().join("queue.toml");
    std::fs::write(&cast, CAST).unwrap();
    let o = output(
        sb.run(&[
            "queue",
            "--cast",
            cast.to_str().unwrap(),
            "--param",
            "duration=1s",
            "--knob",
            "begin=deferred,immediate",
            "--trials",
            "1",
            "--warmup",
            "0",
        ])
        .env("COLUMNS", "80"),
    );
    assert_success(&o);
    let out = stdout(&o);
    let answer = out
        .lines()
        .skip_while(|l| !l.starts_with("answer: "))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ");
    // What the web request waits for leads, then jobs in and out and the wait.
    let enqueue = answer.find("enqueue p99").expect("the enqueue's p99 in the answer");
    assert!(enqueue < answer.find("jobs/s in").unwrap(), "{out}");
    assert!(answer.contains("wait p50"), "{out}");
    // Deferred claims meet refused upgrades: tried once, as Solid Queue tries them, and said.
    assert!(answer.contains("tried once as Solid Queue tries them"), "{out}");
    assert!(
        out.contains("queue: jobs/s in and out (median of the trials' rates"),
        "the queue's table leads: {out}"
    );
    // Rails 8's SQLite settings are the workload's defaults.
    assert!(
        out.contains("journal_mode=wal") && out.contains("busy_timeout=5000"),
        "{out}"
    );
    let v = sb.show_json();
    let ops: Vec<String> = v["trials"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap().to_string())
        .collect();
    for name in [
        "producers:enqueue",
        "workers:claim",
        "workers:queue wait",
        "workers:finish",
        "janitor:prune",
    ] {
        assert!(ops.iter().any(|o| o == name), "{name} in {ops:?}");
    }
    for l in out.lines() {
        assert!(l.chars().count() <= 80, "wider than 80 columns: {l}");
    }
}

#[test]
fn duckdb_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let o = output(&mut sb.run(&["queue", "--engine", "duckdb", "--trials", "1", "--warmup", "0"]));
    assert_run_error_line(&o, &["DuckDB is not a queue's engine", "run queue on sqlite"]);
}

/// The queue as pgbench scripts (docs/queue/*.sql: `\aset`, `\if`, `\gset`, `:client_id`)
/// runs with two clients on SQLite, and every job a worker claimed it also finished.
#[test]
fn the_documented_queue_scripts_run_and_finish_every_job_they_claim() {
    let sb = Sandbox::new();
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/queue");
    let f = |n: &str| docs.join(n).display().to_string();
    let files = format!("file={}@10,{}@10,{}@1", f("enqueue.sql"), f("work.sql"), f("prune.sql"));
    let init = format!("init={}", f("schema.sql"));
    let o = output(&mut sb.run(&[
        "script",
        "--param",
        &init,
        "--param",
        &files,
        "--param",
        "transactions=400",
        "--clients",
        "2",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "busy_timeout=5000",
        "--trials",
        "1",
        "--warmup",
        "0",
    ]));
    assert_success(&o);
    let v = sb.show_json();
    let ops = v["trials"][0]["ops"].as_array().unwrap();
    let count = |statement: &str| -> u64 {
        ops.iter()
            .filter(|o| o["name"].as_str().unwrap().ends_with(statement))
            .map(|o| o["ops"].as_u64().unwrap())
            .sum()
    };
    let claimed = count("work.sql:9 INSERT solid_queue_claimed_executions");
    let finished = count("work.sql:18 UPDATE solid_queue_jobs");
    let polls = count("work.sql:6 SELECT solid_queue_ready_executions");
    assert!(
        claimed > 0 && claimed <= polls,
        "claimed {claimed} of {polls} polls: {ops:#?}"
    );
    assert_eq!(claimed, finished, "every claimed job is finished by the same script");
}

/// Issue 46, item 31: a queue run with a backup role says, in its answer, what the queue's
/// operations did while the backup ran, as aging's answer does.
#[test]
fn a_backup_beside_the_queue_is_in_its_answer() {
    let sb = Sandbox::new();
    let cast = sb.root().join("backup.toml");
    std::fs::write(
        &cast,
        r#"
[[role]]
name = "producers"
kind = "workload"
rate = 200
params = { role = "producer" }

[[role]]
name = "workers"
kind = "workload"
params = { role = "worker", poll_interval = "10ms" }

[[role]]
name = "backup"
kind = "backup"
pages = 1
pause = "5ms"
at = "200ms"
"#,
    )
    .unwrap();
    let o = output(
        sb.run(&[
            "queue",
            "--cast",
            cast.to_str().unwrap(),
            "--param",
            "duration=1s",
            "--param",
            "backlog=1000",
            "--interval",
            "100ms",
            "--trials",
            "1",
            "--warmup",
            "0",
        ])
        .env("COLUMNS", "80"),
    );
    assert_success(&o);
    let out = stdout(&o);
    let answer = out
        .lines()
        .skip_while(|l| !l.starts_with("answer: "))
        .take_while(|l| !l.is_empty())
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(answer.contains("While backup ran (1 run): workers:"), "{out}");
}
