//! A script file read into commands: `\set`, `\sleep` and SQL statements, in order, with every
//! variable resolved to a slot of the client's variable table. Everything that can be wrong
//! with a script is found here, before anything runs, and reported as one line naming the
//! file, line and column.

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
}

impl Vars {
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
    pub fn add(&mut self, name: &str) -> usize {
        self.slot(name).unwrap_or_else(|| {
            self.names.push(name.to_string());
            self.names.len() - 1
        })
    }
}

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
}

/// How long a `\sleep` is.
#[derive(Debug, Clone, PartialEq)]
pub enum Amount {
    Fixed(i64),
    Var(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Set { slot: usize, expr: Expr, line: usize },
    Sleep { amount: Amount, unit_ns: u64, line: usize },
    Sql(Statement),
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub commands: Vec<Command>,
}

impl Script {
    pub fn statements(&self) -> impl Iterator<Item = &Statement> {
        self.commands.iter().filter_map(|c| match c {
            Command::Sql(s) => Some(s),
            _ => None,
        })
    }
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
    let mut commands = Vec::new();
    let mut i = 0;
    loop {
        // Blanks and line comments between commands.
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
        if i >= b.len() {
            break;
        }
        if b[i] == b'\\' {
            let end = src[i..].find('\n').map_or(src.len(), |p| i + p);
            commands.push(meta(src, i, end, vars, lines.line(i), &err)?);
            i = end;
            continue;
        }
        let s = sql::statement(src, i, backslash_escapes).map_err(|(at, m)| err(at, m))?;
        if let Some((at, m)) = file_reach::first_refusal(src, i, s.end, backslash_escapes) {
            return Err(err(at, m));
        }
        let text = s.text.trim();
        if !text.is_empty() {
            let mut slots = Vec::new();
            for (name, at) in &s.vars {
                slots.push(vars.slot(name).ok_or_else(|| {
                    err(
                        *at,
                        format!("unknown variable :{name}; set it with \\set on an earlier line or give --param define={name}=VALUE"),
                    )
                })?);
            }
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
            }));
        }
        i = s.end;
    }
    if !commands.iter().any(|c| matches!(c, Command::Sql(_))) {
        return Err(err(src.len(), "the script has no SQL statement".into()));
    }
    Ok(Script { commands })
}

/// The meta-command on `src[at..end]`, line `line` (one line).
fn meta(
    src: &str,
    at: usize,
    end: usize,
    vars: &mut Vars,
    line: usize,
    err: &dyn Fn(usize, String) -> ScriptError,
) -> Result<Command, ScriptError> {
    let line_text = &src[at..end];
    // A line comment ends the command (expressions hold no strings).
    let body = line_text.find("--").map_or(line_text, |p| &line_text[..p]).trim_end();
    let name_len = body[1..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len() - 1);
    let name = &body[1..1 + name_len];
    let rest_at = at + 1 + name_len;
    match name.to_ascii_lowercase().as_str() {
        "set" => {
            let rest = &src[rest_at..at + body.len()];
            let skip = rest.len() - rest.trim_start().len();
            let var_at = rest_at + skip;
            let after = &rest[skip..];
            let var_len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let var = &after[..var_len];
            if var.is_empty() || !var.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                return Err(err(
                    var_at,
                    "\\set needs a variable name (letters, digits, _) and an expression".into(),
                ));
            }
            let expr_at = var_at + var_len;
            let text = &src[expr_at..at + body.len()];
            let e = expr::parse(text, &mut |n| vars.slot(n)).map_err(|(p, m)| err(expr_at + p, m))?;
            let slot = vars.add(var);
            Ok(Command::Set { slot, expr: e, line })
        }
        "sleep" => {
            let rest = &src[rest_at..at + body.len()];
            let words: Vec<(usize, &str)> = rest
                .split_whitespace()
                .map(|w| (rest_at + (w.as_ptr() as usize - rest.as_ptr() as usize), w))
                .collect();
            let Some(&(w_at, w)) = words.first() else {
                return Err(err(
                    rest_at,
                    "\\sleep needs a duration: \\sleep N [us|ms|s] or \\sleep :var [us|ms|s]".into(),
                ));
            };
            let amount = if let Some(v) = w.strip_prefix(':') {
                Amount::Var(vars.slot(v).ok_or_else(|| {
                    err(w_at, format!("unknown variable :{v}; set it with \\set on an earlier line or give --param define={v}=VALUE"))
                })?)
            } else {
                match w.parse::<i64>() {
                    Ok(n) if n >= 0 => Amount::Fixed(n),
                    _ => {
                        return Err(err(
                            w_at,
                            format!("\\sleep {w}: expected a whole number >= 0 or a :variable"),
                        ))
                    }
                }
            };
            let unit_ns = match words.get(1).map(|w| w.1) {
                None | Some("s") => 1_000_000_000,
                Some("ms") => 1_000_000,
                Some("us") => 1_000,
                Some(u) => return Err(err(words[1].0, format!("\\sleep unit {u}: use us, ms or s"))),
            };
            if let Some(&(x_at, x)) = words.get(2) {
                return Err(err(x_at, format!("unexpected {x} after \\sleep's unit")));
            }
            Ok(Command::Sleep { amount, unit_ns, line })
        }
        "" => Err(err(
            at,
            "a lone backslash: expected a meta-command (\\set or \\sleep)".into(),
        )),
        other => Err(err(
            at,
            format!(
                "unknown meta-command \\{other}; litebench's scripts have \\set and \\sleep (see docs/workloads.md)"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        Vars {
            names: vec!["scale".into()],
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
            "-- a comment\n\\set aid random(1, 100000 * :scale)\n\\set delta random(-5000, 5000)  -- why\nBEGIN;\nUPDATE a SET b = b + :delta\n  WHERE aid = :aid;\n\\sleep 2 ms\nSELECT ':aid', x::text FROM a WHERE aid = :aid; END;\n",
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
            parse_err("SELECT 1;\n  \\gset x\n"),
            "t.sql:2:3: unknown meta-command \\gset; litebench's scripts have \\set and \\sleep (see docs/workloads.md)"
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
            "t.sql:1:11: \\sleep unit hours: use us, ms or s"
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
}
