//! The layers of `src/`, held: every folder imports only folders below it, and no two folders
//! import each other. The order is written once, here ([`LAYERS`]); ARCHITECTURE.md draws it.
//!
//! The test reads every `crate::` path of every file (in `use` lines and in code, not in
//! comments), including grouped ones (`use crate::{a, b}`), paths that climb out through
//! `super::`, and the crate's exported macros (`crate::errln!` is base's). It is a reader of
//! paths, not a compiler: a path spelled through a `pub use` is charged to the folder it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod circles;
mod functions;

/// The folders of `src/`, top first. A folder may import any folder after it in this list.
const LAYERS: [&str; 12] = [
    "app",        // the command line: argv -> typed settings, one file per subcommand
    "reproduce",  // the seeds' figures, calling bench with typed settings
    "bench",      // plan, session, runner, shards, a run in the guest kernel
    "report",     // one model, one file per output format, stored-run reports, advise
    "store",      // the results store
    "durability", // the crash-state verifier
    "testbed",    // what a run is placed on: filesystems, schedulers, the guest kernel
    "workload",   // the workloads, the recorder, presets
    "engines",    // one folder per engine
    "model",      // the records: manifest, trials, op results, engine info, knobs, params
    "sys",        // clock, I/O counters, /proc, process identity, scratch directories, signals
    "base",       // errors, time, sizes, output
];

/// One import of a folder by a file of another folder.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Import {
    file: String,
    from: String,
    to: String,
}

/// What the reading found: every cross-folder import, and the folders' graph.
#[derive(Debug, Default)]
struct Reading {
    imports: Vec<Import>,
    /// Files read per folder.
    files: BTreeMap<String, usize>,
}

impl Reading {
    fn edges(&self) -> BTreeMap<(String, String), Vec<String>> {
        let mut e: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for i in &self.imports {
            e.entry((i.from.clone(), i.to.clone()))
                .or_default()
                .push(i.file.clone());
        }
        for files in e.values_mut() {
            files.sort();
            files.dedup();
        }
        e
    }

    /// Imports of a folder above the importer's own (by `rank`).
    fn upward(&self, rank: &dyn Fn(&str) -> Option<usize>) -> Vec<&Import> {
        self.imports
            .iter()
            .filter(|i| match (rank(&i.from), rank(&i.to)) {
                (Some(a), Some(b)) => b < a,
                _ => false,
            })
            .collect()
    }

    /// Pairs of folders that import each other.
    fn mutual(&self) -> Vec<(String, String)> {
        let edges = self.edges();
        let mut out = BTreeSet::new();
        for (a, b) in edges.keys() {
            if a < b && edges.contains_key(&(b.clone(), a.clone())) {
                out.insert((a.clone(), b.clone()));
            }
        }
        out.into_iter().collect()
    }

    /// Cycles between folders: the strongly connected components of more than one folder.
    fn cycles(&self) -> Vec<Vec<String>> {
        let edges = self.edges();
        let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
        let reach = |from: &String| -> BTreeSet<String> {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.clone()];
            while let Some(n) = todo.pop() {
                for (a, b) in edges.keys() {
                    if *a == n && seen.insert(b.clone()) {
                        todo.push(b.clone());
                    }
                }
            }
            seen
        };
        let reach: BTreeMap<&String, BTreeSet<String>> = nodes.iter().map(|n| (*n, reach(n))).collect();
        let mut out: BTreeSet<Vec<String>> = BTreeSet::new();
        for n in &nodes {
            let comp: Vec<String> = nodes
                .iter()
                .filter(|m| reach[*n].contains(**m) && reach[**m].contains(*n))
                .map(|m| (*m).clone())
                .collect();
            if comp.len() > 1 {
                out.insert(comp);
            }
        }
        out.into_iter().collect()
    }
}

