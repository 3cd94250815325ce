//! Knobs: the settings that move SQLite's numbers, how to set them and how to prove they took.
//!
//! SQLite accepts many pragmas silently and then does something else (asked for WAL on an
//! in-memory database it stays in `memory` mode; `mmap_size` is clamped to the compile-time
//! maximum). A result that reports the *requested* value in such a case is wrong, so every knob
//! is read back after it is set, and a requested value that did not take effect stops the run.
//! Knobs nobody asked for are read back too: their effective values are the build's defaults,
//! and they belong in the report as much as the requested ones.

use serde::{Deserialize, Serialize};

/// The values a knob accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnobKind {
    /// One of a fixed set of names; `PRAGMA` may read back the index instead of the name.
    Choice(&'static [&'static str]),
    /// An integer in a range.
    Int { min: i64, max: i64 },
    /// A power of two in a range (page sizes).
    PowerOfTwo { min: i64, max: i64 },
    /// on/off.
    Bool,
    /// A size: bytes, or a number with a unit (KB, MB, GB, KiB, MiB, GiB); canonical form is
    /// whole bytes.
    Bytes { min: u64 },
    /// A set of named flags: `none`, or names joined by `+` (`,` separates the values of an
    /// axis, so it cannot join the names of one value); canonical form lists them in table
    /// order. The numbers beside the names are for the engine that sets them.
    Flags(&'static [(&'static str, u32)]),
    /// A name the engine resolves itself, kept as given (case and all): `NAME@VERSION` or a
    /// path (`extension`). The text describes what it accepts.
    Text(&'static str),
}

/// When a knob has to be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Only when the database file is created (page_size, auto_vacuum): applied to the template.
    Create,
    /// On every connection, before the workload runs.
    Connect,
}

/// Who reads a knob's value, which decides on which workloads it can act (docs/knobs.md's
/// knob x workload table). A knob accepted for a workload that never reads it would run the same
/// statements under two labels, so each kind says how it reaches what runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadBy {
    /// The engine applies it to the database file or the connection, and reads it back: it
    /// acts on whatever runs there, whichever workload that is.
    Engine,
    /// Only a workload's own statements read it (`begin`: the statement its transactions start
    /// with; `blob_api`: how blobs are reached). Each workload says whether it does
    /// (`Workload::reads_knob`); one that does not refuses it.
    Workload,
}

/// One knob litebench knows by name.
#[derive(Debug, Clone, Copy)]
pub struct KnobSpec {
    pub name: &'static str,
    pub kind: KnobKind,
    pub stage: Stage,
    pub read_by: ReadBy,
    /// Stock SQLite's default, for `litebench list` (the run itself records the value read back).
    pub default: &'static str,
    pub help: &'static str,
}

/// Bad knob input or a knob that did not take effect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnobError {
    #[error(
        "--knob {knob}={requested}: {engine} reads back nothing for it, so litebench cannot verify that it took effect; check the setting's name, or pass --allow-unverified to run anyway (the report will say so)"
    )]
    Unverifiable {
        knob: String,
        engine: String,
        requested: String,
    },
    #[error("--knob {arg}: expected NAME=VALUE[,VALUE...], e.g. --knob journal_mode=delete,wal")]
    Malformed { arg: String },
    #[error("--knob {name}: unknown knob for the engines of this run; valid knobs: {valid}")]
    Unknown { name: String, valid: String },
    #[error("--knob {knob}={value}: invalid value; valid values: {valid}")]
    InvalidValue { knob: String, value: String, valid: String },
    #[error("--knob {knob}: it {why}, not one connection's: it would apply to the whole process, including litebench's own results store and the run's other configurations; leave it out")]
    ProcessWide { knob: String, why: &'static str },
    #[error("--knob {knob} is given twice; give every value in one flag: --knob {knob}=A,B")]
    Duplicate { knob: String },
    #[error("--knob: the values given make {count} configurations (every combination of every --knob's values); at most {MAX_CONFIGURATIONS} can run: give fewer values, or --vary-one to vary one knob at a time")]
    TooMany { count: u64 },
    #[error("knob {knob} did not take effect on {engine}: requested {requested}, effective {effective}; {hint}")]
    NotEffective {
        knob: String,
        engine: String,
        requested: String,
        effective: String,
        hint: String,
    },
}

