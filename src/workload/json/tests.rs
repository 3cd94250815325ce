//! A trial of each SQLite storage on the bundled library: the same answers from all three.

use super::*;
use crate::engines::sqlite::api::Api;
use crate::model::params::resolve;
use crate::model::record::QueryRecord;
use crate::workload::Connector;
use std::sync::atomic::AtomicBool;

struct OneConnection;

impl Connector for OneConnection {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
        panic!("one client uses the trial's connection")
    }
}

fn params(args: &[&str]) -> Params {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    resolve("json", PARAMS, &args).expect("valid parameters")
}

/// Populates and runs one trial with `storage` (`None`: the knob not set); returns the
/// answers and the operations' counts.
fn trial(storage: Option<&str>, p: &Params) -> (Vec<QueryRecord>, Vec<u64>) {
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
    if let Some(s) = storage {
        conn.set_workload_knob(JSON_STORAGE_KNOB, s);
    }
    let rows = Json.populate(&mut conn, &Population::plain(p, 11)).expect("populate");
    assert_eq!(rows, p.count("documents"));
    let stop = AtomicBool::new(false);
    let t = Trial::plain(p, 4, &stop, &OneConnection);
    let mut rec = Recorder::new(&OPS, None);
    Json.run(&mut conn, &t, &mut rec).expect("trial");
    Json.verify(&mut conn, p).expect("verify");
    let queries = rec.take_queries();
    let (ops, _) = rec.finish();
    for o in &ops {
        assert_eq!(
            o.succeeded.unwrap_or(o.ops),
            o.ops,
            "{storage:?}: every {} succeeds",
            o.name
        );
    }
    (queries, ops.iter().map(|o| o.ops).collect())
}

#[test]
fn the_three_storages_answer_alike() {
    let p = params(&["documents=300", "operations=400"]);
    let (text, counts) = trial(Some("text"), &p);
    assert_eq!(counts.iter().sum::<u64>(), 400);
    assert!(counts.iter().all(|&n| n > 0), "every operation ran: {counts:?}");
    assert_eq!(text.len(), 3, "read, filter and expand keep answers");
    assert!(text.iter().all(|q| q.answer.rows > 0), "{text:?}");
    for s in ["jsonb", "generated"] {
        let (other, _) = trial(Some(s), &p);
        assert_eq!(other, text, "{s} answers as text does");
    }
    let (default, _) = trial(None, &p);
    assert_eq!(default, text);
}

#[test]
fn the_storage_is_what_the_schema_and_the_knob_say() {
    let p = params(&["documents=20", "operations=10"]);
    for (name, s) in Storage::SQLITE {
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        conn.set_workload_knob(JSON_STORAGE_KNOB, name);
        Json.populate(&mut conn, &Population::plain(&p, 1)).unwrap();
        assert_eq!(storage_of(&mut conn).unwrap(), s);
        let kind = conn.query_value("SELECT typeof(doc) FROM docs LIMIT 1").unwrap();
        let want = if s == Storage::Jsonb { "blob" } else { "text" };
        assert_eq!(kind.as_deref(), Some(want), "{name}");
        // A connection given another storage than the database has refuses to run.
        conn.set_workload_knob(JSON_STORAGE_KNOB, if name == "text" { "jsonb" } else { "text" });
        let e = storage_of(&mut conn).unwrap_err().to_string();
        assert!(e.contains("the connection's json_storage is"), "{e}");
    }
}

#[test]
fn a_mix_of_nothing_is_refused() {
    let e = Json
        .check(&params(&["reads=0", "filters=0", "expands=0", "updates=0"]))
        .unwrap_err();
    assert!(e.contains("give at least one a weight"), "{e}");
    assert!(Json.check(&params(&[])).is_ok());
}
