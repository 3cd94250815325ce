//! Load shapes (`--clients`, `--rate`, `--latency-limit`, `--max-tries`): a run with several
//! clients on a rate stores its load and reports it in every format; every flag's bad value and
//! every combination that cannot be run is refused in one line before anything is created.

use crate::cli::common::*;

const CRUD: &[&str] = &[
    "crud",
    "--param",
    "rows=200",
    "--param",
    "inserts=60",
    "--param",
    "updates=60",
    "--param",
    "deletes=60",
    "--trials",
    "1",
    "--warmup",
    "0",
    "--quiet",
];

#[test]
fn several_clients_on_a_rate_run_and_report_their_load() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(CRUD);
    cmd.args([
        "--clients",
        "3",
        "--rate",
        "600",
        "--latency-limit",
        "2s",
        "--max-tries",
        "50",
        "--knob",
        "journal_mode=wal",
        // Writers wait for the lock instead of meeting SQLITE_BUSY at once.
        "--knob",
        "busy_timeout=10000",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let load = &v["manifest"]["load"];
    assert_eq!(load["clients"], 3, "{load}");
    assert_eq!(load["rate"], 600.0, "{load}");
    assert_eq!(load["latency_limit_ns"], 2_000_000_000u64, "{load}");
    assert_eq!(load["max_tries"], 50, "{load}");
    let all = v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "all")
        .expect("an all row")
        .clone();
    // Every transaction ran (each client its share of 180), none was skipped at a 2 s limit.
    assert_eq!(all["ops_per_trial"], 180.0, "{all}");
    assert_eq!(all["skipped"], 0.0, "{all}");
    assert_eq!(all["busy"], 0.0, "{all}");
    assert_eq!(all["target_tps"], 600.0, "{all}");
    let lag = all["lag_p99_us"]
        .as_f64()
        .expect("an open loop reports its schedule lag");
    assert!((0.0..2e6).contains(&lag), "{all}");
    // 180 transactions at 600/s take about 0.3 s: an open loop never runs ahead of its
    // schedule, and falls behind it only as far as the machine stalls (tests run side by side).
    let tps = all["tps_median"].as_f64().unwrap();
    assert!(
        (150.0..700.0).contains(&tps),
        "achieved {tps} tx/s at a 600 tx/s target"
    );
    // The trial keeps its time series: every transaction is in one of its intervals.
    let series = &v["trials"][0]["series"];
    assert_eq!(series["interval_ms"], 1000, "{series}");
    let in_series: u64 = series["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(in_series, 180, "{series}");
    assert!(
        !series["io"].as_array().unwrap().is_empty(),
        "the VFS shim's counts per interval: {series}"
    );
    // The terminal report labels the load in its heading and its checklist.
    let text = stdout(&output(&mut sb.show(&[])));
    assert!(
        text.contains("open loop at 600 tx/s (poisson arrivals), 3 clients, latency limit 2 s, up to 50 tries"),
        "{text}"
    );
    assert!(text.contains("lag p99 us") && text.contains("retries/trial"), "{text}");
}

/// `--client-mode processes`: every client but the first is a litebench process of its own.
/// crud with three client processes writing in DELETE mode (`busy_timeout=10000`): its JSON.
fn three_writer_processes(sb: &Sandbox) -> serde_json::Value {
    let mut cmd = sb.run(CRUD);
    cmd.args([
        "--clients",
        "3",
        "--client-mode",
        "processes",
        "--knob",
        "journal_mode=delete",
        "--knob",
        "busy_timeout=10000",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    json(&out)
}

/// Their counts, histograms, series and the I/O their own VFS shims counted come back to the
/// trial: in DELETE mode with `synchronous=full` every committed transaction syncs at least its
/// journal and the database, so the trial's syncs are at least twice its transactions only if
/// the client processes' syncs are in it (the first client ran a third of them).
#[test]
fn client_processes_send_back_their_transactions_and_their_io() {
    let sb = Sandbox::new();
    let v = three_writer_processes(&sb);
    let load = &v["manifest"]["load"];
    assert_eq!(load["clients"], 3, "{load}");
    assert_eq!(load["client_mode"], "processes", "{load}");
    let trial = &v["trials"][0];
    let ops: u64 = trial["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(ops, 180, "every client process ran its share: {trial}");
    let syncs: u64 = trial["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let io = &o["io"];
            ["main", "journal", "wal", "temp", "other"]
                .iter()
                .map(|c| io[c]["syncs"].as_u64().unwrap_or(0))
                .sum::<u64>()
        })
        .sum();
    assert!(syncs >= 2 * ops, "{syncs} syncs for {ops} transactions: {trial}");
    let in_series: u64 = trial["series"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(in_series, ops, "{}", trial["series"]);
    let series_syncs: u64 = trial["series"]["io"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["syncs"].as_u64().unwrap())
        .sum();
    assert!(series_syncs >= 2 * ops, "{}", trial["series"]);
    let text = stdout(&output(&mut sb.show(&[])));
    assert!(text.contains("closed loop, 3 client processes"), "{text}");
    // No client process outlives the run, and the scratch directory is left empty.
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

/// Mobibench's delete mode from three clients: together they run Mobibench's sequence of ids
/// 0..count once, so every delete but id 0's finds its row, and row `count` survives (the
/// trial's check).
#[test]
fn mobibench_modes_run_from_several_clients() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "mobibench",
        "--param",
        "mode=delete",
        "--param",
        "count=60",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--clients",
        "3",
        "--knob",
        "busy_timeout=10000",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let delete = v["trials"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "delete")
        .expect("a delete row")
        .clone();
    assert_eq!(delete["ops"], 60, "{delete}");
    assert_eq!(delete["succeeded"], 59, "id 0 finds nothing: {delete}");
    // `mode=all` is an ordered script: one client only.
    let mut cmd = sb.run(&["mobibench", "--param", "mode=all", "--clients", "2"]);
    assert_error_line(
        &output(&mut cmd),
        &["--clients 2", "mobibench", "mode=all", "mode=insert"],
    );
}

/// blob on a rate from two client processes sharing one blob: every operation ran, and every
/// read was a whole version (the trial fails otherwise).
#[test]
fn blob_runs_from_client_processes_on_a_rate() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "blob",
        "--param",
        "size=4KB",
        "--param",
        "count=1",
        "--param",
        "read_ratio=0.5",
        "--param",
        "warmup_time=0s",
        "--param",
        "operations=200",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--clients",
        "2",
        "--client-mode",
        "processes",
        "--rate",
        "1000",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "busy_timeout=10000",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let ops: u64 = v["trials"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(ops, 200, "{}", v["trials"][0]);
}

#[test]
fn a_closed_loop_is_labelled_as_such() {
    let sb = Sandbox::new();
    assert_success(&output(&mut sb.run(SMALLEST_CRUD)));
    let text = stdout(&output(&mut sb.show(&[])));
    let line = text
        .lines()
        .find(|l| l.contains("load: clients, closed or open loop"))
        .unwrap_or_else(|| panic!("no load line in the checklist\n{text}"));
    assert!(line.ends_with("closed loop, 1 client"), "{line}");
    // Nothing new in the stored manifest of a run without a load shape.
    let v = json(&output(&mut sb.show(&["--format", "json"])));
    assert!(v["manifest"].get("load").is_none(), "{}", v["manifest"]);
}

#[test]
fn load_shapes_that_cannot_run_are_refused_in_one_line() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["--rate", "0"], &["--rate", "above 0"]),
        (&["--rate=-5"], &["--rate", "above 0"]),
        (&["--rate", "NaN"], &["--rate", "above 0"]),
        (&["--rate", "1e9"], &["--rate", "cannot keep a schedule"]),
        (&["--clients", "0"], &["--clients", "from 1 to 1024"]),
        (&["--clients", "1025"], &["--clients", "from 1 to 1024"]),
        (&["--clients", "2", "--memory"], &["--clients 2", "--memory"]),
        (&["--latency-limit", "5ms"], &["--latency-limit", "--rate"]),
        (
            &["--rate", "100", "--latency-limit", "0"],
            &["--latency-limit", "above zero"],
        ),
        (&["--max-tries", "0"], &["--max-tries"]),
        (&["--progress"], &["--progress", "--clients N or --rate TPS"]),
        (
            &["--clients", "2", "--interval", "5ms"],
            &["--interval", "10ms or more"],
        ),
        (
            &["--clients", "2", "--client-mode", "processes", "--engine", "mysql"],
            &[
                "--client-mode processes",
                "engine mysql",
                "knobs per session",
                "--client-mode threads",
            ],
        ),
        (
            &["--client-mode", "processes"],
            &["--client-mode processes", "--clients 1", "--clients 2 or more"],
        ),
        (
            &["--clients", "2", "--client-mode", "process"],
            &["--client-mode", "processes"],
        ),
    ];
    for (extra, parts) in cases {
        let sb = Sandbox::new();
        let mut cmd = sb.run(SMALLEST_CRUD);
        cmd.args(*extra);
        assert_error_line(&output(&mut cmd), parts);
        assert_eq!(
            listing(&sb.scratch()),
            Vec::<String>::new(),
            "{extra:?}: --dir is not empty"
        );
    }
    // Issue 45, item 11: a rate whose first arrival comes after the trial (or never, at
    // 1e-300 on a count) is refused, saying when it would come.
    let script: &[&str] = &[
        "script",
        "--param",
        "builtin=select-only",
        "--trials",
        "1",
        "--warmup",
        "0",
    ];
    let rates: &[(&[&str], &[&str])] = &[
        (
            &["--rate", "1e-300", "--param", "transactions=10"],
            &[
                "--rate",
                "below 0.001 transactions per second, the first transaction would come after about",
                "years on average; give a rate of at least 0.001",
            ],
        ),
        (
            &["--rate", "0.5", "--param", "duration=1s"],
            &["--rate 0.5: with 1 client each client's first transaction would come after about 2.00 s on average, after the trial's end at 1 s; give a rate of at least 1 tx/s, or a longer --param duration"],
        ),
        (
            &["--rate", "0.01", "--param", "transactions=1000000"],
            &["--rate 0.01: 1000000 transactions at that rate take", "past the longest trial (720"],
        ),
    ];
    for (extra, parts) in rates {
        let sb = Sandbox::new();
        let mut cmd = sb.run(script);
        cmd.args(*extra);
        assert_error_line(&output(&mut cmd), parts);
        assert!(!sb.results().exists(), "{extra:?}: refused before anything ran");
    }
    // An ordered script of statements takes one client only.
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "speedtest",
        "--param",
        "scale_percent=1",
        "--trials",
        "1",
        "--warmup",
        "0",
    ]);
    cmd.args(["--clients", "2"]);
    assert_error_line(
        &output(&mut cmd),
        &["--clients 2", "speedtest", "one ordered script", "crud"],
    );
}

