//! `--storage`'s charts: the run's answer (throughput, p99) against the storage value, one line
//! per configuration less its storage, so where the lines cross the winner changes; and the
//! answer's lines on the page (the emulation's mark, the delays slept, a throttle's cgroup), and
//! the emulation against the throttled device right under them, where a run has both: the page
//! is where an emulation's numbers are read, so it says there how far they are from a real
//! slow device's.

use super::data::{Chart, Figure, Line, LineChart, XAxis};
use super::page::{esc, table_of_class};
use crate::report::storage::CrossCheck;
use crate::report::Report;

/// The two charts of a run with `--storage` (none without).
pub fn figures(report: &Report<'_>) -> Vec<Figure> {
    let Some(curve) = &report.storage else {
        return Vec::new();
    };
    let m = report.manifest;
    let ticks: Vec<String> = curve.points.iter().map(|p| p.storage.clone()).collect();
    // Each configuration less its storage is a line; its x is its storage's position.
    let mut lines: Vec<(String, Vec<(f64, usize)>)> = Vec::new();
    for c in &m.configs {
        let Some(s) = &c.storage else { continue };
        let Some(x) = ticks.iter().position(|t| *t == s.spec.text) else {
            continue;
        };
        let rest = c.label.strip_prefix(&format!("{} ", s.spec.text)).unwrap_or("");
        let name = if rest.is_empty() {
            "the run".to_string()
        } else {
            rest.to_string()
        };
        match lines.iter_mut().find(|(n, _)| *n == name) {
            Some((_, pts)) => pts.push((x as f64, c.index)),
            None => lines.push((name, vec![(x as f64, c.index)])),
        }
    }
    let whole = |config: usize| {
        report
            .summary
            .iter()
            .find(|r| r.config == config && r.operation == "all")
    };
    let mark = if curve.emulated { " (emulated storage)" } else { "" };
    let unit = report.unit();
    let chart = |id: &str, what: &str, y_label: String, value: &dyn Fn(usize) -> Option<f64>| Figure {
        id: format!("scaling-storage-{id}"),
        title: format!("{what} against the storage{mark}"),
        note: format!(
            "Each point is the median of its configuration's measured trials. {}",
            if curve.emulated {
                crate::report::storage::EMULATED_MARK
            } else {
                "Throttled values are the kernel's limits on litebench's loop device."
            }
        ),
        chart: Chart::Lines(
            LineChart {
                x: XAxis::Categories("storage".into(), ticks.clone()),
                y_label,
                y_log: false,
                markers: true,
                gap_s: None,
                color_offset: 0,
                lines: lines
                    .iter()
                    .map(|(name, pts)| Line {
                        name: name.clone(),
                        points: pts.iter().filter_map(|(x, c)| Some((*x, value(*c)?))).collect(),
                    })
                    .collect(),
            }
            .scaled(),
        ),
        compact: true,
    };
    vec![
        chart("throughput", "Throughput", format!("{unit}/s"), &|c| {
            whole(c).map(|r| r.throughput.tps_median)
        }),
        chart("p99", "p99 latency", "ms".into(), &|c| {
            whole(c).and_then(|r| r.latency.latency_p99_ms_median)
        }),
    ]
}

/// The answer's storage part on the page: the mark, the winner at each value, and the delays
/// slept or the throttle (nothing without `--storage`).
pub fn answer(report: &Report<'_>) -> String {
    let Some(c) = &report.storage else {
        return String::new();
    };
    let mut o = String::new();
    if c.emulated {
        o += &format!(
            "<p class=\"answer-words\"><strong>{}.</strong></p>\n",
            esc(crate::report::storage::EMULATED_MARK)
        );
    }
    let unit = report.unit();
    let headers = [
        "storage",
        &format!("{unit}/s"),
        "p99 ms",
        "failed",
        "wins",
        "slept or throttled",
    ];
    let rows: Vec<Vec<String>> = c
        .points
        .iter()
        .map(|p| {
            let slept = crate::report::storage::slept_words(&p.slept);
            vec![
                format!("{} ({})", p.storage, p.kind),
                crate::report::number::num(p.tps_median),
                p.latency_p99_ms_median.map_or("-".into(), crate::report::number::num),
                format!("{:.1}%", p.failed_share * 100.0),
                format!("#{} {}", p.best, p.best_label),
                match (&p.throttle, slept.is_empty()) {
                    (Some(t), _) => format!("throttled: {t}"),
                    (None, false) => format!("slept {slept} (mean)"),
                    (None, true) => "-".into(),
                },
            ]
        })
        .collect();
    o += &table_of_class("storage", &headers, &rows);
    o += &cross_check(&c.cross_check, &unit);
    o
}

/// The emulation against the throttled device: a row per pair, each side's sync (measured on
/// the device inside its cgroup, slept by the emulation), throughput and p99 with the
/// emulation's ratio to the device, and a sentence per pair.
fn cross_check(c: &[CrossCheck], unit: &str) -> String {
    if c.is_empty() {
        return String::new();
    }
    let num = crate::report::number::num;
    let ms = |x: Option<f64>| x.map_or("-".into(), num);
    let ratio = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.2}x"));
    let headers = [
        "throttled",
        "emulated",
        "device's sync ms: mean (p50, p99)",
        "slept per sync ms: mean (given)",
        &format!("{unit}/s: device, emulation"),
        "ratio",
        "p99 ms: device, emulation",
        "ratio",
    ];
    let rows: Vec<Vec<String>> = c
        .iter()
        .map(|x| {
            vec![
                format!("#{} {}", x.throttled, x.throttled_label),
                format!("#{} {}", x.emulated, x.emulated_label),
                format!(
                    "{} ({}, {})",
                    ms(x.throttled_sync_mean_ms),
                    num(x.throttled_sync_median_ms),
                    num(x.throttled_sync_p99_ms)
                ),
                format!("{} ({})", ms(x.emulated_slept_sync_mean_ms), x.emulated_sync),
                format!("{}, {}", num(x.throttled_tps), num(x.emulated_tps)),
                ratio(Some(x.tps_ratio)),
                format!("{}, {}", ms(x.throttled_p99_ms), ms(x.emulated_p99_ms)),
                ratio(x.p99_ratio),
            ]
        })
        .collect();
    let mut o = String::from("<p class=\"meta\">The emulation against the throttled device</p>\n");
    o += &table_of_class("storage cross-check", &headers, &rows);
    for x in c {
        o += &format!("<p class=\"answer-words\">{}.</p>\n", esc(&x.sentence(unit)));
    }
    o
}
