//! `litebench report` and `run --report`: a self-contained HTML page, `--plots` files, the
//! exit codes of bad input, and the page rendered in headless Chromium (loads without errors or
//! requests, each chart drew the bars and lines it was given).

use crate::cli::browser::{Browser, CHROMIUM};
use crate::cli::common::*;
use std::path::Path;

/// A tiny crud run with three journal modes: 3 configurations x 3 operation types.
fn seeded() -> Sandbox {
    let sb = Sandbox::new();
    assert_success(&output(&mut sb.run(&[
        "crud",
        "--param",
        "rows=200",
        "--param",
        "inserts=20",
        "--param",
        "updates=20",
        "--param",
        "deletes=20",
        "--trials",
        "3",
        "--warmup",
        "0",
        "--quiet",
        "--knob",
        "journal_mode=delete,truncate,wal",
    ])));
    sb
}

fn report(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    output(&mut sb.stored(&[&["report"], args].concat()))
}

/// The figures of a page as (chart id, data-bars, data-lines), in page order.
fn figures(html: &str) -> Vec<(String, usize, usize)> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        let i = tag.find(&key).unwrap_or_else(|| panic!("{name} missing in {tag}")) + key.len();
        tag[i..].split('"').next().unwrap().to_string()
    };
    html.split("<figure ")
        .skip(1)
        .map(|f| {
            let tag = &f[..f.find('>').unwrap()];
            (
                attr(tag, "data-chart"),
                attr(tag, "data-bars").parse().unwrap(),
                attr(tag, "data-lines").parse().unwrap(),
            )
        })
        .collect()
}

/// Fails on anything a page could fetch: scripts, stylesheets, images, frames, fonts or any
/// other http(s) URL (the SVG namespace name is an identifier, not a resource).
fn assert_self_contained(html: &str) {
    let stripped = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for bad in [
        "http://", "https://", "<script", "<link", "<img", "<iframe", "src=", "url(", "@import",
    ] {
        assert!(
            !stripped.contains(bad),
            "the report refers to something outside it: {bad}"
        );
    }
}

