//! `speedtest1`: the benchmark SQLite's developers time every change with
//! (`test/speedtest1.c`), its `main`, `cte`, `fp` and `orm` test sets.
//!
//! Source: `test/speedtest1.c` at SQLite commit 138951dc (trunk); docs/workloads.md
//! lists what is and is not the same. Each test is numbered and titled as speedtest1 prints it
//! ("100 - 50000 INSERTs into table with no index" at its default `--size 100`), binds the
//! values speedtest1 binds (its own generator, restarted at every test, and its number names:
//! [`rand`]), and runs its statements as speedtest1 does: `speedtest1_exec`'s through
//! `execute_batch`, `speedtest1_prepare`'s prepared inside the test and run once per row.
//!
//! A test is one operation type and one timed region: its phase covers the preparation, every
//! statement and its `BEGIN`/`COMMIT`, as speedtest1's clock does; each statement other than
//! `BEGIN` and `COMMIT` counts as one operation. What the prepared queries return is kept and
//! hashed after each test, outside its time ([`super::result_hash`]), like `speedtest1
//! --verify`, so two builds can be shown to have done the same work. A test's values are
//! generated just before its phase, so memory holds one test's rows at a time.
//!
//! The optional sets need SQL that old releases lack; the release is read
//! (`sqlite_version()`) when the template is made, before anything is measured, and a set it
//! cannot run is refused in one line ([`set_refusal`]).

pub mod cte;
pub mod fp;
pub mod main;
pub mod orm;
pub mod rand;
pub mod speed_check;

use super::result_hash::{has_order_by, ResultHash, ResultLog};
use super::suite;
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::bulk::input_error;
use crate::engines::{Connection, Dialect, Value};
use crate::model::op::OpType;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use std::sync::atomic::Ordering;
use std::sync::OnceLock;

/// One argument a prepared statement is bound with.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Int(i64),
    Real(f64),
    Text(String),
}

impl Arg {
    fn value(&self) -> Value<'_> {
        match self {
            Arg::Int(v) => Value::Int(*v),
            Arg::Real(v) => Value::Real(*v),
            Arg::Text(s) => Value::Text(s),
        }
    }
}

/// One step of a test.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `BEGIN` or `COMMIT`: timed with the test, not an operation of its own.
    Tx(&'static str),
    /// A statement speedtest1 runs with `speedtest1_exec` (`sqlite3_exec`, its rows unread):
    /// one operation.
    Exec(String),
    /// A statement speedtest1 prepares in the test (`speedtest1_prepare`), then runs once per
    /// row of arguments (`speedtest1_run`): one operation per row.
    Run { sql: String, rows: Vec<Vec<Arg>> },
    /// [`Step::Run`] of a statement with many parameters that take a few values of each row:
    /// parameter `i` is bound with `row[spread[i]]` (the orm set's 120).
    RunSpread {
        sql: String,
        rows: Vec<Vec<Arg>>,
        spread: Vec<usize>,
    },
}

/// What a test's statements depend on.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// speedtest1's `--size`.
    pub size: u32,
    /// The library's release, for what speedtest1 itself decides by `sqlite3_libversion_number()`.
    pub version: (u32, u32, u32),
}

/// One numbered test of a set.
pub struct TestDef {
    pub number: u32,
    /// The title speedtest1 prints at a size.
    pub title: fn(u32) -> String,
    /// The statements and their values.
    pub steps: fn(&Ctx) -> Vec<Step>,
}

impl TestDef {
    /// The test's name as speedtest1 prints it at `size`: "100 - 500 INSERTs into ...".
    pub fn name(&self, size: u32) -> String {
        format!("{} - {}", self.number, (self.title)(size))
    }
}

/// speedtest1's default `--size`; operation types are named by their titles at it.
pub const DEFAULT_SIZE: u32 = 100;

/// A test set: its name, its tests and the first release that has its SQL.
pub struct TestSet {
    pub name: &'static str,
    pub tests: &'static [TestDef],
    /// The first release that runs it, and what the older ones lack, or `None`: every release
    /// litebench loads.
    pub needs: Option<((u32, u32, u32), &'static str)>,
}

/// The sets, as `set=` names them.
pub static SETS: &[TestSet] = &[
    TestSet {
        name: "main",
        tests: main::TESTS,
        needs: None,
    },
    TestSet {
        name: "cte",
        tests: cte::TESTS,
        needs: Some(((3, 8, 3), "no WITH (common table expressions arrived in 3.8.3)")),
    },
    TestSet {
        name: "fp",
        tests: fp::TESTS,
        needs: Some(((3, 8, 3), "no WITH or printf() (both arrived in 3.8.3)")),
    },
    TestSet {
        name: "orm",
        tests: orm::TESTS,
        needs: None,
    },
];

fn set_of(p: &Params) -> &'static TestSet {
    SETS.iter().find(|s| s.name == p.choice("set")).unwrap_or(&SETS[0])
}

