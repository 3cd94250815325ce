//! What held a WAL's checkpoints back, named only from what ran.
//!
//! A checkpoint copies frames into the database file up to the oldest snapshot any reader
//! still uses, and restarts the WAL only when no reader uses any frame of it. So whatever kept
//! a snapshot open (a hold role, a backup copying the database, a sidecar such as a replicator,
//! a long transaction) or wrote faster than checkpoints could copy (an open loop draining a
//! backlog after it fell behind its schedule) is why a WAL grew past its checkpoint's size. A
//! verdict that says "a reader holds an older snapshot" where no reader ran sends the user
//! after a cause that is not there; so each cause here is one the trial records show ran:
//! a cast's holds, busy checkpoints, backups and sidecars, a closed-loop transaction longer
//! than [`LONG_TRANSACTION_NS`], and open-loop intervals whose median transaction was more than
//! [`BACKLOG_NS`] behind its schedule.

use crate::model::load::LoadShape;
use crate::model::record::TrialRecord;
use crate::model::series::Milestone;
use std::collections::BTreeMap;

/// A closed-loop transaction at least this long kept its snapshot long enough to be named.
pub const LONG_TRANSACTION_NS: u64 = 1_000_000_000;

/// An open-loop interval whose median transaction was this far behind its schedule was
/// draining a backlog.
pub const BACKLOG_NS: u64 = 1_000_000_000;

/// Each thing that ran and can hold checkpoints back, per trial of `trials`, in words; empty
/// when nothing did.
pub fn held_back(load: &LoadShape, trials: &[&TrialRecord]) -> Vec<String> {
    let n = trials.len().max(1) as f64;
    let mut out = cast_causes(trials, n);
    out.extend(long_transactions(load, trials));
    out.extend(backlog(load, trials, n));
    out
}

/// A cast's holds, busy checkpoints, backups and sidecars, per role.
fn cast_causes(trials: &[&TrialRecord], n: f64) -> Vec<String> {
    let mut holds: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    let mut checkpoints: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut backups: BTreeMap<&str, (usize, u64, usize)> = BTreeMap::new();
    let mut sidecars: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    for e in trials.iter().filter_map(|t| t.cast.as_ref()) {
        for h in &e.holds {
            let v = holds.entry(h.role.as_str()).or_default();
            v.0 += 1;
            v.1 += h.end_ms.saturating_sub(h.start_ms);
        }
        for c in &e.checkpoints {
            let v = checkpoints.entry(c.role.as_str()).or_default();
            v.0 += usize::from(c.busy);
            v.1 += 1;
        }
        for b in e.backups.iter().filter(|b| !b.busy) {
            let v = backups.entry(b.role.as_str()).or_default();
            v.0 += 1;
            v.1 += b.duration_us / 1000;
            v.2 += usize::from(b.api.is_some_and(|a| !a.finished));
        }
        for s in &e.sidecars {
            let v = sidecars.entry(s.role.as_str()).or_default();
            v.0 += 1;
            v.1 += s.ran_ms;
        }
    }
    let per = |count: usize, ms: u64| {
        format!(
            "{:.1} times for {:.1} s per trial",
            count as f64 / n,
            ms as f64 / 1000.0 / n
        )
    };
    let mut parts: Vec<String> = holds
        .iter()
        .map(|(role, (count, ms))| format!("role {role} held a snapshot {}", per(*count, *ms)))
        .collect();
    parts.extend(
        checkpoints
            .iter()
            .filter(|(_, (busy, _))| *busy > 0)
            .map(|(role, (busy, all))| format!("{busy} of role {role}'s {all} checkpoints were busy")),
    );
    parts.extend(backups.iter().map(|(role, (count, ms, unfinished))| {
        let never = if *unfinished > 0 {
            format!(", {unfinished} of them never finished")
        } else {
            String::new()
        };
        format!("role {role}'s backup read the database {}{never}", per(*count, *ms))
    }));
    parts.extend(
        sidecars
            .iter()
            .map(|(role, (_, ms))| format!("sidecar role {role} ran {:.1} s per trial", *ms as f64 / 1000.0 / n)),
    );
    parts
}

