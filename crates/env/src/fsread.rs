//! Reading small text files from `/proc` and `/sys`. A missing attribute is
//! information ("this kernel or device does not say"), not a failure, so
//! every read here yields `Option` and never an error.

use std::path::Path;

/// The file's contents with surrounding whitespace removed; `None` if it
/// cannot be read or is blank.
pub(crate) fn read_trimmed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    non_empty(text.trim())
}

/// `Some(owned)` unless `s` is empty.
pub(crate) fn non_empty(s: &str) -> Option<String> {
    if s.is_empty() {
        None
    } else {
        Some(s.to_owned())
    }
}
