//! `\set` expressions: pgbench's integer and double arithmetic and its random, hash and math
//! functions, parsed once when the script is read (errors name the column) and evaluated per
//! transaction from the client's variables and seeded generator.
//!
//! Precedence as pgbench's grammar: unary minus binds tightest, then `*` `/` `%`, then `+` `-`,
//! all left-associative. Integers are 64-bit and overflow is an error, as in pgbench; an
//! operation with a double operand is done in doubles; `/` of integers truncates toward zero.

use super::random;
use rand_chacha::ChaCha8Rng;

/// A number, as pgbench's expressions have them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

/// A variable's value: a number from `\set`, or text given with `--param define`.
#[derive(Debug, Clone, PartialEq)]
pub enum Var {
    Num(Num),
    Text(String),
}

impl Var {
    /// The number a variable holds; text is read as an integer or a double, as pgbench reads
    /// a string variable used in an expression.
    pub fn num(&self) -> Option<Num> {
        match self {
            Var::Num(n) => Some(*n),
            Var::Text(t) => {
                let t = t.trim();
                t.parse::<i64>()
                    .map(Num::Int)
                    .ok()
                    .or_else(|| t.parse::<f64>().ok().filter(|f| f.is_finite()).map(Num::Float))
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// The functions, with pgbench's names (`min` and `max` are litebench's aliases of `least`
/// and `greatest`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Random,
    RandomZipfian,
    RandomGaussian,
    RandomExponential,
    Abs,
    Least,
    Greatest,
    Hash,
    HashFnv1a,
    HashMurmur2,
    Int,
    Double,
    Sqrt,
    Exp,
    Ln,
    Pow,
    Mod,
    Pi,
}

/// Each function's name and how many arguments it takes (`min..=max`).
const FUNCS: &[(&str, Func, usize, usize)] = &[
    ("random", Func::Random, 2, 2),
    ("random_zipfian", Func::RandomZipfian, 3, 3),
    ("random_gaussian", Func::RandomGaussian, 3, 3),
    ("random_exponential", Func::RandomExponential, 3, 3),
    ("abs", Func::Abs, 1, 1),
    ("least", Func::Least, 1, usize::MAX),
    ("greatest", Func::Greatest, 1, usize::MAX),
    ("min", Func::Least, 1, usize::MAX),
    ("max", Func::Greatest, 1, usize::MAX),
    ("hash", Func::Hash, 1, 2),
    ("hash_fnv1a", Func::HashFnv1a, 1, 2),
    ("hash_murmur2", Func::HashMurmur2, 1, 2),
    ("int", Func::Int, 1, 1),
    ("double", Func::Double, 1, 1),
    ("sqrt", Func::Sqrt, 1, 1),
    ("exp", Func::Exp, 1, 1),
    ("ln", Func::Ln, 1, 1),
    ("pow", Func::Pow, 2, 2),
    ("power", Func::Pow, 2, 2),
    ("mod", Func::Mod, 2, 2),
    ("pi", Func::Pi, 0, 0),
];

/// A parsed expression; variables are slots of the client's variable table.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(Num),
    Var(usize),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
}

/// A parse error: the 0-based byte offset in the expression's text, and what is wrong.
pub type ParseError = (usize, String);

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(Num),
    Ident(String),
    Var(String),
    Sym(char),
    End,
}

fn lex(src: &str) -> Result<Vec<(usize, Tok)>, ParseError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let mut float = false;
            if i < b.len() && b[i] == b'.' {
                float = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    float = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text = &src[start..i];
            let n = if float {
                text.parse::<f64>().ok().filter(|f| f.is_finite()).map(Num::Float)
            } else {
                text.parse::<i64>().ok().map(Num::Int)
            };
            let n = n.ok_or_else(|| (start, format!("number {text} is out of range")))?;
            out.push((start, Tok::Num(n)));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((start, Tok::Ident(src[start..i].to_ascii_lowercase())));
        } else if c == b':' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == start + 1 {
                return Err((start, "expected a variable name after ':'".into()));
            }
            out.push((start, Tok::Var(src[start + 1..i].to_string())));
        } else if b"()+-*/%,".contains(&c) {
            i += 1;
            out.push((start, Tok::Sym(c as char)));
        } else {
            let ch = src[start..].chars().next().unwrap_or('?');
            let hint = if "<>=!&|#~".contains(ch) {
                " (comparisons, logic and bit operators of pgbench are not supported)"
            } else {
                ""
            };
            return Err((start, format!("unexpected character '{ch}'{hint}")));
        }
    }
    out.push((src.len(), Tok::End));
    Ok(out)
}

