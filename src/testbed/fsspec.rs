//! `--fs` values: which filesystem to build for a configuration, and how.
//!
//! Each value (`ext4:data=journal`, `btrfs:nodatacow`, `tmpfs`) names a filesystem type and at
//! most one variant. The variant decides the mkfs arguments and mount options, so the manifest
//! can record exactly what was built. Everything a user can get wrong (an unknown name, a
//! variant the type does not have, an image too small for mkfs, a kernel without the
//! filesystem, a missing mkfs tool) is found here, before anything is created.

use std::path::{Path, PathBuf};

/// A filesystem type litebench can build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsKind {
    Ext4,
    Xfs,
    Btrfs,
    F2fs,
    Tmpfs,
}

impl FsKind {
    const ALL: [FsKind; 5] = [FsKind::Ext4, FsKind::Xfs, FsKind::Btrfs, FsKind::F2fs, FsKind::Tmpfs];

    /// The kernel's name for it (`/proc/filesystems`, `mount -t`).
    pub fn name(self) -> &'static str {
        match self {
            FsKind::Ext4 => "ext4",
            FsKind::Xfs => "xfs",
            FsKind::Btrfs => "btrfs",
            FsKind::F2fs => "f2fs",
            FsKind::Tmpfs => "tmpfs",
        }
    }

    /// The mkfs program and the Debian package that ships it; `None` for tmpfs.
    pub fn mkfs_tool(self) -> Option<(&'static str, &'static str)> {
        match self {
            FsKind::Ext4 => Some(("mkfs.ext4", "e2fsprogs")),
            FsKind::Xfs => Some(("mkfs.xfs", "xfsprogs")),
            FsKind::Btrfs => Some(("mkfs.btrfs", "btrfs-progs")),
            FsKind::F2fs => Some(("mkfs.f2fs", "f2fs-tools")),
            FsKind::Tmpfs => None,
        }
    }

    /// The smallest image its mkfs accepts (xfsprogs >= 5.19 refuses below 300 MB).
    pub fn min_bytes(self) -> u64 {
        match self {
            FsKind::Ext4 => 16 << 20,
            FsKind::Xfs => 300 << 20,
            FsKind::Btrfs => 114_294_784,
            FsKind::F2fs => 64 << 20,
            FsKind::Tmpfs => 1 << 20,
        }
    }

    /// The variants after `:` this type accepts.
    fn variants(self) -> &'static [&'static str] {
        match self {
            FsKind::Ext4 => &["data=ordered", "data=journal", "data=writeback", "nojournal"],
            FsKind::Btrfs => &["nodatacow"],
            _ => &[],
        }
    }
}

/// One `--fs` value, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsSpec {
    pub kind: FsKind,
    /// The variant after `:` (`data=journal`), if any.
    pub variant: Option<String>,
}

/// Why a `--fs` or `--fs-size` value cannot be used; each message names the flag and the fix.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FsSpecError {
    #[error("--fs {0}: unknown filesystem; valid: ext4, ext4:data=journal, ext4:data=writeback, ext4:nojournal, xfs, btrfs, btrfs:nodatacow, f2fs, tmpfs")]
    Unknown(String),
    #[error("--fs {value}: {fs} has no variant `{variant}`; valid: {valid}")]
    Variant {
        value: String,
        fs: &'static str,
        variant: String,
        valid: String,
    },
    #[error("--fs {0} is given twice")]
    Duplicate(String),
    #[error("--fs-size {0}: not a size; give bytes or a number with K, M, G or T (binary units), e.g. 1G")]
    Size(String),
    #[error("--fs-size {size}: {fs} needs an image of at least {min_mib} MiB; give a larger --fs-size")]
    TooSmall {
        size: String,
        fs: &'static str,
        min_mib: u64,
    },
    #[error(
        "--fs needs root: it attaches loop devices and mounts filesystems; run litebench as root or leave out --fs"
    )]
    NotRoot,
    #[error("--fs f2fs: this kernel has no F2FS support (f2fs is not in /proc/filesystems and modprobe f2fs failed); add --guest to run it inside a user-mode Linux kernel that has it (Debian package user-mode-linux), or leave out f2fs")]
    NoF2fs,
    #[error("--fs {0}: this kernel has no {0} support (not in /proc/filesystems and modprobe {0} failed); leave out {0} or use a kernel that has it")]
    NoKernelSupport(&'static str),
    #[error("--fs {fs}: {tool} not found; install the Debian package {package}")]
    NoTool {
        fs: &'static str,
        tool: &'static str,
        package: &'static str,
    },
    #[error("--fs: {tool} not found; install the Debian package {package}")]
    NoHelper { tool: &'static str, package: &'static str },
}

