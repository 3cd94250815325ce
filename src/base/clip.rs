//! Long values cut short in messages.
//!
//! An error line quotes what the user gave (a parameter's value, a path, a name), and a value
//! can be 50 MB long: printed whole, the one line that should say what to fix fills the
//! terminal and the logs. So a value past [`MAX_BYTES`] is cut at a character boundary and
//! marked with an ellipsis and its whole length, which still tells the user which value it was.

use std::borrow::Cow;

/// Longest value a message quotes whole, in bytes.
pub const MAX_BYTES: usize = 200;

/// `value`, or its first [`MAX_BYTES`] bytes (at a character boundary) with `…` and the whole
/// length: `xxxx… (52428800 bytes)`.
pub fn value(value: &str) -> Cow<'_, str> {
    if value.len() <= MAX_BYTES {
        return Cow::Borrowed(value);
    }
    let mut end = MAX_BYTES;
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}… ({} bytes)", &value[..end], value.len()))
}

/// Longest word the one error line keeps whole: well past a value [`value`] already cut, with
/// the flag or name quoted around it.
pub const MAX_WORD_BYTES: usize = 4 * MAX_BYTES;

/// `line` with each of its space-separated words longer than [`MAX_WORD_BYTES`] cut by
/// [`value`]: the last guard of the one error line, whichever message quoted the value.
pub fn long_words(line: &str) -> Cow<'_, str> {
    if !line.split(' ').any(|w| w.len() > MAX_WORD_BYTES) {
        return Cow::Borrowed(line);
    }
    let words: Vec<Cow<'_, str>> = line
        .split(' ')
        .map(|w| {
            if w.len() > MAX_WORD_BYTES {
                value(w)
            } else {
                Cow::Borrowed(w)
            }
        })
        .collect();
    Cow::Owned(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_value_is_cut_with_its_length_and_a_short_one_is_kept() {
        assert_eq!(value("rows"), "rows");
        let long = "x".repeat(50 << 20);
        let cut = value(&long);
        assert_eq!(cut, format!("{}… ({} bytes)", "x".repeat(MAX_BYTES), 50 << 20));
        // Never inside a character.
        let wide = "é".repeat(MAX_BYTES);
        assert!(value(&wide).starts_with(&"é".repeat(MAX_BYTES / 2)));
        let line = format!("--param rows={long}: invalid value; valid: an integer");
        let short = long_words(&line);
        assert!(
            short.len() < 400 && short.ends_with("bytes) invalid value; valid: an integer"),
            "{short}"
        );
        assert_eq!(long_words("a short line"), "a short line");
        // A value cut already is not cut again.
        let once = format!("--param rows={}: invalid", value(&long));
        assert_eq!(long_words(&once), once);
    }
}
