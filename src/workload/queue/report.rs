//! What a queue's owner asks of a run: how many jobs per second went in and came out, how long
//! a job waited from its enqueue to its claim, how deep the queue got, and what failed.
//!
//! Every figure is pooled over a configuration's measured trials: rates are jobs over measured
//! seconds, the wait's percentiles come from the merged histograms of the claim's `queue wait`
//! part (one value per claimed job), and the depth is the backlog plus the jobs enqueued minus
//! the jobs claimed, interval by interval from each trial's time series: exact for committed
//! transactions, with no query of the queue during the trial. With a cast, every role's
//! operations count (`ROLE:enqueue`, ...).

use super::client::{Op, OPS};
use crate::model::op::{decode, Latency, OpResult};
use crate::model::record::{Manifest, TrialRecord};
use crate::workload::ReportSection;
use litebench_stats::{ratio_of_medians, Better, Ratio};

/// Whether `name` (`enqueue`, or a role's `producers:enqueue`) is the operation `op`.
fn is(name: &str, op: Op) -> bool {
    let base = name.rsplit_once(':').map_or(name, |(_, b)| b);
    base == OPS[op as usize]
}

/// One configuration's pooled figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub enqueued: u64,
    pub claimed: u64,
    pub finished: u64,
    /// Claims that found no job.
    pub empty: u64,
    pub seconds: f64,
    pub wait: Option<Latency>,
    /// Deepest the queue got in any trial, and the median trial's depth at its end.
    pub max_depth: Option<i64>,
    pub end_depth: Option<i64>,
    /// Transactions given up on a lock, by cause: timeout, upgrade, snapshot, other.
    pub busy: [u64; 4],
    /// Per measured trial: jobs finished per second, and the wait's p99 (ns; trials that
    /// claimed no job left out): what the answer's verdicts compare.
    pub finished_per_trial: Vec<f64>,
    pub wait_p99_per_trial: Vec<f64>,
}

/// The figures of configuration `config` over `trials`, with `backlog` jobs ready at each
/// trial's start.
pub fn figures(config: usize, trials: &[TrialRecord], backlog: u64) -> Figures {
    let mut f = Figures::default();
    let mut wait: Option<hdrhistogram::Histogram<u64>> = None;
    let mut ends = Vec::new();
    for t in trials.iter().filter(|t| t.config == config && !t.warmup) {
        f.seconds += t.measured_ns as f64 / 1e9;
        let mut own = Figures::default();
        let mut own_wait = None;
        for o in &t.ops {
            add(&mut f, o, &mut wait);
            add(&mut own, o, &mut own_wait);
        }
        if t.measured_ns > 0 {
            f.finished_per_trial
                .push(own.finished as f64 / (t.measured_ns as f64 / 1e9));
        }
        if let Some(h) = own_wait.filter(|h| !h.is_empty()) {
            f.wait_p99_per_trial.push(h.value_at_quantile(0.99) as f64);
        }
        if let Some((max, end)) = depth(t, backlog) {
            f.max_depth = Some(f.max_depth.map_or(max, |m| m.max(max)));
            ends.push(end);
        }
    }
    f.wait = wait.filter(|h| !h.is_empty()).map(|h| Latency::of(&h));
    ends.sort_unstable();
    f.end_depth = ends.get(ends.len() / 2).copied();
    f
}

fn add(f: &mut Figures, o: &OpResult, wait: &mut Option<hdrhistogram::Histogram<u64>>) {
    if is(&o.name, Op::Enqueue) {
        f.enqueued += o.succeeded();
    } else if is(&o.name, Op::Finish) {
        f.finished += o.succeeded();
    } else if is(&o.name, Op::Claim) {
        f.empty += o.ops - o.succeeded();
    } else if is(&o.name, Op::QueueWait) {
        f.claimed += o.ops;
        if let Some(h) = decode(&o.histogram) {
            match wait {
                Some(w) => {
                    let _ = w.add(&h);
                }
                None => *wait = Some(h),
            }
        }
    }
    let timeout = o.busy_timeout.unwrap_or(0);
    let upgrade = o.busy_upgrade.unwrap_or(0);
    let snapshot = o.busy_snapshot.unwrap_or(0);
    f.busy[0] += timeout;
    f.busy[1] += upgrade;
    f.busy[2] += snapshot;
    f.busy[3] += o.busy.saturating_sub(timeout + upgrade + snapshot);
}

