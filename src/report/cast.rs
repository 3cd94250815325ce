//! What a cast's hold, checkpoint and sidecar roles did, per configuration and role, over the
//! measured trials: the table the terminal, the Markdown and the HTML page show below the
//! operations (a workload role's own numbers are its `ROLE:OP` operations, in every other
//! table). A sidecar's CPU and storage I/O (its whole process tree's) are two more columns,
//! there only when a sidecar ran, so a table without one reads as before.

use crate::model::cast::CastEvents;
use crate::model::record::TrialRecord;
use crate::workload::ReportSection;
use std::collections::BTreeMap;

/// The roles beside the workload ([`section`]) and what the workload did while backups and
/// vacuums ran ([`crate::report::beside`]), those there are.
pub fn sections(trials: &[TrialRecord]) -> Vec<ReportSection> {
    section(trials)
        .into_iter()
        .chain(crate::report::beside::section(trials))
        .collect()
}

/// The section, or none for a run without holds or checkpoints.
pub fn section(trials: &[TrialRecord]) -> Option<ReportSection> {
    let (by, measured) = acts(trials);
    if by.is_empty() {
        return None;
    }
    let with_sidecars = by.values().any(|a| a.sidecars > 0);
    let with_vacuums = by.values().any(|a| !a.vacuums.is_empty() && a.backup.is_none());
    let rows = by
        .into_iter()
        .map(|((config, role), mut a)| {
            let trials = measured.get(&config).copied().unwrap_or(1).max(1);
            let mut row = vec![config.to_string(), role];
            if a.sidecars > 0 {
                row.extend(a.sidecar_cells(trials));
                if with_vacuums {
                    row.push("-".into());
                }
                return row;
            }
            row.extend(if !a.vacuums.is_empty() {
                a.run_cells()
            } else if a.checkpoints.is_empty() {
                a.hold_cells(trials)
            } else {
                a.checkpoint_cells()
            });
            if with_sidecars {
                row.extend(["-".into(), "-".into()]);
            }
            if with_vacuums {
                row.push(if a.vacuums.is_empty() || a.backup.is_some() {
                    "-".into()
                } else {
                    a.freed.to_string()
                });
            }
            row
        })
        .collect();
    let (title, headers) = title_and_headers(with_sidecars, with_vacuums);
    Some(ReportSection {
        title,
        headers,
        rows,
        lead: false,
    })
}

/// The table's title and headers: the sidecars' two columns and the vacuums' one only where
/// such a role ran.
fn title_and_headers(with_sidecars: bool, with_vacuums: bool) -> (String, Vec<&'static str>) {
    let mut headers = vec![
        "#",
        "role",
        "kind",
        "count",
        "busy",
        "frames ckpt/log",
        "p50 ms",
        "max ms",
        "held s",
    ];
    let mut title = "roles beside the workload (measured trials; held s: per trial)".to_string();
    if with_sidecars {
        headers.extend(["cpu s", "read/write MB"]);
        title =
            "roles beside the workload (measured trials; held s, a sidecar's tree's cpu s and MB: per trial)".into();
    }
    if with_vacuums {
        headers.push("pages freed");
    }
    (title, headers)
}

