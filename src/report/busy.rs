//! Transactions that gave up busy, by cause, and the advice for each cause: the warnings a
//! reader needs where `busy` is not 0.
//!
//! One piece of advice ("raise busy_timeout") was wrong for the two commonest causes: SQLite
//! refuses a read transaction's upgrade to a writer without calling the busy handler, and a WAL
//! snapshot that is too old to write stays too old however long one waits. So each
//! configuration's give-ups are broken down by cause, and each cause present gets its own
//! advice, once ([`crate::engines::BusyCause`], docs/load.md). A server's causes (serialization
//! failures, deadlocks, lock waits past the server's timeout) are named as SQLite's are: each
//! calls for its own fix, and "another kind" told a reader of a PostgreSQL or MariaDB run
//! nothing. Runs stored before causes were counted say so instead of guessing.

use super::number::num;
use super::summary::SummaryRow;

/// What a give-up of one cause means and what helps.
struct Advice {
    /// The cause as the reader reads it: SQLite's by its counter's name, a server's in words.
    name: &'static str,
    /// Its per-trial mean in a row (`None`: not counted, or for a server's cause none).
    of: fn(&SummaryRow) -> Option<f64>,
    advice: &'static str,
}

/// SQLite's causes (Turso's too), counted in every result since litebench counted causes: a
/// row without them was stored before.
const SQLITE: [Advice; 3] = [
    Advice {
        name: "busy_timeout",
        of: |r| r.failures.busy_timeout,
        advice: "the lock stayed taken for all of the connection's busy_timeout on every try: raise busy_timeout or --max-tries, or use fewer writers",
    },
    Advice {
        name: "busy_upgrade",
        of: |r| r.failures.busy_upgrade,
        advice: "a transaction that had read tried to write while another connection was writing; SQLite refuses that at once without calling the busy handler, so raising busy_timeout cannot help: start writing transactions with BEGIN IMMEDIATE (--knob begin=immediate)",
    },
    Advice {
        name: "busy_snapshot",
        of: |r| r.failures.busy_snapshot,
        advice: "the snapshot was too old to write: another connection committed after the transaction read, and waiting cannot make it current (a longer busy_timeout only lets snapshots age): restart the transaction (retries do: raise --max-tries) or start it with BEGIN IMMEDIATE (--knob begin=immediate)",
    },
];

/// A server's causes (PostgreSQL, MariaDB; DuckDB's conflicts), counted only where they
/// happened: a row without one had none of it.
const SERVER: [Advice; 3] = [
    Advice {
        name: "serialization failures",
        of: |r| r.failures.busy_serialization,
        advice: "another transaction committed a change to what this one read or wrote, and the isolation level forbids going on (PostgreSQL's SQLSTATE 40001 under repeatable read or serializable; DuckDB's transaction conflict): waiting cannot help; the transaction must start again (raise --max-tries), or run at a weaker --knob isolation",
    },
    Advice {
        name: "deadlocks",
        of: |r| r.failures.busy_deadlock,
        advice: "two transactions each waited for a lock the other held, and the server broke the cycle by failing this one (PostgreSQL 40P01, MariaDB 1213): the transaction must start again (raise --max-tries), or have every transaction take its locks in one order",
    },
    Advice {
        name: "lock waits past their timeout",
        of: |r| r.failures.busy_lock_wait,
        advice: "a row lock stayed held longer than the server waits for one (MariaDB 1205, innodb_lock_wait_timeout; PostgreSQL 55P03, lock_timeout): raise that timeout or --max-tries, or use fewer writers",
    },
];

/// Give-ups of none of the six causes, and what they can be.
const OTHER: &str = "another kind";
const OTHER_ADVICE: &str = "SQLITE_LOCKED, a lock an older SQLite build cannot tell apart (sqlite3_txn_state came with 3.34.0), or a server's lock failure in a run stored before litebench counted a server's causes (the transaction must start again: raise --max-tries)";

/// Below this per-trial mean a remainder is rounding, not a give-up.
const EPSILON: f64 = 1e-9;

