//! A SQL lexer for what reads SQL as written (`script`'s statements, `replay`'s logs, and
//! PostgreSQL's `?` placeholders turned into `$n`): it tells apart the few lexical forms that
//! can hide a `;`, a `:name` or a literal (string literals with doubled quotes, `E'...'` and
//! MySQL's backslash escapes, blob literals, quoted identifiers, dollar quotes, both comment
//! kinds) and marks numbers, placeholders and statement ends, each token with its byte span in
//! the file, so that errors name a line and column and callers keep the text exactly as
//! written.
//!
//! It sits in `engines` (it imports nothing) so that an engine can read SQL with it too.
//!
//! Hand-written rather than `sqlparser`'s tokenizer: the callers must keep each dialect's text
//! byte for byte (only a `:name` replaced, or literals masked for grouping), and need positions
//! in the user's file; a full tokenizer per dialect would do more and keep less.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Spaces, tabs and line breaks.
    Blank,
    /// `-- ...` up to (not including) the line break.
    LineComment,
    /// `/* ... */`.
    BlockComment,
    /// `'...'`, `E'...'`, `N'...'`, `B'...'`, or a dollar-quoted `$$...$$` / `$tag$...$tag$`.
    String,
    /// `X'...'`: a blob literal.
    Blob,
    /// `123`, `1.5e3`, `.5`, `0x1F`.
    Number,
    /// `"..."` or `` `...` ``.
    QuotedIdent,
    /// A keyword or a bare identifier.
    Word,
    /// `?`, `?NNN`, `:name`, `$name` or `$NNN`: a parameter whose value is bound, not written.
    Param,
    /// `;`.
    Semicolon,
    /// Anything else, one character at a time (operators, parentheses, `::`, a `\`).
    Other,
}

/// A token: its kind and byte span in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

/// What a NUL byte in a log or a script is told, after its file, line and column. SQLite's C
/// interface ends a statement's text at the first NUL: a statement holding one would run only
/// its part before it, the rest skipped and yet counted as run. No engine takes one in SQL.
pub const NUL_BYTE: &str =
    "a NUL byte, where SQLite would end the statement and silently skip the rest; remove it (tr -d '\\000' < FILE > FIXED)";

/// A lexing error: the byte offset where the unterminated form opens, and what it is.
pub type LexError = (usize, String);

pub fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

