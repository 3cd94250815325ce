//! The comparison of two stored runs, or of two configurations, against a baseline A.
//!
//! A benchmark result says little without the conditions under which it was measured, and a
//! comparison says nothing when those conditions differ in ways nobody noticed. So the model
//! carries, above the figures, every difference between the two manifests (machine,
//! filesystem, device, engine builds and compile options, knobs, workload parameters, sync
//! latency), and the figures use the same ratio, interval and verdict code as every table
//! ([`super::stats`]).

use super::format::Document;
use super::number::{difference, factor, opt, times};
use super::stats::{values, Metric, Statistics};
use super::Format;
use crate::model::record::{ConfigInfo, Manifest, TrialRecord};
use litebench_stats::{summarize, Change, Verdict};
use serde::Serialize;

/// One side of a comparison: a stored run and, optionally, one of its configurations.
#[derive(Debug, Clone, Serialize)]
pub struct Side<'a> {
    pub run: i64,
    /// The run's name (`run --name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub status: String,
    /// `None`: every configuration of the run.
    pub config: Option<usize>,
    #[serde(skip)]
    pub manifest: &'a Manifest,
    #[serde(skip)]
    pub trials: &'a [TrialRecord],
}

/// A difference between the two manifests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub what: String,
    pub a: String,
    pub b: String,
}

/// One row: a pair of configurations and one operation.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub config_a: usize,
    pub label_a: String,
    pub config_b: usize,
    pub label_b: String,
    pub operation: String,
    pub trials_a: usize,
    pub trials_b: usize,
    pub median_a: Option<f64>,
    pub median_b: Option<f64>,
    /// B's speed over A's: `median_b / median_a` of a throughput, `median_a / median_b` of a
    /// time (higher = faster, whatever the metric).
    pub ratio: Option<f64>,
    pub ratio_ci95_low: Option<f64>,
    pub ratio_ci95_high: Option<f64>,
    pub verdict: Option<Verdict>,
    /// `--metric failures`: B's mean failure rate minus A's in percentage points (the medians
    /// above are then the means), its bootstrap interval and conclusion; ratios are null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_pp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_ci95_low_pp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_ci95_high_pp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

impl Row {
    fn difference(&self) -> Option<litebench_stats::Difference> {
        Some(litebench_stats::Difference {
            diff: self.difference_pp?,
            ci95: self
                .difference_ci95_low_pp
                .zip(self.difference_ci95_high_pp)
                .map(|(low, high)| litebench_stats::Interval { low, high }),
            change: self.change,
        })
    }
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison<'a> {
    pub a: Side<'a>,
    pub b: Side<'a>,
    pub metric: Metric,
    pub statistics: Statistics,
    pub differences: Vec<Difference>,
    /// Configurations of one run with no counterpart in the other (labels).
    pub unmatched_a: Vec<String>,
    pub unmatched_b: Vec<String>,
    pub rows: Vec<Row>,
    /// Rows whose verdict is *slower* (failures: *more failures*).
    pub regressions: usize,
}

