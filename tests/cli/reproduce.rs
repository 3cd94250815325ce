//! `litebench reproduce`: bad targets are refused in one line; apsys17 at the tiny scale
//! writes a report whose first section holds every figure with the paper's values, a measured
//! value and a verdict per row (or, without root, says which experiments were skipped); a
//! failing experiment still leaves the report, and exits 2. vldb22 at the tiny scale: every
//! figure and table with the paper's values, a measured value or an explicit reason per row
//! (DuckDB's compile rows not measured, Table 3 without a cached build;
//! Table 4's SQLite sizes and load time always measured).

use crate::cli::common::*;
use crate::support::{in_ci, require};
use std::path::Path;

/// The figures and tables of the APSys'17 target, as the report heads them.
const APSYS17_FIGURES: &[&str] = &[
    "Figure 1",
    "Figure 2",
    "Figure 3",
    "Figure 3d",
    "Figure 4",
    "Table 1",
    "fsync counts",
];

/// The cells of each body row of the tables under each `<h3>` of the first section.
fn first_section(html: &str) -> Vec<(String, Vec<Vec<String>>)> {
    let start = html
        .find("<section id=\"run-0\">")
        .expect("a paper-against-here section");
    let end = start + html[start..].find("</section>").expect("section ends");
    let section = &html[start..end];
    let mut out = Vec::new();
    for part in section.split("<h3>").skip(1) {
        let (title, rest) = part.split_once("</h3>").expect("heading ends");
        let rows = rest
            .split("<tr>")
            .filter(|r| r.contains("<td>"))
            .map(|r| {
                r.split("<td>")
                    .skip(1)
                    .map(|c| c.split("</td>").next().unwrap_or("").to_string())
                    .collect()
            })
            .collect();
        out.push((title.to_string(), rows));
    }
    out
}

/// The rows of the first section's tables for `figures` (each with its table's title), after
/// checking that each of `figures` has a table with rows, and each row six cells and a paper
/// value.
fn figure_rows(html: &str, figures: &[&str]) -> Vec<(String, Vec<String>)> {
    let sections = first_section(html);
    let titles: Vec<&str> = sections
        .iter()
        .map(|(t, _)| t.split(" — ").next().unwrap_or(""))
        .collect();
    for f in figures {
        assert!(titles.contains(f), "no section for {f}: {titles:?}");
    }
    let mut out = Vec::new();
    for (title, rows) in sections
        .into_iter()
        .filter(|(t, _)| figures.iter().any(|f| t.starts_with(f)))
    {
        assert!(!rows.is_empty(), "{title}: no rows");
        for r in rows {
            assert_eq!(r.len(), 6, "{title}: row {r:?}");
            assert!(!r[1].is_empty(), "{title}: no paper value in {r:?}");
            out.push((title.clone(), r));
        }
    }
    out
}

/// Checks that a first-section row holds a measured positive number and a verdict starting
/// with one of `verdicts`.
fn assert_measured(title: &str, r: &[String], verdicts: &[&str]) {
    let number: f64 = r[2]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{title}: no measured number in {r:?}"));
    assert!(number.is_finite() && number > 0.0, "{title}: {r:?}");
    assert!(
        verdicts.iter().any(|v| r[4].starts_with(v)),
        "{title}: verdict {:?}",
        r[4]
    );
}

fn reproduce(sb: &Sandbox, args: &[&str], report: &Path) -> std::process::Output {
    let mut cmd = sb.litebench();
    cmd.arg("reproduce")
        .args(args)
        .arg("--results")
        .arg(sb.results())
        .arg("--dir")
        .arg(sb.scratch())
        .arg("--report")
        .arg(report)
        .timeout(std::time::Duration::from_secs(600));
    output(&mut cmd)
}

#[test]
fn unknown_targets_and_bad_report_paths_are_refused() {
    let sb = Sandbox::new();
    let o = output(sb.litebench().args(["reproduce", "apsys18"]));
    assert_error_line(
        &o,
        &[
            "reproduce apsys18",
            "unknown target",
            "apsys17, speed2002, vldb22, linaro2014",
        ],
    );
    let o = output(
        sb.litebench()
            .args(["reproduce", "apsys17", "--report", "/nonexistent-dir/r.html"]),
    );
    assert_error_line(&o, &["--report", "/nonexistent-dir"]);
    sb.assert_cwd_untouched();
}

