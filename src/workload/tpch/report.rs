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
/// queries that answered, each query's median time in ms, and those that timed out.
#[derive(Debug, Default)]
struct Power {
    index: usize,
    geomeans: Vec<f64>,
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
            let mut logs = Vec::new();
            for (q, name) in NAMES.iter().enumerate() {
                let Some(o) = t.ops.iter().find(|o| o.name == *name) else {
                    continue;
                };
                p.timed_out[q] += o.failed;
                if o.ops > 0 {
                    let ms = o.elapsed_ns as f64 / 1e6;
                    p.times[q].push(ms);
                    logs.push(ms.max(1e-6).ln());
                }
            }
            if !logs.is_empty() {
                p.geomeans.push((logs.iter().sum::<f64>() / logs.len() as f64).exp());
            }
        }
        p
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

    fn answered(&self) -> usize {
        self.times.iter().filter(|t| !t.is_empty()).count()
    }
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
    let over = match p.answered() {
        n if n == NAMES.len() => String::new(),
        n => format!(" over the {n} that answered"),
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
    let mut powers: Vec<Power> = m
        .configs
        .iter()
        .map(|c| Power::of(c.index, trials))
        .filter(|p| !p.geomeans.is_empty())
        .collect();
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
        let against = match ratio_of_medians(&best.geomeans, &other.geomeans, Better::Lower, noise, m.seed) {
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
    Some(out)
}

/// The power test's table: each query's median time per configuration, a column each, and the
/// geometric mean under them.
pub fn sections(m: &Manifest, trials: &[TrialRecord]) -> Vec<ReportSection> {
    let powers: Vec<Power> = m
        .configs
        .iter()
        .map(|c| Power::of(c.index, trials))
        .filter(|p| !p.geomeans.is_empty())
        .collect();
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
    fn times_read_in_three_digits() {
        assert_eq!(ms(1234.4), "1234");
        assert_eq!(ms(12.34), "12.3");
        assert_eq!(ms(0.1234), "0.12");
    }
}
