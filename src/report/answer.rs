//! The run's answer in plain words: which configuration did best by the headline metric, which
//! others cannot be told apart from it, and which failed transactions, and why.
//!
//! A table of eight configurations with verdicts against #0 still leaves the reader to find the
//! best one and to compare the others with it, not with #0. These one to three sentences do
//! that from the same stored trials: the best is ranked first among the configurations that
//! failed no transaction (a configuration that lost transactions to "database is locked" is
//! never the answer silently), the others are compared with it by the same bootstrap ratio and
//! verdict rule as every table, and the failures are named with their causes. `advise` answers
//! the same question with the stored durability verdicts beside it.

use super::compact::split_labels;
use super::number::{interval, num, pct};
use super::stats::values;
use super::summary::SummaryRow;
use super::{Metric, Report};
use litebench_stats::{Better, Verdict};

/// A configuration as the sentences name it: `#3 (journal_mode=wal busy_timeout=5000)`, with
/// only the words of its label that differ from the other configurations'.
fn named(i: usize, own: &[String]) -> String {
    format!("#{i} ({})", own[i])
}

/// Whether a configuration's whole-run row failed any transaction.
fn failed(r: &SummaryRow) -> bool {
    r.failures.busy > 0.0 || r.failures.failure_pct.is_some_and(|p| p > 0.0)
}

/// The figure a configuration is ranked by, best first whatever the metric's direction.
fn rank_key(r: &SummaryRow, metric: Metric) -> f64 {
    let v = r.figure(metric).value.unwrap_or(f64::NAN);
    let v = if v.is_nan() { f64::INFINITY } else { v };
    match metric.better() {
        Better::Higher => -v,
        Better::Lower => v,
    }
}

/// `p99 2.31 ms [1.90..2.80]`, `247 tx/s [219..271]`, `1.2% failed`.
fn figure_words(r: &SummaryRow, metric: Metric, unit: &str) -> String {
    let f = r.figure(metric);
    let value = f.value.map_or("-".into(), num);
    let ci = f.ci95.map(|_| format!(" [{}]", interval(f.ci95))).unwrap_or_default();
    match metric {
        Metric::Tps => format!("{value} {unit}/s{ci}"),
        Metric::Time => format!("{value} ms per trial{ci}"),
        Metric::Failures => format!("{value}% failed"),
        Metric::Instructions => {
            let i = crate::report::number::instructions;
            let ci = f
                .ci95
                .map_or(String::new(), |c| format!(" [{}..{}]", i(c.low), i(c.high)));
            format!("{} instr/op{ci}", f.value.map_or("-".into(), i))
        }
        _ => format!("{} {value} ms{ci}", metric.name()),
    }
}

/// Why a configuration's transactions failed, by the causes' names (docs/load.md): ` (37.8 per
/// trial gave up: busy_timeout)`, ` (30.5 per trial gave up: 30.3 busy_timeout, 0.17
/// busy_upgrade)`, ` (52.0 per trial skipped by --latency-limit)`: a skipped transaction never
/// ran, which a reader of "failed" cannot guess.
fn causes_words(m: &crate::model::record::Manifest, r: &SummaryRow) -> String {
    let f = &r.failures;
    let causes = [
        (f.busy_timeout, "busy_timeout"),
        (f.busy_upgrade, "busy_upgrade"),
        (f.busy_snapshot, "busy_snapshot"),
        (f.busy_serialization, "serialization failures"),
        (f.busy_deadlock, "deadlocks"),
        (f.busy_lock_wait, "lock waits past their timeout"),
    ];
    let skipped = match f.skipped.filter(|s| *s > 0.0) {
        Some(s) if f.busy == 0.0 => return format!(" ({} per trial {})", num(s), skipped_why(m, r.config)),
        Some(s) => format!(", {} {}", num(s), skipped_why(m, r.config)),
        None => String::new(),
    };
    if f.busy == 0.0 {
        return String::new();
    }
    let mut words = gave_up_words(f, &causes);
    if words.ends_with(')') {
        words.pop();
        words += &format!("{skipped})");
    }
    words
}

/// Why an open loop skipped transactions: later than `--latency-limit` when their turn came,
/// or (without one) the client fell so far behind its schedule that it gave up the rest
/// ("behind schedule": short, as it may be said of every configuration in one answer).
fn skipped_why(m: &crate::model::record::Manifest, config: usize) -> &'static str {
    if m.load_of(config).latency_limit_ns.is_some() {
        "skipped by --latency-limit"
    } else {
        "skipped behind schedule"
    }
}

