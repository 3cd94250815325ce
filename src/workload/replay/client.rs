//! The one client of a replay: the log's statements in order, each one transaction of the load
//! driver typed by its shape, run as its recorded text (a bare `BEGIN` as the `begin` knob says, where set: [`bare_begin`]; the engine parses it each time, as
//! the recording application's did unless it cached it). With `pace=recorded` each is due at
//! its recorded start ([`Client::due`]); a statement that fails stops the trial with the log's
//! file and line, or with `on_error=count` counts as unsuccessful and the replay goes on.

use super::Loaded;
use crate::engines::{Connection, EngineError, ErrorKind};
use crate::workload::bare_begin;
use crate::workload::load::{Client, Hooks};
use std::time::Duration;

pub struct ReplayClient<'c> {
    conn: &'c mut dyn Connection,
    loaded: &'static Loaded,
    paced: bool,
    count_errors: bool,
    /// The `begin` knob's statement, where set: what the log's bare `BEGIN`s run as.
    begin: Option<&'static str>,
    /// Which statements are bare `BEGIN`s, read once here (empty where the knob is unset), so
    /// that no statement is lexed again inside the timed loop.
    bare: Vec<bool>,
    /// The next statement to draw, and the one drawn.
    next: usize,
    current: usize,
}

impl<'c> ReplayClient<'c> {
    pub fn new(conn: &'c mut dyn Connection, loaded: &'static Loaded, paced: bool, count_errors: bool) -> Self {
        let begin = conn.begin_knob();
        let bare = match begin {
            Some(_) => loaded
                .log
                .statements
                .iter()
                .map(|s| bare_begin::is_bare(&s.sql))
                .collect(),
            None => Vec::new(),
        };
        ReplayClient {
            begin,
            bare,
            conn,
            loaded,
            paced,
            count_errors,
            next: 0,
            current: 0,
        }
    }
}

impl Client for ReplayClient<'_> {
    fn done(&self) -> bool {
        self.next >= self.loaded.log.statements.len()
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            due: self.paced,
            ..Hooks::default()
        }
    }

    fn due(&self) -> Option<Duration> {
        let s = self.loaded.log.statements.get(self.next)?;
        s.at_ns.map(Duration::from_nanos)
    }

    fn draw(&mut self) -> usize {
        self.current = self.next;
        self.next += 1;
        self.loaded.op_of[self.current]
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        let s = &self.loaded.log.statements[self.current];
        let sql = match self.begin {
            Some(begin) if self.bare[self.current] => begin,
            _ => s.sql.as_str(),
        };
        match self.conn.execute_batch(sql) {
            Ok(()) => Ok(true),
            Err(_) if self.count_errors => Ok(false),
            Err(e) => Err(EngineError {
                busy_cause: None,
                // A lock is a failure here too: the log runs once, in order, never retried.
                kind: if e.kind == ErrorKind::Busy {
                    ErrorKind::Other
                } else {
                    e.kind
                },
                message: format!(
                    "{}:{}: {} (add --param on_error=count to count failing statements and go on)",
                    self.loaded.file, s.line, e.message
                ),
                context: "replaying the log".into(),
                ..e
            }),
        }
    }
}
