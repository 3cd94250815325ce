//! The verdict per journal mode, from what the probes found: safe, unsafe (and why) or
//! unknown, between processes and after a power loss, and the worse of the two.
//!
//! The rules are SQLite's own documentation read against the probes: every journal mode needs
//! `fcntl` locks that conflict between processes (SQLite's FAQ on network filesystems; "How To
//! Corrupt An SQLite Database File", section 2); WAL also needs a `-shm` mapping shared between
//! processes, or `locking_mode=exclusive`, which keeps the index in one process's heap
//! (wal.html, section 8); and a commit is durable only where a sync reaches the medium, which
//! a timing can contradict (a sync faster than the device can write) but never prove. Inside the
//! user-mode Linux guest on a host directory, the locks must also conflict across hostfs, or a
//! process on each side writes at once: every mode is then unsafe between processes.

use super::across::AcrossHostfs;
use super::check::Check;
use super::Qualification;
use litebench_env::{Storage, SyncLatency};
use serde::Serialize;

/// One side of a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Safety {
    Safe,
    Unknown,
    Unsafe,
}

impl Safety {
    pub fn word(self) -> &'static str {
        match self {
            Safety::Safe => "safe",
            Safety::Unknown => "unknown",
            Safety::Unsafe => "unsafe",
        }
    }
}

/// A journal mode's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct ModeVerdict {
    /// The setting, as a user writes it.
    pub mode: &'static str,
    /// Several processes (or connections) using the database at once.
    pub between_processes: Safety,
    /// A commit surviving a power loss (at `synchronous=full`).
    pub after_power_loss: Safety,
    /// The worse of the two.
    pub verdict: Safety,
    /// Why, in one sentence, naming what to do where it is unsafe.
    pub why: String,
}

/// Why a mode is safe, where nothing said otherwise.
pub const SAFE_WHY: &str = "locks conflict between processes, and syncs take as long as a device's flush";

/// The worst of several checks, and the first reason for it.
fn all_of(checks: &[(&str, &Check)]) -> (Safety, String) {
    if let Some((what, c)) = checks.iter().find(|(_, c)| c.fails()) {
        return (Safety::Unsafe, format!("{what}: {}", c.detail()));
    }
    if let Some((what, c)) = checks.iter().find(|(_, c)| !c.holds()) {
        return (Safety::Unknown, format!("{what} unknown: {}", c.detail()));
    }
    (Safety::Safe, String::new())
}

/// Why syncs here cannot be durable or may not be, if timing or the mount says so.
pub fn sync_doubt(storage: &Storage, sync: Option<&SyncLatency>) -> Option<(Safety, String)> {
    if storage.ram_backed {
        let fs = storage.fs_type.as_deref().unwrap_or("memory");
        return Some((
            Safety::Unsafe,
            format!("{fs} is memory: a sync returns at once and nothing survives a power loss"),
        ));
    }
    let Some(sync) = sync else {
        return Some((Safety::Unknown, "the sync latency could not be measured".into()));
    };
    let device = storage.device.as_ref();
    let named = device.map_or("the device".to_string(), |d| d.name.clone());
    let median = sync.median_us;
    // A loop device says it is rotational whatever holds its backing file, and so does a
    // virtual machine's disk (virtio's `vd*`, Xen's `xvd*`) whatever the host has under it.
    let spinning =
        device.is_some_and(|d| d.rotational == Some(true) && d.backing_file.is_none() && !virtual_disk(&d.name));
    if spinning && median < ROTATIONAL_FLOOR_US {
        return Some((
            Safety::Unknown,
            format!(
                "fdatasync takes {median:.0} µs on {named}, a rotational disk, which cannot write in under {:.0} ms: a write cache absorbs the syncs (volatile unless battery-backed)",
                ROTATIONAL_FLOOR_US / 1000.0
            ),
        ));
    }
    if median < FLUSH_FLOOR_US {
        return Some((
            Safety::Unknown,
            format!(
                "fdatasync takes {median:.1} µs on {named}, faster than a device commits a flush: a write cache or a filesystem that does not pass syncs down"
            ),
        ));
    }
    None
}

/// A block device a hypervisor or a network serves, whose rotational flag is a default.
fn virtual_disk(name: &str) -> bool {
    ["vd", "xvd", "nbd", "rbd"].iter().any(|p| name.starts_with(p))
}

