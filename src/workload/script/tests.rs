use super::*;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::model::op::OpResult;
use crate::model::params;
use std::sync::atomic::AtomicBool;

struct NoMore;

impl crate::workload::Connector for NoMore {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
        unreachable!("one client")
    }
}

fn params(args: &[&str]) -> Params {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut p = params::resolve("script", PARAMS, &args).unwrap();
    ScriptWorkload.check(&p).unwrap();
    ScriptWorkload.settle(&mut p).unwrap_or_else(|e| panic!("{e}"));
    p
}

/// A directory with the given files.
fn files(list: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in list {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn path(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).display().to_string()
}

fn memory() -> SqliteConn {
    SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap()
}

/// Runs one trial of `p` on `conn` (populated first) and returns every operation type's result.
fn trial(conn: &mut SqliteConn, p: &Params, seed: u64) -> Vec<OpResult> {
    let stop = AtomicBool::new(false);
    let trial = Trial::plain(p, seed, &stop, &NoMore);
    let mut rec = Recorder::of_types(&ScriptWorkload.operation_types(p, Some(Dialect::Sqlite)), None);
    ScriptWorkload.run(conn, &trial, &mut rec).unwrap();
    ScriptWorkload.verify(conn, p).unwrap();
    rec.finish().0
}

fn op<'a>(ops: &'a [OpResult], name: &str) -> &'a OpResult {
    ops.iter()
        .find(|o| o.name.ends_with(name))
        .unwrap_or_else(|| panic!("no {name} in {:?}", ops.iter().map(|o| &o.name).collect::<Vec<_>>()))
}

#[test]
fn builtin_tpcb_like_runs_pgbenchs_workload_and_keeps_its_balances() {
    let p = params(&["builtin=tpcb-like", "transactions=300"]);
    assert_eq!(p.text("sha256").len(), 64);
    let mut conn = memory();
    let rows = ScriptWorkload.populate(&mut conn, &Population::plain(&p, 1)).unwrap();
    assert_eq!(rows, 100_000 + 10 + 1);
    assert_eq!(
        conn.query_value("SELECT length(filler) FROM pgbench_accounts WHERE aid = 5")
            .unwrap(),
        Some("84".into())
    );
    let ops = trial(&mut conn, &p, 7);
    // One operation type for the script, one per statement, each statement a part of it.
    let names: Vec<&str> = ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "tpcb-like",
            "tpcb-like:5 BEGIN",
            "tpcb-like:6 UPDATE pgbench_accounts",
            "tpcb-like:7 SELECT pgbench_accounts",
            "tpcb-like:8 UPDATE pgbench_tellers",
            "tpcb-like:9 UPDATE pgbench_branches",
            "tpcb-like:10 INSERT pgbench_history",
            "tpcb-like:11 COMMIT",
        ]
    );
    for o in &ops {
        assert_eq!(o.ops, 300, "{}", o.name);
        assert_eq!(o.part_of.as_deref(), (o.name != "tpcb-like").then_some("tpcb-like"));
    }
    let history = conn.query_value("SELECT count(*) FROM pgbench_history").unwrap();
    assert_eq!(history, Some("300".into()));
    // Statements take less time than their transaction.
    let whole = op(&ops, "tpcb-like").latency.mean_ns;
    let parts: f64 = ops[1..].iter().map(|o| o.latency.mean_ns).sum();
    assert!(parts <= whole * 1.01, "{parts} > {whole}");
}

