//! Whether a run's records add up: every trial and template against its manifest.
//!
//! Records litebench reads from a file it did not just write (a side file, imported by the next
//! run or by `merge`) may be damaged or forged. The reports index configurations by a trial's
//! `config` and divide counts by times, so a record that names a configuration the manifest
//! lacks, or whose rates do not follow from its counts and times, would crash a report or put
//! an impossible figure (300,000,000,000 transactions a second) under a real run's name. This
//! module checks what litebench's own records always satisfy, so a real record never fails:
//!
//! - the manifest lists its configurations, each at its own index, and a preset entry for each;
//! - every trial and template names one of them, and no two trials share a position (`seq`);
//! - a trial's `total_ops` is the sum of its whole operation types' counts (as the runner sums
//!   them), its `throughput` is `total_ops` per second of `measured_ns` (0 when nothing was
//!   measured), and no more than one operation per nanosecond per client was done (no real
//!   operation, not even an in-memory one, takes under a nanosecond);
//! - per operation type: `succeeded` at most `ops`, `busy` at most `failed`, and at most one
//!   operation per nanosecond of its measured time per client;
//! - a template's rate is its rows per second of population.

use crate::model::record::{Manifest, TemplateRecord, TrialRecord};
use std::collections::HashSet;

/// Relative difference allowed between a stored rate and the one its counts and time give
/// (the JSON round trip is exact; this only absorbs the rounding of the division).
const RATE_TOLERANCE: f64 = 1e-9;

/// What does not add up, in words naming the record.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Inconsistent {
    #[error("its manifest lists no configurations")]
    NoConfigurations,
    #[error("configuration {position} of the manifest says it is number {index}")]
    ConfigIndex { position: usize, index: usize },
    #[error("the manifest names presets for {presets} configurations, but lists {configs}")]
    Presets { presets: usize, configs: usize },
    #[error("trial {seq} names configuration {config}, but the manifest has {configs} (0 to {last})", last = configs - 1)]
    TrialConfig { seq: u64, config: usize, configs: usize },
    #[error("template of {engine} names configuration {config}, but the manifest has {configs} (0 to {last})", last = configs - 1)]
    TemplateConfig {
        engine: String,
        config: usize,
        configs: usize,
    },
    #[error("two trials are number {seq}")]
    DuplicateSeq { seq: u64 },
    #[error("trial {seq} counts {total} operations in all, but its operation types {sum}")]
    TotalOps { seq: u64, total: u64, sum: u64 },
    #[error("trial {seq} states {stated} operations/s, but {total} operations in {ns} ns are {follows} operations/s")]
    Throughput {
        seq: u64,
        stated: f64,
        total: u64,
        ns: u64,
        follows: f64,
    },
    #[error("trial {seq}: {ops} {what} operations in {ns} ns by {clients} client(s) is more than one per nanosecond per client")]
    TooFast {
        seq: u64,
        what: String,
        ops: u64,
        ns: u64,
        clients: u32,
    },
    #[error("trial {seq}, operation {op}: {part} {count} is more than its {whole} {of}")]
    Part {
        seq: u64,
        op: String,
        part: &'static str,
        count: u64,
        whole: &'static str,
        of: u64,
    },
    #[error("template of {engine} states {stated} rows/s, but {rows} rows in {ns} ns are {follows} rows/s")]
    TemplateRate {
        engine: String,
        stated: f64,
        rows: u64,
        ns: u64,
        follows: f64,
    },
}

/// `count` per second of `ns` nanoseconds, as the runner computes it (0 for no time).
fn rate(count: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        count as f64 / (ns as f64 / 1e9)
    }
}

/// Whether a stored rate is the one its counts and time give.
fn follows(stated: f64, expected: f64) -> bool {
    stated.is_finite() && (stated - expected).abs() <= RATE_TOLERANCE * expected.abs().max(1.0)
}

/// Whether `ops` operations fit in `ns` nanoseconds for `clients` clients.
fn possible(ops: u64, ns: u64, clients: u32) -> bool {
    u128::from(ops) <= u128::from(ns) * u128::from(clients.max(1))
}

