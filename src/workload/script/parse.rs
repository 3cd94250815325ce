//! A script file read into commands: `\set`, `\sleep`, `\if` blocks and SQL statements (with
//! their `\gset`/`\aset`), in order, with every variable resolved to a slot of the client's
//! variable table. Everything that can be wrong with a script is found here, before anything
//! runs, and reported as one line naming the file, line and column; but for one thing: the
//! variables a `\gset` sets are named by its query's columns, which only the engine knows once
//! it has prepared the statement, so a variable first met after a `\gset` is checked when the
//! client prepares its statements ([`Script::pending`]).
//!
//! `\if`/`\elif`/`\else`/`\endif` become jumps: an `\if` or `\elif` that is false goes on at
//! the next branch, a branch that ran goes on after its `\endif`, so a branch not taken runs and
//! evaluates nothing and reading stays one pass over the file.

use super::expr::{self, Expr};
use super::sql;
use crate::engines::sql_lex::{LineIndex, NUL_BYTE};
use crate::workload::file_reach;

/// A script error: `file:line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ScriptError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The variables of a run's scripts, shared by all of them (a client's variables live across
/// its transactions, as in pgbench): name to slot.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    pub names: Vec<String>,
    /// Slots made for a variable first used after a `\gset`/`\aset`, which a query's column
    /// must set ([`Script::pending`]); a `\set` or a definition makes one a variable of its own.
    pub by_query: Vec<usize>,
}

impl Vars {
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
    /// The slot of a variable a `\set` or a definition made.
    fn known(&self, name: &str) -> Option<usize> {
        self.slot(name).filter(|s| !self.by_query.contains(s))
    }
    pub fn add(&mut self, name: &str) -> usize {
        let slot = self.slot(name).unwrap_or_else(|| {
            self.names.push(name.to_string());
            self.names.len() - 1
        });
        self.by_query.retain(|s| *s != slot);
        slot
    }
    /// The slot of a variable only a query's column may set.
    fn add_by_query(&mut self, name: &str) -> usize {
        self.slot(name).unwrap_or_else(|| {
            self.names.push(name.to_string());
            self.by_query.push(self.names.len() - 1);
            self.names.len() - 1
        })
    }
}

/// Deepest `\if` blocks may nest.
pub const MAX_IF_DEPTH: usize = 256;

/// How a statement bears on the transaction it runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// `BEGIN`, `START TRANSACTION`.
    Begin,
    /// `COMMIT`, `END`, `ROLLBACK`.
    End,
    Other,
}

/// One SQL statement of a script.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The text as prepared: variables replaced by `?`.
    pub sql: String,
    /// The variable bound to each placeholder, in order.
    pub vars: Vec<usize>,
    /// The line it starts on (1-based).
    pub line: usize,
    /// Its command and table (`UPDATE pgbench_accounts`).
    pub label: String,
    pub control: Control,
    /// `\gset`/`\aset` after it: its result goes into variables.
    pub store: Option<Store>,
}

/// What a `\gset [prefix]` or `\aset [prefix]` keeps of its statement's result: each column
/// into the variable named by the prefix and the column's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    /// `\aset`: every row, the last one winning, none setting nothing; `\gset`: exactly one row.
    pub all_rows: bool,
    pub prefix: String,
}

/// A variable first used after a `\gset`/`\aset`: a column of one of the queries before it
/// must set it, which is checked when the statements are prepared and their columns known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub name: String,
    /// The command that uses it (a query before it must set it).
    pub command: usize,
    pub line: usize,
    pub column: usize,
}

