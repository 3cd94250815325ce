//! The SQL of a script, read by a tokenizer of its own: where a statement ends (a `;` outside
//! quotes and comments, a meta-command line, or the end of the file), and which `:name`s are
//! variables. A `:name` becomes a `?` placeholder bound to the variable's value when the
//! statement runs, never text pasted into the SQL; inside string literals, quoted identifiers,
//! dollar-quoted strings and comments it is left alone, and so is a `::cast`.
//!
//! A hand-written scanner rather than `sqlparser`'s tokenizer: it must keep the statement's text
//! exactly as written (only `:name` replaced) for every engine's dialect, know the few lexical
//! forms that can hide a `:` or a `;` (the four quote kinds, both comment kinds), and report
//! positions in the script file; a full SQL tokenizer per dialect would do more and keep less.

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

fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// True when the line holding `at` has only blanks before `at`.
fn at_line_start(src: &[u8], at: usize) -> bool {
    src[..at]
        .iter()
        .rev()
        .take_while(|&&c| c != b'\n')
        .all(|c| *c == b' ' || *c == b'\t' || *c == b'\r')
}

/// Scans the statement starting at `start`. `backslash_escapes`: a backslash escapes the next
/// character in a `'...'` literal (MySQL's default; elsewhere only in PostgreSQL's `E'...'`).
pub fn statement(src: &str, start: usize, backslash_escapes: bool) -> Result<Scanned, ScanError> {
    let b = src.as_bytes();
    let mut text = String::new();
    let mut vars = Vec::new();
    let mut i = start;
    // Start of the text not yet copied.
    let mut copied = start;
    while i < b.len() {
        let c = b[i];
        match c {
            b';' => {
                text.push_str(&src[copied..i]);
                return Ok(Scanned { text, vars, end: i + 1 });
            }
            b'\\' if at_line_start(b, i) => break,
            b'\'' => {
                let escapes =
                    backslash_escapes || (i > 0 && matches!(b[i - 1], b'e' | b'E') && (i < 2 || !ident_char(b[i - 2])));
                i = quoted(b, i, b'\'', escapes)?;
            }
            b'"' => i = quoted(b, i, b'"', false)?,
            b'`' => i = quoted(b, i, b'`', false)?,
            b'-' if b.get(i + 1) == Some(&b'-') => {
                text.push_str(&src[copied..i]);
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                copied = i;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let close = src[i + 2..]
                    .find("*/")
                    .ok_or((i, "unterminated /* comment".to_string()))?;
                i += 2 + close + 2;
            }
            b'$' if i == 0 || !ident_char(b[i - 1]) => {
                // A dollar quote: $$ or $tag$ ... the same again.
                let mut j = i + 1;
                while j < b.len() && ident_char(b[j]) {
                    j += 1;
                }
                if j < b.len() && b[j] == b'$' && (j == i + 1 || ident_start(b[i + 1])) {
                    let tag = &src[i..=j];
                    let close = src[j + 1..]
                        .find(tag)
                        .ok_or((i, format!("unterminated dollar-quoted string {tag}")))?;
                    i = j + 1 + close + tag.len();
                } else {
                    i = j;
                }
            }
            b':' if b.get(i + 1) == Some(&b':') => {
                // A cast; any further colons too.
                while i < b.len() && b[i] == b':' {
                    i += 1;
                }
            }
            b':' if b.get(i + 1).is_some_and(|&n| ident_start(n)) => {
                let mut j = i + 1;
                while j < b.len() && ident_char(b[j]) {
                    j += 1;
                }
                text.push_str(&src[copied..i]);
                text.push('?');
                vars.push((src[i + 1..j].to_string(), i));
                i = j;
                copied = j;
            }
            b'?' => {
                return Err((
                    i,
                    "a bare ? in a script's SQL: litebench binds :name variables as ? placeholders itself; write :name"
                        .into(),
                ))
            }
            _ => i += 1,
        }
    }
    text.push_str(&src[copied..i]);
    Ok(Scanned { text, vars, end: i })
}

/// The end (one past the closing quote) of the quoted text opening at `at`; a doubled quote
/// is a quote inside.
fn quoted(b: &[u8], at: usize, q: u8, backslash_escapes: bool) -> Result<usize, ScanError> {
    let mut i = at + 1;
    while i < b.len() {
        if backslash_escapes && b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return Ok(i + 1);
        }
        i += 1;
    }
    let what = match q {
        b'\'' => "string literal",
        b'"' => "quoted identifier",
        _ => "`quoted` identifier",
    };
    Err((at, format!("unterminated {what}")))
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