/// Each line names its configuration and trial (issue 32, item 5): interleaved trials of two
/// configurations printed identical lines before.
#[test]
fn progress_prints_a_line_per_interval() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "crud",
        "--param",
        "rows=100",
        "--param",
        "duration=1s",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--clients",
        "2",
        "--rate",
        "200",
        "--interval",
        "250ms",
        "--progress",
        "--knob",
        "busy_timeout=5000",
        "--knob",
        "journal_mode=wal,delete",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("progress: ")).collect();
    for (config, label) in [
        (0, "journal_mode=wal busy_timeout=5000"),
        (1, "journal_mode=delete busy_timeout=5000"),
    ] {
        let name = format!(" skipped [#{config} {label}, trial 1/1]");
        let of: Vec<&&str> = lines.iter().filter(|l| l.ends_with(&name)).collect();
        // Intervals end every 0.25 s of a 1 s trial: three lines, fewer only if the machine
        // stalls the sampler (tests run side by side), more only if it cannot keep the rate and
        // the transactions scheduled before 1 s end late (an open loop runs them all).
        assert!((1..=10).contains(&of.len()), "{name}: {err}");
        assert!(
            of[0].starts_with("progress: 0.2 s, ") || of[0].starts_with("progress: 0.3 s, "),
            "{err}"
        );
    }
    assert!(
        lines
            .iter()
            .all(|l| l.contains(" tps, lat ") && l.contains(" ms, lag ") && l.contains(" skipped [#")),
        "{err}"
    );
}

