//! Linaro's "SQLite Optimization" page (Platform/Android/SQLiteOptimization, April 2014): the
//! four Android benchmark apps on ext4 and F2FS (section 4.2), under three I/O schedulers
//! (section 5.2), and the SQLite upgrade from 3.7.11 to 3.8.3.1 (section 2).
//!
//! Unlike the papers, the page prints every number: seconds per test, per app, per file system
//! and per scheduler, all transcribed below with their table and row. Each row compares a time
//! ratio (F2FS over ext4, a scheduler over CFQ, old over new SQLite), since a Nexus 7's eMMC
//! and an Android app's Java layer are not what runs here. The apps run as litebench's suites
//! (`rlbench`, `sqlite-benchmark`, `androbench`, `acreve`) under Android 4.4's framework
//! defaults (presets `rlbench-aosp`, `sqlite-benchmark`, `androbench-aosp`, `acreve`), in a
//! user-mode Linux guest so that F2FS and the guest's block layer with its schedulers are
//! there to measure. CFQ left Linux in 5.0; its blk-mq descendant BFQ stands in for it, `none`
//! for NOOP and `mq-deadline` for DEADLINE. No package registry bundles SQLite 3.7.11 or
//! 3.8.3.1, so the upgrade is measured between the nearest releases one does: 3.7.13 and
//! 3.8.4.3 (the page's "latest version"), which `build-sqlite` fetches from npm.

use super::claim::Expect;
use super::{param, trials, words, Claim, Experiment, Figure, Measure, Needs, Pick, Scale, SqliteBuild, Target};
use crate::workload::{acreve, androbench, rlbench, sqlite_benchmark};

const HARDWARE: &str = "Nexus 7 (2013) 32 GB WiFi (razor/flo), AOSP 4.4.2 with SQLite 3.7.11, kernel 3.4 with F2FS backported, eMMC; flight mode, CPU governor performance at 1.512 GHz (sections 4.1 and 5.1)";

/// One app of the page: its preset here, its operations and the page's table.
struct App {
    name: &'static str,
    preset: &'static str,
    /// The workload's operation names, in the page's row order.
    ops: &'static [&'static str],
    /// Section 4.2: (row as the page names it, seconds on ext4, seconds on F2FS), then the
    /// page's overall row.
    rows: &'static [(&'static str, f64, f64)],
    overall: (&'static str, f64, f64),
    /// Section 5.2: seconds under CFQ, NOOP and DEADLINE.
    schedulers: [f64; 3],
    /// Where the page's own numbers disagree, said beside the rows concerned: (row, note).
    erratum: Option<(&'static str, &'static str)>,
}

/// RL Benchmark's F2FS column does not add up to its Overall row.
const RL_F2FS_SUM: &str = "the page's F2FS column sums to 30.56575 s, not its Overall 29.81575 s: 0.75 s apart, as if row 3's 4.83975 were 4.08975; both transcribed as printed";

