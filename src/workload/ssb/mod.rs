//! `ssb`: the Star Schema Benchmark (O'Neil, O'Neil, Chen, Revilak: Star Schema Benchmark,
//! revision 3, 2009) as the VLDB'22 study of SQLite ran it (section 4.2): the five tables at a
//! scale factor, statistics gathered, every table scanned once to warm the cache, then the 13
//! queries, each timed as its own operation.
//!
//! - [`schema`]: the tables per dialect, with the artifact's keys;
//! - [`load`]: generation (or `.tbl` import) streamed into each engine's bulk path, `ANALYZE`;
//! - [`queries`]: Q1.1 to Q4.3;
//! - [`answer`]: each query's answer in a form every engine agrees on;
//! - [`empty`]: the warning about queries that answered nothing.
//!
//! The workload only reads, so the runner may give every trial the template itself instead of
//! a copy ([`Workload::read_only`]). Every query's answer is stored with the trial, and the
//! runner fails the run if two configurations answer a query differently. Every deviation from
//! the paper's setup is listed in docs/workloads.md.

pub mod answer;
pub mod bloom;
pub mod empty;
pub mod load;
pub mod queries;
pub mod schema;

use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::values::Values;
use crate::engines::Connection;
use crate::model::metric::Metric;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::model::record::QueryRecord;
use crate::workload::recorder::Recorder;
use litebench_ssbgen::{Dates, Scale, Table};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The workload.
pub struct Ssb;

/// Largest scale factor accepted (SF1000 is six billion `lineorder` rows).
pub const MAX_SCALE: u64 = 1000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "scale",
        kind: ParamKind::Positive { max: MAX_SCALE },
        default: "1",
        help: "scale factor: SF1 is about 6 million lineorder rows (VLDB'22: 1 on the Raspberry Pi, 5 on the server); fractions such as 0.01 for tests; not used with tbl_dir",
    },
    ParamSpec {
        name: "tbl_dir",
        kind: ParamKind::Path,
        default: "",
        help: "load ssb-dbgen's part.tbl, supplier.tbl, customer.tbl, date.tbl and lineorder.tbl from this directory instead of generating",
    },
    ParamSpec {
        name: "tbl_load",
        kind: ParamKind::Choice(&["native", "parsed"]),
        default: "native",
        help: "with tbl_dir: native (the engine reads the files itself where it can: DuckDB's COPY FROM; elsewhere as parsed) or parsed (litebench parses every line and pushes the rows through the engine's bulk path: DuckDB's appender)",
    },
    ParamSpec {
        name: "dates",
        kind: ParamKind::Choice(&litebench_ssbgen::Dates::WORDS),
        default: "whole",
        help: "the date table: whole (every day of 1992-1998, as the SSB specification has it, at every scale) or dbgen (ssb-dbgen's bytes, which below scale 1 keep only the first 2557 x scale days, so most queries answer nothing); not used with tbl_dir",
    },
    ParamSpec {
        name: "threads",
        kind: ParamKind::Count { min: 0, max: 256 },
        default: "0",
        help: "generator threads (0: one per core); the data is the same for any number",
    },
];

/// A run's settings, from validated parameters.
#[derive(Debug, Clone)]
pub struct Settings {
    pub scale: Scale,
    pub dates: Dates,
    pub tbl_dir: Option<PathBuf>,
    /// Whether an engine with a file reader of its own loads `tbl_dir`'s files with it.
    pub native: bool,
    pub threads: usize,
}

impl Settings {
    pub fn from_params(p: &Params) -> Result<Settings, String> {
        let raw = p.real("scale");
        let scale = Scale::new(raw).map_err(|e| format!("--param scale={raw}: {e}"))?;
        let dir = p.text("tbl_dir");
        let tbl_dir = (!dir.is_empty()).then(|| PathBuf::from(dir));
        if let Some(d) = &tbl_dir {
            if !d.is_dir() {
                return Err(format!(
                    "--param tbl_dir={dir}: no such directory; give the directory holding ssb-dbgen's .tbl files (litebench ssb-gen --out DIR writes them)"
                ));
            }
            for t in Table::all() {
                let f = d.join(t.file_name());
                if !f.is_file() {
                    return Err(format!(
                        "--param tbl_dir={dir}: {} is missing; the directory needs all five of part.tbl, supplier.tbl, customer.tbl, date.tbl and lineorder.tbl",
                        f.display()
                    ));
                }
            }
        }
        let dates = dates_of(p);
        let threads = match p.count("threads") {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n as usize,
        };
        Ok(Settings {
            scale,
            dates,
            tbl_dir,
            // Runs stored before the parameter existed parsed every file.
            native: p.choice("tbl_load") == "native",
            threads,
        })
    }

    /// Where the rows come from.
    pub fn source(&self) -> load::Source<'_> {
        match &self.tbl_dir {
            Some(d) => load::Source::Import {
                dir: d,
                native: self.native,
            },
            None => load::Source::Generate {
                scale: self.scale,
                dates: self.dates,
                threads: self.threads,
            },
        }
    }
}

/// The date table of a run's parameters; runs stored before the parameter existed generated
/// dbgen's.
pub fn dates_of(p: &Params) -> Dates {
    p.choice("dates").parse().unwrap_or(Dates::Dbgen)
}

