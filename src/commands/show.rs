//! `litebench show`: print a stored run, or list them.

use super::Failure;
use crate::checklist::checklist;
use crate::cli::ShowArgs;
use crate::pivot::side_by_side;
use crate::render::{render, table, warnings, Format, Report, RunHeader};
use crate::store::{self, Store};
use crate::summary::{spread, summarize_run};

/// Runs the `show` subcommand.
pub fn run(args: &ShowArgs) -> Result<i32, Failure> {
    let path = args.results.clone().unwrap_or_else(store::default_path);
    if !path.is_file() {
        return Err(Failure(format!(
            "--results {}: no results store there; run `litebench run` first or give --results PATH",
            path.display()
        )));
    }
    let mut store = Store::open(&path, true)?;
    if args.list {
        let runs = store.list()?;
        match args.format {
            Format::Json => crate::outln!("{}", serde_json::to_string_pretty(&runs).expect("json")),
            Format::Csv => {
                let mut w = csv::Writer::from_writer(crate::out::Stdout);
                for r in &runs {
                    w.serialize(r).map_err(|e| Failure(e.to_string()))?;
                }
            }
            f => {
                let rows: Vec<Vec<String>> = runs
                    .iter()
                    .map(|r| {
                        vec![
                            r.id.to_string(),
                            r.started_at.clone(),
                            r.workload.clone(),
                            r.status.clone(),
                            r.trials.to_string(),
                        ]
                    })
                    .collect();
                crate::out!(
                    "{}",
                    table(
                        &["run", "started", "workload", "status", "trials"],
                        &rows,
                        f == Format::Markdown
                    )
                );
            }
        }
        return Ok(0);
    }
    let run = store.load(args.run)?;
    let ops: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for t in &run.trials {
            for o in &t.ops {
                if !v.contains(&o.name) {
                    v.push(o.name.clone());
                }
            }
        }
        v
    };
    if args.baseline >= run.manifest.configs.len() {
        return Err(Failure(format!(
            "--baseline {}: run {} has configurations 0 to {}",
            args.baseline,
            run.id,
            run.manifest.configs.len().saturating_sub(1)
        )));
    }
    let metric = args.metric.unwrap_or_else(|| {
        crate::workload::find(&run.manifest.workload).map_or(crate::pivot::Metric::Tps, |w| w.metric())
    });
    if args.side_by_side {
        let p = side_by_side(&run.manifest, &run.trials, &ops, metric, args.baseline);
        match args.format {
            Format::Json => crate::outln!("{}", serde_json::to_string_pretty(&p).expect("json")),
            Format::Csv => crate::out!("{}", p.csv()),
            f => {
                let (headers, body) = p.cells();
                let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
                crate::out!("{}", table(&headers, &body, f == Format::Markdown));
            }
        }
        return Ok(0);
    }
    let summary = summarize_run(&run.manifest, &run.trials, &ops);
    let report = Report {
        run: RunHeader {
            id: run.id,
            status: run.status.clone(),
            error: run.error.clone(),
            finished_at: run.finished_at.clone(),
            results: path.display().to_string(),
        },
        checklist: checklist(&run.manifest, &run.trials),
        spread: spread(&summary),
        warnings: warnings(&run.manifest, &run.trials, &summary, &run.status),
        summary,
        manifest: &run.manifest,
        process_syncs: None,
        side_by_side: (run.manifest.configs.len() > 1)
            .then(|| side_by_side(&run.manifest, &run.trials, &ops, metric, args.baseline)),
        footprint: &run.templates,
        trials: &run.trials,
    };
    crate::out!("{}", render(&report, args.format));
    Ok(0)
}
