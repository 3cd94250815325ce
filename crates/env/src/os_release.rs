//! `/etc/os-release` parsing. The distribution decides the default kernel
//! tuning, libc and filesystem defaults a benchmark inherits, so its name is
//! recorded next to every result.

/// The value of `key` in os-release text, with shell-style quoting removed.
///
/// Handles `KEY=value`, `KEY="value"` (backslash escapes for `"`, `\`, `$` and the backtick) and
/// `KEY='value'`; comments and blank lines are skipped. A key given twice
/// takes its last value, as a shell sourcing the file would.
pub(crate) fn value(text: &str, key: &str) -> Option<String> {
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() == key {
            found = Some(unquote(v.trim()));
        }
    }
    found.filter(|v| !v.is_empty())
}

fn unquote(raw: &str) -> String {
    if let Some(inner) = raw.strip_prefix('\'') {
        return inner.strip_suffix('\'').unwrap_or(inner).to_owned();
    }
    let inner = match raw.strip_prefix('"') {
        Some(inner) => inner.strip_suffix('"').unwrap_or(inner),
        None => raw,
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(e @ ('"' | '\\' | '$' | '`' | '\'')) => out.push(e),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::value;

    const DEBIAN: &str = r#"PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
ID=debian
HOME_URL="https://www.debian.org/"
"#;

    #[test]
    fn double_quoted() {
        assert_eq!(
            value(DEBIAN, "PRETTY_NAME").as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(value(DEBIAN, "VERSION_ID").as_deref(), Some("12"));
    }

    #[test]
    fn unquoted_single_quoted_and_escaped() {
        let text = "# comment\n\nID=arch\nPRETTY_NAME='Arch Linux'\nNAME=\"Say \\\"hi\\\" \\$HOME\"\n";
        assert_eq!(value(text, "ID").as_deref(), Some("arch"));
        assert_eq!(value(text, "PRETTY_NAME").as_deref(), Some("Arch Linux"));
        assert_eq!(value(text, "NAME").as_deref(), Some("Say \"hi\" $HOME"));
    }

    #[test]
    fn missing_or_empty_is_none() {
        assert_eq!(value(DEBIAN, "VARIANT"), None);
        assert_eq!(value("PRETTY_NAME=\"\"\n", "PRETTY_NAME"), None);
        assert_eq!(value("", "PRETTY_NAME"), None);
        // A key that is only a prefix of another must not match.
        assert_eq!(value("PRETTY_NAME_X=1\n", "PRETTY_NAME"), None);
    }

    #[test]
    fn last_assignment_wins() {
        assert_eq!(value("ID=a\nID=b\n", "ID").as_deref(), Some("b"));
    }
}
