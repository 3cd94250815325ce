//! The results store: a finished run can be shown again, listed, and exported, and `show`
//! refuses missing stores and runs with one line.

use crate::cli::common::*;

const TRIALS: usize = 2;
const WARMUP: usize = 1;
const CONFIGS: usize = 2;

/// One finished tiny run with two configurations and a warm-up round.
fn finished_run() -> Sandbox {
    let sb = Sandbox::new();
    let trials = TRIALS.to_string();
    let warmup = WARMUP.to_string();
    let mut cmd = sb.run(&[
        "crud",
        "--knob",
        "journal_mode=delete,wal",
        "--trials",
        &trials,
        "--warmup",
        &warmup,
        "--quiet",
    ]);
    cmd.args(TINY_PARAMS);
    let out = output(&mut cmd);
    assert_success(&out);
    assert!(!stdout(&out).is_empty(), "the run printed no report");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "scratch not cleaned up");
    assert_eq!(listing(&sb.results_dir()), vec!["r.db".to_string()]);
    sb.assert_cwd_untouched();
    sb
}

#[test]
fn show_json_reads_back_the_run() {
    let sb = finished_run();
    let v = sb.show_json();
    assert_eq!(v["run"]["id"], 1, "{:#}", v["run"]);
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    assert!(v["run"]["error"].is_null());
    assert!(v["run"]["finished_at"].is_string());
    assert_eq!(v["manifest"]["workload"], "crud");
    assert_eq!(v["manifest"]["params"]["rows"], 200);
    assert_eq!(v["manifest"]["configs"].as_array().map(Vec::len), Some(CONFIGS));

    let trials = v["trials"].as_array().expect("trials array");
    assert_eq!(
        trials.len(),
        CONFIGS * (TRIALS + WARMUP),
        "every trial, warm-ups included, is stored"
    );
    for config in 0..CONFIGS {
        let mine: Vec<_> = trials.iter().filter(|t| t["config"] == config).collect();
        assert_eq!(mine.len(), TRIALS + WARMUP, "trials of config {config}");
        let warm = mine.iter().filter(|t| t["warmup"] == true).count();
        assert_eq!(warm, WARMUP, "warm-up trials of config {config}");
    }
    for (i, t) in trials.iter().enumerate() {
        assert_eq!(t["seq"], i, "trials are in execution order");
        assert_eq!(t["total_ops"], 60, "20 inserts + 20 updates + 20 deletes");
    }

    let summary = v["summary"].as_array().expect("summary array");
    assert!(!summary.is_empty(), "empty summary");
    for row in summary {
        assert_eq!(row["trials"], TRIALS, "summaries count measured trials only: {row}");
    }
    for config in 0..CONFIGS {
        assert!(
            summary.iter().any(|r| r["config"] == config && r["operation"] == "all"),
            "no `all` row for config {config}"
        );
    }
}

#[test]
fn show_list_lists_the_run() {
    let sb = finished_run();
    let out = output(&mut sb.show(&["--list"]));
    assert_success(&out);
    let text = stdout(&out);
    let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "run",
            "name",
            "started",
            "workload",
            "configurations",
            "status",
            "trials",
            "warm-ups",
            "uuid"
        ],
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some("1"))
        .unwrap_or_else(|| panic!("run 1 not listed\n{}", describe(&out)));
    // Both configurations by label; the measured trials, and the warm-ups apart.
    assert!(
        row.contains("journal_mode=delete") && row.contains("journal_mode=wal"),
        "{row:?}"
    );
    let cells: Vec<&str> = row.split_whitespace().collect();
    let n = cells.len();
    assert_eq!(cells[1], "-", "an unnamed run: {row:?}");
    assert_eq!(cells[n - 4..n - 1], ["complete", "4", "2"], "{row:?}");
    // Its globally unique id, a UUIDv7.
    assert!(cells[n - 1].len() == 36 && &cells[n - 1][14..15] == "7", "{row:?}");

    let out = output(&mut sb.show(&["--list", "--format", "json"]));
    assert_success(&out);
    let v = json(&out);
    let runs = v.as_array().expect("an array of runs");
    assert_eq!(runs.len(), 1, "{v:#}");
    assert_eq!(runs[0]["id"], 1);
    assert_eq!(runs[0]["workload"], "crud");
    assert_eq!(runs[0]["status"], "complete");
    assert_eq!(runs[0]["trials"], CONFIGS * TRIALS, "measured trials only");
    assert_eq!(runs[0]["warmups"], CONFIGS * WARMUP);
    assert_eq!(runs[0]["configurations"].as_array().map(Vec::len), Some(CONFIGS));

    let out = output(&mut sb.show(&["--list", "--format", "csv"]));
    assert_success(&out);
    let csv = stdout(&out);
    assert!(
        csv.starts_with("id,name,started_at,workload,configurations,status,trials,warmups,uuid\n"),
        "{csv}"
    );
}

