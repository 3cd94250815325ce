//! Measured values of claims, computed from the stored runs of their experiments.
//!
//! Each experiment's runs are loaded back from the results store and summarised exactly as
//! `show` and `report` summarise them; a claim's configuration is found by its `--fs` value,
//! knob values (SQLite's default when a configuration leaves a knob out) or preset name.

use super::{FootprintOf, Measure, Pick};
use crate::engines::sqlite::compiled::cache::{BuildCache, CompiledBuild};
use crate::knob::KnobSet;
use crate::report::summary::SummaryRow;
use crate::result::{ConfigInfo, TrialRecord};

/// One stored run, summarised, with its trials (for the intervals of ratios).
#[derive(Debug, Clone)]
pub struct RunData {
    pub id: i64,
    pub configs: Vec<ConfigInfo>,
    pub summary: Vec<SummaryRow>,
    pub trials: Vec<TrialRecord>,
    /// The run's bootstrap seed (its manifest's statistics settings).
    pub seed: u64,
}

/// How an experiment ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// It ran; `error` when it failed part-way (its finished trials are kept).
    Ran { runs: Vec<RunData>, error: Option<String> },
    /// It did not run: what this machine lacks.
    Skipped(String),
    /// It did not run: what went wrong.
    Failed(String),
}

/// SQLite's value of a knob a configuration leaves out.
fn sqlite_default(knob: &str) -> Option<&'static str> {
    match knob {
        "journal_mode" => Some("delete"),
        "synchronous" => Some("full"),
        "wal_autocheckpoint" => Some("1000"),
        _ => None,
    }
}

/// Whether a configuration is the one `pick` means.
pub fn matches(c: &ConfigInfo, pick: &Pick) -> bool {
    pick.engine.is_none_or(|e| c.engine == e)
        && pick.scheduler.is_none_or(|s| c.scheduler.as_deref() == Some(s))
        && matches_parts(c.fs.as_ref().map(|f| f.spec.as_str()), &c.label, &c.knobs, pick)
}

/// [`matches`] on a configuration's `--fs` value, label and knobs.
fn matches_parts(fs: Option<&str>, label: &str, knobs: &KnobSet, pick: &Pick) -> bool {
    if pick.fs.is_some() && fs != pick.fs {
        return false;
    }
    if let Some(p) = pick.preset {
        // The label starts with the engine, `--fs` value and scheduler when a run varies
        // them, then the preset names joined by `+`, then the knobs (`name=value`).
        let mut words = label.split(' ').take_while(|w| !w.contains('='));
        if !words.any(|w| w.split('+').any(|n| n == p)) {
            return false;
        }
    }
    pick.knobs
        .iter()
        .all(|(k, v)| knobs.get(k).or_else(|| sqlite_default(k)) == Some(*v))
}

/// The summary row of `pick`'s configuration and operation `op` (None: the preset's headline).
fn row<'a>(runs: &'a [RunData], pick: &Pick, op: Option<&str>) -> Option<&'a SummaryRow> {
    let op = op.or_else(|| pick.preset.and_then(crate::preset::find).map(|p| p.headline))?;
    let (run, config) = config_of(runs, pick, op)?;
    run.summary
        .iter()
        .find(|s| s.config == config && s.operation == op && s.trials > 0)
}

/// The first run with a configuration that `pick` means and that measured `op`, and that
/// configuration's index.
pub fn config_of<'a>(runs: &'a [RunData], pick: &Pick, op: &str) -> Option<(&'a RunData, usize)> {
    runs.iter().find_map(|r| {
        let c = r.configs.iter().find(|c| matches(c, pick))?;
        r.summary
            .iter()
            .any(|s| s.config == c.index && s.operation == op && s.trials > 0)
            .then_some((r, c.index))
    })
}

/// A measured value: the number and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub value: f64,
    pub detail: String,
}

