//! `litebench merge`: runs from several stores in one, idempotent, inputs never written, and
//! stores it cannot read refused.

use crate::cli::common::*;
use sha2::{Digest, Sha256};
use std::path::Path;

fn digest(p: &Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(p).unwrap()).to_vec()
}

fn merge(sb: &Sandbox, out: &Path, inputs: &[&Path]) -> std::process::Output {
    let mut cmd = sb.litebench();
    cmd.arg("merge").arg(out).args(inputs).args(["--format", "json"]);
    output(&mut cmd)
}

fn list(sb: &Sandbox, store: &Path) -> serde_json::Value {
    let mut cmd = sb.litebench();
    cmd.args(["show", "--list", "--format", "json", "--results"]).arg(store);
    let o = output(&mut cmd);
    assert_success(&o);
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn runs_of_two_stores_merge_once_with_their_trials_and_inputs_untouched() {
    let sb = Sandbox::new();
    let a = sb.root().join("a.db");
    let b = sb.root().join("b.db");
    for (store, n) in [(&a, 2), (&b, 1)] {
        for _ in 0..n {
            assert_success(&output(&mut sb.run_in(&sb.scratch(), store, SMALLEST_CRUD)));
        }
    }
    let (da, db) = (digest(&a), digest(&b));
    let out = sb.root().join("all.db");
    let o = merge(&sb, &out, &[&a, &b]);
    assert_success(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["merged"]["runs_added"], 2, "{v}");
    assert_eq!(v[1]["merged"]["runs_added"], 1, "{v}");
    assert_eq!(v[0]["merged"]["trials_added"], 2, "{v}");
    // Every run of the inputs is there exactly once, by uuid, with its trials.
    let uuids = |l: &serde_json::Value| -> Vec<String> {
        let mut u: Vec<String> = l
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uuid"].as_str().unwrap().to_string())
            .collect();
        u.sort();
        u
    };
    let mut want = uuids(&list(&sb, &a));
    want.extend(uuids(&list(&sb, &b)));
    want.sort();
    let merged = list(&sb, &out);
    assert_eq!(uuids(&merged), want);
    assert!(merged.as_array().unwrap().iter().all(|r| r["trials"] == 1), "{merged}");
    // Merging again adds nothing; the inputs were only read.
    let o = merge(&sb, &out, &[&a, &b]);
    assert_success(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (
            v[0]["merged"]["runs_added"].clone(),
            v[0]["merged"]["runs_present"].clone()
        ),
        (0.into(), 2.into())
    );
    assert_eq!(list(&sb, &out).as_array().unwrap().len(), 3);
    assert_eq!((digest(&a), digest(&b)), (da, db), "an input changed");
    // A merged run shows like any other.
    let mut cmd = sb.litebench();
    cmd.args(["show", "3", "--results"]).arg(&out);
    assert_success(&output(&mut cmd));
}

#[test]
fn merge_refuses_what_it_cannot_read_in_one_line() {
    let sb = Sandbox::new();
    let out = sb.root().join("out.db");
    let missing = sb.root().join("missing.db");
    let o = merge(&sb, &out, &[&missing]);
    assert_error_line(&o, &["merge", "missing.db", "no such results store"]);
    let foreign = sb.root().join("foreign.db");
    std::fs::write(&foreign, b"not a database at all, just text").unwrap();
    let o = merge(&sb, &out, &[&foreign]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists(), "nothing is created when an input cannot be read");
    // A store from a newer litebench is refused and left as it was.
    let newer = sb.root().join("newer.db");
    assert_success(&output(&mut sb.run_in(&sb.scratch(), &newer, SMALLEST_CRUD)));
    let status = std::process::Command::new("sqlite3")
        .arg(&newer)
        .arg("PRAGMA user_version = 99")
        .status();
    if status.is_ok_and(|s| s.success()) {
        let before = digest(&newer);
        let o = merge(&sb, &out, &[&newer]);
        assert_error_line(&o, &["newer litebench"]);
        assert_eq!(digest(&newer), before);
    }
    let o = merge(&sb, &newer, &[&newer]);
    assert_eq!(o.status.code(), Some(2));
}

/// One shard of `--preset table1` (three comparison groups) into its own store.
fn shard(sb: &Sandbox, store: &Path, part: &str) -> std::process::Output {
    output(&mut sb.run_in(
        &sb.scratch(),
        store,
        &[
            "--preset", "table1", "--shard", part, "--sweep", "t1", "--trials", "1", "--warmup", "0", "--quiet",
            "--format", "json",
        ],
    ))
}

fn sweep(sb: &Sandbox, store: &Path) -> serde_json::Value {
    let mut cmd = sb.litebench();
    cmd.args(["show", "--sweep", "t1", "--format", "json", "--results"])
        .arg(store);
    let o = output(&mut cmd);
    assert_success(&o);
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn shards_split_the_plan_by_whole_groups_and_merge_into_one_sweep() {
    let sb = Sandbox::new();
    let stores: Vec<_> = (0..3).map(|i| sb.root().join(format!("shard{i}.db"))).collect();
    // Shards 0 and 1 of 3 run; shard 2 "fails" (never runs).
    for (i, s) in stores.iter().enumerate().take(2) {
        assert_success(&shard(&sb, s, &format!("{i}/3")));
    }
    let all = sb.root().join("all.db");
    assert_success(&merge(&sb, &all, &[&stores[0], &stores[1]]));
    let v = sweep(&sb, &all);
    assert_eq!(v["shards"], 3, "{v}");
    assert_eq!(v["missing_shards"], serde_json::json!([2]), "{v}");
    // Shard 2 runs later; merged, the sweep is whole and every group of the plan ran once.
    assert_success(&shard(&sb, &stores[2], "2/3"));
    assert_success(&merge(&sb, &all, &[&stores[0], &stores[1], &stores[2]]));
    let v = sweep(&sb, &all);
    assert_eq!(v["missing_shards"], serde_json::json!([]), "{v}");
    let mut jobs: Vec<u64> = v["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["plan_job"].as_u64().unwrap())
        .collect();
    jobs.sort();
    assert_eq!(jobs, [0, 1, 2], "{v}");
    // More shards than groups is refused unless every shard runs the whole plan.
    let o = shard(&sb, &sb.root().join("x.db"), "3/4");
    assert_error_line(&o, &["--shard 3/4", "only 3 comparison group", "--replicate"]);
    let o = shard(&sb, &sb.root().join("x.db"), "4/4");
    assert_error_line(&o, &["--shard 4/4", "I/N"]);
}

#[test]
fn replicated_shards_show_each_configuration_across_machines() {
    let sb = Sandbox::new();
    let stores: Vec<_> = (0..2).map(|i| sb.root().join(format!("rep{i}.db"))).collect();
    for (i, s) in stores.iter().enumerate() {
        let part = format!("{i}/2");
        assert_success(&output(
            &mut sb.run_in(
                &sb.scratch(),
                s,
                &[
                    SMALLEST_CRUD,
                    &[
                        "--knob",
                        "journal_mode=delete,wal",
                        "--shard",
                        &part,
                        "--replicate",
                        "--sweep",
                        "rep",
                    ],
                ]
                .concat(),
            ),
        ));
    }
    let all = sb.root().join("all.db");
    assert_success(&merge(&sb, &all, &[&stores[0], &stores[1]]));
    let mut cmd = sb.litebench();
    cmd.args(["show", "--sweep", "rep", "--format", "json", "--results"])
        .arg(&all);
    let o = output(&mut cmd);
    assert_success(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Both configurations, each with one median per machine (shard) and the spread.
    let rows = v["across_machines"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    for r in rows {
        assert_eq!(r[2].as_str().unwrap().matches("(shard ").count(), 2, "{v}");
        assert!(r[3].as_str().unwrap().ends_with('x'), "{v}");
    }
    assert_eq!(v["missing_shards"], serde_json::json!([]));
    // The HTML report of the sweep: its table first, then every run of it.
    let page = sb.root().join("sweep.html");
    let mut cmd = sb.litebench();
    cmd.args(["report", "--sweep", "rep", "--results"])
        .arg(&all)
        .arg("-o")
        .arg(&page);
    assert_success(&output(&mut cmd));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Sweep rep") && html.contains("each configuration across machines"));
    assert!(
        html.contains("id=\"run-1\"") && html.contains("id=\"run-2\""),
        "both runs on the page"
    );
    // The runs compared (one workload, the same parameters), before the runs themselves.
    let compared = html.find("class=\"comparison\"").expect("the runs compared");
    assert!(compared < html.find("id=\"run-1\"").unwrap());
}

/// A store from anyone: its strings reach the terminal, so what `merge` copies loses its control
/// characters (issue 31, item 3): the host, the error, and the strings inside the manifest.
#[test]
fn what_merge_copies_loses_its_control_characters() {
    use litebench::engines::sqlite::api::Api;
    use litebench::engines::sqlite::conn::SqliteConn;
    use litebench::engines::Connection;
    let sb = Sandbox::new();
    let a = sb.root().join("a.db");
    assert_success(&output(&mut sb.run_in(&sb.scratch(), &a, SMALLEST_CRUD)));
    let mut c = SqliteConn::open_existing(Api::bundled(), &a, "test writer").unwrap();
    c.execute_batch(
        "UPDATE runs SET host = char(27) || '[31mevil', error = 'x' || char(155) || '2J', \
         manifest = replace(manifest, '\"crud\"', '\"crud\\u001b]0;t\\u0007\"')",
    )
    .unwrap();
    drop(c);
    let out = sb.root().join("all.db");
    assert_success(&merge(&sb, &out, &[&a]));
    let mut c = SqliteConn::open_existing(Api::bundled(), &out, "test reader").unwrap();
    let one = |c: &mut SqliteConn, sql: &str| c.query_value(sql).unwrap().unwrap_or_default();
    assert_eq!(one(&mut c, "SELECT host FROM runs"), "[31mevil");
    assert_eq!(one(&mut c, "SELECT error FROM runs"), "x2J");
    let manifest = one(&mut c, "SELECT manifest FROM runs");
    assert!(
        manifest.contains("\"crud]0;t\"") && !manifest.contains("\\u001b"),
        "{manifest}"
    );
}
