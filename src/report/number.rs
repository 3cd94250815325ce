//! The one number formatter of every table: significant digits by magnitude, `-` for unknown.
//!
//! Unknown is never zero: a value litebench could not determine is `None` in the model, `null`
//! in JSON, empty in CSV and `-` here.

use super::summary::Against;
use litebench_stats::{Change, Difference, Interval, Ratio};

/// A figure with 3-4 significant digits for its magnitude.
pub fn num(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Instructions (per operation) with four significant digits and a prefix of thousands:
/// `812`, `12.35 k`, `1.234 M`, `2.000 G`: a count that repeats to many digits, so a 1% change
/// shows.
pub fn instructions(x: f64) -> String {
    let (v, prefix) = match x.abs() {
        a if a >= 1e9 => (x / 1e9, " G"),
        a if a >= 1e6 => (x / 1e6, " M"),
        a if a >= 1e3 => (x / 1e3, " k"),
        _ => return num(x),
    };
    let digits = match v.abs() {
        a if a >= 100.0 => 1,
        a if a >= 10.0 => 2,
        _ => 3,
    };
    format!("{v:.digits$}{prefix}")
}

/// A count per trial: a whole number as one (`50`, not `50.0`), a mean that is not whole as
/// [`num`] gives it.
pub fn count(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        num(x)
    }
}

/// [`count`], or `-` when unknown.
pub fn opt_count(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), count)
}

/// [`num`], or `-` when unknown.
pub fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), num)
}

/// `low..high`, or `-`.
pub fn interval(ci: Option<Interval>) -> String {
    match ci {
        Some(c) => format!("{}..{}", num(c.low), num(c.high)),
        None => "-".into(),
    }
}

/// `low..high` of two optional ends, or `-`.
pub fn interval_of(low: Option<f64>, high: Option<f64>) -> String {
    interval(low.zip(high).map(|(low, high)| Interval { low, high }))
}

/// A ratio as `1.08x`, `56.0x`, `171x`, `0.059x`: three significant digits from 1 up, at least
/// two below (a 171x slow-down is `0.0058x`, never `0.01x`).
pub fn times(x: f64) -> String {
    format!("{}x", factor(x))
}

/// A speed ratio (higher = faster, [`crate::model::metric::Statistics::compare`]'s) as the factor
/// that reads with its word, whether the metric is a throughput or a latency: `2.10x faster`,
/// `21.0x slower` (never `0.048x`), `1.00x` at exactly 1.
pub fn speed(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        "-".into()
    } else if x > 1.0 {
        format!("{} faster", times(x))
    } else if x < 1.0 {
        format!("{} slower", times(1.0 / x))
    } else {
        times(x)
    }
}

/// A speed ratio's interval in [`speed`]'s direction: slow-down factors (`14.3..33.3`) when the
/// ratio is below 1, speed-up factors otherwise.
pub fn speed_interval(x: f64, low: f64, high: f64) -> String {
    if x < 1.0 && low > 0.0 && high > 0.0 {
        format!("{}..{}", factor(1.0 / high), factor(1.0 / low))
    } else {
        format!("{}..{}", factor(low), factor(high))
    }
}

/// A ratio's digits without the `x`: [`times`]'s rule, for intervals.
pub fn factor(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() {
        "-".into()
    } else if a >= 1.0 || a == 0.0 {
        num(x)
    } else {
        // Two significant digits: 0.59, 0.059, 0.0058.
        let decimals = (1 - a.log10().floor() as i32).clamp(2, 12) as usize;
        format!("{x:.decimals$}")
    }
}

/// A ratio with its interval and verdict: `1.08x [1.05..1.11] faster`, `0.99x [0.97..1.02] no
/// significant difference`, `1.30x [0.59..21.8] inconclusive`, or `1.08x -` when there are too
/// few trials for an interval. Ratios are speeds (higher = faster, see
/// [`crate::model::metric::Statistics::compare`]). The verdict's words are [`litebench_stats::Verdict::as_str`]'s,
/// as in every other table and command.
pub fn ratio(r: Option<&Ratio>) -> String {
    match r {
        None => "-".into(),
        Some(r) => match (r.ci95, r.verdict) {
            (Some(ci), Some(v)) => format!(
                "{} [{}] {}",
                speed(r.ratio),
                speed_interval(r.ratio, ci.low, ci.high),
                v.as_str()
            ),
            _ => format!("{} -", speed(r.ratio)),
        },
    }
}

/// What a difference of failure rates concludes, in words: `fewer failures`, `more failures`,
/// `no significant difference`, `none in either` (0 in every trial of both).
pub fn change_words(c: Change) -> &'static str {
    match c {
        Change::Lower => "fewer failures",
        Change::Higher => "more failures",
        Change::NoSignificantDifference => "no significant difference",
        Change::NoneInEither => "none in either",
    }
}

