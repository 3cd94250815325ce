//! `litebench show`: print a stored run, or list them.

use crate::app::cli::ShowArgs;
use crate::base::Failure;
use crate::report::format::{render, Document};
use crate::report::stored::{header, open_store, stored_report};
use crate::report::{self, exports, Format, Input, Report};
use crate::store::{RunListing, Store};

/// Writes the `--export` files (`render`: what is printed, in a format), then prints
/// `--format`'s.
fn emit(args: &ShowArgs, render: &dyn Fn(Format) -> String) -> Result<i32, Failure> {
    exports::write(&args.stored.exports, render)?;
    crate::out!("{}", render(args.stored.format.value));
    Ok(0)
}

/// Runs the `show` subcommand.
pub fn run(args: &ShowArgs) -> Result<i32, Failure> {
    crate::base::terminal::set_all(args.all);
    let (mut store, path) = open_store(&args.stored.results.value)?;
    exports::check(&args.stored.exports, &path, &[])?;
    if args.list {
        let runs = store.list()?;
        let doc = listing(&runs);
        return emit(args, &|f| render(&doc, f));
    }
    if let Some(name) = &args.sweep {
        let (doc, _) = sweep(&mut store, name)?;
        return emit(args, &|f| render(&doc, f));
    }
    let id = match &args.run {
        Some(word) => Some(store.resolve_word(word)?),
        None => None,
    };
    let run = store.load(id)?;
    if args.profile {
        let profiles = report::profile::collect(&run.manifest, &run.trials);
        return emit(args, &|f| report::profile::render(&profiles, f));
    }
    if args.baseline >= run.manifest.configs.len() {
        return Err(Failure(format!(
            "--baseline {}: run {} has configurations 0 to {}",
            args.baseline,
            run.id,
            run.manifest.configs.len().saturating_sub(1)
        )));
    }
    let mut report = Report::build(Input {
        run: header(&run, &path),
        manifest: &run.manifest,
        trials: &run.trials,
        templates: &run.templates,
        noise: args.stored.noise.value,
        metric: args.metric,
        baseline: args.baseline,
        process_syncs: None,
    });
    let stored = store.verifications()?;
    report.durability = crate::report::advise::verdict_lines(run.id, &run.manifest, &run.trials, &stored);
    crate::report::advise::mark_rows(&mut report.summary, run.id, &run.manifest, &run.trials, &stored);
    if args.side_by_side {
        // Asked for explicitly, even one configuration gets its column.
        let p = match &report.side_by_side {
            Some(p) => p.clone(),
            None => report::pivot::side_by_side(
                &run.manifest,
                report.workload,
                &report.statistics,
                &run.trials,
                &report::operations_of(&run.manifest, report.workload, &run.trials),
                report.metric,
                args.baseline,
            ),
        };
        let (headers, body) = p.cells();
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let doc = Document::new(&p)
            .own(Format::Csv, p.csv())
            .table("side by side", &headers, body);
        emit(args, &|f| render(&doc, f))
    } else {
        emit(args, &|f| report::export(&report, f))
    }
}

/// `show --list`: every stored run with its name, what it ran on (its configurations) and its
/// measured trials (warm-ups are said apart, never counted as measured).
fn listing(runs: &[RunListing]) -> Document {
    let configurations = |r: &RunListing| match r.configurations.as_slice() {
        [one] => one.clone(),
        many => many.join("; "),
    };
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.id.to_string(),
                r.name.clone().unwrap_or_else(|| "-".into()),
                r.started_at.clone(),
                r.workload.clone(),
                configurations(r),
                r.status.clone(),
                r.trials.to_string(),
                r.warmups.to_string(),
                r.uuid.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    // CSV: the stored fields as columns, named as in the JSON (configurations joined by "; ").
    let mut csv = vec![[
        "id",
        "name",
        "started_at",
        "workload",
        "configurations",
        "status",
        "trials",
        "warmups",
        "uuid",
    ]
    .map(String::from)
    .to_vec()];
    csv.extend(runs.iter().map(|r| {
        vec![
            r.id.to_string(),
            r.name.clone().unwrap_or_default(),
            r.started_at.clone(),
            r.workload.clone(),
            r.configurations.join("; "),
            r.status.clone(),
            r.trials.to_string(),
            r.warmups.to_string(),
            r.uuid.clone().unwrap_or_default(),
        ]
    }));
    Document::new(runs).own(Format::Csv, report::csv::records(&csv)).table(
        "runs",
        &[
            "run",
            "name",
            "started",
            "workload",
            "configurations",
            "status",
            "trials",
            "warm-ups",
            "uuid",
        ],
        rows,
    )
}