const APPS: &[App] = &[
    App {
        name: "RL Benchmark",
        preset: "rlbench-aosp",
        ops: rlbench::OPS,
        rows: &[
            ("1000 INSERTs", 8.00125, 8.2485),
            ("25000 INSERTs in a transaction", 4.06275, 4.09775),
            ("25000 INSERTs into an indexed table in a transaction", 4.0395, 4.83975),
            ("100 SELECTs without an index", 0.02075, 0.0295),
            ("100 SELECTs on a string comparison", 0.023, 0.02325),
            ("Creating an index", 0.52925, 0.5135),
            ("5000 SELECTs with an index", 0.9295, 0.93825),
            ("1000 UPDATEs without an index", 3.662, 3.6525),
            ("25000 UPDATEs with an index", 5.6545, 5.68025),
            ("INSERTs from a SELECT", 0.861, 0.8445),
            ("DELETE without an index", 0.76725, 0.74775),
            ("DELETE with an index", 0.6835, 0.653),
            ("DROP TABLE", 0.328, 0.29725),
        ],
        overall: ("Overall", 29.56225, 29.81575),
        schedulers: [29.56025, 29.617, 29.53075],
        erratum: Some(("25000 INSERTs into an indexed table in a transaction", RL_F2FS_SUM)),
    },
    App {
        name: "SQLite Benchmark",
        preset: "sqlite-benchmark",
        ops: sqlite_benchmark::OPS,
        rows: &[
            ("Insert 200 Statements", 2.013, 1.5605),
            ("Insert 15000 Statements in Transaction", 1.53075, 1.851),
            ("Update 500 Statements", 4.33025, 4.10875),
            ("Update 15000 Statements in Transaction", 2.01875, 2.033),
            ("Select 15000 Statements", 4.166, 4.335),
            ("Delete 200 Statements", 1.95475, 1.53675),
            ("Delete 15000 Statements in Transaction", 1.8495, 2.1125),
        ],
        overall: ("Overall", 17.863, 17.5375),
        schedulers: [17.907, 17.85525, 17.8],
        erratum: None,
    },
    App {
        name: "AndroBench",
        preset: "androbench-aosp",
        ops: androbench::OPS,
        rows: &[
            ("1000 INSERTs", 9.43, 9.14),
            ("1000 UPDATEs", 9.45, 9.0875),
            ("1000 DELETEs", 8.9875, 9.0275),
        ],
        overall: ("Overall", 27.8675, 27.255),
        schedulers: [27.935, 27.8275, 27.7625],
        erratum: None,
    },
    App {
        name: "ACREVE Benchmark",
        preset: "acreve",
        ops: acreve::OPS,
        rows: &[
            ("1000 INSERTs", 9.998, 10.62475),
            ("25000 INSERTs in a transaction", 19.9235, 18.8725),
            ("25000 INSERTs into an indexed table", 19.54025, 11.337),
            ("100 SELECTs without an index", 0.108, 0.048),
            ("100 SELECTs on a string comparison", 0.053, 0.0495),
            ("INNER JOIN without an index", 0.002, 0.0025),
            ("Creating an index", 0.709, 0.7205),
            ("5000 SELECTs with an index", 1.4355, 1.4505),
            ("1000 UPDATEs without an index", 1.17425, 1.26775),
            ("25000 UPDATEs with an index", 31.48775, 28.48025),
            ("25000 text UPDATEs with an index", 6.3715, 6.4675),
            ("INSERTs from a SELECT", 1.42325, 1.47775),
            // The page spells it "wih".
            ("INNER JOIN wih index on one side", 0.00025, 0.00075),
            ("INNER JOIN on text field with index on one side", 0.00175, 0.00075),
            ("100 SELECTs with subqueries. Subquery is using index", 0.04125, 0.04525),
            ("DELETE without an index", 0.2565, 0.23975),
            ("DELETE with an index", 1.7475, 1.772),
            ("A big INSERT after a big DELETE", 1.2245, 1.20275),
            ("A big DELETE followed by many small INSERTs", 1.03525, 1.09325),
            ("DROP TABLE", 0.63175, 0.63225),
        ],
        overall: ("Total", 97.16475, 85.78525),
        schedulers: [82.2375, 84.25775, 84.12425],
        erratum: None,
    },
];

/// The page's schedulers and what stands in for each here (Linux 5.0 removed the legacy ones).
const SCHEDULERS: [(&str, &str); 3] = [("CFQ", "bfq"), ("NOOP", "none"), ("DEADLINE", "mq-deadline")];

/// The SQLite releases of the upgrade here, old then new.
const OLD: &str = "3.7.13";
const NEW: &str = "3.8.4.3";
const BUILDS: &[SqliteBuild] = &[
    SqliteBuild { release: OLD, opt: "2" },
    SqliteBuild { release: NEW, opt: "2" },
];

/// The sizes of one scale.
struct Sizes {
    /// The apps' counts in percent (`scale_percent`).
    percent: u32,
    trials: u32,
    warmup: u32,
    fs_size: &'static str,
    /// The upgrade runs on the host, where the apps are fast: the whole RL Benchmark, more trials.
    version_percent: u32,
    version_trials: u32,
}

fn sizes(scale: Scale) -> Sizes {
    match scale {
        Scale::Tiny => Sizes {
            percent: 2,
            trials: 1,
            warmup: 0,
            fs_size: "256M",
            version_percent: 5,
            version_trials: 1,
        },
        // Six trials, the fewest with a bootstrap interval, rather than bigger apps: the guest's
        // disk drifts over minutes on this class of machine, and an interval shows it.
        Scale::Default => Sizes {
            percent: 10,
            trials: 6,
            warmup: 1,
            fs_size: "512M",
            version_percent: 100,
            version_trials: 10,
        },
        Scale::Full => Sizes {
            percent: 100,
            trials: 6,
            warmup: 1,
            fs_size: "1G",
            version_percent: 100,
            version_trials: 20,
        },
    }
}

/// The four apps, as presets, at `percent` of their counts.
fn apps(percent: u32) -> Vec<String> {
    let mut v = Vec::new();
    for a in APPS {
        v.extend(words(&["--preset", a.preset]));
    }
    v.extend(param(format!("scale_percent={percent}")));
    v
}

