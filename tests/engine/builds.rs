//! The bundled SQLite is built with the documented flags, and another build loaded at run time
//! goes through the same code.

use crate::engine::common::*;

fn options(report: &serde_json::Value, engine: usize) -> Vec<String> {
    report["manifest"]["engines"][engine]["sqlite"]["compile_options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn bundled_build_matches_stock_sqlite_plus_scanstatus() {
    let t = tempfile::tempdir().unwrap();
    let r = run_json(
        t.path(),
        &["--trials", "1", "--warmup", "0", "--memory"]
            .iter()
            .chain(SMALL)
            .copied()
            .collect::<Vec<_>>(),
    );
    let e = &r["manifest"]["engines"][0]["sqlite"];
    assert_eq!(e["version"], "3.54.1");
    assert!(e["source_id"].as_str().unwrap().len() > 40);
    let opts = options(&r, 0);
    for want in [
        "ENABLE_STMT_SCANSTATUS",
        "TEMP_STORE=1",
        "THREADSAFE=1",
        "ENABLE_FTS5",
        "ENABLE_RTREE",
    ] {
        assert!(opts.iter().any(|o| o == want), "missing {want}: {opts:?}");
    }
    for unwanted in ["DEFAULT_FOREIGN_KEYS", "ENABLE_STAT4", "ENABLE_API_ARMOR", "USE_URI"] {
        assert!(
            !opts.iter().any(|o| o.starts_with(unwanted)),
            "unexpected {unwanted}: {opts:?}"
        );
    }
    let fk = r["trials"][0]["knobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "foreign_keys")
        .unwrap();
    assert_eq!(fk["effective"], "off");
    assert_eq!(fk["requested"], serde_json::Value::Null);
}

#[test]
fn debian_build_runs_the_same_workload_interleaved() {
    if !require(DEBIAN_SQLITE, "libsqlite3-0") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let engine = format!("sqlite:{DEBIAN_SQLITE}");
    let r = run_json(
        t.path(),
        &[
            "--engine",
            "sqlite",
            "--engine",
            &engine,
            "--trials",
            "2",
            "--warmup",
            "0",
            "--knob",
            "journal_mode=delete",
        ]
        .iter()
        .chain(SMALL)
        .copied()
        .collect::<Vec<_>>(),
    );
    let engines = r["manifest"]["engines"].as_array().unwrap();
    assert_eq!(engines[1]["sqlite"]["version"], "3.40.1");
    assert_ne!(options(&r, 0), options(&r, 1), "two different builds");
    let configs: Vec<u64> = r["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["config"].as_u64().unwrap())
        .collect();
    assert_eq!(configs, vec![0, 1, 0, 1]);
    // Same workload, same knobs: the same transactions reach the storage the same way.
    assert_eq!(row(&r, 0, "all")["syncs_per_tx"], row(&r, 1, "all")["syncs_per_tx"]);
    assert_eq!(row(&r, 1, "all")["ops_per_trial"], 300.0);
}
