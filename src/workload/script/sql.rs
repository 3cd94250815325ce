//! The SQL of a script, read by a tokenizer of its own: where a statement ends (a `;` outside
//! quotes and comments, a meta-command line, a `\gset` or `\aset` after it on its line, or the
//! end of the file), and which `:name`s are
//! variables. A `:name` becomes a `?` placeholder bound to the variable's value when the
//! statement runs, never text pasted into the SQL; inside string literals, quoted identifiers,
//! dollar-quoted strings and comments it is left alone, and so is a `::cast`.
//!
//! The tokens come from [`crate::engines::sql_lex`], shared with the `replay` workload (why it
//! is not `sqlparser`'s tokenizer is said there).

use crate::engines::sql_lex::{Kind, Lexer};

/// One statement of a script, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Scanned {
    /// The statement's text with each variable replaced by `?` (line comments dropped).
    pub text: String,
    /// The variables in placeholder order, each with its byte offset in the file.
    pub vars: Vec<(String, usize)>,
    /// Where scanning stopped: after the `;`, or at the start of a meta-command line or the end.
    pub end: usize,
}

/// A scanning error: the byte offset in the file and what is wrong.
pub type ScanError = (usize, String);

/// True when the line holding `at` has only blanks before `at`.
fn at_line_start(src: &[u8], at: usize) -> bool {
    src[..at]
        .iter()
        .rev()
        .take_while(|&&c| c != b'\n')
        .all(|c| *c == b' ' || *c == b'\t' || *c == b'\r')
}

/// True when `rest` starts with `gset` or `aset` as a word: the meta-command that ends the SQL
/// before it on its line and takes its result (`SELECT ... \gset`).
fn stores(rest: &str) -> bool {
    let word_len = rest
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    matches!(rest[..word_len].to_ascii_lowercase().as_str(), "gset" | "aset")
}

/// Scans the statement starting at `start` (tokens from [`crate::engines::sql_lex`]).
/// `backslash_escapes`: a backslash escapes the next character in a `'...'` literal (MySQL's
/// default; elsewhere only in PostgreSQL's `E'...'`).
pub fn statement(src: &str, start: usize, backslash_escapes: bool) -> Result<Scanned, ScanError> {
    let b = src.as_bytes();
    let mut text = String::new();
    let mut vars = Vec::new();
    // Start of the text not yet copied.
    let mut copied = start;
    for t in Lexer::new(src, start, backslash_escapes) {
        let t = t?;
        match t.kind {
            Kind::Semicolon => {
                text.push_str(&src[copied..t.start]);
                return Ok(Scanned { text, vars, end: t.end });
            }
            Kind::Other if b[t.start] == b'\\' && b.get(t.end) == Some(&b';') => {
                return Err((
                    t.start,
                    "\\; (several statements sent as one command) is not supported: litebench prepares each statement on its own; end each with ; (a \\gset or \\aset takes the statement before it)".into(),
                ))
            }
            Kind::Other if b[t.start] == b'\\' && (at_line_start(b, t.start) || stores(&src[t.end..])) => {
                text.push_str(&src[copied..t.start]);
                return Ok(Scanned {
                    text,
                    vars,
                    end: t.start,
                });
            }
            Kind::LineComment => {
                text.push_str(&src[copied..t.start]);
                copied = t.end;
            }
            Kind::Param if b[t.start] == b':' => {
                text.push_str(&src[copied..t.start]);
                text.push('?');
                vars.push((src[t.start + 1..t.end].to_string(), t.start));
                copied = t.end;
            }
            Kind::Param if b[t.start] == b'?' => {
                return Err((
                    t.start,
                    "a bare ? in a script's SQL: litebench binds :name variables as ? placeholders itself; write :name"
                        .into(),
                ))
            }
            _ => {}
        }
    }
    text.push_str(&src[copied..]);
    Ok(Scanned {
        text,
        vars,
        end: src.len(),
    })
}