/// Checks a run's trials and templates against its manifest.
pub fn check(manifest: &Manifest, templates: &[TemplateRecord], trials: &[TrialRecord]) -> Result<(), Inconsistent> {
    let configs = manifest.configs.len();
    if configs == 0 {
        return Err(Inconsistent::NoConfigurations);
    }
    if let Some((position, c)) = manifest.configs.iter().enumerate().find(|(i, c)| c.index != *i) {
        return Err(Inconsistent::ConfigIndex {
            position,
            index: c.index,
        });
    }
    if let Some(p) = &manifest.presets {
        let presets = p.measured.len().max(p.names.len());
        if p.measured.len() != configs || p.names.len() != configs {
            return Err(Inconsistent::Presets { presets, configs });
        }
    }
    for t in templates {
        if t.config >= configs {
            return Err(Inconsistent::TemplateConfig {
                engine: t.engine.clone(),
                config: t.config,
                configs,
            });
        }
        let expected = rate(t.rows, t.populate_ns);
        if !follows(t.rows_per_sec, expected) {
            return Err(Inconsistent::TemplateRate {
                engine: t.engine.clone(),
                stated: t.rows_per_sec,
                rows: t.rows,
                ns: t.populate_ns,
                follows: expected,
            });
        }
    }
    let mut seen = HashSet::new();
    for t in trials {
        let seq = t.seq;
        if t.config >= configs {
            return Err(Inconsistent::TrialConfig {
                seq,
                config: t.config,
                configs,
            });
        }
        if !seen.insert(seq) {
            return Err(Inconsistent::DuplicateSeq { seq });
        }
        let sum = t
            .ops
            .iter()
            .filter(|o| o.part_of.is_none())
            .try_fold(0u64, |acc, o| acc.checked_add(o.ops));
        if sum != Some(t.total_ops) {
            return Err(Inconsistent::TotalOps {
                seq,
                total: t.total_ops,
                sum: sum.unwrap_or(u64::MAX),
            });
        }
        let expected = rate(t.total_ops, t.measured_ns);
        if !follows(t.throughput, expected) {
            return Err(Inconsistent::Throughput {
                seq,
                stated: t.throughput,
                total: t.total_ops,
                ns: t.measured_ns,
                follows: expected,
            });
        }
        // A sweep's configurations each have their clients.
        let clients = manifest.load_of(t.config).clients;
        if !possible(t.total_ops, t.measured_ns, clients) {
            return Err(Inconsistent::TooFast {
                seq,
                what: "measured".into(),
                ops: t.total_ops,
                ns: t.measured_ns,
                clients,
            });
        }
        for o in &t.ops {
            let part = |part, count, whole, of| Inconsistent::Part {
                seq,
                op: o.name.clone(),
                part,
                count,
                whole,
                of,
            };
            if o.succeeded() > o.ops {
                return Err(part("succeeded", o.succeeded(), "operations", o.ops));
            }
            if o.busy > o.failed {
                return Err(part("busy", o.busy, "failed", o.failed));
            }
            let by_cause = busy_by_cause(o);
            if by_cause > o.busy {
                return Err(part("busy by cause", by_cause, "busy", o.busy));
            }
            // A type's own time may be unset (0) where the workload times it with the trial's.
            if o.elapsed_ns > 0 && !possible(o.ops, o.elapsed_ns, clients) {
                return Err(Inconsistent::TooFast {
                    seq,
                    what: o.name.clone(),
                    ops: o.ops,
                    ns: o.elapsed_ns,
                    clients,
                });
            }
        }
    }
    Ok(())
}