/// Whether operation `name` (a role's `ROLE:OP`, or a plain one) ran in a closed loop: a
/// latency then is the transaction's own, not a wait behind an open loop's schedule.
fn closed_loop(load: &LoadShape, name: &str) -> bool {
    match (&load.cast, crate::model::cast::role_of(name)) {
        (Some(cast), Some(role)) => cast.roles.iter().any(|r| r.name == role && r.rate.is_none()),
        _ => load.rate.is_none(),
    }
}

/// Closed-loop transactions that ran at least [`LONG_TRANSACTION_NS`]: the longest per
/// operation.
fn long_transactions(load: &LoadShape, trials: &[&TrialRecord]) -> Vec<String> {
    let mut longest: BTreeMap<&str, u64> = BTreeMap::new();
    for t in trials {
        for o in t
            .ops
            .iter()
            .filter(|o| o.part_of.is_none() && closed_loop(load, &o.name))
        {
            if crate::model::cast::role_total(&o.name).is_some() || o.latency.max_ns < LONG_TRANSACTION_NS {
                continue;
            }
            let v = longest.entry(o.name.as_str()).or_default();
            *v = (*v).max(o.latency.max_ns);
        }
    }
    longest
        .iter()
        .map(|(op, ns)| format!("a {op} transaction ran {:.1} s, keeping its snapshot", *ns as f64 / 1e9))
        .collect()
}

/// Open-loop intervals whose median transaction started more than [`BACKLOG_NS`] behind its
/// schedule (or that counted late ones): a backlog drained as fast as the writers could.
fn backlog(load: &LoadShape, trials: &[&TrialRecord], n: f64) -> Option<String> {
    let mut behind = 0usize;
    for t in trials {
        let Some(s) = &t.series else { continue };
        let mut times: Vec<u64> = s
            .points
            .iter()
            .filter(|p| !closed_loop(load, &p.op))
            .filter(|p| p.late > 0 || p.p50_us.is_some_and(|us| us * 1000.0 >= BACKLOG_NS as f64))
            .map(|p| p.t_ms)
            .collect();
        times.dedup();
        behind += times.len();
    }
    (behind > 0).then(|| {
        format!(
            "an open loop's backlog: in {:.1} intervals per trial the median transaction ran over {:.0} s behind its schedule",
            behind as f64 / n,
            BACKLOG_NS as f64 / 1e9
        )
    })
}