#[test]
fn begin_is_a_knob_read_back_from_what_the_connection_issues() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "tatp",
        "--param",
        "subscribers=200",
        "--param",
        "warmup_time=50ms",
        "--param",
        "measure_time=200ms",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--knob",
        "begin=deferred,exclusive",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let mut seen = Vec::new();
    for t in v["trials"].as_array().unwrap() {
        let k = t["knobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == "begin")
            .expect("begin is read back")
            .clone();
        assert_eq!(k["requested"], k["effective"], "{k}");
        seen.push(k["effective"].as_str().unwrap().to_string());
    }
    seen.sort();
    assert_eq!(seen, ["deferred", "exclusive"]);
    let mut cmd = sb.run(&["tatp", "--knob", "begin=later", "--trials", "1", "--warmup", "0"]);
    assert_error_line(
        &output(&mut cmd),
        &["--knob begin=later", "deferred, immediate, exclusive"],
    );
}

#[test]
fn tatp_runs_on_a_rate_through_the_driver_and_keeps_its_clients_parameter() {
    let sb = Sandbox::new();
    let tatp = |extra: &[&str]| {
        let mut cmd = sb.run(&[
            "tatp",
            "--param",
            "subscribers=200",
            "--param",
            "warmup_time=100ms",
            "--param",
            "measure_time=500ms",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--knob",
            "journal_mode=wal",
            "--knob",
            "busy_timeout=5000",
            "--format",
            "json",
        ]);
        cmd.args(extra);
        let out = output(&mut cmd);
        assert_success(&out);
        json(&out)
    };
    let v = tatp(&["--clients", "2", "--rate", "400", "--max-tries", "3"]);
    assert_eq!(v["manifest"]["load"]["clients"], 2);
    assert_eq!(
        v["manifest"]["params"]["clients"], 2,
        "the flag sets TATP's own parameter"
    );
    let all = v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "all")
        .unwrap()
        .clone();
    assert_eq!(all["target_tps"], 400.0, "{all}");
    assert!(all["lag_p99_us"].is_number(), "{all}");
    // 0.5 s at 400/s: about 200 transactions measured, the warm-up's left out.
    let ops = all["ops_per_trial"].as_f64().unwrap();
    assert!((100.0..=260.0).contains(&ops), "{all}");
    // The parameter alone still sets the clients, and the checklist says so.
    let v = tatp(&["--param", "clients=3"]);
    assert_eq!(v["manifest"]["load"]["clients"], 3, "{}", v["manifest"]);
}