/// The queue's depth over a trial from its series, `(deepest, at the end)`; none without one.
pub fn depth(t: &TrialRecord, backlog: u64) -> Option<(i64, i64)> {
    t.series.as_ref()?;
    let points = depth_series(t, backlog);
    let start = backlog as i64;
    let max = points.iter().map(|p| p.1).fold(start, i64::max);
    Some((max, points.last().map_or(start, |p| p.1)))
}

/// The depth of each interval of a trial, `(t_ms, jobs ready)`: the page's chart.
pub fn depth_series(t: &TrialRecord, backlog: u64) -> Vec<(u64, i64)> {
    let Some(series) = t.series.as_ref() else {
        return Vec::new();
    };
    let mut by_interval: std::collections::BTreeMap<u64, i64> = std::collections::BTreeMap::new();
    for p in &series.points {
        if is(&p.op, Op::Enqueue) {
            *by_interval.entry(p.t_ms).or_default() += p.succeeded as i64;
        } else if is(&p.op, Op::QueueWait) {
            *by_interval.entry(p.t_ms).or_default() -= p.ops as i64;
        }
    }
    let mut d = backlog as i64;
    by_interval
        .into_iter()
        .map(|(t, delta)| {
            d += delta;
            (t, d)
        })
        .collect()
}

