//! A connection that runs nothing and records what a workload's client asks of it: the
//! statements it prepares, and per transaction the statements it runs with their bound values.
//!
//! `--driver` runs a workload through an application's own binding in another process (see
//! [`crate::model::driver`]). So that every driver runs byte-identical work, the workload's own
//! client draws and "executes" each transaction against this connection, untimed, and the
//! statement ids and values it recorded travel to the driver as data. Transaction control is
//! recognised by its text and kept out of the steps (the driver opens each transaction with
//! the `begin` knob's statement); everything else is a step; a literal recording
//! ([`Recording::literal`], a replayed log) keeps every statement as a step, control included.
//! On a connection confined to the scratch directory, a statement that could reach outside it
//! is refused before it is sent ([`unconfinable`]). Nothing reads results here: a
//! workload whose statements depend on earlier results (a script's `\gset`, a read feeding a
//! write) cannot run as data, and every way of reading results fails with [`NEEDS_RESULTS`].

use super::values::Values;
use super::{Connection, Dialect, EngineError, ErrorKind, StmtId, Value};
use crate::model::driver::{Bound, Step};
use std::cell::RefCell;
use std::rc::Rc;

/// The message of every result a recording connection cannot give.
pub const NEEDS_RESULTS: &str = "its statements depend on earlier results, which a driver cannot be sent ahead of time";

/// What transaction-control statement a statement's text is, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    Begin,
    End,
}

/// The mode a `BEGIN` statement's text names (`BEGIN IMMEDIATE TRANSACTION`: `immediate`);
/// `None` for a bare `BEGIN`.
fn mode_of(sql: &str) -> Option<&'static str> {
    let word = sql.trim().trim_end_matches(';').split_whitespace().nth(1)?;
    super::sqlite::knobs::BEGIN_MODES
        .iter()
        .find(|(mode, _)| word.eq_ignore_ascii_case(mode))
        .map(|(mode, _)| *mode)
}

fn control_of(sql: &str) -> Option<Control> {
    let words: Vec<String> = sql
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .take(2)
        .map(str::to_ascii_uppercase)
        .collect();
    match words.first().map(String::as_str) {
        Some("BEGIN") => Some(Control::Begin),
        Some("START") if words.get(1).is_some_and(|w| w == "TRANSACTION") => Some(Control::Begin),
        Some("COMMIT" | "END") => Some(Control::End),
        Some("ROLLBACK") if words.get(1).is_none_or(|w| w == "TRANSACTION") => Some(Control::End),
        _ => None,
    }
}

/// What the recording connection saw, shared with whoever reads it between transactions.
#[derive(Debug, Default)]
pub struct Log {
    /// Every statement by id (its [`StmtId`]); transaction control too, never sent as a step.
    sql: Vec<String>,
    control: Vec<Option<Control>>,
    /// The current transaction's steps.
    steps: Vec<Step>,
    /// The mode the current transaction's `BEGIN` opened it in, where it opened one.
    begin: Option<&'static str>,
    /// The `begin` knob's statement, where it was set (`BEGIN IMMEDIATE`): what the workload's
    /// own write transactions and a bare `BEGIN` of the user's start as.
    begin_knob: Option<&'static str>,
    /// Every statement is a step, transaction control too ([`Recording::literal`]).
    literal: bool,
    /// Each statement's id by its text (a replayed log has as many as it has lines).
    ids: std::collections::HashMap<String, usize>,
    /// The user's own SQL, kept inside the trial's scratch directory
    /// ([`Connection::confine_to_scratch`]): see [`unconfinable`].
    confined: bool,
}

impl Log {
    /// The statements a driver prepares: every one but transaction control, with its id.
    pub fn statements(&self) -> Vec<(usize, String)> {
        self.statements_from(0)
    }

    /// [`Log::statements`] from id `first` on: those seen since a driver was last sent them.
    pub fn statements_from(&self, first: usize) -> Vec<(usize, String)> {
        self.sql
            .iter()
            .enumerate()
            .skip(first)
            .filter(|(i, _)| self.literal || self.control[*i].is_none())
            .map(|(i, s)| (i, s.clone()))
            .collect()
    }

