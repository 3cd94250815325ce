//! `\set` expressions: pgbench's whole expression language (integers, doubles, booleans and
//! NULL; arithmetic, comparison, logic and bit operators; `CASE`; its functions), parsed once
//! when the script is read (errors name the column) and evaluated per transaction from the
//! client's variables and seeded generator.
//!
//! Precedence and associativity are those of pgbench's grammar (`exprparse.y`), lowest first:
//! `OR`; `AND`; prefix `NOT`; `IS [NOT] NULL|TRUE|FALSE`, `ISNULL`, `NOTNULL`; the comparisons
//! `= <> != < <= > >=` (which do not chain); the bit operators `| # & << >>` and prefix `~`;
//! `+ -`; `* / %`; prefix `-` and `+`. Binary operators are left-associative. `AND`, `OR` and
//! `CASE` evaluate lazily, as pgbench's: `FALSE AND 1/0` is false, not an error.
//!
//! A subexpression without variables or random draws is computed once, when parsed (constant
//! folding), so a transaction pays only for what can change; one whose evaluation fails (`1/0`)
//! is left as it is, so that the error still arises when it is evaluated, as in pgbench.

use super::eval_error::EvalError;
use super::func::{self, Func, Op, FUNCS, MAX_ARGS};
use super::lex::{self, describe, Kw, Tok};
use super::number;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A value, as pgbench's expressions have them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
    Null,
    Bool(bool),
}

/// A variable's value: a value from `\set`, or text given with `--param define`.
#[derive(Debug, Clone, PartialEq)]
pub enum Var {
    Num(Num),
    Text(String),
}

impl Var {
    /// The value a variable holds; text is read as pgbench reads a string variable used in an
    /// expression ([`number::variable_value`]), the error naming the variable `name`.
    pub fn value(&self, name: &str) -> Result<Num, EvalError> {
        match self {
            Var::Num(n) => Ok(*n),
            Var::Text(t) => number::variable_value(name, t),
        }
    }

    /// [`Var::value`], `None` where it is not a value.
    pub fn num(&self) -> Option<Num> {
        self.value("").ok()
    }
}

/// Whether a value counts as true where a condition is wanted (`CASE WHEN`, `\if`), as
/// pgbench's `valueTruth`: NULL is false, a boolean is itself, a number is true when non-zero.
pub fn truth(v: Num) -> bool {
    match v {
        Num::Null => false,
        Num::Bool(b) => b,
        Num::Int(i) => i != 0,
        Num::Float(f) => f != 0.0,
    }
}

/// A parsed expression; variables are slots of the client's variable table.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(Num),
    Var(usize),
    /// `-e`: pgbench's `0 - e`.
    Neg(Box<Expr>),
    Not(Box<Expr>),
    /// `e IS v`, `v` NULL, TRUE or FALSE: true when `e` is that very value.
    Is(Box<Expr>, Num),
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `a AND b AND ...`, left to right, stopping at the first NULL or false.
    And(Vec<Expr>),
    /// `a OR b OR ...`, left to right, stopping at the first NULL or true.
    Or(Vec<Expr>),
    /// `CASE WHEN c THEN v ... ELSE e END` (no `ELSE`: NULL).
    Case(Vec<(Expr, Expr)>, Box<Expr>),
    Call(Func, Vec<Expr>),
}

/// A parse error: the 0-based byte offset in the expression's text, and what is wrong.
pub type ParseError = (usize, String);

/// Deepest an expression may nest: each parenthesis, function call, `CASE`, unary sign or `NOT`
/// and operator below another counts one level (a chain of `AND` or `OR` counts one). Parsing,
/// evaluating and dropping an expression each recurse once per level, so without a bound a
/// `\set` line of 10,000 parentheses or 100,000 unary minuses overflowed the stack and aborted
/// the run; 256 levels take a few tens of kilobytes of stack and are far beyond what a script
/// writes by hand.
pub const MAX_DEPTH: usize = 256;

/// What an expression nested deeper than [`MAX_DEPTH`] is told.
fn too_deep() -> String {
    format!(
        "the expression nests deeper than {MAX_DEPTH} levels (each parenthesis, function call, unary sign and operator counts one); split it over several \\set lines"
    )
}

/// Binding levels of pgbench's grammar, lowest first.
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const IS: u8 = 4;
const CMP: u8 = 5;
const BIT: u8 = 6;
const ADD: u8 = 7;
const MUL: u8 = 8;
/// Above every binary operator: the operand of a unary sign.
const UNARY: u8 = 9;

/// What a token after an operand does.
enum After {
    Bin(Op, bool),
    And,
    Or,
    Is,
    IsNull(bool),
}

/// An expression as parsed and the height of its tree (a number or a variable: 1).
type Tree = (Expr, usize);

