//! One figure's claim: what a paper measured, what litebench measured here, and the verdict.
//!
//! Papers state their findings as ratios ("WAL is about 10x DELETE") on hardware nobody has
//! any more, so a reproduction compares ratios, not absolute numbers: a claim holds in
//! direction when the measured ratio is on the same side of 1 (beyond the noise threshold),
//! and in size when it is within a factor of [`SIZE_FACTOR`] (2) of the paper's ratio: here /
//! paper from 0.5 to 2, a rule a reader can check from the row itself. Every such verdict states
//! the factor ("2.86x smaller than the paper's"). (An earlier rule compared ln here / ln paper,
//! which read backwards: 9.78x against 28.0x held in size while 1.15x against 1.50x did not.)
//! Absolute values (Table 1's
//! TPS, Table 4's database sizes) are shown beside today's with their ratio, and the verdict
//! says they cannot be compared across machines or scales; the ratio rows derived from them
//! carry the verdict instead.

use super::interval::Interval;

/// What the paper says about a ratio `numerator / denominator`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expect {
    /// The numerator is faster by about this factor (> 1), or slower (< 1).
    About(f64),
    /// The numerator is faster; the paper gives no number.
    Faster,
    /// The numerator is slower; the paper gives no number.
    Slower,
    /// No gain: the numerator is not faster than the denominator.
    NoGain,
    /// An absolute value on the paper's hardware and at its sizes (no verdict across machines
    /// or scales: a throughput, a database's size).
    Absolute(f64),
    /// A count that does not depend on hardware (syncs per 1000 inserts).
    Count(f64),
}

impl Expect {
    /// The paper's value as a number, when it gives one.
    pub fn value(self) -> Option<f64> {
        match self {
            Expect::About(v) | Expect::Absolute(v) | Expect::Count(v) => Some(v),
            Expect::NoGain => Some(1.0),
            Expect::Faster | Expect::Slower => None,
        }
    }

    /// The paper's value as the report prints it.
    pub fn shown(self) -> String {
        match self {
            Expect::About(v) => format!("{}x", num(v)),
            Expect::Faster => "> 1x (stated, no number)".into(),
            Expect::Slower => "< 1x (stated, no number)".into(),
            Expect::NoGain => "<= 1x (no gain, stated)".into(),
            Expect::Absolute(v) | Expect::Count(v) => num(v),
        }
    }
}

/// A measured ratio holds "in size" when it is within this factor of the paper's, either way
/// (10x: from 5x to 20x; 1.5x: from 0.75x to 3x, once the direction holds; 28x: from 14x to 56x).
pub const SIZE_FACTOR: f64 = 2.0;

/// How the measured ratio compares with the paper's, as a factor a reader can check:
/// `2.86x smaller than the paper's`, `1.30x larger than the paper's`, `the paper's size`.
pub fn size_words(here: f64, paper: f64) -> String {
    let q = here / paper;
    if (q - 1.0).abs() < 0.005 {
        "the paper's size".into()
    } else if q > 1.0 {
        format!("{}x larger than the paper's", num(q))
    } else {
        format!("{}x smaller than the paper's", num(1.0 / q))
    }
}
/// A paper ratio within this of 1 says "about even" (single runs in 2002 were no finer).
pub const PAPER_EVEN: f64 = 0.05;
/// ... and holds here when the measured ratio is within this of 1.
pub const HERE_EVEN: f64 = 0.10;
/// A count within this fraction of the paper's matches it.
pub const COUNT_TOLERANCE: f64 = 0.10;

