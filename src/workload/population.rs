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

use crate::engines::bulk::{Fill, RowSink};
use crate::engines::{Connection, EngineError, ErrorKind, Value};
use crate::model::params::Params;
use std::sync::atomic::{AtomicBool, Ordering};

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
}

/// Never set: for populations outside a run (unit tests, benches).
static NEVER: AtomicBool = AtomicBool::new(false);

impl<'a> Population<'a> {
    /// A population that is never asked to stop (unit tests, benches).
    pub fn plain(params: &'a Params, seed: u64) -> Population<'a> {
        Population {
            params,
            seed,
            stop: &NEVER,
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
            Ok(rows) => Ok(rows),
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

    /// A connection whose bulk path hands every row to a counter.
    struct Counting {
        rows: u64,
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
        fn run_values(
            &mut self,
            _stmt: StmtId,
            _params: &[Value<'_>],
            _out: &mut crate::engines::values::Values,
        ) -> Result<u64, EngineError> {
            Ok(0)
        }
        fn bulk_load(&mut self, _table: &str, _columns: &[&str], fill: Fill<'_>) -> Result<u64, EngineError> {
            let mut sink = Counting { rows: 0 };
            fill(&mut sink)?;
            self.rows += sink.rows;
            Ok(sink.rows)
        }
        fn query(&mut self, _sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn a_bulk_load_stops_within_a_few_hundred_rows_of_the_request() {
        let (params, stop) = (Params::default(), AtomicBool::new(false));
        let pop = Population {
            params: &params,
            seed: 1,
            stop: &stop,
        };
        let mut conn = Counting { rows: 0 };
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
        let mut conn = Counting { rows: 0 };
        let r = pop.bulk_load(&mut conn, "t", &["a"], &mut |_| {
            Err(crate::engines::bulk::input_error("t", "bad line".into()))
        });
        assert!(
            matches!(r, Err(PopulateError::Engine(ref e)) if e.kind == ErrorKind::Input),
            "{r:?}"
        );
        let mut conn = Counting { rows: 0 };
        let r = pop.bulk_load(&mut conn, "t", &["a"], &mut |sink| {
            (0..1000).try_for_each(|i| sink.row(&[Value::Int(i)]))
        });
        assert_eq!(r.unwrap(), 1000);
    }

    #[test]
    fn every_checks_once_per_stride() {
        let (params, stop) = (Params::default(), AtomicBool::new(true));
        let pop = Population {
            params: &params,
            seed: 1,
            stop: &stop,
        };
        assert!(pop.every(1).is_ok());
        assert!(matches!(pop.every(CHECK_EVERY), Err(PopulateError::Interrupted)));
        assert!(matches!(pop.check(), Err(PopulateError::Interrupted)));
    }
}