/// Removes comments, and the contents of string and char literals, keeping line structure.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == b'r'
            && matches!(b.get(i + 1), Some(b'"') | Some(b'#'))
            && !ident_byte(b.get(i.wrapping_sub(1)).copied())
        {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                if b[j] == b'\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.len();
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if b.get(i) == Some(&b'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == b'\'' && (b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\')) {
            // A char literal ('x', '\n', '\''); a lifetime ('a) is left as it is.
            let mut j = i + 1;
            if b[j] == b'\\' {
                j += 1;
            }
            j += 1;
            while j < b.len() && b[j] != b'\'' {
                j += 1;
            }
            out.push_str("' '");
            i = j + 1;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

fn ident_byte(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The names a path names right after `crate::` (or after climbing to the root with
/// `super::`): one identifier, or every first segment of a `{...}` group.
fn first_segments(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 1;
        let mut names = Vec::new();
        let mut at_item_start = true;
        let mut chars = group.char_indices().peekable();
        while let Some((k, c)) = chars.next() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                ',' if depth == 1 => at_item_start = true,
                c if depth == 1 && at_item_start && (c.is_ascii_alphabetic() || c == '_') => {
                    let name: String = group[k..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    for _ in 1..name.len() {
                        chars.next();
                    }
                    names.push(name);
                    at_item_start = false;
                }
                _ => {}
            }
        }
        names
    } else {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            vec![]
        } else {
            // `crate::errln!`: a macro exported at the root, charged to where it is defined.
            let after = &rest[name.len()..];
            vec![if after.starts_with('!') {
                format!("{name}!")
            } else {
                name
            }]
        }
    }
}

/// The module path of a file below `src/` (`report/html/page.rs` -> report, html, page).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts
}

/// The unit a file belongs to: its folder below `src/`, or its own name for a file directly in
/// `src/` (none for `lib.rs` and `main.rs`, the root).
fn unit_of(rel: &Path) -> Option<String> {
    let first = rel.iter().next()?.to_string_lossy().into_owned();
    if rel.iter().count() == 1 {
        let stem = first.trim_end_matches(".rs");
        return (stem != "lib" && stem != "main").then(|| stem.to_string());
    }
    Some(first)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Reads every file of `files` (path below `src/`, text) and every `crate::` path in it.
fn read(files: &[(PathBuf, String)]) -> Reading {
    // Exported macros are charged to the unit that defines them.
    let mut macros: BTreeMap<String, String> = BTreeMap::new();
    for (rel, text) in files {
        let code = code_only(text);
        let mut exported = false;
        for line in code.lines() {
            let line = line.trim();
            if line.starts_with("#[macro_export]") {
                exported = true;
            } else if let Some(rest) = line.strip_prefix("macro_rules!") {
                if exported {
                    let name: String = rest
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    macros.insert(format!("{name}!"), unit_of(rel).unwrap_or_default());
                }
                exported = false;
            }
        }
    }
    let mut reading = Reading::default();
    for (rel, text) in files {
        let Some(unit) = unit_of(rel) else { continue };
        *reading.files.entry(unit.clone()).or_default() += 1;
        let module = module_path(rel);
        let code = code_only(text);
        let mut targets = BTreeSet::new();
        for (at, _) in code.match_indices("crate::") {
            if ident_byte(at.checked_sub(1).map(|k| code.as_bytes()[k])) {
                continue;
            }
            targets.extend(first_segments(&code[at + "crate::".len()..]));
        }
        // `super::` chains that climb to the root (only from a folder's mod.rs or a file in src/).
        for (at, _) in code.match_indices("super::") {
            if at > 0 && (ident_byte(Some(code.as_bytes()[at - 1])) || code.as_bytes()[at - 1] == b':') {
                continue;
            }
            let mut rest = &code[at..];
            let mut depth = 0;
            while let Some(r) = rest.strip_prefix("super::") {
                depth += 1;
                rest = r;
            }
            if depth >= module.len() {
                targets.extend(first_segments(rest));
            }
        }
        for t in targets {
            let to = macros.get(&t).cloned().unwrap_or(t);
            if to != unit && to != "self" && to != "super" {
                reading.imports.push(Import {
                    file: rel.display().to_string(),
                    from: unit.clone(),
                    to,
                });
            }
        }
    }
    reading.imports.sort();
    reading.imports.dedup();
    reading
}

fn src_files(root: &Path) -> Vec<(PathBuf, String)> {
    let mut paths = Vec::new();
    rust_files(root, &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.strip_prefix(root).unwrap().to_path_buf(), text)
        })
        .collect()
}

fn layer_rank(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == name)
}

/// What is wrong with a reading against [`LAYERS`], one line each.
fn violations(reading: &Reading) -> Vec<String> {
    let mut out = Vec::new();
    for unit in reading.files.keys() {
        if layer_rank(unit).is_none() {
            out.push(format!(
                "src/{unit}: not a layer; put it in one of the folders of LAYERS (tests/architecture/main.rs) or add the folder there and to ARCHITECTURE.md"
            ));
        }
    }
    for i in reading.upward(&layer_rank) {
        out.push(format!("{}: imports {}, a layer above {}", i.file, i.to, i.from));
    }
    for (a, b) in reading.mutual() {
        out.push(format!("{a} and {b} import each other"));
    }
    out
}