/// The facts of a manifest that decide whether two results are comparable, as `(what, value)`
/// pairs; `config` narrows the engine and knob facts to one configuration.
pub fn facts(m: &Manifest, configs: &[&ConfigInfo]) -> Vec<(String, String)> {
    let mut f: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| f.push((k.to_string(), v));
    let o = |x: &Option<String>| x.clone().unwrap_or_else(|| "unknown".into());
    let mc = &m.environment.machine;
    put("machine: host", o(&mc.hostname));
    put("machine: CPU", format!("{} x{}", o(&mc.cpu_model), mc.cpu_count));
    put(
        "machine: memory",
        mc.memory_bytes.map_or("unknown".into(), |b| format!("{} MiB", b >> 20)),
    );
    put("machine: OS", o(&mc.os));
    put("machine: kernel", o(&mc.kernel));
    put("machine: CPU governor", o(&mc.cpu_governor));
    let st = &m.environment.storage;
    put("filesystem: type", o(&st.fs_type));
    put("filesystem: mount options", o(&st.mount_options));
    put("filesystem: superblock options", o(&st.super_options));
    put("filesystem: RAM-backed", st.ram_backed.to_string());
    match &st.device {
        Some(d) => {
            put("device: name", d.name.clone());
            put("device: model", o(&d.model));
            put(
                "device: rotational",
                d.rotational.map_or("unknown".into(), |r| r.to_string()),
            );
            put("device: scheduler", o(&d.scheduler));
            put("device: write cache", o(&d.write_cache));
            put("device: loop over", o(&d.backing_file));
        }
        None => put("device", "unknown".into()),
    }
    put(
        "sync latency (median)",
        m.sync_latency
            .as_ref()
            .map_or("not measured".into(), |l| format!("{:.1} us", l.median_us)),
    );
    put("workload", m.workload.clone());
    for (k, v) in &m.params.0 {
        put(
            &format!("param {k}"),
            serde_json::to_string(v)
                .unwrap_or_default()
                .trim_matches('"')
                .to_string(),
        );
    }
    // Each file by its name and content: runs of files of the same names that differ say which.
    for f in &m.workload_files {
        put(
            &format!("{} {}", f.param, f.path),
            format!("sha256 {}", short_hash(&f.sha256)),
        );
    }
    put("trials", format!("{} (+{} warm-up)", m.trials, m.warmup));
    put(
        "page cache",
        if m.cold_cache {
            "dropped before each trial"
        } else {
            "warm"
        }
        .into(),
    );
    put("in memory", m.in_memory.to_string());
    for (what, value) in load_facts(&m.load) {
        put(what, value);
    }
    put("seed", m.seed.to_string());
    put("litebench version", m.tool_version.clone());
    let one = configs.len() == 1;
    for c in configs {
        let prefix = if one { String::new() } else { format!("#{} ", c.index) };
        put(&format!("{prefix}engine"), c.engine.clone());
        if let Some(e) = m.engines.iter().find(|e| e.label == c.engine) {
            put(&format!("{prefix}engine version"), e.version.clone());
            if let Some(b) = &e.sqlite {
                put(&format!("{prefix}SQLite source id"), b.source_id.clone());
                put(&format!("{prefix}SQLite compile options"), b.compile_options.join(" "));
                if let Some(c) = &b.compiled {
                    put(
                        &format!("{prefix}SQLite built with"),
                        format!("{} {} ({})", c.compiler, c.flags.join(" "), c.compiler_version),
                    );
                }
            }
        }
        // Every knob on its own line, so that "what differs" names the knob that does; an
        // unset knob whose value the run states all the same (`begin`: as written) with it.
        for k in &c.knobs.0 {
            put(&format!("{prefix}knob {}", k.name), k.value.clone());
        }
        for (name, origin) in &c.knob_origins {
            if c.knobs.get(name).is_none() {
                put(&format!("{prefix}knob {name}"), origin.clone());
            }
        }
    }
    f
}

/// The first 16 hex digits of a SHA-256: enough to tell files apart in a table.
fn short_hash(hex: &str) -> &str {
    hex.get(..16).unwrap_or(hex)
}

/// The load shape's facts: clients and where they run, the loop (closed, or the rate and its
/// arrivals), the tries and the latency limit. Two runs that differ only here measure
/// different things, so "what differs" must say so.
fn load_facts(l: &crate::model::load::LoadShape) -> Vec<(&'static str, String)> {
    use crate::model::load::{Arrival, ClientMode};
    vec![
        ("load: clients", l.clients.to_string()),
        (
            "load: clients as",
            match l.client_mode {
                ClientMode::Threads => "threads",
                ClientMode::Processes => "processes",
            }
            .into(),
        ),
        ("load: connections", l.connections.name().into()),
        (
            "load: rate",
            l.rate.map_or("closed loop".into(), |r| format!("{r} tx/s")),
        ),
        (
            "load: arrival",
            match (l.rate, l.arrival) {
                (None, _) => "-".into(),
                (Some(_), Arrival::Poisson) => "poisson".into(),
                (Some(_), Arrival::Uniform) => "uniform".into(),
            },
        ),
        ("load: tries", l.max_tries.to_string()),
        (
            "load: latency limit",
            l.latency_limit_ns
                .map_or("none".into(), |ns| format!("{} ms", ns as f64 / 1e6)),
        ),
    ]
}

