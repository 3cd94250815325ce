//! The power test's answer (TPC-H 3.0.1 §5.3.3, one query stream, no refresh functions): each
//! query's time and the geometric mean of the 22, per configuration, ranked, each against the
//! best with a ratio and a verdict over trials; the slowest query; the queries that timed out.
//! The geometric mean is the specification's summary of a power run (its Power@Size is
//! 3600 x SF over it, with the refresh functions inside, which litebench does not run), so one
//! slow query does not hide the other 21, nor one fast one flatter them.

use super::queries::NAMES;
use crate::model::record::{Manifest, TrialRecord};
use crate::workload::report::ReportSection;
use litebench_stats::{median, median_ci, ratio_of_medians, Better, Ratio};

/// One configuration's power runs: per measured trial the geometric mean in ms over the
/// queries compared ([`common`]), each query's median time in ms, and those that timed out.
#[derive(Debug, Default)]
struct Power {
    index: usize,
    geomeans: Vec<f64>,
    /// Per measured trial, each query's time (ms), none where it did not answer.
    per_trial: Vec<Vec<Option<f64>>>,
    /// How many queries the geometric means are over.
    over: usize,
    /// Per query, its time in each measured trial (ms).
    times: Vec<Vec<f64>>,
    /// Per query, the trials it timed out in.
    timed_out: Vec<u64>,
}

impl Power {
    fn of(index: usize, trials: &[TrialRecord]) -> Power {
        let mut p = Power {
            index,
            times: vec![Vec::new(); NAMES.len()],
            timed_out: vec![0; NAMES.len()],
            ..Power::default()
        };
        for t in trials.iter().filter(|t| t.config == index && !t.warmup) {
            let mut row = vec![None; NAMES.len()];
            for (q, name) in NAMES.iter().enumerate() {
                let Some(o) = t.ops.iter().find(|o| o.name == *name) else {
                    continue;
                };
                p.timed_out[q] += o.failed;
                if o.ops > 0 {
                    let ms = o.elapsed_ns as f64 / 1e6;
                    p.times[q].push(ms);
                    row[q] = Some(ms);
                }
            }
            p.per_trial.push(row);
        }
        p
    }

