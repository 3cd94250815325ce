//! `--storage`: the disk a configuration runs on, as one value of a run's axis.
//!
//! Two kinds that a report never confuses: an **emulated** storage (`sync=2ms`,
//! `sync=lognormal(1ms,0.5)`, `read=`, `write=`), delays litebench's VFS sleeps after the real
//! calls ([`crate::sys::storage_delay`]); and a **throttled** one (`iops=3000,bw=125MB`), limits
//! the kernel enforces on the loop device litebench builds for `--fs`, where nothing is
//! emulated. `none` is the disk as it is. A value is kept as the user wrote it (the label and
//! the manifest say it back) with what it parsed to.

use crate::sys::storage_delay::{Delay, DelayError, Delays};
use serde::{Deserialize, Serialize};

/// The kernel's limits on a device: I/O operations and bytes per second, each direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Throttle {
    /// `iops=`: operations per second, reads and writes each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops: Option<u64>,
    /// `bw=`: bytes per second, reads and writes each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_sec: Option<u64>,
}

impl Throttle {
    /// Whether it limits anything.
    pub fn is_set(&self) -> bool {
        self.iops.is_some() || self.bytes_per_sec.is_some()
    }
}

/// Which cgroup interface applied the limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CgroupVersion {
    /// cgroup v2 `io.max`.
    V2,
    /// cgroup v1 `blkio.throttle.*`.
    V1,
}

/// What the manifest records of a throttle: the cgroup, the device and the limits written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThrottleInfo {
    pub cgroup: std::path::PathBuf,
    pub version: CgroupVersion,
    /// `major:minor` of the loop device.
    pub device: String,
    /// Each file written and its line (`io.max`: `7:0 riops=3000 wiops=3000`).
    pub limits: Vec<(String, String)>,
}

/// What a configuration's manifest says of its storage: the value as given, its kind (so no
/// reader takes an emulated number for a measured disk's), and a throttle's cgroup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StorageInfo {
    pub spec: StorageSpec,
    /// [`StorageSpec::kind`]: `none`, `emulated`, `throttled`, `emulated+throttled`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<ThrottleInfo>,
    /// A throttle's sync latency, measured on the throttled device from inside its cgroup
    /// before the trials (pwrite 4 KiB + fdatasync, as `--fs` measures each filesystem): what
    /// an emulation of the same device would sleep, set beside it in the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_sync: Option<litebench_env::SyncLatency>,
}

/// One `--storage` value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct StorageSpec {
    /// As the user wrote it (`sync=2ms`, `none`, a preset's name).
    pub text: String,
    pub delays: Delays,
    pub throttle: Throttle,
}

/// Why a `--storage` value is not one; each says how to write it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StorageError {
    #[error("--storage {spec}: {source}")]
    Delay {
        spec: String,
        #[source]
        source: DelayError,
    },
    #[error("--storage {spec}: `{key}` is not a storage setting; use sync=, read=, write= (emulated delays, as sync=2ms), iops=, bw= (the kernel's limits with --fs, as iops=3000,bw=125MB), none, or a preset ({presets})")]
    Key { spec: String, key: String, presets: String },
    #[error("--storage {spec}: `{part}` has no value; write KEY=VALUE, as sync=2ms")]
    NoValue { spec: String, part: String },
    #[error("--storage {spec}: iops= takes a whole number of operations per second above 0, as iops=3000")]
    Iops { spec: String },
    #[error("--storage {spec}: bw= takes bytes per second above 0 with a unit, as bw=125MB or bw=125MiB")]
    Bandwidth { spec: String },
    #[error("--storage {spec}: `{key}` is given twice")]
    Twice { spec: String, key: String },
    #[error("--storage {spec}: a `,` joins the kernel's limits ({throttle}) and an emulated delay ({delay}) into one value; for two values write `{two}`, for one that both throttles and emulates write `{one}`")]
    Mixed {
        spec: String,
        throttle: String,
        delay: String,
        two: String,
        one: String,
    },
}

/// A preset: a published volume's figures ([`PRESETS`]; sources in docs/storage.md).
pub struct Preset {
    pub name: &'static str,
    /// Its `--storage` value.
    pub spec: &'static str,
    /// What it stands for, with the source's figure.
    pub about: &'static str,
}