#[test]
fn same_seed_same_values_other_seed_other_values() {
    let dir = files(&[(
        "v.sql",
        "\\set a random(1, 1000000)\n\\set z random_zipfian(1, 1000, 1.5)\n\\set g random_gaussian(1, 1000, 2.5)\n\\set e random_exponential(1, 1000, 3)\n\\set h hash(:a)\nSELECT :a, :z, :g, :e, :h;\n",
    )]);
    let p = params(&[&format!("file={}", path(&dir, "v.sql"))]);
    let loaded = load(&p).unwrap();
    let draws = |seed: u64| -> Vec<Vec<expr::Var>> {
        let mut conn = memory();
        let mut c = client::ScriptClient::new(&mut conn, loaded, 0, seed).unwrap();
        (0..20)
            .map(|_| {
                c.draw();
                c.execute().unwrap();
                ["a", "z", "g", "e", "h"]
                    .iter()
                    .map(|v| c.var(v).unwrap().clone())
                    .collect()
            })
            .collect()
    };
    assert_eq!(draws(5), draws(5));
    assert_ne!(draws(5), draws(6));
}

#[test]
fn a_variable_is_bound_as_a_parameter_never_pasted_into_the_sql() {
    let evil = "'); DROP TABLE t; --";
    let dir = files(&[
        ("init.sql", "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);"),
        (
            "i.sql",
            "INSERT INTO t(v) VALUES (:x); -- :x\nSELECT ':x', v FROM t WHERE v = :x;\n",
        ),
    ]);
    let p = params(&[
        &format!("file={}", path(&dir, "i.sql")),
        &format!("init={}", path(&dir, "init.sql")),
        &format!("define=x={evil}"),
        "transactions=3",
    ]);
    let mut conn = memory();
    ScriptWorkload.populate(&mut conn, &Population::plain(&p, 1)).unwrap();
    let ops = trial(&mut conn, &p, 1);
    assert_eq!(op(&ops, "INSERT t").ops, 3);
    let rows = conn.query("SELECT v FROM t").unwrap();
    assert_eq!(
        rows,
        vec![vec![Some(evil.to_string())]; 3],
        "the table is there, holding the text"
    );
}

#[test]
fn weights_are_honoured_within_sampling_error() {
    let dir = files(&[("a.sql", "SELECT 1;\n"), ("b.sql", "SELECT 2;\nSELECT 3;\n")]);
    let p = params(&[
        &format!("file={}@3,{}@1", path(&dir, "a.sql"), path(&dir, "b.sql")),
        "transactions=8000",
    ]);
    let ops = trial(&mut memory(), &p, 3);
    let (a, b) = (op(&ops, "a.sql").ops, op(&ops, "b.sql").ops);
    assert_eq!(a + b, 8000);
    // Binomial(8000, 0.75): sd 38.7; 4 sd either side.
    assert!((6000 - 155..=6000 + 155).contains(&a), "a ran {a} of 8000");
    // Per-statement counts follow their script's.
    assert_eq!(op(&ops, "a.sql:1 SELECT").ops, a);
    assert_eq!(op(&ops, "b.sql:1 SELECT").ops, b);
    assert_eq!(op(&ops, "b.sql:2 SELECT").ops, b);
    // A weight of 0 is never drawn.
    let p = params(&[
        &format!("file={}@1,{}@0", path(&dir, "a.sql"), path(&dir, "b.sql")),
        "transactions=200",
    ]);
    let ops = trial(&mut memory(), &p, 3);
    assert_eq!((op(&ops, "a.sql").ops, op(&ops, "b.sql").ops), (200, 0));
}

#[test]
fn a_dialect_variant_replaces_the_file_on_its_engine_and_changes_the_hash() {
    let dir = files(&[
        ("t.sql", "SELECT 1;\n"),
        ("t.pg.sql", "\\set x 1\nSELECT :x;\nSELECT 2;\n"),
    ]);
    let arg = format!("file={}", path(&dir, "t.sql"));
    let p = params(&[&arg]);
    let loaded = load(&p).unwrap();
    let names = |d| -> Vec<&str> { loaded.layout(Some(d)).types.iter().map(|t| t.name).collect() };
    let base = path(&dir, "t.sql");
    let pg = path(&dir, "t.pg.sql");
    assert_eq!(names(Dialect::Sqlite), vec![base.clone(), format!("{base}:1 SELECT")]);
    assert_eq!(
        names(Dialect::Postgres),
        vec![base.clone(), format!("{pg}:2 SELECT"), format!("{pg}:3 SELECT")]
    );
    // Another file's content, another hash.
    let other = files(&[("t.sql", "SELECT 1;\n")]);
    let q = params(&[&format!("file={}", path(&other, "t.sql"))]);
    assert_ne!(p.text("sha256"), q.text("sha256"));
    // A pinned hash that does not match is refused.
    let args = vec![arg, format!("sha256={}", "0".repeat(64))];
    let mut r = params::resolve("script", PARAMS, &args).unwrap();
    let e = ScriptWorkload.settle(&mut r).unwrap_err();
    assert!(e.starts_with("--param sha256=000"), "{e}");
}

