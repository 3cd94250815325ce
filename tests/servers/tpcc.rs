//! `tpcc` on the servers litebench starts, under the `isolation` knob: two terminals on one
//! warehouse, each server at `read-committed` and `serializable`. Each trial connection reads
//! the level back, the answer names it, and PostgreSQL's serialization failures (two Payments
//! updating the one warehouse's row) are counted by cause, none under `read-committed`, and
//! named so in the stored run's warnings.

use crate::servers::common::*;

#[test]
fn the_isolation_level_is_set_read_back_and_named_with_failures_by_cause() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    let v = run(sb.run_std(&[
        "tpcc",
        "--engine",
        "postgres",
        "--engine",
        "mysql",
        "--knob",
        "isolation=read-committed,serializable",
        "--clients",
        "2",
        "--param",
        "warmup_time=0s",
        "--param",
        "measure_time=2s",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
    .assert_success();
    let shown = run(sb.show_std(&[]));
    assert_eq!(shown.status.code(), Some(0), "{}", shown.describe());
    let answer = shown.stdout.clone();
    for engine in ["postgres", "mysql"] {
        for level in ["read-committed", "serializable"] {
            let cfg = config_index(&v, &format!("{engine} isolation={level}"));
            for (req, eff) in readings(&v, cfg, "isolation") {
                assert_eq!((req.as_deref(), eff.as_deref()), (Some(level), Some(level)), "{engine}");
            }
            assert!(
                answer.contains(&format!("({engine} isolation={level}): tpmC "))
                    && answer.contains(&format!("isolation {level}")),
                "{answer}"
            );
        }
    }
    let serialization = |label: &str| -> u64 {
        let cfg = config_index(&v, label);
        v["trials"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["config"] == cfg)
            .flat_map(|t| t["ops"].as_array().unwrap().iter())
            .map(|o| o["busy_serialization"].as_u64().unwrap_or(0))
            .sum()
    };
    assert!(
        serialization("postgres isolation=serializable") > 0,
        "{:#}",
        v["trials"]
    );
    assert_eq!(serialization("postgres isolation=read-committed"), 0);
    // The stored run's warnings name the cause, as SQLite's are named, with its advice.
    let cfg = config_index(&v, "postgres isolation=serializable");
    let shown = format!("{}\n{}", shown.stdout, shown.stderr);
    let flat = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("serialization failures (#") && flat.contains("PostgreSQL's SQLSTATE 40001"),
        "{shown}"
    );
    let head = format!("#{cfg} postgres isolation=serializable: ");
    let at = flat
        .find(&head)
        .unwrap_or_else(|| panic!("no give-ups of #{cfg}\n{shown}"));
    let causes = flat[at..]
        .split_once("are not in its rate: ")
        .map(|(_, c)| c.split_whitespace().take(3).collect::<Vec<_>>())
        .unwrap_or_default();
    let named = causes.len() == 3
        && causes[0].parse::<f64>().is_ok()
        && causes[1] == "serialization"
        && causes[2].trim_end_matches(',') == "failures";
    assert!(named, "{causes:?}\n{shown}");
    assert!(!flat.contains("of another kind"), "{shown}");
}
