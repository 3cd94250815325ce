//! Where a cast's scheduled roles ran against the workload's own events: "role vacuum at 6.1
//! s, after the retention cut (5.0-6.0 s)".
//!
//! A role is scheduled by time, but what it does depends on what the workload did first: a
//! `VACUUM` before aging's retention cut compacts a file the cut then riddles with free pages,
//! one after it gives them back. On a loaded machine the same schedule lands on either side
//! from one trial to the next, and trials that look alike in their settings end in states of
//! different kinds; the order, trial by trial, is why. So each vacuum and backup is placed
//! before, during or after each of the workload's milestones
//! ([`crate::workload::WorkloadReport::milestones`]) as well as given its time and length, and one
//! still running when the trial last read its files is said so: its effect (a file shrunk by a
//! `VACUUM` once a checkpoint copies it back) is not in that trial's end state.

use crate::model::record::TrialRecord;
use crate::model::series::Milestone;

/// Where an action from `start_ms` to `end_ms` fell against milestone `m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Before,
    During,
    After,
}

impl Position {
    pub fn of(start_ms: u64, end_ms: u64, m: &Milestone) -> Position {
        if end_ms <= m.t_ms {
            Position::Before
        } else if start_ms >= m.until_ms {
            Position::After
        } else {
            Position::During
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Position::Before => "before",
            Position::During => "during",
            Position::After => "after",
        }
    }
}

/// When `t`'s database files were last read, milliseconds after the measured start.
pub fn last_reading_ms(t: &TrialRecord) -> Option<u64> {
    t.series.as_ref()?.files.last().map(|f| f.t_ms)
}

/// Whether an action that ended at `end_ms` ran past `t`'s last reading of its files.
pub fn past_last_reading(t: &TrialRecord, end_ms: u64) -> bool {
    last_reading_ms(t).is_some_and(|l| end_ms > l)
}

fn s(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// Each vacuum and backup that ran in `t` (not refused busy), in time order, with its time and
/// its position against each of `milestones`: `role vacuum at 6.1 s, after the retention cut
/// (5.0-6.0 s)`.
pub fn placed(t: &TrialRecord, milestones: &[Milestone]) -> Vec<String> {
    let Some(e) = &t.cast else {
        return Vec::new();
    };
    let mut acts: Vec<(u64, u64, String)> = e
        .vacuums
        .iter()
        .filter(|v| !v.busy)
        .map(|v| {
            (
                v.t_ms,
                v.t_ms + v.duration_us / 1000,
                format!("role {}'s vacuum", v.role),
            )
        })
        .chain(e.backups.iter().filter(|b| !b.busy).map(|b| {
            (
                b.t_ms,
                b.t_ms + b.duration_us / 1000,
                format!("role {}'s backup", b.role),
            )
        }))
        .collect();
    acts.sort_by_key(|a| a.0);
    let last = last_reading_ms(t);
    acts.into_iter()
        .map(|(start, end, what)| {
            let what = format!("{what} for {}", s(end - start));
            // Ended after the file was last read: its effect is not in the trial's end state.
            let unfinished = match last {
                Some(l) if end > l => format!(", still running at the last reading ({})", s(l)),
                _ => String::new(),
            };
            let against: Vec<String> = milestones
                .iter()
                .map(|m| {
                    format!(
                        "{} {} ({}-{})",
                        Position::of(start, end, m).word(),
                        m.what,
                        s(m.t_ms),
                        s(m.until_ms)
                    )
                })
                .collect();
            if against.is_empty() {
                format!("{what} at {}{unfinished}", s(start))
            } else {
                format!("{what} at {}, {}{unfinished}", s(start), against.join(", "))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cast::{BeforeAfter, CastEvents, Vacuum};

    #[test]
    fn a_vacuum_is_placed_before_during_or_after_the_cut() {
        let cut = Milestone {
            t_ms: 5000,
            until_ms: 6000,
            what: "the retention cut".into(),
        };
        assert_eq!(Position::of(4000, 4900, &cut), Position::Before);
        assert_eq!(Position::of(4800, 5200, &cut), Position::During);
        assert_eq!(Position::of(6100, 6300, &cut), Position::After);
        let t = TrialRecord {
            cast: Some(CastEvents {
                vacuums: vec![Vacuum {
                    role: "vacuum".into(),
                    t_ms: 6100,
                    duration_us: 200_000,
                    busy: false,
                    page_count: BeforeAfter { before: 1, after: 1 },
                    freelist_count: BeforeAfter { before: 0, after: 0 },
                    file_bytes: BeforeAfter { before: 1, after: 1 },
                }],
                ..CastEvents::default()
            }),
            ..TrialRecord::default()
        };
        assert_eq!(
            placed(&t, &[cut]),
            ["role vacuum's vacuum for 0.2 s at 6.1 s, after the retention cut (5.0 s-6.0 s)"]
        );
        assert_eq!(placed(&t, &[]), ["role vacuum's vacuum for 0.2 s at 6.1 s"]);
        // A vacuum still running when the files were last read: its effect is not in the end.
        let mut late = t.clone();
        late.series = Some(crate::model::series::Series {
            files: vec![crate::model::series::SeriesFiles {
                t_ms: 6200,
                ..Default::default()
            }],
            ..Default::default()
        });
        assert_eq!(
            placed(&late, &[]),
            ["role vacuum's vacuum for 0.2 s at 6.1 s, still running at the last reading (6.2 s)"]
        );
    }
}
