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
    /// The filesystem's journaling mode, worded to follow its type: `data=ordered`,
    /// `data=ordered (default)`, `data=journal`, `no journal` (an ext4 made without one),
    /// `no data= journaling mode on xfs`, or `unknown (...)`. Read from `/proc/fs` when the
    /// run starts, because it describes the machine as it is now; `None` only in manifests
    /// written before litebench recorded it.
    #[serde(default)]
    pub journaling: Option<String>,
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
    Ok(describe(
        canonical.clone(),
        mount,
        Path::new("/sys"),
        Path::new("/proc/fs"),
    ))
}

/// Assembles a `Storage` from a parsed mount (pure apart from sysfs reads
/// under `sys_root` and journal reads under `proc_fs`).
pub(crate) fn describe(dir: PathBuf, mount: Option<&MountEntry>, sys_root: &Path, proc_fs: &Path) -> Storage {
    let Some(m) = mount else {
        return Storage {
            dir,
            mount_point: None,
            fs_type: None,
            mount_source: None,
            mount_options: None,
            super_options: None,
            ram_backed: false,
            journaling: Some("unknown (no mount found for the directory)".to_owned()),
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
        journaling: Some(journaling(m, proc_fs)),
        device: device_numbers(m).and_then(|(maj, min)| blockdev::from_sysfs(sys_root, maj, min)),
    }
}

/// The journaling mode of mount `m`: `data=` from its superblock options when the kernel lists
/// it there; for ext4, `data=` from `<proc_fs>/ext4/<dev>/options`, else the default
/// `data=ordered` if the filesystem has a jbd2 journal, else `no journal` (an ext4 made without
/// one, as on some cloud images: its syncs are cheaper than a journaled one's).
pub(crate) fn journaling(m: &MountEntry, proc_fs: &Path) -> String {
    if let Some(d) = m.super_options.split(',').find(|o| o.starts_with("data=")) {
        return d.to_owned();
    }
    if m.fs_type != "ext4" {
        return format!("no data= journaling mode on {}", m.fs_type);
    }
    let Some(dev) = m.source.strip_prefix("/dev/") else {
        return format!("unknown (ext4 on {}, not a /dev device)", m.source);
    };
    let options = proc_fs.join("ext4").join(dev).join("options");
    let Ok(opts) = std::fs::read_to_string(&options) else {
        return format!("unknown ({} unreadable)", options.display());
    };
    if let Some(d) = opts.lines().find(|l| l.starts_with("data=")) {
        return d.to_owned();
    }
    let Ok(journals) = std::fs::read_dir(proc_fs.join("jbd2")) else {
        return format!("unknown ({} unreadable)", proc_fs.join("jbd2").display());
    };
    let prefix = format!("{dev}-");
    if journals
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().starts_with(&prefix))
    {
        "data=ordered (default)".to_owned()
    } else {
        "no journal".to_owned()
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
        let mut s = describe(dir.clone(), None, Path::new("/nonexistent"), Path::new("/nonexistent"));
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
        let s = describe(
            PathBuf::from("/x"),
            None,
            Path::new("/nonexistent"),
            Path::new("/nonexistent"),
        );
        assert_eq!(s.dir, PathBuf::from("/x"));
        assert_eq!(s.mount_point, None);
        assert_eq!(s.fs_type, None);
        assert!(!s.ram_backed);
        assert_eq!(s.device, None);
    }

    #[test]
    fn tmpfs_mount_is_ram_backed_without_device() {
        let m = mounts::parse_line("25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1k").unwrap();
        let s = describe(
            PathBuf::from("/dev/shm/a"),
            Some(&m),
            Path::new("/nonexistent"),
            Path::new("/nonexistent"),
        );
        assert_eq!(s.mount_point, Some(PathBuf::from("/dev/shm")));
        assert_eq!(s.fs_type.as_deref(), Some("tmpfs"));
        assert_eq!(s.mount_source.as_deref(), Some("tmpfs"));
        assert_eq!(s.mount_options.as_deref(), Some("rw,relatime"));
        assert_eq!(s.super_options.as_deref(), Some("rw,size=1k"));
        assert!(s.ram_backed);
        assert_eq!(s.journaling.as_deref(), Some("no data= journaling mode on tmpfs"));
        assert_eq!(s.device, None);
    }

    /// A miniature /proc/fs: vda has a jbd2 journal, vdb has `data=journal` in its options,
    /// vdc has neither.
    fn fake_proc_fs() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        for (dev, opts) in [
            ("vda", "rw\nerrors=continue\n"),
            ("vdb", "rw\ndata=journal\n"),
            ("vdc", "rw\n"),
        ] {
            std::fs::create_dir_all(r.join("ext4").join(dev)).unwrap();
            std::fs::write(r.join("ext4").join(dev).join("options"), opts).unwrap();
        }
        std::fs::create_dir_all(r.join("jbd2/vda-8")).unwrap();
        t
    }

    fn ext4(dev: &str, super_options: &str) -> MountEntry {
        mounts::parse_line(&format!("27 1 254:0 / / rw,relatime - ext4 /dev/{dev} {super_options}")).unwrap()
    }

    #[test]
    fn ext4_journaling_modes() {
        let p = fake_proc_fs();
        assert_eq!(journaling(&ext4("vda", "rw"), p.path()), "data=ordered (default)");
        assert_eq!(journaling(&ext4("vdb", "rw"), p.path()), "data=journal");
        assert_eq!(journaling(&ext4("vdc", "rw"), p.path()), "no journal");
        // The superblock options win when they name the mode.
        assert_eq!(
            journaling(&ext4("vdc", "rw,data=writeback"), p.path()),
            "data=writeback"
        );
        let unreadable = journaling(&ext4("vdz", "rw"), p.path());
        assert!(
            unreadable.starts_with("unknown (") && unreadable.contains("vdz/options"),
            "{unreadable}"
        );
    }

    #[test]
    fn journaling_of_other_filesystems() {
        let m = mounts::parse_line("40 27 8:17 / /mnt/data rw - xfs /dev/sdb1 rw,attr2").unwrap();
        assert_eq!(
            journaling(&m, Path::new("/nonexistent")),
            "no data= journaling mode on xfs"
        );
        let s = describe(
            PathBuf::from("/mnt/data"),
            Some(&m),
            Path::new("/nonexistent"),
            Path::new("/nonexistent"),
        );
        assert_eq!(s.journaling.as_deref(), Some("no data= journaling mode on xfs"));
    }

    #[test]
    fn manifests_without_journaling_still_parse() {
        let s = describe(
            PathBuf::from("/x"),
            None,
            Path::new("/nonexistent"),
            Path::new("/nonexistent"),
        );
        let mut v = serde_json::to_value(&s).unwrap();
        v.as_object_mut().unwrap().remove("journaling");
        let old: Storage = serde_json::from_value(v).unwrap();
        assert_eq!(old.journaling, None);
    }

    #[test]
    fn overlay_has_no_device() {
        let m = mounts::parse_line("42 27 0:50 / /m rw - overlay overlay rw,lowerdir=/a").unwrap();
        assert_eq!(device_numbers(&m), None);
    }
}