    /// How many statements it has seen.
    pub fn len(&self) -> usize {
        self.sql.len()
    }

    /// Whether it has seen none.
    pub fn is_empty(&self) -> bool {
        self.sql.is_empty()
    }

    /// The transaction recorded since the last call: the mode its `BEGIN` opened it in (`None`:
    /// none was opened, its steps run in autocommit), and its steps.
    pub fn take(&mut self) -> (Option<&'static str>, Vec<Step>) {
        (self.begin.take(), std::mem::take(&mut self.steps))
    }

    /// `sql`'s id, a new one for a statement not seen before; on a confined connection a new
    /// statement that could reach outside the scratch directory is refused.
    fn admit(&mut self, sql: &str) -> Result<usize, EngineError> {
        if let Some(&i) = self.ids.get(sql) {
            return Ok(i);
        }
        if self.confined {
            if let Some(why) = unconfinable(sql) {
                return Err(EngineError {
                    engine: "driver".into(),
                    kind: ErrorKind::Input,
                    code: None,
                    message: format!("`{}` {why}; a driver's binding cannot be held to the trial's scratch directory as litebench's own loop is (its authorizer): run this SQL with --driver rust", crate::base::clip::value(sql.trim())),
                    context: "sending the user's SQL to a driver".into(),
                    busy_cause: None,
                });
            }
        }
        self.sql.push(sql.to_string());
        self.control.push(control_of(sql));
        self.ids.insert(sql.to_string(), self.sql.len() - 1);
        Ok(self.sql.len() - 1)
    }

    fn step(&mut self, id: usize, params: &[Value<'_>]) {
        match self.control[id] {
            _ if self.literal => self.steps.push(Step::plain(id, params.iter().map(bound).collect())),
            Some(Control::Begin) => {
                // A bare BEGIN starts as the knob says where it was set (the workload rewrote it
                // then), else as SQLite's default.
                let knob = self.begin_knob.and_then(mode_of);
                self.begin = Some(mode_of(&self.sql[id]).or(knob).unwrap_or("deferred"));
            }
            Some(Control::End) => {}
            None => self.steps.push(Step::plain(id, params.iter().map(bound).collect())),
        }
    }
}

/// Why the user's statement `sql` may not be sent to a driver, whose connection litebench cannot
/// confine: it attaches a database file, writes one (`VACUUM INTO`), or loads an extension. By
/// its tokens (the shared lexer's: words inside strings and comments are not words), so that no
/// spelling of them passes; a file name that is an expression is refused with them.
fn unconfinable(sql: &str) -> Option<&'static str> {
    use super::sql_lex::{Kind, Lexer};
    let mut vacuum = false;
    for token in Lexer::new(sql, 0, false) {
        let Ok(token) = token else { return None };
        if token.kind != Kind::Word {
            continue;
        }
        let word = &sql[token.start..token.end];
        if word.eq_ignore_ascii_case("attach") {
            return Some("attaches a database file");
        }
        if word.eq_ignore_ascii_case("load_extension") {
            return Some("loads an extension");
        }
        if word.eq_ignore_ascii_case("vacuum") {
            vacuum = true;
        } else if vacuum && word.eq_ignore_ascii_case("into") {
            return Some("writes a database file (VACUUM INTO)");
        }
    }
    None
}

fn bound(v: &Value<'_>) -> Bound {
    match *v {
        Value::Null => Bound::Null,
        Value::Int(i) => Bound::Int(i),
        Value::Real(f) => Bound::Real(f),
        Value::Text(t) => Bound::Text(t.to_string()),
        Value::Blob(b) => Bound::Blob(b.to_vec()),
    }
}

/// The connection a driven client's workload client runs against (SQLite's dialect: drivers
/// carry SQLite). It opens write transactions and rewrites a bare `BEGIN` as a SQLite
/// connection with the same `begin` knob does ([`Recording::new`]).
pub struct Recording {
    log: Rc<RefCell<Log>>,
    begin_knob: Option<&'static str>,
}