#[test]
fn apsys17_tiny_report_holds_every_figure_paper_value_measurement_and_verdict() {
    let sb = Sandbox::new();
    let file = sb.root().join("apsys17.html");
    let o = reproduce(&sb, &["apsys17", "--tiny"], &file);
    assert_no_panic(&o);
    let guest = Path::new("/usr/bin/linux.uml").exists();
    if in_ci() {
        assert!(guest, "CI must install user-mode-linux for --guest");
    }
    let everything = is_root() && guest;
    let expected = if everything { 0 } else { 2 };
    assert_eq!(o.status.code(), Some(expected), "{}", describe(&o));
    let html = std::fs::read_to_string(&file).expect("report written");
    let rows = figure_rows(&html, APSYS17_FIGURES);
    // The paper's stated values, transcribed with their sources.
    for v in [
        "28.0x",
        "11.8x",
        "1.54x",
        "10.0x",
        "5000",
        "1000",
        "2.00x",
        "Section 3.4",
        "Section 3.5",
        "Table 1 (section 2)",
    ] {
        assert!(
            html.to_lowercase().contains(&v.to_lowercase()),
            "paper value {v} missing"
        );
    }
    let mut measured = 0;
    for (title, r) in &rows {
        let (here, verdict) = (&r[2], &r[4]);
        if verdict == "not measured" {
            // Only what this machine cannot do may be missing; Figure 3d needs nothing.
            assert!(!title.starts_with("Figure 3d"), "{title}: {r:?}");
            assert!(!everything, "{title}: {r:?} not measured although everything could run");
            assert!(
                here.starts_with("skipped: needs root") || (!guest && here.starts_with("failed")),
                "{title}: {r:?}"
            );
            continue;
        }
        assert_measured(
            title,
            r,
            &["holds", "does not hold", "matches", "differs", "not comparable"],
        );
        measured += 1;
    }
    assert!(measured >= 12, "only {measured} rows measured");
    // The paper's section comes first, then the runs' own pages.
    let first = html.find("id=\"run-0\"").unwrap();
    let run = html.find("<section id=\"run-1\"").expect("the runs' pages follow");
    assert!(first < run);
    assert!(stdout(&o).contains("Figure 2"), "{}", describe(&o));
    sb.assert_clean("reproduce apsys17 --tiny");
}

#[test]
fn a_failed_experiment_exits_2_and_still_writes_the_report() {
    let sb = Sandbox::new();
    let file = sb.root().join("failed.html");
    // A parameter no experiment accepts: every experiment fails its validation.
    let o = reproduce(&sb, &["apsys17", "--tiny", "--param", "rows=-5"], &file);
    assert_no_panic(&o);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    let err = stderr(&o);
    assert!(
        err.lines()
            .last()
            .unwrap_or("")
            .starts_with("error: an experiment failed"),
        "{}",
        describe(&o)
    );
    let html = std::fs::read_to_string(&file).expect("report written despite the failures");
    assert!(html.contains("failed: "), "the report says which failed");
    assert!(html.contains("Figure 1"));
}

#[test]
fn speed2002_tiny_report_holds_every_test_with_the_page_values() {
    let sb = Sandbox::new();
    let file = sb.root().join("speed2002.html");
    let o = reproduce(&sb, &["speed2002", "--tiny"], &file);
    assert_no_panic(&o);
    let servers =
        require("/usr/lib/postgresql/15/bin/postgres", "postgresql") && require("/usr/sbin/mariadbd", "mariadb-server");
    assert_eq!(o.status.code(), Some(if servers { 0 } else { 2 }), "{}", describe(&o));
    let html = std::fs::read_to_string(&file).expect("report written");
    let sections = first_section(&html);
    let rows: Vec<&Vec<String>> = sections
        .iter()
        .filter(|(t, _)| t.starts_with("Tests 1-15"))
        .flat_map(|(_, r)| r)
        .collect();
    assert_eq!(rows.len(), 45, "three comparisons for each of the 15 tests");
    // Test 1's values as on the page.
    assert!(html.contains("SQLite 2.7.0 8.672 s / PostgreSQL 3.613 s"));
    for r in rows {
        let verdict = &r[4];
        if !servers && verdict == "not measured" {
            assert!(r[2].starts_with("failed"), "{r:?}");
            continue;
        }
        assert!(
            r[2].split_whitespace()
                .next()
                .and_then(|n| n.parse::<f64>().ok())
                .is_some(),
            "no measured value in {r:?}"
        );
        assert!(
            verdict.starts_with("holds") || verdict.starts_with("does not hold"),
            "{r:?}"
        );
    }
    sb.assert_clean("reproduce speed2002 --tiny");
}