/// Runs tiny crud on two clients in `mode` (threads, processes) in `sb` and returns its summary
/// as CSV (header, the summary's rows).
fn two_clients(sb: &Sandbox, mode: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut cmd = sb.run_tiny(&["crud", "--clients", "2", "--client-mode", mode, "--format", "csv"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    // One CSV for every table, the table's name first: the summary's rows.
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect::<Vec<String>>())
        .filter(|r| r[0] == "summary")
        .collect();
    (header, rows)
}

/// The sandbox's newest run as the terminal shows it, `--wide`.
fn shown(sb: &Sandbox) -> String {
    let out = output(sb.litebench().args(["show", "--wide", "--results"]).arg(sb.results()));
    assert_success(&out);
    stdout(&out)
}

/// Whether the terminal report marks per-operation I/O approximate: `~` cells, and the note.
fn marked_approximate(text: &str) -> (bool, bool) {
    let marked = text.lines().any(|l| l.contains(" ~"));
    let note = text
        .lines()
        .any(|l| l.starts_with("~: per-operation syncs and bytes are approximate"));
    (marked, note)
}

/// Issue 34: every client thread charges its own operations with its own thread's I/O, so
/// per-operation syncs and bytes are exact with clients as threads, as with processes: no CSV
/// row says approximate and the terminal marks nothing (before, issue 32's item 8 marked every
/// per-operation row of a run with client threads). A run stored before per-thread counting
/// (its manifest without `io_per_thread`) keeps the marker and the line saying why.
#[test]
fn per_operation_io_with_client_threads_is_exact_and_older_runs_stay_marked() {
    for mode in ["threads", "processes"] {
        let sb = Sandbox::new();
        let (header, rows) = two_clients(&sb, mode);
        let col = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .unwrap_or_else(|| panic!("{header:?}"))
        };
        let (op, approx) = (col("operation"), col("io_per_op_approximate"));
        assert!(rows.iter().any(|r| r[op] != "all"), "{rows:?}");
        for r in &rows {
            assert_eq!(r[approx], "false", "{mode}: {r:?}");
        }
        let text = shown(&sb);
        assert_eq!(marked_approximate(&text), (false, false), "{mode}: marked\n{text}");
        if mode == "threads" {
            let v = sb.show_json();
            assert_eq!(v["manifest"]["io_per_thread"], true, "{}", v["manifest"]);
            let mut c = litebench::engines::sqlite::conn::SqliteConn::open_existing(
                litebench::engines::sqlite::api::Api::bundled(),
                &sb.results(),
                "test writer",
            )
            .unwrap();
            litebench::engines::Connection::execute_batch(
                &mut c,
                "UPDATE runs SET manifest = json_remove(manifest, '$.io_per_thread')",
            )
            .unwrap();
            drop(c);
            let text = shown(&sb);
            assert_eq!(
                marked_approximate(&text),
                (true, true),
                "an older run: not marked\n{text}"
            );
        }
    }
}

