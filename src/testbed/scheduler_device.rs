//! `--scheduler-device DEV`: varying the I/O scheduler of a real device, and putting it back.
//!
//! A loop device's scheduler barely shapes what reaches the disk (see [`crate::testbed::scheduler`]), so a
//! user who wants the scheduler that matters must name the real device. That device is not
//! litebench's: it is touched only when asked for by name, as root, and its original scheduler is
//! put back on every way out — success, error and Ctrl-C through [`DeviceScheduler`]'s `Drop`, and
//! after `kill -9` through the record it writes in the run's scratch directory before the first
//! change, which `litebench cleanup` (or the next run in that `--dir`) reads.

use crate::base::Failure;
use crate::sys::owner::Owner;
use crate::testbed::scheduler::{self, SchedulerError};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// Name of the record in a run directory.
pub const RECORD: &str = "litebench-scheduler.json";

/// What must be put back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The litebench process that changed it (pid, start time, boot id).
    #[serde(flatten)]
    pub owner: Owner,
    /// The device as the user named it (`vda`, `/dev/vda`).
    pub device: String,
    /// Its scheduler before litebench changed it.
    pub original: String,
}

/// Why `--scheduler-device` cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeviceError {
    #[error("--scheduler-device {0}: no such block device with a scheduler (no /sys/block/NAME/queue/scheduler); name a whole disk, e.g. vda or /dev/nvme0n1")]
    NoDevice(String),
    #[error("--scheduler-device needs root: it writes the device's queue/scheduler; run as root or leave it out")]
    NotRoot,
    #[error("--scheduler-device needs --scheduler with the schedulers to compare")]
    NoSchedulers,
    #[error("--scheduler-device changes a device of this host, which a --guest run cannot see; leave out one of them")]
    Guest,
    #[error("--scheduler-device {device}: {detail}")]
    Record { device: String, detail: String },
}

/// The device's sysfs name (`/dev/vda` → `vda`), if it has a scheduler file.
fn sysfs_name(device: &str) -> Option<String> {
    let name = device.rsplit('/').next()?.to_string();
    Path::new(&format!("/sys/block/{name}/queue/scheduler"))
        .is_file()
        .then_some(name)
}

fn current(device: &str) -> Option<String> {
    let name = sysfs_name(device)?;
    let line = fs::read_to_string(format!("/sys/block/{name}/queue/scheduler")).ok()?;
    scheduler::selected(&line).map(str::to_string)
}

/// Checks `--scheduler-device` before anything runs.
pub fn check(device: &str, schedulers: &[String], guest: bool) -> Result<(), Failure> {
    if guest {
        return Err(DeviceError::Guest.into());
    }
    if schedulers.is_empty() {
        return Err(DeviceError::NoSchedulers.into());
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(DeviceError::NotRoot.into());
    }
    if sysfs_name(device).is_none() {
        return Err(DeviceError::NoDevice(device.to_string()).into());
    }
    scheduler::check_offered(device, schedulers).map_err(Failure::from)
}

/// A device whose scheduler litebench may change; dropping it puts the original back.
pub struct DeviceScheduler {
    record_path: PathBuf,
    record: Record,
}

impl DeviceScheduler {
    /// Reads the device's scheduler and records it in `run_dir` before anything changes.
    pub fn take(device: &str, run_dir: &Path) -> Result<DeviceScheduler, DeviceError> {
        let original = current(device).ok_or_else(|| DeviceError::NoDevice(device.to_string()))?;
        let record = Record {
            owner: Owner::current(),
            device: device.to_string(),
            original,
        };
        let record_path = run_dir.join(RECORD);
        let text = serde_json::to_vec_pretty(&record).expect("records serialise");
        write_durably(&record_path, &text).map_err(|e| DeviceError::Record {
            device: device.to_string(),
            detail: format!("{}: {e}", record_path.display()),
        })?;
        Ok(DeviceScheduler { record_path, record })
    }

    /// The scheduler it had before the run.
    pub fn original(&self) -> &str {
        &self.record.original
    }

    /// Puts the original back and removes the record; on failure the record stays for
    /// `litebench cleanup`.
    fn restore(&self) -> Result<(), SchedulerError> {
        scheduler::set(&self.record.device, &self.record.original)?;
        let _ = fs::remove_file(&self.record_path);
        Ok(())
    }
}

impl Drop for DeviceScheduler {
    fn drop(&mut self) {
        if let Err(e) = self.restore() {
            crate::errln!(
                "warning: --scheduler-device {}: could not put back {} ({e}); run `litebench cleanup` as root",
                self.record.device,
                self.record.original
            );
        }
    }
}

fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::base::outfile::replace_own(path, &path.with_extension("json.tmp"), bytes, true)
}

/// Reads the record a run left in `run_dir`, if any.
pub fn read_record(run_dir: &Path) -> Option<Result<Record, String>> {
    let path = run_dir.join(RECORD);
    let text = fs::read(&path).ok()?;
    Some(serde_json::from_slice(&text).map_err(|e| format!("{}: not a litebench record ({e})", path.display())))
}

/// Puts back the scheduler a killed run left changed, as `record` (read from `run_dir`) says.
/// The caller has checked that the run which wrote it is dead.
pub fn undo_in(run_dir: &Path, record: &Record) -> Result<String, String> {
    match scheduler::set(&record.device, &record.original) {
        Ok(_) => {
            let _ = fs::remove_file(run_dir.join(RECORD));
            Ok(format!("{}: scheduler {} put back", record.device, record.original))
        }
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_without_a_scheduler_are_refused_by_name() {
        assert!(sysfs_name("/dev/no-such-disk").is_none());
        assert!(matches!(
            check("no-such-disk", &["none".into()], false),
            Err(Failure(m)) if m.contains("no-such-disk") || m.contains("root")
        ));
        assert!(matches!(check("vda", &[], false), Err(Failure(m)) if m.contains("--scheduler")));
        assert!(matches!(check("vda", &["none".into()], true), Err(Failure(m)) if m.contains("--guest")));
    }

    #[test]
    fn a_record_whose_device_is_gone_is_reported_and_kept() {
        let t = tempfile::tempdir().unwrap();
        let r = Record {
            owner: Owner::current(),
            device: "no-such-disk".into(),
            original: "none".into(),
        };
        fs::write(t.path().join(RECORD), serde_json::to_vec(&r).unwrap()).unwrap();
        let read = read_record(t.path()).unwrap().unwrap();
        assert_eq!(read, r);
        assert!(undo_in(t.path(), &read).is_err());
        assert!(t.path().join(RECORD).exists());
        // A record of an older litebench (pid only) still reads.
        fs::write(
            t.path().join(RECORD),
            br#"{"pid": 7, "device": "x", "original": "none"}"#,
        )
        .unwrap();
        assert_eq!(read_record(t.path()).unwrap().unwrap().owner.start_time, None);
    }
}