/// The warnings about give-ups: per configuration with any (`all` rows), its per-trial mean by
/// cause; then, per cause present, what it means and what helps, naming the configurations.
pub fn warnings(rows: &[SummaryRow]) -> Vec<String> {
    let gave_up: Vec<&SummaryRow> = rows
        .iter()
        .filter(|r| r.failures.busy > 0.0 && r.operation == "all")
        .collect();
    let causes: Vec<&Advice> = SQLITE.iter().chain(&SERVER).collect();
    let mut w = Vec::new();
    // Per cause (SQLite's, a server's, then "another kind"): the configurations that had it.
    let mut had: Vec<Vec<usize>> = vec![Vec::new(); causes.len() + 1];
    for r in &gave_up {
        let head = format!(
            "#{} {}: {} transactions per trial gave up busy (lock contention) after every try and are not in its rate",
            r.config,
            r.label,
            num(r.failures.busy)
        );
        let sqlite: Option<Vec<f64>> = SQLITE.iter().map(|c| (c.of)(r)).collect();
        let Some(sqlite) = sqlite else {
            w.push(format!(
                "{head}; their causes were not recorded (the run was stored before litebench counted busy_timeout, busy_upgrade and busy_snapshot apart): raise busy_timeout or --max-tries, start writing transactions with BEGIN IMMEDIATE, or use fewer clients"
            ));
            continue;
        };
        let counts: Vec<f64> = sqlite
            .into_iter()
            .chain(SERVER.iter().map(|c| (c.of)(r).unwrap_or(0.0)))
            .collect();
        let other = r.failures.busy - counts.iter().sum::<f64>();
        let mut parts = Vec::new();
        for (i, (c, n)) in causes.iter().zip(&counts).enumerate() {
            if *n > 0.0 {
                parts.push(format!("{} {}", num(*n), c.name));
                had[i].push(r.config);
            }
        }
        if other > EPSILON {
            parts.push(format!("{} of {OTHER}", num(other)));
            had[causes.len()].push(r.config);
        }
        w.push(format!("{head}: {}", parts.join(", ")));
    }
    let names = causes.iter().map(|c| (c.name, c.advice)).chain([(OTHER, OTHER_ADVICE)]);
    for ((name, advice), configs) in names.zip(had) {
        if !configs.is_empty() {
            let list: Vec<String> = configs.iter().map(|c| format!("#{c}")).collect();
            w.push(format!("{name} ({}): {advice}", list.join(", ")));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::data::tests::{manifest, report, trials};

    /// Sets every measured trial of configuration `config`'s first operation to `busy` give-ups
    /// with these causes (`None`: stored before causes were counted).
    fn gave_up(t: &mut [crate::model::record::TrialRecord], config: usize, busy: u64, causes: Option<[u64; 3]>) {
        for tr in t.iter_mut().filter(|tr| tr.config == config) {
            let o = &mut tr.ops[0];
            o.busy = busy;
            o.failed = busy;
            [o.busy_timeout, o.busy_upgrade, o.busy_snapshot] = match causes {
                Some(c) => c.map(Some),
                None => [None; 3],
            };
        }
    }

    /// Issue 32, item 4: the case the issue met. In WAL, raising busy_timeout 0 -> 5000 gave more
    /// give-ups, not fewer: the causes say why (upgrades and stale snapshots, which no busy
    /// timeout waits out), and the advice for them is BEGIN IMMEDIATE, not a longer timeout.
    #[test]
    fn give_ups_are_broken_down_by_cause_each_with_its_advice() {
        let m = manifest(&[
            &[("busy_timeout", "0")],
            &[("busy_timeout", "5000")],
            &[("busy_timeout", "1")],
        ]);
        let mut t = trials(3, 3, &["write"]);
        gave_up(&mut t, 0, 3, Some([2, 1, 0]));
        gave_up(&mut t, 1, 6, Some([0, 4, 2]));
        gave_up(&mut t, 2, 5, Some([5, 0, 0]));
        let r = report(&m, &t);
        let all1 = r
            .summary
            .iter()
            .find(|s| s.config == 1 && s.operation == "all")
            .unwrap();
        assert_eq!(
            (
                all1.failures.busy,
                all1.failures.busy_timeout,
                all1.failures.busy_upgrade,
                all1.failures.busy_snapshot
            ),
            (6.0, Some(0.0), Some(4.0), Some(2.0))
        );
        let w = warnings(&r.summary);
        assert!(
            w.contains(&"#1 busy_timeout=5000: 6.00 transactions per trial gave up busy (lock contention) after every try and are not in its rate: 4.00 busy_upgrade, 2.00 busy_snapshot".to_string()),
            "{w:#?}"
        );
        let advice = |name: &str| {
            w.iter()
                .find(|l| l.starts_with(&format!("{name} (")))
                .unwrap_or_else(|| panic!("{name} in {w:#?}"))
        };
        assert!(advice("busy_upgrade").starts_with("busy_upgrade (#0, #1): "), "{w:#?}");
        assert!(advice("busy_upgrade").contains("raising busy_timeout cannot help: start writing transactions with BEGIN IMMEDIATE (--knob begin=immediate)"));
        assert!(advice("busy_timeout").starts_with("busy_timeout (#0, #2): "));
        assert!(advice("busy_timeout").contains("raise busy_timeout or --max-tries, or use fewer writers"));
        assert!(advice("busy_snapshot").starts_with("busy_snapshot (#1): "));
        assert!(advice("busy_snapshot").contains("restart the transaction"));
        assert!(!w.iter().any(|l| l.starts_with(OTHER)), "{w:#?}");
        // Give-ups under no cause counted (a server's, stored before they were counted) are
        // another kind.
        gave_up(&mut t, 2, 5, Some([1, 0, 0]));
        let w = warnings(&report(&m, &t).summary);
        assert!(
            w.iter().any(|l| l.ends_with("1.00 busy_timeout, 4.00 of another kind")),
            "{w:#?}"
        );
        assert!(
            w.iter().any(|l| l.starts_with("another kind (#2): SQLITE_LOCKED, ")
                && l.contains("stored before litebench counted a server's causes")),
            "{w:#?}"
        );
    }

    /// A server's give-ups are named by cause as SQLite's are, each with its advice, and none is
    /// left to "another kind": PostgreSQL's serialization failures, deadlocks and lock waits
    /// past their timeout, stored per operation only where they happened.
    #[test]
    fn a_servers_give_ups_are_named_by_cause_with_advice_for_each() {
        let m = manifest(&[&[("isolation", "serializable")], &[("isolation", "read-committed")]]);
        let mut t = trials(2, 2, &["write"]);
        gave_up(&mut t, 0, 6, Some([0, 0, 0]));
        gave_up(&mut t, 1, 3, Some([1, 0, 0]));
        for tr in t.iter_mut() {
            let o = &mut tr.ops[0];
            (o.busy_serialization, o.busy_deadlock, o.busy_lock_wait) = if tr.config == 0 {
                (Some(4), Some(2), None)
            } else {
                (None, Some(1), Some(1))
            };
        }
        let r = report(&m, &t);
        let w = warnings(&r.summary);
        let line = |config: usize| {
            w.iter()
                .find(|l| l.starts_with(&format!("#{config} ")))
                .unwrap_or_else(|| panic!("#{config} in {w:#?}"))
        };
        assert!(
            line(0).ends_with("gave up busy (lock contention) after every try and are not in its rate: 4.00 serialization failures, 2.00 deadlocks"),
            "{w:#?}"
        );
        assert!(
            line(1).ends_with(": 1.00 busy_timeout, 1.00 deadlocks, 1.00 lock waits past their timeout"),
            "{w:#?}"
        );
        let advice = |name: &str| {
            w.iter()
                .find(|l| l.starts_with(&format!("{name} (")))
                .unwrap_or_else(|| panic!("{name} in {w:#?}"))
        };
        assert!(advice("serialization failures").starts_with("serialization failures (#0): "));
        assert!(advice("serialization failures").contains("40001"));
        assert!(advice("deadlocks").starts_with("deadlocks (#0, #1): "));
        assert!(advice("deadlocks").contains("MariaDB 1213"));
        assert!(advice("lock waits past their timeout").starts_with("lock waits past their timeout (#1): "));
        assert!(advice("lock waits past their timeout").contains("innodb_lock_wait_timeout"));
        assert!(!w.iter().any(|l| l.contains(OTHER)), "{w:#?}");
        // The summary's per-trial means: absent where none happened.
        let all = |config: usize| {
            &r.summary
                .iter()
                .find(|s| s.config == config && s.operation == "all")
                .unwrap()
                .failures
        };
        assert_eq!(
            (all(0).busy_serialization, all(0).busy_deadlock, all(0).busy_lock_wait),
            (Some(4.0), Some(2.0), None)
        );
    }

    /// A run stored before causes were counted: its rows read the causes as unknown (null, `-`),
    /// never 0, and the warning says they were not recorded.
    #[test]
    fn a_run_stored_before_causes_were_counted_reads_them_as_unknown() {
        let m = manifest(&[&[("busy_timeout", "0")]]);
        let mut t = trials(1, 3, &["write"]);
        gave_up(&mut t, 0, 2, None);
        let r = report(&m, &t);
        for row in &r.summary {
            assert_eq!(
                (
                    row.failures.busy_timeout,
                    row.failures.busy_upgrade,
                    row.failures.busy_snapshot
                ),
                (None, None, None),
                "{}",
                row.operation
            );
        }
        let w = warnings(&r.summary);
        assert_eq!(w.len(), 1, "{w:#?}");
        assert!(
            w[0].contains("2.00 transactions per trial gave up busy")
                && w[0].contains("their causes were not recorded"),
            "{}",
            w[0]
        );
        let (headers, body) = crate::report::text::summary_table(&r.summary, "tx", r.metric);
        let col = headers
            .iter()
            .position(|h| h == "busy upgrade")
            .expect("a busy upgrade column");
        assert_eq!(body[0][col], "-");
    }
}