/// How long a `\sleep` is.
#[derive(Debug, Clone, PartialEq)]
pub enum Amount {
    Fixed(i64),
    Var(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Set {
        slot: usize,
        expr: Expr,
        line: usize,
    },
    Sleep {
        amount: Amount,
        unit_ns: u64,
        line: usize,
    },
    Sql(Statement),
    /// `\if` or `\elif`: when `cond` is false, go on at command `skip_to` (the next branch, or
    /// after the `\endif`).
    If {
        cond: Expr,
        skip_to: usize,
        line: usize,
    },
    /// The end of a branch that ran: go on at command `to`, after its `\endif`.
    Goto {
        to: usize,
    },
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub commands: Vec<Command>,
    /// Variables only a `\gset`/`\aset` before them can set.
    pub pending: Vec<Pending>,
}

/// An open `\if` block while reading.
struct Block {
    /// The `\if`/`\elif` whose `skip_to` is not known yet (none after `\else`).
    test: Option<usize>,
    /// The `Goto`s at the ends of its branches, to point after the `\endif`.
    exits: Vec<usize>,
    /// Where its `\if` is, for "missing \endif".
    at: usize,
}

impl Script {
    pub fn statements(&self) -> impl Iterator<Item = &Statement> {
        self.commands.iter().filter_map(|c| match c {
            Command::Sql(s) => Some(s),
            _ => None,
        })
    }
}

/// What a meta-command line is.
enum Meta {
    Command(Command),
    /// `\set`: the variable is made once its expression is read (it may use the old value).
    Set {
        target: String,
        expr: Expr,
    },
    If(Expr),
    Elif(Expr),
    Else,
    Endif,
    Store(Store),
}

/// The refusal of a variable no command before it sets.
fn unknown_variable(name: &str) -> String {
    format!("unknown variable :{name}; set it with \\set on an earlier line or give --param define={name}=VALUE")
}

/// Parses `src`, named `file` in errors. `vars` holds the variables known before the script
/// (predefined and `--param define`); each `\set` adds its own, known from the next command on.
pub fn parse(file: &str, src: &str, vars: &mut Vars, backslash_escapes: bool) -> Result<Script, ScriptError> {
    let lines = LineIndex::new(src);
    let err = |at: usize, message: String| {
        let (line, column) = lines.line_col(at);
        ScriptError {
            file: file.to_string(),
            line,
            column,
            message,
        }
    };
    if let Some(nul) = src.find('\0') {
        return Err(err(nul, NUL_BYTE.into()));
    }
    let b = src.as_bytes();
    let mut commands: Vec<Command> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    // A statement with a `\gset`/`\aset` came before: an unknown variable may be its column.
    let mut stored = false;
    // The last command was an SQL statement that no `\gset`/`\aset` took yet.
    let mut storable = false;
    let mut i = 0;
    loop {
        i = skip_blanks(b, i);
        if i >= b.len() {
            break;
        }
        if b[i] == b'\\' {
            let end = meta_end(b, i);
            let line = lines.line(i);
            let here = commands.len();
            let mut lookup = |name: &str| -> Option<usize> {
                vars.known(name).or_else(|| {
                    stored.then(|| {
                        let column = lines.line_col(i).1;
                        pending.push(Pending {
                            name: name.to_string(),
                            command: here,
                            line,
                            column,
                        });
                        vars.add_by_query(name)
                    })
                })
            };
            let m = meta(src, i, end, &mut lookup, line, &err)?;
            let was_storable = std::mem::replace(&mut storable, false);
            match m {
                Meta::Command(c) => commands.push(c),
                Meta::Set { target, expr } => {
                    let slot = vars.add(&target);
                    commands.push(Command::Set { slot, expr, line });
                }
                Meta::If(cond) => {
                    open_if(&mut blocks, &mut commands, cond, i, line).map_err(|m| err(i, m.to_string()))?
                }
                Meta::Elif(cond) => elif(&mut blocks, &mut commands, cond, line).map_err(|m| err(i, m.to_string()))?,
                Meta::Else => otherwise(&mut blocks, &mut commands).map_err(|m| err(i, m.to_string()))?,
                Meta::Endif => endif(&mut blocks, &mut commands).map_err(|m| err(i, m.to_string()))?,
                Meta::Store(store) => {
                    let what = if store.all_rows { "\\aset" } else { "\\gset" };
                    let last = commands.last_mut().filter(|_| was_storable);
                    let Some(Command::Sql(statement)) = last else {
                        return Err(err(i, format!("{what} must follow an SQL command")));
                    };
                    statement.store = Some(store);
                    stored = true;
                }
            }
            i = end;
            continue;
        }
        let s = sql::statement(src, i, backslash_escapes).map_err(|(at, m)| err(at, m))?;
        if let Some((at, m)) = file_reach::first_refusal(src, i, s.end, backslash_escapes) {
            return Err(err(at, m));
        }
        let text = s.text.trim();
        if !text.is_empty() {
            let slots = statement_slots(&s.vars, vars, stored, commands.len(), &lines, &mut pending)
                .map_err(|(at, m)| err(at, m))?;
            let label = sql::label(text);
            let control = match label.as_str() {
                "BEGIN" | "START" => Control::Begin,
                "COMMIT" | "END" | "ROLLBACK" => Control::End,
                _ => Control::Other,
            };
            let lead = s.text.len() - s.text.trim_start().len();
            commands.push(Command::Sql(Statement {
                sql: text.to_string(),
                vars: slots,
                line: lines.line(i + lead),
                label,
                control,
                store: None,
            }));
            storable = true;
        }
        i = s.end;
    }
    if let Some(open) = blocks.last() {
        return Err(err(open.at, "\\if without matching \\endif".into()));
    }
    if !commands.iter().any(|c| matches!(c, Command::Sql(_))) {
        return Err(err(src.len(), "the script has no SQL statement".into()));
    }
    Ok(Script { commands, pending })
}

/// The slots of a statement's `:name`s: a known variable's, else, after a `\gset`/`\aset`, one a
/// query will store (pending until it does); else the unknown name is refused at its offset.
fn statement_slots(
    names: &[(String, usize)],
    vars: &mut Vars,
    stored: bool,
    command: usize,
    lines: &LineIndex,
    pending: &mut Vec<Pending>,
) -> Result<Vec<usize>, (usize, String)> {
    let mut slots = Vec::with_capacity(names.len());
    for (name, at) in names {
        let slot = match vars.known(name) {
            Some(slot) => slot,
            None if stored => {
                let (line, column) = lines.line_col(*at);
                pending.push(Pending {
                    name: name.clone(),
                    command,
                    line,
                    column,
                });
                vars.add_by_query(name)
            }
            None => return Err((*at, unknown_variable(name))),
        };
        slots.push(slot);
    }
    Ok(slots)
}

/// The offset of the next command from `i`: past blanks and `--` line comments.
fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i] == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            break;
        }
    }
    i
}

