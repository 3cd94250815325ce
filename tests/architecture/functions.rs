//! Functions longer than [`super::MOST_LINES`] lines, from the `fn` line to its closing brace,
//! tests included: a function that long does several jobs, and is split where its jobs are
//! (`runner::measure` became prepare, run and harvest). Read from the code only (comments and
//! string contents blanked by [`super::code_only`], line structure kept), braces matched.

use std::path::PathBuf;

/// One long function: its file below src/, its name, its first line and its length in lines.
#[derive(Debug, PartialEq, Eq)]
pub struct Long {
    pub file: String,
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// The functions of `code` with a body: (name, first line from 1, lines).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(k) = code[at..].find("fn ") {
        let i = at + k;
        at = i + 3;
        if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
            continue;
        }
        let name: String = code[i + 3..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body's opening brace, unless a `;` ends a declaration first.
        let Some(open) = code[i..].find(['{', ';']).map(|o| i + o) else {
            break;
        };
        if b[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut end = open;
        for (j, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let first = code[..i].matches('\n').count() + 1;
        let last = code[..end].matches('\n').count() + 1;
        out.push((name, first, last - first + 1));
    }
    out
}

/// Every function of `files` (path below src/, text) longer than `most` lines, longest first.
pub fn longer_than(files: &[(PathBuf, String)], most: usize) -> Vec<Long> {
    let mut out: Vec<Long> = files
        .iter()
        .flat_map(|(rel, text)| {
            functions(&super::code_only(text))
                .into_iter()
                .filter(|(_, _, lines)| *lines > most)
                .map(|(name, line, lines)| Long {
                    file: rel.display().to_string(),
                    name,
                    line,
                    lines,
                })
        })
        .collect();
    out.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.file.cmp(&b.file)));
    out
}

#[test]
fn a_function_is_measured_from_its_fn_to_its_closing_brace() {
    let code = "trait T {\n    fn decl(&self);\n}\nfn f() {\n    let s = \"}\";\n    if x { y() }\n}\n";
    let got = functions(&super::code_only(code));
    assert_eq!(got, [("f".to_string(), 4, 4)]);
    let files = [(PathBuf::from("a/b.rs"), code.to_string())];
    assert_eq!(longer_than(&files, 3).len(), 1);
    assert!(longer_than(&files, 4).is_empty());
}