    /// Sets the geometric means to those over the queries `compared` marks (where a trial
    /// answered none of them, it has no mean).
    fn over(&mut self, compared: &[bool]) {
        self.over = compared.iter().filter(|&&c| c).count();
        self.geomeans = self
            .per_trial
            .iter()
            .filter_map(|row| {
                let logs: Vec<f64> = row
                    .iter()
                    .zip(compared)
                    .filter_map(|(t, &c)| t.filter(|_| c).map(|ms| ms.max(1e-6).ln()))
                    .collect();
                (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
            })
            .collect();
    }

    fn median_of(v: &[f64]) -> Option<f64> {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        (!s.is_empty()).then(|| median(&s))
    }

    fn geomean(&self) -> Option<f64> {
        Power::median_of(&self.geomeans)
    }

    fn query_ms(&self, q: usize) -> Option<f64> {
        Power::median_of(&self.times[q])
    }

    fn slowest(&self) -> Option<(usize, f64)> {
        (0..NAMES.len())
            .filter_map(|q| self.query_ms(q).map(|ms| (q, ms)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    fn timed_out_names(&self) -> Vec<&'static str> {
        (0..NAMES.len())
            .filter(|&q| self.timed_out[q] > 0)
            .map(|q| NAMES[q])
            .collect()
    }
}

/// Every configuration's power runs, their geometric means over the same queries: those every
/// configuration answered in every measured trial, so that two means (and their ratio) are of
/// one set of queries, not of whichever each answered; where no query is common to all, each
/// configuration's own answered queries (and no ratio: [`answer`] reads `comparable`).
fn powers(m: &Manifest, trials: &[TrialRecord]) -> (Vec<Power>, bool) {
    powers_of(m.configs.iter().map(|c| c.index), trials)
}

/// [`powers`] of the configurations `indexes`.
fn powers_of(indexes: impl Iterator<Item = usize>, trials: &[TrialRecord]) -> (Vec<Power>, bool) {
    let mut powers: Vec<Power> = indexes.map(|i| Power::of(i, trials)).collect();
    let common: Vec<bool> = (0..NAMES.len())
        .map(|q| {
            powers.iter().filter(|p| !p.per_trial.is_empty()).count() > 0
                && powers
                    .iter()
                    .filter(|p| !p.per_trial.is_empty())
                    .all(|p| p.per_trial.iter().all(|row| row[q].is_some()))
        })
        .collect();
    let comparable = common.iter().any(|&c| c);
    for p in &mut powers {
        let own: Vec<bool> = (0..NAMES.len()).map(|q| !p.times[q].is_empty()).collect();
        p.over(if comparable { &common } else { &own });
    }
    powers.retain(|p| !p.geomeans.is_empty());
    (powers, comparable)
}

/// The table's column headers by configuration (a report's headers are static text).
const COLUMNS: [&str; 16] = [
    "#0 ms", "#1 ms", "#2 ms", "#3 ms", "#4 ms", "#5 ms", "#6 ms", "#7 ms", "#8 ms", "#9 ms", "#10 ms", "#11 ms",
    "#12 ms", "#13 ms", "#14 ms", "#15 ms",
];

/// A time in ms with three significant digits.
fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn words(p: &Power) -> String {
    let g = p.geomean().unwrap_or(f64::NAN);
    let mut sorted = p.geomeans.clone();
    sorted.sort_by(f64::total_cmp);
    let ci = median_ci(&sorted, 0.95)
        .map(|c| format!(" [{}..{}]", ms(c.low), ms(c.high)))
        .unwrap_or_default();
    let over = match p.over {
        n if n == NAMES.len() => String::new(),
        n => format!(" over the {n} answered in every trial of every configuration"),
    };
    let mut s = format!("geometric mean of the queries' times {} ms{ci}{over}", ms(g));
    if let Some((q, t)) = p.slowest() {
        s += &format!(", slowest {} {} ms", NAMES[q], ms(t));
    }
    let out = p.timed_out_names();
    if !out.is_empty() {
        s += &format!("; timed out: {}", out.join(", "));
    }
    s
}

/// The answer's lines, lowest geometric mean first; `None` when no trial answered a query.
pub fn answer(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
    let (mut powers, comparable) = powers(m, trials);
    if powers.is_empty() {
        return None;
    }
    powers.sort_by(|a, b| {
        a.geomean()
            .unwrap_or(f64::MAX)
            .total_cmp(&b.geomean().unwrap_or(f64::MAX))
    });
    let noise = m
        .statistics
        .as_ref()
        .map_or(crate::model::metric::DEFAULT_NOISE, |s| s.noise);
    let name = |i: usize| match own.get(i).filter(|s| !s.is_empty() && m.configs.len() > 1) {
        Some(o) => format!("#{i} ({o})"),
        None => format!("#{i}"),
    };
    let best = &powers[0];
    let mut out = vec![format!("{}: {}.", name(best.index), words(best))];
    for other in &powers[1..] {
        let ratio = comparable
            .then(|| ratio_of_medians(&best.geomeans, &other.geomeans, Better::Lower, noise, m.seed))
            .flatten();
        let against = match ratio {
            Some(Ratio {
                ratio,
                ci95: Some(ci),
                verdict: Some(v),
            }) => format!(
                "; {ratio:.2}x #{}'s mean [{:.2}..{:.2}]: {}",
                best.index,
                ci.low,
                ci.high,
                v.as_str()
            ),
            Some(r) => format!(
                "; {:.2}x #{}'s mean (too few trials for a verdict)",
                r.ratio, best.index
            ),
            None => String::new(),
        };
        out.push(format!("{}: {}{against}.", name(other.index), words(other)));
    }
    out.push(format!("{}.", super::ParamSource::of(&m.params).describe(m.seed)));
    Some(out)
}

/// The power test's table: each query's median time per configuration, a column each, and the
/// geometric mean under them.
pub fn sections(m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
    let (powers, _) = powers(m, trials);
    if powers.is_empty() {
        return Vec::new();
    }
    let cell = |p: &Power, q: usize| match (p.query_ms(q), p.timed_out[q]) {
        (Some(t), 0) => ms(t),
        (Some(t), _) => format!("{} (timed out too)", ms(t)),
        (None, n) if n > 0 => "timed out".to_string(),
        (None, _) => "-".to_string(),
    };
    let mut rows: Vec<Vec<String>> = (0..NAMES.len())
        .map(|q| {
            let mut row = vec![NAMES[q].to_string()];
            row.extend(powers.iter().map(|p| cell(p, q)));
            row
        })
        .collect();
    let mut last = vec!["geo. mean".to_string()];
    last.extend(powers.iter().map(|p| p.geomean().map_or("-".into(), ms)));
    rows.push(last);
    let headers: Vec<&'static str> = std::iter::once("query")
        .chain(powers.iter().map(|p| COLUMNS.get(p.index).copied().unwrap_or("#? ms")))
        .collect();
    vec![ReportSection {
        title: "tpch: the power test, each query's median time per configuration (ms)".into(),
        headers,
        rows,
        lead: true,
    }]
}

/// The power test as the run's answer and its lead table.
impl crate::workload::WorkloadReport for super::Tpch {
    fn answer(&self, m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
        answer(m, trials, own)
    }

    fn sections(&self, m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
        sections(m, trials)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_configurations_are_ranked_over_the_queries_both_answered() {
        use crate::model::op::OpResult;
        let trial = |config: usize, times: &[(&str, Option<u64>)]| TrialRecord {
            config,
            measured_ns: 1,
            ops: times
                .iter()
                .map(|&(name, ms)| OpResult {
                    name: name.into(),
                    ops: u64::from(ms.is_some()),
                    failed: u64::from(ms.is_none()),
                    elapsed_ns: ms.unwrap_or(0) * 1_000_000,
                    ..OpResult::default()
                })
                .collect(),
            ..TrialRecord::default()
        };
        // #0 answers Q1 in 10 ms and times out on Q2; #1 takes 20 ms and 1 ms. Over whatever
        // each answered, #1's mean (4.5 ms) would lead; over Q1, the one both answered, #0's does.
        let trials = [
            trial(0, &[("Q1", Some(10)), ("Q2", None)]),
            trial(1, &[("Q1", Some(20)), ("Q2", Some(1))]),
        ];
        let (powers, comparable) = powers_of(0..2, &trials);
        assert!(comparable);
        let means: Vec<(usize, Vec<String>, usize)> = powers
            .iter()
            .map(|p| (p.index, p.geomeans.iter().map(|&g| ms(g)).collect(), p.over))
            .collect();
        assert_eq!(means, vec![(0, vec!["10.0".into()], 1), (1, vec!["20.0".into()], 1)]);
        assert!(words(&powers[0]).contains("10.0 ms over the 1 answered in every trial of every configuration"));
        // Nothing in common: each its own, and no ratio.
        let (_, comparable) = powers_of(0..2, &[trial(0, &[("Q2", None)]), trial(1, &[("Q2", Some(1))])]);
        assert!(!comparable);
    }

    #[test]
    fn times_read_in_three_digits() {
        assert_eq!(ms(1234.4), "1234");
        assert_eq!(ms(12.34), "12.3");
        assert_eq!(ms(0.1234), "0.12");
    }
}
