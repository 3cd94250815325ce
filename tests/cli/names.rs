//! Named runs: `run --name`, unique per store, taken wherever a run id is (`show`, `compare`,
//! `report`, `advise`), kept by `merge`, and the mistakes (a taken name, an unknown one, a name
//! that is not one) each refused in one line.

use crate::cli::common::*;

/// A tiny stored run named `name` (none: unnamed) in the sandbox's store.
fn named(sb: &Sandbox, name: Option<&str>) {
    let mut args = SMALLEST_CRUD.to_vec();
    if let Some(n) = name {
        args.extend(["--name", n]);
    }
    assert_success(&output(&mut sb.run(&args)));
}

fn runs(sb: &Sandbox) -> Vec<serde_json::Value> {
    let out = output(&mut sb.show(&["--list", "--format", "json"]));
    assert_success(&out);
    json(&out).as_array().unwrap().clone()
}

#[test]
fn a_name_stands_for_its_run_in_every_command() {
    let sb = Sandbox::new();
    named(&sb, Some("wal-baseline"));
    named(&sb, None);

    let listed = runs(&sb);
    assert_eq!(listed[0]["name"], "wal-baseline");
    assert!(listed[1].get("name").is_none(), "{:#}", listed[1]);
    let out = output(&mut sb.show(&["--list"]));
    assert!(stdout(&out).contains("wal-baseline"), "{}", describe(&out));

    let out = output(&mut sb.show(&["wal-baseline", "--format", "json"]));
    assert_success(&out);
    let v = json(&out);
    assert_eq!(
        (v["run"]["id"].clone(), v["run"]["name"].clone()),
        (1.into(), "wal-baseline".into())
    );
    let out = output(&mut sb.show(&["wal-baseline"]));
    assert!(
        stdout(&out).starts_with("run 1 (wal-baseline) — crud"),
        "{}",
        describe(&out)
    );

    let mut cmd = sb.litebench();
    cmd.args(["compare", "wal-baseline", "2", "--format", "json", "--results"])
        .arg(sb.results());
    let out = output(&mut cmd);
    assert_no_panic(&out);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["a"]["run"], 1, "{v:#}");

    assert!(sb.page(&["wal-baseline"]).contains("wal-baseline"));

    let mut cmd = sb.litebench();
    cmd.args(["advise", "--need", "none", "wal-baseline", "--results"])
        .arg(sb.results());
    let out = output(&mut cmd);
    assert_no_panic(&out);
    assert!(!stderr(&out).contains("no run named"), "{}", describe(&out));
}

#[test]
fn a_taken_name_is_refused_before_anything_runs() {
    let sb = Sandbox::new();
    named(&sb, Some("base"));
    let mut args = SMALLEST_CRUD.to_vec();
    args.extend(["--name", "base"]);
    let out = output(&mut sb.run(&args));
    assert_error_line(&out, &["--name base", "run 1", "already has that name"]);
    assert_eq!(runs(&sb).len(), 1, "nothing was stored");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "nothing was made");
}

#[test]
fn an_unknown_or_malformed_name_is_one_line() {
    let sb = Sandbox::new();
    named(&sb, None);
    let out = output(&mut sb.show(&["nope"]));
    assert_error_line(&out, &["no run named `nope`", "show --list"]);
    let mut cmd = sb.litebench();
    cmd.args(["compare", "nope:0", "1:0", "--results"]).arg(sb.results());
    assert_error_line(&output(&mut cmd), &["no run named `nope`"]);
    for bad in ["12", "a b", "x:y"] {
        let mut args = SMALLEST_CRUD.to_vec();
        args.extend(["--name", bad]);
        assert_clap_error(&output(&mut sb.run(&args)), &["--name", "a run name is"]);
    }
}

#[test]
fn merge_keeps_names_and_says_where_each_run_went() {
    let sb = Sandbox::new();
    let a = sb.root().join("a.db");
    let b = sb.root().join("b.db");
    let mut args = SMALLEST_CRUD.to_vec();
    args.extend(["--name", "base"]);
    for store in [&a, &b] {
        assert_success(&output(&mut sb.run_in(&sb.scratch(), store, &args)));
    }
    let out = sb.root().join("all.db");
    let mut cmd = sb.litebench();
    cmd.arg("merge").arg(&out).arg(&a).arg(&b);
    let o = output(&mut cmd);
    assert_success(&o);
    let text = stdout(&o);
    // The mapping: each input's run id, its id in OUT and its name there.
    assert!(text.contains("id in the input -> id in OUT"), "{text}");
    assert!(text.contains("base-2 (was base; the name is taken)"), "{text}");

    let mut cmd = sb.litebench();
    cmd.args(["show", "--list", "--format", "json", "--results"]).arg(&out);
    let o = output(&mut cmd);
    assert_success(&o);
    let names: Vec<String> = json(&o)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(names, ["base", "base-2"]);

    let mut cmd = sb.litebench();
    cmd.arg("merge").arg(&out).arg(&a).args(["--format", "json"]);
    let o = output(&mut cmd);
    assert_success(&o);
    let v = json(&o);
    assert_eq!(v[0]["merged"]["runs"][0]["from"], 1, "{v:#}");
    assert_eq!(v[0]["merged"]["runs"][0]["to"], 1, "{v:#}");
    assert_eq!(v[0]["merged"]["runs"][0]["added"], false, "{v:#}");
}
