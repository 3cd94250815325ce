//! The engines litebench can run: one list of descriptors ([`EngineKind`]), and `--engine`
//! values parsed against it.
//!
//! Knob tables are known from the descriptor alone, so every `--knob` is validated before any
//! library is loaded or server started.

use super::kind::EngineKind;
use super::Engine;
use crate::base::Failure;
use crate::model::knob::KnobSpec;
use crate::sys::scratch::Scratch;

/// Every engine kind, in the order `list` shows them. Adding an engine: one line here.
pub fn kinds() -> &'static [&'static EngineKind] {
    static KINDS: [&EngineKind; 6] = [
        &super::sqlite::KIND,
        &super::postgres::KIND,
        &super::mysql::KIND,
        &super::duckdb::KIND,
        &super::turso::KIND,
        &super::files::KIND,
    ];
    &KINDS
}

/// The descriptor of a kind by its stored name (`sqlite`, `postgres`, ...).
pub fn kind(name: &str) -> Option<&'static EngineKind> {
    kinds().iter().copied().find(|k| k.name == name)
}

/// Every engine kind's knob table and pass-through prefix, for `litebench list`.
pub fn knob_tables() -> Vec<(&'static str, &'static [KnobSpec], &'static str)> {
    kinds().iter().map(|k| (k.name, k.knobs, k.passthrough)).collect()
}

/// Every engine spelling, with how to use it (for `list` and errors).
pub fn spellings() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for k in kinds() {
        let about = k.about;
        match k.target {
            Some(t) => {
                v.push((k.name.to_string(), format!("{}: {about}", t.without)));
                v.push((
                    format!("{}{}<{}>", k.name, t.separator, t.what),
                    format!("e.g. {}", t.example),
                ));
            }
            None => v.push((k.name.to_string(), about.to_string())),
        }
        if std::ptr::eq(*k, &super::sqlite::KIND) {
            v.push((
                "sqlite@<name>".to_string(),
                "a library compiled by `litebench build-sqlite` (its name; see `litebench build-sqlite --list`), or SQLite releases from the package registries, fetched and compiled once: 3.45.1, 3.20..3.54, 3.8.x, all, each with an optional -Os/-O3 (see `litebench list sqlite-releases`, docs/history.md)".to_string(),
            ));
        }
        if std::ptr::eq(*k, &super::duckdb::KIND) {
            let pinned: Vec<&str> = super::duckdb::release::RELEASES.iter().map(|r| r.version).collect();
            v.push((
                "duckdb@<version>".to_string(),
                format!(
                    "a pinned DuckDB release, fetched once (npm; 2.0.0 from PyPI) into the cache ({}); see docs/duckdb.md",
                    pinned.join(", ")
                ),
            ));
        }
        for a in k.aliases {
            v.push((a.to_string(), format!("alias of {}", k.name)));
        }
    }
    v
}

fn valid() -> String {
    let names: Vec<String> = spellings().into_iter().map(|(n, _)| n).collect();
    format!("valid engines: {}", names.join(", "))
}

/// The `--engine` values with each range of SQLite releases (`sqlite@3.20..3.54`,
/// `sqlite@3.8.x`, `sqlite@all`, each with an optional `-Os`/`-O3`) written out as one
/// `sqlite@RELEASE` per release a registry holds, oldest first; with one line per range naming
/// the releases it leaves out because no registry holds them.
pub fn expand(specs: &[String]) -> Result<(Vec<String>, Vec<String>), Failure> {
    use super::sqlite::compiled::{selection, BuildCache};
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for spec in specs {
        let Some(text) = spec.strip_prefix("sqlite@") else {
            out.push(spec.clone());
            continue;
        };
        if !selection::is_several(text) {
            out.push(spec.clone());
            continue;
        }
        let cache = BuildCache::from_env()?;
        let Some(sel) = selection::parse(text, Some(&cache)) else {
            out.push(spec.clone());
            continue;
        };
        let sel = sel?;
        out.extend(sel.specs.iter().map(|r| format!("sqlite@{}", r.name())));
        if !sel.missing.is_empty() {
            let names: Vec<&str> = sel.missing.iter().map(|r| r.version).collect();
            notes.push(format!(
                "--engine {spec}: {} releases; no package registry holds {} more, left out: {}",
                sel.specs.len(),
                names.len(),
                names.join(", ")
            ));
        }
    }
    Ok((out, notes))
}

/// An `--engine` value, parsed: the kind and what followed its separator.
#[derive(Debug, Clone)]
pub struct EngineChoice {
    pub kind: &'static EngineKind,
    /// Library path or server URL.
    pub target: Option<String>,
}

impl PartialEq for EngineChoice {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.kind, other.kind) && self.target == other.target
    }
}

impl EngineChoice {
    /// The bundled SQLite: the default engine.
    pub fn default_engine() -> EngineChoice {
        EngineChoice {
            kind: &super::sqlite::KIND,
            target: None,
        }
    }

