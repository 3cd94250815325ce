//! TPC-C's answer in its own terms: tpmC, the New-Order transactions completed per minute of
//! the measured interval (§5.4.1; the 1% rolled back by the specification's rule count, as they
//! are completed business transactions), per configuration with its 95% interval over trials,
//! ranked, each against the best with a ratio and a verdict; New-Order's p99; on a server, the
//! isolation level its connections read back, since the figure depends on it; and the
//! transactions given up on locks by cause (serialization failures, deadlocks, SQLite's busy).

use super::deck::TXNS;
use crate::model::record::{Manifest, TrialRecord};
use litebench_stats::{median, median_ci, ratio_of_medians, Better, Ratio, MIN_SAMPLES_95, MIN_TRIALS};

/// One configuration's figures over its measured trials.
#[derive(Debug, Default)]
struct Figures {
    index: usize,
    /// tpmC of each trial.
    tpmc: Vec<f64>,
    /// New-Order's p99 at most, nanoseconds.
    p99_ns: u64,
    /// Transactions of every type given up on locks, and of them by cause as named.
    gave_up: u64,
    causes: [(&'static str, u64); 6],
    /// The isolation level the trials' connections read back (the server engines' `isolation`
    /// knob); `None` where the engine has none.
    isolation: Option<String>,
}

/// The figures of configuration `config`.
fn figures(config: usize, trials: &[TrialRecord]) -> Figures {
    let mut f = Figures {
        index: config,
        causes: [
            ("serialization failures", 0),
            ("deadlocks", 0),
            ("lock wait timeouts", 0),
            ("busy_timeout", 0),
            ("busy_upgrade", 0),
            ("busy_snapshot", 0),
        ],
        ..Figures::default()
    };
    for t in trials
        .iter()
        .filter(|t| t.config == config && !t.warmup && t.measured_ns > 0)
    {
        let mut n = 0;
        for o in t.ops.iter().filter(|o| is_new_order(&o.name)) {
            n += o.ops;
            f.p99_ns = f.p99_ns.max(o.latency.p99_ns);
        }
        for o in &t.ops {
            f.gave_up += o.failed;
            let by = [
                o.busy_serialization,
                o.busy_deadlock,
                o.busy_lock_wait,
                o.busy_timeout,
                o.busy_upgrade,
                o.busy_snapshot,
            ];
            for (c, n) in f.causes.iter_mut().zip(by) {
                c.1 += n.unwrap_or(0);
            }
        }
        if f.isolation.is_none() {
            f.isolation = t
                .knobs
                .iter()
                .find(|k| k.name == crate::engines::server::isolation::KNOB)
                .and_then(|k| k.effective.clone());
        }
        f.tpmc.push(n as f64 * 60e9 / t.measured_ns as f64);
    }
    f
}

/// Whether operation `name` is New-Order: the workload's own, or a cast role's `ROLE:NEW_ORDER`
/// (every role's New-Orders count in the system's tpmC).
fn is_new_order(name: &str) -> bool {
    let op = TXNS[super::deck::NEW_ORDER];
    name == op || crate::model::role_op::role_of(name).is_some_and(|r| name[r.len() + 1..] == *op)
}

/// `, isolation serializable, 12 transactions gave up on locks (9 serialization failures, 3
/// deadlocks)`: what a reader needs beside the figure; empty for none.
fn beside(f: &Figures) -> String {
    let mut out = String::new();
    if let Some(level) = &f.isolation {
        out.push_str(&format!(", isolation {level}"));
    }
    if f.gave_up > 0 {
        let causes: Vec<String> = f
            .causes
            .iter()
            .filter(|c| c.1 > 0)
            .map(|(name, n)| match name.strip_suffix('s') {
                Some(one) if *n == 1 => format!("1 {one}"),
                _ => format!("{n} {name}"),
            })
            .collect();
        let causes = if causes.is_empty() {
            String::new()
        } else {
            format!(" ({})", causes.join(", "))
        };
        let s = if f.gave_up == 1 { "" } else { "s" };
        out.push_str(&format!(", {} transaction{s} gave up on locks{causes}", f.gave_up));
    }
    out
}

/// `1,234,567`: a count with its thousands grouped, rounded to a whole one.
pub fn grouped(x: f64) -> String {
    crate::base::thousands::grouped(x.round() as u64)
}

/// The answer's lines, best first; `None` when no trial measured anything.
pub fn answer(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
    let mut figs: Vec<Figures> = m
        .configs
        .iter()
        .map(|c| figures(c.index, trials))
        .filter(|f| !f.tpmc.is_empty())
        .collect();
    if figs.is_empty() {
        return None;
    }
    let med = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        median(&s)
    };
    figs.sort_by(|a, b| med(&b.tpmc).total_cmp(&med(&a.tpmc)));
    let noise = m
        .statistics
        .as_ref()
        .map_or(crate::model::metric::DEFAULT_NOISE, |s| s.noise);
    let name = |i: usize| match own.get(i).filter(|s| !s.is_empty() && m.configs.len() > 1) {
        Some(o) => format!("#{i} ({o})"),
        None => format!("#{i}"),
    };
    let words = |f: &Figures| {
        let mut s = f.tpmc.clone();
        s.sort_by(f64::total_cmp);
        let ci = median_ci(&s, 0.95)
            .map(|c| format!(" [{}..{}]", grouped(c.low), grouped(c.high)))
            .unwrap_or_default();
        format!(
            "tpmC {}{ci} (New-Orders per minute), New-Order p99 {:.1} ms{}",
            grouped(median(&s)),
            f.p99_ns as f64 / 1e6,
            beside(f)
        )
    };
    let best = &figs[0];
    let mut out = vec![format!("{}: {}.", name(best.index), words(best))];
    for other in &figs[1..] {
        let against = match ratio_of_medians(&best.tpmc, &other.tpmc, Better::Higher, noise, m.seed) {
            Some(Ratio {
                ratio,
                ci95: Some(ci),
                verdict: Some(v),
            }) => format!(
                "; {ratio:.2}x #{}'s tpmC [{:.2}..{:.2}]: {}",
                best.index,
                ci.low,
                ci.high,
                v.as_str()
            ),
            Some(r) => format!("; {:.2}x #{}'s tpmC", r.ratio, best.index),
            None => String::new(),
        };
        out.push(format!("{}: {}{against}.", name(other.index), words(other)));
    }
    out.extend(too_few(&figs));
    Some(out)
}

/// Where a configuration has too few trials for an interval (or two for a verdict), the one
/// sentence that says so and how many it takes, instead of a bare figure a reader takes for a
/// settled one (issue 49: `--trials 3` gave four engines' tpmC with neither).
fn too_few(figs: &[Figures]) -> Option<String> {
    let fewest = figs.iter().map(|f| f.tpmc.len()).min()?;
    let need = if figs.len() > 1 {
        MIN_SAMPLES_95.max(MIN_TRIALS)
    } else {
        MIN_SAMPLES_95
    };
    (fewest < need).then(|| {
        let (what, them) = if figs.len() > 1 {
            ("intervals or verdicts", "them")
        } else {
            ("interval", "one")
        };
        let s = if fewest == 1 { "" } else { "s" };
        format!("No {what}: {fewest} trial{s} a configuration; --trials {need} gives {them}.")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The level read back and the give-ups by cause follow the figure; a cause not met is not
    /// named.
    #[test]
    fn the_isolation_level_and_give_ups_by_cause_are_beside_the_figure() {
        let mut f = Figures {
            isolation: Some("serializable".into()),
            gave_up: 12,
            ..Figures::default()
        };
        f.causes = [
            ("serialization failures", 9),
            ("deadlocks", 3),
            ("lock wait timeouts", 0),
            ("busy_timeout", 0),
            ("busy_upgrade", 0),
            ("busy_snapshot", 0),
        ];
        assert_eq!(
            beside(&f),
            ", isolation serializable, 12 transactions gave up on locks (9 serialization failures, 3 deadlocks)"
        );
        assert_eq!(beside(&Figures::default()), "");
        // One of one cause: in the singular (DuckDB's one conflict in a four-engine run).
        f.gave_up = 1;
        f.causes[0].1 = 1;
        f.causes[1].1 = 0;
        assert_eq!(
            beside(&f),
            ", isolation serializable, 1 transaction gave up on locks (1 serialization failure)"
        );
    }

    /// Three trials a configuration: no interval and no verdict, said once with the trials
    /// that give them; at that many, nothing said.
    #[test]
    fn too_few_trials_are_said_with_how_many_it_takes() {
        let with = |n: usize| Figures {
            tpmc: vec![1.0; n],
            ..Figures::default()
        };
        let need = MIN_SAMPLES_95.max(MIN_TRIALS);
        assert_eq!(
            too_few(&[with(3), with(need)]),
            Some(format!(
                "No intervals or verdicts: 3 trials a configuration; --trials {need} gives them."
            ))
        );
        assert_eq!(too_few(&[with(need), with(need)]), None);
        assert_eq!(
            too_few(&[with(1)]),
            Some(format!(
                "No interval: 1 trial a configuration; --trials {MIN_SAMPLES_95} gives one."
            ))
        );
    }

    /// Under a cast, a role's New-Orders are `ROLE:NEW_ORDER`: they count, every role's, where
    /// the answer read tpmC 0 before.
    #[test]
    fn a_casts_roles_new_orders_count_in_tpmc() {
        use crate::model::op::OpResult;
        let op = |name: &str, ops: u64| OpResult {
            name: name.into(),
            ops,
            ..OpResult::default()
        };
        let trial = TrialRecord {
            measured_ns: 60_000_000_000,
            ops: vec![
                op("terminals:NEW_ORDER", 90),
                op("terminals:PAYMENT", 80),
                op("late:NEW_ORDER", 10),
                op("NEW_ORDER_X", 5),
            ],
            ..TrialRecord::default()
        };
        assert_eq!(figures(0, &[trial]).tpmc, vec![100.0]);
        assert!(is_new_order("NEW_ORDER") && !is_new_order("a:PAYMENT"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(grouped(0.4), "0");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(1234.4), "1,234");
        assert_eq!(grouped(1234567.0), "1,234,567");
    }
}
