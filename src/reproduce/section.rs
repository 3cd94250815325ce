//! The report's first section: per figure, the paper's values beside this machine's.
//!
//! Built from [`Row`]s that pair each claim with its measured value (or the reason there is
//! none: an experiment skipped for lack of root, one that failed), printed both as HTML for
//! the report and as a plain table on standard output.

use super::claim::{num, verdict_within};
use super::measure::{value, Outcome};
use super::{Claim, Experiment, Target};
use crate::report::html::page::{esc, table};

/// One claim against its measurement.
#[derive(Debug, Clone)]
pub struct Row {
    pub figure: &'static str,
    pub what: String,
    pub paper: String,
    pub source: String,
    /// Measured value as printed, or why it is missing.
    pub here: String,
    /// Here over the paper's value, when both are numbers.
    pub ratio: String,
    pub verdict: String,
}

fn row(figure: &'static str, c: &Claim, outcomes: &[(&Experiment, Outcome)], noise: f64) -> Row {
    let mut runs = Vec::new();
    let mut missing = None;
    for exp in c.measure.experiments() {
        match outcomes.iter().find(|(e, _)| e.id == exp).map(|(_, o)| o) {
            Some(Outcome::Ran { runs: r, .. }) => runs.extend(r.iter()),
            Some(Outcome::Skipped(why)) => missing = missing.or(Some(format!("skipped: {why}"))),
            Some(Outcome::Failed(why)) => missing = missing.or(Some(format!("failed ({exp}): {why}"))),
            None => missing = missing.or(Some(format!("not run: experiment {exp} was not reached"))),
        }
    }
    let measured = match missing {
        Some(why) => Err(why),
        None => value(&c.measure, &runs),
    };
    let (here, ratio, verdict) = match measured {
        Ok(v) => {
            let ratio = c
                .expect
                .value()
                .filter(|p| *p > 0.0)
                .map_or("-".to_string(), |p| num(v.value / p));
            let interval = super::interval::of(&c.measure, &runs, noise);
            let span = interval.map_or(String::new(), |i| format!(" [{} to {}]", num(i.low), num(i.high)));
            let mut verdict = verdict_within(c.expect, v.value, interval, noise);
            if let Some(note) = super::interval::noise_note(&c.measure, &runs) {
                verdict = format!("{verdict}; {note}");
            }
            (format!("{}{span} ({})", num(v.value), v.detail), ratio, verdict)
        }
        Err(why) => (why, "-".into(), "not measured".into()),
    };
    Row {
        figure,
        what: c.what.clone(),
        paper: c.expect.shown(),
        source: c.source.clone(),
        here,
        ratio,
        verdict,
    }
}

/// Every claim of the target against the experiments' outcomes.
pub fn rows(t: &Target, outcomes: &[(&Experiment, Outcome)], noise: f64) -> Vec<Row> {
    t.figures
        .iter()
        .flat_map(|f| f.claims.iter().map(move |c| row(f.name, c, outcomes, noise)))
        .collect()
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Ran { runs, error: None } => format!(
            "ran: run {}",
            runs.iter().map(|r| r.id.to_string()).collect::<Vec<_>>().join(", ")
        ),
        Outcome::Ran { runs, error: Some(e) } => format!(
            "failed part-way ({e}); finished trials kept in run {}",
            runs.iter().map(|r| r.id.to_string()).collect::<Vec<_>>().join(", ")
        ),
        Outcome::Skipped(why) => format!("skipped: {why}"),
        Outcome::Failed(why) => format!("failed: {why}"),
    }
}

const HEADERS: [&str; 6] = ["claim", "paper", "here", "here / paper", "verdict", "paper source"];

/// The HTML section.
pub fn html(t: &Target, scale: &str, outcomes: &[(&Experiment, Outcome)], rows: &[Row], machine: &str) -> String {
    let mut o = String::from("<section id=\"run-0\">\n<h2>Paper against here</h2>\n");
    o += &format!(
        "<p><b>Paper:</b> {}.<br><b>Paper's hardware:</b> {}.<br><b>Here:</b> {}.<br><b>Scale:</b> {}: {}.</p>\n",
        esc(t.paper),
        esc(t.hardware),
        esc(machine),
        esc(scale),
        esc(&t.scaled)
    );
    o += &format!("<p class=\"meta\">Measured values are medians over the stored trials, computed from the runs below; the paper's values are the ones its text, captions and tables state (no bar chart is legible in the seeds). \"holds in direction\": same side of 1 beyond the noise threshold; \"and size\": the measured ratio within a factor of {f} of the paper's (here / paper from {lo} to {f}), and every such verdict states the factor (\"2.86x smaller than the paper's\"). Where both configurations of a ratio have at least 6 measured trials, the ratio carries its 95% bootstrap interval in brackets, and a direction holds, or is reversed, only when the whole interval clears the noise threshold; with fewer trials the verdict rests on the medians alone. A verdict ends with \"noisy here\" and the throughput CVs when either side's exceeds 5%: then it says little.</p>\n", f = super::claim::SIZE_FACTOR, lo = 1.0 / super::claim::SIZE_FACTOR);
    for f in &t.figures {
        o += &format!("<h3>{} — {}</h3>\n", esc(f.name), esc(f.about));
        let body: Vec<Vec<String>> = rows
            .iter()
            .filter(|r| r.figure == f.name)
            .map(|r| {
                vec![
                    r.what.clone(),
                    r.paper.clone(),
                    r.here.clone(),
                    r.ratio.clone(),
                    r.verdict.clone(),
                    r.source.clone(),
                ]
            })
            .collect();
        o += &table(&HEADERS, &body);
    }
    if !t.omitted.is_empty() {
        o += "<h3>Not re-measured here</h3>\n";
        let body: Vec<Vec<String>> = t
            .omitted
            .iter()
            .map(|(what, why)| vec![what.to_string(), why.to_string()])
            .collect();
        o += &table(&["part of the paper", "why not"], &body);
    }
    o += "<h3>Experiments</h3>\n";
    let ex: Vec<Vec<String>> = outcomes
        .iter()
        .map(|(e, out)| {
            vec![
                e.id.to_string(),
                e.title.to_string(),
                format!("litebench run {}", e.args.join(" ")),
                outcome_text(out),
            ]
        })
        .collect();
    o += &table(
        &["experiment", "what", "command (plus --results, --dir, -q)", "outcome"],
        &ex,
    );
    o += "</section>\n";
    o
}

/// The same as plain text, one line per claim.
pub fn text(t: &Target, outcomes: &[(&Experiment, Outcome)], rows: &[Row]) -> String {
    let mut o = String::new();
    let mut figure = "";
    for r in rows {
        if r.figure != figure {
            figure = r.figure;
            o += &format!("\n{figure}\n");
        }
        o += &format!(
            "  {} | paper {} | here {} | here/paper {} | {}\n",
            r.what, r.paper, r.here, r.ratio, r.verdict
        );
    }
    if !t.omitted.is_empty() {
        o += "\nnot re-measured here\n";
        for (what, why) in t.omitted {
            o += &format!("  {what}: {why}\n");
        }
    }
    o += "\nexperiments\n";
    for (e, out) in outcomes {
        o += &format!("  {}: {}\n", e.id, outcome_text(out));
    }
    o
}
