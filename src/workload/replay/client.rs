//! The one client of a replay: the log's statements in order, each one transaction of the load
//! driver typed by its shape, run as its recorded text (a bare `BEGIN` as the `begin` knob says, where set: [`bare_begin`]; the engine parses it each time, as
//! the recording application's did unless it cached it). With `pace=recorded` each is due at
//! its recorded start ([`Client::due`]); a statement that fails stops the trial with the log's
//! file and line, or with `on_error=count` counts as unsuccessful and the replay goes on.
//! A log of a few statements measures nothing once, so `repeat=` runs it again pass after pass
//! and `duration=` until the trial's time is up; a paced pass is due one recorded period after
//! the one before ([`Passes`]).

use super::Loaded;
use crate::engines::{Connection, EngineError, ErrorKind};
use crate::workload::bare_begin;
use crate::workload::load::{Client, Hooks};
use std::time::Duration;

/// How many times the client runs the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passes {
    /// `repeat=N`: N passes, then done.
    Count(u64),
    /// `duration=`: passes until the driver stops the trial on time.
    UntilStopped,
}

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
    passes: Passes,
    /// The pass being run (0-based).
    pass: u64,
    /// With `pace=recorded`, how much later each pass is due than the one before: the log's
    /// recorded span plus its mean gap, so a pass's first statement keeps the gap after the
    /// last one's.
    period_ns: u64,
    /// The next statement to draw, and the one drawn.
    next: usize,
    current: usize,
}

/// The recorded span of `statements` plus their mean gap (0 for an untimed log).
fn period_ns(statements: &[crate::workload::replay::log::Statement]) -> u64 {
    let first = statements.first().and_then(|s| s.at_ns).unwrap_or(0);
    let last = statements.last().and_then(|s| s.at_ns).unwrap_or(0);
    let span = last.saturating_sub(first);
    let gaps = statements.len().saturating_sub(1) as u64;
    span.saturating_add(span.checked_div(gaps).unwrap_or(0))
}

impl<'c> ReplayClient<'c> {
    pub fn new(
        conn: &'c mut dyn Connection,
        loaded: &'static Loaded,
        paced: bool,
        count_errors: bool,
        passes: Passes,
    ) -> Self {
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
            passes,
            pass: 0,
            period_ns: period_ns(&loaded.log.statements),
            next: 0,
            current: 0,
        }
    }
}

impl Client for ReplayClient<'_> {
    fn done(&self) -> bool {
        let statements = self.loaded.log.statements.len();
        match self.passes {
            // An empty log has nothing to loop.
            _ if statements == 0 => true,
            Passes::Count(n) => self.pass >= n,
            Passes::UntilStopped => false,
        }
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            due: self.paced,
            ..Hooks::default()
        }
    }

    fn due(&self) -> Option<Duration> {
        let s = self.loaded.log.statements.get(self.next)?;
        let offset = self.pass.saturating_mul(self.period_ns);
        s.at_ns.map(|at| Duration::from_nanos(at.saturating_add(offset)))
    }

    fn draw(&mut self) -> usize {
        self.current = self.next;
        self.next += 1;
        if self.next >= self.loaded.log.statements.len() {
            self.next = 0;
            self.pass += 1;
        }
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
