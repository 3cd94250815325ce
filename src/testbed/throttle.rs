//! `--storage iops=3000,bw=125MB`: the kernel's I/O limits on the loop device litebench built for
//! `--fs`, so a trial runs on a slow device that is real (the kernel throttles; nothing is
//! emulated).
//!
//! A child cgroup litebench creates and owns (`litebench-PID-N`) gets the limits on the loop
//! device's `major:minor`: cgroup v2's `io.max` where a cgroup2 mount offers the `io`
//! controller, else cgroup v1's `blkio.throttle.{read,write}_{iops,bps}_device`. The trial's
//! process is moved into it for the trial (client processes it starts then are born in it)
//! and moved back after; the cgroup is removed when [`Throttled`] drops, on every exit path,
//! as the filesystems are unmounted.
//!
//! v1's throttle counts the I/O a task in the cgroup submits itself: a sync's writes (the
//! caller submits them, through the loop device's own queue) are throttled, buffered writeback
//! from kernel threads is not. Measured on the 2-core VM this was written on: 200 writes of
//! 4 KiB with `dd oflag=dsync` on ext4 over a loop device took 0.53 s unlimited and 3.89 s
//! under `write_iops=50` (200 / 50 = 4 s), so a SQLite commit's syncs are throttled.

use crate::model::storage::{CgroupVersion, Throttle, ThrottleInfo};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const V1_ROOT: &str = "/sys/fs/cgroup/blkio";
/// Where cgroup2 may be mounted: alone (`/sys/fs/cgroup`) or beside v1 (`unified`).
const V2_ROOTS: [&str; 2] = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"];
/// The prefix of every cgroup litebench makes (`leftovers` removes a dead run's).
pub const PREFIX: &str = "litebench-";

/// Why the kernel cannot throttle here.
#[derive(Debug, thiserror::Error)]
pub enum ThrottleError {
    #[error("the kernel's I/O limits need root (cgroups are written as root); run as root, or emulate with sync=")]
    NotRoot,
    #[error("no cgroup v2 `io` controller and no cgroup v1 blkio hierarchy with throttling here (looked at {}/cgroup.controllers and {V1_ROOT}/blkio.throttle.write_iops_device); emulate with sync=", V2_ROOTS.join(", "))]
    NoController,
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{device} is not a block device litebench can name by major:minor: {reason}")]
    Device { device: String, reason: String },
}

fn v2_root() -> Option<&'static str> {
    V2_ROOTS.into_iter().find(|r| {
        std::fs::read_to_string(Path::new(r).join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|w| w == "io"))
    })
}

fn version() -> Option<(CgroupVersion, &'static str)> {
    if let Some(root) = v2_root() {
        return Some((CgroupVersion::V2, root));
    }
    Path::new(V1_ROOT)
        .join("blkio.throttle.write_iops_device")
        .exists()
        .then_some((CgroupVersion::V1, V1_ROOT))
}

/// Whether this host can throttle a device: root, and a cgroup interface that can.
pub fn check_host() -> Result<(), ThrottleError> {
    if !rustix::process::geteuid().is_root() {
        return Err(ThrottleError::NotRoot);
    }
    version().map(|_| ()).ok_or(ThrottleError::NoController)
}

/// A device's `major:minor`.
pub fn device_number(device: &Path) -> Result<String, ThrottleError> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let bad = |reason: String| ThrottleError::Device {
        device: device.display().to_string(),
        reason,
    };
    let m = std::fs::metadata(device).map_err(|e| bad(e.to_string()))?;
    if !m.file_type().is_block_device() {
        return Err(bad("not a block device".into()));
    }
    let rdev = m.rdev();
    Ok(format!("{}:{}", libc::major(rdev), libc::minor(rdev)))
}

/// The lines to write for `limits` on `dev` (`major:minor`), per file.
fn lines(version: CgroupVersion, dev: &str, t: &Throttle) -> Vec<(String, String)> {
    match version {
        CgroupVersion::V2 => {
            let mut l = dev.to_string();
            if let Some(n) = t.iops {
                l += &format!(" riops={n} wiops={n}");
            }
            if let Some(b) = t.bytes_per_sec {
                l += &format!(" rbps={b} wbps={b}");
            }
            vec![("io.max".into(), l)]
        }
        CgroupVersion::V1 => {
            let mut v = Vec::new();
            if let Some(n) = t.iops {
                v.push(("blkio.throttle.read_iops_device".into(), format!("{dev} {n}")));
                v.push(("blkio.throttle.write_iops_device".into(), format!("{dev} {n}")));
            }
            if let Some(b) = t.bytes_per_sec {
                v.push(("blkio.throttle.read_bps_device".into(), format!("{dev} {b}")));
                v.push(("blkio.throttle.write_bps_device".into(), format!("{dev} {b}")));
            }
            v
        }
    }
}

