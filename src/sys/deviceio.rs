//! Bytes that reached the storage device, as the kernel counts them per process.
//!
//! litebench counts SQLite's I/O inside SQLite (the VFS shim), but a server's I/O happens in the
//! server's processes and DuckDB's behind its own file layer. What can still be counted honestly
//! for them is what the kernel attributes to the processes that did it: `read_bytes` and
//! `write_bytes` of `/proc/PID/io`, the bytes read from the block device and the bytes the
//! process caused to be written to it (counted when a page is dirtied, or when a direct write is
//! submitted). Those are deltas of device bytes, never of sync calls: how often an engine synced
//! stays unknown.
//!
//! - A throwaway server: the server process and every process descending from it (PostgreSQL
//!   forks a backend per connection and its background workers from the postmaster; MariaDB is
//!   one process with threads, which `/proc/PID/io` already sums).
//! - An embedded engine (DuckDB, and SQLite beside its VFS counts): litebench's own process.
//! - A server litebench did not start: nothing (its processes may be elsewhere, or another
//!   user's).
//!
//! The limitation: the kernel keeps a process's counters only while it lives (a reaped child's
//! bytes are not added to its parent's `/proc/PID/io`). Snapshots are taken at the start of a
//! trial and before its connections close, so the trial's own backends count; a process that
//! exits during the trial (an autovacuum worker, a connection a workload closes early) loses
//! the bytes it moved since the start snapshot, and one that both starts and exits within the
//! trial is never seen. [`DeviceIoDelta::processes_exited`] says how many were seen to go: the
//! sum is then a lower bound.

use crate::sys::procstat::ProcIo;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Whose processes a count covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeviceIoSource {
    /// A server litebench started: its main process and every process descending from it.
    #[serde(rename = "server processes")]
    ServerProcesses,
    /// litebench's own process (embedded engines).
    #[serde(rename = "litebench process")]
    LitebenchProcess,
}

/// A process, told apart from a later one with the same id by its start time (clock ticks
/// since boot, field 22 of `/proc/PID/stat`).
type ProcessKey = (u32, u64);

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Bytes {
    read: u64,
    write: u64,
}

/// The device byte counters of a set of processes at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceIo {
    pub source: DeviceIoSource,
    processes: HashMap<ProcessKey, Bytes>,
}

/// Device bytes a trial moved, from its start until just before its connections closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceIoDelta {
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub source: DeviceIoSource,
    /// Processes counted (alive at the end).
    pub processes: u32,
    /// Processes alive at the start that had exited by the end: the bytes they moved in between
    /// are missing, so the sums are a lower bound when this is not 0.
    pub processes_exited: u32,
}

/// `(parent id, start time)` from the text of `/proc/PID/stat`.
fn parse_stat(text: &str) -> Option<(u32, u64)> {
    // The command name (field 2) is in parentheses and may itself contain `)` and spaces.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): ppid is field 4, starttime field 22.
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((ppid, start))
}

fn stat_of(pid: u32) -> Option<(u32, u64)> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn bytes_of(pid: u32) -> Option<Bytes> {
    let io = ProcIo::parse(&std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?)?;
    Some(Bytes {
        read: io.read_bytes,
        write: io.write_bytes,
    })
}

impl DeviceIo {
    /// litebench's own process, all its threads. `None` without `/proc/self/io`.
    pub fn this_process() -> Option<DeviceIo> {
        let pid = std::process::id();
        let (_, start) = stat_of(pid)?;
        let bytes = bytes_of(pid)?;
        Some(DeviceIo {
            source: DeviceIoSource::LitebenchProcess,
            processes: HashMap::from([((pid, start), bytes)]),
        })
    }

