//! The text document both the terminal table and Markdown exporters print: the summary, the
//! side-by-side table, the spread, warnings, the population footprint, the statistics used and
//! the reporting checklist.

use super::layout::{heading, table, warning};
use super::number::{against, count, interval, interval_of, num, opt, opt_count, pct, ratio};
use super::summary::SummaryRow;
use super::{Metric, Report};

/// The summary table's header and cells (the HTML report shows the same). `unit` is what the
/// workload counts ([`crate::workload::Workload::unit`]): `tx`, or `statements`. `metric` is
/// the headline ([`super::headline_metric`]): in an open loop (`--rate`) the schedule sets the
/// rate, so the rate reads as achieved against target and the latency metric (p99 unless
/// chosen) and the failures carry the verdicts; in a closed loop the rate's verdict comes
/// first and p99's stands beside it.
pub fn summary_table(rows: &[SummaryRow], unit: &str, metric: Metric) -> (Vec<String>, Vec<Vec<String>>) {
    let any = |f: fn(&SummaryRow) -> bool| rows.iter().any(f);
    // The latency whose verdict the table gives: the chosen one, else p99.
    let latency = if metric.quantile().is_some() {
        metric
    } else {
        Metric::P99
    };
    // `--measure instructions`: instructions per operation and their verdict come first, and
    // every time is said to be under valgrind.
    let counted = any(|r| r.instructions.is_some());
    let open = any(|r| r.load.lag_p99_us.is_some());
    let groups = [
        Some(row_names(unit)),
        counted.then(instructions),
        Some(if open {
            open_loop(unit, latency)
        } else {
            closed_loop(unit, latency, counted)
        }),
        Some(io()),
        open.then(lags),
        any(|r| r.failures.retries.is_some()).then(shaped),
        // Transactions that gave up busy are outside the rate: shown where there are any.
        any(|r| r.failures.busy > 0.0).then(gave_up),
        // SQLite's lock waits: shown where any transaction waited.
        any(|r| r.busy_waits.is_some()).then(busy_waits),
    ];
    Columns::table(rows, groups.into_iter().flatten())
}

/// A group of the summary's columns: their headings and each row's cells in one place, so a
/// heading and its cell are written, and shown or left out, together.
struct Columns {
    heads: Vec<String>,
    cells: Cells,
}

/// A row's cells under a group's headings.
type Cells = Box<dyn Fn(&SummaryRow) -> Vec<String>>;

impl Columns {
    /// Headings and the cells under them, one group.
    fn new(heads: &[&str], cells: impl Fn(&SummaryRow) -> Vec<String> + 'static) -> Self {
        Columns {
            heads: heads.iter().map(|h| h.to_string()).collect(),
            cells: Box::new(cells),
        }
    }

    /// The table of `groups` side by side: their headings, then each row's cells in order.
    fn table(rows: &[SummaryRow], groups: impl Iterator<Item = Self>) -> (Vec<String>, Vec<Vec<String>>) {
        let groups: Vec<Self> = groups.collect();
        let heads = groups.iter().flat_map(|g| g.heads.iter().cloned()).collect();
        let body = rows
            .iter()
            .map(|r| groups.iter().flat_map(|g| (g.cells)(r)).collect())
            .collect();
        (heads, body)
    }
}

/// Which row this is: configuration, operation and the count of a trial.
fn row_names(unit: &str) -> Columns {
    Columns::new(&["#", "configuration", "op", &format!("{unit}/trial")], |r| {
        let id = r.config.to_string();
        vec![
            id,
            r.label.clone(),
            r.operation_label.clone(),
            count(r.throughput.ops_per_trial),
        ]
    })
}

/// `--measure instructions`: the count that decides, before any time.
fn instructions() -> Columns {
    let heads = ["instr/op [95% CI]", "instr/op against #0 [95% CI] verdict"];
    Columns::new(&heads, |r| {
        let i = r.figure(Metric::Instructions);
        vec![instructions_cell(i.value, i.ci95), against(&i.against, r.config == 0)]
    })
}

