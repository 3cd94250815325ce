//! A `Connection` decorator that logs every statement the workload executes, and the
//! transactions they form.

use litebench::engines::values::Values;
use litebench::engines::{Connection, Dialect, EngineError, StmtId, Value};

/// What the workload did, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Begin,
    Commit,
    /// A statement other than BEGIN/COMMIT (prepared and run, or run as a batch).
    Stmt {
        sql: String,
    },
}

/// Wraps a connection and logs what runs on it.
pub struct Counting {
    inner: Box<dyn Connection>,
    /// SQL of each prepared statement, by the inner connection's id.
    prepared: Vec<(StmtId, String)>,
    pub log: Vec<Event>,
}

impl Counting {
    pub fn new(inner: Box<dyn Connection>) -> Counting {
        Counting {
            inner,
            prepared: Vec::new(),
            log: Vec::new(),
        }
    }
}

fn first_word(sql: &str) -> String {
    sql.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(';')
        .to_ascii_uppercase()
}

/// Whether a statement writes (and so is a transaction of its own in autocommit mode).
pub fn is_write(sql: &str) -> bool {
    matches!(
        first_word(sql).as_str(),
        "INSERT" | "UPDATE" | "DELETE" | "REPLACE" | "CREATE" | "DROP" | "ALTER"
    )
}

impl Counting {
    /// Logs the execution of a prepared statement.
    fn log_prepared(&mut self, stmt: StmtId) {
        let sql = self
            .prepared
            .iter()
            .find(|(id, _)| *id == stmt)
            .map(|(_, s)| s.clone())
            .expect("statement prepared on this connection");
        self.log.push(match first_word(&sql).as_str() {
            "BEGIN" => Event::Begin,
            "COMMIT" | "END" => Event::Commit,
            _ => Event::Stmt { sql },
        });
    }
}

impl Connection for Counting {
    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        for one in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            self.log.push(match first_word(one).as_str() {
                "BEGIN" => Event::Begin,
                "COMMIT" | "END" => Event::Commit,
                _ => Event::Stmt { sql: one.to_string() },
            });
        }
        self.inner.execute_batch(sql)
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let id = self.inner.prepare(sql)?;
        self.prepared.push((id, sql.to_string()));
        Ok(id)
    }

    fn run(&mut self, stmt: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        self.log_prepared(stmt);
        self.inner.run(stmt, params)
    }

    fn column_names(&mut self, stmt: StmtId) -> Result<Vec<String>, EngineError> {
        self.inner.column_names(stmt)
    }

    fn run_values(&mut self, stmt: StmtId, params: &[Value<'_>], out: &mut Values) -> Result<u64, EngineError> {
        self.log_prepared(stmt);
        self.inner.run_values(stmt, params, out)
    }

    fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        self.inner.query(sql)
    }
}

/// One test as the source defines it.
#[derive(Debug, Clone, Copy)]
pub struct Expected {
    /// Statements the test executes (its recorded operations).
    pub statements: u64,
    /// Transactions it commits: explicit COMMITs plus write statements outside a transaction.
    pub commits: u64,
    /// Every statement of the test starts with one of these.
    pub prefixes: &'static [&'static str],
}

/// What one test did, counted from the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counted {
    pub statements: u64,
    pub commits: u64,
    pub explicit_transactions: u64,
}

/// Splits the log into tests by the source's statement counts (a BEGIN belongs to the
/// statement after it, a COMMIT to the statement before it) and counts each test's statements
/// and commits. Panics, naming the test, when a statement does not match the test's SQL or a
/// transaction spans two tests.
pub fn count(suite: &str, titles: &[&str], log: &[Event], expected: &[Expected]) -> Vec<Counted> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_tx = false;
    for (t, exp) in expected.iter().enumerate() {
        let title = titles[t];
        let mut c = Counted::default();
        let commit = |c: &mut Counted, in_tx: &mut bool| {
            assert!(*in_tx, "{suite} {title}: COMMIT without BEGIN");
            *in_tx = false;
            c.commits += 1;
        };
        while c.statements < exp.statements {
            let e = log
                .get(i)
                .unwrap_or_else(|| panic!("{suite} {title}: log ends after {} statements", c.statements));
            i += 1;
            match e {
                Event::Begin => {
                    assert!(!in_tx, "{suite} {title}: nested BEGIN");
                    in_tx = true;
                    c.explicit_transactions += 1;
                }
                Event::Commit => commit(&mut c, &mut in_tx),
                Event::Stmt { sql } => {
                    assert!(
                        exp.prefixes.iter().any(|p| sql.starts_with(p)),
                        "{suite} {title}: statement `{sql}` is not one of {:?}",
                        exp.prefixes
                    );
                    c.statements += 1;
                    if !in_tx && is_write(sql) {
                        c.commits += 1;
                    }
                }
            }
        }
        while let Some(Event::Commit) = log.get(i) {
            commit(&mut c, &mut in_tx);
            i += 1;
        }
        assert!(
            !in_tx,
            "{suite} {title}: its transaction is still open when the next test starts"
        );
        out.push(c);
    }
    assert_eq!(i, log.len(), "{suite}: statements after the last test: {:?}", &log[i..]);
    out
}