/// Looks a knob up by name in one engine's table.
pub fn find_spec(specs: &'static [KnobSpec], name: &str) -> Option<&'static KnobSpec> {
    specs.iter().find(|k| k.name == name)
}

/// What the engines of a run accept: their knob tables and pass-through prefixes.
#[derive(Debug, Clone, Copy)]
pub struct KnobCatalog<'a> {
    pub tables: &'a [(&'static [KnobSpec], &'static str)],
    /// Pass-through names refused under a prefix, each with why (SQLite's pragmas that change
    /// the whole library rather than one connection).
    pub refused: &'a [(&'static str, &'static [(&'static str, &'static str)])],
}

impl KnobCatalog<'_> {
    fn find(&self, name: &str) -> Option<&'static KnobSpec> {
        self.tables.iter().find_map(|(specs, _)| find_spec(specs, name))
    }

    fn passthrough(&self, name: &str) -> Option<&'static str> {
        self.tables.iter().map(|(_, p)| *p).find(|p| name.starts_with(p))
    }

    /// Whether any engine of the catalog has the knob `name` (by name or pass-through prefix).
    pub fn knows(&self, name: &str) -> bool {
        self.find(name).is_some() || self.passthrough(name).is_some()
    }

    fn valid_names(&self) -> String {
        let mut names: Vec<&str> = Vec::new();
        for (specs, _) in self.tables {
            names.extend(specs.iter().map(|k| k.name));
        }
        let prefixes: Vec<String> = self.tables.iter().map(|(_, p)| format!("{p}NAME=VALUE")).collect();
        format!(
            "{} (or {} for any other setting)",
            names.join(", "),
            prefixes.join(" / ")
        )
    }
}

impl KnobKind {
    /// Human-readable list of valid values.
    pub fn describe(&self) -> String {
        match self {
            KnobKind::Choice(v) => v.join(", "),
            KnobKind::Int { min, max } if *max == i64::MAX => format!("an integer >= {min}"),
            KnobKind::Int { min, max } => format!("an integer from {min} to {max}"),
            KnobKind::PowerOfTwo { min, max } => format!("a power of two from {min} to {max}"),
            KnobKind::Bool => "on, off".into(),
            KnobKind::Bytes { min } => format!("a size of at least {min} bytes, such as 1GB, 512MiB or 1000000000"),
            KnobKind::Flags(flags) => format!(
                "none, or names joined by '+' (a+b) from: {}",
                flags.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
            KnobKind::Text(what) => what.to_string(),
        }
    }

    /// The canonical spelling of a user-supplied value, or `None` if invalid.
    pub fn canonical(&self, raw: &str) -> Option<String> {
        if let KnobKind::Text(_) = self {
            let v = raw.trim();
            return (!v.is_empty() && !v.chars().any(|c| c.is_whitespace() || c.is_control())).then(|| v.to_string());
        }
        let v = raw.trim().to_ascii_lowercase();
        match self {
            KnobKind::Choice(names) => {
                if let Some(n) = names.iter().find(|n| **n == v) {
                    return Some(n.to_string());
                }
                // Numeric spellings that SQLite itself accepts (synchronous=2 ...), except for
                // journal_mode, which has no numeric form.
                let idx: usize = v.parse().ok()?;
                if names.contains(&"wal") {
                    return None;
                }
                names.get(idx).map(|n| n.to_string())
            }
            KnobKind::Int { min, max } => {
                let n: i64 = v.parse().ok()?;
                (n >= *min && n <= *max).then(|| n.to_string())
            }
            KnobKind::PowerOfTwo { min, max } => {
                let n: i64 = v.parse().ok()?;
                (n >= *min && n <= *max && (n as u64).is_power_of_two()).then(|| n.to_string())
            }
            KnobKind::Bool => match v.as_str() {
                "on" | "1" | "true" | "yes" => Some("on".into()),
                "off" | "0" | "false" | "no" => Some("off".into()),
                _ => None,
            },
            KnobKind::Bytes { min } => {
                let bytes = crate::base::bytesize::parse(&v)?;
                (bytes >= *min as f64 && bytes < 1.8e19).then(|| (bytes.round() as u64).to_string())
            }
            KnobKind::Flags(flags) => {
                if v == "none" {
                    return Some("none".into());
                }
                let names: Vec<&str> = v.split('+').map(str::trim).collect();
                if names.iter().any(|n| !flags.iter().any(|(f, _)| f == n)) {
                    return None;
                }
                let picked: Vec<&str> = flags.iter().map(|(f, _)| *f).filter(|f| names.contains(f)).collect();
                Some(picked.join("+"))
            }
            KnobKind::Text(_) => Some(v),
        }
    }

    /// The canonical spelling of what `PRAGMA name` read back.
    pub fn readback(&self, raw: &str) -> String {
        match self {
            // SQLite reads synchronous, temp_store and auto_vacuum back as numbers, journal and
            // locking modes as names.
            KnobKind::Choice(_) | KnobKind::Bool | KnobKind::Flags(_) => {
                self.canonical(raw).unwrap_or_else(|| raw.to_ascii_lowercase())
            }
            _ => raw.trim().to_string(),
        }
    }
}

/// One knob set to one value in one configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnobSetting {
    pub name: String,
    /// Canonical value (`wal`, `full`, `4096`, ...).
    pub value: String,
}