impl Recording {
    /// A new recording connection and the log it writes; `begin_knob` is the `begin` knob's
    /// statement where the configuration (or the client's cast role) set it.
    pub fn new(begin_knob: Option<&'static str>) -> (Recording, Rc<RefCell<Log>>) {
        Recording::with(Log {
            begin_knob,
            ..Log::default()
        })
    }

    /// A recording connection whose every statement is a step as written, transaction control
    /// included: for a workload whose statements are sent literally (a replayed log, whose own
    /// `BEGIN` and `COMMIT` span several of its timed statements).
    pub fn literal(begin_knob: Option<&'static str>) -> (Recording, Rc<RefCell<Log>>) {
        Recording::with(Log {
            literal: true,
            begin_knob,
            ..Log::default()
        })
    }

    fn with(log: Log) -> (Recording, Rc<RefCell<Log>>) {
        let begin_knob = log.begin_knob;
        let log = Rc::new(RefCell::new(log));
        (
            Recording {
                log: log.clone(),
                begin_knob,
            },
            log,
        )
    }

    /// Records `step` as the current transaction's next, with what a plain statement cannot
    /// say ([`Step::each`], [`Step::need`], [`Step::keep`], [`Bound::Ref`]s): for a workload
    /// whose transaction reads what its own statements returned (a queue worker's claim), which
    /// asks for this connection with [`Connection::recording`]. Returns its index among the
    /// transaction's steps, which a later step's `each` and `Ref`s name.
    pub fn record(&mut self, step: Step) -> usize {
        let mut log = self.log.borrow_mut();
        log.steps.push(step);
        log.steps.len() - 1
    }

    fn refused(context: &str) -> EngineError {
        EngineError {
            engine: "driver".into(),
            kind: ErrorKind::Other,
            code: None,
            message: NEEDS_RESULTS.into(),
            context: context.into(),
            busy_cause: None,
        }
    }
}

