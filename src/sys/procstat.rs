//! What the kernel says the process did: `/proc/self/io` and `getrusage`.
//!
//! The VFS shim sees what SQLite asked for; the kernel sees what actually reached the page cache
//! and the block layer (`write_bytes`), and how much CPU the trial burned. Both are recorded per
//! trial so a surprising number can be traced to its cause.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Counters of `/proc/self/io` (`None` when the kernel does not provide the file).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcIo {
    pub rchar: u64,
    pub wchar: u64,
    pub syscr: u64,
    pub syscw: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub cancelled_write_bytes: u64,
}

impl ProcIo {
    /// Reads `/proc/self/io`.
    pub fn read() -> Option<ProcIo> {
        Self::parse(&std::fs::read_to_string("/proc/self/io").ok()?)
    }

    /// Parses the text of `/proc/<pid>/io`.
    pub fn parse(text: &str) -> Option<ProcIo> {
        let mut io = ProcIo::default();
        let mut seen = 0;
        for line in text.lines() {
            let Some((k, v)) = line.split_once(':') else { continue };
            let v: u64 = v.trim().parse().ok()?;
            let slot = match k.trim() {
                "rchar" => &mut io.rchar,
                "wchar" => &mut io.wchar,
                "syscr" => &mut io.syscr,
                "syscw" => &mut io.syscw,
                "read_bytes" => &mut io.read_bytes,
                "write_bytes" => &mut io.write_bytes,
                "cancelled_write_bytes" => &mut io.cancelled_write_bytes,
                _ => continue,
            };
            *slot = v;
            seen += 1;
        }
        (seen == 7).then_some(io)
    }

    /// Counts accumulated between `earlier` and `self`.
    pub fn since(&self, e: &ProcIo) -> ProcIo {
        ProcIo {
            rchar: self.rchar.saturating_sub(e.rchar),
            wchar: self.wchar.saturating_sub(e.wchar),
            syscr: self.syscr.saturating_sub(e.syscr),
            syscw: self.syscw.saturating_sub(e.syscw),
            read_bytes: self.read_bytes.saturating_sub(e.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(e.write_bytes),
            cancelled_write_bytes: self.cancelled_write_bytes.saturating_sub(e.cancelled_write_bytes),
        }
    }
}

/// The process's resource usage (`getrusage(RUSAGE_SELF)`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rusage {
    #[serde(rename = "user_cpu_us", with = "micros")]
    pub user_cpu: Duration,
    #[serde(rename = "system_cpu_us", with = "micros")]
    pub system_cpu: Duration,
    pub minor_faults: u64,
    pub major_faults: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
    pub block_inputs: u64,
    pub block_outputs: u64,
}

/// Durations in JSON as whole microseconds, the resolution `getrusage` reports.
mod micros {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_micros() as u64)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_micros(u64::deserialize(d)?))
    }
}

fn tv(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
}

impl Rusage {
    /// Reads the current process's usage.
    pub fn read() -> Rusage {
        // SAFETY: getrusage fills the zeroed struct; RUSAGE_SELF cannot fail.
        let r = unsafe {
            let mut r: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut r);
            r
        };
        Rusage {
            user_cpu: tv(r.ru_utime),
            system_cpu: tv(r.ru_stime),
            minor_faults: r.ru_minflt as u64,
            major_faults: r.ru_majflt as u64,
            voluntary_switches: r.ru_nvcsw as u64,
            involuntary_switches: r.ru_nivcsw as u64,
            block_inputs: r.ru_inblock as u64,
            block_outputs: r.ru_oublock as u64,
        }
    }

    /// Usage accumulated between `e` and `self`.
    pub fn since(&self, e: &Rusage) -> Rusage {
        Rusage {
            user_cpu: self.user_cpu.saturating_sub(e.user_cpu),
            system_cpu: self.system_cpu.saturating_sub(e.system_cpu),
            minor_faults: self.minor_faults.saturating_sub(e.minor_faults),
            major_faults: self.major_faults.saturating_sub(e.major_faults),
            voluntary_switches: self.voluntary_switches.saturating_sub(e.voluntary_switches),
            involuntary_switches: self.involuntary_switches.saturating_sub(e.involuntary_switches),
            block_inputs: self.block_inputs.saturating_sub(e.block_inputs),
            block_outputs: self.block_outputs.saturating_sub(e.block_outputs),
        }
    }
}

/// Kernel counters at one moment.
#[derive(Debug, Clone, Copy)]
pub struct KernelSnapshot {
    pub io: Option<ProcIo>,
    pub usage: Rusage,
}

/// Kernel counters accumulated over a trial.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelDelta {
    pub io: Option<ProcIo>,
    pub usage: Rusage,
}

impl KernelSnapshot {
    /// Reads both sources now.
    pub fn take() -> KernelSnapshot {
        KernelSnapshot {
            io: ProcIo::read(),
            usage: Rusage::read(),
        }
    }

    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &KernelSnapshot) -> KernelDelta {
        KernelDelta {
            io: match (self.io, earlier.io) {
                (Some(a), Some(b)) => Some(a.since(&b)),
                _ => None,
            },
            usage: self.usage.since(&earlier.usage),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_io() {
        let t =
            "rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n";
        let io = ProcIo::parse(t).unwrap();
        assert_eq!(io.write_bytes, 8192);
        assert_eq!(ProcIo::parse("rchar: 1\n"), None);
    }

    #[test]
    fn live_counters_move_forward() {
        let a = KernelSnapshot::take();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        let d = KernelSnapshot::take().since(&a);
        assert!(d.usage.user_cpu + d.usage.system_cpu <= Duration::from_secs(60));
        assert!(a.io.is_some(), "/proc/self/io should exist on Linux");
    }
}