/// Why transactions gave up on a lock: ` (37.8 per trial gave up: busy_timeout)`.
fn gave_up_words(f: &super::summary::Failures, causes: &[(Option<f64>, &str)]) -> String {
    let said: Vec<String> = causes
        .iter()
        .filter_map(|(n, w)| n.filter(|x| *x > 0.0).map(|x| format!("{} {w}", num(x))))
        .collect();
    if said.is_empty() {
        format!(" ({} per trial gave up busy)", num(f.busy))
    } else if said.len() == 1 && causes.iter().filter_map(|c| c.0).sum::<f64>() >= f.busy - 1e-9 {
        format!(
            " ({} per trial gave up: {})",
            num(f.busy),
            said[0].split_once(' ').map_or("", |x| x.1)
        )
    } else {
        format!(" ({} per trial gave up: {})", num(f.busy), said.join(", "))
    }
}

/// The answer in one to three sentences; empty for a run with no measured trial.
pub fn sentences(report: &Report<'_>) -> Vec<String> {
    let m = report.manifest;
    let metric = report.metric;
    let mut whole: Vec<&SummaryRow> = report.summary.iter().filter(|r| r.operation == "all").collect();
    if whole.is_empty() {
        return Vec::new();
    }
    // Those that failed no transaction first, each group best first.
    whole.sort_by(|a, b| {
        (failed(a), rank_key(a, metric))
            .partial_cmp(&(failed(b), rank_key(b, metric)))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let labels: Vec<&str> = m.configs.iter().map(|c| c.label.as_str()).collect();
    let (_, own) = split_labels(&labels);
    if let Some(mut own_answer) = report.workload.hooks().answer(m, report.trials, &own) {
        // What the workload did beside a backup or vacuum, per configuration that ran one.
        for c in &m.configs {
            let said = crate::report::beside::sentences(report.trials, c.index);
            let prefix = if m.configs.len() > 1 {
                format!("#{}: ", c.index)
            } else {
                String::new()
            };
            own_answer.extend(said.into_iter().map(|s| format!("{prefix}{s}")));
        }
        own_answer.extend(crate::report::commit_sync::warning(m, report.trials));
        return own_answer;
    }
    if let Some(rates) = rate_sweep_sentences(report, &whole) {
        return rates;
    }
    let mut out = vec![best_sentence(report, whole[0], &own)];
    let others_without_failures = whole.iter().skip(1).any(|r| !failed(r));
    if !failed(whole[0]) && others_without_failures && metric != Metric::Failures {
        out.push(ties_sentence(report, &whole));
    } else if !failed(whole[0]) && m.configs.len() > 1 {
        out.push("It is the only configuration that failed no transaction.".to_string());
    }
    out.extend(failures_sentence(m, &whole));
    out.extend(roles_sentence(report, whole[0].config));
    out.extend(sidecar_sentence(report, whole[0].config));
    out.extend(crate::report::beside::sentences(report.trials, whole[0].config));
    out.extend(crate::report::commit_sync::warning(m, report.trials));
    out
}

/// A rate sweep's answer: where each curve stops meeting its offered rate (achieved rate, or
/// p99 past `--latency-limit`), and what failed. Different offered loads are never ranked
/// against each other: a lower rate's lower p99 is no finding. `None` without a rate sweep.
fn rate_sweep_sentences(report: &Report<'_>, whole: &[&SummaryRow]) -> Option<Vec<String>> {
    let curves: Vec<&super::curve::Curve> = report
        .curves
        .iter()
        .filter(|c| c.axis == super::curve::Axis::Rate)
        .collect();
    if curves.is_empty() {
        return None;
    }
    let mut out: Vec<String> = curves
        .iter()
        .map(|c| {
            let met = c
                .points
                .iter()
                .take_while(|p| c.stop.as_ref().is_none_or(|s| s.config != p.config))
                .last();
            let highest = met.map_or(String::new(), |p| {
                format!(
                    "; the highest offered rate met is {} tx/s (#{}), p99 {} ms",
                    crate::model::load::rate_text(p.value),
                    p.config,
                    super::number::opt(p.p99_ms_median)
                )
            });
            let mut line = c.line.clone();
            if let Some(first) = line.get(..1) {
                line.replace_range(..1, &first.to_uppercase());
            }
            format!("{line}{highest}.")
        })
        .collect();
    let failing: Vec<&SummaryRow> = whole.iter().copied().filter(|r| failed(r)).collect();
    if !failing.is_empty() {
        let said: Vec<String> = failing
            .iter()
            .map(|r| format!("#{} {}{}", r.config, failed_share(r), causes_words(report.manifest, r)))
            .collect();
        out.push(format!("Failed transactions: {}.", said.join("; ")));
    }
    Some(out)
}

/// A cast's roles in configuration `config` (the answer's): each role's rate (against what it
/// offered, in an open loop), its p99 and what failed, as an application's parts see it:
/// `By role: writer 150 tx/s of 300 offered, p99 132 ms, 3.0% failed (busy_timeout); readers
/// 1979 tx/s, p99 6.19 ms.`
fn roles_sentence(report: &Report<'_>, config: usize) -> Option<String> {
    let cast = report.manifest.load.cast.as_ref()?;
    let unit = report.unit();
    let said: Vec<String> = cast
        .workload_roles()
        .filter_map(|role| {
            let op = crate::model::cast::role_all(&role.name);
            let r = report
                .summary
                .iter()
                .find(|r| r.config == config && r.operation == op)?;
            // A scheduled role offers its rate only while it runs; its rate is over the trial.
            let share = role.schedule.running_share(report.manifest.params.duration("duration"));
            let offered = match role.rate {
                Some(t) if share < 1.0 => {
                    format!(" of {} offered (it runs {} of the trial)", num(t * share), pct(share))
                }
                Some(t) => format!(" of {} offered", num(t)),
                None if share < 1.0 => format!(" (it runs {} of the trial)", pct(share)),
                None => String::new(),
            };
            let p99 = r.figure(Metric::P99).value.map_or("-".into(), num);
            let failures = if failed(r) {
                format!(", {} failed{}", failed_share(r), causes_words(report.manifest, r))
            } else {
                String::new()
            };
            Some(format!(
                "{} {} {unit}/s{offered}, p99 {p99} ms{failures}",
                role.name,
                num(r.throughput.tps_median)
            ))
        })
        .collect();
    let whose = if report.manifest.configs.len() > 1 {
        format!(" (#{config})")
    } else {
        String::new()
    };
    (!said.is_empty()).then(|| format!("By role{whose}: {}.", said.join("; ")))
}

/// What a cast's sidecars (Litestream replicating the database, say) cost configuration
/// `config` (the answer's), from its measured trials' medians: each sidecar's own CPU and bytes
/// written, and the WAL's peak beside it (a sidecar that holds a read transaction keeps
/// checkpoints from restarting the WAL). The workload's p99 beside it is the answer's first
/// sentence; what the sidecar added to it takes a run without it (`compare` says by how much).
fn sidecar_sentence(report: &Report<'_>, config: usize) -> Option<String> {
    let cast = report.manifest.load.cast.as_ref()?;
    let measured: Vec<&crate::model::record::TrialRecord> = report
        .trials
        .iter()
        .filter(|t| t.config == config && !t.warmup)
        .collect();
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (!v.is_empty()).then(|| litebench_stats::median(&v))
    };
    let said: Vec<String> = cast
        .roles
        .iter()
        .filter(|r| r.kind == crate::model::cast::RoleKind::Sidecar)
        .filter_map(|role| {
            let runs: Vec<&crate::model::cast::SidecarRun> = measured
                .iter()
                .filter_map(|t| t.cast.as_ref())
                .flat_map(|c| c.sidecars.iter().filter(|s| s.role == role.name))
                .collect();
            let cpu = median(runs.iter().map(|s| s.cpu_ms as f64 / 1000.0).collect())?;
            let written = median(runs.iter().map(|s| s.write_bytes as f64).collect())?;
            Some(format!(
                "{} used {} s of CPU and wrote {}",
                role.name,
                num(cpu),
                super::wal::size(written)
            ))
        })
        .collect();
    if said.is_empty() {
        return None;
    }
    let peaks: Vec<f64> = measured
        .iter()
        .filter_map(|t| super::wal::trial_wal(t.seq, t.series.as_ref()?))
        .map(|w| w.peak_bytes as f64)
        .collect();
    let wal = median(peaks).map_or(String::new(), |p| {
        format!("; the WAL peaked at {} beside it", super::wal::size(p))
    });
    // The longest wait for a lock of any operation, per trial (a sidecar's read transaction or
    // its checkpoint makes writers wait).
    let waits: Vec<f64> = measured
        .iter()
        .filter_map(|t| {
            t.ops
                .iter()
                .filter_map(|o| o.busy_wait.as_ref())
                .map(|l| l.p99_ns)
                .max()
        })
        .filter(|ns| *ns > 0)
        .map(|ns| ns as f64)
        .collect();
    let waited = median(waits).map_or(String::new(), |ns| {
        format!(", and the workload's waits for a lock reached p99 {} ms", num(ns / 1e6))
    });
    Some(format!(
        "Sidecar cost per trial (median): {}{wal}{waited}; its cost to the workload's p99 and WAL is `litebench compare` against a run without it.",
        said.join("; ")
    ))
}

/// A failure rate as a share: `9.5%`, `<0.1%` for a few in thousands (never `0.0%`, which
/// reads as none), `0` for none.
pub fn failed_share(r: &SummaryRow) -> String {
    match r.failures.failure_pct {
        None => "-".into(),
        Some(0.0) => "0".into(),
        Some(p) if p < 0.05 => "<0.1%".into(),
        Some(p) => pct(p / 100.0),
    }
}

/// The best configuration, its figure with its interval, and its rate.
fn best_sentence(report: &Report<'_>, best: &SummaryRow, own: &[String]) -> String {
    let m = report.manifest;
    let metric = report.metric;
    let unit = report.unit();
    let rate = match m.load.rate {
        // A cast's rates are its roles' (said per role after this sentence).
        None if m.load.cast.is_some() => format!("{} {unit}/s over every role", num(best.throughput.tps_median)),
        Some(target) => format!(
            "{} {unit}/s achieved at a {} {unit}/s target",
            num(best.throughput.tps_median),
            num(target)
        ),
        None => format!("p99 {} ms", best.figure(Metric::P99).value.map_or("-".into(), num)),
    };
    // p99 beside the ranked figure, where neither says it already; in a cast the worst role's,
    // never one merged over roles that see different latencies.
    let worst = worst_role(
        report,
        best.config,
        if metric.quantile().is_some() {
            metric
        } else {
            Metric::P99
        },
    );
    let side = match &worst {
        Some((role, r)) if metric.quantile().is_none() => {
            format!(
                ", worst role {} {}",
                possessive(role),
                figure_words(r, Metric::P99, &unit)
            )
        }
        _ if metric == Metric::P99 || (m.load.rate.is_none() && m.load.cast.is_none()) => String::new(),
        _ => format!(", {}", figure_words(best, Metric::P99, &unit)),
    };
    let how = match metric.better() {
        Better::Lower if metric.quantile().is_some() => format!("Lowest {}", metric.name()),
        Better::Lower => format!("Best by {}", metric.name()),
        Better::Higher => "Fastest".to_string(),
    };
    let figure = match &worst {
        Some((role, r)) if metric.quantile().is_some() => {
            format!("worst role {} {}", possessive(role), figure_words(r, metric, &unit))
        }
        _ => figure_words(best, metric, &unit),
    };
    let name = named(best.config, own);
    if m.configs.len() == 1 {
        // Its failures belong in the one sentence too.
        let failures = if failed(best) {
            format!(", {} failed{}", failed_share(best), causes_words(m, best))
        } else {
            String::new()
        };
        format!("{name}: {figure}{side}, {rate}{failures}.")
    } else if failed(best) {
        format!(
            "Every configuration failed transactions; {} is {name}: {figure}{side}, {rate}, {} failed{}.",
            how.to_lowercase(),
            failed_share(best),
            causes_words(m, best)
        )
    } else {
        format!("{how} without failed transactions: {name}, {figure}{side}, {rate}.")
    }
}

/// In a cast, the workload role of configuration `config` with the highest `metric` (a
/// latency quantile), with its row: the latency an application's slowest part sees.
fn worst_role<'r>(report: &'r Report<'_>, config: usize, metric: Metric) -> Option<(String, &'r SummaryRow)> {
    let cast = report.manifest.load.cast.as_ref()?;
    cast.workload_roles()
        .filter_map(|role| {
            let op = crate::model::cast::role_all(&role.name);
            let r = report
                .summary
                .iter()
                .find(|r| r.config == config && r.operation == op)?;
            Some((role.name.clone(), r, r.figure(metric).value?))
        })
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(name, r, _)| (name, r))
}