/// Why an `\if` block's meta-command is out of place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum BlockError {
    #[error(
        "\\if blocks nest deeper than {} levels; close some with \\endif first",
        MAX_IF_DEPTH
    )]
    TooDeep,
    #[error("\\{0} without matching \\if")]
    NoIf(&'static str),
    #[error("\\{0} after \\else")]
    AfterElse(&'static str),
}

/// `\if cond` at offset `at`: a block opens, its test jumps past the branch when false (the
/// target is set by what closes the branch).
fn open_if(
    blocks: &mut Vec<Block>,
    commands: &mut Vec<Command>,
    cond: Expr,
    at: usize,
    line: usize,
) -> Result<(), BlockError> {
    if blocks.len() >= MAX_IF_DEPTH {
        return Err(BlockError::TooDeep);
    }
    blocks.push(Block {
        test: Some(commands.len()),
        exits: Vec::new(),
        at,
    });
    commands.push(Command::If { cond, skip_to: 0, line });
    Ok(())
}

/// `\elif cond`: the branch before it jumps to the `\endif`, the test before it here.
fn elif(blocks: &mut [Block], commands: &mut Vec<Command>, cond: Expr, line: usize) -> Result<(), BlockError> {
    let block = blocks.last_mut().ok_or(BlockError::NoIf("elif"))?;
    let test = block.test.ok_or(BlockError::AfterElse("elif"))?;
    block.exits.push(commands.len());
    commands.push(Command::Goto { to: 0 });
    let next = commands.len();
    skip_to(&mut commands[test], next);
    block.test = Some(commands.len());
    commands.push(Command::If { cond, skip_to: 0, line });
    Ok(())
}

/// `\else`: the branch before it jumps to the `\endif`, the test before it here.
fn otherwise(blocks: &mut [Block], commands: &mut Vec<Command>) -> Result<(), BlockError> {
    let block = blocks.last_mut().ok_or(BlockError::NoIf("else"))?;
    let test = block.test.take().ok_or(BlockError::AfterElse("else"))?;
    block.exits.push(commands.len());
    commands.push(Command::Goto { to: 0 });
    let next = commands.len();
    skip_to(&mut commands[test], next);
    Ok(())
}

/// `\endif`: every jump out of the block's branches, and its last test, land here.
fn endif(blocks: &mut Vec<Block>, commands: &mut [Command]) -> Result<(), BlockError> {
    let block = blocks.pop().ok_or(BlockError::NoIf("endif"))?;
    let after = commands.len();
    if let Some(test) = block.test {
        skip_to(&mut commands[test], after);
    }
    for exit in block.exits {
        commands[exit] = Command::Goto { to: after };
    }
    Ok(())
}

/// Points the `\if`/`\elif` `test` at command `to` for when it is false.
fn skip_to(test: &mut Command, to: usize) {
    if let Command::If { skip_to, .. } = test {
        *skip_to = to;
    }
}

/// The words after a meta-command's name, each with its byte offset in the file.
fn words(src: &str, from: usize, to: usize) -> Vec<(usize, &str)> {
    let rest = &src[from..to];
    rest.split_whitespace()
        .map(|w| (from + (w.as_ptr() as usize - rest.as_ptr() as usize), w))
        .filter_map(|(at, w)| {
            // A line continuation's backslash is a blank, not part of a word.
            let continued = w.ends_with('\\') && src[at + w.len()..].starts_with(['\n', '\r']);
            let w = if continued { &w[..w.len() - 1] } else { w };
            (!w.is_empty()).then_some((at, w))
        })
        .collect()
}

/// Where the meta-command starting at `i` ends: at the end of its line, where a line ending in
/// a backslash goes on on the next one (pgbench's continuation: `\set x 1 +\` then ` 2`).
fn meta_end(b: &[u8], i: usize) -> usize {
    let mut at = i;
    while let Some(p) = b[at..].iter().position(|&c| c == b'\n') {
        let nl = at + p;
        let before = if nl > i && b[nl - 1] == b'\r' { nl - 1 } else { nl };
        if before > i + 1 && b[before - 1] == b'\\' {
            at = nl + 1;
        } else {
            return nl;
        }
    }
    b.len()
}

/// `\sleep N [unit]`, `\sleep Nunit` or `\sleep :var [unit]` on `src[from..to]`, as pgbench reads
/// it: the number may be signed (a negative sleep sleeps zero), a unit may follow it with no space
/// (`\sleep 2ms`), and the units are `us`, `ms` and `s` in any case (seconds when none is given).
fn sleep(
    src: &str,
    from: usize,
    to: usize,
    var: &mut dyn FnMut(&str) -> Option<usize>,
    line: usize,
    err: &dyn Fn(usize, String) -> ScriptError,
) -> Result<Command, ScriptError> {
    let words = words(src, from, to);
    let Some(&(w_at, w)) = words.first() else {
        return Err(err(
            from,
            "\\sleep: missing argument: \\sleep N [us|ms|s] or \\sleep :var [us|ms|s]".into(),
        ));
    };
    if let Some(&(x_at, _)) = words.get(2) {
        return Err(err(x_at, "\\sleep: too many arguments".into()));
    }
    let mut unit = words.get(1).copied();
    let amount = if let Some(v) = w.strip_prefix(':') {
        Amount::Var(var(v).ok_or_else(|| err(w_at, unknown_variable(v)))?)
    } else {
        let digits_at = usize::from(w.starts_with(['+', '-']));
        let digits = w[digits_at..].bytes().take_while(u8::is_ascii_digit).count();
        let number_len = digits_at + digits;
        let glued = number_len < w.len();
        // `1.5`, `1.5ms`, `1e3`: a number pgbench does not take, said as one (not as a unit
        // `.5ms`).
        let rest = &w[number_len..];
        let float = digits > 0
            && (rest.starts_with('.')
                || (rest.starts_with(['e', 'E'])
                    && rest[1..].starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')));
        if digits == 0 || (glued && unit.is_some()) || float {
            let hint = if float {
                "; \\sleep takes whole units: give a smaller unit (1.5 ms is \\sleep 1500 us)"
            } else {
                ""
            };
            return Err(err(
                w_at,
                format!("\\sleep: invalid sleep time, must be an integer or a :variable: {w}{hint}"),
            ));
        }
        if glued {
            unit = Some((w_at + number_len, &w[number_len..]));
        }
        // Past i64 it saturates: a sleep that long ends only with the run.
        let n = w[..number_len]
            .parse::<i64>()
            .unwrap_or(if w.starts_with('-') { 0 } else { i64::MAX });
        Amount::Fixed(n)
    };
    let unit_ns = match unit.map(|(at, u)| (at, u.to_ascii_lowercase())) {
        None => 1_000_000_000,
        Some((_, u)) if u == "s" => 1_000_000_000,
        Some((_, u)) if u == "ms" => 1_000_000,
        Some((_, u)) if u == "us" => 1_000,
        Some((at, _)) => {
            let u = unit.map_or("", |u| u.1);
            return Err(err(
                at,
                format!("\\sleep: unrecognized time unit, must be us, ms or s: {u}"),
            ));
        }
    };
    Ok(Command::Sleep { amount, unit_ns, line })
}

/// The meta-command on `src[at..end]`, line `line` (one line).
fn meta(
    src: &str,
    at: usize,
    end: usize,
    var: &mut dyn FnMut(&str) -> Option<usize>,
    line: usize,
    err: &dyn Fn(usize, String) -> ScriptError,
) -> Result<Meta, ScriptError> {
    let line_text = &src[at..end];
    // pgbench's expression scanner knows no comments: in `\set` and `\if`/`\elif`, `--` is two
    // minus signs (`\set x 2--5` is 7, and `\set z 10 -- note` a syntax error). In the other
    // meta-commands a line comment ends the command.
    let head = line_text[1..]
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let expression_command = matches!(head.as_str(), "set" | "if" | "elif");
    let body = match line_text.find("--") {
        Some(p) if !expression_command => &line_text[..p],
        _ => line_text,
    }
    .trim_end();
    let name_len = body[1..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len() - 1);
    let name = &body[1..1 + name_len];
    let rest_at = at + 1 + name_len;
    let body_end = at + body.len();
    let expression = |var: &mut dyn FnMut(&str) -> Option<usize>| {
        expr::parse(&src[rest_at..body_end], var).map_err(|(p, m)| err(rest_at + p, m))
    };
    let no_argument = |what: Meta| match words(src, rest_at, body_end).first() {
        Some(&(w_at, w)) => Err(err(w_at, format!("\\{name}: unexpected argument {w}"))),
        None => Ok(what),
    };
    match name.to_ascii_lowercase().as_str() {
        "set" => {
            let rest = &src[rest_at..body_end];
            let skip = rest.len() - rest.trim_start().len();
            let var_at = rest_at + skip;
            let after = &rest[skip..];
            let var_len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let target = &after[..var_len];
            if target.is_empty() || !target.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                return Err(err(
                    var_at,
                    "\\set needs a variable name (letters, digits, _) and an expression".into(),
                ));
            }
            let expr_at = var_at + var_len;
            let text = &src[expr_at..body_end];
            let expr = expr::parse(text, var).map_err(|(p, m)| err(expr_at + p, m))?;
            Ok(Meta::Set {
                target: target.to_string(),
                expr,
            })
        }
        "sleep" => sleep(src, rest_at, body_end, var, line, err).map(Meta::Command),
        "if" => expression(var).map(Meta::If),
        "elif" => expression(var).map(Meta::Elif),
        "else" => no_argument(Meta::Else),
        "endif" => no_argument(Meta::Endif),
        "gset" | "aset" => {
            let words = words(src, rest_at, body_end);
            if let Some(&(w_at, _)) = words.get(1) {
                return Err(err(w_at, format!("\\{name}: too many arguments")));
            }
            let prefix = words.first().map_or("", |w| w.1);
            if !prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(err(
                    words[0].0,
                    format!("\\{name} {prefix}: a prefix is letters, digits and _"),
                ));
            }
            Ok(Meta::Store(Store {
                all_rows: name.eq_ignore_ascii_case("aset"),
                prefix: prefix.to_string(),
            }))
        }
        refused @ ("shell" | "setshell" | "startpipeline" | "endpipeline" | "syncpipeline") => Err(err(
            at,
            format!("\\{refused} is not supported: litebench runs no shell commands and no pipelines (see docs/workloads.md)"),
        )),
        "" => Err(err(
            at,
            "a lone backslash: expected a meta-command (\\set, \\sleep, \\if, \\gset, ...)".into(),
        )),
        other => Err(err(
            at,
            format!(
                "unknown meta-command \\{other}; litebench's scripts have \\set, \\sleep, \\if/\\elif/\\else/\\endif, \\gset and \\aset (see docs/workloads.md)"
            ),
        )),
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_out_of_place_says_which_and_why() {
        let mut commands = Vec::new();
        assert_eq!(otherwise(&mut [], &mut commands), Err(BlockError::NoIf("else")));
        assert_eq!(endif(&mut Vec::new(), &mut commands), Err(BlockError::NoIf("endif")));
        let mut blocks = [Block {
            test: None,
            exits: Vec::new(),
            at: 0,
        }];
        let e = elif(&mut blocks, &mut commands, Expr::Num(expr::Num::Int(1)), 1).unwrap_err();
        assert_eq!(
            (e.clone(), e.to_string()),
            (BlockError::AfterElse("elif"), "\\elif after \\else".into())
        );
        assert!(commands.is_empty(), "nothing is added by a refused branch");
    }

    fn vars() -> Vars {
        Vars {
            names: vec!["scale".into()],
            by_query: Vec::new(),
        }
    }

    fn parse_ok(src: &str) -> (Script, Vars) {
        let mut v = vars();
        let s = parse("t.sql", src, &mut v, false).unwrap_or_else(|e| panic!("{e}"));
        (s, v)
    }

    fn parse_err(src: &str) -> String {
        parse("t.sql", src, &mut vars(), false).unwrap_err().to_string()
    }

    #[test]
    fn reads_sets_sleeps_and_statements_in_order() {
        let (s, v) = parse_ok(
            "-- a comment\n\\set aid random(1, 100000 * :scale)\n\\set delta random(-5000, 5000)\nBEGIN;\nUPDATE a SET b = b + :delta\n  WHERE aid = :aid;\n\\sleep 2 ms\nSELECT ':aid', x::text FROM a WHERE aid = :aid; END;\n",
        );
        assert_eq!(v.names, vec!["scale", "aid", "delta"]);
        let stmts: Vec<&Statement> = s.statements().collect();
        assert_eq!(stmts.len(), 4);
        assert_eq!(stmts[0].control, Control::Begin);
        assert_eq!(stmts[1].sql, "UPDATE a SET b = b + ?\n  WHERE aid = ?");
        assert_eq!(stmts[1].vars, vec![2, 1]);
        assert_eq!((stmts[1].line, stmts[1].label.as_str()), (5, "UPDATE a"));
        assert_eq!(stmts[2].sql, "SELECT ':aid', x::text FROM a WHERE aid = ?");
        assert_eq!(stmts[2].line, 8);
        assert_eq!(stmts[3].control, Control::End);
        assert!(matches!(
            s.commands[4],
            Command::Sleep {
                amount: Amount::Fixed(2),
                unit_ns: 1_000_000,
                line: 7
            }
        ));
    }

    /// As pgbench's scanner: `--` in `\set` and `\if` is two minus signs, never a comment
    /// (litebench read `\set x 2--5` as 2, silently); elsewhere it starts a comment.
    #[test]
    fn a_double_minus_in_an_expression_is_two_minus_signs() {
        let (s, _) = parse_ok("\\set x 2--5\nSELECT :x;\n");
        match &s.commands[0] {
            Command::Set { expr, .. } => assert_eq!(
                *expr,
                crate::workload::script::expr::Expr::Num(crate::workload::script::expr::Num::Int(7))
            ),
            other => panic!("{other:?}"),
        }
        let e = parse_err("\\set z 10 -- note\nSELECT 1;\n");
        assert!(e.starts_with("t.sql:1:"), "{e}");
        assert!(parse_err("\\if 1 -- note\nSELECT 1;\n\\endif\n").starts_with("t.sql:1:"));
        let (s, _) = parse_ok("\\sleep 2 ms -- a pause\nSELECT 1;\n");
        assert!(matches!(s.commands[0], Command::Sleep { .. }));
    }

    /// pgbench joins a meta-command line ending in a backslash to the next (its own test's
    /// `\\set c8 debug(CASE \\` over five lines); litebench refused the backslash.
    #[test]
    fn a_backslash_at_the_end_of_a_meta_command_continues_it() {
        use crate::workload::script::expr::{Expr, Num};
        let (s, _) = parse_ok("\\set x 1 + \\\n  2 \\\r\n * 3\nSELECT :x;\n\\sleep 2 \\\nms\nSELECT 2;\n");
        assert!(matches!(
            &s.commands[0],
            Command::Set {
                expr: Expr::Num(Num::Int(7)),
                line: 1,
                ..
            }
        ));
        let stmts: Vec<(usize, &str)> = s.statements().map(|st| (st.line, st.sql.as_str())).collect();
        assert_eq!(stmts, [(4, "SELECT ?"), (7, "SELECT 2")]);
        assert!(matches!(
            s.commands[2],
            Command::Sleep {
                amount: Amount::Fixed(2),
                unit_ns: 1_000_000,
                line: 5
            }
        ));
        // An error after the continuation names the line it is on.
        assert_eq!(
            parse_err("\\set x 1 + \\\n  2 +\nSELECT 1;\n"),
            "t.sql:2:6: expected a number, a :variable, a function or '(', found the end of the line"
        );
    }

    #[test]
    fn a_nul_byte_is_refused_with_file_line_and_column() {
        // Before: SQLite saw the statement end at the NUL and said "not an error".
        assert_eq!(
            parse_err("\\set x 1\nSELECT :x;\nSELECT 1 \0+ 2;\n"),
            format!("t.sql:3:10: {NUL_BYTE}")
        );
    }

    #[test]
    fn reading_is_linear_in_the_size_of_the_script() {
        use crate::engines::sql_lex::position_work;
        let parse_n = |n: usize| {
            let src = "\\set k random(1, 100)\nUPDATE t SET v = v + 1 WHERE k = :k;\n".repeat(n);
            let before = position_work();
            let (script, _) = parse_ok(&src);
            assert_eq!(script.commands.len(), 2 * n);
            (position_work() - before, src.len() as u64)
        };
        let (small, small_bytes) = parse_n(1_000);
        let (large, large_bytes) = parse_n(4_000);
        assert!(large <= 2 * large_bytes, "{large} units for {large_bytes} bytes");
        assert!(
            large * small_bytes <= small * large_bytes * 5 / 4,
            "4 times the script, {large} units against {small}"
        );
    }

    #[test]
    fn errors_name_file_line_and_column() {
        assert_eq!(
            parse_err("SELECT 1;\n  \\gsetx\n"),
            "t.sql:2:3: unknown meta-command \\gsetx; litebench's scripts have \\set, \\sleep, \\if/\\elif/\\else/\\endif, \\gset and \\aset (see docs/workloads.md)"
        );
        assert_eq!(
            parse_err("SELECT 1;\nSELECT * FROM t WHERE k = :nokey;"),
            "t.sql:2:27: unknown variable :nokey; set it with \\set on an earlier line or give --param define=nokey=VALUE"
        );
        assert_eq!(
            parse_err("\\set x 1 +\nSELECT 1;"),
            "t.sql:1:11: expected a number, a :variable, a function or '(', found the end of the line"
        );
        assert_eq!(
            parse_err("\\set x random(1, 2, 3)\nSELECT 1;"),
            "t.sql:1:8: random takes 2 arguments, not 3"
        );
        assert_eq!(parse_err("\\set x\nSELECT 1;"), "t.sql:1:7: expected an expression");
        assert_eq!(parse_err("\\set 1x 2\nSELECT 1;").split(": ").next(), Some("t.sql:1:6"));
        assert_eq!(parse_err("SELECT 'ab\n\ncd"), "t.sql:1:8: unterminated string literal");
        assert_eq!(
            parse_err("\\sleep 10 hours\nSELECT 1;"),
            "t.sql:1:11: \\sleep: unrecognized time unit, must be us, ms or s: hours"
        );
        assert_eq!(
            parse_err("\\sleep :zz\nSELECT 1;").split(": ").next(),
            Some("t.sql:1:8")
        );
        assert_eq!(parse_err("-- nothing\n"), "t.sql:2:1: the script has no SQL statement");
        // A variable is known only after the \set that makes it.
        assert_eq!(parse_err("SELECT :x;\n\\set x 1").split(": ").next(), Some("t.sql:1:8"));
        // Columns count characters, not bytes.
        assert_eq!(parse_err("SELECT 'é', :nope;").split(": ").next(), Some("t.sql:1:13"));
    }

    /// The commands' kinds, jumps with their targets: `S` SQL, `=` `\set`, `z` `\sleep`,
    /// `?N` an `\if`/`\elif` going to N when false, `>N` a jump to N.
    fn shape(s: &Script) -> Vec<String> {
        s.commands
            .iter()
            .map(|c| match c {
                Command::Sql(_) => "S".to_string(),
                Command::Set { .. } => "=".into(),
                Command::Sleep { .. } => "z".into(),
                Command::If { skip_to, .. } => format!("?{skip_to}"),
                Command::Goto { to } => format!(">{to}"),
            })
            .collect()
    }

    #[test]
    fn if_blocks_become_jumps_past_the_branches_not_taken() {
        let (s, _) =
            parse_ok("\\if :scale\nSELECT 1;\n\\elif :scale - 1\nSELECT 2;\n\\else\nSELECT 3;\n\\endif\nSELECT 4;\n");
        assert_eq!(shape(&s), ["?3", "S", ">7", "?6", "S", ">7", "S", "S"]);
        // Nested, and an \if with no \else.
        let (s, _) = parse_ok("\\if 1\n\\if 0\nSELECT 1;\n\\endif\n\\set x 2\n\\endif\nSELECT :x;\n");
        assert_eq!(shape(&s), ["?4", "?3", "S", "=", "S"]);
        // Upper case, and a comment after \else.
        let (s, _) = parse_ok("\\IF 1\nSELECT 1;\n\\ELSE -- why\nSELECT 2;\n\\ENDIF\n");
        assert_eq!(shape(&s), ["?3", "S", ">4", "S"]);
    }

    #[test]
    fn misplaced_conditionals_are_refused_with_pgbenchs_messages() {
        for (src, want) in [
            ("SELECT 1;\n\\elif 1\n", "t.sql:2:1: \\elif without matching \\if"),
            ("SELECT 1;\n\\else\n", "t.sql:2:1: \\else without matching \\if"),
            ("SELECT 1;\n\\endif\n", "t.sql:2:1: \\endif without matching \\if"),
            ("\\if 1\nSELECT 1;\n\\else\n\\elif 1\n\\endif\n", "t.sql:4:1: \\elif after \\else"),
            ("\\if 1\nSELECT 1;\n\\else\n\\else\n\\endif\n", "t.sql:4:1: \\else after \\else"),
            ("SELECT 1;\n  \\if 1\nSELECT 2;\n", "t.sql:2:3: \\if without matching \\endif"),
            ("\\if 1\nSELECT 1;\n\\else 2\n\\endif\n", "t.sql:3:7: \\else: unexpected argument 2"),
            ("\\if 1\nSELECT 1;\n\\endif x\n", "t.sql:3:8: \\endif: unexpected argument x"),
            ("\\if\nSELECT 1;\n\\endif\n", "t.sql:1:4: expected an expression"),
            (
                "\\if :nope\nSELECT 1;\n\\endif\n",
                "t.sql:1:5: unknown variable :nope; set it with \\set on an earlier line or give --param define=nope=VALUE",
            ),
        ] {
            assert_eq!(parse_err(src), want, "{src:?}");
        }
    }

    #[test]
    fn ten_thousand_if_blocks_read_in_linear_time_and_nesting_stops_at_the_limit() {
        use crate::engines::sql_lex::position_work;
        let parse_n = |n: usize| {
            let src = "\\if :scale\nSELECT 1;\n\\elif 0\nSELECT 2;\n\\else\nSELECT 3;\n\\endif\n".repeat(n);
            let before = position_work();
            let (script, _) = parse_ok(&src);
            assert_eq!(script.commands.len(), 7 * n);
            (position_work() - before, src.len() as u64)
        };
        let (small, small_bytes) = parse_n(2_500);
        let (large, large_bytes) = parse_n(10_000);
        // One read of the file for its line starts, then a binary search of them (17 steps
        // here) per command, on lines of 9 bytes on average.
        assert!(large <= 4 * large_bytes, "{large} units for {large_bytes} bytes");
        assert!(
            large * small_bytes <= small * large_bytes * 5 / 4,
            "4 times the blocks, {large} units against {small}"
        );
        // 10,000 nested: refused at the first \if past the limit, in one line.
        let nested = format!("{}SELECT 1;\n{}", "\\if 1\n".repeat(10_000), "\\endif\n".repeat(10_000));
        assert_eq!(
            parse_err(&nested),
            format!(
                "t.sql:{}:1: \\if blocks nest deeper than {MAX_IF_DEPTH} levels; close some with \\endif first",
                MAX_IF_DEPTH + 1
            )
        );
        let within = format!(
            "{}SELECT 1;\n{}",
            "\\if 1\n".repeat(MAX_IF_DEPTH),
            "\\endif\n".repeat(MAX_IF_DEPTH)
        );
        assert_eq!(parse_ok(&within).0.commands.len(), MAX_IF_DEPTH + 1);
    }

    fn sleep_of(src: &str) -> (Amount, u64) {
        let (s, _) = parse_ok(&format!("{src}\nSELECT 1;\n"));
        match &s.commands[0] {
            Command::Sleep { amount, unit_ns, .. } => (amount.clone(), *unit_ns),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sleep_reads_units_as_pgbench_with_or_without_a_space() {
        assert_eq!(sleep_of("\\sleep 2ms"), (Amount::Fixed(2), 1_000_000));
        assert_eq!(sleep_of("\\sleep 2 MS"), (Amount::Fixed(2), 1_000_000));
        assert_eq!(sleep_of("\\sleep 7us"), (Amount::Fixed(7), 1_000));
        assert_eq!(sleep_of("\\sleep 3s"), (Amount::Fixed(3), 1_000_000_000));
        assert_eq!(sleep_of("\\sleep 3"), (Amount::Fixed(3), 1_000_000_000));
        assert_eq!(sleep_of("\\sleep -5 us"), (Amount::Fixed(-5), 1_000));
        assert_eq!(sleep_of("\\sleep :scale ms"), (Amount::Var(0), 1_000_000));
        for (src, want) in [
            (
                "\\sleep 2 hours",
                "t.sql:1:10: \\sleep: unrecognized time unit, must be us, ms or s: hours",
            ),
            (
                "\\sleep 2xs",
                "t.sql:1:9: \\sleep: unrecognized time unit, must be us, ms or s: xs",
            ),
            (
                "\\sleep 2ms ms",
                "t.sql:1:8: \\sleep: invalid sleep time, must be an integer or a :variable: 2ms",
            ),
            (
                "\\sleep ms",
                "t.sql:1:8: \\sleep: invalid sleep time, must be an integer or a :variable: ms",
            ),
            // Issue 45, item 11: a fraction is said as one, not as a unit `.5`.
            (
                "\\sleep 1.5",
                "t.sql:1:8: \\sleep: invalid sleep time, must be an integer or a :variable: 1.5; \\sleep takes whole units: give a smaller unit (1.5 ms is \\sleep 1500 us)",
            ),
            (
                "\\sleep 1.5ms",
                "t.sql:1:8: \\sleep: invalid sleep time, must be an integer or a :variable: 1.5ms; \\sleep takes whole units: give a smaller unit (1.5 ms is \\sleep 1500 us)",
            ),
            (
                "\\sleep 1.5 ms",
                "t.sql:1:8: \\sleep: invalid sleep time, must be an integer or a :variable: 1.5; \\sleep takes whole units: give a smaller unit (1.5 ms is \\sleep 1500 us)",
            ),
            (
                "\\sleep 1e3 us",
                "t.sql:1:8: \\sleep: invalid sleep time, must be an integer or a :variable: 1e3; \\sleep takes whole units: give a smaller unit (1.5 ms is \\sleep 1500 us)",
            ),
            ("\\sleep 1 ms 2", "t.sql:1:13: \\sleep: too many arguments"),
            (
                "\\sleep",
                "t.sql:1:7: \\sleep: missing argument: \\sleep N [us|ms|s] or \\sleep :var [us|ms|s]",
            ),
        ] {
            assert_eq!(parse_err(&format!("{src}\nSELECT 1;\n")), want, "{src}");
        }
    }

    fn store_of(s: &Script, k: usize) -> Option<Store> {
        match &s.commands[k] {
            Command::Sql(st) => st.store.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn gset_and_aset_take_the_statement_before_them() {
        let (s, v) = parse_ok(
            "SELECT 1 AS one, 2 AS two \\gset p_\nUPDATE t SET a = :p_one WHERE b = :p_two;\nSELECT 3 AS three;\n\\aset\nSELECT :three, :scale;\n",
        );
        let gset = Store {
            all_rows: false,
            prefix: "p_".into(),
        };
        assert_eq!(store_of(&s, 0), Some(gset));
        assert_eq!(
            store_of(&s, 2),
            Some(Store {
                all_rows: true,
                prefix: String::new()
            })
        );
        assert_eq!(store_of(&s, 1), None);
        match &s.commands[0] {
            Command::Sql(st) => assert_eq!(st.sql, "SELECT 1 AS one, 2 AS two"),
            other => panic!("{other:?}"),
        }
        // The variables first used after them wait for the queries' columns.
        let pending: Vec<(&str, usize, usize, usize)> = s
            .pending
            .iter()
            .map(|p| (p.name.as_str(), p.command, p.line, p.column))
            .collect();
        assert_eq!(pending, [("p_one", 1, 2, 18), ("p_two", 1, 2, 35), ("three", 3, 5, 8)]);
        assert_eq!(v.by_query.len(), 3);
        // A \set makes one a variable of its own.
        let (s, v) = parse_ok("SELECT 1 AS x \\gset\n\\set y :x + 1\n\\set x 5\nSELECT :x, :y;\n");
        assert_eq!(s.pending.len(), 1);
        assert_eq!(v.by_query, Vec::<usize>::new());
    }

    #[test]
    fn misplaced_gsets_are_refused_in_one_line() {
        for (src, want) in [
            ("\\gset\nSELECT 1;\n", "t.sql:1:1: \\gset must follow an SQL command"),
            ("\\set x 1\n\\aset\nSELECT 1;\n", "t.sql:2:1: \\aset must follow an SQL command"),
            ("SELECT 1 AS i \\gset\n\\gset\n", "t.sql:2:1: \\gset must follow an SQL command"),
            ("SELECT 1 \\gset a b\n", "t.sql:1:18: \\gset: too many arguments"),
            ("SELECT 1 \\gset a-b\n", "t.sql:1:16: \\gset a-b: a prefix is letters, digits and _"),
            (
                "SELECT 1 \\; SELECT 2 \\gset\n",
                "t.sql:1:10: \\; (several statements sent as one command) is not supported: litebench prepares each statement on its own; end each with ; (a \\gset or \\aset takes the statement before it)",
            ),
            // Without a \gset before it, a variable is unknown when read, as before.
            (
                "SELECT :x;\nSELECT 1 AS x \\gset\n",
                "t.sql:1:8: unknown variable :x; set it with \\set on an earlier line or give --param define=x=VALUE",
            ),
        ] {
            assert_eq!(parse_err(src), want, "{src:?}");
        }
    }

    #[test]
    fn shell_and_pipelines_are_refused_naming_the_command() {
        for name in ["shell", "setshell", "startpipeline", "endpipeline", "syncpipeline"] {
            assert_eq!(
                parse_err(&format!("SELECT 1;\n\\{name} x\n")),
                format!("t.sql:2:1: \\{name} is not supported: litebench runs no shell commands and no pipelines (see docs/workloads.md)")
            );
        }
    }
}
