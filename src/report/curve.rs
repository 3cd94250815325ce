//! The scaling curve of a sweep (`--clients 1,2,4,8`, `--rate 100,300,1000`): the achieved
//! throughput and p99 latency at each point, each step's throughput against the previous
//! point's (the same ratio, interval and verdict every other table prints, from
//! [`Statistics::compare`]), and the one line that says where scaling stops.
//!
//! Why a section of its own: a sweep's configurations read as a table of unrelated rows
//! otherwise, each against configuration #0, when the question is whether each step still
//! buys throughput. Scaling stops at the first step whose throughput is not told apart from,
//! or is below, the previous one's; for an offered rate, at the first rate the achieved rate
//! falls short of (beyond the noise threshold), or whose p99 passes `--latency-limit`. A
//! clients sweep at one offered rate (an open loop) fixes its throughput by schedule, so there
//! the curve is p99 and failures against clients: it stops at the first step whose p99 is
//! slower than the previous one's, whose failures rise, or that falls short of the rate.

use super::stats::{values, Metric, Statistics};
use crate::model::load::rate_text;
use crate::model::record::{Manifest, TrialRecord};
use litebench_stats::{median, Ratio, Verdict};
use serde::Serialize;

/// What a curve is drawn against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// `--clients`: concurrent clients.
    Clients,
    /// `--rate`: the offered rate, transactions per second.
    Rate,
}

impl Axis {
    /// The point's value as its configuration label names it (`clients=4`, `rate=300`).
    fn token(self, value: f64) -> String {
        match self {
            Axis::Clients => format!("clients={value}"),
            Axis::Rate => format!("rate={}", rate_text(value)),
        }
    }

    /// A point in words: `4 clients`, `300 tx/s offered`.
    fn words(self, value: f64) -> String {
        match self {
            Axis::Clients if value == 1.0 => "1 client".into(),
            Axis::Clients => format!("{value} clients"),
            Axis::Rate => format!("{} tx/s offered", rate_text(value)),
        }
    }

    /// The table's first heading.
    fn heading(self) -> &'static str {
        match self {
            Axis::Clients => "clients",
            Axis::Rate => "offered tx/s",
        }
    }
}

/// One point of a curve: a configuration of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub config: usize,
    /// Clients, or the offered rate in transactions per second.
    pub value: f64,
    /// The median of the measured trials' throughput (achieved rate), per second; `None`
    /// without measured trials.
    pub tps_median: Option<f64>,
    /// The median of the trials' own p99 latency, milliseconds.
    pub p99_ms_median: Option<f64>,
    /// The median of the trials' failed over attempted transactions, percent.
    pub failed_pct_median: Option<f64>,
    /// Throughput over the previous point's (at a fixed rate: p99, as a speed), with its
    /// interval and verdict (`None` for the first point).
    pub step: Option<Ratio>,
}

/// Where scaling stops.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stop {
    pub config: usize,
    pub value: f64,
}

/// One curve: the configurations that differ only in the swept value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    pub axis: Axis,
    /// The offered rate every point of a clients curve shares (an open loop): its steps then
    /// compare p99, not the throughput the schedule fixes. `None` in a closed loop and on a
    /// rate axis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// What the curve's configurations share besides the sweep (their label without the
    /// axis' value; empty when nothing else varies).
    pub of: String,
    pub points: Vec<Point>,
    /// The first point where scaling stopped; `None` when every step scaled.
    pub stop: Option<Stop>,
    /// The one line that says so.
    pub line: String,
}

/// The run's curves: one per group of configurations that differ only in the swept clients
/// (or, without a clients axis, the offered rate); none for a run without such a sweep.
pub fn curves(m: &Manifest, stats: &Statistics, trials: &[TrialRecord]) -> Vec<Curve> {
    if !m.sweeps() {
        return Vec::new();
    }
    let distinct = |f: &dyn Fn(usize) -> Option<f64>| {
        let mut v: Vec<f64> = (0..m.configs.len()).filter_map(f).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v.len() > 1
    };
    let clients = |i: usize| Some(f64::from(m.load_of(i).clients));
    let rate = |i: usize| m.load_of(i).rate;
    let (axis, value): (Axis, &dyn Fn(usize) -> Option<f64>) = if distinct(&clients) {
        (Axis::Clients, &clients)
    } else if distinct(&rate) {
        (Axis::Rate, &rate)
    } else {
        return Vec::new();
    };
    // Groups in the order of their first configuration, each keyed by its label without the
    // axis' value.
    let mut groups: Vec<(String, Vec<(f64, usize)>)> = Vec::new();
    for (i, c) in m.configs.iter().enumerate() {
        let Some(v) = value(i) else { continue };
        let token = axis.token(v);
        let of = c.label.split(' ').filter(|w| *w != token).collect::<Vec<_>>().join(" ");
        match groups.iter_mut().find(|(k, _)| *k == of) {
            Some((_, members)) => members.push((v, i)),
            None => groups.push((of, vec![(v, i)])),
        }
    }
    groups.retain(|(_, members)| members.len() > 1);
    let several = groups.len() > 1;
    groups
        .into_iter()
        .map(|(of, mut members)| {
            members.sort_by(|a, b| a.0.total_cmp(&b.0));
            curve(m, stats, trials, axis, of, several, &members)
        })
        .collect()
}

