//! Measured values of claims, computed from the stored runs of their experiments.
//!
//! Each experiment's runs are loaded back from the results store and summarised exactly as
//! `show` and `report` summarise them; a claim's configuration is found by its `--fs` value,
//! knob values (SQLite's default when a configuration leaves a knob out) or preset name.

use super::{FootprintOf, Measure, Pick, PopulationOf};
use crate::engines::sqlite::compiled::cache::BuildCache;
use crate::model::engine_info::CompiledBuild;
use crate::model::knob::KnobSet;
use crate::model::record::{ConfigInfo, TemplateRecord, TrialRecord};
use crate::report::summary::SummaryRow;

/// One stored run, summarised, with its trials (for the intervals of ratios).
#[derive(Debug, Clone)]
pub struct RunData {
    pub id: i64,
    /// The experiment that stored it.
    pub experiment: &'static str,
    pub configs: Vec<ConfigInfo>,
    pub summary: Vec<SummaryRow>,
    pub trials: Vec<TrialRecord>,
    /// The run's bootstrap seed (its manifest's statistics settings).
    pub seed: u64,
    /// The templates it populated (rows, time, size on disk).
    pub templates: Vec<TemplateRecord>,
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

/// The runs of experiment `exp` (a ratio across experiments may pick the same configuration
/// in both, e.g. the same knobs on an empty and on a pre-populated database).
pub fn of_experiment<'a>(runs: &[&'a RunData], exp: &str) -> Vec<&'a RunData> {
    runs.iter().copied().filter(|r| r.experiment == exp).collect()
}

/// The summary row of `pick`'s configuration and operation `op` (None: the preset's headline).
fn row<'a>(runs: &[&'a RunData], pick: &Pick, op: Option<&str>) -> Option<&'a SummaryRow> {
    let op = op.or_else(|| pick.preset.and_then(crate::workload::preset::find).map(|p| p.headline))?;
    let (run, config) = config_of(runs, pick, op)?;
    run.summary
        .iter()
        .find(|s| s.config == config && s.operation == op && s.trials > 0)
}

/// The first run with a configuration that `pick` means and that measured `op`, and that
/// configuration's index.
pub fn config_of<'a>(runs: &[&'a RunData], pick: &Pick, op: &str) -> Option<(&'a RunData, usize)> {
    runs.iter().copied().find_map(|r| {
        let c = r.configs.iter().find(|c| matches(c, pick))?;
        r.summary
            .iter()
            .any(|s| s.config == c.index && s.operation == op && s.trials > 0)
            .then_some((r, c.index))
    })
}

/// The template `pick`'s configuration was copied from. A run records each template once, for
/// the first configuration that used it; a later configuration shares the template of an
/// earlier one on its engine and filesystem whose create-time knobs it has (the most of them).
fn template<'a>(runs: &[&'a RunData], pick: &Pick) -> Option<&'a TemplateRecord> {
    runs.iter().copied().find_map(|r| {
        r.configs.iter().filter(|c| matches(c, pick)).find_map(|c| {
            let fs = |x: &ConfigInfo| x.fs.as_ref().map(|f| f.index);
            r.templates
                .iter()
                .filter(|t| {
                    r.configs
                        .iter()
                        .find(|first| first.index == t.config)
                        .is_some_and(|first| first.engine == c.engine && fs(first) == fs(c))
                })
                .filter(|t| create_knobs(t).all(|(k, v)| c.knobs.get(k) == Some(v)))
                .max_by_key(|t| create_knobs(t).count())
        })
    })
}

/// A template's create-time knobs as (name, value) pairs.
fn create_knobs(t: &TemplateRecord) -> impl Iterator<Item = (&str, &str)> {
    t.create_knobs
        .split(',')
        .filter(|kv| !kv.is_empty())
        .filter_map(|kv| kv.split_once('='))
}