/// The measured value of `m` from its experiment's runs, or why there is none.
pub fn value(m: &Measure, runs: &[RunData]) -> Result<Value, String> {
    let missing = |p: &Pick, op: &str| format!("no measured configuration {} ({op})", p.describe());
    let tps = |p: &Pick, op: Option<&str>| -> Result<f64, String> {
        row(runs, p, op)
            .map(|r| r.tps_median)
            .filter(|v| *v > 0.0)
            .ok_or_else(|| missing(p, op.unwrap_or("headline")))
    };
    let preset = |name: &'static str| Pick::preset(None, name);
    match m {
        Measure::Ratio { op, num, den, .. } => {
            let (a, b) = (tps(num, Some(op))?, tps(den, Some(op))?);
            Ok(Value {
                value: a / b,
                detail: format!("{} / {} tx/s", super::claim::num(a), super::claim::num(b)),
            })
        }
        Measure::Tps { pick, .. } => {
            let v = tps(pick, None)?;
            Ok(Value {
                value: v,
                detail: "tx/s, median".into(),
            })
        }
        Measure::PresetRatio { num, den, .. } => {
            let (a, b) = (tps(&preset(num), None)?, tps(&preset(den), None)?);
            Ok(Value {
                value: a / b,
                detail: format!("{} / {} tx/s", super::claim::num(a), super::claim::num(b)),
            })
        }
        Measure::TimeRatio { op, num, den } => {
            let ms = |p: &Pick| -> Result<f64, String> {
                row(runs, p, Some(op))
                    .map(|r| r.time_ms_median)
                    .filter(|v| *v > 0.0)
                    .ok_or_else(|| missing(p, op))
            };
            let (a, b) = (ms(&num.1)?, ms(&den.1)?);
            Ok(Value {
                value: a / b,
                detail: format!("{} / {} ms", super::claim::num(a), super::claim::num(b)),
            })
        }
        Measure::TpsRatio { op, num, den } => {
            let (a, b) = (tps(&num.1, Some(op))?, tps(&den.1, Some(op))?);
            Ok(Value {
                value: a / b,
                detail: format!("{} / {} tx/s", super::claim::num(a), super::claim::num(b)),
            })
        }
        Measure::Footprint { build, of, .. } => footprint(build, *of),
        Measure::Duckdb { of, over } => duckdb(*of, over.map(|(_, b)| b)),
        Measure::SyncsPer1000 { op, pick, .. } => {
            let r = row(runs, pick, Some(op)).ok_or_else(|| missing(pick, op))?;
            let s = r
                .syncs_per_tx
                .ok_or_else(|| format!("syncs not counted for {}", pick.describe()))?;
            Ok(Value {
                value: s * 1000.0,
                detail: format!("{} syncs per transaction", super::claim::num(s)),
            })
        }
    }
}

/// A number of one build's footprint, and its unit.
fn number(b: &CompiledBuild, of: FootprintOf) -> (f64, &'static str) {
    match of {
        FootprintOf::LibraryKb => (b.library_bytes as f64 / 1000.0, "KB library"),
        FootprintOf::CompileSeconds => (b.compile_ms as f64 / 1000.0, "s compiling"),
        FootprintOf::CompileMb => (b.peak_compile_kib as f64 / 1024.0, "MB peak compiler memory"),
    }
}

/// The cached build named `name`, or why there is none.
fn build_named<'a>(builds: &'a [CompiledBuild], name: &str) -> Result<&'a CompiledBuild, String> {
    builds.iter().find(|b| b.name == name).ok_or_else(|| {
        format!("not measured: no cached build sqlite@{name} (litebench build-sqlite makes it; reproduce builds it when its experiment runs)")
    })
}

/// A footprint number of the cached build named `name`.
fn footprint(name: &str, of: FootprintOf) -> Result<Value, String> {
    let builds = BuildCache::from_env().map(|c| c.list()).unwrap_or_default();
    footprint_of(&builds, name, of)
}

/// [`footprint`] over a list of builds.
fn footprint_of(builds: &[CompiledBuild], name: &str, of: FootprintOf) -> Result<Value, String> {
    let b = build_named(builds, name)?;
    let (value, unit) = number(b, of);
    Ok(Value {
        value,
        detail: format!(
            "{unit}, cached build sqlite@{} ({}, SQLite {})",
            b.name, b.compiler_version, b.version
        ),
    })
}

/// A number of this binary's DuckDB compile, alone or over a SQLite build's.
fn duckdb(of: FootprintOf, over: Option<&str>) -> Result<Value, String> {
    let builds = BuildCache::from_env().map(|c| c.list()).unwrap_or_default();
    duckdb_of(crate::commands::build_sqlite::duckdb_build(), &builds, of, over)
}