fn median_of(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(median(&v))
}

#[allow(clippy::too_many_arguments)]
fn curve(
    m: &Manifest,
    stats: &Statistics,
    trials: &[TrialRecord],
    axis: Axis,
    of: String,
    several: bool,
    members: &[(f64, usize)],
) -> Curve {
    let rate = fixed_rate(m, axis, members);
    let step_metric = if rate.is_some() { Metric::P99 } else { Metric::Tps };
    let mut points: Vec<Point> = Vec::new();
    let mut previous: Option<Vec<f64>> = None;
    for &(value, config) in members {
        let stepped = values(trials, config, "all", step_metric);
        points.push(Point {
            config,
            value,
            tps_median: median_of(values(trials, config, "all", Metric::Tps)),
            p99_ms_median: median_of(values(trials, config, "all", Metric::P99)),
            failed_pct_median: median_of(values(trials, config, "all", Metric::Failures)),
            step: previous
                .as_ref()
                .and_then(|prev| stats.compare(prev, &stepped, step_metric)),
        });
        previous = Some(stepped);
    }
    let limit_ms = m.load.latency_limit_ns.map(|ns| ns as f64 / 1e6);
    let (stop, why) = match stopping(axis, &points, stats.noise, limit_ms, rate) {
        Some((i, why)) => (Some(&points[i]), why),
        None => (None, String::new()),
    };
    // The line names its curve only where the run has several.
    let head = if of.is_empty() || !several {
        String::new()
    } else {
        format!("{of}: ")
    };
    let last = points.last().map_or(0.0, |p| p.value);
    let line = match (stop, rate) {
        (Some(p), _) => format!("{head}scaling stops at {}: {why}", axis.words(p.value)),
        (None, Some(r)) => format!(
            "{head}at {} tx/s offered, p99 and failures hold at every step up to {}{}",
            rate_text(r),
            axis.words(last),
            if points
                .iter()
                .skip(1)
                .any(|p| p.step.is_some_and(|r| r.verdict.is_none()))
            {
                " (fewer than 6 trials a point: no verdicts; use --trials 10)"
            } else {
                ""
            }
        ),
        (None, None) => match axis {
            Axis::Clients => format!(
                "{head}throughput rises at every step up to {}{}",
                axis.words(last),
                if points
                    .iter()
                    .skip(1)
                    .any(|p| p.step.is_some_and(|r| r.verdict.is_none()))
                {
                    " (fewer than 6 trials a point: no verdicts; use --trials 10)"
                } else {
                    ""
                }
            ),
            Axis::Rate => format!("{head}every offered rate was achieved, up to {}", axis.words(last)),
        },
    };
    Curve {
        axis,
        rate,
        of,
        stop: stop.map(|p| Stop {
            config: p.config,
            value: p.value,
        }),
        points,
        line,
    }
}

/// The offered rate every point of a clients curve shares, if they share one.
fn fixed_rate(m: &Manifest, axis: Axis, members: &[(f64, usize)]) -> Option<f64> {
    if axis != Axis::Clients {
        return None;
    }
    let first = m.load_of(members.first()?.1).rate?;
    members
        .iter()
        .all(|&(_, c)| m.load_of(c).rate == Some(first))
        .then_some(first)
}

