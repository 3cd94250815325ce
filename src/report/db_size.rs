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
pub fn db_sizes(manifest: &Manifest, trials: &[TrialRecord]) -> Vec<DbSize> {
    let Some(workload) = crate::workload::find(&manifest.workload) else {
        return Vec::new();
    };
    if !workload.kind().reports_db_size {
        return Vec::new();
    }
    let mut out = Vec::new();
    for cfg in &manifest.configs {
        let per: Vec<TrialFile> = trials
            .iter()
            .filter(|t| t.config == cfg.index && !t.warmup)
            .filter_map(trial_file)
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
        });
    }
    out
}

/// One measured trial's file: its first and last readings, and what it inserted.
struct TrialFile {
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
/// (1.9%, at most 9 during the trial); live payload about 1000 rows x 300 B = 293 KiB`.
pub fn line(d: &DbSize) -> String {
    let size = super::wal::size;
    let share = if d.final_bytes > 0 {
        100.0 * d.free_bytes as f64 / d.final_bytes as f64
    } else {
        0.0
    };
    let live = match (d.live_rows, d.live_payload_bytes) {
        (Some(rows), Some(bytes)) => format!(
            "; live payload about {rows} rows x {} B = {}",
            bytes.checked_div(rows).unwrap_or(0),
            size(bytes as f64)
        ),
        _ => String::new(),
    };
    format!(
        "#{} database file: {} at the end ({} at the start), {} free pages of {} B = {} ({share:.1}%, at most {} during the trial){live}",
        d.config,
        size(d.final_bytes as f64),
        size(d.start_bytes as f64),
        d.free_pages,
        d.page_size,
        size(d.free_bytes as f64),
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
        };
        assert_eq!(
            line(&d),
            "#2 database file: 2.0 MiB at the end (1.0 MiB at the start), 64 free pages of 4096 B = 256 KiB (12.5%, at most 100 during the trial); live payload about 1000 rows x 300 B = 293 KiB"
        );
    }
}