/// What each (configuration, role) did over the measured trials, and how many measured trials
/// each configuration had.
fn acts(trials: &[TrialRecord]) -> (BTreeMap<(usize, String), Acts>, BTreeMap<usize, u64>) {
    // (configuration, role) -> what that role did in the measured trials.
    let mut by: BTreeMap<(usize, String), Acts> = BTreeMap::new();
    let mut measured: BTreeMap<usize, u64> = BTreeMap::new();
    for t in trials.iter().filter(|t| !t.warmup) {
        *measured.entry(t.config).or_default() += 1;
        let Some(CastEvents {
            holds,
            checkpoints,
            sidecars,
            vacuums,
            backups,
        }) = &t.cast
        else {
            continue;
        };
        for s in sidecars {
            let a = by.entry((t.config, s.role.clone())).or_default();
            a.sidecars += 1;
            a.killed += u64::from(s.stopped == crate::sys::sidecar::Stopped::Kill);
            a.cpu_ms += s.cpu_ms;
            a.read_bytes += s.read_bytes;
            a.write_bytes += s.write_bytes;
        }
        for v in vacuums {
            let a = by.entry((t.config, v.role.clone())).or_default();
            a.vacuums.push(v.duration_us);
            a.busy += u64::from(v.busy);
            a.freed += (v.freelist_count.before - v.freelist_count.after).max(0) as u64;
        }
        for b in backups {
            let a = by.entry((t.config, b.role.clone())).or_default();
            a.backup = Some(b.method.name());
            a.vacuums.push(b.duration_us);
            if let Some(run) = b.api {
                a.api_steps += run.steps;
                a.api_retried += run.retried;
                a.api_restarts += run.restarts;
                a.api_unfinished += u64::from(!run.finished);
            }
            a.busy += u64::from(b.busy);
        }
        for h in holds {
            let a = by.entry((t.config, h.role.clone())).or_default();
            a.holds += 1;
            a.held_ms += h.end_ms.saturating_sub(h.start_ms);
            if let Some(q) = h.query {
                a.queries.push(q.duration_us);
                a.rows += q.rows;
            }
        }
        for c in checkpoints {
            let a = by.entry((t.config, c.role.clone())).or_default();
            a.checkpoints.push(c.duration_us);
            a.busy += u64::from(c.busy);
            // Not busy, yet it copied only some frames (PASSIVE beside a reader): unfinished.
            a.partial += u64::from(!c.busy && c.log_frames > 0 && c.checkpointed_frames < c.log_frames);
            a.log_frames += c.log_frames.max(0) as u64;
            a.checkpointed += c.checkpointed_frames.max(0) as u64;
        }
    }
    (by, measured)
}

/// A warning per configuration and backup role whose online backups did not all finish, with
/// the reason the records give: the copy restarted from its first page because another
/// connection wrote between its steps (a stepped backup under steady writers never ends), or
/// the trial ended before it was whole.
pub fn unfinished_backups(trials: &[TrialRecord]) -> Vec<String> {
    let (by, _) = acts(trials);
    by.iter()
        .filter(|(_, a)| a.api_unfinished > 0)
        .map(|((config, role), a)| {
            let runs = a.vacuums.len();
            let why = if a.api_restarts > 0 {
                format!(
                    "SQLite restarted the copy from its first page {} times because another connection wrote between its steps, so under steady writers it never ends; copy in one step (pages = -1 in the role) or with method = \"vacuum-into\"",
                    a.api_restarts
                )
            } else {
                "the trial ended before the copy was whole; give the backup more time (a longer trial or fewer pauses) or copy in one step (pages = -1 in the role)".to_string()
            };
            format!(
                "#{config} {role}: {} of {runs} backup{} never finished: {why}",
                a.api_unfinished,
                if runs == 1 { "" } else { "s" }
            )
        })
        .collect()
}

#[derive(Default)]
struct Acts {
    holds: u64,
    held_ms: u64,
    /// Each hold's report query's duration, microseconds, and the rows they read in all.
    queries: Vec<u64>,
    rows: u64,
    /// Each checkpoint's duration, microseconds.
    checkpoints: Vec<u64>,
    busy: u64,
    /// Checkpoints not busy that copied only some of the WAL's frames.
    partial: u64,
    log_frames: u64,
    checkpointed: u64,
    sidecars: u64,
    killed: u64,
    cpu_ms: u64,
    read_bytes: u64,
    write_bytes: u64,
    /// Each vacuum's (or backup's) duration, microseconds, and the free pages they freed in all.
    vacuums: Vec<u64>,
    /// A backup role's method (its durations are in `vacuums`).
    backup: Option<&'static str>,
    freed: u64,
    /// An online backup's (method api) steps, busy or locked steps retried, restarts from the
    /// first page and copies the trial's end cut short, over its runs.
    api_steps: u64,
    api_retried: u64,
    api_restarts: u64,
    api_unfinished: u64,
}

/// A sorted list's median and largest, microseconds.
fn p50_max(us: &mut [u64]) -> (u64, u64) {
    us.sort_unstable();
    (us[(us.len() - 1) / 2], us.last().copied().unwrap_or(0))
}

fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1000.0)
}

