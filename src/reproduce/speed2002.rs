//! SQLite's Database Speed Comparison (speed.html, speed.tcl v1.8, 2002): the 15 tests on
//! SQLite 2.7.0 with and without sync, PostgreSQL 7.1.3 and MySQL 3.23.41.
//!
//! The page gives wall-clock seconds per test and engine; those 60 values are transcribed
//! below. Today's engines on today's hardware run the same statements (`speedtest`), so the
//! comparison is of ratios within a test: SQLite (sync) against PostgreSQL (the page pairs
//! them: both synchronous), SQLite (nosync) against MySQL (both asynchronous), and what
//! turning sync off buys SQLite. Each server is its own experiment, so a missing server fails
//! its rows and not the others.

use super::claim::Expect;
use super::{param, trials, words, Claim, Experiment, Figure, Measure, Needs, Pick, Scale, Target};
use crate::workload::speedtest::OPS;

const HARDWARE: &str = "1.6 GHz Athlon, 1 GB memory, IDE disk; RedHat Linux 7.2, stock kernel; PostgreSQL 7.1.3 and MySQL 3.23.41 as delivered by RedHat 7.2, untuned (Test Environment)";

/// Seconds per test as on the page: PostgreSQL, MySQL, SQLite 2.7.0, SQLite 2.7.0 (nosync).
/// Source: speed.html, the table under each "Test N" heading.
pub const PAPER_SECONDS: [[f64; 4]; 15] = [
    [3.613, 0.086, 8.672, 0.286],
    [4.430, 2.025, 0.885, 0.753],
    [3.274, 2.624, 5.585, 5.443],
    [14.511, 4.616, 5.966, 5.918],
    [0.483, 0.304, 0.779, 0.637],
    [4.939, 1.335, 1.165, 1.144],
    [1.536, 7.281, 0.817, 0.726],
    [29.318, 7.514, 7.681, 7.852],
    [50.020, 5.841, 5.346, 5.393],
    [57.834, 1.335, 5.073, 2.085],
    [0.733, 0.768, 5.418, 0.668],
    [0.867, 2.068, 1.453, 0.745],
    [66.099, 1.663, 4.029, 1.729],
    [1.168, 0.866, 0.288, 0.155],
    [0.100, 0.012, 0.572, 0.168],
];

const PG: usize = 0;
const MY: usize = 1;
const SYNC: usize = 2;
const NOSYNC: usize = 3;

struct Sizes {
    scale_percent: u32,
    trials: u32,
    warmup: u32,
}

fn sizes(scale: Scale) -> Sizes {
    match scale {
        Scale::Tiny => Sizes {
            scale_percent: 1,
            trials: 1,
            warmup: 0,
        },
        // Six trials: the fewest with a bootstrap interval on each ratio.
        Scale::Default => Sizes {
            scale_percent: 100,
            trials: 6,
            warmup: 1,
        },
        Scale::Full => Sizes {
            scale_percent: 100,
            trials: 10,
            warmup: 1,
        },
    }
}

fn experiment(id: &'static str, title: &'static str, engine: Option<&str>, s: &Sizes) -> Experiment {
    // The presets are SQLite's settings; a server runs with its own defaults (untuned, as on
    // the page), so it gets no preset.
    let mut args = words(&["speedtest"]);
    match engine {
        Some(e) => args.extend(words(&["--engine", e])),
        None => args.extend(words(&["--preset", "speedtest", "--preset", "speedtest-nosync"])),
    }
    args.extend(param(format!("scale_percent={}", s.scale_percent)));
    args.extend(trials(s.trials, s.warmup));
    Experiment {
        id,
        title,
        args,
        needs: Needs::Nothing,
    }
}

/// A column of the page: its heading, and the experiment and configuration measuring it here.
fn column(c: usize) -> (&'static str, (&'static str, Pick)) {
    match c {
        PG => ("PostgreSQL", ("postgres", Pick::engine("postgres"))),
        MY => ("MySQL", ("mysql", Pick::engine("mysql"))),
        SYNC => ("SQLite 2.7.0", ("sqlite", Pick::preset(Some("sqlite"), "speedtest"))),
        _ => (
            "SQLite 2.7.0 (nosync)",
            ("sqlite", Pick::preset(Some("sqlite"), "speedtest-nosync")),
        ),
    }
}

/// The ratios each test is compared on: the pairs the page sets side by side (both synchronous;
/// both asynchronous) and what turning sync off buys SQLite. (row name, numerator, denominator)
const COMPARISONS: [(&str, usize, usize); 3] = [
    ("SQLite (sync) / PostgreSQL", SYNC, PG),
    ("SQLite (nosync) / MySQL", NOSYNC, MY),
    ("SQLite nosync / sync", NOSYNC, SYNC),
];

fn tests() -> Figure {
    let mut claims = Vec::new();
    for (i, op) in OPS.iter().enumerate() {
        let p = PAPER_SECONDS[i];
        for (name, n, d) in COMPARISONS {
            let ((num_name, num), (den_name, den)) = (column(n), column(d));
            claims.push(Claim::new(
                format!("{op}: {name} time"),
                Expect::About(p[n] / p[d]),
                format!(
                    "speed.html, Test {}: {num_name} {} s / {den_name} {} s",
                    i + 1,
                    p[n],
                    p[d]
                ),
                Measure::TimeRatio { op, num, den },
            ));
        }
    }
    Figure {
        name: "Tests 1-15",
        about: "time ratios per test (below 1: the first engine is faster); the page's wall-clock seconds, 2002",
        claims,
    }
}

/// The speed comparison at a scale.
pub fn target(scale: Scale) -> Target {
    let s = sizes(scale);
    Target {
        name: "speed2002",
        paper: "SQLite: Database Speed Comparison (speed.html from speed.tcl v1.8, 2002-08-24), SQLite 2.7.0 against PostgreSQL 7.1.3 and MySQL 3.23.41",
        hardware: HARDWARE,
        scaled: format!(
            "the page's counts at {}% (scale_percent); {} measured trials after {} warm-up per configuration (the page: one run); today's bundled SQLite with the page's settings (presets speedtest and speedtest-nosync), PostgreSQL and MariaDB servers litebench starts with their defaults",
            s.scale_percent, s.trials, s.warmup
        ),
        experiments: vec![
            experiment("sqlite", "SQLite with sync (NORMAL) and without (OFF), the page's settings", None, &s),
            experiment("postgres", "PostgreSQL, a throwaway server with its defaults", Some("postgres"), &s),
            experiment("mysql", "MariaDB (for MySQL), a throwaway server with its defaults", Some("mysql"), &s),
        ],
        figures: vec![tests()],
        omitted: &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_tests_three_comparisons_each() {
        let t = target(Scale::Tiny);
        assert_eq!(OPS.len(), PAPER_SECONDS.len());
        assert_eq!(t.figures[0].claims.len(), 45);
        // Test 1: SQLite (sync) 8.672 s against PostgreSQL 3.613 s.
        assert_eq!(t.figures[0].claims[0].expect, Expect::About(8.672 / 3.613));
        for c in &t.figures[0].claims {
            for e in c.measure.experiments() {
                assert!(t.experiments.iter().any(|x| x.id == e));
            }
        }
    }
}
