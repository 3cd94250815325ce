//! Trials of both indexes on both layouts on the bundled library: the same ids from both, and
//! the same ids a scan of the generated boxes finds.

use super::*;
use crate::engines::sqlite::api::Api;
use crate::engines::values::{CellRef, Values};
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
    resolve("rtree", PARAMS, &args).expect("valid parameters")
}

fn populated(index: &str, p: &Params) -> SqliteConn {
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
    conn.set_workload_knob(SPATIAL_INDEX_KNOB, index);
    let rows = Rtree.populate(&mut conn, &Population::plain(p, 11)).expect("populate");
    assert_eq!(rows, p.count("boxes"));
    conn
}

fn trial(index: &str, p: &Params) -> Vec<QueryRecord> {
    let mut conn = populated(index, p);
    let stop = AtomicBool::new(false);
    let t = Trial::plain(p, 4, &stop, &OneConnection);
    let mut rec = Recorder::new(&OPS, None);
    Rtree.run(&mut conn, &t, &mut rec).expect("trial");
    Rtree.verify(&mut conn, p).expect("verify");
    let queries = rec.take_queries();
    let (ops, _) = rec.finish();
    for o in &ops {
        assert!(o.ops > 0, "{index}: no {}", o.name);
        assert_eq!(
            o.succeeded.unwrap_or(o.ops),
            o.ops,
            "{index}: every {} succeeds",
            o.name
        );
    }
    queries
}

#[test]
fn both_indexes_find_the_same_boxes_on_both_layouts() {
    for layout in ["grid", "traces"] {
        let p = params(&[&format!("layout={layout}"), "boxes=900", "operations=400"]);
        let rtree = trial("rtree", &p);
        assert_eq!(rtree.len(), 4, "three windows and nearest keep answers");
        assert!(rtree.iter().all(|q| q.answer.rows > 0), "{layout}: {rtree:?}");
        assert_eq!(
            trial("btree", &p),
            rtree,
            "{layout}: the B-tree finds what the R*Tree finds"
        );
    }
}

#[test]
fn a_window_finds_what_a_scan_of_the_boxes_finds() {
    let p = params(&["layout=traces", "boxes=2000"]);
    let all = boxes::boxes(Layout::Traces, 2000, 11);
    for index in ["rtree", "btree"] {
        let mut conn = populated(index, &p);
        let st = Index::parse(index).unwrap().statements();
        let stmt = conn.prepare(&st.window).unwrap();
        for w in [
            [0, 300_000, 0, 300_000],
            [400_000, 410_000, 500_000, 700_000],
            [0, 1_000_000, 0, 1_000_000],
        ] {
            let mut out = Values::with_capacity(0, 0);
            let params = [Value::Int(w[0]), Value::Int(w[2]), Value::Int(w[1]), Value::Int(w[3])];
            let rows = conn.run_values(stmt, &params, &mut out).unwrap();
            let mut got: Vec<i64> = (0..rows as usize)
                .map(|r| match out.get(r * 2) {
                    CellRef::Int(i) => i,
                    other => panic!("{other:?}"),
                })
                .collect();
            got.sort_unstable();
            let want: Vec<i64> = (0..all.len())
                .filter(|&i| boxes::meets(&all[i], &w))
                .map(|i| i as i64 + 1)
                .collect();
            assert_eq!(got, want, "{index} window {w:?}");
        }
    }
}

#[test]
fn the_index_is_what_the_schema_and_the_knob_say() {
    let p = params(&["boxes=50"]);
    for name in Index::NAMES {
        let mut conn = populated(name, &p);
        assert_eq!(index_of(&mut conn).unwrap().name(), name);
        conn.set_workload_knob(SPATIAL_INDEX_KNOB, if name == "rtree" { "btree" } else { "rtree" });
        let e = index_of(&mut conn).unwrap_err().to_string();
        assert!(e.contains("the connection's spatial_index is"), "{e}");
    }
}
