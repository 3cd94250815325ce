//! What a vector search's owner asks of a run: which index answers fastest at the recall they
//! need. Recall@k is the share of each query's k exact nearest neighbours it returned (a
//! neighbour as near as the exact k-th counts: a tie, or another client's insert), averaged
//! over every measured query, with a 95% Student interval over the queries. The answer ranks by
//! the median of the trials' p99 per query, among the configurations whose recall reaches
//! `recall_floor` and whose every query returned k rows; the others are named with why, as a
//! verdict, not a footnote.

use super::client::{Implementation, FOUND, INSERT, KNN, OPS, SIZE};
use crate::model::op::{decode, OpResult};
use crate::model::record::{ConfigInfo, Manifest, TrialRecord};
use crate::workload::{ReportSection, WorkloadReport};

/// The workload's report hooks.
pub struct VectorReport;

/// One configuration's figures over its measured trials.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub queries: u64,
    /// Queries that returned fewer than k rows.
    pub short: u64,
    pub inserts: u64,
    /// Neighbours found per query: count, sum, sum of squares.
    found: (u64, f64, f64),
    pub p50_per_trial: Vec<f64>,
    pub p99_per_trial: Vec<f64>,
    pub qps_per_trial: Vec<f64>,
    pub build_ns_per_trial: Vec<f64>,
    /// The index's size after its build, KiB, per trial.
    pub size_kib_per_trial: Vec<f64>,
    pub insert_p50_per_trial: Vec<f64>,
}

/// Recall@k and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recall {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| litebench_stats::median(&v))
}

fn named(o: &OpResult, op: usize) -> bool {
    o.name.rsplit_once(':').map_or(o.name.as_str(), |(_, b)| b) == OPS[op]
}

/// The figures of configuration `config` over `trials`.
pub fn figures(config: usize, trials: &[TrialRecord]) -> Figures {
    let mut f = Figures::default();
    for t in trials.iter().filter(|t| t.config == config && !t.warmup) {
        let secs = t.measured_ns as f64 / 1e9;
        for o in &t.ops {
            if named(o, KNN) && o.ops > 0 {
                f.queries += o.ops;
                f.short += o.ops - o.succeeded();
                f.p50_per_trial.push(o.latency.p50_ns as f64);
                f.p99_per_trial.push(o.latency.p99_ns as f64);
                if secs > 0.0 {
                    f.qps_per_trial.push(o.ops as f64 / secs);
                }
            } else if named(o, INSERT) && o.ops > 0 {
                f.inserts += o.ops;
                f.insert_p50_per_trial.push(o.latency.p50_ns as f64);
            } else if named(o, FOUND) && o.ops > 0 {
                if let Some(h) = decode(&o.histogram) {
                    let (n, mean, sd) = (h.len() as f64, h.mean(), h.stdev());
                    f.found.0 += h.len();
                    f.found.1 += n * mean;
                    f.found.2 += n * (sd * sd + mean * mean);
                }
            } else if o.name == OPS[super::client::BUILD] && o.ops > 0 {
                f.build_ns_per_trial.push(o.latency.mean_ns);
            } else if o.name == OPS[SIZE] && o.ops > 0 {
                f.size_kib_per_trial.push(o.latency.mean_ns);
            }
        }
    }
    f
}

impl Figures {
    /// Recall@`k` over every measured query, with a 95% interval; none without queries.
    pub fn recall(&self, k: u64) -> Option<Recall> {
        let (n, sum, sq) = self.found;
        if n == 0 || k == 0 {
            return None;
        }
        let nf = n as f64;
        let mean = sum / nf;
        let var = if n > 1 {
            ((sq - nf * mean * mean) / (nf - 1.0)).max(0.0)
        } else {
            0.0
        };
        let half = if n > 1 {
            litebench_stats::t_critical_95(n as usize - 1) * (var / nf).sqrt()
        } else {
            0.0
        };
        let k = k as f64;
        Some(Recall {
            mean: mean / k,
            low: ((mean - half) / k).max(0.0),
            high: ((mean + half) / k).min(1.0),
        })
    }

    fn p99(&self) -> Option<f64> {
        median(&self.p99_per_trial)
    }
}

fn ms(ns: f64) -> String {
    let ms = ns / 1e6;
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.2}")
    }
}

fn recall_words(r: Option<Recall>) -> String {
    match r {
        Some(r) if r.high - r.low < 0.0005 => format!("{:.3}", r.mean),
        Some(r) => format!("{:.3} [{:.3}, {:.3}]", r.mean, r.low, r.high),
        None => "-".into(),
    }
}

/// The index a configuration ran, from its engine and its `extension` knob.
fn index_of(c: &ConfigInfo) -> &'static str {
    implementation_of(c).map_or("-", Implementation::name)
}

