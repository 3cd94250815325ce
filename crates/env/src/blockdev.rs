//! The block device under a filesystem, read from sysfs. Whether the disk is
//! rotational, which I/O scheduler it uses, whether its write cache is
//! write-back, and whether it is really a loop device over a file, all change
//! what an fsync costs; a durability number without them cannot be
//! compared across machines.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::fsread::{non_empty, read_trimmed};

/// A block device as sysfs describes it; unreadable attributes are `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockDevice {
    /// Kernel name, e.g. `sda1`, `loop3`, `nvme0n1p2`.
    pub name: String,
    /// Parent disk when `name` is a partition.
    pub disk: Option<String>,
    /// `device/model`, trimmed.
    pub model: Option<String>,
    /// `device/vendor`, trimmed.
    pub vendor: Option<String>,
    /// `queue/rotational`.
    pub rotational: Option<bool>,
    /// The active (bracketed) entry of `queue/scheduler`.
    pub scheduler: Option<String>,
    /// `queue/write_cache`: `write back` or `write through`.
    pub write_cache: Option<String>,
    /// `loop/backing_file` for loop devices.
    pub backing_file: Option<String>,
    /// `size` (in 512-byte sectors) times 512.
    pub size_bytes: Option<u64>,
}

/// Resolves `MAJ:MIN` through `<sys_root>/dev/block/MAJ:MIN`. `None` when
/// the number is not a block device (e.g. tmpfs, overlay, proc: major 0).
///
/// For a partition, queue and device attributes come from the parent disk,
/// because partitions have none of their own; `size` and `loop/` come from
/// the device itself.
pub(crate) fn from_sysfs(sys_root: &Path, major: u32, minor: u32) -> Option<BlockDevice> {
    let link = sys_root.join("dev/block").join(format!("{major}:{minor}"));
    let node = link.canonicalize().ok()?;
    let name = node.file_name()?.to_string_lossy().into_owned();
    let is_partition = node.join("partition").exists();
    let (disk, attrs) = match (is_partition, node.parent()) {
        (true, Some(parent)) => (
            parent.file_name().map(|n| n.to_string_lossy().into_owned()),
            parent.to_path_buf(),
        ),
        _ => (None, node.clone()),
    };
    Some(BlockDevice {
        name,
        disk,
        model: read_trimmed(&attrs.join("device/model")),
        vendor: read_trimmed(&attrs.join("device/vendor")),
        rotational: read_trimmed(&attrs.join("queue/rotational")).and_then(|s| parse_bool01(&s)),
        scheduler: read_trimmed(&attrs.join("queue/scheduler")).and_then(|s| active_scheduler(&s)),
        write_cache: read_trimmed(&attrs.join("queue/write_cache")),
        backing_file: read_trimmed(&node.join("loop/backing_file")),
        size_bytes: read_trimmed(&node.join("size")).and_then(|s| sectors_to_bytes(&s)),
    })
}

/// The active scheduler in a `queue/scheduler` string: the bracketed entry
/// (`none [mq-deadline] kyber` → `mq-deadline`), or the only entry when the
/// kernel lists just one without brackets.
pub(crate) fn active_scheduler(text: &str) -> Option<String> {
    let entries: Vec<&str> = text.split_whitespace().collect();
    if let Some(active) = entries
        .iter()
        .find_map(|e| e.strip_prefix('[').and_then(|e| e.strip_suffix(']')))
    {
        return non_empty(active);
    }
    match entries.as_slice() {
        [only] => non_empty(only),
        _ => None,
    }
}

