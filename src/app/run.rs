//! `litebench run`: the session ([`crate::bench::session`]) with the command line's settings,
//! and the [`Reports`] it is handed: what is printed and written of each run as it ends and of
//! the session at its end (`bench` measures and stores; reporting is the command's).

use crate::base::Failure;
use crate::bench::observer::{JobRun, RunObserver};
use crate::bench::plan::{self, Guest, Plan};
use crate::bench::settings::RunArgs;
use crate::report::summary::SummaryRow;
use crate::report::{self, exports, presets, Format, Input, Report, RunHeader};
use crate::store::StoredRun;
use crate::workload::preset::{Group, Pick};
use std::path::PathBuf;

/// Runs the `run` subcommand: the one plan of its command line, made here and handed to
/// whichever of `--dry-run`'s page, the run again under callgrind (`--measure instructions`, in
/// the process the user started) and the session runs it.
pub fn run(args: &RunArgs) -> Result<i32, Failure> {
    crate::base::terminal::set_all(args.all);
    if args.dry_run {
        return crate::app::dry_run::print(&plan::plan(args)?);
    }
    if args.measure.is_some() && !crate::bench::instructions::inner() {
        return crate::bench::instructions::run_under_callgrind(&plan::plan(args)?);
    }
    crate::bench::session::run(plan::plan_to_run(args), &mut Reports::default()).result
}

/// What one stored run's report left for the session's end.
struct Reported {
    run_id: i64,
    manifest: crate::model::record::Manifest,
    summary: Vec<SummaryRow>,
    /// Configuration index to the preset it measured.
    presets: Vec<Option<Pick>>,
    /// Configuration index to every preset it stands for (`a+b` when they coincide).
    preset_names: Vec<String>,
    json: Option<serde_json::Value>,
    /// The report in each `--export` format (none when nothing was reported).
    exported: Vec<(Format, String)>,
}

/// The plan's settings the reports follow.
struct Settings {
    format: Format,
    exports: Vec<exports::Export>,
    report: Option<PathBuf>,
    noise: Option<f64>,
    /// `--metric`.
    metric: Option<crate::model::metric::Metric>,
    name: Option<String>,
    results: PathBuf,
    /// Render each job's report as it ends (one job, or a text format).
    print_each: bool,
    several: bool,
    compared: bool,
    groups: Vec<&'static Group>,
    in_guest: bool,
    /// `--guest` on the host: the guest's runs are printed as they come in.
    guest_host: bool,
}

/// `run`'s reports: each run's report printed as it ends (or together at the end, for several
/// runs in a data format), the presets' comparison, the HTML page of `--report` and the files
/// of `--export`. Also what `reproduce` hands each experiment's session.
#[derive(Default)]
pub struct Reports {
    settings: Option<Settings>,
    runs: Vec<Reported>,
}

impl Reports {
    fn settings(&self) -> &Settings {
        self.settings.as_ref().expect("the session starts before it reports")
    }
}