/// Where a clients curve at a fixed offered `rate` stops: the first point that falls short of
/// the rate, whose failures rise above the previous point's, or whose p99 is slower than the
/// previous point's (or, without verdicts, slower beyond the noise threshold).
fn stopping_at_rate(points: &[Point], noise: f64, rate: f64) -> Option<(usize, String)> {
    for (i, p) in points.iter().enumerate().skip(1) {
        let prev = &points[i - 1];
        let than = Axis::Clients.words(prev.value);
        if let Some(achieved) = p.tps_median.filter(|a| *a < rate * (1.0 - noise)) {
            let n = super::number::num;
            return Some((
                i,
                format!("achieved {} of {} tx/s offered", n(achieved), rate_text(rate)),
            ));
        }
        let (failed, before) = (
            p.failed_pct_median.unwrap_or(0.0),
            prev.failed_pct_median.unwrap_or(0.0),
        );
        if failed > 0.0 && failed > before {
            let pct = |x: f64| format!("{x:.1}%");
            return Some((
                i,
                format!("{} of transactions failed ({than}: {})", pct(failed), pct(before)),
            ));
        }
        let Some(r) = p.step else { continue };
        let p99 = super::number::opt(p.p99_ms_median);
        let ci = r.ci95.map_or(String::new(), |c| {
            format!(" [{}]", super::number::speed_interval(r.ratio, c.low, c.high))
        });
        match r.verdict {
            Some(Verdict::Slower) => {
                let s = super::number::speed(r.ratio);
                return Some((i, format!("p99 {p99} ms, {s} than {than}'{ci}")));
            }
            None if r.ratio < 1.0 - noise => {
                let s = super::number::speed(r.ratio);
                return Some((
                    i,
                    format!("p99 {p99} ms, {s} than {than}' (fewer than 6 trials a point: no verdict)"),
                ));
            }
            _ => {}
        }
    }
    None
}

/// The first point where scaling stops, and why in words; `rate`: the offered rate a clients
/// curve shares ([`stopping_at_rate`]).
fn stopping(
    axis: Axis,
    points: &[Point],
    noise: f64,
    limit_ms: Option<f64>,
    rate: Option<f64>,
) -> Option<(usize, String)> {
    if let (Axis::Clients, Some(r)) = (axis, rate) {
        return stopping_at_rate(points, noise, r);
    }
    for (i, p) in points.iter().enumerate() {
        match axis {
            Axis::Clients => {
                let (Some(r), Some(prev)) = (p.step, i.checked_sub(1).map(|j| &points[j])) else {
                    continue;
                };
                let than = format!("the throughput of {}", Axis::Clients.words(prev.value));
                let ci = r.ci95.map_or(String::new(), |c| {
                    format!(" [{}..{}]", super::number::factor(c.low), super::number::factor(c.high))
                });
                let said = |v: Verdict| format!("{} {than}{ci}, {}", super::number::times(r.ratio), v.as_str());
                match r.verdict {
                    Some(v @ (Verdict::NoSignificantDifference | Verdict::Inconclusive | Verdict::Slower)) => {
                        return Some((i, said(v)));
                    }
                    // Too few trials for a verdict: only a fall is told.
                    None if r.ratio < 1.0 - noise => {
                        return Some((
                            i,
                            format!(
                                "{} {than} (fewer than 6 trials a point: no verdict)",
                                super::number::times(r.ratio)
                            ),
                        ));
                    }
                    _ => {}
                }
            }
            Axis::Rate => {
                let Some(achieved) = p.tps_median else { continue };
                if achieved < p.value * (1.0 - noise) {
                    return Some((
                        i,
                        format!(
                            "achieved {} tx/s, {:.0}% of it",
                            super::number::num(achieved),
                            100.0 * achieved / p.value
                        ),
                    ));
                }
                if let (Some(p99), Some(limit)) = (p.p99_ms_median, limit_ms) {
                    if p99 > limit {
                        return Some((
                            i,
                            format!(
                                "p99 {} ms, past the latency limit of {} ms",
                                super::number::num(p99),
                                super::number::num(limit)
                            ),
                        ));
                    }
                }
            }
        }
    }
    None
}

/// The terminal's table of one curve: the point, achieved throughput, p99 and the step.
pub fn table(c: &Curve, unit: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut headers = vec![c.axis.heading().to_string(), format!("{unit}/s"), "p99 ms".to_string()];
    if c.rate.is_some() {
        headers.extend(["failed".to_string(), "p99 vs previous".to_string()]);
    } else {
        headers.push("vs previous".to_string());
    }
    let rows = c
        .points
        .iter()
        .map(|p| {
            let mark = if c.stop.as_ref().is_some_and(|s| s.config == p.config) {
                " <"
            } else {
                ""
            };
            let mut row = vec![
                format!(
                    "{}{mark}",
                    match c.axis {
                        Axis::Clients => format!("{}", p.value),
                        Axis::Rate => rate_text(p.value),
                    }
                ),
                super::number::opt(p.tps_median),
                super::number::opt(p.p99_ms_median),
            ];
            if c.rate.is_some() {
                row.push(p.failed_pct_median.map_or("-".into(), |f| format!("{f:.1}%")));
            }
            row.push(match &p.step {
                None => "-".into(),
                Some(r) => super::number::ratio(Some(r)),
            });
            row
        })
        .collect();
    (headers, rows)
}

