//! The store's schema across litebench versions, and what a stored run reports about itself.
//!
//! A store written before schemas had versions is shown as it is and upgraded in place by
//! `run`; a store from a newer litebench is refused and left byte-identical; a run still
//! `running` on another host is never called abandoned; and a shown run reports what was
//! recorded when it ran (journaling mode, why its sync latency is missing), never today's
//! machine.

use crate::cli::common::*;
use litebench::engines::sqlite::api::Api;
use litebench::engines::sqlite::conn::SqliteConn;
use litebench::engines::{Connection, Value};
use std::path::Path;

/// The schema of results stores before versions existed, frozen here as litebench wrote it
/// (user_version 0, no application id, no host or boot id).
const UNVERSIONED_DDL: &str = "
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL,
  pid INTEGER NOT NULL,
  workload TEXT NOT NULL,
  error TEXT,
  manifest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS templates(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trials(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  config INTEGER NOT NULL,
  round INTEGER NOT NULL,
  warmup INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY(run_id, seq)
);
";

fn open(path: &Path) -> SqliteConn {
    SqliteConn::open_existing(Api::bundled(), path, "test").expect("open the store")
}

fn pragma(path: &Path, name: &str) -> i64 {
    open(path)
        .query_value(&format!("PRAGMA {name}"))
        .unwrap()
        .and_then(|v| v.parse().ok())
        .unwrap()
}

fn exec(conn: &mut SqliteConn, sql: &str, params: &[Value<'_>]) {
    let stmt = conn.prepare(sql).unwrap();
    conn.run(stmt, params).unwrap();
}

/// A finished tiny run in the sandbox's store.
fn tiny_run(sb: &Sandbox, extra: &[&str]) {
    let mut args = vec!["crud"];
    args.extend_from_slice(extra);
    let out = output(&mut sb.run_tiny(&args));
    assert_success(&out);
}

/// Rewrites the manifest of run `id` with `edit`.
fn edit_manifest(path: &Path, id: i64, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut c = open(path);
    let text = c
        .query_value(&format!("SELECT manifest FROM runs WHERE id = {id}"))
        .unwrap()
        .expect("a stored manifest");
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut m);
    let text = m.to_string();
    exec(
        &mut c,
        "UPDATE runs SET manifest = ?1 WHERE id = ?2",
        &[Value::Text(&text), Value::Int(id)],
    );
}

/// The store as an unversioned litebench would have left it: run 1 of `sb` (made by this
/// litebench) copied row by row into the old schema at `old`, its manifest without the fields
/// added since.
fn unversioned_copy(sb: &Sandbox, old: &Path) {
    let mut from = open(&sb.results());
    let mut to = SqliteConn::open(Api::bundled(), old, None, "old").unwrap();
    to.execute_batch(UNVERSIONED_DDL).unwrap();
    let run = from
        .query("SELECT started_at, finished_at, status, pid, workload, error, manifest FROM runs WHERE id = 1")
        .unwrap()
        .remove(0);
    let mut manifest: serde_json::Value = serde_json::from_str(run[6].as_deref().unwrap()).unwrap();
    let m = manifest.as_object_mut().unwrap();
    m.remove("sync_latency_not_measured");
    let storage = m["environment"]["storage"].as_object_mut().unwrap();
    storage.remove("journaling");
    // No `data=` in the superblock options either, so nothing recorded names the mode.
    storage.insert("super_options".into(), "rw".into());
    let manifest = manifest.to_string();
    let text = |i: usize| run[i].as_deref().map_or(Value::Null, Value::Text);
    exec(
        &mut to,
        "INSERT INTO runs(id, started_at, finished_at, status, pid, workload, error, manifest) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        &[
            text(0),
            text(1),
            text(2),
            Value::Int(run[3].as_deref().unwrap().parse().unwrap()),
            text(4),
            text(5),
            Value::Text(&manifest),
        ],
    );
    for t in from
        .query("SELECT seq, config, round, warmup, record FROM trials WHERE run_id = 1 ORDER BY seq")
        .unwrap()
    {
        let int = |i: usize| Value::Int(t[i].as_deref().unwrap().parse().unwrap());
        exec(
            &mut to,
            "INSERT INTO trials(run_id, seq, config, round, warmup, record) VALUES (1, ?1, ?2, ?3, ?4, ?5)",
            &[int(0), int(1), int(2), int(3), Value::Text(t[4].as_deref().unwrap())],
        );
    }
    for t in from.query("SELECT record FROM templates WHERE run_id = 1").unwrap() {
        exec(
            &mut to,
            "INSERT INTO templates(run_id, record) VALUES (1, ?1)",
            &[Value::Text(t[0].as_deref().unwrap())],
        );
    }
}

