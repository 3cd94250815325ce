//! The tokens of a `\set` expression, as pgbench's `exprscan.l` splits them: numbers, `:name`
//! variables, function names, the keywords (`AND OR NOT IS ISNULL NOTNULL TRUE FALSE NULL CASE
//! WHEN THEN ELSE END`, in any case) and the operators. Kept apart from the parser so that each
//! reads as one concept; one pass over the text, so a line's length costs linear time.

use super::expr::{Num, ParseError};
use super::number::{self, Read};

/// A keyword of pgbench's expression grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kw {
    And,
    Or,
    Not,
    Is,
    IsNull,
    NotNull,
    True,
    False,
    Null,
    Case,
    When,
    Then,
    Else,
    End,
}

const KEYWORDS: &[(&str, Kw)] = &[
    ("and", Kw::And),
    ("or", Kw::Or),
    ("not", Kw::Not),
    ("is", Kw::Is),
    ("isnull", Kw::IsNull),
    ("notnull", Kw::NotNull),
    ("true", Kw::True),
    ("false", Kw::False),
    ("null", Kw::Null),
    ("case", Kw::Case),
    ("when", Kw::When),
    ("then", Kw::Then),
    ("else", Kw::Else),
    ("end", Kw::End),
];

/// `9223372036854775808`: too large for an integer, but `-9223372036854775808` is the smallest
/// one, so the parser takes it after a unary minus (pgbench's "minint constant").
pub const MIN_INT_MAGNITUDE: &str = "9223372036854775808";

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Num(Num),
    /// [`MIN_INT_MAGNITUDE`], valid only right after a unary minus.
    MinIntMagnitude,
    Ident(String),
    Kw(Kw),
    Var(String),
    /// An operator or punctuation: `+ - * / % ( ) , ~ & | # = < > <= >= <> != << >>`.
    Sym(&'static str),
    End,
}

/// The two-character operators first, so that `<=` is not read as `<` then `=`.
const SYMS: &[&str] = &[
    "<=", ">=", "<>", "!=", "<<", ">>", "+", "-", "*", "/", "%", "(", ")", ",", "~", "&", "|", "#", "=", "<", ">",
];

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The tokens of `src`, each with its 0-based byte offset, ending with [`Tok::End`].
pub fn lex(src: &str) -> Result<Vec<(usize, Tok)>, ParseError> {
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
        // A line continuation: a backslash ending the line joins the next one to it.
        if c == b'\\' {
            let after = i + 1 + usize::from(b.get(i + 1) == Some(&b'\r'));
            if b.get(after) == Some(&b'\n') {
                i = after + 1;
                continue;
            }
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
            if text == MIN_INT_MAGNITUDE {
                out.push((start, Tok::MinIntMagnitude));
                continue;
            }
            // pgbench's words; a double is read by C's strtod, whose ERANGE takes in the
            // subnormal numbers (`4.9e-324`) as well as the overflows.
            let n = if float {
                match number::strtod(text) {
                    Read::Value(f) => Num::Float(f),
                    _ => return Err((start, format!("double constant overflow ({text})"))),
                }
            } else {
                match text.parse::<i64>() {
                    Ok(i) => Num::Int(i),
                    Err(_) => return Err((start, format!("bigint constant overflow ({text})"))),
                }
            };
            out.push((start, Tok::Num(n)));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && is_word(b[i]) {
                i += 1;
            }
            let word = src[start..i].to_ascii_lowercase();
            let tok = match KEYWORDS.iter().find(|k| k.0 == word) {
                Some(&(_, kw)) => Tok::Kw(kw),
                None => Tok::Ident(word),
            };
            out.push((start, tok));
        } else if c == b':' {
            i += 1;
            while i < b.len() && is_word(b[i]) {
                i += 1;
            }
            if i == start + 1 {
                return Err((start, "expected a variable name after ':'".into()));
            }
            out.push((start, Tok::Var(src[start + 1..i].to_string())));
        } else if let Some(sym) = SYMS.iter().find(|s| b[i..].starts_with(s.as_bytes())) {
            i += sym.len();
            out.push((start, Tok::Sym(sym)));
        } else {
            let ch = src[start..].chars().next().unwrap_or('?');
            return Err((start, format!("unexpected character '{ch}'")));
        }
    }
    out.push((src.len(), Tok::End));
    Ok(out)
}

/// A token as an error message names it.
pub fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(Num::Int(n)) => format!("{n}"),
        Tok::Num(n) => format!("{n:?}"),
        Tok::MinIntMagnitude => MIN_INT_MAGNITUDE.into(),
        Tok::Ident(s) => s.clone(),
        Tok::Kw(k) => KEYWORDS
            .iter()
            .find(|w| w.1 == *k)
            .map_or_else(String::new, |w| w.0.to_ascii_uppercase()),
        Tok::Var(s) => format!(":{s}"),
        Tok::Sym(c) => format!("'{c}'"),
        Tok::End => "the end of the line".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src).unwrap().into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn keywords_in_any_case_and_two_character_operators() {
        assert_eq!(
            kinds("a Or NOT :x <= 1 <> 2 != 3 << 4 >> 5"),
            vec![
                Tok::Ident("a".into()),
                Tok::Kw(Kw::Or),
                Tok::Kw(Kw::Not),
                Tok::Var("x".into()),
                Tok::Sym("<="),
                Tok::Num(Num::Int(1)),
                Tok::Sym("<>"),
                Tok::Num(Num::Int(2)),
                Tok::Sym("!="),
                Tok::Num(Num::Int(3)),
                Tok::Sym("<<"),
                Tok::Num(Num::Int(4)),
                Tok::Sym(">>"),
                Tok::Num(Num::Int(5)),
                Tok::End,
            ]
        );
        assert_eq!(kinds("TRUE nUlL")[..2], [Tok::Kw(Kw::True), Tok::Kw(Kw::Null)]);
        assert_eq!(kinds("9223372036854775808")[0], Tok::MinIntMagnitude);
        assert_eq!(lex("1 ; 2").unwrap_err(), (2, "unexpected character ';'".into()));
        assert_eq!(lex("1 ! 2").unwrap_err().0, 2);
    }
}
