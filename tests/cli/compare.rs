//! `litebench compare`, the statistics every report shares, and `--allow-unverified`.

use crate::cli::common::*;

/// Runs crud (tiny, `trials` trials, no warm-up) with extra arguments; must succeed.
fn tiny_run(sb: &Sandbox, trials: &str, extra: &[&str]) {
    let mut args = vec!["crud"];
    args.extend_from_slice(extra);
    let mut cmd = sb.run(&args);
    cmd.args(TINY_PARAMS)
        .args(["--trials", trials, "--warmup", "0", "--quiet", "--format", "json"]);
    assert_success(&output(&mut cmd));
}

/// The comparison's row for whole trials (`all`).
fn all_row(v: &serde_json::Value) -> serde_json::Value {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "all")
        .expect("an `all` row")
        .clone()
}

fn compare(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    output(&mut sb.stored(&[&["compare"], args].concat()))
}

#[test]
fn a_configuration_against_itself_is_no_difference_and_exits_0() {
    let sb = Sandbox::new();
    tiny_run(&sb, "6", &["--knob", "journal_mode=delete,wal"]);
    let out = compare(&sb, &["1:0", "1:journal_mode=delete", "--format", "json"]);
    assert_success(&out);
    let v = json(&out);
    let all = all_row(&v);
    assert_eq!(all["ratio"], 1.0, "{all:#}");
    // Never a difference against itself; on a noisy machine the interval may be too wide to
    // say there is none, and then (only then) the verdict says so.
    let (low, high) = (
        all["ratio_ci95_low"].as_f64().unwrap(),
        all["ratio_ci95_high"].as_f64().unwrap(),
    );
    let wide = high > 1.5 || low < 1.0 / 1.5;
    let expected = if wide {
        "inconclusive"
    } else {
        "no_significant_difference"
    };
    assert_eq!(all["verdict"], expected, "{all:#}");
    assert_eq!(v["regressions"], 0);
    // Comparing one configuration of a run with another: the knobs are the difference.
    let out = compare(&sb, &["1:0", "1:1"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", describe(&out));
    let text = stdout(&out);
    assert!(text.contains("what differs between A and B"), "{text}");
    assert!(
        text.contains("journal_mode=delete") && text.contains("journal_mode=wal"),
        "{text}"
    );
}

#[test]
fn a_large_slowdown_is_a_regression_and_exits_1() {
    let sb = Sandbox::new();
    // A: in memory, no storage at all; B: on disk with a sync per transaction, orders of
    // magnitude slower on any machine.
    tiny_run(&sb, "6", &["--memory"]);
    tiny_run(&sb, "6", &["--knob", "synchronous=full"]);
    let out = compare(&sb, &["1", "2", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let v = json(&out);
    let all = all_row(&v);
    assert_eq!(all["verdict"], "slower", "{all:#}");
    assert!(all["ratio_ci95_high"].as_f64().unwrap() < 1.0, "{all:#}");
    assert!(v["regressions"].as_u64().unwrap() >= 1);
    let what: Vec<&str> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["what"].as_str().unwrap())
        .collect();
    assert!(
        what.contains(&"in memory") && what.contains(&"knob synchronous"),
        "{what:?}"
    );
    // The other way round B is faster: no regression.
    let back = compare(&sb, &["2", "1", "--format", "csv"]);
    assert_success(&back);
    assert!(
        stdout(&back).lines().next().unwrap().contains("verdict"),
        "{}",
        stdout(&back)
    );
    assert!(stdout(&back).contains(",faster"), "{}", stdout(&back));

    // The regression's verdict written to a full disk: exit 2 (the output is incomplete), not 1.
    let mut full = sb.std_command();
    full.args(["compare", "1", "2", "--results"])
        .arg(sb.results())
        .stdout(std::fs::File::create("/dev/full").expect("/dev/full"))
        .stderr(std::process::Stdio::piped());
    let out = full.output().expect("run litebench");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", describe(&out));
    assert!(
        stderr(&out).starts_with("error: cannot write to standard output: No space left on device"),
        "{}",
        describe(&out)
    );

    // Other parameters are refused unless --force.
    tiny_run(&sb, "2", &["--memory", "--param", "value_size=200"]);
    let refused = compare(&sb, &["1", "3"]);
    let line = assert_error_line(&refused, &["different parameters (value_size)", "--force"]);
    assert!(!line.is_empty());
    let forced = compare(&sb, &["1", "3", "--force"]);
    assert!(matches!(forced.status.code(), Some(0 | 1)), "{}", describe(&forced));
    assert!(stdout(&forced).contains("param value_size"), "{}", stdout(&forced));
}

#[test]
fn bad_references_are_one_line_errors() {
    let sb = Sandbox::new();
    tiny_run(&sb, "2", &[]);
    for (args, parts) in [
        (vec!["1", "99"], vec!["no run 99"]),
        (vec!["1:7", "1:0"], vec!["A 1:7", "configurations 0 to 0"]),
        (
            vec!["1:nolabel", "1:0"],
            vec!["A 1:nolabel", "no configuration with that label"],
        ),
        (vec!["x", "1"], vec!["no run named `x`", "show --list"]),
        (vec![":0", "1:0"], vec!["A `:0`", "run id or name"]),
        (vec!["1", "1:0"], vec!["both sides as runs"]),
    ] {
        let out = compare(&sb, &args);
        assert_error_line(&out, &parts);
    }
}

#[test]
fn median_intervals_stay_within_the_trials_and_ratios_carry_verdicts() {
    let sb = Sandbox::new();
    tiny_run(&sb, "6", &["--knob", "synchronous=full,off"]);
    let v = sb.show_json();
    assert_eq!(v["manifest"]["statistics"]["bootstrap_seed"], 42);
    assert_eq!(v["statistics"]["noise"], 0.02);
    for r in v["summary"].as_array().unwrap() {
        let (lo, hi) = (
            r["tps_median_ci95_low"].as_f64().unwrap(),
            r["tps_median_ci95_high"].as_f64().unwrap(),
        );
        let (min, max) = (r["tps_min"].as_f64().unwrap(), r["tps_max"].as_f64().unwrap());
        let med = r["tps_median"].as_f64().unwrap();
        assert!(min <= lo && lo <= med && med <= hi && hi <= max && lo > 0.0, "{r:#}");
        if r["config"] == 1 {
            assert!(r["verdict"].is_string(), "{r:#}");
            assert!(r["ratio_ci95_low"].as_f64().unwrap() <= r["ratio_ci95_high"].as_f64().unwrap());
        } else {
            assert_eq!(r["ratio"], 1.0);
            assert!(r["verdict"].is_null(), "the baseline has no verdict: {r:#}");
        }
    }
    // --noise changes the threshold that show applies, and the report says so.
    let out = output(&mut sb.show(&["--noise", "50"]));
    assert_success(&out);
    assert!(stdout(&out).contains("beyond 50.0% of 1 (--noise)"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("inconclusive when the interval reaches beyond 1.5x"),
        "{}",
        stdout(&out)
    );
    let bad = output(&mut sb.show(&["--noise", "abc"]));
    assert_eq!(bad.status.code(), Some(2), "{}", describe(&bad));
    assert!(stderr(&bad).contains("--noise abc"), "{}", stderr(&bad));
}

#[test]
fn too_few_trials_print_no_interval_and_no_verdict() {
    let sb = Sandbox::new();
    tiny_run(&sb, "2", &["--knob", "synchronous=full,off"]);
    let v = sb.show_json();
    for r in v["summary"].as_array().unwrap() {
        assert!(r["tps_median_ci95_low"].is_null() && r["verdict"].is_null(), "{r:#}");
    }
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("intervals and verdicts need at least 6")),
        "{warnings:?}"
    );
    let csv = output(&mut sb.show(&["--format", "csv"]));
    assert_success(&csv);
    let mut reader = csv::Reader::from_reader(csv.stdout.as_slice());
    let i = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "tps_median_ci95_low")
        .unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert!(rows.iter().any(|r| &r[0] == "summary"), "{rows:?}");
    for r in rows.iter().filter(|r| &r[0] == "summary") {
        assert_eq!(&r[i], "", "unknown is empty in CSV: {r:?}");
    }
}

#[test]
fn an_unverifiable_pragma_stops_the_run_unless_allowed() {
    let sb = Sandbox::new();
    let mut cmd = sb.run_tiny(&["crud", "--knob", "pragma.no_such_pragma=1"]);
    let out = output(&mut cmd);
    assert_run_error_line(
        &out,
        &["pragma.no_such_pragma=1", "cannot verify", "--allow-unverified"],
    );

    let mut cmd = sb.run_tiny(&["crud", "--knob", "pragma.no_such_pragma=1", "--allow-unverified"]);
    let out = output(&mut cmd);
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("--allow-unverified"), "{text}");
    assert!(text.contains("pragma.no_such_pragma reads back nothing"), "{text}");
}

