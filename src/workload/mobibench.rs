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

use super::load::{Budget, Client, Streams, Transactions};
use super::suite::{self, Args, Check, Script, Slot, Step, Test};
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

/// The trial's script.
pub fn script(mode: &str, count: u64, seed: u64) -> Script {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(11);
    let mut s = Script::default();
    let n = count as i64;
    if matches!(mode, "insert" | "all") {
        let stmt = s.stmt(INSERT);
        let text = s.text(INSERT_STR);
        s.tests.push(Test {
            op: 0,
            tx: false,
            steps: vec![Step::Run {
                stmt,
                bind: &[Slot::Text],
                rows: vec![Args::with_text(0, 0, text, 1); count as usize],
                check: Check::Changes,
            }],
        });
    }
    if matches!(mode, "update" | "all") {
        let stmt = s.stmt(UPDATE);
        let text = s.text(UPDATE_STR);
        let rows = (0..count)
            .map(|_| Args::with_text(rng.random_range(1..=n), 0, text, 1))
            .collect();
        s.tests.push(Test {
            op: 1,
            tx: false,
            steps: vec![Step::Run {
                stmt,
                bind: &[Slot::Text, Slot::X],
                rows,
                check: Check::Updates,
            }],
        });
    }
    if matches!(mode, "delete" | "all") {
        let stmt = s.stmt(DELETE);
        let rows = (0..n).map(|i| Args::ints(i, 0, i64::from(i >= 1))).collect();
        s.tests.push(Test {
            op: 2,
            tx: false,
            steps: vec![Step::Run {
                stmt,
                bind: &[Slot::X],
                rows,
                check: Check::Changes,
            }],
        });
    }
    s
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
        if !trial.load.is_default() {
            return super::load::drive(conn, self, trial, rec);
        }
        let p = trial.params;
        let s = script(p.choice("mode"), p.count("count"), trial.seed);
        suite::execute(KIND.name, OPS, conn, &s, trial, rec)
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

    fn budget(&self, p: &Params) -> Budget {
        Budget::Count(p.count("count"))
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
        let op = match p.choice("mode") {
            "insert" => 0,
            "update" => 1,
            _ => 2,
        };
        let stmt = conn.prepare([INSERT, UPDATE, DELETE][op])?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(11);
        Ok(MobiClient {
            conn,
            op,
            stmt,
            rng,
            count: p.count("count") as i64,
            next_delete: i64::from(index),
            step: i64::from(clients),
            id: 0,
        })
    }
}

/// One client's stream of Mobibench transactions under the load driver.
pub struct MobiClient<'c> {
    conn: &'c mut dyn Connection,
    /// The mode's operation type, and its statement.
    op: usize,
    stmt: StmtId,
    rng: ChaCha8Rng,
    count: i64,
    /// Deletes: this client's next id of Mobibench's sequence, and the number of clients.
    next_delete: i64,
    step: i64,
    /// The drawn transaction's id (updates and deletes).
    id: i64,
}

impl Client for MobiClient<'_> {
    fn draw(&mut self) -> usize {
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
        let changed = match self.op {
            0 => self.conn.run(self.stmt, &[Value::Text(INSERT_STR)])?,
            1 => self
                .conn
                .run(self.stmt, &[Value::Text(UPDATE_STR), Value::Int(self.id)])?,
            _ => self.conn.run(self.stmt, &[Value::Int(self.id)])?,
        };
        Ok(changed == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        let all = script("all", 100, 1);
        assert_eq!(all.tests.iter().map(|t| t.op).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert!(all.tests.iter().all(|t| !t.tx && t.statements() == 100));
        assert_eq!(script("update", 10, 1).tests.len(), 1);
        let del = script("delete", 5, 1);
        let Step::Run { rows, .. } = &del.tests[0].steps[0] else {
            panic!()
        };
        assert_eq!(
            rows.iter().map(|a| (a.x, a.expect)).collect::<Vec<_>>(),
            vec![(0, 0), (1, 1), (2, 1), (3, 1), (4, 1)]
        );
        let upd = script("update", 50, 2);
        let Step::Run { rows, .. } = &upd.tests[0].steps[0] else {
            panic!()
        };
        assert!(rows.iter().all(|a| (1..=50).contains(&a.x)));
        assert_eq!(upd.text_at(&rows[0]), UPDATE_STR);
        assert_eq!(INSERT_STR.len(), 100);
        assert_eq!(UPDATE_STR.len(), 100);
    }
}
