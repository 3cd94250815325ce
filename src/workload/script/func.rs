//! The functions and operators of `\set` expressions evaluated on their values, with pgbench's
//! typing (`evalStandardFunc`): a NULL argument makes a NULL result (except in `IS` and
//! `debug`); an operator with a double operand works in doubles (IEEE: `1.0 / 0` is infinity, as
//! in pgbench), else in 64-bit integers whose overflow is an error; a boolean where a number is
//! wanted, or a number where a boolean is, is pgbench's "cannot coerce" error.

use super::eval_error::EvalError;
use super::expr::{Env, Num};
use super::{permute, random};

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
    Permute,
    Debug,
}

/// Most arguments a function takes: pgbench's `MAX_FARGS`.
pub const MAX_ARGS: usize = 16;

/// Each function's name and how many arguments it takes (`min..=max`).
pub const FUNCS: &[(&str, Func, usize, usize)] = &[
    ("random", Func::Random, 2, 2),
    ("random_zipfian", Func::RandomZipfian, 3, 3),
    ("random_gaussian", Func::RandomGaussian, 3, 3),
    ("random_exponential", Func::RandomExponential, 3, 3),
    ("abs", Func::Abs, 1, 1),
    ("least", Func::Least, 1, MAX_ARGS),
    ("greatest", Func::Greatest, 1, MAX_ARGS),
    ("min", Func::Least, 1, MAX_ARGS),
    ("max", Func::Greatest, 1, MAX_ARGS),
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
    ("permute", Func::Permute, 2, 3),
    ("debug", Func::Debug, 1, 1),
];

impl Func {
    /// Whether a call with `nargs` arguments gives the same value every time its arguments are
    /// the same: not a random draw, not `debug` (it prints), not a hash or permutation whose
    /// seed is the run's `:default_seed`.
    pub fn is_pure(self, nargs: usize) -> bool {
        match self {
            Func::Random | Func::RandomZipfian | Func::RandomGaussian | Func::RandomExponential => false,
            Func::Debug => false,
            Func::Hash | Func::HashFnv1a | Func::HashMurmur2 => nargs == 2,
            Func::Permute => nargs == 3,
            _ => true,
        }
    }
}

/// The binary operators; `>` and `>=` are `<` and `<=` with their operands swapped, as pgbench
/// parses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

/// A value's type as pgbench's messages name it.
pub fn type_name(v: Num) -> &'static str {
    match v {
        Num::Int(_) => "int",
        Num::Float(_) => "double",
        Num::Null => "null",
        Num::Bool(_) => "boolean",
    }
}

/// `v` as an integer: a double rounded half to even (pgbench's `rint`), refused outside the
/// integer range.
pub fn to_int(v: Num) -> Result<i64, EvalError> {
    match v {
        Num::Int(i) => Ok(i),
        Num::Float(f) => {
            let r = f.round_ties_even();
            if r.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
                Err(EvalError::IntOverflow(r))
            } else {
                Ok(r as i64)
            }
        }
        _ => Err(EvalError::Coerce { from: v, to: "int" }),
    }
}

pub fn to_float(v: Num) -> Result<f64, EvalError> {
    match v {
        Num::Int(i) => Ok(i as f64),
        Num::Float(f) => Ok(f),
        _ => Err(EvalError::Coerce { from: v, to: "double" }),
    }
}

/// `v` as a boolean, for `NOT`, `AND` and `OR`: only a boolean is one.
pub fn to_bool(v: Num) -> Result<bool, EvalError> {
    match v {
        Num::Bool(b) => Ok(b),
        _ => Err(EvalError::Coerce { from: v, to: "boolean" }),
    }
}

