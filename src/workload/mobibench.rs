//! `mobibench`: Mobibench's SQLite test (ESOS Lab, Hanyang University): insert, update or delete
//! transactions on its table `tblMyList`.
//!
//! Source: the Mobibench Android app's benchmark engine, `MobiBench/jni/mobibench.c`
//! (`thread_main_db`), and its settings (`TabMain.set_default`, `MobiBenchExe.RunMobibench`),
//! github.com/ESOS-Lab/Mobibench; Jeong et al., "AndroStep: Android Storage Performance
//! Analysis Tool" (2013); APSys'17 Table 1. What the engine does, and what litebench does:
//!
//! - table `tblMyList (id INTEGER PRIMARY KEY autoincrement, Value TEXT not null,
//!   creation_date long)`; every value is one of two fixed 100-character strings;
//! - insert mode (`-d 0`): the table is dropped and created empty, then `count` times
//!   `INSERT INTO tblMyList(Value) VALUES('aaaaaaaaaabbbb...')`;
//! - update mode (`-d 1`): the table is first filled to `count` rows, then `count` times
//!   `UPDATE tblMyList SET Value = 'ffff...' WHERE id = <rand() % count + 1>`;
//! - delete mode (`-d 2`): the table is first filled to `count` rows, then `DELETE FROM
//!   tblMyList WHERE id=<i>` for i = 0 .. count-1 (ids start at 1, so the first delete finds
//!   nothing and row `count` survives: litebench keeps this);
//! - every statement is a separate `sqlite3_exec` in autocommit mode: one transaction each;
//! - the app's "SQLite" button runs insert, update and delete one after the other on the same
//!   database file (`mode=all` here).
//!
//! Journal mode, synchronous mode and page size are Mobibench options (`-j`, `-s`, and a fixed
//! `PRAGMA page_size = 4096`): here they are knobs, set by the `mobibench` presets.
//!
//! **Several clients** (`--clients`, `--rate`, ...; one mode, not `all`): the load driver runs
//! the same statements, one transaction each, from every client on the one database. Mobibench's
//! own `-t N` gives each thread a database file of its own (`test.db<N>`), which measures N
//! independent databases, not the contention people ask about; litebench's clients share the
//! table. Client `i` of `N` inserts its share of `count` rows; updates its share at ids drawn
//! uniformly from `1..=count` from its own seeded stream; deletes the ids `k` of Mobibench's
//! sequence `0..count` with `k % N == i`, in order (so id 0 still finds nothing, and row
//! `count` survives). A transaction that changes no row (id 0, or a row another client's
//! transaction already changed away) is completed and unsuccessful.

use super::load::{Budget, Client, Hooks, Streams, Transactions};
use super::suite;
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::dialect::Sql;
use crate::engines::{Connection, EngineError, StmtId, Value};
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The workload.
pub struct Mobibench;

/// Operation types: Mobibench's three database modes.
pub const OPS: &[&str] = &["insert", "update", "delete"];

/// Mobibench's `INSERT_STR`.
pub const INSERT_STR: &str =
    "aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeeeeffffffffffgggggggggghhhhhhhhhhiiiiiiiiiijjjjjjjjjj";
/// Mobibench's `UPDATE_STR`.
pub const UPDATE_STR: &str =
    "ffffffffffgggggggggghhhhhhhhhhiiiiiiiiiijjjjjjjjjjaaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeeee";

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "mode",
        kind: ParamKind::Choice(&["insert", "update", "delete", "all"]),
        default: "insert",
        help: "Mobibench's -d: insert, update or delete transactions; all = the app's SQLite button (insert, then update, then delete)",
    },
    ParamSpec {
        name: "count",
        kind: ParamKind::Count { min: 1, max: 1_000_000 },
        default: "100",
        help: "Mobibench's -n: transactions per mode (app default 100; the shell's is 10)",
    },
];

/// `CREATE TABLE tblMyList`: Mobibench's own statement on SQLite; the auto-increment key is
/// spelt differently elsewhere (DuckDB takes it from a sequence).
pub const CREATE_TABLE: Sql = crate::sql!(
    "CREATE TABLE tblMyList (id SERIAL PRIMARY KEY, Value TEXT NOT NULL, creation_date BIGINT)",
    Sqlite => "CREATE TABLE tblMyList (id INTEGER PRIMARY KEY autoincrement, Value TEXT not null, creation_date long)",
    Mysql => "CREATE TABLE tblMyList (id INTEGER PRIMARY KEY AUTO_INCREMENT, Value TEXT NOT NULL, creation_date BIGINT)",
    Duckdb => "CREATE SEQUENCE tblmylist_id; CREATE TABLE tblMyList (id INTEGER PRIMARY KEY DEFAULT nextval('tblmylist_id'), Value TEXT NOT NULL, creation_date BIGINT)",
);

const INSERT: &str = "INSERT INTO tblMyList(Value) VALUES(?)";
const UPDATE: &str = "UPDATE tblMyList SET Value = ? WHERE id = ?";
const DELETE: &str = "DELETE FROM tblMyList WHERE id=?";

