//! TPC-C's answer in its own terms: tpmC, the New-Order transactions completed per minute of
//! the measured interval (§5.4.1; the 1% rolled back by the specification's rule count, as they
//! are completed business transactions), per configuration with its 95% interval over trials,
//! ranked, each against the best with a ratio and a verdict; and New-Order's p99.

use super::deck::TXNS;
use crate::model::record::{Manifest, TrialRecord};
use litebench_stats::{median, median_ci, ratio_of_medians, Better, Ratio};

/// tpmC of each measured trial of configuration `config`, and New-Order's p99 (ns) at most.
fn tpmc(config: usize, trials: &[TrialRecord]) -> (Vec<f64>, u64, u64) {
    let mut per_trial = Vec::new();
    let (mut p99, mut failed) = (0u64, 0u64);
    for t in trials
        .iter()
        .filter(|t| t.config == config && !t.warmup && t.measured_ns > 0)
    {
        let new_orders = t.ops.iter().find(|o| o.name == TXNS[super::deck::NEW_ORDER]);
        let n = new_orders.map_or(0, |o| o.ops);
        if let Some(o) = new_orders {
            p99 = p99.max(o.latency.p99_ns);
            failed += o.failed;
        }
        per_trial.push(n as f64 * 60e9 / t.measured_ns as f64);
    }
    (per_trial, p99, failed)
}

fn grouped(x: f64) -> String {
    let n = x.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The answer's lines, best first; `None` when no trial measured anything.
pub fn answer(m: &Manifest, trials: &[TrialRecord], own: &[String]) -> Option<Vec<String>> {
    let mut figs: Vec<(usize, Vec<f64>, u64, u64)> = m
        .configs
        .iter()
        .map(|c| {
            let (t, p99, failed) = tpmc(c.index, trials);
            (c.index, t, p99, failed)
        })
        .filter(|f| !f.1.is_empty())
        .collect();
    if figs.is_empty() {
        return None;
    }
    let med = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        median(&s)
    };
    figs.sort_by(|a, b| med(&b.1).total_cmp(&med(&a.1)));
    let noise = m
        .statistics
        .as_ref()
        .map_or(crate::model::metric::DEFAULT_NOISE, |s| s.noise);
    let name = |i: usize| match own.get(i).filter(|s| !s.is_empty() && m.configs.len() > 1) {
        Some(o) => format!("#{i} ({o})"),
        None => format!("#{i}"),
    };
    let words = |(_, t, p99, failed): &(usize, Vec<f64>, u64, u64)| {
        let mut s = t.clone();
        s.sort_by(f64::total_cmp);
        let ci = median_ci(&s, 0.95)
            .map(|c| format!(" [{}..{}]", grouped(c.low), grouped(c.high)))
            .unwrap_or_default();
        let gave_up = if *failed > 0 {
            format!(", {failed} New-Orders gave up on locks")
        } else {
            String::new()
        };
        format!(
            "tpmC {}{ci} (New-Orders per minute), New-Order p99 {:.1} ms{gave_up}",
            grouped(median(&s)),
            *p99 as f64 / 1e6
        )
    };
    let best = &figs[0];
    let mut out = vec![format!("{}: {}.", name(best.0), words(best))];
    for other in &figs[1..] {
        let against = match ratio_of_medians(&best.1, &other.1, Better::Higher, noise, m.seed) {
            Some(Ratio {
                ratio,
                ci95: Some(ci),
                verdict: Some(v),
            }) => format!(
                "; {ratio:.2}x #{}'s tpmC [{:.2}..{:.2}]: {}",
                best.0,
                ci.low,
                ci.high,
                v.as_str()
            ),
            Some(r) => format!("; {:.2}x #{}'s tpmC (too few trials for a verdict)", r.ratio, best.0),
            None => String::new(),
        };
        out.push(format!("{}: {}{against}.", name(other.0), words(other)));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(grouped(0.4), "0");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(1234.4), "1,234");
        assert_eq!(grouped(1234567.0), "1,234,567");
    }
}