impl KnobSetting {
    /// When it must be applied, according to an engine's knob table (pass-through: on connect).
    pub fn stage_in(&self, specs: &'static [KnobSpec]) -> Stage {
        find_spec(specs, &self.name).map_or(Stage::Connect, |s| s.stage)
    }

    /// The pass-through setting name without its prefix.
    pub fn setting_name<'a>(&'a self, prefix: &str) -> &'a str {
        self.name.strip_prefix(prefix).unwrap_or(&self.name)
    }
}

/// The knob settings of one configuration, in application order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnobSet(pub Vec<KnobSetting>);

impl KnobSet {
    /// The value requested for a knob, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|k| k.name == name).map(|k| k.value.as_str())
    }

    /// Short label such as `journal_mode=wal synchronous=normal` (or `defaults`).
    pub fn label(&self) -> String {
        if self.0.is_empty() {
            return "defaults".into();
        }
        self.0
            .iter()
            .map(|k| format!("{}={}", k.name, k.value))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// This set with `knobs` (a cast role's own) set over it.
    pub fn with_over(&self, knobs: &[(String, String)]) -> KnobSet {
        let mut set = self.clone();
        for (name, value) in knobs {
            set.0.retain(|k| &k.name != name);
            set.0.push(KnobSetting {
                name: name.clone(),
                value: value.clone(),
            });
        }
        set
    }

    /// The settings an engine understands (its named knobs and its pass-through prefix), in
    /// the order of its knob table.
    pub fn for_engine(&self, specs: &'static [KnobSpec], prefix: &str) -> KnobSet {
        let mut v: Vec<KnobSetting> = self
            .0
            .iter()
            .filter(|k| find_spec(specs, &k.name).is_some() || k.name.starts_with(prefix))
            .cloned()
            .collect();
        v.sort_by_key(|k| specs.iter().position(|s| s.name == k.name).unwrap_or(usize::MAX));
        KnobSet(v)
    }
}

/// One `--knob` flag: a knob and the values to try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnobAxis {
    pub name: String,
    pub values: Vec<String>,
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses one `--knob NAME=V1,V2` argument, validating the name and each value.
pub fn parse_axis(arg: &str, catalog: &KnobCatalog<'_>) -> Result<KnobAxis, KnobError> {
    let (name, values) = arg
        .split_once('=')
        .ok_or_else(|| KnobError::Malformed { arg: arg.into() })?;
    let name = name.trim().to_ascii_lowercase();
    let raw: Vec<&str> = values.split(',').map(str::trim).collect();
    if name.is_empty() || raw.iter().any(|v| v.is_empty()) {
        return Err(KnobError::Malformed { arg: arg.into() });
    }
    let values = if let Some(prefix) = catalog.passthrough(&name) {
        if !is_ident(&name[prefix.len()..]) {
            return Err(KnobError::Malformed { arg: arg.into() });
        }
        let refused = catalog
            .refused
            .iter()
            .filter(|(p, _)| *p == prefix)
            .flat_map(|(_, l)| l.iter());
        if let Some((_, why)) = refused.clone().find(|(p, _)| *p == &name[prefix.len()..]) {
            return Err(KnobError::ProcessWide { knob: name, why });
        }
        let mut out = Vec::new();
        for v in raw {
            let ok = v
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !ok {
                return Err(KnobError::InvalidValue {
                    knob: name.clone(),
                    value: v.into(),
                    valid: "letters, digits, '_', '-' and '.'".into(),
                });
            }
            out.push(v.to_string());
        }
        out
    } else {
        let spec = catalog.find(&name).ok_or_else(|| KnobError::Unknown {
            name: name.clone(),
            valid: catalog.valid_names(),
        })?;
        raw.iter()
            .map(|v| {
                spec.kind.canonical(v).ok_or_else(|| KnobError::InvalidValue {
                    knob: name.clone(),
                    value: v.to_string(),
                    valid: spec.kind.describe(),
                })
            })
            .collect::<Result<_, _>>()?
    };
    Ok(KnobAxis { name, values })
}