/// What ran between `from_ms` and `to_ms` of `t` that writes much at once: a cast's vacuums
/// and backups (by start) and holds, and the workload's own `milestones`, each with its time.
pub fn at_step(t: &TrialRecord, from_ms: u64, to_ms: u64, milestones: &[Milestone]) -> Vec<String> {
    let s = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
    let within = |start: u64, end: u64| start <= to_ms && end >= from_ms;
    let mut out: Vec<(u64, String)> = Vec::new();
    if let Some(e) = &t.cast {
        for v in e.vacuums.iter().filter(|v| !v.busy) {
            if within(v.t_ms, v.t_ms + v.duration_us / 1000) {
                out.push((v.t_ms, format!("role {}'s vacuum at {}", v.role, s(v.t_ms))));
            }
        }
        for b in e.backups.iter().filter(|b| !b.busy) {
            if within(b.t_ms, b.t_ms + b.duration_us / 1000) {
                out.push((b.t_ms, format!("role {}'s backup at {}", b.role, s(b.t_ms))));
            }
        }
        for h in e.holds.iter().filter(|h| within(h.start_ms, h.end_ms)) {
            out.push((h.start_ms, format!("role {}'s hold from {}", h.role, s(h.start_ms))));
        }
    }
    for m in milestones.iter().filter(|m| within(m.t_ms, m.until_ms)) {
        out.push((m.t_ms, format!("{} ({}-{})", m.what, s(m.t_ms), s(m.until_ms))));
    }
    out.sort_by_key(|o| o.0);
    out.into_iter().map(|o| o.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cast::{Backup, BackupApiRun, BackupMethod, CastEvents, Checkpoint, Hold, SidecarRun};
    use crate::model::series::{Series, SeriesPoint};

    fn checkpoint(busy: bool) -> Checkpoint {
        Checkpoint {
            role: "ckpt".into(),
            t_ms: 0,
            busy,
            log_frames: 10,
            checkpointed_frames: 5,
            duration_us: 100,
        }
    }

    /// A cast's hold role and its busy checkpoints are named, per trial; without a cast, or
    /// with checkpoints that were never busy and no holds, nothing is.
    #[test]
    fn a_hold_role_and_busy_checkpoints_are_named() {
        let trial = |holds: Vec<Hold>, busy: bool| TrialRecord {
            cast: Some(CastEvents {
                holds,
                checkpoints: vec![checkpoint(busy), checkpoint(false)],
                ..CastEvents::default()
            }),
            ..TrialRecord::default()
        };
        let hold = |start_ms: u64, end_ms: u64| Hold {
            role: "holder".into(),
            start_ms,
            end_ms,
            query: None,
        };
        let a = trial(vec![hold(0, 3000), hold(6000, 9000)], true);
        let b = trial(vec![hold(0, 3000)], true);
        let m = LoadShape::default();
        assert_eq!(
            held_back(&m, &[&a, &b]).join("; "),
            "role holder held a snapshot 1.5 times for 4.5 s per trial; 2 of role ckpt's 4 checkpoints were busy"
        );
        let quiet = trial(Vec::new(), false);
        assert!(held_back(&m, &[&quiet]).is_empty());
        assert!(held_back(&m, &[&TrialRecord::default()]).is_empty());
    }

    /// A stepped backup that never finished, a sidecar and an open loop's backlog are each
    /// named; a closed loop's long transaction is, an open loop's long wait is the backlog's.
    #[test]
    fn a_backup_a_sidecar_a_backlog_and_a_long_transaction_are_named() {
        let backup = Backup {
            role: "nightly".into(),
            method: BackupMethod::Api,
            t_ms: 1000,
            duration_us: 4_000_000,
            busy: false,
            source_pages: 100,
            pages: 0,
            bytes: 0,
            api: Some(BackupApiRun {
                steps: 40,
                retried: 0,
                restarts: 39,
                finished: false,
            }),
        };
        let sidecar = SidecarRun {
            role: "litestream".into(),
            pid: 1,
            start_ms: 0,
            ran_ms: 6000,
            cpu_ms: 10,
            read_bytes: 0,
            write_bytes: 0,
            exit: "exit 0".into(),
            stopped: crate::sys::sidecar::Stopped::Term,
        };
        let point = |t_ms: u64, p50_s: f64| SeriesPoint {
            t_ms,
            op: "tx".into(),
            ops: 10,
            p50_us: Some(p50_s * 1e6),
            ..SeriesPoint::default()
        };
        let t = TrialRecord {
            cast: Some(CastEvents {
                backups: vec![backup],
                sidecars: vec![sidecar],
                ..CastEvents::default()
            }),
            series: Some(Series {
                interval_ms: 1000,
                points: vec![point(0, 0.01), point(1000, 2.5), point(2000, 1.2)],
                ..Series::default()
            }),
            ops: vec![crate::model::op::OpResult {
                name: "tx".into(),
                latency: crate::model::op::Latency {
                    max_ns: 3_000_000_000,
                    ..Default::default()
                },
                ..Default::default()
            }],
            ..TrialRecord::default()
        };
        let open = LoadShape {
            rate: Some(300.0),
            ..LoadShape::default()
        };
        let got = held_back(&open, &[&t]);
        assert_eq!(
            got,
            vec![
                "role nightly's backup read the database 1.0 times for 4.0 s per trial, 1 of them never finished",
                "sidecar role litestream ran 6.0 s per trial",
                "an open loop's backlog: in 2.0 intervals per trial the median transaction ran over 1 s behind its schedule",
            ]
        );
        let closed = LoadShape::default();
        let got = held_back(&closed, &[&t]);
        assert_eq!(got[2], "a tx transaction ran 3.0 s, keeping its snapshot", "{got:?}");
        assert_eq!(got.len(), 3, "a closed loop has no backlog: {got:?}");
    }
}