fn write(path: &Path, line: &str) -> Result<(), ThrottleError> {
    std::fs::write(path, line).map_err(|source| ThrottleError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// This process's cgroup in the hierarchy at `root` (to move back to), from /proc/self/cgroup.
fn own_cgroup(version: CgroupVersion, root: &str) -> PathBuf {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let rel = own
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ':');
            Some((f.next()?, f.next()?, f.next()?))
        })
        .find(|(_, controllers, _)| match version {
            CgroupVersion::V2 => controllers.is_empty(),
            CgroupVersion::V1 => controllers.split(',').any(|c| c == "blkio"),
        })
        .map_or("/", |(_, _, path)| path)
        .trim_start_matches('/')
        .to_string();
    Path::new(root).join(rel)
}

/// A cgroup litebench made that limits a device; dropping it removes it (every process still
/// in it moved to its parent first).
pub struct Cgroup {
    info: ThrottleInfo,
}

impl Cgroup {
    /// Makes a cgroup limiting `device` to `limits`.
    pub fn create(device: &Path, limits: &Throttle) -> Result<Cgroup, ThrottleError> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        check_host()?;
        let (version, root) = version().ok_or(ThrottleError::NoController)?;
        let dev = device_number(device)?;
        let name = format!("{PREFIX}{}-{}", std::process::id(), NEXT.fetch_add(1, Relaxed));
        let cgroup = Path::new(root).join(name);
        if version == CgroupVersion::V2 {
            // The io controller must be enabled for the root's children.
            let _ = std::fs::write(Path::new(root).join("cgroup.subtree_control"), "+io");
        }
        std::fs::create_dir(&cgroup).map_err(|source| ThrottleError::Io {
            path: cgroup.clone(),
            source,
        })?;
        let made = Cgroup {
            info: ThrottleInfo {
                cgroup: cgroup.clone(),
                version,
                device: dev.clone(),
                limits: lines(version, &dev, limits),
            },
        };
        for (file, line) in &made.info.limits {
            write(&cgroup.join(file), line)?;
        }
        Ok(made)
    }

    /// What the manifest records.
    pub fn info(&self) -> &ThrottleInfo {
        &self.info
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        remove(&self.info.cgroup);
    }
}

/// This process inside a throttling cgroup, for one trial; dropping it moves the process back
/// to the cgroup it came from.
#[must_use = "the process leaves the cgroup when this is dropped"]
pub struct Entered {
    back_to: PathBuf,
}

/// Moves this process (every thread; client processes it starts are then born inside) into
/// `info`'s cgroup.
pub fn enter(info: &ThrottleInfo) -> Result<Entered, ThrottleError> {
    let root = info.cgroup.parent().and_then(Path::to_str).unwrap_or("/");
    let back_to = own_cgroup(info.version, root);
    write(&info.cgroup.join("cgroup.procs"), &std::process::id().to_string())?;
    Ok(Entered { back_to })
}

impl Drop for Entered {
    fn drop(&mut self) {
        let _ = write(&self.back_to.join("cgroup.procs"), &std::process::id().to_string());
    }
}

/// Removes a cgroup of litebench's: every process still in it moved to its parent first (a
/// client process that outlived its trial), then the directory, tried a few times while the
/// kernel lets go of exiting tasks.
pub fn remove(cgroup: &Path) {
    let parent = cgroup.parent().unwrap_or(Path::new("/"));
    for _ in 0..50 {
        if let Ok(procs) = std::fs::read_to_string(cgroup.join("cgroup.procs")) {
            for pid in procs.split_whitespace() {
                let _ = std::fs::write(parent.join("cgroup.procs"), pid);
            }
        }
        if std::fs::remove_dir(cgroup).is_ok() || !cgroup.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The cgroups of runs whose process is gone (`litebench-PID-N` with PID dead): what
/// [`crate::testbed::leftovers`] removes after a kill.
pub fn dead_cgroups() -> Vec<PathBuf> {
    let mut dead = Vec::new();
    let roots = V2_ROOTS.iter().chain(std::iter::once(&V1_ROOT));
    for root in roots {
        let Ok(entries) = std::fs::read_dir(root) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let Some(pid) = name
                .strip_prefix(PREFIX)
                .and_then(|r| r.split('-').next())
                .and_then(|p| p.parse::<i32>().ok())
            else {
                continue;
            };
            if !Path::new(&format!("/proc/{pid}")).exists() {
                dead.push(e.path());
            }
        }
    }
    dead
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_written_as_each_interface_reads_them() {
        let t = Throttle {
            iops: Some(3000),
            bytes_per_sec: Some(125_000_000),
        };
        assert_eq!(
            lines(CgroupVersion::V2, "7:0", &t),
            [(
                "io.max".to_string(),
                "7:0 riops=3000 wiops=3000 rbps=125000000 wbps=125000000".to_string()
            )]
        );
        let v1 = lines(CgroupVersion::V1, "7:0", &t);
        assert_eq!(v1.len(), 4);
        assert!(v1.contains(&("blkio.throttle.write_iops_device".into(), "7:0 3000".into())));
    }
}
