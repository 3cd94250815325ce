//! The `script` workload on the servers litebench starts: pgbench's tpcb-like with two clients
//! on PostgreSQL and MariaDB (prepared `BEGIN`/`COMMIT` included, pgbench's consistency check
//! passing after each trial), and a user's script whose `.pg.sql` and `.mysql.sql` variants
//! (a `::cast`, backquoted names, MariaDB's `START TRANSACTION` and backslash escapes) replace
//! it on each server while SQLite runs the base file.

use crate::servers::common::*;

/// `(operation, ops per trial)` of configuration `label`'s rows.
fn rows(v: &serde_json::Value, label: &str) -> Vec<(String, f64)> {
    let config = config_index(v, label);
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
fn tpcb_like_runs_on_both_servers_and_stays_consistent() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let v = run(sb.run_std(&[
        "script",
        "--param",
        "builtin=tpcb-like",
        "--param",
        "scale=1",
        "--param",
        "transactions=100",
        "--engine",
        "postgres",
        "--engine",
        "mysql",
        "--clients",
        "2",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
    .assert_success();
    // `complete` means every trial passed pgbench's consistency check (balances against the
    // history's deltas) on its server.
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    for label in ["postgres defaults", "mysql defaults"] {
        let rows = rows(&v, label);
        let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "all",
                "tpcb-like",
                "tpcb-like:5 BEGIN",
                "tpcb-like:6 UPDATE pgbench_accounts",
                "tpcb-like:7 SELECT pgbench_accounts",
                "tpcb-like:8 UPDATE pgbench_tellers",
                "tpcb-like:9 UPDATE pgbench_branches",
                "tpcb-like:10 INSERT pgbench_history",
                "tpcb-like:11 COMMIT",
            ],
            "{label}"
        );
        assert!(rows.iter().all(|r| r.1 == 100.0), "{label}: {rows:?}");
    }
    sb.assert_clean("script tpcb-like on both servers");
}

#[test]
fn dialect_variants_replace_the_script_on_each_server() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let files = [
        (
            "schema.sql",
            "CREATE TABLE kv (k INTEGER PRIMARY KEY, v INTEGER NOT NULL);\nINSERT INTO kv (k, v) VALUES (1, 0), (2, 0), (3, 0);\n",
        ),
        (
            "kv.sql",
            "\\set k random(1, 3)\nBEGIN;\nUPDATE kv SET v = v + 1 WHERE k = :k;\nSELECT v FROM kv WHERE k = :k;\nCOMMIT;\n",
        ),
        (
            "kv.pg.sql",
            "\\set k random(1, 3)\nBEGIN;\nUPDATE kv SET v = v + 1 WHERE k = :k::int;\nSELECT v::bigint, 'a:b;' AS \"odd;name\" FROM kv WHERE k = :k;\nCOMMIT;\n",
        ),
        (
            "kv.mysql.sql",
            "\\set k random(1, 3)\nSTART TRANSACTION;\nUPDATE `kv` SET v = v + 1 WHERE k = :k;\nSELECT v, 'it\\'s;:x' AS `odd;name` FROM `kv` WHERE k = :k;\nCOMMIT;\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(sb.cwd().join(name), text).unwrap();
    }
    let v = run(sb.run_std(&[
        "script",
        "--param",
        "file=kv.sql",
        "--param",
        "init=schema.sql",
        "--param",
        "transactions=30",
        "--engine",
        "sqlite",
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
    for (label, file, begin, table) in [
        ("sqlite defaults", "kv.sql", "BEGIN", "kv"),
        ("postgres defaults", "kv.pg.sql", "BEGIN", "kv"),
        ("mysql defaults", "kv.mysql.sql", "START", "`kv`"),
    ] {
        let rows = rows(&v, label);
        let want = [
            "all".to_string(),
            "kv.sql".to_string(),
            format!("{file}:2 {begin}"),
            format!("{file}:3 UPDATE {table}"),
            format!("{file}:4 SELECT {table}"),
            format!("{file}:5 COMMIT"),
        ];
        let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, want, "{label}");
        assert!(rows.iter().all(|r| r.1 == 30.0), "{label}: {rows:?}");
    }
    sb.assert_clean("script variants on both servers");
}

/// Issue 37: a script that reads a row with `\gset` and branches on `:client_id` runs on both
/// servers with two clients: their column names are the ones SQLite gives (else the variables
/// the script uses would be refused before it ran).
#[test]
fn if_and_gset_run_on_both_servers_with_the_column_names_sqlite_gives() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    std::fs::write(
        sb.cwd().join("init.sql"),
        "CREATE TABLE acc(id INTEGER PRIMARY KEY, bal INTEGER);\nINSERT INTO acc VALUES (0, 0), (1, 0);\n",
    )
    .unwrap();
    std::fs::write(
        sb.cwd().join("q.sql"),
        "SELECT bal AS old, id AS mine FROM acc WHERE id = :client_id \\gset\n\\if :client_id\nUPDATE acc SET bal = :old + 10 WHERE id = :mine;\n\\else\nUPDATE acc SET bal = :old + 1 WHERE id = :mine;\n\\endif\n",
    )
    .unwrap();
    let v = run(sb.run_std(&[
        "script",
        "--param",
        "file=q.sql",
        "--param",
        "init=init.sql",
        "--param",
        "transactions=40",
        "--engine",
        "postgres",
        "--engine",
        "mysql",
        "--clients",
        "2",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
    .assert_success();
    for label in ["postgres defaults", "mysql defaults"] {
        let rows = rows(&v, label);
        let ops = |name: &str| rows.iter().find(|r| r.0 == name).map_or(0.0, |r| r.1);
        let (zero, one) = (ops("q.sql:5 UPDATE acc"), ops("q.sql:3 UPDATE acc"));
        assert!(zero > 0.0 && one > 0.0 && zero + one == 40.0, "{label}: {rows:?}");
        assert_eq!(ops("q.sql:1 SELECT acc"), 40.0, "{label}: {rows:?}");
    }
}

/// Issue 47 on PostgreSQL, against what pgbench does there: a `\gset` of a boolean keeps `t`,
/// which an expression reads as a boolean (it was int 1: `cannot coerce int to boolean`) and
/// which binds back into a boolean parameter; a double into an int4 parameter, an integer into a
/// numeric one and a NULL whose type the server cannot infer bind as pgbench's pasted text
/// works; a statement in a branch not taken is never prepared (it stopped the run).
#[test]
fn pgbench_scripts_bind_and_gset_on_postgres_as_pgbenchs_text_works() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let sb = Sandbox::new();
    std::fs::write(
        sb.cwd().join("p.sql"),
        "SELECT TRUE AS b \\gset\n\\set r debug(:b AND TRUE)\nSELECT NOT :b AS nb \\gset\n\\set r debug(:nb)\n\\set x 5.0\nSELECT :x * 2 AS a \\gset\n\\set r debug(:a)\n\\set y 5\nSELECT :y * 2.5 AS c \\gset\n\\set r debug(:c)\n\\set n NULL\nSELECT CASE WHEN :n IS NULL THEN 1 ELSE 0 END AS z \\gset\n\\set r debug(:z)\n\\if 0\nSELECT * FROM no_such_table;\n\\endif\n",
    )
    .unwrap();
    let out = run(sb.run_std(&[
        "script",
        "--param",
        "file=p.sql",
        "--param",
        "transactions=1",
        "--engine",
        "postgres",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    out.assert_success();
    let debug: Vec<&str> = out.stderr.lines().filter_map(|l| l.strip_prefix("debug: ")).collect();
    assert_eq!(
        debug,
        ["boolean true", "boolean false", "int 10", "double 12.5", "int 1"],
        "{}",
        out.describe()
    );
}

/// A script of more statements than the MariaDB client's statement cache held (32): every
/// statement stays prepared for the whole trial. The cache closed the least recently used one
/// on the server once a 33rd was prepared, and its next run failed with `Unknown prepared
/// statement handler`.
#[test]
fn a_script_of_forty_statements_runs_again_on_mariadb() {
    if !available(&[Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let script: String = (1..=40).map(|i| format!("SELECT {i} AS c{i};\n")).collect();
    std::fs::write(sb.cwd().join("forty.sql"), script).unwrap();
    let v = run(sb.run_std(&[
        "script",
        "--param",
        "file=forty.sql",
        "--param",
        "transactions=3",
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
    let rows = rows(&v, "defaults");
    let statements: Vec<_> = rows.iter().filter(|r| r.0.starts_with("forty.sql:")).collect();
    assert_eq!(statements.len(), 40, "{rows:?}");
    assert!(
        statements.iter().all(|r| r.1 == 3.0),
        "each statement ran 3 times: {rows:?}"
    );
}