/// Deepest an expression may nest: each parenthesis, function call, unary sign and operator
/// below another counts one level. Parsing, evaluating and dropping an expression each recurse
/// once per level, so without a bound a `\set` line of 10,000 parentheses or 100,000 unary
/// minuses overflowed the stack and aborted the run; 256 levels take a few tens of kilobytes of
/// stack and are far beyond what a script writes by hand.
pub const MAX_DEPTH: usize = 256;

/// What an expression nested deeper than [`MAX_DEPTH`] is told.
fn too_deep() -> String {
    format!(
        "the expression nests deeper than {MAX_DEPTH} levels (each parenthesis, function call, unary sign and operator counts one); split it over several \\set lines"
    )
}

/// An expression as parsed and the height of its tree (a number or a variable: 1).
type Tree = (Expr, usize);

struct Parser<'a> {
    toks: Vec<(usize, Tok)>,
    at: usize,
    var: &'a mut dyn FnMut(&str) -> Option<usize>,
    /// How many parentheses, calls and unary signs the parser is inside: its own recursion.
    depth: usize,
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
    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        match self.next() {
            (_, Tok::Sym(s)) if s == c => Ok(()),
            (p, t) => Err((p, format!("expected '{c}', found {}", describe(&t)))),
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
    /// (a long chain of operators nests without the parser recursing).
    fn node(at: usize, e: Expr, height: usize) -> Result<Tree, ParseError> {
        if height > MAX_DEPTH {
            return Err((at, too_deep()));
        }
        Ok((e, height))
    }

    fn expr(&mut self) -> Result<Tree, ParseError> {
        let (mut left, mut height) = self.term()?;
        loop {
            let op = match self.peek() {
                Tok::Sym('+') => Op::Add,
                Tok::Sym('-') => Op::Sub,
                _ => return Ok((left, height)),
            };
            let (at, _) = self.next();
            let (right, rh) = self.term()?;
            (left, height) = Self::node(at, Expr::Bin(op, Box::new(left), Box::new(right)), 1 + height.max(rh))?;
        }
    }

    fn term(&mut self) -> Result<Tree, ParseError> {
        let (mut left, mut height) = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Sym('*') => Op::Mul,
                Tok::Sym('/') => Op::Div,
                Tok::Sym('%') => Op::Mod,
                _ => return Ok((left, height)),
            };
            let (at, _) = self.next();
            let (right, rh) = self.unary()?;
            (left, height) = Self::node(at, Expr::Bin(op, Box::new(left), Box::new(right)), 1 + height.max(rh))?;
        }
    }

    fn unary(&mut self) -> Result<Tree, ParseError> {
        match self.peek() {
            Tok::Sym('-') => {
                let (at, _) = self.next();
                self.enter(at)?;
                let (e, height) = self.unary()?;
                self.leave();
                match e {
                    Expr::Num(Num::Int(n)) if n != i64::MIN => Ok((Expr::Num(Num::Int(-n)), height)),
                    Expr::Num(Num::Float(f)) => Ok((Expr::Num(Num::Float(-f)), height)),
                    e => Self::node(at, Expr::Neg(Box::new(e)), height + 1),
                }
            }
            Tok::Sym('+') => {
                let (at, _) = self.next();
                self.enter(at)?;
                let t = self.unary()?;
                self.leave();
                Ok(t)
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Tree, ParseError> {
        match self.next() {
            (_, Tok::Num(n)) => Ok((Expr::Num(n), 1)),
            (p, Tok::Var(name)) => (self.var)(&name).map(|slot| (Expr::Var(slot), 1)).ok_or_else(|| {
                (
                    p,
                    format!("unknown variable :{name}; set it with \\set on an earlier line or give --param define={name}=VALUE"),
                )
            }),
            (p, Tok::Sym('(')) => {
                self.enter(p)?;
                let t = self.expr()?;
                self.leave();
                self.expect(')')?;
                Ok(t)
            }
            (p, Tok::Ident(name)) => {
                let Some(&(_, func, min, max)) = FUNCS.iter().find(|f| f.0 == name) else {
                    let names: Vec<&str> = FUNCS.iter().map(|f| f.0).collect();
                    return Err((p, format!("unknown function {name}; known: {}", names.join(", "))));
                };
                self.expect('(')?;
                self.enter(p)?;
                let mut args = Vec::new();
                let mut height = 1;
                if self.peek() != &Tok::Sym(')') {
                    loop {
                        let (arg, h) = self.expr()?;
                        args.push(arg);
                        height = height.max(h + 1);
                        if self.peek() == &Tok::Sym(',') {
                            self.next();
                        } else {
                            break;
                        }
                    }
                }
                self.leave();
                self.expect(')')?;
                if args.len() < min || args.len() > max {
                    let want = match (min, max) {
                        (a, b) if a == b => format!("{a}"),
                        (a, usize::MAX) => format!("at least {a}"),
                        (a, b) => format!("{a} or {b}"),
                    };
                    return Err((p, format!("{name} takes {want} arguments, not {}", args.len())));
                }
                Self::node(p, Expr::Call(func, args), height)
            }
            (p, t) => Err((p, format!("expected a number, a :variable, a function or '(', found {}", describe(&t)))),
        }
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(Num::Int(n)) => format!("{n}"),
        Tok::Num(Num::Float(f)) => format!("{f}"),
        Tok::Ident(s) => s.clone(),
        Tok::Var(s) => format!(":{s}"),
        Tok::Sym(c) => format!("'{c}'"),
        Tok::End => "the end of the line".into(),
    }
}

/// Parses `src`; `var` gives the slot of a known variable (None: unknown, an error).
pub fn parse(src: &str, var: &mut dyn FnMut(&str) -> Option<usize>) -> Result<Expr, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        at: 0,
        var,
        depth: 0,
    };
    if p.peek() == &Tok::End {
        return Err((p.pos(), "expected an expression".into()));
    }
    let (e, _) = p.expr()?;
    match p.next() {
        (_, Tok::End) => Ok(e),
        (pos, t) => Err((pos, format!("unexpected {} after the expression", describe(&t)))),
    }
}