fn settings(p: &Params) -> Result<Settings, WorkloadError> {
    Settings::from_params(p).map_err(|detail| WorkloadError::Verification {
        workload: "ssb".into(),
        detail,
    })
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "ssb",
    about: "Star Schema Benchmark: 13 analytical queries (joins of lineorder with four dimensions, aggregates) at a scale factor; time per query",
    source: "O'Neil et al., Star Schema Benchmark rev. 3 (2009); as run in Gaffney et al., SQLite: Past, Present, and Future, VLDB 2022, section 4.2",
    params: PARAMS,
    operations: &queries::NAMES,
    unit: "queries",
    metric: Metric::Time,
    read_only: true,
    // The artifact's settings (src/benchmarks/ssb/ssb_{sqlite3,duckdb}.cpp defaults and
    // the paper's text): SQLite a 1 GB page cache, DuckDB one thread and 1 GB.
    default_knobs: &[("cache_size", "-1000000"), ("threads", "1"), ("memory_limit", "1GB")],
    ..WorkloadKind::BASE
};

impl Workload for Ssb {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        Settings::from_params(p).map(|_| ())
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        self
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        let s = Settings::from_params(pop.params).map_err(|m| crate::engines::bulk::input_error("ssb", m))?;
        load::populate(conn, &s, pop)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        let stop = || trial.stop.load(Ordering::Relaxed);
        let stmts = queries::SQL
            .iter()
            .map(|q| conn.prepare(q))
            .collect::<Result<Vec<_>, _>>()?;
        // As the paper: one full scan of every table first, untimed, so the queries find the
        // data in the cache.
        for t in schema::LOAD_ORDER {
            let scan = conn.prepare(&format!("SELECT * FROM {}", t.name()))?;
            conn.run(scan, &[])?;
            if stop() {
                return Err(WorkloadError::Interrupted);
            }
        }
        let mut values = Values::default();
        let mut answers = Vec::with_capacity(stmts.len());
        for (op, stmt) in stmts.iter().enumerate() {
            if stop() {
                return Err(WorkloadError::Interrupted);
            }
            values.clear();
            rec.phase(op);
            let t0 = Instant::now();
            let rows = conn.run_values(*stmt, &[], &mut values)?;
            rec.record(op, t0.elapsed());
            rec.pause();
            answers.push(answer::answer(&values, rows));
        }
        for (op, answer) in answers.into_iter().enumerate() {
            let (plan, profile) = if trial.profile {
                let sql = queries::SQL[op];
                (conn.query_plan(sql)?, conn.loop_profile(sql)?)
            } else {
                (None, None)
            };
            if let Some(plan) = &plan {
                bloom::check(trial.knobs, queries::NAMES[op], plan)?;
            }
            rec.add_query(QueryRecord {
                op: queries::NAMES[op].to_string(),
                answer,
                plan,
                profile,
                ..Default::default()
            });
        }
        Ok(())
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        // Read-only: the generated tables still hold exactly what was loaded.
        let s = settings(p)?;
        if s.tbl_dir.is_some() {
            return Ok(());
        }
        for t in schema::LOAD_ORDER {
            let expected = litebench_ssbgen::row_count(t, s.scale, s.dates);
            let got = conn
                .query_value(&format!("SELECT count(*) FROM {}", t.name()))?
                .and_then(|v| v.parse::<u64>().ok());
            if got != Some(expected) {
                return Err(WorkloadError::Verification {
                    workload: "ssb".into(),
                    detail: format!(
                        "{} has {} rows after the trial, expected {expected}",
                        t.name(),
                        got.map_or("unreadable".to_string(), |n| n.to_string())
                    ),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::params::resolve;

    fn params(args: &[&str]) -> Params {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        resolve("ssb", PARAMS, &args).unwrap()
    }

    #[test]
    fn defaults_are_the_papers_scale_and_generation() {
        let s = Settings::from_params(&params(&[])).unwrap();
        assert!(s.tbl_dir.is_none());
        assert!(s.native);
        assert!(s.threads >= 1);
        assert_eq!(s.dates, Dates::Whole);
        assert_eq!(
            litebench_ssbgen::row_count(Table::Lineorder, s.scale, s.dates),
            6_001_173
        );
        let s = Settings::from_params(&params(&["scale=0.01", "dates=dbgen"])).unwrap();
        assert_eq!(litebench_ssbgen::row_count(Table::Date, s.scale, s.dates), 25);
        // A run stored before the parameter existed generated dbgen's table.
        let mut old = params(&[]);
        old.0.remove("dates");
        assert_eq!(dates_of(&old), Dates::Dbgen);
    }

    #[test]
    fn a_missing_tbl_dir_or_file_is_named() {
        let e = Settings::from_params(&params(&["tbl_dir=/nonexistent/ssb"])).unwrap_err();
        assert!(
            e.starts_with("--param tbl_dir=/nonexistent/ssb: no such directory"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("part.tbl"), "").unwrap();
        let arg = format!("tbl_dir={}", dir.path().display());
        let e = Settings::from_params(&params(&[&arg])).unwrap_err();
        assert!(e.contains("supplier.tbl is missing"), "{e}");
    }
}
