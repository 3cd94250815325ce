//! The storage under a directory: its mount, filesystem, options and block
//! device. SQLite's durability cost is decided here, not in SQLite: ext4's
//! journaling mode, a tmpfs that never touches a disk, or an overlay over a
//! loop file each make the same benchmark a different experiment.

use std::os::unix::fs::FileTypeExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::blockdev::{self, BlockDevice};
use crate::error::EnvError;
use crate::mounts::{self, MountEntry};

/// Where a directory's data actually goes; unknowns are `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Storage {
    /// The canonicalized directory asked about.
    #[serde(serialize_with = "lossy::path")]
    pub dir: PathBuf,
    /// Mount point of the filesystem holding `dir`.
    #[serde(serialize_with = "lossy::opt_path")]
    pub mount_point: Option<PathBuf>,
    /// e.g. `ext4`, `tmpfs`, `overlay`, `xfs`.
    pub fs_type: Option<String>,
    /// e.g. `/dev/loop3`, `tmpfs`.
    pub mount_source: Option<String>,
    /// Per-mount options, e.g. `rw,relatime`.
    pub mount_options: Option<String>,
    /// Per-superblock options, e.g. `rw,data=ordered` (ext4's journaling mode shows here).
    pub super_options: Option<String>,
    /// tmpfs or ramfs: durability numbers here measure memory, not a device.
    pub ram_backed: bool,
    /// The block device behind the mount; `None` for virtual filesystems.
    pub device: Option<BlockDevice>,
}

/// Paths written as text even when they are not UTF-8 (invalid bytes become U+FFFD): serde's
/// own `PathBuf` serialization fails on them, and a directory named in another encoding is no
/// reason to lose a benchmark's results.
mod lossy {
    use serde::Serializer;
    use std::path::{Path, PathBuf};

    pub fn path<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&p.to_string_lossy())
    }

    pub fn opt_path<S: Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        match p {
            Some(p) => s.serialize_some(&*p.to_string_lossy()),
            None => s.serialize_none(),
        }
    }
}

/// Describes the storage under `dir`.
///
/// Fails only if `dir` cannot be canonicalized; anything else that cannot be
/// read is `None`.
///
/// # Errors
///
/// [`EnvError::Canonicalize`] if `dir` cannot be canonicalized.
pub fn storage(dir: &Path) -> Result<Storage, EnvError> {
    let canonical = dir.canonicalize().map_err(|source| EnvError::Canonicalize {
        path: dir.to_path_buf(),
        source,
    })?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| mounts::parse_mountinfo(&t))
        .unwrap_or_default();
    let mount = mounts::mount_for(&mounts, &canonical);
    Ok(describe(canonical.clone(), mount, Path::new("/sys")))
}

/// Assembles a `Storage` from a parsed mount (pure apart from sysfs reads
/// under `sys_root`).
pub(crate) fn describe(dir: PathBuf, mount: Option<&MountEntry>, sys_root: &Path) -> Storage {
    let Some(m) = mount else {
        return Storage {
            dir,
            mount_point: None,
            fs_type: None,
            mount_source: None,
            mount_options: None,
            super_options: None,
            ram_backed: false,
            device: None,
        };
    };
    let non_empty = |s: &str| crate::fsread::non_empty(s);
    Storage {
        dir,
        mount_point: Some(m.mount_point.clone()),
        fs_type: non_empty(&m.fs_type),
        mount_source: non_empty(&m.source),
        mount_options: non_empty(&m.mount_options),
        super_options: non_empty(&m.super_options),
        ram_backed: is_ram_fs(&m.fs_type),
        device: device_numbers(m).and_then(|(maj, min)| blockdev::from_sysfs(sys_root, maj, min)),
    }
}

/// Filesystems whose data lives only in memory.
pub(crate) fn is_ram_fs(fs_type: &str) -> bool {
    matches!(fs_type, "tmpfs" | "ramfs")
}

/// The block device numbers of a mount. Major 0 is the kernel's anonymous
/// range (tmpfs, overlay, proc, but also btrfs); for those, if the mount
/// source is a block special file, that file's device numbers are used.
fn device_numbers(m: &MountEntry) -> Option<(u32, u32)> {
    if m.major != 0 {
        return Some((m.major, m.minor));
    }
    if !m.source.starts_with("/dev/") {
        return None;
    }
    let meta = std::fs::metadata(&m.source).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    let rdev = meta.rdev();
    Some((libc::major(rdev), libc::minor(rdev)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ram_filesystems() {
        assert!(is_ram_fs("tmpfs"));
        assert!(is_ram_fs("ramfs"));
        assert!(!is_ram_fs("ext4"));
        assert!(!is_ram_fs("overlay"));
        assert!(!is_ram_fs("devtmpfs_not"));
    }

    #[test]
    fn paths_that_are_not_utf8_serialize_lossily() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = PathBuf::from(OsStr::from_bytes(b"/mnt/caf\xe9/x"));
        let mut s = describe(dir.clone(), None, Path::new("/nonexistent"));
        s.mount_point = Some(PathBuf::from(OsStr::from_bytes(b"/mnt/caf\xe9")));
        let v = serde_json::to_value(&s).expect("serializes");
        assert_eq!(v["dir"], "/mnt/caf\u{fffd}/x");
        assert_eq!(v["mount_point"], "/mnt/caf\u{fffd}");
        let back: Storage = serde_json::from_value(v).expect("reads back");
        assert_eq!(back.mount_point, Some(PathBuf::from("/mnt/caf\u{fffd}")));
        s.mount_point = None;
        assert!(serde_json::to_value(&s).unwrap()["mount_point"].is_null());
    }

    #[test]
    fn no_mount_means_all_unknown() {
        let s = describe(PathBuf::from("/x"), None, Path::new("/nonexistent"));
        assert_eq!(s.dir, PathBuf::from("/x"));
        assert_eq!(s.mount_point, None);
        assert_eq!(s.fs_type, None);
        assert!(!s.ram_backed);
        assert_eq!(s.device, None);
    }

    #[test]
    fn tmpfs_mount_is_ram_backed_without_device() {
        let m = mounts::parse_line("25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1k").unwrap();
        let s = describe(PathBuf::from("/dev/shm/a"), Some(&m), Path::new("/nonexistent"));
        assert_eq!(s.mount_point, Some(PathBuf::from("/dev/shm")));
        assert_eq!(s.fs_type.as_deref(), Some("tmpfs"));
        assert_eq!(s.mount_source.as_deref(), Some("tmpfs"));
        assert_eq!(s.mount_options.as_deref(), Some("rw,relatime"));
        assert_eq!(s.super_options.as_deref(), Some("rw,size=1k"));
        assert!(s.ram_backed);
        assert_eq!(s.device, None);
    }

    #[test]
    fn overlay_has_no_device() {
        let m = mounts::parse_line("42 27 0:50 / /m rw - overlay overlay rw,lowerdir=/a").unwrap();
        assert_eq!(device_numbers(&m), None);
    }
}