/// What evaluation needs besides the expression: the client's variables, its generator and
/// the seed `hash` uses when given none (pgbench's `:default_seed`).
pub struct Env<'a> {
    pub vars: &'a [Var],
    pub rng: &'a mut ChaCha8Rng,
    pub default_seed: i64,
}

fn to_int(n: Num) -> Result<i64, String> {
    match n {
        Num::Int(i) => Ok(i),
        Num::Float(f) => {
            let r = f.round_ties_even();
            if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
                Err(format!("double {f} is out of the integer range"))
            } else {
                Ok(r as i64)
            }
        }
    }
}

fn to_float(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

fn overflow() -> String {
    "bigint out of range".into()
}

fn float(f: f64) -> Result<Num, String> {
    if f.is_finite() {
        Ok(Num::Float(f))
    } else {
        Err("double result is not finite".into())
    }
}

impl Expr {
    /// The expression's value, or pgbench's kind of error (division by zero, overflow, a bad
    /// function argument).
    pub fn eval(&self, env: &mut Env<'_>) -> Result<Num, String> {
        match self {
            Expr::Num(n) => Ok(*n),
            Expr::Var(slot) => env.vars[*slot]
                .num()
                .ok_or_else(|| format!("variable holds {:?}, not a number", env.vars[*slot])),
            Expr::Neg(e) => match e.eval(env)? {
                Num::Int(i) => i.checked_neg().map(Num::Int).ok_or_else(overflow),
                Num::Float(f) => Ok(Num::Float(-f)),
            },
            Expr::Bin(op, l, r) => {
                let (l, r) = (l.eval(env)?, r.eval(env)?);
                binary(*op, l, r)
            }
            Expr::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(a.eval(env)?);
                }
                call(*f, &vals, env)
            }
        }
    }
}

