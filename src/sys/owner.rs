//! Which process made something, recorded so that "its maker is dead" can be proven later.
//!
//! A record left in a run directory (its files, its filesystems, a device's scheduler) is acted
//! on only once the run that wrote it is gone. A pid alone does not say that: pids are reused,
//! and after a reboot any pid may be alive again. So a record carries its owner's pid, the
//! process's start time (field 22 of `/proc/PID/stat`, in clock ticks since boot), the boot id
//! (`/proc/sys/kernel/random/boot_id`) and the pid namespace. The owner is dead when the record
//! comes from another boot, or when no process with that pid and start time exists on this one.
//! A record from another pid namespace (a container sharing the directory) cannot be judged and
//! counts as alive, so it is left alone.

use serde::{Deserialize, Serialize};
use std::fs;

/// The process that wrote a record. Records of older litebench versions have only `pid`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    pub pid: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id: Option<String>,
    /// `/proc/self/ns/pid` of the writer (`pid:[4026531836]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_ns: Option<String>,
}

/// What can be said about a record's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Liveness {
    /// Still running: its record is left alone.
    Alive,
    /// Gone from this host: what it recorded may be undone.
    Dead,
    /// Cannot be told (another pid namespace): left alone, and why.
    Unknown(String),
}

/// The start time of process `pid` (field 22 of `/proc/PID/stat`), if it exists.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is parenthesised and may hold spaces or parentheses.
    let (_, rest) = stat.rsplit_once(')')?;
    // `rest` starts at field 3; field 22 is the 20th after it.
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether process `pid` has ended and waits to be reaped (state `Z` in `/proc/PID/stat`).
pub fn is_zombie(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// This boot's id.
pub fn boot_id() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn pid_namespace() -> Option<String> {
    fs::read_link("/proc/self/ns/pid")
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

impl Owner {
    /// This process.
    pub fn current() -> Owner {
        let pid = std::process::id();
        Owner {
            pid,
            start_time: start_time(pid),
            boot_id: boot_id(),
            pid_ns: pid_namespace(),
        }
    }

    /// Whether the owner still runs on this host.
    pub fn liveness(&self) -> Liveness {
        let Some(started) = self.start_time else {
            // An older litebench recorded the pid only: the best it allows is "a litebench with
            // that pid runs", as those versions judged it.
            let litebench = fs::read_link(format!("/proc/{}/exe", self.pid)).is_ok_and(|exe| {
                exe.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("litebench"))
            });
            return if litebench { Liveness::Alive } else { Liveness::Dead };
        };
        if let (Some(then), Some(now)) = (&self.boot_id, boot_id()) {
            if *then != now {
                return Liveness::Dead;
            }
        }
        if let (Some(then), Some(now)) = (&self.pid_ns, pid_namespace()) {
            if *then != now {
                return Liveness::Unknown(format!(
                    "written by pid {} in another pid namespace ({then}), which this one cannot see",
                    self.pid
                ));
            }
        }
        // A zombie (killed, not yet reaped by its parent) runs no more: what it left may go.
        if start_time(self.pid) == Some(started) && !is_zombie(self.pid) {
            Liveness::Alive
        } else {
            Liveness::Dead
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_process_not_yet_reaped_is_dead() {
        let mut child = std::process::Command::new("sleep").arg("100").spawn().unwrap();
        let owner = Owner {
            pid: child.id(),
            start_time: start_time(child.id()),
            ..Owner::current()
        };
        assert_eq!(owner.liveness(), Liveness::Alive);
        child.kill().unwrap();
        // Not reaped yet: a zombie, its stat still there with its start time.
        let t0 = std::time::Instant::now();
        while !is_zombie(child.id()) && t0.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(start_time(child.id()).is_some());
        assert_eq!(owner.liveness(), Liveness::Dead);
        child.wait().unwrap();
    }

    #[test]
    fn this_process_is_alive_and_a_changed_start_time_or_boot_is_dead() {
        let me = Owner::current();
        assert!(me.start_time.is_some() && me.boot_id.is_some());
        assert_eq!(me.liveness(), Liveness::Alive);
        let reused = Owner {
            start_time: me.start_time.map(|t| t + 1),
            ..me.clone()
        };
        assert_eq!(reused.liveness(), Liveness::Dead, "same pid, another process");
        let other_boot = Owner {
            boot_id: Some("00000000-0000-0000-0000-000000000000".into()),
            ..me.clone()
        };
        assert_eq!(other_boot.liveness(), Liveness::Dead);
        let container = Owner {
            pid_ns: Some("pid:[1]".into()),
            ..me.clone()
        };
        assert!(matches!(container.liveness(), Liveness::Unknown(_)));
        // An old record naming a pid that is not a litebench.
        let old = Owner {
            pid: 0,
            start_time: None,
            boot_id: None,
            pid_ns: None,
        };
        assert_eq!(old.liveness(), Liveness::Dead);
    }

    #[test]
    fn start_time_survives_a_command_name_with_spaces_and_parentheses() {
        // Our own stat parses; the parser takes the last ')' so a name like "a) b" cannot shift it.
        assert!(start_time(std::process::id()).is_some());
        assert_eq!(start_time(u32::MAX), None);
    }
}
