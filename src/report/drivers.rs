//! The drivers a run went through (`--driver`), side by side: which SQLite each configuration
//! ran (a driver carries its own, compiled with its own options, which is not the one litebench
//! reports for its engine), each knob as the driver read it back, and what the binding sets by
//! itself (Python's implicit transactions and 5 s busy timeout, a statement cache), so that a
//! driver's slower number is never read as the cost of a setting litebench did not ask for.
//! The terminal, `--all` and the page show it as one table, under the numbers.

use crate::model::driver::{DriverInfo, RUST};
use crate::model::record::{ConfigInfo, Manifest};
use crate::workload::ReportSection;

/// Who set a setting: litebench, as a knob the driver then read back, or the binding by
/// itself.
const READ_BACK: &str = "knob";
const BY_ITSELF: &str = "binding";

/// A setting no knob asked for, at the default its SQLite was compiled with.
const BY_BUILD: &str = "build";

/// The `synchronous` a configuration's connections ran at where no knob set it: the default
/// its SQLite was compiled with (`SQLITE_DEFAULT_WAL_SYNCHRONOUS` in WAL, else
/// `SQLITE_DEFAULT_SYNCHRONOUS`, else SQLite's own FULL), and the option that set it. Drivers
/// differ here (better-sqlite3, go-mattn and ncruces build theirs at NORMAL in WAL), so a run
/// that left the knob out compared durability levels no one chose.
fn build_synchronous(c: &ConfigInfo, compile_options: &[String]) -> Option<(&'static str, String)> {
    if c.knobs.get("synchronous").is_some() {
        return None;
    }
    let wal = c
        .knobs
        .get("journal_mode")
        .is_some_and(|j| j.eq_ignore_ascii_case("wal"));
    let option = |name: &str| {
        compile_options
            .iter()
            .find_map(|o| o.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
            .map(|v| (v.to_string(), format!("SQLITE_{name}={v}")))
    };
    let (level, why) = wal
        .then(|| option("DEFAULT_WAL_SYNCHRONOUS"))
        .flatten()
        .or_else(|| option("DEFAULT_SYNCHRONOUS"))
        .unwrap_or_else(|| ("2".into(), "SQLite's own default".into()));
    let name = match level.as_str() {
        "0" => "off",
        "1" => "normal",
        "2" => "full",
        "3" => "extra",
        _ => return None,
    };
    let mode = if wal { "in WAL" } else { "outside WAL" };
    Some((
        name,
        format!("{name} ({level}): {why}, {mode}; no knob asked (--knob synchronous= sets it)"),
    ))
}

/// [`build_synchronous`] of the SQLite that ran configuration `c`'s own transactions: its
/// driver's, else its engine's.
fn own_synchronous(manifest: &Manifest, c: &ConfigInfo) -> Option<(&'static str, String)> {
    match &c.driver {
        Some(d) => driver_synchronous(c, d),
        None => build_synchronous(c, &engine_build(manifest, c)?.compile_options),
    }
}

/// [`build_synchronous`] of driver `d`'s SQLite; none for a driver that names no compile
/// options (a no-op driver, with no SQLite), which has no build default.
fn driver_synchronous(c: &ConfigInfo, d: &DriverInfo) -> Option<(&'static str, String)> {
    (!d.compile_options.is_empty())
        .then(|| build_synchronous(c, &d.compile_options))
        .flatten()
}

/// The SQLite build of configuration `c`'s engine (litebench's own loop), where it has one.
fn engine_build<'m>(manifest: &'m Manifest, c: &ConfigInfo) -> Option<&'m crate::model::engine_info::SqliteBuild> {
    manifest
        .engines
        .iter()
        .find(|e| e.label == c.engine)
        .and_then(|e| e.sqlite.as_ref())
}

/// Setting `name` as configuration `c`'s driver process ran it, where one ran it: the knob as the
/// driver read it back, or for `synchronous` that no knob set, its SQLite's compiled default
/// (a driver's build may differ from litebench's, whose connection the trial record read).
/// `None` for litebench's own loop, and where the driver says nothing of it.
pub fn effective(manifest: &Manifest, c: &ConfigInfo, name: &str) -> Option<String> {
    let d = c.driver.as_ref()?;
    if let Some(v) = d.knobs.iter().find(|k| k.name == name).and_then(|k| k.value.as_deref()) {
        return Some(read_as_sqlite(name, v));
    }
    (name == "synchronous")
        .then(|| own_synchronous(manifest, c))
        .flatten()
        .map(|(level, _)| format!("{level} ({} build default)", d.driver))
}

