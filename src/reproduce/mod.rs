//! `litebench reproduce`: a seed paper's figures re-measured in one command.
//!
//! A target is a list of experiments (each one `litebench run` command line, run in-process by
//! the same code as `run`) and a list of claims (each a figure's or table's statement with the
//! paper's value transcribed and its source). The claims' measured values are computed from
//! the runs as stored, never typed in, so the first section of the report can only say what
//! this machine measured. What a target needs and this machine lacks (root for loop devices,
//! a guest kernel) is said in the report, not left out.

pub mod apsys17;
pub mod claim;
pub mod interval;
pub mod linaro2014;
pub mod measure;
pub mod params;
pub mod run;
pub mod section;
pub mod speed2002;
pub mod vldb22;

use claim::Expect;

/// How big the experiments are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Seconds per target: for tests (hidden `--tiny`).
    Tiny,
    /// At most about 10 minutes per target on a 2-core machine.
    Default,
    /// The papers' sizes and trials (`--full`).
    Full,
}

impl Scale {
    pub fn name(self) -> &'static str {
        match self {
            Scale::Tiny => "tiny (tests only)",
            Scale::Default => "default (scaled down)",
            Scale::Full => "full (the paper's sizes)",
        }
    }
}

/// What an experiment needs besides litebench.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// Loop devices and mounts (`--fs` on the host).
    Root,
    /// DuckDB's default release library (fetched once into the cache when missing).
    Duckdb,
    /// SQLite libraries compiled by `build-sqlite`; `reproduce` builds the missing ones first
    /// (sources from the cache, the npm registry or sqlite.org; once per machine), and skips
    /// the experiment when it cannot.
    SqliteBuilds(&'static [SqliteBuild]),
}

/// A SQLite library an experiment runs (`--engine sqlite@NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqliteBuild {
    pub release: &'static str,
    /// `build-sqlite -O`: `2`, `s` or `3`.
    pub opt: &'static str,
}

impl SqliteBuild {
    /// The name `build-sqlite` gives it by default: `3.7.13`, `3.37.2-Os`, `3.37.2-O3`.
    pub fn name(&self) -> String {
        match self.opt {
            "2" => self.release.to_string(),
            o => format!("{}-O{o}", self.release),
        }
    }
}

/// Which number of a build's footprint (`build-sqlite --list`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FootprintOf {
    /// The library's size in KB (1000 bytes, as the paper's table).
    LibraryKb,
    /// Wall time of the compile in seconds.
    CompileSeconds,
    /// Peak resident memory of the compiler in MB (2^20 bytes).
    CompileMb,
}

/// Which number of a template's population record (`show`'s "population (template databases)").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PopulationOf {
    /// The database's size on disk once populated, in MB (10^6 bytes, as the paper's table).
    Megabytes,
    /// Wall time of the population (schema, rows, statistics), in seconds.
    Seconds,
}

/// One `litebench run` of a target.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub id: &'static str,
    pub title: &'static str,
    /// The arguments after `litebench run` (trials, results and scratch directory are added).
    pub args: Vec<String>,
    pub needs: Needs,
}

/// Which configuration of an experiment's runs a measured value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// The engine (`sqlite`, `postgres`, `mysql`; None: any).
    pub engine: Option<&'static str>,
    /// The `--fs` value it ran on (None: any, e.g. the host's scratch directory).
    pub fs: Option<&'static str>,
    /// Knob values it had; a knob it does not list is at SQLite's default.
    pub knobs: &'static [(&'static str, &'static str)],
    /// A preset it measured (label prefix).
    pub preset: Option<&'static str>,
    /// The `--scheduler` it ran under (None: any).
    pub scheduler: Option<&'static str>,
}

impl Pick {
    /// Any configuration of engine `e`.
    pub const fn engine(e: &'static str) -> Pick {
        Pick {
            engine: Some(e),
            ..Pick::knobs(&[])
        }
    }

    /// The same configuration, of engine `e` only.
    pub const fn of(self, e: &'static str) -> Pick {
        Pick {
            engine: Some(e),
            ..self
        }
    }