/// Below this a rotational disk's sync cannot have reached the platter (half a revolution at
/// 15,000 rpm is 2 ms).
pub const ROTATIONAL_FLOOR_US: f64 = 2000.0;
/// Below this no device's sync can have reached stable media: even flash with power-loss
/// protection spends tens of microseconds on a flush command's round trip.
pub const FLUSH_FLOOR_US: f64 = 15.0;

/// The verdicts of every journal mode for `q`.
pub fn verdicts(q: &Qualification) -> Vec<ModeVerdict> {
    let locks = all_of(&[
        ("posix locks between processes", &q.posix_locks.conflicts),
        ("posix locks released on close", &q.posix_locks.released_on_close),
        ("SQLite's writer lock", &q.sqlite.writer_blocks_writer),
    ]);
    let shm = all_of(&[
        ("the -shm mapping between processes", &q.shared_memory),
        ("WAL between processes", &q.sqlite.wal_reader_sees_commits),
    ]);
    let power = match sync_doubt(&q.environment.storage, q.sync_latency.as_ref()) {
        Some(doubt) => doubt,
        None => (Safety::Safe, String::new()),
    };
    let wal_between = if locks.0 == Safety::Safe {
        shm.clone()
    } else {
        locks.clone()
    };
    let exclusive_between = match locks.0 {
        Safety::Unsafe => (
            Safety::Unsafe,
            format!("{}; an exclusive lock does not keep a second process out", locks.1),
        ),
        Safety::Unknown => locks.clone(),
        Safety::Safe => all_of(&[("WAL with locking_mode=exclusive", &q.sqlite.wal_exclusive_works)]),
    };
    let mut out = vec![
        verdict("delete (truncate, persist)", locks.clone(), power.clone(), None),
        verdict(
            "wal",
            wal_between,
            power.clone(),
            (shm.0 == Safety::Unsafe)
                .then_some("use locking_mode=exclusive (one process; the index kept in its heap) or a rollback mode"),
        ),
        verdict("wal, locking_mode=exclusive", exclusive_between, power, None),
    ];
    if locks.0 == Safety::Unsafe {
        for v in &mut out {
            v.why += "; only one process may open the database here";
        }
    }
    if let Some(a) = &q.across_hostfs {
        let (safety, why) = across_hostfs(a);
        for v in out.iter_mut().filter(|_| safety != Safety::Safe) {
            v.between_processes = v.between_processes.max(safety);
            v.why = if v.verdict == Safety::Safe {
                why.clone()
            } else {
                format!("{why}; {}", v.why)
            };
            v.verdict = v.verdict.max(safety);
        }
    }
    out
}

/// Whether locks are shared between the host and the guest, as one line, and what it makes of
/// every journal mode between processes.
pub fn across_hostfs(a: &AcrossHostfs) -> (Safety, String) {
    match all_of(&[
        ("a host process's lock, from the guest", &a.host_lock_seen_in_guest),
        ("a guest process's lock, from the host", &a.guest_lock_seen_on_host),
    ]) {
        (Safety::Safe, _) => (
            Safety::Safe,
            "locks are shared between host and guest: a lock held on either side is seen on the other".into(),
        ),
        (Safety::Unsafe, why) => (
            Safety::Unsafe,
            format!(
                "locks are not shared between host and guest ({why}): two writers, one on each side, would corrupt the database; open it from one side only"
            ),
        ),
        (Safety::Unknown, why) => (
            Safety::Unknown,
            format!("whether locks are shared between host and guest is unknown ({why})"),
        ),
    }
}

/// What a lock seen to conflict here does not cover on a filesystem served from elsewhere.
pub fn lock_scope(storage: &Storage) -> Option<String> {
    let fs = storage.fs_type.as_deref()?;
    let remote = [
        "fuse", "nfs", "cifs", "smb", "9p", "virtiofs", "ceph", "gluster", "lustre",
    ];
    remote.iter().any(|r| fs.starts_with(r)).then(|| {
        format!(
            "{fs} is served by another program or machine: the locks were seen between processes on this mount of this machine only, not by one reaching the same files another way"
        )
    })
}