fn summary(reading: &Reading, rank: &dyn Fn(&str) -> Option<usize>) -> String {
    format!(
        "{} units, {} files, {} cross-folder import edges ({} file-level), {} upward, {} pairs importing each other, {} cycles between folders",
        reading.files.len(),
        reading.files.values().sum::<usize>(),
        reading.edges().len(),
        reading.imports.len(),
        reading.upward(rank).len(),
        reading.mutual().len(),
        reading.cycles().len()
    )
}

#[test]
fn every_folder_imports_only_folders_below_it() {
    let reading = read(&src_files(&src_dir()));
    println!("{}", summary(&reading, &layer_rank));
    let wrong = violations(&reading);
    assert!(wrong.is_empty(), "the layers are broken:\n  {}", wrong.join("\n  "));
    assert!(
        reading.files.len() == LAYERS.len(),
        "every layer has files: {:?}",
        reading.files
    );
}

fn src_dir() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
        .join("src")
}

/// Most circles of files inside one folder ([`circles`]): a ratchet, lowered as circles are
/// broken. A new circle fails here: break it by moving what both files need down into a file of
/// its own, as `bench/cold.rs` and `bench/connect.rs` were.
const MOST_CIRCLES: usize = 9;

/// The most lines a function of src/ may have, from its `fn` to its closing brace.
const MOST_LINES: usize = 120;