struct Parser<'a> {
    toks: Vec<(usize, Tok)>,
    at: usize,
    var: &'a mut dyn FnMut(&str) -> Option<usize>,
    /// How many parentheses, calls and unary operators the parser is inside: its own recursion.
    depth: usize,
    /// The generator a constant subexpression is folded with; it draws nothing (a draw is not
    /// constant), but evaluation takes one.
    fold_rng: ChaCha8Rng,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].1
    }
    fn pos(&self) -> usize {
        self.toks[self.at].0
    }
    fn next(&mut self) -> (usize, Tok) {
        let t = self.toks[self.at].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }
    fn expect(&mut self, want: &Tok) -> Result<(), ParseError> {
        match self.next() {
            (_, t) if t == *want => Ok(()),
            (p, t) => Err((p, format!("expected {}, found {}", describe(want), describe(&t)))),
        }
    }

    /// One level deeper into the parser's recursion, at the token at byte `at`.
    fn enter(&mut self, at: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err((at, too_deep()));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// `e`, of tree height `height`, made at the token at byte `at`: refused past [`MAX_DEPTH`]
    /// (a long chain of operators nests without the parser recursing), and folded to its value
    /// when it is constant.
    fn node(&mut self, at: usize, e: Expr, height: usize) -> Result<Tree, ParseError> {
        if height > MAX_DEPTH {
            return Err((at, too_deep()));
        }
        Ok(self.fold(e, height))
    }

    /// `e` computed now when it has no variable, draw or `debug` below it (its operands are
    /// already folded, so looking one level down suffices) and its evaluation succeeds.
    fn fold(&mut self, e: Expr, height: usize) -> Tree {
        let konst = |e: &Expr| matches!(e, Expr::Num(_));
        let constant = match &e {
            Expr::Num(_) | Expr::Var(_) => false,
            Expr::Neg(a) | Expr::Not(a) | Expr::Is(a, _) => konst(a),
            Expr::Bin(_, a, b) => konst(a) && konst(b),
            Expr::And(v) | Expr::Or(v) => v.iter().all(konst),
            Expr::Case(arms, other) => konst(other) && arms.iter().all(|(c, v)| konst(c) && konst(v)),
            Expr::Call(f, args) => f.is_pure(args.len()) && args.iter().all(konst),
        };
        if constant {
            let mut env = Env {
                vars: &[],
                names: &[],
                rng: &mut self.fold_rng,
                default_seed: 0,
            };
            if let Ok(v) = e.eval(&mut env) {
                return (Expr::Num(v), 1);
            }
        }
        (e, height)
    }

    /// The operator at the current token, with its binding level.
    fn after(&self) -> Option<(u8, After)> {
        Some(match self.peek() {
            Tok::Kw(Kw::Or) => (OR, After::Or),
            Tok::Kw(Kw::And) => (AND, After::And),
            Tok::Kw(Kw::Is) => (IS, After::Is),
            Tok::Kw(Kw::IsNull) => (IS, After::IsNull(true)),
            Tok::Kw(Kw::NotNull) => (IS, After::IsNull(false)),
            Tok::Sym(s) => {
                let (level, op, swap) = match *s {
                    "=" => (CMP, Op::Eq, false),
                    "<>" | "!=" => (CMP, Op::Ne, false),
                    "<" => (CMP, Op::Lt, false),
                    "<=" => (CMP, Op::Le, false),
                    ">" => (CMP, Op::Lt, true),
                    ">=" => (CMP, Op::Le, true),
                    "|" => (BIT, Op::BitOr, false),
                    "#" => (BIT, Op::BitXor, false),
                    "&" => (BIT, Op::BitAnd, false),
                    "<<" => (BIT, Op::Shl, false),
                    ">>" => (BIT, Op::Shr, false),
                    "+" => (ADD, Op::Add, false),
                    "-" => (ADD, Op::Sub, false),
                    "*" => (MUL, Op::Mul, false),
                    "/" => (MUL, Op::Div, false),
                    "%" => (MUL, Op::Mod, false),
                    _ => return None,
                };
                (level, After::Bin(op, swap))
            }
            _ => return None,
        })
    }

    /// An expression whose operators all bind at `min` or tighter (pgbench's precedence by
    /// climbing: a left-associative operator's right operand binds one level tighter).
    fn expr(&mut self, min: u8) -> Result<Tree, ParseError> {
        let (mut left, mut height) = self.prefix()?;
        // The last operator applied here was a comparison: comparisons do not chain.
        let mut compared = false;
        while let Some((level, what)) = self.after() {
            if level < min {
                break;
            }
            let (at, _) = self.next();
            let was_comparison = level == CMP;
            (left, height) = match what {
                After::Bin(op, swap) => {
                    if was_comparison && compared {
                        return Err((at, "comparisons do not chain; write (a < b) AND (b < c)".into()));
                    }
                    let (right, rh) = self.expr(level + 1)?;
                    let (l, r) = if swap { (right, left) } else { (left, right) };
                    self.node(at, Expr::Bin(op, Box::new(l), Box::new(r)), 1 + height.max(rh))?
                }
                After::And | After::Or => {
                    let and = matches!(what, After::And);
                    let (right, rh) = self.expr(level + 1)?;
                    let (mut list, h) = match left {
                        Expr::And(v) if and => (v, height),
                        Expr::Or(v) if !and => (v, height),
                        other => (vec![other], height + 1),
                    };
                    list.push(right);
                    let e = if and { Expr::And(list) } else { Expr::Or(list) };
                    self.node(at, e, h.max(rh + 1))?
                }
                After::IsNull(null) => self.is(at, left, height, Num::Null, !null)?,
                After::Is => {
                    let negate = self.peek() == &Tok::Kw(Kw::Not);
                    if negate {
                        self.next();
                    }
                    let v = match self.next() {
                        (_, Tok::Kw(Kw::Null)) => Num::Null,
                        (_, Tok::Kw(Kw::True)) => Num::Bool(true),
                        (_, Tok::Kw(Kw::False)) => Num::Bool(false),
                        (p, t) => {
                            return Err((
                                p,
                                format!("expected NULL, TRUE or FALSE after IS, found {}", describe(&t)),
                            ))
                        }
                    };
                    self.is(at, left, height, v, negate)?
                }
            };
            compared = was_comparison;
        }
        Ok((left, height))
    }

    /// `e IS v`, or `e IS NOT v` when `negate`.
    fn is(&mut self, at: usize, e: Expr, height: usize, v: Num, negate: bool) -> Result<Tree, ParseError> {
        let (e, h) = self.node(at, Expr::Is(Box::new(e), v), height + 1)?;
        if negate {
            self.node(at, Expr::Not(Box::new(e)), h + 1)
        } else {
            Ok((e, h))
        }
    }

    /// The operand of a prefix operator at byte `at`, binding at `level`.
    fn operand(&mut self, at: usize, level: u8) -> Result<Tree, ParseError> {
        self.enter(at)?;
        let t = self.expr(level)?;
        self.leave();
        Ok(t)
    }

    fn prefix(&mut self) -> Result<Tree, ParseError> {
        match self.next() {
            (at, Tok::Sym("-")) => {
                if self.peek() == &Tok::MinIntMagnitude {
                    self.next();
                    return Ok((Expr::Num(Num::Int(i64::MIN)), 1));
                }
                let (e, h) = self.operand(at, UNARY + 1)?;
                self.node(at, Expr::Neg(Box::new(e)), h + 1)
            }
            (at, Tok::Sym("+")) => self.operand(at, UNARY + 1),
            // `~e` is pgbench's `~0 # e`, binding as the bit operators do.
            (at, Tok::Sym("~")) => {
                let (e, h) = self.operand(at, BIT + 1)?;
                self.node(at, Expr::Bin(Op::BitXor, Box::new(Expr::Num(Num::Int(!0))), Box::new(e)), h + 1)
            }
            (at, Tok::Kw(Kw::Not)) => {
                let (e, h) = self.operand(at, NOT)?;
                self.node(at, Expr::Not(Box::new(e)), h + 1)
            }
            (p, Tok::Sym("(")) => {
                self.enter(p)?;
                let t = self.expr(0)?;
                self.leave();
                self.expect(&Tok::Sym(")"))?;
                Ok(t)
            }
            (_, Tok::Num(n)) => Ok((Expr::Num(n), 1)),
            (_, Tok::Kw(Kw::Null)) => Ok((Expr::Num(Num::Null), 1)),
            (_, Tok::Kw(Kw::True)) => Ok((Expr::Num(Num::Bool(true)), 1)),
            (_, Tok::Kw(Kw::False)) => Ok((Expr::Num(Num::Bool(false)), 1)),
            (p, Tok::MinIntMagnitude) => Err((p, format!("bigint constant overflow ({})", lex::MIN_INT_MAGNITUDE))),
            (p, Tok::Var(name)) => (self.var)(&name).map(|slot| (Expr::Var(slot), 1)).ok_or_else(|| {
                (
                    p,
                    format!("unknown variable :{name}; set it with \\set on an earlier line or give --param define={name}=VALUE"),
                )
            }),
            (p, Tok::Kw(Kw::Case)) => self.case(p),
            (p, Tok::Ident(name)) => self.call(p, &name),
            (p, t) => Err((
                p,
                format!("expected a number, a :variable, a function or '(', found {}", describe(&t)),
            )),
        }
    }

    /// `CASE WHEN c THEN v [WHEN ...] [ELSE e] END`, its `CASE` at byte `p`.
    fn case(&mut self, p: usize) -> Result<Tree, ParseError> {
        self.enter(p)?;
        let mut arms = Vec::new();
        let mut height = 1;
        while self.peek() == &Tok::Kw(Kw::When) || arms.is_empty() {
            self.expect(&Tok::Kw(Kw::When))?;
            let (c, ch) = self.expr(0)?;
            self.expect(&Tok::Kw(Kw::Then))?;
            let (v, vh) = self.expr(0)?;
            height = height.max(ch.max(vh) + 1);
            arms.push((c, v));
        }
        let other = if self.peek() == &Tok::Kw(Kw::Else) {
            self.next();
            let (e, h) = self.expr(0)?;
            height = height.max(h + 1);
            e
        } else {
            Expr::Num(Num::Null)
        };
        self.expect(&Tok::Kw(Kw::End))?;
        self.leave();
        self.node(p, Expr::Case(arms, Box::new(other)), height)
    }

    /// A call of the function `name` at byte `p`, its name already read.
    fn call(&mut self, p: usize, name: &str) -> Result<Tree, ParseError> {
        let Some(&(_, func, min, max)) = FUNCS.iter().find(|f| f.0 == name) else {
            let names: Vec<&str> = FUNCS.iter().map(|f| f.0).collect();
            return Err((p, format!("unknown function {name}; known: {}", names.join(", "))));
        };
        self.expect(&Tok::Sym("("))?;
        self.enter(p)?;
        let mut args = Vec::new();
        let mut height = 1;
        if self.peek() != &Tok::Sym(")") {
            loop {
                let (arg, h) = self.expr(0)?;
                args.push(arg);
                height = height.max(h + 1);
                if self.peek() == &Tok::Sym(",") {
                    self.next();
                } else {
                    break;
                }
            }
        }
        self.leave();
        self.expect(&Tok::Sym(")"))?;
        if args.len() > MAX_ARGS {
            return Err((
                p,
                format!(
                    "too many function arguments: {name} has {}, pgbench's maximum is {MAX_ARGS}",
                    args.len()
                ),
            ));
        }
        if args.len() < min || args.len() > max {
            let want = match (min, max) {
                (a, b) if a == b => format!("{a}"),
                (a, MAX_ARGS) => format!("at least {a}"),
                (a, b) => format!("{a} or {b}"),
            };
            return Err((p, format!("{name} takes {want} arguments, not {}", args.len())));
        }
        self.node(p, Expr::Call(func, args), height)
    }
}