#[test]
fn report_writes_one_self_contained_page_with_every_chart() {
    let sb = seeded();
    let page = sb.root().join("out.html");
    let plots = sb.root().join("plots");
    let o = report(&sb, &["-o", page.to_str().unwrap(), "--plots", plots.to_str().unwrap()]);
    assert_success(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    // The question and its answer (the side-by-side verdicts and their chart) come first, then
    // the warnings, then the details, with the manifest and the checklist folded at the end.
    let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s} missing"));
    let answer = at("<table class=\"answer\">");
    let end = answer + html[answer..].find("</table>").unwrap();
    assert!(
        html[answer..end].contains("<th>journal_mode</th>") && html[answer..end].matches("<tr>").count() == 4,
        "the answer table has a row per configuration (3) under its header, the knob that differs as a column"
    );
    assert!(at("class=\"question\"") < at("class=\"answer-words\""));
    assert!(at("class=\"answer-words\"") < answer);
    assert!(
        answer < at("<table class=\"answer-ops\">"),
        "then a row per configuration and operation"
    );
    assert!(
        answer < at("id=\"run1-throughput\""),
        "the answer's chart follows its table"
    );
    assert!(at("id=\"run1-throughput\"") < at(">Warnings</h3>"));
    assert!(at(">Warnings</h3>") < at(">Charts</h3>"));
    for folded in ["<details id=\"run1-manifest\">", "<details id=\"run1-checklist\">"] {
        assert!(at(">Charts</h3>") < at(folded), "{folded} is folded after the charts");
    }
    let figs = figures(&html);
    let get = |id: &str| {
        figs.iter()
            .find(|f| f.0 == id)
            .unwrap_or_else(|| panic!("{id} missing in {figs:?}"))
    };
    assert_eq!(get("throughput").1, 9, "3 configurations x 3 operations");
    assert_eq!(get("beside-throughput").1, 3);
    assert_eq!(get("beside-syncs").1, 3, "SQLite's syncs are counted");
    assert_eq!(get("knob-journal-mode").2, 3, "one line per operation");
    for op in ["insert", "update", "delete"] {
        assert_eq!(get(&format!("latency-{op}")).2, 3, "one line per configuration");
    }
    assert_eq!(get("trials").2, 3);
    // --plots: an SVG and a PNG per chart.
    let mut files = listing(&plots);
    files.sort();
    assert_eq!(files.len(), 2 * figs.len(), "{files:?}");
    for (id, _, _) in &figs {
        for ext in ["svg", "png"] {
            let f = plots.join(format!("run1-{id}.{ext}"));
            let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            assert!(bytes.len() > 1000, "{} is nearly empty", f.display());
        }
    }
    assert!(std::fs::read(plots.join("run1-trials.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    // Written again: neither the page nor the plots are replaced.
    let o = report(&sb, &["-o", page.to_str().unwrap()]);
    assert_error_line(&o, &["-o", "already exists"]);
    let again = sb.root().join("again.html");
    let o = report(
        &sb,
        &["-o", again.to_str().unwrap(), "--plots", plots.to_str().unwrap()],
    );
    assert_error_line(&o, &["--plots", "already exists"]);
    assert!(!again.exists());
}

#[test]
fn bad_report_input_is_one_line_and_exit_2() {
    let sb = seeded();
    let o = report(&sb, &["99"]);
    assert_error_line(&o, &["no run 99"]);
    let o = report(&sb, &["-o", "/nonexistent-dir/r.html"]);
    assert_error_line(&o, &["-o /nonexistent-dir/r.html", "does not exist"]);
    let o = report(&sb, &["-o", sb.root().to_str().unwrap()]);
    assert_error_line(&o, &["is a directory"]);
    // A directory nobody can create files in, root included.
    let o = report(&sb, &["-o", "/proc/litebench-report.html"]);
    assert_error_line(&o, &["-o /proc/litebench-report.html", "cannot write"]);
    // The default file is never overwritten: a plain `report` takes the next free name, says so.
    std::fs::write(sb.cwd().join("report.html"), "mine").unwrap();
    let o = report(&sb, &[]);
    assert_success(&o);
    assert!(
        stderr(&o).contains("wrote report-2.html (report.html exists; litebench never replaces a file)"),
        "{}",
        describe(&o)
    );
    assert_eq!(std::fs::read_to_string(sb.cwd().join("report.html")).unwrap(), "mine");
    assert!(std::fs::read_to_string(sb.cwd().join("report-2.html"))
        .unwrap()
        .contains("<html"));
    std::fs::remove_file(sb.cwd().join("report-2.html")).unwrap();
    // --plots naming a file.
    let o = report(&sb, &["-o", "x.html", "--plots", "report.html"]);
    assert_error_line(&o, &["--plots report.html", "not a directory"]);
    assert!(!sb.cwd().join("x.html").exists());
    // A font that is not there.
    let mut cmd = sb.stored(&["report", "-o", "z.html"]);
    assert_error_line(
        &output(cmd.env("LITEBENCH_FONT", "/nonexistent/font.ttf")),
        &["LITEBENCH_FONT=/nonexistent/font.ttf", "no such file"],
    );
    assert!(!sb.cwd().join("z.html").exists());
    // No store at all.
    let mut cmd = sb.litebench();
    cmd.args(["report", "--results"])
        .arg(sb.root().join("none.db"))
        .args(["-o", "y.html"]);
    assert_error_line(&output(&mut cmd), &["--results", "no results store"]);
}

#[test]
fn run_writes_its_report_at_the_end() {
    let sb = Sandbox::new();
    let page = sb.root().join("run.html");
    let o = output(&mut sb.run_tiny(&["crud", "--report", page.to_str().unwrap()]));
    assert_success(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(
        html.contains("Run 1 — crud — complete"),
        "{}",
        &html[..500.min(html.len())]
    );
    // A --report that cannot be written is refused before anything runs.
    let o = output(&mut sb.run_tiny(&["crud", "--report", "/nonexistent-dir/r.html"]));
    assert_error_line(&o, &["--report /nonexistent-dir/r.html", "does not exist"]);
    // Two runs on one page (a run named twice appears once), each with its own charts.
    assert_success(&output(&mut sb.run_tiny(&["crud", "--knob", "synchronous=full,off"])));
    let both = sb.root().join("both.html");
    assert_success(&report(&sb, &["2", "1", "2", "-o", both.to_str().unwrap()]));
    let html = std::fs::read_to_string(&both).unwrap();
    assert_self_contained(&html);
    // The runs' comparison (section 0), then each run once.
    assert_eq!(
        html.matches("<section id=\"run-").count() - html.matches("<section id=\"run-0\">").count(),
        2
    );
    let (two, one) = (html.find("id=\"run-2\"").unwrap(), html.find("id=\"run-1\"").unwrap());
    assert!(two < one, "runs appear in the order given");
    assert!(html.contains("<a href=\"#run-1\">") && html.contains("<a href=\"#run-2\">"));
    assert!(html.contains("id=\"run1-throughput\"") && html.contains("id=\"run2-throughput\""));
    assert!(html.contains("id=\"run2-knob-synchronous\""), "run 2 varies one knob");
    // Before the runs, their comparison: `compare 2 1`'s verdict table, the first run given as A.
    let cmp = html
        .find("<div class=\"comparison\" id=\"compare-2-1\">")
        .expect("the runs compared");
    assert!(cmp < two, "the comparison comes before the runs");
    let comparison = &html[cmp..cmp + html[cmp..].find("</section>").unwrap()];
    let verdicts = first_table(
        comparison,
        comparison.find("B against A").expect("the verdict table") - 200,
    );
    assert!(verdicts[0].iter().any(|h| h == "verdict"), "{comparison}");
    // As `compare` says it: run 2's synchronous=full matches no configuration of run 1's defaults.
    assert!(
        comparison.contains("configuration `defaults` is only in B"),
        "{comparison}"
    );
}

/// The cells of the first table after `from` in `html`, header row first.
fn first_table(html: &str, from: usize) -> Vec<Vec<String>> {
    let start = from + html[from..].find("<table").expect("a table");
    let end = start + html[start..].find("</table>").unwrap();
    html[start..end]
        .split("<tr>")
        .skip(1)
        .map(|row| {
            row.split(['<', '>'])
                .collect::<Vec<_>>()
                .windows(2)
                .filter(|w| w[0] == "td" || w[0] == "th")
                .map(|w| w[1].to_string())
                .collect()
        })
        .collect()
}

/// The lead of a `--preset table1` page: the paper's Table 1 beside this machine's values,
/// before the runs, and no comparison of runs that measure different things. Returns its rows.
fn assert_table1_leads(html: &str) -> Vec<Vec<String>> {
    assert_self_contained(html);
    let group = litebench::workload::preset::GROUPS
        .iter()
        .find(|g| g.name == "table1")
        .unwrap();
    let lead = html.find("<section id=\"run-0\">").expect("a section before the runs");
    assert!(lead < html.find("<section id=\"run-1\">").unwrap());
    let rows = first_table(html, lead);
    assert_eq!(rows[0][0], "tool", "the paper's table comes first: {rows:?}");
    assert!(rows[0].iter().any(|h| h == "paper default"), "{rows:?}");
    assert_eq!(rows.len(), 1 + group.paper.len(), "{rows:?}");
    for (row, paper) in rows[1..].iter().zip(group.paper) {
        assert_eq!(row[0], paper.tool);
        assert_eq!(row[4], litebench::report::number::num(paper.paper_default));
        // Here's value beside the paper's: a measured median, not a dash.
        assert!(row[1].chars().next().is_some_and(|c| c.is_ascii_digit()), "{row:?}");
    }
    // Three tools are three workloads: no comparison of runs that measure different things.
    assert!(!html.contains("class=\"comparison\""));
    rows
}

#[test]
fn a_preset_groups_report_leads_with_the_papers_table_beside_this_machines() {
    let sb = Sandbox::new();
    let page = sb.root().join("table1.html");
    let o = output(&mut sb.run(&[
        "--preset",
        "table1",
        "--param",
        "count=10",
        "--param",
        "scale_percent=1",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--report",
        page.to_str().unwrap(),
    ]));
    assert_success(&o);
    let at_run = assert_table1_leads(&std::fs::read_to_string(&page).unwrap());
    // A later report of the stored runs shows the same Table 1: the runs recorded their presets.
    let html = sb.page(&["1", "2", "3"]);
    assert_eq!(assert_table1_leads(&html), at_run, "the later report's Table 1");
    assert!(html.contains("the paper against here"), "the lead's title");
}

/// An attribute of the figure with chart id `id`.
fn figure_attr(html: &str, id: &str, name: &str) -> String {
    let tag = html
        .split("<figure ")
        .skip(1)
        .map(|f| &f[..f.find('>').unwrap()])
        .find(|t| t.contains(&format!("data-chart=\"{id}\"")))
        .unwrap_or_else(|| panic!("no figure {id}"));
    let key = format!("{name}=\"");
    let i = tag.find(&key).unwrap_or_else(|| panic!("{name} missing in {tag}")) + key.len();
    tag[i..].split('"').next().unwrap().to_string()
}

/// SSB's chart rules on a real run (13 queries, each timed once per trial, bloom filters on and
/// off): per-query bars with whiskers instead of latency percentiles from six samples, no syncs
/// or bytes charts for a workload that never writes, and one speed-up bar per query along
/// bloom_filter instead of 13 lines.
#[test]
fn a_real_ssb_report_follows_the_ssb_chart_rules() {
    let sb = Sandbox::new();
    let page = sb.root().join("ssb.html");
    assert_success(&output(&mut sb.run(&[
        "ssb",
        "--param",
        "scale=0.01",
        "--knob",
        "bloom_filter=on,off",
        // Six trials: the fewest with intervals, so whiskers.
        "--trials",
        "6",
        "--warmup",
        "0",
        "--quiet",
        "--report",
        page.to_str().unwrap(),
    ])));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    let figs = figures(&html);
    let ids: Vec<&str> = figs.iter().map(|f| f.0.as_str()).collect();
    let get = |id: &str| {
        figs.iter()
            .find(|f| f.0 == id)
            .unwrap_or_else(|| panic!("{id} missing in {ids:?}"))
    };
    // Per-query bars (SSB's metric is time per trial), every one with its whisker.
    assert_eq!(get("time").1, 2 * 13, "2 configurations x 13 queries: {ids:?}");
    assert_eq!(figure_attr(&html, "time", "data-whiskers"), "26");
    // No latency-percentile chart from six latencies per query.
    assert!(!ids.iter().any(|id| id.starts_with("latency-")), "{ids:?}");
    // A read-only workload: throughput beside, no syncs or bytes.
    assert_eq!(get("beside-throughput").1, 2);
    assert!(
        !ids.contains(&"beside-syncs") && !ids.contains(&"beside-bytes"),
        "{ids:?}"
    );
    // Along bloom_filter: one speed-up bar per query (off against on), not 13 lines.
    let along = get("knob-bloom-filter");
    assert_eq!((along.1, along.2), (13, 0), "{along:?}");
    assert_eq!(figure_attr(&html, "knob-bloom-filter", "data-whiskers"), "13");
    assert!(html.contains("Speed-up along bloom_filter, per operation"));
    // SSB counts queries: its rates and charts say so, not transactions.
    assert!(html.contains("queries/s median") && html.contains("queries per second"));
    assert!(!html.contains("transactions per second") && !html.contains("tx/s median"));
}

/// Counts, per chart, the bars and lines the browser has in its DOM: bars are the rectangles
/// filled at opacity 0.85 and lines the polylines stroked at 0.9 (nothing else in a chart uses
/// those), and checks each chart was laid out with a size.
const COUNT_JS: &str = r#"JSON.stringify(Array.from(document.querySelectorAll('figure.chart')).map(f => {
  const svg = f.querySelector('svg');
  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return {
    id: f.dataset.chart,
    bars: +f.dataset.bars,
    lines: +f.dataset.lines,
    drawn_bars: f.querySelectorAll('rect[opacity="0.85"]').length,
    drawn_lines: f.querySelectorAll('polyline[opacity="0.9"]').length,
    width: box.width,
    height: box.height,
  };
}))"#;

fn screenshot(page: &Path, png: &Path, profile: &Path, (width, height): (u32, u32)) {
    let o = std::process::Command::new(CHROMIUM)
        .args(["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    assert!(o.status.success(), "chromium --screenshot failed\n{}", describe(&o));
}

#[test]
fn the_report_renders_in_chromium_without_errors_and_draws_every_bar_and_line() {
    if !support_require() {
        return;
    }
    let sb = seeded();
    let page = sb.root().join("report.html");
    assert_success(&report(&sb, &["-o", page.to_str().unwrap()]));
    let html = std::fs::read_to_string(&page).unwrap();
    let expected = figures(&html);
    let url = format!("file://{}", page.display());

    let mut browser = Browser::start(&sb.root().join("chromium-profile"));
    // The checker itself: a page with a missing image and a console error must be caught.
    let bad = sb.root().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><img src=\"missing.png\"><script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let b = browser.load(&format!("file://{}", bad.display()), "1");
    assert!(
        !b.failed.is_empty(),
        "a missing image must show as a failed request: {b:?}"
    );
    assert!(b.errors.iter().any(|e| e.contains("boom")), "{b:?}");

    let load = browser.load(&url, COUNT_JS);
    assert!(load.errors.is_empty(), "console or log errors: {:?}", load.errors);
    assert!(load.failed.is_empty(), "failed requests: {:?}", load.failed);
    assert_eq!(
        load.requests,
        vec![url.clone()],
        "the page must request nothing but itself"
    );
    let drawn: Vec<serde_json::Value> =
        serde_json::from_str(load.evaluated.as_str().expect("the count script returns JSON")).unwrap();
    assert_eq!(drawn.len(), expected.len(), "{drawn:?}");
    for (d, (id, bars, lines)) in drawn.iter().zip(&expected) {
        assert_eq!(d["id"].as_str(), Some(id.as_str()));
        assert_eq!(d["drawn_bars"].as_u64(), Some(*bars as u64), "{id}: {d}");
        assert_eq!(d["drawn_lines"].as_u64(), Some(*lines as u64), "{id}: {d}");
        assert!(
            d["width"].as_f64().unwrap() > 300.0 && d["height"].as_f64().unwrap() > 150.0,
            "{id}: {d}"
        );
    }
    drop(browser);

    let png = sb.root().join("report.png");
    screenshot(&page, &png, &sb.root().join("chromium-shot"), (1280, 2000));
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
        "screenshot too small to hold the page"
    );
    // LITEBENCH_SCREENSHOT=FILE keeps the screenshot for a person to look at.
    if let Some(keep) = std::env::var_os("LITEBENCH_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
}

/// A laptop's first screen, in CSS pixels.
const FIRST_SCREEN: (u32, u32) = (1280, 800);

/// Where the answer, the question and the warnings lie in the viewport, and its size.
const ANSWER_JS: &str = r#"(() => {
  const box = sel => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect() : null; };
  const t = box('table.answer'), q = box('.question'), w = box('h3[id$="-warnings"]');
  return JSON.stringify({
    viewport: [innerWidth, innerHeight],
    table: t && [t.left, t.top, t.right, t.bottom],
    rows: document.querySelectorAll('table.answer tbody tr').length,
    question_top: q && q.top,
    warnings_top: w && w.top,
  });
})()"#;