/// `l op r`, both evaluated (a NULL operand has already made the result NULL).
pub fn binary(op: Op, l: Num, r: Num) -> Result<Num, EvalError> {
    use Op::*;
    match op {
        BitAnd | BitOr | BitXor | Shl | Shr => {
            let (a, b) = (to_int(l)?, to_int(r)?);
            // A shift by 64 or more, or by a negative count, is the machine's (the count's low
            // six bits), as pgbench's C shift is on the machines it runs on.
            Ok(Num::Int(match op {
                BitAnd => a & b,
                BitOr => a | b,
                BitXor => a ^ b,
                Shl => a.wrapping_shl(b as u32),
                _ => a.wrapping_shr(b as u32),
            }))
        }
        _ if op != Mod && (matches!(l, Num::Float(_)) || matches!(r, Num::Float(_))) => {
            let (a, b) = (to_float(l)?, to_float(r)?);
            Ok(match op {
                Add => Num::Float(a + b),
                Sub => Num::Float(a - b),
                Mul => Num::Float(a * b),
                Div => Num::Float(a / b),
                Eq => Num::Bool(a == b),
                Ne => Num::Bool(a != b),
                Lt => Num::Bool(a < b),
                _ => Num::Bool(a <= b),
            })
        }
        _ => {
            let (a, b) = (to_int(l)?, to_int(r)?);
            Ok(match op {
                Add => Num::Int(a.checked_add(b).ok_or(EvalError::Arithmetic("add"))?),
                Sub => Num::Int(a.checked_sub(b).ok_or(EvalError::Arithmetic("sub"))?),
                Mul => Num::Int(a.checked_mul(b).ok_or(EvalError::Arithmetic("mul"))?),
                Div | Mod => divide(op == Div, a, b)?,
                Eq => Num::Bool(a == b),
                Ne => Num::Bool(a != b),
                Lt => Num::Bool(a < b),
                _ => Num::Bool(a <= b),
            })
        }
    }
}

fn divide(div: bool, a: i64, b: i64) -> Result<Num, EvalError> {
    Ok(Num::Int(match b {
        0 => return Err(EvalError::DivisionByZero),
        // i64::MIN / -1 overflows; i64::MIN % -1 overflows in the machine but is 0.
        -1 if div => a.checked_neg().ok_or(EvalError::Arithmetic("div"))?,
        -1 => 0,
        _ if div => a / b,
        _ => a % b,
    }))
}

/// `f(v)`: the arguments evaluated, their count checked when parsed.
pub fn call(f: Func, v: &[Num], env: &mut Env<'_>) -> Result<Num, EvalError> {
    if f == Func::Debug {
        eprintln!("debug: {}", debug_text(v[0]));
        return Ok(v[0]);
    }
    if v.contains(&Num::Null) {
        return Ok(Num::Null);
    }
    let int = |i: usize| to_int(v[i]);
    let float = |i: usize| to_float(v[i]);
    let seed = |i: usize, env: &Env<'_>| {
        if v.len() > i {
            to_int(v[i])
        } else {
            Ok(env.default_seed)
        }
    };
    Ok(match f {
        Func::Random | Func::RandomZipfian | Func::RandomGaussian | Func::RandomExponential => {
            let (lb, ub) = (int(0)?, int(1)?);
            Num::Int(match f {
                Func::Random => random::uniform(env.rng, lb, ub)?,
                Func::RandomZipfian => random::zipfian(env.rng, lb, ub, float(2)?)?,
                Func::RandomGaussian => random::gaussian(env.rng, lb, ub, float(2)?)?,
                _ => random::exponential(env.rng, lb, ub, float(2)?)?,
            })
        }
        // pgbench's abs(-9223372036854775808) wraps to itself: refused here, in the words
        // PostgreSQL uses for a bigint that does not fit (docs/workloads.md).
        Func::Abs => match v[0] {
            Num::Int(i) => Num::Int(i.checked_abs().ok_or(EvalError::Abs)?),
            other => Num::Float(to_float(other)?.abs()),
        },
        Func::Least | Func::Greatest => {
            let least = f == Func::Least;
            if v.iter().any(|n| matches!(n, Num::Float(_))) {
                // C's `Min(a, b)` (`a < b ? a : b`) and `Max`, folded left to right as
                // pgbench folds them: a NaN is kept or dropped by where it stands.
                let mut m = float(0)?;
                for i in 1..v.len() {
                    let x = float(i)?;
                    let keep = if least { m < x } else { m > x };
                    m = if keep { m } else { x };
                }
                Num::Float(m)
            } else {
                let mut m = int(0)?;
                for i in 1..v.len() {
                    let x = int(i)?;
                    m = if least { m.min(x) } else { m.max(x) };
                }
                Num::Int(m)
            }
        }
        Func::Hash | Func::HashMurmur2 => Num::Int(random::murmur2(int(0)?, seed(1, env)?)),
        Func::HashFnv1a => Num::Int(random::fnv1a(int(0)?, seed(1, env)?)),
        Func::Permute => Num::Int(permute::permute(int(0)?, int(1)?, seed(2, env)?)?),
        Func::Int => Num::Int(int(0)?),
        Func::Double => Num::Float(float(0)?),
        Func::Sqrt => Num::Float(float(0)?.sqrt()),
        Func::Exp => Num::Float(float(0)?.exp()),
        Func::Ln => Num::Float(float(0)?.ln()),
        Func::Pow => Num::Float(float(0)?.powf(float(1)?)),
        Func::Mod => divide(false, int(0)?, int(1)?)?,
        Func::Pi => Num::Float(std::f64::consts::PI),
        Func::Debug => unreachable!("handled above"),
    })
}

