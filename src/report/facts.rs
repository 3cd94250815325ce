//! What two manifests differ by, for `compare` and the page's comparison of runs.
//!
//! A comparison says nothing when the conditions of its two runs differ in ways nobody
//! noticed, and a list of the fields someone thought of misses the one added next (a cast role,
//! a retry backoff). So the facts worth their own words (machine, filesystem, device, engine
//! builds, knobs, parameters, files, the load's basics) are stated by name, and every other
//! field of the manifest and of each configuration is walked from its JSON: a field added to
//! [`Manifest`] or to the load shape is compared without a line here. Fields that describe the
//! run rather than what it measured under (its command line, start time, scratch paths) are
//! the only ones left out, by name.

use crate::model::record::{ConfigInfo, Manifest};
use serde::Serialize;
use serde_json::Value;

/// A difference between the two manifests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub what: String,
    pub a: String,
    pub b: String,
}

/// The facts of a manifest that decide whether two results are comparable, as `(what, value)`
/// pairs; `config` narrows the engine and knob facts to one configuration.
pub fn facts(m: &Manifest, configs: &[&ConfigInfo]) -> Vec<(String, String)> {
    let mut f: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| f.push((k.to_string(), v));
    let o = |x: &Option<String>| x.clone().unwrap_or_else(|| "unknown".into());
    let mc = &m.environment.machine;
    put("machine: host", o(&mc.hostname));
    put("machine: CPU", format!("{} x{}", o(&mc.cpu_model), mc.cpu_count));
    put(
        "machine: memory",
        mc.memory_bytes.map_or("unknown".into(), |b| format!("{} MiB", b >> 20)),
    );
    put("machine: OS", o(&mc.os));
    put("machine: kernel", o(&mc.kernel));
    put("machine: CPU governor", o(&mc.cpu_governor));
    let st = &m.environment.storage;
    put("filesystem: type", o(&st.fs_type));
    put("filesystem: mount options", o(&st.mount_options));
    put("filesystem: superblock options", o(&st.super_options));
    put("filesystem: RAM-backed", st.ram_backed.to_string());
    match &st.device {
        Some(d) => {
            put("device: name", d.name.clone());
            put("device: model", o(&d.model));
            put(
                "device: rotational",
                d.rotational.map_or("unknown".into(), |r| r.to_string()),
            );
            put("device: scheduler", o(&d.scheduler));
            put("device: write cache", o(&d.write_cache));
            put("device: loop over", o(&d.backing_file));
        }
        None => put("device", "unknown".into()),
    }
    put(
        "sync latency (median)",
        m.sync_latency
            .as_ref()
            .map_or("not measured".into(), |l| format!("{:.1} us", l.median_us)),
    );
    put("workload", m.workload.clone());
    for (k, v) in &m.params.0 {
        put(
            &format!("param {k}"),
            serde_json::to_string(v)
                .unwrap_or_default()
                .trim_matches('"')
                .to_string(),
        );
    }
    // Each file by its name and content: runs of files of the same names that differ say which.
    for f in &m.workload_files {
        put(
            &format!("{} {}", f.param, f.path),
            format!("sha256 {}", short_hash(&f.sha256)),
        );
    }
    put("trials", format!("{} (+{} warm-up)", m.trials, m.warmup));
    put(
        "page cache",
        if m.cold_cache {
            "dropped before each trial"
        } else {
            "warm"
        }
        .into(),
    );
    put("in memory", m.in_memory.to_string());
    for (what, value) in load_facts(&m.load) {
        put(what, value);
    }
    put("seed", m.seed.to_string());
    put("litebench version", m.tool_version.clone());
    let one = configs.len() == 1;
    for c in configs {
        let prefix = if one { String::new() } else { format!("#{} ", c.index) };
        put(&format!("{prefix}engine"), c.engine.clone());
        if let Some(e) = m.engines.iter().find(|e| e.label == c.engine) {
            put(&format!("{prefix}engine version"), e.version.clone());
            if let Some(b) = &e.sqlite {
                put(&format!("{prefix}SQLite source id"), b.source_id.clone());
                put(&format!("{prefix}SQLite compile options"), b.compile_options.join(" "));
                if let Some(c) = &b.compiled {
                    put(
                        &format!("{prefix}SQLite built with"),
                        format!("{} {} ({})", c.compiler, c.flags.join(" "), c.compiler_version),
                    );
                }
            }
        }
        // Every knob on its own line, so that "what differs" names the knob that does; an
        // unset knob whose value the run states all the same (`begin`: as written) with it.
        for k in &c.knobs.0 {
            put(&format!("{prefix}knob {}", k.name), k.value.clone());
        }
        for (name, origin) in &c.knob_origins {
            if c.knobs.get(name).is_none() {
                put(&format!("{prefix}knob {name}"), origin.clone());
            }
        }
        // Who ran the transactions, in the drivers table's words (a driver's knobs read back are
        // the knobs above; its compile options, as its SQLite's count).
        let ran = |d: Option<&crate::model::driver::DriverInfo>| {
            d.map_or("rust (litebench's own loop)".to_string(), |d| {
                format!("{}: SQLite {}", d.driver, crate::report::drivers::sqlite_words(d))
            })
        };
        put(&format!("{prefix}driver"), ran(c.driver.as_ref()));
        for r in &c.role_drivers {
            put(&format!("{prefix}role {} driver", r.role), ran(Some(&r.info)));
        }
        // The value, its kind (EMULATED said so) and the limits asked of the kernel; the
        // cgroup's path and the loop device's number name where it ran, not on what.
        put(
            &format!("{prefix}storage"),
            crate::report::storage::config_words(c.storage.as_ref()),
        );
    }
    f
}

