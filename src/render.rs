//! Output formats: a terminal table (default), Markdown, CSV and JSON, all from one [`Report`].

use crate::checklist::ChecklistItem;
use crate::pivot::SideBySide;
use crate::result::{Manifest, ProcessSyncs, TemplateRecord, TrialRecord};
use crate::summary::{Spread, SummaryRow};
use serde::Serialize;

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
}

/// Status of a run as stored.
#[derive(Debug, Clone, Serialize)]
pub struct RunHeader {
    pub id: i64,
    pub status: String,
    pub error: Option<String>,
    pub finished_at: Option<String>,
    pub results: String,
}

/// Everything a report shows. `--format json` prints exactly this.
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    pub run: RunHeader,
    pub manifest: &'a Manifest,
    pub checklist: Vec<ChecklistItem>,
    pub summary: Vec<SummaryRow>,
    pub spread: Option<Spread>,
    pub warnings: Vec<String>,
    /// Templates populated for the run: rows, population time and size on disk.
    pub footprint: &'a [TemplateRecord],
    /// Operations down, configurations across; present with two or more configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side_by_side: Option<SideBySide>,
    /// Only for a run that just finished in this process (used by the strace cross-check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_syncs: Option<ProcessSyncs>,
    pub trials: &'a [TrialRecord],
}

/// Builds the warnings a reader must see beside the numbers.
pub fn warnings(manifest: &Manifest, trials: &[TrialRecord], rows: &[SummaryRow], status: &str) -> Vec<String> {
    let mut w = Vec::new();
    if manifest.environment.storage.ram_backed && !manifest.in_memory {
        w.push(format!(
            "{} is on a RAM filesystem ({}): syncs cost nothing there, so durability numbers mean nothing; use --dir on a real disk",
            manifest.scratch_dir,
            manifest.environment.storage.fs_type.as_deref().unwrap_or("tmpfs")
        ));
    }
    for r in rows.iter().filter(|r| r.noisy && r.operation == "all") {
        w.push(format!(
            "#{} {}: throughput CV {:.1}% exceeds 5%: the machine was too noisy for small differences; add trials or quiet the machine",
            r.config,
            r.label,
            r.tps_cv.unwrap_or(0.0) * 100.0
        ));
    }
    if manifest.trials < 2 {
        w.push("fewer than 2 trials: no confidence interval or CV; use --trials 10 for numbers worth comparing".into());
    }
    let mut unverified: Vec<String> = trials
        .iter()
        .flat_map(|t| t.knobs.iter())
        .filter(|k| k.requested.is_some() && k.effective.is_none())
        .map(|k| k.name.clone())
        .collect();
    unverified.sort();
    unverified.dedup();
    for k in unverified {
        w.push(format!(
            "{k} reads back nothing, so litebench could not verify that it took effect"
        ));
    }
    if manifest.workload == "tatp" {
        w.extend(crate::workload::tatp::rates::report_warnings(manifest, trials));
    }
    match status {
        "interrupted" => w.push("run was interrupted: only the trials that finished are shown".into()),
        "abandoned" => w.push(
            "run never finished (its process is gone, e.g. killed): only the trials that finished are shown".into(),
        ),
        "failed" => w.push("run failed: only the trials that finished before the error are shown".into()),
        _ => {}
    }
    w
}