/// The latency's two headings, with and against its interval.
fn latency_heads(latency: Metric) -> [String; 2] {
    [
        format!("{} [95% CI]", latency.heading()),
        format!("{} against #0 [95% CI] verdict", latency.name()),
    ]
}

/// The latency's value with its interval, and its verdict against #0.
fn latency_cells(r: &SummaryRow, latency: Metric) -> [String; 2] {
    let lat = r.figure(latency);
    [
        format!("{} [{}]", opt(lat.value), interval(lat.ci95)),
        against(&lat.against, r.config == 0),
    ]
}

/// An open loop: the schedule set the rate, so latency and failures carry the verdicts.
fn open_loop(unit: &str, latency: Metric) -> Columns {
    let [head, against_head] = latency_heads(latency);
    let achieved = format!("{unit}/s achieved / target");
    let heads = [
        &*achieved,
        "p50 ms",
        &head,
        "p99.9 ms",
        &against_head,
        "failed %",
        "failed against #0 [95% CI]",
    ];
    Columns::new(&heads, move |r| {
        let [lat, lat_against] = latency_cells(r, latency);
        let failed = r.figure(Metric::Failures);
        vec![
            format!("{} / {}", num(r.throughput.tps_median), opt(r.load.target_tps)),
            opt(r.figure(Metric::P50).value),
            lat,
            opt(r.figure(Metric::P999).value),
            lat_against,
            opt(failed.value),
            against(&failed.against, r.config == 0),
        ]
    })
}

/// A closed loop: the rate and its verdict first, the latency's beside it.
fn closed_loop(unit: &str, latency: Metric, counted: bool) -> Columns {
    let [head, against_head] = latency_heads(latency);
    let time = if counted { "ms/trial under valgrind" } else { "ms/trial" };
    let median = format!("{unit}/s median");
    let heads = [
        time,
        &median,
        "95% CI",
        "CV",
        "speed against #0 [95% CI] verdict",
        "p50 ms",
        &head,
        &against_head,
    ];
    Columns::new(&heads, move |r| {
        let t = &r.throughput;
        let [lat, lat_against] = latency_cells(r, latency);
        vec![
            num(t.time_ms_median),
            num(t.tps_median),
            interval_of(t.tps_median_ci95_low, t.tps_median_ci95_high),
            t.tps_cv
                .map_or("-".into(), |c| format!("{}{}", pct(c), if t.noisy { "!" } else { "" })),
            if r.config == 0 {
                "baseline".into()
            } else {
                ratio(r.ratio().as_ref())
            },
            opt(r.figure(Metric::P50).value),
            lat,
            lat_against,
        ]
    })
}

/// What the storage saw per transaction, and the rate its syncs alone would allow.
fn io() -> Columns {
    Columns::new(&["syncs/tx", "KiB w/tx", "device KiB w/tx", "sync-bound tx/s"], |r| {
        let io = &r.io;
        vec![
            io_cell(r, io.syncs_per_tx),
            io_cell(r, io.write_bytes_per_tx.map(|b| b / 1024.0)),
            opt(io.device_write_bytes_per_tx.map(|b| b / 1024.0)),
            opt(io.sync_bound_tps),
        ]
    })
}

/// An open loop's lag behind its schedule.
fn lags() -> Columns {
    Columns::new(&["lag p99 us", "lag max us"], |r| {
        vec![opt(r.load.lag_p99_us), opt(r.load.lag_max_us)]
    })
}

/// A shaped load's retries, skips and late transactions.
fn shaped() -> Columns {
    Columns::new(&["retries/trial", "skipped/trial", "late/trial"], |r| {
        let f = &r.failures;
        vec![opt_count(f.retries), opt_count(f.skipped), opt_count(f.late)]
    })
}

/// Give-ups on a lock, by the cause of the last try (`-`: not counted when the run was stored).
fn gave_up() -> Columns {
    Columns::new(&["busy/trial", "busy timeout", "busy upgrade", "busy snapshot"], |r| {
        let f = &r.failures;
        vec![
            num(f.busy),
            opt(f.busy_timeout),
            opt(f.busy_upgrade),
            opt(f.busy_snapshot),
        ]
    })
}