#[test]
fn a_runtime_error_stops_the_trial_with_its_script_and_line() {
    let dir = files(&[("z.sql", "\\set d 0\n\\set q 10 / :d\nSELECT :q;\n")]);
    let p = params(&[&format!("file={}", path(&dir, "z.sql"))]);
    let stop = AtomicBool::new(false);
    let trial = Trial::plain(&p, 1, &stop, &NoMore);
    let mut rec = Recorder::of_types(&ScriptWorkload.operation_types(&p, Some(Dialect::Sqlite)), None);
    let e = ScriptWorkload
        .run(&mut memory(), &trial, &mut rec)
        .unwrap_err()
        .to_string();
    assert!(e.contains("z.sql:2: division by zero"), "{e}");
}

#[test]
fn bad_inputs_are_one_line_each() {
    let dir = files(&[("bad.sql", "SELECT 1;\n\\if 1\n"), ("db.txt", "not a database")]);
    let settle = |args: &[String]| {
        let mut p = params::resolve("script", PARAMS, args).unwrap();
        ScriptWorkload
            .check(&p)
            .and_then(|()| ScriptWorkload.settle(&mut p))
            .unwrap_err()
    };
    let bad = path(&dir, "bad.sql");
    assert_eq!(
        settle(&[format!("file={bad}")]),
        format!("{bad}:2:1: \\if without matching \\endif")
    );
    assert!(settle(&["file=/nonexistent/x.sql".into()]).starts_with("--param file: cannot read /nonexistent/x.sql"));
    assert!(settle(&["builtin=tpcc".into()]).starts_with("--param builtin=tpcc: no such built-in script"));
    assert!(settle(&["builtin=select-only@x".into()]).contains("weight after @"));
    assert!(settle(&["builtin=select-only@0".into()]).contains("weight 0"));
    assert!(settle(&["builtin=select-only,select-only".into()]).contains("given twice"));
    assert!(settle(&[format!("db={}", path(&dir, "db.txt"))]).contains("not a SQLite database"));
    assert!(settle(&["db=a.db".into(), "init=b.sql".into()]).contains("not both"));
    for e in [settle(&[format!("file={bad}")]), settle(&["builtin=x".into()])] {
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn definitions_split_where_a_name_follows() {
    assert_eq!(definitions("a=1;b=x y"), vec!["a=1", "b=x y"]);
    assert_eq!(definitions("x='); DROP TABLE t; --"), vec!["x='); DROP TABLE t; --"]);
    assert_eq!(definitions("x=1; y=2"), vec!["x=1", "y=2"]);
    assert!(definitions("").is_empty());
    // A value is kept as given: pgbench reads `-D x='7 '` as malformed, not as 7.
    assert_eq!(definitions(" x= 7 "), vec!["x= 7 "]);
}

/// pgbench's -D refuses `x=` before it runs, in these words (litebench ran and then failed
/// with "variable holds Text(\"\")").
#[test]
fn an_empty_definition_is_refused_as_pgbench_refuses_it() {
    let dir = files(&[("a.sql", "SELECT 1;\n")]);
    let args = [format!("file={}", path(&dir, "a.sql")), "define=y=1;x=".into()];
    let mut p = params::resolve("script", PARAMS, &args).unwrap();
    let e = ScriptWorkload.settle(&mut p).unwrap_err();
    assert!(
        e.ends_with("--param define: invalid variable definition: \"x=\""),
        "{e}"
    );
}

/// A client of `script` (one file) on `conn`, its number `index`.
fn client_of<'c>(
    conn: &'c mut SqliteConn,
    dir: &tempfile::TempDir,
    file: &str,
    index: u32,
) -> client::ScriptClient<'c> {
    let p = params(&[&format!("file={}", path(dir, file))]);
    let loaded = load(&p).unwrap();
    client::ScriptClient::new(conn, loaded, index, 1).unwrap_or_else(|e| panic!("{e}"))
}

