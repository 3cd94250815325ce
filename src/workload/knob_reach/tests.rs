//! The knob x workload walk: every knob of every engine kind against every workload, from the
//! registries, checked against docs/knobs.md's table (so a new knob or workload fails here until
//! it is classified there), and the knobs only a workload reads checked by what the workload
//! does: run on a connection that records its SQL, an accepted pair must issue the knob's
//! statement (or ask for the knob's blob API), a refused one must not.

use super::*;
use crate::engines::registry::kinds;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{values, Connection, Dialect, EngineError, StmtId, Value};
use crate::model::params::resolve;
use crate::workload::recorder::Recorder;
use crate::workload::{all, Connector, Population, Trial, WorkloadError};
use std::cell::RefCell;
use std::sync::atomic::AtomicBool;

/// What one (knob, workload) cell says: `acts`, `refused` or `-` (no engine with the knob runs
/// the workload); `driver` says `rust` (only litebench's own loop) where the plan refuses every driver process for the
/// workload ([`Workload::driver_refusal`]).
fn cell(knob: &str, w: &dyn Workload) -> String {
    let with_knob: Vec<_> = kinds()
        .iter()
        .filter_map(|k| find_spec(k.knobs, knob).map(|s| (k, s)))
        .collect();
    let Some((_, spec)) = with_knob.iter().find(|(k, _)| k.runs(w.name())) else {
        return "-".into();
    };
    let p = resolve(w.name(), w.params(), &[]).expect("default parameters");
    if knob == crate::engines::sqlite::knobs::DRIVER_KNOB && w.driver_refusal(&p).is_some() {
        return "rust".into();
    }
    match reach(w, spec, &p) {
        Ok(()) => "acts".into(),
        Err(_) => "refused".into(),
    }
}

/// Every knob name of every engine kind, in registry order, each once.
fn knob_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for k in kinds() {
        for s in k.knobs {
            if !names.contains(&s.name) {
                names.push(s.name);
            }
        }
    }
    names
}

/// docs/knobs.md's table under "## Which knob acts on which workload": header and rows, each
/// cell's first word (a footnote may follow it).
fn docs_table() -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let text = std::fs::read_to_string(format!(
        "{}/docs/knobs.md",
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
    ))
    .unwrap();
    let section = text
        .split("## Which knob acts on which workload")
        .nth(1)
        .expect("docs/knobs.md has the section '## Which knob acts on which workload'");
    let mut rows = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| {
                    let c = c.trim().trim_matches('`');
                    c.split_whitespace().next().unwrap_or("").trim_matches('`').to_string()
                })
                .collect::<Vec<String>>()
        });
    let header = rows.next().expect("a header row");
    let body = rows.skip(1).map(|r| (r[0].clone(), r[1..].to_vec())).collect();
    (header[1..].to_vec(), body)
}

#[test]
fn every_knob_against_every_workload_is_classified_in_the_docs_as_the_code_decides() {
    let (workloads, rows) = docs_table();
    let names: Vec<&str> = all().iter().map(|w| w.name()).collect();
    assert_eq!(
        workloads, names,
        "docs/knobs.md's table has a column per workload, in registry order"
    );
    let knobs = knob_names();
    let documented: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        documented, knobs,
        "docs/knobs.md's table has a row per knob, in registry order"
    );
    let mut refused = 0;
    for (knob, cells) in &rows {
        for (w, documented) in all().iter().zip(cells) {
            let decided = cell(knob, *w);
            assert_eq!(
                documented,
                &decided,
                "knob {knob} on workload {}: docs/knobs.md says {documented}, the code decides {decided}",
                w.name()
            );
            refused += usize::from(decided == "refused");
        }
    }
    assert!(refused > 0, "the walk refuses something (crud's begin at least)");
}

#[test]
fn a_knob_has_one_reader_on_every_engine_that_has_it() {
    for name in knob_names() {
        let readers: Vec<ReadBy> = kinds()
            .iter()
            .filter_map(|k| find_spec(k.knobs, name))
            .map(|s| s.read_by)
            .collect();
        assert!(readers.windows(2).all(|w| w[0] == w[1]), "knob {name}: {readers:?}");
    }
}

/// A connection of the bundled SQLite (in memory) that records the SQL it runs (a prepared
/// statement when it runs, not when it is prepared), whose
/// `begin` knob is set to `BEGIN EXCLUSIVE`, and that notes whether it was asked for its blob
/// API (what `blob_api` decides).
struct Recording {
    inner: SqliteConn,
    /// The text of every prepared statement, by id.
    prepared: std::collections::HashMap<usize, String>,
    /// What ran, in order.
    sql: RefCell<Vec<String>>,
    asked_blob_api: std::cell::Cell<bool>,
}

const KNOB_BEGIN: &str = "BEGIN EXCLUSIVE";

impl Recording {
    fn new() -> Recording {
        Recording {
            inner: SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap(),
            prepared: std::collections::HashMap::new(),
            sql: RefCell::new(Vec::new()),
            asked_blob_api: std::cell::Cell::new(false),
        }
    }

    fn ran(&self, stmt: StmtId) {
        let sql = self.prepared.get(&stmt.0).cloned().unwrap_or_default();
        self.sql.borrow_mut().push(sql);
    }

    fn issued_knob_begin(&self) -> bool {
        self.sql
            .borrow()
            .iter()
            .any(|s| s.trim().eq_ignore_ascii_case(KNOB_BEGIN))
    }
}

