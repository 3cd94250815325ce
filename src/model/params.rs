//! Workload parameters: declared with defaults and valid ranges, validated before anything runs.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The type and range of a parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// A whole number in `min..=max`.
    Count { min: u64, max: u64 },
    /// A duration such as `500ms`, `30s` or `2m`; `0` where allowed means "not used".
    Duration { allow_zero: bool },
    /// One of a fixed set of words (lower case).
    Choice(&'static [&'static str]),
    /// A finite real number greater than zero and at most `max` (SSB's scale factor, which may be
    /// a fraction).
    Positive { max: u64 },
    /// A filesystem path, taken as given (empty: not given). Whether it must exist is the
    /// workload's check, which can say which file is missing.
    Path,
    /// A real number in `min..=max` (a probability).
    Fraction { min: f64, max: f64 },
    /// A size in bytes in `min..=max`: a whole number, or one with a unit (KB, MB, GB: powers of
    /// 1000; KiB, MiB, GiB: powers of 1024). Stored as a count of bytes.
    Bytes { min: u64, max: u64 },
}

impl Eq for ParamKind {}

/// A real parameter value; equal when bit-identical (values come from parsing, never arithmetic).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Real(pub f64);

impl PartialEq for Real {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Real {}

/// A parameter a workload accepts.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: &'static str,
    pub help: &'static str,
}

/// A validated parameter value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Count(u64),
    #[serde(with = "duration_ms")]
    Duration(Duration),
    /// A [`ParamKind::Fraction`] or [`ParamKind::Positive`] number (a whole number stored back
    /// reads as a `Count`; [`Params::real`] reads both).
    Real(Real),
    /// A word of a [`ParamKind::Choice`] (tried after `Duration`, so choices are never
    /// duration-like), or the text of a [`ParamKind::Path`] (stored alike: a path read back from
    /// a stored run is this variant; [`Params::text`] reads both).
    Choice(String),
}

/// A parameter's value as `--param NAME=VALUE` would give it (`write.sql`, `2000ms`, `100`).
pub fn value_text(v: &ParamValue) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

// Validation keeps every `Real` finite, so equality is reflexive.
impl Eq for ParamValue {}

mod duration_ms {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        format!("{}ms", d.as_millis()).serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = String::deserialize(d)?;
        super::parse_duration(&s).ok_or_else(|| serde::de::Error::custom(format!("bad duration {s}")))
    }
}

/// Every parameter of a workload, resolved (defaults filled in).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params(pub BTreeMap<String, ParamValue>);

impl Params {
    /// A count parameter (0 if missing, which validation prevents).
    pub fn count(&self, name: &str) -> u64 {
        match self.0.get(name) {
            Some(ParamValue::Count(n)) => *n,
            _ => 0,
        }
    }

    /// A duration parameter (zero if missing).
    pub fn duration(&self, name: &str) -> Duration {
        match self.0.get(name) {
            Some(ParamValue::Duration(d)) => *d,
            _ => Duration::ZERO,
        }
    }

    /// A real parameter (a [`ParamKind::Fraction`] or [`ParamKind::Positive`]) (0 if missing, which validation prevents). A stored whole number
    /// (`1`) loads back as a count, and is read as that number.
    pub fn real(&self, name: &str) -> f64 {
        match self.0.get(name) {
            Some(ParamValue::Real(r)) => r.0,
            Some(ParamValue::Count(n)) => *n as f64,
            _ => 0.0,
        }
    }

    /// A path parameter as given ("" when not given).
    pub fn text(&self, name: &str) -> &str {
        self.choice(name)
    }

    /// A choice parameter ("" if missing, which validation prevents).
    pub fn choice(&self, name: &str) -> &str {
        match self.0.get(name) {
            Some(ParamValue::Choice(c)) => c,
            _ => "",
        }
    }
}

