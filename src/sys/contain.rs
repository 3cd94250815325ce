//! A started command held whole: everything it starts is found and stopped with it, even what
//! leaves its process group (`setsid cmd &`), and even after litebench itself was killed.
//!
//! A process group is not a container: any descendant may call `setsid` and leave it, and a
//! death signal reaches only the direct child. So a sidecar is contained one of two ways:
//!
//! - **a cgroup v2 of its own**, made under litebench's own cgroup (`litebench-sidecar-PID-N`)
//!   and entered by the child before it executes the command, so every descendant is born in
//!   it and no `setsid` leaves it; stopping writes `cgroup.kill` (Linux 5.14), which kills every
//!   member at once, and the cgroup's `cpu.stat` gives the whole tree's CPU, reaped or not;
//! - where no cgroup can be made (no cgroup v2, or not this user's to write), a **token** in the
//!   command's environment (`LITEBENCH_SIDECAR=…`), which every descendant inherits, with
//!   litebench a child subreaper (`PR_SET_CHILD_SUBREAPER`), so an orphan that left the group
//!   is re-parented to litebench rather than to init; stopping signals every process of this
//!   user whose environment carries the token. (A descendant that clears its environment and
//!   leaves the group escapes this way; the cgroup is the one that cannot be escaped.)
//!
//! Which one holds a sidecar is written in its record, so `cleanup` after a `kill -9` stops the
//! whole tree the same way.

use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that marks a sidecar's tree where no cgroup holds it.
pub const TOKEN_VAR: &str = "LITEBENCH_SIDECAR";

/// The prefix of every cgroup litebench makes; a recorded cgroup is acted on only with it.
const CGROUP_PREFIX: &str = "litebench-sidecar-";

/// How a command's tree is held, as its record says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hold {
    /// A cgroup v2 directory litebench made for it.
    Cgroup(PathBuf),
    /// The value of [`TOKEN_VAR`] in its tree's environment.
    Token(String),
}

/// A command's tree held by a [`Hold`], before and after it starts.
#[derive(Debug)]
pub struct Container {
    hold: Hold,
    /// `cgroup.procs`, opened before the fork: the child writes itself into it.
    procs: Option<File>,
}

/// Where cgroup v2 is mounted (from `/proc/self/mountinfo`).
fn cgroup2_mount() -> Option<PathBuf> {
    let info = fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        if right.split_whitespace().next() != Some("cgroup2") {
            return None;
        }
        left.split_whitespace().nth(4).map(PathBuf::from)
    })
}

/// This process's cgroup v2 directory (the `0::` line of `/proc/self/cgroup` under the mount).
fn own_cgroup() -> Option<PathBuf> {
    let mount = cgroup2_mount()?;
    let text = fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = mount.join(rel.trim_start_matches('/'));
    dir.is_dir().then_some(dir)
}

impl Container {
    /// A cgroup of its own where one can be made, else a token (litebench made a subreaper).
    pub fn new() -> Container {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let n = SEQ.fetch_add(1, Ordering::Relaxed);
        let name = format!("{CGROUP_PREFIX}{}-{n}", std::process::id());
        if let Some(dir) = own_cgroup().map(|d| d.join(&name)) {
            if fs::create_dir(&dir).is_ok() {
                match fs::OpenOptions::new().write(true).open(dir.join("cgroup.procs")) {
                    Ok(procs) if dir.join("cgroup.kill").exists() => {
                        return Container {
                            hold: Hold::Cgroup(dir),
                            procs: Some(procs),
                        };
                    }
                    _ => {
                        let _ = fs::remove_dir(&dir);
                    }
                }
            }
        }
        // SAFETY: prctl with integer arguments; makes this process the reaper of orphans below it.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        Container {
            hold: Hold::Token(format!("{}-{n}-{}", std::process::id(), uuid::Uuid::now_v7().simple())),
            procs: None,
        }
    }

    /// How it holds the tree (for the record).
    pub fn hold(&self) -> &Hold {
        &self.hold
    }

    /// Prepares `cmd` to start inside: the token in its environment, or the child's entry into
    /// the cgroup before it executes (so nothing it starts is born outside).
    pub fn enter(&self, cmd: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        match (&self.hold, &self.procs) {
            (Hold::Token(token), _) => {
                cmd.env(TOKEN_VAR, token);
            }
            (Hold::Cgroup(_), Some(procs)) => {
                let fd = procs.as_raw_fd();
                // SAFETY: only write(2) between fork and exec; "0" moves the writing process.
                unsafe {
                    cmd.pre_exec(move || {
                        if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                            return Err(std::io::Error::last_os_error());
                        }
                        Ok(())
                    });
                }
            }
            (Hold::Cgroup(_), None) => {}
        }
    }

    /// The tree's CPU so far, where the cgroup counts it (reaped descendants included).
    pub fn cpu(&self) -> Option<Duration> {
        let Hold::Cgroup(dir) = &self.hold else { return None };
        cgroup_cpu(dir)
    }

    /// Kills everything still in the tree and waits (up to `within`) until none is left;
    /// whether none is. The cgroup is removed once empty.
    pub fn kill_all(&self, within: Duration) -> bool {
        kill_held(&self.hold, within)
    }
}

