//! What a workload is given to fill a template, and how a population stops when asked.
//!
//! Populating is not timed, but it can take minutes (`crud --param rows=20000000`, SSB at scale
//! 10), and Ctrl-C, SIGTERM or a closed terminal must end the run within about a second in every
//! phase. Trials get the run's stop flag through [`Trial::stop`](super::Trial); a population gets
//! it here, with the parameters and the seed, and checks it every [`CHECK_EVERY`] rows: a load
//! of an `AtomicBool` per few hundred rows costs nothing measurable. Bulk loads go through
//! [`Population::bulk_load`], which checks between the rows the workload pushes whatever the
//! engine's bulk path is. A population that stops returns [`PopulateError::Interrupted`]; the
//! runner then drops the half-filled template and ends the run `interrupted`.
//!
//! A population also remembers which way its bulk loads went ([`Population::load_path`]): the
//! engine's bulk path, or its own file reader where [`Population::load_file`] could use one.
//! The footprint shows it, because the load rate it reports depends on it.

use crate::engines::bulk::{DelimitedFile, Fill, RowSink};
use crate::engines::{Connection, EngineError, ErrorKind, Value};
use crate::model::params::Params;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Rows between two checks of the stop flag: a few hundred rows take well under a millisecond
/// on every engine, even row by row through a server's protocol.
pub const CHECK_EVERY: u64 = 256;

/// Why a population did not finish.
#[derive(Debug, thiserror::Error)]
pub enum PopulateError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The run was asked to stop (Ctrl-C, SIGTERM, SIGHUP).
    #[error("interrupted")]
    Interrupted,
}

impl From<PopulateError> for super::WorkloadError {
    fn from(e: PopulateError) -> Self {
        match e {
            PopulateError::Engine(e) => super::WorkloadError::Engine(e),
            PopulateError::Interrupted => super::WorkloadError::Interrupted,
        }
    }
}

/// What a workload's [`populate`](super::Workload::populate) gets besides its connection.
pub struct Population<'a> {
    pub params: &'a Params,
    /// Seed of the template's data.
    pub seed: u64,
    /// Set by Ctrl-C (and SIGTERM, SIGHUP): stop with [`PopulateError::Interrupted`].
    pub stop: &'a AtomicBool,
    /// The configuration's knobs: the create-stage ones a workload builds its schema with
    /// (`fts_tokenizer`), each value of which gets a template of its own. Empty outside a run.
    pub knobs: crate::model::knob::KnobSet,
    /// The ways the bulk loads went, in order, each once.
    paths: Mutex<Vec<String>>,
}

/// Never set: for populations outside a run (unit tests, benches).
static NEVER: AtomicBool = AtomicBool::new(false);

