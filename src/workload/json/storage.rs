//! How the documents are stored on each engine, and each operation's statement there.
//!
//! SQLite stores them three ways, one per value of the knob `json_storage`: text JSON, JSONB
//! (SQLite 3.45.0's binary form, `jsonb()` on load and `jsonb_set` on update), or text with a
//! virtual generated column over the hot field `user.country` and an index on it, which the
//! filter reads instead of extracting the field from every document. PostgreSQL stores `jsonb`
//! with a GIN index (`jsonb_path_ops`), which its filter reaches through containment (`@>`).
//! DuckDB stores its `JSON` type; it has no `json_set` (nor any function that changes one
//! field of a document), so `update` cannot run there and is refused.
//!
//! Every engine's statement returns the same values: integers as integers (PostgreSQL's and
//! DuckDB's `->>` give text, cast back), text as text.

use crate::engines::Dialect;

/// The table.
pub const TABLE: &str = "docs";

/// One way of storing the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// SQLite: text JSON.
    Text,
    /// SQLite: JSONB (3.45.0+).
    Jsonb,
    /// SQLite: text with a generated column over `user.country` and its index.
    Generated,
    /// PostgreSQL: `jsonb` with a GIN index.
    PgJsonb,
    /// DuckDB: its `JSON` type.
    DuckJson,
}

/// The statements of the four operations, each with its parameters in the same order on
/// every engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statements {
    /// The id: `user.name`, `score`, `status`.
    pub read: String,
    /// The country and the least score: the first 20 ids and scores in id order.
    pub filter: String,
    /// The first and last id: each document's items, as id, sku, qty.
    pub expand: String,
    /// The new score, the new status, the id.
    pub update: Option<String>,
}

