//! `litebench list`: workloads, engines and knobs with their valid values and defaults.

use super::build_sqlite::{footprint_rows, FOOTPRINT_HEADERS};
use crate::app::cli::{ListArgs, ListSection};
use crate::base::Failure;
use crate::engines::registry::knob_tables;
use crate::engines::registry::spellings;
use crate::engines::sqlite::compiled::{BuildCache, CompiledBuild};
use crate::model::params;
use crate::report::format::{render, Document};
use crate::workload;
use crate::workload::preset::{Preset, Setting, GROUPS, PRESETS};

/// The JSON keys of each section.
fn keys(section: ListSection) -> &'static [&'static str] {
    match section {
        ListSection::Workloads => &["workloads"],
        ListSection::Engines => &["engines", "sqlite_builds"],
        ListSection::Knobs => &["knobs"],
        ListSection::Presets => &["presets", "preset_groups"],
        ListSection::SqliteReleases => &["sqlite_releases"],
    }
}

/// Prints the lists: all of them, or the one section asked for (the whole list is hundreds of
/// lines; `list knobs` is what one looks up while writing `--knob`).
pub fn run(args: &ListArgs) -> Result<i32, Failure> {
    if args.section == Some(ListSection::SqliteReleases) {
        let builds = BuildCache::from_env().map(|c| c.list()).unwrap_or_default();
        crate::out!("{}", render(&sqlite_releases(&builds), args.format.value));
        return Ok(0);
    }
    let want = |s: ListSection| args.section.is_none_or(|a| a == s);
    // The cache is optional for `list`: without one (no HOME), there are simply no builds.
    let builds = BuildCache::from_env().map(|c| c.list()).unwrap_or_default();
    let v = serde_json::json!({
        "workloads": workload::kinds().map(|w| serde_json::json!({
            "name": w.name, "about": w.about, "source": w.source,
            "params": w.params.iter().map(|p| serde_json::json!({"name": p.name, "default": p.default, "valid": params::describe(p), "help": p.help})).collect::<Vec<_>>(),
            "operations": w.operations,
        })).collect::<Vec<_>>(),
        "engines": spellings().iter().map(|(n, h)| serde_json::json!({"name": n, "about": h})).collect::<Vec<_>>(),
        "knobs": knob_tables().iter().flat_map(|(engine, specs, _)| specs.iter().map(move |k| serde_json::json!({"engine": engine, "name": k.name, "valid": k.kind.describe(), "default": k.default, "stage": k.stage, "help": k.help}))).collect::<Vec<_>>(),
        "sqlite_builds": builds,
        "presets": PRESETS.iter().map(|p| preset_json(p)).collect::<Vec<_>>(),
        "preset_groups": GROUPS.iter().map(|g| serde_json::json!({
            "name": g.name, "about": g.about,
            "members": g.members.iter().map(|m| serde_json::json!({"preset": m.preset, "params": settings_json(m.params)})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let v = match (args.section, v) {
        (Some(section), serde_json::Value::Object(mut all)) => {
            serde_json::Value::Object(keys(section).iter().filter_map(|k| all.remove_entry(*k)).collect())
        }
        (_, v) => v,
    };
    let mut doc = Document::new(&v);
    if want(ListSection::Workloads) {
        doc = workloads(doc);
    }
    if want(ListSection::Engines) {
        doc = engines(doc, &builds);
    }
    if want(ListSection::Knobs) {
        doc = knobs(doc);
    }
    if want(ListSection::Presets) {
        doc = presets(doc);
    }
    crate::out!("{}", render(&doc, args.format.value));
    Ok(0)
}

fn workloads(mut doc: Document) -> Document {
    doc = doc.text("workloads\n\n");
    for w in workload::kinds() {
        let rows: Vec<Vec<String>> = w
            .params
            .iter()
            .map(|p| {
                vec![
                    p.name.to_string(),
                    p.default.to_string(),
                    params::describe(p),
                    p.help.to_string(),
                ]
            })
            .collect();
        doc = doc
            .text(format!("{} — {}\n  source: {}\n", w.name, w.about, w.source))
            .table(
                &format!("workload {}", w.name),
                &["param", "default", "valid", "meaning"],
                rows,
            )
            .text("\n");
    }
    doc
}

fn engines(doc: Document, builds: &[CompiledBuild]) -> Document {
    let rows: Vec<Vec<String>> = spellings().into_iter().map(|(n, h)| vec![n, h]).collect();
    doc.text("engines\n\n")
        .table("engines", &["engine", "what"], rows)
        .text("\n")
        .text("cached SQLite builds (--engine sqlite@NAME; make one with `litebench build-sqlite SRC`)\n\n")
        .table("sqlite builds", FOOTPRINT_HEADERS, footprint_rows(builds))
        .text("\n")
}

fn knobs(doc: Document) -> Document {
    let doc = doc.text("knobs (--knob NAME=V1,V2; a knob applies to the engines that have it; PREFIX.NAME=VALUE passes any other setting through)\n\n");
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (engine, specs, prefix) in knob_tables() {
        for k in specs {
            rows.push(vec![
                engine.to_string(),
                k.name.to_string(),
                k.kind.describe(),
                k.default.to_string(),
                k.help.to_string(),
            ]);
        }
        rows.push(vec![
            engine.to_string(),
            format!("{prefix}NAME"),
            "any".into(),
            "-".into(),
            "pass-through, read back when the engine can".into(),
        ]);
    }
    doc.table("knobs", &["engine", "knob", "valid values", "default", "meaning"], rows)
        .text("\n")
}

fn presets(mut doc: Document) -> Document {
    doc = doc.text("presets (--preset NAME: a tool's default configuration; --param and --knob override it)\n\n");
    for p in PRESETS {
        doc = doc.text(format!(
            "{} — {}\n  workload {}, compared on: {}\n",
            p.name, p.about, p.workload, p.headline
        ));
        let rows: Vec<Vec<String>> = p
            .params
            .iter()
            .map(|s| ("param", s))
            .chain(p.knobs.iter().map(|s| ("knob", s)))
            .map(|(kind, s)| {
                vec![
                    format!("  {kind}"),
                    format!("{}={}", s.name, s.value),
                    s.source.to_string(),
                ]
            })
            .collect();
        if !rows.is_empty() {
            doc = doc.table(&format!("preset {}", p.name), &["", "value", "source"], rows);
        }
        doc = doc.text("\n");
    }
    for g in GROUPS {
        let members: Vec<String> = g
            .members
            .iter()
            .map(|m| {
                let extra: Vec<String> = m.params.iter().map(|s| format!("{}={}", s.name, s.value)).collect();
                if extra.is_empty() {
                    m.preset.to_string()
                } else {
                    format!("{} ({})", m.preset, extra.join(" "))
                }
            })
            .collect();
        doc = doc.text(format!("{} — {}\n  presets: {}\n", g.name, g.about, members.join(", ")));
    }
    doc
}

fn settings_json(s: &[Setting]) -> Vec<serde_json::Value> {
    s.iter()
        .map(|s| serde_json::json!({"name": s.name, "value": s.value, "source": s.source}))
        .collect()
}

fn preset_json(p: &Preset) -> serde_json::Value {
    serde_json::json!({
        "name": p.name, "workload": p.workload, "about": p.about, "headline": p.headline,
        "params": settings_json(p.params), "knobs": settings_json(p.knobs),
    })
}

/// `list sqlite-releases`: one row per release, then the counts. Narrow enough for 80 columns.
fn sqlite_releases(builds: &[CompiledBuild]) -> Document {
    use crate::engines::sqlite::compiled::releases::{all, Pristine};
    let all = all();
    let cached = |v: &str| builds.iter().any(|b| b.version == v && b.libsql_version.is_none());
    let mut json = Vec::new();
    let mut rows = Vec::new();
    for r in all {
        let best = r.best();
        let state = best.map_or("none", |s| {
            if s.pristine == Pristine::Modified {
                "modified"
            } else {
                "pristine"
            }
        });
        let checked = match best {
            Some(s) if s.pristine != Pristine::Modified && r.sha3_256.is_some() => "sha3",
            Some(s) if s.pristine != Pristine::Modified && r.sha1.is_some() => "sha1",
            _ => "-",
        };
        let source = best.map_or_else(
            || "-".to_string(),
            |s| format!("{}@{}", s.package.rsplit('/').next().unwrap_or(s.package), s.version),
        );
        json.push(serde_json::json!({
            "version": r.version, "date": r.date, "registry": best.map(|s| s.registry.name()),
            "package": best.map(|s| s.package), "package_version": best.map(|s| s.version),
            "state": state, "published_checksum": r.published(), "checked": checked != "-",
            "sources": r.sources.len(), "cached": cached(r.version),
        }));
        rows.push(vec![
            r.version.to_string(),
            r.date.to_string(),
            source,
            state.to_string(),
            checked.to_string(),
            if cached(r.version) { "yes" } else { "-" }.to_string(),
        ]);
    }
    let held = all.iter().filter(|r| r.best().is_some()).count();
    let pristine = all
        .iter()
        .filter(|r| r.best().is_some_and(|s| s.pristine != Pristine::Modified))
        .count();
    let checked = all
        .iter()
        .filter(|r| r.published() && r.best().is_some_and(|s| s.pristine != Pristine::Modified))
        .count();
    let v = serde_json::json!({ "sqlite_releases": json });
    Document::new(&v)
        .table("sqlite releases", &["release", "date", "source", "state", "sum", "cached"], rows)
        .text(format!(
            "{} releases, {held} from the registries, {pristine} pristine ({checked} checked against SQLite's published checksum)\n",
            all.len()
        ))
}
