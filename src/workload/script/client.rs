//! One client's stream of script transactions: draws a script by weight and evaluates its
//! `\set`s before the clock starts, then runs its statements (each prepared once, its variables
//! bound as parameters) and sleeps in order, timing each statement on its own. A sleep ends
//! early on a stop request (see [`crate::sys::signals::sleep`]); a negative one sleeps zero.

use super::expr::{Env, Num, Var};
use super::parse::{Amount, Command, Control, Script};
use super::Loaded;
use crate::engines::{Connection, EngineError, ErrorKind, StmtId, Value};
use crate::workload::bare_begin;
use crate::workload::load::{Client, Hooks};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bound values a statement takes from the stack in the timed region.
const STACK_VALUES: usize = 32;

/// What a script's command runs as in a client.
enum Step {
    Sql {
        stmt: StmtId,
        vars: Vec<usize>,
        op: usize,
        control: Control,
        /// The line the statement starts on in its file, for its errors.
        line: usize,
    },
    Sleep,
}

pub struct ScriptClient<'c> {
    conn: &'c mut dyn Connection,
    loaded: &'static Loaded,
    /// Per script: its commands as this engine's dialect reads them, its steps, and the file
    /// they were read from (named with a statement's line in its errors).
    scripts: Vec<(&'static Script, Vec<Step>, &'static str)>,
    vars: Vec<Var>,
    rng: ChaCha8Rng,
    default_seed: i64,
    /// The drawn script, its sleeps (nanoseconds, in order) and an error of its `\set`s.
    current: usize,
    sleeps: Vec<u64>,
    failure: Option<String>,
    parts: Vec<(usize, u64)>,
    clock: &'static crate::sys::clock::Clock,
}