/// `writer's`, `writers'`: a role's name as its owner.
fn possessive(name: &str) -> String {
    if name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

/// What a metric compares, as a sentence says it: `throughput`, `p99`.
fn in_words(metric: Metric) -> &'static str {
    match metric {
        Metric::Tps => "throughput",
        Metric::Time => "time",
        Metric::Failures => "failures",
        m => m.name(),
    }
}

/// The configurations without failures that cannot be told apart from the best (`whole[0]`),
/// by the same ratio and verdict rule as every table.
fn ties_sentence(report: &Report<'_>, whole: &[&SummaryRow]) -> String {
    let metric = report.metric;
    let of = |c: usize| values(report.trials, c, "all", metric);
    let best = of(whole[0].config);
    let mut tied = Vec::new();
    let mut unknown = Vec::new();
    for r in whole.iter().skip(1).filter(|r| !failed(r)) {
        match report
            .statistics
            .compare(&best, &of(r.config), metric)
            .and_then(|q| q.verdict)
        {
            Some(Verdict::NoSignificantDifference) | Some(Verdict::Inconclusive) => tied.push(r.config),
            Some(_) => {}
            None => unknown.push(r.config),
        }
    }
    tied.sort_unstable();
    unknown.sort_unstable();
    let tied: Vec<String> = tied.iter().map(|c| format!("#{c}")).collect();
    if !unknown.is_empty() {
        // The others named, as every other sentence of the answer names configurations.
        let named: Vec<String> = unknown.iter().map(|c| format!("#{c}")).collect();
        format!(
            "Too few trials to tell it apart from {} (6 a side give intervals).",
            named.join(", ")
        )
    } else if tied.is_empty() {
        format!(
            "Every other configuration without failures is worse in {} by its 95% interval.",
            in_words(metric)
        )
    } else {
        format!(
            "Not significantly different from it in {}: {}.",
            in_words(metric),
            tied.join(", ")
        )
    }
}