fn checklist_value(report: &serde_json::Value, item: &str) -> String {
    report["checklist"]
        .as_array()
        .expect("a checklist")
        .iter()
        .find(|i| i["item"] == item)
        .unwrap_or_else(|| panic!("no checklist item {item:?}: {:#}", report["checklist"]))["value"]
        .as_str()
        .unwrap()
        .to_string()
}

const FS_ITEM: &str = "filesystem and its journaling mode";
const SYNC_ITEM: &str = "sync latency of the database directory";

#[test]
fn an_unversioned_store_is_shown_as_it_is_and_upgraded_by_run() {
    let made = Sandbox::new();
    tiny_run(&made, &[]);
    let sb = Sandbox::new();
    unversioned_copy(&made, &sb.results());
    assert_eq!(pragma(&sb.results(), "user_version"), 0);
    let before = std::fs::read(sb.results()).unwrap();

    // `show` reads the old schema without changing a byte.
    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    assert_eq!(v["trials"].as_array().map(Vec::len), Some(2));
    assert!(!v["footprint"].as_array().is_none_or(Vec::is_empty), "templates lost");
    let fs = checklist_value(&v, FS_ITEM);
    if !fs.starts_with("unknown") {
        assert!(
            fs.contains("(journaling unknown (not recorded by this run's litebench version))"),
            "{fs}"
        );
    }
    let out = output(&mut sb.show(&["--list", "--format", "json"]));
    assert_success(&out);
    assert_eq!(json(&out)[0]["status"], "complete");
    assert_eq!(std::fs::read(sb.results()).unwrap(), before, "show changed the store");

    // `run` upgrades it in place, and the old run is still there.
    tiny_run(&sb, &[]);
    assert_eq!(pragma(&sb.results(), "user_version"), 4);
    let out = output(&mut sb.show(&["--list", "--format", "json"]));
    assert_success(&out);
    let listed = json(&out);
    let ids: Vec<_> = listed.as_array().unwrap().iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [1, 2], "{listed:#}");
    // The old run got a uuid at the upgrade (a UUIDv8 derived from it), the new one a UUIDv7.
    let versions: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uuid"].as_str().unwrap()[14..15].to_string())
        .collect();
    assert_eq!(versions, ["8", "7"], "{listed:#}");
    let out = output(&mut sb.show(&["1", "--format", "json"]));
    assert_success(&out);
    let old = json(&out);
    assert_eq!(old["run"]["status"], "complete");
    assert_eq!(old["trials"], v["trials"], "the old run's trials changed");
    sb.assert_cwd_untouched();
}

#[test]
fn a_store_from_a_newer_litebench_is_refused_and_left_alone() {
    let sb = Sandbox::new();
    tiny_run(&sb, &[]);
    open(&sb.results()).execute_batch("PRAGMA user_version = 99").unwrap();
    let before = std::fs::read(sb.results()).unwrap();
    let message = format!(
        "error: --results {}: written by a newer litebench (schema 99, this one reads up to 4); upgrade litebench",
        sb.results().display()
    );
    for args in [&["--format", "json"][..], &["--list"][..]] {
        let out = output(&mut sb.show(args));
        assert_eq!(assert_error_line(&out, &[]), message);
    }
    let out = output(&mut sb.run_tiny(&["crud"]));
    assert_eq!(assert_error_line(&out, &[]), message);
    assert_eq!(
        std::fs::read(sb.results()).unwrap(),
        before,
        "the newer store was modified"
    );
    assert_eq!(listing(&sb.results_dir()), vec!["r.db".to_string()]);
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    sb.assert_cwd_untouched();
}