/// The figures and tables of the VLDB'22 target, as the report heads them.
const VLDB22_FIGURES: &[&str] = &[
    "Section 2.2.2",
    "Figure 2",
    "Figure 3",
    "Figure 6",
    "Figure 7",
    "Table 3",
    "Table 4",
];

#[test]
fn vldb22_tiny_report_holds_every_figure_with_paper_values_and_a_value_or_reason_per_row() {
    // DuckDB's experiments run on the cached default release (the test fetches nothing).
    if !crate::support::require_duckdb(crate::support::DUCKDB) {
        return;
    }
    let sb = Sandbox::new();
    let file = sb.root().join("vldb22.html");
    prebuild(&sb, &[("3.37.2", "s"), ("3.37.2", "3")]);
    let o = reproduce(&sb, &["vldb22", "--tiny"], &file);
    assert_no_panic(&o);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let html = std::fs::read_to_string(&file).expect("report written");
    let rows = figure_rows(&html, VLDB22_FIGURES);
    // The paper's values (4.90x and 38.7x: the middles of "3-8X" and "30-50X").
    for v in [
        "10.0x",
        "4.90x",
        "38.7x",
        "2.70x",
        "0.45x",
        "1.00x",
        "900",
        "1500",
        "340",
        "Table 3 (section 4.4)",
        "section 4.2.3",
        "520",
        "270",
        "2800",
        "1800",
        "82.0",
        "1.90x",
        "1.56x",
        "0.82x",
        "Table 4 (section 4.4)",
    ] {
        assert!(html.contains(v), "paper value {v} missing");
    }
    let mut measured = 0;
    let mut skipped = 0;
    let mut table4 = 0;
    for (title, r) in &rows {
        let (here, verdict) = (&r[2], &r[4]);
        if verdict == "not measured" {
            // Only DuckDB's compile rows may be missing: nothing of DuckDB is compiled here.
            let why_ok = r[0].contains("DuckDB") && here.starts_with("not measured: litebench compiles no DuckDB");
            assert!(why_ok, "{title}: {r:?}");
            skipped += 1;
            continue;
        }
        assert_measured(title, r, &["holds", "does not hold", "not comparable"]);
        if title.starts_with("Table 4") {
            // Sizes and load times, from the templates of the runs.
            let unit = if r[0].contains("size") {
                here.contains("MB on disk") || here.ends_with(" MB)")
            } else {
                here.contains("s populating") || here.ends_with(" s)")
            };
            assert!(unit, "{title}: {r:?}");
            table4 += 1;
        }
        measured += 1;
    }
    // SQLite's own rows: section 2.2.2's readers beside a writer, Figure 2's WAL/DELETE, Figure 6's four, Figure 7's three, Table 3's
    // six (its libraries compiled for the `footprint` experiment), Table 4's three (TATP and
    // SSB sizes, SSB load time); with DuckDB, Table 4's six others too.
    assert_eq!(table4, 9, "Table 4 rows measured");
    assert!(measured >= 17, "only {measured} rows measured ({skipped} not)");
    assert!(html.contains("sqlite@3.37.2-Os") && html.contains("sqlite@3.37.2-O3"));
    assert!(stdout(&o).contains("Figure 7"), "{}", describe(&o));
    sb.assert_clean("reproduce vldb22 --tiny");
}

