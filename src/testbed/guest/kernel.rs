//! The guest kernel: where Debian's `user-mode-linux` puts it, and what it can mount.
//!
//! The package installs the kernel as `/usr/bin/linux.uml` and its modules under
//! `/usr/lib/uml/modules/RELEASE`, whose `modules.builtin` lists what is compiled in. Whether a
//! `--fs` value or `--scheduler` works in the guest is decided from those files before anything
//! boots, so a missing filesystem is a one-line refusal, not a guest that fails half-way.

use crate::testbed::fsspec::{FsKind, FsSpec};
use std::path::{Path, PathBuf};

/// Where the package puts the modules of each release.
const MODULES_ROOT: &str = "/usr/lib/uml/modules";

/// The guest kernel found on this machine.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub binary: PathBuf,
    pub release: String,
    pub modules_dir: PathBuf,
}

/// Why the guest kernel cannot do what the run asks.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KernelError {
    #[error("--guest: no user-mode Linux kernel (linux.uml) found; install the Debian package user-mode-linux")]
    NoKernel,
    #[error("--guest: no modules under {0}; reinstall the Debian package user-mode-linux")]
    NoModules(String),
    #[error("--guest: the guest kernel {release} cannot mount {fs} (neither built in nor a module under {dir}); leave out --fs {fs}")]
    NoFs {
        release: String,
        fs: &'static str,
        dir: String,
    },
    #[error("--guest: the guest kernel {release} has no I/O scheduler {scheduler}; leave it out of --scheduler")]
    NoScheduler { release: String, scheduler: String },
    #[error("--guest: {tool} not found on the host, whose root the guest uses; install the Debian package {package}")]
    NoTool { tool: &'static str, package: &'static str },
}

impl Kernel {
    /// Finds the kernel binary and its (single) module release.
    pub fn find() -> Result<Kernel, KernelError> {
        let binary = crate::testbed::fsspec::find_tool("linux.uml").ok_or(KernelError::NoKernel)?;
        let mut releases: Vec<String> = std::fs::read_dir(MODULES_ROOT)
            .map_err(|_| KernelError::NoModules(MODULES_ROOT.into()))?
            .flatten()
            .filter(|e| e.path().join("modules.builtin").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        releases.sort();
        let release = releases
            .pop()
            .ok_or_else(|| KernelError::NoModules(MODULES_ROOT.into()))?;
        Ok(Kernel {
            binary,
            modules_dir: Path::new(MODULES_ROOT).join(&release),
            release,
        })
    }

    /// Whether a module is built in (`modules.builtin`) or present as a loadable file
    /// (`modules.dep`); `rel` is its path under `kernel/` without the extension.
    fn provides(&self, rel: &str) -> (bool, bool) {
        let listed = |file: &str, suffix: &str| {
            std::fs::read_to_string(self.modules_dir.join(file)).is_ok_and(|t| {
                t.lines().any(|l| {
                    l.split(':')
                        .next()
                        .is_some_and(|m| m == format!("kernel/{rel}{suffix}"))
                })
            })
        };
        (listed("modules.builtin", ".ko"), listed("modules.dep", ".ko"))
    }

    /// The modules to load so the guest can mount every filesystem and offer every scheduler
    /// the run asks for, or why it cannot.
    pub fn modules_for(&self, specs: &[FsSpec], schedulers: &[String]) -> Result<Vec<String>, KernelError> {
        let mut load = Vec::new();
        for s in specs {
            let name = s.kind.name();
            if s.kind == FsKind::Tmpfs {
                continue;
            }
            match self.provides(&format!("fs/{name}/{name}")) {
                (true, _) => {}
                (false, true) => {
                    // F2FS checksums with the crypto API's crc32, which the kernel would
                    // otherwise ask the host's modprobe for, from the host's module tree.
                    if s.kind == FsKind::F2fs && self.provides("crypto/crc32_generic").1 {
                        load.push("crc32_generic".to_string());
                    }
                    load.push(name.to_string());
                }
                (false, false) => {
                    return Err(KernelError::NoFs {
                        release: self.release.clone(),
                        fs: name,
                        dir: self.modules_dir.display().to_string(),
                    })
                }
            }
            if let Some((tool, package)) = s.kind.mkfs_tool() {
                if crate::testbed::fsspec::find_tool(tool).is_none() {
                    return Err(KernelError::NoTool { tool, package });
                }
            }
        }
        for sched in schedulers {
            let rel = match sched.as_str() {
                "none" => continue,
                "kyber" => "block/kyber-iosched".to_string(),
                s => format!("block/{s}"),
            };
            match self.provides(&rel) {
                (true, _) => {}
                (false, true) => load.push(sched.clone()),
                (false, false) => {
                    return Err(KernelError::NoScheduler {
                        release: self.release.clone(),
                        scheduler: sched.clone(),
                    })
                }
            }
        }
        if !load.is_empty() && crate::testbed::fsspec::find_tool("modprobe").is_none() {
            return Err(KernelError::NoTool {
                tool: "modprobe",
                package: "kmod",
            });
        }
        load.dedup();
        Ok(load)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(builtin: &str, dep: &str) -> (tempfile::TempDir, Kernel) {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("modules.builtin"), builtin).unwrap();
        std::fs::write(t.path().join("modules.dep"), dep).unwrap();
        let k = Kernel {
            binary: PathBuf::from("/bin/true"),
            release: "6.1.0".into(),
            modules_dir: t.path().to_path_buf(),
        };
        (t, k)
    }

    #[test]
    fn builtin_filesystems_load_nothing_and_modules_load_with_what_they_need() {
        let (_t, k) = fake(
            "kernel/fs/ext4/ext4.ko\nkernel/block/mq-deadline.ko\n",
            "kernel/fs/f2fs/f2fs.ko:\nkernel/crypto/crc32_generic.ko:\nkernel/block/bfq.ko:\n",
        );
        let ext4 = FsSpec::parse("ext4:data=journal").unwrap();
        let tmpfs = FsSpec::parse("tmpfs").unwrap();
        assert_eq!(
            k.modules_for(&[ext4.clone(), tmpfs], &["mq-deadline".into()]),
            Ok(vec![])
        );
        if crate::testbed::fsspec::find_tool("mkfs.f2fs").is_some()
            && crate::testbed::fsspec::find_tool("modprobe").is_some()
        {
            let f2fs = FsSpec::parse("f2fs").unwrap();
            assert_eq!(
                k.modules_for(&[ext4, f2fs], &["bfq".into(), "none".into()]),
                Ok(vec!["crc32_generic".into(), "f2fs".into(), "bfq".into()])
            );
        }
    }

    #[test]
    fn what_the_guest_kernel_lacks_is_refused_by_name() {
        let (_t, k) = fake("kernel/fs/ext4/ext4.ko\n", "");
        assert!(matches!(
            k.modules_for(&[FsSpec::parse("btrfs").unwrap()], &[]),
            Err(KernelError::NoFs { fs: "btrfs", .. })
        ));
        assert!(matches!(
            k.modules_for(&[], &["kyber".into()]),
            Err(KernelError::NoScheduler { .. })
        ));
    }
}