/// Knob `name`'s value `v` as a driver read it back, in the words SQLite's knob table reads it
/// back in (apsw and the Go drivers pass `synchronous` on as 2, Python's as `full`).
fn read_as_sqlite(name: &str, v: &str) -> String {
    let spec = crate::model::knob::find_spec(crate::engines::sqlite::knobs::SQLITE_KNOBS, name);
    spec.map_or(v.to_string(), |s| s.kind.readback(v))
}

/// A warning where the configurations of a run through drivers ran at different `synchronous`
/// levels that no knob set (each its build's default): the faster one may only have synced less.
pub fn warnings(manifest: &Manifest) -> Vec<String> {
    let mut out = roles_apart(manifest);
    if manifest.configs.iter().all(|c| c.driver.is_none()) {
        return out;
    }
    let levels: Vec<(usize, &str)> = manifest
        .configs
        .iter()
        .filter_map(|c| Some((c.index, own_synchronous(manifest, c)?.0)))
        .collect();
    let Some((_, first)) = levels.first() else {
        return out;
    };
    if levels.iter().all(|(_, l)| l == first) {
        return out;
    }
    let mut by: Vec<(&str, Vec<String>)> = Vec::new();
    for (i, l) in &levels {
        match by.iter_mut().find(|(level, _)| level == l) {
            Some((_, list)) => list.push(format!("#{i}")),
            None => by.push((l, vec![format!("#{i}")])),
        }
    }
    let said: Vec<String> = by
        .iter()
        .map(|(l, list)| format!("{} at {l}", list.join(", ")))
        .collect();
    out.push(format!(
        "no knob set synchronous, and the SQLite builds differ in its default: {} (the drivers table names the compile option); a faster one may only sync less: add --knob synchronous=full (or normal) to compare like with like",
        said.join("; ")
    ));
    out
}

/// A warning per configuration of a cast whose roles through drivers ran at another
/// `synchronous` than its own connections, each at its build's default: a writer role through
/// better-sqlite3 commits at NORMAL in WAL beside litebench's FULL, which the checklist's
/// synchronous mode (its own connections') does not say.
fn roles_apart(manifest: &Manifest) -> Vec<String> {
    let mut out = Vec::new();
    for c in manifest.configs.iter().filter(|c| !c.role_drivers.is_empty()) {
        let Some((own, _)) = own_synchronous(manifest, c) else {
            continue;
        };
        let apart: Vec<String> = c
            .role_drivers
            .iter()
            .filter_map(|r| {
                let (level, _) = driver_synchronous(c, &r.info)?;
                (level != own).then(|| format!("role {} ({}) at {level}", r.role, r.info.driver))
            })
            .collect();
        if !apart.is_empty() {
            out.push(format!(
                "#{}: no knob set synchronous, and {} ran at its build's default, beside this configuration's own connections at {own}; add --knob synchronous=full (or normal) to have every role commit alike",
                c.index,
                apart.join(", ")
            ));
        }
    }
    out
}

/// The table, or none where no configuration ran through a driver process. A row that holds
/// for several configurations is one row naming them (`all`: every configuration of its
/// driver), so that a run of sixteen configurations reads in a screen.
pub fn section(manifest: &Manifest) -> Option<ReportSection> {
    if !through_drivers(manifest) {
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
            .filter(|c| ran(manifest, c).iter().any(|(label, _)| label == name))
            .count()
    };
    let rows = rows
        .into_iter()
        .map(|([driver, setting, by, value], configs)| {
            let which = match configs.len() == of_driver(&driver) && configs.len() > 1 {
                true => "all".to_string(),
                false => configs.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
            };
            // Who set it rides on the setting's name, so that the table fits 80 columns.
            let setting = match by.as_str() {
                READ_BACK | "-" => setting,
                _ => format!("{setting} [{by}]"),
            };
            vec![which, driver, setting, value]
        })
        .collect();
    Some(ReportSection {
        title: "drivers: the SQLite each configuration ran, each knob as the driver read it back, [binding]: what the binding sets by itself, [build]: its SQLite's compiled default (#: the configurations a row holds for; all: every one of its driver's)".into(),
        headers: vec!["#", "driver", "setting", "value"],
        rows,
        lead: false,
    })
}

/// Whether any configuration, or any role of a cast, ran through a driver process.
fn through_drivers(manifest: &Manifest) -> bool {
    manifest
        .configs
        .iter()
        .any(|c| c.driver.is_some() || !c.role_drivers.is_empty())
}

