//! One client's stream of script transactions: draws a script by weight and evaluates its
//! `\set`s, `\if`s and `\sleep` durations before the clock starts, then runs its statements
//! (each prepared once, its variables bound as parameters) and sleeps in order, timing each
//! statement on its own. A sleep ends early on a stop request (see
//! [`crate::sys::signals::sleep`]); a negative one sleeps zero.
//!
//! A statement with a `\gset`/`\aset` sets variables from its result, which the commands after
//! it may read: those are evaluated as the transaction runs, after it, so the evaluation before
//! the clock stops at the first such statement (a script without one runs as before). Its
//! result is read into a buffer kept across transactions, and each value into its variable in
//! place: a number as a number, text into the variable's own string.

use super::expr::{Env, Num, Var};
use super::parse::{Amount, Command, Control, Script, Store};
use super::Loaded;
use crate::engines::values::{CellRef, Values};
use crate::engines::{Connection, EngineError, ErrorKind, StmtId, Value};
use crate::workload::bare_begin;
use crate::workload::load::{Client, Hooks};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bound values a statement takes from the stack in the timed region.
const STACK_VALUES: usize = 32;

/// What a `\gset`/`\aset` does with its statement's result.
struct Keep {
    all_rows: bool,
    /// Per column, the variable it sets (none where no command reads it).
    targets: Vec<Option<usize>>,
    /// Per column, whether it is an SQL boolean (kept as pgbench keeps it: `t` or `f`).
    booleans: Vec<bool>,
}

/// What a script's command runs as in a client (one per command, in order).
enum Step {
    Sql {
        /// None: inside an `\if` branch and refused when prepared before the trial, so
        /// prepared when first run (pgbench sends a branch not taken nothing); the text.
        stmt: Option<StmtId>,
        sql: &'static str,
        vars: Vec<usize>,
        op: usize,
        control: Control,
        /// The line the statement starts on in its file, for its errors.
        line: usize,
        keep: Option<Keep>,
    },
    /// Evaluated, not run: `\set`, `\sleep`, `\if`.
    Meta,
}

/// What the drawn script does once the clock runs, as evaluated before it.
#[derive(Debug, Clone, Copy)]
enum Action {
    /// The statement of that command.
    Sql(usize),
    /// Sleep that many nanoseconds.
    Sleep(u64),
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
    /// Where `:default_seed` lives, where the scripts or a definition name it.
    default_seed_slot: Option<usize>,
    /// The drawn script, what it does once the clock runs, the command evaluation goes on at
    /// after that (past a `\gset`), and an error evaluating it.
    current: usize,
    plan: Vec<Action>,
    resume: Option<usize>,
    failure: Option<EngineError>,
    /// A `\gset`/`\aset` statement's result.
    values: Values,
    parts: Vec<(usize, u64)>,
    clock: &'static crate::sys::clock::Clock,
}

