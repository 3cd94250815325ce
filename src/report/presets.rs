//! The comparison of presets (each a tool's default configuration) measured in one run, and
//! each preset group's paper table beside today's measurement (APSys'17 Table 1).

use super::layout::table;
use super::number::{interval_of, num, opt};
use super::summary::SummaryRow;
use crate::model::record::Manifest;
use crate::workload::preset::{Group, Pick};
use crate::workload::unit_of;

/// One stored run of a `run` command with presets.
pub struct PresetRun<'a> {
    pub run_id: i64,
    pub manifest: &'a Manifest,
    pub summary: &'a [SummaryRow],
    /// Configuration index to the preset it measured.
    pub presets: &'a [Option<Pick>],
    /// Configuration index to every preset it stands for (`a+b` when they coincide).
    pub preset_names: &'a [String],
}

/// One row of the preset comparison: a preset's headline operation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ComparisonRow {
    preset: String,
    /// Every preset the configuration stands for.
    presets: String,
    workload: String,
    run: i64,
    config: usize,
    engine: String,
    operation: String,
    knobs: String,
    trials: usize,
    tps_median: f64,
    /// 95% interval of the median (null below 6 trials).
    tps_median_ci95_low: Option<f64>,
    tps_median_ci95_high: Option<f64>,
    time_ms_median: f64,
    /// None for engines whose I/O litebench does not count.
    syncs_per_tx: Option<f64>,
}

pub fn comparison_rows(ends: &[PresetRun<'_>]) -> Vec<ComparisonRow> {
    let mut out = Vec::new();
    for e in ends {
        for (ci, pick) in e.presets.iter().enumerate() {
            let Some(pick) = pick else { continue };
            let cfg = &e.manifest.configs[ci];
            let op = pick.preset.headline;
            let Some(r) = e.summary.iter().find(|r| r.config == ci && r.operation == op) else {
                continue;
            };
            out.push(ComparisonRow {
                preset: pick.preset.name.to_string(),
                presets: e.preset_names[ci].clone(),
                workload: e.manifest.workload.clone(),
                run: e.run_id,
                config: ci,
                engine: cfg.engine.clone(),
                operation: op.to_string(),
                knobs: cfg.knobs.label(),
                trials: r.trials,
                tps_median: r.throughput.tps_median,
                tps_median_ci95_low: r.throughput.tps_median_ci95_low,
                tps_median_ci95_high: r.throughput.tps_median_ci95_high,
                time_ms_median: r.throughput.time_ms_median,
                syncs_per_tx: r.io.syncs_per_tx,
            });
        }
    }
    out
}

fn ci(r: &ComparisonRow) -> String {
    interval_of(r.tps_median_ci95_low, r.tps_median_ci95_high)
}

/// One table of the comparison: its title, headers, rows and a note under it.
pub struct TitledTable {
    pub title: String,
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    pub note: Option<String>,
}

/// The comparison's tables: the presets measured, then each group's paper table beside the
/// measurement (APSys'17 Table 1). Empty when no preset was measured.
pub fn comparison_tables(ends: &[PresetRun<'_>], groups: &[&Group]) -> Vec<TitledTable> {
    let rows = comparison_rows(ends);
    if rows.is_empty() {
        return Vec::new();
    }
    let engines = rows.iter().any(|r| r.engine != rows[0].engine);
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                if engines {
                    format!("{} ({})", r.presets, r.engine)
                } else {
                    r.presets.clone()
                },
                format!("{} #{}", r.run, r.config),
                r.operation.clone(),
                // The tools count different things: transactions, or statements (the speed
                // comparison suites), so each rate says which.
                format!("{} {}/s", num(r.tps_median), unit_of(&r.workload)),
                ci(r),
                num(r.time_ms_median),
                opt(r.syncs_per_tx),
                r.knobs.clone(),
            ]
        })
        .collect();
    let mut out = vec![TitledTable {
        title: "presets compared (median of trials; each preset's headline operation)".into(),
        headers: vec![
            "preset",
            "run #cfg",
            "operation",
            "rate",
            "95% CI",
            "ms/trial",
            "syncs/tx",
            "knobs",
        ],
        rows: body,
        note: None,
    }];
    for g in groups {
        // With several engines, the paper's table is drawn for the first one.
        let find = |name: &str| rows.iter().find(|r| r.preset == name && r.engine == rows[0].engine);
        let cell = |name: Option<&str>| -> String {
            match name.and_then(find) {
                Some(r) => format!("{} {}/s ({})", num(r.tps_median), unit_of(&r.workload), ci(r)),
                None => "-".into(),
            }
        };
        let body: Vec<Vec<String>> = g
            .paper
            .iter()
            .map(|p| {
                let ratio = match (find(p.default), p.custom.and_then(find)) {
                    (Some(d), Some(c)) if d.tps_median > 0.0 => format!("{:.2}x", c.tps_median / d.tps_median),
                    _ => "-".into(),
                };
                vec![
                    p.tool.to_string(),
                    cell(Some(p.default)),
                    cell(p.custom),
                    ratio,
                    num(p.paper_default),
                    p.paper_custom.map_or("-".into(), num),
                ]
            })
            .collect();
        out.push(TitledTable {
            title: format!("{}: {}", g.name, g.about),
            headers: vec![
                "tool",
                "default rate (95% CI)",
                "custom rate (95% CI)",
                "custom/default",
                "paper default",
                "paper custom",
            ],
            rows: body,
            note: Some(format!(
                "paper: {}; here: this machine, {}, the presets' headline operation",
                g.paper_unit, rows[0].engine
            )),
        });
    }
    out
}