#[test]
fn no_function_is_longer_than_its_jobs() {
    let long = functions::longer_than(&src_files(&src_dir()), MOST_LINES);
    assert!(
        long.is_empty(),
        "functions over {MOST_LINES} lines; split each where its jobs are:\n  {}",
        long.iter()
            .map(|l| format!("src/{}:{} {} ({} lines)", l.file, l.line, l.name, l.lines))
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn circles_of_files_inside_a_folder_do_not_grow() {
    let found = circles::circles(&src_files(&src_dir()));
    println!("{} circles of files inside one folder", found.len());
    for c in &found {
        println!("  circle: {c}");
    }
    assert!(
        found.len() <= MOST_CIRCLES,
        "{} circles of files inside one folder, more than the {MOST_CIRCLES} allowed (tests/architecture/main.rs MOST_CIRCLES):\n  {}",
        found.len(),
        found.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn architecture_md_names_every_layer_in_order() {
    let md = std::fs::read_to_string(
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
            .join("ARCHITECTURE.md"),
    )
    .unwrap();
    let positions: Vec<Option<usize>> = LAYERS.iter().map(|l| md.find(&format!("src/{l}/"))).collect();
    for (l, p) in LAYERS.iter().zip(&positions) {
        assert!(p.is_some(), "ARCHITECTURE.md does not name src/{l}/");
    }
    let p: Vec<usize> = positions.into_iter().flatten().collect();
    assert!(
        p.windows(2).all(|w| w[0] < w[1]),
        "ARCHITECTURE.md lists the layers in another order than LAYERS"
    );
}

/// The reading of a small made-up tree, to show the checks fail where they should.
fn reading_of(files: &[(&str, &str)]) -> Reading {
    let files: Vec<(PathBuf, String)> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
    read(&files)
}

#[test]
fn a_wrong_import_is_caught_in_every_spelling() {
    for wrong in [
        "use crate::report::Format;",
        "use crate::{base::Failure, report::Format};",
        "use crate::{\n    report::{self, Format},\n    base,\n};",
        "fn f() -> crate::report::Format { todo!() }",
        "pub(crate) use crate::report as r;",
    ] {
        let r = reading_of(&[
            ("model/record.rs", wrong),
            ("report/mod.rs", "pub enum Format {}"),
            ("base/mod.rs", ""),
        ]);
        let v = violations(&r);
        assert!(
            v.iter()
                .any(|l| l == "model/record.rs: imports report, a layer above model"),
            "{wrong:?} not caught: {v:?}"
        );
    }
    // Comments, strings and doc links are not imports.
    let r = reading_of(&[
        ("model/record.rs", "// use crate::report;\n/// see [`crate::report`]\nconst S: &str = \"crate::report::x\";\nconst R: &str = r#\"crate::report\"#;\n/* crate::report */"),
        ("report/mod.rs", ""),
    ]);
    assert!(violations(&r).is_empty(), "{:?}", r.imports);
}

#[test]
fn climbing_out_with_super_and_exported_macros_are_imports() {
    let r = reading_of(&[
        ("model/mod.rs", "use super::report::Format;"),
        ("report/mod.rs", "#[macro_export]\nmacro_rules! say { () => {} }"),
        ("sys/clock.rs", "fn f() { crate::say!(); }"),
        ("sys/other.rs", "use super::clock;"),
    ]);
    let v = violations(&r);
    assert!(
        v.contains(&"model/mod.rs: imports report, a layer above model".to_string()),
        "{v:?}"
    );
    assert!(
        v.contains(&"sys/clock.rs: imports report, a layer above sys".to_string()),
        "{v:?}"
    );
    assert!(
        !v.iter().any(|l| l.starts_with("sys/other.rs")),
        "super:: inside a folder stays in it: {v:?}"
    );
}

#[test]
fn folders_importing_each_other_and_unknown_folders_are_caught() {
    let r = reading_of(&[
        ("store/mod.rs", "use crate::durability::verify::Cell;"),
        ("durability/advise.rs", "use crate::store::VerifiedBuild;"),
        ("misc/x.rs", "use crate::base::Failure;"),
        ("base/mod.rs", ""),
    ]);
    let v = violations(&r);
    assert!(
        v.contains(&"durability/advise.rs: imports store, a layer above durability".to_string()),
        "{v:?}"
    );
    assert!(
        v.contains(&"durability and store import each other".to_string()),
        "{v:?}"
    );
    assert!(v.iter().any(|l| l.starts_with("src/misc: not a layer")), "{v:?}");
    assert_eq!(r.cycles(), vec![vec!["durability".to_string(), "store".to_string()]]);
}

/// Measures another tree (an older checkout) with the same reader: `ARCH_SRC=DIR` and
/// `ARCH_ASSIGN=unit=layer,...` placing its top-level modules on the layers. Prints the counts.
#[test]
#[ignore = "a measurement, run by hand: ARCH_SRC=/path/to/old/src ARCH_ASSIGN=result=model,... cargo test --test architecture -- --ignored --nocapture"]
fn measure_another_tree() {
    let src = PathBuf::from(std::env::var("ARCH_SRC").expect("ARCH_SRC: the src/ directory to read"));
    let assign: BTreeMap<String, String> = std::env::var("ARCH_ASSIGN")
        .unwrap_or_default()
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let files = src_files(&src);
    for c in circles::circles(&files) {
        println!("  circle of files: {c}");
    }
    for l in functions::longer_than(&files, MOST_LINES) {
        println!(
            "  function over {MOST_LINES} lines: src/{}:{} {} ({} lines)",
            l.file, l.line, l.name, l.lines
        );
    }
    let mut reading = read(&files);
    let place = |u: &String| assign.get(u).cloned().unwrap_or_else(|| u.clone());
    for i in &mut reading.imports {
        i.from = place(&i.from);
        i.to = place(&i.to);
    }
    reading.imports.retain(|i| i.from != i.to);
    reading.files = reading.files.iter().fold(BTreeMap::new(), |mut m, (u, n)| {
        *m.entry(place(u)).or_default() += n;
        m
    });
    println!("{}", summary(&reading, &layer_rank));
    for c in reading.cycles() {
        println!("  cycle: {}", c.join(", "));
    }
    for v in violations(&reading) {
        println!("  {v}");
    }
}

/// Issue 48: inside `model/`, `bench/` and `bench/plan/` imports run one way (no circle of
/// files), so a module can be read, and moved, with only what is below it.
#[test]
fn the_files_of_model_and_bench_import_each_other_one_way() {
    let files = src_files(&src_dir());
    let held = ["model", "bench", "bench/plan"];
    for folder in held {
        let children = circles::children(&files, folder);
        assert!(children >= 4, "src/{folder}: not read ({children} files or folders)");
    }
    let found: Vec<String> = circles::circles(&files)
        .into_iter()
        .filter(|c| held.iter().any(|f| c.folder == *f))
        .map(|c| c.to_string())
        .collect();
    assert!(
        found.is_empty(),
        "files that import each other, round a circle:\n  {}",
        found.join("\n  ")
    );
}

/// Nothing after the plan reads `RunArgs` (`bench::plan`'s rule): below the commands (`app`,
/// `reproduce`) only `bench/settings.rs`, which defines it, and `bench/plan/`, which turns it
/// into the plan, name it. The session, the instruction re-run and the guest take a `Plan`.
#[test]
fn nothing_after_the_plan_reads_run_args() {
    let readers: Vec<String> = src_files(&src_dir())
        .iter()
        .filter(|(rel, text)| {
            let r = rel.to_string_lossy();
            let allowed = ["app/", "reproduce/", "bench/settings.rs", "bench/plan/"];
            !allowed.iter().any(|a| r.starts_with(a))
                && code_only(text)
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(|w| w == "RunArgs")
        })
        .map(|(rel, _)| format!("src/{}", rel.display()))
        .collect();
    assert!(
        readers.is_empty(),
        "read RunArgs after the plan (take the Plan instead): {}",
        readers.join(", ")
    );
}
