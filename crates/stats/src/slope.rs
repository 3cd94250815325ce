//! A least-squares line through a series, with the 95% interval of its slope.
//!
//! litebench asks of a trial's WAL size over time whether it keeps growing: a slope whose
//! interval lies above zero grows, one whose interval holds zero (a sawtooth that checkpoints
//! bring back down) does not. The interval is the textbook one for simple linear regression,
//! `slope ± t(n−2) · s / sqrt(Σ(x−x̄)²)` with `s²` the residuals' variance over `n − 2`: it
//! assumes independent residuals, which a sawtooth does not have, so it is a yardstick for
//! "clearly rising", not an exact probability.

/// A fitted slope, in units of y per unit of x.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slope {
    pub slope: f64,
    /// The 95% interval's bounds.
    pub low: f64,
    pub high: f64,
    /// Points fitted.
    pub n: usize,
}

/// The fewest points a slope's interval is computed from: with three, one degree of freedom
/// is left for the residuals.
pub const MIN_SLOPE_POINTS: usize = 3;

/// The least-squares slope of `points` (x, y) and its 95% interval; `None` with fewer than
/// [`MIN_SLOPE_POINTS`] points, with a non-finite value, or when every x is the same.
pub fn slope_95(points: &[(f64, f64)]) -> Option<Slope> {
    let n = points.len();
    if n < MIN_SLOPE_POINTS || points.iter().any(|(x, y)| !x.is_finite() || !y.is_finite()) {
        return None;
    }
    let nf = n as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / nf;
    let my = points.iter().map(|p| p.1).sum::<f64>() / nf;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let sse: f64 = points.iter().map(|p| (p.1 - intercept - slope * p.0).powi(2)).sum();
    let se = (sse / (nf - 2.0)).sqrt() / sxx.sqrt();
    let half = crate::t_critical_95(n - 2) * se;
    Some(Slope {
        slope,
        low: slope - half,
        high: slope + half,
        n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_line_has_its_slope_and_no_width() {
        let pts: Vec<_> = (0..10).map(|i| (i as f64, 3.0 + 2.0 * i as f64)).collect();
        let s = slope_95(&pts).unwrap();
        assert!((s.slope - 2.0).abs() < 1e-12);
        assert!((s.high - s.low).abs() < 1e-9);
        assert_eq!(s.n, 10);
    }

    /// x = 1..5, y = 1, 3, 2, 5, 4 by hand: Sxx = 10, Sxy = 8, slope 0.8, residuals' sum of
    /// squares 3.6, standard error sqrt(1.2 / 10) = 0.3464, t(3) = 3.1824: [-0.3024, 1.9024].
    #[test]
    fn matches_a_textbook_fit() {
        let pts = [(1.0, 1.0), (2.0, 3.0), (3.0, 2.0), (4.0, 5.0), (5.0, 4.0)];
        let s = slope_95(&pts).unwrap();
        assert!((s.slope - 0.8).abs() < 1e-12);
        assert!((s.low - -0.3024).abs() < 1e-3, "{s:?}");
        assert!((s.high - 1.9024).abs() < 1e-3, "{s:?}");
    }

    #[test]
    fn too_few_or_degenerate_points_give_none() {
        assert_eq!(slope_95(&[(0.0, 1.0), (1.0, 2.0)]), None);
        assert_eq!(slope_95(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]), None);
        assert_eq!(slope_95(&[(0.0, 1.0), (1.0, f64::NAN), (2.0, 3.0)]), None);
    }
}