/// Every fact whose value differs (or exists on one side only).
pub fn differences(a: &[(String, String)], b: &[(String, String)]) -> Vec<Difference> {
    let mut out = Vec::new();
    let get = |v: &[(String, String)], k: &str| v.iter().find(|(x, _)| x == k).map(|(_, y)| y.clone());
    let mut keys: Vec<&String> = a.iter().map(|(k, _)| k).collect();
    for (k, _) in b {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for k in keys {
        let (x, y) = (get(a, k), get(b, k));
        if x != y {
            out.push(Difference {
                what: k.clone(),
                a: x.unwrap_or_else(|| "-".into()),
                b: y.unwrap_or_else(|| "-".into()),
            });
        }
    }
    out
}

/// The configuration pairs to compare: the chosen ones, or (whole runs) those with the same
/// label, or the only configuration of each.
fn pairs(a: &Side<'_>, b: &Side<'_>) -> (Vec<(usize, usize)>, Vec<String>, Vec<String>) {
    if let (Some(x), Some(y)) = (a.config, b.config) {
        return (vec![(x, y)], Vec::new(), Vec::new());
    }
    let (ca, cb) = (&a.manifest.configs, &b.manifest.configs);
    if ca.len() == 1 && cb.len() == 1 {
        return (vec![(0, 0)], Vec::new(), Vec::new());
    }
    let mut out = Vec::new();
    let mut only_a = Vec::new();
    for c in ca {
        match cb.iter().find(|d| d.label == c.label) {
            Some(d) => out.push((c.index, d.index)),
            None => only_a.push(c.label.clone()),
        }
    }
    let only_b = cb
        .iter()
        .filter(|d| !ca.iter().any(|c| c.label == d.label))
        .map(|d| d.label.clone())
        .collect();
    (out, only_a, only_b)
}

/// Builds the comparison; `operations` are those to show besides `all`.
pub fn compare<'a>(
    a: Side<'a>,
    b: Side<'a>,
    metric: Metric,
    stats: Statistics,
    operations: &[String],
) -> Comparison<'a> {
    let chosen = |s: &Side<'a>| -> Vec<&'a ConfigInfo> {
        match s.config {
            Some(i) => s.manifest.configs.get(i).into_iter().collect(),
            None => s.manifest.configs.iter().collect(),
        }
    };
    let differences = differences(&facts(a.manifest, &chosen(&a)), &facts(b.manifest, &chosen(&b)));
    let (pairs, unmatched_a, unmatched_b) = pairs(&a, &b);
    let mut rows = Vec::new();
    for (ia, ib) in pairs {
        for op in std::iter::once("all").chain(operations.iter().map(String::as_str)) {
            let va = values(a.trials, ia, op, metric);
            let vb = values(b.trials, ib, op, metric);
            if va.is_empty() && vb.is_empty() {
                continue;
            }
            let failures = metric == Metric::Failures;
            let r = if failures {
                None
            } else {
                stats.compare(&va, &vb, metric)
            };
            let d = if failures { stats.difference(&va, &vb) } else { None };
            let middle = |v: &[f64]| summarize(v).map(|s| if failures { s.mean } else { s.median });
            rows.push(Row {
                config_a: ia,
                label_a: a.manifest.configs[ia].label.clone(),
                config_b: ib,
                label_b: b.manifest.configs[ib].label.clone(),
                operation: op.to_string(),
                trials_a: va.len(),
                trials_b: vb.len(),
                median_a: middle(&va),
                median_b: middle(&vb),
                ratio: r.map(|r| r.ratio),
                ratio_ci95_low: r.and_then(|r| r.ci95).map(|c| c.low),
                ratio_ci95_high: r.and_then(|r| r.ci95).map(|c| c.high),
                verdict: r.and_then(|r| r.verdict),
                difference_pp: d.map(|d| d.diff),
                difference_ci95_low_pp: d.and_then(|d| d.ci95).map(|c| c.low),
                difference_ci95_high_pp: d.and_then(|d| d.ci95).map(|c| c.high),
                change: d.and_then(|d| d.change),
            });
        }
    }
    let regressions = rows
        .iter()
        .filter(|r| r.verdict == Some(Verdict::Slower) || r.change == Some(Change::Higher))
        .count();
    Comparison {
        a,
        b,
        metric,
        statistics: stats,
        differences,
        unmatched_a,
        unmatched_b,
        rows,
        regressions,
    }
}

fn side_name(s: &Side<'_>) -> String {
    match s.config {
        Some(c) => format!("{} #{c}", run_title(s)),
        None => run_title(s),
    }
}

/// `run 3`, or `run 3 (wal-baseline)` for a named run.
fn run_title(s: &Side<'_>) -> String {
    match &s.name {
        Some(n) => format!("run {} ({n})", s.run),
        None => format!("run {}", s.run),
    }
}

