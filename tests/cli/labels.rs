//! What a report's labels say: the counts a scaled speed-comparison test ran, the unit a
//! workload counts (statements, not transactions, for the suites that time each statement),
//! and whole counts printed as whole numbers.

use crate::common::*;

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
