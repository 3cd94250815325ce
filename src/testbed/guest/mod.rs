//! `--guest`: a whole run inside a throwaway user-mode Linux kernel.
//!
//! Why: the host kernel here has no F2FS, and many users' kernels lack one filesystem or
//! another, yet a filesystem comparison is only fair when every filesystem runs under the same
//! kernel on the same device. Debian's `user-mode-linux` package is a Linux 6.1 kernel that runs
//! as an ordinary process (it boots in about 2 s, needs neither root nor KVM), with ext4, xfs and
//! btrfs built in and f2fs and bfq as modules. QEMU would emulate every instruction (nested KVM
//! does not start a stock kernel on these machines), so UML is what `--guest` starts.
//!
//! How: the host validates the whole command, writes one zero-filled image per `--fs` in the
//! run's scratch directory, and boots the guest with the host's root read-only (hostfs), the
//! images as its disks and the scratch directory mounted read-write; litebench itself is the
//! guest's init ([`init`]): it loads the modules, runs `litebench run` with the same arguments on
//! the guest's disks, and powers off. The guest's results store lives in the scratch directory;
//! the host copies its runs into the host's store ([`crate::bench::guest`]).
//!
//! Durability (measured, see docs/filesystems.md): UML's plain disks never sync the host file —
//! 200 O_DSYNC writes in the guest made no fsync or fdatasync on the host (strace on every UML
//! thread), so a guest fsync would cost nothing and mean nothing. litebench therefore attaches
//! each image with UML's `s` flag: the host opens it O_SYNC and every guest write is durable on
//! the host's storage when it completes (a disk with its write cache off), and checks that flag in
//! /proc of the running guest. The images are written with zeros first, so a guest write never
//! makes the host allocate blocks, and `t` turns TRIM off so mkfs cannot punch holes back in.

pub mod init;
pub mod kernel;

use crate::model::record::GuestInfo;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Name of the job file in the scratch directory.
pub const JOB_FILE: &str = "guest-job.json";
/// What the guest's init writes when the run in the guest has ended.
pub const EXIT_FILE: &str = "guest-exit.json";
/// Created by the host when the user asks the run to stop (Ctrl-C); the guest's init looks for
/// it by listing the scratch directory, which hostfs reads from the host on every call.
pub const STOP_FILE: &str = "guest-stop";
/// The guest kernel's console (boot messages), kept for diagnosis until the run ends.
pub const CONSOLE_FILE: &str = "guest-console.log";
/// The guest's results store, copied into the host's store when the guest has stopped.
pub const STORE_FILE: &str = "guest-results.db";
/// Directories of the host's root that can carry the guest's own tmpfs (its root is the
/// host's, read-only, so a mount point must already exist there).
const TMP_CANDIDATES: [&str; 5] = ["/tmp", "/run", "/mnt", "/srv", "/media"];

/// Where the guest mounts its tmpfs (its scratch directory, `TMPDIR`, the module tree): the
/// first candidate that does not hide the scratch directory the guest shares with the host.
pub fn guest_tmp(job_dir: &Path) -> PathBuf {
    let pick = TMP_CANDIDATES
        .iter()
        .map(Path::new)
        .find(|c| !job_dir.starts_with(c) && c.is_dir())
        .unwrap_or(Path::new("/run"));
    pick.to_path_buf()
}

/// The scratch directory of the run inside the guest, on the guest's tmpfs.
pub fn guest_dir(job_dir: &Path) -> PathBuf {
    guest_tmp(job_dir).join("litebench-guest")
}

/// One image the guest sees as a disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestDisk {
    /// Position in the run's `--fs` list.
    pub fs_index: usize,
    /// The guest's device (`/dev/ubda`).
    pub device: String,
    /// The image file on the host.
    pub image: PathBuf,
}

/// Everything the guest's init needs, written by the host into the scratch directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GuestJob {
    /// The litebench binary (the same file, seen through the guest's read-only root).
    pub exe: PathBuf,
    /// The subcommand the guest runs: `run` (a whole run on the guest's disks) or `qualify`
    /// (a directory of the host's, seen through hostfs). Jobs written before it was kept ran
    /// `run`.
    #[serde(default = "run_command")]
    pub command: String,
    /// Its arguments.
    pub run_args: Vec<String>,
    /// Directories of the host mounted read-write in the guest, each at its own path (hostfs);
    /// the rest of the host's root stays read-only.
    #[serde(default)]
    pub hostfs: Vec<PathBuf>,
    /// Where the command's standard output goes instead of the guest's first terminal (a
    /// file in the scratch directory the host reads back whole).
    #[serde(default)]
    pub stdout: Option<PathBuf>,
    pub disks: Vec<GuestDisk>,
    /// The guest kernel's modules (`/usr/lib/uml/modules/RELEASE`) and those to load.
    pub modules_dir: PathBuf,
    pub modules: Vec<String>,
    /// The scratch directory, mounted read-write in the guest at the same path.
    pub job_dir: PathBuf,
    /// Environment variables passed on to the run (`LITEBENCH_CACHE`, ...).
    pub env: Vec<(String, String)>,
    /// What the manifest of the run in the guest records; the guest's init adds its own
    /// measurement of a system call.
    pub info: GuestInfo,
}

fn run_command() -> String {
    "run".into()
}

/// How the run in the guest ended, as the guest's init saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestExit {
    /// `litebench run`'s exit code, or `None` when it never ran or was killed.
    pub code: Option<i32>,
    /// What went wrong before or around it.
    pub error: Option<String>,
}

/// A problem starting, running or reading back a guest.
#[derive(Debug, thiserror::Error)]
pub enum GuestError {
    #[error("--guest: {0}")]
    Setup(String),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

impl GuestError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GuestError + '_ {
        move |source| GuestError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The guest's disk name for the `n`-th image (`ubd0` is `/dev/ubda`).
pub fn device_name(n: usize) -> String {
    let letter = (b'a' + (n % 26) as u8) as char;
    format!("/dev/ubd{letter}")
}

/// Nanoseconds per trivial system call (getppid), averaged over `calls`.
pub fn syscall_ns(calls: u32) -> f64 {
    let start = std::time::Instant::now();
    for _ in 0..calls {
        // SAFETY: getppid has no preconditions; black_box keeps the call in the loop.
        std::hint::black_box(unsafe { libc::getppid() });
    }
    start.elapsed().as_nanos() as f64 / f64::from(calls.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disks_are_named_as_the_guest_kernel_names_them() {
        assert_eq!(device_name(0), "/dev/ubda");
        assert_eq!(device_name(3), "/dev/ubdd");
    }

    #[test]
    fn the_guests_tmpfs_never_hides_the_shared_scratch_directory() {
        assert_eq!(guest_tmp(Path::new("/var/tmp/x")), Path::new("/tmp"));
        let t = guest_tmp(Path::new("/tmp/x/run-1"));
        assert_ne!(t, Path::new("/tmp"));
        assert!(!Path::new("/tmp/x/run-1").starts_with(&t));
    }

    #[test]
    fn a_system_call_costs_something_measurable() {
        let ns = syscall_ns(10_000);
        assert!(ns > 0.0 && ns < 1e6, "{ns}");
    }
}