/// A short name for a statement: its command and, where it has one, the table it works on
/// (`UPDATE pgbench_accounts`, `SELECT pgbench_accounts`, `INSERT pgbench_history`, `BEGIN`).
pub fn label(text: &str) -> String {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '(' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let Some(first) = words.first() else {
        return String::new();
    };
    let command = first.to_ascii_uppercase();
    let after = |kw: &str| {
        words
            .iter()
            .position(|w| w.eq_ignore_ascii_case(kw))
            .and_then(|p| words.get(p + 1))
    };
    let table = match command.as_str() {
        "SELECT" | "DELETE" | "WITH" => after("from"),
        "INSERT" | "REPLACE" => after("into"),
        "UPDATE" => words.get(1),
        _ => None,
    };
    match table {
        Some(t) => {
            let t: String = t.chars().filter(|c| !matches!(c, ';' | ')')).take(48).collect();
            format!("{command} {t}")
        }
        None => command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(src: &str) -> Scanned {
        statement(src, 0, false).unwrap()
    }

    #[test]
    fn variables_become_placeholders_outside_quotes_and_casts() {
        let s = scan("UPDATE t SET v = v + :delta WHERE k = :key; SELECT 1");
        assert_eq!(s.text, "UPDATE t SET v = v + ? WHERE k = ?");
        assert_eq!(s.vars, vec![("delta".to_string(), 21), ("key".to_string(), 38)]);
        assert_eq!(s.end, 43);
        let s = scan(
            "SELECT ':notme', \":nor_me\", `:no`, $$ :no; $$, $q$:x;$q$, '::'::text, :yes::int -- :c;\n/* :d; */ ;",
        );
        assert_eq!(s.vars.iter().map(|v| v.0.as_str()).collect::<Vec<_>>(), vec!["yes"]);
        assert_eq!(
            s.text,
            "SELECT ':notme', \":nor_me\", `:no`, $$ :no; $$, $q$:x;$q$, '::'::text, ?::int \n/* :d; */ "
        );
        // Doubled quotes stay inside; a backslash escapes only where the dialect says so.
        assert_eq!(scan("SELECT 'it''s :a' , :b;").vars.len(), 1);
        assert_eq!(statement(r"SELECT 'a\' , :b';", 0, true).unwrap().vars.len(), 0);
        assert_eq!(statement(r"SELECT E'a\' , :b';", 0, false).unwrap().vars.len(), 0);
        assert_eq!(statement(r"SELECT 'a\' , :b ';'", 0, false).unwrap().vars.len(), 1);
        // Array slices and numbered parameters are not variables.
        assert!(scan("SELECT a[1:2] FROM t").vars.is_empty());
    }

    #[test]
    fn a_statement_ends_at_a_semicolon_a_meta_command_or_the_end() {
        let src = "SELECT 1\n  \\set x 1\n";
        let s = statement(src, 0, false).unwrap();
        assert_eq!((s.text.as_str(), s.end), ("SELECT 1\n  ", 11));
        let s = scan("SELECT '\\n' ");
        assert_eq!(s.end, 12);
    }

    #[test]
    fn unterminated_quotes_and_bare_placeholders_are_errors_at_their_offset() {
        assert_eq!(scan_err("SELECT 'abc"), (7, "unterminated string literal".into()));
        assert_eq!(scan_err("SELECT \"abc"), (7, "unterminated quoted identifier".into()));
        assert_eq!(
            scan_err("SELECT $x$ abc"),
            (7, "unterminated dollar-quoted string $x$".into())
        );
        assert_eq!(scan_err("SELECT /* x"), (7, "unterminated /* comment".into()));
        assert_eq!(scan_err("SELECT * FROM t WHERE k = ?").0, 26);
    }

    fn scan_err(src: &str) -> ScanError {
        statement(src, 0, false).unwrap_err()
    }

    #[test]
    fn labels() {
        assert_eq!(label("UPDATE pgbench_accounts SET x = 1"), "UPDATE pgbench_accounts");
        assert_eq!(
            label("select abalance from pgbench_accounts where aid = ?"),
            "SELECT pgbench_accounts"
        );
        assert_eq!(
            label("INSERT INTO pgbench_history (tid) VALUES (?)"),
            "INSERT pgbench_history"
        );
        assert_eq!(label("\n BEGIN"), "BEGIN");
        assert_eq!(label("delete from t;"), "DELETE t");
    }
}