/// How long transactions slept in SQLite's busy handler, and how many did.
fn busy_waits() -> Columns {
    let heads = ["busy wait p50 ms", "busy wait p99 ms", "busy wait max ms", "waited %"];
    Columns::new(&heads, |r| {
        let w = r.busy_waits.clone().unwrap_or_default();
        let ms = |us: Option<f64>| opt(us.map(|u| u / 1000.0));
        vec![
            ms(w.busy_wait_p50_us),
            ms(w.busy_wait_p99_us),
            ms(w.busy_wait_max_us),
            opt(w.busy_waited_pct),
        ]
    })
}

/// `12.35 k [12.30 k..12.41 k]`: instructions per operation with their interval, or `-`.
pub fn instructions_cell(value: Option<f64>, ci95: Option<litebench_stats::Interval>) -> String {
    let Some(v) = value else {
        return "-".into();
    };
    let i = super::number::instructions;
    match ci95 {
        Some(c) => format!("{} [{}..{}]", i(v), i(c.low), i(c.high)),
        None => format!("{} [-]", i(v)),
    }
}

/// What marks an approximate per-operation I/O figure ([`SummaryRow::io_per_op_approximate`]).
pub const APPROXIMATE: &str = "~";

/// A VFS figure of `r`, marked [`APPROXIMATE`] where it is.
fn io_cell(r: &SummaryRow, v: Option<f64>) -> String {
    match v {
        Some(_) if r.io.io_per_op_approximate => format!("{APPROXIMATE}{}", opt(v)),
        _ => opt(v),
    }
}

/// What the [`APPROXIMATE`] marker means, where a row of `rows` carries it.
pub fn approximate_note(rows: &[SummaryRow]) -> Option<String> {
    rows.iter().any(|r| r.io.io_per_op_approximate).then(|| {
        format!(
            "{APPROXIMATE}: per-operation syncs and bytes are approximate: the run was stored before I/O was counted per client thread, and its client 0 charged every client's I/O to its own current operation; the `all` rows are exact, and runs made now count each client's own (docs/load.md)"
        )
    })
}

/// The spread across configurations, as one line.
pub fn spread_line(report: &Report<'_>) -> Option<String> {
    let s = report.spread.as_ref()?;
    let what = match s.metric {
        Metric::Tps => String::new(),
        m => format!(" by {} (slowest's over fastest's)", m.name()),
    };
    Some(format!(
        "spread: fastest / slowest{what} = {} [95% CI {}] {} ({} vs {})",
        super::number::times(s.ratio),
        interval_of(s.ci95_low, s.ci95_high),
        s.verdict.map_or("(too few trials for a verdict)", |v| v.as_str()),
        s.fastest,
        s.slowest
    ))
}

/// How intervals and verdicts were computed, as one line.
pub fn statistics_line(st: &super::Statistics) -> String {
    format!(
        "statistics: medians with {:.0}% intervals by {}; ratios by {}, seed {}; {}",
        st.confidence * 100.0,
        st.median_interval,
        st.ratio_interval,
        st.bootstrap_seed,
        super::number::verdict_rule(st.noise, st.instruction_noise)
    )
}

/// The population footprint table's header and cells.
pub fn footprint_table(report: &Report<'_>) -> (Vec<&'static str>, Vec<Vec<String>>) {
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
                // An empty template has no rate to speak of.
                if t.rows == 0 { "-".into() } else { num(t.rows_per_sec) },
                opt(t.bytes.map(|b| b as f64 / (1 << 20) as f64)),
                t.load_path.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    (
        vec![
            "engine",
            "create knobs",
            "rows",
            "seconds",
            "rows/s",
            "MiB on disk",
            "loaded by",
        ],
        rows,
    )
}

/// The reporting checklist's header and cells.
pub fn checklist_table(report: &Report<'_>) -> (Vec<&'static str>, Vec<Vec<String>>) {
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
    (vec!["", "item", "value"], rows)
}

