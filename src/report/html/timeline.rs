//! A cast's roles on one timeline: what the holds and checkpoints did to the WAL, the workload
//! roles' rates and the main file's syncs, over one trial, on a shared time axis.
//!
//! The table of a cast's roles ([`crate::report::cast`]) says how often a holder held and how
//! many checkpoints were busy, but not *when*: that the writer's rate dipped and the WAL grew
//! while the holder held is a question of time. So for a run with a cast, each configuration's
//! first measured trial (the one the other charts over time draw) gets one figure of stacked
//! panels: the WAL's size with each hold as a shaded band and each checkpoint as a marker
//! (filled when it copied every frame, a dot in a ring when it copied only some, hollow when
//! busy; the frames copied of the frames in the WAL written beside each that did not copy
//! all: a PASSIVE checkpoint beside a reader is never busy, and copies only what the reader's
//! snapshot allows), the completed transactions per second of each
//! workload role, and the main database file's syncs per interval. The caption says in words
//! what the picture shows, computed from the same trial ([`facts`]). A run without a cast has
//! no such figure.

use super::data::{config_name, spans_decades, Line, LOG_LABEL};
use crate::model::cast::{role_of, role_total, CastEvents};
use crate::model::record::{ConfigInfo, TrialRecord};

/// One held snapshot, or a backup or vacuum while it ran, seconds after the measured start.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub role: String,
    /// What the role did: `hold`, `backup` or `vacuum`.
    pub kind: &'static str,
    pub start_s: f64,
    pub end_s: f64,
}

/// How a checkpoint ended: every frame of the WAL copied into the database, only some (a
/// reader's snapshot kept the rest; PASSIVE says so only by its frame counts, never busy), or
/// busy (SQLite's first column: it could not do what its mode asks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointEnd {
    Finished,
    Partial,
    Busy,
}

impl CheckpointEnd {
    /// The end of a checkpoint that returned `busy`, `copied` of `in_wal` frames (-1: not in
    /// WAL mode).
    pub fn of(busy: bool, copied: i64, in_wal: i64) -> CheckpointEnd {
        if busy {
            CheckpointEnd::Busy
        } else if in_wal > 0 && copied < in_wal {
            CheckpointEnd::Partial
        } else {
            CheckpointEnd::Finished
        }
    }

    /// Its word in a tooltip and a marker's class.
    pub fn word(self) -> &'static str {
        match self {
            CheckpointEnd::Finished => "done",
            CheckpointEnd::Partial => "partial",
            CheckpointEnd::Busy => "busy",
        }
    }
}

/// One checkpoint a role ran, with what its tooltip says.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub role: String,
    pub t_s: f64,
    pub end: CheckpointEnd,
    /// Frames copied of frames in the WAL, `7,480/16,292`, drawn beside the marker of a
    /// checkpoint that did not copy them all; none for one that did.
    pub label: Option<String>,
    /// The marker's tooltip: role, time, result, frames and duration.
    pub title: String,
}

/// One configuration's trial on one time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// The WAL's size, MiB, at each reading (empty: no WAL was read).
    pub wal: Vec<(f64, f64)>,
    /// Completed transactions per second of each workload role, per interval.
    pub roles: Vec<Line>,
    /// Whether the roles' panel is on a log axis (rates spanning more than ten times).
    pub roles_log: bool,
    /// The main database file's syncs per interval (empty: I/O not counted).
    pub syncs: Vec<(f64, f64)>,
    pub holds: Vec<Band>,
    /// The backups and vacuums that ran (not those refused busy), each a band of its role.
    pub runs: Vec<Band>,
    pub checkpoints: Vec<Mark>,
    /// The trial's measured length, seconds: the x axis' end.
    pub end_s: f64,
    /// The series' interval, seconds (`--interval`).
    pub interval_s: f64,
}

impl Timeline {
    /// The lines drawn (each stroked as every chart's data lines are).
    pub fn lines(&self) -> usize {
        usize::from(!self.wal.is_empty()) + self.roles.len() + usize::from(!self.syncs.is_empty())
    }

    /// The roles' panel's axis label.
    pub fn roles_label(&self) -> String {
        let l = "transactions per second".to_string();
        if self.roles_log {
            l + LOG_LABEL
        } else {
            l
        }
    }

    /// The names of the roles that held, in order of first hold.
    pub fn hold_roles(&self) -> Vec<&str> {
        let mut roles: Vec<&str> = Vec::new();
        for h in &self.holds {
            if !roles.contains(&h.role.as_str()) {
                roles.push(&h.role);
            }
        }
        roles
    }