fn experiments(s: &Sizes) -> Vec<Experiment> {
    let guest = |fs: &str, schedulers: &str| {
        let mut v = apps(s.percent);
        v.extend(words(&[
            "--guest",
            "--fs",
            fs,
            "--fs-size",
            s.fs_size,
            "--scheduler",
            schedulers,
        ]));
        v.extend(trials(s.trials, s.warmup));
        v
    };
    let all_schedulers = SCHEDULERS.map(|(_, here)| here).join(",");
    let version = {
        let mut v = words(&["--preset", "rlbench-aosp"]);
        v.extend(param(format!("scale_percent={}", s.version_percent)));
        for b in BUILDS {
            v.extend(["--engine".into(), format!("sqlite@{}", b.name())]);
        }
        // Today's bundled SQLite beside them, for scale (no claim of the page).
        v.extend(words(&["--engine", "sqlite"]));
        v.extend(trials(s.version_trials, 1));
        v
    };
    vec![
        Experiment {
            id: "f2fs",
            title: "the four apps on ext4 and F2FS in a user-mode Linux guest, BFQ for CFQ (section 4.2)",
            args: guest("ext4,f2fs", SCHEDULERS[0].1),
            needs: Needs::Nothing,
        },
        Experiment {
            id: "schedulers",
            title: "the four apps on ext4 under BFQ, none and mq-deadline for CFQ, NOOP and DEADLINE (section 5.2)",
            args: guest("ext4", &all_schedulers),
            needs: Needs::Nothing,
        },
        Experiment {
            id: "version",
            title: "RL Benchmark on SQLite 3.7.13 and 3.8.4.3 for 3.7.11 and 3.8.3.1, and today's (section 2)",
            args: version,
            needs: Needs::SqliteBuilds(BUILDS),
        },
    ]
}

