//! The machine a number was measured on: OS, kernel, CPU, memory, CPU
//! frequency governor and whether it is a virtual machine. A transactions
//! per second figure from a 2-core VM and from a 64-core server are different
//! facts; without this record they look like the same one.

use std::ffi::CStr;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::fsread::{non_empty, read_trimmed};
use crate::{cpuinfo, meminfo, os_release};

/// Facts about the machine; anything that could not be read is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// `PRETTY_NAME` from os-release.
    pub os: Option<String>,
    /// Kernel release (`uname -r`).
    pub kernel: Option<String>,
    /// Kernel build string (`uname -v`).
    pub kernel_version: Option<String>,
    /// `std::env::consts::ARCH`.
    pub arch: String,
    pub hostname: Option<String>,
    /// `model name` from `/proc/cpuinfo`.
    pub cpu_model: Option<String>,
    /// Online logical CPUs; 0 only if neither `sysconf` nor the standard
    /// library could tell.
    pub cpu_count: usize,
    /// `MemTotal` in bytes.
    pub memory_bytes: Option<u64>,
    /// cpu0's cpufreq scaling governor (absent in most VMs).
    pub cpu_governor: Option<String>,
    /// Effective user id is 0.
    pub is_root: bool,
    /// `Some("hypervisor")` when the CPU advertises the hypervisor flag.
    pub virtualization: Option<String>,
}

/// Reads the machine facts. Never fails; unknowns are `None`.
pub fn machine() -> Machine {
    let uts = Uname::read();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok();
    let os_release = std::fs::read_to_string("/etc/os-release")
        .or_else(|_| std::fs::read_to_string("/usr/lib/os-release"))
        .ok();
    Machine {
        os: os_release.as_deref().and_then(|t| os_release::value(t, "PRETTY_NAME")),
        kernel: uts.as_ref().and_then(|u| u.release.clone()),
        kernel_version: uts.as_ref().and_then(|u| u.version.clone()),
        arch: std::env::consts::ARCH.to_owned(),
        hostname: uts.as_ref().and_then(|u| u.nodename.clone()),
        cpu_model: cpuinfo.as_deref().and_then(cpuinfo::model),
        cpu_count: online_cpus(),
        memory_bytes: std::fs::read_to_string("/proc/meminfo")
            .ok()
            .as_deref()
            .and_then(meminfo::mem_total_bytes),
        cpu_governor: read_trimmed(Path::new("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")),
        // SAFETY: geteuid has no preconditions and cannot fail.
        is_root: unsafe { libc::geteuid() } == 0,
        virtualization: cpuinfo
            .as_deref()
            .filter(|t| cpuinfo::has_hypervisor_flag(t))
            .map(|_| "hypervisor".to_owned()),
    }
}

/// Logical CPUs currently online.
fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions; it returns -1 on failure.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        return usize::try_from(n).unwrap_or(0);
    }
    std::thread::available_parallelism().map_or(0, std::num::NonZeroUsize::get)
}

struct Uname {
    release: Option<String>,
    version: Option<String>,
    nodename: Option<String>,
}

impl Uname {
    fn read() -> Option<Uname> {
        // SAFETY: utsname is plain old data; all-zero is a valid value.
        let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
        // SAFETY: uts is a valid, writable utsname.
        if unsafe { libc::uname(&raw mut uts) } != 0 {
            return None;
        }
        Some(Uname {
            release: field(&uts.release),
            version: field(&uts.version),
            nodename: field(&uts.nodename),
        })
    }
}

/// A NUL-terminated utsname field as a string (`None` if unterminated or empty).
fn field(raw: &[libc::c_char]) -> Option<String> {
    // c_char is i8 or u8 depending on the target; reinterpret as bytes.
    let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).collect();
    let s = CStr::from_bytes_until_nul(&bytes).ok()?;
    non_empty(s.to_string_lossy().trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utsname_field_stops_at_nul() {
        let raw: Vec<libc::c_char> = b"6.1.0\0junk".iter().map(|&b| b as libc::c_char).collect();
        assert_eq!(field(&raw).as_deref(), Some("6.1.0"));
        let unterminated: Vec<libc::c_char> = b"abc".iter().map(|&b| b as libc::c_char).collect();
        assert_eq!(field(&unterminated), None);
        assert_eq!(field(&[0]), None);
    }

    #[test]
    fn machine_reads_basics() {
        let m = machine();
        assert_eq!(m.arch, std::env::consts::ARCH);
        assert!(m.cpu_count >= 1);
        assert!(m.kernel.is_some());
    }
}
