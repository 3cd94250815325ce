//! What kept a trial off its schedule: a stall (a stretch in which no transaction completed),
//! a cast role that ran well after the time it was scheduled for, and a trial that ran well
//! past the time it was given.
//!
//! On a loaded machine a 6 s trial can run 10.9 s, 5.9 s of it with nothing completing, and a
//! vacuum scheduled at 4.5 s can run at 10.4 s, after the workload events it was meant to
//! precede. Every figure of such a trial is still computed, and each looks plausible; only the
//! record's times show what happened, so each is said as a warning (terminal and HTML alike),
//! trial by trial, from the trial records: the series' intervals ([`stalls`]), the cast's
//! events against their roles' schedules ([`late_roles`]), and the measured time against the
//! stop rule's ([`overlong`]).

use crate::model::cast::{CastEvents, RoleKind};
use crate::model::record::{Manifest, TrialRecord};
use crate::model::stop_rule::StopOn;
use std::time::Duration;

/// The shortest stretch without a completed transaction that is called a stall, milliseconds
/// (and never under three intervals).
pub const STALL_MS: u64 = 1000;

/// How late a scheduled role may start before it is said, milliseconds.
pub const LATE_MS: u64 = 1000;

/// How much longer than asked a trial may run before it is said: a quarter, and at least
/// [`LATE_MS`].
pub const OVERLONG: f64 = 1.25;

/// Most trials named per warning; the rest are counted.
const NAMED: usize = 3;

/// One stretch of a trial with no completed transaction, milliseconds after the measured start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stall {
    pub from_ms: u64,
    pub to_ms: u64,
}

/// The stretches of `t` without a completed transaction of at least [`STALL_MS`] and three
/// intervals, from its series (each interval with a completion, and the trial's measured end).
/// `expected_gap_ms`: the longest gap its load makes by design (an open loop's 1/rate), which
/// a stall must also exceed tenfold.
pub fn stalls(t: &TrialRecord, expected_gap_ms: u64) -> Vec<Stall> {
    let Some(s) = &t.series else {
        return Vec::new();
    };
    let interval = s.interval_ms.max(1);
    let least = STALL_MS.max(3 * interval).max(expected_gap_ms.saturating_mul(10));
    let mut done: Vec<u64> = s.points.iter().filter(|p| p.ops > 0).map(|p| p.t_ms).collect();
    done.sort_unstable();
    done.dedup();
    let Some(&first) = done.first() else {
        return Vec::new();
    };
    let end = t.measured_ns / 1_000_000;
    let mut out = Vec::new();
    // Between the end of one interval with a completion and the start of the next.
    let mut last_end = first + interval;
    for &at in done.iter().skip(1).chain(std::iter::once(&end.max(first))) {
        if at > last_end && at - last_end >= least {
            out.push(Stall {
                from_ms: last_end,
                to_ms: at,
            });
        }
        last_end = last_end.max(at + interval);
    }
    out
}

/// One role's start that came late: the schedule's time and when it ran, milliseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Late {
    pub role: String,
    pub scheduled_ms: u64,
    pub ran_ms: u64,
}

/// Each event's start of `role` in `e`, in time order.
fn starts_of(e: &CastEvents, role: &str) -> Vec<u64> {
    let mut v: Vec<u64> = e
        .holds
        .iter()
        .filter(|h| h.role == role)
        .map(|h| h.start_ms)
        .chain(e.checkpoints.iter().filter(|c| c.role == role).map(|c| c.t_ms))
        .chain(e.vacuums.iter().filter(|v| v.role == role).map(|v| v.t_ms))
        .chain(e.backups.iter().filter(|b| b.role == role).map(|b| b.t_ms))
        .chain(e.sidecars.iter().filter(|s| s.role == role).map(|s| s.start_ms))
        .collect();
    v.sort_unstable();
    v
}

/// The latest start of each scheduled role of `manifest`'s cast in `t` that came more than
/// [`LATE_MS`] after its schedule's time (the n-th start against the schedule's n-th time).
pub fn late_roles(manifest: &Manifest, t: &TrialRecord) -> Vec<Late> {
    let (Some(cast), Some(e)) = (&manifest.load.cast, &t.cast) else {
        return Vec::new();
    };
    let end = Duration::from_nanos(t.measured_ns);
    let mut out = Vec::new();
    for r in cast.roles.iter().filter(|r| r.kind != RoleKind::Workload) {
        if r.schedule.is_always() && r.kind != RoleKind::Sidecar {
            continue;
        }
        let planned: Vec<u64> = r.schedule.starts(end).map(|d| d.as_millis() as u64).collect();
        let worst = planned
            .iter()
            .zip(starts_of(e, &r.name))
            .filter(|(p, ran)| *ran > **p + LATE_MS)
            .max_by_key(|(p, ran)| *ran - **p);
        if let Some((p, ran)) = worst {
            out.push(Late {
                role: r.name.clone(),
                scheduled_ms: *p,
                ran_ms: ran,
            });
        }
    }
    out
}

