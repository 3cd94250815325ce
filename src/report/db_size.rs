//! How big the database file got: the "how big does it get" answer of a workload that ages a
//! database (`aging`: inserts and retention deletes), per configuration.
//!
//! Read from each measured trial's files-over-time series ([`crate::model::series`]): the main
//! file's size at the trial's start and end, its free pages (the header's count, so in WAL
//! mode as of the last checkpoint) times the page size read back, and the live payload the
//! workload says its retained rows hold. The file's size against the live payload is the bloat
//! production threads report (tuist/tuist#9495: 61 GB for 3M rows); the free pages are what a
//! `VACUUM` would give back, and what `auto_vacuum=full` never lets accumulate.

use crate::model::record::{Manifest, TrialRecord};
use serde::Serialize;

/// One configuration's database file over its measured trials (medians where there are several).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DbSize {
    pub config: usize,
    pub label: String,
    /// The main file's size at the first reading of a trial and at its last, bytes.
    pub start_bytes: u64,
    pub final_bytes: u64,
    /// Free pages at the last reading, and their bytes at the page size read back.
    pub free_pages: u64,
    pub page_size: u64,
    pub free_bytes: u64,
    /// The most free pages any reading of a trial saw.
    pub peak_free_pages: u64,
    /// The rows the workload keeps at the end and their payload bytes each; absent where the
    /// workload does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_rows: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_payload_bytes: Option<u64>,
    /// Each measured trial's end state, where the trials ended in states of different kinds
    /// ([`disagree`]): their median would be a state no trial had. Empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<TrialState>,
}

/// One trial's database file at its end, and where its cast's vacuums and backups ran against
/// the workload's own events ([`super::order::placed`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrialState {
    pub seq: u64,
    pub final_bytes: u64,
    pub free_pages: u64,
    pub free_bytes: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placed: Vec<String>,
    /// The positions alone (`before`, `after`), to tell whether the trials' orders differ.
    #[serde(skip)]
    positions: Vec<&'static str>,
}

/// A free share at least this large is a file full of holes; at most [`COMPACT`], a compact one.
pub const HOLED: f64 = 0.2;
pub const COMPACT: f64 = 0.05;