/// `show --format csv`, parsed: its header and its records.
fn show_csv(sb: &Sandbox) -> (Vec<String>, Vec<csv::StringRecord>) {
    let out = output(&mut sb.show(&["--format", "csv"]));
    assert_success(&out);
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header = r.headers().expect("a CSV header").iter().map(String::from).collect();
    let rows = r.records().map(|x| x.expect("the CSV parses")).collect();
    (header, rows)
}

#[test]
fn csv_has_the_columns_of_the_json_summary() {
    let sb = finished_run();
    let out = output(&mut sb.show(&["--format", "json"]));
    assert_success(&out);
    #[derive(serde::Deserialize)]
    struct Doc {
        summary: Vec<OrderedKeys>,
    }
    let doc: Doc = serde_json::from_slice(&out.stdout).expect("JSON report");
    let keys = &doc.summary.first().expect("summary rows").0;

    let (header, rows) = show_csv(&sb);
    assert_eq!(header[0], "table", "{header:?}");
    assert_eq!(header[1..=keys.len()], keys[..], "CSV header vs JSON summary keys");
    let summary: Vec<_> = rows.iter().filter(|r| &r[0] == "summary").collect();
    assert_eq!(summary.len(), doc.summary.len(), "one CSV row per summary row");
    assert_eq!(
        rows[..summary.len()],
        summary.iter().map(|r| (*r).clone()).collect::<Vec<_>>()[..],
        "the summary comes first"
    );
}

/// Every fact the table shows is in the CSV, each in its table: the rows' spread (interval,
/// CV), the spread across configurations, the statistics, the warnings, the footprint, the
/// checklist and the run.
#[test]
fn csv_carries_every_fact_the_table_shows() {
    let sb = finished_run();
    let v = sb.show_json();
    let (header, rows) = show_csv(&sb);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    let of = |table: &str| -> Vec<&csv::StringRecord> { rows.iter().filter(|r| &r[0] == table).collect() };

    // Each summary row's spread: its CV and its interval's columns.
    for r in of("summary") {
        assert!(r[col("tps_cv")].parse::<f64>().is_ok(), "{r:?}");
    }
    assert!(header.contains(&"tps_median_ci95_low".to_string()) && header.contains(&"ratio_ci95_high".to_string()));

    let spread = of("spread");
    assert_eq!(spread.len(), 1, "{rows:?}");
    assert_eq!(spread[0][col("fastest")], *v["spread"]["fastest"].as_str().unwrap());
    assert_eq!(spread[0][col("slowest")], *v["spread"]["slowest"].as_str().unwrap());
    let ratio: f64 = spread[0][col("ratio")].parse().unwrap();
    assert!(
        (ratio - v["spread"]["ratio"].as_f64().unwrap()).abs() < 1e-9 * ratio,
        "{ratio}"
    );

    let stats = of("statistics");
    assert_eq!(stats.len(), 1);
    assert_eq!(
        stats[0][col("bootstrap_seed")],
        v["statistics"]["bootstrap_seed"].to_string()
    );

    let warnings: Vec<&str> = of("warning").iter().map(|r| &r[col("warning")]).collect();
    let expected: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(!expected.is_empty(), "two trials a side warn of no intervals");
    assert_eq!(warnings, expected);

    let footprint = of("footprint");
    assert_eq!(footprint.len(), v["footprint"].as_array().unwrap().len());
    assert!(!footprint.is_empty());
    for (r, t) in footprint.iter().zip(v["footprint"].as_array().unwrap()) {
        assert_eq!(r[col("engine")], *t["engine"].as_str().unwrap());
        assert_eq!(r[col("rows")], t["rows"].to_string());
    }

    let checklist: Vec<(&str, &str)> = of("checklist")
        .iter()
        .map(|r| (&r[col("item")], &r[col("value")]))
        .collect();
    let expected: Vec<(&str, &str)> = v["checklist"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["item"].as_str().unwrap(), c["value"].as_str().unwrap()))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(checklist, expected);

    let run = of("run");
    assert_eq!(run.len(), 1);
    assert_eq!(&run[0][col("run")], "1");
    assert_eq!(&run[0][col("workload")], "crud");
    assert_eq!(&run[0][col("status")], "complete");
    assert_eq!(&run[0][col("trials")], &TRIALS.to_string());
}