impl Comparison<'_> {
    /// The comparison for any format: its JSON, its rows as CSV, and the text formats' parts.
    pub fn document(&self) -> Document {
        let mut doc = Document::new(self).own(Format::Csv, self.csv()).heading(format!(
            "compare {} (A, baseline) with {} (B) — {}, {}",
            side_name(&self.a),
            side_name(&self.b),
            self.a.manifest.workload,
            self.metric.heading()
        ));
        doc = doc.text("\n");
        if self.differences.is_empty() {
            doc = doc.text(
                "the two manifests agree on machine, filesystem, device, engines, knobs, load and parameters\n\n",
            );
        } else {
            let body: Vec<Vec<String>> = self
                .differences
                .iter()
                .map(|d| vec![d.what.clone(), d.a.clone(), d.b.clone()])
                .collect();
            doc = doc
                .heading("what differs between A and B")
                .table("differences", &["", "A", "B"], body)
                .text("\n");
        }
        let mut out = String::new();
        for s in [&self.a, &self.b] {
            if s.status != "complete" {
                out += &format!(
                    "warning: {} is {}: only its finished trials are compared\n",
                    side_name(s),
                    s.status
                );
            }
        }
        for (side, list) in [("A", &self.unmatched_a), ("B", &self.unmatched_b)] {
            for l in list.iter() {
                out += &format!("warning: configuration `{l}` is only in {side}; compare it with RUN:CONFIG\n");
            }
        }
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                vec![
                    if r.label_a == r.label_b {
                        r.label_a.clone()
                    } else {
                        format!("{} -> {}", r.label_a, r.label_b)
                    },
                    r.operation.clone(),
                    format!("{}/{}", r.trials_a, r.trials_b),
                    opt(r.median_a),
                    opt(r.median_b),
                    match r.difference() {
                        Some(d) => difference(Some(&d)),
                        None => r.ratio.map_or("-".into(), times),
                    },
                    match (r.ratio_ci95_low, r.ratio_ci95_high) {
                        (Some(low), Some(high)) => format!("{}..{}", factor(low), factor(high)),
                        _ => "-".into(),
                    },
                    r.verdict.map_or("-".into(), |v| v.as_str().to_string()),
                ]
            })
            .collect();
        let unit = self.metric.heading();
        let failures = self.metric == Metric::Failures;
        let middle = if failures { "mean" } else { "median" };
        let (ma, mb) = (format!("A {middle} {unit}"), format!("B {middle} {unit}"));
        let against = if failures {
            "B - A, percentage points [95% CI] (lower = fewer failures)"
        } else if self.metric.better() == litebench_stats::Better::Lower {
            "B speed / A (A's over B's: higher = faster)"
        } else {
            "B speed / A (higher = faster)"
        };
        doc = doc.text(out).table(
            "rows",
            &[
                "configuration",
                "op",
                "trials A/B",
                &ma,
                &mb,
                against,
                "95% CI",
                "verdict",
            ],
            body,
        );
        let mut out = if failures {
            format!(
                "\nstatistics: failed over attempted transactions per trial; difference of means, {}, seed {}; more or fewer failures when the 95% interval excludes 0, none in either when every trial of both had none\n",
                litebench_stats::DIFFERENCE_INTERVAL_METHOD,
                self.statistics.bootstrap_seed
            )
        } else {
            format!(
                "\nstatistics: ratio of medians, {}, seed {}; {}\n",
                self.statistics.ratio_interval,
                self.statistics.bootstrap_seed,
                super::number::verdict_rule(self.statistics.noise, self.statistics.instruction_noise)
            )
        };
        out += &self.verdict_line();
        doc.text(out)
    }

    /// The last line: the regressions, none, or no verdict at all for too few trials.
    fn verdict_line(&self) -> String {
        if self.regressions > 0 {
            format!(
                "{} significant regression{} of B against A\n",
                self.regressions,
                if self.regressions == 1 { "" } else { "s" }
            )
        } else if let Some(fewest) = self.too_few_trials() {
            // Not one row could be judged: "no regression" would read as a finding.
            format!(
                "no verdict: a row needs {} trials on each side for an interval, and the fewest here were {fewest}; run both with --trials 10\n",
                litebench_stats::MIN_TRIALS
            )
        } else {
            "no significant regression of B against A\n".to_string()
        }
    }

    /// The fewest trials of a side, where no row has a verdict because of them.
    fn too_few_trials(&self) -> Option<usize> {
        let fewest = self.rows.iter().map(|r| r.trials_a.min(r.trials_b)).min()?;
        (fewest < litebench_stats::MIN_TRIALS && self.rows.iter().all(|r| r.verdict.is_none())).then_some(fewest)
    }

    /// CSV: the rows.
    pub fn csv(&self) -> String {
        super::csv::rows(&self.rows)
    }
}