/// One transaction of `c`: its error's message, if any.
fn transaction(c: &mut client::ScriptClient<'_>) -> Result<(), String> {
    use crate::workload::load::Client;
    c.draw();
    c.execute().map(|_| ()).map_err(|e| e.message)
}

#[test]
fn if_branches_follow_client_id_and_a_branch_not_taken_evaluates_nothing() {
    let dir = files(&[(
        "if.sql",
        "\\if :client_id\nINSERT INTO t VALUES (:client_id, 'other');\n\\elif 1\nINSERT INTO t VALUES (:client_id, 'first');\n\\else\n\\set never 1 / 0\n\\endif\n\\if 0\n\\set never 1 / 0\n\\sleep 1000 s\nSELECT :never;\n\\endif\n",
    )]);
    let mut conn = memory();
    conn.execute_batch("CREATE TABLE t(c INTEGER, what TEXT)").unwrap();
    for index in [0, 1, 2] {
        let mut c = client_of(&mut conn, &dir, "if.sql", index);
        assert_eq!(transaction(&mut c), Ok(()));
    }
    assert_eq!(
        conn.query("SELECT c, what FROM t ORDER BY c").unwrap(),
        [("0", "first"), ("1", "other"), ("2", "other")].map(|(c, w)| vec![Some(c.to_string()), Some(w.to_string())])
    );
}

/// The `\if` part of pgbench's own expression test (001_pgbench_with_server.pl, "pgbench
/// expressions"): the branches it expects taken set `id` to 65, `ie` 74, `if` 83, `ig` 86 and
/// `ih` 93 (its `debug()` values), and `nope` stays 0 ("must be zero if false branches where
/// skipped").
#[test]
fn pgbenchs_if_test_takes_the_branches_its_test_expects() {
    let dir = files(&[(
        "if.sql",
        "\\set nope 0\n\\if 1 > 0\n\\set id debug(65)\n\\elif 0\n\\set nope 1\n\\else\n\\set nope 1\n\\endif\n\\if 1 < 0\n\\set nope 1\n\\elif 1 > 0\n\\set ie debug(74)\n\\else\n\\set nope 1\n\\endif\n\\if 1 < 0\n\\set nope 1\n\\elif 1 < 0\n\\set nope 1\n\\else\n\\set if debug(83)\n\\endif\n\\if 1 = 1\n\\set ig debug(86)\n\\elif 0\n\\set nope 1\n\\endif\n\\if 1 = 0\n\\set nope 1\n\\elif 1 <> 0\n\\set ih debug(93)\n\\endif\n\\set nope debug(:nope)\nSELECT 1;\n",
    )]);
    let mut conn = memory();
    let mut c = client_of(&mut conn, &dir, "if.sql", 0);
    assert_eq!(transaction(&mut c), Ok(()));
    for (name, want) in [("id", 65), ("ie", 74), ("if", 83), ("ig", 86), ("ih", 93), ("nope", 0)] {
        assert_eq!(c.var(name), Some(&expr::Var::Num(expr::Num::Int(want))), "{name}");
    }
}