impl Connection for Recording {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn begin_write(&self) -> &'static str {
        KNOB_BEGIN
    }
    fn begin_knob(&self) -> Option<&'static str> {
        Some(KNOB_BEGIN)
    }
    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        self.sql.borrow_mut().push(sql.to_string());
        self.inner.execute_batch(sql)
    }
    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let id = self.inner.prepare(sql)?;
        self.prepared.insert(id.0, sql.to_string());
        Ok(id)
    }
    fn run(&mut self, stmt: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        self.ran(stmt);
        self.inner.run(stmt, params)
    }
    fn column_names(&mut self, stmt: StmtId) -> Result<Vec<String>, EngineError> {
        self.inner.column_names(stmt)
    }
    fn run_values(&mut self, stmt: StmtId, params: &[Value<'_>], out: &mut values::Values) -> Result<u64, EngineError> {
        self.ran(stmt);
        self.inner.run_values(stmt, params, out)
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        self.sql.borrow_mut().push(sql.to_string());
        self.inner.query(sql)
    }
    fn stores_blobs_natively(&self) -> bool {
        self.asked_blob_api.set(true);
        false
    }
}

struct OneClient;

impl Connector for OneClient {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
        unreachable!("one client")
    }
}

/// Populates and runs one trial of `w` with `args` on a recording connection; returns it with
/// what the populate phase recorded left out (the knobs of a configuration act on its trials).
fn run_recorded(w: &dyn Workload, args: &[&str]) -> Recording {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut p = resolve(w.name(), w.params(), &args).unwrap();
    w.check(&p).unwrap();
    w.settle(&mut p).unwrap();
    let mut conn = Recording::new();
    w.populate(&mut conn, &Population::plain(&p, 3)).unwrap();
    conn.sql.borrow_mut().clear();
    conn.asked_blob_api.set(false);
    let stop = AtomicBool::new(false);
    let trial = Trial::plain(&p, 3, &stop, &OneClient);
    let mut rec = Recorder::of_types(&w.operation_types(&p, Some(Dialect::Sqlite)), None);
    w.run(&mut conn, &trial, &mut rec).unwrap();
    conn
}

#[test]
fn the_knobs_only_a_workload_reads_act_where_accepted_and_are_refused_where_they_would_not() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("w.sql");
    std::fs::write(
        &script,
        "BEGIN;\nSELECT count(*) FROM t;\nINSERT INTO t VALUES (1);\nCOMMIT;\n",
    )
    .unwrap();
    let schema = dir.path().join("s.sql");
    std::fs::write(&schema, "CREATE TABLE t(a);\n").unwrap();
    let (script, schema) = (
        format!("file={}", script.display()),
        format!("init={}", schema.display()),
    );
    let begin = crate::engines::sqlite::knobs::BEGIN_KNOB;
    let blob_api = crate::engines::sqlite::knobs::BLOB_API_KNOB;
    let cases: &[(&str, &[&str])] = &[
        ("crud", &["rows=50", "inserts=10", "updates=10", "deletes=10"]),
        ("tatp", &["subscribers=100", "warmup_time=1ms", "measure_time=50ms"]),
        ("ycsb", &["workload=a", "records=100", "operations=100"]),
        ("ycsb", &["workload=f", "records=100", "operations=100"]),
        ("blob", &["size=1KB", "count=4", "operations=20", "warmup_time=1ms"]),
        ("script", &[&script, &schema, "transactions=5"]),
    ];
    for (name, args) in cases {
        let w = crate::workload::find(name).unwrap();
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let p = resolve(name, w.params(), &owned).unwrap();
        let conn = run_recorded(w, args);
        for (knob, acted) in [(begin, conn.issued_knob_begin()), (blob_api, conn.asked_blob_api.get())] {
            let accepted = w.reads_knob(knob, &p).is_ok();
            assert_eq!(
                accepted,
                acted,
                "{name} {args:?}: knob {knob} is {} but the trial {} it",
                if accepted { "accepted" } else { "refused" },
                if acted { "read" } else { "never read" }
            );
        }
    }
}

#[test]
fn a_refusal_is_one_line_naming_the_knob_the_workload_and_what_to_do() {
    let crud = crate::workload::find("crud").unwrap();
    let p = resolve("crud", crud.params(), &[]).unwrap();
    let e = check(crud, &p, kinds(), [("begin", "--knob".to_string())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--knob begin: crud runs every statement in autocommit, in no transaction it starts, so it would change nothing crud runs; leave it out (docs/knobs.md lists which knob acts on which workload)"
    );
    assert!(check(crud, &p, kinds(), [("journal_mode", "--knob".to_string())]).is_ok());
    // A knob set when a database is created, on a workload that starts from the user's file.
    let script = crate::workload::find("script").unwrap();
    let p = resolve("script", script.params(), &["db=app.db".to_string()]).unwrap();
    let e = check(script, &p, kinds(), [("page_size", "--knob".to_string())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--knob page_size: every trial of script starts from a copy of --param db=app.db, whose page_size is the file's own (set it in the file, or leave out --param db), so it would change nothing script runs; leave it out (docs/knobs.md lists which knob acts on which workload)"
    );
    let p = resolve("script", script.params(), &[]).unwrap();
    assert!(check(script, &p, kinds(), [("page_size", "--knob".to_string())]).is_ok());
}