/// What ran configuration `c`'s transactions, each named as its rows name it: its driver (or
/// litebench's own loop); in a cast with roles through drivers, each such role's (`writer:
/// python-sqlite3`), and litebench's own loop where a workload role ran in it.
fn ran<'m>(manifest: &'m Manifest, c: &'m ConfigInfo) -> Vec<(String, Option<&'m DriverInfo>)> {
    let own = || {
        (
            c.driver.as_ref().map_or(RUST, |d| d.driver.as_str()).to_string(),
            c.driver.as_ref(),
        )
    };
    if c.role_drivers.is_empty() {
        return vec![own()];
    }
    let mut out = Vec::new();
    let roles = manifest.load.cast.as_ref();
    let in_own_loop = roles.is_some_and(|cast| {
        cast.workload_roles()
            .any(|r| !c.role_drivers.iter().any(|d| d.role == r.name))
    });
    if in_own_loop {
        out.push((RUST.to_string(), None));
    }
    // Roles whose drivers said the same of themselves share their rows (`producers, workers:
    // python-sqlite3`), and where every workload role of the cast is among them, the driver
    // alone names them: the table says each setting once, not once per role.
    let mut groups: Vec<(Vec<&str>, &DriverInfo)> = Vec::new();
    for d in &c.role_drivers {
        match groups.iter_mut().find(|(_, info)| **info == d.info) {
            Some((roles, _)) => roles.push(d.role.as_str()),
            None => groups.push((vec![d.role.as_str()], &d.info)),
        }
    }
    for (roles, info) in groups {
        let label = if !in_own_loop && roles.len() == c.role_drivers.len() {
            info.driver.clone()
        } else {
            format!("{}: {}", roles.join(", "), info.driver)
        };
        out.push((label, Some(info)));
    }
    out
}

/// One configuration's rows (driver, setting, set by, value), for each driver that ran it
/// ([`ran`]): its SQLite first, then its knobs and the binding's own settings.
fn rows_of(manifest: &Manifest, c: &ConfigInfo) -> Vec<[String; 4]> {
    ran(manifest, c)
        .into_iter()
        .flat_map(|(name, d)| rows_through(manifest, c, &name, d))
        .collect()
}