fn size_of(p: &Params) -> u32 {
    p.count("size").clamp(1, u64::from(MAX_SIZE)) as u32
}

/// The largest `size`: half a million rows in the main set's fills, 700,000 in its REPLACEs.
const MAX_SIZE: u32 = 1000;

/// `size` and `set`.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "size",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_SIZE as u64,
        },
        default: "100",
        help: "speedtest1's --size: every count scales with it (main: 500 x size rows)",
    },
    ParamSpec {
        name: "set",
        kind: ParamKind::Choice(&["main", "cte", "fp", "orm"]),
        default: "main",
        help: "speedtest1's --testset: main and orm (any release), cte and fp (3.8.3 and later)",
    },
    ParamSpec {
        name: "method",
        kind: ParamKind::Choice(&["litebench", "speed-check"]),
        default: "litebench",
        help: "litebench: each test's statement prepared once, as an application runs; speed-check: as SQLite's tool/speed-check.sh runs speedtest1 (--reprepare --shrink-memory, every column read as text), SQLite's library engines only",
    },
];

/// Whether the run is speed-check's (`method=speed-check`).
fn speed_check_of(p: &Params) -> bool {
    p.choice("method") == "speed-check"
}

/// The main set's operation types: its titles at the default size (checked against the tests
/// by `operations_are_the_main_sets_titles`).
pub const OPS: &[&str] = &[
    "100 - 50000 INSERTs into table with no index",
    "110 - 50000 ordered INSERTS with one index/PK",
    "120 - 50000 unordered INSERTS with one index/PK",
    "130 - 25 SELECTS, numeric BETWEEN, unindexed",
    "140 - 10 SELECTS, LIKE, unindexed",
    "142 - 10 SELECTS w/ORDER BY, unindexed",
    "145 - 10 SELECTS w/ORDER BY and LIMIT, unindexed",
    "150 - CREATE INDEX five times",
    "160 - 10000 SELECTS, numeric BETWEEN, indexed",
    "161 - 10000 SELECTS, numeric BETWEEN, PK",
    "170 - 10000 SELECTS, text BETWEEN, indexed",
    "180 - 50000 INSERTS with three indexes",
    "190 - DELETE and REFILL one table",
    "200 - VACUUM",
    "210 - ALTER TABLE ADD COLUMN, and query",
    "230 - 10000 UPDATES, numeric BETWEEN, indexed",
    "240 - 50000 UPDATES of individual rows",
    "250 - One big UPDATE of the whole 50000-row table",
    "260 - Query added column after filling",
    "270 - 10000 DELETEs, numeric BETWEEN, indexed",
    "280 - 50000 DELETEs of individual rows",
    "290 - Refill two 50000-row tables using REPLACE",
    "300 - Refill a 50000-row table using (b&1)==(a&1)",
    "310 - 10000 four-ways joins",
    "320 - subquery in result set",
    "400 - 70000 REPLACE ops on an IPK",
    "410 - 70000 SELECTS on an IPK",
    "500 - 70000 REPLACE on TEXT PK",
    "510 - 70000 SELECTS on a TEXT PK",
    "520 - 70000 SELECT DISTINCT",
    "980 - PRAGMA integrity_check",
    "990 - ANALYZE",
];

/// A set's operation types: its tests' names at the default size.
fn operations(set: &TestSet) -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    let all = NAMES.get_or_init(|| {
        SETS.iter()
            .map(|s| {
                s.tests
                    .iter()
                    .map(|t| &*Box::leak(t.name(DEFAULT_SIZE).into_boxed_str()))
                    .collect()
            })
            .collect()
    });
    let i = SETS.iter().position(|s| s.name == set.name).unwrap_or(0);
    &all[i]
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "speedtest1",
    about: "SQLite's own speedtest1 (test/speedtest1.c): numbered tests scaled by size, as SQLite's developers time each change; set=main|cte|fp|orm",
    source: "SQLite, test/speedtest1.c (trunk commit 138951dc): testset_main, testset_cte, testset_fp, testset_orm",
    params: PARAMS,
    operations: OPS,
    ..suite::SUITE
};