fn ms(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

/// Lock failures as `N`, `N timeout` (one cause) or `N (t 3, u 1)` (timeout, upgrade,
/// snapshot, other).
fn failures(busy: &[u64; 4]) -> String {
    let total: u64 = busy.iter().sum();
    let causes: Vec<(usize, u64)> = busy.iter().copied().enumerate().filter(|(_, n)| *n > 0).collect();
    match causes.as_slice() {
        [] => "0".into(),
        [(i, _)] => format!("{total} {}", ["timeout", "upgrade", "snapshot", "other"][*i]),
        _ => {
            let parts: Vec<String> = causes
                .iter()
                .map(|(i, n)| format!("{} {n}", ["t", "u", "s", "o"][*i]))
                .collect();
            format!("{total} ({})", parts.join(", "))
        }
    }
}

/// Failures in words for the answer: `no lock failures`, `12 lock failures (upgrade 12)`.
fn failures_words(busy: &[u64; 4]) -> String {
    let total: u64 = busy.iter().sum();
    if total == 0 {
        return "no lock failures".into();
    }
    let names = ["busy_timeout", "upgrade refused", "stale snapshot", "other"];
    let parts: Vec<String> = names
        .iter()
        .zip(busy)
        .filter(|(_, n)| **n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    format!("{total} transactions gave up on a lock ({})", parts.join(", "))
}

/// The answer: configurations ranked by jobs finished per second, each with its wait and
/// failures.
pub fn answer(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
    let backlog = m.params.count("backlog");
    let mut figs: Vec<(usize, Figures)> = m
        .configs
        .iter()
        .map(|c| (c.index, figures(c.index, trials, backlog)))
        .filter(|(_, f)| f.seconds > 0.0)
        .collect();
    if figs.is_empty() {
        return None;
    }
    // Where every configuration kept up with its producers (a rate, or a backlog a closed loop
    // drained), jobs out equal jobs in and say nothing: the wait does. Else the most jobs
    // finished.
    // Kept up: every configuration finished (nearly) all it enqueued, and all were offered the
    // same load (producers at a rate; closed-loop producers that a lock slows enqueue less, and
    // a short wait there is no merit).
    let rates: Vec<f64> = figs.iter().map(|(_, f)| f.enqueued as f64 / f.seconds).collect();
    let same_load =
        rates.iter().cloned().fold(0.0, f64::max) <= 1.05 * rates.iter().cloned().fold(f64::INFINITY, f64::min);
    let kept_up = same_load && figs.iter().all(|(_, f)| f.finished as f64 >= 0.98 * f.enqueued as f64);
    let p99 = |f: &Figures| f.wait.as_ref().map_or(f64::INFINITY, |l| l.p99_ns as f64);
    if kept_up {
        figs.sort_by(|a, b| p99(&a.1).total_cmp(&p99(&b.1)));
    } else {
        figs.sort_by(|a, b| b.1.finished_rate().total_cmp(&a.1.finished_rate()));
    }
    // What sets a configuration apart; only its engine where that is a long list of knobs
    // (the tables below give them all).
    let name = |i: usize| match own.get(i).filter(|s| !s.is_empty()) {
        Some(o) if m.configs.len() > 1 && o.len() <= 48 => format!("#{i} ({o})"),
        Some(_) if m.configs.len() > 1 => {
            let engine = m
                .configs
                .iter()
                .find(|c| c.index == i)
                .map_or("", |c| c.engine.as_str());
            format!("#{i} ({engine})")
        }
        _ => format!("#{i}"),
    };
    let words = |f: &Figures| {
        let wait = f.wait.as_ref().map_or("no job claimed".into(), |l| {
            format!("wait p50 {} p99 {}", ms(l.p50_ns), ms(l.p99_ns))
        });
        let depth = f.end_depth.map_or(String::new(), |d| format!(", {d} jobs left ready"));
        format!(
            "{:.0} jobs/s finished of {:.0}/s enqueued, {wait}{depth}, {}",
            f.finished_rate(),
            f.enqueued as f64 / f.seconds,
            failures_words(&f.busy)
        )
    };
    let noise = m
        .statistics
        .as_ref()
        .map_or(crate::model::metric::DEFAULT_NOISE, |s| s.noise);
    let against = |best_name: &str, best: &Figures, other: &Figures| -> String {
        let (a, b, better, what) = if kept_up {
            (
                &best.wait_p99_per_trial,
                &other.wait_p99_per_trial,
                Better::Lower,
                "wait p99",
            )
        } else {
            (
                &best.finished_per_trial,
                &other.finished_per_trial,
                Better::Higher,
                "jobs finished per second",
            )
        };
        match ratio_of_medians(a, b, better, noise, m.seed) {
            Some(Ratio {
                ratio,
                ci95: Some(ci),
                verdict: Some(v),
            }) => format!(
                "; its {what} is {ratio:.2}x {best_name}'s [{:.2}..{:.2}] by trial: {}",
                ci.low,
                ci.high,
                v.as_str()
            ),
            Some(r) => format!(
                "; its {what} is {:.2}x {best_name}'s (too few trials for a verdict)",
                r.ratio
            ),
            None => String::new(),
        }
    };
    let mut out = Vec::new();
    let (best, f) = &figs[0];
    let lead = match (figs.len() > 1, kept_up) {
        (false, _) => "",
        (true, true) => "kept up, as every configuration did, with the shortest wait: ",
        (true, false) => "finished the most jobs: ",
    };
    out.push(format!("{} {lead}{}.", name(*best), words(f)));
    for (i, other) in &figs[1..] {
        out.push(format!(
            "{}: {}{}.",
            name(*i),
            words(other),
            against(&format!("#{best}"), f, other)
        ));
    }
    Some(out)
}

impl Figures {
    fn finished_rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.finished as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// The page's question.
pub fn question(m: &Manifest) -> String {
    let trials = format!("{} measured trial{}", m.trials, if m.trials == 1 { "" } else { "s" });
    match m.configs.len() {
        1 => format!(
            "How fast does the queue move jobs as {}: jobs per second in and out, the wait from enqueue to claim, the queue's depth and lock failures ({trials} pooled)?",
            m.configs[0].label
        ),
        n => format!(
            "Which of the {n} configurations moves jobs through the queue best: jobs per second in and out, the wait from enqueue to claim, the queue's depth and lock failures ({trials} pooled)?"
        ),
    }
}

/// The page's charts: the queue's depth and the claim's wait over each configuration's first
/// measured trial.
pub fn lines(m: &Manifest, trials: &[TrialRecord]) -> Vec<crate::workload::ReportLines> {
    let backlog = m.params.count("backlog");
    let firsts: Vec<&TrialRecord> = m
        .configs
        .iter()
        .filter_map(|c| {
            trials
                .iter()
                .find(|t| t.config == c.index && !t.warmup && t.series.is_some())
        })
        .collect();
    let depth = firsts
        .iter()
        .map(|t| {
            let points = depth_series(t, backlog)
                .into_iter()
                .map(|(ms, d)| (ms as f64 / 1000.0, d as f64))
                .collect();
            (t.config, points)
        })
        .collect();
    let wait = firsts
        .iter()
        .map(|t| {
            let mut points: Vec<(f64, f64)> = t
                .series
                .iter()
                .flat_map(|s| &s.points)
                .filter(|p| is(&p.op, Op::QueueWait))
                .filter_map(|p| p.p99_us.map(|us| (p.t_ms as f64 / 1000.0, us / 1000.0)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            (t.config, points)
        })
        .collect();
    vec![
        crate::workload::ReportLines {
            id: "queue-depth",
            title: "Jobs ready over time".into(),
            note: format!(
                "Jobs waiting for a worker at the end of each interval of each configuration's first measured trial: the backlog ({backlog}) plus the jobs enqueued minus the jobs claimed, counted from committed transactions. A line that keeps climbing is a queue its workers do not keep up with."
            ),
            y_label: "jobs ready".into(),
            lines: depth,
        },
        crate::workload::ReportLines {
            id: "queue-wait",
            title: "Wait from enqueue to claim over time (p99 per interval)".into(),
            note: "The 99th percentile, per interval, of the time each claimed job waited since its enqueue (the backlog's jobs since the trial's start), in each configuration's first measured trial. A worker that finds no job rests its polling interval, which puts a floor under the wait of a queue that is often empty.".into(),
            y_label: "wait p99 (ms)".into(),
            lines: wait,
        },
    ]
}

/// The queue's table: one row per configuration.
pub fn sections(m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
    let backlog = m.params.count("backlog");
    let mut rows = Vec::new();
    for cfg in &m.configs {
        let f = figures(cfg.index, trials, backlog);
        if f.seconds == 0.0 {
            continue;
        }
        let rate = |n: u64| format!("{:.0}", n as f64 / f.seconds);
        let depth = match (f.end_depth, f.max_depth) {
            (Some(e), Some(x)) => format!("{e} (max {x})"),
            _ => "-".into(),
        };
        rows.push(vec![
            cfg.index.to_string(),
            rate(f.enqueued),
            rate(f.finished),
            f.wait.as_ref().map_or("-".into(), |l| ms(l.p50_ns)),
            f.wait.as_ref().map_or("-".into(), |l| ms(l.p99_ns)),
            depth,
            f.empty.to_string(),
            failures(&f.busy),
        ]);
    }
    if rows.is_empty() {
        return Vec::new();
    }
    vec![ReportSection {
        title: format!(
            "queue: jobs/s in and out, wait from enqueue to claim, jobs ready at the end\n  (backlog {backlog}), claims that found none, transactions failed on locks"
        ),
        headers: vec!["#", "in/s", "out/s", "wait p50", "wait p99", "depth end", "empty", "failed"],
        rows,
        lead: true,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_prefixed_names_count_as_their_operation() {
        assert!(is("enqueue", Op::Enqueue));
        assert!(is("producers:enqueue", Op::Enqueue));
        assert!(is("workers:queue wait", Op::QueueWait));
        assert!(!is("workers:claim", Op::QueueWait));
    }

    #[test]
    fn failures_name_their_causes() {
        assert_eq!(failures(&[0, 0, 0, 0]), "0");
        assert_eq!(failures(&[1, 3, 0, 0]), "4 (t 1, u 3)");
        assert_eq!(failures(&[0, 0, 0, 2]), "2 other");
        assert_eq!(
            failures_words(&[0, 5, 0, 0]),
            "5 transactions gave up on a lock (upgrade refused 5)"
        );
    }
}