/// A number as the page prints it (up to five decimals, no trailing zeros).
fn page(v: f64) -> String {
    let s = format!("{v:.5}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

const fn app(preset: &'static str, fs: &'static str) -> Pick {
    Pick::preset(None, preset).on_fs(fs)
}

fn time_ratio(op: &'static str, num: (&'static str, Pick), den: (&'static str, Pick)) -> Measure {
    Measure::TimeRatio { op, num, den }
}

/// Section 4.2: one table per app, F2FS over ext4 per test and overall.
fn filesystems(a: &App) -> Figure {
    let ext4 = app(a.preset, "ext4");
    let f2fs = app(a.preset, "f2fs");
    let src = |row: &str, e: f64, f: f64| {
        let mut s = format!(
            "section 4.2, table {}, row \"{row}\": {} s on ext4, {} s on F2FS",
            a.name,
            page(e),
            page(f)
        );
        if let Some((r, note)) = a.erratum {
            if r == row || row == a.overall.0 {
                s += &format!(" ({note})");
            }
        }
        s
    };
    let mut claims: Vec<Claim> = a
        .rows
        .iter()
        .zip(a.ops)
        .map(|((row, e, f), op)| Claim {
            what: format!("{op}: F2FS / ext4 time"),
            expect: Expect::About(f / e),
            source: src(row, *e, *f),
            measure: time_ratio(op, ("f2fs", f2fs), ("f2fs", ext4)),
        })
        .collect();
    let (row, e, f) = a.overall;
    claims.push(Claim {
        what: format!("{row} (the whole app): F2FS / ext4 time"),
        expect: Expect::About(f / e),
        source: src(row, e, f),
        measure: time_ratio("all", ("f2fs", f2fs), ("f2fs", ext4)),
    });
    Figure {
        name: a.name,
        about: "seconds per test on AOSP 4.4.2 with and without F2FS for /data (section 4.2), as F2FS / ext4 time",
        claims,
    }
}

/// Section 5.2: each app's overall time under NOOP and DEADLINE over CFQ.
fn schedulers() -> Figure {
    let mut claims = Vec::new();
    for a in APPS {
        let pick = |s: &'static str| app(a.preset, "ext4").under(s);
        let (cfq_name, cfq) = SCHEDULERS[0];
        for (i, (name, here)) in SCHEDULERS.iter().enumerate().skip(1) {
            claims.push(Claim {
                what: format!("{}: {name} / {cfq_name} time ({here} / {cfq} here)", a.name),
                expect: Expect::About(a.schedulers[i] / a.schedulers[0]),
                source: format!(
                    "section 5.2, row {}: {} s under {cfq_name}, {} s under {name}; \"the variance between the times between I/O schedulers is very minimal. However, the DEADLINE scheduler does seem to show a slight improvement over the default CFQ scheduler\"",
                    a.name,
                    page(a.schedulers[0]),
                    page(a.schedulers[i])
                ),
                measure: time_ratio("all", ("schedulers", pick(here)), ("schedulers", pick(cfq))),
            });
        }
    }
    Figure {
        name: "I/O schedulers",
        about: "each app's total seconds under CFQ, NOOP and DEADLINE on the Nexus 7 (section 5.2); BFQ, none and mq-deadline here, on ext4 in the guest",
        claims,
    }
}

/// Section 2: the SQLite upgrade under RL Benchmark.
fn version() -> Figure {
    let on = |b: &'static str| Pick::preset(Some(b), "rlbench-aosp");
    Figure {
        name: "SQLite upgrade",
        about: "RL Benchmark on Android 4.4's SQLite 3.7.11 and on 3.8.3.1 (section 2); 3.7.13 and 3.8.4.3 here, the nearest releases a package registry bundles",
        claims: vec![Claim {
            what: format!("RL Benchmark, whole app: SQLite {OLD} / {NEW} time (for 3.7.11 / 3.8.3.1)"),
            expect: Expect::About(1.07),
            source: "section 2: \"the newer SQLite package showed a 7% improvement over the older version when running the RL Benchmark SQLite Android app\" (read as old / new time = 1.07)".into(),
            measure: time_ratio(
                "all",
                ("version", on("sqlite@3.7.13")),
                ("version", on("sqlite@3.8.4.3")),
            ),
        }],
    }
}

/// What the page has that this target does not measure, and why.
const OMITTED: &[(&str, &str)] = &[
    (
        "Section 3, Bionic C with cortex-strings",
        "ARM Cortex string routines replacing Android's C library's; this is an x86-64 machine with glibc, and the page links its figures elsewhere",
    ),
    (
        "Section 4.3, strace analysis",
        "the page counts fdatasync calls but prints no number; litebench counts every sync of every test (syncs/tx in the runs below)",
    ),
    (
        "Section 4.4, iozone on F2FS and ext4",
        "a file system benchmark, not SQLite; litebench does not run iozone",
    ),
    ("Section 6, GPU acceleration", "no measurement on the page"),
    (
        "Section 7, perf profile of libsqlite.so",
        "shares of CPU time inside the apps' Java runtime, which does not exist here",
    ),
];

/// Linaro 2014 at a scale.
pub fn target(scale: Scale) -> Target {
    let s = sizes(scale);
    let mut figures: Vec<Figure> = APPS.iter().map(filesystems).collect();
    figures.push(schedulers());
    figures.push(version());
    Target {
        name: "linaro2014",
        paper: "Linaro: SQLite Optimization (wiki.linaro.org Platform/Android/SQLiteOptimization, last modified 2014-04-17)",
        hardware: HARDWARE,
        scaled: format!(
            "the four apps at {}% of their counts (the page: 100%), {} measured trials after {} warm-up per configuration (the page: one run per app, it seems), under Android 4.4's SQLiteDatabase defaults (PERSIST journal limited to 512 KiB, synchronous FULL, 4 KiB pages), in a user-mode Linux guest on zero-filled {} images opened O_SYNC on the host, F2FS with mkfs.f2fs's defaults; the upgrade: RL Benchmark at {}% on the host's own file system, {} trials after 1 warm-up, libraries compiled with -O2 by build-sqlite",
            s.percent, s.trials, s.warmup, s.fs_size, s.version_percent, s.version_trials
        ),
        experiments: experiments(&s),
        figures,
        omitted: OMITTED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row of the page lines up with the workload operation it is compared with.
    #[test]
    fn the_pages_rows_line_up_with_the_suites_operations() {
        for a in APPS {
            assert_eq!(a.rows.len(), a.ops.len(), "{}", a.name);
            for ((row, _, _), op) in a.rows.iter().zip(a.ops) {
                let (_, name) = op.split_once(' ').expect("numbered operation");
                assert_eq!(row.replace(" wih ", " with "), name, "{}", a.name);
            }
            // The page's overall rows are the sums of its tests, except where an erratum says
            // otherwise (and by how much).
            let (e, f) = a.rows.iter().fold((0.0, 0.0), |(e, f), r| (e + r.1, f + r.2));
            assert!(
                (e - a.overall.1).abs() < 1e-6,
                "{}: {e} against {}",
                a.name,
                a.overall.1
            );
            let off = if a.erratum.is_some() { 0.75 } else { 0.0 };
            assert!(
                (f - a.overall.2 - off).abs() < 1e-6,
                "{}: {f} against {}",
                a.name,
                a.overall.2
            );
            if let Some((row, _)) = a.erratum {
                assert!(a.rows.iter().any(|r| r.0 == row), "{row}");
            }
            assert!(crate::workload::preset::find(a.preset).is_some(), "{}", a.preset);
        }
    }

    #[test]
    fn page_numbers_print_as_transcribed() {
        assert_eq!(page(8.00125), "8.00125");
        assert_eq!(page(29.81575), "29.81575");
        assert_eq!(page(9.43), "9.43");
        assert_eq!(page(0.00025), "0.00025");
    }
}
