//! FTS5 as the `fts_tokenizer` and `fts_detail` knobs see it: whether a build has it, and the
//! options an FTS5 table of the database was declared with, which is what those knobs read back.
//!
//! The knobs are set when the template is created, by the workload that creates its index with
//! them; what proves they took is the index itself, so the read-back parses the `CREATE VIRTUAL
//! TABLE` statement SQLite keeps in `sqlite_master`, an option left out read as FTS5's default.

use crate::engines::{Connection, EngineError};

/// Whether a build's `PRAGMA compile_options` has FTS5.
pub fn has_fts5(compile_options: &[String]) -> bool {
    compile_options.iter().any(|o| o == "ENABLE_FTS5")
}

/// What knob `knob` (`fts_tokenizer`, `fts_detail`) reads on `conn`: the option of the first
/// FTS5 table declared there, `None` where the database has no FTS5 table.
pub fn declared(conn: &mut dyn Connection, knob: &str) -> Result<Option<String>, EngineError> {
    let sql = conn.query_value(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND lower(sql) LIKE 'create virtual table%using fts5%' ORDER BY name LIMIT 1",
    )?;
    Ok(sql.map(|sql| option(&sql, knob)))
}

/// Option `knob` of a `CREATE VIRTUAL TABLE ... USING fts5(...)` statement.
fn option(sql: &str, knob: &str) -> String {
    let (key, default) = match knob {
        "fts_tokenizer" => ("tokenize", "unicode61"),
        _ => ("detail", "full"),
    };
    let args = sql
        .split_once('(')
        .map_or("", |(_, a)| a.trim_end().trim_end_matches(')'));
    for arg in args.split(',') {
        let Some((k, v)) = arg.split_once('=') else {
            continue;
        };
        if k.trim().eq_ignore_ascii_case(key) {
            let v = v.trim().trim_matches(|c| c == '\'' || c == '"');
            // `tokenize='porter unicode61'`: the first word names the tokenizer.
            return v.split_whitespace().next().unwrap_or(default).to_ascii_lowercase();
        }
    }
    default.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_from_the_declaration_and_defaults_fill_the_rest() {
        let sql = "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='porter', detail=column)";
        assert_eq!(option(sql, "fts_tokenizer"), "porter");
        assert_eq!(option(sql, "fts_detail"), "column");
        let bare = "CREATE VIRTUAL TABLE t USING fts5(a, b)";
        assert_eq!(option(bare, "fts_tokenizer"), "unicode61");
        assert_eq!(option(bare, "fts_detail"), "full");
        assert_eq!(
            option(
                "create virtual table t using fts5(a, tokenize = \"Trigram\")",
                "fts_tokenizer"
            ),
            "trigram"
        );
        assert!(has_fts5(&["ENABLE_FTS5".to_string()]));
        assert!(!has_fts5(&["ENABLE_FTS4".to_string()]));
    }
}
