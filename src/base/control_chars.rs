//! Control characters taken out of text litebench did not write itself.
//!
//! A record imported from a file (a side file, another store) may come from anyone. Its strings
//! reach the terminal (`show`, `merge`'s table), Markdown and the HTML page, and a terminal acts
//! on what it is sent: an escape sequence (ESC, or the C1 CSI) recolours, moves the cursor,
//! retitles the window or rewrites what was printed before. So every string of an imported
//! record loses its control characters (C0, tab and newline included, DEL and C1) before the
//! record is typed, in one pass over the parsed JSON ([`strip_json`]), so that no field, object
//! key or later addition to the records is missed.

use std::borrow::Cow;

/// Whether `c` is a control character: C0 (U+0000 to U+001F), DEL (U+007F) or C1 (U+0080 to
/// U+009F).
pub fn is_control(c: char) -> bool {
    c.is_control()
}

/// `s` without its control characters (borrowed when it has none).
pub fn strip(s: &str) -> Cow<'_, str> {
    if s.chars().any(is_control) {
        Cow::Owned(s.chars().filter(|&c| !is_control(c)).collect())
    } else {
        Cow::Borrowed(s)
    }
}

/// Strips control characters from every string of `v`, object keys included; returns how many
/// strings changed.
pub fn strip_json(v: &mut serde_json::Value) -> usize {
    use serde_json::Value;
    let mut changed = 0;
    let mut one = |s: &mut String| {
        if let Cow::Owned(clean) = strip(s) {
            *s = clean;
            changed += 1;
        }
    };
    // An explicit stack: a deeply nested document cannot overflow the call stack.
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => one(s),
            Value::Array(a) => stack.extend(a.iter_mut()),
            Value::Object(o) => {
                if o.keys().any(|k| k.chars().any(is_control)) {
                    let entries: Vec<(String, Value)> = std::mem::take(o).into_iter().collect();
                    for (mut k, val) in entries {
                        one(&mut k);
                        o.insert(k, val);
                    }
                }
                stack.extend(o.values_mut());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    changed
}

/// A JSON text with the control characters of its strings stripped ([`strip_json`]); `None`
/// when it is not JSON or has none to strip (then it is kept byte for byte).
pub fn strip_json_text(text: &str) -> Option<String> {
    let mut v: serde_json::Value = serde_json::from_str(text).ok()?;
    (strip_json(&mut v) > 0).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c0_del_and_c1_go_and_everything_else_stays() {
        assert_eq!(strip("host\u{1b}[31mred\u{7}"), "host[31mred");
        assert_eq!(strip("a\tb\nc\rd\u{0}e\u{7f}f\u{9b}2Jg\u{85}h"), "abcdef2Jgh");
        assert!(matches!(strip("plain é ü → 中"), Cow::Borrowed("plain é ü → 中")));
        assert!(!is_control('\u{a0}') && is_control('\u{9f}') && is_control('\u{80}'));
    }

    #[test]
    fn every_string_and_key_of_a_json_document_is_stripped() {
        let mut v = serde_json::json!({
            "host": "h\u{1b}]0;owned\u{7}",
            "list": [["x\u{9b}y"], {"k\u{1b}": "v"}],
            "n": 3,
            "clean": "ok"
        });
        assert_eq!(strip_json(&mut v), 3);
        assert_eq!(
            v,
            serde_json::json!({"host": "h]0;owned", "list": [["xy"], {"k": "v"}], "n": 3, "clean": "ok"})
        );
        assert_eq!(strip_json_text(r#"{"a":"b"}"#), None, "nothing to strip: kept as it is");
        assert_eq!(
            strip_json_text(r#"{"a":"\u001b[2J"}"#).as_deref(),
            Some(r#"{"a":"[2J"}"#)
        );
        assert_eq!(strip_json_text("not json"), None);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let mut v = serde_json::Value::String("\u{1b}".into());
        for _ in 0..100_000 {
            v = serde_json::Value::Array(vec![v]);
        }
        assert_eq!(strip_json(&mut v), 1);
        // Dropping a deep Value recurses in serde_json; take it apart by hand.
        while let serde_json::Value::Array(mut a) = v {
            v = a.pop().unwrap_or(serde_json::Value::Null);
        }
    }
}
