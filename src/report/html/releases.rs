//! SQLite's history ([`crate::report::history`]) drawn against release date: the headline metric
//! with each release's interval, the largest significant steps marked, and beside it syncs per
//! transaction and the library's size, so a step in speed can be read against a step in I/O
//! or in code size.

use super::data::{Chart, Figure, Line, LineChart, XAxis};
use crate::report::history::{History, Point};
use crate::report::Report;

/// A release date as a year with its fraction (`2014-04-03` -> 2014.25), `None` when unknown.
fn year(date: Option<&str>) -> Option<f64> {
    let d: jiff::civil::Date = date?.parse().ok()?;
    Some(f64::from(d.year()) + f64::from(d.day_of_year() - 1) / 365.25)
}

/// The history's figures (none unless the run reads as one, or no release has a date).
pub fn figures(report: &Report<'_>) -> Vec<Figure> {
    let Some(h) = &report.history else {
        return Vec::new();
    };
    if h.points.iter().filter(|p| p.date.is_some()).count() < 2 {
        return Vec::new();
    }
    let unit = h.metric.heading();
    let mut out = Vec::new();
    let mut lines = vec![series(h, "median", &|p| p.median)];
    lines.push(series(h, "95% interval, low", &|p| p.ci95.map(|c| c.low)));
    lines.push(series(h, "95% interval, high", &|p| p.ci95.map(|c| c.high)));
    for p in h.largest_steps(3) {
        let (Some(x), Some(y)) = (year(p.date), p.median) else {
            continue;
        };
        let from = h.before(p).map_or("?", |q| q.version.as_str());
        let r = p.step.expect("a largest step has a ratio");
        lines.push(Line {
            name: format!(
                "{from} -> {}: {} {}",
                p.version,
                crate::report::number::times(r.ratio),
                r.verdict.map_or("-", |v| v.as_str())
            ),
            points: vec![(x, y)],
        });
    }
    out.push(figure(
        "history-metric",
        &format!("{} by release", unit),
        &format!(
            "Each point is a release's median over its measured trials, at its release date; the thin lines are the medians' 95% intervals. Marked: the largest significant steps from the release before ({}).",
            h.steps_sentence()
        ),
        unit.clone(),
        lines,
        true,
    ));
    let syncs = series(h, "syncs per transaction", &|p| p.syncs_per_tx);
    if !syncs.points.is_empty() {
        out.push(figure(
            "history-syncs",
            "Syncs per transaction by release",
            "The median over each release's measured trials of the syncs (file and directory) the counting VFS saw, per transaction.",
            "syncs/tx".into(),
            vec![syncs],
            true,
        ));
    }
    let text = series(h, "code (.text)", &|p| p.text_bytes.map(|b| b as f64 / 1024.0));
    let lib = series(h, "library file", &|p| p.library_bytes.map(|b| b as f64 / 1024.0));
    if !lib.points.is_empty() {
        out.push(figure(
            "history-library",
            "Library size by release",
            "The compiled library's code (its .text section) and its whole file on disk (each build's flags are in the manifest).",
            "KiB".into(),
            vec![text, lib],
            true,
        ));
    }
    out
}

fn series(h: &History, name: &str, value: &dyn Fn(&Point) -> Option<f64>) -> Line {
    Line {
        name: name.to_string(),
        points: h
            .points
            .iter()
            .filter_map(|p| Some((year(p.date)?, value(p)?)))
            .collect(),
    }
}

fn figure(id: &str, title: &str, note: &str, y_label: String, lines: Vec<Line>, compact: bool) -> Figure {
    Figure {
        id: id.to_string(),
        title: title.to_string(),
        note: note.to_string(),
        chart: Chart::Lines(
            LineChart {
                x: XAxis::Years("release date".into()),
                y_label,
                y_log: false,
                markers: true,
                gap_s: None,
                color_offset: 0,
                lines,
            }
            .scaled(),
        ),
        compact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_become_fractional_years() {
        assert_eq!(year(Some("2014-01-01")), Some(2014.0));
        let mid = year(Some("2014-07-02")).unwrap();
        assert!((mid - 2014.5).abs() < 0.01, "{mid}");
        assert_eq!(year(None), None);
        assert_eq!(year(Some("soon")), None);
    }
}