    /// The same configuration on the `--fs` value `fs`.
    pub const fn on_fs(self, fs: &'static str) -> Pick {
        Pick { fs: Some(fs), ..self }
    }

    pub const fn knobs(knobs: &'static [(&'static str, &'static str)]) -> Pick {
        Pick {
            engine: None,
            fs: None,
            knobs,
            preset: None,
            scheduler: None,
        }
    }

    pub const fn on(fs: &'static str, knobs: &'static [(&'static str, &'static str)]) -> Pick {
        Pick {
            engine: None,
            fs: Some(fs),
            knobs,
            preset: None,
            scheduler: None,
        }
    }

    /// A preset's configuration on an engine.
    pub const fn preset(engine: Option<&'static str>, preset: &'static str) -> Pick {
        Pick {
            engine,
            fs: None,
            knobs: &[],
            preset: Some(preset),
            scheduler: None,
        }
    }

    /// The same configuration under the I/O scheduler `s`.
    pub const fn under(self, s: &'static str) -> Pick {
        Pick {
            scheduler: Some(s),
            ..self
        }
    }

    /// Short description for the report.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(e) = self.engine {
            parts.push(e.to_string());
        }
        if let Some(p) = self.preset {
            parts.push(p.to_string());
        }
        if let Some(f) = self.fs {
            parts.push(f.to_string());
        }
        if let Some(s) = self.scheduler {
            parts.push(format!("scheduler {s}"));
        }
        parts.extend(self.knobs.iter().map(|(k, v)| format!("{k}={v}")));
        parts.join(" ")
    }
}

