//! A distribution-free confidence interval for the median, from order statistics.
//!
//! Benchmark trials are rarely normal (a checkpoint, an eviction or a burst allowance running
//! out makes a long tail), so an interval of the *median* must not lean on the mean's
//! Student-t machinery: a run once printed `median 711, 95% CI -202.76..1800`, a mean's interval
//! beside a median, below zero for a throughput. The classic interval is exact instead: for
//! any continuous distribution, the number of samples below the true median is
//! Binomial(n, 1/2), so `[x(k), x(n+1-k)]` (1-based order statistics) covers the median with
//! probability `1 - 2·P(B ≤ k-1)`. litebench takes the narrowest such interval whose coverage
//! is at least the requested confidence. It is made of two samples, so it never leaves
//! `[min, max]` and is never negative for positive data. It needs at least 6 samples for 95%
//! (with 5, even `[min, max]` covers only 93.75%); below that there is no interval.

use crate::summary::Interval;

/// The method, as recorded in a run's manifest.
pub const MEDIAN_INTERVAL_METHOD: &str =
    "order statistics [x(k), x(n+1-k)] with exact binomial coverage (distribution-free)";

/// Fewest samples for which a 95% interval of the median exists.
pub const MIN_SAMPLES_95: usize = 6;

/// The 1-based rank `k` of the lower end of the narrowest order-statistic interval
/// `[x(k), x(n+1-k)]` whose coverage of the median is at least `confidence`, and that coverage.
/// `None` when even `[min, max]` falls short.
pub fn median_ci_rank(n: usize, confidence: f64) -> Option<(usize, f64)> {
    if n == 0 || !(0.0..1.0).contains(&confidence) {
        return None;
    }
    // P(B <= j) for B ~ Binomial(n, 1/2), summed in log space so that large n neither
    // underflows 0.5^n nor overflows the binomial coefficients.
    let ln_half = 0.5f64.ln();
    let mut ln_pmf = n as f64 * ln_half; // j = 0
    let mut cdf = 0.0;
    let mut best = None;
    // Coverage of rank k is 1 - 2 P(B <= k-1); it falls as k grows, so walk up from k = 1.
    for k in 1..=n / 2 {
        let j = k - 1;
        if j > 0 {
            ln_pmf += ((n - j + 1) as f64 / j as f64).ln();
        }
        cdf += ln_pmf.exp();
        let coverage = 1.0 - 2.0 * cdf;
        if coverage >= confidence {
            best = Some((k, coverage));
        } else {
            break;
        }
    }
    best
}

/// The `confidence` interval of the median of an already sorted slice; `None` when there are
/// too few samples (fewer than [`MIN_SAMPLES_95`] at 95%).
pub fn median_ci(sorted: &[f64], confidence: f64) -> Option<Interval> {
    let n = sorted.len();
    let (k, _) = median_ci_rank(n, confidence)?;
    Some(Interval {
        low: sorted[k - 1],
        high: sorted[n - k],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_ranks() {
        // n = 6: [x1, x6] covers 1 - 2/64 = 0.96875.
        let (k, c) = median_ci_rank(6, 0.95).unwrap();
        assert_eq!(k, 1);
        assert!((c - 0.968_75).abs() < 1e-12);
        // n = 10: [x2, x9] covers 1 - 2·11/1024 = 0.978515625; [x3, x8] only 0.890625.
        let (k, c) = median_ci_rank(10, 0.95).unwrap();
        assert_eq!(k, 2);
        assert!((c - 0.978_515_625).abs() < 1e-12);
        // n = 20: k = 6 (coverage 0.9586), k = 7 would give 0.8847.
        assert_eq!(median_ci_rank(20, 0.95).unwrap().0, 6);
        // Large n: close to the normal approximation n/2 - 1.96 sqrt(n)/2.
        let k = median_ci_rank(10_000, 0.95).unwrap().0;
        assert!((4899..=4903).contains(&k), "{k}");
    }

    #[test]
    fn too_few_samples() {
        for n in 0..MIN_SAMPLES_95 {
            assert_eq!(median_ci_rank(n, 0.95), None, "n = {n}");
        }
        assert!(median_ci_rank(MIN_SAMPLES_95, 0.95).is_some());
        assert_eq!(median_ci(&[1.0, 2.0, 3.0], 0.95), None);
    }

    #[test]
    fn interval_is_made_of_samples() {
        let s: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_ci(&s, 0.95), Some(Interval { low: 2.0, high: 9.0 }));
    }

    #[test]
    fn the_reported_defect_cannot_recur() {
        // Skewed trials like the run that printed `median 711, 95% CI -202.76..1800`.
        let s = [5.0, 600.0, 690.0, 700.0, 705.0, 711.0, 715.0, 720.0, 760.0, 1800.0];
        let ci = median_ci(&s, 0.95).unwrap();
        assert!(ci.low >= 5.0 && ci.high <= 1800.0);
        assert_eq!((ci.low, ci.high), (600.0, 760.0));
    }
}