/// `show --sweep NAME`: every stored part of one sweep, by shard, and the shards missing; with
/// the ids of the sweep's runs, in shard order (for `report --sweep`).
pub fn sweep(store: &mut Store, name: &str) -> Result<(Document, Vec<i64>), Failure> {
    let mut parts = Vec::new();
    let mut shards = 0;
    // --replicate: (plan job, configuration) -> (machine, median tx/s of all operations).
    let mut across: std::collections::BTreeMap<(usize, String), Vec<(String, f64)>> = Default::default();
    for listing in store.list()? {
        let run = store.load(Some(listing.id))?;
        let Some(f) = run.manifest.fleet.as_ref().filter(|f| f.sweep == name) else {
            continue;
        };
        shards = shards.max(f.shards);
        let host = run.manifest.environment.machine.hostname.clone();
        if f.replicate && listing.status == "complete" {
            let report = stored_report(&run, store.path(), None);
            for r in report.summary.iter().filter(|r| r.operation == "all") {
                let machine = format!("{} (shard {})", host.as_deref().unwrap_or("unknown"), f.shard);
                across
                    .entry((f.plan_job, r.label.clone()))
                    .or_default()
                    .push((machine, r.throughput.tps_median));
            }
        }
        parts.push((f.clone(), listing, host));
    }
    if parts.is_empty() {
        return Err(Failure(format!(
            "--sweep {name}: no stored run belongs to it; `litebench show --list` lists the runs (merge the shards' stores first with `litebench merge`)"
        )));
    }
    parts.sort_by_key(|(f, l, _)| (f.shard, f.plan_job, l.id));
    let ids: Vec<i64> = parts.iter().map(|(_, l, _)| l.id).collect();
    let done = |shard: usize| parts.iter().any(|(f, l, _)| f.shard == shard && l.status == "complete");
    let missing: Vec<usize> = (0..shards).filter(|&s| !done(s)).collect();
    // Each configuration across machines: the median per machine, and the spread across them.
    let across_rows: Vec<Vec<String>> = across
        .iter()
        .map(|((job, label), per)| {
            let lo = per.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let hi = per.iter().map(|p| p.1).fold(0.0, f64::max);
            vec![
                job.to_string(),
                label.clone(),
                per.iter()
                    .map(|(m, t)| format!("{m}: {}", crate::report::number::num(*t)))
                    .collect::<Vec<_>>()
                    .join("; "),
                if lo > 0.0 {
                    format!("{:.2}x", hi / lo)
                } else {
                    "-".into()
                },
            ]
        })
        .collect();
    let json_rows: Vec<serde_json::Value> = parts
        .iter()
        .map(|(f, l, host)| serde_json::json!({"shard": f.shard, "run": l.id, "uuid": l.uuid, "host": host, "status": l.status, "plan_job": f.plan_job, "trials": l.trials}))
        .collect();
    let json = serde_json::json!({"sweep": name, "shards": shards, "parts": json_rows, "missing_shards": missing, "across_machines": across_rows});
    let rows: Vec<Vec<String>> = parts
        .iter()
        .map(|(f, l, host)| {
            vec![
                format!("{}/{}", f.shard, f.shards),
                l.id.to_string(),
                host.clone().unwrap_or_else(|| "unknown".into()),
                l.status.clone(),
                format!("{} of {}", f.plan_job, f.plan_jobs),
                l.trials.to_string(),
            ]
        })
        .collect();
    let mut doc = Document::new(&json)
        .text(format!("sweep {name}: {shards} shard(s)\n"))
        .table(
            "shards",
            &["shard", "run", "host", "status", "plan job", "trials"],
            rows,
        );
    if !across_rows.is_empty() {
        doc = doc
            .text("\neach configuration across machines (--replicate; median tx/s of all operations):\n")
            .table(
                "across machines",
                &["plan job", "configuration", "median per machine", "fastest / slowest"],
                across_rows,
            );
    }
    doc = doc.text(if missing.is_empty() {
        "every shard complete\n".to_string()
    } else {
        let list: Vec<String> = missing.iter().map(|s| s.to_string()).collect();
        format!("missing or not complete: shard {}\n", list.join(", "))
    });
    Ok((doc, ids))
}