    /// Process `root` and every process descending from it. `None` if `root`'s counters cannot
    /// be read (it is gone, or another user's and litebench is not root).
    pub fn process_tree(root: u32) -> Option<DeviceIo> {
        let (_, root_start) = stat_of(root)?;
        let root_bytes = bytes_of(root)?;
        let mut processes = HashMap::from([((root, root_start), root_bytes)]);
        // Parent links of every process, then the descendants of `root`.
        let mut children: HashMap<u32, Vec<(u32, u64)>> = HashMap::new();
        for entry in std::fs::read_dir("/proc").ok()?.filter_map(Result::ok) {
            let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if let Some((ppid, start)) = stat_of(pid) {
                children.entry(ppid).or_default().push((pid, start));
            }
        }
        let mut seen = HashSet::from([root]);
        let mut queue = vec![root];
        while let Some(p) = queue.pop() {
            for &(child, start) in children.get(&p).map(Vec::as_slice).unwrap_or_default() {
                if !seen.insert(child) {
                    continue;
                }
                // A process that exited since the listing is simply not counted.
                if let Some(b) = bytes_of(child) {
                    processes.insert((child, start), b);
                }
                queue.push(child);
            }
        }
        Some(DeviceIo {
            source: DeviceIoSource::ServerProcesses,
            processes,
        })
    }

    /// What the processes moved between `earlier` and `self`. A process new since `earlier`
    /// started after it (or in the moment it was taken), so all its bytes count.
    pub fn since(&self, earlier: &DeviceIo) -> DeviceIoDelta {
        let mut read = 0u64;
        let mut write = 0u64;
        for (key, now) in &self.processes {
            let before = earlier.processes.get(key).copied().unwrap_or_default();
            read += now.read.saturating_sub(before.read);
            write += now.write.saturating_sub(before.write);
        }
        let exited = earlier
            .processes
            .keys()
            .filter(|k| !self.processes.contains_key(k))
            .count();
        DeviceIoDelta {
            read_bytes: read,
            write_bytes: write,
            source: self.source,
            processes: self.processes.len() as u32,
            processes_exited: exited as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn stat_fields_survive_odd_command_names() {
        let text = "4242 (we ird) (x)) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(parse_stat(text), Some((17, 987654)));
        assert_eq!(parse_stat("1 (x) S"), None);
    }

    #[test]
    fn deltas_count_new_processes_whole_and_note_exited_ones() {
        let snap = |v: &[((u32, u64), u64, u64)]| DeviceIo {
            source: DeviceIoSource::ServerProcesses,
            processes: v.iter().map(|&(k, r, w)| (k, Bytes { read: r, write: w })).collect(),
        };
        let before = snap(&[((1, 10), 100, 1000), ((2, 20), 5, 5)]);
        let after = snap(&[((1, 10), 150, 1800), ((3, 30), 7, 4096), ((2, 99), 1, 1)]);
        let d = after.since(&before);
        // Process 2 was replaced by another with the same id: the old one exited.
        assert_eq!(
            (d.read_bytes, d.write_bytes, d.processes, d.processes_exited),
            (50 + 7 + 1, 800 + 4096 + 1, 3, 1)
        );
    }

    #[test]
    fn this_process_sees_its_own_writes_reach_the_device() {
        let Some(a) = DeviceIo::this_process() else {
            panic!("/proc/self/io should exist on Linux");
        };
        let dir = tempfile::tempdir().unwrap();
        let mut f = std::fs::File::create(dir.path().join("x")).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        let d = DeviceIo::this_process().unwrap().since(&a);
        assert_eq!(d.source, DeviceIoSource::LitebenchProcess);
        assert_eq!(d.processes, 1);
        // tmpfs does not count device bytes; every other filesystem does.
        let on_tmpfs = litebench_env::capture(dir.path()).is_ok_and(|e| e.storage.ram_backed);
        assert!(on_tmpfs || d.write_bytes >= 1 << 20, "{d:?}");
    }

    #[test]
    fn a_process_tree_includes_children() {
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        let tree = DeviceIo::process_tree(std::process::id()).expect("our own tree");
        let pid = child.id();
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            tree.processes.keys().any(|(p, _)| *p == pid),
            "child {pid} not in the tree"
        );
        assert!(DeviceIo::process_tree(u32::MAX).is_none());
    }
}