impl Default for Container {
    fn default() -> Self {
        Container::new()
    }
}

fn cgroup_cpu(dir: &Path) -> Option<Duration> {
    let stat = fs::read_to_string(dir.join("cpu.stat")).ok()?;
    let usec = stat
        .lines()
        .find_map(|l| l.strip_prefix("usage_usec "))?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_micros(usec))
}

/// Whether a recorded cgroup is one litebench made: a directory under the cgroup v2 mount, its
/// last component litebench's prefix, reached without `..`.
fn is_ours(dir: &Path) -> bool {
    let Some(mount) = cgroup2_mount() else { return false };
    dir.starts_with(&mount)
        && dir
            .components()
            .all(|c| !matches!(c, std::path::Component::ParentDir | std::path::Component::CurDir))
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(CGROUP_PREFIX))
}

/// The live processes of this user whose environment carries `TOKEN_VAR=token`.
fn carrying(token: &str) -> Vec<u32> {
    let want = format!("{TOKEN_VAR}={token}");
    let me = crate::sys::own_file::euid();
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid > 1 && pid != std::process::id())
        .filter(|&pid| {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(format!("/proc/{pid}")).is_ok_and(|m| m.uid() == me)
        })
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == want.as_bytes()))
        })
        .collect()
}

/// Reaps `pid` if it is this process's child (a re-parented orphan); nothing otherwise.
fn reap_if_child(pid: u32) {
    let mut status = 0;
    // SAFETY: waitpid with a valid status pointer; WNOHANG never blocks.
    unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) };
}

/// How many processes `hold` holds that still run.
pub fn running(hold: &Hold) -> usize {
    match hold {
        Hold::Cgroup(dir) if is_ours(dir) => fs::read_to_string(dir.join("cgroup.procs"))
            .map(|p| p.lines().filter(|l| !l.trim().is_empty()).count())
            .unwrap_or(0),
        Hold::Cgroup(_) => 0,
        Hold::Token(token) => carrying(token).len(),
    }
}

/// Kills what `hold` holds (see [`Container::kill_all`]).
pub fn kill_held(hold: &Hold, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    match hold {
        Hold::Cgroup(dir) => {
            if !is_ours(dir) || !dir.is_dir() {
                return !dir.exists();
            }
            let empty = || fs::read_to_string(dir.join("cgroup.procs")).is_ok_and(|p| p.trim().is_empty());
            let _ = fs::write(dir.join("cgroup.kill"), "1");
            while !empty() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            // Removed once empty (a zombie still unreaped by its parent keeps it populated).
            let t0 = Instant::now();
            while fs::remove_dir(dir).is_err() && dir.exists() && t0.elapsed() < Duration::from_millis(200) {
                std::thread::sleep(Duration::from_millis(5));
            }
            empty() || !dir.exists()
        }
        Hold::Token(token) => loop {
            let left = carrying(token);
            for &pid in &left {
                // SAFETY: kill has no memory preconditions; pid > 1 (filtered in `carrying`).
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
                reap_if_child(pid);
            }
            if left.is_empty() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command that leaves its process group (`setsid`) is still found and killed.
    #[test]
    fn what_leaves_the_group_is_killed_with_the_tree() {
        let c = Container::new();
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "setsid sleep 777 & echo $! ; sleep 777"])
            .stdout(std::process::Stdio::piped())
            .process_group(0);
        use std::os::unix::process::CommandExt;
        c.enter(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        let escaped: u32 = line.trim().parse().unwrap();
        let alive = |pid: u32| {
            crate::sys::owner::start_time(pid).is_some()
                && !fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
        };
        assert!(alive(escaped), "the escaped sleep runs");
        // Its group is another: a signal to the sidecar's group would miss it.
        assert!(kill_held(c.hold(), Duration::from_secs(5)), "{:?}", c.hold());
        let _ = child.wait();
        let t0 = Instant::now();
        while alive(escaped) && t0.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !alive(escaped),
            "the process that left the group is gone ({:?})",
            c.hold()
        );
        if let Hold::Cgroup(dir) = c.hold() {
            assert!(!dir.exists(), "its cgroup is removed");
        }
    }

    #[test]
    fn a_recorded_cgroup_not_made_by_litebench_is_never_acted_on() {
        assert!(!is_ours(Path::new("/sys/fs/cgroup")));
        assert!(!is_ours(Path::new("/etc/litebench-sidecar-1-0")));
        if let Some(m) = cgroup2_mount() {
            assert!(!is_ours(&m.join("system.slice")));
            assert!(!is_ours(&m.join("x/../litebench-sidecar-1-0")));
            assert!(is_ours(&m.join("litebench-sidecar-1-0")));
        }
    }
}
