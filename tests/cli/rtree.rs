//! `litebench run rtree` end to end: the R*Tree and the B-tree baseline as one run's
//! configurations (the knob `spatial_index`), on clustered boxes, every operation run and the
//! ids each found equal in both; and the refusals, one line and exit 2.

use crate::cli::common::*;

#[test]
fn the_rtree_and_the_btree_baseline_find_the_same_boxes() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&[
        "rtree",
        "--knob",
        "spatial_index=rtree,btree",
        "--param",
        "layout=traces",
        "--param",
        "boxes=400",
        "--param",
        "operations=150",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let v = json(&out);
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    let trials = v["trials"].as_array().expect("trials");
    assert_eq!(trials.len(), 2, "one trial per index");
    let answers: Vec<Vec<(String, u64, String)>> = trials
        .iter()
        .map(|t| {
            let ops = t["ops"].as_array().unwrap();
            let names: Vec<&str> = ops.iter().map(|o| o["name"].as_str().unwrap()).collect();
            assert_eq!(
                names,
                [
                    "window-small",
                    "window-medium",
                    "window-large",
                    "nearest",
                    "insert",
                    "move"
                ]
            );
            t["queries"]
                .as_array()
                .expect("queries")
                .iter()
                .map(|q| {
                    let a = &q["answer"];
                    (
                        q["op"].as_str().unwrap().to_string(),
                        a["rows"].as_u64().unwrap(),
                        a["hash"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .collect();
    assert_eq!(
        answers[0].len(),
        4,
        "three windows and nearest keep answers: {:?}",
        answers[0]
    );
    assert!(answers[0].iter().any(|(_, rows, _)| *rows > 0), "{:?}", answers[0]);
    assert_eq!(answers[0], answers[1], "the B-tree finds what the R*Tree finds");
}

#[test]
fn rtree_refusals_are_one_line() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&["ycsb", "--knob", "spatial_index=btree"]));
    assert_error_line(
        &out,
        &["--knob spatial_index: no statement of ycsb reads spatial_index"],
    );
    let out = output(&mut sb.run(&["rtree", "--param", "layout=hexagons"]));
    assert_error_line(&out, &["layout=hexagons"]);
}
