//! The HTML page: escaping, tables and the order of a run's sections.
//!
//! The page is self-contained on purpose: a report is mailed, attached to an issue or opened
//! years later offline, so it loads nothing (styles inline, charts as inline SVG, no script).
//! A run's section answers its question on the first screen (the side-by-side verdicts and
//! their chart), then gives the warnings that qualify the answer, then the details; the
//! manifest and the reporting checklist are folded. The tables are the text exporters' cells.

use super::data::Figure;
use crate::report::profile::{self, QueryProfile};
use crate::report::{text, Format, Report};

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A table from a header and cells (all escaped).
pub fn table<H: AsRef<str>>(headers: &[H], rows: &[Vec<String>]) -> String {
    table_of_class("", headers, rows)
}

/// A table with a CSS class (`kv`: names in the first column, kept on one line).
pub fn table_of_class<H: AsRef<str>>(class: &str, headers: &[H], rows: &[Vec<String>]) -> String {
    let mut o = if class.is_empty() {
        String::from("<div class=\"scroll\"><table>\n")
    } else {
        format!("<div class=\"scroll\"><table class=\"{}\">\n", esc(class))
    };
    if headers.iter().any(|h| !h.as_ref().is_empty()) {
        o += "<thead><tr>";
        for h in headers {
            o += &format!("<th>{}</th>", esc(h.as_ref()));
        }
        o += "</tr></thead>\n";
    }
    o += "<tbody>\n";
    for r in rows {
        o += "<tr>";
        for c in r {
            o += &format!("<td>{}</td>", esc(c));
        }
        o += "</tr>\n";
    }
    o += "</tbody></table></div>\n";
    o
}

