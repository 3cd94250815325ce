//! Order statistics of already sorted samples.
//!
//! Callers sort once and ask for several quantiles, so these functions take
//! a sorted slice instead of sorting (and allocating) on every call. Results
//! are always clamped between the two samples they interpolate, so rounding
//! can never place a quantile outside the data.

/// The median of an already sorted slice: the middle sample, or the average
/// of the two middle samples when the length is even.
///
/// # Panics
///
/// Panics if `sorted` is empty, which has no median. This is the only panic;
/// an unsorted slice gives a meaningless value rather than a panic.
pub fn median(sorted: &[f64]) -> f64 {
    assert!(!sorted.is_empty(), "median of an empty slice");
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        midpoint(sorted[n / 2 - 1], sorted[n / 2])
    }
}

/// The `p`-th percentile (`p` in `[0, 100]`) of an already sorted slice, by
/// linear interpolation between the closest ranks: rank `p/100 · (n-1)`
/// counted from zero. This is the "C = 1" definition used by NumPy's default,
/// R's type 7 and criterion.rs, so figures can be cross-checked with them.
///
/// `p` outside `[0, 100]` is clamped; a NaN `p` gives NaN.
///
/// # Panics
///
/// Panics if `sorted` is empty, like [`median`].
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of an empty slice");
    if p.is_nan() {
        return f64::NAN;
    }
    let last = sorted.len() - 1;
    let rank = p.clamp(0.0, 100.0) * last as f64 / 100.0;
    let lo_index = (rank.floor() as usize).min(last);
    let hi_index = (lo_index + 1).min(last);
    let frac = rank - lo_index as f64;
    lerp(sorted[lo_index], sorted[hi_index], frac)
}

/// `(a + b) / 2` without overflow, kept within `[a, b]`.
fn midpoint(a: f64, b: f64) -> f64 {
    // Halving is exact for normal numbers, so this equals the textbook
    // formula wherever that one does not overflow.
    (a / 2.0 + b / 2.0).max(a).min(b)
}

/// Interpolates from `lo` (t = 0) to `hi` (t = 1), monotone in `t` and kept
/// within `[lo, hi]`.
fn lerp(lo: f64, hi: f64, t: f64) -> f64 {
    let span = hi - lo;
    let v = if span.is_finite() {
        lo + span * t
    } else {
        // Only reachable with samples near ±f64::MAX.
        (lo / 2.0 + (hi / 2.0 - lo / 2.0) * t) * 2.0
    };
    v.max(lo).min(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_and_even() {
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[1.0, 2.0, 10.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert_eq!(median(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 4.5);
    }

    #[test]
    fn median_does_not_overflow() {
        assert_eq!(median(&[f64::MAX, f64::MAX]), f64::MAX);
        assert_eq!(median(&[-f64::MAX, f64::MAX]), 0.0);
        let tiny = f64::from_bits(1); // smallest subnormal
        assert_eq!(median(&[tiny, tiny]), tiny);
    }

    #[test]
    #[should_panic(expected = "median of an empty slice")]
    fn median_of_empty_panics() {
        median(&[]);
    }

    #[test]
    #[should_panic(expected = "percentile of an empty slice")]
    fn percentile_of_empty_panics() {
        percentile(&[], 50.0);
    }

    #[test]
    fn percentile_known_values() {
        // The worked example for the C = 1 variant.
        let s = [15.0, 20.0, 35.0, 40.0, 50.0];
        assert_eq!(percentile(&s, 0.0), 15.0);
        assert_eq!(percentile(&s, 5.0), 16.0);
        assert!((percentile(&s, 30.0) - 23.0).abs() < 1e-12);
        assert!((percentile(&s, 40.0) - 29.0).abs() < 1e-12);
        assert_eq!(percentile(&s, 50.0), 35.0);
        assert_eq!(percentile(&s, 75.0), 40.0);
        assert_eq!(percentile(&s, 100.0), 50.0);

        let t = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&t, 25.0), 1.75);
        assert_eq!(percentile(&t, 50.0), 2.5);
        assert_eq!(percentile(&t, 75.0), 3.25);
    }

    #[test]
    fn percentile_edge_cases() {
        assert_eq!(percentile(&[7.0], 0.0), 7.0);
        assert_eq!(percentile(&[7.0], 63.0), 7.0);
        assert_eq!(percentile(&[7.0], 100.0), 7.0);
        assert_eq!(percentile(&[1.0, 2.0], -5.0), 1.0);
        assert_eq!(percentile(&[1.0, 2.0], 500.0), 2.0);
        assert!(percentile(&[1.0, 2.0], f64::NAN).is_nan());
        assert_eq!(percentile(&[-f64::MAX, f64::MAX], 50.0), 0.0);
        assert_eq!(percentile(&[-f64::MAX, f64::MAX], 100.0), f64::MAX);
    }

    #[test]
    fn percentile_50_matches_median() {
        let s = [1.0, 3.0, 4.0, 8.0, 9.0, 12.0];
        assert_eq!(percentile(&s, 50.0), median(&s));
    }
}
