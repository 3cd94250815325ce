//! `litebench build-sqlite`: compile a SQLite amalgamation into the cache and print what it
//! cost, or list the cached builds side by side (`--list`: VLDB'22 Table 3's footprint, -Os
//! against -O3).
//!
//! Every number printed is measured by the compile that made the build and read back from its
//! record; a cached build prints the figures of the compile that made it, and says so.

use crate::app::cli::BuildSqliteArgs;
use crate::base::Failure;
use crate::engines::sqlite::compiled::cache::valid_name;
use crate::engines::sqlite::compiled::compiler::{self, OptLevel};
use crate::engines::sqlite::compiled::{source, BuildCache, CompiledBuild};
use crate::report::format::{render, Document};
use crate::report::Format;

/// Builds, or lists.
pub fn run(args: &BuildSqliteArgs) -> Result<i32, Failure> {
    let cache = BuildCache::from_env()?;
    if args.list {
        if args.src.is_some() {
            return Err(Failure(
                "--list takes no SRC; run `litebench build-sqlite --list` alone".into(),
            ));
        }
        let listing = cache
            .listing()
            .map_err(|e| Failure(format!("build-sqlite --list: {e}")))?;
        for line in &listing.skipped {
            crate::errln!("skipped {line}");
        }
        print_list(&listing.builds, args.format.value);
        return Ok(0);
    }
    let Some(src) = args.src.as_deref() else {
        return Err(Failure(
            "build-sqlite: missing SRC; give a sqlite3.c, a directory or .zip holding one, or a release such as 3.37.2, libsql@0.10.0 (or --list)".into(),
        ));
    };
    let level = OptLevel::parse(&args.opt)?;
    if let Some(name) = &args.name {
        valid_name(name)?;
    }
    let cflags: Vec<String> = args
        .cflags
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    // Before anything in the cache is read or compiled: root compiles and loads what is there.
    cache.check().map_err(|e| Failure(format!("build-sqlite: {e}")))?;
    let amalgamation = source::resolve(src, &cache.sources_dir())?;
    let announce = |flags: &[String]| {
        if args.format.value != Format::Json {
            crate::errln!(
                "compiling {} from {} with {} (a minute or so)",
                match source::declared(&amalgamation.bytes, "LIBSQL_VERSION") {
                    Some(l) => format!("libSQL {l} (SQLite {})", amalgamation.version),
                    None => format!("SQLite {}", amalgamation.version),
                },
                amalgamation.path.display(),
                flags.join(" ")
            );
        }
    };
    let built = cache.build(&amalgamation, level, &cflags, args.name.as_deref(), &announce)?;
    let b = &built.build;
    let mut v = serde_json::to_value(b).expect("json");
    v["cached"] = serde_json::Value::Bool(built.cached);
    let status = if built.cached {
        format!("cached (compiled {}; nothing compiled now)", b.built_at)
    } else {
        "compiled now".to_string()
    };
    let rows: Vec<Vec<String>> = [
        ("name", format!("{} (--engine sqlite@{})", b.name, b.name)),
        ("SQLite version", b.version.clone()),
        (
            "libSQL version",
            b.libsql_version.clone().unwrap_or_else(|| "- (SQLite's own)".into()),
        ),
        ("status", status),
        ("compile time", format!("{:.1} s", b.compile_ms as f64 / 1000.0)),
        (
            "peak compile memory",
            format!("{:.0} MiB", b.peak_compile_kib as f64 / 1024.0),
        ),
        (
            "library size",
            format!("{:.0} KiB ({} bytes)", b.library_bytes as f64 / 1024.0, b.library_bytes),
        ),
        (
            ".text",
            text_kib(b.text_bytes).map_or("-".into(), |k| format!("{k} KiB")),
        ),
        ("compiler", format!("{} ({})", b.compiler, b.compiler_version)),
        ("flags", b.flags.join(" ")),
        ("source", b.source.clone()),
        ("source SHA-256", b.source_sha256.clone()),
        (
            "from",
            match (&b.origin, b.pristine) {
                (Some(o), Some(true)) => format!("{o} (pristine)"),
                (Some(o), _) => format!("{o} (modified: the package's own amalgamation)"),
                _ => "- (the file given)".into(),
            },
        ),
        ("library", b.library.display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| vec![k.to_string(), v])
    .collect();
    let doc = Document::new(&v).table("build", &["", "build"], rows);
    crate::out!("{}", render(&doc, args.format.value));
    Ok(0)
}

/// The footprint table: one row per cached build, DuckDB's row (its default release's
/// library, as fetched into the cache: nothing of DuckDB is compiled, so no compile figures),
/// and Turso's (compiled into litebench itself).
pub fn footprint_rows(builds: &[CompiledBuild]) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = builds
        .iter()
        .map(|b| {
            let opt = b
                .flags
                .iter()
                .rev()
                .find(|f| f.starts_with("-O"))
                .cloned()
                .unwrap_or_else(|| "-".into());
            let extra: Vec<&str> = b
                .flags
                .iter()
                .map(String::as_str)
                .filter(|f| {
                    !["-shared", "-fPIC", "-lpthread", "-ldl", "-lm"].contains(f)
                        && !compiler::PLATFORM_DEFINES.contains(f)
                        && !f.starts_with("-O")
                })
                .collect();
            vec![
                format!("sqlite@{}", b.name),
                b.version.clone(),
                opt,
                if extra.is_empty() { "-".into() } else { extra.join(" ") },
                format!("{:.1}", b.compile_ms as f64 / 1000.0),
                format!("{:.0}", b.peak_compile_kib as f64 / 1024.0),
                format!("{:.0}", b.library_bytes as f64 / 1024.0),
                text_kib(b.text_bytes).unwrap_or_else(|| "-".into()),
                b.compiler_version.clone(),
            ]
        })
        .collect();
    let release = crate::engines::duckdb::release::DEFAULT;
    let mut duck = vec![format!("duckdb@{release}"), release.to_string(), "-".into(), "-".into()];
    let nothing = "not measured (nothing compiled)".to_string();
    match crate::engines::duckdb::default_library() {
        Some((lib, bytes)) => duck.extend([
            nothing.clone(),
            nothing,
            format!("{:.0} (libduckdb.so)", bytes as f64 / 1024.0),
            text_kib(crate::sys::elf::text_size(&lib).ok()).unwrap_or_else(|| "-".into()),
            "DuckDB's release build (npm)".into(),
        ]),
        None => duck.extend([
            nothing.clone(),
            nothing,
            "not fetched (run --engine duckdb once)".into(),
            "-".into(),
            "DuckDB's release build (npm)".into(),
        ]),
    }
    rows.push(duck);
    // Turso is compiled into litebench by cargo: its compile time and size are part of
    // litebench's own build, measured once and stated in docs/turso.md, not per machine.
    let turso = crate::engines::turso::VERSION;
    rows.push(vec![
        "turso".into(),
        turso.to_string(),
        "-O3".into(),
        "-".into(),
        "part of litebench's build (docs/turso.md)".into(),
        "part of litebench's build".into(),
        "part of litebench's binary".into(),
        "part of litebench's binary".into(),
        format!("rustc, crate turso_core {turso} (crates.io)"),
    ]);
    rows
}

