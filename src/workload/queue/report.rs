//! What a queue's owner asks of a run: how many jobs per second went in and came out, how long
//! a job waited from its enqueue to its claim, how deep the queue got, and what failed.
//!
//! The answer leads with what the application waits for: in Rails an enqueue runs inside the
//! web request, so its p99 and its failures come first, then jobs in and out and the wait from
//! enqueue to claim, which is mostly the workers' poll interval where the queue is often empty
//! (said where it is). Rates are the median of the trials' own rates (jobs over a trial's
//! measured seconds), the one definition every table's tx/s has; the enqueue's p99 is the
//! median of the trials' own, as its ratio is; the wait's percentiles come from the merged
//! histograms of the claim's `queue wait` part (one value per claimed job), and the depth is the backlog plus the jobs enqueued minus
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

/// One configuration's figures over its measured trials.
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
    /// Of those, a worker's claims and finishes: tried once, as Solid Queue tries them.
    pub busy_once: u64,
    /// Retries litebench made (`--max-tries`): transactions a Rails application tries once.
    pub retries: u64,
    /// Enqueues that gave up (the web request's error in Rails), and all enqueues tried.
    pub enqueue_failed: u64,
    pub enqueue_tried: u64,
    /// Enqueues the producers never started: behind their rate at the trial's end (an open
    /// loop skips what it cannot start in time; the table counts them as failed).
    pub enqueue_skipped: u64,
    /// Per measured trial: jobs enqueued and finished per second (the trial's jobs over its
    /// measured seconds, as every table's tx/s), the wait's p99 (ns; trials that claimed no
    /// job left out) and the enqueue's p99 (ns; trials with no enqueue left out): what the
    /// answer says and its verdicts compare.
    pub enqueued_per_trial: Vec<f64>,
    pub finished_per_trial: Vec<f64>,
    pub wait_p99_per_trial: Vec<f64>,
    pub enqueue_p99_per_trial: Vec<f64>,
}

/// Which operations a Solid Queue worker runs (their lock failures are tried once): a role's
/// operations where the role's `role` is `worker`, or every client's where the run's is.
pub struct Workers {
    roles: Vec<String>,
    all: bool,
}

impl Workers {
    pub fn of(m: &Manifest) -> Workers {
        let worker = |p: &crate::model::params::Params| p.choice("role") == "worker";
        match m.load.cast.as_ref() {
            Some(cast) => Workers {
                roles: cast
                    .workload_roles()
                    .filter(|r| {
                        if r.params.0.contains_key("role") {
                            worker(&r.params)
                        } else {
                            worker(&m.params)
                        }
                    })
                    .map(|r| r.name.clone())
                    .collect(),
                all: false,
            },
            None => Workers {
                roles: Vec::new(),
                all: worker(&m.params),
            },
        }
    }

    fn runs(&self, name: &str) -> bool {
        self.all
            || name
                .rsplit_once(':')
                .is_some_and(|(role, _)| self.roles.iter().any(|r| r == role))
    }
}

/// The median of `v` (none when empty).
pub fn median(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    Some(litebench_stats::median(&v))
}

