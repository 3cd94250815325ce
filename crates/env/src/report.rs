//! The human-readable report printed by `litebench env`: the same facts as
//! the JSON, aligned `key: value` lines, with `unknown` wherever something
//! could not be read, so a reader sees the gaps instead of a guess.

use std::fmt::Write as _;

use crate::{Environment, SyncLatency};

const UNKNOWN: &str = "unknown";

/// The report's sections (`machine`, `storage`, `device`, `sync latency`),
/// each a list of `key`, `value` pairs as [`render_text`] prints them; for
/// other layouts of the same facts (a Markdown or CSV table).
pub type Sections = Vec<(&'static str, Vec<(&'static str, String)>)>;

/// The facts of `env` (and `sync`, if measured) by section, as people read them.
pub fn sections(env: &Environment, sync: Option<&SyncLatency>) -> Sections {
    let m = &env.machine;
    let s = &env.storage;
    let mut sections: Sections = Vec::new();

    sections.push((
        "machine",
        vec![
            ("os", opt(m.os.as_ref())),
            ("kernel", opt(m.kernel.as_ref())),
            ("kernel_version", opt(m.kernel_version.as_ref())),
            ("arch", m.arch.clone()),
            ("hostname", opt(m.hostname.as_ref())),
            ("cpu_model", opt(m.cpu_model.as_ref())),
            (
                "cpu_count",
                if m.cpu_count == 0 {
                    UNKNOWN.to_owned()
                } else {
                    m.cpu_count.to_string()
                },
            ),
            ("memory", m.memory_bytes.map_or(UNKNOWN.to_owned(), bytes)),
            ("cpu_governor", opt(m.cpu_governor.as_ref())),
            (
                "virtualization",
                m.virtualization.clone().unwrap_or_else(|| "none detected".to_owned()),
            ),
            ("is_root", yes_no(m.is_root)),
        ],
    ));

    let mut storage = vec![
        ("dir", s.dir.display().to_string()),
        (
            "mount_point",
            s.mount_point
                .as_ref()
                .map_or(UNKNOWN.to_owned(), |p| p.display().to_string()),
        ),
        ("fs_type", opt(s.fs_type.as_ref())),
        ("mount_source", opt(s.mount_source.as_ref())),
        ("mount_options", opt(s.mount_options.as_ref())),
        ("super_options", opt(s.super_options.as_ref())),
        ("journaling", opt(s.journaling.as_ref())),
        ("ram_backed", yes_no(s.ram_backed)),
    ];
    if s.ram_backed {
        storage.push((
            "warning",
            "RAM-backed filesystem: durability numbers here measure memory, not a device".to_owned(),
        ));
    }
    sections.push(("storage", storage));

    let device = match &s.device {
        Some(d) => vec![
            ("name", d.name.clone()),
            (
                "disk",
                d.disk.clone().unwrap_or_else(|| "n/a (not a partition)".to_owned()),
            ),
            ("model", opt(d.model.as_ref())),
            ("vendor", opt(d.vendor.as_ref())),
            ("rotational", d.rotational.map_or(UNKNOWN.to_owned(), yes_no)),
            ("scheduler", opt(d.scheduler.as_ref())),
            ("write_cache", opt(d.write_cache.as_ref())),
            (
                "backing_file",
                match &d.backing_file {
                    Some(f) => f.clone(),
                    None if d.name.starts_with("loop") => UNKNOWN.to_owned(),
                    None => "n/a (not a loop device)".to_owned(),
                },
            ),
            ("size", d.size_bytes.map_or(UNKNOWN.to_owned(), bytes)),
        ],
        None => vec![(
            "name",
            "unknown (no block device: virtual filesystem or unreadable sysfs)".to_owned(),
        )],
    };
    sections.push(("device", device));

    let sync_lines = match sync {
        Some(l) => vec![
            (
                "method",
                format!(
                    "pwrite {} bytes at offset 0 + fdatasync, {} samples",
                    l.block_bytes, l.samples
                ),
            ),
            ("median", micros(l.median_us)),
            ("p99", micros(l.p99_us)),
            ("min", micros(l.min_us)),
            ("max", micros(l.max_us)),
        ],
        None => vec![("median", "not measured".to_owned())],
    };
    sections.push(("sync latency", sync_lines));
    sections
}

/// Renders `env` (and `sync`, if measured) as aligned `key: value` lines
/// under `machine`, `storage`, `device` and `sync latency` headings.
pub fn render_text(env: &Environment, sync: Option<&SyncLatency>) -> String {
    let sections = sections(env, sync);

    let width = sections
        .iter()
        .flat_map(|(_, lines)| lines.iter().map(|(k, _)| k.len()))
        .max()
        .unwrap_or(0)
        + 1;
    let mut out = String::new();
    for (heading, lines) in &sections {
        let _ = writeln!(out, "{heading}");
        for (key, value) in lines {
            let _ = writeln!(out, "  {:<width$} {value}", format!("{key}:"));
        }
    }
    out
}

