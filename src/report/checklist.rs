//! The reporting checklist of the APSys'17 paper, filled in from a run's manifest and trials.
//!
//! The paper found that none of 16 papers reported every parameter needed to compare SQLite
//! results. litebench prints the list under every report and marks what it could not determine
//! as unknown instead of leaving it out.

use crate::model::record::{Manifest, TrialRecord, NOT_MEASURED_IN_MEMORY};
use serde::{Deserialize, Serialize};

/// One item of the checklist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChecklistItem {
    pub item: String,
    /// The value, or `unknown`; per configuration (`#0: delete; #1: wal`) when they differ.
    pub value: String,
    pub known: bool,
}

fn item(name: &str, value: Option<String>) -> ChecklistItem {
    ChecklistItem {
        item: name.into(),
        known: value.is_some(),
        value: value.unwrap_or_else(|| "unknown".into()),
    }
}

/// Effective value of knob `name` per configuration (from its first measured trial).
fn knob_values(manifest: &Manifest, trials: &[TrialRecord], names: &[&str]) -> Option<String> {
    // Only configurations whose engine has the knob (SQLite's pragmas mean nothing for a
    // server); a configuration that has it but could not read it makes the item unknown.
    let mut per_config: Vec<(usize, String)> = Vec::new();
    for cfg in &manifest.configs {
        let t = trials
            .iter()
            .find(|t| t.config == cfg.index && !t.warmup)
            .or_else(|| trials.iter().find(|t| t.config == cfg.index))?;
        if !names.iter().any(|n| t.knobs.iter().any(|k| k.name == *n)) {
            continue;
        }
        let mut parts = Vec::new();
        for n in names {
            let eff = match super::drivers::effective(manifest, cfg, n) {
                Some(v) => v,
                None => t.knobs.iter().find(|k| k.name == *n)?.effective.clone()?,
            };
            parts.push(if names.len() > 1 { format!("{n}={eff}") } else { eff });
        }
        per_config.push((cfg.index, parts.join(", ")));
    }
    if per_config.is_empty() {
        return (!manifest.configs.is_empty() && !trials.is_empty())
            .then(|| "n/a: no engine of this run has it".to_string());
    }
    let all_same = per_config.iter().all(|(_, v)| *v == per_config[0].1);
    if all_same && per_config.len() == manifest.configs.len() {
        Some(per_config[0].1.clone())
    } else {
        Some(
            per_config
                .iter()
                .map(|(i, v)| format!("#{i}: {v}"))
                .collect::<Vec<_>>()
                .join("; "),
        )
    }
}

