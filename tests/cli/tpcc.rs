//! `tpcc` (issue 49) from the command line: one warehouse, two clients on SQLite, the answer in
//! tpmC, every transaction recorded, the consistency conditions checked after the trial; a bad
//! scale refused in one line.

use crate::common::*;

#[test]
fn two_terminals_on_one_warehouse_answer_in_tpmc_with_every_transaction() {
    let sb = Sandbox::new();
    let args = [
        "tpcc",
        "--clients",
        "2",
        "--knob",
        "busy_timeout=5000",
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
