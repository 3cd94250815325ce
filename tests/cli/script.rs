//! The `script` workload end to end: pgbench's tpcb-like on SQLite with per-statement rows, a
//! user's script on a copy of the user's own database (left byte for byte as it was), and every
//! script error one line naming file, line and column, exit 2, before anything runs.

use crate::cli::common::*;
use litebench::engines::sqlite::api::Api;
use litebench::engines::sqlite::conn::SqliteConn;
use litebench::engines::Connection;

const QUICK: &[&str] = &["--trials", "1", "--warmup", "0", "--quiet"];

fn write(sb: &Sandbox, name: &str, text: &str) {
    std::fs::write(sb.cwd().join(name), text).unwrap();
}

#[test]
fn builtin_tpcb_like_runs_with_a_row_per_statement() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&["script", "--param", "builtin=tpcb-like", "--param", "transactions=200"]);
    cmd.args(QUICK).args([
        "--clients",
        "2",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "busy_timeout=10000",
    ]);
    cmd.args(["--max-tries", "20", "--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let params = &v["manifest"]["params"];
    assert_eq!(params["builtin"], "tpcb-like", "{params}");
    assert_eq!(params["sha256"].as_str().map(str::len), Some(64), "{params}");
    let rows = v["summary"].as_array().unwrap();
    let ops = |name: &str| {
        rows.iter()
            .find(|r| r["operation"] == name)
            .unwrap_or_else(|| panic!("no {name} row in {rows:?}"))["ops_per_trial"]
            .as_f64()
            .unwrap()
    };
    // The trial's totals count transactions, not statements.
    assert_eq!(ops("all"), 200.0);
    assert_eq!(ops("tpcb-like"), 200.0);
    assert_eq!(ops("tpcb-like:6 UPDATE pgbench_accounts"), 200.0);
    assert_eq!(ops("tpcb-like:10 INSERT pgbench_history"), 200.0);
}

#[test]
fn a_users_script_runs_on_a_copy_of_the_users_database_left_as_it_was() {
    let sb = Sandbox::new();
    let db = sb.cwd().join("app.db");
    {
        let mut c = SqliteConn::open(Api::bundled(), &db, None, "setup").unwrap();
        c.execute_batch("CREATE TABLE kv(k INTEGER PRIMARY KEY, v INTEGER); INSERT INTO kv SELECT value, 0 FROM generate_series(1, 100);")
            .unwrap_or_else(|_| {
                c.execute_batch("WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 100) INSERT INTO kv SELECT n, 0 FROM s;")
                    .unwrap()
            });
    }
    let before = std::fs::read(&db).unwrap();
    write(
        &sb,
        "bump.sql",
        "-- one update per transaction\n\\set k random(1, 100)\nUPDATE kv SET v = v + 1 WHERE k = :k;\nSELECT v, ':k' FROM kv WHERE k = :k;\n",
    );
    let mut cmd = sb.run(&[
        "script",
        "--param",
        "file=bump.sql",
        "--param",
        "db=app.db",
        "--param",
        "transactions=50",
    ]);
    cmd.args(QUICK).args(["--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let rows = v["summary"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().filter_map(|r| r["operation"].as_str()).collect();
    assert!(names.contains(&"bump.sql:3 UPDATE kv"), "{names:?}");
    assert!(names.contains(&"bump.sql:4 SELECT kv"), "{names:?}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the user's database is never written"
    );
}

#[test]
fn script_errors_are_one_line_with_file_line_and_column() {
    let sb = Sandbox::new();
    write(
        &sb,
        "bad.sql",
        "\\set k random(1, 10)\nSELECT * FROM t WHERE k = :kk;\n",
    );
    write(&sb, "meta.sql", "SELECT 1;\n\\shell ls\n");
    write(&sb, "expr.sql", "\\set k random(1, 10) *\nSELECT :k;\n");
    for (file, parts) in [
        ("bad.sql", &["bad.sql:2:27: unknown variable :kk"][..]),
        ("meta.sql", &["meta.sql:2:1: \\shell is not supported"][..]),
        ("expr.sql", &["expr.sql:1:23: expected a number"][..]),
        ("missing.sql", &["--param file: cannot read missing.sql"][..]),
    ] {
        let mut cmd = sb.run(&["script", "--param", &format!("file={file}")]);
        cmd.args(QUICK);
        assert_error_line(&output(&mut cmd), parts);
    }
    SqliteConn::open(Api::bundled(), &sb.cwd().join("app.db"), None, "setup")
        .and_then(|mut c| c.execute_batch("CREATE TABLE t(k INTEGER PRIMARY KEY);"))
        .unwrap();
    let mut cmd = sb.run(&["script", "--param", "db=app.db", "--engine", "postgres"]);
    cmd.args(QUICK);
    assert_error_line(&output(&mut cmd), &["--param db=app.db: a database file is SQLite's"]);
    assert!(!sb.results().exists(), "nothing is stored for a refused run");
}

/// Issue 32, item 14: a statement the engine refuses, when prepared (no such table) or when
/// run (a constraint), is one line naming its file and line, as the script's parse errors do;
/// before, the line named only the configuration (`defaults: sqlite: no such table: nope`).
#[test]
fn a_statements_sql_error_names_its_file_and_line() {
    let sb = Sandbox::new();
    write(&sb, "init.sql", "CREATE TABLE t(k INTEGER PRIMARY KEY, v);\n");
    write(
        &sb,
        "missing.sql",
        "SELECT 1;\n\n-- the table is not there\nSELECT * FROM nope;\n",
    );
    write(
        &sb,
        "twice.sql",
        "\\set k 1\nINSERT INTO t(k, v) VALUES (:k, 1);\nINSERT INTO t(k, v)\n  VALUES (:k, 2);\n",
    );
    for (file, parts) in [
        ("missing.sql", &["missing.sql:4: ", "no such table: nope"][..]),
        ("twice.sql", &["twice.sql:3: ", "UNIQUE constraint failed: t.k"][..]),
    ] {
        let mut cmd = sb.run(&[
            "script",
            "--param",
            &format!("file={file}"),
            "--param",
            "init=init.sql",
            "--param",
            "transactions=1",
        ]);
        cmd.args(QUICK);
        assert_run_error_line(&output(&mut cmd), parts);
    }
}

/// Issue 32, item 13: the population table counts the rows an `init=` file left in the
/// template (every table it made, the engine's catalogue aside) and says they came from the init
/// SQL; before, it said `rows 0`, `loaded by -` for an init file that inserted 60,000 rows.
#[test]
fn the_rows_an_init_file_inserted_are_counted_and_said_to_come_from_it() {
    let sb = Sandbox::new();
    write(
        &sb,
        "init.sql",
        "CREATE TABLE accounts(id INTEGER PRIMARY KEY AUTOINCREMENT, balance);\n\
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)\n\
         INSERT INTO accounts(balance) SELECT i FROM n;\n\
         CREATE TABLE \"odd \"\"name\"(x);\nINSERT INTO \"odd \"\"name\" VALUES (1), (2), (3);\n\
         CREATE VIEW rich AS SELECT * FROM accounts WHERE balance > 10;\n",
    );
    write(&sb, "read.sql", "SELECT balance FROM accounts WHERE id = 7;\n");
    let mut cmd = sb.run(&[
        "script",
        "--param",
        "file=read.sql",
        "--param",
        "init=init.sql",
        "--param",
        "transactions=10",
        "--format",
        "json",
    ]);
    cmd.args(QUICK);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let footprint = v["footprint"].as_array().expect("footprint");
    assert_eq!(footprint.len(), 1, "{footprint:?}");
    // 600 accounts and 3 odd rows; the view and sqlite_sequence are not the user's rows.
    assert_eq!(footprint[0]["rows"], 603, "{footprint:?}");
    assert_eq!(footprint[0]["load_path"], "init SQL", "{footprint:?}");
    let text = stdout(&output(&mut sb.show(&[])));
    let row = text
        .lines()
        .skip_while(|l| !l.starts_with("population"))
        .find(|l| l.starts_with("sqlite"))
        .unwrap_or_else(|| panic!("no population row\n{text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        (cells[2], &cells[cells.len() - 2..]),
        ("603", &["init", "SQL"][..]),
        "{row}"
    );
}

/// Issue 31, items 9 and 10: a NUL byte and nesting too deep for the stack are refused when the
/// script is read, in one line naming file, line and column; before, the NUL made SQLite answer
/// "not an error" and the nesting aborted litebench with a stack overflow (exit 134).
#[test]
fn a_nul_byte_and_nesting_too_deep_are_one_line_before_anything_runs() {
    let sb = Sandbox::new();
    write(&sb, "nul.sql", "SELECT 1;\nSELECT 2\0;\n");
    let parens = format!("\\set x {}1{}\nSELECT :x;\n", "(".repeat(10_000), ")".repeat(10_000));
    write(&sb, "parens.sql", &parens);
    write(
        &sb,
        "minus.sql",
        &format!("\\set x {}1\nSELECT :x;\n", "- ".repeat(100_000)),
    );
    write(&sb, "init.sql", "CREATE TABLE t(a);\n\0\n");
    for (args, parts) in [
        (
            &["--param", "file=nul.sql"][..],
            &["nul.sql:2:9: a NUL byte", "tr -d"][..],
        ),
        (
            &["--param", "file=parens.sql"],
            &["parens.sql:1:264: the expression nests deeper than 256 levels"],
        ),
        (
            &["--param", "file=minus.sql"],
            &["minus.sql:1:520: the expression nests deeper than 256 levels"],
        ),
        (
            &["--param", "file=nul.sql", "--param", "init=init.sql"],
            &["nul.sql:2:9: a NUL byte"],
        ),
        (
            &["--param", "builtin=select-only", "--param", "init=init.sql"],
            &["init.sql:2:1: a NUL byte"],
        ),
    ] {
        let mut cmd = sb.run(&["script"]);
        cmd.args(args).args(QUICK);
        assert_error_line(&output(&mut cmd), parts);
    }
    assert!(!sb.results().exists(), "nothing is stored for a refused run");
}

/// Issue 31, item 4: a script attaches no file outside the trial's copy: a variable's value is
/// bound while running, so SQLite's authorizer refuses it; an `init=` file's literal `ATTACH` is
/// refused when it is read. Before: the victim's rows were deleted, exit 0.
#[test]
fn a_script_and_its_init_file_change_no_file_outside_the_copy() {
    let sb = Sandbox::new();
    let victim = sb.cwd().join("victim.db");
    let mut v = SqliteConn::open(Api::bundled(), &victim, None, "victim").unwrap();
    v.execute_batch("CREATE TABLE important(a); INSERT INTO important VALUES (1), (2), (3);")
        .unwrap();
    write(&sb, "attach.sql", "ATTACH :victim AS v;\nDELETE FROM v.important;\n");
    let mut cmd = sb.run(&[
        "script",
        "--param",
        "file=attach.sql",
        "--param",
        &format!("define=victim={}", victim.display()),
        "--param",
        "transactions=1",
    ]);
    cmd.args(QUICK);
    assert_error_line(
        &output(&mut cmd),
        &["not authorized: ATTACH or VACUUM INTO of a file name computed while running"],
    );
    write(
        &sb,
        "init.sql",
        &format!("CREATE TABLE t(a);\nATTACH DATABASE '{}' AS v;\n", victim.display()),
    );
    write(&sb, "select.sql", "SELECT count(*) FROM t;\n");
    let mut cmd = sb.run(&["script", "--param", "file=select.sql", "--param", "init=init.sql"]);
    cmd.args(QUICK);
    assert_error_line(&output(&mut cmd), &["init.sql:2:17: ATTACH of '", "ATTACH '' AS name"]);
    assert_eq!(
        v.query_value("SELECT count(*) FROM important").unwrap().as_deref(),
        Some("3")
    );
}

/// `db=` naming a FIFO (which blocked the run for ever in `open`), a directory or a device is
/// refused in one line before anything runs.
#[test]
fn a_db_that_is_not_a_regular_file_is_refused() {
    let sb = Sandbox::new();
    let fifo = sb.cwd().join("pipe.db");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::fs::create_dir(sb.cwd().join("dir.db")).unwrap();
    write(&sb, "one.sql", "SELECT 1;\n");
    for (db, kind) in [
        ("pipe.db", "a FIFO (named pipe)"),
        ("dir.db", "a directory"),
        ("/dev/null", "a character device"),
    ] {
        let mut cmd = sb.run(&["script", "--param", "file=one.sql", "--param", &format!("db={db}")]);
        cmd.args(QUICK).timeout(std::time::Duration::from_secs(10));
        assert_error_line(
            &output(&mut cmd),
            &[&format!(
                "--param db={db}: {kind}, not a regular file; name a SQLite database file"
            )],
        );
        assert!(!sb.results().exists(), "nothing is stored for a refused run");
    }
}

/// A one-row counter read and then written in a bare (deferred) transaction, `bump.sql`, over
/// `init.sql`: `run script` of `transactions` of it, for the tests of lock give-ups.
fn read_then_write(sb: &Sandbox, transactions: &str) -> assert_cmd::Command {
    write(
        sb,
        "init.sql",
        "CREATE TABLE c(k INTEGER PRIMARY KEY, v INTEGER);\nINSERT INTO c VALUES (1, 0);\n",
    );
    write(
        sb,
        "bump.sql",
        "BEGIN;\nSELECT v FROM c WHERE k = 1;\nUPDATE c SET v = v + 1 WHERE k = 1;\nCOMMIT;\n",
    );
    sb.run(&[
        "script",
        "--param",
        "file=bump.sql",
        "--param",
        "init=init.sql",
        "--param",
        &format!("transactions={transactions}"),
    ])
}

/// Transactions that give up busy are not in the rate: the table shows how many per trial and a
/// warning says so. Four clients read and then write in deferred transactions with one try and
/// no busy timeout: a reader that finds another's commit in between cannot write, by SQLite's
/// rules, so some give up.
#[test]
fn transactions_that_gave_up_busy_are_shown_and_warned_about() {
    let sb = Sandbox::new();
    let mut cmd = read_then_write(&sb, "400");
    cmd.args(["--trials", "1", "--warmup", "0", "--clients", "4", "--max-tries", "1"])
        .args(["--knob", "journal_mode=wal", "--knob", "begin=deferred", "--all"])
        .env("COLUMNS", "400");
    let out = output(&mut cmd);
    assert_success(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text
        .lines()
        .find(|l| l.starts_with("#  configuration"))
        .expect("summary header");
    assert!(
        header.contains("busy/trial") && header.contains("busy upgrade"),
        "{header}"
    );
    let warning = text
        .lines()
        .find(|l| l.contains("gave up busy"))
        .unwrap_or_else(|| panic!("no warning in {text}"));
    assert!(warning.contains("not in its rate"), "{warning}");
    // Issue 32, item 4: in WAL a deferred read-then-write fails as an upgrade or on a stale
    // snapshot, never on the busy timeout, and the warning's advice is BEGIN IMMEDIATE.
    assert!(
        warning.contains("busy_upgrade") || warning.contains("busy_snapshot"),
        "{warning}"
    );
    assert!(!warning.contains("busy_timeout"), "{warning}");
    let advice = text
        .lines()
        .find(|l| l.contains("busy_upgrade (#0)") || l.contains("busy_snapshot (#0)"))
        .unwrap_or_else(|| panic!("no advice per cause in {text}"));
    assert!(advice.contains("BEGIN IMMEDIATE (--knob begin=immediate)"), "{advice}");
    assert!(!text.contains("use fewer clients"), "{text}");
}

/// A trial's give-ups of one operation: `busy`, then `busy_timeout`, `busy_upgrade`,
/// `busy_snapshot` (`None`: not counted).
type ByCause = (u64, Option<u64>, Option<u64>, Option<u64>);

/// Each trial's configuration and its result of `script` (its row in the trial's `ops`).
fn script_rows<'a>(v: &'a serde_json::Value, script: &str) -> Vec<(u64, &'a serde_json::Value)> {
    v["trials"]
        .as_array()
        .expect("trials")
        .iter()
        .map(|t| {
            let op = t["ops"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == script)
                .expect("the script's row");
            (t["config"].as_u64().unwrap(), op)
        })
        .collect()
}

/// Each trial's give-ups of `script`, by cause.
fn busy_causes(v: &serde_json::Value, script: &str) -> Vec<ByCause> {
    script_rows(v, script)
        .into_iter()
        .map(|(_, op)| {
            let n = |k: &str| op[k].as_u64();
            (
                n("busy").unwrap(),
                n("busy_timeout"),
                n("busy_upgrade"),
                n("busy_snapshot"),
            )
        })
        .collect()
}

/// Issue 32, item 4, the case: in WAL a 5 s busy timeout does not stop a deferred
/// read-then-write from giving up, because none of its give-ups waited on it: each is an
/// upgrade SQLite refused without calling the busy handler or a stale snapshot. The counts by
/// cause add up to `busy` in every trial, the summary carries them, and the advice names the
/// cause and BEGIN IMMEDIATE.
#[test]
fn busy_give_ups_are_counted_by_cause_with_advice_for_each() {
    let sb = Sandbox::new();
    write(
        &sb,
        "bump.sql",
        "BEGIN;\nSELECT v FROM c WHERE k = 1;\nUPDATE c SET v = v + 1 WHERE k = 1;\nCOMMIT;\n",
    );
    let v = contended(&sb, "bump.sql", Some("deferred"));
    let causes = busy_causes(&v, "bump.sql");
    let busy: u64 = causes.iter().map(|c| c.0).sum();
    assert!(busy > 0, "{causes:?}");
    for (busy, timeout, upgrade, snapshot) in &causes {
        assert_eq!(*timeout, Some(0), "{causes:?}");
        assert_eq!(upgrade.unwrap() + snapshot.unwrap(), *busy, "{causes:?}");
    }
    let all = v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "all")
        .unwrap();
    assert_eq!(all["busy_timeout"].as_f64(), Some(0.0), "{all}");
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    let advice = warnings
        .iter()
        .find(|w| w.starts_with("busy_upgrade (#0)") || w.starts_with("busy_snapshot (#0)"))
        .unwrap_or_else(|| panic!("{warnings:#?}"));
    assert!(advice.contains("BEGIN IMMEDIATE"), "{advice}");
}

/// Issue 32, items 1 and 4. On Turso, `begin=deferred` makes a read-then-write meet
/// "Database snapshot is stale" (SQLite's SQLITE_BUSY_SNAPSHOT): a lock failure the driver
/// retries and counts as busy_snapshot, not an error that stops the run (as it did).
#[test]
fn a_stale_snapshot_on_turso_is_counted_busy_not_fatal() {
    let sb = Sandbox::new();
    let mut cmd = read_then_write(&sb, "1000");
    cmd.args([
        "--engine",
        "turso",
        "--clients",
        "4",
        "--max-tries",
        "1",
        "--format",
        "json",
    ])
    .args(QUICK)
    // A writer waits out another's write lock, then finds its snapshot stale.
    .args(["--knob", "begin=deferred", "--knob", "busy_timeout=5000"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let causes = busy_causes(&v, "bump.sql");
    let snapshot: u64 = causes.iter().map(|c| c.3.unwrap()).sum();
    assert!(snapshot > 0, "{causes:?}");
    for (busy, timeout, upgrade, snapshot) in &causes {
        // Turso's busy handler runs on every other busy: those are busy_timeout.
        assert_eq!(timeout.unwrap() + snapshot.unwrap(), *busy, "{causes:?}");
        assert_eq!(*upgrade, Some(0), "{causes:?}");
    }
}

/// The `begin` reading of every trial of `v`: `(config, effective, note)`.
fn begin_readings(v: &serde_json::Value) -> Vec<(u64, String, String)> {
    v["trials"]
        .as_array()
        .expect("trials")
        .iter()
        .map(|t| {
            let r = t["knobs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["name"] == "begin")
                .unwrap_or_else(|| panic!("a begin reading in {}", t["knobs"]));
            let s = |k: &str| r[k].as_str().unwrap_or_else(|| panic!("{k} in {r}")).to_string();
            (t["config"].as_u64().unwrap(), s("effective"), s("note"))
        })
        .collect()
}

/// Each trial's transactions of `script` that gave up busy, by configuration.
fn busy_by_config(v: &serde_json::Value, script: &str) -> Vec<(u64, u64)> {
    script_rows(v, script)
        .into_iter()
        .map(|(config, op)| (config, op["busy"].as_u64().unwrap()))
        .collect()
}

/// Runs `script` (with init.sql) on 4 clients, one try each, in WAL with a 5 s busy timeout, for
/// each `begin` value in `begin` (none: the knob unset).
fn contended(sb: &Sandbox, script: &str, begin: Option<&str>) -> serde_json::Value {
    write(
        sb,
        "init.sql",
        "CREATE TABLE c(k INTEGER PRIMARY KEY, v INTEGER);\nINSERT INTO c VALUES (1, 0);\n",
    );
    let file = format!("file={script}");
    let mut cmd = sb.run(&[
        "script",
        "--param",
        &file,
        "--param",
        "init=init.sql",
        "--param",
        "transactions=400",
    ]);
    cmd.args(["--clients", "4", "--max-tries", "1", "--format", "json"])
        .args(QUICK);
    cmd.args(["--knob", "journal_mode=wal", "--knob", "busy_timeout=5000"]);
    if let Some(b) = begin {
        cmd.args(["--knob", &format!("begin={b}")]);
    }
    let out = output(&mut cmd);
    assert_success(&out);
    json(&out)
}

/// Issue 32, item 1. A script's bare `BEGIN` read, then wrote: deferred, the upgrade fails busy
/// without waiting (SQLite does not call the busy handler there); `--knob begin=immediate` must
/// start it IMMEDIATE, so the 5 s busy timeout waits out every lock and none gives up. Before,
/// the knob was read back as immediate while the script's BEGIN stayed deferred.
#[test]
fn the_begin_knob_starts_a_scripts_bare_begin_in_its_mode() {
    let sb = Sandbox::new();
    write(
        &sb,
        "bump.sql",
        "-- read, then write\nbegin transaction;\nSELECT v FROM c WHERE k = 1;\nUPDATE c SET v = v + 1 WHERE k = 1;\nCOMMIT;\n",
    );
    let v = contended(&sb, "bump.sql", Some("deferred,immediate"));
    let busy = busy_by_config(&v, "bump.sql");
    assert_eq!(busy.len(), 2, "{busy:?}");
    assert!(busy[0].1 > 0, "deferred: upgrades fail busy: {busy:?}");
    assert_eq!(busy[1].1, 0, "immediate: every lock waited for: {busy:?}");
    let readings = begin_readings(&v);
    assert_eq!(readings[0].1, "deferred");
    assert_eq!(readings[1].1, "immediate");
    assert_eq!(
        readings[1].2,
        "1 bare BEGIN of the workload's SQL starts as BEGIN IMMEDIATE"
    );
}

/// Issue 32, item 1. A `BEGIN IMMEDIATE` the user wrote stays as written under
/// `begin=deferred` (no upgrade fails) while the script's bare `BEGIN` starts deferred; with the
/// knob unset a script's BEGINs read back "as written", not the connection's default for
/// litebench's own transactions, and the manifest records the knob's origin as "as written" too;
/// a script with no bare `BEGIN` refuses the knob, which would start nothing.
#[test]
fn an_explicit_begin_mode_stays_and_an_unset_knob_reads_as_written() {
    let sb = Sandbox::new();
    write(
        &sb,
        "bump.sql",
        "BEGIN IMMEDIATE;\nSELECT v FROM c WHERE k = 1;\nUPDATE c SET v = v + 1 WHERE k = 1;\nCOMMIT;\nBEGIN;\nSELECT v FROM c WHERE k = 1;\nCOMMIT;\n",
    );
    let v = contended(&sb, "bump.sql", Some("deferred"));
    assert_eq!(busy_by_config(&v, "bump.sql"), vec![(0, 0)]);
    let readings = begin_readings(&v);
    assert_eq!(
        readings[0].2,
        "1 bare BEGIN of the workload's SQL starts as BEGIN DEFERRED"
    );
    let v = contended(&sb, "bump.sql", None);
    let readings = begin_readings(&v);
    assert_eq!(readings[0].1, "as written", "{readings:?}");
    let origins = &v["manifest"]["configs"][0]["knob_origins"];
    assert!(
        origins
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o[0] == "begin" && o[1] == "as written"),
        "the manifest says the unset begin runs the BEGINs as written: {origins}"
    );
    // Issue 32, item 7: each file the workload read, by name and content.
    let files = v["manifest"]["workload_files"].as_array().expect("workload_files");
    let names: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f["param"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("file", "bump.sql"), ("init", "init.sql")], "{files:?}");
    assert!(
        files.iter().all(|f| f["sha256"].as_str().unwrap().len() == 64),
        "{files:?}"
    );
    write(
        &sb,
        "explicit.sql",
        "BEGIN IMMEDIATE;\nUPDATE c SET v = v + 1 WHERE k = 1;\nCOMMIT;\n",
    );
    let mut cmd = sb.run(&[
        "script",
        "--param",
        "file=explicit.sql",
        "--knob",
        "begin=deferred,immediate",
    ]);
    assert_error_line(
        &output(&mut cmd),
        &["error: --knob begin: the scripts have no bare BEGIN (BEGIN, BEGIN TRANSACTION or BEGIN DEFERRED) for it to start, so it would change nothing script runs; leave it out (docs/knobs.md lists which knob acts on which workload)"],
    );
}

/// Issue 32, item 6: an open loop given neither `transactions=` nor `duration=` stops on time
/// (as long as the default count takes at the rate) and the manifest records the rule and what
/// chose it; a given count is kept, and the header puts the target beside the achieved rate.
#[test]
fn an_open_loop_stops_on_time_by_default_and_the_manifest_says_why() {
    let sb = Sandbox::new();
    write(&sb, "q.sql", "SELECT 1;\n");
    let run = |extra: &[&str]| {
        let mut cmd = sb.run(&["script", "--param", "file=q.sql"]);
        cmd.args(extra).args(QUICK).args(["--format", "json"]);
        let out = output(&mut cmd);
        assert_success(&out);
        json(&out)["manifest"].clone()
    };
    let open = ["--clients", "2", "--rate", "2000"];
    let m = run(&open);
    assert_eq!(
        m["stop"],
        serde_json::json!({"on": "duration", "param": "duration", "ms": 500, "chosen_by": "open_loop_default"}),
        "1000 transactions (the default) at 2000/s: {m:#}"
    );
    assert_eq!(m["params"]["duration"], "500ms", "{m:#}");
    let m = run(&[&open[..], &["--param", "transactions=50"]].concat());
    assert_eq!(
        m["stop"],
        serde_json::json!({"on": "count", "param": "transactions", "count": 50, "chosen_by": "param"}),
        "{m:#}"
    );
    let m = run(&["--clients", "2"]);
    assert_eq!(
        m["stop"],
        serde_json::json!({"on": "count", "param": "transactions", "count": 1000, "chosen_by": "default"}),
        "a closed loop keeps the count: {m:#}"
    );
    let mut cmd = sb.run(&["script", "--param", "file=q.sql"]);
    cmd.args(open).args(QUICK);
    let out = output(&mut cmd);
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("open loop: target 2000 tx/s, achieved ")
            && text.contains("stops after 500 ms (--param duration=500ms, an open loop's default"),
        "{text}"
    );
}

/// Issue 37 (expressions): a script using pgbench's `CASE`, booleans, `NULL` tests and
/// `permute` runs on SQLite, each value checked by the statement itself (a wrong one makes
/// SQLite's `abs()` of the smallest integer fail the run); a draw over a range wider than
/// pgbench allows stops the run with pgbench's message, in one line. Before, each of these
/// `\set` lines was a parse error.
#[test]
fn pgbench_expressions_run_and_a_too_wide_random_range_stops_the_run() {
    let sb = Sandbox::new();
    // pgbench's documented values: permute(0, 2, 5433) is 1, permute(1, 2, 5433) is 0.
    write(
        &sb,
        "expr.sql",
        "\\set k permute(random(0, 9), 10, 5433)\n\
         \\set big CASE WHEN :k >= 5 AND NOT FALSE THEN 1 WHEN :k IS NULL THEN -1 ELSE 0 END\n\
         \\set swap permute(0, 2, 5433) = 1 AND permute(1, 2, 5433) = 0\n\
         \\set none CASE WHEN FALSE THEN 1 END\n\
         SELECT CASE WHEN :k BETWEEN 0 AND 9 AND :big = (:k >= 5) AND :swap AND :none IS NULL\n\
           THEN 1 ELSE abs(-9223372036854775807 - 1) END;\n",
    );
    write(
        &sb,
        "wide.sql",
        "\\set r random(-9223372036854775808, 9223372036854775807)\nSELECT :r;\n",
    );
    let mut cmd = sb.run(&["script", "--param", "file=expr.sql", "--param", "transactions=50"]);
    cmd.args(QUICK).args(["--format", "json"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let all = v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "all")
        .cloned();
    assert_eq!(all.map(|r| r["ops_per_trial"].clone()), Some(serde_json::json!(50.0)));

    let mut cmd = sb.run(&["script", "--param", "file=wide.sql", "--param", "transactions=5"]);
    cmd.args(QUICK);
    assert_run_error_line(
        &output(&mut cmd),
        &["wide.sql:1: random range is too large: [-9223372036854775808, 9223372036854775807]"],
    );
}

/// A script reading a row with `\gset` and branching on `:client_id` (issue 37), and its init
/// file: each client updates its own account with the balance it read.
pub const GSET_IF_INIT: &str =
    "CREATE TABLE acc(id INTEGER PRIMARY KEY, bal INTEGER);\nINSERT INTO acc VALUES (0, 0), (1, 0);\n";
pub const GSET_IF: &str = "SELECT bal AS old, id AS mine FROM acc WHERE id = :client_id \\gset\n\\if :client_id\nUPDATE acc SET bal = :old + 10 WHERE id = :mine;\n\\else\nUPDATE acc SET bal = :old + 1 WHERE id = :mine;\n\\endif\n";

/// Ops per trial of each operation of `v`'s configuration `config`, by name.
fn ops_of(v: &serde_json::Value, config: u64) -> std::collections::BTreeMap<String, f64> {
    v["summary"]
        .as_array()
        .expect("summary")
        .iter()
        .filter(|r| r["config"] == config)
        .map(|r| {
            (
                r["operation"].as_str().unwrap().to_string(),
                r["ops_per_trial"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn if_and_gset_run_with_two_clients_and_name_columns_alike_on_every_embedded_engine() {
    let sb = Sandbox::new();
    write(&sb, "init.sql", GSET_IF_INIT);
    write(&sb, "q.sql", GSET_IF);
    let run = |engines: &[&str], clients: &str, knobs: &[&str]| {
        let mut cmd = sb.run(&["script", "--param", "file=q.sql", "--param", "init=init.sql"]);
        cmd.args(["--param", "transactions=40", "--clients", clients]);
        for e in engines {
            cmd.args(["--engine", e]);
        }
        cmd.args(QUICK).args(knobs).args(["--format", "json"]);
        let out = output(&mut cmd);
        assert_success(&out);
        json(&out)
    };
    // Two clients on SQLite: client 0 takes the \else branch, client 1 the \if.
    let ops = ops_of(&run(&["sqlite"], "2", &["--knob", "busy_timeout=10000"]), 0);
    let (zero, one) = (ops["q.sql:5 UPDATE acc"], ops["q.sql:3 UPDATE acc"]);
    assert!(zero > 0.0 && one > 0.0 && zero + one == 40.0, "{ops:?}");
    assert_eq!(ops["q.sql:1 SELECT acc"], 40.0, "{ops:?}");
    // Turso and DuckDB name the columns as SQLite does: the variables the script uses are found.
    let v = run(&["turso", "duckdb"], "1", &[]);
    for config in [0, 1] {
        let ops = ops_of(&v, config);
        assert_eq!(ops["q.sql:5 UPDATE acc"], 40.0, "{ops:?}");
    }
}

/// `--param define=default_seed=N` reaches the seed `hash`, `hash_fnv1a`, `hash_murmur2` and
/// `permute` use when given none, as `-D` does in pgbench (before, `:default_seed` read N yet
/// `hash(1)` used litebench's own seed). A difference would take the branch and divide by 0.
#[test]
fn a_defined_default_seed_is_the_implicit_seed_of_hash_and_permute() {
    let sb = Sandbox::new();
    write(
        &sb,
        "seed.sql",
        "\\set a hash(1)\n\\set b hash(1, :default_seed)\n\\set c hash_fnv1a(7) - hash_fnv1a(7, :default_seed)\n\
         \\set d permute(3, 100) - permute(3, 100, :default_seed)\n\
         \\if :a <> :b OR :c <> 0 OR :d <> 0\n\\set boom 1 / 0\n\\endif\nSELECT 1;\n",
    );
    let out = output(&mut sb.run(&[
        "script",
        "--param",
        "file=seed.sql",
        "--param",
        "define=default_seed=42",
        "--param",
        "transactions=20",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
    ]));
    assert_success(&out);
}

/// Issue 47: what pgbench 15 prints for the same script, from `litebench run script` itself:
/// `--` is two minus signs, a continued line joins the next, least's NaN goes by position,
/// NaN and infinities are written as PostgreSQL writes them, a defined `0x10` is C's strtod's
/// 16; then the refusals in pgbench's words.
#[test]
fn debug_prints_what_pgbench_prints_and_refuses_in_its_words() {
    let sb = Sandbox::new();
    write(
        &sb,
        "p.sql",
        "\\set r debug(2--5)\n\\set r debug(1 + \\\n  2)\n\\set r debug(least(1, 0.0/0))\n\\set r debug(least(1, 0.0/0, 2))\n\
         \\set r debug(-1.0/0)\n\\set r debug(:h)\nSELECT 1;\n",
    );
    let run = |sb: &Sandbox, file: &str, define: &str| {
        output(&mut sb.run(&[
            "script",
            "--param",
            &format!("file={file}"),
            "--param",
            &format!("define={define}"),
            "--param",
            "transactions=1",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ]))
    };
    let out = run(&sb, "p.sql", "h=0x10");
    assert_success(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let debug: Vec<&str> = stderr.lines().filter_map(|l| l.strip_prefix("debug: ")).collect();
    assert_eq!(
        debug,
        [
            "int 7",
            "int 3",
            "double NaN",
            "double 2",
            "double -Infinity",
            "double 16"
        ],
        "{stderr}"
    );
    write(&sb, "m.sql", "\\set r :h + 1\nSELECT 1;\n");
    for (file, define, want) in [
        ("m.sql", "h=abc", "m.sql:1: malformed variable \"h\" value: \"abc\""),
        ("m.sql", "h= 7 ", "m.sql:1: malformed variable \"h\" value: \" 7 \""),
        (
            "m.sql",
            "h=9223372036854775808",
            "value \"9223372036854775808\" is out of range for type bigint",
        ),
        ("m.sql", "h=", "invalid variable definition: \"h=\""),
    ] {
        let out = run(&sb, file, define);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(want), "{define}: {stderr}");
    }
    write(&sb, "c.sql", "\\set r 1e-310\nSELECT 1;\n");
    let out = run(&sb, "c.sql", "h=1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("c.sql:1:8: double constant overflow (1e-310)"),
        "{stderr}"
    );
}