#[test]
fn a_running_run_from_another_host_is_not_abandoned() {
    let sb = Sandbox::new();
    tiny_run(&sb, &[]);
    // As a run still going on another machine would look in a copy of its store: its pid
    // means nothing here (and names no process here).
    exec(
        &mut open(&sb.results()),
        "UPDATE runs SET status = 'running', finished_at = NULL, host = 'bench-7.example', pid = 2147483000",
        &[],
    );
    let v = sb.show_json();
    assert_eq!(
        v["run"]["status"], "running (on host bench-7.example, status unknown here)",
        "{:#}",
        v["run"]
    );
    let warnings = v["warnings"].to_string();
    assert!(!warnings.contains("never finished"), "{warnings}");
    let out = output(&mut sb.show(&["--list", "--format", "json"]));
    assert_success(&out);
    assert_eq!(
        json(&out)[0]["status"],
        "running (on host bench-7.example, status unknown here)"
    );

    // The same run on this host, in an earlier boot: its process cannot exist any more.
    if Path::new("/proc/sys/kernel/random/boot_id").exists() {
        let mut c = open(&sb.results());
        let host = c.query_value("SELECT host FROM runs WHERE id = 1").unwrap();
        assert!(host.is_some(), "run 1 stored no host");
        exec(
            &mut c,
            "UPDATE runs SET host = ?1, boot_id = 'an-earlier-boot'",
            &[Value::Text(&hostname())],
        );
        drop(c);
        assert_eq!(sb.show_json()["run"]["status"], "abandoned");
    }
}

/// This machine's host name, as litebench reads it.
fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length.
    assert_eq!(unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) }, 0);
    let end = buf.iter().position(|&b| b == 0).unwrap();
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[test]
fn a_run_records_its_journaling_mode_and_shows_the_recorded_one() {
    let sb = Sandbox::new();
    tiny_run(&sb, &[]);
    let v = sb.show_json();
    let recorded = v["manifest"]["environment"]["storage"]["journaling"]
        .as_str()
        .unwrap_or_else(|| panic!("no journaling recorded: {:#}", v["manifest"]["environment"]))
        .to_string();
    assert!(checklist_value(&v, FS_ITEM).contains(&format!("({recorded})")));
    // What is shown is what was stored, whatever this machine says today.
    edit_manifest(&sb.results(), 1, |m| {
        m["environment"]["storage"]["fs_type"] = "ext4".into();
        m["environment"]["storage"]["journaling"] = "data=journal".into();
    });
    let fs = checklist_value(&sb.show_json(), FS_ITEM);
    assert!(fs.starts_with("ext4 (data=journal), mount options"), "{fs}");
}

#[test]
fn a_memory_run_says_why_it_has_no_sync_latency() {
    let sb = Sandbox::new();
    tiny_run(&sb, &["--memory"]);
    let v = sb.show_json();
    assert_eq!(v["manifest"]["sync_latency_not_measured"], "in-memory databases");
    assert_eq!(checklist_value(&v, SYNC_ITEM), "not measured: in-memory databases");
}

#[test]
fn a_failed_sync_latency_measurement_keeps_its_reason() {
    let sb = Sandbox::new();
    tiny_run(&sb, &[]);
    let v = sb.show_json();
    assert!(v["manifest"]["sync_latency"].is_object(), "{:#}", v["manifest"]);
    assert!(v["manifest"]["sync_latency_not_measured"].is_null());
    assert!(checklist_value(&v, SYNC_ITEM).starts_with("median "));
    let reason = "cannot create a sync probe file in /data: Permission denied (os error 13)";
    edit_manifest(&sb.results(), 1, |m| {
        m["sync_latency"] = serde_json::Value::Null;
        m["sync_latency_not_measured"] = reason.into();
    });
    let v = sb.show_json();
    assert_eq!(
        checklist_value(&v, SYNC_ITEM),
        format!("unknown (not measured: {reason})")
    );
    // A run stored before reasons were kept still reads as plain unknown.
    edit_manifest(&sb.results(), 1, |m| {
        m.as_object_mut().unwrap().remove("sync_latency_not_measured");
    });
    assert_eq!(checklist_value(&sb.show_json(), SYNC_ITEM), "unknown");
}
