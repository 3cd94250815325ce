//! Statements of a user's SQL (a replayed log, a script, an `init=` file) that name, in so many
//! words, a file outside the trial's copy: `ATTACH 'FILE'` and `VACUUM INTO 'FILE'`. Every trial
//! runs on its own copy of the database in the scratch directory; an application's log that
//! attaches its other databases would otherwise change the user's real files (a log's
//! `ATTACH '/data/victim.db' AS v; DELETE FROM v.important` emptied it) or leave files behind
//! that no cleanup knows of.
//!
//! This is the early half, found when the file is read, with its file, line and column and the
//! way out. SQLite and DuckDB refuse the same at run time, names built while running included
//! ([`crate::engines::Connection::confine_to_scratch`]: SQLite's authorizer, DuckDB's
//! `enable_external_access`), so an `ATTACH` of an expression is left to them. Turso attaches
//! nothing (its `ATTACH` is off) and takes only a literal after `VACUUM INTO`, but vacuums
//! through an I/O layer of its own: for it this check is the confinement, so every `VACUUM INTO`
//! but one of no file is refused here, whatever its target.

use crate::engines::sql_lex::{Kind, Lexer, Token};

/// Names that open no file: an in-memory database and a temporary one (deleted on close).
const NO_FILE: [&str; 2] = ["", ":memory:"];

/// The first statement of `text[from..to]` that attaches or vacuums into a file named by a
/// literal: the byte offset of the name and what is wrong, with the way out. Text that does not
/// lex is left to the caller's own reading.
pub fn first_refusal(text: &str, from: usize, to: usize, backslash_escapes: bool) -> Option<(usize, String)> {
    let mut statement: Vec<Token> = Vec::new();
    for t in Lexer::new(&text[..to], from, backslash_escapes) {
        let t = t.ok()?;
        match t.kind {
            Kind::Semicolon => {
                if let Some(r) = refusal(text, &statement) {
                    return Some(r);
                }
                statement.clear();
            }
            Kind::Blank | Kind::LineComment | Kind::BlockComment => {}
            _ => statement.push(t),
        }
    }
    refusal(text, &statement)
}

/// The refusal of one statement's tokens (blanks and comments left out), if it names a file.
fn refusal(text: &str, tokens: &[Token]) -> Option<(usize, String)> {
    let word = |i: usize, w: &str| {
        tokens
            .get(i)
            .is_some_and(|t| t.kind == Kind::Word && text[t.start..t.end].eq_ignore_ascii_case(w))
    };
    if word(0, "ATTACH") {
        let at = if word(1, "DATABASE") { 2 } else { 1 };
        let name = tokens.get(at)?;
        // Only a name that is the whole expression: `ATTACH 'a' || 'b'` is for the engine.
        if !word(at + 1, "AS") {
            return None;
        }
        let shown = &text[name.start..name.end];
        let value = literal(name, shown)?;
        return (!NO_FILE.contains(&value.as_str())).then(|| {
            (
                name.start,
                format!(
                    "ATTACH of {shown}, a file outside the trial's copy, which a replayed log or script may not change (every trial runs on its own copy in the scratch directory); attach a temporary database instead (ATTACH '' AS name) and fill it, or leave the statement out"
                ),
            )
        });
    }
    if word(0, "VACUUM") {
        // Every target but a literal name of no file: Turso vacuums through an I/O layer of
        // its own, which nothing of litebench's sees, and this is what keeps it inside.
        let into = (1..tokens.len()).find(|&i| word(i, "INTO"))?;
        let name = tokens.get(into + 1)?;
        let shown = &text[name.start..tokens[tokens.len() - 1].end];
        let value = if into + 2 == tokens.len() {
            literal(name, shown)
        } else {
            None
        };
        return value.is_none_or(|v| !NO_FILE.contains(&v.as_str())).then(|| {
            (
                name.start,
                format!(
                    "VACUUM INTO {shown}, a file outside the trial's copy, which a replayed log or script may not create; leave the statement out (VACUUM without INTO rewrites the trial's own copy)"
                ),
            )
        });
    }
    None
}

/// The text a literal name stands for: a string (`'...'`), a quoted identifier (`"..."`,
/// `` `...` ``) or a bare word, as SQLite reads each in `ATTACH`. `None` for anything else.
fn literal(t: &Token, shown: &str) -> Option<String> {
    match t.kind {
        Kind::Word => Some(shown.to_string()),
        Kind::String | Kind::QuotedIdent => {
            let q = shown.chars().next()?;
            if !matches!(q, '\'' | '"' | '`') || shown.len() < 2 {
                return None;
            }
            let inner = &shown[1..shown.len() - 1];
            Some(inner.replace(&format!("{q}{q}"), &q.to_string()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Option<usize> {
        first_refusal(text, 0, text.len(), false).map(|r| r.0)
    }

    #[test]
    fn a_literal_file_is_refused_at_its_name() {
        assert_eq!(at("ATTACH '/data/victim.db' AS v"), Some(7));
        assert_eq!(at("SELECT 1; attach database \"victim.db\" as v;"), Some(26));
        assert_eq!(at("ATTACH victim AS v"), Some(7));
        assert_eq!(at("/* x */ VACUUM INTO '/data/outside.db'"), Some(20));
        assert_eq!(at("VACUUM main INTO 'o.db';"), Some(17));
        // Any computed target too (the engines' confinement would hold SQLite and DuckDB; this
        // is what holds Turso).
        assert_eq!(at("VACUUM INTO '/x' || '.db'"), Some(12));
        assert_eq!(at("VACUUM INTO :target"), Some(12));
        let (_, why) = first_refusal("ATTACH 'it''s.db' AS v", 0, 22, false).unwrap();
        assert!(
            why.starts_with("ATTACH of 'it''s.db', a file outside the trial's copy"),
            "{why}"
        );
        assert!(why.contains("ATTACH '' AS name"), "{why}");
    }

    #[test]
    fn memory_temporary_and_computed_names_are_left_alone() {
        for text in [
            "ATTACH ':memory:' AS m",
            "ATTACH '' AS t",
            "ATTACH DATABASE '' AS t; SELECT 1",
            "VACUUM",
            "VACUUM INTO ':memory:'",
            // Built at run time: the engine's confinement refuses it.
            "ATTACH '/data/' || 'victim.db' AS v",
            "ATTACH ? AS v",
            "SELECT 'ATTACH ''/x'' AS v'",
            "INSERT INTO attach VALUES ('/x')",
            "SELECT 'unterminated",
        ] {
            assert_eq!(at(text), None, "{text}");
        }
    }
}