impl<'c> ScriptClient<'c> {
    /// Prepares every statement of every script on `conn` (the variant for its dialect).
    /// `index` is the client's number among its role's clients (`:client_id`).
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
            // The variables each `\gset`/`\aset` before a command sets.
            let mut set_by_queries: Vec<(usize, Vec<String>)> = Vec::new();
            let branch = in_branches(script);
            for (k, c) in script.commands.iter().enumerate() {
                match c {
                    Command::Sql(s) => {
                        let stmt = match conn.prepare(bare_begin::statement(&s.sql, begin)) {
                            Ok(stmt) => Some(stmt),
                            Err(_) if branch[k] && s.store.is_none() => None,
                            Err(e) => return Err(at_statement(e, file, s.line)),
                        };
                        let keep = match (&s.store, stmt) {
                            (Some(store), Some(stmt)) => {
                                let (keep, names) = keep_of(conn, stmt, store, loaded, (file, s.line))?;
                                set_by_queries.push((k, names));
                                Some(keep)
                            }
                            _ => None,
                        };
                        steps.push(Step::Sql {
                            stmt,
                            sql: &s.sql,
                            vars: s.vars.clone(),
                            op: ops.next().copied().unwrap_or(i),
                            control: s.control,
                            line: s.line,
                            keep,
                        });
                    }
                    _ => steps.push(Step::Meta),
                }
            }
            for p in &script.pending {
                let set = set_by_queries
                    .iter()
                    .any(|(k, names)| *k < p.command && names.contains(&p.name));
                if !set {
                    let returned: Vec<&str> = set_by_queries
                        .iter()
                        .filter(|(k, _)| *k < p.command)
                        .flat_map(|(_, n)| n.iter().map(String::as_str))
                        .collect();
                    return Err(column_error(format!(
                        "{file}:{}:{}: unknown variable :{}; no \\gset or \\aset before it returns a column of that name (they return {}); set it with \\set on an earlier line or give --param define={}=VALUE",
                        p.line,
                        p.column,
                        p.name,
                        returned.join(", "),
                        p.name
                    )));
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
        let default_seed_slot = loaded.vars.slot("default_seed");
        // A defined `default_seed` is read as a number once, here: the evaluation that reads it
        // for `hash` and `permute` ([`ScriptClient::default_seed_now`]) then parses no text.
        if let Some(s) = default_seed_slot {
            if let Some(n @ Num::Int(_)) = vars[s].num() {
                vars[s] = Var::Num(n);
            }
        }
        Ok(ScriptClient {
            conn,
            loaded,
            scripts,
            vars,
            rng: ChaCha8Rng::seed_from_u64(seed),
            default_seed,
            default_seed_slot,
            current: 0,
            plan: Vec::new(),
            resume: None,
            failure: None,
            values: Values::default(),
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

    /// The seed `hash` and `permute` use when given none: the variable `:default_seed` as it
    /// is now (pgbench rewrites `hash(x)` into `hash(x, :default_seed)`, so `--param
    /// define=default_seed=N` and a `\set default_seed` reach it), else litebench's default.
    fn default_seed_now(&self) -> i64 {
        let held = self.default_seed_slot.and_then(|s| self.vars.get(s)).and_then(Var::num);
        match held {
            Some(Num::Int(i)) => i,
            _ => self.default_seed,
        }
    }

    /// Evaluates the drawn script's commands from `pc` on. Before the clock (`now` false): the
    /// statements and sleeps go into the plan, up to and including the first statement with a
    /// `\gset`/`\aset` (where the evaluation resumes once it ran). While it runs (`now`): they
    /// run at once. `Ok(false)`: a stop request woke a sleep.
    fn walk(&mut self, mut pc: usize, now: bool) -> Result<bool, EngineError> {
        let script = self.scripts[self.current].0;
        while let Some(c) = script.commands.get(pc) {
            pc += 1;
            match c {
                Command::Set { slot, expr, line } => {
                    let default_seed = self.default_seed_now();
                    let mut env = Env {
                        vars: &self.vars,
                        names: &self.loaded.vars.names,
                        rng: &mut self.rng,
                        default_seed,
                    };
                    let v = expr.eval(&mut env).map_err(|e| self.at_line(*line, e))?;
                    self.vars[*slot] = Var::Num(v);
                }
                Command::If { cond, skip_to, line } => {
                    let default_seed = self.default_seed_now();
                    let mut env = Env {
                        vars: &self.vars,
                        names: &self.loaded.vars.names,
                        rng: &mut self.rng,
                        default_seed,
                    };
                    let taken = super::expr::truth(cond.eval(&mut env).map_err(|e| self.at_line(*line, e))?);
                    if !taken {
                        pc = *skip_to;
                    }
                }
                Command::Goto { to } => pc = *to,
                Command::Sleep { amount, unit_ns, line } => {
                    let n = match amount {
                        Amount::Fixed(n) => *n,
                        Amount::Var(s) => match self.vars[*s].num() {
                            Some(Num::Int(n)) => n,
                            other => {
                                return Err(self.at_line(
                                    *line,
                                    format!("\\sleep needs a whole number, the variable holds {other:?}"),
                                ))
                            }
                        },
                    };
                    let ns = (n.max(0) as u64).saturating_mul(*unit_ns);
                    if !now {
                        self.plan.push(Action::Sleep(ns));
                    } else if !sleep(ns) {
                        return Ok(false);
                    }
                }
                Command::Sql(s) => {
                    if now {
                        self.run_sql(pc - 1)?;
                    } else {
                        self.plan.push(Action::Sql(pc - 1));
                        if s.store.is_some() {
                            self.resume = Some(pc);
                            return Ok(true);
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    /// An error of the drawn script's command on `line`.
    fn at_line(&self, line: usize, e: impl std::fmt::Display) -> EngineError {
        self.fail(format!("{}:{line}: {e}", self.loaded.scripts[self.current].name))
    }

    /// Runs the statement of command `at` of the drawn script, timed, and keeps its result where
    /// a `\gset`/`\aset` asks. Its values are bound from the stack, not from a vector allocated
    /// per transaction (a statement with more than [`STACK_VALUES`] variables, which no real
    /// script has, takes one).
    fn run_sql(&mut self, at: usize) -> Result<(), EngineError> {
        self.prepare_late(at)?;
        let (_, steps, file) = &self.scripts[self.current];
        let Step::Sql {
            stmt: Some(stmt),
            vars,
            op,
            line,
            keep,
            ..
        } = &steps[at]
        else {
            return Ok(());
        };
        let rows = {
            let mut stack = [Value::Null; STACK_VALUES];
            let heap: Vec<Value<'_>>;
            let values: &[Value<'_>] = if vars.len() <= STACK_VALUES {
                for (slot, &v) in stack.iter_mut().zip(vars) {
                    *slot = bound(&self.vars[v]);
                }
                &stack[..vars.len()]
            } else {
                heap = vars.iter().map(|&v| bound(&self.vars[v])).collect();
                &heap
            };
            let t0 = self.clock.now();
            let rows = match keep {
                None => self.conn.run(*stmt, values),
                Some(_) => {
                    self.values.clear();
                    self.conn.run_values(*stmt, values, &mut self.values)
                }
            }
            .map_err(|e| at_statement(e, file, *line))?;
            let ns = self.clock.ns_between(t0, self.clock.now());
            self.parts.push((*op, ns));
            rows
        };
        let Some(keep) = keep else {
            return Ok(());
        };
        // pgbench's wording, for no row and for several.
        if !keep.all_rows && rows != 1 {
            let e = self.fail(format!("expected one row, got {rows}"));
            return Err(at_statement(e, file, *line));
        }
        if rows == 0 {
            return Ok(());
        }
        let width = keep.targets.len();
        let last = (rows as usize - 1) * width;
        for (c, target) in keep.targets.iter().enumerate() {
            if let Some(slot) = target {
                let boolean = keep.booleans.get(c).copied().unwrap_or(false);
                put(&mut self.vars[*slot], self.values.get(last + c), boolean);
            }
        }
        Ok(())
    }

    /// Prepares the statement of command `at` of the drawn script where that waited for its
    /// first run (a statement in an `\if` branch the engine refused before the trial): once,
    /// so the statements prepared before cost one test of an `Option` each.
    fn prepare_late(&mut self, at: usize) -> Result<(), EngineError> {
        let (_, steps, file) = &mut self.scripts[self.current];
        if let Step::Sql {
            stmt: stmt @ None,
            sql,
            line,
            ..
        } = &mut steps[at]
        {
            let begin = self.conn.begin_knob();
            let id = self
                .conn
                .prepare(bare_begin::statement(sql, begin))
                .map_err(|e| at_statement(e, file, *line))?;
            *stmt = Some(id);
        }
        Ok(())
    }

    /// Runs the drawn script: the transaction's timed region.
    fn run(&mut self) -> Result<(), EngineError> {
        for k in 0..self.plan.len() {
            match self.plan[k] {
                Action::Sql(at) => self.run_sql(at)?,
                // Woken by a stop request, however long (`\sleep 604800 s`): the trial is
                // being discarded, so the rest of the script does not run.
                Action::Sleep(ns) => {
                    if !sleep(ns) {
                        return Ok(());
                    }
                }
            }
        }
        if let Some(pc) = self.resume {
            self.walk(pc, true)?;
        }
        Ok(())
    }
}

/// Sleeps `ns`; false when a stop request woke it.
fn sleep(ns: u64) -> bool {
    crate::sys::signals::sleep(std::time::Duration::from_nanos(ns))
}

/// A script's refusal found reading its queries' columns.
fn column_error(message: String) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: "script".into(),
        kind: ErrorKind::Input,
        code: None,
        message,
        context: "reading the columns of the scripts' queries".into(),
    }
}

/// What the `\gset`/`\aset` `store` after prepared statement `stmt` keeps, and the variables
/// its columns name; a column that names no variable is refused as pgbench refuses it when it
/// stores one. `at`: the statement's file and line.
fn keep_of(
    conn: &mut dyn Connection,
    stmt: StmtId,
    store: &Store,
    loaded: &Loaded,
    (file, line): (&str, usize),
) -> Result<(Keep, Vec<String>), EngineError> {
    let names: Vec<String> = conn
        .column_names(stmt)
        .map_err(|e| at_statement(e, file, line))?
        .into_iter()
        .map(|n| format!("{}{n}", store.prefix))
        .collect();
    if let Some(bad) = names.iter().find(|n| !valid_variable_name(n)) {
        return Err(column_error(format!(
            "{file}:{line}: error storing into variable {bad}; name the column with AS (letters, digits and _)"
        )));
    }
    let keep = Keep {
        all_rows: store.all_rows,
        targets: names.iter().map(|n| loaded.vars.slot(n)).collect(),
        booleans: conn.boolean_columns(stmt),
    };
    Ok((keep, names))
}

/// pgbench's `valid_variable_name`, which a `\gset` column's name must pass: letters, `_` and
/// any non-ASCII character, and digits after the first.
fn valid_variable_name(name: &str) -> bool {
    let ok =
        |c: char, first: bool| !c.is_ascii() || c.is_ascii_alphabetic() || c == '_' || (!first && c.is_ascii_digit());
    let mut chars = name.chars();
    chars.next().is_some_and(|c| ok(c, true)) && chars.all(|c| ok(c, false))
}

/// Which commands of `script` sit in an `\if` branch: after an `\if`/`\elif` up to where it
/// goes when false, and after the jump that ends a branch up to where it goes.
fn in_branches(script: &Script) -> Vec<bool> {
    let mut inside = vec![false; script.commands.len()];
    for (k, c) in script.commands.iter().enumerate() {
        let to = match c {
            Command::If { skip_to, .. } => *skip_to,
            Command::Goto { to } => *to,
            _ => continue,
        };
        for flag in inside.iter_mut().take(to).skip(k + 1) {
            *flag = true;
        }
    }
    inside
}

/// A result's value into its variable, as pgbench stores it (as text; a NULL as the empty
/// string): a number as a number (read back the same in expressions, bound as a number), an
/// SQL boolean as pgbench's `t` or `f` (read back as a boolean), text into the variable's own
/// string, so that a warmed client allocates nothing.
fn put(var: &mut Var, cell: CellRef<'_>, boolean: bool) {
    let text = match cell {
        CellRef::Int(i) if boolean => {
            if i != 0 {
                &b"t"[..]
            } else {
                b"f"
            }
        }
        CellRef::Int(i) => {
            *var = Var::Num(Num::Int(i));
            return;
        }
        CellRef::Real(x) | CellRef::Decimal { value: x, .. } => {
            *var = Var::Num(Num::Float(x));
            return;
        }
        CellRef::Null => &[][..],
        CellRef::Text(t) | CellRef::Blob(t) => t,
    };
    let text = String::from_utf8_lossy(text);
    match var {
        Var::Text(s) => {
            s.clear();
            s.push_str(&text);
        }
        _ => *var = Var::Text(text.into_owned()),
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
        self.plan.clear();
        self.resume = None;
        self.failure = self.walk(0, false).err();
        self.current
    }

    fn execute(&mut self) -> Result<bool, EngineError> {
        self.parts.clear();
        // Kept for a retry of the same draw, which fails the same way.
        if let Some(f) = &self.failure {
            return Err(f.clone());
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

    fn parts(&mut self) -> &[(usize, u64)] {
        &self.parts
    }
}