/// Most configurations one run may have. Each is a full set of trials; far beyond this a run
/// could not finish, and the cross product of many values would not even fit in memory.
pub const MAX_CONFIGURATIONS: u64 = 10_000;

/// Every configuration to run: the full cross product of the axes, or with `vary_one` the
/// baseline (first value of every axis) followed by one configuration per other value of each
/// axis, all else at the baseline — how the APSys'17 paper's figures 2 and 3 were made.
pub fn configurations(axes: &[KnobAxis], vary_one: bool) -> Result<Vec<KnobSet>, KnobError> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name == a.name) {
            return Err(KnobError::Duplicate { knob: a.name.clone() });
        }
    }
    let count: u64 = if vary_one {
        axes.iter()
            .map(|a| a.values.len().saturating_sub(1) as u64)
            .fold(1, u64::saturating_add)
    } else {
        axes.iter().map(|a| a.values.len() as u64).fold(1, u64::saturating_mul)
    };
    if count > MAX_CONFIGURATIONS {
        return Err(KnobError::TooMany { count });
    }
    let setting = |a: &KnobAxis, v: &String| KnobSetting {
        name: a.name.clone(),
        value: v.clone(),
    };
    let sets = if vary_one {
        let baseline: Vec<KnobSetting> = axes.iter().map(|a| setting(a, &a.values[0])).collect();
        let mut out = vec![KnobSet(baseline.clone())];
        for (i, a) in axes.iter().enumerate() {
            for v in &a.values[1..] {
                let mut s = baseline.clone();
                s[i] = setting(a, v);
                out.push(KnobSet(s));
            }
        }
        out
    } else {
        let mut out = vec![KnobSet::default()];
        for a in axes {
            out = out
                .into_iter()
                .flat_map(|s| {
                    a.values.iter().map(move |v| {
                        let mut s = s.clone();
                        s.0.push(setting(a, v));
                        s
                    })
                })
                .collect();
        }
        out
    };
    Ok(sets)
}

/// A knob's requested and effective value, as recorded in every result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnobReading {
    pub name: String,
    /// What the configuration asked for (`None`: left at the build's default).
    pub requested: Option<String>,
    /// What `PRAGMA name` read back after setting (`None`: it reads back nothing).
    pub effective: Option<String>,
    /// What the reading means where the value alone would mislead (`bloom_filter=off` on a
    /// build that has no Bloom filters: vacuous).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The `begin` knob's effective value where it was not set and a workload runs the user's own
/// `BEGIN`s: they start in the mode they name (SQLite's deferred where they name none).
pub const BEGIN_AS_WRITTEN: &str = "as written";

/// Puts the `begin` knob's reading in the terms of a workload that runs the user's SQL (script,
/// replay), whose `bare` bare `BEGIN`s start in the knob's mode only where it was set: unset,
/// it reads [`BEGIN_AS_WRITTEN`] (the connection's default is for litebench's own
/// transactions); set, its note counts the statements it starts.
pub fn begin_of_user_sql(readings: &mut [KnobReading], bare: usize) {
    let (plural, verb) = if bare == 1 { ("", "s") } else { ("s", "") };
    for r in readings.iter_mut().filter(|r| r.name == "begin") {
        match &r.requested {
            None => {
                r.effective = Some(BEGIN_AS_WRITTEN.into());
                r.note = Some(format!(
                    "{bare} bare BEGIN{plural} of the workload's SQL run{verb} as written (deferred); --knob begin=immediate starts them BEGIN IMMEDIATE"
                ));
            }
            Some(mode) => {
                r.note = Some(format!(
                    "{bare} bare BEGIN{plural} of the workload's SQL start{verb} as BEGIN {}",
                    mode.to_ascii_uppercase()
                ));
            }
        }
    }
}

