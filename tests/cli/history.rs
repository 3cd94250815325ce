//! SQLite's releases as engines: `--engine sqlite@A..B` ranges, `litebench history` and
//! `litebench bisect`'s refusals, and a history of two releases read back as one.
//!
//! The history run compiles SQLite 3.7.8 at -Os once per machine into litebench's cache (the
//! source `fetch-old-sqlite.sh` keeps in `<target dir>/old-sqlite`, which `.ci/run` fetches), so
//! nothing is downloaded here.

use crate::cli::common::*;
use crate::support::{bin, in_ci};
use std::path::Path;

#[test]
fn a_range_is_one_configuration_per_release_a_registry_holds() {
    let sb = Sandbox::new();
    let o = output(&mut sb.run(&["crud", "--engine", "sqlite@3.7..3.8", "--dry-run"]));
    assert_success(&o);
    let out = stdout(&o);
    let engines: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split("engine ").nth(1))
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert!(
        engines.contains(&"sqlite@3.7.8") && engines.contains(&"sqlite@3.8.2"),
        "{out}"
    );
    assert!(
        engines
            .iter()
            .all(|e| e.starts_with("sqlite@3.7.") || e.starts_with("sqlite@3.8.")),
        "{out}"
    );
    // `history` compiles ranges at -Os and pins the pragmas whose defaults changed.
    let o = output(
        sb.litebench()
            .args([
                "history",
                "crud",
                "--engine",
                "sqlite@3.7..3.8",
                "--dry-run",
                "--results",
            ])
            .arg(sb.results()),
    );
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("engine sqlite@3.7.8-Os, knobs page_size=4096 cache_size=500"),
        "{out}"
    );
}

#[test]
fn history_and_bisect_refuse_in_one_line() {
    let sb = Sandbox::new();
    let refuse = |args: &[&str], parts: &[&str]| {
        let o = output(sb.litebench().args(args).arg("--results").arg(sb.results()));
        assert_error_line(&o, parts);
    };
    refuse(&["history", "crud"], &["history: give the releases with --engine"]);
    refuse(
        &["history", "crud", "--engine", "duckdb"],
        &["history: --engine duckdb: a history runs SQLite releases"],
    );
    refuse(
        &[
            "history",
            "crud",
            "--engine",
            "sqlite@all",
            "--knob",
            "journal_mode=wal,delete",
        ],
        &["--knob journal_mode=wal,delete: one value per knob"],
    );
    refuse(
        &["run", "crud", "--engine", "sqlite@3.1..3.2"],
        &["--engine sqlite@3.1..3.2: no SQLite release from 3.1 to 3.2"],
    );
    refuse(
        &["bisect", "crud", "3.8.2", "3.7.8"],
        &["bisect 3.8.2 3.7.8: A must be the older release"],
    );
    refuse(
        &["bisect", "crud", "3.7.99", "3.8.2"],
        &["bisect A 3.7.99: not a SQLite release litebench knows"],
    );
    refuse(
        &["bisect", "crud", "3.7.8", "3.8.2", "--engine", "sqlite"],
        &["bisect: --engine is not taken"],
    );
}

#[test]
fn a_method_that_is_not_one_or_not_the_workloads_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let refuse = |args: &[&str], parts: &[&str]| {
        let o = output(sb.litebench().args(args).arg("--results").arg(sb.results()));
        assert_error_line(&o, parts);
    };
    let history = ["history", "speedtest1", "--engine", "sqlite@3.7.8"];
    refuse(
        &[&history[..], &["--method", "fast"]].concat(),
        &["invalid value 'fast' for '--method", "speed-check", "litebench"],
    );
    refuse(
        &["history", "crud", "--engine", "sqlite@3.7.8", "--method", "speed-check"],
        &["--method speed-check runs speedtest1 as SQLite's tool/speed-check.sh does; workload crud has no such method"],
    );
    refuse(
        &["bisect", "crud", "3.7.8", "3.8.2", "--method", "speed-check"],
        &["--method speed-check runs speedtest1", "workload crud"],
    );
    refuse(
        &["history", "speedtest1", "--engine", "sqlite", "--method", "speed-check"],
        &["history --method speed-check: --engine sqlite: speed-check runs SQLite releases built and loaded as tool/speed-check.sh does"],
    );
    refuse(
        &[
            &history[..],
            &["--method", "speed-check", "--engine", "sqlite@3.8.2-O3"],
        ]
        .concat(),
        &["--engine sqlite@3.8.2-O3: speed-check builds each release as tool/speed-check.sh does"],
    );
}