/// Whether the template is pre-filled (update and delete modes fill the table to `count` rows
/// before measuring, as Mobibench's `init_db_for_update` does).
fn prefilled(mode: &str) -> bool {
    matches!(mode, "update" | "delete")
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "mobibench",
    about: "Mobibench's SQLite test: insert, update or delete transactions of one 100-byte row each on tblMyList",
    source: "Mobibench (ESOS Lab, Hanyang University), MobiBench/jni/mobibench.c thread_main_db and the app's defaults; APSys'17 Table 1",
    params: PARAMS,
    operations: OPS,
    ..WorkloadKind::BASE
};

impl Workload for Mobibench {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        conn.execute_batch(CREATE_TABLE.for_dialect(conn.dialect()))?;
        if !prefilled(pop.params.choice("mode")) {
            return Ok(0);
        }
        let count = pop.params.count("count");
        let ins = conn.prepare(INSERT)?;
        conn.execute_batch("BEGIN")?;
        for i in 0..count {
            pop.every(i)?;
            conn.run(ins, &[Value::Text(INSERT_STR)])?;
        }
        conn.execute_batch("COMMIT")?;
        Ok(count)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        super::load::drive(conn, self, trial, rec)
    }

    fn transactions(&self) -> Option<&dyn Transactions> {
        Some(self)
    }

    fn verify_after(
        &self,
        conn: &mut dyn Connection,
        p: &Params,
        load: &crate::model::load::LoadShape,
    ) -> Result<(), WorkloadError> {
        if load.is_default() {
            return self.verify(conn, p);
        }
        // Transactions that failed on a lock, or were skipped, leave rows behind or missing;
        // they are counted, not errors. The table holds between none and every row inserted,
        // and between the one survivor and every row before the deletes.
        let count = p.count("count");
        let (lo, hi) = match p.choice("mode") {
            "insert" => (0, count),
            "update" => (count, count),
            _ => (1, count),
        };
        suite::verify_rows_between(conn, KIND.name, "tblMyList", lo, hi)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let count = p.count("count");
        let expect = match p.choice("mode") {
            "insert" | "update" => count,
            // Ids 1 .. count-1 deleted; `count` survives.
            _ => 1,
        };
        suite::verify_count(conn, KIND.name, "tblMyList", expect)
    }
}

impl Streams for Mobibench {
    type Client<'c> = MobiClient<'c>;

    /// `count` transactions per mode (`mode=all`: three modes, one client only).
    fn budget(&self, p: &Params) -> Budget {
        let modes = if p.choice("mode") == "all" { 3 } else { 1 };
        Budget::Count(modes * p.count("count"))
    }

    /// One closed-loop client: each mode a phase, as Mobibench times it.
    fn phase_timed(&self, _p: &Params) -> bool {
        true
    }

    fn one_client_only(&self, p: &Params) -> Option<String> {
        (p.choice("mode") == "all").then(|| {
            "mode=all runs insert, update and delete one after the other, an ordered script for one client; give mode=insert, update or delete".into()
        })
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let op = mode_op(p.choice("mode"));
        MobiClient::new(conn, op..=op, seed, (i64::from(index), i64::from(clients)), p, None)
    }

    /// The one client timed per phase: its updates draw from the trial's seed, and every
    /// statement must change the rows Mobibench's does, or the trial fails.
    fn solo_client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        trial_seed: u64,
        p: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let modes = match p.choice("mode") {
            "all" => 0..=2,
            mode => mode_op(mode)..=mode_op(mode),
        };
        let lenient = conn.dialect().updates_count_changed_rows_only();
        MobiClient::new(conn, modes, trial_seed, (0, 1), p, Some(lenient))
    }
}

/// The operation type of one mode.
fn mode_op(mode: &str) -> usize {
    match mode {
        "insert" => 0,
        "update" => 1,
        _ => 2,
    }
}

/// One client's stream of Mobibench transactions under the load driver.
pub struct MobiClient<'c> {
    conn: &'c mut dyn Connection,
    /// The first mode's operation type, the statements of the modes run, one after the other,
    /// and the drawn transaction's operation type.
    first: usize,
    stmts: Vec<StmtId>,
    op: usize,
    rng: ChaCha8Rng,
    count: i64,
    /// Transactions drawn.
    drawn: i64,
    /// Deletes: this client's next id of Mobibench's sequence, and the number of clients.
    next_delete: i64,
    step: i64,
    /// The drawn transaction's id (updates and deletes), and the rows it changed.
    id: i64,
    changed: u64,
    /// The one client's row check (its value: an update of a row to its own value may count
    /// no change on this engine); none under several clients, where a transaction that
    /// changes no row is completed and unsuccessful.
    strict: Option<bool>,
}

