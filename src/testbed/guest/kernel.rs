//! The guest kernel: where Debian's `user-mode-linux` puts it, and what it can mount.
//!
//! The package installs the kernel as `/usr/bin/linux.uml` and its modules under
//! `/usr/lib/uml/modules/RELEASE`, whose `modules.builtin` lists what is compiled in. Whether a
//! `--fs` value or `--scheduler` works in the guest is decided from those files before anything
//! boots, so a missing filesystem is a one-line refusal, not a guest that fails half-way.
//!
//! [`ENV_VAR`] names another kernel binary: Debian 12's (Linux 6.1) cannot run on a CPU with
//! AVX-512 or AMX (it hands the host's ptrace too small an FPU state; see
//! [`diagnose_console`]), and a newer package unpacked elsewhere keeps its modules beside
//! itself (`PREFIX/usr/bin/linux.uml`, `PREFIX/usr/lib/uml/modules/RELEASE`).

use crate::testbed::fsspec::{FsKind, FsSpec};
use std::path::{Path, PathBuf};

/// Where the package puts the modules of each release.
const MODULES_ROOT: &str = "/usr/lib/uml/modules";

/// Environment variable naming the guest kernel's binary, instead of `linux.uml` on the PATH.
pub const ENV_VAR: &str = "LITEBENCH_GUEST_KERNEL";

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
    #[error(
        "--guest: {ENV_VAR}={0} is not an executable file; name a user-mode Linux kernel (linux.uml), or unset it"
    )]
    NotAKernel(String),
    #[error("--guest: no modules for the guest kernel {binary} (release {release}) under {dirs}; unpack its package whole, with usr/lib/uml/modules/{release} beside usr/bin/linux.uml")]
    NoModulesFor {
        binary: String,
        release: String,
        dirs: String,
    },
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
    /// Finds the kernel binary ([`ENV_VAR`], else `linux.uml` on the PATH) and its modules.
    pub fn find() -> Result<Kernel, KernelError> {
        match std::env::var_os(ENV_VAR).filter(|v| !v.is_empty()) {
            Some(named) => Kernel::named(PathBuf::from(named)),
            None => Kernel::packaged(),
        }
    }

    /// A kernel binary named by [`ENV_VAR`]: its release is what it says of itself
    /// (`--version`), and its modules are that release's, beside it (`../lib/uml/modules`, as
    /// its package lays them out) or where Debian's package puts them.
    fn named(binary: PathBuf) -> Result<Kernel, KernelError> {
        if !crate::testbed::fsspec::is_executable(&binary) {
            return Err(KernelError::NotAKernel(binary.display().to_string()));
        }
        let release = std::process::Command::new(&binary)
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|r| !r.is_empty() && !r.contains(char::is_whitespace))
            .ok_or_else(|| KernelError::NotAKernel(binary.display().to_string()))?;
        let roots = modules_roots(&binary);
        let modules_dir = roots
            .iter()
            .map(|r| r.join(&release))
            .find(|d| d.join("modules.builtin").is_file())
            .ok_or_else(|| KernelError::NoModulesFor {
                binary: binary.display().to_string(),
                release: release.clone(),
                dirs: roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            })?;
        Ok(Kernel {
            binary,
            release,
            modules_dir,
        })
    }

    /// Debian's package: `linux.uml` on the PATH and the newest release of its modules.
    fn packaged() -> Result<Kernel, KernelError> {
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

/// Where a kernel binary's modules may be: beside it as its package lays them out
/// (`PREFIX/usr/bin/linux.uml` has `PREFIX/usr/lib/uml/modules`), then Debian's place.
fn modules_roots(binary: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(prefix) = binary.parent().and_then(Path::parent) {
        roots.push(prefix.join("lib/uml/modules"));
    }
    if !roots.iter().any(|r| r == Path::new(MODULES_ROOT)) {
        roots.push(PathBuf::from(MODULES_ROOT));
    }
    roots
}

/// Why a guest kernel that stopped early did, where its console says something a person can
/// act on: `None` when it says nothing known.
pub fn diagnose_console(console: &str, kernel: &Kernel) -> Option<String> {
    // Linux before 7.x on a host whose FPU state is larger than the guest kernel's fixed
    // buffer (AVX-512, AMX): the host's PTRACE_SETREGSET refuses with EFAULT, and the guest's
    // first process dies of SIGSEGV.
    console.contains("ptrace set fp regs failed").then(|| {
        format!(
            "the guest kernel {} (Linux {}) cannot run on this CPU: it hands the host's ptrace a smaller FPU state than the host's AVX-512/AMX registers need (its console: \"userspace - ptrace set fp regs failed\"); name a user-mode Linux 7.x kernel with {ENV_VAR}=PATH/usr/bin/linux.uml (tests/fs/fetch-uml.sh fetches one; docs/filesystems.md)",
            kernel.binary.display(),
            kernel.release
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_kernel_finds_its_own_release_beside_it_and_a_cpu_it_cannot_serve_is_explained() {
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("usr/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let kernel = bin.join("linux.uml");
        std::fs::write(&kernel, "#!/bin/sh\necho 7.2.7\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&kernel, std::fs::Permissions::from_mode(0o755)).unwrap();
        // No modules of its release anywhere: refused, naming where it looked.
        let e = Kernel::named(kernel.clone()).unwrap_err().to_string();
        assert!(e.contains("release 7.2.7") && e.contains("usr/lib/uml/modules"), "{e}");
        let modules = t.path().join("usr/lib/uml/modules/7.2.7");
        std::fs::create_dir_all(&modules).unwrap();
        std::fs::write(modules.join("modules.builtin"), "").unwrap();
        let k = Kernel::named(kernel.clone()).unwrap();
        assert_eq!(
            (k.release.as_str(), k.modules_dir.as_path()),
            ("7.2.7", modules.as_path())
        );
        // Not a kernel at all.
        let e = Kernel::named(t.path().join("nothing")).unwrap_err().to_string();
        assert!(
            e.starts_with("--guest: LITEBENCH_GUEST_KERNEL=") && !e.contains('\n'),
            "{e}"
        );
        // The console of Linux 6.1 on an AVX-512/AMX host.
        let console = "Run /sbin/init as init process\nuserspace - ptrace set fp regs failed, errno = 14\nKernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b\n";
        let why = diagnose_console(console, &k).unwrap();
        assert!(why.contains("cannot run on this CPU") && why.contains(ENV_VAR), "{why}");
        assert_eq!(diagnose_console("Kernel panic - not syncing: VFS", &k), None);
    }

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
