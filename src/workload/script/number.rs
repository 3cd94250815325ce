//! A number's text read as pgbench reads it, with the C library's rules rather than Rust's:
//! `strtod` (leading blanks, `inf`, `nan`, hexadecimal `0x1p3`; out of range, subnormal results
//! included, is glibc's `ERANGE`), `strtoi64` (leading blanks, a sign, 64-bit or `ERANGE`), and
//! pgbench's `makeVariableValue`, which turns a variable's text (`--param define`, a `\gset`
//! cell) into a value on use. Kept apart because the expression scanner's double constants
//! and the variables' texts must agree with pgbench on exactly which texts are numbers, and
//! Rust's `parse` disagrees at every edge (`" 7"`, `0x10`, `Infinity`, `4.9e-324`).

use super::eval_error::EvalError;
use super::expr::Num;

/// What `strtod` or `strtoi64` made of a whole text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Read<T> {
    Value(T),
    /// `ERANGE`: too large, or (for a double) too small to be a normal number.
    Range,
    /// Not a number, or something after it.
    Syntax,
}

/// C's `isspace` in the "C" locale.
fn c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `text` less its leading blanks, its sign and whether it was `-`.
fn unsign(text: &str) -> (bool, &str) {
    let t = text.trim_start_matches(|c: char| c.is_ascii() && c_space(c as u8));
    match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    }
}

/// `strtoi64(text, &end, 10)` with pgbench's checks: the whole text, no overflow.
pub fn strtoint64(text: &str) -> Read<i64> {
    let (negative, digits) = unsign(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Read::Syntax;
    }
    let mut v: i64 = 0;
    for b in digits.bytes() {
        let d = i64::from(b - b'0');
        let next = v
            .checked_mul(10)
            .and_then(|x| if negative { x.checked_sub(d) } else { x.checked_add(d) });
        match next {
            Some(n) => v = n,
            None => return Read::Range,
        }
    }
    Read::Value(v)
}

/// pgbench's `is_an_int`: blanks, an optional sign, then only digits (it lets an empty rest
/// through, which `strtoint64` then refuses).
pub fn is_an_int(text: &str) -> bool {
    let (_, rest) = unsign(text);
    rest.bytes().all(|b| b.is_ascii_digit())
}

/// `strtod(text, &end)` with pgbench's checks (`strtodouble`): the whole text, and `ERANGE`
/// (glibc's: an infinite result from finite digits, or one below the smallest normal double,
/// zero included when the digits were not all zeros).
pub fn strtod(text: &str) -> Read<f64> {
    let (negative, rest) = unsign(text);
    let sign = if negative { -1.0 } else { 1.0 };
    let lower = rest.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Read::Value(sign * f64::INFINITY);
    }
    if lower == "nan" || (lower.starts_with("nan(") && lower.ends_with(')') && nan_chars(&lower[4..lower.len() - 1])) {
        return Read::Value(f64::NAN);
    }
    let (magnitude, nonzero) = if let Some(digits) = lower.strip_prefix("0x") {
        match hex(digits) {
            Some(v) => v,
            None => return Read::Syntax,
        }
    } else {
        match decimal(rest) {
            Some(v) => v,
            None => return Read::Syntax,
        }
    };
    if magnitude.is_infinite() || (nonzero && magnitude < f64::MIN_POSITIVE) {
        return Read::Range;
    }
    Read::Value(sign * magnitude)
}

fn nan_chars(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A decimal `digits[.digits][e[+-]digits]` (at least one digit in the mantissa), its value and
/// whether any mantissa digit was not zero.
fn decimal(s: &str) -> Option<(f64, bool)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    let mut nonzero = false;
    let mut dot = false;
    while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'.' && !dot)) {
        dot |= b[i] == b'.';
        if b[i].is_ascii_digit() {
            digits += 1;
            nonzero |= b[i] != b'0';
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j == b.len() || !b[j..].iter().all(u8::is_ascii_digit) {
            return None;
        }
        i = b.len();
    }
    (i == b.len()).then(|| s.parse::<f64>().ok().map(|v| (v, nonzero)))?
}

/// A hexadecimal `h[.h][p[+-]d]` after its `0x`, its value and whether it was not zero.
fn hex(s: &str) -> Option<(f64, bool)> {
    let (mantissa, exponent) = match s.find('p') {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.len() + fraction.len() == 0 || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut exp: i64 = match exponent {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            e.parse::<i64>()
                .unwrap_or(if e.starts_with('-') { -100_000 } else { 100_000 })
        }
    };
    // The first 15 significant hex digits are exact in a u64; later ones only shift.
    let mut bits: u64 = 0;
    let mut kept = 0;
    for (k, c) in whole.chars().chain(fraction.chars()).enumerate() {
        let d = u64::from(c.to_digit(16).unwrap_or(0));
        if bits == 0 && d == 0 {
            if k >= whole.len() {
                exp -= 4;
            }
            continue;
        }
        if kept < 15 {
            bits = bits * 16 + d;
            kept += 1;
            if k >= whole.len() {
                exp -= 4;
            }
        } else if k < whole.len() {
            exp += 4;
        }
    }
    let value = (bits as f64) * 2f64.powi(exp.clamp(-2_000, 2_000) as i32);
    Some((value, bits != 0))
}

