//! The transaction mix over a long run, and determinism: the same seed issues the same
//! transactions, with the same effects.

use crate::tatp::common::*;
use litebench::engines::Connection;
use litebench::workload::tatp::mix::{Mix, DEFAULT_WEIGHTS, TXNS};
use litebench::workload::tatp::rates;
use litebench::workload::tatp::txns::{Outcome, Statements, TxGen, TxInput};

/// Asserts that observed shares match `weights` within 5 binomial standard errors (and 0.5
/// points).
fn assert_shares(counts: &[u64; 7], weights: [u64; 7]) {
    let total: u64 = counts.iter().sum();
    let wsum: u64 = weights.iter().sum();
    for i in 0..7 {
        let p = weights[i] as f64 / wsum as f64;
        let got = counts[i] as f64 / total as f64;
        let tol = (5.0 * (p * (1.0 - p) / total as f64).sqrt()).max(0.005);
        assert!(
            (got - p).abs() <= tol,
            "{}: {:.4} of {total} transactions, expected {p:.4} ± {tol:.4}",
            TXNS[i],
            got
        );
    }
}

#[test]
fn generated_mix_follows_the_weights() {
    for weights in [DEFAULT_WEIGHTS, [1, 0, 0, 0, 0, 0, 3], [5, 5, 5, 5, 5, 5, 5]] {
        let mut g = TxGen::new(11, 0, Mix::new(weights).unwrap(), 1000);
        let mut counts = [0u64; 7];
        for _ in 0..1_000_000 {
            counts[g.next_tx().kind.index()] += 1;
        }
        assert_shares(&counts, weights);
    }
}

#[test]
fn a_long_run_follows_the_mix_and_the_success_rates() {
    // Run the transactions themselves on a populated database: every one of them completes,
    // the types come in the spec's proportions and succeed as often as its rules say.
    let (_dir, path, _) = populated();
    let c = &mut open_fast(&path);
    let stmts = Statements::prepare(c).expect("prepare");
    let mut g = TxGen::new(SEED, 0, Mix::new(DEFAULT_WEIGHTS).unwrap(), SUBSCRIBERS);
    let mut counts = [0u64; 7];
    let mut succeeded = [0u64; 7];
    for _ in 0..200_000 {
        let t = g.next_tx();
        let i = t.kind.index();
        counts[i] += 1;
        match stmts.execute(c, &t).expect("transaction") {
            Outcome::Success => succeeded[i] += 1,
            Outcome::Unsuccessful => {}
            Outcome::Busy(_) => panic!("a single client cannot be busy"),
        }
    }
    assert_shares(&counts, DEFAULT_WEIGHTS);
    let observed: Vec<rates::Observed<'_>> = (0..7)
        .map(|i| rates::Observed {
            name: TXNS[i],
            ops: counts[i],
            succeeded: succeeded[i],
        })
        .collect();
    assert_eq!(rates::check(&observed, SUBSCRIBERS, true), Vec::<String>::new());
    // The rows no transaction inserts or deletes are all still there.
    assert_eq!(int(c, "SELECT count(*) FROM subscriber"), SUBSCRIBERS as i64);
}

/// Runs the first `n` transactions of client `client` of `seed` on `conn`; returns them.
fn issue(conn: &mut dyn Connection, seed: u64, client: u64, n: usize) -> Vec<(TxInput, Outcome)> {
    let stmts = Statements::prepare(conn).expect("prepare");
    let mut g = TxGen::new(seed, client, Mix::new(DEFAULT_WEIGHTS).unwrap(), SUBSCRIBERS);
    (0..n)
        .map(|_| {
            let t = g.next_tx();
            let o = stmts.execute(conn, &t).expect("transaction");
            (t, o)
        })
        .collect()
}

fn content(path: &std::path::Path) -> Vec<Vec<Vec<Option<String>>>> {
    let c = &mut open(path);
    [
        "SELECT s_id, bit_1, vlr_location FROM subscriber ORDER BY s_id",
        "SELECT s_id, sf_type, data_a FROM special_facility ORDER BY s_id, sf_type",
        "SELECT s_id, sf_type, start_time, end_time, numberx FROM call_forwarding ORDER BY s_id, sf_type, start_time",
    ]
    .iter()
    .map(|sql| rows(c, sql))
    .collect()
}

#[test]
fn the_same_seed_issues_the_same_transactions() {
    let (dir, path, _) = populated();
    let copies: Vec<std::path::PathBuf> = (0..3)
        .map(|i| {
            let p = dir.path().join(format!("copy-{i}.db"));
            std::fs::copy(&path, &p).expect("copy the database");
            p
        })
        .collect();
    let a = issue(&mut open_fast(&copies[0]), 77, 0, 20_000);
    let b = issue(&mut open_fast(&copies[1]), 77, 0, 20_000);
    let other = issue(&mut open_fast(&copies[2]), 77, 1, 20_000);
    assert_eq!(a, b, "same seed and client: same transactions and outcomes");
    assert_ne!(a, other, "another client has its own stream");
    assert_eq!(
        content(&copies[0]),
        content(&copies[1]),
        "same transactions, same database"
    );
    assert_ne!(content(&copies[0]), content(&copies[2]));
}