/// The time `manifest`'s trials were given, milliseconds; none where they stop on a count.
fn asked_ms(manifest: &Manifest) -> Option<u64> {
    match manifest.stop.as_ref().map(|s| &s.on) {
        Some(StopOn::Duration { ms, .. }) => Some(*ms),
        _ => None,
    }
}

/// Whether `t` ran well past the time it was given ([`OVERLONG`]).
pub fn overlong(asked_ms: u64, t: &TrialRecord) -> bool {
    let ran = t.measured_ns / 1_000_000;
    ran as f64 > asked_ms as f64 * OVERLONG && ran > asked_ms + LATE_MS
}

/// The longest gap between completions an open loop makes by design: 1/rate, milliseconds
/// (the slowest workload role's in a cast); 0 in a closed loop.
fn expected_gap_ms(manifest: &Manifest) -> u64 {
    let rate = match &manifest.load.cast {
        Some(c) => c.workload_roles().filter_map(|r| r.rate).reduce(f64::min),
        None => manifest.load.rate,
    };
    rate.filter(|r| *r > 0.0).map_or(0, |r| (1000.0 / r).ceil() as u64)
}

/// Whether a cast's workload roles all run in windows: their pauses are by design, not stalls.
fn windowed(manifest: &Manifest) -> bool {
    manifest
        .load
        .cast
        .as_ref()
        .is_some_and(|c| c.workload_roles().all(|r| !r.schedule.is_always()))
}

