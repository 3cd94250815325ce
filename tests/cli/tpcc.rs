//! `tpcc` (issue 49) from the command line: one warehouse, two clients on SQLite, the answer in
//! tpmC, every transaction recorded, the consistency conditions checked after the trial; two
//! terminals waiting for SQLite's lock by the workload's default (`busy_timeout=5000`) and
//! `begin=deferred`'s upgrade failures counted by cause; a bad scale refused in one line.

use crate::cli::common::*;

#[test]
fn two_terminals_on_one_warehouse_answer_in_tpmc_with_every_transaction() {
    let sb = Sandbox::new();
    let args = [
        "tpcc",
        "--clients",
        "2",
        "--param",
        "warmup_time=0s",
        "--param",
        "measure_time=1s",
        "--trials",
        "1",
        "--warmup",
        "0",
    ];
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    let said = stdout(&out);
    assert!(
        said.contains("tpmC ") && said.contains("(New-Orders per minute)"),
        "{said}"
    );
    let v = sb.show_json();
    let ops: Vec<(String, u64)> = v["trials"][0]["ops"]
        .as_array()
        .expect("ops")
        .iter()
        .map(|o| (o["name"].as_str().unwrap().to_string(), o["ops"].as_u64().unwrap()))
        .collect();
    let names: Vec<&str> = ops.iter().map(|o| o.0.as_str()).collect();
    assert_eq!(
        names,
        ["NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"]
    );
    assert!(ops[0].1 > 0 && ops[1].1 > 0, "{ops:?}");
    assert_eq!(v["manifest"]["params"]["warehouses"], 1, "{}", v["manifest"]["params"]);
    // The dry run's estimate of the population against the file this run made: SQLite's file,
    // with its indexes and pages' free space, is 1.0 to 1.4 times the rows' data (1.17 here).
    let estimate = row_data_mb(&sb, &["tpcc"]);
    let made = v["footprint"][0]["bytes"].as_f64().expect("footprint bytes") / 1e6;
    assert!(
        (1.0..1.4).contains(&(made / estimate)),
        "file {made} MB, estimate {estimate} MB"
    );
}

/// `run ARGS --dry-run`'s estimate of the population's row data, in MB.
fn row_data_mb(sb: &Sandbox, args: &[&str]) -> f64 {
    let out = output(sb.run(args).arg("--dry-run"));
    assert_success(&out);
    let text = stdout(&out).replace("\n    ", " ");
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = flat
        .find(" MB of row data")
        .unwrap_or_else(|| panic!("no estimate in:\n{text}"));
    flat[..at]
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number before MB in:\n{text}"))
}

/// `run tpcc --dry-run` says what the population holds and how long each trial and the run
/// take, before anything is made; within 80 columns.
#[test]
fn the_dry_run_gives_the_populations_size_and_the_time_limits() {
    let sb = Sandbox::new();
    let out = output(
        sb.run(&["tpcc", "--param", "warehouses=2", "--param", "measure_time=30s"])
            .arg("--dry-run"),
    );
    assert_success(&out);
    let text = stdout(&out);
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "population: 2 warehouses, 1,098,022 rows (499,011 a warehouse and 100,000 items), about 145.4 MB of row data (68.6 MB a warehouse)",
        "each trial: 10 s warm-up (warmup_time, not recorded), then 30 s measured (measure_time)",
        "time: 11 trials x 40 s = 7 min 20 s of trials",
        "#0 engine sqlite, knobs busy_timeout=5000 (workload tpcc default)",
    ] {
        assert!(flat.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(
        text.lines().all(|l| l.chars().count() <= 80),
        "wider than 80 columns:\n{text}"
    );
    assert!(!sb.results().exists(), "a dry run created the results store");
    assert_eq!(row_data_mb(&sb, &["tpcc"]), 76.8);
}

#[test]
fn a_scale_of_no_warehouses_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["tpcc", "--param", "warehouses=0"]));
    assert_error_line(
        &out,
        &["--param warehouses=0: invalid value", "an integer from 1 to 10000"],
    );
    assert!(!sb.results().exists(), "nothing ran, nothing stored");
}

/// `run tpcc` on SQLite with `extra`, one trial of `seconds`, JSON; each trial's give-ups summed
/// over the five transactions: `(busy_timeout, busy_upgrade)`.
fn gave_up(sb: &Sandbox, clients: &str, seconds: &str, extra: &[&str]) -> (serde_json::Value, u64, u64) {
    let measure = format!("measure_time={seconds}");
    let mut args = vec![
        "tpcc",
        "--clients",
        clients,
        "--param",
        "warmup_time=0s",
        "--param",
        &measure,
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    let v = json(&out);
    let sum = |k: &str| -> u64 {
        v["trials"][0]["ops"]
            .as_array()
            .expect("ops")
            .iter()
            .map(|o| o[k].as_u64().unwrap_or(0))
            .sum()
    };
    let (t, u) = (sum("busy_timeout"), sum("busy_upgrade"));
    (v, t, u)
}

/// Two terminals on SQLite wait for the write lock by tpcc's default `busy_timeout=5000`,
/// recorded as the workload's default: before it, SQLite's default 0 gave about a million
/// instant `busy_timeout` failures a second of trial.
#[test]
fn two_terminals_on_sqlite_wait_for_the_lock_by_default() {
    let sb = Sandbox::new();
    let (v, timeouts, _) = gave_up(&sb, "2", "1s", &[]);
    assert_eq!(timeouts, 0, "{}", v["trials"][0]["ops"]);
    let origins = &v["manifest"]["configs"][0]["knob_origins"];
    assert!(
        origins
            .as_array()
            .expect("knob_origins")
            .iter()
            .any(|o| o[0] == "busy_timeout" && o[1] == "workload tpcc default"),
        "{origins}"
    );
    let knobs = &v["manifest"]["configs"][0]["knobs"];
    assert!(
        knobs
            .as_array()
            .expect("knobs")
            .iter()
            .any(|k| k["name"] == "busy_timeout" && k["value"] == "5000"),
        "{knobs}"
    );
}

/// `begin=deferred` in WAL mode: New-Order reads the warehouse's tax before it updates the
/// district, and SQLite refuses that upgrade at once while the other terminal writes, whatever
/// `busy_timeout`; the give-ups are counted as `busy_upgrade`, apart from waits that ran out.
/// (In DELETE mode they are rare: a terminal waiting for the other's commit sleeps in the busy
/// handler, so the two seldom overlap; about 15 in 2 s in WAL here.)
#[test]
fn deferred_transactions_show_upgrade_failures_by_cause() {
    let sb = Sandbox::new();
    let (v, timeouts, upgrades) = gave_up(
        &sb,
        "2",
        "2s",
        &["--knob", "begin=deferred", "--knob", "journal_mode=wal"],
    );
    assert!(upgrades > 0, "{}", v["trials"][0]["ops"]);
    assert_eq!(timeouts, 0, "{}", v["trials"][0]["ops"]);
}
