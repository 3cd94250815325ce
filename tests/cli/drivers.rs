//! `run --driver`: a workload's transactions through a driver process per client
//! (docs/drivers.md), its knobs read back in the manifest, its lock failures by cause, and the
//! runs it is refused for. The drivers are set up in litebench's cache (`.ci/run` runs
//! `litebench drivers setup` first); python-sqlite3 and noop-python need only python3.

use crate::cli::common::*;

/// A tiny crud run through `drivers`, with `args`: its JSON.
fn through(sb: &Sandbox, drivers: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["crud", "--driver", drivers];
    all.extend_from_slice(args);
    once(sb, &all)
}

/// A run of `args` with one trial and no warm-up, which must succeed: its JSON.
fn once(sb: &Sandbox, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--trials", "1", "--warmup", "0", "--quiet"]);
    let out = output(&mut sb.run(&all));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    sb.show_json()
}

/// Each operation type of configuration `config`'s first trial: its name, transactions,
/// successes and failures.
fn counts(v: &serde_json::Value, config: u64) -> Vec<(String, u64, u64, u64)> {
    let trial = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["config"] == config)
        .unwrap();
    trial["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let n = |f: &str| o[f].as_u64().unwrap();
            (
                o["name"].as_str().unwrap().to_string(),
                n("ops"),
                n("succeeded"),
                n("failed"),
            )
        })
        .collect()
}

/// Whether a line of `text`'s tables starts with `cells`, column by column.
fn has_row(text: &str, cells: &[&str]) -> bool {
    text.lines().any(|l| {
        l.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .take(cells.len())
            .eq(cells.iter().copied())
    })
}