pub fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The tokens of `src` from byte `start`.
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    /// A backslash escapes the next character in every `'...'` literal (MySQL's default;
    /// elsewhere only in PostgreSQL's `E'...'`).
    backslash_escapes: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, start: usize, backslash_escapes: bool) -> Lexer<'a> {
        Lexer {
            src,
            pos: start,
            backslash_escapes,
        }
    }

    fn lex(&mut self) -> Result<Token, LexError> {
        let b = self.src.as_bytes();
        let at = self.pos;
        let c = b[at];
        let (kind, end) = match c {
            b';' => (Kind::Semicolon, at + 1),
            c if c.is_ascii_whitespace() => {
                let n = b[at..].iter().take_while(|c| c.is_ascii_whitespace()).count();
                (Kind::Blank, at + n)
            }
            b'-' if b.get(at + 1) == Some(&b'-') => {
                let n = b[at..].iter().take_while(|&&c| c != b'\n').count();
                (Kind::LineComment, at + n)
            }
            b'/' if b.get(at + 1) == Some(&b'*') => {
                let close = self.src[at + 2..]
                    .find("*/")
                    .ok_or((at, "unterminated /* comment".to_string()))?;
                (Kind::BlockComment, at + 2 + close + 2)
            }
            b'\'' => (Kind::String, quoted(b, at, b'\'', self.backslash_escapes)?),
            b'"' => (Kind::QuotedIdent, quoted(b, at, b'"', false)?),
            b'`' => (Kind::QuotedIdent, quoted(b, at, b'`', false)?),
            b'$' => {
                let mut j = at + 1;
                while j < b.len() && ident_char(b[j]) && b[j] != b'$' {
                    j += 1;
                }
                if j < b.len() && b[j] == b'$' && (j == at + 1 || ident_start(b[at + 1])) {
                    // A dollar quote: $$ or $tag$ ... the same again.
                    let tag = &self.src[at..=j];
                    let close = self.src[j + 1..]
                        .find(tag)
                        .ok_or((at, format!("unterminated dollar-quoted string {tag}")))?;
                    (Kind::String, j + 1 + close + tag.len())
                } else if j > at + 1 {
                    (Kind::Param, j)
                } else {
                    (Kind::Other, at + 1)
                }
            }
            b'?' => {
                let n = b[at + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                (Kind::Param, at + 1 + n)
            }
            b':' if b.get(at + 1) == Some(&b':') => {
                // A cast; any further colons too.
                let n = b[at..].iter().take_while(|&&c| c == b':').count();
                (Kind::Other, at + n)
            }
            b':' if b.get(at + 1).is_some_and(|&n| n.is_ascii_alphabetic() || n == b'_') => {
                let n = b[at + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                (Kind::Param, at + 1 + n)
            }
            b'0'..=b'9' => (Kind::Number, number(b, at)),
            b'.' if b.get(at + 1).is_some_and(u8::is_ascii_digit) => (Kind::Number, number(b, at)),
            c if ident_start(c) => {
                let n = b[at..].iter().take_while(|&&c| ident_char(c)).count();
                let end = at + n;
                // A one-letter prefix of a string literal: E'..' (escapes), X'..' (a blob),
                // N'..', B'..'.
                if n == 1 && b.get(end) == Some(&b'\'') && matches!(c | 0x20, b'e' | b'x' | b'n' | b'b') {
                    let escapes = self.backslash_escapes || c | 0x20 == b'e';
                    let kind = if c | 0x20 == b'x' { Kind::Blob } else { Kind::String };
                    (kind, quoted(b, end, b'\'', escapes)?)
                } else {
                    (Kind::Word, end)
                }
            }
            _ => {
                let len = self.src[at..].chars().next().map_or(1, char::len_utf8);
                (Kind::Other, at + len)
            }
        };
        self.pos = end;
        Ok(Token { kind, start: at, end })
    }
}

impl Iterator for Lexer<'_> {
    type Item = Result<Token, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.src.len() {
            return None;
        }
        let t = self.lex();
        if t.is_err() {
            // Nothing after an unterminated form is a token.
            self.pos = self.src.len();
        }
        Some(t)
    }
}

