//! `litebench run --cast FILE`: a load of named roles (a writer at a rate, readers on
//! query-only connections, a reader holding its snapshot, a TRUNCATE checkpointer), each
//! workload role's operations recorded under its name and the holds and checkpoints in the
//! trial record; and every bad cast refused in one line before anything runs.

use crate::cli::common::*;

/// The cast of the issue, shortened: a writer at 50 tx/s, 2 readers, a hold of 0.5 s every
/// 1 s, a TRUNCATE checkpoint every 0.5 s.
const CAST: &str = r#"
[[role]]
name = "writer"
kind = "workload"
rate = 50
params = { workload = "a" }
busy_timeout = 5000

[[role]]
name = "readers"
kind = "workload"
clients = 2
params = { workload = "c" }
query_only = true

[[role]]
name = "holder"
kind = "hold"
every = "1s"
for = "500ms"

[[role]]
name = "ckpt"
kind = "checkpoint"
checkpoint = "TRUNCATE"
every = "500ms"
"#;

/// Writes `text` as the sandbox's cast file and returns its path.
fn cast_file(sb: &Sandbox, text: &str) -> String {
    let path = sb.root().join("cast.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// `run ycsb --cast FILE` of a 2 s trial on 200 records, with `extra` flags.
fn run_cast(sb: &Sandbox, file: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "ycsb",
        "--cast",
        file,
        "--param",
        "records=200",
        "--param",
        "duration=2s",
        "--knob",
        "journal_mode=wal",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    output(&mut sb.run(&args))
}

#[test]
fn a_cast_records_each_roles_operations_under_its_name_and_its_holds_and_checkpoints() {
    let sb = Sandbox::new();
    let file = cast_file(&sb, CAST);
    let out = run_cast(&sb, &file, &["--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let trial = &v["trials"][0];
    let op = |name: &str| {
        trial["ops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("no operation {name} in {:#}", trial["ops"]))
            .clone()
    };
    let n = |name: &str| op(name)["ops"].as_u64().unwrap();
    // The writer: workload A (reads and updates) at 50 tx/s for 2 s, about 100 in all.
    let writer = n("writer:read") + n("writer:update");
    assert!((50..=150).contains(&writer), "writer ran {writer} at 50 tx/s for 2 s");
    assert!(n("writer:update") > 0);
    // The readers: workload C (reads only), closed loop, far more than the writer.
    assert!(
        n("readers:read") > writer,
        "readers {} against writer {writer}",
        n("readers:read")
    );
    assert_eq!(
        n("readers:update"),
        0,
        "workload C on the readers' connections never writes"
    );
    assert_eq!(op("readers:read")["failed"], 0);
    // No operation outside a role.
    assert!(trial["ops"]
        .as_array()
        .unwrap()
        .iter()
        .all(|o| o["name"].as_str().unwrap().contains(':')));
    // Holds: at 0 s and 1 s, each about 0.5 s.
    let holds = trial["cast"]["holds"].as_array().expect("holds recorded");
    assert_eq!(holds.len(), 2, "{holds:?}");
    for h in holds {
        assert_eq!(h["role"], "holder");
        let held = h["end_ms"].as_u64().unwrap() - h["start_ms"].as_u64().unwrap();
        assert!((400..=700).contains(&held), "held {held} ms: {h}");
    }
    // Checkpoints: at 0, 0.5, 1 and 1.5 s, each with SQLite's row and a duration. A TRUNCATE
    // checkpoint waits for the holder's snapshot, so on a loaded machine one may run past the
    // next mark (which then starts late) or past the trial's end (no later mark starts).
    let ckpts = trial["cast"]["checkpoints"].as_array().expect("checkpoints recorded");
    let at = |c: &serde_json::Value| c["t_ms"].as_u64().unwrap();
    let ended = |c: &serde_json::Value| at(c) + c["duration_us"].as_u64().unwrap() / 1000;
    assert!(at(&ckpts[0]) < 100, "{ckpts:?}");
    for pair in ckpts.windows(2) {
        assert!(at(&pair[1]) >= (at(&pair[0]) + 450).max(ended(&pair[0])), "{ckpts:?}");
    }
    let last = ckpts.last().unwrap();
    assert!(
        ckpts.len() == 4 || (ckpts.len() < 4 && ended(last) >= 1900),
        "{ckpts:?}"
    );
    for c in ckpts {
        assert_eq!(c["role"], "ckpt");
        assert!(c["busy"].is_boolean() && c["duration_us"].is_u64(), "{c}");
        assert!(
            c["checkpointed_frames"].as_i64().unwrap() <= c["log_frames"].as_i64().unwrap(),
            "{c}"
        );
    }
    // The manifest keeps the cast, its roles' knobs and parameters.
    let roles = &v["manifest"]["load"]["cast"]["roles"];
    assert_eq!(roles[0]["params"]["workload"], "a");
    assert_eq!(roles[1]["knobs"][0][0], "query_only");
    assert_eq!(roles[3]["kind"]["checkpoint"], "TRUNCATE");
    // The terminal lists the holds and checkpoints per role.
    let out = output(&mut sb.show(&[]));
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("roles beside the workload"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("ckpt") && l.contains("checkpoint") && l.contains(" 4 ")),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.contains("holder") && l.contains("hold")),
        "{text}"
    );
    // The HTML report draws the roles on one timeline: a band per hold, a marker per
    // checkpoint, and its caption in words.
    let html = sb.page(&[]);
    let start = html
        .find("data-chart=\"timeline-0\"")
        .expect("the timeline in the page");
    let fig = &html[start..start + html[start..].find("</figure>").unwrap()];
    assert_eq!(
        fig.matches("<g class=\"checkpoint ").count(),
        4,
        "a marker per checkpoint"
    );
    assert!(fig.contains("<title>ckpt: checkpoint at "), "markers have tooltips");
    assert!(fig.contains("WAL grows during holder&#39;s holds ("), "the caption");
    assert!(
        !html.contains("data-chart=\"over-time-wal\""),
        "the WAL is on the timeline"
    );
}

/// A cast file with one role table (and `extra` keys) after the workload role.
fn with_role(extra: &str) -> String {
    format!("[[role]]\nname = \"w\"\nkind = \"workload\"\n\n[[role]]\n{extra}\n")
}

#[test]
fn bad_casts_are_refused_in_one_line_naming_file_role_and_key() {
    let sb = Sandbox::new();
    let cases: &[(String, &[&str], &[&str])] = &[
        (
            "[[role]]\nname = \"w\"\nkind = \"workload\"\nclients = 0\n".into(),
            &[],
            &["--cast ", "role \"w\": clients = 0; give each role 1 client or more"],
        ),
        (
            with_role("name = \"c\"\nkind = \"checkpoint\"\ncheckpoint = \"LAZY\"\nevery = \"1s\""),
            &[],
            &[
                "role \"c\": checkpoint: \"LAZY\" is not a mode of PRAGMA wal_checkpoint",
                "PASSIVE, FULL, RESTART, TRUNCATE",
            ],
        ),
        (
            with_role("name = \"c\"\nkind = \"checkpoint\"\ncheckpoint = \"FULL\"\nevery = \"5s\""),
            &[],
            &["role \"c\": every = \"5 s\" is not within the trial (2 s)"],
        ),
        (
            with_role("name = \"h\"\nkind = \"hold\"\nfor = \"3s\""),
            &[],
            &["role \"h\": for = \"3 s\" holds longer than the trial (2 s)"],
        ),
        (
            with_role("name = \"h\"\nkind = \"hold\"\nfor = \"1s\"\nrate = 5"),
            &[],
            &["role \"h\": unknown key `rate` for kind hold; valid keys: name, kind, at, every, for"],
        ),
        (
            with_role("name = \"h\"\nkind = \"hold\"\nfor = \"1s\""),
            &["--engine", "turso"],
            &["role \"h\": kind hold needs a SQLite engine, and engine turso is not one"],
        ),
        (
            "[[role]]\nname = \"r\"\nkind = \"workload\"\nmode = \"processes\"\n".into(),
            &["--engine", "turso"],
            &["role \"r\": mode \"processes\" on engine turso: only SQLite and PostgreSQL run clients in processes of their own; give the role mode \"threads\""],
        ),
        (
            with_role("name = \"b\"\nkind = \"workload\"\nevery = \"1s\""),
            &[],
            &["role \"b\": every: a workload role that starts every 1 s needs how long it runs each time; give for = \"500 ms\""],
        ),
        (
            with_role("name = \"b\"\nkind = \"workload\"\nevery = \"1s\"\nfor = \"1s\""),
            &[],
            &["role \"b\": for: a role that runs 1 s every 1 s never pauses"],
        ),
        (
            with_role("name = \"b\"\nkind = \"workload\"\nfor = \"3s\""),
            &[],
            &["role \"b\": for = \"3 s\" is not within the trial (2 s)"],
        ),
        (
            "[[role]]\nname = \"w\"\nkind = \"workload\"\nclients = 2\nmode = \"processes\"\nconnections = \"shared\"\n".into(),
            &[],
            &["role \"w\": connections: \"shared\" with mode = \"processes\": a connection cannot be shared between processes; give mode = \"threads\", or leave out connections"],
        ),
        (
            "[[role]]\nname = \"w\"\nkind = \"workload\"\nconnections = \"shared\"\n".into(),
            &[],
            &["role \"w\": connections: \"shared\" with clients = 1: one client has one connection either way; give clients = 2 or more, or leave out connections"],
        ),
        (
            "[[role]]\nname = \"w\"\nkind = \"workload\"\nclients = 2\nconnections = \"shared\"\n".into(),
            &["--engine", "turso"],
            &["role \"w\": connections \"shared\" (one connection used by several threads) needs a SQLite engine, and engine turso is not one"],
        ),
        (
            with_role("name = \"v\"\nkind = \"vacuum\"\nvacuum = \"full\"\nat = \"1s\"\nquery_only = true"),
            &[],
            &["role \"v\": query_only: a vacuum writes the database, and query_only = true forbids it; leave out query_only"],
        ),
        (
            with_role("name = \"v\"\nkind = \"vacuum\"\nvacuum = \"full\"\nat = \"1s\""),
            &["--engine", "turso"],
            &["role \"v\": kind vacuum needs a SQLite engine, and engine turso is not one"],
        ),
        (
            with_role("name = \"b\"\nkind = \"backup\"\nto = \"../x.db\"\nat = \"1s\""),
            &[],
            &["role \"b\": to: \"../x.db\" is not a plain file name; `to` takes a file name in the trial's scratch directory, e.g. to = \"b.backup.db\""],
        ),
        (
            with_role("name = \"b\"\nkind = \"backup\"\nto = \"/tmp/x.db\"\nat = \"1s\""),
            &[],
            &["role \"b\": to: \"/tmp/x.db\" is not a plain file name; `to` takes a file name in the trial's scratch directory"],
        ),
        (
            with_role("name = \"b\"\nkind = \"backup\"\nat = \"1s\""),
            &["--engine", "turso"],
            &["role \"b\": kind backup needs a SQLite engine, and engine turso is not one"],
        ),
        (
            with_role("name = \"b\"\nkind = \"backup\"\npages = 0\nat = \"1s\""),
            &[],
            &["role \"b\": pages: 0: give the pages to copy each step, 1 or more, or -1 for all at once"],
        ),
        (
            with_role("name = \"b\"\nkind = \"backup\"\nmethod = \"vacuum-into\"\npause = \"10ms\"\nat = \"1s\""),
            &[],
            &["role \"b\": pause: VACUUM INTO copies in one statement; give pages and pause only with method = \"api\""],
        ),
        (
            with_role("name = \"b\"\nkind = \"backup\"\npause = \"soon\"\nat = \"1s\""),
            &[],
            &["role \"b\": pause: \"soon\" is not a duration; give one such as 500ms, 20s or 1m"],
        ),
        (
            CAST.into(),
            &["--clients", "2"],
            &["with --clients 2: a cast gives each role its own clients and rate; leave out --clients 2"],
        ),
    ];
    for (text, extra, parts) in cases {
        let file = cast_file(&sb, text);
        let out = run_cast(&sb, &file, extra);
        assert_error_line(&out, parts);
        assert!(!sb.results().exists(), "refused before anything ran: {parts:?}");
    }
    // A count budget: roles at different rates would end at different times.
    let file = cast_file(&sb, CAST);
    let out = output(&mut sb.run(&["ycsb", "--cast", &file, "--quiet"]));
    assert_error_line(&out, &["trials stop on a count", "give --param duration=10s"]);
}

/// Issue 45, items 4 and 8: ten roles of 1,000 clients started 8,189 threads; 500 roles were
/// accepted; a role name of 70,000 characters panicked the table (exit 101) and one with an
/// escape sequence reached the terminal. Each is refused when the cast is read, in one line
/// naming the file, with nothing run or stored.
#[test]
fn a_cast_over_the_limits_or_with_a_bad_role_name_is_refused_in_one_short_line() {
    let sb = Sandbox::new();
    let roles = |n: usize, clients: u32| -> String {
        (0..n)
            .map(|i| format!("[[role]]\nname = \"w{i}\"\nkind = \"workload\"\nclients = {clients}\n"))
            .collect()
    };
    let named = |name: &str| format!("[[role]]\nname = \"{name}\"\nkind = \"workload\"\n");
    let long = "a".repeat(70_000);
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            roles(10, 1000),
            vec![
                "cast.toml: the roles have 10000 clients in all",
                "above the 1024 a trial may have (as --clients); give the roles fewer clients",
            ],
        ),
        (
            roles(500, 1000),
            vec!["cast.toml: 500 roles, above the 64 a cast may have; give at most 64 [[role]] tables"],
        ),
        (
            named(&long),
            vec![
                "cast.toml: role 1: name \"aaaa",
                "…\" is not a role name",
                "as --name takes",
            ],
        ),
        (
            named("a\\u001b[31mred"),
            vec!["role 1: name \"a\\u{1b}[31mred\" is not a role name"],
        ),
        (named("a:b"), vec!["role 1: name \"a:b\" is not a role name"]),
    ];
    for (text, parts) in &cases {
        let file = cast_file(&sb, text);
        let out = run_cast(&sb, &file, &[]);
        let line = assert_error_line(&out, parts);
        assert!(line.len() < 400 && !line.contains('\u{1b}'), "{line}");
        assert!(!sb.results().exists(), "refused before anything ran: {parts:?}");
    }
}

/// Issue 45, item 8: a stored run whose strings are absurd (a role and operation name of
/// 100,000 characters with escape sequences, as an older litebench or a forged store could
/// hold) is shown in every text layout without a panic, its lines bounded and clean.
#[test]
fn show_lays_out_a_stored_run_with_absurd_strings_without_a_panic() {
    use litebench::engines::sqlite::api::Api;
    use litebench::engines::sqlite::conn::SqliteConn;
    use litebench::engines::Connection;
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"w\"\nkind = \"workload\"\nrate = 50\n\n[[role]]\nname = \"h\"\nkind = \"hold\"\nfor = \"200ms\"\n",
    );
    let out = run_cast(&sb, &file, &[]);
    assert_success(&out);
    // The role's name, in the manifest's cast and in every operation of the trials.
    let huge = format!("x\\u001b[31m{}", "r".repeat(100_000));
    let mut c = SqliteConn::open_existing(Api::bundled(), &sb.results(), "test writer").unwrap();
    c.execute_batch(&format!(
        "UPDATE runs SET manifest = replace(manifest, '\"name\":\"w\"', '\"name\":\"{huge}\"'); \
         UPDATE trials SET record = replace(record, '\"name\":\"w:', '\"name\":\"{huge}:')"
    ))
    .unwrap();
    drop(c);
    let json = sb.show_json();
    assert!(
        json.to_string().contains(&"r".repeat(100_000)),
        "the forged name is stored: {}",
        &json.to_string()[..300]
    );
    for (columns, format) in [("", "table"), ("80", "table"), ("", "markdown"), ("100", "markdown")] {
        let mut cmd = sb.show(&["--format", format]);
        if columns.is_empty() {
            cmd.env_remove("COLUMNS");
        } else {
            cmd.env("COLUMNS", columns);
        }
        let out = output(&mut cmd);
        assert_success(&out);
        let text = stdout(&out);
        assert!(text.lines().count() > 5, "{text}");
        for line in text.lines() {
            assert!(
                line.chars().count() <= 4000,
                "{format} {columns}: a line of {}",
                line.chars().count()
            );
            assert!(
                !line.contains('\u{1b}'),
                "{format} {columns}: an escape reached the terminal"
            );
        }
    }
}

/// The trial's last reading of the database's files is taken before the roles close their
/// connections: the last connection to close checkpoints and deletes the WAL, and a last
/// reading after it would say the WAL ended empty.
#[test]
fn the_last_files_reading_comes_before_the_roles_close_their_connections() {
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 100\nparams = { workload = \"a\" }\n\n\
         [[role]]\nname = \"readers\"\nkind = \"workload\"\nclients = 2\nparams = { workload = \"c\" }\n",
    );
    let out = run_cast(&sb, &file, &["--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let files = v["trials"][0]["series"]["files"]
        .as_array()
        .expect("files read every interval");
    let last = files.last().expect("a last reading");
    assert!(
        last["wal_bytes"].as_u64().is_some_and(|b| b > 0),
        "the WAL was gone at the last reading: {last}"
    );
}

/// A role's clients in processes of their own: each opens the database with the role's knobs
/// and runs the role's parameters, and its report comes back under the role's name with the
/// I/O its own process counted.
#[test]
fn a_roles_clients_run_as_processes_with_the_roles_knobs_and_parameters() {
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        &CAST.replace("clients = 2\n", "clients = 2\nmode = \"processes\"\n"),
    );
    let out = run_cast(&sb, &file, &["--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let ops = v["trials"][0]["ops"].as_array().unwrap().clone();
    let op = |name: &str| {
        ops.iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    let reads = op("readers:read")["ops"].as_u64().unwrap();
    let writer = op("writer:read")["ops"].as_u64().unwrap() + op("writer:update")["ops"].as_u64().unwrap();
    assert!(
        reads > writer,
        "the reader processes ran {reads} against the writer's {writer}"
    );
    assert_eq!(op("readers:read")["failed"], 0);
    assert_eq!(op("readers:update")["ops"], 0, "workload C in the processes too");
    // Each process read through its own VFS shim, counted in its report.
    let io = &op("readers:read")["io"];
    let reads = io["main"]["reads"].as_u64().unwrap_or(0) + io["wal"]["reads"].as_u64().unwrap_or(0);
    assert!(reads > 0, "{io:#}");
    assert_eq!(v["manifest"]["load"]["cast"]["roles"][1]["mode"], "processes");
    let text = stdout(&output(&mut sb.show(&[])));
    assert!(text.contains("readers: 2 client processes"), "{text}");
    // The answer is per role, and each role has a row of its own; an operation a role never
    // drew (the readers' updates) has none.
    assert!(
        text.contains("By role: writer ") && text.contains("; readers "),
        "{text}"
    );
    assert!(text.lines().any(|l| l.contains(" readers:all ")), "{text}");
    assert!(!text.contains("readers:update"), "{text}");

    // The role's knobs reach its processes: query_only refuses workload A's updates there.
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"readers\"\nkind = \"workload\"\nclients = 2\nmode = \"processes\"\n\
         params = { workload = \"a\" }\nquery_only = true\n",
    );
    let out = run_cast(&sb, &file, &[]);
    assert!(!out.status.success(), "updates on query_only connections succeeded");
    assert!(stderr(&out).contains("readonly"), "{}", stderr(&out));
}

/// A workload role on a schedule runs only in its windows: a batch role at 400 tx/s from 0.5 s
/// for 1 s runs about 400 transactions of a 2 s trial, all in that second, and the answer says
/// it ran half of the trial.
#[test]
fn a_scheduled_workload_role_runs_only_in_its_windows() {
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"readers\"\nkind = \"workload\"\nrate = 100\nparams = { workload = \"c\" }\n\n\
         [[role]]\nname = \"batch\"\nkind = \"workload\"\nrate = 400\nat = \"500ms\"\nfor = \"1s\"\n\
         params = { workload = \"c\" }\n",
    );
    let out = run_cast(&sb, &file, &["--format", "json", "--interval", "250ms"]);
    assert_success(&out);
    let v = json(&out);
    let trial = &v["trials"][0];
    let batch: u64 = trial["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["name"].as_str().unwrap().starts_with("batch:"))
        .map(|o| o["ops"].as_u64().unwrap())
        .sum();
    assert!((300..=500).contains(&batch), "batch ran {batch} at 400 tx/s for 1 s");
    // Every batch transaction started within its window (the series' 250 ms intervals count a
    // transaction where it ended: one started just before 1.5 s may end just after).
    for p in trial["series"]["points"].as_array().unwrap() {
        let (t, ops) = (p["t_ms"].as_u64().unwrap(), p["ops"].as_u64().unwrap());
        if p["op"].as_str().unwrap().starts_with("batch:") && ops > 0 {
            assert!((500..=1500).contains(&t), "batch ran in the interval at {t} ms: {p}");
            assert!(t < 1500 || ops <= batch / 10, "{ops} ended after the window: {p}");
        }
    }
    let text = stdout(&output(&mut sb.show(&[])));
    assert!(text.contains("batch: 1 client at 400 tx/s at 500 ms for 1 s"), "{text}");
    assert!(text.contains("of 200 offered (it runs 50.0% of the trial)"), "{text}");
}

/// A workload role's `connections = "shared"` (issue 35): its clients run on one connection,
/// one transaction at a time. Four writers with busy_timeout = 0 on connections of their own
/// give up on each other's locks; on one shared connection none does.
#[test]
fn a_roles_clients_share_one_connection() {
    let role = |connections: &str| {
        format!(
            "[[role]]\nname = \"writers\"\nkind = \"workload\"\nclients = 4\n{connections}\
             params = {{ workload = \"a\" }}\nbusy_timeout = 0\n"
        )
    };
    let failed = |text: &str| -> (u64, String) {
        let sb = Sandbox::new();
        let file = cast_file(&sb, text);
        let out = run_cast(&sb, &file, &["--format", "json"]);
        assert_success(&out);
        let v = json(&out);
        let ops = v["trials"][0]["ops"].as_array().unwrap();
        let busy: u64 = ops.iter().map(|o| o["busy"].as_u64().unwrap_or(0)).sum();
        (busy, stdout(&output(&mut sb.show(&[]))))
    };
    let (own, _) = failed(&role(""));
    let (shared, text) = failed(&role("connections = \"shared\"\n"));
    assert!(own > 0, "four writers on their own connections never met a lock");
    assert_eq!(shared, 0, "one shared connection met a lock");
    assert!(text.contains("writers: 4 clients on one shared connection"), "{text}");
}

/// A table of 20,000 rows whose first 10,000 are deleted in the template (auto_vacuum =
/// incremental: half its pages free), and a writer that overwrites rows in place, so the free
/// pages change only by what the vacuum roles do.
const AGED: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999) INSERT INTO t SELECT i, randomblob(200) FROM n;
DELETE FROM t WHERE id < 10000;
";
const OVERWRITE: &str = "\\set id random(10000, 19999)\nUPDATE t SET v = randomblob(200) WHERE id = :id;\n";

#[test]
fn vacuum_roles_free_the_pages_they_say_and_record_them() {
    let sb = Sandbox::new();
    let init = sb.root().join("aged.sql");
    std::fs::write(&init, AGED).unwrap();
    let script = sb.root().join("overwrite.sql");
    std::fs::write(&script, OVERWRITE).unwrap();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 50\n\n\
         [[role]]\nname = \"inc\"\nkind = \"vacuum\"\nvacuum = \"incremental\"\npages = 5\nat = \"500ms\"\nbusy_timeout = 10000\n\n\
         [[role]]\nname = \"full\"\nkind = \"vacuum\"\nvacuum = \"full\"\nat = \"1s\"\nbusy_timeout = 10000\n",
    );
    let (init, script) = (format!("init={}", init.display()), format!("file={}", script.display()));
    let out = output(&mut sb.run(&[
        "script",
        "--param",
        &script,
        "--param",
        &init,
        "--cast",
        &file,
        "--param",
        "duration=2s",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "auto_vacuum=incremental",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let v = json(&out);
    let vacuums = v["trials"][0]["cast"]["vacuums"]
        .as_array()
        .expect("vacuums recorded")
        .clone();
    assert_eq!(vacuums.len(), 2, "{vacuums:?}");
    let n = |v: &serde_json::Value, key: &str, when: &str| v[key][when].as_i64().unwrap();
    let (inc, full) = (&vacuums[0], &vacuums[1]);
    assert_eq!(
        (inc["role"].as_str(), full["role"].as_str()),
        (Some("inc"), Some("full"))
    );
    assert!(
        n(inc, "freelist_count", "before") > 100,
        "the template's deletes freed pages: {inc}"
    );
    assert_eq!(
        n(inc, "freelist_count", "before") - n(inc, "freelist_count", "after"),
        5,
        "incremental_vacuum(5) frees 5 pages: {inc}"
    );
    assert_eq!(
        n(inc, "page_count", "before") - n(inc, "page_count", "after"),
        5,
        "{inc}"
    );
    assert_eq!(
        n(full, "freelist_count", "after"),
        0,
        "VACUUM leaves no free page: {full}"
    );
    assert!(
        n(full, "page_count", "after") < n(full, "page_count", "before"),
        "{full}"
    );
    for v in [inc, full] {
        assert_eq!(v["busy"], false, "{v}");
        assert!(
            v["duration_us"].as_u64().unwrap() > 0 && v["file_bytes"]["before"].as_u64().unwrap() > 0,
            "{v}"
        );
    }
    let out = output(&mut sb.show(&[]));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.contains("inc") && l.contains("vacuum") && l.trim_end().ends_with(" 5")),
        "{text}"
    );
}

/// A cast of a writer at 50 tx/s and a backup role `copy` with `keys`, run: its trial's
/// backups.
fn backups_beside_a_writer(sb: &Sandbox, keys: &str) -> Vec<serde_json::Value> {
    let file = cast_file(
        sb,
        &format!(
            "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 50\nparams = {{ workload = \"a\" }}\n\n\
             [[role]]\nname = \"copy\"\nkind = \"backup\"\n{keys}\n"
        ),
    );
    let out = run_cast(sb, &file, &["--format", "json"]);
    assert_success(&out);
    json(&out)["trials"][0]["cast"]["backups"]
        .as_array()
        .expect("backups recorded")
        .clone()
}

/// No backup copy (nor its `-journal`, `-wal`, `-shm`) is left anywhere under the sandbox.
fn assert_no_copy_left(sb: &Sandbox) {
    let left: Vec<_> = walk(sb.root())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".backup.db"))
        .collect();
    assert!(left.is_empty(), "every copy removed: {left:?}");
}

#[test]
fn a_backup_role_copies_every_page_into_the_scratch_directory_and_removes_its_copy() {
    let sb = Sandbox::new();
    let backups = backups_beside_a_writer(&sb, "method = \"vacuum-into\"\nat = \"500ms\"\nevery = \"1s\"");
    assert_eq!(backups.len(), 2, "at 0.5 s and 1.5 s: {backups:?}");
    for b in &backups {
        assert_eq!(
            (b["role"].as_str(), b["method"].as_str()),
            (Some("copy"), Some("vacuum-into")),
            "{b}"
        );
        assert_eq!(b["busy"], false, "{b}");
        assert!(b["source_pages"].as_i64().unwrap() > 1, "{b}");
        assert_eq!(
            b["pages"].as_i64(),
            b["source_pages"].as_i64(),
            "a freshly loaded table has no free page: the copy has every page: {b}"
        );
        assert_eq!(b["bytes"].as_u64().unwrap(), b["pages"].as_u64().unwrap() * 4096, "{b}");
    }
    assert_no_copy_left(&sb);
    let text = stdout(&output(&mut sb.show(&[])));
    assert!(
        text.lines()
            .any(|l| l.contains("copy") && l.contains("backup vacuum-into") && l.contains(" 2 ")),
        "{text}"
    );
}

#[test]
fn a_backup_role_copies_every_page_with_the_online_backup_api_beside_a_writer_and_removes_its_copy() {
    let sb = Sandbox::new();
    let backups = backups_beside_a_writer(&sb, "method = \"api\"\npages = 10\npause = \"1ms\"\nat = \"500ms\"");
    assert_eq!(backups.len(), 1, "{backups:?}");
    let b = &backups[0];
    assert_eq!(
        (b["role"].as_str(), b["method"].as_str()),
        (Some("copy"), Some("api")),
        "{b}"
    );
    assert_eq!(b["busy"], false, "{b}");
    assert_eq!(b["api"]["finished"], true, "{b}");
    let source = b["source_pages"].as_u64().unwrap();
    assert!(source > 10, "more pages than one step copies: {b}");
    assert_eq!(b["pages"].as_u64(), Some(source), "the copy has every page: {b}");
    assert_eq!(b["bytes"].as_u64(), Some(source * 4096), "{b}");
    let steps = b["api"]["steps"].as_u64().unwrap();
    assert!(steps >= source.div_ceil(10), "10 pages a step: {b}");
    assert_no_copy_left(&sb);
    let text = stdout(&output(&mut sb.show(&[])));
    assert!(
        text.lines().any(|l| l.contains("copy")
            && l.contains(&format!("backup api: {steps} steps, 0 retried, "))
            && l.contains(" restarts")),
        "{text}"
    );
}

/// In WAL mode a write on another connection between two steps makes SQLite start the copy
/// again from its first page: a page a step under a writer that never pauses restarts (and so
/// does not finish before the trial's end), while all pages in one step finishes in one step.
#[test]
fn an_online_backup_under_a_steady_writer_restarts_unless_it_copies_all_pages_in_one_step() {
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nparams = { workload = \"a\" }\n\n\
         [[role]]\nname = \"slow\"\nkind = \"backup\"\npages = 1\npause = \"5ms\"\nat = \"300ms\"\n\n\
         [[role]]\nname = \"whole\"\nkind = \"backup\"\npages = -1\nat = \"300ms\"\n",
    );
    let out = run_cast(&sb, &file, &["--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let backups = v["trials"][0]["cast"]["backups"]
        .as_array()
        .expect("backups recorded")
        .clone();
    let of = |role: &str| {
        backups
            .iter()
            .find(|b| b["role"] == role)
            .unwrap_or_else(|| panic!("{role}: {backups:?}"))
    };
    let slow = &of("slow")["api"];
    assert!(slow["restarts"].as_u64().unwrap() > 0, "{slow}");
    let whole = of("whole");
    assert_eq!(
        (whole["api"]["steps"].as_u64(), whole["api"]["finished"].as_bool()),
        (Some(1), Some(true)),
        "{whole}"
    );
    assert_eq!(whole["pages"], whole["source_pages"], "{whole}");
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A backup role stepping with a long pause: Ctrl-C during the pause ends the run at once
/// (exit 130, no copy left); after `kill -9` during it, the copy is in the run's record, so
/// `cleanup` removes it with the run directory.
#[test]
fn a_stop_during_a_backup_s_pause_is_answered_and_a_killed_run_s_copy_is_cleaned_up() {
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 50\nparams = { workload = \"a\" }\n\n\
         [[role]]\nname = \"copy\"\nkind = \"backup\"\npages = 1\npause = \"9s\"\nat = \"200ms\"\n",
    );
    let start = || {
        sb.run_std(&[
            "ycsb",
            "--cast",
            &file,
            "--param",
            "records=2000",
            "--param",
            "duration=10s",
            "--knob",
            "journal_mode=wal",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start litebench")
    };
    let copy_made = |sb: &Sandbox| {
        let t0 = std::time::Instant::now();
        while !walk(sb.root())
            .iter()
            .any(|p| p.to_string_lossy().ends_with("copy.backup.db"))
        {
            assert!(t0.elapsed() < std::time::Duration::from_secs(30), "no copy appeared");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    let mut child = start();
    copy_made(&sb);
    // The pause is 9 s: a run that honours the stop ends long before it.
    let (status, _) = interrupt_within(
        &mut child,
        std::time::Duration::from_secs(6),
        "the stop waited for the backup's pause",
    );
    assert_eq!(status.code(), Some(130));
    assert_no_copy_left(&sb);
    let mut child = start();
    copy_made(&sb);
    child.kill().unwrap();
    child.wait().unwrap();
    let out = output(
        sb.litebench()
            .args(["cleanup", "--dir", &sb.scratch().display().to_string()]),
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!said.contains("kept"), "{said}");
    assert_no_copy_left(&sb);
}

/// A cast whose only workload role runs as processes, for a trial longer than the 10 s a
/// client process has for its report: the trial's own connection runs no client, and the
/// reports are due after the trial's planned end, not 10 s after its start (every such trial
/// failed at about 10.5 s).
#[test]
fn a_cast_of_process_roles_only_runs_trials_longer_than_the_report_grace() {
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"web\"\nkind = \"workload\"\nclients = 2\nmode = \"processes\"\nrate = 40\nparams = { workload = \"a\" }\n",
    );
    let out = output(&mut sb.run(&[
        "ycsb",
        "--cast",
        &file,
        "--param",
        "records=200",
        "--param",
        "duration=11s",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let v = json(&out);
    // Both processes' reports came: about 40 tx/s for 11 s.
    let done: u64 = v["trials"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["name"].as_str().is_some_and(|n| n.starts_with("web:")))
        .filter_map(|o| o["ops"].as_u64())
        .sum();
    assert!((300..=600).contains(&done), "web ran {done} at 40 tx/s for 11 s");
    // The database's files were read all through the trial (once a second), not once at its
    // start: the WAL's verdict of a cast of processes rests on them.
    let files = v["trials"][0]["series"]["files"].as_array().map_or(0, Vec::len);
    assert!(files >= 10, "{files} readings of the files in an 11 s trial");
}

/// Roles that run the user's own scripts, one each: a writer thread beside a pool of reader
/// processes, each role's operations its own script's (before, every such cast stopped before
/// its first trial: "the scripts hash to ... now, not ... as when the run started").
#[test]
fn roles_run_their_own_scripts() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.cwd().join("schema.sql"),
        "CREATE TABLE page(id INTEGER PRIMARY KEY, hits INTEGER);\nINSERT INTO page VALUES (1, 0), (2, 0);\n",
    )
    .unwrap();
    std::fs::write(
        sb.cwd().join("write.sql"),
        "\\set id random(1, 2)\nBEGIN IMMEDIATE;\nUPDATE page SET hits = hits + 1 WHERE id = :id;\nCOMMIT;\n",
    )
    .unwrap();
    std::fs::write(sb.cwd().join("read.sql"), "SELECT sum(hits) FROM page;\n").unwrap();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 50\nparams = { file = \"write.sql\" }\n\n\
         [[role]]\nname = \"readers\"\nkind = \"workload\"\nclients = 2\nmode = \"processes\"\nrate = 100\nparams = { file = \"read.sql\" }\n",
    );
    let out = output(&mut sb.run(&[
        "script",
        "--cast",
        &file,
        "--param",
        "init=schema.sql",
        "--param",
        "duration=2s",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "busy_timeout=4000,5000",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let v = json(&out);
    let ops: Vec<(String, u64)> = v["trials"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap_or("").to_string(),
                o["ops"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let count = |prefix: &str| -> u64 { ops.iter().filter(|(n, _)| n.starts_with(prefix)).map(|(_, c)| c).sum() };
    assert!(count("writer:") > 0 && count("readers:") > 0, "{ops:?}");
    // Each role ran its own script's statements: the writer's UPDATE, the readers' SELECT.
    assert!(
        ops.iter()
            .any(|(n, c)| n.starts_with("writer:") && n.contains("write.sql") && *c > 0),
        "{ops:?}"
    );
    assert!(
        ops.iter()
            .any(|(n, c)| n.starts_with("readers:") && n.contains("read.sql") && *c > 0),
        "{ops:?}"
    );
    assert!(
        !ops.iter()
            .any(|(n, c)| n.starts_with("readers:") && n.contains("write.sql") && *c > 0),
        "{ops:?}"
    );
    // (Both configurations wait for locks: with busy_timeout=0 one may fail a transaction at
    // random, and the answer then ranks it apart instead.)
    // The terminal's tables say p99 against #0 once per row (a cast ranks by p99).
    let mut cmd = sb.litebench();
    cmd.args(["show", "--results"]).arg(sb.results()).env("COLUMNS", "80");
    let shown = output(&mut cmd);
    assert_success(&shown);
    let text = stdout(&shown);
    assert!(text.contains("p99 vs #0"), "{text}");
    assert!(!text.lines().any(|l| l.matches("p99 vs #0").count() > 1), "{text}");
    // With one trial a side, the answer names the configuration it cannot tell apart; unless a
    // loaded machine made one side fail or fall behind its schedule (an open loop skips what it
    // could not start by the trial's end), and then the answer ranks that side apart and says so.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let lost: u64 = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["ops"].as_array().unwrap().iter())
        .map(|o| o["failed"].as_u64().unwrap_or(0) + o["skipped"].as_u64().unwrap_or(0))
        .sum();
    if lost == 0 {
        assert!(words.contains("Too few trials to tell it apart from #"), "{text}");
    } else {
        assert!(words.contains("Failed transactions: #"), "{lost} lost: {text}");
    }
}

/// A hold runs the application's own report query in its snapshot: timed, its rows counted, in
/// the trial record and the roles' table; its SQL is read when the cast is, so a parameter in
/// it is refused before anything runs.
#[test]
fn a_hold_runs_the_user_s_report_query_timed_in_its_snapshot() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.cwd().join("schema.sql"),
        "CREATE TABLE page(id INTEGER PRIMARY KEY, hits INTEGER);\nINSERT INTO page VALUES (1, 0), (2, 0), (3, 0);\n",
    )
    .unwrap();
    std::fs::write(
        sb.cwd().join("write.sql"),
        "\\set id random(1, 3)\nUPDATE page SET hits = hits + 1 WHERE id = :id;\n",
    )
    .unwrap();
    std::fs::write(
        sb.cwd().join("report.sql"),
        "-- the nightly report\nSELECT id, hits FROM page ORDER BY hits DESC;\nSELECT 'a;b';\n",
    )
    .unwrap();
    let roles = |query: &str| {
        cast_file(
            &sb,
            &format!(
                "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 50\nparams = {{ file = \"write.sql\" }}\n\n\
                 [[role]]\nname = \"report\"\nkind = \"hold\"\nat = \"300ms\"\nevery = \"600ms\"\nquery = \"{query}\"\n"
            ),
        )
    };
    let run = |file: &str, format: &str| {
        output(&mut sb.run(&[
            "script",
            "--cast",
            file,
            "--param",
            "init=schema.sql",
            "--param",
            "duration=2s",
            "--knob",
            "journal_mode=wal",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--format",
            format,
        ]))
    };
    let file = roles("report.sql");
    let out = run(&file, "json");
    assert_success(&out);
    let v = json(&out);
    let holds = v["trials"][0]["cast"]["holds"].as_array().expect("holds").clone();
    assert!(holds.len() >= 2, "{holds:?}");
    for h in &holds {
        // Three rows of the first statement, one of the second (its `;` is inside a string).
        assert_eq!(h["query"]["rows"], 4, "{h}");
        assert!(h["query"]["duration_us"].as_u64().is_some(), "{h}");
    }
    let described = v["manifest"]["load"]["cast"]["roles"][1]["query"]["statements"].clone();
    assert_eq!(
        described.as_array().map(Vec::len),
        Some(2),
        "the run records the SQL that ran: {described}"
    );
    let table = stdout(&output(&mut sb.show(&["--all"])));
    assert!(
        table
            .lines()
            .any(|l| l.contains("report") && l.contains("hold, query: 4 rows")),
        "{table}"
    );

    std::fs::write(sb.cwd().join("bad.sql"), "SELECT * FROM page WHERE id = :id;\n").unwrap();
    let out = run(&roles("bad.sql"), "table");
    assert_error_line(
        &out,
        &["role \"report\"", "query", "bad.sql:1:31", "`:id` is a parameter"],
    );
    let out = run(&roles("missing.sql"), "table");
    assert_error_line(&out, &["role \"report\"", "cannot read missing.sql"]);
}

/// PASSIVE checkpoints while a reader holds its snapshot are never busy, yet copy only the
/// frames before the snapshot: the timeline draws them partial, not finished, with the frames
/// copied of the frames in the WAL written on the chart beside them.
#[test]
fn passive_checkpoints_during_a_hold_are_drawn_partial_with_their_frames() {
    let sb = Sandbox::new();
    let file = cast_file(
        &sb,
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nparams = { workload = \"a\" }\n\n\
         [[role]]\nname = \"holder\"\nkind = \"hold\"\nat = \"300ms\"\nfor = \"1500ms\"\n\n\
         [[role]]\nname = \"ckpt\"\nkind = \"checkpoint\"\ncheckpoint = \"PASSIVE\"\nat = \"800ms\"\nevery = \"400ms\"\n",
    );
    assert_success(&run_cast(&sb, &file, &[]));
    let v = sb.show_json();
    let ckpts = v["trials"][0]["cast"]["checkpoints"]
        .as_array()
        .expect("checkpoints")
        .clone();
    let partial = ckpts
        .iter()
        .filter(|c| c["busy"] == false && c["checkpointed_frames"].as_i64() < c["log_frames"].as_i64())
        .count();
    assert!(partial >= 1, "the hold kept frames from PASSIVE checkpoints: {ckpts:?}");
    let html = sb.page(&[]);
    let start = html.find("data-chart=\"timeline-0\"").expect("the timeline");
    let fig = &html[start..start + html[start..].find("</figure>").unwrap()];
    assert_eq!(
        fig.matches("<g class=\"checkpoint partial\">").count(),
        partial,
        "{fig}"
    );
    assert!(
        fig.contains("class=\"checkpoint-frames\""),
        "frames on the chart: {fig}"
    );
    assert!(
        fig.contains("checkpoint partial: frames copied/frames in the WAL"),
        "the legend"
    );
    assert!(fig.contains("copied only part of the WAL"), "the caption counts them");
}