#[test]
fn the_first_screen_at_1280x800_holds_the_question_and_the_whole_answer_table() {
    if !support_require() {
        return;
    }
    let sb = seeded();
    let page = sb.root().join("report.html");
    assert_success(&report(&sb, &["-o", page.to_str().unwrap()]));
    let mut browser = Browser::start(&sb.root().join("chromium-profile"));
    let load = browser.load_in(&format!("file://{}", page.display()), ANSWER_JS, Some(FIRST_SCREEN));
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    let v: serde_json::Value = serde_json::from_str(load.evaluated.as_str().unwrap()).unwrap();
    let (w, h) = (f64::from(FIRST_SCREEN.0), f64::from(FIRST_SCREEN.1));
    assert_eq!(
        v["viewport"],
        serde_json::json!([FIRST_SCREEN.0, FIRST_SCREEN.1]),
        "{v}"
    );
    let t: Vec<f64> = v["table"]
        .as_array()
        .unwrap_or_else(|| panic!("no answer table: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        t[0] >= 0.0 && t[1] >= 0.0 && t[2] <= w && t[3] <= h,
        "the answer table lies outside the first {w}x{h} screen: {v}"
    );
    // One row per configuration.
    assert_eq!(v["rows"], 3, "{v}");
    let q = v["question_top"].as_f64().expect("a question");
    assert!(q < t[1], "the question comes before its answer: {v}");
    assert!(
        v["warnings_top"].as_f64().unwrap() > t[3],
        "the warnings follow the answer: {v}"
    );
    drop(browser);
    // The screenshot a person sees: kept with LITEBENCH_FIRST_SCREEN=FILE.
    let png = sb.root().join("first-screen.png");
    screenshot(&page, &png, &sb.root().join("chromium-shot"), FIRST_SCREEN);
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG"));
    // The PNG's own size (bytes 16..24 of the IHDR chunk) is the screen's.
    let size = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), FIRST_SCREEN);
    if let Some(keep) = std::env::var_os("LITEBENCH_FIRST_SCREEN") {
        std::fs::copy(&png, keep).unwrap();
    }
}