impl RunObserver for Reports {
    fn started(&mut self, plan: &Plan) {
        let several = plan.several();
        let in_guest = plan.in_guest();
        if !plan.output.quiet && !in_guest && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            if let Some(line) = crate::app::dry_run::long_run_line(plan) {
                crate::errln!("{line}");
            }
        }
        self.runs.clear();
        self.settings = Some(Settings {
            format: plan.output.format,
            exports: plan.output.exports.clone(),
            report: plan.output.report.clone(),
            noise: plan.output.noise,
            metric: plan.output.metric,
            name: plan.output.name.clone(),
            results: plan.places.results.clone(),
            // In a guest the host prints the runs once it has stored them under its own ids.
            print_each: !in_guest && (!several || report::format::of(plan.output.format).for_reading()),
            several,
            compared: plan.compares_presets(),
            groups: plan.groups.clone(),
            in_guest,
            guest_host: matches!(plan.guest, Guest::Host { .. }),
        });
    }

    fn job_ended(&mut self, run: &JobRun<'_>) -> Result<(), Failure> {
        let s = self.settings();
        let mut reported = Reported {
            run_id: run.run_id,
            manifest: run.manifest.clone(),
            summary: Vec::new(),
            presets: run.job.configs.iter().map(|c| c.pick).collect(),
            preset_names: run.job.configs.iter().map(|c| c.preset_names()).collect(),
            json: None,
            exported: Vec::new(),
        };
        // What was measured is reported, even after an error.
        if !run.trials.is_empty() || run.error.is_none() {
            let report = Report::build(Input {
                run: RunHeader {
                    id: run.run_id,
                    name: s.name.clone(),
                    status: run.status.into(),
                    error: run.error.map(str::to_string),
                    finished_at: Some(run.finished_at.to_string()),
                    results: s.results.display().to_string(),
                },
                manifest: run.manifest,
                trials: run.trials,
                templates: run.templates,
                noise: s.noise,
                metric: s.metric,
                baseline: 0,
                process_syncs: Some(run.process_syncs),
            });
            reported.summary = report.summary.clone();
            for e in &s.exports {
                if !reported.exported.iter().any(|(f, _)| *f == e.format) {
                    reported.exported.push((e.format, report::export(&report, e.format)));
                }
            }
            if s.print_each {
                crate::out!("{}", report::export(&report, s.format));
            }
            // The JSON of several runs is printed (or exported) as one document at the end.
            let json_at_end = !s.print_each && s.format == Format::Json;
            if json_at_end || s.exports.iter().any(|e| e.format == Format::Json) {
                reported.json = Some(serde_json::to_value(&report).map_err(|e| Failure(format!("report: {e}")))?);
            }
        }
        self.runs.push(reported);
        Ok(())
    }

    fn imported(&mut self, run: &StoredRun) {
        let s = self.settings();
        let report = crate::report::stored::stored_report(run, &s.results, s.noise);
        crate::out!("{}", report::export(&report, s.format));
    }

    fn ended(&mut self, run_ids: &[i64]) -> Vec<Failure> {
        let s = self.settings();
        let runs = &self.runs;
        let reading = report::format::of(s.format).for_reading();
        if !s.in_guest && !s.guest_host && reading && s.compared {
            crate::out!(
                "{}",
                presets::comparison_text(&preset_runs(runs), &s.groups, s.format == Format::Markdown)
            );
        } else if !s.in_guest && !s.guest_host && !reading && s.several {
            crate::out!("{}", report::format::render(&several_runs(runs), s.format));
        }
        // The HTML report and the exports of what was measured, however the run ended; each is
        // tried whatever became of the others, and each failure is said in its own line.
        let mut failures: Vec<Failure> = Vec::new();
        if let Some(file) = s.report.as_ref().filter(|_| !run_ids.is_empty()) {
            let ids: Vec<Option<i64>> = run_ids.iter().map(|&i| Some(i)).collect();
            // Presets compared lead the page (from what each run's manifest records, as a
            // later `report` of the runs reads it), a group's paper table (Table 1) at the top.
            if let Err(f) =
                crate::report::stored::write(&Some(s.results.clone()), &ids, file, "--report", None, s.noise, None)
            {
                failures.push(f);
            }
        }
        if !s.in_guest {
            failures.extend(write_exports(s, runs));
        }
        failures
    }
}

/// `--export`: each file gets what the terminal would have shown in its format: the report of
/// the one run, or for several runs what a session of several prints (each report and their
/// comparison in a format for reading; one document of them all in a data format). Nothing is
/// written when nothing was reported. Every file is tried; returns each one's failure.
fn write_exports(s: &Settings, runs: &[Reported]) -> Vec<Failure> {
    let of = |r: &Reported, f: Format| r.exported.iter().find(|(x, _)| *x == f).map(|(_, t)| t.clone());
    if runs.iter().all(|r| r.exported.is_empty()) {
        return Vec::new();
    }
    let render = |f: Format| -> String {
        if !s.several {
            return runs.first().and_then(|r| of(r, f)).unwrap_or_default();
        }
        if report::format::of(f).for_reading() {
            let mut text: String = runs.iter().filter_map(|r| of(r, f)).collect();
            if s.compared {
                text += &presets::comparison_text(&preset_runs(runs), &s.groups, f == Format::Markdown);
            }
            text
        } else {
            report::format::render(&several_runs(runs), f)
        }
    };
    exports::write_each(&s.exports, &render)
}

/// The document a data format prints for a session of several runs: every run's report and
/// the presets' comparison (JSON), or every run's summary rows (CSV, and any other format, as
/// one table), each row led by the run it belongs to and that run's workload, since the runs'
/// configurations are numbered from 0 in each.
fn several_runs(runs: &[Reported]) -> report::format::Document {
    let v = serde_json::json!({
        "runs": runs.iter().filter_map(|r| r.json.clone()).collect::<Vec<_>>(),
        "presets": presets::comparison_rows(&preset_runs(runs)),
    });
    let mut headers: Vec<String> = vec!["run".into(), "workload".into()];
    let mut cells: Vec<Vec<String>> = Vec::new();
    for r in runs {
        let t = report::csv::table_of("summary", &r.summary);
        if headers.len() == 2 {
            headers.extend(t.headers);
        }
        cells.extend(t.rows.into_iter().map(|row| {
            let mut out = vec![r.run_id.to_string(), r.manifest.workload.clone()];
            out.extend(row);
            out
        }));
    }
    let mut records = vec![headers.clone()];
    records.extend(cells.iter().cloned());
    let csv = report::csv::records(&records);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    report::format::Document::new(&v)
        .own(Format::Csv, csv)
        .table("summary", &headers, cells)
}

fn preset_runs(runs: &[Reported]) -> Vec<presets::PresetRun<'_>> {
    runs.iter()
        .map(|r| presets::PresetRun {
            run_id: r.run_id,
            manifest: &r.manifest,
            summary: &r.summary,
            presets: &r.presets,
            preset_names: &r.preset_names,
        })
        .collect()
}