/// Two scripts, one only reading and one only writing, each drawn by both clients.
fn reader_and_writer_scripts(sb: &Sandbox) {
    let write = |name: &str, text: &str| std::fs::write(sb.cwd().join(name), text).unwrap();
    write(
        "init.sql",
        "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER);\n\
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200) INSERT INTO t SELECT i, 0 FROM c;\n",
    );
    write("read.sql", "\\set id random(1, 200)\nSELECT v FROM t WHERE id = :id;\n");
    write(
        "write.sql",
        "\\set id random(1, 200)\nUPDATE t SET v = v + 1 WHERE id = :id;\n",
    );
}

/// Issue 34: with two clients as threads in WAL mode, a read-only script is charged no syncs and
/// no bytes written, and the writing script all of them, exactly as with client processes; with
/// threads the operations' syncs add up to the trial's process-wide count less what no client
/// did (setting the journal mode before the clients start, the checkpoint when the last
/// connection closes). (A client process's I/O is in no count of litebench's own process.)
/// Before, client 0 charged every client's I/O to its own current operation, so the reads were
/// charged the other client's commits.
#[test]
fn client_threads_charge_each_operation_its_own_syncs() {
    for mode in ["threads", "processes"] {
        let sb = Sandbox::new();
        reader_and_writer_scripts(&sb);
        let mut cmd = sb.run(&[
            "script",
            "--param",
            "file=read.sql@7,write.sql@3",
            "--param",
            "init=init.sql",
            "--param",
            "transactions=400",
            "--clients",
            "2",
            "--client-mode",
            mode,
            "--knob",
            "journal_mode=wal",
            "--knob",
            "synchronous=full",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ]);
        assert_success(&output(&mut cmd));
        let v = sb.show_json();
        let trial = &v["trials"][0];
        let io = |x: &serde_json::Value, class: &str, field: &str| x[class][field].as_u64().unwrap();
        let classes = ["main", "journal", "wal", "temp", "other"];
        let syncs = |x: &serde_json::Value| classes.iter().map(|c| io(x, c, "syncs")).sum::<u64>();
        let written = |x: &serde_json::Value| classes.iter().map(|c| io(x, c, "write_bytes")).sum::<u64>();
        let op = |name: &str| {
            trial["ops"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == name)
                .unwrap_or_else(|| panic!("no {name} in {}", trial["ops"]))
        };
        let (read, write) = (op("read.sql"), op("write.sql"));
        let done = |o: &serde_json::Value| o["ops"].as_u64().unwrap();
        assert!(done(read) > 0 && done(write) > 0, "{mode}: {}", trial["ops"]);
        assert_eq!(
            (syncs(&read["io"]), written(&read["io"])),
            (0, 0),
            "{mode}: reads charged: {read}"
        );
        // Every committed update syncs the WAL once (synchronous=full); a checkpoint adds more.
        assert!(io(&write["io"], "wal", "syncs") >= done(write), "{mode}: {write}");
        // Whole operations only: the statements are parts of their scripts.
        let whole = trial["ops"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["part_of"].is_null());
        let by_ops: u64 = whole.map(|o| syncs(&o["io"])).sum();
        let process = syncs(&trial["io_trial"]);
        // Outside the clients' transactions: the switch to WAL (the rollback journal's two
        // syncs, the database's one) and the last close's checkpoint (the WAL's and the
        // database's): five at most.
        if mode == "threads" {
            assert!(
                by_ops <= process && process - by_ops <= 5,
                "operations {by_ops} syncs, the process {process}: {}",
                trial["io_trial"]
            );
        }
    }
}