impl Connection for Recording {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    /// As a SQLite connection's: the knob's statement, else `BEGIN IMMEDIATE`.
    fn begin_write(&self) -> &'static str {
        self.begin_knob.unwrap_or("BEGIN IMMEDIATE")
    }

    fn begin_knob(&self) -> Option<&'static str> {
        self.begin_knob
    }

    fn recording(&mut self) -> Option<&mut Recording> {
        Some(self)
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), EngineError> {
        let mut log = self.log.borrow_mut();
        let id = log.admit(sql)?;
        log.step(id, &[]);
        Ok(())
    }

    fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        Ok(StmtId(self.log.borrow_mut().admit(sql)?))
    }

    /// The driver's connection cannot be confined: from now on a statement that could reach
    /// outside the scratch directory is refused here, before it is sent ([`unconfinable`]).
    fn confine_to_scratch(&mut self) -> Result<(), EngineError> {
        self.log.borrow_mut().confined = true;
        Ok(())
    }

    /// Records the step; answers one row, so that a workload's "one row changed" holds.
    fn run(&mut self, stmt: StmtId, params: &[Value<'_>]) -> Result<u64, EngineError> {
        self.log.borrow_mut().step(stmt.0, params);
        Ok(1)
    }

    /// Records the step; answers no row and no value (a driver counts the rows it reads).
    fn run_values(&mut self, stmt: StmtId, params: &[Value<'_>], _out: &mut Values) -> Result<u64, EngineError> {
        self.log.borrow_mut().step(stmt.0, params);
        Ok(0)
    }

    fn column_names(&mut self, _stmt: StmtId) -> Result<Vec<String>, EngineError> {
        Err(Recording::refused("naming a query's columns (\\gset)"))
    }

    fn query(&mut self, _sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        Err(Recording::refused("reading a query's rows"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_recorded_and_control_is_not() {
        let (mut c, log) = Recording::new(None);
        let begin = c.prepare("BEGIN IMMEDIATE").unwrap();
        let upd = c.prepare("UPDATE t SET v = ? WHERE id = ?").unwrap();
        c.run(begin, &[]).unwrap();
        c.run(upd, &[Value::Text("x"), Value::Int(3)]).unwrap();
        c.execute_batch("COMMIT").unwrap();
        let (begin, steps) = log.borrow_mut().take();
        assert_eq!(begin, Some("immediate"));
        assert_eq!(
            steps,
            vec![Step::plain(upd.0, vec![Bound::Text("x".into()), Bound::Int(3)])]
        );
        c.run(upd, &[Value::Null, Value::Real(0.5)]).unwrap();
        assert_eq!(log.borrow_mut().take().0, None, "no BEGIN: autocommit");
        let sent: Vec<String> = log.borrow().statements().into_iter().map(|(_, s)| s).collect();
        assert_eq!(sent, vec!["UPDATE t SET v = ? WHERE id = ?"]);
        assert!(c.query("SELECT 1").unwrap_err().message.contains("earlier results"));
        assert_eq!(control_of(" end;"), Some(Control::End));
        assert_eq!(control_of("ROLLBACK TO sp"), None);
    }

    #[test]
    fn each_transaction_opens_as_litebench_s_own_loop_would_open_it() {
        // No knob: the workload's own write transactions IMMEDIATE, a bare BEGIN DEFERRED, a
        // user's named mode as written.
        let (mut c, log) = Recording::new(None);
        for (sql, mode) in [
            (c.begin_write(), "immediate"),
            ("BEGIN", "deferred"),
            ("begin exclusive transaction;", "exclusive"),
        ] {
            c.execute_batch(sql).unwrap();
            c.execute_batch("COMMIT").unwrap();
            assert_eq!(log.borrow_mut().take().0, Some(mode), "{sql}");
        }
        // The knob: the workload's own and a bare BEGIN at it; a named mode stays.
        let (mut c, log) = Recording::new(Some("BEGIN DEFERRED"));
        for (sql, mode) in [
            (c.begin_write(), "deferred"),
            ("BEGIN TRANSACTION", "deferred"),
            ("BEGIN EXCLUSIVE", "exclusive"),
        ] {
            c.execute_batch(sql).unwrap();
            assert_eq!(log.borrow_mut().take().0, Some(mode), "{sql}");
        }
        assert_eq!(c.begin_knob(), Some("BEGIN DEFERRED"));
    }

    #[test]
    fn a_literal_recording_keeps_control_as_steps_and_says_what_is_new() {
        let (mut c, log) = Recording::literal(None);
        c.execute_batch("BEGIN").unwrap();
        c.execute_batch("INSERT INTO t VALUES (1)").unwrap();
        let (_, steps) = log.borrow_mut().take();
        assert_eq!(steps.iter().map(|s| s.id).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(
            log.borrow().statements_from(1),
            [(1, "INSERT INTO t VALUES (1)".to_string())]
        );
        c.execute_batch("COMMIT").unwrap();
        c.execute_batch("BEGIN").unwrap();
        assert_eq!(log.borrow().len(), 3, "a statement seen before keeps its id");
    }

    #[test]
    fn confined_sql_that_could_reach_outside_the_scratch_directory_is_refused() {
        let (mut c, _log) = Recording::literal(None);
        c.execute_batch("ATTACH 'x.db' AS x").unwrap();
        c.confine_to_scratch().unwrap();
        for sql in [
            "attach 'y.db' as y",
            "VACUUM main INTO '/tmp/copy.db'",
            "SELECT load_extension('e')",
        ] {
            let e = c.execute_batch(sql).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Input, "{sql}");
            assert!(e.message.contains("run this SQL with --driver rust"), "{}", e.message);
        }
        // Words inside strings and comments are not statements' words; a plain VACUUM writes
        // only the database.
        for sql in ["SELECT 'attach' -- vacuum into", "VACUUM", "INSERT INTO t VALUES (1)"] {
            c.execute_batch(sql).unwrap();
        }
    }
}