/// The verdict on one claim, given the measured value and the noise threshold (a fraction,
/// e.g. 0.02): differences within it of 1 are no difference.
pub fn verdict(expect: Expect, here: f64, noise: f64) -> String {
    let up = here > 1.0 + noise;
    let down = here < 1.0 - noise;
    let direction = |faster: bool| -> &'static str {
        match (faster, up, down) {
            (true, true, _) | (false, _, true) => "holds",
            (_, false, false) => "does not hold: no difference here",
            _ => "does not hold: reversed here",
        }
    };
    match expect {
        Expect::About(paper) if (paper - 1.0).abs() <= PAPER_EVEN => {
            if (here - 1.0).abs() <= HERE_EVEN {
                "holds: about even here too".into()
            } else {
                format!("does not hold: {}x here, about even in the paper", num(here))
            }
        }
        Expect::About(paper) => {
            let d = direction(paper > 1.0);
            if d != "holds" {
                return d.into();
            }
            // The size: the measured ratio within a factor of SIZE_FACTOR of the paper's.
            let q = here / paper;
            let words = size_words(here, paper);
            if (1.0 / SIZE_FACTOR..=SIZE_FACTOR).contains(&q) {
                format!("holds in direction and size ({words}; within {SIZE_FACTOR}x)")
            } else {
                format!(
                    "holds in direction, not in size ({}x here: {words}, beyond {SIZE_FACTOR}x)",
                    num(here)
                )
            }
        }
        Expect::Faster | Expect::Slower => match direction(expect == Expect::Faster) {
            "holds" => "holds in direction (the paper gives no size)".into(),
            other => other.into(),
        },
        Expect::NoGain => {
            if up {
                "does not hold: a gain here".into()
            } else {
                "holds: no gain here".into()
            }
        }
        Expect::Absolute(_) => "not comparable: other machine or scale (see the ratios)".into(),
        Expect::Count(paper) => {
            if paper > 0.0 && ((here - paper).abs() / paper) <= COUNT_TOLERANCE {
                "matches".into()
            } else {
                "differs".into()
            }
        }
    }
}

/// [`verdict`], held against the measured ratio's 95% interval when there is one: a direction
/// holds, or is reversed, only when the whole interval clears the noise threshold on that side,
/// and a gain against a "no gain" claim only counts when it does too.
pub fn verdict_within(expect: Expect, here: f64, interval: Option<Interval>, noise: f64) -> String {
    let v = verdict(expect, here, noise);
    let Some(i) = interval else {
        return v;
    };
    let reaches_one = i.low <= 1.0 + noise && i.high >= 1.0 - noise;
    let span = format!("95% interval {} to {}", num(i.low), num(i.high));
    let directional = match expect {
        Expect::About(p) => (p - 1.0).abs() > PAPER_EVEN,
        Expect::Faster | Expect::Slower => true,
        Expect::NoGain | Expect::Absolute(_) | Expect::Count(_) => false,
    };
    // Neither a direction nor its reverse is shown by an interval that reaches 1; one that also
    // reaches beyond a factor of 1.5 either way is inconclusive, in compare's words.
    if directional && reaches_one && (v.starts_with("holds") || v.starts_with("does not hold: reversed")) {
        let wide = i.high > litebench_stats::INCONCLUSIVE_BEYOND || i.low < 1.0 / litebench_stats::INCONCLUSIVE_BEYOND;
        let words = if wide {
            litebench_stats::Verdict::Inconclusive
        } else {
            litebench_stats::Verdict::NoSignificantDifference
        };
        return format!("does not hold: {} here ({span} reaches 1)", words.as_str());
    }
    if expect == Expect::NoGain && reaches_one && v.starts_with("does not hold") {
        return format!("holds: no significant gain here ({span})");
    }
    v
}

