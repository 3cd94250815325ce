//! The drivers a run went through (`--driver`), side by side: which SQLite each configuration
//! ran (a driver carries its own, compiled with its own options, which is not the one litebench
//! reports for its engine), each knob as the driver read it back, and what the binding sets by
//! itself (Python's implicit transactions and 5 s busy timeout, a statement cache), so that a
//! driver's slower number is never read as the cost of a setting litebench did not ask for.
//! The terminal, `--all` and the page show it as one table, under the numbers.

use crate::model::driver::RUST;
use crate::model::record::{ConfigInfo, Manifest};
use crate::workload::ReportSection;

/// Who set a setting: litebench, as a knob the driver then read back, or the binding by
/// itself.
const READ_BACK: &str = "knob";
const BY_ITSELF: &str = "binding";

/// The table, or none where no configuration ran through a driver process. A row that holds
/// for several configurations is one row naming them (`all`: every configuration of its
/// driver), so that a run of sixteen configurations reads in a screen.
pub fn section(manifest: &Manifest) -> Option<ReportSection> {
    if manifest.configs.iter().all(|c| c.driver.is_none()) {
        return None;
    }
    // Each distinct (driver, setting, set by, value), in order of first appearance, with the
    // configurations it holds for.
    let mut rows: Vec<([String; 4], Vec<usize>)> = Vec::new();
    for c in &manifest.configs {
        for row in rows_of(manifest, c) {
            match rows.iter_mut().find(|(r, _)| *r == row) {
                Some((_, configs)) => configs.push(c.index),
                None => rows.push((row, vec![c.index])),
            }
        }
    }
    let of_driver = |name: &str| {
        manifest
            .configs
            .iter()
            .filter(|c| c.driver.as_ref().map_or(RUST, |d| d.driver.as_str()) == name)
            .count()
    };
    let rows = rows
        .into_iter()
        .map(|([driver, setting, by, value], configs)| {
            let which = match configs.len() == of_driver(&driver) && configs.len() > 1 {
                true => "all".to_string(),
                false => configs.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
            };
            vec![which, driver, setting, by, value]
        })
        .collect();
    Some(ReportSection {
        title: "drivers: the SQLite each configuration ran; each knob as the driver read it back; what the binding sets by itself (#: the configurations a row holds for; all: every one of its driver's)".into(),
        headers: vec!["#", "driver", "setting", "set by", "value"],
        rows,
        lead: false,
    })
}

/// One configuration's rows (driver, setting, set by, value): its SQLite first, then its knobs
/// and the binding's own settings.
fn rows_of(manifest: &Manifest, c: &ConfigInfo) -> Vec<[String; 4]> {
    let row = |name: &str, setting: &str, value: String, by: &str| {
        [name.to_string(), setting.to_string(), by.to_string(), value]
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
        return vec![row(RUST, "SQLite", sqlite, "-")];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::driver::{DriverInfo, NamedValue};

    fn named(name: &str, value: &str) -> NamedValue {
        NamedValue {
            name: name.into(),
            value: Some(value.into()),
        }
    }

    fn python(journal_mode: &str) -> DriverInfo {
        DriverInfo {
            driver: "python-sqlite3".into(),
            runtime: "CPython 3.11.7".into(),
            library: "sqlite3 (stdlib) 2.6.0".into(),
            sqlite_version: "3.40.1".into(),
            compile_options: vec!["THREADSAFE=1".into()],
            knobs: vec![named("journal_mode", journal_mode)],
            implicit: vec![named("timeout", "5.0 s")],
        }
    }

    #[test]
    fn a_row_that_holds_for_several_configurations_is_one_row_naming_them() {
        assert!(section(&crate::report::html::data::tests::manifest(&[&[]])).is_none());
        let mut m = crate::report::html::data::tests::manifest(&[&[], &[], &[], &[]]);
        m.configs[1].driver = Some(python("wal"));
        m.configs[2].driver = Some(python("delete"));
        m.configs[3].driver = Some(python("wal"));
        let s = section(&m).unwrap();
        let rows: Vec<String> = s.rows.iter().map(|r| r.join("|")).collect();
        assert_eq!(
            rows,
            [
                "0|rust|SQLite|-|sqlite (litebench's own loop)",
                "all|python-sqlite3|SQLite|-|3.40.1 (1 compile options), through sqlite3 (stdlib) 2.6.0 on CPython 3.11.7",
                "1,3|python-sqlite3|journal_mode|knob|wal",
                "all|python-sqlite3|timeout|binding|5.0 s",
                "2|python-sqlite3|journal_mode|knob|delete",
            ]
        );
        assert_eq!(
            sqlite_builds(&m),
            ["python-sqlite3 through sqlite3 (stdlib) 2.6.0: SQLite 3.40.1, 1 compile options"]
        );
    }
}