const STYLE: &str = r#"
body { font-family: "DejaVu Sans", system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 2em; color: #1b1b1b; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #4e79a7; padding-bottom: 0.2em; margin-top: 1.2em; }
h3 { margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #d0d0d0; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f2f4f7; }
tbody tr:nth-child(even) { background: #fafafa; }
.scroll { overflow-x: auto; }
table.kv td:first-child { white-space: nowrap; font-weight: 600; }
.toc { font-size: 0.9em; }
.toc a { margin-right: 0.8em; }
.warnings { background: #fff4e5; border-left: 4px solid #f28e2b; padding: 0.5em 1em 0.5em 2em; margin: 0.5em 0; }
.warnings li { margin: 0.2em 0; }
.ok { color: #2d7a2d; }
.bad { color: #b00020; font-weight: bold; }
.error { background: #fde8ea; border-left: 4px solid #e15759; padding: 0.5em 1em; }
.meta { color: #555; font-size: 0.9em; }
figure.chart { margin: 1.5em 0; }
figure.chart svg { width: 100%; height: auto; max-width: 960px; display: block; }
.row figure.chart svg { max-width: 420px; }
figure.chart figcaption { color: #555; font-size: 0.85em; max-width: 960px; }
.row { display: flex; flex-wrap: wrap; gap: 1em; }
.row figure.chart { flex: 1 1 360px; margin: 0.5em 0; }
pre { background: #f6f8fa; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }
nav li { margin: 0.2em 0; }
.question { font-size: 1.1em; font-weight: 600; margin: 0.6em 0 0.2em; }
.answer figure.chart { margin: 0.5em 0; }
.answer-words { font-size: 1.05em; margin: 0.2em 0 0.6em; max-width: 1100px; }
.answer-row { flex-wrap: nowrap; align-items: flex-start; }
.answer-row .scroll { flex: 0 1 auto; }
.answer-row figure.chart { flex: 1 1 420px; margin: 0; }
.answer-row figure.chart svg { max-width: 560px; }
.answer-row figure.chart figcaption { display: none; }
.answer-row figure.chart h4 { margin: 0 0 0.2em; font-size: 0.95em; }
details { margin: 0.8em 0; }
details > summary { cursor: pointer; font-weight: 600; font-size: 1.05em; }
"#;

/// A figure element with its chart's SVG. `data-bars` and `data-lines` say how many bars and
/// lines the chart was given, `data-whiskers` how many of its bars have a whisker and
/// `data-y-scale` which value axis was chosen (`log` or `linear`), for tests that check what
/// the browser drew.
pub fn figure(fig: &Figure, svg: &str, run: i64) -> String {
    format!(
        "<figure class=\"chart\" id=\"run{run}-{id}\" data-chart=\"{id}\" data-bars=\"{}\" data-lines=\"{}\" data-whiskers=\"{}\" data-y-scale=\"{}\">\n<h4>{}</h4>\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
        fig.bars(),
        fig.lines(),
        fig.whiskers(),
        if fig.y_log() { "log" } else { "linear" },
        esc(&fig.title),
        svg,
        esc(&fig.note),
        id = esc(&fig.id),
    )
}

/// Workload parameters as `name=value` pairs.
fn params(p: &crate::model::params::Params) -> String {
    match serde_json::to_value(p) {
        Ok(serde_json::Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}={s}"),
                v => format!("{k}={v}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        Ok(v) => v.to_string(),
        Err(_) => "unknown".into(),
    }
}

/// The manifest's main facts as a two-column table, the whole manifest as JSON below it.
fn manifest(report: &Report<'_>) -> String {
    let m = report.manifest;
    let mach = &m.environment.machine;
    // In a guest kernel the storage that matters is the host's, under the guest's images.
    let in_guest = m.guest.as_ref().and_then(|g| g.host_storage.as_ref());
    let st = in_guest.unwrap_or(&m.environment.storage);
    let unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".into());
    let mut rows = vec![
        vec!["command".into(), m.command.join(" ")],
        vec!["litebench".into(), m.tool_version.clone()],
        vec!["workload".into(), format!("{} ({})", m.workload, m.workload_source)],
        vec!["parameters".into(), params(&m.params)],
        vec![
            "trials".into(),
            format!(
                "{} measured + {} warm-up per configuration, seed {}",
                m.trials, m.warmup, m.seed
            ),
        ],
        vec![
            "page cache".into(),
            if m.cold_cache {
                "dropped before each trial (cold)"
            } else {
                "warm"
            }
            .into(),
        ],
        vec![
            "databases".into(),
            if m.in_memory { "in memory" } else { "files" }.into(),
        ],
        vec!["started".into(), m.started_at.clone()],
        vec![
            "finished".into(),
            report.run.finished_at.clone().unwrap_or_else(|| "-".into()),
        ],
        vec!["results store".into(), report.run.results.clone()],
        vec!["scratch directory".into(), m.scratch_dir.clone()],
        vec![
            "machine".into(),
            format!("{} ({} CPUs, {})", unknown(&mach.cpu_model), mach.cpu_count, mach.arch),
        ],
        vec![
            "system".into(),
            format!("{}, kernel {}", unknown(&mach.os), unknown(&mach.kernel)),
        ],
        vec![
            "storage".into(),
            format!(
                "{} from {}{}{}",
                unknown(&st.fs_type),
                unknown(&st.mount_source),
                st.journaling
                    .as_ref()
                    .map_or(String::new(), |j| format!(", journaling {j}")),
                if st.ram_backed { " (RAM-backed)" } else { "" }
            ) + if in_guest.is_some() {
                ", on the host, under the guest's images"
            } else {
                ""
            },
        ],
        vec![
            "sync latency (median)".into(),
            match (&m.sync_latency, &m.sync_latency_not_measured) {
                (Some(l), _) => format!("{:.1} us", l.median_us),
                (None, Some(why)) => format!("not measured: {why}"),
                (None, None) => "not measured".into(),
            },
        ],
    ];
    if let Some(g) = &m.guest {
        rows.push(vec![
            "guest kernel".into(),
            format!(
                "{} {}, {} MiB, on host Linux {}; disks: {}{}",
                g.kernel,
                g.release,
                g.memory_mib,
                g.host_release,
                g.disk_mode,
                match g.o_sync_verified {
                    Some(true) => " (O_SYNC verified)",
                    _ => " (O_SYNC NOT verified)",
                }
            ),
        ]);
    }
    for e in &m.engines {
        rows.push(vec![format!("engine {}", e.label), format!("{} {}", e.kind, e.version)]);
    }
    for c in &m.configs {
        rows.push(vec![format!("configuration #{}", c.index), c.label.clone()]);
    }
    let json = serde_json::to_string_pretty(m).unwrap_or_default();
    format!(
        "{}<details><summary>the whole manifest (JSON)</summary><pre>{}</pre></details>\n",
        table_of_class("kv", &["", ""], &rows),
        esc(&json)
    )
}

/// The tables the run's workload adds ([`crate::workload::WorkloadReport::sections`]), then
/// the drivers and a cast's holds and checkpoints ([`Report::run_sections`]), each under its title.
fn workload_sections(report: &Report<'_>) -> String {
    let mut sections = report.workload.hooks().sections(report.manifest, report.trials);
    sections.extend(report.run_sections());
    let mut o = String::new();
    for s in sections.into_iter().filter(|s| !s.lead) {
        o += &format!("<h3>{}</h3>\n", esc(&s.title));
        o += &table(&s.headers, &s.rows);
    }
    o
}

/// Query plans and per-loop profiles (SSB), as `show --profile` prints them.
fn profiles(p: &[QueryProfile]) -> String {
    format!("<pre>{}</pre>\n", esc(&profile::render(p, Format::Table)))
}

/// The question a run's page answers, as one sentence: which configuration is fastest, or how
/// fast the one configuration ran, in the workload's metric.
pub fn question(report: &Report<'_>) -> String {
    let m = report.manifest;
    let what = match report.metric {
        crate::report::stats::Metric::Tps => format!("{}/s", report.unit()),
        crate::report::stats::Metric::Time => "time per trial".to_string(),
        crate::report::stats::Metric::Failures => "% of transactions failed".to_string(),
        crate::report::stats::Metric::Instructions => "instructions per operation".to_string(),
        m => format!("{} latency", m.name()),
    };
    let trials = format!(
        "median of {} measured trial{}",
        m.trials,
        if m.trials == 1 { "" } else { "s" }
    );
    if let Some(q) = report.workload.hooks().question(m) {
        return q;
    }
    if let Some(cast) = &m.load.cast {
        let roles: Vec<&str> = cast.workload_roles().map(|r| r.name.as_str()).collect();
        let roles = roles.join(", ");
        return match m.configs.as_slice() {
            [one] => format!(
                "What does each role ({roles}) get when {} runs as {} ({what} and failures per role, {trials})?",
                m.workload, one.label
            ),
            configs => format!(
                "How do the roles ({roles}) fare in the {} configurations of {} ({what} and failures per role, {trials}; each against #0)?",
                configs.len(),
                m.workload
            ),
        };
    }
    match m.configs.as_slice() {
        [one] => format!("How fast does {} run as {} ({what}, {trials})?", m.workload, one.label),
        configs => format!(
            "How do the {} configurations compare at {} ({what}, {trials}; each against #0)?",
            configs.len(),
            m.workload
        ),
    }
}

/// The answer to [`question`], on the first screen: the answer in words ([`crate::report::answer`]),
/// the compact table of the configurations (what differs between them as columns, their
/// whole-run figures and verdicts), beside it in an open loop the latency percentiles of the
/// whole run (the chart that answers a latency question), then one row per configuration and
/// operation type ([`crate::report::compact`]), the spread, and in a closed loop the chart of
/// the answer's numbers.
fn answer(report: &Report<'_>, chart: Option<&(Figure, String)>, scaling: &[&(Figure, String)]) -> String {
    let id = report.run.id;
    let mut o = format!(
        "<div class=\"answer\" id=\"run{id}-answer\">\n<p class=\"question\">{}</p>\n",
        esc(&question(report))
    );
    let words = crate::report::answer::sentences(report);
    if !words.is_empty() {
        o += &format!("<p class=\"answer-words\">{}</p>\n", esc(&words.join(" ")));
    }
    // Drivers whose SQLite builds ran at different `synchronous` defaults: the winner may
    // only have synced less, which is said where the winner is named.
    for w in crate::report::drivers::warnings(report.manifest) {
        o += &format!("<p class=\"answer-words\">{}.</p>\n", esc(&upper_first(&w)));
    }
    // The workload's own table of what the run is for (the queue's jobs and waits).
    let lead = report.workload.hooks().sections(report.manifest, report.trials);
    for s in lead.into_iter().filter(|s| s.lead) {
        o += &format!("<p class=\"meta\">{}</p>\n", esc(&s.title));
        o += &table(&s.headers, &s.rows);
    }
    // A sweep's curve, where scaling stops first: what the sweep was run to find.
    for c in &report.curves {
        o += &format!("<p class=\"answer-words\">{}.</p>\n", esc(&upper_first(&c.line)));
    }
    // `--storage`: the winner at each storage value, and what the storage was.
    o += &super::storage::answer(report);
    // SQLite's history: its largest steps between neighbouring releases.
    if let Some(h) = &report.history {
        o += &format!("<p class=\"answer-words\">{}</p>\n", esc(&h.steps_sentence()));
        let (headers, rows) = h.cells();
        o += &table_of_class("history", &headers, &rows);
    }
    // A WAL that grows without bound is a disk that fills, and one many times its database
    // is disk and read time spent: said in the answer, with the role or setting the record
    // shows behind it (the chart is under the over-time figures).
    for w in report
        .wal
        .iter()
        .filter(|w| w.verdict == crate::report::wal::WalVerdict::Grows || w.many_times_db().is_some())
    {
        o += &format!("<p class=\"answer-words\">{}.</p>\n", esc(&crate::report::wal::line(w)));
    }
    // How big an aged database got: its file, its free pages and its live payload.
    for d in &report.db_size {
        o += &format!(
            "<p class=\"answer-words\">{}.</p>\n",
            esc(&crate::report::db_size::line(d))
        );
    }
    if !scaling.is_empty() {
        o += "<div class=\"row\">\n";
        for (fig, svg) in scaling {
            o += &figure(fig, svg, id);
        }
        o += "</div>\n";
    }
    let c = crate::report::compact::compact(report);
    if let Some(common) = &c.common {
        o += &format!("<p class=\"meta\">Every configuration: {}</p>\n", esc(common));
    }
    let configs = table_of_class("answer", &c.configs.0, &c.configs.1);
    let open = report.manifest.load.open();
    match chart {
        Some((fig, svg)) if open => {
            o += "<div class=\"row answer-row\">\n";
            o += &configs;
            o += &figure(fig, svg, id);
            o += "</div>\n";
        }
        _ => o += &configs,
    }
    if let Some((h, rows)) = &c.operations {
        o += &table_of_class("answer-ops", h, rows);
    }
    o += &format!("<p class=\"meta\">{}</p>\n", esc(&c.caption));
    if let Some(n) = &c.note {
        o += &format!("<p class=\"meta\">{}</p>\n", esc(n));
    }
    if let Some(s) = text::spread_line(report) {
        o += &format!("<p class=\"meta\">{}</p>\n", esc(&s));
    }
    if let Some((fig, svg)) = chart.filter(|_| !open) {
        o += &figure(fig, svg, id);
    }
    o += "</div>\n";
    o
}

/// Whether a figure is the answer's chart: in an open loop the whole run's latency
/// percentiles, else the chart of each operation's median in the headline metric.
fn answers(report: &Report<'_>, fig: &Figure) -> bool {
    if report.manifest.load.open() {
        fig.id == "latency-all"
    } else {
        fig.id == "throughput" || fig.id == "time"
    }
}

/// `text` with its first letter a capital, as a sentence starts; unless it starts with a name
/// that is written as it is (`journal_mode=wal`, `#1`, `writer:all`: "Journal_mode" is no name).
fn upper_first(text: &str) -> String {
    let first = text.split_whitespace().next().unwrap_or("");
    if first.contains(['_', '=', ':', '#', '@', '.']) {
        return text.to_string();
    }
    let mut c = text.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// Whether a figure is a sweep's scaling curve ([`super::data::scaling`]) or SQLite's history
/// ([`super::releases`]), drawn in the answer.
fn is_scaling(fig: &Figure) -> bool {
    fig.id.starts_with("scaling-") || fig.id.starts_with("history-") || fig.id.starts_with("workload-")
}

/// Content folded under a summary line: there for whoever wants it, off the first screen.
fn folded(id: &str, summary: &str, body: &str) -> String {
    format!(
        "<details id=\"{}\"><summary>{}</summary>\n{}</details>\n",
        esc(id),
        esc(summary),
        body
    )
}

/// One run's section. `charts` are the run's figures with their SVG, in page order.
///
/// The order is a reader's: the question and its answer (the side-by-side table with verdicts
/// and its chart) first, then the warnings that qualify the answer, then the details (the
/// summary, the other charts, the workload's own tables), with the manifest and the reporting
/// checklist folded at the end. Results used to start 1,900 px down, under the manifest.
pub fn run_section(report: &Report<'_>, charts: &[(Figure, String)], durability: &[String]) -> String {
    let r = &report.run;
    let m = report.manifest;
    let mut o = format!(
        "<section id=\"run-{}\">\n<h2>Run {} — {} — {}</h2>\n<p class=\"meta\">{} configuration{}, {} measured trials each, started {}</p>\n",
        r.id,
        r.id,
        esc(&m.workload),
        esc(&r.status),
        m.configs.len(),
        if m.configs.len() == 1 { "" } else { "s" },
        m.trials,
        esc(&m.started_at)
    );
    if let Some(e) = &r.error {
        o += &format!("<p class=\"error\">error: {}</p>\n", esc(e));
    }
    let id = r.id;
    o += "<p class=\"toc\">";
    for (anchor, name) in [
        ("answer", "answer"),
        ("warnings", "warnings"),
        ("summary", "summary"),
        ("charts", "charts"),
        ("manifest", "manifest"),
        ("checklist", "checklist"),
    ] {
        o += &format!("<a href=\"#run{id}-{anchor}\">{name}</a>");
    }
    o += "</p>\n";
    let scaling: Vec<&(Figure, String)> = charts.iter().filter(|(f, _)| is_scaling(f)).collect();
    o += &answer(report, charts.iter().find(|(f, _)| answers(report, f)), &scaling);
    o += &format!("<h3 id=\"run{id}-warnings\">Warnings</h3>\n");
    if report.warnings.is_empty() {
        o += "<p class=\"ok\">none</p>\n";
    } else {
        o += "<ul class=\"warnings\">\n";
        for w in &report.warnings {
            o += &format!("<li>{}</li>\n", esc(w));
        }
        o += "</ul>\n";
    }
    o += &format!("<h3 id=\"run{id}-summary\">Summary</h3>\n");
    let (h, rows) = text::summary_table(&report.summary, &report.unit(), report.metric);
    o += &table(&h, &rows);
    if let Some(n) = text::approximate_note(&report.summary) {
        o += &format!("<p class=\"meta approximate\">{}</p>\n", esc(&n));
    }
    o += "<p class=\"meta\">";
    o += &esc(&text::statistics_line(&report.statistics));
    o += "</p>\n";
    if !durability.is_empty() {
        o += &format!("<h3 id=\"run{id}-durability\">Durability</h3>\n");
        o += "<p class=\"meta\">Stored <code>verify-durability</code> verdicts for the same SQLite build and settings, beside each configuration's throughput:</p>\n<ul>\n";
        for l in durability {
            o += &format!("<li>{}</li>\n", esc(l));
        }
        o += "</ul>\n";
    }
    o += &workload_sections(report);
    o += &format!("<h3 id=\"run{id}-charts\">Charts</h3>\n");
    if charts.is_empty() {
        o += "<p>No measured trials: nothing to chart.</p>\n";
    }
    let mut in_row = false;
    for (fig, svg) in charts.iter().filter(|(f, _)| !answers(report, f) && !is_scaling(f)) {
        let beside = fig.id.starts_with("beside-");
        if beside && !in_row {
            o += "<div class=\"row\">\n";
            in_row = true;
        } else if !beside && in_row {
            o += "</div>\n";
            in_row = false;
        }
        o += &figure(fig, svg, r.id);
    }
    if in_row {
        o += "</div>\n";
    }
    if !report.footprint.is_empty() {
        o += "<h3>Population (template databases)</h3>\n";
        let (h, rows) = text::footprint_table(report);
        o += &table(&h, &rows);
    }
    let p = profile::collect(m, report.trials);
    if !p.is_empty() {
        o += "<h3>Query plans and profiles</h3>\n<p class=\"meta\">Each configuration's first measured trial, as <code>litebench show --profile</code> prints them.</p>\n";
        o += &profiles(&p);
    }
    o += &folded(
        &format!("run{id}-manifest"),
        "Manifest: what ran, where, and how",
        &manifest(report),
    );
    let (h, rows) = text::checklist_table(report);
    o += &folded(
        &format!("run{id}-checklist"),
        "Reporting checklist (APSys'17)",
        &table(&h, &rows),
    );
    o += "</section>\n";
    o
}

/// The whole document around the runs' sections.
pub fn document(sections: &[(i64, String, String)]) -> String {
    let mut o = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>litebench report</title>\n<style>");
    o += STYLE;
    o += "</style>\n</head>\n<body>\n<h1>litebench report</h1>\n";
    o += &format!(
        "<p class=\"meta\">Written by litebench {} at {}. Self-contained: no scripts, nothing loaded from elsewhere.</p>\n",
        env!("CARGO_PKG_VERSION"),
        crate::base::time::now_rfc3339()
    );
    if sections.len() > 1 {
        o += "<nav><ul>\n";
        for (id, title, _) in sections {
            o += &format!("<li><a href=\"#run-{id}\">{}</a></li>\n", esc(title));
        }
        o += "</ul></nav>\n";
    }
    for (_, _, body) in sections {
        o += body;
    }
    o += "</body>\n</html>\n";
    o
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_sentence_starts_with_a_capital_unless_it_starts_with_a_name() {
        assert_eq!(upper_first("every configuration"), "Every configuration");
        assert_eq!(
            upper_first("journal_mode=wal in every one"),
            "journal_mode=wal in every one"
        );
        assert_eq!(upper_first("#1 is faster"), "#1 is faster");
        assert_eq!(upper_first(""), "");
    }

    use super::*;
    use crate::report::html::data::tests::{manifest, report, trials};

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        let t = table(&["a<b"], &[vec!["<script>".into()]]);
        assert!(t.contains("a&lt;b") && t.contains("&lt;script&gt;") && !t.contains("<script>"));
        // A header of empty names is no header.
        assert!(!table(&["", ""], &[vec!["k".into(), "v".into()]]).contains("<thead>"));
    }

    #[test]
    fn tatp_success_rates_are_judged_against_the_specification() {
        let mut m = manifest(&[&[]]);
        m.workload = "tatp".into();
        let mut t = trials(1, 2, &crate::workload::tatp::mix::TXNS);
        // GET_SUBSCRIBER_DATA must always succeed: one failure in a measured trial is off.
        let measured = t.iter_mut().find(|t| !t.warmup).unwrap();
        measured.ops[0].succeeded = Some(measured.ops[0].ops - 1);
        let html = workload_sections(&report(&m, &t));
        let row = |name: &str| -> String {
            let i = html.find(&format!("<td>{name}</td>")).unwrap();
            html[i..i + html[i..].find("</tr>").unwrap()].to_string()
        };
        assert!(row("GET_SUBSCRIBER_DATA").contains("OFF"), "{html}");
        assert!(row("GET_SUBSCRIBER_DATA").contains("99.00%"), "{html}");
        // UPDATE_LOCATION succeeded every time: as expected.
        assert!(row("UPDATE_LOCATION").contains("as expected"), "{html}");
        assert!(
            row("GET_NEW_DESTINATION").contains("23.90%"),
            "the specification's stated rate"
        );
    }
}