impl<'c> MobiClient<'c> {
    fn new(
        conn: &'c mut dyn Connection,
        modes: std::ops::RangeInclusive<usize>,
        seed: u64,
        (index, clients): (i64, i64),
        p: &Params,
        strict: Option<bool>,
    ) -> Result<MobiClient<'c>, WorkloadError> {
        let first = *modes.start();
        let stmts = modes
            .map(|op| conn.prepare([INSERT, UPDATE, DELETE][op]))
            .collect::<Result<_, _>>()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(11);
        Ok(MobiClient {
            conn,
            first,
            stmts,
            op: first,
            rng,
            count: p.count("count") as i64,
            drawn: 0,
            next_delete: index,
            step: clients,
            id: 0,
            changed: 0,
            strict,
        })
    }
}

impl Client for MobiClient<'_> {
    fn draw(&mut self) -> usize {
        // Modes one after the other, `count` transactions each (one mode under the driver's
        // several clients, whose shares the driver counts).
        self.op = (self.first + (self.drawn / self.count) as usize).min(self.first + self.stmts.len() - 1);
        self.drawn += 1;
        self.id = match self.op {
            0 => 0,
            1 => self.rng.random_range(1..=self.count),
            _ => {
                let id = self.next_delete;
                self.next_delete += self.step;
                id
            }
        };
        self.op
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let stmt = self.stmts[self.op - self.first];
        self.changed = match self.op {
            0 => self.conn.run(stmt, &[Value::Text(INSERT_STR)])?,
            1 => self.conn.run(stmt, &[Value::Text(UPDATE_STR), Value::Int(self.id)])?,
            _ => self.conn.run(stmt, &[Value::Int(self.id)])?,
        };
        Ok(self.strict.is_some() || self.changed == 1)
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            check: self.strict.is_some(),
            ..Hooks::default()
        }
    }

    /// The one client's statements change what Mobibench's do: one row each, but none for the
    /// delete of id 0.
    fn check(&mut self) -> Result<(), WorkloadError> {
        let Some(lenient) = self.strict else {
            return Ok(());
        };
        let want = u64::from(self.op != 2 || self.id >= 1);
        let ok = match self.op {
            1 if lenient => self.changed <= want,
            _ => self.changed == want,
        };
        if ok {
            return Ok(());
        }
        Err(WorkloadError::Verification {
            workload: KIND.name.into(),
            detail: format!(
                "test {}: statement {} of step 1 (`{}`) returned {} rows, expected {want}",
                OPS[self.op],
                (self.drawn - 1) % self.count + 1,
                [INSERT, UPDATE, DELETE][self.op],
                self.changed
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sqlite::api::Api;
    use crate::engines::sqlite::conn::SqliteConn;
    use crate::model::params::resolve;
    use crate::workload::Population;
    use std::sync::atomic::AtomicBool;

    fn params(mode: &str, count: u64) -> Params {
        let args = [format!("mode={mode}"), format!("count={count}")];
        resolve("mobibench", PARAMS, &args).unwrap()
    }

    /// `mode=all`'s one client runs Mobibench's sequence: `count` inserts, `count` updates at
    /// ids drawn from the trial's seed (stream 11), then deletes of ids 0 .. count-1.
    #[test]
    fn the_one_client_runs_the_modes_in_order_from_the_trial_seed() {
        let p = params("all", 5);
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let stop = AtomicBool::new(false);
        Mobibench.populate(&mut conn, &Population::new(&p, 1, &stop)).unwrap();
        let mut c = Mobibench.solo_client(&mut conn, 9, &p).unwrap();
        let drawn: Vec<(usize, i64)> = (0..15).map(|_| (c.draw(), c.id)).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        rng.set_stream(11);
        let mut want: Vec<(usize, i64)> = vec![(0, 0); 5];
        want.extend((0..5).map(|_| (1, rng.random_range(1..=5))));
        want.extend((0..5).map(|i| (2, i)));
        assert_eq!(drawn, want);
        assert_eq!(Streams::budget(&Mobibench, &p), Budget::Count(15));
        assert_eq!(Streams::budget(&Mobibench, &params("delete", 5)), Budget::Count(5));
    }

    /// The one client's statements must change the rows Mobibench's do: the delete of id 0
    /// none (completed, successful), the others one; a statement that changes another number
    /// fails the trial with the statement named. Under several clients no check runs.
    #[test]
    fn the_one_client_checks_the_rows_each_statement_changes() {
        let p = params("delete", 3);
        let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
        let stop = AtomicBool::new(false);
        Mobibench.populate(&mut conn, &Population::new(&p, 1, &stop)).unwrap();
        conn.execute_batch("DELETE FROM tblMyList WHERE id = 2").unwrap();
        let mut c = Mobibench.solo_client(&mut conn, 1, &p).unwrap();
        assert!(c.hooks().check);
        for _ in 0..2 {
            c.draw();
            assert!(c.execute().unwrap());
            c.check().unwrap();
        }
        c.draw();
        assert!(c.execute().unwrap());
        let e = c.check().unwrap_err().to_string();
        assert!(
            e.contains(
                "test delete: statement 3 of step 1 (`DELETE FROM tblMyList WHERE id=?`) returned 0 rows, expected 1"
            ),
            "{e}"
        );
        drop(c);
        let c = Mobibench.client(&mut conn, 0, 2, 1, &p).unwrap();
        assert!(!c.hooks().check);
    }
}
