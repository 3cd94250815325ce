//! A process and everything it started, read from /proc: what a sidecar beside a trial cost.
//!
//! A sidecar (Litestream, a backup script) may fork helpers, so its cost is its whole tree's:
//! the processes whose parent chain (`/proc/PID/stat`'s ppid) leads to it, or that stay in its
//! process group. Each is counted with what its own waited-for children left it (`utime +
//! stime + cutime + cstime`, and `/proc/PID/io`, which holds a reaped child's bytes too), so a
//! child that ends and is reaped moves into its parent's figures instead of being lost or
//! counted twice. The tree's total can drop only when a process that was not waited for ends
//! (an orphan), so a sampler keeps the highest total it saw.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::time::Duration;

/// What a process tree used, summed over its live processes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeUsage {
    /// User and system CPU (with the waited-for children's).
    pub cpu: Duration,
    /// Bytes read from and written to storage (`read_bytes`, `write_bytes` of `/proc/PID/io`).
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Processes counted.
    pub processes: u32,
}

impl TreeUsage {
    /// The larger of each figure (a sampler's running peak).
    pub fn max(self, other: TreeUsage) -> TreeUsage {
        TreeUsage {
            cpu: self.cpu.max(other.cpu),
            read_bytes: self.read_bytes.max(other.read_bytes),
            write_bytes: self.write_bytes.max(other.write_bytes),
            processes: self.processes.max(other.processes),
        }
    }
}

/// Fields 3 onwards of `/proc/PID/stat` (after the parenthesised command name).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`, 100 on Linux where unknown).
fn ticks_per_second() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as u64
    } else {
        100
    }
}

/// The pids of `root`'s tree: itself, its descendants by parent, and its process group.
pub fn members(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut group = Vec::new();
    if let Ok(entries) = fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Some(f) = stat_fields(pid) else { continue };
            // Field 4 is the parent, field 5 the process group (indices 1 and 2 after field 3).
            let num = |i: usize| f.get(i).and_then(|v| v.parse::<u32>().ok());
            if let Some(ppid) = num(1) {
                children.entry(ppid).or_default().push(pid);
            }
            if num(2) == Some(root) && pid != root {
                group.push(pid);
            }
        }
    }
    let mut seen = HashSet::from([root]);
    let mut order = vec![root];
    let mut next = 0;
    while next < order.len() {
        let pid = order[next];
        next += 1;
        for c in children.get(&pid).into_iter().flatten() {
            if seen.insert(*c) {
                order.push(*c);
            }
        }
    }
    order.extend(group.into_iter().filter(|p| seen.insert(*p)));
    order
}

/// One process's CPU (own and waited-for children's, in clock ticks) and storage bytes.
fn usage_of(pid: u32) -> Option<(u64, u64, u64)> {
    let f = stat_fields(pid)?;
    // utime, stime, cutime, cstime: fields 14 to 17, indices 11 to 14 after field 3.
    let ticks: u64 = (11..=14).filter_map(|i| f.get(i)?.parse::<u64>().ok()).sum();
    let io = fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    let field = |name: &str| {
        io.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    Some((ticks, field("read_bytes:"), field("write_bytes:")))
}

/// What `root`'s tree uses now (zero when it is gone).
pub fn usage(root: u32) -> TreeUsage {
    let mut ticks = 0;
    let mut u = TreeUsage::default();
    for pid in members(root) {
        if let Some((t, r, w)) = usage_of(pid) {
            ticks += t;
            u.read_bytes += r;
            u.write_bytes += w;
            u.processes += 1;
        }
    }
    u.cpu = Duration::from_millis(ticks * 1000 / ticks_per_second());
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shell that starts a busy child is one tree of two, and the child's CPU shows in it.
    #[test]
    fn a_child_is_in_its_parents_tree_and_its_cpu_is_counted() {
        use std::os::unix::process::CommandExt;
        let mut sh = std::process::Command::new("sh")
            .process_group(0)
            .args([
                "-c",
                "sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 5' & wait",
            ])
            .spawn()
            .unwrap();
        let root = sh.id();
        let mut peak = TreeUsage::default();
        let t0 = std::time::Instant::now();
        while t0.elapsed() < Duration::from_secs(5) && peak.cpu < Duration::from_millis(50) {
            peak = peak.max(usage(root));
            std::thread::sleep(Duration::from_millis(50));
        }
        let members = members(root);
        // SAFETY: kill has no memory preconditions; the group is the shell's own.
        unsafe { libc::kill(-(root as i32), libc::SIGKILL) };
        let _ = sh.wait();
        assert!(members.len() >= 2, "the shell and its child: {members:?}");
        assert!(peak.processes >= 2, "{peak:?}");
        assert!(peak.cpu >= Duration::from_millis(50), "the child's loop: {peak:?}");
        assert_eq!(usage(u32::MAX), TreeUsage::default(), "no such process");
    }
}
