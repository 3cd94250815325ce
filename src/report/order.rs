//! Where a cast's scheduled roles ran against the workload's own events: "role vacuum at 6.1
//! s, after the retention cut (5.0-6.0 s)".
//!
//! A role is scheduled by time, but what it does depends on what the workload did first: a
//! `VACUUM` before aging's retention cut compacts a file the cut then riddles with free pages,
//! one after it gives them back. On a loaded machine the same schedule lands on either side
//! from one trial to the next, and trials that look alike in their settings end in states of
//! different kinds; the order, trial by trial, is why. So each vacuum and backup is placed
//! before, during or after each of the workload's milestones
//! ([`crate::workload::Workload::milestones`]) as well as given its time.

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
    acts.into_iter()
        .map(|(start, end, what)| {
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
                format!("{what} at {}", s(start))
            } else {
                format!("{what} at {}, {}", s(start), against.join(", "))
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
            ["role vacuum's vacuum at 6.1 s, after the retention cut (5.0 s-6.0 s)"]
        );
        assert_eq!(placed(&t, &[]), ["role vacuum's vacuum at 6.1 s"]);
    }
}
