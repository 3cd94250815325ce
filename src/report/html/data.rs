//! What each chart shows, extracted from a [`Report`] before anything is drawn.
//!
//! Every number here comes from the report's own computations (the summary rows, the
//! side-by-side table with its intervals, the stored trials' samples and merged HDR
//! histograms), so a chart never disagrees with the tables beside it. Keeping extraction apart
//! from drawing also lets the tests count a chart's bars and lines without parsing SVG.

use crate::model::record::{ConfigInfo, TrialRecord};
use crate::model::series::{Series, SeriesPoint};
use crate::report::pivot::{self, SideBySide};
use crate::report::stats::{samples, Metric};
use crate::report::summary::{merged_latency, SummaryRow};
use crate::report::{operations_of, Report};

/// One bar: a series' value in one group, with its interval when known.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub group: usize,
    pub series: usize,
    pub value: f64,
    /// 95% interval of the value (the median's), drawn as a whisker.
    pub interval: Option<(f64, f64)>,
}

/// Grouped bars: `groups` along the x axis, one bar per series within each group.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    pub y_label: String,
    pub groups: Vec<String>,
    pub series: Vec<String>,
    pub bars: Vec<Bar>,
    /// Logarithmic value axis ([`BarChart::scaled`]): bars rise from the lowest decade.
    pub y_log: bool,
}

/// Values spanning more than this factor get a log axis. On a linear one, crud's one
/// configuration at 38,922 tx/s flattened three at 68-303 tx/s to nothing; a factor of 10 is
/// where the smallest bar falls under a tenth of the plot.
pub const LOG_SPREAD: f64 = 10.0;

/// What an axis label gains when its axis is logarithmic, so no reader takes it for linear.
pub const LOG_LABEL: &str = " (log scale)";

/// Whether the positive values among `values` span more than [`LOG_SPREAD`].
pub fn spans_decades(values: impl IntoIterator<Item = f64>) -> bool {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    hi / lo > LOG_SPREAD
}

impl BarChart {
    /// The chart on a log axis, said in its label, when its bars span more than [`LOG_SPREAD`].
    pub fn scaled(mut self) -> BarChart {
        if !self.y_log && spans_decades(self.bars.iter().map(|b| b.value)) {
            self.y_log = true;
            self.y_label += LOG_LABEL;
        }
        self
    }
}

impl LineChart {
    /// The chart on a log axis, said in its label, when its points span more than [`LOG_SPREAD`].
    pub fn scaled(mut self) -> LineChart {
        if !self.y_log && spans_decades(self.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1))) {
            self.y_log = true;
            self.y_label += LOG_LABEL;
        }
        self
    }
}

/// How a line chart's x axis reads.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// Plain numbers (trial positions).
    Linear(String),
    /// Named positions 0, 1, 2, ... (a knob's values).
    Categories(String, Vec<String>),
    /// Calendar years with their fractions (release dates), from the first year to the last.
    Years(String),
    /// Percentiles on a "nines" scale: x = -log10(1 - q), so 90%, 99%, 99.9% are evenly spaced.
    Nines,
}

/// One line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Lines over one x axis.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    pub x: XAxis,
    pub y_label: String,
    /// Logarithmic y axis (latencies spanning orders of magnitude).
    pub y_log: bool,
    /// Mark each point (few points, or points that are trials).
    pub markers: bool,
    /// Over time: a line breaks where two of its points are further apart than this, seconds
    /// (no data there, e.g. a stall with nothing completed), instead of a straight line
    /// across the gap; none: every line is drawn whole.
    pub gap_s: Option<f64>,
    /// First palette colour: lines that are operations (not configurations) start further
    /// along, so a colour never means configuration #0 in one chart and an operation in the next.
    pub color_offset: usize,
    pub lines: Vec<Line>,
}

/// A chart of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Chart {
    Bars(BarChart),
    Lines(LineChart),
    /// A cast's roles over one trial, in stacked panels ([`super::timeline`]).
    Timeline(super::timeline::Timeline),
}

/// A chart with its name (file names, element ids) and caption.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// File-name-safe identifier, unique within a run (`throughput`, `latency-insert`).
    pub id: String,
    pub title: String,
    /// What the reader should know to read it (what the whiskers are, what was left out).
    pub note: String,
    pub chart: Chart,
    /// Drawn small, to sit beside others (syncs and bytes beside throughput).
    pub compact: bool,
}

impl Figure {
    /// Bars drawn (0 for a line chart).
    pub fn bars(&self) -> usize {
        match &self.chart {
            Chart::Bars(b) => b.bars.len(),
            Chart::Lines(_) | Chart::Timeline(_) => 0,
        }
    }

    /// Bars drawn with a whisker (their 95% interval).
    pub fn whiskers(&self) -> usize {
        match &self.chart {
            Chart::Bars(b) => b.bars.iter().filter(|b| b.interval.is_some()).count(),
            Chart::Lines(_) | Chart::Timeline(_) => 0,
        }
    }

    /// Whether the value axis is logarithmic.
    pub fn y_log(&self) -> bool {
        match &self.chart {
            Chart::Bars(b) => b.y_log,
            Chart::Lines(l) => l.y_log,
            Chart::Timeline(t) => t.roles_log,
        }
    }

    /// Lines drawn (0 for a bar chart).
    pub fn lines(&self) -> usize {
        match &self.chart {
            Chart::Lines(l) => l.lines.len(),
            Chart::Timeline(t) => t.lines(),
            Chart::Bars(_) => 0,
        }
    }
}

/// Where lines that are operations start in the palette (configurations start at 0).
pub const OPERATION_COLORS: usize = 4;

/// A short name for a configuration in legends: `#1 journal_mode=wal`.
pub fn config_name(cfg: &ConfigInfo) -> String {
    format!("#{} {}", cfg.index, cfg.label)
}

/// The operations a per-operation chart shows: each type when there are several, else `all`.
fn chart_operations(report: &Report<'_>) -> Vec<String> {
    let ops: Vec<String> = operations_of(report.manifest, report.workload, report.trials)
        .into_iter()
        .filter(|op| report.summary.iter().any(|r| &r.operation == op))
        .collect();
    if ops.len() > 1 {
        ops
    } else {
        vec!["all".to_string()]
    }
}

/// Bars of a side-by-side table: operations as groups, configurations as series, the
/// median with its 95% interval.
fn bars_of(side: &SideBySide, y_label: &str, report: &Report<'_>) -> BarChart {
    let mut bars = Vec::new();
    for (g, row) in side.rows.iter().enumerate() {
        for (s, cell) in row.cells.iter().enumerate() {
            if let Some(c) = cell {
                bars.push(Bar {
                    group: g,
                    series: s,
                    value: c.median,
                    interval: c.ci95_low.zip(c.ci95_high),
                });
            }
        }
    }
    BarChart {
        y_label: y_label.to_string(),
        groups: side.rows.iter().map(|r| r.operation.clone()).collect(),
        series: report.manifest.configs.iter().map(config_name).collect(),
        bars,
        y_log: false,
    }
    .scaled()
}

const WHISKERS: &str =
    "Bars are medians across measured trials; whiskers are the median's 95% interval (none below 6 trials).";