/// [`duckdb`] from DuckDB's compile (`(wall seconds, library bytes)`) and a list of builds.
fn duckdb_of(
    compile: Option<(f64, u64)>,
    builds: &[CompiledBuild],
    of: FootprintOf,
    over: Option<&str>,
) -> Result<Value, String> {
    let (seconds, bytes) =
        compile.ok_or_else(|| "skipped: this litebench was built without --features duckdb".to_string())?;
    let (value, unit) = match of {
        FootprintOf::LibraryKb => (bytes as f64 / 1000.0, "KB static library libduckdb.a"),
        FootprintOf::CompileSeconds => (seconds, "s of cargo's libduckdb-sys build (wall)"),
        FootprintOf::CompileMb => {
            return Err("not measured: cargo does not record the peak memory of DuckDB's compile".into())
        }
    };
    let Some(name) = over else {
        return Ok(Value {
            value,
            detail: format!("{unit}, from this binary's build"),
        });
    };
    let (base, base_unit) = number(build_named(builds, name)?, of);
    Ok(Value {
        value: value / base,
        detail: format!(
            "{} {unit} / {} {base_unit} of sqlite@{name}",
            super::claim::num(value),
            super::claim::num(base)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knob::KnobSetting;

    fn knobs(k: &[(&str, &str)]) -> KnobSet {
        KnobSet(
            k.iter()
                .map(|(n, v)| KnobSetting {
                    name: n.to_string(),
                    value: v.to_string(),
                })
                .collect(),
        )
    }

    #[test]
    fn picks_use_sqlite_defaults_for_knobs_left_out() {
        let wal = knobs(&[("journal_mode", "wal")]);
        let m = |fs, p: &Pick| matches_parts(fs, "journal_mode=wal", &wal, p);
        assert!(m(
            None,
            &Pick::knobs(&[("journal_mode", "wal"), ("synchronous", "full")])
        ));
        assert!(!m(
            None,
            &Pick::knobs(&[("journal_mode", "wal"), ("synchronous", "normal")])
        ));
        assert!(!m(None, &Pick::knobs(&[("journal_mode", "delete")])));
        assert!(m(Some("f2fs"), &Pick::on("f2fs", &[("journal_mode", "wal")])));
        assert!(!m(Some("f2fs"), &Pick::on("ext4", &[("journal_mode", "wal")])));
        assert!(!m(None, &Pick::on("ext4", &[("journal_mode", "wal")])));
    }

    fn build(name: &str, opt: &str, built_at: &str, library_bytes: u64) -> CompiledBuild {
        CompiledBuild {
            name: name.into(),
            key: "k".into(),
            version: "3.37.2".into(),
            source: "3.37.2".into(),
            source_sha256: "s".into(),
            flags: ["-shared", "-fPIC", opt].map(String::from).to_vec(),
            compiler: "cc".into(),
            compiler_version: "gcc 12".into(),
            compile_ms: 15_500,
            peak_compile_kib: 348_160,
            library_bytes,
            library: "/nonexistent/libsqlite3.so".into(),
            built_at: built_at.into(),
        }
    }

    #[test]
    fn footprints_come_from_the_named_build() {
        let builds = [
            build("3.37.2-Os", "-Os", "2026-01-01T00:00:00Z", 900_000),
            build("3.38.0-Os", "-Os", "2026-02-01T00:00:00Z", 950_000),
            build("3.37.2-O3", "-O3", "2026-03-01T00:00:00Z", 1_500_000),
        ];
        let v = footprint_of(&builds, "3.37.2-Os", FootprintOf::LibraryKb).unwrap();
        assert_eq!(v.value, 900.0);
        assert!(v.detail.contains("sqlite@3.37.2-Os"), "{}", v.detail);
        assert_eq!(
            footprint_of(&builds, "3.37.2-O3", FootprintOf::LibraryKb)
                .unwrap()
                .value,
            1500.0
        );
        assert_eq!(
            footprint_of(&builds, "3.37.2-O3", FootprintOf::CompileSeconds)
                .unwrap()
                .value,
            15.5
        );
        assert_eq!(
            footprint_of(&builds, "3.37.2-O3", FootprintOf::CompileMb)
                .unwrap()
                .value,
            340.0
        );
        let none = footprint_of(&builds[..2], "3.37.2-O3", FootprintOf::LibraryKb).unwrap_err();
        assert!(
            none.starts_with("not measured: no cached build sqlite@3.37.2-O3"),
            "{none}"
        );
    }

    #[test]
    fn duckdb_footprints_come_from_its_compile_and_divide_by_a_build() {
        let builds = [build("3.37.2-O3", "-O3", "2026-03-01T00:00:00Z", 1_500_000)];
        let compile = Some((600.0, 37_000_000));
        let kb = duckdb_of(compile, &builds, FootprintOf::LibraryKb, None).unwrap();
        assert_eq!(kb.value, 37_000.0);
        let over = duckdb_of(compile, &builds, FootprintOf::LibraryKb, Some("3.37.2-O3")).unwrap();
        assert!((over.value - 37_000.0 / 1500.0).abs() < 1e-9, "{over:?}");
        let secs = duckdb_of(compile, &builds, FootprintOf::CompileSeconds, Some("3.37.2-O3")).unwrap();
        assert!((secs.value - 600.0 / 15.5).abs() < 1e-9, "{secs:?}");
        assert!(duckdb_of(compile, &builds, FootprintOf::CompileMb, None)
            .unwrap_err()
            .starts_with("not measured"));
        assert_eq!(
            duckdb_of(None, &builds, FootprintOf::LibraryKb, None).unwrap_err(),
            "skipped: this litebench was built without --features duckdb"
        );
        assert!(duckdb_of(compile, &[], FootprintOf::LibraryKb, Some("3.37.2-O3"))
            .unwrap_err()
            .contains("no cached build"));
    }

    #[test]
    fn presets_are_found_by_label() {
        let p = |n| Pick::preset(None, n);
        let m = |pick: &Pick| matches_parts(None, "mobibench+x page_size=4096", &KnobSet::default(), pick);
        assert!(m(&p("mobibench")));
        assert!(m(&p("x")));
        assert!(!m(&p("mobibench-custom")));
        // A run on several file systems and schedulers puts them first.
        let guest = |pick: &Pick| {
            matches_parts(
                Some("ext4"),
                "ext4 bfq acreve page_size=4096 journal_mode=persist",
                &KnobSet::default(),
                pick,
            )
        };
        assert!(guest(&Pick::preset(None, "acreve")));
        assert!(!guest(&Pick::preset(None, "rlbench-aosp")));
        assert!(!guest(&Pick::preset(None, "page_size=4096")));
    }
}