/// Bad `--param` input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error("--param {arg}: expected NAME=VALUE, e.g. --param rows=1000")]
    Malformed { arg: String },
    #[error("--param {name}: workload {workload} has no such parameter; valid parameters: {valid}")]
    Unknown {
        workload: String,
        name: String,
        valid: String,
    },
    #[error("--param {name}={value}: invalid value; valid: {valid}")]
    Invalid { name: String, value: String, valid: String },
    #[error("--param {name} is given twice")]
    Duplicate { name: String },
    #[error("{0}")]
    Inconsistent(String),
}

/// Longest duration a parameter accepts: 30 days. Far beyond any benchmark, and far below where
/// adding it to the clock (`Instant + Duration`) could overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Parses `500ms`, `30s`, `2m`, `1h`, or a bare number of seconds (`None` for anything else,
/// including numbers too large for a [`Duration`]).
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: f64 = num.trim().parse().ok()?;
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(secs).ok()
}

impl ParamKind {
    fn describe(&self) -> String {
        match self {
            ParamKind::Count { min, max } if *max == u64::MAX => format!("an integer >= {min}"),
            ParamKind::Count { min, max } => format!("an integer from {min} to {max}"),
            ParamKind::Duration { allow_zero: true } => {
                "a duration such as 500ms, 30s, 2m, at most 720h (0 = off)".into()
            }
            ParamKind::Duration { allow_zero: false } => {
                "a duration greater than zero, such as 500ms, 30s, 2m, at most 720h".into()
            }
            ParamKind::Choice(words) => words.join(", "),
            ParamKind::Positive { max } => {
                format!("a number greater than 0 and at most {max}, fractions allowed (e.g. 0.01)")
            }
            ParamKind::Path => "a path (empty: not given)".into(),
            ParamKind::Fraction { min, max } => format!("a number from {min} to {max}, such as 0.5"),
            ParamKind::Bytes { min, max } => {
                format!("a size from {min} to {max} bytes, such as 100000, 100KB, 10MB or 1MiB")
            }
        }
    }

    fn parse(&self, raw: &str) -> Option<ParamValue> {
        match self {
            ParamKind::Count { min, max } => {
                let n: u64 = raw.trim().replace('_', "").parse().ok()?;
                (n >= *min && n <= *max).then_some(ParamValue::Count(n))
            }
            ParamKind::Duration { allow_zero } => {
                let d = parse_duration(raw)?;
                ((*allow_zero || !d.is_zero()) && d <= MAX_DURATION).then_some(ParamValue::Duration(d))
            }
            ParamKind::Fraction { min, max } => {
                let x: f64 = raw.trim().parse().ok()?;
                (x.is_finite() && x >= *min && x <= *max).then_some(ParamValue::Real(Real(x)))
            }
            ParamKind::Bytes { min, max } => {
                let n = crate::base::bytesize::whole(raw)?;
                (n >= *min && n <= *max).then_some(ParamValue::Count(n))
            }
            ParamKind::Choice(words) => {
                let w = raw.trim().to_ascii_lowercase();
                words
                    .iter()
                    .find(|c| **c == w)
                    .map(|c| ParamValue::Choice(c.to_string()))
            }
            ParamKind::Positive { max } => {
                let x: f64 = raw.trim().parse().ok()?;
                (x.is_finite() && x > 0.0 && x <= *max as f64).then_some(ParamValue::Real(Real(x)))
            }
            ParamKind::Path => Some(ParamValue::Choice(raw.to_string())),
        }
    }
}