/// The report as text; `md` for Markdown.
pub fn document(report: &Report<'_>, md: bool) -> String {
    super::layout::bounded(whole_document(report, md))
}

/// [`document`] before its lines are bounded.
fn whole_document(report: &Report<'_>, md: bool) -> String {
    let m = report.manifest;
    let mut out = String::new();
    out += &heading(
        &format!(
            "{} — {} — {} ({} trials + {} warm-up, seed {}{}, results {})",
            report.run.title(),
            m.workload,
            report.run.status,
            m.trials,
            m.warmup,
            m.seed,
            if m.load.is_default() {
                String::new()
            } else {
                format!(", {}", m.load_words())
            },
            report.run.results
        ),
        md,
    );
    if let Some(e) = &report.run.error {
        out += &format!("error: {e}\n");
    }
    if let Some(l) = super::schedule::header_line(m, report.workload, report.trials) {
        out += &format!("{l}\n");
    }
    out += "\n";
    if !md && !crate::base::terminal::all_columns() {
        return out + &compact_body(report);
    }
    let answer = super::answer::sentences(report);
    if !answer.is_empty() {
        out += &format!("answer: {}\n\n", answer.join(" "));
    }
    out += &super::curve::section(&report.curves, &report.unit(), md);
    out += &super::storage::section(report.storage.as_ref(), &report.unit(), md);
    out += &history_section(report, md);
    out += &lead_sections(report, md);
    let (headers, body) = summary_table(&report.summary, &report.unit(), report.metric);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    out += &table(&headers, &body, md);
    if let Some(n) = approximate_note(&report.summary) {
        out += &format!("{n}\n");
    }
    out += &wal_lines(report);
    out += &db_size_lines(report);
    if let Some(p) = &report.side_by_side {
        out += "\n";
        out += &heading("side by side", md);
        let (headers, body) = p.cells();
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        out += &table(&headers, &body, md);
    }
    if let Some(s) = spread_line(report) {
        out += &format!("\n{s}\n");
    }
    out += &statistics_line(&report.statistics);
    out += "\n";
    for w in &report.warnings {
        out += &warning(w, md);
    }
    for c in report.run_sections() {
        out += "\n";
        out += &heading(&c.title, md);
        out += &table(&c.headers, &c.rows, md);
    }
    if !report.footprint.is_empty() {
        out += "\n";
        out += &heading("population (template databases)", md);
        let (headers, rows) = footprint_table(report);
        out += &table(&headers, &rows, md);
    }
    out += &storage_again(report);
    out += "\n";
    out += &heading("reporting checklist (APSys'17)", md);
    let (headers, rows) = checklist_table(report);
    out += &table(&headers, &rows, md);
    if !report.durability.is_empty() {
        out += "\nDurability (stored verify-durability verdicts for the same SQLite build and settings):\n";
        for l in &report.durability {
            out += &format!("  {l}\n");
        }
    }
    out
}

/// `--storage`'s lines again at the foot of the numbers: an emulated run is said to be one
/// below them as above them (nothing without `--storage`).
fn storage_again(report: &Report<'_>) -> String {
    match &report.storage {
        Some(c) => format!("\n{}", super::storage::footer(c)),
        None => String::new(),
    }
}

/// The workload's own tables that lead its report ([`crate::workload::ReportSection::lead`]:
/// the queue's jobs and waits), each under its title, then a blank line.
fn lead_sections(report: &Report<'_>, md: bool) -> String {
    let mut out = String::new();
    for s in report
        .workload
        .hooks()
        .sections(report.manifest, report.trials)
        .into_iter()
        .filter(|s| s.lead)
    {
        out += &format!("{}\n", s.title);
        out += &table(&s.headers, &s.rows, md);
        out += "\n";
    }
    out
}

/// SQLite's history, release by release ([`super::history`]), then a blank line; nothing
/// unless the configurations are SQLite releases.
fn history_section(report: &Report<'_>, md: bool) -> String {
    report.history.as_ref().map_or_else(String::new, |h| h.text(md) + "\n")
}

