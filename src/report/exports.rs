//! `--export FILE.json|.csv|.md|.txt` (repeatable, on `run`, `show` and `compare`): what the
//! command prints, also written in the format each file's extension names, while the terminal
//! keeps its table, as hyperfine's `--export-*` do. One run then gives the table to read, the
//! JSON to keep and the Markdown to paste, without running it three times.
//!
//! Every file is checked before anything runs ([`check`]): a new file in an existing directory,
//! never one already there, never a symbolic link, never the results store, never named twice;
//! and written complete or not at all ([`crate::base::outfile`]).

use super::Format;
use crate::base::outfile;
use crate::base::Failure;
use std::path::{Path, PathBuf};

/// One `--export FILE`: where, and in which format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub path: PathBuf,
    pub format: Format,
}

/// The format a file's extension names.
fn format_of(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "json" => Format::Json,
        "csv" => Format::Csv,
        "md" | "markdown" => Format::Markdown,
        "txt" => Format::Table,
        _ => return None,
    })
}

/// Why an `--export FILE` was refused as given; clap prints it after the flag and the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// No extension, or one that names no format.
    #[error("the extension names the format: give FILE.json, FILE.csv, FILE.md or FILE.txt")]
    NoFormat,
}

/// Parses `--export FILE` (clap's value parser): the format from the extension.
pub fn parse(s: &str) -> Result<Export, ExportError> {
    let path = PathBuf::from(s);
    let format = format_of(&path).ok_or(ExportError::NoFormat)?;
    Ok(Export { path, format })
}

/// Checks, before anything runs, that every export can be written as a new file: not there
/// yet, not a link, in an existing directory, not the results store at `results` nor
/// `others` (the command's other outputs, with their flags), and not named twice.
pub fn check(exports: &[Export], results: &Path, others: &[(&str, &Path)]) -> Result<(), Failure> {
    for (i, e) in exports.iter().enumerate() {
        outfile::refuse_same("--export", &e.path, "the results store", results)?;
        for (flag, other) in others {
            outfile::refuse_same("--export", &e.path, &format!("the file of {flag}"), other)?;
        }
        if exports[..i].iter().any(|x| outfile::same_file(&x.path, &e.path)) {
            return Err(Failure(format!(
                "--export {}: given twice; give each file once",
                e.path.display()
            )));
        }
        outfile::check("--export", &e.path)?;
    }
    Ok(())
}

/// Writes each export, `render` giving what the command prints in a format. Every file is
/// tried, so one that fails (a full disk) does not hide another's failure: all but the last
/// failure are said here, each in its line, and the last is returned.
pub fn write(exports: &[Export], render: &dyn Fn(Format) -> String) -> Result<(), Failure> {
    let mut failures = write_each(exports, render);
    let last = failures.pop();
    for f in failures {
        crate::errln!("error: {}", f.line());
    }
    last.map_or(Ok(()), Err)
}

/// Writes each export; returns the failure of each that could not be written, in order.
pub fn write_each(exports: &[Export], render: &dyn Fn(Format) -> String) -> Vec<Failure> {
    exports
        .iter()
        .filter_map(|e| outfile::write("--export", &e.path, render(e.format).as_bytes()).err())
        .map(Failure::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_format() {
        assert_eq!(parse("a.json").unwrap().format, Format::Json);
        assert_eq!(parse("d/b.CSV").unwrap().format, Format::Csv);
        assert_eq!(parse("c.md").unwrap().format, Format::Markdown);
        assert_eq!(parse("c.txt").unwrap().format, Format::Table);
        assert_eq!(parse("c.xml"), Err(ExportError::NoFormat));
        assert_eq!(parse("json"), Err(ExportError::NoFormat));
        assert!(ExportError::NoFormat.to_string().contains("give FILE.json, FILE.csv"));
    }

    #[test]
    fn an_existing_file_a_link_or_a_repeat_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("r.db");
        let there = dir.path().join("there.json");
        std::fs::write(&there, "kept").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        let e = |p: &Path| parse(p.to_str().unwrap()).unwrap();
        let new = dir.path().join("new.csv");
        assert!(check(&[e(&there)], &results, &[])
            .unwrap_err()
            .0
            .contains("already exists"));
        assert!(check(&[e(&link)], &results, &[])
            .unwrap_err()
            .0
            .contains("symbolic link"));
        assert!(check(&[e(&new), e(&new)], &results, &[])
            .unwrap_err()
            .0
            .contains("given twice"));
        let report = dir.path().join("x.txt");
        assert!(check(&[e(&report)], &results, &[("--report", &report)])
            .unwrap_err()
            .0
            .contains("--report"));
        check(&[e(&new)], &results, &[]).unwrap();
        write(&[e(&new)], &|f| format!("{f:?}")).unwrap();
        assert_eq!(std::fs::read_to_string(&new).unwrap(), "Csv");
        assert!(write(&[e(&there)], &|_| String::new()).is_err());
        assert_eq!(std::fs::read_to_string(&there).unwrap(), "kept");
        let files = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(files, 3, "no temporary file is left");
    }
}
