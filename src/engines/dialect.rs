//! SQL dialects: what differs between the engines' SQL, stated once per engine.
//!
//! Workloads write their SQL once, in the generic form most engines accept, and name a dialect
//! only where its SQL really differs ([`Sql`], [`sql!`](crate::sql)). Facts about a dialect that
//! several workloads need (how to start a write transaction, how to ask whether a table exists,
//! column type names, how an engine reports a key violation) are methods of [`Dialect`] here, so
//! adding an engine means one new variant and its arms in this file, and overrides in a
//! workload only where its generic SQL does not run on the new engine.

use super::{EngineError, ErrorKind};
use serde::{Deserialize, Serialize};

/// The SQL dialect of an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    Sqlite,
    Postgres,
    Mysql,
    Duckdb,
}

/// Integer column sizes a workload asks for (the engine picks the type name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntType {
    /// At least -128..127 (0..255 not required).
    I8,
    /// At least 16 bits signed.
    I16,
    /// At least 32 bits signed.
    I32,
    /// 64 bits signed.
    I64,
    /// Every value of an unsigned 32-bit integer (a wider signed type where there is no unsigned
    /// one).
    U32,
}

/// How a dialect writes statement parameters natively. Workloads always write `?`; a
/// [`super::Connection`] whose engine uses another style translates when preparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholders {
    /// `?`, numbered by position.
    Question,
    /// `$1`, `$2`, ...
    Dollar,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 4] = [Dialect::Sqlite, Dialect::Postgres, Dialect::Mysql, Dialect::Duckdb];

    /// Starts a transaction that is going to write. SQLite takes the write lock up front
    /// (`BEGIN IMMEDIATE`), so a busy database fails at the start instead of at the first write.
    pub fn begin_write(self) -> &'static str {
        match self {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
            Dialect::Mysql => "START TRANSACTION",
            Dialect::Duckdb => "BEGIN TRANSACTION",
        }
    }

    /// A query whose one value is the number of tables named `table` in the connection's
    /// database (or current schema). `table` must be a plain identifier.
    pub fn table_exists_query(self, table: &str) -> String {
        match self {
            Dialect::Sqlite => format!("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '{table}'"),
            Dialect::Postgres => format!(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '{table}'"
            ),
            Dialect::Mysql => format!(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '{table}'"
            ),
            Dialect::Duckdb => format!("SELECT count(*) FROM information_schema.tables WHERE table_name = '{table}'"),
        }
    }

    /// A query whose rows are the names of the connection's own tables (base tables of its
    /// database or current schema; not views, not the engine's catalogue): what a user's SQL
    /// created, for counting the rows it left.
    pub fn user_tables_query(self) -> &'static str {
        match self {
            Dialect::Sqlite => {
                "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name"
            }
            Dialect::Postgres => {
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
            }
            Dialect::Mysql => {
                "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' ORDER BY table_name"
            }
            Dialect::Duckdb => {
                "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
            }
        }
    }

    /// `name` as a quoted identifier of this dialect (any name: a quote in it is doubled).
    pub fn quote_ident(self, name: &str) -> String {
        let q = if self == Dialect::Mysql { '`' } else { '"' };
        let doubled = name.replace(q, &format!("{q}{q}"));
        format!("{q}{doubled}{q}")
    }

    /// The name of an integer column type of at least the given size.
    pub fn int_type(self, t: IntType) -> &'static str {
        match (self, t) {
            // PostgreSQL has no one-byte integer and no unsigned types.
            (Dialect::Postgres, IntType::I8 | IntType::I16) => "SMALLINT",
            (Dialect::Postgres, IntType::U32) => "BIGINT",
            (Dialect::Mysql, IntType::U32) => "INT UNSIGNED",
            (Dialect::Mysql, IntType::I32) => "INT",
            (Dialect::Duckdb, IntType::U32) => "UINTEGER",
            // SQLite stores every integer in up to 8 bytes, whatever the declared type.
            (Dialect::Sqlite, IntType::U32) => "INTEGER",
            (_, IntType::I8) => "TINYINT",
            (_, IntType::I16) => "SMALLINT",
            (_, IntType::I32) => "INTEGER",
            (_, IntType::I64) => "BIGINT",
        }
    }

    /// The name of a column type for text of any length.
    pub fn text_type(self) -> &'static str {
        match self {
            Dialect::Sqlite | Dialect::Postgres | Dialect::Mysql | Dialect::Duckdb => "TEXT",
        }
    }

    /// The name of a column type for bytes of any length.
    pub fn blob_type(self) -> &'static str {
        match self {
            Dialect::Postgres => "BYTEA",
            Dialect::Mysql => "LONGBLOB",
            Dialect::Sqlite | Dialect::Duckdb => "BLOB",
        }
    }

    /// How the engine writes parameters natively.
    pub fn placeholders(self) -> Placeholders {
        match self {
            Dialect::Postgres => Placeholders::Dollar,
            Dialect::Sqlite | Dialect::Mysql | Dialect::Duckdb => Placeholders::Question,
        }
    }

    /// Whether an UPDATE reports only the rows whose value actually changed (MySQL and MariaDB
    /// do, unless the client asks for "found rows"), so the expected count is an upper bound.
    pub fn updates_count_changed_rows_only(self) -> bool {
        match self {
            Dialect::Mysql => true,
            Dialect::Sqlite | Dialect::Postgres | Dialect::Duckdb => false,
        }
    }

    /// True for a key violation (primary, unique or foreign key): the statement was refused
    /// because of the data, not because it is wrong. SQLite reports SQLITE_CONSTRAINT; the other
    /// engines are recognised by their error codes or messages.
    pub fn is_key_violation(self, e: &EngineError) -> bool {
        if e.kind != ErrorKind::Other {
            return false;
        }
        match self {
            Dialect::Sqlite => e.code.is_some_and(|c| c & 0xff == 19),
            Dialect::Postgres | Dialect::Mysql | Dialect::Duckdb => {
                // PostgreSQL SQLSTATE 23505/23503; MySQL ER_DUP_ENTRY 1062,
                // ER_NO_REFERENCED_ROW(_2) 1216/1452.
                if matches!(e.code, Some(23505 | 23503 | 1062 | 1216 | 1452)) {
                    return true;
                }
                let m = e.message.to_ascii_lowercase();
                m.contains("duplicate key")
                    || m.contains("duplicate entry")
                    || m.contains("constraint error")
                    || m.contains("foreign key constraint")
                    || (m.contains("violates") && m.contains("constraint"))
            }
        }
    }
}

