//! Circles of files inside one folder: files of a folder that import each other, directly or
//! round a ring (`runner` uses `plan`, `plan` uses `instructions`, `instructions` uses
//! `runner`). The layers between folders hold by [`super::violations`]; inside a folder nothing
//! held them, and their number doubled in one round. A circle means none of its files can be
//! read, tested or moved without the others; breaking one usually means moving a shared type
//! down into a file of its own.
//!
//! A folder's `mod.rs` (or the file that declares a folder's children, `load.rs` beside
//! `load/`) is left out: it is the folder's face, declaring and re-exporting its children, and a
//! child naming its parent's items through it is no circle of concepts. An import is any path in
//! code (not comments or strings) that names a module file: `crate::a::b`, `super::b`,
//! `self::b`, a child module's bare name, and each member of a `{...}` group; it is charged to
//! the deepest module file the path names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One file's module path and the module paths it imports.
struct FileImports {
    module: Vec<String>,
    targets: Vec<Vec<String>>,
}

/// Every path of `code` that starts at one of `starts` (`crate`, `super`, a child's name...),
/// groups expanded: `a::{b, c::d}` gives `a::b` and `a::c::d`.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts_ident = (b[i].is_ascii_alphabetic() || b[i] == b'_')
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':'));
        if starts_ident {
            let (paths, end) = path_at(code, i);
            out.extend(paths.into_iter().filter(|p| p.len() > 1));
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The path (or the paths of a group) that starts at byte `at`, and where it ends.
fn path_at(code: &str, at: usize) -> (Vec<Vec<String>>, usize) {
    let b = code.as_bytes();
    let mut segs = Vec::new();
    let mut i = at;
    loop {
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if i == start {
            break;
        }
        segs.push(code[start..i].to_string());
        let rest = &code[i..];
        let trimmed = rest.trim_start();
        if !trimmed.starts_with("::") {
            break;
        }
        i += rest.len() - trimmed.len() + 2;
        let rest = &code[i..];
        let trimmed = rest.trim_start();
        i += rest.len() - trimmed.len();
        if trimmed.starts_with('{') {
            let (inner, end) = group_at(code, i + 1);
            let paths = inner
                .into_iter()
                .map(|tail| segs.iter().cloned().chain(tail).collect())
                .collect();
            return (paths, end);
        }
    }
    (vec![segs], i)
}

/// The members of a `{...}` group whose inside starts at byte `at`, and where it closes.
fn group_at(code: &str, at: usize) -> (Vec<Vec<String>>, usize) {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = at;
    while i < b.len() {
        match b[i] {
            b'}' => return (out, i + 1),
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let (paths, end) = path_at(code, i);
                out.extend(paths);
                i = end;
            }
            _ => i += 1,
        }
    }
    (out, i)
}

/// The module path of `rel` (below src/) and whether it is a folder's face (`mod.rs`, or a file
/// with a folder of the same name beside it).
fn module_of(rel: &Path, all: &BTreeSet<PathBuf>) -> (Vec<String>, bool) {
    let module = super::module_path(rel);
    let stem = rel
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let face = stem == "mod" || all.iter().any(|p| p.starts_with(rel.with_extension("")));
    (module, face)
}

fn resolve(module: &[String], path: &[String], known: &BTreeMap<Vec<String>, PathBuf>) -> Option<Vec<String>> {
    let mut abs: Vec<String> = match path[0].as_str() {
        "crate" => path[1..].to_vec(),
        "self" => module.iter().chain(&path[1..]).cloned().collect(),
        "super" => {
            let mut base = module.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.into_iter().chain(rest.iter().cloned()).collect()
        }
        name => {
            let child: Vec<String> = module.iter().cloned().chain([name.to_string()]).collect();
            if !known.contains_key(&child) {
                return None;
            }
            module.iter().chain(path).cloned().collect()
        }
    };
    while !abs.is_empty() && !known.contains_key(&abs) {
        abs.pop();
    }
    (!abs.is_empty()).then_some(abs)
}

/// The circles of files inside one folder, each as its files' paths below src/, sorted.
pub fn circles(files: &[(PathBuf, String)]) -> Vec<Vec<String>> {
    let all: BTreeSet<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    let mut known: BTreeMap<Vec<String>, PathBuf> = BTreeMap::new();
    let mut faces = BTreeSet::new();
    for (rel, _) in files {
        let (module, face) = module_of(rel, &all);
        if face {
            faces.insert(rel.clone());
        }
        known.insert(module, rel.clone());
    }
    let mut imports: BTreeMap<PathBuf, FileImports> = BTreeMap::new();
    for (rel, text) in files {
        let (module, _) = module_of(rel, &all);
        let code = super::code_only(text);
        let targets = paths_in(&code)
            .iter()
            .filter_map(|p| resolve(&module, p, &known))
            .collect();
        imports.insert(rel.clone(), FileImports { module, targets });
    }
    // Edges between two files of one folder, faces left out.
    let mut edges: BTreeMap<&PathBuf, BTreeSet<&PathBuf>> = BTreeMap::new();
    for (rel, fi) in &imports {
        if faces.contains(rel) {
            continue;
        }
        for t in &fi.targets {
            let to = &known[t];
            if to != rel && !faces.contains(to) && to.parent() == rel.parent() && *t != fi.module {
                edges.entry(rel).or_default().insert(to);
            }
        }
    }
    let reach = |from: &PathBuf| -> BTreeSet<&PathBuf> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(n) = todo.pop() {
            for m in edges.get(n).into_iter().flatten() {
                if seen.insert(*m) {
                    todo.push(m);
                }
            }
        }
        seen
    };
    let nodes: Vec<&PathBuf> = edges.keys().copied().collect();
    let reached: BTreeMap<&PathBuf, BTreeSet<&PathBuf>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: BTreeSet<Vec<String>> = BTreeSet::new();
    for n in &nodes {
        if !reached[n].contains(n) {
            continue;
        }
        let ring: Vec<String> = nodes
            .iter()
            .filter(|m| reached[n].contains(*m) && reached[*m].contains(n))
            .map(|m| m.display().to_string())
            .collect();
        out.insert(ring);
    }
    out.into_iter().collect()
}

#[test]
fn a_ring_of_three_files_is_one_circle_and_a_face_is_none() {
    let files = |list: &[(&str, &str)]| -> Vec<(PathBuf, String)> {
        list.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect()
    };
    let ring = files(&[
        (
            "bench/mod.rs",
            "pub mod plan; pub mod runner; pub mod cold; use runner::run;",
        ),
        (
            "bench/plan.rs",
            "use super::cold::Cold; fn f() { crate::bench::runner::go() }",
        ),
        ("bench/runner.rs", "use crate::bench::{cold, plan::Plan};"),
        (
            "bench/cold.rs",
            "use super::Thing; // runner::x in a comment\nconst S: &str = \"plan::y\";",
        ),
    ]);
    assert_eq!(
        circles(&ring),
        vec![vec!["bench/plan.rs".to_string(), "bench/runner.rs".to_string()]]
    );
    // A child naming its folder's face, and files of other folders, make no circle.
    let none = files(&[
        ("bench/mod.rs", "pub mod plan; use plan::Plan;"),
        ("bench/plan.rs", "use super::Thing; use crate::report::x;"),
        ("report/mod.rs", "pub mod x; use crate::bench::plan::Plan;"),
        ("report/x.rs", "use crate::bench::plan::Plan;"),
    ]);
    assert!(circles(&none).is_empty(), "{:?}", circles(&none));
}