/// Median per configuration and operation in `metric`, with interval whiskers.
pub fn per_operation(report: &Report<'_>, metric: Metric) -> Option<Figure> {
    let ops: Vec<String> = chart_operations(report).into_iter().filter(|o| o != "all").collect();
    let mut side = pivot::side_by_side(
        report.manifest,
        report.workload,
        &report.statistics,
        report.trials,
        &ops,
        metric,
        0,
    );
    if !ops.is_empty() {
        // The side-by-side table puts `all` first; per-operation bars leave it out (its scale
        // is the sum of theirs) unless it is the only row.
        side.rows.retain(|r| r.operation != "all");
    }
    let chart = bars_of(&side, &metric_label(report, metric), report);
    if chart.bars.is_empty() {
        return None;
    }
    let (id, title) = match metric {
        Metric::Tps => ("throughput".into(), "Throughput per operation and configuration".into()),
        Metric::Time => (
            "time".into(),
            "Time per trial for each operation and configuration".into(),
        ),
        Metric::Failures => (
            "failures".into(),
            "Failed transactions per operation and configuration (mean of trials)".into(),
        ),
        Metric::Instructions => (
            "instructions".into(),
            "Instructions per operation and configuration, under callgrind (median of trials)".into(),
        ),
        m => (
            format!("per-operation-{}", m.name().replace('.', "")),
            format!(
                "{} latency per operation and configuration (median of trials)",
                m.name()
            ),
        ),
    };
    Some(Figure {
        id,
        title,
        note: WHISKERS.into(),
        chart: Chart::Bars(chart),
        compact: false,
    })
}

fn metric_label(report: &Report<'_>, metric: Metric) -> String {
    match metric {
        Metric::Tps => report.rate_words(),
        Metric::Time => "milliseconds per trial".into(),
        Metric::Failures => "% of attempted transactions that failed".into(),
        Metric::Instructions => "instructions per operation".into(),
        m => format!("{} latency, milliseconds", m.name()),
    }
}

/// Percentiles plotted: x from 0 (the minimum) in steps of 0.1 nines up to the last one the
/// sample count resolves (at most 5 nines, 99.999%), and the maximum.
fn nines_grid(count: u64) -> Vec<f64> {
    let top = (count.max(1) as f64).log10().min(5.0);
    let steps = (top * 10.0).floor() as usize;
    (0..=steps).map(|i| i as f64 / 10.0).collect()
}

/// Fewer latencies than this make no percentile curve: SSB times each query once per trial,
/// and 6 samples gave a line of two points over an axis labelled only "0%". Such operations
/// are read from the per-operation bars with their whiskers instead.
pub const MIN_PERCENTILE_LATENCIES: u64 = 50;

/// One percentile plot per operation (with at least [`MIN_PERCENTILE_LATENCIES`] latencies): latency against percentile, one line per configuration,
/// from the merged HDR histograms of its measured trials.
pub fn latency(report: &Report<'_>) -> Vec<Figure> {
    let mut figures = Vec::new();
    let mut ops = chart_operations(report);
    // An open loop's answer is the whole run's latency (the page's first screen shows it).
    if report.manifest.load.open() && !ops.iter().any(|o| o == "all") {
        ops.insert(0, "all".to_string());
    }
    for op in ops {
        let mut lines = Vec::new();
        for cfg in &report.manifest.configs {
            let measured: Vec<&TrialRecord> = report
                .trials
                .iter()
                .filter(|t| t.config == cfg.index && !t.warmup)
                .collect();
            let h = merged_latency(&measured, &op);
            if h.len() < MIN_PERCENTILE_LATENCIES {
                continue;
            }
            let mut points: Vec<(f64, f64)> = nines_grid(h.len())
                .into_iter()
                .map(|x| (x, h.value_at_quantile(1.0 - 10f64.powf(-x)) as f64 / 1000.0))
                .collect();
            let last = points.last().map_or(0.0, |p| p.0);
            points.push((last + 0.1, h.max() as f64 / 1000.0));
            lines.push(Line {
                name: format!("{} ({} timed)", config_name(cfg), h.len()),
                points,
            });
        }
        if lines.is_empty() {
            continue;
        }
        let slug: String = op
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        figures.push(Figure {
            id: format!("latency-{slug}"),
            title: if op == "all" {
                "Latency percentiles: every transaction".to_string()
            } else {
                format!("Latency percentiles: {op}")
            },
            note: "Each line is one configuration's latencies over all its measured trials (merged HDR histograms); the last point of a line is the maximum.".into(),
            chart: Chart::Lines(LineChart {
                x: XAxis::Nines,
                y_label: "latency (microseconds, log scale)".into(),
                y_log: true,
                markers: false,
                gap_s: None,
                color_offset: 0,
                lines,
            }),
            compact: false,
        });
    }
    figures
}

