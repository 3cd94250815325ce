//! Properties that must hold for any data, checked on generated samples.

use litebench_stats::{
    median, median_ci, percentile, ratio_of_medians, summarize, t_critical_95, tukey, welch, Better, Comparison,
    Interval, Outliers, Summary,
};
use proptest::prelude::*;

/// Any finite sample of realistic benchmark magnitude, either sign.
fn samples() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1e12f64..1e12, 1..64)
}

/// Positive samples, like throughputs or latencies.
fn positive_samples() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(1e-6f64..1e12, 2..64)
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

proptest! {
    #[test]
    fn median_and_mean_lie_between_min_and_max(v in samples()) {
        let s = summarize(&v).unwrap();
        prop_assert_eq!(s.n, v.len());
        prop_assert!(s.min <= s.median && s.median <= s.max);
        prop_assert!(s.min <= s.mean && s.mean <= s.max);
    }

    #[test]
    fn ci_contains_the_mean(v in samples()) {
        let s = summarize(&v).unwrap();
        match s.mean_ci95 {
            Some(ci) => {
                prop_assert!(v.len() >= 2);
                prop_assert!(ci.contains(s.mean), "{:?} vs {}", ci, s.mean);
                prop_assert!(s.stddev.unwrap() >= 0.0);
            }
            None => prop_assert_eq!(v.len(), 1),
        }
    }

    #[test]
    fn cv_invariant_under_positive_scaling(v in positive_samples(), c in 1e-3f64..1e3) {
        let scaled: Vec<f64> = v.iter().map(|x| x * c).collect();
        let cv = summarize(&v).unwrap().cv.unwrap();
        let cv_scaled = summarize(&scaled).unwrap().cv.unwrap();
        // Scaling rounds each sample, so allow a relative tolerance.
        prop_assert!((cv - cv_scaled).abs() <= 1e-9 * cv.max(1e-3), "{} vs {}", cv, cv_scaled);
    }

    #[test]
    fn cv_exactly_invariant_under_power_of_two_scaling(v in samples(), k in -60i32..60) {
        let c = 2f64.powi(k);
        let scaled: Vec<f64> = v.iter().map(|x| x * c).collect();
        prop_assert_eq!(summarize(&v).unwrap().cv, summarize(&scaled).unwrap().cv);
    }

    #[test]
    fn constant_sample_has_zero_spread(x in -1e12f64..1e12, n in 2usize..100) {
        prop_assume!(x != 0.0);
        let s = summarize(&vec![x; n]).unwrap();
        prop_assert_eq!(s.mean, x);
        prop_assert_eq!(s.median, x);
        prop_assert_eq!(s.stddev, Some(0.0));
        prop_assert_eq!(s.cv, Some(0.0));
        prop_assert_eq!(s.mean_ci95, Some(Interval { low: x, high: x }));
        prop_assert_eq!(tukey(&vec![x; n]), Outliers::default());
    }

    #[test]
    fn percentile_monotone_in_p(v in samples(), p in 0f64..=100.0, q in 0f64..=100.0) {
        let s = sorted(&v);
        let (lo, hi) = if p <= q { (p, q) } else { (q, p) };
        prop_assert!(percentile(&s, lo) <= percentile(&s, hi));
        prop_assert_eq!(percentile(&s, 0.0), s[0]);
        prop_assert_eq!(percentile(&s, 100.0), s[s.len() - 1]);
    }

    #[test]
    fn percentile_50_agrees_with_median(v in samples()) {
        let s = sorted(&v);
        let (p, m) = (percentile(&s, 50.0), median(&s));
        prop_assert!((p - m).abs() <= 1e-12 * p.abs().max(m.abs()).max(1.0));
    }

    #[test]
    fn summary_ignores_order(mut v in samples()) {
        let a = summarize(&v).unwrap();
        v.reverse();
        prop_assert_eq!(a.clone(), summarize(&v).unwrap());
        let s: Summary = summarize(&sorted(&v)).unwrap();
        prop_assert_eq!(a.n, s.n);
        prop_assert_eq!(a.median, s.median);
    }

    #[test]
    fn tukey_never_counts_more_than_the_sample(v in samples()) {
        prop_assert!(tukey(&v).total() <= v.len());
    }

    #[test]
    fn welch_of_a_sample_with_itself_is_not_significant(v in prop::collection::vec(-1e12f64..1e12, 2..64)) {
        let c = welch(&v, &v).unwrap();
        prop_assert_eq!(c.diff, 0.0);
        prop_assert_eq!(c.significant, Some(false));
    }

    #[test]
    fn welch_is_antisymmetric(a in samples(), b in samples()) {
        let ab: Comparison = welch(&a, &b).unwrap();
        let ba = welch(&b, &a).unwrap();
        prop_assert_eq!(ab.diff, -ba.diff);
        prop_assert_eq!(ab.significant, ba.significant);
        if let (Some(x), Some(y)) = (ab.ci95, ba.ci95) {
            prop_assert_eq!(x.low, -y.high);
            prop_assert_eq!(x.high, -y.low);
        }
        if let Some(ci) = ab.ci95 {
            prop_assert!(ci.contains(ab.diff));
        }
    }

    #[test]
    fn median_interval_stays_within_the_data(v in samples()) {
        let s = summarize(&v).unwrap();
        match s.median_ci95 {
            Some(ci) => {
                prop_assert!(v.len() >= 6);
                prop_assert!(s.min <= ci.low && ci.low <= s.median && s.median <= ci.high && ci.high <= s.max);
            }
            None => prop_assert!(v.len() < 6),
        }
    }

    #[test]
    fn median_interval_of_positive_data_is_positive(v in positive_samples()) {
        if let Some(ci) = median_ci(&sorted(&v), 0.95) {
            prop_assert!(ci.low > 0.0);
        }
    }

    #[test]
    fn ratio_interval_contains_the_ratio_and_is_positive(a in positive_samples(), b in positive_samples(), seed in any::<u64>()) {
        let r = ratio_of_medians(&a, &b, Better::Higher, 0.02, seed).unwrap();
        prop_assert!(r.ratio > 0.0);
        prop_assert_eq!(r.ci95.is_some(), r.verdict.is_some());
        if let Some(ci) = r.ci95 {
            prop_assert!(ci.low > 0.0 && ci.low <= ci.high);
            // The bootstrap distribution of a median ratio surrounds the observed ratio
            // except in pathological tiny samples; its extremes always bound it.
            let lo = a.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = a.iter().cloned().fold(0.0, f64::max);
            let blo = b.iter().cloned().fold(f64::INFINITY, f64::min);
            let bhi = b.iter().cloned().fold(0.0, f64::max);
            prop_assert!(ci.low >= blo / hi * (1.0 - 1e-12) && ci.high <= bhi / lo * (1.0 + 1e-12));
        }
    }

    #[test]
    fn t_critical_decreases_with_df(df in 1usize..100_000) {
        prop_assert!(t_critical_95(df + 1) < t_critical_95(df));
        prop_assert!(t_critical_95(df) > 1.959_963);
    }
}