/// A difference of failure rates with its interval and conclusion: `+3.1 pp [1.2..5.0] more
/// failures`, `0 pp none in either`, `+0.40 pp -` with too few trials for an interval.
pub fn difference(d: Option<&Difference>) -> String {
    match d {
        None => "-".into(),
        Some(d) if d.change == Some(Change::NoneInEither) => "none in either".into(),
        Some(d) => {
            let signed = |x: f64| {
                if x > 0.0 {
                    format!("+{}", num(x))
                } else {
                    num(x)
                }
            };
            match (d.ci95, d.change) {
                (Some(ci), Some(c)) => format!(
                    "{} pp [{}..{}] {}",
                    signed(d.diff),
                    signed(ci.low),
                    signed(ci.high),
                    change_words(c)
                ),
                _ => format!("{} pp -", signed(d.diff)),
            }
        }
    }
}

/// A figure's standing against the baseline's: its ratio or difference in words, `baseline`
/// for the baseline's own row.
pub fn against(a: &Against, baseline: bool) -> String {
    match a {
        _ if baseline => "baseline".into(),
        Against::Nothing => "-".into(),
        Against::Ratio(r) => ratio(Some(r)),
        Against::Difference(d) => difference(Some(d)),
    }
}

/// The verdict rule in one clause, the same wherever verdicts are printed: `noise` is the
/// threshold as a fraction, `instruction_noise` instructions' own where the run counted them.
pub fn verdict_rule(noise: f64, instruction_noise: Option<f64>) -> String {
    let f = litebench_stats::INCONCLUSIVE_BEYOND;
    let instructions =
        instruction_noise.map_or(String::new(), |n| format!(" (instructions per operation: {})", pct(n)));
    format!(
        "faster or slower when the 95% interval excludes 1 and the ratio is beyond {}{instructions} of 1 (--noise); otherwise no significant difference, or inconclusive when the interval reaches beyond {f}x or 1/{f}x",
        pct(noise)
    )
}

/// A fraction as a percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_keep_four_digits() {
        assert_eq!(instructions(812.0), "812");
        assert_eq!(instructions(12_346.0), "12.35 k");
        assert_eq!(instructions(123_456.0), "123.5 k");
        assert_eq!(instructions(1_234_567.0), "1.235 M");
        assert_eq!(instructions(2e9), "2.000 G");
    }
    use litebench_stats::Verdict;

    #[test]
    fn magnitudes_and_unknowns() {
        assert_eq!(num(1234.5), "1234");
        assert_eq!(num(12.345), "12.3");
        assert_eq!(num(1.2345), "1.23");
        assert_eq!(num(-150.0), "-150");
        assert_eq!(opt(None), "-");
        assert_eq!(interval(None), "-");
        assert_eq!(interval_of(Some(1.0), None), "-");
    }

    #[test]
    fn ratios_keep_their_significant_digits() {
        assert_eq!(times(171.3), "171x");
        assert_eq!(times(55.98), "56.0x");
        assert_eq!(times(1.084), "1.08x");
        assert_eq!(times(0.99), "0.99x");
        assert_eq!(times(0.059), "0.059x");
        assert_eq!(times(1.0 / 171.0), "0.0058x");
        assert_eq!(factor(f64::INFINITY), "-");
    }

    #[test]
    fn ratios() {
        let r = Ratio {
            ratio: 1.08,
            ci95: Some(Interval { low: 1.05, high: 1.11 }),
            verdict: Some(Verdict::Faster),
        };
        assert_eq!(ratio(Some(&r)), "1.08x faster [1.05..1.11] faster");
        let wide = Ratio {
            ratio: 1.3,
            ci95: Some(Interval { low: 0.59, high: 21.75 }),
            verdict: Some(Verdict::Inconclusive),
        };
        assert_eq!(ratio(Some(&wide)), "1.30x faster [0.59..21.8] inconclusive");
        let none = Ratio {
            verdict: Some(Verdict::NoSignificantDifference),
            ..r
        };
        assert_eq!(
            ratio(Some(&none)),
            "1.08x faster [1.05..1.11] no significant difference"
        );
        let bare = Ratio {
            ratio: 0.5,
            ci95: None,
            verdict: None,
        };
        assert_eq!(ratio(Some(&bare)), "2.00x slower -");
    }

    /// Issue 46, item 33: a p99 21x worse than #0 reads "21.0x slower", never "0.048x" (or
    /// "0.00x" at two decimals), and its interval in the same direction.
    #[test]
    fn a_slow_down_reads_as_slower_whatever_the_metric() {
        assert_eq!(speed(1.0 / 21.0), "21.0x slower");
        assert_eq!(speed(1.0 / 400.0), "400x slower");
        assert_eq!(speed(2.1), "2.10x faster");
        assert_eq!(speed(1.0), "1.00x");
        assert_eq!(speed_interval(1.0 / 21.0, 1.0 / 33.3, 1.0 / 14.3), "14.3..33.3");
        let slow = Ratio {
            ratio: 1.0 / 21.0,
            ci95: Some(Interval {
                low: 1.0 / 33.3,
                high: 1.0 / 14.3,
            }),
            verdict: Some(Verdict::Slower),
        };
        assert_eq!(ratio(Some(&slow)), "21.0x slower [14.3..33.3] slower");
        assert_eq!(ratio(None), "-");
    }
}
