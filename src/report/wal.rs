//! Whether a configuration's write-ahead log grows without bound: the starvation verdict.
//!
//! A WAL that checkpoints keep up with stops growing on disk once it reaches the size at which
//! checkpoints restart it (SQLite writes it again from the start; the file does not shrink
//! without `journal_size_limit` or a `TRUNCATE` checkpoint). A WAL that no checkpoint can
//! restart (none runs, or a reader holds an old snapshot) keeps growing until the disk is full.
//! So each measured trial's WAL size is fitted against time over the trial's second half, after
//! the first fill: a least-squares slope with its 95% interval ([`litebench_stats::slope_95`]).
//! The configuration's WAL grows without bound when every trial's interval lies above zero and
//! every trial's WAL ended at least [`GROWTH`] above its size at the half; else it is bounded;
//! with a trial too short for a fit, there is no verdict. What the record can show about why
//! (the `wal_autocheckpoint` read back, whether any checkpoint wrote the database file) is
//! said, and what held the checkpoints back is named only from what ran
//! ([`super::wal_causes`]). A peak many times the database file ([`MANY_TIMES_DB`]) is said
//! whatever the verdict: a WAL that stopped growing at 70 times its database is bounded, and
//! still the disk space and the reads' cost the user came to find.

use crate::model::record::{Manifest, TrialRecord};
use crate::model::series::Series;
use litebench_stats::slope_95;
use serde::Serialize;

/// How much larger than at the trial's half the WAL must end for growth to count: a quarter.
pub const GROWTH: f64 = 0.25;

/// A WAL peak at least this many times the database file is said whatever the verdict.
pub const MANY_TIMES_DB: f64 = 4.0;

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WalVerdict {
    Grows,
    /// It grew while a cast's hold kept a snapshot, and stopped once the hold ended: bounded
    /// by the hold, not without bound.
    GrowsWhileHeld,
    /// It grew, but never reached the size of one automatic checkpoint, so no checkpoint had
    /// yet had its chance to restart it: too short to tell.
    BelowCheckpoint,
    Bounded,
    /// It grew in one or two steps (a `VACUUM`, a retention cut) and not besides: a step is
    /// not a trend.
    Stepped,
    /// A trial had too few readings in its second half for a fit.
    NoVerdict,
}

impl WalVerdict {
    pub fn words(self) -> &'static str {
        match self {
            WalVerdict::Grows => "WAL grows without bound",
            WalVerdict::GrowsWhileHeld => "WAL grows while a snapshot is held",
            WalVerdict::BelowCheckpoint => "WAL below its first automatic checkpoint: too short to tell",
            WalVerdict::Bounded => "WAL bounded",
            WalVerdict::Stepped => "WAL grew in a step, not a trend",
            WalVerdict::NoVerdict => "too few readings for a verdict",
        }
    }
}

/// One measured trial's WAL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrialWal {
    pub seq: u64,
    pub peak_bytes: u64,
    pub final_bytes: u64,
    /// The WAL's size at the start of the fitted half.
    pub half_bytes: u64,
    /// The fitted slope and its 95% interval, bytes per second; absent with too few readings.
    pub slope_bytes_per_s: Option<f64>,
    pub slope_low: Option<f64>,
    pub slope_high: Option<f64>,
    /// Intervals in which the shim saw the database file written or synced (in WAL mode, a
    /// checkpoint); absent where litebench does not count the engine's I/O.
    pub checkpoint_intervals: Option<u64>,
    /// The one-off jumps taken out of the second half before the fit ([`steps`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<WalStep>,
}

/// A one-off jump of the WAL between two readings: how much, and between which readings
/// (milliseconds after the measured start).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WalStep {
    pub from_ms: u64,
    pub to_ms: u64,
    pub bytes: u64,
    /// What ran then, from the cast's events and the workload's own milestones; filled in by
    /// [`wal_growth`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ran: Vec<String>,
}

/// Most steps taken out of a trial's second half: a retention cut and a `VACUUM` are two.
pub const MAX_STEPS: usize = 2;

/// Share of the second half's growth one jump must hold to be a step, and how many times the
/// median interval's growth: a trend grows by about the same each interval, a step by many
/// intervals' worth at once.
pub const STEP_SHARE: f64 = 0.25;
pub const STEP_TIMES: f64 = 4.0;

/// The one-off jumps of `half` (readings as seconds and bytes, in time order): the up to
/// [`MAX_STEPS`] largest increments each holding at least [`STEP_SHARE`] of the growth and
/// [`STEP_TIMES`] the median increment, with at least four increments to tell a jump from a
/// trend. Returns the index of the reading after each jump, and its bytes.
fn steps(half: &[(f64, f64)]) -> Vec<(usize, f64)> {
    if half.len() < 5 {
        return Vec::new();
    }
    let rises: Vec<(usize, f64)> = (1..half.len())
        .map(|i| (i, (half[i].1 - half[i - 1].1).max(0.0)))
        .collect();
    let total: f64 = rises.iter().map(|r| r.1).sum();
    let mut sorted: Vec<f64> = rises.iter().map(|r| r.1).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let least = (STEP_SHARE * total).max(STEP_TIMES * median);
    let mut by_size = rises;
    by_size.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut out: Vec<(usize, f64)> = by_size
        .into_iter()
        .take(MAX_STEPS)
        .filter(|r| r.1 > 0.0 && r.1 >= least)
        .collect();
    out.sort_by_key(|s| s.0);
    out
}