/// The end of the number starting at `at`: digits, a fraction, an exponent; or hex after `0x`.
fn number(b: &[u8], at: usize) -> usize {
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    if b[at] == b'0' && matches!(b.get(at + 1), Some(b'x' | b'X')) {
        let n = b[at + 2..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        return at + 2 + n;
    }
    let mut i = digits(at);
    if b.get(i) == Some(&b'.') {
        i = digits(i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        if b.get(i + 1 + sign).is_some_and(u8::is_ascii_digit) {
            i = digits(i + 1 + sign);
        }
    }
    i
}

/// The end (one past the closing quote) of the quoted text opening at `at`; a doubled quote
/// is a quote inside.
fn quoted(b: &[u8], at: usize, q: u8, backslash_escapes: bool) -> Result<usize, LexError> {
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

/// The 1-based line and column (in characters) of byte `at` of `src`: a one-off look-up (it
/// reads `src` once); callers that look up many offsets of one source keep a [`LineIndex`].
pub fn line_col(src: &str, at: usize) -> (usize, usize) {
    LineIndex::new(src).line_col(at)
}

thread_local! {
    /// Position work done on this thread: see [`position_work`].
    static POSITION_WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn work(units: usize) {
    POSITION_WORK.with(|w| w.set(w.get() + units as u64));
}

/// How much work this thread's position look-ups have done so far: bytes read to find line
/// starts or count a column, plus one per line start compared. Reading a file must stay linear
/// in its size however many statements it holds (a log of 100,000 statements took 2 minutes
/// when every statement's line was counted from the start of the file); the readers' tests
/// hold them to it with this count rather than with a clock.
pub fn position_work() -> u64 {
    POSITION_WORK.with(std::cell::Cell::get)
}

/// Where each line of a source starts, so that a byte offset's line is a binary search
/// (O(log lines)) instead of a count of the line breaks before it.
pub struct LineIndex<'a> {
    src: &'a str,
    /// Byte offset of the first character of each line; the first is 0.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Reads `src` once for its line breaks.
    pub fn new(src: &'a str) -> LineIndex<'a> {
        work(src.len());
        let starts = std::iter::once(0)
            .chain(src.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { src, starts }
    }

    /// The 1-based line of byte `at` (past the end: the last line).
    pub fn line(&self, at: usize) -> usize {
        let at = at.min(self.src.len());
        work((usize::BITS - self.starts.len().leading_zeros()) as usize + 1);
        self.starts.partition_point(|&s| s <= at)
    }

    /// The 1-based line and column (in characters) of byte `at` (past the end: the end). The
    /// column counts the characters of its line before it, so it is for errors, not per
    /// statement: a file on one long line would make that quadratic.
    pub fn line_col(&self, at: usize) -> (usize, usize) {
        let at = at.min(self.src.len());
        let line = self.line(at);
        let start = self.starts[line - 1];
        work(at - start);
        (line, self.src[start..at].chars().count() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Kind, &str)> {
        Lexer::new(src, 0, false)
            .map(|t| t.unwrap())
            .filter(|t| t.kind != Kind::Blank)
            .map(|t| (t.kind, &src[t.start..t.end]))
            .collect()
    }

    #[test]
    fn literals_identifiers_comments_and_parameters() {
        use Kind::*;
        assert_eq!(
            kinds("SELECT 'a;b''c', E'x\\'y', X'0aF', \"q;\", `b`, 1.5e-3, .5, 0x1F, t1.c -- x;\n/* ; */ ?1 :n $2 $$;$$ ::int;"),
            vec![
                (Word, "SELECT"),
                (String, "'a;b''c'"),
                (Other, ","),
                (String, "E'x\\'y'"),
                (Other, ","),
                (Blob, "X'0aF'"),
                (Other, ","),
                (QuotedIdent, "\"q;\""),
                (Other, ","),
                (QuotedIdent, "`b`"),
                (Other, ","),
                (Number, "1.5e-3"),
                (Other, ","),
                (Number, ".5"),
                (Other, ","),
                (Number, "0x1F"),
                (Other, ","),
                (Word, "t1"),
                (Other, "."),
                (Word, "c"),
                (LineComment, "-- x;"),
                (BlockComment, "/* ; */"),
                (Param, "?1"),
                (Param, ":n"),
                (Param, "$2"),
                (String, "$$;$$"),
                (Other, "::"),
                (Word, "int"),
                (Semicolon, ";"),
            ]
        );
        // MySQL's backslash escapes, where asked for.
        assert_eq!(kinds("'a\\' ;").len(), 2);
        assert!(Lexer::new("'a\\' ;", 0, true).any(|t| t.is_err()));
    }

    #[test]
    fn unterminated_forms_and_positions() {
        let err = |s: &str| Lexer::new(s, 0, false).find_map(Result::err).unwrap();
        assert_eq!(err("SELECT 'abc"), (7, "unterminated string literal".into()));
        assert_eq!(err("SELECT x'ab"), (8, "unterminated string literal".into()));
        assert_eq!(err("SELECT $t$ x"), (7, "unterminated dollar-quoted string $t$".into()));
        assert_eq!(line_col("ab\ncdé f", 8), (2, 5));
        let index = LineIndex::new("ab\ncd\n\nx");
        let lines: Vec<(usize, usize)> = (0..=9).map(|at| index.line_col(at)).collect();
        assert_eq!(
            lines,
            [
                (1, 1),
                (1, 2),
                (1, 3),
                (2, 1),
                (2, 2),
                (2, 3),
                (3, 1),
                (4, 1),
                (4, 2),
                (4, 2)
            ]
        );
        assert_eq!(index.line(usize::MAX), 4);
    }
}