/// A number with three significant digits, as the report prints ratios and rates.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a < 0.1 {
        format!("{v:.3}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_hold_in_direction_and_size() {
        assert_eq!(
            verdict(Expect::About(10.0), 9.0, 0.02),
            "holds in direction and size (1.11x smaller than the paper's; within 2x)"
        );
        assert_eq!(
            verdict(Expect::About(10.0), 4.1, 0.02),
            "holds in direction, not in size (4.10x here: 2.44x smaller than the paper's, beyond 2x)"
        );
        assert!(verdict(Expect::About(10.0), 5.0, 0.02).starts_with("holds in direction and size"));
        assert!(verdict(Expect::About(10.0), 20.0, 0.02).starts_with("holds in direction and size"));
        assert_eq!(
            verdict(Expect::About(10.0), 25.0, 0.02),
            "holds in direction, not in size (25.0x here: 2.50x larger than the paper's, beyond 2x)"
        );
        // The apsys17 pair, which the log-scale rule judged backwards: Figure 1's 9.78x
        // against 28.0x is nearly 3x off; Table 1's 1.15x against 1.50x is within 2x.
        assert_eq!(
            verdict(Expect::About(28.0), 9.78, 0.02),
            "holds in direction, not in size (9.78x here: 2.86x smaller than the paper's, beyond 2x)"
        );
        assert_eq!(
            verdict(Expect::About(1.5), 1.15, 0.02),
            "holds in direction and size (1.30x smaller than the paper's; within 2x)"
        );
        assert!(verdict(Expect::About(1.5), 1.5, 0.02).contains("(the paper's size; within 2x)"));
        assert_eq!(
            verdict(Expect::About(10.0), 1.01, 0.02),
            "does not hold: no difference here"
        );
        assert_eq!(verdict(Expect::About(10.0), 0.5, 0.02), "does not hold: reversed here");
        assert_eq!(
            verdict(Expect::About(0.77), 0.7, 0.02),
            "holds in direction and size (1.10x smaller than the paper's; within 2x)"
        );
        assert_eq!(verdict(Expect::About(0.98), 1.04, 0.02), "holds: about even here too");
        assert_eq!(
            verdict(Expect::About(1.02), 0.16, 0.02),
            "does not hold: 0.16x here, about even in the paper"
        );
        assert_eq!(verdict(Expect::About(0.77), 1.3, 0.02), "does not hold: reversed here");
    }

    #[test]
    fn intervals_reaching_one_withdraw_a_direction() {
        let i = |low, high| Some(Interval { low, high });
        // Significant: the whole interval is above 1 + noise.
        assert!(verdict_within(Expect::About(10.0), 9.0, i(7.0, 11.0), 0.02).starts_with("holds in direction and size"));
        // A median beyond the threshold, but an interval that reaches 1.
        assert_eq!(
            verdict_within(Expect::Faster, 1.3, i(0.95, 1.45), 0.02),
            "does not hold: no significant difference here (95% interval 0.95 to 1.45 reaches 1)"
        );
        // An interval that reaches 1 and beyond 1.5x is inconclusive, as compare says.
        assert_eq!(
            verdict_within(Expect::Faster, 1.3, i(0.59, 21.75), 0.02),
            "does not hold: inconclusive here (95% interval 0.59 to 21.8 reaches 1)"
        );
        assert!(verdict_within(Expect::Slower, 0.8, i(0.7, 1.01), 0.02).contains("no significant"));
        // Nor is a reversal shown by an interval that reaches 1; a clear one stays reversed.
        assert!(verdict_within(Expect::Slower, 1.06, i(0.87, 1.14), 0.02).contains("no significant"));
        assert_eq!(
            verdict_within(Expect::Slower, 1.2, i(1.1, 1.3), 0.02),
            "does not hold: reversed here"
        );
        // Without an interval, the medians decide.
        assert_eq!(
            verdict_within(Expect::Faster, 1.3, None, 0.02),
            verdict(Expect::Faster, 1.3, 0.02)
        );
        // "No gain": a gain counts only when significant.
        assert!(verdict_within(Expect::NoGain, 1.2, i(0.9, 1.4), 0.02).starts_with("holds: no significant gain"));
        assert_eq!(
            verdict_within(Expect::NoGain, 1.2, i(1.1, 1.4), 0.02),
            "does not hold: a gain here"
        );
        // "About even" claims and counts are not about direction.
        assert_eq!(
            verdict_within(Expect::About(1.02), 1.05, i(0.9, 1.2), 0.02),
            "holds: about even here too"
        );
    }

    #[test]
    fn stated_directions_counts_and_absolutes() {
        assert!(verdict(Expect::Faster, 1.5, 0.02).starts_with("holds"));
        assert!(verdict(Expect::Slower, 1.5, 0.02).starts_with("does not hold: reversed"));
        assert_eq!(verdict(Expect::NoGain, 1.01, 0.02), "holds: no gain here");
        assert_eq!(verdict(Expect::NoGain, 1.5, 0.02), "does not hold: a gain here");
        assert_eq!(verdict(Expect::Count(5000.0), 4000.0, 0.02), "differs");
        assert_eq!(verdict(Expect::Count(5000.0), 5010.0, 0.02), "matches");
        assert!(verdict(Expect::Absolute(20.0), 700.0, 0.02).starts_with("not comparable"));
    }
}