/// A configuration's WAL over its measured trials.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WalGrowth {
    pub config: usize,
    pub label: String,
    /// The largest size any trial's WAL reached, bytes.
    pub peak_bytes: u64,
    /// The trials' median final size, bytes.
    pub final_bytes: u64,
    pub verdict: WalVerdict,
    /// The trials' median slope, bytes per second.
    pub slope_bytes_per_s: Option<f64>,
    /// What the record shows about why it grew; absent when it did not, or the record shows
    /// nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The WAL while a cast's holds kept their snapshots; absent without holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub during_holds: Option<DuringHolds>,
    pub trials: Vec<TrialWal>,
    /// The WAL's size at which SQLite's automatic checkpoint first runs (`wal_autocheckpoint`
    /// pages of `page_size`), bytes; absent with `wal_autocheckpoint=0`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_bytes: Option<u64>,
    /// The main database file's largest size in any trial's reading, bytes.
    pub db_bytes: u64,
    /// What ran that can hold checkpoints back ([`super::wal_causes::held_back`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held_back: Vec<String>,
}

impl WalGrowth {
    /// The peak over the database file's size, where it is at least [`MANY_TIMES_DB`] and the
    /// WAL passed its first automatic checkpoint: below that a WAL larger than a small
    /// database (92 KiB beside 8 KiB) is SQLite working as designed, not a warning.
    pub fn many_times_db(&self) -> Option<f64> {
        let ratio = self.peak_bytes as f64 / self.db_bytes as f64;
        let past_checkpoint = self.checkpoint_bytes.is_none_or(|c| self.peak_bytes >= c);
        (self.db_bytes > 0 && ratio >= MANY_TIMES_DB && past_checkpoint).then_some(ratio)
    }
}

/// The WAL's size at which the automatic checkpoint first runs in `t`: `wal_autocheckpoint`
/// (SQLite's default 1000 pages) times `page_size` (default 4096 bytes); none when it is off.
fn checkpoint_bytes(t: &TrialRecord) -> Option<u64> {
    let pages: u64 = reading(t, "wal_autocheckpoint")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let page: u64 = reading(t, "page_size").and_then(|v| v.parse().ok()).unwrap_or(4096);
    (pages > 0).then_some(pages * page)
}

/// Whether the WAL stopped growing once the trial's last hold ended: two readings or more
/// after it, none above the WAL at the hold's end by more than a page's worth of frames.
fn stopped_after_holds(t: &TrialRecord) -> bool {
    let (Some(cast), Some(series)) = (t.cast.as_ref(), t.series.as_ref()) else {
        return false;
    };
    let Some(end) = cast.holds.iter().map(|h| h.end_ms).max() else {
        return false;
    };
    let at_end = series
        .files
        .iter()
        .filter(|f| f.t_ms <= end)
        .map(|f| f.wal_bytes)
        .next_back();
    let after: Vec<u64> = series
        .files
        .iter()
        .filter(|f| f.t_ms > end)
        .map(|f| f.wal_bytes)
        .collect();
    match at_end {
        Some(at) if after.len() >= 2 => after.iter().all(|&w| w <= at + 4096 + 24),
        _ => false,
    }
}

/// The WAL while a cast's hold roles kept their snapshots, over a configuration's measured
/// trials: how fast it grew then, and from what size to what. A WAL
/// can end bounded over a trial (a checkpoint restarts it once the hold ends) and still have
/// grown all through each hold: this says so.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DuringHolds {
    pub roles: Vec<String>,
    pub holds: usize,
    /// Seconds held, over all trials.
    pub held_s: f64,
    /// The WAL's growth from each hold's first reading to its last, over the time between them.
    pub growth_bytes_per_s: f64,
    /// The smallest WAL at a hold's first reading, and the largest during a hold.
    pub start_bytes: u64,
    pub peak_inside_bytes: u64,
}

/// [`DuringHolds`] of `trials` (their series' file readings and their cast's holds, on the same
/// clock: milliseconds after the measured start).
fn during_holds(trials: &[&TrialRecord]) -> Option<DuringHolds> {
    let mut d = DuringHolds {
        roles: Vec::new(),
        holds: 0,
        held_s: 0.0,
        growth_bytes_per_s: 0.0,
        start_bytes: u64::MAX,
        peak_inside_bytes: 0,
    };
    let (mut grown, mut secs) = (0.0, 0.0);
    for t in trials {
        let (Some(cast), Some(series)) = (t.cast.as_ref(), t.series.as_ref()) else {
            continue;
        };
        for h in &cast.holds {
            d.holds += 1;
            d.held_s += h.end_ms.saturating_sub(h.start_ms) as f64 / 1000.0;
            if !d.roles.contains(&h.role) {
                d.roles.push(h.role.clone());
            }
            let within: Vec<_> = series
                .files
                .iter()
                .filter(|f| (h.start_ms..=h.end_ms).contains(&f.t_ms))
                .collect();
            if let (Some(a), Some(b)) = (within.first(), within.last()) {
                d.start_bytes = d.start_bytes.min(a.wal_bytes);
                d.peak_inside_bytes = d
                    .peak_inside_bytes
                    .max(within.iter().map(|f| f.wal_bytes).max().unwrap_or(0));
                grown += b.wal_bytes as f64 - a.wal_bytes as f64;
                secs += b.t_ms.saturating_sub(a.t_ms) as f64 / 1000.0;
            }
        }
    }
    if d.holds == 0 {
        return None;
    }
    d.start_bytes = d.start_bytes.min(d.peak_inside_bytes);
    d.growth_bytes_per_s = if secs > 0.0 { grown / secs } else { 0.0 };
    Some(d)
}