    /// Every band's role and what it did, holds' first, in order of first band: the bands'
    /// colours and legend.
    pub fn band_roles(&self) -> Vec<(&str, &'static str)> {
        let mut roles: Vec<(&str, &'static str)> = Vec::new();
        for b in self.holds.iter().chain(&self.runs) {
            if !roles.iter().any(|r| r.0 == b.role) {
                roles.push((&b.role, b.kind));
            }
        }
        roles
    }

    /// Whether time `t_s` falls inside a hold.
    fn held_at(&self, t_s: f64) -> bool {
        self.holds.iter().any(|h| h.start_s <= t_s && t_s <= h.end_s)
    }

    /// The WAL's size at `t_s`, MiB, between the readings around it (for a checkpoint's marker).
    pub fn wal_at(&self, t_s: f64) -> Option<f64> {
        let after = self.wal.iter().position(|p| p.0 >= t_s);
        match after {
            Some(0) => self.wal.first().map(|p| p.1),
            Some(i) => {
                let (a, b) = (self.wal[i - 1], self.wal[i]);
                let span = b.0 - a.0;
                Some(if span > 0.0 {
                    a.1 + (b.1 - a.1) * (t_s - a.0) / span
                } else {
                    b.1
                })
            }
            None => self.wal.last().map(|p| p.1),
        }
    }
}

/// The timeline of `trial`, or none when the trial has no series.
pub fn build(trial: &TrialRecord) -> Option<Timeline> {
    let s = trial.series.as_ref()?;
    let secs = |ms: u64| ms as f64 / 1000.0;
    let end_s = trial.measured_ns as f64 / 1e9;
    let interval_ms = s.interval_ms.max(1);
    let mut times: Vec<u64> = s.points.iter().map(|p| p.t_ms).collect();
    times.sort_unstable();
    times.dedup();
    // Transactions, not their parts (a script's statements) nor a role's `ROLE:all` total.
    let whole = |op: &str| !trial.ops.iter().any(|o| o.name == op && o.part_of.is_some());
    let mut names: Vec<&str> = Vec::new();
    for p in &s.points {
        if let Some(r) = role_of(&p.op).filter(|_| role_total(&p.op).is_none() && whole(&p.op)) {
            if !names.contains(&r) {
                names.push(r);
            }
        }
    }
    let roles: Vec<Line> = names
        .iter()
        .map(|role| Line {
            name: role.to_string(),
            points: super::data::interval_rates(
                &times,
                |t| {
                    s.points
                        .iter()
                        .filter(|p| {
                            p.t_ms == t && role_total(&p.op).is_none() && whole(&p.op) && role_of(&p.op) == Some(role)
                        })
                        .map(|p| p.ops)
                        .sum()
                },
                interval_ms,
                end_s * 1000.0,
            ),
        })
        .collect();
    let roles_log = spans_decades(roles.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let wal = if s.files.iter().any(|f| f.wal_bytes > 0) {
        s.files
            .iter()
            .map(|f| (secs(f.t_ms), f.wal_bytes as f64 / (1024.0 * 1024.0)))
            .collect()
    } else {
        Vec::new()
    };
    let syncs = s.io.iter().map(|i| (secs(i.t_ms), i.main_syncs as f64)).collect();
    let events = trial.cast.clone().unwrap_or_default();
    let CastEvents {
        holds,
        checkpoints,
        vacuums,
        backups,
        ..
    } = events;
    // A backup or vacuum as a band from its start for its duration (at least a millisecond).
    let ran = |role: String, kind: &'static str, t_ms: u64, us: u64| Band {
        role,
        kind,
        start_s: secs(t_ms),
        end_s: secs(t_ms + us.div_ceil(1000).max(1)),
    };
    let mut runs: Vec<Band> = vacuums
        .into_iter()
        .filter(|v| !v.busy)
        .map(|v| ran(v.role, "vacuum", v.t_ms, v.duration_us))
        .chain(
            backups
                .into_iter()
                .filter(|b| !b.busy)
                .map(|b| ran(b.role, "backup", b.t_ms, b.duration_us)),
        )
        .collect();
    runs.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    Some(Timeline {
        wal,
        roles,
        roles_log,
        syncs,
        holds: holds
            .into_iter()
            .map(|h| Band {
                role: h.role,
                kind: "hold",
                start_s: secs(h.start_ms),
                end_s: secs(h.end_ms),
            })
            .collect(),
        runs,
        checkpoints: checkpoints.into_iter().map(mark).collect(),
        end_s,
        interval_s: secs(interval_ms),
    })
}

/// A checkpoint's marker: its end, its label where it copied less than the WAL held, and its
/// tooltip.
fn mark(k: crate::model::cast::Checkpoint) -> Mark {
    let end = CheckpointEnd::of(k.busy, k.checkpointed_frames, k.log_frames);
    let count = |n: i64| crate::base::thousands::grouped(n.max(0) as u64);
    Mark {
        title: format!(
            "{}: checkpoint at {:.2} s, {}, {}/{} frames checkpointed, {:.2} ms",
            k.role,
            k.t_ms as f64 / 1000.0,
            end.word(),
            k.checkpointed_frames,
            k.log_frames,
            k.duration_us as f64 / 1000.0
        ),
        label: (end != CheckpointEnd::Finished && k.log_frames > 0)
            .then(|| format!("{}/{}", count(k.checkpointed_frames), count(k.log_frames))),
        role: k.role,
        t_s: k.t_ms as f64 / 1000.0,
        end,
    }
}

/// What the timeline shows, in sentences computed from it: per holding role, in how many of
/// its holds the WAL grew; how many checkpoints were busy while a hold was open and otherwise;
/// per workload role, its mean rate over the whole intervals during holds against the others; where the main file's
/// syncs fell. Empty when there is nothing to say (no holds, no checkpoints).
pub fn facts(t: &Timeline) -> Vec<String> {
    let mut out = Vec::new();
    for role in t.hold_roles() {
        let holds: Vec<&Band> = t.holds.iter().filter(|h| h.role == role).collect();
        if t.wal.is_empty() {
            continue;
        }
        let grew = holds.iter().filter(|h| wal_grew(t, h)).count();
        out.push(format!("WAL grows during {role}'s holds ({grew} of {})", holds.len()));
    }
    if !t.checkpoints.is_empty() {
        let (open, closed): (Vec<&Mark>, Vec<&Mark>) = t.checkpoints.iter().partition(|k| t.held_at(k.t_s));
        let busy = |ks: &[&Mark]| ks.iter().filter(|k| k.end == CheckpointEnd::Busy).count();
        let partial = |ks: &[&Mark]| ks.iter().filter(|k| k.end == CheckpointEnd::Partial).count();
        // A checkpoint that copied only some frames did not finish, busy or not.
        let of = |ks: &[&Mark]| {
            let p = partial(ks);
            let partial = if p > 0 {
                format!(", {p} copied only part of the WAL")
            } else {
                String::new()
            };
            format!("{} of {}{partial}", busy(ks), ks.len())
        };
        if t.holds.is_empty() {
            out.push(format!("checkpoints busy: {}", of(&closed)));
        } else {
            out.push(format!(
                "checkpoints busy while a hold is open: {}; otherwise: {}",
                of(&open),
                of(&closed)
            ));
        }
    }
    if !t.holds.is_empty() {
        // An interval is during a hold when its middle is.
        let half = t.interval_s / 2.0;
        for l in &t.roles {
            let rates = |held: bool| -> Vec<f64> {
                l.points
                    .iter()
                    // Whole intervals only: the trial's last, partial one has a rate over
                    // a sliver (a few milliseconds of wind-down) that is not the role's.
                    .filter(|p| p.0 + t.interval_s <= t.end_s + 1e-9 && t.held_at(p.0 + half) == held)
                    .map(|p| p.1)
                    .collect()
            };
            let (during, other) = (rates(true), rates(false));
            if during.is_empty() || other.is_empty() {
                continue;
            }
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            out.push(format!(
                "{}: {} tx/s during holds, {} otherwise (mean of the whole intervals)",
                l.name,
                rate(mean(&during)),
                rate(mean(&other))
            ));
        }
    }
    let total: f64 = t.syncs.iter().map(|p| p.1).sum();
    if total > 0.0 && !t.holds.is_empty() {
        let half = t.interval_s / 2.0;
        let held: f64 = t.syncs.iter().filter(|p| t.held_at(p.0 + half)).map(|p| p.1).sum();
        out.push(format!(
            "main-file syncs: {total:.0}, {held:.0} of them in intervals during holds"
        ));
    }
    out
}

/// A rate with as many digits as it needs.
fn rate(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Whether the WAL grew over hold `h`: the largest reading inside it (or, with none inside,
/// the first after it) above the last reading at or before its start.
fn wal_grew(t: &Timeline, h: &Band) -> bool {
    let before = t.wal.iter().rev().find(|p| p.0 <= h.start_s).map(|p| p.1);
    let inside = t
        .wal
        .iter()
        .filter(|p| p.0 > h.start_s && p.0 <= h.end_s)
        .map(|p| p.1)
        .reduce(f64::max)
        .or_else(|| t.wal.iter().find(|p| p.0 > h.end_s).map(|p| p.1));
    matches!((before, inside), (Some(b), Some(i)) if i > b)
}

/// The figure's caption: what the panels are, then the facts, then the WAL verdicts.
pub fn caption(c: &ConfigInfo, t: &Timeline, verdicts: &[String]) -> String {
    let mut o = format!(
        "The roles of {} on one time axis, in its first measured trial: ",
        config_name(c)
    );
    let mut panels = Vec::new();
    if !t.wal.is_empty() {
        panels.push("the WAL's size on disk");
    }
    if !t.roles.is_empty() {
        panels.push("each workload role's completed transactions per second");
    }
    if !t.syncs.is_empty() {
        panels.push("the main database file's syncs per interval");
    }
    o += &panels.join("; ");
    o += if t.runs.is_empty() {
        ". Shaded bands are holds (a role keeping its snapshot open), circles checkpoints (filled: every frame copied; a dot in a ring: only some, frames copied/in the WAL beside it; hollow: busy; hover for the duration)."
    } else {
        ". Shaded bands are holds (a role keeping its snapshot open) and backups or vacuums while they ran, circles checkpoints (filled: every frame copied; a dot in a ring: only some, frames copied/in the WAL beside it; hollow: busy; hover for the duration)."
    };
    let f = facts(t);
    if !f.is_empty() {
        o += " ";
        let f = f.join("; ");
        let mut chars = f.chars();
        o.extend(chars.next().into_iter().flat_map(char::to_uppercase));
        o.extend(chars);
        o += ".";
    }
    if !verdicts.is_empty() {
        o += &format!(" Over every measured trial: {}.", verdicts.join("; "));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cast::{Cast, Checkpoint};
    use crate::model::series::{Series, SeriesFiles, SeriesIo, SeriesPoint};
    use crate::report::html::data::tests::hold;
    use crate::report::html::data::tests::{manifest, report};
    use crate::report::html::data::{over_time, Chart, Figure};
    use crate::report::html::draw::{self, BAND_OPACITY, LINE_OPACITY};

    const MIB: u64 = 1024 * 1024;

    /// An 8 s trial in 1 s intervals: a writer at 100 tx/s that drops to 50 while the holder
    /// holds (2-4 s and 5-6 s), readers at 1000 tx/s throughout, a WAL that grows during each
    /// hold, three checkpoints (the two inside holds busy), main-file syncs at 1 s and 5 s.
    pub(super) fn trial() -> TrialRecord {
        let held = |t: u64| [2, 3, 5].contains(&t);
        let mut points = Vec::new();
        for t in 0..8u64 {
            let point = |op: &str, ops: u64| SeriesPoint {
                t_ms: t * 1000,
                op: op.into(),
                ops,
                ..Default::default()
            };
            let writer = if held(t) { 50 } else { 100 };
            points.push(point("writer:read", writer / 2));
            points.push(point("writer:update", writer / 2));
            // A role's total is not its transactions a second time.
            points.push(point("writer:all", writer));
            points.push(point("readers:read", 1000));
        }
        let wal = [0, 1, 1, 2, 3, 3, 4, 4, 4];
        let ckpt = |t_ms, busy| Checkpoint {
            role: "ckpt".into(),
            t_ms,
            busy,
            log_frames: 10,
            checkpointed_frames: if busy { 4 } else { 10 },
            duration_us: 2000,
        };
        TrialRecord {
            measured_ns: 8_000_000_000,
            series: Some(Series {
                interval_ms: 1000,
                points,
                io: (0..8)
                    .map(|t| SeriesIo {
                        t_ms: t * 1000,
                        main_syncs: match t {
                            1 => 1,
                            5 => 2,
                            _ => 0,
                        },
                        ..Default::default()
                    })
                    .collect(),
                files: wal
                    .iter()
                    .enumerate()
                    .map(|(t, mib)| SeriesFiles {
                        t_ms: t as u64 * 1000,
                        wal_bytes: mib * MIB,
                        db_bytes: MIB,
                        ..Default::default()
                    })
                    .collect(),
            }),
            cast: Some(CastEvents {
                holds: vec![hold("holder", 2000, 4000), hold("holder", 5000, 6000)],
                checkpoints: vec![ckpt(1000, false), ckpt(3000, true), ckpt(5500, true)],
                sidecars: Vec::new(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_facts_under_the_timeline_are_computed_from_the_trial() {
        let t = build(&trial()).unwrap();
        assert_eq!(t.roles.len(), 2, "{:?}", t.roles);
        assert_eq!(t.roles[0].name, "writer");
        assert_eq!(
            t.roles[0].points[2],
            (2.0, 50.0),
            "the writer's read and update, not its total"
        );
        assert_eq!(
            facts(&t),
            [
                "WAL grows during holder's holds (2 of 2)",
                "checkpoints busy while a hold is open: 2 of 2; otherwise: 0 of 1",
                "writer: 50.0 tx/s during holds, 100 otherwise (mean of the whole intervals)",
                "readers: 1000 tx/s during holds, 1000 otherwise (mean of the whole intervals)",
                "main-file syncs: 3, 2 of them in intervals during holds",
            ]
        );
        // The trial's last, partial interval (a millisecond of wind-down) is no rate of a role.
        let mut partial = t.clone();
        partial.end_s = 8.001;
        for l in &mut partial.roles {
            l.points.push((8.0, 1.0));
        }
        assert_eq!(facts(&partial), facts(&t));
        // A WAL flat over a hold did not grow during it.
        let mut flat = t.clone();
        flat.wal = vec![(0.0, 1.0), (8.0, 1.0)];
        assert!(facts(&flat)[0].ends_with("(0 of 2)"), "{:?}", facts(&flat));
    }

    /// The run's figures for `trial` with and without a cast in the manifest.
    fn figures(cast: bool) -> Vec<Figure> {
        let mut m = manifest(&[&[("journal_mode", "wal")]]);
        if cast {
            m.load.cast = Some(Cast {
                file: "cast.toml".into(),
                roles: Vec::new(),
            });
        }
        let t = vec![trial()];
        over_time(&report(&m, &t))
    }

    #[test]
    fn a_cast_run_draws_holds_as_bands_and_checkpoints_as_markers_with_tooltips() {
        let plain = figures(false);
        assert!(plain.iter().any(|f| f.id == "over-time-wal"));
        assert!(
            plain.iter().all(|f| !matches!(f.chart, Chart::Timeline(_))),
            "a run without a cast has no timeline"
        );
        let figs = figures(true);
        let fig = figs.iter().find(|f| f.id == "timeline-0").expect("the timeline");
        assert!(
            figs.iter().all(|f| f.id != "over-time-wal"),
            "the WAL is on the timeline"
        );
        assert!(
            fig.note.contains("WAL grows during holder's holds (2 of 2)"),
            "{}",
            fig.note
        );
        assert_eq!(fig.lines(), 4, "the WAL, two roles, the main file's syncs");
        let svg = draw::svg(fig).unwrap();
        let count = |needle: &str| svg.matches(needle).count();
        let bands = svg
            .split("<rect ")
            .skip(1)
            .filter(|r| r[..r.find('>').unwrap()].contains(&format!("opacity=\"{BAND_OPACITY}\"")))
            .count();
        assert_eq!(bands, 2, "a band per hold");
        assert_eq!(
            count(&format!("polyline fill=\"none\" opacity=\"{LINE_OPACITY}\"")),
            4,
            "{svg}"
        );
        assert_eq!(count("<g class=\"checkpoint busy\">"), 2);
        assert_eq!(count("<g class=\"checkpoint done\">"), 1);
        assert!(
            svg.contains("<title>ckpt: checkpoint at 3.00 s, busy, 4/10 frames checkpointed, 2.00 ms</title>"),
            "{svg}"
        );
        // Each band is labelled with its role; the legend names the hold and both markers.
        assert_eq!(count(">holder</text>") + count(">\nholder\n</text>"), 2, "{svg}");
        for entry in ["holder holds its snapshot", "checkpoint finished", "checkpoint busy"] {
            assert!(svg.contains(entry), "{entry} in the legend");
        }
        // The markers sit on the WAL line: the busy one at 3 s higher than the one at 1 s.
        let cy = |class: &str| -> Vec<i32> {
            svg.split(&format!("<g class=\"checkpoint {class}\"><circle "))
                .skip(1)
                .map(|c| {
                    c.split("cy=\"")
                        .nth(1)
                        .unwrap()
                        .split('"')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap()
                })
                .collect()
        };
        assert!(cy("busy")[0] < cy("done")[0], "{:?} {:?}", cy("busy"), cy("done"));
    }
}

#[cfg(test)]
mod runs_tests {
    use super::*;
    use crate::model::cast::{BeforeAfter, Vacuum};

    /// A vacuum that ran, one refused busy and a backup: two bands after the holds, each
    /// labelled with its role and in the legend as running its kind; the facts about holds are
    /// what they were.
    #[test]
    fn backups_and_vacuums_that_ran_are_bands_of_their_own() {
        let mut trial = tests::trial();
        let vacuum = |t_ms, busy| Vacuum {
            role: "vac".into(),
            t_ms,
            duration_us: 300_000,
            busy,
            page_count: BeforeAfter { before: 1, after: 1 },
            freelist_count: BeforeAfter { before: 0, after: 0 },
            file_bytes: BeforeAfter { before: 0, after: 0 },
        };
        let before = facts(&build(&trial).unwrap());
        if let Some(cast) = trial.cast.as_mut() {
            cast.vacuums = vec![vacuum(6500, false), vacuum(7000, true)];
            cast.backups = vec![crate::model::cast::Backup {
                role: "copy".into(),
                method: crate::model::cast::BackupMethod::VacuumInto,
                t_ms: 1200,
                duration_us: 90_000,
                busy: false,
                source_pages: 10,
                pages: 10,
                bytes: 40960,
                api: None,
            }];
        }
        let t = build(&trial).unwrap();
        let runs: Vec<(&str, &str, f64, f64)> = t
            .runs
            .iter()
            .map(|b| (b.role.as_str(), b.kind, b.start_s, b.end_s))
            .collect();
        assert_eq!(runs, [("copy", "backup", 1.2, 1.29), ("vac", "vacuum", 6.5, 6.8)]);
        assert_eq!(
            t.band_roles(),
            [("holder", "hold"), ("copy", "backup"), ("vac", "vacuum")]
        );
        assert_eq!(facts(&t), before, "the holds' facts do not count the runs");
    }
}

#[cfg(test)]
mod partial_tests {
    use super::*;
    use crate::model::cast::Checkpoint;
    use crate::report::html::data::{Chart, Figure};
    use crate::report::html::draw;

    /// PASSIVE checkpoints during a hold: never busy, yet they copied 7,480 of 16,292 frames.
    /// They are not drawn finished, not counted as finished, and the frames are on the chart
    /// itself (a text beside the marker), not only in the tooltip; one that copied every frame
    /// stays finished and unlabelled.
    #[test]
    fn a_passive_checkpoint_that_copied_part_of_the_wal_is_drawn_partial_with_its_frames() {
        let mut trial = tests::trial();
        let ckpt = |t_ms, copied, in_wal| Checkpoint {
            role: "ckpt".into(),
            t_ms,
            busy: false,
            log_frames: in_wal,
            checkpointed_frames: copied,
            duration_us: 2000,
        };
        if let Some(cast) = trial.cast.as_mut() {
            cast.checkpoints = vec![ckpt(2500, 7480, 16292), ckpt(7000, 900, 900)];
        }
        let t = build(&trial).unwrap();
        let ends: Vec<CheckpointEnd> = t.checkpoints.iter().map(|k| k.end).collect();
        assert_eq!(ends, [CheckpointEnd::Partial, CheckpointEnd::Finished]);
        let f = facts(&t).join("; ");
        assert!(
            f.contains(
                "checkpoints busy while a hold is open: 0 of 1, 1 copied only part of the WAL; otherwise: 0 of 1"
            ),
            "{f}"
        );
        let fig = Figure {
            id: "timeline-0".into(),
            title: "t".into(),
            note: String::new(),
            chart: Chart::Timeline(t),
            compact: false,
        };
        let svg = draw::svg(&fig).unwrap();
        assert_eq!(svg.matches("<g class=\"checkpoint partial\">").count(), 1, "{svg}");
        assert_eq!(svg.matches("<g class=\"checkpoint done\">").count(), 1);
        assert!(svg.contains(">7,480/16,292</text>"), "the frames on the chart: {svg}");
        assert_eq!(
            svg.matches("class=\"checkpoint-frames\"").count(),
            1,
            "the full one is unlabelled"
        );
        assert!(
            svg.contains("checkpoint partial: frames copied/frames in the WAL"),
            "the legend"
        );
        assert!(
            svg.contains("ckpt: checkpoint at 2.50 s, partial, 7480/16292"),
            "the tooltip"
        );
    }
}