#[test]
fn show_of_a_run_that_does_not_exist() {
    let sb = finished_run();
    let out = output(&mut sb.show(&["999"]));
    assert_error_line(
        &out,
        &[
            &format!("error: results store {}: no run 999", sb.results().display()),
            "`litebench show --list` lists the stored runs",
        ],
    );
}

#[test]
fn show_of_a_store_that_does_not_exist() {
    let sb = Sandbox::new();
    let missing = sb.results_dir().join("missing.db");
    let mut cmd = sb.litebench();
    cmd.arg("show").arg("--results").arg(&missing);
    let out = output(&mut cmd);
    assert_error_line(
        &out,
        &[
            &format!("error: --results {}: no results store there", missing.display()),
            "give --results PATH",
        ],
    );
    assert!(!missing.exists(), "show created the store it was asked to read");
    assert_eq!(listing(&sb.results_dir()), Vec::<String>::new());
    // From LITEBENCH_RESULTS, the variable is what the line names, not a flag never given.
    let mut cmd = sb.litebench();
    cmd.arg("show").env("LITEBENCH_RESULTS", &missing);
    let out = output(&mut cmd);
    assert_error_line(
        &out,
        &[&format!(
            "error: LITEBENCH_RESULTS={}: no results store there",
            missing.display()
        )],
    );
    sb.assert_cwd_untouched();
}

#[test]
fn side_by_side_puts_operations_down_and_configurations_across() {
    let sb = finished_run();
    let out = output(&mut sb.show(&[
        "--side-by-side",
        "--format",
        "csv",
        "--metric",
        "time",
        "--baseline",
        "1",
    ]));
    assert_success(&out);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("operation,#0 journal_mode=delete median,"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("#1 journal_mode=wal ratio"), "{}", lines[0]);
    let ops: Vec<&str> = lines[1..].iter().map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(ops, vec!["all", "insert", "update", "delete"]);
    // The baseline column is not compared with itself: its ratio, interval and verdict are
    // empty; the other column's ratio is a number.
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    let (base, other) = (col("#1 journal_mode=wal ratio"), col("#0 journal_mode=delete ratio"));
    for l in &lines[1..] {
        let cells: Vec<&str> = l.split(',').collect();
        assert_eq!(cells[base], "", "{l}");
        assert!(cells[other].parse::<f64>().is_ok_and(|r| r > 0.0), "{l}");
    }
    // Ratios are speeds whatever the metric (higher = faster): the times' ratios point the
    // way the throughputs' do (each trial runs the same operations), never the inverse. (With
    // two trials a median is a mean of two, so the two metrics' ratios need not be equal.)
    let ratios = |metric: &str| -> Vec<f64> {
        let out = output(&mut sb.show(&[
            "--side-by-side",
            "--format",
            "csv",
            "--metric",
            metric,
            "--baseline",
            "1",
        ]));
        assert_success(&out);
        stdout(&out)
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(other).unwrap().parse::<f64>().unwrap())
            .collect()
    };
    for (t, p) in ratios("time").into_iter().zip(ratios("tps")) {
        let opposite = (t > 1.2 && p < 1.0 / 1.2) || (t < 1.0 / 1.2 && p > 1.2);
        assert!(!opposite, "time {t} against tps {p}: the ratios point opposite ways");
    }
    // The full report carries the same table in JSON.
    let v = sb.show_json();
    assert_eq!(v["side_by_side"]["columns"].as_array().map(Vec::len), Some(CONFIGS));

    let bad = output(&mut sb.show(&["--side-by-side", "--baseline", "7"]));
    assert_eq!(bad.status.code(), Some(2), "{}", describe(&bad));
    assert!(stderr(&bad).contains("--baseline 7"), "{}", stderr(&bad));
}