/// `--retry-backoff` (issue 35): recorded in the load shape and said in the load's line; a
/// malformed value, a minimum above the maximum and a backoff with nothing to retry are each
/// refused in one line before anything is created.
#[test]
fn a_retry_backoff_is_recorded_and_bad_ones_are_refused_in_one_line() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(CRUD);
    cmd.args([
        "--knob",
        "journal_mode=wal",
        "--clients",
        "2",
        "--max-tries",
        "3",
        "--retry-backoff",
        "exp:1ms..20ms,jitter",
        "--format",
        "json",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let load = &json(&out)["manifest"]["load"];
    assert_eq!(
        load["retry_backoff"],
        serde_json::json!({"kind": "exponential", "min_ns": 1_000_000, "max_ns": 20_000_000, "jitter": true}),
        "{load}"
    );
    let text = stdout(&output(&mut sb.show(&["--all"])));
    assert!(
        text.contains("closed loop, 2 clients, up to 3 tries, backoff exponential 1 ms..20 ms with jitter"),
        "{text}"
    );
    let flag = "error: invalid value";
    for (extra, line) in [
        (
            &["--max-tries", "3", "--retry-backoff", "exp:100ms..10ms"][..],
            format!("{flag} 'exp:100ms..10ms' for '--retry-backoff <BACKOFF>': the minimum 100ms is above the maximum 10ms; give MIN no larger than MAX, e.g. exp:1ms..100ms; `litebench run --help` lists the valid arguments"),
        ),
        (
            &["--max-tries", "3", "--retry-backoff", "exp:1ms"][..],
            format!("{flag} 'exp:1ms' for '--retry-backoff <BACKOFF>': give none, fixed:DURATION or exp:MIN..MAX[,jitter], e.g. fixed:5ms or exp:1ms..100ms,jitter; `litebench run --help` lists the valid arguments"),
        ),
        (
            &["--max-tries", "3", "--retry-backoff", "fixed:0s"][..],
            format!("{flag} 'fixed:0s' for '--retry-backoff <BACKOFF>': 0s: give a duration above zero, e.g. 5ms or 1s; `litebench run --help` lists the valid arguments"),
        ),
        (
            &["--retry-backoff", "fixed:5ms"][..],
            "error: --retry-backoff: with --max-tries 1 no transaction is tried again, so nothing would wait; give --max-tries 2 or more, or leave out --retry-backoff".to_string(),
        ),
    ] {
        let sb = Sandbox::new();
        let mut cmd = sb.run(CRUD);
        cmd.args(extra);
        assert_eq!(assert_error_line(&output(&mut cmd), &[]), line, "{extra:?}");
        assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "{extra:?}");
    }
}