pub const FOOTPRINT_HEADERS: &[&str] = &[
    "build",
    "version",
    "opt",
    "extra flags",
    "compile s",
    "peak compile MiB",
    "size KiB",
    ".text KiB",
    "compiler",
];

/// A `.text` size in KiB as the footprint table prints it (`None`: not known).
fn text_kib(bytes: Option<u64>) -> Option<String> {
    bytes.map(|b| format!("{:.0}", b as f64 / 1024.0))
}

fn print_list(builds: &[CompiledBuild], format: Format) {
    let mut doc = Document::new(builds);
    if builds.is_empty() {
        doc = doc.text("no cached SQLite builds (make one with `litebench build-sqlite SRC`)\n");
    }
    let doc = doc.table("builds", FOOTPRINT_HEADERS, footprint_rows(builds));
    crate::out!("{}", render(&doc, format));
}

#[cfg(test)]
mod duckdb_footprint_tests {
    /// DuckDB's row claims no compile (there is none) and gives the cached library's size when
    /// the default release has been fetched.
    #[test]
    fn duckdbs_row_is_its_fetched_library() {
        let name = format!("duckdb@{}", crate::engines::duckdb::release::DEFAULT);
        let row = super::footprint_rows(&[]).into_iter().find(|r| r[0] == name).unwrap();
        assert!(row[4].starts_with("not measured"), "{row:?}");
        match crate::engines::duckdb::default_library() {
            Some(_) => assert!(row[6].contains("libduckdb.so"), "{row:?}"),
            None => assert!(row[6].starts_with("not fetched"), "{row:?}"),
        }
    }

    /// Turso's row names the pinned crate and claims no compile of its own: it is compiled
    /// with litebench.
    #[test]
    fn tursos_row_is_the_pinned_crate() {
        let row = super::footprint_rows(&[]).pop().unwrap();
        assert_eq!(row[0], "turso");
        assert_eq!(row[1], crate::engines::turso::VERSION);
        assert!(row[4].starts_with("part of litebench"), "{row:?}");
        assert!(row[8].contains("turso_core"), "{row:?}");
    }
}