/// The `\gset` and `\aset` cases of pgbench's TAP test (001_pgbench_with_server.pl) on SQLite,
/// with the values it expects; its `\;` lines are left out (refused here, docs/workloads.md),
/// and `SELECT \gset` with no column is not SQL SQLite takes.
#[test]
fn pgbenchs_gset_tests_give_its_values_and_its_errors() {
    let dir = files(&[
        (
            "gset.sql",
            "SELECT 0 AS i0 \\gset\n\\set i debug(:i0)\nSELECT 1 AS i1, 2 AS i2 \\gset\n\\set i debug(:i1)\n\\set i debug(:i2)\nSELECT 3 AS i3 \\gset x_\n\\set i debug(:x_i3)\nSELECT 0 AS i4, 4 AS i4 \\gset\n\\set i debug(:i4)\nSELECT 8 AS i6 UNION SELECT 9 ORDER BY 1 DESC \\aset\n\\set i debug(:i6)\n",
        ),
        ("two_rows.sql", "SELECT 5432 AS fail UNION SELECT 5433 ORDER BY 1 \\gset\n"),
        ("no_row.sql", "SELECT 1 AS x WHERE 0 \\gset\n"),
        ("non_select.sql", "DROP TABLE IF EXISTS no_such_table \\gset\n"),
        ("default_name.sql", "SELECT 1 \\gset\n"),
        ("bad_name.sql", "SELECT 1 AS \"bad name!\" \\gset\n"),
    ]);
    let mut conn = memory();
    let mut c = client_of(&mut conn, &dir, "gset.sql", 0);
    assert_eq!(transaction(&mut c), Ok(()));
    for (name, want) in [("i0", 0), ("i1", 1), ("i2", 2), ("x_i3", 3), ("i4", 4), ("i6", 8)] {
        assert_eq!(c.var(name), Some(&expr::Var::Num(expr::Num::Int(want))), "{name}");
    }
    drop(c);
    for (file, want) in [
        ("two_rows.sql", "expected one row, got 2"),
        ("no_row.sql", "expected one row, got 0"),
        ("non_select.sql", "expected one row, got 0"),
    ] {
        let mut c = client_of(&mut conn, &dir, file, 0);
        let e = transaction(&mut c).unwrap_err();
        assert!(e.ends_with(want), "{file}: {e}");
    }
    for (file, want) in [
        ("default_name.sql", "error storing into variable 1"),
        ("bad_name.sql", "error storing into variable bad name!"),
    ] {
        let p = params(&[&format!("file={}", path(&dir, file))]);
        let loaded = load(&p).unwrap();
        let e = client::ScriptClient::new(&mut conn, loaded, 0, 1)
            .err()
            .expect(file)
            .message;
        assert!(e.contains(&format!("{file}:1: {want};")), "{e}");
    }
}

/// pgbench sends nothing of a branch not taken: a statement there that the engine refuses is
/// prepared when first run, so it stops nothing until then (it stopped the run when prepared).
#[test]
fn a_statement_in_a_branch_not_taken_is_never_prepared() {
    let dir = files(&[
        (
            "lazy.sql",
            "\\if :client_id\nSELECT * FROM no_such_table;\n\\else\nSELECT 1;\n\\endif\nSELECT * FROM nope;\n",
        ),
        (
            "lazy2.sql",
            "\\if :client_id\nSELECT * FROM no_such_table;\n\\endif\nSELECT 1;\n",
        ),
    ]);
    let mut conn = memory();
    let e = client::ScriptClient::new(
        &mut conn,
        load(&params(&[&format!("file={}", path(&dir, "lazy.sql"))])).unwrap(),
        0,
        1,
    )
    .err()
    .expect("an unconditional statement is still prepared first")
    .message;
    assert!(e.contains("lazy.sql:6: no such table: nope"), "{e}");
    let mut c = client_of(&mut conn, &dir, "lazy2.sql", 0);
    for _ in 0..3 {
        assert_eq!(transaction(&mut c), Ok(()));
    }
    drop(c);
    let mut c = client_of(&mut conn, &dir, "lazy2.sql", 1);
    let e = transaction(&mut c).unwrap_err();
    assert!(e.contains("lazy2.sql:2: no such table: no_such_table"), "{e}");
}