impl<'a> Population<'a> {
    /// A population that stops once `stop` is set.
    pub fn new(params: &'a Params, seed: u64, stop: &'a AtomicBool) -> Population<'a> {
        Population {
            params,
            seed,
            stop,
            knobs: crate::model::knob::KnobSet::default(),
            paths: Mutex::new(Vec::new()),
        }
    }

    /// A population that is never asked to stop (unit tests, benches).
    pub fn plain(params: &'a Params, seed: u64) -> Population<'a> {
        Population::new(params, seed, &NEVER)
    }

    /// How the bulk loads filled the template, for the footprint: each way once, in the order
    /// first used, joined by `, ` (`appender`, `COPY FROM file (native)`); `None` where the
    /// workload loaded no table through [`bulk_load`](Self::bulk_load) or
    /// [`load_file`](Self::load_file).
    pub fn load_path(&self) -> Option<String> {
        let paths = self.paths.lock().unwrap_or_else(|e| e.into_inner());
        (!paths.is_empty()).then(|| paths.join(", "))
    }

    /// Records `path` as a way rows went into the template: the bulk loads note theirs; a
    /// workload that fills it otherwise (a user's `init=` SQL) names its own.
    pub fn note(&self, path: &str) {
        let mut paths = self.paths.lock().unwrap_or_else(|e| e.into_inner());
        if !paths.iter().any(|p| p == path) {
            paths.push(path.to_string());
        }
    }

    /// Loads `file` into `table` with the engine's own file reader where it has one
    /// ([`Connection::load_file`]); elsewhere, and where the reader refuses the file, through
    /// [`bulk_load`](Self::bulk_load) with the rows `fill` parses from it. After a refusal the
    /// fallback finds the malformed line and names it (bad input, exit code 2), or loads what
    /// litebench's parser reads, the footprint saying so. Returns the rows loaded.
    pub fn load_file(
        &self,
        conn: &mut dyn Connection,
        table: &str,
        columns: &[&str],
        file: &DelimitedFile<'_>,
        fill: Fill<'_>,
    ) -> Result<u64, PopulateError> {
        self.check()?;
        match conn.load_file(table, columns, file) {
            Ok(Some(loaded)) => {
                self.note(loaded.path);
                Ok(loaded.rows)
            }
            Ok(None) => self.bulk_load(conn, table, columns, fill),
            Err(_) if self.stop.load(Ordering::Relaxed) => Err(PopulateError::Interrupted),
            Err(_) => {
                let fallback = format!("{} (the engine's file reader refused {table})", conn.bulk_path());
                let rows = self.bulk_load_as(conn, table, columns, fill, None)?;
                self.note(&fallback);
                Ok(rows)
            }
        }
    }

    /// [`PopulateError::Interrupted`] once the run has been asked to stop.
    pub fn check(&self) -> Result<(), PopulateError> {
        if self.stop.load(Ordering::Relaxed) {
            Err(PopulateError::Interrupted)
        } else {
            Ok(())
        }
    }

    /// [`check`](Self::check) on every [`CHECK_EVERY`]th value of a row counter `i`: call it
    /// once per row of a loop.
    pub fn every(&self, i: u64) -> Result<(), PopulateError> {
        if i.is_multiple_of(CHECK_EVERY) {
            self.check()
        } else {
            Ok(())
        }
    }

    /// [`Connection::bulk_load`] that stops between rows when the run is asked to stop (the
    /// engine rolls back or aborts what it loaded); returns the rows loaded.
    pub fn bulk_load(
        &self,
        conn: &mut dyn Connection,
        table: &str,
        columns: &[&str],
        fill: Fill<'_>,
    ) -> Result<u64, PopulateError> {
        let path = conn.bulk_path();
        self.bulk_load_as(conn, table, columns, fill, Some(path))
    }

    /// [`bulk_load`](Self::bulk_load), noting `path` (if any) once it succeeded.
    fn bulk_load_as(
        &self,
        conn: &mut dyn Connection,
        table: &str,
        columns: &[&str],
        fill: Fill<'_>,
        path: Option<&str>,
    ) -> Result<u64, PopulateError> {
        self.check()?;
        let mut stopped = false;
        let loaded = conn.bulk_load(table, columns, &mut |sink: &mut dyn RowSink| {
            let mut watched = Watched {
                inner: sink,
                stop: self.stop,
                rows: 0,
                stopped: false,
            };
            let filled = fill(&mut watched);
            stopped = watched.stopped;
            filled
        });
        match loaded {
            Err(_) if stopped => Err(PopulateError::Interrupted),
            Err(e) => Err(e.into()),
            Ok(rows) => {
                if let Some(p) = path {
                    self.note(p);
                }
                Ok(rows)
            }
        }
    }
}

/// A sink that refuses the next row once the stop flag is set, so the workload's fill returns
/// and the engine abandons the load.
struct Watched<'s, 'f> {
    inner: &'s mut dyn RowSink,
    stop: &'f AtomicBool,
    rows: u64,
    stopped: bool,
}