/// A statement written once: generic SQL, and the text for each dialect where it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sql {
    pub generic: &'static str,
    pub overrides: &'static [(Dialect, &'static str)],
}

impl Sql {
    /// SQL that is the same in every dialect.
    pub const fn same(generic: &'static str) -> Sql {
        Sql {
            generic,
            overrides: &[],
        }
    }

    /// The text for dialect `d`: its override, or the generic SQL.
    pub fn for_dialect(&self, d: Dialect) -> &'static str {
        self.overrides
            .iter()
            .find(|(o, _)| *o == d)
            .map_or(self.generic, |(_, s)| s)
    }
}

/// A [`Sql`] from generic text and `Dialect => text` overrides:
/// `sql!("SELECT 1", Postgres => "SELECT 1::int")`.
#[macro_export]
macro_rules! sql {
    ($generic:expr $(, $dialect:ident => $text:expr)* $(,)?) => {
        $crate::engines::dialect::Sql {
            generic: $generic,
            overrides: &[$(($crate::engines::dialect::Dialect::$dialect, $text)),*],
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_name_quotes_as_one_identifier() {
        assert_eq!(Dialect::Sqlite.quote_ident("odd \"name"), "\"odd \"\"name\"");
        assert_eq!(Dialect::Postgres.quote_ident("t"), "\"t\"");
        assert_eq!(Dialect::Mysql.quote_ident("a`b"), "`a``b`");
    }

    #[test]
    fn overrides_win_and_the_generic_text_is_the_rest() {
        const S: Sql = crate::sql!("BEGIN", Sqlite => "BEGIN IMMEDIATE", Mysql => "START TRANSACTION");
        assert_eq!(S.for_dialect(Dialect::Sqlite), "BEGIN IMMEDIATE");
        assert_eq!(S.for_dialect(Dialect::Mysql), "START TRANSACTION");
        assert_eq!(S.for_dialect(Dialect::Postgres), "BEGIN");
        assert_eq!(S.for_dialect(Dialect::Duckdb), "BEGIN");
        assert_eq!(Sql::same("COMMIT").for_dialect(Dialect::Duckdb), "COMMIT");
    }

    #[test]
    fn facts() {
        assert_eq!(Dialect::Postgres.int_type(IntType::I8), "SMALLINT");
        assert_eq!(Dialect::Sqlite.int_type(IntType::I8), "TINYINT");
        assert_eq!(Dialect::Mysql.int_type(IntType::U32), "INT UNSIGNED");
        assert_eq!(Dialect::Duckdb.int_type(IntType::U32), "UINTEGER");
        assert_eq!(Dialect::Postgres.int_type(IntType::U32), "BIGINT");
        assert_eq!(Dialect::Postgres.blob_type(), "BYTEA");
        assert_eq!(Dialect::Postgres.placeholders(), Placeholders::Dollar);
        assert_eq!(Dialect::Sqlite.placeholders(), Placeholders::Question);
        assert!(Dialect::Mysql.updates_count_changed_rows_only());
        assert!(!Dialect::Postgres.updates_count_changed_rows_only());
        for d in Dialect::ALL {
            assert!(d.table_exists_query("t1").contains("'t1'"), "{d:?}");
        }
    }

    #[test]
    fn key_violations_are_recognised() {
        let e = |kind, code, message: &str| EngineError {
            busy_cause: None,
            engine: "x".into(),
            kind,
            code,
            message: message.into(),
            context: String::new(),
        };
        // SQLITE_CONSTRAINT_PRIMARYKEY
        assert!(Dialect::Sqlite.is_key_violation(&e(ErrorKind::Other, Some(1555), "UNIQUE constraint failed")));
        assert!(!Dialect::Sqlite.is_key_violation(&e(ErrorKind::Other, Some(1), "no such table")));
        assert!(!Dialect::Sqlite.is_key_violation(&e(ErrorKind::Busy, Some(5), "database is locked")));
        assert!(Dialect::Postgres.is_key_violation(&e(
            ErrorKind::Other,
            None,
            "duplicate key value violates unique constraint \"call_forwarding_pkey\""
        )));
        assert!(Dialect::Mysql.is_key_violation(&e(ErrorKind::Other, Some(1062), "Duplicate entry")));
        assert!(Dialect::Duckdb.is_key_violation(&e(
            ErrorKind::Other,
            None,
            "Constraint Error: Duplicate key \"s_id: 1\" violates primary key constraint"
        )));
        assert!(!Dialect::Duckdb.is_key_violation(&e(ErrorKind::Other, None, "Catalog Error")));
    }
}