impl Storage {
    /// The values of the knob `json_storage`, in order.
    pub const SQLITE: [(&'static str, Storage); 3] = [
        ("text", Storage::Text),
        ("jsonb", Storage::Jsonb),
        ("generated", Storage::Generated),
    ];

    /// SQLite's storage named by the knob's value.
    pub fn sqlite(name: &str) -> Option<Storage> {
        Storage::SQLITE.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// The storage of an engine that has one (PostgreSQL, DuckDB); `None` for SQLite, whose
    /// knob decides, and for engines the workload does not run on.
    pub fn of_dialect(d: Dialect) -> Option<Storage> {
        match d {
            Dialect::Postgres => Some(Storage::PgJsonb),
            Dialect::Duckdb => Some(Storage::DuckJson),
            Dialect::Sqlite | Dialect::Mysql => None,
        }
    }

    /// Its name, as configurations and errors say it.
    pub fn name(self) -> &'static str {
        match self {
            Storage::Text => "text",
            Storage::Jsonb => "jsonb",
            Storage::Generated => "generated",
            Storage::PgJsonb => "jsonb with a GIN index",
            Storage::DuckJson => "DuckDB JSON",
        }
    }

    /// The table, created empty: the documents are loaded into `id` and `doc` as text.
    pub fn create(self) -> String {
        match self {
            Storage::Text => format!("CREATE TABLE {TABLE} (id INTEGER PRIMARY KEY, doc TEXT NOT NULL)"),
            // Loaded as text, then turned into JSONB in place (`after_load`).
            Storage::Jsonb => format!("CREATE TABLE {TABLE} (id INTEGER PRIMARY KEY, doc BLOB NOT NULL)"),
            Storage::Generated => format!(
                "CREATE TABLE {TABLE} (id INTEGER PRIMARY KEY, doc TEXT NOT NULL, country TEXT GENERATED ALWAYS AS (json_extract(doc, '$.user.country')) VIRTUAL)"
            ),
            Storage::PgJsonb => format!("CREATE TABLE {TABLE} (id BIGINT PRIMARY KEY, doc JSONB NOT NULL)"),
            Storage::DuckJson => format!("CREATE TABLE {TABLE} (id BIGINT PRIMARY KEY, doc JSON NOT NULL)"),
        }
    }

    /// What runs once the documents are loaded: the conversion to JSONB, the indexes and the
    /// statistics.
    pub fn after_load(self) -> Vec<String> {
        match self {
            Storage::Text => vec!["ANALYZE".into()],
            Storage::Jsonb => vec![format!("UPDATE {TABLE} SET doc = jsonb(doc)"), "ANALYZE".into()],
            Storage::Generated => vec![
                format!("CREATE INDEX {TABLE}_country ON {TABLE}(country)"),
                "ANALYZE".into(),
            ],
            Storage::PgJsonb => vec![
                format!("CREATE INDEX {TABLE}_gin ON {TABLE} USING GIN (doc jsonb_path_ops)"),
                format!("ANALYZE {TABLE}"),
            ],
            Storage::DuckJson => Vec::new(),
        }
    }

    /// The four operations' statements.
    pub fn statements(self) -> Statements {
        match self {
            Storage::Text | Storage::Jsonb | Storage::Generated => {
                let set = if self == Storage::Jsonb { "jsonb_set" } else { "json_set" };
                let country = if self == Storage::Generated {
                    "country"
                } else {
                    "doc ->> '$.user.country'"
                };
                Statements {
                    read: format!("SELECT doc ->> '$.user.name', doc ->> '$.score', doc ->> '$.status' FROM {TABLE} WHERE id = ?"),
                    filter: format!("SELECT id, doc ->> '$.score' FROM {TABLE} WHERE {country} = ? AND doc ->> '$.score' >= ? ORDER BY id LIMIT 20"),
                    expand: format!("SELECT d.id, i.value ->> '$.sku', i.value ->> '$.qty' FROM {TABLE} d, json_each(d.doc, '$.items') i WHERE d.id BETWEEN ? AND ?"),
                    update: Some(format!("UPDATE {TABLE} SET doc = {set}(doc, '$.score', ?, '$.status', ?) WHERE id = ?")),
                }
            }
            Storage::PgJsonb => Statements {
                read: format!("SELECT doc -> 'user' ->> 'name', (doc ->> 'score')::bigint, doc ->> 'status' FROM {TABLE} WHERE id = ?"),
                filter: format!("SELECT id, (doc ->> 'score')::bigint FROM {TABLE} WHERE doc @> jsonb_build_object('user', jsonb_build_object('country', ?::text)) AND (doc ->> 'score')::bigint >= ? ORDER BY id LIMIT 20"),
                expand: format!("SELECT d.id, i ->> 'sku', (i ->> 'qty')::bigint FROM {TABLE} d, jsonb_array_elements(d.doc -> 'items') i WHERE d.id BETWEEN ? AND ?"),
                update: Some(format!("UPDATE {TABLE} SET doc = jsonb_set(jsonb_set(doc, '{{score}}', to_jsonb(?::bigint)), '{{status}}', to_jsonb(?::text)) WHERE id = ?")),
            },
            Storage::DuckJson => Statements {
                read: format!("SELECT doc ->> '$.user.name', CAST(doc ->> '$.score' AS BIGINT), doc ->> '$.status' FROM {TABLE} WHERE id = ?"),
                filter: format!("SELECT id, CAST(doc ->> '$.score' AS BIGINT) FROM {TABLE} WHERE doc ->> '$.user.country' = ? AND CAST(doc ->> '$.score' AS BIGINT) >= ? ORDER BY id LIMIT 20"),
                expand: format!("SELECT d.id, i.value ->> '$.sku', CAST(i.value ->> '$.qty' AS BIGINT) FROM {TABLE} d, json_each(d.doc, '$.items') i WHERE d.id BETWEEN ? AND ?"),
                update: None,
            },
        }
    }

    /// The SQLite storage a database's schema shows, from the table's `CREATE` statement.
    pub fn of_schema(create: &str) -> Storage {
        if create.contains("GENERATED") {
            Storage::Generated
        } else if create.contains("doc BLOB") {
            Storage::Jsonb
        } else {
            Storage::Text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_binds_the_same_parameters_in_the_same_order() {
        let marks = |s: &str| s.matches('?').count();
        for s in [
            Storage::Text,
            Storage::Jsonb,
            Storage::Generated,
            Storage::PgJsonb,
            Storage::DuckJson,
        ] {
            let st = s.statements();
            assert_eq!(marks(&st.read), 1, "{s:?}");
            assert_eq!(marks(&st.filter), 2, "{s:?}");
            assert_eq!(marks(&st.expand), 2, "{s:?}");
            if let Some(u) = &st.update {
                assert_eq!(marks(u), 3, "{s:?}");
            }
        }
        assert!(Storage::DuckJson.statements().update.is_none());
        assert!(Storage::Generated.statements().filter.contains("WHERE country = ?"));
        assert!(Storage::Jsonb.statements().update.unwrap().contains("jsonb_set(doc"));
    }

    #[test]
    fn the_schema_tells_the_storage() {
        for (_, s) in Storage::SQLITE {
            assert_eq!(Storage::of_schema(&s.create()), s);
        }
        assert_eq!(Storage::sqlite("jsonb"), Some(Storage::Jsonb));
        assert_eq!(Storage::sqlite("bson"), None);
    }
}