fn support_require() -> bool {
    crate::support::require(CHROMIUM, "chromium")
}

/// Where the answer in words, the answer table and the latency chart beside it lie.
const OPEN_LOOP_JS: &str = r#"(() => {
  const box = sel => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return JSON.stringify({
    words: box('.answer-words'),
    table: box('table.answer'),
    chart: box('.answer-row figure[data-chart="latency-all"]'),
    rows: document.querySelectorAll('table.answer tbody tr').length,
    text: (document.querySelector('.answer-words') || {}).textContent || '',
  });
})()"#;

/// The run shape an application developer brings (8 configurations, a 2-script mix with its
/// statement rows, an open loop): the first screen holds the answer in words, the table of
/// the 8 configurations and the whole run's latency percentiles beside it. Before, the answer
/// table alone was wider than the screen and ~1,700 px long, and the latency charts began at
/// ~19,400 px.
#[test]
fn an_open_loop_of_eight_configurations_answers_on_the_first_screen() {
    if !support_require() {
        return;
    }
    let sb = Sandbox::new();
    crate::cli::compact::eight_by_two(&sb);
    let page = sb.root().join("report.html");
    assert_success(&report(&sb, &["-o", page.to_str().unwrap()]));
    let mut browser = Browser::start(&sb.root().join("chromium-profile"));
    let load = browser.load_in(&format!("file://{}", page.display()), OPEN_LOOP_JS, Some(FIRST_SCREEN));
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    let v: serde_json::Value = serde_json::from_str(load.evaluated.as_str().unwrap()).unwrap();
    let (w, h) = (f64::from(FIRST_SCREEN.0), f64::from(FIRST_SCREEN.1));
    for part in ["words", "table", "chart"] {
        let b: Vec<f64> = v[part]
            .as_array()
            .unwrap_or_else(|| panic!("no {part}: {v}"))
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(
            b[0] >= 0.0 && b[1] >= 0.0 && b[2] <= w && b[3] <= h,
            "the {part} lies outside the first {w}x{h} screen: {v}"
        );
    }
    assert_eq!(v["rows"], 8, "{v}");
    let text = v["text"].as_str().unwrap();
    assert!(
        text.starts_with("Lowest p99") || text.starts_with("Every configuration failed"),
        "{text}"
    );
    drop(browser);
    let png = sb.root().join("first-screen.png");
    screenshot(&page, &png, &sb.root().join("chromium-shot"), FIRST_SCREEN);
    if let Some(keep) = std::env::var_os("LITEBENCH_OPEN_LOOP_SCREEN") {
        std::fs::copy(&png, keep).unwrap();
    }
}
