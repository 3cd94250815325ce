//! `litebench list` and `litebench env`.

use crate::cli::common::*;
use litebench::engines::sqlite::knobs::SQLITE_KNOBS;

#[test]
fn list_names_workloads_engines_and_every_knob() {
    let sb = Sandbox::new();
    let out = output(sb.litebench().arg("list"));
    assert_success(&out);
    assert_eq!(stderr(&out), "", "{}", describe(&out));
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.starts_with("crud — ")),
        "workload crud not listed\n{text}"
    );
    for p in ["rows", "inserts", "updates", "deletes", "value_size", "duration"] {
        assert!(
            text.lines().any(|l| l.split_whitespace().next() == Some(p)),
            "param {p} not listed\n{text}"
        );
    }
    for k in SQLITE_KNOBS {
        let row = text
            .lines()
            .find(|l| {
                let mut w = l.split_whitespace();
                w.next() == Some("sqlite") && w.next() == Some(k.name)
            })
            .unwrap_or_else(|| panic!("knob {} not listed\n{text}", k.name));
        assert!(
            row.contains(&k.kind.describe()),
            "knob {} without its valid values: {row:?}",
            k.name
        );
    }
    assert!(
        text.lines().any(|l| l.starts_with("sqlite ")),
        "engine sqlite not listed\n{text}"
    );
    assert!(
        text.contains("sqlite:<library path>"),
        "engine sqlite:<library path> not listed\n{text}"
    );
    sb.assert_cwd_untouched();
}

#[test]
fn list_json_parses_and_matches_the_knob_table() {
    let sb = Sandbox::new();
    let out = output(sb.litebench().args(["list", "--format", "json"]));
    assert_success(&out);
    let v = json(&out);
    let workloads: Vec<&str> = v["workloads"]
        .as_array()
        .expect("workloads")
        .iter()
        .filter_map(|w| w["name"].as_str())
        .collect();
    let registered: Vec<&str> = litebench::workload::all().iter().map(|w| w.name()).collect();
    assert_eq!(workloads, registered, "list shows every registered workload, in order");
    assert_eq!(workloads[0], "crud");
    for suite in ["speedtest", "tatp"] {
        assert!(workloads.contains(&suite), "{suite} missing from {workloads:?}");
    }
    let params: Vec<&str> = v["workloads"][0]["params"]
        .as_array()
        .expect("params")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(
        params,
        ["rows", "inserts", "updates", "deletes", "value_size", "duration"]
    );
    let engines: Vec<&str> = v["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    let registered: Vec<String> = litebench::engines::registry::spellings()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(engines, registered);
    for e in [
        "sqlite",
        "sqlite:<library path>",
        "postgres",
        "postgres=<server URL>",
        "mysql",
        "mariadb",
    ] {
        assert!(engines.contains(&e), "{e} missing from {engines:?}");
    }
    let all = v["knobs"].as_array().expect("knobs");
    for engine in ["postgres", "mysql"] {
        assert!(all.iter().any(|k| k["engine"] == engine), "no {engine} knobs listed");
    }
    let knobs: Vec<&serde_json::Value> = all.iter().filter(|k| k["engine"] == "sqlite").collect();
    assert_eq!(knobs.len(), SQLITE_KNOBS.len());
    for (j, k) in knobs.iter().zip(SQLITE_KNOBS) {
        assert_eq!(j["name"], k.name);
        assert_eq!(j["default"], k.default);
        assert_eq!(j["valid"], k.kind.describe());
    }
    sb.assert_cwd_untouched();
}

#[test]
fn env_json_describes_the_storage_and_leaves_no_trace() {
    let sb = Sandbox::new();
    let mut cmd = sb.litebench();
    cmd.args(["env", "--json", "--dir"]).arg(sb.scratch());
    let out = output(&mut cmd);
    assert_success(&out);
    let v = json(&out);
    let storage = &v["environment"]["storage"];
    assert!(storage.is_object(), "no environment.storage: {v:#}");
    let fs_type = storage
        .get("fs_type")
        .unwrap_or_else(|| panic!("no environment.storage.fs_type: {storage:#}"));
    assert!(
        fs_type.as_str().is_some_and(|s| !s.is_empty()),
        "fs_type unknown: {storage:#}"
    );
    assert!(v["environment"]["machine"].is_object(), "no environment.machine: {v:#}");
    assert!(
        v.get("sync_latency").is_some_and(|s| s.is_object()),
        "no sync latency: {v:#}"
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "env left files in --dir");
    sb.assert_cwd_untouched();
}

#[test]
fn env_of_a_directory_that_does_not_exist() {
    let sb = Sandbox::new();
    let missing = sb.scratch().join("nope");
    let mut cmd = sb.litebench();
    cmd.args(["env", "--json", "--dir"]).arg(&missing);
    let out = output(&mut cmd);
    assert_error_line(
        &out,
        &[&format!("error: --dir {}: no such directory", missing.display())],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

#[test]
fn env_of_a_file_says_it_is_a_file() {
    let sb = Sandbox::new();
    let file = sb.root().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let mut cmd = sb.litebench();
    cmd.args(["env", "--json", "--dir"]).arg(&file);
    let out = output(&mut cmd);
    assert_error_line(
        &out,
        &[&format!("error: --dir {}: not a directory (a file)", file.display())],
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}