/// A release as `(major, minor, patch)` from `sqlite_version()`'s text.
pub fn parse_version(v: &str) -> Option<(u32, u32, u32)> {
    let mut parts = v.trim().split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next().flatten().unwrap_or(0)))
}

/// The one line refusing `set` on release `version` (text as the library gives it), if it
/// lacks the set's SQL.
pub fn set_refusal(set: &TestSet, version: &str) -> Option<String> {
    let ((a, b, c), lacks) = set.needs?;
    let have = parse_version(version)?;
    (have < (a, b, c)).then(|| {
        format!(
            "--param set={}: SQLite {version} has {lacks}; run it on sqlite@{a}.{b}.{c} or later",
            set.name
        )
    })
}

/// The library's release.
fn version_of(conn: &mut dyn Connection) -> Result<String, crate::engines::EngineError> {
    Ok(conn.query_value("SELECT sqlite_version()")?.unwrap_or_default())
}

/// Whether a statement returns rows (its results are hashed).
fn is_query(sql: &str) -> bool {
    let word = sql
        .trim_start()
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("");
    word.eq_ignore_ascii_case("SELECT") || word.eq_ignore_ascii_case("WITH")
}

/// The workload.
pub struct Speedtest1;

impl Workload for Speedtest1 {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn operation_types(&self, p: &Params, _dialect: Option<Dialect>) -> Vec<OpType> {
        OpType::whole(operations(set_of(p)))
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        self
    }

    /// speedtest1 starts from an empty database; this reads the release and refuses a set it
    /// cannot run, before anything is measured.
    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        if conn.dialect() != Dialect::Sqlite {
            return Err(input_error(
                "speedtest1",
                "speedtest1 runs SQLite's own SQL (REPLACE, VACUUM, PRAGMA integrity_check); run it on a SQLite engine (--engine sqlite or sqlite@VERSION)".into(),
            )
            .into());
        }
        let version = version_of(conn)?;
        if let Some(line) = set_refusal(set_of(pop.params), &version) {
            return Err(input_error("speedtest1", line).into());
        }
        if speed_check_of(pop.params) {
            speed_check::sqlite(conn)?;
        }
        Ok(0)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        let set = set_of(trial.params);
        let version = version_of(conn)?;
        if let Some(line) = set_refusal(set, &version) {
            return Err(input_error("speedtest1", line).into());
        }
        let ctx = Ctx {
            size: size_of(trial.params),
            version: parse_version(&version).unwrap_or((0, 0, 0)),
        };
        // The one pragma speedtest1 always sets (`--threads`, default 0: no sorter threads);
        // releases before 3.8.7 ignore it.
        conn.execute_batch("PRAGMA threads=0")?;
        let speed_check = speed_check_of(trial.params);
        if speed_check {
            speed_check::sqlite(conn)?;
        }
        let mut log = ResultLog::default();
        let mut hash = ResultHash::new();
        for (op, test) in set.tests.iter().enumerate() {
            rec.pause();
            let steps = (test.steps)(&ctx);
            log.clear();
            rec.phase(op);
            rec.mark();
            let mut timed = Timed {
                op,
                trial,
                rec: &mut *rec,
                log: &mut log,
            };
            for step in &steps {
                if speed_check {
                    speed_check::run_step(speed_check::sqlite(conn)?, step, &mut timed)?;
                } else {
                    run_step(conn, step, &mut timed)?;
                }
            }
            rec.pause();
            hash.add(&log);
        }
        if hash.results() > 0 {
            rec.set_result_hash(hash.finish());
        }
        Ok(())
    }

    /// The tables the set leaves hold the rows speedtest1 leaves: z1 keeps every row of test
    /// 100 (main) or 100 (fp); the cte set leaves nothing.
    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let size = u64::from(size_of(p));
        match set_of(p).name {
            "main" => suite::verify_count(conn, KIND.name, "z1", 500 * size),
            "fp" => suite::verify_count(conn, KIND.name, "z1", 5000 * size),
            "orm" => suite::verify_count(conn, KIND.name, "ZLOOKSLIKECOREDATA", 250 * size),
            _ => Ok(()),
        }
    }
}

/// What the statements of test `op` report to while its phase is open.
struct Timed<'r, 't> {
    op: usize,
    trial: &'r Trial<'t>,
    rec: &'r mut Recorder,
    log: &'r mut ResultLog,
}

impl Timed<'_, '_> {
    fn check_stop(&self) -> Result<(), WorkloadError> {
        if self.trial.stop.load(Ordering::Relaxed) {
            return Err(WorkloadError::Interrupted);
        }
        Ok(())
    }
}