/// A value as pgbench's `debug()` prints it: `int 5`, `double 1.5`, `boolean true`, `null`.
pub fn debug_text(v: Num) -> String {
    match v {
        Num::Int(i) => format!("int {i}"),
        Num::Float(f) => format!("double {}", g15(f)),
        Num::Bool(b) => format!("boolean {b}"),
        Num::Null => "null".into(),
    }
}

/// `f` as C's `%.15g` writes it (15 significant digits, trailing zeros dropped, an exponent
/// below -4 or from 15 up in `e+NN` form), so that `debug()` prints what pgbench prints.
pub fn g15(f: f64) -> String {
    if let Some(word) = non_finite(f) {
        return word.into();
    }
    let sci = format!("{f:.14e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..15).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        trim(&format!("{f:.*}", (14 - exp) as usize))
    }
}

/// A NaN or an infinity as PostgreSQL's `snprintf` writes one, whatever the format (pgbench's
/// `debug()` and its messages): `NaN`, `Infinity`, `-Infinity`.
fn non_finite(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f.is_infinite() {
        Some(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        None
    }
}

/// `f` as C's `%f` writes it (six decimals), with PostgreSQL's words for a NaN or an infinity.
pub fn fixed6(f: f64) -> String {
    non_finite(f).map_or_else(|| format!("{f:.6}"), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_c_prints_them_with_15_digits() {
        assert_eq!(g15(8.507_059_173_023_462e37), "8.50705917302346e+37");
        assert_eq!(g15(1e30), "1e+30");
        assert_eq!(g15(-0.00032), "-0.00032");
        assert_eq!(g15(15.393_804_002_589_986), "15.39380400259");
        assert_eq!(g15(0.000_012_5), "1.25e-05");
        assert_eq!(g15(34.0), "34");
        assert_eq!(g15(0.0), "0");
        // Issue 47: PostgreSQL's snprintf, not C's `inf`.
        assert_eq!(g15(f64::INFINITY), "Infinity");
        assert_eq!(g15(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(g15(f64::NAN), "NaN");
        // NaN equals no value, itself included: its overflow compares as text.
        assert_eq!(
            to_int(Num::Float(f64::NAN)).map_err(|e| e.to_string()),
            Err("double to int overflow for NaN".into())
        );
        assert_eq!(
            to_int(Num::Float(f64::NEG_INFINITY)),
            Err(EvalError::IntOverflow(f64::NEG_INFINITY))
        );
        assert_eq!(
            to_int(Num::Float(1e32)).map_err(|e| e.to_string()),
            Err("double to int overflow for 100000000000000005366162204393472.000000".into())
        );
    }
}
