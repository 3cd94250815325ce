//! `--scheduler`: the I/O scheduler of the loop devices litebench made for `--fs`.
//!
//! A configuration's scheduler is written to its loop device's `queue/scheduler` before each of
//! its trials and read back from sysfs; a trial never starts on a scheduler other than the one
//! its configuration names. Only devices litebench itself attached are touched: the device comes
//! from the configuration's `--fs` record, never from the user. A loop device's scheduler orders
//! the requests the filesystem on top sends to the loop driver; what reaches the real disk is
//! then scheduled again by the disk's own scheduler, after the page cache of the filesystem
//! holding the image, so its effect on the disk is small (see docs/filesystems.md).

use std::path::PathBuf;

/// The schedulers Linux's multi-queue block layer offers.
pub const KNOWN: [&str; 4] = ["none", "mq-deadline", "bfq", "kyber"];

/// A scheduler that cannot be used or did not take effect.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SchedulerError {
    #[error("--scheduler {0}: unknown I/O scheduler; valid: none, mq-deadline, bfq, kyber")]
    Unknown(String),
    #[error("--scheduler {0} is given twice")]
    Duplicate(String),
    #[error("--scheduler sets the scheduler of the loop devices --fs makes; give --fs with a filesystem on a block device (not only tmpfs)")]
    NoDevice,
    #[error("--scheduler {scheduler}: {device} does not offer it (offers: {offered}); load it with `modprobe {module}` or leave it out")]
    NotOffered {
        scheduler: String,
        device: String,
        offered: String,
        module: String,
    },
    #[error("--scheduler {scheduler}: writing it to {path} failed: {detail}")]
    Write {
        scheduler: String,
        path: String,
        detail: String,
    },
    #[error("--scheduler {scheduler}: {path} reads back `{read}` after it was set")]
    ReadBack {
        scheduler: String,
        path: String,
        read: String,
    },
}

/// Parses the `--scheduler` values.
pub fn parse_all(values: &[String]) -> Result<Vec<String>, SchedulerError> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let v = v.trim();
        if !KNOWN.contains(&v) {
            return Err(SchedulerError::Unknown(v.to_string()));
        }
        if out.iter().any(|o| o == v) {
            return Err(SchedulerError::Duplicate(v.to_string()));
        }
        out.push(v.to_string());
    }
    Ok(out)
}

fn sysfs_path(device: &str) -> PathBuf {
    let name = device.rsplit('/').next().unwrap_or(device);
    PathBuf::from(format!("/sys/block/{name}/queue/scheduler"))
}

/// The selected scheduler in a `queue/scheduler` line (`none [mq-deadline] kyber`).
pub fn selected(line: &str) -> Option<&str> {
    line.split_whitespace()
        .find(|w| w.starts_with('[') && w.ends_with(']'))
        .map(|w| &w[1..w.len() - 1])
}

fn offered(line: &str) -> Vec<String> {
    line.split_whitespace()
        .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
        .collect()
}

/// Checks that `device` offers every scheduler in `wanted`.
pub fn check_offered(device: &str, wanted: &[String]) -> Result<(), SchedulerError> {
    let line = std::fs::read_to_string(sysfs_path(device)).unwrap_or_default();
    let have = offered(&line);
    for w in wanted {
        if !have.contains(w) {
            return Err(SchedulerError::NotOffered {
                scheduler: w.clone(),
                device: device.to_string(),
                offered: have.join(", "),
                module: if w == "mq-deadline" {
                    "mq-deadline".into()
                } else {
                    w.replace('-', "_")
                },
            });
        }
    }
    Ok(())
}

/// Sets `scheduler` on `device` (a loop device litebench attached) and returns what sysfs reads
/// back, which must be it.
pub fn set(device: &str, scheduler: &str) -> Result<String, SchedulerError> {
    let path = sysfs_path(device);
    let shown = path.display().to_string();
    std::fs::write(&path, scheduler).map_err(|e| SchedulerError::Write {
        scheduler: scheduler.to_string(),
        path: shown.clone(),
        detail: e.to_string(),
    })?;
    let line = std::fs::read_to_string(&path).map_err(|e| SchedulerError::Write {
        scheduler: scheduler.to_string(),
        path: shown.clone(),
        detail: format!("reading it back: {e}"),
    })?;
    match selected(&line) {
        Some(s) if s == scheduler => Ok(s.to_string()),
        _ => Err(SchedulerError::ReadBack {
            scheduler: scheduler.to_string(),
            path: shown,
            read: line.trim().to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bracketed_scheduler_and_refuses_unknown_or_repeated_names() {
        assert_eq!(selected("[none] mq-deadline kyber bfq\n"), Some("none"));
        assert_eq!(selected("none [mq-deadline] kyber"), Some("mq-deadline"));
        assert_eq!(selected("none"), None);
        assert_eq!(offered("none [bfq]"), vec!["none", "bfq"]);
        assert_eq!(parse_all(&["bfq".into(), "none".into()]).unwrap(), vec!["bfq", "none"]);
        assert_eq!(parse_all(&["cfq".into()]), Err(SchedulerError::Unknown("cfq".into())));
        assert_eq!(
            parse_all(&["bfq".into(), "bfq".into()]),
            Err(SchedulerError::Duplicate("bfq".into()))
        );
        assert_eq!(
            sysfs_path("/dev/loop3"),
            PathBuf::from("/sys/block/loop3/queue/scheduler")
        );
    }
}