#[test]
fn gset_puts_one_row_into_prefixed_variables_that_later_commands_use() {
    let dir = files(&[(
        "g.sql",
        "SELECT id AS id, bal AS bal FROM acc WHERE id = 2 \\gset p_\n\\set next :p_bal + 10\nUPDATE acc SET bal = :next WHERE id = :p_id;\nSELECT NULL AS n, 'x' || :next AS s;\n\\gset\nSELECT :n, :s;\n",
    )]);
    let mut conn = memory();
    conn.execute_batch(
        "CREATE TABLE acc(id INTEGER PRIMARY KEY, bal INTEGER); INSERT INTO acc VALUES (1, 100), (2, 200);",
    )
    .unwrap();
    let mut c = client_of(&mut conn, &dir, "g.sql", 0);
    for _ in 0..3 {
        assert_eq!(transaction(&mut c), Ok(()));
    }
    assert_eq!(c.var("p_bal"), Some(&expr::Var::Num(expr::Num::Int(220))));
    assert_eq!(c.var("next"), Some(&expr::Var::Num(expr::Num::Int(230))));
    // A NULL is the empty string, as pgbench stores it; text stays text.
    assert_eq!(c.var("n"), Some(&expr::Var::Text(String::new())));
    assert_eq!(c.var("s"), Some(&expr::Var::Text("x230".into())));
    drop(c);
    assert_eq!(
        conn.query_value("SELECT bal FROM acc WHERE id = 2").unwrap(),
        Some("230".into())
    );
}

#[test]
fn gset_of_no_row_or_two_stops_the_transaction_with_pgbenchs_words_and_aset_keeps_the_last() {
    let dir = files(&[
        ("none.sql", "BEGIN;\nSELECT bal FROM acc WHERE id = 9 \\gset\nCOMMIT;\n"),
        ("two.sql", "SELECT bal FROM acc ORDER BY id \\gset\n"),
        (
            "all.sql",
            "\\set gone 7\nSELECT bal AS last FROM acc ORDER BY id \\aset\nSELECT bal AS gone FROM acc WHERE id = 9 \\aset\nSELECT :last, :gone;\n",
        ),
    ]);
    let mut conn = memory();
    conn.execute_batch(
        "CREATE TABLE acc(id INTEGER PRIMARY KEY, bal INTEGER); INSERT INTO acc VALUES (1, 100), (2, 200);",
    )
    .unwrap();
    let none = transaction(&mut client_of(&mut conn, &dir, "none.sql", 0)).unwrap_err();
    assert_eq!(none, format!("{}:2: expected one row, got 0", path(&dir, "none.sql")));
    // The transaction it stopped was rolled back: another can begin.
    conn.execute_batch("BEGIN; COMMIT;").unwrap();
    let two = transaction(&mut client_of(&mut conn, &dir, "two.sql", 0)).unwrap_err();
    assert_eq!(two, format!("{}:1: expected one row, got 2", path(&dir, "two.sql")));
    let mut c = client_of(&mut conn, &dir, "all.sql", 0);
    assert_eq!(transaction(&mut c), Ok(()));
    assert_eq!(c.var("last"), Some(&expr::Var::Num(expr::Num::Int(200))));
    // No row sets nothing.
    assert_eq!(c.var("gone"), Some(&expr::Var::Num(expr::Num::Int(7))));
}

#[test]
fn a_variable_no_query_before_it_returns_is_refused_when_the_statements_are_prepared() {
    let dir = files(&[("p.sql", "SELECT 1 AS a, 2 AS b \\gset\nSELECT :a, :c;\n")]);
    let p = params(&[&format!("file={}", path(&dir, "p.sql"))]);
    let loaded = load(&p).unwrap();
    let e = client::ScriptClient::new(&mut memory(), loaded, 0, 1).err().unwrap();
    assert_eq!(
        e.message,
        format!(
            "{}:2:12: unknown variable :c; no \\gset or \\aset before it returns a column of that name (they return a, b); set it with \\set on an earlier line or give --param define=c=VALUE",
            path(&dir, "p.sql")
        )
    );
    assert_eq!(e.kind, crate::engines::ErrorKind::Input);
}