fn s(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// `#0 trial 3` for a measured trial.
fn trial_name(t: &TrialRecord) -> String {
    format!("#{} trial {}", t.config, t.seq)
}

/// The named items and how many more there were: `a; b; c; and 2 more trials`.
fn listed(items: Vec<String>) -> String {
    let more = items.len().saturating_sub(NAMED);
    let mut text = items.into_iter().take(NAMED).collect::<Vec<_>>().join("; ");
    if more > 0 {
        text += &format!("; and {more} more trial{}", if more == 1 { "" } else { "s" });
    }
    text
}

/// The warnings: stalls, late roles and overlong trials of the measured trials, each a line.
pub fn warnings(manifest: &Manifest, trials: &[TrialRecord]) -> Vec<String> {
    let measured: Vec<&TrialRecord> = trials.iter().filter(|t| !t.warmup).collect();
    let mut out = Vec::new();
    let gap = expected_gap_ms(manifest);
    let stalled: Vec<String> = if windowed(manifest) {
        Vec::new()
    } else {
        measured
            .iter()
            .filter_map(|t| {
                let longest = stalls(t, gap).into_iter().max_by_key(|x| x.to_ms - x.from_ms)?;
                Some(format!(
                    "{} completed no transaction for {} (from {} to {} of {})",
                    trial_name(t),
                    s(longest.to_ms - longest.from_ms),
                    s(longest.from_ms),
                    s(longest.to_ms),
                    s(t.measured_ns / 1_000_000)
                ))
            })
            .collect()
    };
    if !stalled.is_empty() {
        out.push(format!(
            "stalled: {}; its rate and latencies include the stall (a loaded machine, or a lock held that long): rerun on a quiet machine, or read that trial apart",
            listed(stalled)
        ));
    }
    let late: Vec<String> = measured
        .iter()
        .flat_map(|t| {
            late_roles(manifest, t).into_iter().map(move |l| {
                format!(
                    "{} role {} scheduled at {} ran at {} ({} late)",
                    trial_name(t),
                    l.role,
                    s(l.scheduled_ms),
                    s(l.ran_ms),
                    s(l.ran_ms - l.scheduled_ms)
                )
            })
        })
        .collect();
    if !late.is_empty() {
        out.push(format!(
            "late schedule: {}; what it was meant to come before or after may have moved (a loaded machine, or a lock it waited on)",
            listed(late)
        ));
    }
    if let Some(asked) = asked_ms(manifest) {
        let long: Vec<String> = measured
            .iter()
            .filter(|t| overlong(asked, t))
            .map(|t| format!("{} ran {}", trial_name(t), s(t.measured_ns / 1_000_000)))
            .collect();
        if !long.is_empty() {
            out.push(format!(
                "overlong: trials were given {} and {}; the clients could not stop on time (a loaded machine, or transactions that ran long)",
                s(asked),
                listed(long)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::series::{Series, SeriesPoint};

    /// A trial of 10.9 s whose transactions completed every 100 ms interval but between 3.0 s
    /// and 8.9 s.
    fn stalled_trial() -> TrialRecord {
        let points = (0..109u64)
            .map(|i| i * 100)
            .filter(|t| !(3000..8900).contains(t))
            .map(|t_ms| SeriesPoint {
                t_ms,
                op: "tx".into(),
                ops: 30,
                ..SeriesPoint::default()
            })
            .collect();
        TrialRecord {
            seq: 3,
            measured_ns: 10_900_000_000,
            series: Some(Series {
                interval_ms: 100,
                points,
                ..Series::default()
            }),
            ..TrialRecord::default()
        }
    }

    #[test]
    fn a_stretch_without_completions_is_a_stall_and_an_open_loops_pace_is_not() {
        let t = stalled_trial();
        assert_eq!(
            stalls(&t, 0),
            vec![Stall {
                from_ms: 3000,
                to_ms: 8900
            }]
        );
        // One transaction every 2 s at 0.5 tx/s is its pace, not a stall.
        let slow = TrialRecord {
            series: Some(Series {
                interval_ms: 100,
                points: (0..5u64)
                    .map(|i| SeriesPoint {
                        t_ms: i * 2000,
                        op: "tx".into(),
                        ops: 1,
                        ..SeriesPoint::default()
                    })
                    .collect(),
                ..Series::default()
            }),
            measured_ns: 10_000_000_000,
            ..TrialRecord::default()
        };
        assert_eq!(stalls(&slow, 0).len(), 5, "closed loop: every 1.9 s is a gap");
        assert!(stalls(&slow, 2000).is_empty(), "at 0.5 tx/s, 2 s apart is the pace");
    }

    #[test]
    fn an_overlong_trial_is_one_well_past_its_time() {
        let t = stalled_trial();
        assert!(overlong(6000, &t));
        assert!(!overlong(10_000, &t), "0.9 s over 10 s is within a quarter");
        assert!(
            !overlong(
                800,
                &TrialRecord {
                    measured_ns: 1_500_000_000,
                    ..TrialRecord::default()
                }
            ),
            "under a second over is not said"
        );
    }

    /// The trial: given 6 s, ran 10.9 s with 5.9 s of nothing, and its vacuum role
    /// scheduled at 4.5 s ran at 10.4 s: three warnings, each naming the trial and the times.
    #[test]
    fn a_stall_a_late_role_and_an_overlong_trial_are_each_said() {
        use crate::model::cast::{BeforeAfter, Cast, CastEvents, Role, Schedule, Vacuum, VacuumMode};
        use crate::model::stop_rule::{ChosenBy, StopRule};
        let mut m = crate::report::html::data::tests::manifest(&[&[]]);
        m.stop = Some(StopRule {
            on: StopOn::Duration {
                param: "duration".into(),
                ms: 6000,
            },
            chosen_by: ChosenBy::Param,
        });
        let role = |name: &str, kind: RoleKind, at: u64| Role {
            schedule: Schedule {
                at: Duration::from_millis(at),
                ..Schedule::default()
            },
            ..crate::report::html::data::tests::role(name, kind)
        };
        m.load.cast = Some(Cast {
            file: "c.toml".into(),
            roles: vec![
                role("app", RoleKind::Workload, 0),
                role("vacuum", RoleKind::Vacuum(VacuumMode::Full), 4500),
            ],
        });
        let mut t = stalled_trial();
        t.cast = Some(CastEvents {
            vacuums: vec![Vacuum {
                role: "vacuum".into(),
                t_ms: 10_434,
                duration_us: 100_000,
                busy: false,
                page_count: BeforeAfter { before: 1, after: 1 },
                freelist_count: BeforeAfter { before: 0, after: 0 },
                file_bytes: BeforeAfter { before: 1, after: 1 },
            }],
            ..CastEvents::default()
        });
        let w = warnings(&m, &[t]);
        assert_eq!(
            w,
            vec![
                "stalled: #0 trial 3 completed no transaction for 5.9 s (from 3.0 s to 8.9 s of 10.9 s); its rate and latencies include the stall (a loaded machine, or a lock held that long): rerun on a quiet machine, or read that trial apart",
                "late schedule: #0 trial 3 role vacuum scheduled at 4.5 s ran at 10.4 s (5.9 s late); what it was meant to come before or after may have moved (a loaded machine, or a lock it waited on)",
                "overlong: trials were given 6.0 s and #0 trial 3 ran 10.9 s; the clients could not stop on time (a loaded machine, or transactions that ran long)",
            ]
        );
        assert!(warnings(&m, &[TrialRecord::default()]).is_empty());
    }
}