/// Each configuration's WAL in a line (peak, final, verdict), after a blank line; nothing when
/// no configuration had a WAL.
fn wal_lines(report: &Report<'_>) -> String {
    if report.wal.is_empty() {
        return String::new();
    }
    let mut out = "\n".to_string();
    for w in &report.wal {
        out += &super::wal::line(w);
        out += "\n";
    }
    out
}

/// Each configuration's database file in a line (size, free pages, live payload), after a
/// blank line; nothing for a workload that does not ask for it.
fn db_size_lines(report: &Report<'_>) -> String {
    if report.db_size.is_empty() {
        return String::new();
    }
    let mut out = "\n".to_string();
    for d in &report.db_size {
        out += &super::db_size::line(d);
        out += "\n";
    }
    out
}

/// A laid-out table from owned cells.
fn table_of(t: &super::compact::Table) -> String {
    let headers: Vec<&str> = t.0.iter().map(String::as_str).collect();
    table(&headers, &t.1, false)
}

/// The body of the compact view ([`super::compact`]) after the run's heading: the answer in
/// words, the configurations, each script's (operation type's) latency and failures, the
/// warnings, the statements' latencies, the population, and the checklist in one line.
fn compact_body(report: &Report<'_>) -> String {
    let c = super::compact::compact(report);
    let mut out = String::new();
    let answer = super::answer::sentences(report);
    if !answer.is_empty() {
        out += &format!("answer: {}\n\n", answer.join(" "));
    }
    out += &super::curve::section(&report.curves, &report.unit(), false);
    out += &super::storage::section(report.storage.as_ref(), &report.unit(), false);
    out += &history_section(report, false);
    out += &lead_sections(report, false);
    out += &match &c.common {
        Some(common) => format!("configurations (every one: {common})\n"),
        None => "configurations\n".to_string(),
    };
    out += &table_of(&c.configs);
    if let Some(ops) = &c.operations {
        out += "\n";
        out += &table_of(ops);
    }
    out += &format!("{}\n", c.caption);
    if let Some(n) = approximate_note(&report.summary) {
        out += &format!("{n}\n");
    }
    if let Some(n) = &c.note {
        out += &format!("note: {n}\n");
    }
    out += &wal_lines(report);
    out += &db_size_lines(report);
    if !report.warnings.is_empty() {
        out += "\n";
    }
    for w in &report.warnings {
        out += &warning(w, false);
    }
    if let Some(st) = &c.statements {
        out += "\nstatements (latency from the start of each statement)\n";
        out += &table_of(st);
    }
    for c in report.run_sections() {
        out += &format!("\n{}\n", c.title);
        out += &table(&c.headers, &c.rows, false);
    }
    if !report.footprint.is_empty() {
        out += "\n";
        out += &heading("population (template databases)", false);
        let (headers, rows) = footprint_table(report);
        out += &table(&headers, &rows, false);
    }
    out += &storage_again(report);
    let unknown: Vec<&str> = report
        .checklist
        .iter()
        .filter(|i| !i.known)
        .map(|i| i.item.as_str())
        .collect();
    out += &if unknown.is_empty() {
        format!(
            "\nreporting checklist (APSys'17): all {} items recorded; --all prints them\n",
            report.checklist.len()
        )
    } else {
        format!(
            "\nreporting checklist (APSys'17): UNKNOWN: {}; --all prints every item\n",
            unknown.join(", ")
        )
    };
    for l in &report.durability {
        out += &format!("durability: {l}\n");
    }
    let again = answer_again(&answer, &out);
    out + &again
}

/// The answer said again at the end of a view longer than one screen, where a terminal leaves
/// the reader: its first lines have scrolled away by then.
fn answer_again(answer: &[String], body: &str) -> String {
    let width = crate::base::terminal::width().unwrap_or(80);
    if answer.is_empty() || crate::base::terminal::rows(body, width) + 4 <= crate::base::terminal::height() {
        return String::new();
    }
    format!("\nanswer (as above): {}\n", answer.join(" "))
}
