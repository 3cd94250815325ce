//! Every subcommand that prints data honours every `--format` value: JSON parses, CSV parses
//! with a header row, Markdown has a pipe table, and the terminal table is neither of those.

use crate::cli::common::*;
use std::process::Output;

const FORMATS: [&str; 4] = ["table", "json", "csv", "markdown"];

/// Asserts `out` succeeded and is in `format`; `what` names the command in messages.
fn assert_in_format(out: &Output, format: &str, what: &str) {
    assert_no_panic(out);
    assert!(
        out.status.success(),
        "{what} --format {format} failed\n{}",
        describe(out)
    );
    let text = stdout(out);
    assert!(!text.trim().is_empty(), "{what} --format {format} printed nothing");
    let is_json = serde_json::from_str::<serde_json::Value>(&text).is_ok();
    let has_pipe_rule = text.lines().any(|l| l.starts_with("|---"));
    match format {
        "json" => assert!(is_json, "{what} --format json is not JSON\n{text}"),
        "csv" => {
            let mut r = csv::Reader::from_reader(text.as_bytes());
            let headers = r
                .headers()
                .unwrap_or_else(|e| panic!("{what} --format csv: no header row ({e})\n{text}"))
                .clone();
            assert!(headers.len() > 1, "{what} --format csv: header {headers:?}\n{text}");
            assert!(
                headers.iter().any(|h| !h.is_empty()),
                "{what} --format csv: empty header\n{text}"
            );
            let rows: Vec<csv::StringRecord> = r
                .records()
                .map(|x| x.unwrap_or_else(|e| panic!("{what} --format csv does not parse ({e})\n{text}")))
                .collect();
            assert!(!rows.is_empty(), "{what} --format csv: no rows\n{text}");
            assert!(!is_json && !has_pipe_rule, "{what} --format csv\n{text}");
        }
        "markdown" => assert!(
            has_pipe_rule && !is_json,
            "{what} --format markdown has no pipe table\n{text}"
        ),
        "table" => {
            assert!(!is_json && !has_pipe_rule, "{what} --format table\n{text}");
        }
        other => panic!("unknown format {other}"),
    }
}

/// Runs `args` in every format; the table differs from the CSV.
fn each_format(sb: &Sandbox, args: &[&str]) {
    let what = args.join(" ");
    let mut texts = Vec::new();
    for f in FORMATS {
        let mut cmd = sb.litebench();
        cmd.args(args).args(["--format", f]);
        let out = output(&mut cmd);
        assert_in_format(&out, f, &what);
        texts.push(stdout(&out));
    }
    assert_ne!(texts[0], texts[2], "{what}: the table is the CSV");
}

/// A store with two runs (the first with two configurations).
fn two_runs() -> Sandbox {
    let sb = Sandbox::new();
    let mut args = SMALLEST_CRUD.to_vec();
    args.extend(["--knob", "journal_mode=wal,delete"]);
    assert_success(&output(&mut sb.run(&args)));
    assert_success(&output(&mut sb.run(SMALLEST_CRUD)));
    sb
}

fn with_results<'a>(sb: &'a Sandbox, args: &[&'a str]) -> Vec<String> {
    let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    v.push("--results".into());
    v.push(sb.results().display().to_string());
    v
}

fn each_format_on_store(sb: &Sandbox, args: &[&str]) {
    let args = with_results(sb, args);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    each_format(sb, &args);
}

#[test]
fn list_prints_every_format() {
    let sb = Sandbox::new();
    each_format(&sb, &["list"]);
    // The CSV holds every table: a knob row, named by its table.
    let out = output(sb.litebench().args(["list", "--format", "csv"]));
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    assert_eq!(&r.headers().unwrap()[0], "table");
    assert!(r
        .records()
        .map(Result::unwrap)
        .any(|x| &x[0] == "knobs" && x.iter().any(|c| c == "journal_mode")));
}

#[test]
fn env_prints_every_format_and_json_stays_an_alias() {
    let sb = Sandbox::new();
    let dir = sb.scratch().display().to_string();
    each_format(&sb, &["env", "--no-sync", "--dir", &dir]);
    let alias = output(sb.litebench().args(["env", "--no-sync", "--json", "--dir", &dir]));
    assert_in_format(&alias, "json", "env --json");
    let both = output(
        sb.litebench()
            .args(["env", "--no-sync", "--json", "--format", "csv", "--dir", &dir]),
    );
    assert_clap_error(&both, &["--json", "--format"]);
}

#[test]
fn build_sqlite_list_prints_every_format() {
    let sb = Sandbox::new();
    each_format(&sb, &["build-sqlite", "--list"]);
}

#[test]
fn stored_runs_print_in_every_format() {
    let sb = two_runs();
    each_format_on_store(&sb, &["show"]);
    each_format_on_store(&sb, &["show", "1"]);
    each_format_on_store(&sb, &["show", "--list"]);
    each_format_on_store(&sb, &["show", "1", "--side-by-side"]);
    each_format_on_store(&sb, &["compare", "1:0", "2:0", "--force"]);
    each_format_on_store(&sb, &["advise", "--need", "none", "1"]);
    let merged = sb.root().join("merged").display().to_string();
    for (i, f) in FORMATS.iter().enumerate() {
        let out = output(sb.litebench().args([
            "merge",
            &format!("{merged}{i}.db"),
            &sb.results().display().to_string(),
            "--format",
            f,
        ]));
        assert_in_format(&out, f, "merge");
    }
}

#[test]
fn a_sweep_prints_in_every_format() {
    let sb = Sandbox::new();
    let mut args = SMALLEST_CRUD.to_vec();
    args.extend(["--shard", "0/1", "--sweep", "s"]);
    assert_success(&output(&mut sb.run(&args)));
    each_format_on_store(&sb, &["show", "--sweep", "s"]);
}

#[test]
fn a_run_of_several_jobs_prints_in_every_format() {
    for f in FORMATS {
        let sb = Sandbox::new();
        let out = output(&mut sb.run(&[
            "--preset",
            "mobibench",
            "--preset",
            "androbench",
            "--param",
            "count=5",
            "--param",
            "scale_percent=1",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--format",
            f,
        ]));
        assert_in_format(&out, f, "run --preset mobibench --preset androbench");
    }
}

#[test]
fn a_run_prints_in_every_format() {
    for f in FORMATS {
        let sb = Sandbox::new();
        let mut args = SMALLEST_CRUD.to_vec();
        args.extend(["--format", f]);
        assert_in_format(&output(&mut sb.run(&args)), f, "run crud");
    }
}

/// An empty template has no population rate: the footprint table says `-`, not `0.00`.
#[test]
fn an_empty_template_has_no_population_rate() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&[
        "crud",
        "--param",
        "rows=0",
        "--param",
        "inserts=2",
        "--param",
        "updates=2",
        "--param",
        "deletes=2",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
    ]);
    let out = output(&mut cmd);
    assert_success(&out);
    let text = stdout(&out);
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with("population (template databases)"));
    let row = lines
        .find(|l| l.starts_with("sqlite"))
        .unwrap_or_else(|| panic!("no population row\n{text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((cells[2], cells[4]), ("0", "-"), "{row}");
}