fn opt(v: Option<&String>) -> String {
    v.map_or_else(|| UNKNOWN.to_owned(), Clone::clone)
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_owned()
}

fn micros(us: f64) -> String {
    if us >= 1000.0 {
        format!("{us:.1} us ({:.3} ms)", us / 1000.0)
    } else {
        format!("{us:.1} us")
    }
}

/// `25769803776` → `24.0 GiB (25769803776 bytes)`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {} ({n} bytes)", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BlockDevice, Machine, Storage};
    use std::path::PathBuf;

    fn bare() -> Environment {
        Environment {
            machine: Machine {
                os: None,
                kernel: None,
                kernel_version: None,
                arch: "x86_64".into(),
                hostname: None,
                cpu_model: None,
                cpu_count: 0,
                memory_bytes: None,
                cpu_governor: None,
                is_root: false,
                virtualization: None,
            },
            storage: Storage {
                dir: PathBuf::from("/data"),
                mount_point: None,
                fs_type: None,
                mount_source: None,
                mount_options: None,
                super_options: None,
                ram_backed: false,
                journaling: None,
                device: None,
            },
        }
    }

    fn value_of<'a>(text: &'a str, key: &str) -> Option<&'a str> {
        text.lines()
            .find_map(|l| l.trim_start().strip_prefix(&format!("{key}:")))
            .map(str::trim)
    }

    #[test]
    fn unknowns_render_as_unknown() {
        let text = render_text(&bare(), None);
        for key in [
            "os",
            "kernel",
            "hostname",
            "cpu_model",
            "cpu_count",
            "memory",
            "mount_point",
            "fs_type",
            "super_options",
            "journaling",
        ] {
            assert_eq!(value_of(&text, key), Some("unknown"), "{key} in\n{text}");
        }
        assert_eq!(value_of(&text, "arch"), Some("x86_64"));
        assert_eq!(value_of(&text, "median"), Some("not measured"));
        assert!(!text.contains("warning"));
    }

    #[test]
    fn values_are_aligned() {
        let text = render_text(&bare(), None);
        let columns: Vec<usize> = text
            .lines()
            .filter(|l| l.starts_with("  "))
            .map(|l| {
                let colon = l.find(':').unwrap();
                colon + 1 + l[colon + 1..].len() - l[colon + 1..].trim_start().len()
            })
            .collect();
        assert!(columns.windows(2).all(|w| w[0] == w[1]), "{text}");
    }

    #[test]
    fn full_report() {
        let mut env = bare();
        env.machine.memory_bytes = Some(24 * 1024 * 1024 * 1024);
        env.storage.fs_type = Some("tmpfs".into());
        env.storage.ram_backed = true;
        env.storage.journaling = Some("no data= journaling mode on tmpfs".into());
        env.storage.device = Some(BlockDevice {
            name: "sda1".into(),
            disk: Some("sda".into()),
            model: None,
            vendor: Some("ATA".into()),
            rotational: Some(false),
            scheduler: Some("none".into()),
            write_cache: Some("write back".into()),
            backing_file: None,
            size_bytes: Some(512),
        });
        let sync = SyncLatency {
            samples: 100,
            block_bytes: 4096,
            median_us: 812.34,
            p99_us: 2500.0,
            min_us: 700.0,
            max_us: 3000.0,
            p90_us: None,
            p999_us: None,
            mean_us: None,
        };
        let text = render_text(&env, Some(&sync));
        assert_eq!(value_of(&text, "memory"), Some("24.0 GiB (25769803776 bytes)"));
        assert_eq!(value_of(&text, "ram_backed"), Some("yes"));
        assert_eq!(value_of(&text, "journaling"), Some("no data= journaling mode on tmpfs"));
        assert!(value_of(&text, "warning").unwrap().contains("RAM-backed"));
        assert_eq!(value_of(&text, "disk"), Some("sda"));
        assert_eq!(value_of(&text, "model"), Some("unknown"));
        assert_eq!(value_of(&text, "rotational"), Some("no"));
        assert_eq!(value_of(&text, "size"), Some("512 B"));
        assert_eq!(value_of(&text, "median"), Some("812.3 us"));
        assert_eq!(value_of(&text, "p99"), Some("2500.0 us (2.500 ms)"));
        assert!(value_of(&text, "method").unwrap().contains("4096 bytes"));
    }
}
