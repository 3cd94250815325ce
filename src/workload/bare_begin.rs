//! A user's bare `BEGIN` and the `begin` knob. A script or a log that starts its transactions
//! with `BEGIN;` gets SQLite's deferred transaction, whose read-to-write upgrade fails busy
//! without waiting; `--knob begin=immediate` is how a user asks "what if they started
//! IMMEDIATE?", so where the user or a preset set the knob (on an engine that has it:
//! [`crate::engines::Connection::begin_knob`]) the statements that leave the mode unsaid,
//! `BEGIN`, `BEGIN TRANSACTION` and `BEGIN DEFERRED [TRANSACTION]`, run as the knob's
//! statement. A `BEGIN` that names another mode (`IMMEDIATE`, `EXCLUSIVE`, Turso's
//! `CONCURRENT`) or a transaction name stays as written: the user chose it. The knob's default
//! is for litebench's own transactions and rewrites nothing.
//!
//! The statement is read with [`crate::engines::sql_lex`], so a `BEGIN` in a comment or a
//! string literal is never taken for one.

use crate::engines::sql_lex::{Kind, Lexer};

/// True when `sql` is one `BEGIN`, `BEGIN TRANSACTION`, `BEGIN DEFERRED` or `BEGIN DEFERRED
/// TRANSACTION` (any case, around comments, blanks and one trailing `;`).
pub fn is_bare(sql: &str) -> bool {
    let mut words = Vec::new();
    let mut ended = false;
    for t in Lexer::new(sql, 0, false) {
        let Ok(t) = t else { return false };
        match t.kind {
            Kind::Blank | Kind::LineComment | Kind::BlockComment => {}
            Kind::Semicolon if !ended => ended = true,
            Kind::Word if !ended => words.push(sql[t.start..t.end].to_ascii_uppercase()),
            _ => return false,
        }
    }
    matches!(
        words.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ["BEGIN"] | ["BEGIN", "TRANSACTION"] | ["BEGIN", "DEFERRED"] | ["BEGIN", "DEFERRED", "TRANSACTION"]
    )
}

/// What runs for the user's statement `sql`: the `begin` knob's statement (`knob`, where set)
/// in place of a bare `BEGIN`, else `sql` as written.
pub fn statement<'a>(sql: &'a str, knob: Option<&'static str>) -> &'a str {
    match knob {
        Some(begin) if is_bare(sql) => begin,
        _ => sql,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_begins_that_leave_the_mode_unsaid_are_bare() {
        for sql in [
            "BEGIN",
            "BEGIN;",
            "begin",
            "  Begin Transaction ; ",
            "BEGIN DEFERRED",
            "begin deferred transaction;",
            "-- start\nBEGIN /* the mode is SQLite's default */ ;\n-- done",
        ] {
            assert!(is_bare(sql), "{sql:?}");
        }
    }

    #[test]
    fn a_chosen_mode_a_name_a_string_or_another_statement_is_not() {
        for sql in [
            "BEGIN IMMEDIATE",
            "begin exclusive transaction;",
            "BEGIN CONCURRENT",
            "BEGIN TRANSACTION t1",
            "SELECT 'BEGIN'",
            "-- BEGIN\nSELECT 1",
            "/* BEGIN */",
            "BEGIN; SELECT 1",
            "\"BEGIN\"",
            "BEGINNING",
            "COMMIT",
            "",
        ] {
            assert!(!is_bare(sql), "{sql:?}");
        }
    }

    #[test]
    fn the_knob_replaces_only_a_bare_begin_and_only_where_set() {
        assert_eq!(statement("BEGIN;", Some("BEGIN IMMEDIATE")), "BEGIN IMMEDIATE");
        assert_eq!(statement("begin deferred", Some("BEGIN EXCLUSIVE")), "BEGIN EXCLUSIVE");
        assert_eq!(statement("BEGIN EXCLUSIVE", Some("BEGIN DEFERRED")), "BEGIN EXCLUSIVE");
        assert_eq!(statement("BEGIN IMMEDIATE", Some("BEGIN DEFERRED")), "BEGIN IMMEDIATE");
        assert_eq!(
            statement("UPDATE t SET v = 1", Some("BEGIN IMMEDIATE")),
            "UPDATE t SET v = 1"
        );
        assert_eq!(statement("BEGIN;", None), "BEGIN;");
    }
}