fn fmt_num(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn summary_table(rows: &[SummaryRow]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let headers = vec![
        "#",
        "configuration",
        "op",
        "tx/trial",
        "ms/trial",
        "tx/s median",
        "95% CI",
        "CV",
        "ratio",
        "p50 us",
        "p99 us",
        "syncs/tx",
        "KiB w/tx",
        "sync-bound tx/s",
    ];
    let body = rows
        .iter()
        .map(|r| {
            vec![
                r.config.to_string(),
                r.label.clone(),
                r.operation.clone(),
                fmt_num(r.ops_per_trial),
                fmt_num(r.time_ms_median),
                fmt_num(r.tps_median),
                match (r.tps_ci95_low, r.tps_ci95_high) {
                    (Some(l), Some(h)) => format!("{}..{}", fmt_num(l), fmt_num(h)),
                    _ => "-".into(),
                },
                r.tps_cv.map_or("-".into(), |c| {
                    format!("{:.1}%{}", c * 100.0, if r.noisy { "!" } else { "" })
                }),
                r.ratio_to_first.map_or("-".into(), |x| format!("{x:.2}x")),
                fmt_num(r.latency_p50_us),
                fmt_num(r.latency_p99_us),
                if r.io_counted {
                    fmt_num(r.syncs_per_tx)
                } else {
                    "-".into()
                },
                if r.io_counted {
                    fmt_num(r.write_bytes_per_tx / 1024.0)
                } else {
                    "-".into()
                },
                r.sync_bound_tps.map_or("-".into(), fmt_num),
            ]
        })
        .collect();
    (headers, body)
}

/// Lays out a table: aligned columns for the terminal, pipes for Markdown.
pub fn table(headers: &[&str], rows: &[Vec<String>], markdown: bool) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        if markdown {
            format!("| {} |", padded.join(" | "))
        } else {
            padded.join("  ").trim_end().to_string()
        }
    };
    let mut out = vec![line(headers.iter().map(|h| h.to_string()).collect())];
    out.push(if markdown {
        format!(
            "|{}|",
            widths.iter().map(|w| "-".repeat(w + 2)).collect::<Vec<_>>().join("|")
        )
    } else {
        widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  ")
    });
    for r in rows {
        out.push(line(r.clone()));
    }
    out.join("\n") + "\n"
}

/// Renders a report in the chosen format.
pub fn render(report: &Report<'_>, format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(report).expect("reports serialize") + "\n",
        Format::Csv => csv_rows(&report.summary),
        Format::Table | Format::Markdown => text(report, format == Format::Markdown),
    }
}

/// The summary rows as CSV (same fields as the JSON `summary`).
pub fn csv_rows(rows: &[SummaryRow]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).expect("summary rows serialize to CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV is UTF-8")
}

fn text(report: &Report<'_>, md: bool) -> String {
    let m = report.manifest;
    let mut out = String::new();
    let h = |s: &str| if md { format!("## {s}\n\n") } else { format!("{s}\n") };
    out += &h(&format!(
        "run {} — {} — {} ({} trials + {} warm-up, seed {}, results {})",
        report.run.id, m.workload, report.run.status, m.trials, m.warmup, m.seed, report.run.results
    ));
    if let Some(e) = &report.run.error {
        out += &format!("error: {e}\n");
    }
    out += "\n";
    let (headers, body) = summary_table(&report.summary);
    out += &table(&headers, &body, md);
    if let Some(p) = &report.side_by_side {
        out += "\n";
        out += &h("side by side");
        let (headers, body) = p.cells();
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        out += &table(&headers, &body, md);
    }
    if let Some(s) = &report.spread {
        out += &format!(
            "\nspread: fastest / slowest = {:.2}x ({} vs {})\n",
            s.ratio, s.fastest, s.slowest
        );
    }
    for w in &report.warnings {
        out += &format!("{}warning: {w}\n", if md { "- " } else { "" });
    }
    if !report.footprint.is_empty() {
        out += "\n";
        out += &h("population (template databases)");
        let rows: Vec<Vec<String>> = report
            .footprint
            .iter()
            .map(|t| {
                vec![
                    t.engine.clone(),
                    if t.create_knobs.is_empty() {
                        "-".into()
                    } else {
                        t.create_knobs.clone()
                    },
                    t.rows.to_string(),
                    format!("{:.2}", t.populate_ns as f64 / 1e9),
                    fmt_num(t.rows_per_sec),
                    t.bytes
                        .map_or("unknown".into(), |b| format!("{:.2}", b as f64 / (1 << 20) as f64)),
                ]
            })
            .collect();
        out += &table(
            &["engine", "create knobs", "rows", "seconds", "rows/s", "MiB on disk"],
            &rows,
            md,
        );
    }
    out += "\n";
    out += &h("reporting checklist (APSys'17)");
    let rows: Vec<Vec<String>> = report
        .checklist
        .iter()
        .map(|c| {
            vec![
                if c.known { "ok" } else { "UNKNOWN" }.to_string(),
                c.item.clone(),
                c.value.clone(),
            ]
        })
        .collect();
    out += &table(&["", "item", "value"], &rows, md);
    out
}