fn verdict(
    mode: &'static str,
    between: (Safety, String),
    power: (Safety, String),
    advice: Option<&str>,
) -> ModeVerdict {
    let verdict = between.0.max(power.0);
    let mut why: Vec<String> = [between.1, power.1].into_iter().filter(|s| !s.is_empty()).collect();
    if let Some(a) = advice {
        why.push(a.to_string());
    }
    if why.is_empty() {
        why.push(SAFE_WHY.into());
    }
    ModeVerdict {
        mode,
        between_processes: between.0,
        after_power_loss: power.0,
        verdict,
        why: why.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failed_check_is_the_reason_and_a_failure_beats_an_unknown() {
        let yes = Check::yes("fine");
        let unknown = Check::unknown("could not start");
        let no = Check::no("granted twice");
        assert_eq!(all_of(&[("a", &yes), ("b", &yes)]).0, Safety::Safe);
        let (s, why) = all_of(&[("a", &unknown), ("b", &no)]);
        assert_eq!((s, why.as_str()), (Safety::Unsafe, "b: granted twice"));
        let (s, why) = all_of(&[("a", &yes), ("b", &unknown)]);
        assert_eq!((s, why.as_str()), (Safety::Unknown, "b unknown: could not start"));
    }

    #[test]
    fn locks_not_seen_across_hostfs_either_way_make_it_unsafe_and_say_so() {
        let across = |host: Check, guest: Check| {
            across_hostfs(&AcrossHostfs {
                host_lock_seen_in_guest: host,
                guest_lock_seen_on_host: guest,
            })
        };
        let (s, line) = across(Check::yes("refused"), Check::yes("refused"));
        assert_eq!(s, Safety::Safe);
        assert!(line.starts_with("locks are shared"), "{line}");
        for (host, guest) in [
            (Check::no("granted"), Check::yes("refused")),
            (Check::yes("refused"), Check::no("granted")),
            (Check::unknown("?"), Check::no("granted")),
        ] {
            let (s, line) = across(host, guest);
            assert_eq!(s, Safety::Unsafe);
            assert!(
                line.starts_with("locks are not shared between host and guest")
                    && line.contains("two writers, one on each side, would corrupt the database"),
                "{line}"
            );
        }
        let (s, line) = across(Check::yes("refused"), Check::unknown("no answer"));
        assert_eq!(s, Safety::Unknown);
        assert!(line.contains("no answer"), "{line}");
    }

    fn storage(ram: bool, rotational: Option<bool>) -> Storage {
        let mut s: Storage = serde_json::from_value(serde_json::json!({
            "dir": "/x", "mount_point": null, "fs_type": if ram { "tmpfs" } else { "ext4" },
            "mount_source": null, "mount_options": null, "super_options": null, "ram_backed": ram,
            "journaling": null, "device": null
        }))
        .expect("a storage record");
        if let Some(r) = rotational {
            s.device = Some(
                serde_json::from_value(serde_json::json!({"name": "sda", "disk": null, "model": null,
                "vendor": null, "rotational": r, "scheduler": null, "write_cache": null,
                "backing_file": null, "size_bytes": null}))
                .expect("a device record"),
            );
        }
        s
    }

    fn sync(median_us: f64) -> SyncLatency {
        SyncLatency {
            samples: 100,
            block_bytes: 4096,
            median_us,
            p99_us: median_us * 2.0,
            min_us: median_us / 2.0,
            max_us: median_us * 3.0,
            p90_us: None,
            p999_us: None,
            mean_us: None,
        }
    }

    #[test]
    fn memory_is_never_durable_and_a_sync_faster_than_the_device_is_doubted() {
        let tmpfs = sync_doubt(&storage(true, None), Some(&sync(1.0))).expect("tmpfs doubted");
        assert_eq!(tmpfs.0, Safety::Unsafe);
        assert!(tmpfs.1.contains("tmpfs is memory"), "{}", tmpfs.1);
        let spinning = sync_doubt(&storage(false, Some(true)), Some(&sync(300.0))).expect("a fast HDD doubted");
        assert_eq!(spinning.0, Safety::Unknown);
        assert!(spinning.1.contains("sda, a rotational disk"), "{}", spinning.1);
        assert_eq!(sync_doubt(&storage(false, Some(true)), Some(&sync(6000.0))), None);
        assert_eq!(sync_doubt(&storage(false, Some(false)), Some(&sync(90.0))), None);
        let mut looped = storage(false, Some(true));
        looped.device.as_mut().expect("a device").backing_file = Some("/img".into());
        assert_eq!(
            sync_doubt(&looped, Some(&sync(250.0))),
            None,
            "a loop device is not a spinning disk"
        );
        let mut vm = storage(false, Some(true));
        vm.device.as_mut().expect("a device").name = "vda".into();
        assert_eq!(
            sync_doubt(&vm, Some(&sync(100.0))),
            None,
            "virtio's rotational flag is a default"
        );
        assert_eq!(
            sync_doubt(&storage(false, None), Some(&sync(3.0))).map(|d| d.0),
            Some(Safety::Unknown)
        );
    }
}