/// The durability settings each configuration's engine declares ([`EngineKind::durability_knobs`]),
/// as read back in its first measured trial.
///
/// [`EngineKind::durability_knobs`]: crate::engines::kind::EngineKind::durability_knobs
fn durability(manifest: &Manifest, trials: &[TrialRecord]) -> Option<String> {
    let mut parts = Vec::new();
    for cfg in &manifest.configs {
        let Some(kind) = manifest
            .engines
            .iter()
            .find(|e| e.label == cfg.engine)
            .and_then(|e| crate::engines::registry::kind(&e.kind))
        else {
            continue;
        };
        if kind.durability_knobs.is_empty() {
            parts.push(format!("#{} {}: no durability settings", cfg.index, cfg.engine));
            continue;
        }
        let t = trials
            .iter()
            .find(|t| t.config == cfg.index && !t.warmup)
            .or_else(|| trials.iter().find(|t| t.config == cfg.index))?;
        let values: Vec<String> = kind
            .durability_knobs
            .iter()
            .map(|name| {
                let eff = super::drivers::effective(manifest, cfg, name).or_else(|| {
                    t.knobs
                        .iter()
                        .find(|k| k.name == *name)
                        .and_then(|k| k.effective.clone())
                });
                format!("{name}={}", eff.as_deref().unwrap_or("unknown"))
            })
            .collect();
        parts.push(format!("#{} {}: {}", cfg.index, cfg.engine, values.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Whether every requested knob read back as requested (a run stops when one does not, unless a
/// pass-through setting reads back nothing and `--allow-unverified` let it go on).
fn verified(trials: &[TrialRecord]) -> String {
    let unverified = super::warnings::unverified_knobs(trials);
    if unverified.is_empty() {
        "every requested knob read back as requested".into()
    } else {
        format!(
            "NOT VERIFIED (--allow-unverified): {} read back nothing",
            unverified.join(", ")
        )
    }
}

/// What `--cold` did before each trial, as each engine describes it (`EngineInfo::cold_trial`;
/// runs stored before engines described it say only that the page cache was dropped).
fn cold_trials(manifest: &Manifest) -> String {
    if !manifest.cold_cache {
        return ", warm page cache".into();
    }
    let texts: Vec<(&str, &str)> = manifest
        .engines
        .iter()
        .map(|e| {
            let t = e
                .cold_trial
                .as_deref()
                .unwrap_or("page cache dropped before each trial");
            (e.label.as_str(), t)
        })
        .collect();
    match texts.first() {
        None => ", page cache dropped before each trial".into(),
        Some((_, first)) if texts.iter().all(|(_, t)| t == first) => format!(", {first}"),
        Some(_) => {
            let parts: Vec<String> = texts.iter().map(|(l, t)| format!("{l}: {t}")).collect();
            format!(", {}", parts.join("; "))
        }
    }
}

/// The load shape (`--clients`, `--rate`, ...); a workload's own `clients` parameter (TATP's)
/// counts as clients too.
fn load(manifest: &Manifest) -> String {
    let mut load = manifest.load.clone();
    if load.clients == 1 {
        if let Some(crate::model::params::ParamValue::Count(n)) = manifest.params.0.get("clients") {
            load.clients = (*n).clamp(1, u64::from(u32::MAX)) as u32;
        }
    }
    match manifest.sweeps() {
        true => manifest.load_words(),
        false => load.describe(),
    }
}

/// Fills the checklist.
pub fn checklist(manifest: &Manifest, trials: &[TrialRecord]) -> Vec<ChecklistItem> {
    let st = storage(manifest);
    let m = &manifest.environment.machine;
    let (fs, device, builds, os, params) = (
        filesystem(st),
        device(st),
        builds(manifest),
        os(manifest),
        params(manifest),
    );
    vec![
        item("journal mode", journal_mode(manifest, trials)),
        item("synchronous mode", knob_values(manifest, trials, &["synchronous"])),
        item(
            "WAL autocheckpoint / journal size limit",
            knob_values(manifest, trials, &["wal_autocheckpoint", "journal_size_limit"]),
        ),
        item("page size", knob_values(manifest, trials, &["page_size"])),
        item("cache size", knob_values(manifest, trials, &["cache_size"])),
        item("locking mode", knob_values(manifest, trials, &["locking_mode"])),
        item("mmap size", knob_values(manifest, trials, &["mmap_size"])),
        item(
            "SQLite version and compile options",
            (!manifest.engines.is_empty()).then_some(builds),
        ),
        item("durability settings per engine", durability(manifest, trials)),
        item("knobs verified by read-back", Some(verified(trials))),
        item(
            "filesystem and its journaling mode",
            if manifest.in_memory {
                Some("none: databases in memory (--memory)".into())
            } else if let Some(built) = built_filesystems(manifest) {
                Some(built)
            } else {
                fs
            },
        ),
        item("storage device", device.map(|d| d + &loop_schedulers(manifest))),
        item("OS and kernel", os),
        item(
            "workload parameters (pre-population size, operation counts)",
            Some(format!("{} {}", manifest.workload, params)),
        ),
        item(
            "trials and warm-up",
            Some(format!(
                "{} trials, {} warm-up, configurations interleaved{}",
                manifest.trials,
                manifest.warmup,
                cold_trials(manifest)
            )),
        ),
        item("load: clients, closed or open loop", Some(load(manifest))),
        item("seed", Some(manifest.seed.to_string())),
        item(
            "CPU and memory",
            m.cpu_model.as_ref().map(|c| {
                format!(
                    "{c} x{}, {} MiB",
                    m.cpu_count,
                    m.memory_bytes.map_or("unknown".into(), |b| (b >> 20).to_string())
                )
            }),
        ),
        sync_latency(manifest),
        item(
            "storage emulated or throttled (--storage)",
            Some(storage_words(manifest, trials)),
        ),
    ]
}

/// `--storage` per configuration ([`crate::report::storage::config_done`]): an emulated one
/// says EMULATED with the delays actually slept, a throttled one its cgroup and limits; one
/// line when every configuration ran on the same.
fn storage_words(manifest: &Manifest, trials: &[TrialRecord]) -> String {
    let per_config: Vec<(usize, String)> = manifest
        .configs
        .iter()
        .map(|c| {
            (
                c.index,
                crate::report::storage::config_done(c.storage.as_ref(), trials, c.index),
            )
        })
        .collect();
    match per_config.first() {
        None => crate::report::storage::config_words(None),
        Some((_, first)) if per_config.iter().all(|(_, v)| v == first) => first.clone(),
        Some(_) => per_config
            .iter()
            .map(|(i, v)| format!("#{i}: {v}"))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The storage that matters: the host's under a guest kernel's images, else the run's own.
fn storage(manifest: &Manifest) -> &litebench_env::Storage {
    // In a guest kernel the storage that matters is the host's, under the guest's images.
    manifest
        .guest
        .as_ref()
        .and_then(|g| g.host_storage.as_ref())
        .unwrap_or(&manifest.environment.storage)
}

/// The filesystem, its journaling mode and its mount and superblock options.
fn filesystem(st: &litebench_env::Storage) -> Option<String> {
    st.fs_type.as_ref().map(|t| {
        let mut s = t.clone();
        // As recorded when the run started (never read from this machine now); runs stored
        // before it was recorded may still show it in their superblock options.
        let journaling = st
            .journaling
            .clone()
            .or_else(|| {
                st.super_options
                    .as_deref()
                    .and_then(|o| o.split(',').find(|x| x.starts_with("data=")).map(str::to_string))
            })
            .unwrap_or_else(|| "journaling unknown (not recorded by this run's litebench version)".into());
        s.push_str(&format!(" ({journaling})"));
        s.push_str(&format!(
            ", mount options {}",
            st.mount_options.as_deref().unwrap_or("unknown")
        ));
        if let Some(so) = &st.super_options {
            s.push_str(&format!(", superblock options {so}"));
        }
        if st.ram_backed {
            s.push_str(" [RAM-backed: durability numbers mean nothing here]");
        }
        s
    })
}

/// The storage device: model, rotational, scheduler, write cache, what a loop device is over.
fn device(st: &litebench_env::Storage) -> Option<String> {
    st.device.as_ref().map(|d| {
        format!(
            "{} model {} rotational {} scheduler {} write cache {}{}",
            d.name,
            d.model.as_deref().unwrap_or("unknown"),
            d.rotational.map_or("unknown".to_string(), |r| r.to_string()),
            d.scheduler.as_deref().unwrap_or("unknown"),
            d.write_cache.as_deref().unwrap_or("unknown"),
            d.backing_file
                .as_ref()
                .map_or(String::new(), |b| format!(" (loop over {b})")),
        )
    })
}

/// Each engine's build: SQLite's version, source id and compile options, or its version; then
/// the SQLite each driver carried (`--driver`), which ran those configurations' transactions.
fn builds(manifest: &Manifest) -> String {
    manifest
        .engines
        .iter()
        .map(|e| match &e.sqlite {
            Some(b) => format!(
                "{}: SQLite {} ({}), {} compile options{}",
                e.label,
                b.version,
                b.source_id,
                b.compile_options.len(),
                b.compiled.as_ref().map_or(String::new(), |c| format!(
                    ", compiled by litebench with `{} {}` ({})",
                    c.compiler,
                    c.flags.join(" "),
                    c.compiler_version
                ))
            ),
            None => format!("{}: {} {}", e.label, e.kind, e.version),
        })
        .chain(super::drivers::sqlite_builds(manifest))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The OS and kernel (and the guest kernel's note).
fn os(manifest: &Manifest) -> Option<String> {
    let m = &manifest.environment.machine;
    match (&m.os, &m.kernel) {
        (Some(o), Some(k)) => Some(format!("{o}, Linux {k}")),
        (Some(o), None) => Some(format!("{o}, kernel unknown")),
        (None, Some(k)) => Some(format!("Linux {k}")),
        _ => None,
    }
    .map(|os| match &manifest.guest {
        Some(g) => format!("{os}{}", guest_note(g)),
        None => os,
    })
}

/// The workload's parameters as `k=v` words.
fn params(manifest: &Manifest) -> String {
    manifest
        .params
        .0
        .iter()
        // A path left empty was not given (`tbl_dir`): nothing to state.
        .filter(|(_, v)| !matches!(v, crate::model::params::ParamValue::Choice(c) if c.is_empty()))
        .map(|(k, v)| format!("{k}={}", serde_json::to_string(v).unwrap_or_default().trim_matches('"')))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The journal mode read back, and the mode the trials ended in where it was switched during them.
fn journal_mode(manifest: &Manifest, trials: &[TrialRecord]) -> Option<String> {
    knob_values(manifest, trials, &["journal_mode"]).map(|v| {
        match trials.iter().find_map(|t| t.journal_mode_change.as_ref()) {
            Some(c) => format!("{v}, {} by the trials' end (switched during them)", c.end),
            None => v,
        }
    })
}

/// What a reader must know of a run inside a guest kernel (`--guest`).
fn guest_note(g: &crate::model::record::GuestInfo) -> String {
    let cost = match (g.syscall_ns_guest, g.syscall_ns_host) {
        (Some(guest), Some(host)) => format!(
            "; a system call costs {guest:.0} ns there against {host:.0} ns on the host ({:.0}x)",
            guest / host.max(1e-9)
        ),
        _ => String::new(),
    };
    let verified = match g.o_sync_verified {
        Some(true) => "verified in /proc while it ran",
        Some(false) => "NOT verified: an image was open without O_SYNC",
        None => "not verified",
    };
    format!(
        ", inside a guest kernel: {} {}, {} MiB, one CPU, on host Linux {}; disks: {} ({verified}){cost}",
        g.kernel, g.release, g.memory_mib, g.host_release, g.disk_mode
    )
}

/// `--scheduler`: which schedulers ran on litebench's loop devices, and what that does not
/// change (empty without `--scheduler`).
fn loop_schedulers(manifest: &Manifest) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for s in manifest.configs.iter().filter_map(|c| c.scheduler.as_deref()) {
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    if let Some(dev) = manifest.configs.iter().find_map(|c| c.scheduler_device.as_deref()) {
        return format!(
            "; I/O schedulers varied on {dev} itself (--scheduler-device: {}), set and read back before every trial, its original scheduler (shown above, as found at the start) put back after the run",
            seen.join(", ")
        );
    }
    format!(
        "; I/O schedulers varied on litebench's loop devices only ({}): a loop device's scheduler barely shapes what reaches the disk under the images, whose own scheduler (above) orders the image files' I/O again",
        seen.join(", ")
    )
}

/// The filesystems `--fs` built, one per configuration family, as the kernel reported them
/// once mounted; `None` when the run used the scratch directory itself.
fn built_filesystems(manifest: &Manifest) -> Option<String> {
    let mut seen: Vec<String> = Vec::new();
    for f in manifest.configs.iter().filter_map(|c| c.fs.as_ref()) {
        let m = &f.mounted;
        let place = match (&f.loop_device, &f.guest_disk) {
            (None, Some(disk)) => format!(
                "guest disk {disk} over a zero-filled {} MiB image {} on the host",
                f.size_bytes >> 20,
                f.image.as_deref().unwrap_or("unknown")
            ),
            (Some(dev), _) => format!(
                "{dev} on a {} MiB image over {}",
                f.size_bytes >> 20,
                f.underneath
                    .as_ref()
                    .and_then(|u| u.mount_source.clone())
                    .unwrap_or_else(|| "unknown".into())
            ),
            (None, None) => format!("in memory, at most {} MiB", f.size_bytes >> 20),
        };
        let line = format!(
            "{}: {} ({}), superblock options {}, {place}",
            f.spec,
            m.fs_type.as_deref().unwrap_or("unknown"),
            m.journaling.as_deref().unwrap_or("journaling unknown"),
            m.super_options.as_deref().unwrap_or("unknown"),
        );
        if !seen.contains(&line) {
            seen.push(line);
        }
    }
    (!seen.is_empty()).then(|| seen.join("; "))
}

/// The measured sync latency, else why it was not measured (as stored with the run).
fn sync_latency(manifest: &Manifest) -> ChecklistItem {
    const NAME: &str = "sync latency of the database directory";
    let mut per_fs: Vec<String> = Vec::new();
    for f in manifest.configs.iter().filter_map(|c| c.fs.as_ref()) {
        let v = match (&f.sync_latency, &f.sync_latency_not_measured) {
            (Some(l), _) => format!("{}: median {:.1} us, p99 {:.1} us", f.spec, l.median_us, l.p99_us),
            (None, reason) => format!("{}: not measured ({})", f.spec, reason.as_deref().unwrap_or("unknown")),
        };
        if !per_fs.contains(&v) {
            per_fs.push(v);
        }
    }
    if !per_fs.is_empty() {
        return item(
            NAME,
            Some(format!(
                "{} (pwrite 4 KiB + fdatasync on each --fs filesystem)",
                per_fs.join("; ")
            )),
        );
    }
    if let Some(l) = &manifest.sync_latency {
        return item(
            NAME,
            Some(format!(
                "median {:.1} us, p99 {:.1} us ({} samples of pwrite 4 KiB + fdatasync)",
                l.median_us, l.p99_us, l.samples
            )),
        );
    }
    match manifest.sync_latency_not_measured.as_deref() {
        Some(NOT_MEASURED_IN_MEMORY) => item(NAME, Some(format!("not measured: {NOT_MEASURED_IN_MEMORY}"))),
        None if manifest.in_memory => item(NAME, Some(format!("not measured: {NOT_MEASURED_IN_MEMORY}"))),
        // The measurement failed: the value stays unknown, with its reason.
        Some(reason) => ChecklistItem {
            item: NAME.into(),
            value: format!("unknown (not measured: {reason})"),
            known: false,
        },
        None => item(NAME, None),
    }
}