/// Issue 35: how long transactions slept in SQLite's busy handler, per operation. Three client
/// processes writing in DELETE mode meet each other's locks and wait for them
/// (`busy_timeout=10000`): the waits come back from the processes into the trial's operations
/// (every one at least the schedule's first 1 ms sleep, none longer than its transaction),
/// the summary gives their p50/p99/max and share on every row (null where none waited, so the
/// CSV's columns agree), and the table, `show` and its CSV give them as columns. One client meets no
/// lock: its records and report have no busy-wait field at all, as before.
#[test]
fn busy_waits_are_measured_per_operation_where_transactions_waited() {
    let sb = Sandbox::new();
    let v = three_writer_processes(&sb);
    let ops = v["trials"][0]["ops"].as_array().unwrap();
    let waited: Vec<&serde_json::Value> = ops.iter().filter(|o| o.get("busy_wait").is_some()).collect();
    assert!(!waited.is_empty(), "no transaction waited for a lock: {ops:?}");
    for o in &waited {
        let (w, lat) = (&o["busy_wait"], &o["latency"]);
        assert!(w["min_ns"].as_u64().unwrap() >= 990_000, "{o}");
        assert!(
            w["max_ns"].as_u64().unwrap() <= lat["max_ns"].as_u64().unwrap() + 1_000_000,
            "{o}"
        );
        assert!(o["busy_wait_histogram"].as_str().is_some_and(|h| !h.is_empty()), "{o}");
    }
    let rows = v["summary"].as_array().unwrap();
    for r in rows {
        for k in [
            "busy_wait_p50_us",
            "busy_wait_p99_us",
            "busy_wait_max_us",
            "busy_waited_pct",
        ] {
            assert!(r.get(k).is_some(), "{k} missing: {r}");
        }
    }
    let all = rows.iter().find(|r| r["operation"] == "all").unwrap();
    let pct = all["busy_waited_pct"].as_f64().unwrap();
    assert!(pct > 0.0 && pct <= 100.0, "{all}");
    assert!(all["busy_wait_p50_us"].as_f64().unwrap() >= 990.0, "{all}");
    let text = stdout(&output(&mut sb.show(&["--wide"])));
    assert!(text.contains("busy wait p99 ms") && text.contains("waited %"), "{text}");
    // The CSV reads its own rows back: a row without the columns would fail it.
    let csv = output(&mut sb.show(&["--format", "csv"]));
    assert_success(&csv);
    assert!(
        stdout(&csv).contains("busy_wait_p99_us,busy_wait_max_us,busy_waited_pct"),
        "{}",
        stdout(&csv)
    );

    let one = Sandbox::new();
    let mut cmd = one.run(CRUD);
    cmd.args(["--knob", "busy_timeout=10000", "--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let text = stdout(&out);
    assert!(!text.contains("busy_wait"), "{text}");
}
