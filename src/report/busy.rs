//! Transactions that gave up busy, by cause, and the advice for each cause: the warnings a
//! reader needs where `busy` is not 0.
//!
//! One piece of advice ("raise busy_timeout") was wrong for the two commonest causes: SQLite
//! refuses a read transaction's upgrade to a writer without calling the busy handler, and a WAL
//! snapshot that is too old to write stays too old however long one waits. So each
//! configuration's give-ups are broken down by cause, and each cause present gets its own
//! advice, once ([`crate::engines::BusyCause`], docs/load.md). Runs stored before causes were
//! counted say so instead of guessing.

use super::number::num;
use super::summary::SummaryRow;

/// What a give-up of one cause means and what helps.
struct Advice {
    name: &'static str,
    /// Its per-trial mean in a row (`None`: not counted).
    of: fn(&SummaryRow) -> Option<f64>,
    advice: &'static str,
}

const CAUSES: [Advice; 3] = [
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

/// Give-ups of none of the three SQLite causes, and what they can be.
const OTHER: &str = "another kind";
const OTHER_ADVICE: &str = "a server's serialization failure, deadlock or lock wait (the transaction must start again: raise --max-tries), SQLITE_LOCKED, or a lock an older SQLite build cannot tell apart (sqlite3_txn_state came with 3.34.0)";

/// Below this per-trial mean a remainder is rounding, not a give-up.
const EPSILON: f64 = 1e-9;

/// The warnings about give-ups: per configuration with any (`all` rows), its per-trial mean by
/// cause; then, per cause present, what it means and what helps, naming the configurations.
pub fn warnings(rows: &[SummaryRow]) -> Vec<String> {
    let gave_up: Vec<&SummaryRow> = rows
        .iter()
        .filter(|r| r.failures.busy > 0.0 && r.operation == "all")
        .collect();
    let mut w = Vec::new();
    // Per cause (the three, then "another kind"): the configurations that had it.
    let mut had: Vec<Vec<usize>> = vec![Vec::new(); CAUSES.len() + 1];
    for r in &gave_up {
        let head = format!(
            "#{} {}: {} transactions per trial gave up busy (lock contention) after every try and are not in its rate",
            r.config,
            r.label,
            num(r.failures.busy)
        );
        let counts: Option<Vec<f64>> = CAUSES.iter().map(|c| (c.of)(r)).collect();
        let Some(counts) = counts else {
            w.push(format!(
                "{head}; their causes were not recorded (the run was stored before litebench counted busy_timeout, busy_upgrade and busy_snapshot apart): raise busy_timeout or --max-tries, start writing transactions with BEGIN IMMEDIATE, or use fewer clients"
            ));
            continue;
        };
        let other = r.failures.busy - counts.iter().sum::<f64>();
        let mut parts = Vec::new();
        for (i, (c, n)) in CAUSES.iter().zip(&counts).enumerate() {
            if *n > 0.0 {
                parts.push(format!("{} {}", num(*n), c.name));
                had[i].push(r.config);
            }
        }
        if other > EPSILON {
            parts.push(format!("{} of {OTHER}", num(other)));
            had[CAUSES.len()].push(r.config);
        }
        w.push(format!("{head}: {}", parts.join(", ")));
    }
    let names = CAUSES.iter().map(|c| (c.name, c.advice)).chain([(OTHER, OTHER_ADVICE)]);
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
        // A server's deadlock (in busy, under no SQLite cause) is another kind.
        gave_up(&mut t, 2, 5, Some([1, 0, 0]));
        let w = warnings(&report(&m, &t).summary);
        assert!(
            w.iter().any(|l| l.ends_with("1.00 busy_timeout, 4.00 of another kind")),
            "{w:#?}"
        );
        assert!(
            w.iter()
                .any(|l| l.starts_with("another kind (#2): a server's serialization failure")),
            "{w:#?}"
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