/// The scaling section of the terminal and Markdown: per curve its line first, then its table.
pub fn section(curves: &[Curve], unit: &str, markdown: bool) -> String {
    let mut out = String::new();
    for c in curves {
        out += &format!("scaling: {}\n", c.line);
        let (headers, rows) = table(c, unit);
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        out += &super::layout::table(&headers, &rows, markdown);
        out += "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use litebench_stats::Interval;

    fn point(value: f64, tps: f64, step: Option<(f64, Option<Verdict>)>) -> Point {
        Point {
            config: value as usize,
            value,
            tps_median: Some(tps),
            p99_ms_median: Some(1.0),
            failed_pct_median: Some(0.0),
            step: step.map(|(ratio, verdict)| Ratio {
                ratio,
                ci95: verdict.map(|_| Interval {
                    low: ratio * 0.9,
                    high: ratio * 1.1,
                }),
                verdict,
            }),
        }
    }

    #[test]
    fn scaling_stops_at_the_first_step_not_told_apart_or_below() {
        let pts = vec![
            point(1.0, 100.0, None),
            point(2.0, 190.0, Some((1.9, Some(Verdict::Faster)))),
            point(4.0, 195.0, Some((1.03, Some(Verdict::NoSignificantDifference)))),
            point(8.0, 150.0, Some((0.77, Some(Verdict::Slower)))),
        ];
        let (i, why) = stopping(Axis::Clients, &pts, 0.02, None, None).unwrap();
        assert_eq!(i, 2);
        assert_eq!(
            why,
            "1.03x the throughput of 2 clients [0.93..1.13], no significant difference"
        );
        assert!(stopping(Axis::Clients, &pts[..2], 0.02, None, None).is_none());
        // Without verdicts only a fall stops it.
        let few = vec![point(1.0, 100.0, None), point(2.0, 101.0, Some((1.01, None)))];
        assert!(stopping(Axis::Clients, &few, 0.02, None, None).is_none());
        let fall = vec![point(1.0, 100.0, None), point(2.0, 80.0, Some((0.8, None)))];
        assert_eq!(stopping(Axis::Clients, &fall, 0.02, None, None).map(|s| s.0), Some(1));
    }

    #[test]
    fn a_rate_sweep_stops_where_the_achieved_rate_falls_short_or_p99_passes_the_limit() {
        let pts = vec![point(100.0, 99.5, None), point(300.0, 200.0, None)];
        let (i, why) = stopping(Axis::Rate, &pts, 0.02, None, None).unwrap();
        assert_eq!((i, why.as_str()), (1, "achieved 200 tx/s, 67% of it"));
        let mut slow = vec![point(100.0, 100.0, None)];
        slow[0].p99_ms_median = Some(12.0);
        let (_, why) = stopping(Axis::Rate, &slow, 0.02, Some(10.0), None).unwrap();
        assert_eq!(why, "p99 12.0 ms, past the latency limit of 10.0 ms");
        assert!(stopping(Axis::Rate, &slow, 0.02, None, None).is_none());
    }

    /// Issue 46, item 6: a clients sweep at a fixed offered rate does not stop where the
    /// throughput the schedule fixes is flat; it stops where p99 gets slower or failures rise.
    #[test]
    fn a_clients_sweep_at_a_fixed_rate_is_judged_by_p99_and_failures() {
        // 300 tx/s achieved at every point; p99 told apart only at 8 clients.
        let mut pts = vec![
            point(2.0, 300.0, None),
            point(4.0, 300.0, Some((1.01, Some(Verdict::NoSignificantDifference)))),
            point(8.0, 299.0, Some((0.25, Some(Verdict::Slower)))),
        ];
        pts[2].p99_ms_median = Some(4.0);
        let (i, why) = stopping(Axis::Clients, &pts, 0.02, None, Some(300.0)).unwrap();
        assert_eq!(i, 2);
        assert_eq!(why, "p99 4.00 ms, 4.00x slower than 4 clients' [3.64..4.44]");
        assert!(stopping(Axis::Clients, &pts[..2], 0.02, None, Some(300.0)).is_none());
        // Failures that rise stop it, whatever p99 does.
        pts[1].failed_pct_median = Some(2.5);
        let (i, why) = stopping(Axis::Clients, &pts, 0.02, None, Some(300.0)).unwrap();
        assert_eq!((i, why.as_str()), (1, "2.5% of transactions failed (2 clients: 0.0%)"));
        // A point short of the rate stops it.
        let short = vec![point(2.0, 300.0, None), point(4.0, 240.0, None)];
        let (_, why) = stopping(Axis::Clients, &short, 0.02, None, Some(300.0)).unwrap();
        assert_eq!(why, "achieved 240 of 300 tx/s offered");
    }
}