impl Acts {
    /// kind, count, five dashes, cpu s, read/write MB: per trial.
    fn sidecar_cells(&self, trials: u64) -> Vec<String> {
        let per = |v: u64, unit: f64| format!("{:.2}", v as f64 / unit / trials as f64);
        vec![
            if self.killed > 0 {
                format!("sidecar, {} killed", self.killed)
            } else {
                "sidecar".into()
            },
            self.sidecars.to_string(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            per(self.cpu_ms, 1000.0),
            format!("{}/{}", per(self.read_bytes, 1e6), per(self.write_bytes, 1e6)),
        ]
    }

    /// A vacuum or backup role: its kind (a backup's method and, with the api, its steps),
    /// count, busy, durations.
    fn run_cells(&mut self) -> Vec<String> {
        let (p50, max) = p50_max(&mut self.vacuums);
        let kind = match self.backup {
            None => "vacuum".into(),
            Some(m) if self.api_steps > 0 => {
                let unfinished = if self.api_unfinished > 0 {
                    format!(", {} unfinished", self.api_unfinished)
                } else {
                    String::new()
                };
                format!(
                    "backup {m}: {} steps, {} retried, {} restarts{unfinished}",
                    self.api_steps, self.api_retried, self.api_restarts
                )
            }
            Some(m) => format!("backup {m}"),
        };
        vec![
            kind,
            self.vacuums.len().to_string(),
            self.busy.to_string(),
            "-".into(),
            ms(p50),
            ms(max),
            "-".into(),
        ]
    }

    /// A hold role: its count and seconds held per trial; with a report query, the query's
    /// durations and the rows each read.
    fn hold_cells(&mut self, trials: u64) -> Vec<String> {
        let (kind, p50, max) = if self.queries.is_empty() {
            ("hold".to_string(), "-".to_string(), "-".to_string())
        } else {
            let rows = self.rows / self.queries.len() as u64;
            let (p50, max) = p50_max(&mut self.queries);
            (format!("hold, query: {rows} rows"), ms(p50), ms(max))
        };
        vec![
            kind,
            self.holds.to_string(),
            "-".into(),
            "-".into(),
            p50,
            max,
            format!("{:.1}", self.held_ms as f64 / 1000.0 / trials as f64),
        ]
    }

    /// A checkpoint role: count, busy (and partial: not busy, but not every frame copied),
    /// frames checkpointed of frames in the WAL, durations.
    fn checkpoint_cells(&mut self) -> Vec<String> {
        let (p50, max) = p50_max(&mut self.checkpoints);
        let busy = if self.partial > 0 {
            format!("{} +{} partial", self.busy, self.partial)
        } else {
            self.busy.to_string()
        };
        vec![
            "checkpoint".into(),
            self.checkpoints.len().to_string(),
            busy,
            format!("{}/{}", self.checkpointed, self.log_frames),
            ms(p50),
            ms(max),
            "-".into(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cast::{Backup, BackupApiRun, BackupMethod, Checkpoint};
    use crate::report::html::data::tests::hold;

    /// Issue 46, item 31: a stepped backup that never finished is warned of, with why: its
    /// restarts (another connection wrote between its steps) or the trial's end.
    #[test]
    fn a_backup_that_never_finished_is_warned_of_with_its_reason() {
        let trial = |restarts, finished| TrialRecord {
            cast: Some(CastEvents {
                backups: vec![Backup {
                    role: "backup".into(),
                    method: BackupMethod::Api,
                    t_ms: 0,
                    duration_us: 5_000_000,
                    busy: false,
                    source_pages: 100,
                    pages: 0,
                    bytes: 0,
                    api: Some(BackupApiRun {
                        steps: 50,
                        retried: 0,
                        restarts,
                        finished,
                    }),
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let w = unfinished_backups(&[trial(41, false)]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("#0 backup: 1 of 1 backup never finished"), "{w:?}");
        assert!(
            w[0].contains("restarted the copy from its first page 41 times"),
            "{w:?}"
        );
        assert!(unfinished_backups(&[trial(0, false)])[0].contains("the trial ended before"));
        assert!(unfinished_backups(&[trial(3, true)]).is_empty());
    }

    #[test]
    fn holds_and_checkpoints_are_counted_per_configuration_and_role_over_measured_trials() {
        let ckpt = |busy, us| Checkpoint {
            role: "ckpt".into(),
            t_ms: 0,
            busy,
            log_frames: 10,
            checkpointed_frames: if busy { 4 } else { 10 },
            duration_us: us,
        };
        let trial = |warmup: bool| TrialRecord {
            warmup,
            cast: Some(CastEvents {
                holds: vec![hold("holder", 0, 500)],
                checkpoints: vec![ckpt(false, 1000), ckpt(true, 3000), ckpt(false, 2000)],
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(section(&[TrialRecord::default()]).is_none());
        let s = section(&[trial(true), trial(false), trial(false)]).unwrap();
        assert_eq!(s.rows.len(), 2);
        assert_eq!(
            s.rows[0],
            ["0", "ckpt", "checkpoint", "6", "2", "48/60", "2.00", "3.00", "-"]
        );
        assert_eq!(s.rows[1], ["0", "holder", "hold", "2", "-", "-", "-", "-", "0.5"]);
        assert_eq!(s.headers.len(), 9, "no sidecar, no sidecar columns");
    }

    /// A PASSIVE checkpoint is never busy; one that copied only some frames is counted apart,
    /// not as finished.
    #[test]
    fn checkpoints_that_copied_part_of_the_wal_are_counted_partial() {
        let ckpt = |copied| Checkpoint {
            role: "ckpt".into(),
            t_ms: 0,
            busy: false,
            log_frames: 16292,
            checkpointed_frames: copied,
            duration_us: 1000,
        };
        let t = TrialRecord {
            cast: Some(CastEvents {
                checkpoints: vec![ckpt(7480), ckpt(16292)],
                ..Default::default()
            }),
            ..Default::default()
        };
        let s = section(&[t]).unwrap();
        assert_eq!(s.rows[0][4], "0 +1 partial", "{:?}", s.rows[0]);
    }

    #[test]
    fn a_sidecars_cpu_and_io_are_given_per_trial_and_a_kill_is_said() {
        let run = |stopped, cpu_ms| crate::model::cast::SidecarRun {
            role: "litestream".into(),
            pid: 7,
            start_ms: 0,
            ran_ms: 2000,
            cpu_ms,
            read_bytes: 1_000_000,
            write_bytes: 3_000_000,
            exit: "exit 0".into(),
            stopped,
        };
        let trial = |stopped, cpu_ms| TrialRecord {
            cast: Some(CastEvents {
                holds: vec![hold("holder", 0, 500)],
                sidecars: vec![run(stopped, cpu_ms)],
                ..Default::default()
            }),
            ..Default::default()
        };
        use crate::sys::sidecar::Stopped;
        let s = section(&[trial(Stopped::Term, 100), trial(Stopped::Kill, 300)]).unwrap();
        assert_eq!(s.headers.len(), 11);
        assert_eq!(
            s.rows[1],
            [
                "0",
                "litestream",
                "sidecar, 1 killed",
                "2",
                "-",
                "-",
                "-",
                "-",
                "-",
                "0.20",
                "1.00/3.00"
            ]
        );
        assert_eq!(s.rows[0][9..], ["-", "-"], "a hold has no cpu column of its own");
    }

    #[test]
    fn vacuums_are_counted_with_their_durations_and_the_pages_they_freed() {
        use crate::model::cast::{BeforeAfter, Vacuum};
        let vacuum = |busy, us, freed| Vacuum {
            role: "vac".into(),
            t_ms: 0,
            duration_us: us,
            busy,
            page_count: BeforeAfter {
                before: 100,
                after: 100 - freed,
            },
            freelist_count: BeforeAfter {
                before: freed,
                after: 0,
            },
            file_bytes: BeforeAfter { before: 0, after: 0 },
        };
        let trial = TrialRecord {
            cast: Some(CastEvents {
                vacuums: vec![vacuum(false, 4000, 30), vacuum(true, 1000, 0), vacuum(false, 2000, 10)],
                holds: vec![hold("holder", 0, 500)],
                ..Default::default()
            }),
            ..Default::default()
        };
        let s = section(&[trial]).unwrap();
        assert_eq!(s.headers.last(), Some(&"pages freed"));
        assert_eq!(
            s.rows[1],
            ["0", "vac", "vacuum", "3", "1", "-", "2.00", "4.00", "-", "40"]
        );
        assert_eq!(s.rows[0][9], "-", "a hold frees no pages");
    }
}