fn parse_bool01(s: &str) -> Option<bool> {
    match s {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

fn sectors_to_bytes(s: &str) -> Option<u64> {
    s.parse::<u64>().ok()?.checked_mul(512)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::PathBuf;

    #[test]
    fn scheduler_strings() {
        assert_eq!(
            active_scheduler("none [mq-deadline] kyber").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(
            active_scheduler("[none] mq-deadline kyber bfq\n").as_deref(),
            Some("none")
        );
        assert_eq!(active_scheduler("none").as_deref(), Some("none"));
        assert_eq!(active_scheduler("noop deadline cfq"), None);
        assert_eq!(active_scheduler(""), None);
        assert_eq!(active_scheduler("[]"), None);
    }

    #[test]
    fn scalar_attributes() {
        assert_eq!(parse_bool01("1"), Some(true));
        assert_eq!(parse_bool01("0"), Some(false));
        assert_eq!(parse_bool01("yes"), None);
        assert_eq!(sectors_to_bytes("536870912"), Some(274_877_906_944));
        assert_eq!(sectors_to_bytes("x"), None);
        assert_eq!(sectors_to_bytes(&u64::MAX.to_string()), None);
    }

    fn write(path: PathBuf, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A miniature sysfs: sda with partition sda1, and loop3 over a file.
    fn fake_sysfs() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        let sda = r.join("devices/pci0000:00/ata1/block/sda");
        write(sda.join("size"), "1000\n");
        write(sda.join("queue/rotational"), "1\n");
        write(sda.join("queue/scheduler"), "none [mq-deadline] kyber\n");
        write(sda.join("queue/write_cache"), "write back\n");
        write(sda.join("device/model"), "WDC WD40EFRX-68N\n");
        write(sda.join("device/vendor"), "ATA     \n");
        write(sda.join("sda1/size"), "800\n");
        write(sda.join("sda1/partition"), "1\n");
        let lp = r.join("devices/virtual/block/loop3");
        write(lp.join("size"), "2048\n");
        write(lp.join("queue/rotational"), "0\n");
        write(lp.join("queue/scheduler"), "[none] mq-deadline\n");
        write(lp.join("queue/write_cache"), "write through\n");
        write(lp.join("loop/backing_file"), "/var/tmp/disk image.img\n");
        fs::create_dir_all(r.join("dev/block")).unwrap();
        symlink(&sda, r.join("dev/block/8:0")).unwrap();
        symlink(sda.join("sda1"), r.join("dev/block/8:1")).unwrap();
        symlink(&lp, r.join("dev/block/7:3")).unwrap();
        t
    }

    #[test]
    fn partition_uses_parent_disk_attributes() {
        let t = fake_sysfs();
        let d = from_sysfs(t.path(), 8, 1).unwrap();
        assert_eq!(
            d,
            BlockDevice {
                name: "sda1".into(),
                disk: Some("sda".into()),
                model: Some("WDC WD40EFRX-68N".into()),
                vendor: Some("ATA".into()),
                rotational: Some(true),
                scheduler: Some("mq-deadline".into()),
                write_cache: Some("write back".into()),
                backing_file: None,
                size_bytes: Some(800 * 512),
            }
        );
    }

    #[test]
    fn whole_disk_has_no_parent() {
        let t = fake_sysfs();
        let d = from_sysfs(t.path(), 8, 0).unwrap();
        assert_eq!(d.name, "sda");
        assert_eq!(d.disk, None);
        assert_eq!(d.size_bytes, Some(1000 * 512));
    }

    #[test]
    fn loop_device_reports_backing_file() {
        let t = fake_sysfs();
        let d = from_sysfs(t.path(), 7, 3).unwrap();
        assert_eq!(d.name, "loop3");
        assert_eq!(d.disk, None);
        assert_eq!(d.model, None);
        assert_eq!(d.vendor, None);
        assert_eq!(d.rotational, Some(false));
        assert_eq!(d.scheduler.as_deref(), Some("none"));
        assert_eq!(d.write_cache.as_deref(), Some("write through"));
        assert_eq!(d.backing_file.as_deref(), Some("/var/tmp/disk image.img"));
    }

    #[test]
    fn unknown_device_is_none() {
        let t = fake_sysfs();
        assert_eq!(from_sysfs(t.path(), 0, 27), None);
        assert_eq!(from_sysfs(Path::new("/nonexistent-sysfs"), 8, 0), None);
    }
}
