//! What a run says it ran: the counts a scaled speed-comparison test ran, the unit a workload
//! counts (statements, not transactions, for the suites that time each statement), whole
//! counts printed as whole numbers, and which presets a `--param` did not apply to.

use crate::cli::common::*;

#[test]
fn a_scaled_speedtest_names_the_counts_it_ran_in_statements() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&[
        "speedtest",
        "--param",
        "scale_percent=5",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
    ]));
    assert_success(&out);
    let text = stdout(&out);
    for part in [
        "01 50 INSERTs",
        "02 1250 INSERTs in a transaction",
        "06 250 SELECTs with an index",
        "statements/trial",
        "statements/s median",
    ] {
        assert!(text.contains(part), "{part:?} missing\n{text}");
    }
    assert!(
        !text.contains("1000 INSERTs") && !text.contains("tx/s median"),
        "{text}"
    );
    // One whole count per trial reads as one: `50`, not `50.0`.
    let row = text.lines().find(|l| l.contains("01 50 INSERTs")).unwrap();
    assert!(row.contains(" 50 ") && !row.contains("50.0"), "{row}");

    // JSON keeps the stored name (what compare matches) beside the label.
    let v = sb.show_json();
    let rows = v["summary"].as_array().unwrap();
    let first = rows.iter().find(|r| r["operation"] == "01 1000 INSERTs").unwrap();
    assert_eq!(first["operation_label"], "01 50 INSERTs");
}

/// `--param` with presets of several workloads: it overrides the presets' own values where
/// their workload has the parameter, a warning names the presets it does not apply to (each
/// stored run keeps it), and a parameter no workload has stays an error.
#[test]
fn a_param_applies_where_it_can_and_names_the_presets_it_does_not() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&[
        "--preset",
        "mobibench",
        "--preset",
        "rlbench",
        "--param",
        "scale_percent=1",
        "--param",
        "count=5",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let err = stderr(&out);
    assert!(
        err.contains("warning: --param scale_percent=1 does not apply to preset mobibench (workload mobibench)"),
        "{err}"
    );
    assert!(
        err.contains("warning: --param count=5 does not apply to preset rlbench (workload rlbench)"),
        "{err}"
    );
    let v = json(&out);
    let runs = v["runs"].as_array().unwrap();
    let by = |w: &str| runs.iter().find(|r| r["manifest"]["workload"] == w).unwrap().clone();
    assert_eq!(by("mobibench")["manifest"]["params"]["count"], 5);
    assert_eq!(by("rlbench")["manifest"]["params"]["scale_percent"], 1);
    let kept = by("mobibench")["manifest"]["warnings"].to_string();
    assert!(kept.contains("--param scale_percent=1 was not applied"), "{kept}");

    let out = output(&mut sb.run(&["--preset", "mobibench", "--preset", "rlbench", "--param", "nosuch=1"]));
    assert_error_line(&out, &["--param nosuch", "none of this run's workloads"]);
}