/// Issue 32, item 7: two runs that differ in where their clients run and in a knob; "what
/// differs" names both (before, it listed the sync latency only: no load shape, and the knobs as
/// one label), in the terminal, in JSON and in the HTML comparison.
#[test]
fn what_differs_names_the_load_shape_and_each_knob() {
    let sb = Sandbox::new();
    tiny_run(&sb, "2", &["--clients", "2", "--knob", "journal_mode=delete"]);
    tiny_run(
        &sb,
        "2",
        &[
            "--clients",
            "2",
            "--client-mode",
            "processes",
            "--knob",
            "journal_mode=wal",
        ],
    );
    let out = compare(&sb, &["1", "2", "--format", "json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", describe(&out));
    let v = json(&out);
    let diff = |what: &str| {
        v["differences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["what"] == what)
            .map(|d| {
                (
                    d["a"].as_str().unwrap().to_string(),
                    d["b"].as_str().unwrap().to_string(),
                )
            })
    };
    assert_eq!(
        diff("load: clients as"),
        Some(("threads".into(), "processes".into())),
        "{v:#}"
    );
    assert_eq!(
        diff("knob journal_mode"),
        Some(("delete".into(), "wal".into())),
        "{v:#}"
    );
    assert_eq!(diff("load: clients"), None, "both ran 2 clients: {v:#}");
    let text = stdout(&compare(&sb, &["1", "2"]));
    let line = |what: &str| text.lines().find(|l| l.contains(what)).map(str::to_string);
    let clients_as = line("load: clients as").unwrap_or_else(|| panic!("{text}"));
    assert!(
        clients_as.contains("threads") && clients_as.contains("processes"),
        "{text}"
    );
    let knob = line("knob journal_mode").unwrap_or_else(|| panic!("{text}"));
    assert!(knob.contains("delete") && knob.contains("wal"), "{text}");
    let html = sb.page(&["1", "2"]);
    assert!(
        html.contains("load: clients as") && html.contains("knob journal_mode"),
        "the HTML comparison names them too"
    );
}

#[test]
fn too_few_trials_for_any_verdict_says_so_rather_than_no_regression() {
    let sb = Sandbox::new();
    tiny_run(&sb, "3", &["--knob", "journal_mode=delete,wal"]);
    let out = compare(&sb, &["1:0", "1:1"]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("no verdict: a row needs 6 trials on each side for an interval, and the fewest here were 3; run both with --trials 10"),
        "{text}"
    );
    assert!(!text.contains("no significant regression"), "{text}");
}

/// Issue 46, items 11 and 12: two casts that differ by a checkpoint role only. "What differs"
/// names the role (before: only the sync latency, or nothing); the comparison asks what an
/// open loop's schedule leaves open, its p99, in the terminal and on the page alike (before: the
/// page compared tx/s, 1.00x on every row), and shows both runs' WAL peaks.
#[test]
fn casts_that_differ_by_a_checkpointer_name_it_and_compare_p99_and_wal_peak() {
    let sb = Sandbox::new();
    let writer = "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 100\nparams = { workload = \"a\" }\nbusy_timeout = 5000\n";
    let ckpt = "\n[[role]]\nname = \"ckpt\"\nkind = \"checkpoint\"\ncheckpoint = \"TRUNCATE\"\nevery = \"300ms\"\n";
    for (i, text) in [writer.to_string(), format!("{writer}{ckpt}")].iter().enumerate() {
        let path = sb.root().join(format!("cast{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let mut cmd = sb.run(&["ycsb", "--cast", path.to_str().unwrap()]);
        cmd.args(["--param", "records=200", "--param", "duration=1s"]).args([
            "--knob",
            "journal_mode=wal",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ]);
        assert_success(&output(&mut cmd));
    }
    let out = compare(&sb, &["1", "2", "--format", "json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", describe(&out));
    let v = json(&out);
    assert_eq!(v["metric"], "p99", "{v:#}");
    let role = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["what"] == "cast role ckpt")
        .unwrap_or_else(|| panic!("the checkpoint role is a difference: {v:#}"));
    assert_eq!(role["a"], "none", "{role:#}");
    assert!(role["b"].as_str().unwrap().contains("TRUNCATE"), "{role:#}");
    let wal = v["wal"].as_array().unwrap_or_else(|| panic!("WAL peaks: {v:#}"));
    assert_eq!(wal.len(), 1, "{v:#}");
    assert!(wal[0]["peak_a_bytes"].as_f64().unwrap() > 0.0, "{v:#}");
    let text = stdout(&compare(&sb, &["1", "2"]));
    assert!(text.contains("p99") && text.contains("WAL peak"), "{text}");
    assert!(text.contains("cast role ckpt"), "{text}");
    let html = sb.page(&["1", "2"]);
    let compared = &html[html.find("class=\"comparison\"").expect("the runs compared")..];
    assert!(compared.contains("p99") && compared.contains("WAL peak"), "{compared}");
}

/// Issue 46, item 11: runs that differ by `--retry-backoff` alone say so.
#[test]
fn what_differs_names_the_retry_backoff() {
    let sb = Sandbox::new();
    tiny_run(&sb, "1", &["--clients", "2", "--max-tries", "3"]);
    tiny_run(
        &sb,
        "1",
        &["--clients", "2", "--max-tries", "3", "--retry-backoff", "fixed:5ms"],
    );
    let text = stdout(&compare(&sb, &["1", "2"]));
    let line = text
        .lines()
        .find(|l| l.contains("load.retry_backoff"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("none") && line.contains("5000000"), "{text}");
}

/// Issue 46, item 13: at 80 columns `compare` of two 8-configuration, 2-script runs leads with
/// its answer and fits its first table (a row per configuration, by number, the labels once
/// above it) in one 40-line screen, and `advise` of both fits its candidates under its pick;
/// before, `compare` printed 641 lines (a 70-character label on every row, the operation
/// wrapped into fragments) and `advise` 158. `--wide` keeps the full table.
#[test]
fn compare_and_advise_at_80_columns_lead_with_the_answer_and_fit_the_first_table() {
    let sb = Sandbox::new();
    crate::cli::compact::eight_by_two(&sb);
    crate::cli::compact::eight_by_two(&sb);
    let narrow = |args: &[&str]| {
        let out = output(sb.stored(args).env("COLUMNS", "80"));
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", describe(&out));
        let text = stdout(&out);
        for l in text.lines() {
            assert!(l.chars().count() <= 80, "wider than 80: {l:?}\n{text}");
        }
        text
    };
    let text = narrow(&["compare", "1", "2"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[2].starts_with("B against A by p99 over whole trials, 8 configurations:"),
        "{text}"
    );
    let last_row = lines.iter().position(|l| l.starts_with("#7 ")).unwrap_or(usize::MAX);
    assert!(last_row < 40, "the first table ends on line {last_row}:\n{text}");
    assert!(
        text.contains("  #7 journal_mode=delete synchronous=normal busy_timeout=100 begin=immediate"),
        "{text}"
    );
    assert_eq!(
        text.matches("busy_timeout=100 begin=immediate").count(),
        2,
        "each label once: {text}"
    );
    let wide = stdout(&output(
        sb.stored(&["compare", "1", "2", "--wide"]).env("COLUMNS", "80"),
    ));
    assert!(
        wide.lines().any(
            |l| l.starts_with("journal_mode=delete synchronous=normal busy_timeout=100 begin=immediate")
                && l.contains("write.sql")
        ),
        "{wide}"
    );
    let text = narrow(&["advise", "1", "2", "--need", "none"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with("Pick `"), "{text}");
    let last = lines.iter().position(|l| l.starts_with("16 ")).unwrap_or(usize::MAX);
    assert!(last < 40, "the candidates end on line {last}:\n{text}");
}
