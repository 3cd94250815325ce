//! The index and the statements, per engine: an FTS5 table on SQLite, a table with a
//! `tsvector` column and its GIN index on PostgreSQL (the `simple` configuration: lower case,
//! no stemming and no stop words, which cuts this corpus into words as `unicode61` does).
//!
//! Both rank with their own function: FTS5's `bm25()` (Okapi BM25, k1 = 1.2, b = 0.75) and
//! PostgreSQL's `ts_rank` (term frequency without document frequency), so the first `k` ids of
//! one query may differ between them while the set of matching ids is the same.

use super::query::Matching;
use crate::engines::Dialect;

/// The table, on every engine.
pub const TABLE: &str = "docs";

/// FTS5's options that the run's knobs choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options<'a> {
    pub tokenizer: &'a str,
    pub detail: &'a str,
}

impl Options<'_> {
    /// FTS5's defaults, which the knobs' defaults are.
    pub const DEFAULT: Options<'static> = Options {
        tokenizer: "unicode61",
        detail: "full",
    };

    /// What a term matches under this tokenizer.
    pub fn matching(&self) -> Matching {
        if self.tokenizer == "trigram" {
            Matching::Substrings
        } else {
            Matching::Words
        }
    }
}

/// The table that keeps the seed the corpus was drawn from, so that every client draws its
/// queries and new texts from the words the template holds.
pub const SEED_TABLE: &str = "fts_corpus";

/// Keeps `seed` (as text: a `u64` may not fit a signed integer column).
pub fn keep_seed(seed: u64) -> String {
    format!("CREATE TABLE {SEED_TABLE} (seed TEXT NOT NULL); INSERT INTO {SEED_TABLE} VALUES ('{seed}')")
}

/// The kept seed.
pub fn corpus_seed() -> String {
    format!("SELECT seed FROM {SEED_TABLE}")
}

/// The statements that create the table (and its index).
pub fn create(d: Dialect, o: Options<'_>, automerge: u64) -> Vec<String> {
    match d {
        Dialect::Postgres => vec![
            format!("CREATE TABLE {TABLE} (id BIGINT PRIMARY KEY, body TEXT NOT NULL, tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED)"),
            format!("CREATE INDEX {TABLE}_tsv ON {TABLE} USING GIN (tsv)"),
        ],
        _ => vec![
            format!(
                "CREATE VIRTUAL TABLE {TABLE} USING fts5(body, tokenize='{}', detail={})",
                o.tokenizer, o.detail
            ),
            format!("INSERT INTO {TABLE}({TABLE}, rank) VALUES ('automerge', {automerge})"),
        ],
    }
}

/// What merges the index's segments into one after the population, where the engine has it:
/// FTS5's `optimize`. (A GIN index keeps no segments: PostgreSQL has nothing to run.)
pub fn optimize(d: Dialect) -> Option<String> {
    (d != Dialect::Postgres).then(|| format!("INSERT INTO {TABLE}({TABLE}) VALUES ('optimize')"))
}

fn id(d: Dialect) -> &'static str {
    if d == Dialect::Postgres {
        "id"
    } else {
        "rowid"
    }
}

/// The columns the population loads, in order.
pub fn columns(d: Dialect) -> [&'static str; 2] {
    [id(d), "body"]
}

/// The ranked query: the query text, then `k`.
pub fn ranked(d: Dialect) -> String {
    match d {
        Dialect::Postgres => format!(
            "SELECT id FROM {TABLE}, to_tsquery('simple', ?) q WHERE tsv @@ q ORDER BY ts_rank(tsv, q) DESC, id LIMIT ?"
        ),
        _ => format!("SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH ? ORDER BY bm25({TABLE}) LIMIT ?"),
    }
}

/// Every matching id, unranked: what the check compares with the scan.
pub fn all_matches(d: Dialect) -> String {
    match d {
        Dialect::Postgres => format!("SELECT id FROM {TABLE} WHERE tsv @@ to_tsquery('simple', ?)"),
        _ => format!("SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH ?"),
    }
}

/// Every document's id and text.
pub fn contents(d: Dialect) -> String {
    format!("SELECT {}, body FROM {TABLE}", id(d))
}

/// Insert: the id, then the text.
pub fn insert(d: Dialect) -> String {
    format!("INSERT INTO {TABLE} ({}, body) VALUES (?, ?)", id(d))
}

/// Update: the new text, then the id.
pub fn update(d: Dialect) -> String {
    format!("UPDATE {TABLE} SET body = ? WHERE {} = ?", id(d))
}

/// Delete: the id.
pub fn delete(d: Dialect) -> String {
    format!("DELETE FROM {TABLE} WHERE {} = ?", id(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_gets_an_fts5_table_with_the_knobs_options_and_postgres_a_gin_index() {
        let o = Options {
            tokenizer: "porter",
            detail: "column",
        };
        let s = create(Dialect::Sqlite, o, 8);
        assert_eq!(
            s[0],
            "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='porter', detail=column)"
        );
        assert!(s[1].ends_with("VALUES ('automerge', 8)"), "{s:?}");
        let p = create(Dialect::Postgres, o, 8);
        assert!(p[0].contains("to_tsvector('simple', body)") && p[1].contains("USING GIN (tsv)"));
        assert!(ranked(Dialect::Sqlite).contains("ORDER BY bm25(docs) LIMIT ?"));
        assert!(ranked(Dialect::Postgres).contains("ORDER BY ts_rank(tsv, q) DESC"));
        assert_eq!(optimize(Dialect::Postgres), None);
        assert_eq!(update(Dialect::Sqlite), "UPDATE docs SET body = ? WHERE rowid = ?");
    }
}
