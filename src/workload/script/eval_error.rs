//! [`EvalError`]: why a `\set` or `\if` expression could not be evaluated, as a value that
//! keeps what failed and the operands it failed on. The functions, draws and variable reads
//! return it; only the client that ran the command adds the script and line and prints it,
//! in pgbench's words, so every message is written once, here.

use super::expr::Num;
use super::func::{fixed6, type_name};
use super::permute::BAD_SIZE;
use super::random::{MIN_GAUSSIAN, ZIPF_MAX, ZIPF_MIN};

/// An expression's run-time error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// A value used where another type is needed (`to`: `int`, `double`, `boolean`).
    #[error("cannot coerce {} to {to}", type_name(*.from))]
    Coerce { from: Num, to: &'static str },
    /// A double (rounded) outside the integer range.
    #[error("double to int overflow for {}", fixed6(*.0))]
    IntOverflow(f64),
    /// Integer arithmetic that overflowed: `add`, `sub`, `mul`, `div`.
    #[error("bigint {0} out of range")]
    Arithmetic(&'static str),
    /// `abs(-9223372036854775808)`.
    #[error("bigint out of range")]
    Abs,
    #[error("division by zero")]
    DivisionByZero,
    #[error("empty range given to random: [{lb}, {ub}]")]
    EmptyRange { lb: i64, ub: i64 },
    #[error("random range is too large: [{lb}, {ub}]")]
    RangeTooLarge { lb: i64, ub: i64 },
    #[error("exponential parameter must be greater than zero (not {0:.6})")]
    Exponential(f64),
    #[error("gaussian parameter must be at least {:.6} (not {:.6})", MIN_GAUSSIAN, .0)]
    Gaussian(f64),
    #[error("zipfian parameter must be in range [{:.3}, {:.0}] (not {:.6})", ZIPF_MIN, ZIPF_MAX, .0)]
    Zipfian(f64),
    #[error("{}", BAD_SIZE)]
    PermuteSize,
    /// A variable's text that is no value (pgbench's `makeVariableValue`).
    #[error("malformed variable \"{name}\" value: \"{text}\"")]
    Malformed { name: String, text: String },
    #[error("value \"{0}\" is out of range for type bigint")]
    BigintRange(String),
    #[error("invalid input syntax for type bigint: \"{0}\"")]
    BigintSyntax(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_reads_as_pgbench_words_it() {
        for (e, want) in [
            (
                EvalError::Coerce {
                    from: Num::Null,
                    to: "int",
                },
                "cannot coerce null to int",
            ),
            (EvalError::IntOverflow(f64::NAN), "double to int overflow for NaN"),
            (EvalError::Arithmetic("mul"), "bigint mul out of range"),
            (EvalError::Abs, "bigint out of range"),
            (EvalError::DivisionByZero, "division by zero"),
            (
                EvalError::EmptyRange { lb: 5, ub: 4 },
                "empty range given to random: [5, 4]",
            ),
            (
                EvalError::Exponential(0.0),
                "exponential parameter must be greater than zero (not 0.000000)",
            ),
            (
                EvalError::Gaussian(1.5),
                "gaussian parameter must be at least 2.000000 (not 1.500000)",
            ),
            (
                EvalError::Zipfian(1.0),
                "zipfian parameter must be in range [1.001, 1000] (not 1.000000)",
            ),
            (
                EvalError::PermuteSize,
                "permute size parameter must be greater than zero",
            ),
        ] {
            assert_eq!(e.to_string(), want);
        }
        let v = EvalError::Malformed {
            name: "v".into(),
            text: String::new(),
        };
        assert_eq!(v.to_string(), "malformed variable \"v\" value: \"\"");
    }
}
