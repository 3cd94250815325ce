//! What the workload's roles did while a backup or a vacuum ran beside them: each workload
//! operation's rate and interval p99 in the intervals a run overlapped, against the others.
//!
//! The question users ask of a backup or a `VACUUM` is whom it blocked and for how long ("does
//! effectively block writers", SiaFoundation/s3d#215; "how long VACUUM blocks others",
//! buildbot/buildbot#5443). A run's own duration says how long it took, not what the
//! application felt; the series does. An interval is *during* when any run of the role
//! overlapped it (a 120 ms backup marks its whole 1 s interval: give `--interval 100ms` for
//! short runs), *outside* otherwise; only whole intervals count (the trial's last, partial one
//! has a rate over a sliver). The p99 is the series' own per interval, so the table gives the
//! median over the intervals and the worst one, not a p99 over the merged transactions.

use crate::model::cast::{role_of, CastEvents};
use crate::model::record::TrialRecord;
use crate::model::series::SeriesPoint;
use crate::workload::ReportSection;
use std::collections::BTreeMap;

/// A window a backup or vacuum role ran in, milliseconds after the measured start.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    start_ms: u64,
    end_ms: u64,
}

/// The windows of each backup and vacuum role in one trial, by role (with its kind).
fn windows(cast: &CastEvents) -> BTreeMap<(String, &'static str), Vec<Window>> {
    let mut by: BTreeMap<(String, &'static str), Vec<Window>> = BTreeMap::new();
    let ran = |t_ms: u64, us: u64| Window {
        start_ms: t_ms,
        end_ms: t_ms + us.div_ceil(1000).max(1),
    };
    for v in cast.vacuums.iter().filter(|v| !v.busy) {
        by.entry((v.role.clone(), "vacuum"))
            .or_default()
            .push(ran(v.t_ms, v.duration_us));
    }
    for b in cast.backups.iter().filter(|b| !b.busy) {
        by.entry((b.role.clone(), "backup"))
            .or_default()
            .push(ran(b.t_ms, b.duration_us));
    }
    by
}

/// One operation's whole intervals, during a role's runs or outside them.
#[derive(Default)]
struct Side {
    intervals: u64,
    ops: u64,
    p99_us: Vec<f64>,
}

impl Side {
    fn rate(&self, interval_ms: u64) -> String {
        if self.intervals == 0 {
            return "-".into();
        }
        let tps = self.ops as f64 / (self.intervals as f64 * interval_ms as f64 / 1000.0);
        if tps < 10.0 {
            format!("{tps:.2}")
        } else {
            format!("{tps:.0}")
        }
    }

    /// The median of the intervals' p99s, ms.
    fn p99_median(&mut self) -> String {
        if self.p99_us.is_empty() {
            return "-".into();
        }
        self.p99_us.sort_by(f64::total_cmp);
        ms(self.p99_us[(self.p99_us.len() - 1) / 2])
    }

    /// `median / worst` of the intervals' p99s, ms.
    fn p99(&mut self) -> String {
        if self.p99_us.is_empty() {
            return "-".into();
        }
        self.p99_us.sort_by(f64::total_cmp);
        let median = self.p99_us[(self.p99_us.len() - 1) / 2];
        let worst = self.p99_us[self.p99_us.len() - 1];
        format!("{} / {}", ms(median), ms(worst))
    }
}

fn ms(us: f64) -> String {
    let v = us / 1000.0;
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// (configuration, beside role, its kind, operation) -> (runs, during, outside, interval ms).
type Acc = BTreeMap<(usize, String, &'static str, String), (u64, Side, Side, u64)>;

/// The section, or none for a run whose casts had no backup or vacuum that ran.
pub fn section(trials: &[TrialRecord]) -> Option<ReportSection> {
    let rows: Vec<Vec<String>> = accumulate(trials)
        .into_iter()
        .map(|((config, role, kind, op), (runs, mut during, mut outside, iv))| {
            vec![
                config.to_string(),
                format!("{role} ({kind}, {runs} run{})", if runs == 1 { "" } else { "s" }),
                op,
                format!("{}/{}", during.intervals, outside.intervals),
                during.rate(iv),
                outside.rate(iv),
                during.p99(),
                outside.p99(),
            ]
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(ReportSection {
        lead: false,
        title: "the workload while backups and vacuums ran (measured trials; an interval is during when a run overlapped it; p99: median / worst interval)".into(),
        headers: vec![
            "#",
            "beside",
            "op",
            "intervals during/outside",
            "tx/s during",
            "tx/s outside",
            "p99 ms during",
            "p99 ms outside",
        ],
        rows,
    })
}

/// For the answer: what configuration `config`'s workload operations did while each backup or
/// vacuum role ran, against otherwise (at most three operations per role, the busiest):
/// `While vacuum ran (2 runs): app:insert 170 tx/s, interval p99 20.19 ms (otherwise 201 tx/s,
/// 0.23 ms).`
pub fn sentences(trials: &[TrialRecord], config: usize) -> Vec<String> {
    let mut by_role: BTreeMap<(String, u64), Vec<(u64, String)>> = BTreeMap::new();
    for ((c, role, _, op), (runs, mut during, mut outside, iv)) in accumulate(trials) {
        // An operation too rare to be expected in the runs' intervals says nothing by its
        // absence; one that ran in every interval otherwise and stopped is the finding.
        let rare = outside.ops < outside.intervals;
        if c != config || during.intervals == 0 || (during.ops == 0 && rare) {
            continue;
        }
        let otherwise = format!("otherwise {} tx/s, {} ms", outside.rate(iv), outside.p99_median());
        let said = if during.ops == 0 {
            format!("{op} 0 tx/s, none ended ({otherwise})")
        } else {
            format!(
                "{op} {} tx/s, interval p99 {} ms ({otherwise})",
                during.rate(iv),
                during.p99_median()
            )
        };
        by_role
            .entry((role, runs))
            .or_default()
            .push((during.ops + outside.ops, said));
    }
    by_role
        .into_iter()
        .map(|((role, runs), mut ops)| {
            ops.sort_by_key(|o| std::cmp::Reverse(o.0));
            let said: Vec<String> = ops.into_iter().take(3).map(|o| o.1).collect();
            format!(
                "While {role} ran ({runs} run{}): {}.",
                if runs == 1 { "" } else { "s" },
                said.join("; ")
            )
        })
        .collect()
}

/// Every (configuration, role, kind, operation) with what its operation did during and outside
/// the role's runs, over the measured trials; operations with no transaction left out.
fn accumulate(trials: &[TrialRecord]) -> Acc {
    let mut acc: Acc = BTreeMap::new();
    for t in trials.iter().filter(|t| !t.warmup) {
        let (Some(cast), Some(series)) = (t.cast.as_ref(), t.series.as_ref()) else {
            continue;
        };
        let iv = series.interval_ms.max(1);
        let end = series.points.iter().map(|p| p.t_ms).max().unwrap_or(0);
        // A workload operation's points by interval: an interval in which none of its
        // transactions ended has no point, and counts as an interval with none (a vacuum that
        // blocked everyone must not drop out of its own intervals).
        let mut by_op: BTreeMap<&str, BTreeMap<u64, &SeriesPoint>> = BTreeMap::new();
        for p in series.points.iter().filter(|p| role_of(&p.op).is_some()) {
            by_op.entry(p.op.as_str()).or_default().insert(p.t_ms, p);
        }
        for ((role, kind), ws) in windows(cast) {
            for (op, points) in &by_op {
                let e = acc
                    .entry((t.config, role.clone(), kind, op.to_string()))
                    .or_insert_with(|| (0, Side::default(), Side::default(), iv));
                for start in (0..end).step_by(iv as usize) {
                    let during = ws.iter().any(|w| start < w.end_ms && start + iv > w.start_ms);
                    let side = if during { &mut e.1 } else { &mut e.2 };
                    side.intervals += 1;
                    if let Some(p) = points.get(&start) {
                        side.ops += p.ops;
                        side.p99_us.extend(p.p99_us);
                    }
                }
            }
            runs_seen(&mut acc, t.config, &role, kind, ws.len() as u64);
        }
    }
    acc.retain(|_, (_, during, outside, _)| during.ops + outside.ops > 0);
    acc
}

/// Adds a trial's `runs` of a role to every operation row of that role and configuration.
fn runs_seen(acc: &mut Acc, config: usize, role: &str, kind: &'static str, runs: u64) {
    for ((c, r, k, _), e) in acc.iter_mut() {
        if *c == config && r == role && *k == kind {
            e.0 += runs;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cast::{BeforeAfter, Vacuum};
    use crate::model::series::{Series, SeriesPoint};

    fn point(t_ms: u64, op: &str, ops: u64, p99_us: f64) -> SeriesPoint {
        SeriesPoint {
            t_ms,
            op: op.into(),
            ops,
            succeeded: ops,
            p99_us: Some(p99_us),
            ..Default::default()
        }
    }

    fn vacuum(t_ms: u64, duration_us: u64, busy: bool) -> Vacuum {
        let same = BeforeAfter { before: 0, after: 0 };
        Vacuum {
            role: "vac".into(),
            t_ms,
            duration_us,
            busy,
            page_count: same,
            freelist_count: same,
            file_bytes: BeforeAfter { before: 0, after: 0 },
        }
    }

    /// A trial of 500 ms intervals: `writer:update`'s points (start, transactions, p99 us),
    /// one more `extra` point, and `vacuums`.
    fn trial(updates: &[(u64, u64, f64)], extra: SeriesPoint, vacuums: Vec<Vacuum>) -> TrialRecord {
        let points = updates
            .iter()
            .map(|&(t, ops, p99)| point(t, "writer:update", ops, p99))
            .chain([extra])
            .collect();
        TrialRecord {
            cast: Some(CastEvents {
                vacuums,
                ..Default::default()
            }),
            series: Some(Series {
                interval_ms: 500,
                points,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// A vacuum from 1000 to 1150 ms over 500 ms intervals: the interval at 1000 is during it,
    /// those at 0, 500 and 1500 outside (the one at 500 ends where the vacuum starts), the last
    /// (2000, partial) counts for neither; a busy vacuum, which did not run, marks nothing. In
    /// a second trial the interval at 1000 has no point (nothing ended in it): it still
    /// counts, with no transactions.
    #[test]
    fn intervals_a_run_overlapped_are_during_it_and_the_rest_outside() {
        let trial = trial(
            &[
                (0, 100, 1000.0),
                (500, 100, 2000.0),
                (1000, 20, 90_000.0),
                (1500, 100, 3000.0),
                (2000, 5, 1.0),
            ],
            point(0, "other", 7, 1.0),
            vec![vacuum(1000, 150_000, false), vacuum(0, 10, true)],
        );
        let s = section(&[
            trial.clone(),
            TrialRecord {
                warmup: true,
                ..trial.clone()
            },
        ])
        .unwrap();
        assert_eq!(
            s.rows,
            vec![vec![
                "0".to_string(),
                "vac (vacuum, 1 run)".into(),
                "writer:update".into(),
                "1/3".into(),
                "40".into(),
                "200".into(),
                "90.00 / 90.00".into(),
                "2.00 / 3.00".into(),
            ]]
        );
        let mut blocked = trial.clone();
        if let Some(series) = blocked.series.as_mut() {
            series.points.retain(|p| p.t_ms != 1000);
        }
        let s = section(&[trial, blocked]).unwrap();
        // Two trials: 2 intervals during (one with 20 transactions, one with none), 6 outside.
        assert_eq!(
            s.rows[0][1..6],
            ["vac (vacuum, 2 runs)", "writer:update", "2/6", "20", "200"]
        );
    }

    #[test]
    fn the_answer_says_what_the_workload_did_while_a_run_went_on() {
        let trial = trial(
            &[
                (0, 100, 1000.0),
                (500, 100, 2000.0),
                (1500, 100, 3000.0),
                (2000, 5, 1.0),
            ],
            point(0, "writer:rare", 1, 5.0),
            vec![vacuum(1000, 150_000, false)],
        );
        assert_eq!(
            sentences(&[trial], 0),
            ["While vac ran (1 run): writer:update 0 tx/s, none ended (otherwise 200 tx/s, 2.00 ms)."]
        );
    }

    #[test]
    fn no_section_without_a_backup_or_vacuum_that_ran() {
        let trial = trial(
            &[(0, 1, 1.0), (500, 1, 1.0)],
            point(0, "other", 1, 1.0),
            vec![vacuum(0, 10, true)],
        );
        assert!(section(&[trial]).is_none());
    }
}