/// The first 16 hex digits of a SHA-256: enough to tell files apart in a table.
fn short_hash(hex: &str) -> &str {
    hex.get(..16).unwrap_or(hex)
}

/// The load shape's facts: clients and where they run, the loop (closed, or the rate and its
/// arrivals), the tries and the latency limit. Two runs that differ only here measure
/// different things, so "what differs" must say so.
fn load_facts(l: &crate::model::load::LoadShape) -> Vec<(&'static str, String)> {
    use crate::model::load::{Arrival, ClientMode};
    vec![
        ("load: clients", l.clients.to_string()),
        (
            "load: clients as",
            match l.client_mode {
                ClientMode::Threads => "threads",
                ClientMode::Processes => "processes",
            }
            .into(),
        ),
        ("load: connections", l.connections.name().into()),
        (
            "load: rate",
            l.rate.map_or("closed loop".into(), |r| format!("{r} tx/s")),
        ),
        (
            "load: arrival",
            match (l.rate, l.arrival) {
                (None, _) => "-".into(),
                (Some(_), Arrival::Poisson) => "poisson".into(),
                (Some(_), Arrival::Uniform) => "uniform".into(),
            },
        ),
        ("load: tries", l.max_tries.to_string()),
        (
            "load: latency limit",
            l.latency_limit_ns
                .map_or("none".into(), |ns| format!("{} ms", ns as f64 / 1e6)),
        ),
    ]
}