/// Presets named after published figures; each source is cited in docs/storage.md. Where a
/// source states no sync latency, the preset sets none.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "ebs-gp3",
        spec: "iops=3000,bw=125MiB",
        about: "AWS EBS gp3 baseline: 3,000 IOPS and 125 MiB/s",
    },
    Preset {
        name: "ebs-gp2-100g",
        spec: "iops=300",
        about: "AWS EBS gp2 of 100 GiB, its baseline once burst credits are spent: 3 IOPS per GiB",
    },
    Preset {
        name: "pd-standard-100g",
        spec: "iops=75,bw=12MiB",
        about: "GCP standard persistent disk of 100 GiB: 0.75 read IOPS and 0.12 MiB/s per GiB",
    },
];

fn preset_names() -> String {
    PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

impl StorageSpec {
    /// `none`: the disk as it is.
    pub fn none() -> StorageSpec {
        StorageSpec {
            text: "none".into(),
            delays: Delays::default(),
            throttle: Throttle::default(),
        }
    }

    /// Reads one value: `none`, a preset's name, or `KEY=VALUE` pairs joined by `,` or `+` (a
    /// log-normal's own comma is inside its parentheses).
    pub fn parse(text: &str) -> Result<StorageSpec, StorageError> {
        let text = text.trim();
        if text == "none" {
            return Ok(StorageSpec::none());
        }
        if let Some(p) = PRESETS.iter().find(|p| p.name == text) {
            let mut spec = StorageSpec::parse(p.spec)?;
            spec.text = p.name.to_string();
            return Ok(spec);
        }
        let mut spec = StorageSpec {
            text: text.to_string(),
            ..StorageSpec::none()
        };
        for part in split_top(text).into_iter().flat_map(split_plus) {
            let (key, value) = part.split_once('=').ok_or_else(|| StorageError::NoValue {
                spec: text.into(),
                part: part.to_string(),
            })?;
            spec.set(key.trim(), value.trim())?;
        }
        Ok(spec)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), StorageError> {
        let spec = self.text.clone();
        let twice = || StorageError::Twice {
            spec: spec.clone(),
            key: key.to_string(),
        };
        let delay = |v: &str| -> Result<Delay, StorageError> {
            v.parse().map_err(|source| StorageError::Delay {
                spec: spec.clone(),
                source,
            })
        };
        let slot = match key {
            "sync" => &mut self.delays.sync,
            "read" => &mut self.delays.read,
            "write" => &mut self.delays.write,
            "iops" => {
                let n: u64 = value
                    .replace('_', "")
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or(StorageError::Iops { spec: spec.clone() })?;
                return match self.throttle.iops.replace(n) {
                    Some(_) => Err(twice()),
                    None => Ok(()),
                };
            }
            "bw" => {
                let has_unit = value.chars().any(|c| c.is_ascii_alphabetic());
                let b = crate::base::bytesize::whole(value)
                    .filter(|b| *b > 0 && has_unit)
                    .ok_or(StorageError::Bandwidth { spec: spec.clone() })?;
                return match self.throttle.bytes_per_sec.replace(b) {
                    Some(_) => Err(twice()),
                    None => Ok(()),
                };
            }
            _ => {
                return Err(StorageError::Key {
                    spec,
                    key: key.to_string(),
                    presets: preset_names(),
                })
            }
        };
        if slot.replace(delay(value)?).is_some() {
            return Err(twice());
        }
        Ok(())
    }

    /// Whether litebench's VFS sleeps for it (an emulation).
    pub fn emulated(&self) -> bool {
        self.delays != Delays::default()
    }

    /// Whether the kernel limits the device for it.
    pub fn throttled(&self) -> bool {
        self.throttle.is_set()
    }

    /// `none`, `emulated`, `throttled` or `emulated+throttled`: what a reader must know about
    /// every number measured on it.
    pub fn kind(&self) -> &'static str {
        match (self.emulated(), self.throttled()) {
            (false, false) => "none",
            (true, false) => "emulated",
            (false, true) => "throttled",
            (true, true) => "emulated+throttled",
        }
    }
}