/// A variable's text as a value, as pgbench's `makeVariableValue` reads it on use: `null`; a
/// prefix of `true` or `yes`, or `on`; a prefix of `false` or `no`, or `off` or `of` (any case);
/// then an integer where it looks like one (and must fit), else a double; the error in
/// pgbench's words.
pub fn variable_value(name: &str, text: &str) -> Result<Num, EvalError> {
    let lower = text.to_ascii_lowercase();
    let prefix_of = |w: &str| !lower.is_empty() && w.starts_with(lower.as_str());
    let malformed = || EvalError::Malformed {
        name: name.to_string(),
        text: text.to_string(),
    };
    if text.is_empty() {
        // pgbench fails here without a message of its own.
        return Err(malformed());
    }
    if lower == "null" {
        return Ok(Num::Null);
    }
    if prefix_of("true") || prefix_of("yes") || lower == "on" {
        return Ok(Num::Bool(true));
    }
    if prefix_of("false") || prefix_of("no") || lower == "off" || lower == "of" {
        return Ok(Num::Bool(false));
    }
    if is_an_int(text) {
        return match strtoint64(text) {
            Read::Value(i) => Ok(Num::Int(i)),
            Read::Range => Err(EvalError::BigintRange(text.to_string())),
            Read::Syntax => Err(EvalError::BigintSyntax(text.to_string())),
        };
    }
    match strtod(text) {
        Read::Value(f) => Ok(Num::Float(f)),
        _ => Err(malformed()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What pgbench 15 printed for `-D v=TEXT` read by `\set r :v` (Debian's, on x86-64 glibc).
    #[test]
    fn defined_texts_read_as_pgbench_reads_them() {
        let read = |t: &str| variable_value("v", t);
        assert_eq!(read(" 7"), Ok(Num::Int(7)));
        assert_eq!(read("+3"), Ok(Num::Int(3)));
        assert_eq!(read("0x10"), Ok(Num::Float(16.0)));
        assert_eq!(read("0x1p3"), Ok(Num::Float(8.0)));
        assert_eq!(read("0x.8"), Ok(Num::Float(0.5)));
        assert_eq!(read("Infinity"), Ok(Num::Float(f64::INFINITY)));
        assert_eq!(read("-inf"), Ok(Num::Float(f64::NEG_INFINITY)));
        assert!(matches!(read("nan"), Ok(Num::Float(f)) if f.is_nan()));
        assert_eq!(read(".5"), Ok(Num::Float(0.5)));
        assert_eq!(read("5."), Ok(Num::Float(5.0)));
        assert_eq!(read("tr"), Ok(Num::Bool(true)));
        assert_eq!(read("of"), Ok(Num::Bool(false)));
        assert_eq!(read("NULL"), Ok(Num::Null));
        for (text, want) in [
            (" 7 ", "malformed variable \"v\" value: \" 7 \""),
            ("7 ", "malformed variable \"v\" value: \"7 \""),
            ("true ", "malformed variable \"v\" value: \"true \""),
            ("abc", "malformed variable \"v\" value: \"abc\""),
            ("o", "malformed variable \"v\" value: \"o\""),
            ("1e309", "malformed variable \"v\" value: \"1e309\""),
            ("1e-310", "malformed variable \"v\" value: \"1e-310\""),
            ("4.9e-324", "malformed variable \"v\" value: \"4.9e-324\""),
            ("1e-400", "malformed variable \"v\" value: \"1e-400\""),
            (
                "9223372036854775808",
                "value \"9223372036854775808\" is out of range for type bigint",
            ),
            (
                "-9223372036854775809",
                "value \"-9223372036854775809\" is out of range for type bigint",
            ),
            ("-", "invalid input syntax for type bigint: \"-\""),
            (" ", "invalid input syntax for type bigint: \" \""),
        ] {
            assert_eq!(read(text).map_err(|e| e.to_string()), Err(want.to_string()), "{text:?}");
        }
        assert_eq!(read("-9223372036854775808"), Ok(Num::Int(i64::MIN)));
        assert_eq!(read("0.0"), Ok(Num::Float(0.0)));
        assert_eq!(strtod("2.2250738585072014e-308"), Read::Value(f64::MIN_POSITIVE));
    }
}
