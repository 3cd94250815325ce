//! The `isolation` knob of the server engines: the isolation level every transaction of a
//! trial starts with, one name on PostgreSQL and MariaDB although each server spells and sets
//! it its own way (PostgreSQL's `default_transaction_isolation` with `ALTER SYSTEM`, read back
//! as `SHOW transaction_isolation`; MariaDB's `SET GLOBAL/SESSION TRANSACTION ISOLATION LEVEL`,
//! read back as `@@transaction_isolation`, `@@tx_isolation` before MariaDB 11.1). It is read
//! back from each trial connection whether or not a configuration sets it, so a result says
//! under which level it ran: TPC-C's answer differs by it (serialization failures under
//! `serializable`, none under `read-committed`).

use crate::model::knob::{KnobKind, KnobSpec, ReadBy, Stage};

/// The knob's name.
pub const KNOB: &str = "isolation";

/// The knob's values, as the knob spells them (the SQL standard's four levels).
pub const LEVELS: &[&str] = &["read-uncommitted", "read-committed", "repeatable-read", "serializable"];

/// The knob on a server whose own default is `default`; `how` says how the server sets and
/// reads it.
pub const fn spec(default: &'static str, help: &'static str) -> KnobSpec {
    KnobSpec {
        name: KNOB,
        kind: KnobKind::Choice(LEVELS),
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default,
        help,
    }
}

/// A level as a server shows it (`read committed`, `REPEATABLE-READ`, `'SERIALIZABLE'`) in the
/// knob's spelling (`read-committed`).
pub fn from_server(raw: &str) -> String {
    raw.trim()
        .trim_matches('\'')
        .to_ascii_lowercase()
        .replace([' ', '_'], "-")
}

/// A level in SQL's words, `READ COMMITTED`, from either spelling.
pub fn sql_words(level: &str) -> String {
    from_server(level).replace('-', " ").to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_servers_spelling_reads_as_the_knobs() {
        assert_eq!(from_server("read committed"), "read-committed");
        assert_eq!(from_server("REPEATABLE-READ"), "repeatable-read");
        assert_eq!(from_server("'SERIALIZABLE'"), "serializable");
        assert_eq!(sql_words("repeatable-read"), "REPEATABLE READ");
        assert_eq!(sql_words("'READ-UNCOMMITTED'"), "READ UNCOMMITTED");
        for l in LEVELS {
            assert_eq!(from_server(&sql_words(l)), *l);
        }
    }
}