impl FsSpec {
    /// Parses one `--fs` value.
    pub fn parse(value: &str) -> Result<FsSpec, FsSpecError> {
        let (name, variant) = match value.split_once(':') {
            Some((n, v)) => (n, Some(v)),
            None => (value, None),
        };
        let kind = FsKind::ALL
            .into_iter()
            .find(|k| k.name() == name.trim().to_ascii_lowercase())
            .ok_or_else(|| FsSpecError::Unknown(value.to_string()))?;
        let variant = match variant.map(str::trim) {
            None => None,
            Some(v) if kind.variants().contains(&v) => Some(v.to_string()),
            Some(v) => {
                return Err(FsSpecError::Variant {
                    value: value.to_string(),
                    fs: kind.name(),
                    variant: v.to_string(),
                    valid: if kind.variants().is_empty() {
                        "none".to_string()
                    } else {
                        kind.variants().join(", ")
                    },
                })
            }
        };
        Ok(FsSpec { kind, variant })
    }

    /// `ext4:data=journal`, as given (normalised).
    pub fn label(&self) -> String {
        match &self.variant {
            Some(v) => format!("{}:{v}", self.kind.name()),
            None => self.kind.name().to_string(),
        }
    }

    /// Arguments to the mkfs tool before the device. Ext4 initialises its inode tables and
    /// journal at mkfs time, not lazily in a kernel thread that would write during trials.
    pub fn mkfs_args(&self) -> Vec<String> {
        let v: &[&str] = match (self.kind, self.variant.as_deref()) {
            (FsKind::Ext4, Some("nojournal")) => &["-F", "-q", "-E", "lazy_itable_init=0", "-O", "^has_journal"],
            (FsKind::Ext4, _) => &["-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0"],
            (FsKind::Xfs, _) | (FsKind::Btrfs, _) => &["-f", "-q"],
            (FsKind::F2fs, _) => &["-f", "-q"],
            (FsKind::Tmpfs, _) => &[],
        };
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Options for `mount -o` (tmpfs's size is added by the mounter).
    pub fn mount_options(&self) -> String {
        match (self.kind, self.variant.as_deref()) {
            (FsKind::Ext4, Some(v)) if v.starts_with("data=") => v.to_string(),
            (FsKind::Btrfs, Some("nodatacow")) => "nodatacow".to_string(),
            _ => String::new(),
        }
    }
}

/// Parses every `--fs` value; duplicates are refused.
pub fn parse_all(values: &[String]) -> Result<Vec<FsSpec>, FsSpecError> {
    let mut specs: Vec<FsSpec> = Vec::new();
    for v in values {
        let s = FsSpec::parse(v)?;
        if specs.contains(&s) {
            return Err(FsSpecError::Duplicate(v.clone()));
        }
        specs.push(s);
    }
    Ok(specs)
}

/// Parses `--fs-size`: whole bytes, with the units of [`crate::base::bytesize`] (`1G` = 1 GiB, as
/// truncate(1) reads it; `1GB` = 10^9).
pub fn parse_size(s: &str) -> Result<u64, FsSpecError> {
    crate::base::bytesize::whole(s)
        .filter(|&b| b > 0)
        .ok_or_else(|| FsSpecError::Size(s.to_string()))
}

/// Checks that every filesystem can be built at `size_bytes` (`size` as the user wrote it).
pub fn check_sizes(specs: &[FsSpec], size: &str, size_bytes: u64) -> Result<(), FsSpecError> {
    for s in specs {
        if size_bytes < s.kind.min_bytes() {
            return Err(FsSpecError::TooSmall {
                size: size.to_string(),
                fs: s.kind.name(),
                min_mib: s.kind.min_bytes().div_ceil(1 << 20),
            });
        }
    }
    Ok(())
}

/// Finds a program in PATH or the sbin directories (root's tools live there even when a
/// user's PATH leaves them out).
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(
            ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
                .into_iter()
                .map(PathBuf::from),
        )
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

/// An executable regular file (following links).
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn kernel_has(name: &str) -> bool {
    let listed = || {
        std::fs::read_to_string("/proc/filesystems")
            .map(|t| t.lines().any(|l| l.split_whitespace().last() == Some(name)))
            .unwrap_or(false)
    };
    if listed() {
        return true;
    }
    // A filesystem built as a module is listed only once loaded.
    let loaded = find_tool("modprobe").is_some_and(|m| {
        std::process::Command::new(m)
            .args(["-q", name])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    loaded && listed()
}

/// Checks root, kernel support and tools for every filesystem, in that order.
pub fn check_host(specs: &[FsSpec]) -> Result<(), FsSpecError> {
    if specs.is_empty() {
        return Ok(());
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(FsSpecError::NotRoot);
    }
    for s in specs {
        if !kernel_has(s.kind.name()) {
            return Err(match s.kind {
                FsKind::F2fs => FsSpecError::NoF2fs,
                k => FsSpecError::NoKernelSupport(k.name()),
            });
        }
        if let Some((tool, package)) = s.kind.mkfs_tool() {
            if find_tool(tool).is_none() {
                return Err(FsSpecError::NoTool {
                    fs: s.kind.name(),
                    tool,
                    package,
                });
            }
        }
    }
    for tool in ["losetup", "mount", "umount"] {
        if find_tool(tool).is_none() {
            return Err(FsSpecError::NoHelper { tool, package: "mount" });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_variants_and_refuses_the_rest() {
        let s = FsSpec::parse("ext4:data=journal").unwrap();
        assert_eq!(
            (s.kind, s.label(), s.mount_options()),
            (FsKind::Ext4, "ext4:data=journal".into(), "data=journal".into())
        );
        assert!(FsSpec::parse("ext4:nojournal")
            .unwrap()
            .mkfs_args()
            .contains(&"^has_journal".to_string()));
        assert_eq!(FsSpec::parse("btrfs:nodatacow").unwrap().mount_options(), "nodatacow");
        assert_eq!(FsSpec::parse("tmpfs").unwrap().kind, FsKind::Tmpfs);
        assert!(matches!(FsSpec::parse("ntfs"), Err(FsSpecError::Unknown(_))));
        assert!(matches!(
            FsSpec::parse("xfs:data=journal"),
            Err(FsSpecError::Variant { .. })
        ));
        assert!(matches!(
            parse_all(&["xfs".into(), "ext4".into(), "xfs".into()]),
            Err(FsSpecError::Duplicate(_))
        ));
    }

    #[test]
    fn sizes_use_binary_units_and_refuse_images_mkfs_would_refuse() {
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("256MiB").unwrap(), 256 << 20);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("").is_err());
        let xfs = parse_all(&["ext4".into(), "xfs".into()]).unwrap();
        assert!(matches!(
            check_sizes(&xfs, "256M", 256 << 20),
            Err(FsSpecError::TooSmall {
                fs: "xfs",
                min_mib: 300,
                ..
            })
        ));
        assert!(check_sizes(&xfs, "320M", 320 << 20).is_ok());
    }
}