/// How a claim's value is measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measure {
    /// Median throughput of `num` over that of `den`, operation `op`.
    Ratio {
        exp: &'static str,
        op: &'static str,
        num: Pick,
        den: Pick,
    },
    /// Median throughput of one configuration's headline operation (a preset's).
    Tps { exp: &'static str, pick: Pick },
    /// Median throughput of one preset over another's, each its own headline operation.
    PresetRatio {
        exp: &'static str,
        num: &'static str,
        den: &'static str,
    },
    /// Median time of operation `op` in one configuration over that in another, each from its
    /// own experiment (servers run as experiments of their own).
    TimeRatio {
        op: &'static str,
        num: (&'static str, Pick),
        den: (&'static str, Pick),
    },
    /// Median throughput of operation `op` in one configuration over that in another, each
    /// from its own experiment (an engine behind a cargo feature runs as its own experiment).
    TpsRatio {
        op: &'static str,
        num: (&'static str, Pick),
        den: (&'static str, Pick),
    },
    /// A number of the `build-sqlite` build named `build` (`3.37.2-Os`), as its compile
    /// recorded it in the build cache; `exp` is the experiment that needs (and so makes) it.
    Footprint {
        exp: &'static str,
        build: &'static str,
        of: FootprintOf,
    },
    /// A number of DuckDB's default release library (its size; it is not compiled here), over
    /// the same number of the build `build` when `over` is set.
    Duckdb {
        of: FootprintOf,
        over: Option<(&'static str, &'static str)>,
    },
    /// fsync/fdatasync calls per 1000 transactions of operation `op`.
    SyncsPer1000 {
        exp: &'static str,
        op: &'static str,
        pick: Pick,
    },
    /// A number of the template database `pick`'s configuration was copied from.
    Population {
        exp: &'static str,
        pick: Pick,
        of: PopulationOf,
    },
    /// [`Measure::Population`] of one configuration over another's, each from its own
    /// experiment.
    PopulationRatio {
        of: PopulationOf,
        num: (&'static str, Pick),
        den: (&'static str, Pick),
    },
}

impl Measure {
    /// The experiments whose runs it is computed from.
    pub fn experiments(&self) -> Vec<&'static str> {
        match self {
            Measure::Ratio { exp, .. }
            | Measure::Tps { exp, .. }
            | Measure::PresetRatio { exp, .. }
            | Measure::SyncsPer1000 { exp, .. }
            | Measure::Population { exp, .. } => vec![exp],
            Measure::PopulationRatio { num, den, .. } if num.0 == den.0 => vec![num.0],
            Measure::PopulationRatio { num, den, .. } => vec![num.0, den.0],
            Measure::TimeRatio { num, den, .. } | Measure::TpsRatio { num, den, .. } if num.0 == den.0 => {
                vec![num.0]
            }
            Measure::TimeRatio { num, den, .. } | Measure::TpsRatio { num, den, .. } => vec![num.0, den.0],
            Measure::Footprint { exp, .. }
            | Measure::Duckdb {
                over: Some((exp, _)), ..
            } => vec![exp],
            Measure::Duckdb { over: None, .. } => Vec::new(),
        }
    }
}

/// One row of a figure's table: the paper's statement and how it is measured here.
#[derive(Debug, Clone)]
pub struct Claim {
    pub what: String,
    pub expect: Expect,
    /// Where the value is in the paper and how it was read.
    pub source: String,
    pub measure: Measure,
}

impl Claim {
    pub fn new(what: impl Into<String>, expect: Expect, source: impl Into<String>, measure: Measure) -> Claim {
        Claim {
            what: what.into(),
            expect,
            source: source.into(),
            measure,
        }
    }
}

/// The words of a `litebench run` command line, as the experiments hold them.
pub fn words(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// `--param NAME=VALUE`.
pub fn param(p: impl std::fmt::Display) -> [String; 2] {
    ["--param".into(), p.to_string()]
}

/// `--trials N --warmup W`.
pub fn trials(trials: u32, warmup: u32) -> [String; 4] {
    [
        "--trials".into(),
        trials.to_string(),
        "--warmup".into(),
        warmup.to_string(),
    ]
}

/// A figure or table of the paper.
#[derive(Debug, Clone)]
pub struct Figure {
    pub name: &'static str,
    pub about: &'static str,
    pub claims: Vec<Claim>,
}

/// A reproducible paper.
#[derive(Debug, Clone)]
pub struct Target {
    pub name: &'static str,
    pub paper: &'static str,
    pub hardware: &'static str,
    /// What the chosen scale changes, for the report.
    pub scaled: String,
    pub experiments: Vec<Experiment>,
    pub figures: Vec<Figure>,
    /// Parts of the paper not re-measured, each with why (said in the report, not left out).
    pub omitted: &'static [(&'static str, &'static str)],
}

/// The targets `reproduce` runs.
pub const IMPLEMENTED: &[&str] = &["apsys17", "speed2002", "vldb22", "linaro2014"];

/// The target of that name at that scale.
pub fn target(name: &str, scale: Scale) -> Option<Target> {
    match name {
        "apsys17" => Some(apsys17::target(scale)),
        "speed2002" => Some(speed2002::target(scale)),
        "vldb22" => Some(vldb22::target(scale)),
        "linaro2014" => Some(linaro2014::target(scale)),
        _ => None,
    }
}

#[cfg(test)]
mod target_tests {
    use super::*;

    /// Every claim of every implemented target names an experiment of that target, at every
    /// scale, and every experiment parses as a `litebench run` command line.
    #[test]
    fn every_target_is_self_consistent_and_parses() {
        for name in IMPLEMENTED {
            for scale in [Scale::Tiny, Scale::Default, Scale::Full] {
                let t = target(name, scale).expect("an implemented target");
                for f in &t.figures {
                    assert!(!f.claims.is_empty(), "{name}: {} has no claim", f.name);
                    for c in &f.claims {
                        for e in c.measure.experiments() {
                            assert!(
                                t.experiments.iter().any(|x| x.id == e),
                                "{name}: {}: no experiment {e}",
                                c.what
                            );
                        }
                    }
                }
                for e in &t.experiments {
                    crate::bench::settings::from_words(&e.args).unwrap_or_else(|err| panic!("{name}: {}: {err}", e.id));
                }
            }
        }
    }
}