#[test]
fn speed_check_is_speedtest1s_default_method_with_instructions() {
    let sb = Sandbox::new();
    let plan = |extra: &[&str]| {
        let o = output(
            sb.litebench()
                .args(["history", "speedtest1", "--engine", "sqlite@3.7.8", "--dry-run"])
                .args(["--format", "json"])
                .args(extra)
                .arg("--results")
                .arg(sb.results()),
        );
        assert_success(&o);
        let plan: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        plan["jobs"][0].clone()
    };
    let counted = plan(&["--measure", "instructions"]);
    assert_eq!(
        counted["configurations"][0]["engine"], "sqlite@3.7.8-speed-check",
        "{counted}"
    );
    assert_eq!(counted["params"]["method"], "speed-check", "{counted}");
    assert_eq!(counted["params"]["size"], 5, "{counted}");
    assert_eq!(
        counted["configurations"][0]["knobs"],
        serde_json::json!([]),
        "each release's own pages"
    );
    // Without instructions, or asked for, litebench's method: pinned pragmas, -Os builds.
    for job in [plan(&[]), plan(&["--measure", "instructions", "--method", "litebench"])] {
        assert_eq!(job["configurations"][0]["engine"], "sqlite@3.7.8-Os", "{job}");
        assert_eq!(job["params"]["method"], "litebench", "{job}");
        assert_eq!(job["configurations"][0]["knobs"].as_array().unwrap().len(), 2, "{job}");
    }
}

/// SQLite 3.7.8 compiled at -Os into litebench's cache (once per machine).
fn prebuild_378(sb: &Sandbox) -> bool {
    let target = bin().parent().and_then(Path::parent).expect("target dir").to_path_buf();
    let src = target.join("old-sqlite").join("3.7.8").join("sqlite3.c");
    if !src.is_file() {
        assert!(
            !in_ci(),
            "{} is missing: .ci/run must run tests/engine/fetch-old-sqlite.sh before the tests",
            src.display()
        );
        eprintln!("skipping: no {} (bash tests/engine/fetch-old-sqlite.sh)", src.display());
        return false;
    }
    let o = output(
        sb.litebench()
            .arg("build-sqlite")
            .arg(&src)
            .args(["-O", "s"])
            .timeout(std::time::Duration::from_secs(300)),
    );
    assert_success(&o);
    true
}

#[test]
fn a_history_of_two_releases_leads_its_report() {
    let sb = Sandbox::new();
    if !prebuild_378(&sb) {
        return;
    }
    let args = [
        "history",
        "crud",
        "--engine",
        "sqlite@3.7.8",
        "--engine",
        "sqlite",
        "--trials",
        "6",
        "--warmup",
        "0",
        "--param",
        "rows=50",
        "--param",
        "inserts=20",
        "--param",
        "updates=20",
        "--param",
        "deletes=20",
        "--memory",
    ];
    let o = output(
        sb.litebench()
            .args(args)
            .arg("--dir")
            .arg(sb.scratch())
            .arg("--results")
            .arg(sb.results())
            .env("COLUMNS", "80"),
    );
    assert_success(&o);
    let out = stdout(&o);
    let head: String = out.lines().take(16).collect::<Vec<_>>().join("\n");
    assert!(head.contains("SQLite's history: crud by release (tx/s)"), "{out}");
    let row = |v: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{v} ")))
            .unwrap_or_else(|| panic!("{v}: {out}"))
            .to_string()
    };
    assert!(row("3.7.8").contains("2011-09-19"), "{out}");
    let newer = out
        .lines()
        .skip_while(|l| !l.starts_with("3.7.8 "))
        .nth(1)
        .expect("the bundled release after 3.7.8");
    assert!(
        newer.contains('[') && newer.contains(".."),
        "a step with its interval: {newer}"
    );
    let j = sb.show_json();
    let points = j["history"]["points"].as_array().expect("history points");
    assert_eq!(points.len(), 2, "{j}");
    assert_eq!(points[0]["version"], "3.7.8");
    assert!(points[0]["library_bytes"].as_u64().unwrap() > 100_000, "{j}");
    assert!(
        points[0]["text_bytes"].as_u64().unwrap() < points[0]["library_bytes"].as_u64().unwrap(),
        "{j}"
    );
    assert!(points[1]["step"]["verdict"].is_string(), "{j}");
}