fn binary(op: Op, l: Num, r: Num) -> Result<Num, String> {
    if op == Op::Mod {
        let (a, b) = (to_int(l)?, to_int(r)?);
        return modulo(a, b);
    }
    match (l, r) {
        (Num::Int(a), Num::Int(b)) => match op {
            Op::Add => a.checked_add(b).ok_or_else(overflow),
            Op::Sub => a.checked_sub(b).ok_or_else(overflow),
            Op::Mul => a.checked_mul(b).ok_or_else(overflow),
            Op::Div if b == 0 => Err("division by zero".into()),
            Op::Div => a.checked_div(b).ok_or_else(overflow),
            Op::Mod => unreachable!("handled above"),
        }
        .map(Num::Int),
        (l, r) => {
            let (a, b) = (to_float(l), to_float(r));
            match op {
                Op::Add => float(a + b),
                Op::Sub => float(a - b),
                Op::Mul => float(a * b),
                Op::Div if b == 0.0 => Err("division by zero".into()),
                Op::Div => float(a / b),
                Op::Mod => unreachable!("handled above"),
            }
        }
    }
}

fn modulo(a: i64, b: i64) -> Result<Num, String> {
    match b {
        0 => Err("division by zero".into()),
        // i64::MIN % -1 overflows in the machine, but is 0.
        -1 => Ok(Num::Int(0)),
        _ => Ok(Num::Int(a % b)),
    }
}

fn call(f: Func, v: &[Num], env: &mut Env<'_>) -> Result<Num, String> {
    let int = |i: usize| to_int(v[i]);
    let seed = |env: &Env<'_>| {
        if v.len() > 1 {
            to_int(v[1])
        } else {
            Ok(env.default_seed)
        }
    };
    Ok(match f {
        Func::Random => Num::Int(random::uniform(env.rng, int(0)?, int(1)?)?),
        Func::RandomZipfian => Num::Int(random::zipfian(env.rng, int(0)?, int(1)?, to_float(v[2]))?),
        Func::RandomGaussian => Num::Int(random::gaussian(env.rng, int(0)?, int(1)?, to_float(v[2]))?),
        Func::RandomExponential => Num::Int(random::exponential(env.rng, int(0)?, int(1)?, to_float(v[2]))?),
        Func::Abs => match v[0] {
            Num::Int(i) => Num::Int(i.checked_abs().ok_or_else(overflow)?),
            Num::Float(x) => Num::Float(x.abs()),
        },
        Func::Least | Func::Greatest => {
            let least = f == Func::Least;
            if v.iter().any(|n| matches!(n, Num::Float(_))) {
                let it = v.iter().map(|n| to_float(*n));
                Num::Float(if least {
                    it.fold(f64::INFINITY, f64::min)
                } else {
                    it.fold(f64::NEG_INFINITY, f64::max)
                })
            } else {
                let it = v.iter().map(|n| to_int(*n).unwrap_or(0));
                Num::Int(if least { it.min() } else { it.max() }.unwrap_or(0))
            }
        }
        Func::Hash | Func::HashMurmur2 => Num::Int(random::murmur2(int(0)?, seed(env)?)),
        Func::HashFnv1a => Num::Int(random::fnv1a(int(0)?, seed(env)?)),
        Func::Int => Num::Int(int(0)?),
        Func::Double => Num::Float(to_float(v[0])),
        Func::Sqrt => float(to_float(v[0]).sqrt())?,
        Func::Exp => float(to_float(v[0]).exp())?,
        Func::Ln => float(to_float(v[0]).ln())?,
        Func::Pow => float(to_float(v[0]).powf(to_float(v[1])))?,
        Func::Mod => modulo(int(0)?, int(1)?)?,
        Func::Pi => Num::Float(std::f64::consts::PI),
    })
}