/// An operation's give-ups counted by cause, every cause summed (a stored result without
/// causes counts none).
fn busy_by_cause(o: &crate::model::op::OpResult) -> u64 {
    [
        o.busy_timeout,
        o.busy_upgrade,
        o.busy_snapshot,
        o.busy_serialization,
        o.busy_deadlock,
        o.busy_lock_wait,
    ]
    .iter()
    .flatten()
    .fold(0u64, |s, n| s.saturating_add(*n))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::op::OpResult;
    use crate::model::record::ConfigInfo;

    pub(crate) fn config(index: usize) -> ConfigInfo {
        ConfigInfo {
            index,
            engine: "sqlite".into(),
            knobs: Default::default(),
            label: "sqlite".into(),
            knob_origins: Vec::new(),
            fs: None,
            scheduler: None,
            scheduler_device: None,
            storage: None,
            load: None,
            extension: None,
            driver: None,
            role_drivers: Vec::new(),
        }
    }

    fn op(name: &str, ops: u64, elapsed_ns: u64) -> OpResult {
        OpResult {
            name: name.into(),
            ops,
            succeeded: Some(ops),
            elapsed_ns,
            ..Default::default()
        }
    }

    /// A trial as the runner makes it: 300 inserts and 200 reads in 1 ms.
    fn trial(seq: u64) -> TrialRecord {
        let ops = vec![op("insert", 300, 600_000), op("read", 200, 400_000)];
        TrialRecord {
            seq,
            total_ops: 500,
            measured_ns: 1_000_000,
            throughput: 500.0 / (1_000_000f64 / 1e9),
            ops,
            ..Default::default()
        }
    }

    fn manifest_json() -> serde_json::Value {
        // The parts of a manifest these checks read; the rest as a run of no consequence.
        let dir = tempfile::tempdir().unwrap();
        serde_json::json!({
            "tool_version": "t", "command": [], "started_at": "2024-01-01T00:00:00Z",
            "workload": "crud", "workload_source": "s", "params": {}, "seed": 1, "trials": 1,
            "warmup": 0, "cold_cache": false, "in_memory": false, "engines": [],
            "configs": [serde_json::to_value(config(0)).unwrap()],
            "environment": serde_json::to_value(litebench_env::capture(dir.path()).unwrap()).unwrap(),
            "sync_latency": null, "scratch_dir": "/s"
        })
    }

    fn manifest() -> Manifest {
        serde_json::from_value(manifest_json()).unwrap()
    }

    #[test]
    fn records_as_litebench_writes_them_pass() {
        let m = manifest();
        check(&m, &[], &[trial(0), trial(1)]).unwrap();
        let mut idle = trial(2);
        (idle.ops, idle.total_ops, idle.measured_ns, idle.throughput) = (vec![op("insert", 0, 0)], 0, 0, 0.0);
        check(&m, &[], &[idle]).unwrap();
        // A statement timed inside its script's transaction is not in the total.
        let mut parts = trial(3);
        parts.ops.push(OpResult {
            part_of: Some("insert".into()),
            ..op("stmt", 300, 0)
        });
        check(&m, &[], &[parts]).unwrap();
    }

    #[test]
    fn forged_records_are_refused_naming_what_is_wrong() {
        let m = manifest();
        let mut none = m.clone();
        none.configs.clear();
        assert_eq!(check(&none, &[], &[]), Err(Inconsistent::NoConfigurations));
        let mut far = trial(0);
        far.config = 4_000_000_000;
        assert_eq!(
            check(&m, &[], &[far]).unwrap_err().to_string(),
            "trial 0 names configuration 4000000000, but the manifest has 1 (0 to 0)"
        );
        assert!(matches!(
            check(&m, &[], &[trial(1), trial(1)]),
            Err(Inconsistent::DuplicateSeq { seq: 1 })
        ));
        let mut total = trial(0);
        total.total_ops = 501;
        assert!(matches!(check(&m, &[], &[total]), Err(Inconsistent::TotalOps { .. })));
        let mut rate = trial(0);
        rate.throughput = 3e11;
        assert!(matches!(check(&m, &[], &[rate]), Err(Inconsistent::Throughput { .. })));
        // Consistent, but 300 billion a second: 300 operations per nanosecond.
        let mut fast = trial(0);
        fast.ops = vec![op("insert", 300_000_000_000, 1_000_000_000)];
        fast.total_ops = 300_000_000_000;
        fast.measured_ns = 1_000_000_000;
        fast.throughput = 3e11;
        assert!(matches!(check(&m, &[], &[fast]), Err(Inconsistent::TooFast { .. })));
        // Only the insert type's own time is forged.
        let mut op_fast = trial(0);
        op_fast.ops[0].elapsed_ns = 1;
        assert!(
            check(&m, &[], &[op_fast]).unwrap_err().to_string().contains("insert"),
            "names the operation"
        );
        let mut busy = trial(0);
        busy.ops[0].busy = 1;
        assert!(matches!(check(&m, &[], &[busy]), Err(Inconsistent::Part { .. })));
        let mut causes = trial(0);
        causes.ops[0].failed = 2;
        causes.ops[0].busy = 2;
        causes.ops[0].busy_upgrade = Some(2);
        assert!(check(&m, &[], &[causes.clone()]).is_ok());
        causes.ops[0].busy_snapshot = Some(1);
        assert!(matches!(check(&m, &[], &[causes]), Err(Inconsistent::Part { .. })));
        let mut shifted = m.clone();
        shifted.configs[0].index = 7;
        assert!(matches!(
            check(&shifted, &[], &[]),
            Err(Inconsistent::ConfigIndex { .. })
        ));
    }

    #[test]
    fn templates_name_a_configuration_and_state_their_own_rate() {
        let m = manifest();
        let good = TemplateRecord {
            config: 0,
            engine: "sqlite".into(),
            create_knobs: String::new(),
            rows: 1000,
            populate_ns: 2_000_000,
            rows_per_sec: 1000.0 / 0.002,
            bytes: None,
            load_path: None,
        };
        check(&m, std::slice::from_ref(&good), &[]).unwrap();
        let far = TemplateRecord {
            config: 1,
            ..good.clone()
        };
        assert!(matches!(
            check(&m, &[far], &[]),
            Err(Inconsistent::TemplateConfig { .. })
        ));
        let fast = TemplateRecord {
            rows_per_sec: 1e15,
            ..good
        };
        assert!(matches!(
            check(&m, &[fast], &[]),
            Err(Inconsistent::TemplateRate { .. })
        ));
    }
}