impl DuringHolds {
    /// `during role holder's 2 holds (35.1 s in all) the WAL grew +406 KiB/s, from 3.9 MiB to
    /// 13.7 MiB`.
    pub fn words(&self) -> String {
        let roles: Vec<String> = self.roles.iter().map(|r| format!("role {r}'s")).collect();
        let holds = if self.holds == 1 { "hold" } else { "holds" };
        let growth = if self.growth_bytes_per_s > 0.0 {
            format!("grew +{}/s", size(self.growth_bytes_per_s))
        } else {
            "did not grow".to_string()
        };
        format!(
            "during {} {} {holds} ({:.1} s in all) the WAL {growth}, from {} to {}",
            roles.join(" and "),
            self.holds,
            self.held_s,
            size(self.start_bytes as f64),
            size(self.peak_inside_bytes as f64)
        )
    }
}

/// One trial's WAL from its series; `None` when it kept no file readings.
pub fn trial_wal(seq: u64, series: &Series) -> Option<TrialWal> {
    let files = &series.files;
    let last = files.last()?;
    let half_ms = last.t_ms / 2;
    let half: Vec<(f64, f64)> = files
        .iter()
        .filter(|f| f.t_ms >= half_ms)
        .map(|f| (f.t_ms as f64 / 1000.0, f.wal_bytes as f64))
        .collect();
    // A step is not a trend: the fit is of the readings with each step taken out.
    let jumps = steps(&half);
    let flat: Vec<(f64, f64)> = half
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| (x, y - jumps.iter().filter(|j| j.0 <= i).map(|j| j.1).sum::<f64>()))
        .collect();
    let fit = slope_95(&flat);
    let ms = |x: f64| (x * 1000.0).round() as u64;
    Some(TrialWal {
        seq,
        peak_bytes: files.iter().map(|f| f.wal_bytes).max().unwrap_or(0),
        final_bytes: last.wal_bytes,
        half_bytes: half.first().map_or(0, |p| p.1 as u64),
        slope_bytes_per_s: fit.map(|s| s.slope),
        slope_low: fit.map(|s| s.low),
        slope_high: fit.map(|s| s.high),
        checkpoint_intervals: (!series.io.is_empty()).then(|| {
            series
                .io
                .iter()
                .filter(|i| i.main_syncs > 0 || i.main_write_bytes > 0)
                .count() as u64
        }),
        steps: jumps
            .iter()
            .map(|&(i, bytes)| WalStep {
                from_ms: ms(half[i - 1].0),
                to_ms: ms(half[i].0),
                bytes: bytes as u64,
                ran: Vec::new(),
            })
            .collect(),
    })
}

/// Whether a trial's WAL grew as a trend: its slope's interval (steps taken out) above zero,
/// and its end, less its steps, above its half.
fn grew(t: &TrialWal) -> bool {
    let stepped: u64 = t.steps.iter().map(|s| s.bytes).sum();
    t.slope_low.is_some_and(|l| l > 0.0)
        && t.final_bytes.saturating_sub(stepped) as f64 > t.half_bytes as f64 * (1.0 + GROWTH)
}

/// Whether a trial's WAL grew in steps: it stepped, and ended above its half.
fn stepped(t: &TrialWal) -> bool {
    !t.steps.is_empty() && t.final_bytes as f64 > t.half_bytes as f64 * (1.0 + GROWTH)
}

/// The verdict over a configuration's trials: grows where every trial's trend grew, stepped
/// where every trial grew by trend or by steps and some only by steps.
pub fn verdict(trials: &[TrialWal]) -> WalVerdict {
    if trials.is_empty() || trials.iter().any(|t| t.slope_bytes_per_s.is_none()) {
        WalVerdict::NoVerdict
    } else if trials.iter().all(grew) {
        WalVerdict::Grows
    } else if trials.iter().all(|t| grew(t) || stepped(t)) {
        WalVerdict::Stepped
    } else {
        WalVerdict::Bounded
    }
}

fn median_u64(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    match v.len() {
        0 => 0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

/// The knob `name`'s value as read back in `t`.
fn reading<'t>(t: &'t TrialRecord, name: &str) -> Option<&'t str> {
    t.knobs
        .iter()
        .find(|k| k.name == name)
        .and_then(|k| k.effective.as_deref().or(k.requested.as_deref()))
}