/// `a=1,b=lognormal(1ms,0.5)` into `a=1` and `b=lognormal(1ms,0.5)`: commas inside parentheses
/// belong to their value.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[from..]);
    parts.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect()
}

impl TryFrom<String> for StorageSpec {
    type Error = StorageError;
    fn try_from(s: String) -> Result<StorageSpec, StorageError> {
        StorageSpec::parse(&s)
    }
}

impl From<StorageSpec> for String {
    fn from(s: StorageSpec) -> String {
        s.text
    }
}

/// `a+b` into `a` and `b`: `+` joins parts of one value that is both throttled and emulated
/// (`iops=100+sync=2ms`); a `+` inside parentheses is its value's.
fn split_plus(part: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0i32, 0);
    for (i, c) in part.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '+' if depth == 0 => {
                parts.push(&part[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&part[from..]);
    parts.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect()
}

/// Which side of the storage a key sets: the kernel's limits, or litebench's emulated delays
/// (`from=` replays delays); `None` for what is no key of either (refused when parsed).
fn key_side(key: &str) -> Option<bool> {
    match key {
        "iops" | "bw" => Some(true),
        "sync" | "read" | "write" | "from" => Some(false),
        _ => None,
    }
}

/// The keys of a part (`sync=1ms`, or `iops=100+sync=2ms`).
fn part_keys(part: &str) -> Vec<&str> {
    split_plus(part)
        .into_iter()
        .filter_map(|p| p.split_once('=').map(|(k, _)| k.trim()))
        .collect()
}

/// `--storage` as given into its values: `;` always separates two, and a comma does where
/// what follows starts a new value (`none`, a preset, or a key the value being read already has:
/// `none,sync=1ms,sync=4ms` is three values, `sync=1ms,write=1ms` one). A comma between the
/// kernel's limits and an emulated delay (`iops=100,sync=2ms`) is refused as ambiguous: `;`
/// makes two values of them, `+` one.
pub fn split_axis(given: &str) -> Result<Vec<String>, StorageError> {
    let mut values: Vec<String> = Vec::new();
    for group in given.split(';') {
        let first = values.len();
        for part in split_top(group) {
            let keys = part_keys(part);
            let continues = match values.get(first..).and_then(|v| v.last()) {
                Some(last) if !keys.is_empty() => {
                    let last_keys: Vec<&str> = split_top(last).into_iter().flat_map(part_keys).collect();
                    last != "none"
                        && !PRESETS.iter().any(|p| p.name == last)
                        && !keys.iter().any(|k| last_keys.contains(k))
                }
                _ => false,
            };
            match values.last_mut() {
                Some(last) if continues => {
                    let sides = |ks: &[&str]| -> Vec<bool> { ks.iter().filter_map(|k| key_side(k)).collect() };
                    let last_keys: Vec<&str> = split_top(last).into_iter().flat_map(part_keys).collect();
                    let (before, after) = (sides(&last_keys), sides(&keys));
                    let mixed = before.iter().chain(&after).any(|s| *s) && before.iter().chain(&after).any(|s| !*s);
                    if mixed {
                        let spec = format!("{last},{part}");
                        let pick = |want: bool| {
                            let mut ps: Vec<&str> = split_top(last).into_iter().chain([part]).collect();
                            ps.retain(|p| part_keys(p).iter().any(|k| key_side(k) == Some(want)));
                            ps.join(",")
                        };
                        let (throttle, delay) = (pick(true), pick(false));
                        return Err(StorageError::Mixed {
                            two: format!("{throttle};{delay}"),
                            one: split_top(&throttle)
                                .into_iter()
                                .chain(split_top(&delay))
                                .collect::<Vec<_>>()
                                .join("+"),
                            spec,
                            throttle,
                            delay,
                        });
                    }
                    last.push(',');
                    last.push_str(part);
                }
                _ => values.push(part.to_string()),
            }
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn values_parse_into_their_kind() {
        let s = StorageSpec::parse("sync=2ms").unwrap();
        assert_eq!(s.delays.sync, Some(Delay::Fixed(Duration::from_millis(2))));
        assert_eq!(s.kind(), "emulated");
        let s = StorageSpec::parse("sync=lognormal(1ms,0.5),write=100us").unwrap();
        assert!(matches!(s.delays.sync, Some(Delay::LogNormal { sigma, .. }) if sigma == 0.5));
        assert_eq!(s.delays.write, Some(Delay::Fixed(Duration::from_micros(100))));
        let s = StorageSpec::parse("iops=3000,bw=125MB").unwrap();
        assert_eq!(s.throttle.iops, Some(3000));
        assert_eq!(s.throttle.bytes_per_sec, Some(125_000_000));
        assert_eq!(s.kind(), "throttled");
        assert_eq!(StorageSpec::parse("none").unwrap().kind(), "none");
        let gp3 = StorageSpec::parse("ebs-gp3").unwrap();
        assert_eq!(gp3.throttle.bytes_per_sec, Some(125 * 1024 * 1024));
        assert_eq!(gp3.text, "ebs-gp3");
    }

    #[test]
    fn bad_values_name_what_to_write() {
        let e = StorageSpec::parse("sync=2").unwrap_err().to_string();
        assert!(e.contains("--storage sync=2: `2` has no unit"), "{e}");
        let e = StorageSpec::parse("sync=lognormal(1ms)").unwrap_err().to_string();
        assert!(e.contains("median and a sigma"), "{e}");
        assert!(matches!(StorageSpec::parse("fsync=2ms"), Err(StorageError::Key { .. })));
        assert!(matches!(StorageSpec::parse("sync"), Err(StorageError::NoValue { .. })));
        assert!(matches!(StorageSpec::parse("iops=0"), Err(StorageError::Iops { .. })));
        assert!(matches!(
            StorageSpec::parse("bw=125"),
            Err(StorageError::Bandwidth { .. })
        ));
        assert!(matches!(
            StorageSpec::parse("sync=1ms,sync=2ms"),
            Err(StorageError::Twice { .. })
        ));
    }

    #[test]
    fn an_axis_splits_into_its_values() {
        let split = |s: &str| split_axis(s).unwrap();
        assert_eq!(split("none,sync=1ms,sync=4ms"), ["none", "sync=1ms", "sync=4ms"]);
        assert_eq!(
            split("sync=1ms,write=1ms,sync=lognormal(2ms,0.5);iops=300,bw=1MB"),
            ["sync=1ms,write=1ms", "sync=lognormal(2ms,0.5)", "iops=300,bw=1MB"]
        );
        assert_eq!(split("ebs-gp3;sync=1ms"), ["ebs-gp3", "sync=1ms"]);
        assert_eq!(split("none,ebs-gp3,iops=10"), ["none", "ebs-gp3", "iops=10"]);
        assert_eq!(split("iops=100,bw=1MB"), ["iops=100,bw=1MB"]);
        assert_eq!(split("iops=100;sync=2ms"), ["iops=100", "sync=2ms"]);
        assert_eq!(split("none,iops=100+sync=2ms"), ["none", "iops=100+sync=2ms"]);
        let both = StorageSpec::parse("iops=100+sync=2ms").unwrap();
        assert_eq!(both.kind(), "emulated+throttled");
        assert_eq!(both.throttle.iops, Some(100));
    }

    /// A comma between a limit and a delay is neither silently one value nor two: refused,
    /// with both ways of writing what was meant.
    #[test]
    fn a_limit_and_a_delay_joined_by_a_comma_are_refused() {
        let e = split_axis("iops=100,sync=2ms").unwrap_err().to_string();
        assert_eq!(
            e,
            "--storage iops=100,sync=2ms: a `,` joins the kernel's limits (iops=100) and an emulated delay (sync=2ms) into one value; for two values write `iops=100;sync=2ms`, for one that both throttles and emulates write `iops=100+sync=2ms`"
        );
        let e = split_axis("none,sync=1ms,write=1ms,iops=5,bw=1MB")
            .unwrap_err()
            .to_string();
        assert!(e.contains("write `iops=5;sync=1ms,write=1ms`"), "{e}");
        let e = split_axis("sync=lognormal(1ms,0.5),iops=5").unwrap_err().to_string();
        assert!(e.contains("write `iops=5+sync=lognormal(1ms,0.5)`"), "{e}");
    }
}