/// Every fact whose value differs (or exists on one side only).
pub fn differences(a: &[(String, String)], b: &[(String, String)]) -> Vec<Difference> {
    let mut out = Vec::new();
    let get = |v: &[(String, String)], k: &str| v.iter().find(|(x, _)| x == k).map(|(_, y)| y.clone());
    let mut keys: Vec<&String> = a.iter().map(|(k, _)| k).collect();
    for (k, _) in b {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for k in keys {
        let (x, y) = (get(a, k), get(b, k));
        if x != y {
            out.push(Difference {
                what: k.clone(),
                a: x.unwrap_or_else(|| "-".into()),
                b: y.unwrap_or_else(|| "-".into()),
            });
        }
    }
    out
}

/// Manifest fields [`facts`] states in words of its own, or that describe the run rather than
/// what it measured under (the command line and start time differ between any two runs; the
/// scratch directory, warnings, shard bookkeeping and presets' names are no condition of a
/// figure), as JSON pointers; the walk compares every other field.
const STATED: &[&str] = &[
    "/tool_version",
    "/command",
    "/started_at",
    "/workload",
    "/workload_source",
    "/params",
    "/seed",
    "/trials",
    "/warmup",
    "/cold_cache",
    "/in_memory",
    "/engines",
    "/configs",
    "/environment",
    "/sync_latency",
    "/scratch_dir",
    "/warnings",
    "/fleet",
    "/presets",
    "/workload_files",
    "/load/clients",
    "/load/client_mode",
    "/load/connections",
    "/load/rate",
    "/load/arrival",
    "/load/max_tries",
    "/load/latency_limit_ns",
];

/// A configuration's fields [`facts`] states itself (its engine and knobs), or that name
/// where it ran rather than on what (paths and device numbers differ between any two runs).
const CONFIG_STATED: &[&str] = &[
    "/index",
    "/engine",
    "/knobs",
    "/label",
    "/knob_origins",
    "/storage",
    "/driver",
    "/role_drivers",
    "/fs/index",
    "/fs/image",
    "/fs/loop_device",
    "/fs/guest_disk",
    "/fs/dir",
    "/fs/underneath",
];

/// Every difference between two manifests (narrowed to the configurations compared): the
/// stated facts, then every other field of the manifest and of each configuration, walked.
pub fn what_differs(a: &Manifest, ca: &[&ConfigInfo], b: &Manifest, cb: &[&ConfigInfo]) -> Vec<Difference> {
    let mut out = differences(&facts(a, ca), &facts(b, cb));
    let (ja, jb) = (without(a, STATED), without(b, STATED));
    let mut walked = Vec::new();
    walk("", Some(&ja), Some(&jb), &mut walked);
    out.extend(walked.into_iter().map(|d| role_in_words(d, a, b)));
    let one = ca.len() <= 1 && cb.len() <= 1;
    let mut indexes: Vec<usize> = ca.iter().chain(cb).map(|c| c.index).collect();
    indexes.sort_unstable();
    indexes.dedup();
    for i in indexes {
        let pick = |cs: &[&ConfigInfo]| {
            if one {
                cs.first().map(|c| without(c, CONFIG_STATED))
            } else {
                cs.iter().find(|c| c.index == i).map(|c| without(c, CONFIG_STATED))
            }
        };
        let prefix = if one { String::new() } else { format!("#{i} ") };
        let mut each = Vec::new();
        walk("", pick(ca).as_ref(), pick(cb).as_ref(), &mut each);
        out.extend(each.into_iter().map(|d| Difference {
            what: format!("{prefix}{}", d.what),
            ..d
        }));
        if one {
            break;
        }
    }
    out
}

/// A cast role one run has and the other has not, in the words of the run's heading
/// (`sidecar \`litestream replicate {db} ...\``) instead of its JSON.
fn role_in_words(d: Difference, a: &Manifest, b: &Manifest) -> Difference {
    let Some(name) = d
        .what
        .strip_prefix("load.cast.roles[")
        .and_then(|r| r.strip_suffix(']'))
    else {
        return d;
    };
    let words = |m: &Manifest| {
        let role = m.load.cast.as_ref()?.roles.iter().find(|r| r.name == name)?;
        let text = role.describe_with_params();
        Some(
            text.strip_prefix(&format!("{name}: "))
                .map_or(text.clone(), str::to_string),
        )
    };
    Difference {
        what: format!("cast role {name}"),
        a: words(a).unwrap_or_else(|| d.a.clone()),
        b: words(b).unwrap_or_else(|| d.b.clone()),
    }
}

/// `value`'s JSON without the fields at `pointers`.
fn without<T: Serialize>(value: &T, pointers: &[&str]) -> Value {
    let mut v = serde_json::to_value(value).unwrap_or(Value::Null);
    for p in pointers {
        let (parent, key) = p.rsplit_once('/').unwrap_or(("", p));
        if let Some(Value::Object(m)) = v.pointer_mut(parent) {
            m.remove(key);
        }
    }
    v
}

/// Each leaf where `a` and `b` differ, named by its path (`load.cast.roles[writer].mode`):
/// objects key by key, lists of named things (a cast's roles) name by name, other lists of
/// one length item by item. A field on one side only was left out for being its default (a
/// value: `default`) or not there at all (an object or list: `none`).
fn walk(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Difference>) {
    if a == b {
        return;
    }
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                walk(&join(k), x.get(k), y.get(k), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if named(x) && named(y) => {
            let names = x.iter().chain(y).filter_map(name);
            let mut seen: Vec<&str> = Vec::new();
            for n in names {
                if seen.contains(&n) {
                    continue;
                }
                seen.push(n);
                let find = |v: &'_ [Value]| v.iter().find(|e| name(e) == Some(n)).cloned();
                walk(&format!("{path}[{n}]"), find(x).as_ref(), find(y).as_ref(), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                walk(&format!("{path}[{i}]"), Some(p), Some(q), out);
            }
        }
        _ => {
            let other = a.or(b);
            out.push(Difference {
                what: path.to_string(),
                a: text(a, other),
                b: text(b, other),
            });
        }
    }
}

/// Whether every item of a list has a `name` (a cast's roles): matched by it, not position.
fn named(v: &[Value]) -> bool {
    !v.is_empty() && v.iter().all(|e| name(e).is_some())
}

fn name(v: &Value) -> Option<&str> {
    v.get("name")?.as_str()
}

/// A leaf as a table shows it; `other` is the other side's, which says what a missing one was.
fn text(v: Option<&Value>, other: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => "none".into(),
        Some(v) => v.to_string(),
        None if other.is_some_and(|o| o.is_object() || o.is_array()) => "none".into(),
        None => "default".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::backoff::Backoff;
    use crate::model::cast::{Cast, CheckpointMode, Role, RoleKind};
    use crate::model::load::{ClientMode, LoadShape};

    fn role(name: &str, kind: RoleKind, mode: ClientMode) -> Role {
        Role {
            mode,
            ..crate::report::html::data::tests::role(name, kind)
        }
    }

    fn with_cast(roles: Vec<Role>) -> Manifest {
        let mut m = crate::store::tests::manifest();
        m.load = LoadShape {
            clients: 8,
            cast: Some(Cast {
                file: "app.toml".into(),
                roles,
            }),
            ..LoadShape::default()
        };
        m
    }

    fn whats(d: &[Difference]) -> Vec<String> {
        d.iter().map(|d| format!("{}: {} | {}", d.what, d.a, d.b)).collect()
    }

    /// Issue 46, item 11: runs that differ by a cast role, a role's client mode or the retry
    /// backoff, and nothing else, are told apart field by field (before: no difference at all).
    #[test]
    fn a_cast_role_a_roles_mode_and_the_backoff_are_differences() {
        let writer = role("writer", RoleKind::Workload, ClientMode::Threads);
        let a = with_cast(vec![writer.clone()]);
        let mut b = with_cast(vec![
            Role {
                mode: ClientMode::Processes,
                ..writer
            },
            role(
                "checkpointer",
                RoleKind::Checkpoint(CheckpointMode::Passive),
                ClientMode::Threads,
            ),
        ]);
        b.load.retry_backoff = Backoff::Fixed { wait_ns: 5_000_000 };
        let d = whats(&what_differs(&a, &[], &b, &[]));
        assert!(
            d.contains(&"load.cast.roles[writer].mode: default | processes".to_string()),
            "{d:#?}"
        );
        assert!(
            d.iter()
                .any(|l| l.starts_with("cast role checkpointer: none | checkpoint PASSIVE")),
            "{d:#?}"
        );
        assert!(
            d.iter()
                .any(|l| l.starts_with("load.retry_backoff: none | {") && l.contains("5000000")),
            "{d:#?}"
        );
        // What describes the run, not its conditions, is no difference.
        let mut c = a.clone();
        c.started_at = "2025-01-01T00:00:00Z".into();
        c.command = vec!["litebench".into(), "run".into()];
        c.scratch_dir = "/elsewhere".into();
        assert_eq!(whats(&what_differs(&a, &[], &c, &[])), Vec::<String>::new());
    }

    /// A driver is stated in the drivers table's words, not walked as its JSON (its compile
    /// options alone fill a screen).
    #[test]
    fn a_driver_differs_in_words() {
        let m = crate::report::html::data::tests::manifest(&[&[], &[]]);
        let mut b = m.clone();
        let info: crate::model::driver::DriverInfo = serde_json::from_value(serde_json::json!({
            "driver": "python-sqlite3", "runtime": "CPython 3.11.7", "library": "sqlite3 (stdlib) 2.6.0",
            "sqlite_version": "3.40.1", "compile_options": ["THREADSAFE=1"], "knobs": [], "implicit": []
        }))
        .unwrap();
        b.configs[0].role_drivers = vec![crate::model::driver::RoleDriver {
            role: "api".into(),
            info: info.clone(),
        }];
        b.configs[0].driver = Some(info);
        let d = what_differs(&m, &[&m.configs[0]], &b, &[&b.configs[0]]);
        let said: Vec<String> = d.iter().map(|d| format!("{}: {} | {}", d.what, d.a, d.b)).collect();
        let words =
            "python-sqlite3: SQLite 3.40.1 (1 compile options), through sqlite3 (stdlib) 2.6.0 on CPython 3.11.7";
        assert_eq!(
            said,
            [
                format!("driver: rust (litebench's own loop) | {words}"),
                format!("role api driver: - | {words}"),
            ]
        );
    }

    /// A configuration's own load (a sweep's point) is walked too, and named by its number.
    #[test]
    fn a_configurations_own_load_is_compared() {
        let mut a = crate::report::html::data::tests::manifest(&[&[], &[]]);
        let mut b = a.clone();
        a.configs[1].load = Some(LoadShape {
            clients: 4,
            rate: Some(300.0),
            ..LoadShape::default()
        });
        b.configs[1].load = Some(LoadShape {
            clients: 8,
            rate: Some(300.0),
            ..LoadShape::default()
        });
        let (ca, cb): (Vec<&ConfigInfo>, Vec<&ConfigInfo>) = (a.configs.iter().collect(), b.configs.iter().collect());
        let d = whats(&what_differs(&a, &ca, &b, &cb));
        assert_eq!(d, vec!["#1 load.clients: 4 | 8".to_string()]);
    }
}