fn implementation_of(c: &ConfigInfo) -> Option<Implementation> {
    if c.engine.starts_with("duckdb") {
        return Some(Implementation::DuckScan);
    }
    c.knobs
        .get(crate::engines::sqlite::knobs::EXTENSION_KNOB)
        .and_then(Implementation::of_extension)
}

/// What a configuration must reach to be ranked: recall@k and, where set, a p99 (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    pub k: u64,
    pub floor: f64,
    pub p99_target_ns: Option<f64>,
}

impl Bar {
    fn of(m: &Manifest) -> Bar {
        let target = m.params.duration("p99_target");
        Bar {
            k: m.params.count("k"),
            floor: m.params.real("recall_floor"),
            p99_target_ns: (!target.is_zero()).then_some(target.as_nanos() as f64),
        }
    }

    fn words(&self) -> String {
        match self.p99_target_ns {
            Some(t) => format!("p99 under {} ms at recall@{} >= {}", ms(t), self.k, self.floor),
            None => format!("recall@{} >= {}", self.k, self.floor),
        }
    }
}

/// Why a configuration is not ranked, if it is not: every reason.
fn verdict(f: &Figures, bar: Bar) -> Option<String> {
    let (k, floor) = (bar.k, bar.floor);
    let mut why = Vec::new();
    if f.short > 0 {
        why.push(format!(
            "returned fewer than {k} rows in {} of {} queries",
            f.short, f.queries
        ));
    }
    if let Some(r) = f.recall(k).filter(|r| r.mean < floor) {
        why.push(format!(
            "recall@{k} {} is below the floor {floor}",
            recall_words(Some(r))
        ));
    }
    if let (Some(target), Some(p99)) = (bar.p99_target_ns, f.p99()) {
        if p99 >= target {
            why.push(format!("p99 {} ms is not under the target {} ms", ms(p99), ms(target)));
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// The question the answer answers.
pub fn question(m: &Manifest) -> String {
    let bar = Bar::of(m);
    let k = bar.k;
    let which = match bar.p99_target_ns {
        Some(t) => format!("gives p99 under {} ms per {k}-nearest-neighbour query", ms(t)),
        None => format!("gives the lowest p99 per {k}-nearest-neighbour query"),
    };
    format!(
        "Which configuration {which} at recall@{k} >= {} ({} measured trial{} pooled)?",
        bar.floor,
        m.trials,
        if m.trials == 1 { "" } else { "s" }
    )
}

/// The answer: configurations meeting the floor by p99, then each one that does not, and why.
pub fn answer(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
    let bar = Bar::of(m);
    let k = bar.k;
    let all: Vec<(usize, Figures)> = m
        .configs
        .iter()
        .map(|c| (c.index, figures(c.index, trials)))
        .filter(|(_, f)| f.queries > 0)
        .collect();
    if all.is_empty() {
        return None;
    }
    let name = |i: usize| match own.get(i).filter(|o| !o.is_empty()) {
        Some(o) => format!("#{i} ({o})"),
        None => format!("#{i}"),
    };
    let (mut ranked, failed): (Vec<_>, Vec<_>) = all.iter().partition(|(_, f)| verdict(f, bar).is_none());
    ranked.sort_by(|a, b| a.1.p99().unwrap_or(f64::MAX).total_cmp(&b.1.p99().unwrap_or(f64::MAX)));
    let mut out = Vec::new();
    let words = |f: &Figures| {
        format!(
            "p99 {} ms at recall@{k} {}; p50 {} ms, {:.0} queries/s",
            f.p99().map_or("-".into(), ms),
            recall_words(f.recall(k)),
            median(&f.p50_per_trial).map_or("-".into(), ms),
            median(&f.qps_per_trial).unwrap_or(0.0),
        )
    };
    match ranked.first() {
        Some((best, f)) => out.push(format!(
            "{} has the lowest p99 of those with {}: {}.",
            name(*best),
            bar.words(),
            words(f)
        )),
        None => out.push(format!(
            "No configuration reached {} with {k} rows for every query.",
            bar.words()
        )),
    }
    for (i, f) in ranked.iter().skip(1) {
        out.push(format!("{}: {}.", name(*i), words(f)));
    }
    for (i, f) in &failed {
        let why = verdict(f, bar).unwrap_or_default();
        out.push(format!("{}: not ranked: {why} ({}).", name(*i), words(f)));
    }
    Some(out)
}

/// An index's size in words: where it lives (`vec0`'s pages in the file, an HNSW index on the
/// C heap) and how much; a scan has no index.
fn size_words(c: &ConfigInfo, kib: Option<f64>) -> String {
    let place = match implementation_of(c) {
        Some(Implementation::Vec0) => "file",
        Some(Implementation::Hnsw) => "heap",
        Some(Implementation::DuckScan) => return "none (scan)".into(),
        None => return "-".into(),
    };
    match kib {
        Some(k) if k >= 10.0 * 1024.0 => format!("{:.0} MiB {place}", k / 1024.0),
        Some(k) if k >= 1024.0 => format!("{:.1} MiB {place}", k / 1024.0),
        Some(k) => format!("{k:.0} KiB {place}"),
        None => "-".into(),
    }
}

/// The table under the answer: every configuration's index, recall, latencies, rate, build
/// and inserts.
pub fn sections(m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
    let k = m.params.count("k");
    let mut rows = Vec::new();
    for c in &m.configs {
        let f = figures(c.index, trials);
        if f.queries == 0 {
            continue;
        }
        let opt_ms = |v: Option<f64>| v.map_or("-".into(), ms);
        rows.push(vec![
            c.index.to_string(),
            index_of(c).to_string(),
            recall_words(f.recall(k)),
            opt_ms(median(&f.p50_per_trial)),
            opt_ms(f.p99()),
            format!("{:.0}", median(&f.qps_per_trial).unwrap_or(0.0)),
            f.short.to_string(),
            opt_ms(median(&f.build_ns_per_trial)),
            size_words(c, median(&f.size_kib_per_trial)),
            if f.inserts > 0 {
                opt_ms(median(&f.insert_p50_per_trial))
            } else {
                "-".into()
            },
        ]);
    }
    if rows.is_empty() {
        return Vec::new();
    }
    vec![ReportSection {
        title: format!("vector search: recall@{k} against the exact answer, latency per query"),
        headers: vec![
            "#",
            "index",
            "recall [95% CI]",
            "p50 ms",
            "p99 ms",
            "q/s",
            "short",
            "build ms",
            "index size",
            "insert p50 ms",
        ],
        rows,
        lead: true,
    }]
}

impl WorkloadReport for VectorReport {
    fn question(&self, m: &Manifest) -> Option<String> {
        Some(question(m))
    }

    fn answer(&self, m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
        answer(m, trials, own)
    }

    fn sections(&self, m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
        sections(m, trials)
    }

    fn is_count(&self, op: &str) -> bool {
        op == OPS[FOUND] || op == OPS[SIZE]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures_with(found: &[u64], k: u64) -> Option<Recall> {
        let n = found.len() as f64;
        let sum: f64 = found.iter().map(|&x| x as f64).sum();
        let sq: f64 = found.iter().map(|&x| (x * x) as f64).sum();
        let f = Figures {
            found: (found.len() as u64, sum, sq),
            ..Figures::default()
        };
        let _ = n;
        f.recall(k)
    }

    #[test]
    fn recall_is_the_mean_share_found_with_a_student_interval() {
        let r = figures_with(&[10; 50], 10).unwrap();
        assert_eq!((r.mean, r.low, r.high), (1.0, 1.0, 1.0));
        let r = figures_with(&[8, 9, 10, 9, 8, 10, 9, 9], 10).unwrap();
        assert!((r.mean - 0.9).abs() < 1e-9, "{r:?}");
        assert!(r.low < 0.9 && r.high > 0.9 && r.low > 0.8 && r.high < 1.0, "{r:?}");
        assert!(figures_with(&[], 10).is_none());
    }

    const BAR: Bar = Bar {
        k: 10,
        floor: 0.9,
        p99_target_ns: None,
    };

    #[test]
    fn short_answers_low_recall_and_a_missed_target_are_verdicts() {
        let low = Figures {
            queries: 4,
            found: (4, 20.0, 100.0),
            ..Figures::default()
        };
        assert_eq!(
            verdict(&low, BAR).as_deref(),
            Some("recall@10 0.500 is below the floor 0.9")
        );
        let short = Figures {
            queries: 4,
            short: 1,
            found: (4, 40.0, 400.0),
            ..Figures::default()
        };
        assert_eq!(
            verdict(&short, BAR).as_deref(),
            Some("returned fewer than 10 rows in 1 of 4 queries")
        );
        let both = Figures { short: 2, ..low };
        assert_eq!(
            verdict(&both, BAR).as_deref(),
            Some("returned fewer than 10 rows in 2 of 4 queries; recall@10 0.500 is below the floor 0.9")
        );
        let fine = Figures {
            queries: 4,
            found: (4, 40.0, 400.0),
            ..Figures::default()
        };
        assert_eq!(verdict(&fine, BAR), None);
        let slow = Figures {
            p99_per_trial: vec![3e6],
            ..fine
        };
        let target = Bar {
            p99_target_ns: Some(2e6),
            ..BAR
        };
        assert_eq!(
            verdict(&slow, target).as_deref(),
            Some("p99 3.00 ms is not under the target 2.00 ms")
        );
        assert_eq!(target.words(), "p99 under 2.00 ms at recall@10 >= 0.9");
    }
}