    /// Parses one `--engine` value.
    pub fn parse(s: &str) -> Result<EngineChoice, Failure> {
        // `sqlite@NAME`: a build from `litebench build-sqlite`, looked up now so that an unknown
        // name is refused before anything runs.
        if let Some(name) = s.strip_prefix("sqlite@") {
            let cache = super::sqlite::compiled::BuildCache::from_env()?;
            // A release from the catalogue: its build is found or made when the engine opens.
            if let Some(selection) = super::sqlite::compiled::selection::parse(name, Some(&cache)) {
                let [one] = selection?.specs[..] else {
                    return Err(Failure(format!(
                        "--engine {s}: several releases; name one release here (`run` and `history` take ranges)"
                    )));
                };
                return Ok(EngineChoice {
                    kind: &super::sqlite::KIND,
                    target: Some(format!("{}{}", super::sqlite::COMPILED_PREFIX, one.name())),
                });
            }
            let build = cache.find(name.trim())?;
            return Ok(EngineChoice {
                kind: &super::sqlite::KIND,
                target: Some(format!("{}{}", super::sqlite::COMPILED_PREFIX, build.name)),
            });
        }
        // `duckdb@VERSION`: a pinned release, checked now; fetched when the engine opens.
        if let Some(version) = s.strip_prefix("duckdb@") {
            let release = super::duckdb::release::find(version.trim())?;
            return Ok(EngineChoice {
                kind: &super::duckdb::KIND,
                target: Some(format!("{}{}", super::duckdb::RELEASE_PREFIX, release.version)),
            });
        }
        for k in kinds() {
            let Some(target) = k.matches(s) else { continue };
            if let (Some(t), Some(rest)) = (k.target, target) {
                if rest.starts_with(super::sqlite::COMPILED_PREFIX) && std::ptr::eq(*k, &super::sqlite::KIND) {
                    return Err(Failure(format!(
                        "--engine {s}: for a build from `litebench build-sqlite` write sqlite@NAME; for a library path starting with @ write sqlite:./{rest}"
                    )));
                }
                if rest.starts_with(super::duckdb::RELEASE_PREFIX) && std::ptr::eq(*k, &super::duckdb::KIND) {
                    return Err(Failure(format!(
                        "--engine {s}: for a pinned DuckDB release write duckdb@VERSION; for a library path starting with @ write duckdb:./{rest}"
                    )));
                }
                if rest.trim().is_empty() {
                    return Err(Failure(format!(
                        "--engine {s}: missing {}; e.g. {}, or `{}` alone for {}",
                        t.what, t.example, k.name, t.without
                    )));
                }
            }
            return Ok(EngineChoice {
                kind: k,
                target: target.map(|t| t.trim().to_string()),
            });
        }
        Err(Failure(format!("--engine {s}: unknown engine; {}", valid())))
    }

    /// The engine's knob table and pass-through prefix.
    pub fn knob_table(&self) -> (&'static [KnobSpec], &'static str) {
        (self.kind.knobs, self.kind.passthrough)
    }

    /// Loads the library or starts the server (servers keep their data under `scratch`).
    pub fn open(&self, scratch: &Scratch, memory: bool) -> Result<Box<dyn Engine>, Failure> {
        (self.kind.open)(self.target.as_deref(), scratch, memory)
    }

    /// Whether it can run on in-memory databases (`--memory`).
    pub fn supports_memory(&self) -> bool {
        self.kind.in_memory
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_and_targets() {
        let c = EngineChoice::parse("sqlite").unwrap();
        assert_eq!((c.kind.name, c.target), ("sqlite", None));
        let c = EngineChoice::parse("sqlite:/x/lib.so").unwrap();
        assert_eq!(c.target.as_deref(), Some("/x/lib.so"));
        assert_eq!(EngineChoice::parse("mariadb").unwrap().kind.name, "mysql");
        let c = EngineChoice::parse("mariadb=mysql://root@127.0.0.1:3306/").unwrap();
        assert_eq!(c.kind.name, "mysql");
        assert!(EngineChoice::parse("postgres=")
            .unwrap_err()
            .0
            .contains("missing server URL"));
        assert!(EngineChoice::parse("sqlite:")
            .unwrap_err()
            .0
            .contains("missing library path"));
        let e = EngineChoice::parse("oracle").unwrap_err().0;
        assert!(
            e.contains("unknown engine") && e.contains("sqlite:<library path>"),
            "{e}"
        );
        // `sqlite:@...` would read as a cached build's name or as a path: refused, with both
        // spellings.
        let e = EngineChoice::parse("sqlite:@fast").unwrap_err().0;
        assert!(e.contains("write sqlite@NAME") && e.contains("sqlite:./@fast"), "{e}");
        let c = EngineChoice::parse("duckdb@1.4.0").unwrap();
        assert_eq!((c.kind.name, c.target.as_deref()), ("duckdb", Some("@1.4.0")));
        let c = EngineChoice::parse("duckdb:/x/libduckdb.so").unwrap();
        assert_eq!(c.target.as_deref(), Some("/x/libduckdb.so"));
        let e = EngineChoice::parse("duckdb@0.1").unwrap_err().0;
        assert!(
            e.starts_with("--engine duckdb@0.1: no such pinned DuckDB release"),
            "{e}"
        );
        let e = EngineChoice::parse("duckdb:@1.4.0").unwrap_err().0;
        assert!(e.contains("write duckdb@VERSION"), "{e}");
        // A name that merely starts like an engine is not that engine.
        assert!(EngineChoice::parse("sqlite3").is_err());
    }

    #[test]
    fn every_kind_is_described_once() {
        let mut names: Vec<&str> = kinds().iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), kinds().len());
        for k in kinds() {
            assert_eq!(kind(k.name).map(|x| x.name), Some(k.name));
            assert!(!k.about.is_empty());
        }
    }
}