impl<'c> ScriptClient<'c> {
    /// Prepares every statement of every script on `conn` (the variant for its dialect).
    pub fn new(
        conn: &'c mut dyn Connection,
        loaded: &'static Loaded,
        index: u32,
        seed: u64,
    ) -> Result<ScriptClient<'c>, EngineError> {
        let dialect = conn.dialect();
        let layout = loaded.layout(Some(dialect));
        let mut scripts = Vec::new();
        let begin = conn.begin_knob();
        for (i, entry) in loaded.scripts.iter().enumerate() {
            let script = entry.for_dialect(dialect);
            let file = entry.file_for_dialect(dialect);
            let mut steps = Vec::new();
            let mut ops = layout.statements[i].iter();
            for c in &script.commands {
                match c {
                    Command::Sql(s) => {
                        let stmt = conn
                            .prepare(bare_begin::statement(&s.sql, begin))
                            .map_err(|e| at_statement(e, file, s.line))?;
                        steps.push(Step::Sql {
                            stmt,
                            vars: s.vars.clone(),
                            op: ops.next().copied().unwrap_or(i),
                            control: s.control,
                            line: s.line,
                        });
                    }
                    Command::Sleep { .. } => steps.push(Step::Sleep),
                    Command::Set { .. } => {}
                }
            }
            scripts.push((script, steps, file));
        }
        let mut vars = vec![Var::Num(Num::Int(0)); loaded.vars.names.len()];
        let default_seed = super::DEFAULT_SEED;
        for (name, v) in [
            ("scale", loaded.scale),
            ("client_id", i64::from(index)),
            ("default_seed", default_seed),
            ("random_seed", seed as i64),
        ] {
            if let Some(s) = loaded.vars.slot(name) {
                vars[s] = Var::Num(Num::Int(v));
            }
        }
        for (slot, text) in &loaded.defines {
            vars[*slot] = Var::Text(text.clone());
        }
        Ok(ScriptClient {
            conn,
            loaded,
            scripts,
            vars,
            rng: ChaCha8Rng::seed_from_u64(seed),
            default_seed,
            current: 0,
            sleeps: Vec::new(),
            failure: None,
            parts: Vec::new(),
            clock: crate::sys::clock::clock(),
        })
    }

    /// The client's variables (for tests).
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.loaded.vars.slot(name).map(|s| &self.vars[s])
    }

    fn fail(&self, message: String) -> EngineError {
        EngineError {
            busy_cause: None,
            engine: "script".into(),
            kind: ErrorKind::Other,
            code: None,
            message,
            context: format!("running script {}", self.loaded.scripts[self.current].name),
        }
    }

    /// Runs the drawn script: the transaction's timed region, so its statements' values are
    /// bound from the stack, not from a vector allocated per transaction (a statement with more
    /// than [`STACK_VALUES`] variables, which no real script has, takes one).
    fn run(&mut self) -> Result<(), EngineError> {
        let (_, steps, file) = &self.scripts[self.current];
        let mut sleeps = self.sleeps.iter();
        let mut stack = [Value::Null; STACK_VALUES];
        let mut heap: Vec<Value<'_>> = Vec::new();
        for step in steps {
            match step {
                Step::Sql {
                    stmt, vars, op, line, ..
                } => {
                    let values: &[Value<'_>] = if vars.len() <= STACK_VALUES {
                        for (slot, &v) in stack.iter_mut().zip(vars) {
                            *slot = bound(&self.vars[v]);
                        }
                        &stack[..vars.len()]
                    } else {
                        heap.clear();
                        heap.extend(vars.iter().map(|&v| bound(&self.vars[v])));
                        &heap
                    };
                    let t0 = self.clock.now();
                    self.conn.run(*stmt, values).map_err(|e| at_statement(e, file, *line))?;
                    let ns = self.clock.ns_between(t0, self.clock.now());
                    self.parts.push((*op, ns));
                }
                Step::Sleep => {
                    let ns = sleeps.next().copied().unwrap_or(0);
                    // Woken by a stop request, however long (`\sleep 604800 s`): the trial is
                    // being discarded, so the rest of the script does not run.
                    if !crate::sys::signals::sleep(std::time::Duration::from_nanos(ns)) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }
}

/// `e` as the error of the statement on line `line` of `file`: `FILE:LINE: message`, the form of
/// the script's parse errors, so that a user with several scripts and configurations reads which
/// statement failed (the configuration's label alone does not say).
fn at_statement(mut e: EngineError, file: &str, line: usize) -> EngineError {
    e.message = format!("{file}:{line}: {}", e.message);
    e
}

/// A variable as a statement's bound value.
fn bound(v: &Var) -> Value<'_> {
    match v {
        Var::Num(Num::Int(i)) => Value::Int(*i),
        Var::Num(Num::Float(f)) => Value::Real(*f),
        Var::Num(Num::Null) => Value::Null,
        // SQL's TRUE and FALSE, as SQLite stores them.
        Var::Num(Num::Bool(b)) => Value::Int(i64::from(*b)),
        Var::Text(t) => Value::Text(t),
    }
}

impl Client for ScriptClient<'_> {
    fn draw(&mut self) -> usize {
        let total = self.loaded.total_weight;
        let mut w = self.rng.random_range(0..total);
        self.current = self
            .loaded
            .scripts
            .iter()
            .position(|e| {
                if w < e.weight {
                    true
                } else {
                    w -= e.weight;
                    false
                }
            })
            .unwrap_or(0);
        self.sleeps.clear();
        self.failure = None;
        let script = self.scripts[self.current].0;
        for c in &script.commands {
            let result = match c {
                Command::Set { slot, expr, line } => {
                    let mut env = Env {
                        vars: &self.vars,
                        rng: &mut self.rng,
                        default_seed: self.default_seed,
                    };
                    expr.eval(&mut env)
                        .map(|v| self.vars[*slot] = Var::Num(v))
                        .map_err(|e| (*line, e))
                }
                Command::Sleep { amount, unit_ns, line } => {
                    let n = match amount {
                        Amount::Fixed(n) => Ok(*n),
                        Amount::Var(s) => match self.vars[*s].num() {
                            Some(Num::Int(n)) => Ok(n),
                            other => Err((
                                *line,
                                format!("\\sleep needs a whole number, the variable holds {other:?}"),
                            )),
                        },
                    };
                    n.map(|n| self.sleeps.push((n.max(0) as u64).saturating_mul(*unit_ns)))
                }
                Command::Sql(_) => Ok(()),
            };
            if let Err((line, e)) = result {
                self.failure = Some(format!("{}:{line}: {e}", self.loaded.scripts[self.current].name));
                break;
            }
        }
        self.current
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        self.parts.clear();
        if let Some(f) = self.failure.clone() {
            return Err(self.fail(f));
        }
        let result = self.run();
        if result.is_err() {
            // Leave no transaction open, so that the driver can run the script again.
            let opened = self.scripts[self.current].1.iter().any(|s| {
                matches!(
                    s,
                    Step::Sql {
                        control: Control::Begin,
                        ..
                    }
                )
            });
            if opened {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
        }
        result.map(|()| true)
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            parts: true,
            ..Hooks::default()
        }
    }

    fn parts(&self) -> &[(usize, u64)] {
        &self.parts
    }
}
