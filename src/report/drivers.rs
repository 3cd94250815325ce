//! The drivers a run went through (`--driver`), side by side: which SQLite each configuration
//! ran (a driver carries its own, compiled with its own options, which is not the one litebench
//! reports for its engine), each knob as the driver read it back, and what the binding sets by
//! itself (Python's implicit transactions and 5 s busy timeout, a statement cache), so that a
//! driver's slower number is never read as the cost of a setting litebench did not ask for.
//! The terminal, `--all` and the page show it as one table, under the numbers.

use crate::model::record::{ConfigInfo, Manifest};
use crate::workload::ReportSection;

/// Who set a setting: litebench, as a knob the driver then read back, or the binding by
/// itself.
const READ_BACK: &str = "knob";
const BY_ITSELF: &str = "binding";

/// The table, or none where no configuration ran through a driver process.
pub fn section(manifest: &Manifest) -> Option<ReportSection> {
    if manifest.configs.iter().all(|c| c.driver.is_none()) {
        return None;
    }
    let mut rows = Vec::new();
    for c in &manifest.configs {
        rows.extend(rows_of(manifest, c));
    }
    Some(ReportSection {
        title: "drivers: the SQLite each configuration ran; each knob as the driver read it back; what the binding sets by itself".into(),
        headers: vec!["#", "driver", "setting", "set by", "value"],
        rows,
        lead: false,
    })
}

/// One configuration's rows: its SQLite first, then its knobs and the binding's own settings.
fn rows_of(manifest: &Manifest, c: &ConfigInfo) -> Vec<Vec<String>> {
    let row = |name: &str, setting: &str, value: String, by: &str| {
        vec![
            c.index.to_string(),
            name.to_string(),
            setting.to_string(),
            by.to_string(),
            value,
        ]
    };
    let Some(d) = &c.driver else {
        let sqlite = manifest
            .engines
            .iter()
            .find(|e| e.label == c.engine)
            .and_then(|e| e.sqlite.as_ref())
            .map_or_else(
                || format!("{} (litebench's own loop)", c.engine),
                |b| {
                    format!(
                        "{} ({} compile options), litebench's own loop",
                        b.version,
                        b.compile_options.len()
                    )
                },
            );
        return vec![row("rust", "SQLite", sqlite, "-")];
    };
    let name = d.driver.as_str();
    let mut rows = vec![row(
        name,
        "SQLite",
        format!(
            "{} ({} compile options), through {} on {}",
            d.sqlite_version,
            d.compile_options.len(),
            d.library,
            d.runtime
        ),
        "-",
    )];
    for k in &d.knobs {
        rows.push(row(
            name,
            &k.name,
            k.value.clone().unwrap_or_else(|| "(nothing)".into()),
            READ_BACK,
        ));
    }
    for k in &d.implicit {
        rows.push(row(
            name,
            &k.name,
            k.value.clone().unwrap_or_else(|| "-".into()),
            BY_ITSELF,
        ));
    }
    rows
}

/// The SQLite each driver carried, for the reporting checklist: `python-sqlite3 (#1): SQLite
/// 3.40.1, 37 compile options`, one per driver and SQLite, in configuration order.
pub fn sqlite_builds(manifest: &Manifest) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &manifest.configs {
        let Some(d) = &c.driver else { continue };
        let line = format!(
            "{} through {}: SQLite {}, {} compile options",
            d.driver,
            d.library,
            d.sqlite_version,
            d.compile_options.len()
        );
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}