// provisional (CMDS): replaced by EXPR's
/// Whether a value is true, as pgbench's `\if` reads it: a number is true when it is not zero.
pub fn truth(v: Num) -> Result<bool, String> {
    match v {
        Num::Int(i) => Ok(i != 0),
        Num::Float(f) => Ok(f != 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn vars(name: &str) -> Option<usize> {
        ["scale", "x", "t"].iter().position(|v| *v == name)
    }

    fn eval_seeded(src: &str, seed: u64) -> Result<Num, String> {
        let e = parse(src, &mut vars).map_err(|(p, m)| format!("{p}: {m}"))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let vs = [Var::Num(Num::Int(3)), Var::Num(Num::Float(0.5)), Var::Text("42".into())];
        e.eval(&mut Env {
            vars: &vs,
            rng: &mut rng,
            default_seed: 5432,
        })
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
        assert_eq!(eval("double(5432)"), Ok(Num::Float(5432.0)));
        assert_eq!(eval("sqrt(4.0)"), Ok(Num::Float(2.0)));
        assert_eq!(eval("pow(2, 10)"), Ok(Num::Float(1024.0)));
        assert_eq!(eval("mod(-54, 32)"), i(-22));
        assert_eq!(eval("int(pi() * 100)"), i(314));
        assert_eq!(eval("int(exp(ln(10)))"), i(10));
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
    fn runtime_errors_are_errors_not_panics() {
        for (src, want) in [
            ("1 / 0", "division by zero"),
            ("1 % 0", "division by zero"),
            ("1.0 / 0", "division by zero"),
            ("9223372036854775807 + 1", "bigint out of range"),
            ("-9223372036854775807 - 2", "bigint out of range"),
            ("abs(-9223372036854775807 - 1)", "bigint out of range"),
            ("random(5, 1)", "empty range"),
            ("random_gaussian(1, 10, 1.5)", "at least 2"),
            ("random_zipfian(1, 10, 0.5)", "zipfian parameter"),
            ("int(1e300)", "out of the integer range"),
        ] {
            let e = eval(src).unwrap_err();
            assert!(e.contains(want), "{src}: {e}");
        }
        assert_eq!(eval("(-9223372036854775807 - 1) % -1"), Ok(Num::Int(0)));
    }

    #[test]
    fn nesting_is_limited_where_it_goes_too_deep() {
        let err = |src: &str| parse(src, &mut vars).unwrap_err();
        // Before: each of these overflowed the stack and aborted the process.
        let parens = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(err(&parens), (MAX_DEPTH, too_deep()), "the first parenthesis too many");
        assert_eq!(err(&"-".repeat(100_000)).0, MAX_DEPTH);
        assert_eq!(err(&format!("{}:x", "- ".repeat(100_000))).0, 2 * MAX_DEPTH);
        assert_eq!(
            err(&format!("{}1{}", "abs(".repeat(300), ")".repeat(300))).0,
            4 * MAX_DEPTH
        );
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
        ];
        for src in deepest {
            let small_stack = std::thread::Builder::new().stack_size(STACK);
            let value = small_stack
                .spawn(move || {
                    let e = parse(&src, &mut vars).map_err(|(p, m)| format!("{p}: {m}"))?;
                    let mut rng = ChaCha8Rng::seed_from_u64(1);
                    let vs = [Var::Num(Num::Int(3)), Var::Num(Num::Float(0.5)), Var::Text("42".into())];
                    let v = e.eval(&mut Env {
                        vars: &vs,
                        rng: &mut rng,
                        default_seed: 1,
                    });
                    drop(e);
                    v
                })
                .unwrap()
                .join()
                .unwrap();
            assert!(value.is_ok(), "{value:?}");
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
        assert_eq!(err("(1 + 2").0, 6);
        assert_eq!(err("1 2").1, "unexpected 2 after the expression");
        assert!(err("1 < 2").1.contains("not supported"));
        assert_eq!(err("").1, "expected an expression");
        assert_eq!(
            err("99999999999999999999").1,
            "number 99999999999999999999 is out of range"
        );
    }
}