/// Runs one step inside its test's phase.
fn run_step(conn: &mut dyn Connection, step: &Step, t: &mut Timed<'_, '_>) -> Result<(), WorkloadError> {
    match step {
        Step::Tx(sql) => {
            conn.execute_batch(sql)?;
            t.rec.mark();
        }
        Step::Exec(sql) => {
            t.check_stop()?;
            conn.execute_batch(sql)?;
            t.rec.lap(t.op);
        }
        Step::Run { sql, rows } => run_rows(conn, sql, rows, None, t)?,
        Step::RunSpread { sql, rows, spread } => run_rows(conn, sql, rows, Some(spread), t)?,
    }
    Ok(())
}

/// Prepares `sql` and runs it once per row, each run one operation; a query's rows go to the
/// log. With `spread`, parameter `i` is bound with `row[spread[i]]`.
fn run_rows(
    conn: &mut dyn Connection,
    sql: &str,
    rows: &[Vec<Arg>],
    spread: Option<&[usize]>,
    t: &mut Timed<'_, '_>,
) -> Result<(), WorkloadError> {
    let stmt = conn.prepare(sql)?;
    let (query, ordered) = (is_query(sql), has_order_by(sql));
    let width = spread.map_or_else(|| rows.first().map_or(0, Vec::len), <[usize]>::len);
    let mut vals: Vec<Value<'_>> = Vec::with_capacity(width);
    t.rec.mark();
    for row in rows {
        t.check_stop()?;
        vals.clear();
        match spread {
            Some(spread) => vals.extend(spread.iter().map(|&k| row[k].value())),
            None => vals.extend(row.iter().map(Arg::value)),
        }
        if query {
            t.log.run(conn, stmt, &vals, ordered)?;
        } else {
            conn.run(stmt, &vals)?;
        }
        t.rec.lap(t.op);
    }
    Ok(())
}

/// What speedtest1 adds to its reports: each test's title at the run's size.
impl super::WorkloadReport for Speedtest1 {
    /// The title at the run's size: "100 - 500 INSERTs into table with no index" at size 1.
    fn operation_label(&self, op: &str, p: &Params) -> String {
        let number = op.split(' ').next().and_then(|n| n.parse::<u32>().ok());
        set_of(p)
            .tests
            .iter()
            .find(|t| Some(t.number) == number)
            .map_or_else(|| op.to_string(), |t| t.name(size_of(p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::WorkloadReport;

    #[test]
    fn operations_are_the_main_sets_titles() {
        let names: Vec<String> = main::TESTS.iter().map(|t| t.name(DEFAULT_SIZE)).collect();
        assert_eq!(names, OPS);
        assert_eq!(operations(&SETS[0]), OPS);
        assert_eq!(operations(&SETS[2])[0], "100 - Fill a table with 1000000 FP values");
    }

    #[test]
    fn labels_give_the_counts_at_the_runs_size() {
        let p = crate::model::params::resolve("speedtest1", PARAMS, &["size=1".into()]).unwrap();
        assert_eq!(
            Speedtest1.operation_label(OPS[0], &p),
            "100 - 500 INSERTs into table with no index"
        );
        assert_eq!(Speedtest1.operation_label("no such test", &p), "no such test");
    }

    #[test]
    fn sets_are_refused_on_releases_without_their_sql() {
        let (main, cte, fp, orm) = (&SETS[0], &SETS[1], &SETS[2], &SETS[3]);
        assert_eq!(
            set_refusal(cte, "3.7.8").as_deref(),
            Some("--param set=cte: SQLite 3.7.8 has no WITH (common table expressions arrived in 3.8.3); run it on sqlite@3.8.3 or later")
        );
        assert!(set_refusal(fp, "3.8.2").is_some());
        assert_eq!(set_refusal(fp, "3.8.3"), None);
        assert_eq!(set_refusal(cte, "3.54.1"), None);
        assert_eq!(set_refusal(main, "3.7.8"), None);
        assert_eq!(set_refusal(orm, "3.7.8"), None, "orm's SQL is in every release");
        assert_eq!(parse_version("3.8"), Some((3, 8, 0)));
        assert_eq!(parse_version("turso"), None);
    }

    #[test]
    fn queries_are_told_from_writes() {
        assert!(is_query("SELECT b FROM t5 WHERE a=?1"));
        assert!(is_query("WITH RECURSIVE x AS (...) SELECT 1"));
        assert!(!is_query("REPLACE INTO t5 VALUES(?1,?2)"));
        assert!(!is_query("INSERT INTO z1 SELECT * FROM t4"));
    }
}