/// For each knob that some configurations vary while everything else stays as in
/// configuration #0 (`--vary-one`, or a single `--knob` axis): the median along the knob's
/// values, in the workload's metric (throughput, or time per trial), one line per operation.
pub fn knob_lines(report: &Report<'_>) -> Vec<Figure> {
    let configs = &report.manifest.configs;
    let Some(base) = configs.first() else {
        return Vec::new();
    };
    let mut names: Vec<&str> = Vec::new();
    for c in configs {
        for k in &c.knobs.0 {
            if !names.contains(&k.name.as_str()) {
                names.push(&k.name);
            }
        }
    }
    let others_equal = |c: &ConfigInfo, knob: &str| {
        c.engine == base.engine
            && c.fs.as_ref().map(|f| &f.spec) == base.fs.as_ref().map(|f| &f.spec)
            && c.scheduler == base.scheduler
            && names
                .iter()
                .filter(|n| **n != knob)
                .all(|n| c.knobs.get(n) == base.knobs.get(n))
    };
    // The report's headline: the workload's metric, or in an open loop the latency metric.
    let metric = report.metric;
    let metric_of = |r: &SummaryRow| r.figure(metric).value;
    let mut figures = Vec::new();
    for knob in names.clone() {
        let members: Vec<&ConfigInfo> = configs.iter().filter(|c| others_equal(c, knob)).collect();
        let values: Vec<String> = members
            .iter()
            .map(|c| c.knobs.get(knob).unwrap_or("(default)").to_string())
            .collect();
        let mut distinct = values.clone();
        distinct.sort();
        distinct.dedup();
        if members.len() < 2 || distinct.len() != values.len() {
            continue;
        }
        let lines: Vec<Line> = chart_operations(report)
            .into_iter()
            .filter_map(|op| {
                let points: Vec<(f64, f64)> = members
                    .iter()
                    .enumerate()
                    .filter_map(|(x, c)| {
                        report
                            .summary
                            .iter()
                            .find(|r| r.config == c.index && r.operation == op)
                            .and_then(|r| Some((x as f64, metric_of(r)?)))
                    })
                    .collect();
                (!points.is_empty()).then_some(Line { name: op, points })
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        let held = if configs.len() > members.len() {
            " Other knobs are held at configuration #0's values; configurations that change them are not on this chart."
        } else {
            ""
        };
        if lines.len() > MAX_LINES {
            figures.push(speedup_bars(report, knob, &members, &values, held));
            continue;
        }
        figures.push(Figure {
            id: format!("knob-{}", knob.replace(|c: char| !c.is_ascii_alphanumeric(), "-")),
            title: format!("{} along {knob}", figure_words(metric, true)),
            note: format!(
                "{} of each operation at each value of {knob}.{held}",
                figure_words(metric, false)
            ),
            chart: Chart::Lines(
                LineChart {
                    x: XAxis::Categories(knob.to_string(), values),
                    y_label: metric_label(report, metric),
                    y_log: false,
                    markers: true,
                    gap_s: None,
                    color_offset: OPERATION_COLORS,
                    lines,
                }
                .scaled(),
            ),
            compact: false,
        });
    }
    figures
}

/// A sweep's scaling curves ([`crate::report::curve`]): per curve, the achieved throughput and
/// the p99 latency at each point, side by side, each with the point where scaling stops
/// marked as a line of one point of its own (so the legend names it).
pub fn scaling(report: &Report<'_>) -> Vec<Figure> {
    use crate::report::curve::Axis;
    let mut out = Vec::new();
    for (n, c) in report.curves.iter().enumerate() {
        let (axis, words) = match c.axis {
            Axis::Clients => ("clients", "clients"),
            Axis::Rate => ("offered tx/s", "offered rate"),
        };
        let ticks: Vec<String> = c
            .points
            .iter()
            .map(|p| crate::model::load::rate_text(p.value))
            .collect();
        let of = if c.of.is_empty() || report.curves.len() == 1 {
            String::new()
        } else {
            format!(" ({})", c.of)
        };
        let stop_at = c
            .stop
            .as_ref()
            .and_then(|s| c.points.iter().position(|p| p.config == s.config));
        let unit = report.unit();
        let mut chart =
            |id: &str, what: &str, y_label: String, value: &dyn Fn(&crate::report::curve::Point) -> Option<f64>| {
                let points: Vec<(f64, f64)> = c
                    .points
                    .iter()
                    .enumerate()
                    .filter_map(|(x, p)| Some((x as f64, value(p)?)))
                    .collect();
                if points.is_empty() {
                    return;
                }
                let mut lines = vec![Line {
                    name: what.to_string(),
                    points,
                }];
                if let Some(x) = stop_at {
                    if let Some(y) = value(&c.points[x]) {
                        lines.push(Line {
                            name: format!("scaling stops: {} {words}", ticks[x]),
                            points: vec![(x as f64, y)],
                        });
                    }
                }
                out.push(Figure {
                    id: format!("scaling-{id}-{n}"),
                    title: format!("{what} against {words}{of}"),
                    note: format!(
                        "{} Each point is the median of its configuration's measured trials.",
                        c.line
                    ),
                    chart: Chart::Lines(
                        LineChart {
                            x: XAxis::Categories(axis.to_string(), ticks.clone()),
                            y_label,
                            y_log: false,
                            markers: true,
                            gap_s: None,
                            color_offset: 0,
                            lines,
                        }
                        .scaled(),
                    ),
                    compact: true,
                });
            };
        chart("throughput", "Achieved throughput", format!("{unit}/s"), &|p| {
            p.tps_median
        });
        chart("p99", "p99 latency", "ms".to_string(), &|p| p.p99_ms_median);
    }
    out
}

/// What a knob chart's lines are, in words: `Throughput`, `p99 latency`, ...
fn figure_words(metric: Metric, title: bool) -> String {
    let w = match metric {
        Metric::Tps => "median throughput".to_string(),
        Metric::Time => "median time per trial".to_string(),
        Metric::Failures => "failed transactions, % of attempted (mean of trials)".to_string(),
        Metric::Instructions => "median instructions per operation".to_string(),
        m => format!("{} latency (median of trials)", m.name()),
    };
    if title {
        let w = w.trim_start_matches("median ");
        let mut c = w.chars();
        c.next()
            .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
    } else {
        let mut c = w.chars();
        c.next()
            .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
    }
}

/// More lines than this along a knob (SSB's 13 queries along `bloom_filter`) cannot be told
/// apart; the knob's chart is then a speed-up bar per operation instead.
pub const MAX_LINES: usize = 8;

/// Each operation's speed at each of a knob's values against its first value (higher =
/// faster), one bar per operation and value: what a chart of many lines along the knob would
/// have to be read for. With configuration #0 as the first value the bars are the summary's own
/// ratios with their 95% intervals; otherwise the ratio of the medians, without one.
fn speedup_bars(report: &Report<'_>, knob: &str, members: &[&ConfigInfo], values: &[String], held: &str) -> Figure {
    // A speed in the headline metric: a failure rate has none (a ratio to 0 means nothing), so
    // its knob bars are of the p99 latency.
    let metric = match report.metric {
        Metric::Failures => Metric::P99,
        m => m,
    };
    let ops: Vec<String> = chart_operations(report).into_iter().filter(|o| o != "all").collect();
    let row = |c: &ConfigInfo, op: &str| report.summary.iter().find(|r| r.config == c.index && r.operation == op);
    let mut bars = Vec::new();
    for (g, op) in ops.iter().enumerate() {
        let Some(first) = row(members[0], op) else { continue };
        for (s, c) in members.iter().enumerate().skip(1) {
            let Some(r) = row(c, op) else { continue };
            let fig = r.figure(metric);
            let (value, interval) = match fig.against {
                crate::report::summary::Against::Ratio(q) if members[0].index == 0 => {
                    (q.ratio, q.ci95.map(|i| (i.low, i.high)))
                }
                _ => {
                    let (mine, theirs) = (
                        fig.value.unwrap_or(f64::NAN),
                        first.figure(metric).value.unwrap_or(f64::NAN),
                    );
                    (
                        if metric.better() == litebench_stats::Better::Higher {
                            mine / theirs
                        } else {
                            theirs / mine
                        },
                        None,
                    )
                }
            };
            if value.is_finite() {
                bars.push(Bar {
                    group: g,
                    series: s - 1,
                    value,
                    interval,
                });
            }
        }
    }
    Figure {
        id: format!("knob-{}", knob.replace(|c: char| !c.is_ascii_alphanumeric(), "-")),
        title: format!(
            "Speed-up along {knob}, per operation{}",
            if metric == Metric::Tps || metric == Metric::Time {
                String::new()
            } else {
                format!(", by {}", metric.name())
            }
        ),
        note: format!(
            "Each operation's median speed{} at each value of {knob} against {knob}={} (1 = as fast, higher = faster); whiskers are the ratio's 95% interval where there is one.{held}",
            match metric {
                Metric::Tps | Metric::Time => String::new(),
                m => format!(" by {} latency ({knob}={}'s over this one's)", m.name(), values[0]),
            },
            values[0]
        ),
        chart: Chart::Bars(
            BarChart {
                y_label: format!("speed against {knob}={}", values[0]),
                groups: ops,
                series: values[1..].iter().map(|v| format!("{knob}={v}")).collect(),
                bars,
                y_log: false,
            }
            .scaled(),
        ),
        compact: false,
    }
}

/// A value and its 95% interval, when known.
type ValueWithInterval = (f64, Option<(f64, f64)>);

/// Whole-trial throughput, syncs and bytes written per transaction, one bar per configuration:
/// three charts meant to sit side by side. Syncs and bytes are left out when no configuration's
/// engine had its I/O counted.
pub fn io_beside(report: &Report<'_>) -> Vec<Figure> {
    let rows: Vec<_> = report.summary.iter().filter(|r| r.operation == "all").collect();
    let series: Vec<String> = report.manifest.configs.iter().map(config_name).collect();
    let chart = |y_label: &str, f: &dyn Fn(&SummaryRow) -> Option<ValueWithInterval>| {
        BarChart {
            y_label: y_label.into(),
            groups: vec!["all operations".into()],
            series: series.clone(),
            bars: rows
                .iter()
                .filter_map(|r| {
                    f(r).map(|(value, interval)| Bar {
                        group: 0,
                        series: r.config,
                        value,
                        interval,
                    })
                })
                .collect(),
            y_log: false,
        }
        .scaled()
    };
    let mut out = Vec::new();
    let tps = chart(&report.rate_words(), &|r| {
        Some((
            r.throughput.tps_median,
            r.throughput.tps_median_ci95_low.zip(r.throughput.tps_median_ci95_high),
        ))
    });
    let syncs = chart("fsync/fdatasync calls per transaction", &|r| {
        r.io.syncs_per_tx.map(|v| (v, None))
    });
    let bytes = chart("KiB written per transaction", &|r| {
        r.io.write_bytes_per_tx.map(|v| (v / 1024.0, None))
    });
    // A workload that never writes has no syncs or bytes written to chart.
    let read_only = report.workload.read_only();
    for (id, title, c) in [
        ("beside-throughput", "Throughput (whole trials)", tps),
        ("beside-syncs", "Syncs per transaction", syncs),
        ("beside-bytes", "Bytes written per transaction", bytes),
    ] {
        if read_only && id != "beside-throughput" {
            continue;
        }
        if !c.bars.is_empty() {
            let zero = if c.bars.iter().all(|b| b.value == 0.0) {
                " Every configuration: 0, so there are no bars."
            } else {
                ""
            };
            out.push(Figure {
                id: id.into(),
                title: title.into(),
                note: format!(
                    "Means over measured trials, as litebench's VFS shim counted them (SQLite builds only).{zero}"
                ),
                chart: Chart::Bars(c),
                compact: true,
            });
        }
    }
    if let Some(first) = out.first_mut() {
        first.note = WHISKERS.into();
    }
    out
}

/// Whole-trial throughput of each measured trial at its position in the run (its `seq`),
/// one line per configuration, so drift and outliers show.
pub fn trials_in_order(report: &Report<'_>) -> Option<Figure> {
    let lines: Vec<Line> = report
        .manifest
        .configs
        .iter()
        .map(|c| Line {
            name: config_name(c),
            points: samples(report.trials, c.index, "all", Metric::Tps)
                .iter()
                .map(|s| (s.seq as f64, s.value))
                .collect(),
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    (!lines.is_empty()).then(|| Figure {
        id: "trials".into(),
        title: "Throughput of each trial in run order".into(),
        note: "x is the trial's position in the run (configurations interleave, so every configuration sees the same drift); warm-up trials are left out.".into(),
        chart: Chart::Lines(LineChart {
            x: XAxis::Linear("trial (position in the run)".into()),
            y_label: report.rate_words(),
            y_log: false,
            markers: true,
            gap_s: None,
            color_offset: 0,
            lines,
        }
        .scaled()),
        compact: false,
    })
}

/// Trials run by the load driver keep a time series: throughput and the worst operation type's
/// p99 per interval, and the main database file's syncs per interval (checkpoints in WAL mode),
/// one line per configuration, from each configuration's first measured trial.
///
/// Throughput counts transactions: a script's statements are recorded as parts of their
/// script ([`crate::model::op::OpResult::part_of`]), and counting them too drew about six times
/// the rate `--progress` printed. The trial ends inside its last interval, whose rate is over
/// the part it covered, not over a whole interval (drawn whole, it read as a drop).
pub fn over_time(report: &Report<'_>) -> Vec<Figure> {
    let firsts = first_series(report);
    let Some((_, first)) = firsts.first() else {
        return Vec::new();
    };
    let interval = first.series.as_ref().map_or(0, |s| s.interval_ms);
    // A reading a whole interval late is a gap: the line breaks there.
    let gap = Some(interval.max(1) as f64 * 1.5 / 1000.0);
    let lines = |line: fn(&ConfigInfo, &TrialRecord, &Series) -> Option<Line>| -> Vec<Line> {
        let each = |(c, t): &(&ConfigInfo, &TrialRecord)| line(c, t, t.series.as_ref().expect("filtered on a series"));
        firsts.iter().filter_map(each).collect()
    };
    let chart =
        |y_label: &str, y_log: bool, lines: Vec<Line>| Chart::Lines(time_lines(y_label, y_log, gap, lines).scaled());
    let main = lines(main_syncs_line);
    let mut out = vec![
        Figure {
            id: "over-time-throughput".into(),
            title: "Throughput over time".into(),
            note: format!("Transactions completed per second in each {interval} ms interval (--interval), in each configuration's first measured trial; a script's statements are parts of its transactions and not counted again. The trial ends inside its last interval: that point is scaled to the part the trial covered, not drawn as a drop, and a remainder shorter than half an interval is joined to the interval before it (its few transactions over a sliver of time would read as a spike)."),
            chart: chart(&report.rate_words(), false, lines(throughput_line)),
            compact: false,
        },
        Figure {
            id: "over-time-p99".into(),
            title: "p99 latency over time".into(),
            note: "Per interval, the highest p99 of any transaction type (a script's statements are inside their script's; from the intended start in an open loop): a stall shows in the interval its transactions end in.".into(),
            chart: chart("p99 latency (us, log scale)", true, lines(p99_line)),
            compact: false,
        },
    ];
    if main.iter().any(|l| l.points.iter().any(|p| p.1 > 0.0)) {
        out.push(Figure {
            id: "over-time-checkpoints".into(),
            title: "Main database syncs over time".into(),
            note: "Syncs of the main database file per interval, as the VFS shim counted them: in WAL mode only a checkpoint writes and syncs it, so a spike in p99 beside one is a checkpoint stall.".into(),
            chart: chart("main database syncs", false, main),
            compact: false,
        });
    }
    // With a cast, the WAL is drawn on each configuration's timeline of its roles, beside
    // the holds and checkpoints that explain it.
    if report.manifest.load.cast.is_some() {
        out.extend(timelines(report, &firsts));
    } else {
        out.extend(wal_over_time(report, gap, lines(wal_line)));
    }
    out
}

/// Each configuration's first measured trial with a series: the one its lines over time draw.
fn first_series<'r>(report: &'r Report<'_>) -> Vec<(&'r ConfigInfo, &'r TrialRecord)> {
    report
        .manifest
        .configs
        .iter()
        .filter_map(|c| {
            report
                .trials
                .iter()
                .find(|t| t.config == c.index && !t.warmup && t.series.is_some())
                .map(|t| (c, t))
        })
        .collect()
}

/// The chart of lines over seconds into the trial that every figure over time shares.
fn time_lines(y_label: &str, y_log: bool, gap_s: Option<f64>, lines: Vec<Line>) -> LineChart {
    LineChart {
        x: XAxis::Linear("seconds into the trial".into()),
        y_label: y_label.into(),
        y_log,
        markers: false,
        gap_s,
        color_offset: 0,
        lines,
    }
}

/// The interval starts of a series, once each and in order.
fn interval_starts(s: &Series) -> Vec<u64> {
    let mut times: Vec<u64> = s.points.iter().map(|p| p.t_ms).collect();
    times.sort_unstable();
    times.dedup();
    times
}

/// A series' points at interval start `t_ms` of whole transactions: a script's statements are parts of one.
fn whole_at<'s>(t: &'s TrialRecord, s: &'s Series, t_ms: u64) -> impl Iterator<Item = &'s SeriesPoint> + 's {
    let whole = |op: &str| !t.ops.iter().any(|o| o.name == op && o.part_of.is_some());
    s.points.iter().filter(move |p| p.t_ms == t_ms && whole(&p.op))
}

/// Transactions per second in each interval: the throughput over time.
fn throughput_line(c: &ConfigInfo, t: &TrialRecord, s: &Series) -> Option<Line> {
    let count = |t_ms: u64| whole_at(t, s, t_ms).map(|p| p.ops).sum();
    let trial_ms = t.measured_ns as f64 / 1e6;
    let points = interval_rates(&interval_starts(s), count, s.interval_ms, trial_ms);
    Some(Line {
        name: config_name(c),
        points,
    })
}

/// Each interval's highest p99 of any transaction type: where a stall shows.
fn p99_line(c: &ConfigInfo, t: &TrialRecord, s: &Series) -> Option<Line> {
    let highest = |t_ms: u64| whole_at(t, s, t_ms).filter_map(|p| p.p99_us).reduce(f64::max);
    let points = interval_starts(s)
        .into_iter()
        .filter_map(|t_ms| highest(t_ms).map(|v| (t_ms as f64 / 1000.0, v)))
        .collect();
    Some(Line {
        name: config_name(c),
        points,
    })
}

/// The main database file's syncs per interval, where the series counted I/O: the checkpoints.
fn main_syncs_line(c: &ConfigInfo, _: &TrialRecord, s: &Series) -> Option<Line> {
    let points = s.io.iter().map(|i| (i.t_ms as f64 / 1000.0, i.main_syncs as f64));
    (!s.io.is_empty()).then(|| Line {
        name: config_name(c),
        points: points.collect(),
    })
}

/// The WAL's size on disk at each reading, where there was a WAL.
fn wal_line(c: &ConfigInfo, _: &TrialRecord, s: &Series) -> Option<Line> {
    let points = s
        .files
        .iter()
        .map(|f| (f.t_ms as f64 / 1000.0, f.wal_bytes as f64 / MIB));
    s.files.iter().any(|f| f.wal_bytes > 0).then(|| Line {
        name: config_name(c),
        points: points.collect(),
    })
}

/// A cast's roles on one time axis per configuration, the WAL's size among them.
fn timelines(report: &Report<'_>, firsts: &[(&ConfigInfo, &TrialRecord)]) -> Vec<Figure> {
    let mut out = Vec::new();
    for (c, t) in firsts {
        let Some(tl) = super::timeline::build(t) else {
            continue;
        };
        if tl.lines() == 0 {
            continue;
        }
        let mine: Vec<String> = report
            .wal
            .iter()
            .filter(|w| w.config == c.index)
            .map(crate::report::wal::line)
            .collect();
        out.push(Figure {
            id: format!("timeline-{}", c.index),
            title: if firsts.len() == 1 {
                "The roles on one timeline".into()
            } else {
                format!("The roles on one timeline: {}", config_name(c))
            },
            note: super::timeline::caption(c, &tl, &mine),
            chart: Chart::Timeline(tl),
            compact: false,
        });
    }
    out
}

/// The WAL's size over time without a cast, with the verdict over every measured trial.
fn wal_over_time(report: &Report<'_>, gap: Option<f64>, wal: Vec<Line>) -> Option<Figure> {
    if wal.is_empty() {
        return None;
    }
    let verdicts: Vec<String> = report.wal.iter().map(crate::report::wal::line).collect();
    Some(Figure {
        id: "over-time-wal".into(),
        title: "WAL size over time".into(),
        note: format!(
            "The write-ahead log's size on disk at each interval's start and at the trial's end, in each configuration's first measured trial, read from the file system (no connection); beside the main database syncs above, a checkpoint that restarts the WAL stops its growth, and a WAL that keeps growing was not restarted. Over every measured trial: {}.",
            verdicts.join("; ")
        ),
        // Linear, never log: a WAL that grows without bound is a line that keeps
        // climbing, a bounded one a flat line, and a log axis would bend both.
        chart: Chart::Lines(time_lines("WAL size (MiB)", false, gap, wal)),
        compact: false,
    })
}

/// Bytes in a mebibyte, for the WAL's size.
const MIB: f64 = 1024.0 * 1024.0;

/// Each interval's rate (per second) at its start (seconds), for a series' interval starts
/// `times` and what `count_at` counts in each: the last interval over the part of it the trial
/// covered; a last remainder shorter than half an interval is merged into the interval before
/// it, their counts over their joint length (a 0.44 ms remainder holding one transaction would
/// otherwise read 2,300 tx/s for a 280 tx/s role). Every chart and caption of rates over time
/// goes through here.
pub(super) fn interval_rates(
    times: &[u64],
    count_at: impl Fn(u64) -> u64,
    interval_ms: u64,
    trial_ms: f64,
) -> Vec<(f64, f64)> {
    let full = interval_ms.max(1) as f64;
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(times.len());
    for (i, &t) in times.iter().enumerate() {
        let last = i + 1 == times.len();
        let ms = if last {
            interval_covered_ms(t, interval_ms, trial_ms)
        } else {
            full
        };
        let n = count_at(t) as f64;
        if last && ms < full / 2.0 && i > 0 {
            let prev = times[i - 1];
            let joint = full + ms;
            if let Some(p) = out.last_mut() {
                p.1 = (count_at(prev) as f64 + n) / (joint / 1000.0);
            }
            continue;
        }
        out.push((t as f64 / 1000.0, n / (ms / 1000.0)));
    }
    out
}

/// How much of the series' last interval, starting at `t_ms`, the trial covered, milliseconds:
/// up to the trial's end (`trial_ms` after its measured start) where that falls inside it; the
/// whole interval otherwise (a trial stored without its measured time, or records that do not
/// agree).
fn interval_covered_ms(t_ms: u64, interval_ms: u64, trial_ms: f64) -> f64 {
    let full = interval_ms.max(1) as f64;
    let left = trial_ms - t_ms as f64;
    if left > 0.0 && left < full {
        left
    } else {
        full
    }
}

/// The workload's own charts over time ([`crate::workload::WorkloadReport::lines`]), drawn in
/// the answer: ids `workload-ID`, linear axes.
pub fn workload_lines(report: &Report<'_>) -> Vec<Figure> {
    // Legends name each configuration by what sets it apart (`#1 begin=immediate`).
    let labels: Vec<&str> = report.manifest.configs.iter().map(|c| c.label.as_str()).collect();
    let (_, own) = crate::report::compact::split_labels(&labels);
    // A long list of knobs (an engine's defaults beside other engines) gives way to the engine's
    // name: the legend has room for a few words, and the tables give every knob.
    let name = |c: usize| match own.get(c).filter(|o| !o.is_empty()) {
        Some(o) if o.len() <= 40 => format!("#{c} {o}"),
        Some(_) => {
            let engine = report
                .manifest
                .configs
                .iter()
                .find(|x| x.index == c)
                .map_or("", |x| x.engine.as_str());
            format!("#{c} {engine}")
        }
        None => format!("#{c}"),
    };
    report
        .workload
        .hooks()
        .lines(report.manifest, report.trials)
        .into_iter()
        .filter(|l| l.lines.iter().any(|(_, p)| !p.is_empty()))
        .map(|l| Figure {
            id: format!("workload-{}", l.id),
            title: l.title,
            note: l.note,
            chart: Chart::Lines(LineChart {
                x: XAxis::Linear("seconds into the trial".into()),
                y_label: l.y_label,
                y_log: false,
                markers: false,
                gap_s: None,
                color_offset: 0,
                lines: l
                    .lines
                    .into_iter()
                    .filter(|(c, _)| report.manifest.configs.iter().any(|x| x.index == *c))
                    .map(|(c, points)| Line { name: name(c), points })
                    .collect(),
            }),
            compact: true,
        })
        .collect()
}

/// Every figure of a run's report, in page order.
pub fn figures(report: &Report<'_>) -> Vec<Figure> {
    let mut out = Vec::new();
    // In the report's headline metric: the workload's own (time per query or test for SSB and
    // the suites, whose throughput per operation would only be its reciprocal; throughput for the
    // rest), or in an open loop the p99 latency (`--metric` chooses).
    out.extend(per_operation(report, report.metric));
    out.extend(scaling(report));
    out.extend(super::storage::figures(report));
    out.extend(workload_lines(report));
    out.extend(super::releases::figures(report));
    out.extend(io_beside(report));
    out.extend(knob_lines(report));
    out.extend(latency(report));
    out.extend(over_time(report));
    out.extend(trials_in_order(report));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::knob::{KnobSet, KnobSetting};
    use crate::model::op::{encode, new_histogram, OpResult};
    use crate::model::params::Params;
    use crate::model::record::Manifest;
    use crate::report::{Input, RunHeader};

    pub fn manifest(configs: &[&[(&str, &str)]]) -> Manifest {
        let dir = tempfile::tempdir().unwrap();
        Manifest {
            tool_version: "test".into(),
            command: vec!["litebench".into()],
            started_at: "2024-01-01T00:00:00Z".into(),
            workload: "crud".into(),
            workload_source: "builtin".into(),
            params: Params::default(),
            seed: 1,
            trials: 8,
            warmup: 1,
            cold_cache: false,
            in_memory: false,
            engines: vec![],
            configs: configs
                .iter()
                .enumerate()
                .map(|(index, knobs)| {
                    let knobs = KnobSet(
                        knobs
                            .iter()
                            .map(|(n, v)| KnobSetting {
                                name: n.to_string(),
                                value: v.to_string(),
                            })
                            .collect(),
                    );
                    ConfigInfo {
                        index,
                        engine: "sqlite".into(),
                        label: knobs.label(),
                        knobs,
                        knob_origins: Vec::new(),
                        fs: None,
                        scheduler: None,
                        scheduler_device: None,
                        storage: None,
                        load: None,
                        extension: None,
                        driver: None,
                        role_drivers: Vec::new(),
                    }
                })
                .collect(),
            environment: litebench_env::capture(dir.path()).unwrap(),
            sync_latency: None,
            sync_latency_not_measured: None,
            scratch_dir: "/scratch".into(),
            statistics: None,
            warnings: Vec::new(),
            load: Default::default(),
            guest: None,
            fleet: None,
            presets: None,
            stop: None,
            workload_files: Vec::new(),
            instructions: None,
            io_per_thread: false,
        }
    }

    /// A hold of role `role` from `start_ms` to `end_ms`, with a generic snapshot read.
    pub fn hold(role: &str, start_ms: u64, end_ms: u64) -> crate::model::cast::Hold {
        crate::model::cast::Hold {
            role: role.into(),
            start_ms,
            end_ms,
            query: None,
        }
    }

    /// A cast's role `name` of `kind`: one client in a closed loop, always on, nothing more.
    pub fn role(name: &str, kind: crate::model::cast::RoleKind) -> crate::model::cast::Role {
        crate::model::cast::Role {
            name: name.into(),
            kind,
            clients: 1,
            mode: Default::default(),
            connections: Default::default(),
            rate: None,
            arrival: Default::default(),
            params: Default::default(),
            knobs: Vec::new(),
            schedule: Default::default(),
            sidecar: None,
            backup: None,
            query: None,
        }
    }

    /// `rounds` rounds of every configuration (round 0 a warm-up), each trial running `ops`
    /// with latencies of `1 + config` .. microseconds.
    pub fn trials(configs: usize, rounds: u32, ops: &[&str]) -> Vec<TrialRecord> {
        let mut out = Vec::new();
        for round in 0..rounds {
            for config in 0..configs {
                let results: Vec<OpResult> = ops
                    .iter()
                    .enumerate()
                    .map(|(i, name)| {
                        let mut h = new_histogram();
                        for k in 0..100u64 {
                            h.record(1000 * (1 + config as u64) + 10 * k + i as u64).unwrap();
                        }
                        OpResult {
                            name: name.to_string(),
                            ops: 100,
                            elapsed_ns: 1_000_000 * (10 + u64::from(round % 3) + config as u64),
                            histogram: encode(&h),
                            ..Default::default()
                        }
                    })
                    .collect();
                let total_ops = results.iter().map(|o| o.ops).sum();
                let measured_ns = results.iter().map(|o| o.elapsed_ns).sum();
                out.push(TrialRecord {
                    seq: out.len() as u64,
                    round,
                    config,
                    warmup: round == 0,
                    ops: results,
                    total_ops,
                    measured_ns,
                    ..Default::default()
                });
            }
        }
        out
    }

    pub fn report<'a>(m: &'a Manifest, t: &'a [TrialRecord]) -> Report<'a> {
        Report::build(Input {
            run: RunHeader {
                id: 1,
                name: None,
                status: "complete".into(),
                error: None,
                finished_at: None,
                results: "results.db".into(),
            },
            manifest: m,
            trials: t,
            templates: &[],
            noise: None,
            metric: None,
            baseline: 0,
            process_syncs: None,
        })
    }

    // crud's three types in its order, then one it does not declare (kept, listed last).
    const CRUD: [&str; 4] = ["insert", "update", "delete", "select"];

    #[test]
    fn throughput_has_a_bar_per_configuration_and_operation_with_whiskers() {
        let m = manifest(&[&[("journal_mode", "delete")], &[("journal_mode", "wal")]]);
        let t = trials(2, 9, &CRUD);
        let r = report(&m, &t);
        let f = per_operation(&r, Metric::Tps).unwrap();
        assert_eq!(f.bars(), 8, "2 configurations x 4 operations");
        let Chart::Bars(b) = &f.chart else { panic!("bars") };
        assert_eq!(b.groups, CRUD.to_vec());
        // 8 measured trials per configuration: every median has its interval.
        assert!(b
            .bars
            .iter()
            .all(|b| b.interval.is_some_and(|(lo, hi)| lo <= b.value && b.value <= hi)));
        // Config 1 is slower (longer elapsed time for the same operations).
        assert!(b.bars[0].value > b.bars[1].value, "{:?}", b.bars);
    }

    #[test]
    fn latency_has_one_chart_per_operation_and_a_line_per_configuration() {
        let m = manifest(&[&[("journal_mode", "delete")], &[("journal_mode", "wal")]]);
        let t = trials(2, 4, &CRUD);
        let r = report(&m, &t);
        let figs = latency(&r);
        assert_eq!(figs.len(), 4);
        assert!(figs.iter().all(|f| f.lines() == 2));
        let Chart::Lines(l) = &figs[0].chart else {
            panic!("lines")
        };
        // 300 latencies per configuration (3 measured trials x 100): 0..2.4 nines plus the maximum.
        assert_eq!(l.lines[0].points.len(), 26);
        // Config 0's latencies are 1000..1990 ns (+ the operation's index): median near 1.5 us.
        let median = l.lines[0].points.iter().find(|p| (p.0 - 0.3).abs() < 1e-9).unwrap().1;
        assert!((median - 1.5).abs() < 0.02, "{median}");
        assert!((l.lines[0].points.last().unwrap().1 - 1.99).abs() < 0.01);
        assert!(l.lines[1].points.iter().all(|p| p.1 >= 2.0), "config 1 is slower");
    }

    #[test]
    fn a_varied_knob_gets_a_line_per_operation() {
        let m = manifest(&[
            &[("journal_mode", "delete")],
            &[("journal_mode", "truncate")],
            &[("journal_mode", "wal")],
        ]);
        let t = trials(3, 3, &CRUD);
        let figs = knob_lines(&report(&m, &t));
        assert_eq!(figs.len(), 1);
        assert_eq!(figs[0].lines(), 4);
        let Chart::Lines(l) = &figs[0].chart else {
            panic!("lines")
        };
        assert_eq!(
            l.x,
            XAxis::Categories(
                "journal_mode".into(),
                vec!["delete".into(), "truncate".into(), "wal".into()]
            )
        );
        assert!(l.lines.iter().all(|l| l.points.len() == 3));
    }

    #[test]
    fn vary_one_gives_a_chart_per_knob_and_a_matrix_corner_is_not_a_line() {
        // --vary-one: baseline, then each knob changed alone.
        let vary = manifest(&[
            &[("journal_mode", "delete"), ("synchronous", "full")],
            &[("journal_mode", "wal"), ("synchronous", "full")],
            &[("journal_mode", "delete"), ("synchronous", "normal")],
        ]);
        let t = trials(3, 2, &["insert"]);
        let figs = knob_lines(&report(&vary, &t));
        assert_eq!(
            figs.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
            ["knob-journal-mode", "knob-synchronous"]
        );
        // One operation type: a single `all` line.
        assert!(figs.iter().all(|f| f.lines() == 1));
        // Different engines only: nothing varies along a knob.
        let single = manifest(&[&[]]);
        let t1 = trials(1, 2, &["insert"]);
        assert!(knob_lines(&report(&single, &t1)).is_empty());
    }

    #[test]
    fn trials_with_a_series_get_charts_over_time_and_others_none() {
        use crate::model::series::{Series, SeriesFiles, SeriesIo, SeriesPoint};
        let m = manifest(&[&[], &[("journal_mode", "wal")]]);
        let mut t = trials(2, 2, &["read"]);
        assert!(over_time(&report(&m, &t)).is_empty(), "no series, no charts over time");
        for tr in t.iter_mut() {
            tr.series = Some(Series {
                interval_ms: 500,
                points: (0..4)
                    .map(|i| SeriesPoint {
                        t_ms: i * 500,
                        op: "read".into(),
                        ops: 100 + i,
                        succeeded: 100 + i,
                        p99_us: Some(1000.0 * (i + 1) as f64),
                        ..SeriesPoint::default()
                    })
                    .collect(),
                io: (0..4)
                    .map(|i| SeriesIo {
                        t_ms: i * 500,
                        main_syncs: u64::from(i == 2),
                        ..SeriesIo::default()
                    })
                    .collect(),
                // Only the WAL configuration's WAL has a size: 1 MiB more each interval.
                files: (0..4)
                    .map(|i| SeriesFiles {
                        t_ms: i * 500,
                        db_bytes: 4096,
                        wal_bytes: if tr.config == 1 { i * 1_048_576 } else { 0 },
                        ..SeriesFiles::default()
                    })
                    .collect(),
            });
        }
        let figs = over_time(&report(&m, &t));
        let ids: Vec<&str> = figs.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "over-time-throughput",
                "over-time-p99",
                "over-time-checkpoints",
                "over-time-wal"
            ]
        );
        let Chart::Lines(wal) = &figs[3].chart else {
            panic!("a line chart")
        };
        assert_eq!(wal.lines.len(), 1, "a line for the configuration that had a WAL");
        assert_eq!(wal.lines[0].points[3], (1.5, 3.0), "3 MiB at 1.5 s");
        let Chart::Lines(tps) = &figs[0].chart else {
            panic!("a line chart")
        };
        assert_eq!(tps.lines.len(), 2, "a line per configuration");
        // 100 transactions in a 500 ms interval: 200 per second, at 0 s.
        assert_eq!(tps.lines[0].points[0], (0.0, 200.0));
        let Chart::Lines(cp) = &figs[2].chart else {
            panic!("a line chart")
        };
        assert_eq!(cp.lines[0].points[2], (1.0, 1.0), "the checkpoint's interval");
    }

    /// Issue 32, item 5: a script's statements are parts of their script's transactions, so the
    /// throughput over time counts the scripts alone (counting the parts too drew 1,850 tx/s
    /// where `--progress` said 310); the trial's end cuts the last interval short, and its rate
    /// is over the part covered (drawn whole, 30 transactions in 100 ms read as a drop to 30/s).
    #[test]
    fn throughput_over_time_counts_transactions_and_scales_the_partial_last_interval() {
        use crate::model::series::{Series, SeriesPoint};
        let m = manifest(&[&[]]);
        let mut t = trials(1, 2, &["read.sql", "read.sql:2 SELECT"]);
        let point = |t_ms: u64, op: &str, ops: u64| SeriesPoint {
            t_ms,
            op: op.into(),
            ops,
            succeeded: ops,
            p99_us: Some(1000.0),
            ..SeriesPoint::default()
        };
        for tr in t.iter_mut() {
            tr.ops[1].part_of = Some("read.sql".into());
            // Two whole intervals of 1 s and 100 ms of a third.
            tr.measured_ns = 2_100_000_000;
            tr.series = Some(Series {
                interval_ms: 1000,
                points: vec![
                    point(0, "read.sql", 300),
                    point(0, "read.sql:2 SELECT", 300),
                    point(1000, "read.sql", 300),
                    point(1000, "read.sql:2 SELECT", 300),
                    point(2000, "read.sql", 30),
                    point(2000, "read.sql:2 SELECT", 30),
                ],
                io: Vec::new(),
                files: Vec::new(),
            });
        }
        let figs = over_time(&report(&m, &t));
        let Chart::Lines(tps) = &figs[0].chart else {
            panic!("a line chart")
        };
        let rates: Vec<f64> = tps.lines[0].points.iter().map(|p| p.1.round()).collect();
        // The last 100 ms (a tenth of an interval) joins the second: 330 in 1.1 s.
        assert_eq!(rates, [300.0, 300.0], "transactions per second, not parts: {tps:?}");
        assert!(
            figs[0].note.contains("scaled to the part the trial covered"),
            "{}",
            figs[0].note
        );
        assert_eq!(interval_covered_ms(2000, 1000, 2100.0), 100.0);
        assert_eq!(interval_covered_ms(1000, 1000, 2100.0), 1000.0);
        assert_eq!(
            interval_covered_ms(0, 1000, 0.0),
            1000.0,
            "no measured time: whole intervals"
        );
    }

    #[test]
    fn trials_chart_has_every_measured_trial_in_run_order() {
        let m = manifest(&[&[("journal_mode", "delete")], &[("journal_mode", "wal")]]);
        let t = trials(2, 5, &CRUD);
        let f = trials_in_order(&report(&m, &t)).unwrap();
        assert_eq!(f.lines(), 2);
        let Chart::Lines(l) = &f.chart else { panic!("lines") };
        // Rounds 1..4 measured; config 0 runs at seq 2, 4, 6, 8.
        assert_eq!(
            l.lines[0].points.iter().map(|p| p.0).collect::<Vec<_>>(),
            [2.0, 4.0, 6.0, 8.0]
        );
    }

    #[test]
    fn throughput_spanning_more_than_10x_gets_a_log_axis() {
        let m = manifest(&[&[("synchronous", "off")], &[("synchronous", "full")]]);
        let mut t = trials(2, 7, &CRUD);
        let r = report(&m, &t);
        let f = per_operation(&r, Metric::Tps).unwrap();
        assert!(!f.y_log(), "configurations within a factor of 2: linear");
        // Configuration 1 takes 500 times as long: 500x less throughput.
        for tr in t.iter_mut().filter(|t| t.config == 1) {
            for o in &mut tr.ops {
                o.elapsed_ns *= 500;
            }
            tr.measured_ns *= 500;
        }
        let r = report(&m, &t);
        for f in [
            per_operation(&r, Metric::Tps).unwrap(),
            io_beside(&r).remove(0),
            trials_in_order(&r).unwrap(),
        ] {
            assert!(f.y_log(), "{}", f.id);
            let label = match &f.chart {
                Chart::Bars(b) => b.y_label.clone(),
                Chart::Lines(l) => l.y_label.clone(),
                Chart::Timeline(t) => t.roles_label(),
            };
            assert!(label.ends_with(LOG_LABEL), "{}: {label}", f.id);
        }
        assert!(spans_decades([68.0, 303.0, 38_922.0]) && !spans_decades([68.0, 303.0, 0.0]));
    }

    #[test]
    fn a_handful_of_latencies_makes_no_percentile_chart() {
        let m = manifest(&[&[], &[("journal_mode", "wal")]]);
        let mut t = trials(2, 3, &CRUD);
        // Two measured trials timing each operation 100 times: enough for a curve.
        assert_eq!(latency(&report(&m, &t)).len(), CRUD.len());
        // SSB times each query once per trial: a handful of latencies per configuration.
        let per_trial = MIN_PERCENTILE_LATENCIES / 2 - 1;
        for tr in t.iter_mut() {
            for o in &mut tr.ops {
                let mut h = new_histogram();
                for k in 0..per_trial {
                    h.record(1000 + k).unwrap();
                }
                o.histogram = encode(&h);
            }
        }
        assert!(latency(&report(&m, &t)).is_empty());
    }

    #[test]
    fn many_operations_along_a_knob_become_speed_up_bars() {
        let names: Vec<String> = (1..=MAX_LINES + 1).map(|i| format!("Q{i}")).collect();
        let ops: Vec<&str> = names.iter().map(String::as_str).collect();
        let m = manifest(&[&[("bloom_filter", "off")], &[("bloom_filter", "on")]]);
        let t = trials(2, 7, &ops);
        let figs = knob_lines(&report(&m, &t));
        assert_eq!(figs.len(), 1);
        let Chart::Bars(b) = &figs[0].chart else {
            panic!("{} operations make bars, not lines", ops.len())
        };
        assert_eq!(b.groups, names);
        assert_eq!(b.series, ["bloom_filter=on"]);
        assert_eq!(b.bars.len(), names.len(), "one bar per operation");
        // Configuration 1 takes longer per trial: slower than configuration 0, with the ratio's interval.
        assert!(
            b.bars.iter().all(|b| b.value < 1.0 && b.interval.is_some()),
            "{:?}",
            b.bars
        );
        // As many operations as lines can show stay lines.
        let t = trials(2, 3, &ops[..MAX_LINES]);
        assert_eq!(knob_lines(&report(&m, &t))[0].lines(), MAX_LINES);
    }

    #[test]
    fn a_read_only_workload_gets_no_syncs_or_bytes_charts() {
        let mut m = manifest(&[&[], &[("cache_size", "-64000")]]);
        m.engines = vec![serde_json::from_value(serde_json::json!({
            "label": "sqlite", "kind": "sqlite", "version": "3", "io_counted": true
        }))
        .unwrap()];
        let mut t = trials(2, 3, &CRUD);
        for tr in t.iter_mut() {
            tr.io.main.syncs = 3;
            tr.io.main.write_bytes = 4096;
        }
        let ids = |m: &Manifest| -> Vec<String> { io_beside(&report(m, &t)).into_iter().map(|f| f.id).collect() };
        assert_eq!(ids(&m), ["beside-throughput", "beside-syncs", "beside-bytes"]);
        m.workload = "ssb".into();
        assert_eq!(ids(&m), ["beside-throughput"]);
    }

    #[test]
    fn io_charts_are_left_out_when_nothing_was_counted() {
        let m = manifest(&[&[("journal_mode", "delete")], &[("journal_mode", "wal")]]);
        let t = trials(2, 3, &CRUD);
        let figs = io_beside(&report(&m, &t));
        // No engine in this manifest has its I/O counted: throughput only.
        assert_eq!(
            figs.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
            ["beside-throughput"]
        );
        assert_eq!(figs[0].bars(), 2);
    }

    /// A 0.44 ms remainder holding one transaction joins the interval before it: 281 tx/s over
    /// the last 1,000.44 ms, not 2,273 tx/s; a remainder of half an interval or more stands.
    #[test]
    fn a_short_last_remainder_joins_the_interval_before() {
        let times = [0, 1000, 2000];
        let counts = |t: u64| match t {
            0 | 1000 => 280,
            _ => 1,
        };
        let r = interval_rates(&times, counts, 1000, 2000.44);
        assert_eq!(r.len(), 2);
        assert!((r[1].1 - 281.0 / 1.00044).abs() < 1e-6, "{r:?}");
        let r = interval_rates(&times, |t| if t == 2000 { 140 } else { 280 }, 1000, 2500.0);
        assert_eq!(r.len(), 3);
        assert!((r[2].1 - 280.0).abs() < 1e-9, "{r:?}");
    }
}