/// Whether trials ended in states of different kinds: some compact and some full of holes, or
/// one file at least twice another's size.
fn disagree(per: &[TrialFile]) -> bool {
    let share = |t: &TrialFile| (t.free_pages * t.page_size) as f64 / t.final_bytes.max(1) as f64;
    let holed = per.iter().any(|t| share(t) >= HOLED);
    let compact = per.iter().any(|t| share(t) <= COMPACT);
    let (lo, hi) = per
        .iter()
        .map(|t| t.final_bytes)
        .fold((u64::MAX, 0), |(a, b), v| (a.min(v), b.max(v)));
    per.len() >= 2 && ((holed && compact) || hi >= lo.saturating_mul(2))
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    match v.len() {
        0 => 0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

/// Rows a trial inserted: its operations named `insert`, or `ROLE:insert` in a cast.
fn inserted(t: &TrialRecord) -> u64 {
    t.ops
        .iter()
        .filter(|o| o.name == "insert" || o.name.ends_with(":insert"))
        .map(|o| o.succeeded.unwrap_or(o.ops))
        .sum()
}

/// Each configuration's [`DbSize`], for a workload whose descriptor asks for it
/// ([`crate::workload::WorkloadKind::reports_db_size`]); empty otherwise, and for
/// configurations whose trials read no SQLite header (servers, DuckDB).
pub fn db_sizes(manifest: &Manifest, workload: super::RunWorkload, trials: &[TrialRecord]) -> Vec<DbSize> {
    if !workload.reports_db_size() {
        return Vec::new();
    }
    let workload = workload.hooks();
    let mut out = Vec::new();
    for cfg in &manifest.configs {
        let per: Vec<TrialFile> = trials
            .iter()
            .filter(|t| t.config == cfg.index && !t.warmup)
            .filter_map(|t| {
                let marks = t
                    .series
                    .as_ref()
                    .map_or(Vec::new(), |s| workload.milestones(&manifest.params, s));
                trial_file(t).map(|f| TrialFile {
                    placed: super::order::placed(t, &marks),
                    positions: positions(t, &marks),
                    ..f
                })
            })
            .collect();
        if per.is_empty() {
            continue;
        }
        let col = |f: fn(&TrialFile) -> u64| median(per.iter().map(f).collect());
        let (free_pages, page) = (col(|t| t.free_pages), col(|t| t.page_size));
        let live = workload.live_rows(&manifest.params, col(|t| t.inserted));
        out.push(DbSize {
            config: cfg.index,
            label: cfg.label.clone(),
            start_bytes: col(|t| t.start_bytes),
            final_bytes: col(|t| t.final_bytes),
            free_pages,
            page_size: page,
            free_bytes: free_pages * page,
            peak_free_pages: col(|t| t.peak_free_pages),
            live_rows: live.map(|l| l.0),
            live_payload_bytes: live.map(|l| l.0 * l.1),
            trials: if disagree(&per) {
                per.iter()
                    .map(|t| TrialState {
                        seq: t.seq,
                        final_bytes: t.final_bytes,
                        free_pages: t.free_pages,
                        free_bytes: t.free_pages * t.page_size,
                        placed: t.placed.clone(),
                        positions: t.positions.clone(),
                    })
                    .collect()
            } else {
                Vec::new()
            },
        });
    }
    out
}

/// The positions of `t`'s vacuums and backups against `marks`, in time order.
fn positions(t: &TrialRecord, marks: &[crate::model::series::Milestone]) -> Vec<&'static str> {
    let Some(e) = &t.cast else {
        return Vec::new();
    };
    let mut acts: Vec<(u64, u64)> = e
        .vacuums
        .iter()
        .filter(|v| !v.busy)
        .map(|v| (v.t_ms, v.t_ms + v.duration_us / 1000))
        .chain(
            e.backups
                .iter()
                .filter(|b| !b.busy)
                .map(|b| (b.t_ms, b.t_ms + b.duration_us / 1000)),
        )
        .collect();
    acts.sort_unstable();
    acts.iter()
        .flat_map(|&(a, b)| {
            let unfinished = super::order::past_last_reading(t, b).then_some("unfinished");
            marks
                .iter()
                .map(move |m| super::order::Position::of(a, b, m).word())
                .chain(unfinished)
        })
        .collect()
}

/// One measured trial's file: its first and last readings, and what it inserted.
struct TrialFile {
    seq: u64,
    placed: Vec<String>,
    positions: Vec<&'static str>,
    start_bytes: u64,
    final_bytes: u64,
    free_pages: u64,
    page_size: u64,
    peak_free_pages: u64,
    inserted: u64,
}

/// [`TrialFile`] of `t`; none where its series read no SQLite header or no page size was read
/// back.
fn trial_file(t: &TrialRecord) -> Option<TrialFile> {
    let files = &t.series.as_ref()?.files;
    let (first, last) = (files.first()?, files.last()?);
    let free_pages = last.free_pages?;
    Some(TrialFile {
        seq: t.seq,
        placed: Vec::new(),
        positions: Vec::new(),
        start_bytes: first.db_bytes,
        final_bytes: last.db_bytes,
        free_pages,
        page_size: page_size(t)?,
        peak_free_pages: files.iter().filter_map(|f| f.free_pages).max().unwrap_or(free_pages),
        inserted: inserted(t),
    })
}

/// The page size a trial read back (`page_size`'s effective value).
fn page_size(t: &TrialRecord) -> Option<u64> {
    t.knobs
        .iter()
        .find(|k| k.name == "page_size")
        .and_then(|k| k.effective.as_deref())
        .and_then(|v| v.parse().ok())
}

/// `#0 database file: 428 KiB at the end (428 KiB at the start), 2 free pages of 4096 B = 8 KiB
/// (1.9%, at most 9 during the trial); live payload about 1000 rows x 300 B = 293 KiB`; where
/// the trials ended in states of different kinds, each trial's state instead of a median, and
/// why they differ as far as the record shows.
pub fn line(d: &DbSize) -> String {
    let size = super::wal::size;
    let share = |free: u64, of: u64| if of > 0 { 100.0 * free as f64 / of as f64 } else { 0.0 };
    let live = match (d.live_rows, d.live_payload_bytes) {
        (Some(rows), Some(bytes)) => format!(
            "; live payload about {rows} rows x {} B = {}",
            bytes.checked_div(rows).unwrap_or(0),
            size(bytes as f64)
        ),
        _ => String::new(),
    };
    if !d.trials.is_empty() {
        let each: Vec<String> = d
            .trials
            .iter()
            .map(|t| {
                let placed = if t.placed.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", t.placed.join("; "))
                };
                format!(
                    "trial {} {}, {} free pages ({:.1}%){placed}",
                    t.seq,
                    size(t.final_bytes as f64),
                    t.free_pages,
                    share(t.free_bytes, t.final_bytes)
                )
            })
            .collect();
        let orders: std::collections::BTreeSet<&Vec<&str>> = d.trials.iter().map(|t| &t.positions).collect();
        let unfinished = d.trials.iter().any(|t| t.positions.contains(&"unfinished"));
        let why = if unfinished {
            "they differ in what had finished: a scheduled role was still running when a trial last read its file"
        } else if orders.len() > 1 {
            "they differ in what came first: the scheduled roles ran at different points of the workload's events"
        } else {
            "the record shows no difference in what ran or when between them"
        };
        return format!(
            "#{} database file: the trials ended in states of different kinds, so no median is given: {}; {why}{live}",
            d.config,
            each.join("; ")
        );
    }
    format!(
        "#{} database file: {} at the end ({} at the start), {} free pages of {} B = {} ({:.1}%, at most {} during the trial){live}",
        d.config,
        size(d.final_bytes as f64),
        size(d.start_bytes as f64),
        d.free_pages,
        d.page_size,
        size(d.free_bytes as f64),
        share(d.free_bytes, d.final_bytes),
        d.peak_free_pages,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::knob::KnobReading;
    use crate::model::op::OpResult;
    use crate::model::series::{Series, SeriesFiles};

    fn trial(files: &[(u64, Option<u64>)], page_size: Option<&str>) -> TrialRecord {
        TrialRecord {
            series: Some(Series {
                files: files
                    .iter()
                    .enumerate()
                    .map(|(i, &(db_bytes, free_pages))| SeriesFiles {
                        t_ms: i as u64 * 1000,
                        db_bytes,
                        free_pages,
                        ..SeriesFiles::default()
                    })
                    .collect(),
                ..Series::default()
            }),
            knobs: page_size
                .map(|v| KnobReading {
                    name: "page_size".into(),
                    requested: None,
                    effective: Some(v.into()),
                    note: None,
                })
                .into_iter()
                .collect(),
            ops: vec![
                OpResult {
                    name: "app:insert".into(),
                    ops: 70,
                    ..OpResult::default()
                },
                OpResult {
                    name: "app:expire".into(),
                    ops: 5,
                    ..OpResult::default()
                },
            ],
            ..TrialRecord::default()
        }
    }

    /// The first and last readings, the peak of the free pages, their bytes at the page size
    /// read back, and a cast role's inserts counted as the workload's.
    #[test]
    fn a_trial_file_is_its_first_and_last_reading_at_the_page_size_read_back() {
        let t = trial(&[(8192, Some(0)), (16384, Some(5)), (12288, Some(3))], Some("1024"));
        let f = trial_file(&t).expect("a reading");
        assert_eq!(
            (
                f.start_bytes,
                f.final_bytes,
                f.free_pages,
                f.peak_free_pages,
                f.page_size,
                f.inserted
            ),
            (8192, 12288, 3, 5, 1024, 70)
        );
        assert!(
            trial_file(&trial(&[(8192, Some(1))], None)).is_none(),
            "no page size read back"
        );
        assert!(
            trial_file(&trial(&[(8192, None)], Some("4096"))).is_none(),
            "no SQLite header"
        );
    }

    #[test]
    fn the_line_says_size_free_pages_and_live_payload() {
        let d = DbSize {
            config: 2,
            label: "auto_vacuum=none".into(),
            start_bytes: 1 << 20,
            final_bytes: 2 << 20,
            free_pages: 64,
            page_size: 4096,
            free_bytes: 64 * 4096,
            peak_free_pages: 100,
            live_rows: Some(1000),
            live_payload_bytes: Some(300_000),
            trials: Vec::new(),
        };
        assert_eq!(
            line(&d),
            "#2 database file: 2.0 MiB at the end (1.0 MiB at the start), 64 free pages of 4096 B = 256 KiB (12.5%, at most 100 during the trial); live payload about 1000 rows x 300 B = 293 KiB"
        );
    }

    /// The two trials: the retention cut raced the scheduled VACUUM, one trial ended
    /// at 36 MiB with 8,274 free pages (vacuum before the cut), the other at 4 MiB with none
    /// (after it). Their median, 20 MiB with 4,137 free pages, is a state neither had: each
    /// trial's state is given, with where its vacuum ran against the cut, and why they differ.
    #[test]
    fn trials_that_disagree_in_kind_are_shown_each_with_their_order_not_a_median() {
        use crate::model::cast::{BeforeAfter, CastEvents, Vacuum};
        use crate::model::params::ParamValue;
        use crate::model::series::SeriesPoint;
        let mib = 1024 * 1024;
        let aged = |seq: u64, final_bytes: u64, free: u64, vacuum_ms: u64| {
            let mut files = vec![(36 * mib, Some(0)); 7];
            files.push((final_bytes, Some(free)));
            let mut t = trial(&files, Some("4096"));
            t.seq = seq;
            if let Some(s) = t.series.as_mut() {
                s.interval_ms = 1000;
                s.points = vec![SeriesPoint {
                    t_ms: 5000,
                    op: "app:expire".into(),
                    ops: 1,
                    ..SeriesPoint::default()
                }];
            }
            t.cast = Some(CastEvents {
                vacuums: vec![Vacuum {
                    role: "vacuum".into(),
                    t_ms: vacuum_ms,
                    duration_us: 200_000,
                    busy: false,
                    page_count: BeforeAfter { before: 1, after: 1 },
                    freelist_count: BeforeAfter { before: 0, after: 0 },
                    file_bytes: BeforeAfter { before: 1, after: 1 },
                }],
                ..CastEvents::default()
            });
            t
        };
        let mut m = crate::report::html::data::tests::manifest(&[&[]]);
        m.workload = "aging".into();
        for (k, v) in [
            ("pre_age", 20_000),
            ("pre_retention", 20_000),
            ("retention", 10_000),
            ("payload", 300),
        ] {
            m.params.0.insert(k.into(), ParamValue::Count(v));
        }
        let trials = [aged(1, 36 * mib, 8274, 4600), aged(2, 4 * mib, 0, 6100)];
        let d = db_sizes(&m, crate::report::RunWorkload::of(&m), &trials);
        let l = line(&d[0]);
        assert!(
            l.starts_with(
                "#0 database file: the trials ended in states of different kinds, so no median is given: \
                 trial 1 36.0 MiB, 8274 free pages (89.8%) (role vacuum's vacuum for 0.2 s at 4.6 s, before the retention cut (5.0 s-6.0 s)); \
                 trial 2 4.0 MiB, 0 free pages (0.0%) (role vacuum's vacuum for 0.2 s at 6.1 s, after the retention cut (5.0 s-6.0 s)); \
                 they differ in what came first"
            ),
            "{l}"
        );
        assert!(!l.contains("4137"), "no median state: {l}");
        // A vacuum still running at the last reading (7.0 s): that is why, said so.
        let running = [aged(1, 36 * mib, 8274, 6900), aged(2, 4 * mib, 0, 4500)];
        let l = line(&db_sizes(&m, crate::report::RunWorkload::of(&m), &running)[0]);
        assert!(l.contains("still running at the last reading (7.0 s)"), "{l}");
        assert!(l.contains("they differ in what had finished"), "{l}");
        // Trials that agree keep their median line.
        let alike = [aged(1, 36 * mib, 8274, 4600), aged(2, 35 * mib, 8000, 4500)];
        let d = db_sizes(&m, crate::report::RunWorkload::of(&m), &alike);
        assert!(d[0].trials.is_empty());
        assert!(line(&d[0]).contains("at the end"), "{}", line(&d[0]));
    }
}