/// The tables of the Linaro target: one per app (section 4.2), the schedulers, the upgrade.
const LINARO2014_FIGURES: &[&str] = &[
    "RL Benchmark",
    "SQLite Benchmark",
    "AndroBench",
    "ACREVE Benchmark",
    "I/O schedulers",
    "SQLite upgrade",
];

/// Compiles the SQLite libraries a target runs (release, `-O` level) into litebench's cache
/// from the sources
/// `fetch-old-sqlite.sh` keeps in `<target dir>/old-sqlite` (`.ci/run` fetches them, so CI
/// downloads nothing here); cached after the first time. Elsewhere, without those sources,
/// `reproduce` fetches them from npm itself.
fn prebuild(sb: &Sandbox, builds: &[(&str, &str)]) {
    let target = crate::support::bin()
        .parent()
        .and_then(Path::parent)
        .expect("target dir")
        .to_path_buf();
    for (r, opt) in builds {
        let name = match *opt {
            "2" => r.to_string(),
            o => format!("{r}-O{o}"),
        };
        let src = target.join("old-sqlite").join(r).join("sqlite3.c");
        if !src.is_file() {
            assert!(
                !in_ci(),
                "{} is missing: .ci/run must run tests/engine/fetch-old-sqlite.sh before the tests",
                src.display()
            );
            continue;
        }
        let o = output(
            sb.litebench()
                .arg("build-sqlite")
                .arg(&src)
                .args(["-O", opt, "--name", &name])
                .timeout(std::time::Duration::from_secs(300)),
        );
        assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    }
}

#[test]
fn linaro2014_tiny_report_holds_every_app_scheduler_and_the_upgrade_with_the_pages_values() {
    let sb = Sandbox::new();
    prebuild(&sb, &[("3.7.13", "2"), ("3.8.4.3", "2")]);
    let file = sb.root().join("linaro2014.html");
    let o = reproduce(&sb, &["linaro2014", "--tiny"], &file);
    assert_no_panic(&o);
    let guest = Path::new("/usr/bin/linux.uml").exists();
    if in_ci() {
        assert!(guest, "CI must install user-mode-linux for --guest");
    }
    assert_eq!(o.status.code(), Some(if guest { 0 } else { 2 }), "{}", describe(&o));
    let html = std::fs::read_to_string(&file).expect("report written");
    let rows = figure_rows(&html, LINARO2014_FIGURES);
    // The page's seconds, transcribed with their rows; its own inconsistency is said.
    for v in [
        "row &quot;1000 INSERTs&quot;: 8.00125 s on ext4, 8.2485 s on F2FS",
        "row &quot;Total&quot;: 97.16475 s on ext4, 85.78525 s on F2FS",
        "29.56025 s under CFQ, 29.617 s under NOOP",
        "sums to 30.56575 s, not its Overall 29.81575 s",
        "7% improvement",
    ] {
        assert!(html.contains(v), "paper value {v} missing");
    }
    assert!(html.contains("Not re-measured here") && html.contains("iozone"));
    // The runs' links say which experiment made each (three RL Benchmark runs, for one).
    for e in ["f2fs", "schedulers", "version"] {
        assert!(
            html.contains(&format!("complete — experiment {e}</a>")),
            "no link to {e}'s runs"
        );
    }
    let count = |title: &str| rows.iter().filter(|(t, _)| t.starts_with(title)).count();
    // Each app's tests plus its overall row; two schedulers against CFQ per app; one upgrade.
    for (title, n) in [
        ("RL Benchmark", 14),
        ("SQLite Benchmark", 8),
        ("AndroBench", 4),
        ("ACREVE Benchmark", 21),
        ("I/O schedulers", 8),
        ("SQLite upgrade", 1),
    ] {
        assert_eq!(count(title), n, "{title}");
    }
    for (title, r) in &rows {
        if !guest && !title.starts_with("SQLite upgrade") {
            assert!(r[2].starts_with("failed"), "{title}: {r:?}");
            continue;
        }
        assert_measured(title, r, &["holds", "does not hold"]);
    }
    assert!(stdout(&o).contains("I/O schedulers"), "{}", describe(&o));
    sb.assert_clean("reproduce linaro2014 --tiny");
}