/// A number of a population record, with its description.
fn population(t: &TemplateRecord, of: PopulationOf, pick: &Pick) -> Result<(f64, String), String> {
    match of {
        PopulationOf::Megabytes => {
            let bytes = t
                .bytes
                .filter(|b| *b > 0)
                .ok_or_else(|| format!("database size not recorded for {}", pick.describe()))?;
            Ok((bytes as f64 / 1e6, format!("MB on disk, {} rows", t.rows)))
        }
        PopulationOf::Seconds => {
            let s = t.populate_ns as f64 / 1e9;
            if s <= 0.0 {
                return Err(format!("population time not recorded for {}", pick.describe()));
            }
            Ok((s, format!("s populating {} rows", t.rows)))
        }
    }
}

/// A measured value: the number and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub value: f64,
    pub detail: String,
}

/// The measured value of `m` from its experiment's runs, or why there is none.
pub fn value(m: &Measure, runs: &[&RunData]) -> Result<Value, String> {
    let missing = |p: &Pick, op: &str| format!("no measured configuration {} ({op})", p.describe());
    let tps_in = |runs: &[&RunData], p: &Pick, op: Option<&str>| -> Result<f64, String> {
        row(runs, p, op)
            .map(|r| r.throughput.tps_median)
            .filter(|v| *v > 0.0)
            .ok_or_else(|| missing(p, op.unwrap_or("headline")))
    };
    let tps = |p: &Pick, op: Option<&str>| tps_in(runs, p, op);
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
            let ms = |(exp, p): &(&str, Pick)| -> Result<f64, String> {
                row(&of_experiment(runs, exp), p, Some(op))
                    .map(|r| r.throughput.time_ms_median)
                    .filter(|v| *v > 0.0)
                    .ok_or_else(|| missing(p, op))
            };
            let (a, b) = (ms(num)?, ms(den)?);
            Ok(Value {
                value: a / b,
                detail: format!("{} / {} ms", super::claim::num(a), super::claim::num(b)),
            })
        }
        Measure::TpsRatio { op, num, den } => {
            let one = |(exp, p): &(&str, Pick)| tps_in(&of_experiment(runs, exp), p, Some(op));
            let (a, b) = (one(num)?, one(den)?);
            Ok(Value {
                value: a / b,
                detail: format!("{} / {} tx/s", super::claim::num(a), super::claim::num(b)),
            })
        }
        Measure::Footprint { build, of, .. } => footprint(build, *of),
        Measure::Duckdb { of, over } => duckdb(*of, over.map(|(_, b)| b)),
        Measure::Population { pick, of, .. } => {
            let t = template(runs, pick).ok_or_else(|| missing(pick, "population"))?;
            let (value, detail) = population(t, *of, pick)?;
            Ok(Value { value, detail })
        }
        Measure::PopulationRatio { of, num, den } => {
            let one = |(exp, p): &(&str, Pick)| -> Result<f64, String> {
                let t = template(&of_experiment(runs, exp), p).ok_or_else(|| missing(p, "population"))?;
                Ok(population(t, *of, p)?.0)
            };
            let (a, b) = (one(num)?, one(den)?);
            let unit = match of {
                PopulationOf::Megabytes => "MB",
                PopulationOf::Seconds => "s",
            };
            Ok(Value {
                value: a / b,
                detail: format!("{} / {} {unit}", super::claim::num(a), super::claim::num(b)),
            })
        }
        Measure::SyncsPer1000 { op, pick, .. } => {
            let r = row(runs, pick, Some(op)).ok_or_else(|| missing(pick, op))?;
            let s =
                r.io.syncs_per_tx
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

/// A number of DuckDB's library (the default release, as fetched), alone or over a SQLite
/// build's.
fn duckdb(of: FootprintOf, over: Option<&str>) -> Result<Value, String> {
    let builds = BuildCache::from_env().map(|c| c.list()).unwrap_or_default();
    duckdb_of(
        crate::engines::duckdb::default_library().map(|(_, b)| b),
        &builds,
        of,
        over,
    )
}

/// What Table 3's compile rows say for DuckDB: nothing of it is compiled here.
pub const DUCKDB_NOT_COMPILED: &str = "not measured: litebench compiles no DuckDB (it loads DuckDB's release library); to measure, time DuckDB's own build from source (`make` in a checkout of github.com/duckdb/duckdb at the release's tag) on this machine";

/// [`duckdb`] from the library's size in bytes and a list of builds.
fn duckdb_of(
    library: Option<u64>,
    builds: &[CompiledBuild],
    of: FootprintOf,
    over: Option<&str>,
) -> Result<Value, String> {
    let release = crate::engines::duckdb::release::DEFAULT;
    let bytes = library.ok_or_else(|| {
        format!("skipped: DuckDB {release} is not in the cache yet (any run with --engine duckdb fetches it)")
    })?;
    let (value, unit) = match of {
        FootprintOf::LibraryKb => (bytes as f64 / 1000.0, "KB shared library libduckdb.so"),
        FootprintOf::CompileSeconds | FootprintOf::CompileMb => return Err(DUCKDB_NOT_COMPILED.into()),
    };
    let Some(name) = over else {
        return Ok(Value {
            value,
            detail: format!("{unit}, DuckDB {release}'s release build (npm)"),
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
    use crate::model::knob::KnobSetting;

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
            libsql_version: None,
            source: "3.37.2".into(),
            source_sha256: "s".into(),
            source_sha3_256: None,
            origin: None,
            pristine: None,
            flags: ["-shared", "-fPIC", opt].map(String::from).to_vec(),
            compiler: "cc".into(),
            compiler_version: "gcc 12".into(),
            compile_ms: 15_500,
            peak_compile_kib: 348_160,
            library_bytes,
            text_bytes: None,
            library: "/nonexistent/libsqlite3.so".into(),
            library_sha256: None,
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
    fn duckdb_footprints_come_from_its_library_and_divide_by_a_build() {
        let builds = [build("3.37.2-O3", "-O3", "2026-03-01T00:00:00Z", 1_500_000)];
        let kb = duckdb_of(Some(37_000_000), &builds, FootprintOf::LibraryKb, None).unwrap();
        assert_eq!(kb.value, 37_000.0);
        let over = duckdb_of(Some(37_000_000), &builds, FootprintOf::LibraryKb, Some("3.37.2-O3")).unwrap();
        assert!((over.value - 37_000.0 / 1500.0).abs() < 1e-9, "{over:?}");
        for of in [FootprintOf::CompileSeconds, FootprintOf::CompileMb] {
            assert_eq!(
                duckdb_of(Some(1), &builds, of, Some("3.37.2-O3")).unwrap_err(),
                DUCKDB_NOT_COMPILED
            );
        }
        assert!(duckdb_of(None, &builds, FootprintOf::LibraryKb, None)
            .unwrap_err()
            .starts_with("skipped: DuckDB"));
        assert!(duckdb_of(Some(1), &[], FootprintOf::LibraryKb, Some("3.37.2-O3"))
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

    fn config(index: usize, engine: &str, k: &[(&str, &str)]) -> ConfigInfo {
        ConfigInfo {
            index,
            engine: engine.into(),
            knobs: knobs(k),
            label: engine.into(),
            knob_origins: Vec::new(),
            fs: None,
            scheduler: None,
            scheduler_device: None,
            storage: None,
            load: None,
            extension: None,
            driver: None,
            role_drivers: Vec::new(),
        }
    }

    fn populated(config: usize, engine: &str, seconds: f64, bytes: Option<u64>) -> TemplateRecord {
        TemplateRecord {
            config,
            engine: engine.into(),
            create_knobs: String::new(),
            rows: 975,
            populate_ns: (seconds * 1e9).round() as u64,
            rows_per_sec: 975.0 / seconds,
            bytes,
            load_path: None,
        }
    }

    fn refs(runs: &[RunData]) -> Vec<&RunData> {
        runs.iter().collect()
    }

    /// Table 4's rows: sizes and load times from the templates, the configuration found by
    /// its engine although the template was recorded for the run's first configuration only.
    #[test]
    fn population_numbers_and_ratios_come_from_the_templates() {
        let sqlite = RunData {
            id: 1,
            experiment: "tatp",
            configs: vec![
                config(0, "sqlite", &[("journal_mode", "delete")]),
                config(1, "sqlite", &[("journal_mode", "wal")]),
            ],
            summary: Vec::new(),
            templates: vec![populated(0, "sqlite", 8.2, Some(520_000_000))],
            trials: Vec::new(),
            seed: 0,
        };
        let duck = RunData {
            id: 2,
            experiment: "tatp-duckdb",
            configs: vec![config(0, "duckdb", &[])],
            summary: Vec::new(),
            templates: vec![populated(0, "duckdb", 10.0, Some(270_000_000))],
            trials: Vec::new(),
            seed: 0,
        };
        let runs = [sqlite, duck];
        let pick = |e| Pick {
            engine: Some(e),
            fs: None,
            knobs: &[],
            preset: None,
            scheduler: None,
        };
        let mb = value(
            &Measure::Population {
                exp: "tatp",
                pick: pick("sqlite"),
                of: PopulationOf::Megabytes,
            },
            &refs(&runs),
        )
        .unwrap();
        assert_eq!(mb.value, 520.0);
        assert_eq!(mb.detail, "MB on disk, 975 rows");
        let ratio = |of| {
            value(
                &Measure::PopulationRatio {
                    of,
                    num: ("tatp", pick("sqlite")),
                    den: ("tatp-duckdb", pick("duckdb")),
                },
                &refs(&runs),
            )
        };
        let size = ratio(PopulationOf::Megabytes).unwrap();
        assert!((size.value - 520.0 / 270.0).abs() < 1e-9, "{size:?}");
        assert_eq!(size.detail, "520 / 270 MB");
        assert!((ratio(PopulationOf::Seconds).unwrap().value - 0.82).abs() < 1e-9);
        // WAL's configuration shares the DELETE configuration's template (recorded for the
        // first configuration only); one with another page size would have had its own.
        let wal = Pick {
            engine: Some("sqlite"),
            fs: None,
            knobs: &[("journal_mode", "wal")],
            preset: None,
            scheduler: None,
        };
        let seconds = |pick, runs: &[RunData]| {
            let runs = refs(runs);
            value(
                &Measure::Population {
                    exp: "tatp",
                    pick,
                    of: PopulationOf::Seconds,
                },
                &runs,
            )
        };
        assert_eq!(seconds(wal, &runs).unwrap().value, 8.2);
        let mut paged = runs.clone();
        paged[0].configs[1].knobs = knobs(&[("journal_mode", "wal"), ("page_size", "8192")]);
        paged[0].templates.push(TemplateRecord {
            config: 1,
            create_knobs: "page_size=8192".into(),
            ..populated(1, "sqlite", 3.0, Some(1))
        });
        assert_eq!(seconds(wal, &paged).unwrap().value, 3.0);
        let none = Pick {
            engine: Some("postgres"),
            ..wal
        };
        let err = seconds(none, &runs).unwrap_err();
        assert!(err.starts_with("no measured configuration postgres"), "{err}");
        let mut sizeless = runs.clone();
        sizeless[1].templates[0].bytes = None;
        let err = value(
            &Measure::PopulationRatio {
                of: PopulationOf::Megabytes,
                num: ("tatp", pick("sqlite")),
                den: ("tatp-duckdb", pick("duckdb")),
            },
            &refs(&sizeless),
        )
        .unwrap_err();
        assert_eq!(err, "database size not recorded for duckdb");
        // The same configuration in two experiments: each side is read from its own.
        let mut again = runs[0].clone();
        again.id = 3;
        again.experiment = "tatp-again";
        again.templates[0].bytes = Some(260_000_000);
        let twice = [runs[0].clone(), again];
        let across = value(
            &Measure::PopulationRatio {
                of: PopulationOf::Megabytes,
                num: ("tatp", pick("sqlite")),
                den: ("tatp-again", pick("sqlite")),
            },
            &refs(&twice),
        )
        .unwrap();
        assert_eq!(across.value, 2.0);
    }
}