/// Parses `src`; `var` gives the slot of a known variable (None: unknown, an error).
pub fn parse(src: &str, var: &mut dyn FnMut(&str) -> Option<usize>) -> Result<Expr, ParseError> {
    let toks = lex::lex(src)?;
    let mut p = Parser {
        toks,
        at: 0,
        var,
        depth: 0,
        fold_rng: ChaCha8Rng::seed_from_u64(0),
    };
    if p.peek() == &Tok::End {
        return Err((p.pos(), "expected an expression".into()));
    }
    let (e, _) = p.expr(0)?;
    match p.next() {
        (_, Tok::End) => Ok(e),
        (pos, t) => Err((pos, format!("unexpected {} after the expression", describe(&t)))),
    }
}

/// What evaluation needs besides the expression: the client's variables, its generator and
/// the seed `hash` and `permute` use when given none (pgbench's `:default_seed`).
pub struct Env<'a> {
    pub vars: &'a [Var],
    /// The variables' names, for the errors that name one.
    pub names: &'a [String],
    pub rng: &'a mut ChaCha8Rng,
    pub default_seed: i64,
}

impl Expr {
    /// The expression's value, or pgbench's kind of error (division by zero, overflow, a value
    /// of the wrong type, a bad function argument).
    pub fn eval(&self, env: &mut Env<'_>) -> Result<Num, EvalError> {
        match self {
            Expr::Num(n) => Ok(*n),
            Expr::Var(slot) => env.vars[*slot].value(env.names.get(*slot).map_or("", String::as_str)),
            Expr::Neg(e) => match e.eval(env)? {
                Num::Null => Ok(Num::Null),
                v => func::binary(Op::Sub, Num::Int(0), v),
            },
            Expr::Not(e) => match e.eval(env)? {
                Num::Null => Ok(Num::Null),
                v => Ok(Num::Bool(!func::to_bool(v)?)),
            },
            Expr::Is(e, v) => Ok(Num::Bool(e.eval(env)? == *v)),
            Expr::Bin(op, l, r) => match (l.eval(env)?, r.eval(env)?) {
                (Num::Null, _) | (_, Num::Null) => Ok(Num::Null),
                (l, r) => func::binary(*op, l, r),
            },
            Expr::And(list) | Expr::Or(list) => {
                // AND stops at the first false, OR at the first true; both at a NULL.
                let stop_at = matches!(self, Expr::Or(_));
                for e in list {
                    match e.eval(env)? {
                        Num::Null => return Ok(Num::Null),
                        v if func::to_bool(v)? == stop_at => return Ok(Num::Bool(stop_at)),
                        _ => {}
                    }
                }
                Ok(Num::Bool(!stop_at))
            }
            Expr::Case(arms, other) => {
                for (c, v) in arms {
                    if truth(c.eval(env)?) {
                        return v.eval(env);
                    }
                }
                other.eval(env)
            }
            Expr::Call(f, args) => {
                // Arguments on the stack: a call allocates nothing.
                let mut vals = [Num::Null; MAX_ARGS];
                for (slot, a) in vals.iter_mut().zip(args) {
                    *slot = a.eval(env)?;
                }
                func::call(*f, &vals[..args.len()], env)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn vars(name: &str) -> Option<usize> {
        ["scale", "x", "t", "n", "b"].iter().position(|v| *v == name)
    }

    fn eval_seeded(src: &str, seed: u64) -> Result<Num, String> {
        let e = parse(src, &mut vars).map_err(|(p, m)| format!("{p}: {m}"))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let vs = [
            Var::Num(Num::Int(3)),
            Var::Num(Num::Float(0.5)),
            Var::Text("42".into()),
            Var::Num(Num::Null),
            Var::Num(Num::Bool(true)),
        ];
        e.eval(&mut Env {
            vars: &vs,
            names: &[],
            rng: &mut rng,
            default_seed: 5432,
        })
        .map_err(|e| e.to_string())
    }

    fn eval(src: &str) -> Result<Num, String> {
        eval_seeded(src, 1)
    }

    #[test]
    fn arithmetic_and_precedence_as_pgbench() {
        let i = |n| Ok(Num::Int(n));
        assert_eq!(eval("1 + 2 * 3"), i(7));
        assert_eq!(eval("(1 + 2) * 3"), i(9));
        assert_eq!(eval("10 - 4 - 3"), i(3), "left-associative");
        assert_eq!(eval("100 / 10 / 5"), i(2));
        assert_eq!(eval("-7 / 2"), i(-3), "truncates toward zero");
        assert_eq!(eval("-7 % 3"), i(-1));
        assert_eq!(eval("7 % -3"), i(1));
        assert_eq!(eval("- 2 * 3"), i(-6));
        assert_eq!(eval("2 * - 3"), i(-6));
        assert_eq!(eval("--3"), i(3));
        assert_eq!(eval("1 + 2 * 3 % 4 - 5"), i(-2), "1 + ((2*3)%4) - 5");
        assert_eq!(eval("100000 * :scale"), i(300_000));
        assert_eq!(eval(":t + 1"), i(43), "text read as a number");
        assert_eq!(eval("5 / 2.0"), Ok(Num::Float(2.5)));
        assert_eq!(eval(":x * 4"), Ok(Num::Float(2.0)));
        assert_eq!(eval("1e3"), Ok(Num::Float(1000.0)));
        assert_eq!(eval("-9223372036854775807 - 1"), i(i64::MIN));
        assert_eq!(eval("-9223372036854775808"), i(i64::MIN), "pgbench's minint constant");
    }

    /// pgbench folds least/greatest with C's `Min`/`Max` (`a < b ? a : b`), so a NaN is kept
    /// when it comes last and dropped when a number follows it (litebench dropped it always).
    #[test]
    fn least_and_greatest_keep_or_drop_a_nan_by_where_it_stands() {
        let nan = |src: &str| matches!(eval(src), Ok(Num::Float(f)) if f.is_nan());
        assert!(nan("least(1, 0.0/0)"));
        assert_eq!(eval("least(1, 0.0/0, 2)"), Ok(Num::Float(2.0)));
        assert_eq!(eval("least(0.0/0, 1)"), Ok(Num::Float(1.0)));
        assert!(nan("greatest(1, 0.0/0)"));
        assert!(nan("greatest(1, 2, 0.0/0)"));
        assert_eq!(eval("greatest(0.0/0, 1, 2)"), Ok(Num::Float(2.0)));
        assert_eq!(eval("least(3, 2.5, 0.0/0, 1)"), Ok(Num::Float(1.0)));
    }

    #[test]
    fn a_variables_text_is_read_and_refused_in_pgbenchs_words() {
        let text = [
            Var::Text("abc".into()),
            Var::Text(" 7".into()),
            Var::Text("0x10".into()),
        ];
        let names = ["foo".to_string(), "s".into(), "h".into()];
        let run = |src: &str| {
            let e = parse(src, &mut |n| names.iter().position(|x| x == n)).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            e.eval(&mut Env {
                vars: &text,
                names: &names,
                rng: &mut rng,
                default_seed: 1,
            })
        };
        // Before: `variable holds Text("abc"), not a number`.
        assert_eq!(
            run(":foo + 1"),
            Err(EvalError::Malformed {
                name: "foo".into(),
                text: "abc".into()
            })
        );
        assert_eq!(run(":s * 2"), Ok(Num::Int(14)));
        assert_eq!(run(":h"), Ok(Num::Float(16.0)));
    }

    #[test]
    fn logic_comparisons_and_bits_bind_as_pgbenchs_grammar() {
        let b = |v| Ok(Num::Bool(v));
        let i = |n| Ok(Num::Int(n));
        assert_eq!(eval("1 + 2 * 3 = 7 AND NOT FALSE"), b(true));
        assert_eq!(eval("1 << 2 + 1"), i(8), "+ binds tighter than <<");
        assert_eq!(eval("-1 # 3"), i(-4), "unary minus binds tightest");
        assert_eq!(eval("~0"), i(-1));
        assert_eq!(eval("~1 + 2"), i(-4), "~ binds as the bit operators: ~(1 + 2)");
        assert_eq!(eval("2 * ~1 | 4"), i(-4), "(2 * ~1) | 4");
        assert_eq!(eval("6 & 3 | 8"), i(10), "left-associative: (6 & 3) | 8");
        assert_eq!(eval("-8 >> 1"), i(-4), "arithmetic shift");
        assert_eq!(eval("NOT 1 = 2"), b(true), "NOT (1 = 2)");
        assert_eq!(eval("TRUE OR FALSE AND FALSE"), b(true), "AND binds tighter than OR");
        assert_eq!(eval("NOT TRUE AND FALSE OR TRUE"), b(true));
        assert_eq!(
            eval("2 > 1 AND 1 >= 1 AND 1 <= 1 AND 1 < 2 AND 1 <> 2 AND 1 != 2"),
            b(true)
        );
        assert_eq!(eval("1 = 1.0"), b(true), "int against double compares as doubles");
        assert_eq!(eval("1 = 1 IS TRUE"), b(true), "(1 = 1) IS TRUE");
        assert_eq!(eval("tRuE AND NoT fAlSe"), b(true), "keywords in any case");
        assert_eq!(eval("CASE WHEN 0 THEN 1 WHEN 2.5 THEN 2 ELSE 3 END"), i(2));
        assert_eq!(eval("CASE WHEN FALSE THEN 1 END"), Ok(Num::Null), "no ELSE: NULL");
        assert_eq!(eval("CASE WHEN NULL THEN 1 ELSE 4 END"), i(4), "NULL is not true");
    }

    #[test]
    fn null_and_boolean_semantics() {
        let b = |v| Ok(Num::Bool(v));
        assert_eq!(eval("NULL + 1"), Ok(Num::Null));
        assert_eq!(eval("NULL = NULL"), Ok(Num::Null));
        assert_eq!(eval("NOT NULL"), Ok(Num::Null));
        assert_eq!(eval("-NULL"), Ok(Num::Null));
        assert_eq!(eval("abs(:n)"), Ok(Num::Null));
        assert_eq!(eval("NULL IS NULL"), b(true));
        assert_eq!(eval("5 IS NULL"), b(false));
        assert_eq!(eval("5 NOTNULL"), b(true));
        assert_eq!(eval(":n ISNULL"), b(true));
        assert_eq!(
            eval("1 IS TRUE"),
            b(false),
            "IS compares the value itself: 1 is not TRUE"
        );
        assert_eq!(eval(":b IS NOT FALSE"), b(true));
        assert_eq!(
            eval("NULL AND FALSE"),
            Ok(Num::Null),
            "pgbench: NULL on the left decides"
        );
        assert_eq!(eval("FALSE AND NULL"), b(false));
        assert_eq!(eval("TRUE AND NULL"), Ok(Num::Null));
        assert_eq!(eval("TRUE OR NULL"), b(true));
        assert_eq!(eval("FALSE OR NULL"), Ok(Num::Null));
        for (v, t) in [
            (Num::Null, false),
            (Num::Bool(true), true),
            (Num::Bool(false), false),
            (Num::Int(0), false),
            (Num::Int(-3), true),
            (Num::Float(0.0), false),
            (Num::Float(0.1), true),
        ] {
            assert_eq!(truth(v), t, "{v:?}");
        }
        for (text, v) in [
            ("null", Num::Null),
            ("NULL", Num::Null),
            ("t", Num::Bool(true)),
            ("yes", Num::Bool(true)),
            ("on", Num::Bool(true)),
            ("of", Num::Bool(false)),
            ("No", Num::Bool(false)),
            ("+3", Num::Int(3)),
            ("-10.1", Num::Float(-10.1)),
        ] {
            assert_eq!(Var::Text(text.into()).num(), Some(v), "{text}");
        }
        assert_eq!(Var::Text("o".into()).num(), None);
        assert_eq!(Var::Text("trueXXX".into()).num(), None);
    }

    #[test]
    fn lazy_operators_do_not_evaluate_what_is_not_needed() {
        let b = |v| Ok(Num::Bool(v));
        assert_eq!(eval("FALSE AND 1/0 = 1"), b(false));
        assert_eq!(eval("TRUE OR 1/0 = 1"), b(true));
        assert_eq!(eval("CASE WHEN TRUE THEN 1 ELSE 1/0 END"), Ok(Num::Int(1)));
        assert_eq!(
            eval("CASE WHEN 1/0 = 1 THEN 1 ELSE 2 END"),
            Err("division by zero".into())
        );
        assert_eq!(eval("TRUE AND 1/0 = 1"), Err("division by zero".into()));
    }

    #[test]
    fn every_function() {
        let i = |n| Ok(Num::Int(n));
        assert_eq!(eval("abs(-5)"), i(5));
        assert_eq!(eval("abs(-2.5)"), Ok(Num::Float(2.5)));
        assert_eq!(eval("least(5, 4, 3, 2)"), i(2));
        assert_eq!(eval("greatest(5, 4, 3, 2)"), i(5));
        assert_eq!(eval("min(3, 7)"), i(3));
        assert_eq!(eval("max(3, 7.5)"), Ok(Num::Float(7.5)));
        assert_eq!(eval("hash(10, 5432)"), i(-5_817_877_081_768_721_676));
        assert_eq!(eval("hash(10)"), i(-5_817_877_081_768_721_676), "default seed");
        assert_eq!(eval("hash_murmur2(10, 5432)"), i(-5_817_877_081_768_721_676));
        assert_eq!(eval("hash_fnv1a(10, 5432)"), i(-7_793_829_335_365_542_153));
        assert_eq!(eval("int(5.4 + 3.8)"), i(9));
        assert_eq!(eval("int(2.5)"), i(2), "rounded half to even, as C's rint");
        assert_eq!(eval("double(5432)"), Ok(Num::Float(5432.0)));
        assert_eq!(eval("sqrt(4.0)"), Ok(Num::Float(2.0)));
        assert_eq!(eval("pow(2, 10)"), Ok(Num::Float(1024.0)));
        assert_eq!(eval("mod(-54, 32)"), i(-22));
        assert_eq!(eval("int(pi() * 100)"), i(314));
        assert_eq!(eval("int(exp(ln(10)))"), i(10));
        assert_eq!(
            eval("1.0 / 0"),
            Ok(Num::Float(f64::INFINITY)),
            "doubles are IEEE, as pgbench's"
        );
        assert_eq!(eval("debug(7)"), i(7));
        // pgbench's documentation: permute(0, 1) is 0; a seed chooses the permutation.
        assert_eq!(eval("permute(0, 1)"), i(0));
        assert_eq!(eval("permute(1, 2, 5433)"), i(0));
        assert_eq!(eval("permute(1, 2)"), eval("permute(1, 2, 5432)"), "default seed");
        for f in [
            "random(1, 10)",
            "random_zipfian(1, 10, 1.5)",
            "random_gaussian(1, 10, 2.5)",
            "random_exponential(1, 10, 3.0)",
        ] {
            for seed in 0..50 {
                match eval_seeded(f, seed) {
                    Ok(Num::Int(n)) => assert!((1..=10).contains(&n), "{f}: {n}"),
                    other => panic!("{f}: {other:?}"),
                }
            }
            assert_eq!(eval_seeded(f, 7), eval_seeded(f, 7), "{f}: same seed, same value");
        }
    }

    #[test]
    fn runtime_errors_are_pgbenchs_and_not_panics() {
        for (src, want) in [
            ("1 / 0", "division by zero"),
            ("1 % 0", "division by zero"),
            ("9223372036854775807 + 1", "bigint add out of range"),
            ("-9223372036854775807 - 2", "bigint sub out of range"),
            ("2 * (1 << 62)", "bigint mul out of range"),
            ("(-9223372036854775807 - 1) / -1", "bigint div out of range"),
            ("-(-9223372036854775807 - 1)", "bigint sub out of range"),
            // pgbench wraps it to itself; refused in PostgreSQL's words (issue 47).
            ("abs(-9223372036854775807 - 1)", "bigint out of range"),
            ("abs(TRUE)", "cannot coerce boolean to double"),
            ("int(0.0 / 0)", "double to int overflow for NaN"),
            ("int(1.0 / 0)", "double to int overflow for Infinity"),
            ("random(5, 1)", "empty range given to random: [5, 1]"),
            (
                "random(-9223372036854775808, 9223372036854775807)",
                "random range is too large: [-9223372036854775808, 9223372036854775807]",
            ),
            (
                "random(0, 9223372036854775807)",
                "random range is too large: [0, 9223372036854775807]",
            ),
            (
                "random_gaussian(1, 10, 1.5)",
                "gaussian parameter must be at least 2.000000 (not 1.500000)",
            ),
            (
                "random_zipfian(1, 10, 1)",
                "zipfian parameter must be in range [1.001, 1000] (not 1.000000)",
            ),
            (
                "random_exponential(1, 10, 0.0)",
                "exponential parameter must be greater than zero (not 0.000000)",
            ),
            (
                "int(1E32)",
                "double to int overflow for 100000000000000005366162204393472.000000",
            ),
            ("NOT 0.0", "cannot coerce double to boolean"),
            ("NOT 1", "cannot coerce int to boolean"),
            ("TRUE + 2", "cannot coerce boolean to int"),
            ("ln(TRUE)", "cannot coerce boolean to double"),
            ("random(FALSE, TRUE)", "cannot coerce boolean to int"),
            ("1 AND TRUE", "cannot coerce int to boolean"),
            ("least(1, TRUE)", "cannot coerce boolean to int"),
            ("permute(0, 0)", "permute size parameter must be greater than zero"),
            ("~TRUE", "cannot coerce boolean to int"),
        ] {
            assert_eq!(eval(src), Err(want.to_string()), "{src}");
        }
        assert_eq!(eval("(-9223372036854775807 - 1) % -1"), Ok(Num::Int(0)));
        assert_eq!(
            eval("random(-9223372036854775807, 0)"),
            eval("random(-9223372036854775807, 0)")
        );
    }

    #[test]
    fn constants_are_folded_when_parsed_and_draws_and_errors_are_not() {
        let p = |src: &str| parse(src, &mut vars).unwrap();
        assert_eq!(p("100000 * 10"), Expr::Num(Num::Int(1_000_000)));
        assert_eq!(
            p("CASE WHEN 1 < 2 THEN hash(1, 2) END"),
            Expr::Num(Num::Int(random::murmur2(1, 2)))
        );
        assert_eq!(p("NOT (1 = 2) AND 3 IS NOT NULL"), Expr::Num(Num::Bool(true)));
        // A variable, a draw, a default seed, debug() and an error stay to be evaluated.
        assert!(matches!(p("100000 * :scale"), Expr::Bin(Op::Mul, ..)));
        match p("random(1, 100000 * 10)") {
            Expr::Call(Func::Random, args) => assert_eq!(args[1], Expr::Num(Num::Int(1_000_000))),
            other => panic!("{other:?}"),
        }
        assert!(matches!(p("hash(1)"), Expr::Call(Func::Hash, _)));
        assert!(matches!(p("debug(1)"), Expr::Call(Func::Debug, _)));
        assert!(matches!(p("1 / 0"), Expr::Bin(Op::Div, ..)));
        assert_eq!(eval("1 + 1 / 0"), Err("division by zero".into()));
    }

    use super::super::random;

    #[test]
    fn nesting_is_limited_where_it_goes_too_deep() {
        let err = |src: &str| parse(src, &mut vars).unwrap_err();
        // Before: each of these overflowed the stack and aborted the process.
        let parens = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(err(&parens), (MAX_DEPTH, too_deep()), "the first parenthesis too many");
        assert_eq!(err(&"-".repeat(100_000)).0, MAX_DEPTH);
        assert_eq!(err(&format!("{}:x", "- ".repeat(100_000))).0, 2 * MAX_DEPTH);
        assert_eq!(err(&format!("{}:x", "NOT ".repeat(100_000))).0, 4 * MAX_DEPTH);
        assert_eq!(err(&format!("{}:x", "~".repeat(100_000))).0, MAX_DEPTH);
        assert_eq!(
            err(&format!("{}1{}", "abs(".repeat(300), ")".repeat(300))).0,
            4 * MAX_DEPTH
        );
        let cases = format!("{}1{}", "CASE WHEN TRUE THEN ".repeat(300), " END".repeat(300));
        assert_eq!(err(&cases).0, 20 * MAX_DEPTH);
        // A chain of operators nests too, with no parser recursion: refused at its operator.
        let chain = format!("1{}", " + :x".repeat(300));
        assert_eq!(err(&chain).0, 5 * MAX_DEPTH - 3);
        // At the limit: parsed, evaluated and dropped on half a thread's default stack.
        const STACK: usize = 1024 * 1024;
        let deepest = [
            format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH)),
            format!("{}:x", "-".repeat(MAX_DEPTH - 1)),
            format!("{}:x{}", "abs(".repeat(MAX_DEPTH - 1), ")".repeat(MAX_DEPTH - 1)),
            format!(":x{}", " * 1".repeat(MAX_DEPTH - 1)),
            format!("{}:b", "NOT ".repeat(MAX_DEPTH - 1)),
        ];
        for src in deepest {
            let small_stack = std::thread::Builder::new().stack_size(STACK);
            let value = small_stack
                .spawn(move || {
                    let e = parse(&src, &mut vars).map_err(|(p, m)| format!("{p}: {m}"))?;
                    let mut rng = ChaCha8Rng::seed_from_u64(1);
                    let vs = [
                        Var::Num(Num::Int(3)),
                        Var::Num(Num::Float(0.5)),
                        Var::Text("42".into()),
                        Var::Num(Num::Null),
                        Var::Num(Num::Bool(true)),
                    ];
                    let v = e.eval(&mut Env {
                        vars: &vs,
                        names: &[],
                        rng: &mut rng,
                        default_seed: 1,
                    });
                    drop(e);
                    v.map_err(|e| e.to_string())
                })
                .unwrap()
                .join()
                .unwrap();
            assert!(value.is_ok(), "{value:?}");
        }
    }

    #[test]
    fn a_long_chain_of_and_or_is_one_level_and_parses_in_linear_time() {
        // 100,000 ANDs (and ORs): one level each, so neither refused nor deep to evaluate.
        let ands = format!(":b{}", " AND :b".repeat(100_000));
        let ors = format!("FALSE{}", " OR :n IS NULL AND :b".repeat(100_000));
        for (src, want) in [(&ands, Num::Bool(true)), (&ors, Num::Bool(true))] {
            let start = std::time::Instant::now();
            assert_eq!(eval(src), Ok(want));
            // Linear: a few milliseconds; quadratic in 100,000 tokens would be many seconds.
            assert!(
                start.elapsed() < std::time::Duration::from_secs(2),
                "{:?}",
                start.elapsed()
            );
        }
    }

    #[test]
    fn parse_errors_name_their_offset() {
        let err = |src: &str| parse(src, &mut vars).unwrap_err();
        assert_eq!(err("1 +").0, 3);
        assert!(err("1 +").1.contains("the end of the line"));
        assert_eq!(
            err("random(1, :nope)"),
            (
                10,
                "unknown variable :nope; set it with \\set on an earlier line or give --param define=nope=VALUE".into()
            )
        );
        assert_eq!(err("foo(1)").0, 0);
        assert!(err("foo(1)").1.starts_with("unknown function foo"));
        assert_eq!(err("random(1)").1, "random takes 2 arguments, not 1");
        assert_eq!(err("ln(1.0, 2.0)").1, "ln takes 1 arguments, not 2");
        assert_eq!(err("greatest()").1, "greatest takes at least 1 arguments, not 0");
        assert_eq!(err("permute(1)").1, "permute takes 2 or 3 arguments, not 1");
        assert_eq!(
            err("least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)"),
            (
                0,
                "too many function arguments: least has 17, pgbench's maximum is 16".into()
            )
        );
        assert!(parse("least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)", &mut vars).is_ok());
        assert_eq!(err("(1 + 2").0, 6);
        assert_eq!(err("1 2").1, "unexpected 2 after the expression");
        assert_eq!(
            err("1 < 2 < 3"),
            (6, "comparisons do not chain; write (a < b) AND (b < c)".into())
        );
        assert_eq!(
            err("CASE TRUE THEN 1 ELSE 0 END"),
            (5, "expected WHEN, found TRUE".into())
        );
        assert_eq!(
            err("CASE WHEN TRUE THEN 1"),
            (21, "expected END, found the end of the line".into())
        );
        assert_eq!(
            err("1 IS 2"),
            (5, "expected NULL, TRUE or FALSE after IS, found 2".into())
        );
        assert_eq!(
            err("9223372036854775808").1,
            "bigint constant overflow (9223372036854775808)"
        );
        assert_eq!(err("1 ; 2").1, "unexpected character ';'");
        assert_eq!(err("").1, "expected an expression");
        assert_eq!(
            err("99999999999999999999").1,
            "bigint constant overflow (99999999999999999999)"
        );
        // Issue 47: read by C's strtod, whose range error takes in the subnormal doubles.
        for text in ["1e-400", "4.9e-324", "1e-310", "1e400"] {
            assert_eq!(err(text), (0, format!("double constant overflow ({text})")), "{text}");
        }
        assert_eq!(eval("2.2250738585072014e-308"), Ok(Num::Float(f64::MIN_POSITIVE)));
    }
}

#[cfg(test)]
mod cost {
    use super::*;
    use rand::SeedableRng;

    /// Evaluates `random(1, 100000 * :scale)` `n` times; every draw must land in its range.
    /// Kept out of line so that callgrind can collect just this (`--toggle-collect`).
    #[inline(never)]
    fn draw_many(e: &Expr, vars: &[Var], n: usize) -> usize {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut env = Env {
            vars,
            names: &[],
            rng: &mut rng,
            default_seed: 1,
        };
        (0..n)
            .filter(|_| matches!(e.eval(&mut env), Ok(Num::Int(v)) if (1..=1_000_000).contains(&v)))
            .count()
    }

    #[test]
    fn a_draw_over_a_scaled_range_stays_in_it_every_time() {
        let e = parse("random(1, 100000 * :scale)", &mut |n| (n == "scale").then_some(0)).unwrap();
        let vars = [Var::Num(Num::Int(10))];
        assert_eq!(draw_many(&e, &vars, 100_000), 100_000);
    }
}