/// The other configurations that failed transactions, most failures first, with their causes.
fn failures_sentence(m: &crate::model::record::Manifest, whole: &[&SummaryRow]) -> Option<String> {
    let mut failing: Vec<&SummaryRow> = whole.iter().skip(1).copied().filter(|r| failed(r)).collect();
    if failing.is_empty() {
        return None;
    }
    failing.sort_by(|a, b| {
        b.failures
            .failure_pct
            .partial_cmp(&a.failures.failure_pct)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    const NAMED: usize = 3;
    let mut said: Vec<String> = failing
        .iter()
        .take(NAMED)
        .map(|r| format!("#{} {}{}", r.config, failed_share(r), causes_words(m, r)))
        .collect();
    if failing.len() > NAMED {
        said.push(format!("{} more", failing.len() - NAMED));
    }
    Some(format!("Failed transactions: {}.", said.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_named_in_the_plural_owns_with_an_apostrophe() {
        assert_eq!(possessive("writers"), "writers'");
        assert_eq!(possessive("writer"), "writer's");
    }
    use crate::report::html::data::tests::{manifest, report, trials};

    /// The fastest configuration lost transactions to locks: the answer is the fastest of those
    /// that lost none, and the one that failed is named with its rate and cause, never picked
    /// silently (issue 32: `advise --need durable` recommended `busy_timeout=0`).
    #[test]
    fn the_answer_is_the_best_configuration_without_failures_and_names_the_failing_ones() {
        let m = manifest(&[
            &[("journal_mode", "wal"), ("busy_timeout", "0")],
            &[("journal_mode", "wal"), ("busy_timeout", "5000")],
            &[("journal_mode", "delete"), ("busy_timeout", "5000")],
        ]);
        let mut t = trials(3, 8, &["write"]);
        for tr in t.iter_mut().filter(|tr| tr.config == 0) {
            let o = &mut tr.ops[0];
            (o.busy, o.failed, o.busy_timeout, o.busy_upgrade, o.busy_snapshot) = (4, 4, Some(0), Some(4), Some(0));
        }
        let r = report(&m, &t);
        let words = sentences(&r);
        assert!(
            words[0].starts_with("Fastest without failed transactions: #1 (busy_timeout=5000 journal_mode=wal)")
                || words[0].starts_with("Fastest without failed transactions: #1 (journal_mode=wal busy_timeout=5000)"),
            "{words:#?}"
        );
        assert!(
            words.iter().any(
                |w| w.starts_with("Failed transactions: #0 ") && w.contains("4.00 per trial gave up: busy_upgrade")
            ),
            "{words:#?}"
        );
        // #2's trials overlap #1's (11-13 ms against 12-14 ms per trial): a tie, said as one.
        assert!(
            words.contains(&"Not significantly different from it in throughput: #2.".to_string()),
            "{words:#?}"
        );
    }

    /// Issue 46, item 10: a rate sweep's answer says where the offered rates stop being met
    /// and never ranks offered loads against each other ("Lowest p99 ... #0 (rate=300)"); its
    /// failures say they were skipped by --latency-limit.
    #[test]
    fn a_rate_sweeps_answer_names_the_rate_met_not_the_lowest_p99() {
        use crate::model::load::LoadShape;
        let mut m = manifest(&[&[("journal_mode", "wal")], &[("journal_mode", "wal")]]);
        for (c, rate) in m.configs.iter_mut().zip([300.0, 100_000.0]) {
            c.load = Some(LoadShape {
                rate: Some(rate),
                latency_limit_ns: Some(50_000_000),
                sweep: true,
                ..LoadShape::default()
            });
            c.label = format!("sqlite journal_mode=wal rate={rate}");
        }
        let mut t = trials(2, 8, &["write"]);
        for tr in t.iter_mut().filter(|tr| tr.config == 1) {
            (tr.ops[0].skipped, tr.ops[0].failed) = (50, 50);
        }
        let r = report(&m, &t);
        let words = sentences(&r);
        assert!(
            !words[0].starts_with("Lowest") && !words[0].starts_with("Fastest"),
            "{words:#?}"
        );
        assert!(
            words[0].starts_with("Scaling stops at 100000 tx/s offered: achieved "),
            "{words:#?}"
        );
        assert!(
            words[0].contains("the highest offered rate met is 300 tx/s (#0)"),
            "{words:#?}"
        );
        assert!(
            words
                .iter()
                .any(|w| w.starts_with("Failed transactions: #1 ") && w.contains("skipped by --latency-limit")),
            "{words:#?}"
        );
    }

    /// Issue 46, item 23: a sidecar's own cost (CPU, bytes written) and the WAL's peak beside it
    /// are part of the answer of a run with a sidecar.
    #[test]
    fn a_sidecars_cost_is_part_of_the_answer() {
        use crate::model::cast::{Cast, CastEvents, RoleKind, SidecarRun};
        use crate::report::html::data::tests::role;
        let mut m = manifest(&[&[("journal_mode", "wal")]]);
        m.load.cast = Some(Cast {
            file: "c.toml".into(),
            roles: vec![role("app", RoleKind::Workload), role("litestream", RoleKind::Sidecar)],
        });
        let mut t = trials(1, 3, &["app:write"]);
        for tr in t.iter_mut() {
            tr.cast = Some(CastEvents {
                sidecars: vec![SidecarRun {
                    role: "litestream".into(),
                    pid: 1,
                    start_ms: 0,
                    ran_ms: 5000,
                    cpu_ms: 330,
                    read_bytes: 0,
                    write_bytes: 6 << 20,
                    exit: "signal 15 (SIGTERM)".into(),
                    stopped: crate::sys::sidecar::Stopped::Term,
                }],
                ..Default::default()
            });
            tr.ops[0].busy_wait = Some(crate::model::op::Latency {
                p99_ns: 79_000_000,
                ..Default::default()
            });
        }
        let r = report(&m, &t);
        let words = sentences(&r);
        assert!(
            words
                .iter()
                .any(|w| w
                    .starts_with("Sidecar cost per trial (median): litestream used 0.33 s of CPU and wrote 6.0 MiB")),
            "{words:#?}"
        );
        assert!(
            words
                .iter()
                .any(|w| w.contains("the workload's waits for a lock reached p99 79.0 ms")),
            "{words:#?}"
        );
    }
}