fn sum(trial: &serde_json::Value, field: &str) -> u64 {
    trial["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o[field].as_u64().unwrap())
        .sum()
}

#[test]
fn crud_runs_through_python_sqlite3_in_two_client_processes_with_its_knobs_read_back() {
    let sb = Sandbox::new();
    let mut args = vec![
        "--clients",
        "2",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "synchronous=normal",
    ];
    args.extend_from_slice(&["--knob", "busy_timeout=5000"]);
    args.extend_from_slice(TINY_PARAMS);
    let v = through(&sb, "python-sqlite3", &args);
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let trial = &v["trials"][0];
    // Every transaction of both clients' shares came back, each a success.
    assert_eq!(sum(trial, "ops"), 60, "{:#}", trial["ops"]);
    assert_eq!(sum(trial, "succeeded"), 60);
    let driver = &v["manifest"]["configs"][0]["driver"];
    assert_eq!(driver["driver"], "python-sqlite3");
    assert!(
        driver["runtime"].as_str().unwrap().starts_with("CPython 3."),
        "{driver:#}"
    );
    let version = driver["sqlite_version"].as_str().unwrap();
    assert!(
        version.starts_with("3.") && version.split('.').count() == 3,
        "{version}"
    );
    assert!(!driver["compile_options"].as_array().unwrap().is_empty());
    let read: Vec<(String, String)> = driver["knobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["name"].as_str().unwrap().into(), k["value"].as_str().unwrap().into()))
        .collect();
    let asked = [
        ("journal_mode", "wal"),
        ("synchronous", "normal"),
        ("busy_timeout", "5000"),
    ];
    let asked: Vec<(String, String)> = asked.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    assert_eq!(read, asked);
    let implicit = driver["implicit"].to_string();
    assert!(
        implicit.contains("isolation_level") && implicit.contains("BEGIN"),
        "{implicit}"
    );
    assert!(v["manifest"]["configs"][0]["label"]
        .as_str()
        .unwrap()
        .contains("driver=python-sqlite3"));
    // The driver's process runs its own SQLite, whose syncs litebench does not count: unknown,
    // never 0.
    for row in v["summary"].as_array().unwrap() {
        assert!(row["syncs_per_tx"].is_null(), "{row:#}");
    }
    // The report says which SQLite ran and how each setting came to be: knobs as the driver
    // read them back, and what the binding set by itself; the checklist names its SQLite.
    let out = output(&mut sb.show(&[]));
    assert_success(&out);
    let text = stdout(&out);
    let has = |cells: &[&str]| has_row(&text, cells);
    assert!(has(&["0", "python-sqlite3", "journal_mode", "wal"]), "{text}");
    assert!(has(&["0", "python-sqlite3", "busy_timeout", "5000"]), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("0  python-sqlite3  isolation_level [binding]  ")),
        "{text}"
    );
    let sqlite_row = format!("  {version} (");
    assert!(
        text.lines()
            .any(|l| l.starts_with("0  python-sqlite3  SQLite  ") && l.contains(&sqlite_row)),
        "{text}"
    );
    let checklist = v["checklist"].to_string();
    assert!(
        checklist.contains("python-sqlite3 through sqlite3 (stdlib)")
            && checklist.contains(&format!(": SQLite {version},")),
        "{checklist}"
    );
}

#[test]
fn a_lock_failure_through_a_driver_is_counted_by_its_cause() {
    let sb = Sandbox::new();
    // Two writers with no busy handler in rollback-journal mode: autocommit writes meet the
    // other's lock at their start, which SQLite reports as a plain SQLITE_BUSY (busy_timeout).
    let v = through(
        &sb,
        "python-sqlite3",
        &[
            "--clients",
            "2",
            "--knob",
            "busy_timeout=0",
            "--knob",
            "synchronous=off",
            "--param",
            "duration=300ms",
        ],
    );
    let trial = &v["trials"][0];
    let busy = sum(trial, "busy");
    assert!(busy > 0, "no lock failure in 300 ms of two writers: {:#}", trial["ops"]);
    assert_eq!(sum(trial, "busy_timeout"), busy, "{:#}", trial["ops"]);
    assert_eq!(sum(trial, "busy_upgrade") + sum(trial, "busy_snapshot"), 0);
    assert!(sum(trial, "succeeded") > 0);
}

/// Also: with two SQLite engines, litebench's loop runs on each and the driver, which carries
/// its own SQLite whatever the engine's library, runs once.
#[test]
fn the_noop_driver_answers_every_transaction_without_a_database() {
    let sb = Sandbox::new();
    let debian = "sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0";
    let mut args = vec!["--engine", "sqlite", "--engine", debian];
    args.extend_from_slice(TINY_PARAMS);
    let v = through(&sb, "rust,noop-python", &args);
    let configs = v["manifest"]["configs"].as_array().unwrap();
    let labels: Vec<&str> = configs.iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(configs.len(), 3, "{labels:?}");
    assert!(configs[0].get("driver").is_none(), "the rust loop is no driver process");
    assert_eq!(configs[1]["driver"]["sqlite_version"], "none");
    assert_eq!(
        (configs[1]["engine"].as_str(), configs[2]["engine"].as_str()),
        (Some("sqlite"), Some(debian))
    );
    assert!(configs[2].get("driver").is_none(), "{labels:?}");
    for trial in v["trials"].as_array().unwrap() {
        assert_eq!(sum(trial, "succeeded"), 60, "{:#}", trial["ops"]);
    }
}

#[test]
fn drivers_are_refused_in_one_line_where_they_cannot_run() {
    let sb = Sandbox::new();
    let gset = sb.root().join("gset.sql");
    std::fs::write(&gset, "SELECT 1 AS one\n\\gset\nSELECT :one;\n").unwrap();
    let gset = format!("file={}", gset.display());
    let cases: [(&[&str], &str); 3] = [
        (
            &["crud", "--driver", "python-sqlite3", "--engine", "postgres"],
            "error: --driver python-sqlite3: a driver carries its own SQLite, so it runs only with --engine sqlite, not postgres",
        ),
        (&["crud", "--driver", "perl"], "error: --driver perl: no such driver; litebench has rust, python-sqlite3"),
        (
            &["script", "--param", &gset, "--driver", "python-sqlite3"],
            "cannot run through a driver: ",
        ),
    ];
    for (args, says) in cases {
        let out = output(&mut sb.run(args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let out = output(&mut sb.run(&["script", "--param", &gset, "--driver", "python-sqlite3"]));
    assert!(
        stderr(&out).contains("gset.sql:1: a \\gset/\\aset feeds a statement's result"),
        "{}",
        stderr(&out)
    );
}

/// Every driver litebench carries, set up in the cache as a run sets it up
/// (`litebench drivers setup`), checked against the protocol (version 3) by drivers/conformance.py; the no-op
/// drivers, which touch no database, must fail it, so its checks can fail.
#[test]
fn every_driver_passes_conformance_and_the_noop_drivers_fail_it() {
    let sb = Sandbox::new();
    // CI sets every driver up before the tests; elsewhere a cold cache compiles the SQLite each
    // carries here, minutes of two cores (docs/drivers.md).
    let cold = std::time::Duration::from_secs(1200);
    let out = output(sb.litebench().args(["drivers", "setup"]).timeout(cold));
    assert_success(&out);
    let conformance = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/conformance.py");
    let mut noop = 0;
    let lines = stdout(&out);
    for line in lines.lines() {
        let (name, rest) = line.split_once(": ready in ").unwrap_or_else(|| panic!("{lines}"));
        let dest = rest.rsplit_once(" (").map_or(rest, |(d, _)| d);
        let command = std::fs::read_to_string(std::path::Path::new(dest).join("command")).unwrap();
        let checked = std::process::Command::new("python3")
            .arg(&conformance)
            .arg(dest)
            .args(command.split_whitespace())
            .output()
            .expect("python3 runs drivers/conformance.py");
        if name.starts_with("noop-") {
            noop += 1;
            assert!(!checked.status.success(), "{name} touches no database yet passed");
        } else {
            assert!(
                checked.status.success(),
                "{name} fails conformance:\n{}{}",
                String::from_utf8_lossy(&checked.stdout),
                String::from_utf8_lossy(&checked.stderr)
            );
        }
    }
    assert_eq!((lines.lines().count(), noop), (9, 3), "{lines}");
}

/// An open loop through a driver: each transaction is sent with its intended start, the driver
/// waits for it, and latency runs from it; so a trial runs about rate x duration transactions,
/// where a driver that ignored the schedule would run thousands.
#[test]
fn an_open_loop_through_a_driver_keeps_its_schedule() {
    let sb = Sandbox::new();
    let v = through(
        &sb,
        "python-sqlite3",
        &[
            "--clients",
            "2",
            "--rate",
            "200",
            "--knob",
            "journal_mode=wal",
            "--knob",
            "busy_timeout=5000",
            "--param",
            "duration=1500ms",
        ],
    );
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let ran = sum(&v["trials"][0], "ops");
    // 300 due in 1.5 s (Poisson arrivals: a few dozen either way).
    assert!((180..=420).contains(&ran), "{ran} transactions at 200/s for 1.5 s");
    // The time series counts each of them once, from the driver's own times.
    let points = v["trials"][0]["series"]["points"].as_array().unwrap();
    let in_series: u64 = points.iter().map(|p| p["ops"].as_u64().unwrap()).sum();
    assert_eq!(in_series, ran, "{points:#?}");
    let all = v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "all")
        .cloned()
        .unwrap_or_else(|| v["summary"][0].clone());
    assert!(all["latency_p50_us"].as_f64().unwrap() > 0.0, "{all:#}");
}

/// A cast whose writer runs through its own driver (`driver = "python-sqlite3"`), beside readers
/// that take the configuration's: litebench's own loop in #0, `noop-python` in #1 (`--driver
/// rust,noop-python`). Each role's transactions are counted under its name and in its series,
/// and each role's driver is probed with the role's knobs and kept in the manifest.
#[test]
fn a_casts_roles_run_through_their_own_driver_or_the_configurations() {
    let sb = Sandbox::new();
    let cast = sb.root().join("cast.toml");
    std::fs::write(
        &cast,
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\ndriver = \"python-sqlite3\"\nrate = 100\nbusy_timeout = 5000\nparams = { workload = \"a\" }\n\n\
         [[role]]\nname = \"readers\"\nkind = \"workload\"\nclients = 2\nrate = 200\nparams = { workload = \"c\" }\n\n\
         [[role]]\nname = \"ckpt\"\nkind = \"checkpoint\"\ncheckpoint = \"PASSIVE\"\nevery = \"500ms\"\n",
    )
    .unwrap();
    let cast = cast.display().to_string();
    let args = [
        "ycsb",
        "--cast",
        &cast,
        "--driver",
        "rust,noop-python",
        "--param",
        "records=200",
        "--param",
        "duration=1500ms",
        "--knob",
        "journal_mode=wal",
        "--trials",
        "1",
        "--warmup",
        "0",
    ];
    let out = output(&mut sb.run(&args));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("writer: 1 client through python-sqlite3 at 100 tx/s"),
        "{text}"
    );
    let has = |cells: &[&str]| has_row(&text, cells);
    // The writer's row holds for both configurations: `all`.
    assert!(
        has(&["all", "writer: python-sqlite3", "busy_timeout", "5000"]),
        "{text}"
    );
    assert!(has(&["1", "readers: noop-python", "SQLite"]), "{text}");
    let v = sb.show_json();
    let configs = v["manifest"]["configs"].as_array().unwrap();
    let roles = |i: usize| -> Vec<(String, String)> {
        configs[i]["role_drivers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["role"].as_str().unwrap().into(), d["driver"].as_str().unwrap().into()))
            .collect()
    };
    let pair = |r: &str, d: &str| (r.to_string(), d.to_string());
    assert_eq!(roles(0), [pair("writer", "python-sqlite3")]);
    assert_eq!(
        roles(1),
        [pair("writer", "python-sqlite3"), pair("readers", "noop-python")]
    );
    let writer = &configs[0]["role_drivers"][0];
    assert!(
        writer["knobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["name"] == "busy_timeout" && k["value"] == "5000"),
        "{writer:#}"
    );
    for (i, trial) in v["trials"].as_array().unwrap().iter().enumerate() {
        let ops = trial["ops"].as_array().unwrap();
        let of = |prefix: &str| -> u64 {
            ops.iter()
                .filter(|o| {
                    let name = o["name"].as_str().unwrap();
                    name.starts_with(prefix) && !name.ends_with(":all")
                })
                .map(|o| o["succeeded"].as_u64().unwrap())
                .sum()
        };
        // 100 and 200 tx/s for 1.5 s, each a few dozen either way (the no-op driver answers
        // at once, keeping no schedule).
        assert!((60..=300).contains(&of("writer:")), "trial {i}: {ops:#?}");
        let readers = of("readers:");
        assert!(
            readers > 0 && (i == 1 || (150..=500).contains(&readers)),
            "trial {i}: {ops:#?}"
        );
        let points = trial["series"]["points"].as_array().unwrap();
        assert!(
            points
                .iter()
                .any(|p| p["op"].as_str().unwrap().starts_with("writer:") && p["ops"].as_u64().unwrap() > 0),
            "trial {i}: the writer's series is empty"
        );
    }
}

#[test]
fn a_casts_driver_is_refused_in_one_line_where_its_role_cannot_run_through_it() {
    let sb = Sandbox::new();
    let cases: [(&str, &[&str], &str); 5] = [
        (
            "driver = \"perl\"",
            &[],
            "role \"w\": driver: \"perl\" is not valid; valid values: rust, python-sqlite3",
        ),
        (
            "driver = \"python-sqlite3\"\nmode = \"processes\"",
            &[],
            "role \"w\": driver: \"python-sqlite3\" with mode = \"processes\": each client of a driver is a process of its own already; leave out mode",
        ),
        (
            "driver = \"python-sqlite3\"\nat = \"500ms\"",
            &[],
            "role \"w\": driver: \"python-sqlite3\" with at, every or for: a driver's clients run from the common start to the trial's end",
        ),
        (
            "clients = 2\nconnections = \"shared\"",
            &["--driver", "python-sqlite3"],
            "role \"w\" through driver python-sqlite3: connections = \"shared\", but each client of a driver has a connection of its own",
        ),
        (
            "driver = \"python-sqlite3\"",
            &["--engine", "turso"],
            "role \"w\": per-connection knobs (driver) needs a SQLite engine, and engine turso is not one",
        ),
    ];
    for (role, extra, says) in cases {
        let cast = sb.root().join("cast.toml");
        std::fs::write(&cast, format!("[[role]]\nname = \"w\"\nkind = \"workload\"\n{role}\n")).unwrap();
        let cast = cast.display().to_string();
        let mut args = vec!["ycsb", "--cast", &cast, "--param", "duration=1s"];
        args.extend_from_slice(extra);
        let out = output(&mut sb.run(&args));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{role}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{role}: {err}");
        assert!(err.contains(says), "{role}: {err}");
    }
}

/// A log replayed through a driver runs each statement as the log wrote it, its own BEGIN and
/// COMMIT included (sent in the batch that first runs it: protocol 2), and a failing statement
/// is counted as litebench's own loop counts it (`on_error=count`): both configurations run
/// the same statements with the same outcomes.
#[test]
fn a_log_replays_through_a_driver_as_it_replays_in_litebenchs_loop() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.cwd().join("app.sql"),
        "CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT);\nBEGIN;\nINSERT INTO kv VALUES (1, 'one');\nINSERT INTO kv VALUES (2, 'two');\nCOMMIT;\nSELEC 1;\nSELECT v FROM kv WHERE k = 2;\nUPDATE kv SET v = 'uno' WHERE k = 1;\n",
    )
    .unwrap();
    let v = once(
        &sb,
        &[
            "replay",
            "--param",
            "log=app.sql",
            "--param",
            "on_error=count",
            "--driver",
            "rust,python-sqlite3",
        ],
    );
    let outcomes = |config| -> Vec<(String, u64, u64)> {
        counts(&v, config)
            .into_iter()
            .map(|(n, ops, ok, _)| (n, ops, ok))
            .collect()
    };
    let (rust, python) = (outcomes(0), outcomes(1));
    assert_eq!(rust, python);
    let selec = python.iter().find(|(n, _, _)| n.starts_with("SELEC ")).unwrap();
    assert_eq!((selec.1, selec.2), (1, 0), "{python:?}");
    let insert = python.iter().find(|(n, _, _)| n.starts_with("INSERT")).unwrap();
    assert_eq!((insert.1, insert.2), (2, 2), "{python:?}");
}

/// TATP through a driver is judged by TATP's rules, as litebench's own loop judges it: a
/// transaction succeeds where its last statement found or changed a row, and a call forwarding
/// inserted twice is rolled back by its key as an unsuccessful transaction, not an error. Where
/// success rests on the populated tables alone (GET_ACCESS_DATA finds an `ai_type` with about
/// 62.5% chance), both ways agree; where it rests on what earlier transactions inserted
/// (call_forwarding), it depends on how many ran, so only both outcomes are required.
#[test]
fn tatp_through_a_driver_is_judged_by_tatps_rules() {
    let sb = Sandbox::new();
    let v = once(
        &sb,
        &[
            "tatp",
            "--param",
            "subscribers=100",
            "--param",
            "measure_time=1s",
            "--param",
            "warmup_time=100ms",
            "--driver",
            "rust,python-sqlite3",
        ],
    );
    let rates = |config| counts(&v, config);
    let (rust, python) = (rates(0), rates(1));
    for (name, ops, ok, failed) in &python {
        assert!(*ops > 0, "{name}: {python:?}");
        assert_eq!(*failed, 0, "{name}: {python:?}");
        match name.as_str() {
            // Every subscriber exists: found, and its location changed.
            "GET_SUBSCRIBER_DATA" | "UPDATE_LOCATION" => assert_eq!(ok, ops, "{name}: {python:?}"),
            // Some found or changed no row; an insert some rejected by its key, not failed.
            _ => assert!(*ok > 0 && ok < ops, "{name}: {python:?}"),
        }
    }
    let rate = |of: &[(String, u64, u64, u64)]| {
        let (_, ops, ok, _) = of.iter().find(|r| r.0 == "GET_ACCESS_DATA").unwrap();
        *ok as f64 / *ops as f64
    };
    let (p, r) = (rate(&python), rate(&rust));
    assert!((p - r).abs() < 0.15, "GET_ACCESS_DATA: python {p:.2}, rust {r:.2}");
}

/// The queue through a driver: a claim's per-job statements run by the driver bound to the ids its
/// select returned, the jobs it took handed back so that the client finishes them, and the queue
/// checked whole after the trial (no job lost or claimed twice), as in litebench's own loop; a
/// cast's workers through their own driver beside producers in litebench's loop.
#[test]
fn the_queue_runs_through_a_driver_claiming_and_finishing_what_it_took() {
    let sb = Sandbox::new();
    let v = once(
        &sb,
        &[
            "queue",
            "--param",
            "duration=1s",
            "--clients",
            "2",
            "--driver",
            "rust,python-sqlite3",
        ],
    );
    let python = counts(&v, 1);
    let op = |name: &str| {
        let (_, ops, ok, failed) = python.iter().find(|o| o.0 == name).unwrap();
        (*ops, *ok, *failed)
    };
    let (claims, claimed, _) = op("claim");
    let (finishes, finished, failed) = op("finish");
    let (waits, _, _) = op("queue wait");
    assert!(
        claimed > 0 && claimed <= claims,
        "claims {claims}, took a job {claimed}"
    );
    assert!(
        finished > 0 && finished == finishes && failed == 0,
        "finish {finishes}/{finished}/{failed}"
    );
    // Each job a claim took has its wait recorded.
    assert!(waits >= claimed, "{waits} waits for {claimed} claims that took jobs");

    std::fs::write(
        sb.cwd().join("cast.toml"),
        "[[role]]\nname = \"producers\"\nkind = \"workload\"\nrate = 300\nparams = { role = \"producer\" }\n\n[[role]]\nname = \"workers\"\nkind = \"workload\"\nclients = 2\ndriver = \"python-sqlite3\"\nparams = { role = \"worker\", poll_interval = \"50ms\" }\n",
    )
    .unwrap();
    let v = once(&sb, &["queue", "--cast", "cast.toml", "--param", "duration=1s"]);
    let cast = counts(&v, 0);
    let done = |name: &str| cast.iter().find(|o| o.0 == name).map_or(0, |o| o.2);
    assert!(done("workers:claim") > 0 && done("workers:finish") > 0, "{cast:?}");
    assert!(done("producers:enqueue") > 100, "{cast:?}");
    let roles = v["manifest"]["configs"][0]["role_drivers"].as_array().unwrap();
    assert_eq!(roles[0]["role"], "workers");
    assert_eq!(roles[0]["driver"], "python-sqlite3");
}