/// The figures of configuration `config` over `trials`, with `backlog` jobs ready at each
/// trial's start.
pub fn figures(config: usize, trials: &[TrialRecord], backlog: u64, workers: &Workers) -> Figures {
    let mut f = Figures::default();
    let mut wait: Option<hdrhistogram::Histogram<u64>> = None;
    let mut ends = Vec::new();
    for t in trials.iter().filter(|t| t.config == config && !t.warmup) {
        f.seconds += t.measured_ns as f64 / 1e9;
        let mut own = Figures::default();
        let mut own_wait = None;
        let mut enqueue_p99: Option<u64> = None;
        for o in &t.ops {
            add(&mut f, o, &mut wait, workers);
            add(&mut own, o, &mut own_wait, workers);
            if is(&o.name, Op::Enqueue) && o.ops > 0 {
                enqueue_p99 = Some(enqueue_p99.unwrap_or(0).max(o.latency.p99_ns));
            }
        }
        if t.measured_ns > 0 {
            let s = t.measured_ns as f64 / 1e9;
            f.finished_per_trial.push(own.finished as f64 / s);
            f.enqueued_per_trial.push(own.enqueued as f64 / s);
        }
        if let Some(h) = own_wait.filter(|h| !h.is_empty()) {
            f.wait_p99_per_trial.push(h.value_at_quantile(0.99) as f64);
        }
        if let Some(p) = enqueue_p99 {
            f.enqueue_p99_per_trial.push(p as f64);
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

fn add(f: &mut Figures, o: &OpResult, wait: &mut Option<hdrhistogram::Histogram<u64>>, workers: &Workers) {
    if is(&o.name, Op::Enqueue) {
        f.enqueued += o.succeeded();
        f.enqueue_failed += o.failed;
        f.enqueue_tried += o.ops + o.failed;
        f.enqueue_skipped += o.skipped;
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
    if (is(&o.name, Op::Claim) || is(&o.name, Op::Finish)) && workers.runs(&o.name) {
        f.busy_once += o.busy;
    }
    f.retries += o.retries;
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

/// A configuration as the answer names it: `#2 (sqlite synchronous=full)`, with the words of
/// its label that set it apart (`own`); where those are too long for a sentence, its engine
/// and the words that set it apart from the configurations of the same engine, so that two
/// SQLite configurations never read alike.
pub fn names(m: &Manifest, own: &[String]) -> Vec<String> {
    m.configs
        .iter()
        .map(|c| {
            let i = c.index;
            match own.get(i).filter(|s| !s.is_empty()) {
                Some(o) if m.configs.len() > 1 && o.len() <= 48 => format!("#{i} ({o})"),
                Some(_) if m.configs.len() > 1 => {
                    let peers: Vec<&str> = m
                        .configs
                        .iter()
                        .filter(|p| p.engine == c.engine && p.index != i)
                        .map(|p| p.label.as_str())
                        .collect();
                    let differs: Vec<&str> = c
                        .label
                        .split_whitespace()
                        .filter(|w| *w != c.engine && peers.iter().any(|p| !p.split_whitespace().any(|x| x == *w)))
                        .collect();
                    if differs.is_empty() {
                        format!("#{i} ({})", c.engine)
                    } else {
                        format!("#{i} ({} {})", c.engine, differs.join(" "))
                    }
                }
                _ => format!("#{i}"),
            }
        })
        .collect()
}

/// The longest poll interval of the run's workers (none without a worker that rests).
fn poll_interval(m: &Manifest) -> Option<std::time::Duration> {
    let of = |p: &crate::model::params::Params| p.0.contains_key("poll_interval").then(|| p.duration("poll_interval"));
    let run = m.params.duration("poll_interval");
    let polls: Vec<std::time::Duration> = match m.load.cast.as_ref() {
        Some(cast) => cast
            .workload_roles()
            .filter(|r| {
                let role = if r.params.0.contains_key("role") {
                    &r.params
                } else {
                    &m.params
                };
                role.choice("role") == "worker"
            })
            .map(|r| of(&r.params).unwrap_or(run))
            .collect(),
        None if m.params.choice("role") == "worker" => vec![run],
        None => Vec::new(),
    };
    polls.into_iter().max().filter(|d| !d.is_zero())
}

/// What the application waits for, in words: `enqueue p99 3.40 ms, no enqueue failed`.
fn enqueue_words(f: &Figures) -> String {
    let p99 = median(&f.enqueue_p99_per_trial).map_or("-".into(), |ns| ms(ns as u64));
    let failed = if f.enqueue_failed == 0 {
        "no enqueue failed".to_string()
    } else {
        format!(
            "{} enqueues failed ({:.1}%)",
            f.enqueue_failed,
            100.0 * f.enqueue_failed as f64 / f.enqueue_tried.max(1) as f64
        )
    };
    let skipped = match f.enqueue_skipped {
        0 => String::new(),
        n => format!(
            ", {n} never started ({:.1}%: the producers fell behind their rate)",
            100.0 * n as f64 / (f.enqueue_tried + n).max(1) as f64
        ),
    };
    format!("enqueue p99 {p99}, {failed}{skipped}")
}

/// Throughput and the wait: `1008 jobs/s in, 1036 out; wait p50 36.5 ms p99 93.2 ms, 47 jobs
/// left ready, no lock failures`.
fn flow_words(f: &Figures) -> String {
    let wait = f.wait.as_ref().map_or("no job claimed".into(), |l| {
        format!("wait p50 {} p99 {}", ms(l.p50_ns), ms(l.p99_ns))
    });
    let depth = f.end_depth.map_or(String::new(), |d| {
        format!(", {d} job{} left ready", if d == 1 { "" } else { "s" })
    });
    format!(
        "{:.0} jobs/s in, {:.0} out; {wait}{depth}, {}",
        f.enqueued_rate(),
        f.finished_rate(),
        failures_words(&f.busy)
    )
}

/// How the figures compare: the enqueue's p99 where the run enqueued (what a web request
/// waits for), else jobs finished (workers draining a backlog).
#[derive(Clone, Copy, PartialEq)]
enum Rank {
    Enqueue,
    Finished,
}

/// Configurations ranked by what the application waits for: those whose enqueues all went
/// through and whose workers kept up (finished 95% of what was enqueued) first, by the
/// enqueue's p99 (median of the trials'); without producers, by jobs finished.
fn rank(figs: &mut [(usize, Figures)]) -> Rank {
    if figs.iter().any(|(_, f)| f.enqueue_tried > 0) {
        // Enqueues that failed, then workers that fell behind, rank after the rest.
        let key = |f: &Figures| {
            (
                f.enqueue_failed + f.enqueue_skipped > 0,
                (f.finished as f64) < 0.95 * f.enqueued as f64,
                median(&f.enqueue_p99_per_trial).unwrap_or(f64::INFINITY),
            )
        };
        figs.sort_by(|a, b| {
            let (ka, kb) = (key(&a.1), key(&b.1));
            (ka.0, ka.1).cmp(&(kb.0, kb.1)).then(ka.2.total_cmp(&kb.2))
        });
        return Rank::Enqueue;
    }
    figs.sort_by(|a, b| b.1.finished_rate().total_cmp(&a.1.finished_rate()));
    Rank::Finished
}

/// Where lock failures and retries came from: a worker's claims and finishes are tried once,
/// as Solid Queue tries them; the rest follow litebench's retry policy (`--max-tries`,
/// `--retry-backoff`), not the application's, which tries a transaction once.
fn policy_sentence(m: &Manifest, figs: &[(usize, Figures)]) -> Option<String> {
    let total: u64 = figs.iter().map(|(_, f)| f.busy.iter().sum::<u64>()).sum();
    let once: u64 = figs.iter().map(|(_, f)| f.busy_once).sum();
    let retries: u64 = figs.iter().map(|(_, f)| f.retries).sum();
    let tries = m.load.max_tries.max(1);
    let policy = format!(
        "--max-tries {tries}, --retry-backoff {}",
        m.load.retry_backoff.describe()
    );
    let mut said = Vec::new();
    if once > 0 {
        said.push(format!(
            "{once} were workers' claims and finishes, tried once as Solid Queue tries them (a worker whose claim met a lock rests, then polls again)"
        ));
    }
    if total > once {
        said.push(format!(
            "{} gave up after {tries} tr{} each: litebench's retry policy ({policy}), not the application's",
            total - once,
            if tries == 1 { "y" } else { "ies" }
        ));
    }
    if retries > 0 {
        said.push(format!(
            "litebench retried {retries} transactions ({policy}) that a Rails application tries once, so there they fail"
        ));
    }
    (!said.is_empty()).then(|| format!("Of the lock failures, {}.", said.join("; ")))
}

/// The answer: what the application waits for first (the enqueue's p99 and its failures),
/// then jobs in and out and the wait from enqueue to claim, each configuration against the
/// best; where the failures and retries came from; and whether the wait is the workers' poll
/// interval rather than the engine's.
pub fn answer(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
    let backlog = m.params.count("backlog");
    let workers = Workers::of(m);
    let mut figs: Vec<(usize, Figures)> = m
        .configs
        .iter()
        .map(|c| (c.index, figures(c.index, trials, backlog, &workers)))
        .filter(|(_, f)| f.seconds > 0.0)
        .collect();
    if figs.is_empty() {
        return None;
    }
    let by = rank(&mut figs);
    let names = names(m, own);
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
    let words = |f: &Figures| match by {
        Rank::Enqueue => format!("{}; {}", enqueue_words(f), flow_words(f)),
        Rank::Finished => flow_words(f),
    };
    let noise = m
        .statistics
        .as_ref()
        .map_or(crate::model::metric::DEFAULT_NOISE, |s| s.noise);
    let against = |best_name: &str, best: &Figures, other: &Figures| -> String {
        let (a, b, better, what) = match by {
            Rank::Enqueue => (
                &best.enqueue_p99_per_trial,
                &other.enqueue_p99_per_trial,
                Better::Lower,
                "enqueue p99",
            ),
            Rank::Finished => (
                &best.finished_per_trial,
                &other.finished_per_trial,
                Better::Higher,
                "jobs finished per second",
            ),
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
    let lead = match (figs.len() > 1, by) {
        (false, _) => "",
        (true, Rank::Enqueue) => "keeps the application waiting least: ",
        (true, Rank::Finished) => "finished the most jobs: ",
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
    out.extend(policy_sentence(m, &figs));
    out.extend(poll_sentence(m, &figs));
    Some(out)
}

/// Whether the wait from enqueue to claim is the workers' poll interval: their claims found
/// the queue empty, and the median wait is within one interval, which a job enqueued while
/// every worker rests waits out whatever the engine.
fn poll_sentence(m: &Manifest, figs: &[(usize, Figures)]) -> Option<String> {
    let poll = poll_interval(m)?;
    let set: Vec<String> = figs
        .iter()
        .filter(|(_, f)| f.empty > 0 && f.wait.as_ref().is_some_and(|l| l.p50_ns <= poll.as_nanos() as u64))
        .map(|(i, _)| format!("#{i}"))
        .collect();
    if set.is_empty() {
        return None;
    }
    let poll_ms = ms(poll.as_nanos() as u64);
    Some(format!(
        "The wait from enqueue to claim{} is set by the workers' poll interval ({poll_ms}), not the engine: a worker that found the queue empty rests that long, and a job enqueued meanwhile waits for its next poll (--param poll_interval).",
        if set.len() == figs.len() { String::new() } else { format!(" of {}", set.join(", ")) }
    ))
}

impl Figures {
    /// Jobs finished per second: the median of the trials' own rates, as every table's tx/s.
    fn finished_rate(&self) -> f64 {
        median(&self.finished_per_trial).unwrap_or(0.0)
    }

    /// Jobs enqueued per second, the same way.
    fn enqueued_rate(&self) -> f64 {
        median(&self.enqueued_per_trial).unwrap_or(0.0)
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
    let workers = Workers::of(m);
    let mut rows = Vec::new();
    for cfg in &m.configs {
        let f = figures(cfg.index, trials, backlog, &workers);
        if f.seconds == 0.0 {
            continue;
        }
        let rate = |r: f64| format!("{r:.0}");
        let depth = match (f.end_depth, f.max_depth) {
            (Some(e), Some(x)) => format!("{e} (max {x})"),
            _ => "-".into(),
        };
        rows.push(vec![
            cfg.index.to_string(),
            rate(f.enqueued_rate()),
            rate(f.finished_rate()),
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
            "queue: jobs/s in and out (median of the trials' rates, as tx/s), wait from\n  enqueue to claim, jobs ready at the end (backlog {backlog}), claims that found\n  none, transactions failed on locks"
        ),
        headers: vec!["#", "in/s", "out/s", "wait p50", "wait p99", "depth end", "empty", "failed"],
        rows,
        lead: true,
    }]
}

/// The queue's report: its jobs and waits lead, its depth over time, its answer in jobs.
impl crate::workload::WorkloadReport for super::Queue {
    fn sections(&self, m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
        sections(m, trials)
    }

    fn question(&self, m: &Manifest) -> Option<String> {
        Some(question(m))
    }

    fn lines(&self, m: &Manifest, trials: &[TrialRecord]) -> Vec<crate::workload::ReportLines> {
        lines(m, trials)
    }

    fn answer(&self, m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
        answer(m, trials, own)
    }
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

    fn op(name: &str, ops: u64, failed: u64, busy: u64, p99_ms: u64) -> OpResult {
        OpResult {
            name: name.into(),
            ops,
            failed,
            busy,
            latency: Latency {
                p99_ns: p99_ms * 1_000_000,
                ..Latency::default()
            },
            ..OpResult::default()
        }
    }

    fn trial(config: usize, seconds: u64, ops: Vec<OpResult>) -> TrialRecord {
        TrialRecord {
            config,
            measured_ns: seconds * 1_000_000_000,
            ops,
            ..TrialRecord::default()
        }
    }

    fn manifest(labels: &[(&str, &str)]) -> Manifest {
        // The parts of a manifest the answer reads; the rest as a run of no consequence.
        let dir = tempfile::tempdir().unwrap();
        let mut m: Manifest = serde_json::from_value(serde_json::json!({
            "tool_version": "t", "command": [], "started_at": "2024-01-01T00:00:00Z",
            "workload": "queue", "workload_source": "s", "params": {}, "seed": 1, "trials": 1,
            "warmup": 0, "cold_cache": false, "in_memory": false, "engines": [], "configs": [],
            "environment": serde_json::to_value(litebench_env::capture(dir.path()).unwrap()).unwrap(),
            "sync_latency": null, "scratch_dir": "/s"
        }))
        .unwrap();
        m.configs = labels
            .iter()
            .enumerate()
            .map(|(i, (engine, label))| crate::model::record::ConfigInfo {
                index: i,
                engine: engine.to_string(),
                knobs: Default::default(),
                label: label.to_string(),
                knob_origins: Vec::new(),
                fs: None,
                scheduler: None,
                scheduler_device: None,
                storage: None,
                load: None,
                extension: None,
                driver: None,
                role_drivers: Vec::new(),
            })
            .collect();
        m
    }

    /// Issue 46, item 22: the table's jobs/s is the median of the trials' own rates, as every
    /// tx/s is, not the jobs of all trials over their pooled seconds (a stretched trial pulled
    /// 500/s down to 392/s).
    #[test]
    fn rates_are_the_median_of_the_trials_rates() {
        let m = manifest(&[("sqlite", "sqlite")]);
        let trials = [
            trial(0, 1, vec![op("producers:enqueue", 500, 0, 0, 3)]),
            trial(0, 3, vec![op("producers:enqueue", 600, 0, 0, 3)]),
            trial(0, 1, vec![op("producers:enqueue", 450, 0, 0, 3)]),
        ];
        let s = sections(&m, &trials);
        // Rates 500, 200 and 450: the median is 450 (pooled: 1550 jobs over 5 s, 310).
        assert_eq!(s[0].rows[0][1], "450", "{:?}", s[0].rows);
    }

    /// Issue 46, items 29 and 30: the answer leads with what the web request waits for (the
    /// enqueue's p99 and failures), ranks by it, and names two SQLite configurations by what
    /// sets them apart, not both "(sqlite)".
    #[test]
    fn the_answer_leads_with_the_enqueue_and_names_what_differs() {
        let long = "journal_mode=wal cache_size=2000 mmap_size=134217728 busy_timeout=5000";
        let m = manifest(&[
            ("sqlite", &format!("sqlite {long} synchronous=full")),
            ("sqlite", &format!("sqlite {long} synchronous=normal")),
            ("postgres", "postgres synchronous_commit=on"),
        ]);
        let own = vec![
            format!("sqlite {long} synchronous=full"),
            format!("sqlite {long} synchronous=normal"),
            "postgres synchronous_commit=on".to_string(),
        ];
        let t = |config, enqueue_p99| {
            trial(
                config,
                1,
                vec![
                    op("producers:enqueue", 500, 0, 0, enqueue_p99),
                    op("workers:finish", 500, 0, 0, 1),
                ],
            )
        };
        let trials = [t(0, 40), t(1, 5), t(2, 3)];
        let a = answer(&m, &trials, &own).unwrap();
        assert!(a[0].starts_with("#2 (postgres"), "{a:?}");
        let lead = &a[0];
        let enqueue = lead
            .find("enqueue p99 3.0 ms, no enqueue failed")
            .expect("enqueue first");
        assert!(enqueue < lead.find("jobs/s in").unwrap(), "{lead}");
        let all = a.join(" ");
        assert!(all.contains("#0 (sqlite synchronous=full)"), "{all}");
        assert!(all.contains("#1 (sqlite synchronous=normal)"), "{all}");
    }

    /// Enqueues the producers never started (behind their rate at the trial's end) are in the
    /// answer, and rank that configuration after one whose producers kept up: the table counts
    /// them as failed, so "no enqueue failed" alone would contradict it.
    #[test]
    fn enqueues_never_started_are_said_and_rank_after() {
        let m = manifest(&[("sqlite", "sqlite"), ("postgres", "postgres")]);
        let own = vec!["sqlite".to_string(), "postgres".to_string()];
        let mut behind = op("producers:enqueue", 900, 0, 0, 1);
        behind.skipped = 100;
        let trials = [
            trial(
                0,
                1,
                vec![
                    op("producers:enqueue", 1000, 0, 0, 20),
                    op("workers:finish", 1000, 0, 0, 1),
                ],
            ),
            trial(1, 1, vec![behind, op("workers:finish", 900, 0, 0, 1)]),
        ];
        let a = answer(&m, &trials, &own).unwrap().join(" ");
        assert!(a.starts_with("#0"), "{a}");
        assert!(
            a.contains("no enqueue failed, 100 never started (10.0%: the producers fell behind their rate)"),
            "{a}"
        );
    }

    /// Issue 46, item 27: the answer says which lock failures are a worker's claims, tried
    /// once as Solid Queue tries them, and which follow litebench's own retry policy.
    #[test]
    fn the_answer_says_which_failures_are_the_harness_retry_policy() {
        let mut m = manifest(&[("sqlite", "sqlite")]);
        m.params
            .0
            .insert("role".into(), crate::model::params::ParamValue::Choice("worker".into()));
        m.load.max_tries = 1;
        let trials = [trial(0, 1, vec![op("claim", 10, 5, 5, 1), op("enqueue", 10, 2, 2, 1)])];
        let all = answer(&m, &trials, &[String::new()]).unwrap().join(" ");
        assert!(
            all.contains("5 were workers' claims and finishes, tried once as Solid Queue tries them"),
            "{all}"
        );
        assert!(
            all.contains("2 gave up after 1 try each: litebench's retry policy (--max-tries 1"),
            "{all}"
        );
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