/// What the record shows about why a configuration's WAL grew: automatic checkpoints off, or
/// what ran that held them back (`held_back`), or whether any checkpoint wrote the database.
fn why(trials: &[&TrialRecord], wal: &[TrialWal], held_back: &[String]) -> Option<String> {
    if trials.iter().any(|t| reading(t, "wal_autocheckpoint") == Some("0")) {
        return Some("wal_autocheckpoint=0: no automatic checkpoint".into());
    }
    if !held_back.is_empty() {
        return Some(format!("held back by what ran: {}", held_back.join("; ")));
    }
    let counted: Vec<u64> = wal.iter().filter_map(|w| w.checkpoint_intervals).collect();
    if counted.len() < wal.len() {
        return None;
    }
    Some(if counted.iter().all(|&c| c == 0) {
        "no checkpoint wrote the database file during the trials".into()
    } else {
        "checkpoints wrote the database file yet the WAL kept growing, and no hold, backup, sidecar, long transaction or backlog ran that the record shows".into()
    })
}

/// The verdict over a configuration's trials, with what the record says about them: growth
/// that never reached the first automatic checkpoint is too short to tell, and growth that
/// stopped when the cast's holds ended is the holds'; and the size of the first automatic
/// checkpoint (none where it is off).
fn judge(records: &[&TrialRecord], wal: &[TrialWal]) -> (WalVerdict, Option<u64>) {
    let checkpoint = records.iter().filter_map(|t| checkpoint_bytes(t)).max();
    let off = records.iter().any(|t| checkpoint_bytes(t).is_none());
    let checkpoint = checkpoint.filter(|_| !off);
    let peak = wal.iter().map(|w| w.peak_bytes).max().unwrap_or(0);
    let v = match verdict(wal) {
        // No checkpoint had its chance yet: growth up to the first one is what every WAL does.
        WalVerdict::Grows if checkpoint.is_some_and(|c| peak < c) => WalVerdict::BelowCheckpoint,
        // It stopped when the holds did: the holds bound it.
        WalVerdict::Grows if !records.is_empty() && records.iter().all(|t| stopped_after_holds(t)) => {
            WalVerdict::GrowsWhileHeld
        }
        v => v,
    };
    (v, checkpoint)
}

/// Each configuration's WAL, for the configurations whose WAL existed in a measured trial (and
/// whose `journal_mode`, where read back, is `wal`).
pub fn wal_growth(manifest: &Manifest, workload: super::RunWorkload, trials: &[TrialRecord]) -> Vec<WalGrowth> {
    let mut out = Vec::new();
    for cfg in &manifest.configs {
        let measured: Vec<&TrialRecord> = trials
            .iter()
            .filter(|t| t.config == cfg.index && !t.warmup)
            .filter(|t| reading(t, "journal_mode").is_none_or(|m| m.eq_ignore_ascii_case("wal")))
            .collect();
        let with: Vec<(&TrialRecord, TrialWal)> = measured
            .iter()
            .filter_map(|t| Some((*t, trial_wal(t.seq, t.series.as_ref()?)?)))
            .collect();
        if with.iter().all(|(_, w)| w.peak_bytes == 0) {
            continue;
        }
        let (records, mut wal): (Vec<&TrialRecord>, Vec<TrialWal>) = with.into_iter().unzip();
        name_steps(manifest, workload, &records, &mut wal);
        let (verdict, checkpoint) = judge(&records, &wal);
        let held_back = super::wal_causes::held_back(&manifest.load, &records);
        let db_bytes = records
            .iter()
            .filter_map(|t| t.series.as_ref())
            .flat_map(|s| s.files.iter().map(|f| f.db_bytes))
            .max()
            .unwrap_or(0);
        let mut slopes: Vec<f64> = wal.iter().filter_map(|w| w.slope_bytes_per_s).collect();
        slopes.sort_by(f64::total_cmp);
        out.push(WalGrowth {
            config: cfg.index,
            label: cfg.label.clone(),
            peak_bytes: wal.iter().map(|w| w.peak_bytes).max().unwrap_or(0),
            final_bytes: median_u64(wal.iter().map(|w| w.final_bytes).collect()),
            verdict,
            slope_bytes_per_s: (!slopes.is_empty()).then(|| litebench_stats::median(&slopes)),
            why: (verdict == WalVerdict::Grows)
                .then(|| why(&records, &wal, &held_back))
                .flatten(),
            during_holds: during_holds(&records),
            trials: wal,
            checkpoint_bytes: checkpoint,
            db_bytes,
            held_back,
        });
    }
    out
}

/// Fills each trial's steps' [`WalStep::ran`]: what ran then, from its cast's events and
/// the workload's own milestones ([`crate::workload::WorkloadReport::milestones`]).
fn name_steps(manifest: &Manifest, workload: super::RunWorkload, records: &[&TrialRecord], wal: &mut [TrialWal]) {
    for (t, w) in records.iter().zip(wal.iter_mut()) {
        let marks = t
            .series
            .as_ref()
            .map_or(Vec::new(), |s| workload.hooks().milestones(&manifest.params, s));
        for step in &mut w.steps {
            step.ran = super::wal_causes::at_step(t, step.from_ms, step.to_ms, &marks);
        }
    }
}

