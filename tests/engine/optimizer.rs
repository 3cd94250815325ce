//! SQLite's optimizer switches on real builds: `bloom_filter=on|off` and
//! `disable_optimizations` set through `sqlite3_test_control`, read back, and checked where
//! they show — in the plan of a tiny star join — on the bundled build and on Debian's
//! libsqlite3 3.40.1 (loaded as `--engine sqlite:PATH` would). Old builds are in old_builds.rs.

use crate::support::require;
use litebench::engines::sqlite::engine::{SqliteChoice, SqliteEngine};
use litebench::engines::{Connection, DbRef, Engine};
use litebench::model::knob::{self, KnobReading, KnobSet, KnobSetting, Stage};
use std::path::PathBuf;

const DEBIAN: &str = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0";

/// A star schema: a fact table and two dimensions, analysed so the planner knows their sizes.
const STAR: &str = "
CREATE TABLE part(p_partkey INTEGER PRIMARY KEY, p_category TEXT);
CREATE TABLE supplier(s_suppkey INTEGER PRIMARY KEY, s_region TEXT);
CREATE TABLE lineorder(lo_partkey INTEGER, lo_suppkey INTEGER, lo_revenue INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<200)
  INSERT INTO part SELECT i, 'MFGR#' || (i%25) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<50)
  INSERT INTO supplier SELECT i, CASE i%5 WHEN 0 THEN 'AMERICA' ELSE 'ASIA' END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<4000)
  INSERT INTO lineorder SELECT i%200+1, (i/200)%50+1, i FROM n;
ANALYZE;";

const Q: &str = "SELECT sum(lo_revenue) FROM lineorder, part, supplier
  WHERE lo_partkey=p_partkey AND lo_suppkey=s_suppkey AND p_category='MFGR#12' AND s_region='AMERICA'";

fn knobs(pairs: &[(&str, &str)]) -> KnobSet {
    KnobSet(
        pairs
            .iter()
            .map(|(n, v)| KnobSetting {
                name: n.to_string(),
                value: v.to_string(),
            })
            .collect(),
    )
}

/// A connection to an in-memory star schema with `pairs` applied, read back and verified.
fn connect(engine: &SqliteEngine, pairs: &[(&str, &str)]) -> (Box<dyn Connection>, Vec<KnobReading>) {
    let db = DbRef {
        name: "star".into(),
        path: None,
    };
    let mut conn = engine.connect(&db).unwrap();
    conn.execute_batch(STAR).unwrap();
    let set = knobs(pairs);
    engine.apply_knobs(conn.as_mut(), &set, Stage::Connect).unwrap();
    let readings = engine.read_knobs(conn.as_mut(), &set).unwrap();
    knob::verify(&readings, engine.label(), "pragma.", false, &|k| engine.knob_hint(k))
        .unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
    (conn, readings)
}

fn effective<'a>(readings: &'a [KnobReading], name: &str) -> Option<&'a str> {
    readings.iter().find(|r| r.name == name)?.effective.as_deref()
}

fn uses_bloom(conn: &mut dyn Connection) -> bool {
    let plan = conn.query_plan(Q).unwrap().expect("SQLite has plans");
    plan.iter().any(|l| l.contains("BLOOM FILTER"))
}

/// The same query's answer must not depend on the switch.
fn answer(conn: &mut dyn Connection) -> Option<String> {
    conn.query_value(Q).unwrap()
}

fn on_and_off(engine: &SqliteEngine, getopt: bool) {
    let (mut on, r) = connect(engine, &[("bloom_filter", "on")]);
    assert_eq!(effective(&r, "bloom_filter"), Some("on"));
    assert!(
        uses_bloom(on.as_mut()),
        "bloom_filter=on: the star join uses a Bloom filter"
    );

    let (mut off, r) = connect(engine, &[("bloom_filter", "off")]);
    assert_eq!(effective(&r, "bloom_filter"), Some("off"));
    assert!(
        !uses_bloom(off.as_mut()),
        "bloom_filter=off: no plan shows a Bloom filter"
    );
    assert_eq!(answer(on.as_mut()), answer(off.as_mut()));
    assert!(answer(on.as_mut()).is_some());

    // The general switch turns the same bit off, and reads back through GETOPT where the build
    // has it.
    if getopt {
        let (mut d, r) = connect(engine, &[("disable_optimizations", "skip_scan+bloom_filter")]);
        assert_eq!(effective(&r, "disable_optimizations"), Some("skip_scan+bloom_filter"));
        assert_eq!(effective(&r, "bloom_filter"), Some("off"));
        assert!(!uses_bloom(d.as_mut()));
        let (_, r) = connect(engine, &[]);
        assert_eq!(effective(&r, "disable_optimizations"), Some("none"));
        assert_eq!(effective(&r, "bloom_filter"), Some("on"));
    }
}

#[test]
fn the_bundled_build_switches_bloom_filters_on_and_off() {
    let engine = SqliteEngine::open(&SqliteChoice::Bundled, true).unwrap();
    on_and_off(&engine, true);
}

#[test]
fn a_loaded_3_40_build_switches_bloom_filters_verified_by_the_plan() {
    if !require(DEBIAN, "libsqlite3-0") {
        return;
    }
    let engine = SqliteEngine::open(&SqliteChoice::Library(PathBuf::from(DEBIAN)), true).unwrap();
    assert!(engine.build.version.starts_with("3.40."), "{}", engine.build.version);
    // 3.40.1 does not answer SQLITE_TESTCTRL_GETOPT: the mask cannot be read back, so
    // disable_optimizations is unverifiable there, and bloom_filter is checked by the probe.
    let (_, r) = connect(&engine, &[]);
    assert_eq!(effective(&r, "disable_optimizations"), None);
    on_and_off(&engine, false);
    let db = DbRef {
        name: "x".into(),
        path: None,
    };
    let mut conn = engine.connect(&db).unwrap();
    let set = knobs(&[("disable_optimizations", "skip_scan")]);
    engine.apply_knobs(conn.as_mut(), &set, Stage::Connect).unwrap();
    let readings = engine.read_knobs(conn.as_mut(), &set).unwrap();
    let e = knob::verify(&readings, engine.label(), "pragma.", false, &|k| engine.knob_hint(k)).unwrap_err();
    assert!(e.to_string().contains("SQLITE_TESTCTRL_GETOPT"), "{e}");
}

#[test]
fn plans_and_profiles_show_what_the_filter_saves() {
    let engine = SqliteEngine::open(&SqliteChoice::Bundled, true).unwrap();
    let (mut on, _) = connect(&engine, &[("bloom_filter", "on")]);
    let (mut off, _) = connect(&engine, &[("bloom_filter", "off")]);
    let searched = |c: &mut dyn Connection| -> i64 {
        let p = c.loop_profile(Q).unwrap().expect("the bundled build keeps scan status");
        p.iter()
            .filter(|l| l.explain.starts_with("SEARCH"))
            .map(|l| l.rows_visited.unwrap_or(0))
            .sum()
    };
    let (with, without) = (searched(on.as_mut()), searched(off.as_mut()));
    assert!(
        with * 2 < without,
        "Bloom filters cut the dimension searches: {with} with, {without} without"
    );
}