fn rows_through(manifest: &Manifest, c: &ConfigInfo, name: &str, d: Option<&DriverInfo>) -> Vec<[String; 4]> {
    let row = |name: &str, setting: &str, value: String, by: &str| {
        [name.to_string(), setting.to_string(), by.to_string(), value]
    };
    let Some(d) = d else {
        let sqlite = engine_build(manifest, c).map_or_else(
            || format!("{} (litebench's own loop)", c.engine),
            |b| {
                format!(
                    "{} ({} compile options), litebench's own loop",
                    b.version,
                    b.compile_options.len()
                )
            },
        );
        let mut rows = vec![row(RUST, "SQLite", sqlite, "-")];
        let options = engine_build(manifest, c).map(|b| b.compile_options.as_slice());
        if let Some((_, why)) = options.and_then(|o| build_synchronous(c, o)) {
            rows.push(row(RUST, "synchronous", why, BY_BUILD));
        }
        return rows;
    };
    let mut rows = vec![row(name, "SQLite", sqlite_words(d), "-")];
    for k in &d.knobs {
        rows.push(row(
            name,
            &k.name,
            k.value
                .as_deref()
                .map_or_else(|| "(nothing)".into(), |v| read_as_sqlite(&k.name, v)),
            READ_BACK,
        ));
    }
    if let Some((_, why)) = driver_synchronous(c, d) {
        rows.push(row(name, "synchronous", why, BY_BUILD));
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

/// The SQLite driver `d` carried and what ran it: `3.40.1 (58 compile options), through sqlite3
/// (stdlib) 2.6.0 on CPython 3.11.7`.
pub fn sqlite_words(d: &DriverInfo) -> String {
    format!(
        "{} ({} compile options), through {} on {}",
        d.sqlite_version,
        d.compile_options.len(),
        d.library,
        d.runtime
    )
}

/// The SQLite each driver carried, for the reporting checklist: `python-sqlite3 (#1): SQLite
/// 3.40.1, 37 compile options`, one per driver and SQLite, in configuration order.
pub fn sqlite_builds(manifest: &Manifest) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &manifest.configs {
        for (name, d) in ran(manifest, c) {
            let Some(d) = d else { continue };
            let line = format!(
                "{name} through {}: SQLite {}, {} compile options",
                d.library,
                d.sqlite_version,
                d.compile_options.len()
            );
            if !out.contains(&line) {
                out.push(line);
            }
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
                "0|rust|SQLite|sqlite (litebench's own loop)",
                "all|python-sqlite3|SQLite|3.40.1 (1 compile options), through sqlite3 (stdlib) 2.6.0 on CPython 3.11.7",
                "1,3|python-sqlite3|journal_mode|wal",
                "all|python-sqlite3|synchronous [build]|full (2): SQLite's own default, outside WAL; no knob asked (--knob synchronous= sets it)",
                "all|python-sqlite3|timeout [binding]|5.0 s",
                "2|python-sqlite3|journal_mode|delete",
            ]
        );
        // No build set a default apart: no warning.
        assert!(warnings(&m).is_empty());
        assert_eq!(
            sqlite_builds(&m),
            ["python-sqlite3 through sqlite3 (stdlib) 2.6.0: SQLite 3.40.1, 1 compile options"]
        );
    }

    #[test]
    fn a_cast_role_through_a_driver_at_another_build_default_is_a_warning() {
        let wal: &[(&str, &str)] = &[("journal_mode", "wal")];
        let mut m = crate::report::html::data::tests::manifest(&[wal]);
        m.engines.push(
            serde_json::from_value(serde_json::json!({
                "label": "sqlite", "kind": "sqlite", "version": "3.54.1",
                "sqlite": {"origin": "bundled", "version": "3.54.1", "source_id": "x",
                           "compile_options": ["DEFAULT_WAL_SYNCHRONOUS=2"]}
            }))
            .unwrap(),
        );
        assert!(warnings(&m).is_empty());
        let mut node = python("wal");
        node.driver = "node-better-sqlite3".into();
        node.compile_options = vec!["DEFAULT_WAL_SYNCHRONOUS=1".into()];
        m.configs[0].role_drivers = vec![
            crate::model::driver::RoleDriver {
                role: "readers".into(),
                info: python("wal"),
            },
            crate::model::driver::RoleDriver {
                role: "api".into(),
                info: node,
            },
        ];
        let w = warnings(&m);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("#0: no knob set synchronous, and role api (node-better-sqlite3) at normal ran at its build's default, beside this configuration's own connections at full"),
            "{w:?}"
        );
        let labels = |m: &Manifest| -> Vec<String> {
            let mut l: Vec<String> = section(m).unwrap().rows.iter().map(|r| r[1].clone()).collect();
            l.dedup();
            l
        };
        assert_eq!(labels(&m), ["readers: python-sqlite3", "api: node-better-sqlite3"]);
        // Every role through the same driver, which said the same of itself: one set of rows,
        // named by the driver alone, not one per role.
        m.configs[0].role_drivers[1].info = python("wal");
        assert_eq!(labels(&m), ["python-sqlite3"]);
        m.configs[0].role_drivers.push(crate::model::driver::RoleDriver {
            role: "janitor".into(),
            info: python("delete"),
        });
        assert_eq!(labels(&m), ["readers, api: python-sqlite3", "janitor: python-sqlite3"]);
    }

    #[test]
    fn a_build_default_synchronous_is_said_and_builds_that_differ_are_a_warning() {
        let wal: &[(&str, &str)] = &[("journal_mode", "wal")];
        let mut m = crate::report::html::data::tests::manifest(&[wal, wal, wal]);
        let mut node = python("wal");
        node.driver = "node-better-sqlite3".into();
        node.compile_options = vec!["DEFAULT_SYNCHRONOUS=2".into(), "DEFAULT_WAL_SYNCHRONOUS=1".into()];
        m.configs[1].driver = Some(python("wal"));
        m.configs[2].driver = Some(node);
        let rows: Vec<String> = section(&m).unwrap().rows.iter().map(|r| r.join("|")).collect();
        assert!(
            rows.contains(&"2|node-better-sqlite3|synchronous [build]|normal (1): SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, in WAL; no knob asked (--knob synchronous= sets it)".to_string()),
            "{rows:#?}"
        );
        let w = warnings(&m);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("#1 at full; #2 at normal"), "{w:?}");
        // The checklist's synchronous for a driver: its build's default where no knob set it.
        assert_eq!(
            effective(&m, &m.configs[2], "synchronous").as_deref(),
            Some("normal (node-better-sqlite3 build default)")
        );
        assert_eq!(effective(&m, &m.configs[0], "synchronous"), None);
        assert_eq!(effective(&m, &m.configs[1], "journal_mode").as_deref(), Some("wal"));
        // Asked for, synchronous is the knob's, read back: nothing to warn of.
        for c in &mut m.configs {
            c.knobs.0.push(crate::model::knob::KnobSetting {
                name: "synchronous".into(),
                value: "full".into(),
            });
        }
        assert!(warnings(&m).is_empty());
    }
}