/// The steps of each trial that stepped: `trial 3: +32 MiB between 6.0 s and 7.0 s (role
/// vacuum's vacuum at 6.4 s, the retention cut (6.0 s-7.0 s))`.
fn steps_words(w: &WalGrowth) -> String {
    let s = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
    let per: Vec<String> = w
        .trials
        .iter()
        .filter(|t| !t.steps.is_empty())
        .map(|t| {
            let jumps: Vec<String> = t
                .steps
                .iter()
                .map(|j| {
                    let ran = if j.ran.is_empty() {
                        " (nothing the record shows ran then)".to_string()
                    } else {
                        format!(" with {}", j.ran.join(", "))
                    };
                    format!(
                        "+{} between {} and {}{ran}",
                        size(j.bytes as f64),
                        s(j.from_ms),
                        s(j.to_ms)
                    )
                })
                .collect();
            format!("trial {}: {}", t.seq, jumps.join(" and "))
        })
        .collect();
    per.join("; ")
}

/// A size in bytes as people read it: `812 KiB`, `4.1 MiB`, `1.2 GiB`.
pub fn size(bytes: f64) -> String {
    let b = bytes.abs();
    let (v, unit) = if b >= 1024.0 * 1024.0 * 1024.0 {
        (bytes / (1024.0 * 1024.0 * 1024.0), "GiB")
    } else if b >= 1024.0 * 1024.0 {
        (bytes / (1024.0 * 1024.0), "MiB")
    } else {
        (bytes / 1024.0, "KiB")
    };
    if v.abs() >= 100.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// One configuration's WAL in one line: `#1 WAL grows without bound (+812 KiB/s): peak 9.6
/// MiB, final 9.6 MiB`, and what the record shows about why; a peak many times the database
/// file is said whatever the verdict, with what ran that held the checkpoints back.
pub fn line(w: &WalGrowth) -> String {
    let ratio = w.many_times_db().map_or(String::new(), |r| {
        format!(" ({r:.0}x the {} database file)", size(w.db_bytes as f64))
    });
    let sizes = format!(
        "peak {}{ratio}, final {}",
        size(w.peak_bytes as f64),
        size(w.final_bytes as f64)
    );
    // Where the verdict's own words do not say what held it back, a large peak still does.
    let held = if w.verdict != WalVerdict::Grows && !ratio.is_empty() && !w.held_back.is_empty() {
        format!("; held back by what ran: {}", w.held_back.join("; "))
    } else {
        String::new()
    };
    verdict_line(w, &sizes) + &held
}

/// [`line`]'s verdict and sizes.
fn verdict_line(w: &WalGrowth, sizes: &str) -> String {
    match w.verdict {
        WalVerdict::NoVerdict => format!(
            "#{} WAL: {sizes}; {} (a shorter --interval or a longer trial)",
            w.config,
            w.verdict.words()
        ),
        WalVerdict::BelowCheckpoint => format!(
            "#{} WAL: {sizes}; it never reached one automatic checkpoint ({}), so whether checkpoints keep up cannot be told yet (a longer trial)",
            w.config,
            w.checkpoint_bytes.map_or("wal_autocheckpoint".to_string(), |c| size(c as f64))
        ),
        WalVerdict::GrowsWhileHeld => {
            let during = w.during_holds.as_ref();
            let roles = during.map_or("a hold".to_string(), |d| d.roles.join(" and "));
            let rate = during
                .filter(|d| d.growth_bytes_per_s > 0.0)
                .map_or(String::new(), |d| format!(" (+{}/s)", size(d.growth_bytes_per_s)));
            format!(
                "#{} WAL grows while {roles} holds a snapshot{rate}, and stops when the hold ends: {sizes}",
                w.config
            )
        }
        WalVerdict::Stepped => format!(
            "#{} {}: {}; no growth besides the steps: {sizes}",
            w.config,
            w.verdict.words(),
            steps_words(w)
        ),
        WalVerdict::Bounded if w.many_times_db().is_some() => format!(
            "#{} WAL stopped growing, but only at many times the database file: {sizes}",
            w.config
        ),
        v => {
            let slope = match (v, w.slope_bytes_per_s) {
                (WalVerdict::Grows, Some(s)) => format!(" (+{}/s)", size(s)),
                _ => String::new(),
            };
            let why = w.why.as_deref().map_or(String::new(), |y| format!("; {y}"));
            // Bounded over the trial, the WAL may still have grown all through each hold.
            let holds = match (&w.during_holds, v) {
                (Some(d), WalVerdict::Bounded) => format!("; {}", d.words()),
                _ => String::new(),
            };
            format!("#{} {}{slope}: {sizes}{why}{holds}", w.config, v.words())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::series::{SeriesFiles, SeriesIo};

    fn series(wal: &[u64], checkpoints: &[usize]) -> Series {
        Series {
            interval_ms: 1000,
            points: Vec::new(),
            io: (0..wal.len())
                .map(|i| SeriesIo {
                    t_ms: i as u64 * 1000,
                    main_syncs: u64::from(checkpoints.contains(&i)),
                    ..SeriesIo::default()
                })
                .collect(),
            files: wal
                .iter()
                .enumerate()
                .map(|(i, &w)| SeriesFiles {
                    t_ms: i as u64 * 1000,
                    wal_bytes: w,
                    ..SeriesFiles::default()
                })
                .collect(),
        }
    }

    /// A WAL that grew through a hold and was restarted after it: bounded over the trial, and
    /// the growth during the hold said, from its size at the hold's start to its peak.
    #[test]
    fn the_wal_during_holds_is_measured_apart() {
        use crate::model::cast::CastEvents;
        use crate::report::html::data::tests::hold;
        // 1 MiB/s from 2 s to 6 s while held, then back to 1 MiB after a checkpoint.
        let mib = 1024 * 1024;
        let wal: Vec<u64> = (0..10u64)
            .map(|i| if (2..=6).contains(&i) { (i - 1) * mib } else { mib })
            .collect();
        let t = TrialRecord {
            series: Some(series(&wal, &[])),
            cast: Some(CastEvents {
                holds: vec![hold("holder", 2000, 6000)],
                checkpoints: Vec::new(),
                sidecars: Vec::new(),
                ..Default::default()
            }),
            ..TrialRecord::default()
        };
        let d = during_holds(&[&t]).expect("a hold");
        assert_eq!((d.holds, d.start_bytes, d.peak_inside_bytes), (1, mib, 5 * mib));
        assert!(
            (d.growth_bytes_per_s - mib as f64).abs() < 1.0,
            "{}",
            d.growth_bytes_per_s
        );
        assert_eq!(
            d.words(),
            "during role holder's 1 hold (4.0 s in all) the WAL grew +1.0 MiB/s, from 1.0 MiB to 5.0 MiB"
        );
        assert_eq!(during_holds(&[&TrialRecord::default()]), None);
    }

    #[test]
    fn a_growing_wal_grows() {
        let wal: Vec<u64> = (0..20).map(|i| 1_000_000 * i + (i % 3) * 10_000).collect();
        let trials: Vec<TrialWal> = (0..3).map(|s| trial_wal(s, &series(&wal, &[])).unwrap()).collect();
        assert_eq!(verdict(&trials), WalVerdict::Grows);
        let s = trials[0].slope_bytes_per_s.unwrap();
        assert!((s - 1_000_000.0).abs() < 20_000.0, "{s}");
    }

    /// A WAL that checkpoints restart: on disk it fills to the checkpoint's size and stays
    /// there; truncated by each checkpoint (journal_size_limit), it is a sawtooth.
    #[test]
    fn a_wal_bounded_by_checkpoints_is_bounded() {
        let plateau: Vec<u64> = (0..20).map(|i| (i * 1_000_000).min(4_000_000)).collect();
        let saw: Vec<u64> = (0..20).map(|i| (i % 4) * 1_000_000).collect();
        for wal in [plateau, saw] {
            let t = trial_wal(0, &series(&wal, &[4, 8, 12, 16])).unwrap();
            assert_eq!(verdict(&[t.clone(), t]), WalVerdict::Bounded, "{wal:?}");
        }
    }

    #[test]
    fn one_trial_that_did_not_grow_makes_the_configuration_bounded() {
        let grows: Vec<u64> = (0..20).map(|i| 1_000_000 * i).collect();
        let flat = vec![4_000_000; 20];
        let trials = [
            trial_wal(0, &series(&grows, &[])).unwrap(),
            trial_wal(1, &series(&flat, &[])).unwrap(),
        ];
        assert_eq!(verdict(&trials), WalVerdict::Bounded);
    }

    #[test]
    fn too_few_readings_give_no_verdict() {
        let t = trial_wal(0, &series(&[0, 1_000_000, 2_000_000], &[])).unwrap();
        assert_eq!(t.slope_bytes_per_s, None);
        assert_eq!(verdict(&[t]), WalVerdict::NoVerdict);
        assert_eq!(verdict(&[]), WalVerdict::NoVerdict);
        assert_eq!(trial_wal(0, &Series::default()), None);
    }

    #[test]
    fn sizes_read_as_people_read_them() {
        assert_eq!(size(812.0 * 1024.0), "812 KiB");
        assert_eq!(size(4.1 * 1048576.0), "4.1 MiB");
        assert_eq!(size(2.0 * 1073741824.0), "2.0 GiB");
    }

    /// 3.3 s of growth to 2.5 MiB, below the first automatic checkpoint (1000 pages of 4 KiB):
    /// no alarm, "too short to tell"; the same growth with wal_autocheckpoint=0, or past the
    /// checkpoint's size, grows.
    #[test]
    fn growth_below_the_first_checkpoint_is_too_short_to_tell() {
        let kib = 1024;
        let wal: Vec<u64> = (0..8u64).map(|i| i * 320 * kib).collect();
        let t = TrialRecord {
            series: Some(series(&wal, &[])),
            ..TrialRecord::default()
        };
        let w = vec![trial_wal(0, t.series.as_ref().unwrap()).unwrap()];
        assert_eq!(verdict(&w), WalVerdict::Grows, "the slope alone says grows");
        let (v, c) = judge(&[&t], &w);
        assert_eq!((v, c), (WalVerdict::BelowCheckpoint, Some(4096 * 1000)));
        let off = TrialRecord {
            knobs: vec![crate::model::knob::KnobReading {
                name: "wal_autocheckpoint".into(),
                requested: Some("0".into()),
                effective: Some("0".into()),
                note: None,
            }],
            ..t.clone()
        };
        assert_eq!(
            judge(&[&off], &w).0,
            WalVerdict::Grows,
            "no automatic checkpoint at all"
        );
        let big: Vec<u64> = (0..8u64).map(|i| i * 1024 * kib).collect();
        let t = TrialRecord {
            series: Some(series(&big, &[])),
            ..TrialRecord::default()
        };
        let w = vec![trial_wal(0, t.series.as_ref().unwrap()).unwrap()];
        assert_eq!(judge(&[&t], &w).0, WalVerdict::Grows);
    }

    /// A WAL past its first checkpoint that grew while a hold kept a snapshot and stopped when
    /// the hold ended two seconds before the trial's end grows while held, not without bound.
    #[test]
    fn growth_that_stops_when_the_hold_ends_is_the_hold_s() {
        use crate::model::cast::CastEvents;
        use crate::report::html::data::tests::hold;
        let mib = 1024 * 1024;
        let wal: Vec<u64> = (0..12u64).map(|i| 5 * mib + i.min(9) * mib).collect();
        let t = TrialRecord {
            series: Some(series(&wal, &[])),
            cast: Some(CastEvents {
                holds: vec![hold("report", 0, 9000)],
                ..CastEvents::default()
            }),
            ..TrialRecord::default()
        };
        let w = vec![trial_wal(0, t.series.as_ref().unwrap()).unwrap()];
        assert_eq!(verdict(&w), WalVerdict::Grows);
        assert_eq!(judge(&[&t], &w).0, WalVerdict::GrowsWhileHeld);
        let g = WalGrowth {
            config: 0,
            label: String::new(),
            peak_bytes: 14 * mib,
            final_bytes: 14 * mib,
            verdict: WalVerdict::GrowsWhileHeld,
            slope_bytes_per_s: None,
            why: None,
            during_holds: during_holds(&[&t]),
            trials: w,
            checkpoint_bytes: Some(4096 * 1000),
            db_bytes: 4 * mib,
            held_back: Vec::new(),
        };
        let l = line(&g);
        assert!(
            l.starts_with("#0 WAL grows while report holds a snapshot (+1.0 MiB/s), and stops when the hold ends"),
            "{l}"
        );
        // Still growing after the hold: without bound.
        let still: Vec<u64> = (0..12u64).map(|i| 5 * mib + i * mib).collect();
        let t2 = TrialRecord {
            series: Some(series(&still, &[])),
            ..t
        };
        let w = vec![trial_wal(0, t2.series.as_ref().unwrap()).unwrap()];
        assert_eq!(judge(&[&t2], &w).0, WalVerdict::Grows);
    }

    /// A WAL many times a tiny database but short of its first automatic checkpoint is SQLite
    /// working as designed: not said; past the checkpoint, or with it off, it is.
    #[test]
    fn a_wal_below_its_first_checkpoint_is_not_many_times_the_database() {
        let kib = 1024;
        let w = |peak: u64, checkpoint: Option<u64>| WalGrowth {
            config: 0,
            label: String::new(),
            peak_bytes: peak,
            final_bytes: peak,
            verdict: WalVerdict::NoVerdict,
            slope_bytes_per_s: None,
            why: None,
            during_holds: None,
            trials: Vec::new(),
            checkpoint_bytes: checkpoint,
            db_bytes: 8 * kib,
            held_back: Vec::new(),
        };
        assert_eq!(w(92 * kib, Some(4000 * kib)).many_times_db(), None);
        assert!(w(92 * kib, None).many_times_db().is_some(), "wal_autocheckpoint=0");
        assert!(w(4096 * kib, Some(4000 * kib)).many_times_db().is_some());
    }

    /// 806 MiB of WAL beside an 11.6 MiB database, flat over the trial's second half while a
    /// stepped backup never finished and an open loop drained its backlog: bounded in slope,
    /// and the line says the peak is 69 times the database and names the backup and the
    /// backlog, and nothing that did not run.
    #[test]
    fn a_peak_many_times_the_database_is_said_with_what_held_checkpoints_back() {
        use crate::model::cast::{Backup, BackupApiRun, BackupMethod, CastEvents};
        use crate::model::series::{SeriesFiles, SeriesPoint};
        let mib = 1024 * 1024;
        let db = 116 * mib / 10;
        let files: Vec<SeriesFiles> = (0..12u64)
            .map(|i| SeriesFiles {
                t_ms: i * 1000,
                db_bytes: db,
                wal_bytes: (i * 161 * mib).min(806 * mib),
                ..SeriesFiles::default()
            })
            .collect();
        let points: Vec<SeriesPoint> = (0..12u64)
            .map(|i| SeriesPoint {
                t_ms: i * 1000,
                op: "tx".into(),
                ops: 100,
                p50_us: Some(if i < 6 { 2.0e6 } else { 500.0 }),
                ..SeriesPoint::default()
            })
            .collect();
        let trial = TrialRecord {
            series: Some(Series {
                interval_ms: 1000,
                points,
                io: Vec::new(),
                files,
            }),
            cast: Some(CastEvents {
                backups: vec![Backup {
                    role: "nightly".into(),
                    method: BackupMethod::Api,
                    t_ms: 500,
                    duration_us: 11_000_000,
                    busy: false,
                    source_pages: 2900,
                    pages: 0,
                    bytes: 0,
                    api: Some(BackupApiRun {
                        steps: 300,
                        retried: 0,
                        restarts: 290,
                        finished: false,
                    }),
                }],
                ..CastEvents::default()
            }),
            measured_ns: 11_000_000_000,
            ..TrialRecord::default()
        };
        let mut m = crate::report::html::data::tests::manifest(&[&[("journal_mode", "wal")]]);
        m.load.rate = Some(300.0);
        let w = wal_growth(&m, crate::report::RunWorkload::of(&m), &[trial]);
        assert_eq!(w[0].verdict, WalVerdict::Bounded);
        let l = line(&w[0]);
        assert!(
            l.starts_with("#0 WAL stopped growing, but only at many times the database file: peak 806 MiB (69x the 11.6 MiB database file)"),
            "{l}"
        );
        assert!(
            l.contains("held back by what ran: role nightly's backup read the database 1.0 times for 11.0 s per trial, 1 of them never finished; an open loop's backlog: in 6.0 intervals per trial"),
            "{l}"
        );
        assert!(!l.contains("reader"), "no reader ran: {l}");
    }

    /// aging's trial: the WAL flat at its checkpoint's size, then a retention cut at 6 s and
    /// a VACUUM at 8 s each add a step; no reader ran. The fit over the raw second half says
    /// "grows" (what the verdict said before); with the steps taken out it does not, so the
    /// verdict is a step, each step named with what ran then, and no reader is blamed.
    #[test]
    fn a_step_from_a_cut_and_a_vacuum_is_not_a_trend_and_names_what_ran() {
        use crate::model::cast::{BeforeAfter, CastEvents, Vacuum};
        use crate::model::params::ParamValue;
        use crate::model::series::{SeriesFiles, SeriesPoint};
        let mib = 1024 * 1024;
        let wal = |i: u64| match i {
            0..=8 => 4 * mib + i * 1024,
            9..=11 => 20 * mib + i * 1024,
            _ => 36 * mib + i * 1024,
        };
        let files: Vec<SeriesFiles> = (0..=16u64)
            .map(|i| SeriesFiles {
                t_ms: i * 1000,
                db_bytes: 8 * mib,
                wal_bytes: wal(i),
                ..SeriesFiles::default()
            })
            .collect();
        let points = vec![
            SeriesPoint {
                t_ms: 1000,
                op: "app:insert".into(),
                ops: 50,
                ..SeriesPoint::default()
            },
            SeriesPoint {
                t_ms: 8000,
                op: "app:expire".into(),
                ops: 1,
                ..SeriesPoint::default()
            },
        ];
        let trial = TrialRecord {
            series: Some(Series {
                interval_ms: 1000,
                points,
                io: (0..17u64)
                    .map(|i| SeriesIo {
                        t_ms: i * 1000,
                        main_syncs: u64::from(i % 3 == 0),
                        ..SeriesIo::default()
                    })
                    .collect(),
                files,
            }),
            cast: Some(CastEvents {
                vacuums: vec![Vacuum {
                    role: "vacuum".into(),
                    t_ms: 11_400,
                    duration_us: 300_000,
                    busy: false,
                    page_count: BeforeAfter {
                        before: 2000,
                        after: 1000,
                    },
                    freelist_count: BeforeAfter { before: 1000, after: 0 },
                    file_bytes: BeforeAfter {
                        before: 8 * mib,
                        after: 8 * mib,
                    },
                }],
                ..CastEvents::default()
            }),
            ..TrialRecord::default()
        };
        let raw: Vec<(f64, f64)> = (8..=16u64).map(|i| (i as f64, wal(i) as f64)).collect();
        let fit = slope_95(&raw).unwrap();
        assert!(fit.low > 0.0, "the raw half alone fits as growth: {fit:?}");
        let mut m = crate::report::html::data::tests::manifest(&[&[("journal_mode", "wal")]]);
        m.workload = "aging".into();
        for (k, v) in [("pre_age", 20_000), ("pre_retention", 20_000), ("retention", 10_000)] {
            m.params.0.insert(k.into(), ParamValue::Count(v));
        }
        let w = wal_growth(&m, crate::report::RunWorkload::of(&m), &[trial]);
        assert_eq!(w[0].verdict, WalVerdict::Stepped, "{:?}", w[0].trials);
        assert_eq!(w[0].why, None);
        let l = line(&w[0]);
        assert_eq!(
            l,
            "#0 WAL grew in a step, not a trend: trial 0: +16.0 MiB between 8.0 s and 9.0 s with \
             the retention cut (8.0 s-9.0 s) and +16.0 MiB between 11.0 s and 12.0 s with role vacuum's vacuum at 11.4 s; \
             no growth besides the steps: peak 36.0 MiB (5x the 8.0 MiB database file), final 36.0 MiB"
        );
        assert!(!l.contains("reader"), "{l}");
    }

    /// Checkpoints that wrote the database while the WAL grew, with nothing the record shows
    /// holding them back: no reader is blamed.
    #[test]
    fn no_reader_is_blamed_where_none_ran() {
        let wal: Vec<u64> = (0..20).map(|i| 1_000_000 * i).collect();
        let t = TrialRecord {
            series: Some(series(&wal, &[3, 9])),
            ..TrialRecord::default()
        };
        let w = vec![trial_wal(0, t.series.as_ref().unwrap()).unwrap()];
        let why = why(&[&t], &w, &[]).unwrap();
        assert!(!why.contains("reader"), "{why}");
        assert!(why.contains("no hold, backup, sidecar"), "{why}");
        let why = super::why(&[&t], &w, &["role report held a snapshot".into()]).unwrap();
        assert_eq!(why, "held back by what ran: role report held a snapshot");
    }
}
