//! Circles of files inside one folder: children of a folder that import each other, directly
//! or round a ring (`runner` uses `plan`, `plan` uses `instructions`, `instructions` uses
//! `runner`). The layers between folders hold by [`super::violations`]; inside a folder nothing
//! held them, and their number doubled in one round. A circle means none of its files can be
//! read, tested or moved without the others; breaking one usually means moving a shared type
//! down into a file of its own.
//!
//! Each folder is read one level down, as [`super::read`] reads `src/`: its children are its
//! files and its subfolders (a subfolder with all its files, `load.rs` with `load/`), its own
//! `mod.rs` left out (the folder's face, declaring and re-exporting its children: a child naming
//! its parent's items through it is no circle). An import is a `crate::` or `super::` path in
//! code (not comments or strings), a group's members each.

use super::{code_only, first_segments, ident_byte, module_path, Import, Reading};
use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;

/// One circle: the folder (below src/) and its children that import each other.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Circle {
    pub folder: String,
    pub children: Vec<String>,
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "src/{}: {}", self.folder, self.children.join(", "))
    }
}

/// Every `crate::` and `super::` path of `code` (the code of module `module`), resolved from
/// the root: its segments up to the end or a group, and each of a group's first segments.
fn absolute_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
        let before = at.checked_sub(1).map(|k| code.as_bytes()[k]);
        if ident_byte(before) || before == Some(b':') {
            continue;
        }
        let mut rest = &code[at..];
        let mut path: Vec<String> = match rest.strip_prefix("crate::") {
            Some(r) => {
                rest = r;
                Vec::new()
            }
            None => {
                let mut m = module.to_vec();
                while let Some(r) = rest.strip_prefix("super::") {
                    m.pop();
                    rest = r;
                }
                m
            }
        };
        loop {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                if rest.starts_with('{') {
                    for n in first_segments(rest) {
                        out.push(path.iter().cloned().chain([n]).collect());
                    }
                }
                break;
            }
            rest = &rest[name.len()..];
            path.push(name);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        out.push(path);
    }
    out
}

/// The imports between the direct children of `folder` (a module path: `["model"]`), each a
/// file or a folder of files: a reading of paths, as [`super::read`] is, one level down.
fn sibling_reading(files: &[(PathBuf, String)], folder: &[String]) -> Reading {
    let mut reading = Reading::default();
    for (rel, text) in files {
        let module = module_path(rel);
        if module.len() <= folder.len() || module[..folder.len()] != *folder {
            continue;
        }
        let from = module[folder.len()].clone();
        *reading.files.entry(from.clone()).or_default() += 1;
        for to in absolute_paths(&code_only(text), &module) {
            if to.len() > folder.len() && to[..folder.len()] == *folder && to[folder.len()] != from {
                reading.imports.push(Import {
                    file: rel.display().to_string(),
                    from: from.clone(),
                    to: to[folder.len()].clone(),
                });
            }
        }
    }
    reading.imports.sort();
    reading.imports.dedup();
    reading
}

fn folder_path(folder: &str) -> Vec<String> {
    folder
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// How many children (files and subfolders, its face left out) `folder` has.
pub fn children(files: &[(PathBuf, String)], folder: &str) -> usize {
    sibling_reading(files, &folder_path(folder)).files.len()
}

/// The circles of files inside every folder of `files` (paths below src/), sorted.
pub fn circles(files: &[(PathBuf, String)]) -> Vec<Circle> {
    let folders: BTreeSet<String> = files
        .iter()
        .filter_map(|(rel, _)| rel.parent())
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| p.display().to_string())
        .collect();
    let mut out = Vec::new();
    for folder in folders {
        for children in sibling_reading(files, &folder_path(&folder)).cycles() {
            out.push(Circle {
                folder: folder.clone(),
                children,
            });
        }
    }
    out.sort();
    out
}

fn files(list: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
    list.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect()
}

/// The reader finds a circle through `super::`, through `crate::` and through a group.
#[test]
fn a_circle_of_files_is_caught_in_every_spelling() {
    for (a, b) in [
        ("use super::b::X;", "use crate::model::a::Y;"),
        ("fn f() { super::b::g() }", "use crate::model::{a::Y, c};"),
    ] {
        let found = circles(&files(&[("model/a.rs", a), ("model/b.rs", b)]));
        assert_eq!(found.len(), 1, "{a} / {b}");
        assert_eq!(found[0].to_string(), "src/model: a, b");
    }
    let one_way = files(&[
        ("model/a.rs", "use super::b::X;"),
        ("model/b.rs", "// crate::model::a in a comment\nuse super::c::Z;"),
    ]);
    assert!(circles(&one_way).is_empty());
}

/// A ring of three is one circle; a subfolder is one child; a folder's face is none.
#[test]
fn a_ring_is_one_circle_and_a_face_is_none() {
    let ring = files(&[
        (
            "bench/mod.rs",
            "pub mod plan; pub mod runner; use crate::bench::runner::run;",
        ),
        (
            "bench/plan/mod.rs",
            "use super::cold::Cold; fn f() { crate::bench::runner::go() }",
        ),
        ("bench/plan/jobs.rs", "use crate::bench::plan::Plan;"),
        ("bench/runner.rs", "use crate::bench::{cold, plan::Plan};"),
        ("bench/cold.rs", "use super::Thing; // runner::x in a comment"),
    ]);
    let found: Vec<String> = circles(&ring).iter().map(Circle::to_string).collect();
    assert_eq!(found, ["src/bench: plan, runner"]);
    let none = files(&[
        ("bench/mod.rs", "pub mod plan; use crate::bench::plan::Plan;"),
        ("bench/plan.rs", "use super::Thing; use crate::report::x;"),
        ("report/x.rs", "use crate::bench::plan::Plan;"),
    ]);
    assert!(circles(&none).is_empty(), "{:?}", circles(&none));
}