/// The page's title for the comparison: the first group's paper against here, or the presets.
pub fn lead_title(groups: &[&Group]) -> String {
    match groups.first() {
        Some(g) => format!("{}: the paper against here", g.about),
        None => "Presets compared".to_string(),
    }
}

/// What stored runs recorded of their presets ([`Manifest::presets`]), read back into what
/// [`PresetRun`] borrows: each run's picks and preset names per configuration, and the
/// sessions' groups (each once, in order). `None` when no run's session compared presets (one
/// preset alone, or runs stored before presets were recorded).
pub struct StoredPresets {
    pub picks: Vec<Vec<Option<Pick>>>,
    pub names: Vec<Vec<String>>,
    pub groups: Vec<&'static Group>,
}

impl StoredPresets {
    pub fn of(manifests: &[&Manifest]) -> Option<StoredPresets> {
        let infos: Vec<_> = manifests.iter().map(|m| m.presets.as_ref()).collect();
        if !infos.iter().flatten().any(|p| p.compared) {
            return None;
        }
        let mut groups: Vec<&'static Group> = Vec::new();
        for g in infos.iter().flatten().flat_map(|p| &p.groups) {
            match crate::workload::preset::find_group(g) {
                Some(g) if !groups.contains(&g) => groups.push(g),
                _ => {}
            }
        }
        // A group's member carries the group's parameter overrides.
        let pick = |name: &str| -> Option<Pick> {
            let preset = crate::workload::preset::find(name)?;
            let overrides = groups
                .iter()
                .flat_map(|g| g.members)
                .find(|m| m.preset == name)
                .map_or(&[][..], |m| m.params);
            Some(Pick { preset, overrides })
        };
        let (picks, names) = manifests
            .iter()
            .zip(&infos)
            .map(|(m, info)| match info {
                Some(p) => (
                    p.measured.iter().map(|n| n.as_deref().and_then(pick)).collect(),
                    p.names.clone(),
                ),
                None => (vec![None; m.configs.len()], vec![String::new(); m.configs.len()]),
            })
            .unzip();
        Some(StoredPresets { picks, names, groups })
    }
}

/// The comparison of the presets measured, and each group's paper table beside the measurement.
pub fn comparison_text(ends: &[PresetRun<'_>], groups: &[&Group], md: bool) -> String {
    let tables = comparison_tables(ends, groups);
    if tables.is_empty() {
        return String::new();
    }
    let h = |s: &str| if md { format!("## {s}\n\n") } else { format!("{s}\n") };
    let mut out = String::from("\n");
    for (i, t) in tables.iter().enumerate() {
        if i > 0 {
            out += "\n";
        }
        out += &h(&t.title);
        out += &table(&t.headers, &t.rows, md);
        if let Some(n) = &t.note {
            out += &format!("{n}\n");
        }
    }
    out
}