/// Compares a pass-through pragma's requested value with what it read back.
pub fn passthrough_matches(requested: &str, effective: &str) -> bool {
    let norm = |s: &str| {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "on" | "true" | "yes" => "1".to_string(),
            "off" | "false" | "no" => "0".to_string(),
            _ => s,
        }
    };
    norm(requested) == norm(effective)
}

/// Reads back every knob of an engine's table and every pass-through setting of `knobs`.
/// `read(name, requested)` asks the engine in its own way (PRAGMA, SHOW, SELECT @@...);
/// named knobs are then put in canonical form, pass-through values are kept as read.
pub fn read_back<E>(
    specs: &'static [KnobSpec],
    prefix: &str,
    knobs: &KnobSet,
    mut read: impl FnMut(&str, Option<&str>) -> Result<Option<String>, E>,
) -> Result<Vec<KnobReading>, E> {
    let mut out = Vec::new();
    for spec in specs {
        let requested = knobs.get(spec.name);
        let raw = read(spec.name, requested)?;
        out.push(KnobReading {
            name: spec.name.to_string(),
            requested: requested.map(str::to_string),
            effective: raw.map(|r| spec.kind.readback(&r)),
            note: None,
        });
    }
    for k in knobs.0.iter().filter(|k| k.name.starts_with(prefix)) {
        let raw = read(k.setting_name(prefix), Some(&k.value))?;
        out.push(KnobReading {
            name: k.name.clone(),
            requested: Some(k.value.clone()),
            effective: raw,
            note: None,
        });
    }
    Ok(out)
}

/// Fails on the first requested knob whose effective value differs from the request. A
/// pass-through setting that reads back nothing cannot be verified: that stops the run too,
/// unless `allow_unverified` (`--allow-unverified`), in which case it stays as recorded and the
/// report warns about it. `hint` explains, per knob, why a value may not take.
pub fn verify(
    readings: &[KnobReading],
    engine: &str,
    prefix: &str,
    allow_unverified: bool,
    hint: &dyn Fn(&str) -> String,
) -> Result<(), KnobError> {
    for r in readings {
        let Some(req) = &r.requested else { continue };
        let ok = match (&r.effective, r.name.starts_with(prefix)) {
            (None, true) if allow_unverified => true,
            (None, true) => {
                return Err(KnobError::Unverifiable {
                    knob: r.name.clone(),
                    engine: engine.to_string(),
                    requested: req.clone(),
                })
            }
            (Some(eff), true) => passthrough_matches(req, eff),
            (Some(eff), false) => eff == req,
            (None, false) => false,
        };
        if !ok {
            return Err(KnobError::NotEffective {
                knob: r.name.clone(),
                engine: engine.to_string(),
                requested: req.clone(),
                effective: r.effective.clone().unwrap_or_else(|| "nothing (no read-back)".into()),
                hint: hint(&r.name),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn begin(requested: Option<&str>) -> Vec<KnobReading> {
        vec![
            KnobReading {
                name: "journal_mode".into(),
                requested: None,
                effective: Some("delete".into()),
                note: None,
            },
            KnobReading {
                name: "begin".into(),
                requested: requested.map(str::to_string),
                effective: Some(requested.unwrap_or("immediate").into()),
                note: None,
            },
        ]
    }

    #[test]
    fn an_unset_begin_reads_as_written_for_the_users_sql_and_a_set_one_counts_its_begins() {
        let mut r = begin(None);
        begin_of_user_sql(&mut r, 3);
        assert_eq!(r[1].effective.as_deref(), Some(BEGIN_AS_WRITTEN));
        assert_eq!(
            r[1].note.as_deref(),
            Some("3 bare BEGINs of the workload's SQL run as written (deferred); --knob begin=immediate starts them BEGIN IMMEDIATE")
        );
        assert_eq!(r[0], begin(None)[0], "other knobs are left alone");
        let mut r = begin(Some("exclusive"));
        begin_of_user_sql(&mut r, 1);
        assert_eq!(r[1].effective.as_deref(), Some("exclusive"));
        assert_eq!(
            r[1].note.as_deref(),
            Some("1 bare BEGIN of the workload's SQL starts as BEGIN EXCLUSIVE")
        );
    }
}