/// Resolves `--param` arguments against a workload's declared parameters.
pub fn resolve(workload: &str, specs: &[ParamSpec], args: &[String]) -> Result<Params, ParamError> {
    let mut given: BTreeMap<String, ParamValue> = BTreeMap::new();
    for arg in args {
        let (name, value) = arg.split_once('=').ok_or_else(|| ParamError::Malformed {
            arg: crate::base::clip::value(arg).into_owned(),
        })?;
        let name = name.trim();
        let spec = specs
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| ParamError::Unknown {
                workload: workload.into(),
                name: crate::base::clip::value(name).into_owned(),
                valid: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
            })?;
        let v = spec.kind.parse(value).ok_or_else(|| ParamError::Invalid {
            name: name.into(),
            value: crate::base::clip::value(value).into_owned(),
            valid: spec.kind.describe(),
        })?;
        if given.insert(name.to_string(), v).is_some() {
            return Err(ParamError::Duplicate { name: name.into() });
        }
    }
    for s in specs {
        if !given.contains_key(s.name) {
            let v = s.kind.parse(s.default).expect("declared defaults are valid");
            given.insert(s.name.to_string(), v);
        }
    }
    Ok(Params(given))
}

/// Valid values of a parameter, for `litebench list`.
pub fn describe(spec: &ParamSpec) -> String {
    spec.kind.describe()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec {
            name: "rows",
            kind: ParamKind::Count { min: 0, max: 1000 },
            default: "10",
            help: "",
        },
        ParamSpec {
            name: "duration",
            kind: ParamKind::Duration { allow_zero: true },
            default: "0",
            help: "",
        },
    ];

    #[test]
    fn fills_defaults_and_parses() {
        let p = resolve("w", SPECS, &["rows=5".into(), "duration=1.5s".into()]).unwrap();
        assert_eq!(p.count("rows"), 5);
        assert_eq!(p.duration("duration"), Duration::from_millis(1500));
        let d = resolve("w", SPECS, &[]).unwrap();
        assert_eq!(d.count("rows"), 10);
        assert!(d.duration("duration").is_zero());
    }

    #[test]
    fn a_long_value_is_quoted_cut_short() {
        let long = "7".repeat(10 << 20);
        let e = resolve("w", SPECS, &[format!("rows={long}")]).unwrap_err().to_string();
        assert!(e.len() < 400, "{} bytes", e.len());
        assert!(
            e.starts_with("--param rows=777") && e.contains(&format!("… ({} bytes): invalid value", 10 << 20)),
            "{e}"
        );
        let e = resolve("w", SPECS, std::slice::from_ref(&long))
            .unwrap_err()
            .to_string();
        assert!(e.len() < 400, "{} bytes", e.len());
    }

    #[test]
    fn rejects_with_valid_range() {
        let e = resolve("w", SPECS, &["rows=2000".into()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--param rows=2000: invalid value; valid: an integer from 0 to 1000"
        );
        assert!(matches!(
            resolve("w", SPECS, &["nope=1".into()]),
            Err(ParamError::Unknown { .. })
        ));
        assert!(matches!(
            resolve("w", SPECS, &["rows".into()]),
            Err(ParamError::Malformed { .. })
        ));
        assert!(matches!(
            resolve("w", SPECS, &["duration=5x".into()]),
            Err(ParamError::Invalid { .. })
        ));
    }

    #[test]
    fn choices() {
        const MODE: &[ParamSpec] = &[ParamSpec {
            name: "mode",
            kind: ParamKind::Choice(&["insert", "update"]),
            default: "insert",
            help: "",
        }];
        assert_eq!(resolve("w", MODE, &[]).unwrap().choice("mode"), "insert");
        let p = resolve("w", MODE, &["mode=UPDATE".into()]).unwrap();
        assert_eq!(p.choice("mode"), "update");
        assert_eq!(
            resolve("w", MODE, &["mode=drop".into()]).unwrap_err().to_string(),
            "--param mode=drop: invalid value; valid: insert, update"
        );
        // Stored and loaded back as a word.
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"mode":"update"}"#);
        let back: Params = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        let d: Params = serde_json::from_str(r#"{"duration":"1500ms","rows":3}"#).unwrap();
        assert_eq!(d.duration("duration"), Duration::from_millis(1500));
        assert_eq!(d.count("rows"), 3);
    }

    #[test]
    fn reals_and_paths() {
        const SSB: &[ParamSpec] = &[
            ParamSpec {
                name: "scale",
                kind: ParamKind::Positive { max: 1000 },
                default: "1",
                help: "",
            },
            ParamSpec {
                name: "dir",
                kind: ParamKind::Path,
                default: "",
                help: "",
            },
        ];
        let d = resolve("w", SSB, &[]).unwrap();
        assert_eq!(d.real("scale"), 1.0);
        assert_eq!(d.text("dir"), "");
        let p = resolve("w", SSB, &["scale=0.01".into(), "dir=/tmp/x y".into()]).unwrap();
        assert_eq!(p.real("scale"), 0.01);
        assert_eq!(p.text("dir"), "/tmp/x y");
        let back: Params = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(back.real("scale"), 0.01);
        assert_eq!(back.text("dir"), "/tmp/x y");
        let whole: Params = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(whole.real("scale"), 1.0);
        for bad in ["0", "-1", "nan", "inf", "1001", "x"] {
            let e = resolve("w", SSB, &[format!("scale={bad}")]).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("--param scale={bad}: invalid value; valid: a number greater than 0 and at most 1000, fractions allowed (e.g. 0.01)")
            );
        }
    }

    #[test]
    fn fractions_and_sizes() {
        const S: &[ParamSpec] = &[
            ParamSpec {
                name: "ratio",
                kind: ParamKind::Fraction { min: 0.0, max: 1.0 },
                default: "0.9",
                help: "",
            },
            ParamSpec {
                name: "size",
                kind: ParamKind::Bytes {
                    min: 1,
                    max: 1_000_000_000,
                },
                default: "100KB",
                help: "",
            },
        ];
        let p = resolve("w", S, &[]).unwrap();
        assert_eq!((p.real("ratio"), p.count("size")), (0.9, 100_000));
        let p = resolve("w", S, &["ratio=1".into(), "size=1MiB".into()]).unwrap();
        assert_eq!((p.real("ratio"), p.count("size")), (1.0, 1 << 20));
        // Stored and loaded back: 1 comes back as a count and still reads as 1.0.
        let back: Params = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!((back.real("ratio"), back.count("size")), (1.0, 1 << 20));
        let half = resolve("w", S, &["ratio=0.5".into()]).unwrap();
        let back: Params = serde_json::from_str(&serde_json::to_string(&half).unwrap()).unwrap();
        assert_eq!(back, half);
        for (arg, valid) in [
            ("ratio=1.5", "a number from 0 to 1"),
            ("ratio=-0.1", "a number from 0 to 1"),
            ("ratio=NaN", "a number from 0 to 1"),
            ("size=0", "a size from 1 to 1000000000 bytes"),
            ("size=2GB", "a size from 1 to 1000000000 bytes"),
            ("size=1.5B", "a size from 1"),
            ("size=10XB", "a size from 1"),
        ] {
            let e = resolve("w", S, &[arg.into()]).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--param {arg}: invalid value; valid: {valid}")),
                "{e}"
            );
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_duration("-1s"), None);
        // Too large for a Duration: refused, not a panic.
        assert_eq!(parse_duration("100000000000000000000"), None);
        assert_eq!(parse_duration("1e300h"), None);
        assert_eq!(parse_duration("NaN"), None);
        assert_eq!(parse_duration("inf"), None);
    }

    #[test]
    fn durations_beyond_the_limit_are_refused() {
        for raw in ["100000000000000000000", "721h", "2592001", "18446744073709551616ms"] {
            let e = resolve("w", SPECS, &[format!("duration={raw}")]).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("--param duration={raw}: invalid value; valid: a duration such as 500ms, 30s, 2m, at most 720h (0 = off)")
            );
        }
        let p = resolve("w", SPECS, &["duration=720h".into()]).unwrap();
        assert_eq!(p.duration("duration"), MAX_DURATION);
    }
}