impl RowSink for Watched<'_, '_> {
    fn row(&mut self, values: &[Value<'_>]) -> Result<(), EngineError> {
        self.rows += 1;
        if self.rows.is_multiple_of(CHECK_EVERY) && self.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return Err(EngineError {
                busy_cause: None,
                engine: "litebench".into(),
                kind: ErrorKind::Other,
                code: None,
                message: "interrupted".into(),
                context: "populating".into(),
            });
        }
        self.inner.row(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::{Dialect, StmtId};

    /// A connection whose bulk path hands every row to a counter, and whose file reader (if
    /// `reader`) loads 7 rows or (`refuse`) fails.
    struct Counting {
        rows: u64,
        reader: bool,
        refuse: bool,
    }

    impl Counting {
        fn new() -> Counting {
            Counting {
                rows: 0,
                reader: false,
                refuse: false,
            }
        }
    }

    impl RowSink for Counting {
        fn row(&mut self, _values: &[Value<'_>]) -> Result<(), EngineError> {
            self.rows += 1;
            Ok(())
        }
    }

    impl Connection for Counting {
        fn dialect(&self) -> Dialect {
            Dialect::Sqlite
        }
        fn execute_batch(&mut self, _sql: &str) -> Result<(), EngineError> {
            Ok(())
        }
        fn prepare(&mut self, _sql: &str) -> Result<StmtId, EngineError> {
            Ok(StmtId(0))
        }
        fn run(&mut self, _stmt: StmtId, _params: &[Value<'_>]) -> Result<u64, EngineError> {
            Ok(0)
        }
        fn column_names(&mut self, _stmt: StmtId) -> Result<Vec<String>, EngineError> {
            Ok(Vec::new())
        }
        fn run_values(
            &mut self,
            _stmt: StmtId,
            _params: &[Value<'_>],
            _out: &mut crate::engines::values::Values,
        ) -> Result<u64, EngineError> {
            Ok(0)
        }
        fn bulk_load(&mut self, _table: &str, _columns: &[&str], fill: Fill<'_>) -> Result<u64, EngineError> {
            let mut sink = Counting::new();
            fill(&mut sink)?;
            self.rows += sink.rows;
            Ok(sink.rows)
        }
        fn bulk_path(&self) -> &'static str {
            "counting"
        }
        fn load_file(
            &mut self,
            _table: &str,
            _columns: &[&str],
            _file: &DelimitedFile<'_>,
        ) -> Result<Option<crate::engines::bulk::FileLoad>, EngineError> {
            if self.refuse {
                return Err(crate::engines::bulk::input_error("t", "refused".into()));
            }
            Ok(self.reader.then(|| {
                self.rows += 7;
                crate::engines::bulk::FileLoad {
                    rows: 7,
                    path: "reader",
                }
            }))
        }
        fn query(&mut self, _sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn a_file_goes_the_engines_way_and_the_population_says_which() {
        let params = Params::default();
        let file = DelimitedFile {
            path: std::path::Path::new("t.tbl"),
            delimiter: b'|',
        };
        let load = |conn: &mut Counting, pop: &Population<'_>| {
            pop.load_file(conn, "t", &["a"], &file, &mut |sink| {
                (0..3).try_for_each(|i| sink.row(&[Value::Int(i)]))
            })
            .unwrap()
        };
        // No reader: the rows are parsed and pushed through the bulk path.
        let pop = Population::plain(&params, 1);
        assert_eq!(pop.load_path(), None);
        assert_eq!(load(&mut Counting::new(), &pop), 3);
        assert_eq!(pop.load_path().as_deref(), Some("counting"));
        // A reader: nothing is parsed.
        let pop = Population::plain(&params, 1);
        let mut conn = Counting {
            reader: true,
            ..Counting::new()
        };
        assert_eq!(load(&mut conn, &pop), 7);
        assert_eq!(load(&mut conn, &pop), 7);
        assert_eq!(pop.load_path().as_deref(), Some("reader"));
        // A reader that refuses the file: the bulk path loads it, and the footprint says why.
        let mut conn = Counting {
            refuse: true,
            ..Counting::new()
        };
        assert_eq!(load(&mut conn, &pop), 3);
        assert_eq!(
            pop.load_path().as_deref(),
            Some("reader, counting (the engine's file reader refused t)")
        );
    }

    #[test]
    fn a_bulk_load_stops_within_a_few_hundred_rows_of_the_request() {
        let (params, stop) = (Params::default(), AtomicBool::new(false));
        let pop = Population::new(&params, 1, &stop);
        let mut conn = Counting::new();
        let mut pushed = 0u64;
        let r = pop.bulk_load(&mut conn, "t", &["a"], &mut |sink| {
            for i in 0..1_000_000 {
                if i == 10_000 {
                    stop.store(true, Ordering::Relaxed);
                }
                sink.row(&[Value::Int(i)])?;
                pushed += 1;
            }
            Ok(())
        });
        assert!(matches!(r, Err(PopulateError::Interrupted)), "{r:?}");
        assert!((10_000..10_000 + CHECK_EVERY).contains(&pushed), "{pushed} rows pushed");
        assert_eq!(conn.rows, 0, "the engine was told the load failed");
    }

    #[test]
    fn an_error_of_the_load_itself_stays_an_engine_error() {
        let params = Params::default();
        let pop = Population::plain(&params, 1);
        let mut conn = Counting::new();
        let r = pop.bulk_load(&mut conn, "t", &["a"], &mut |_| {
            Err(crate::engines::bulk::input_error("t", "bad line".into()))
        });
        assert!(
            matches!(r, Err(PopulateError::Engine(ref e)) if e.kind == ErrorKind::Input),
            "{r:?}"
        );
        let mut conn = Counting::new();
        let r = pop.bulk_load(&mut conn, "t", &["a"], &mut |sink| {
            (0..1000).try_for_each(|i| sink.row(&[Value::Int(i)]))
        });
        assert_eq!(r.unwrap(), 1000);
    }

    #[test]
    fn every_checks_once_per_stride() {
        let (params, stop) = (Params::default(), AtomicBool::new(true));
        let pop = Population::new(&params, 1, &stop);
        assert!(pop.every(1).is_ok());
        assert!(matches!(pop.every(CHECK_EVERY), Err(PopulateError::Interrupted)));
        assert!(matches!(pop.check(), Err(PopulateError::Interrupted)));
    }
}
