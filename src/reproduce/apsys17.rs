//! APSys'17 (Purohith, Mohan, Chidambaram: The Dangers and Complexities of SQLite
//! Benchmarking): Figures 1-4 (3d included), Table 1 and the fsync counts, as experiments and
//! claims.
//!
//! The paper's bar charts survive in the seed only as captions and text, so every value below
//! is one the text or a caption states (section and wording in `source`); none is read off a
//! bar. Its workload is `crud` (1000 inserts, updates and deletes on 100K rows, each its own
//! transaction); "WAL size" is modelled as `wal_autocheckpoint` in 4 KiB pages (the paper's own
//! explanation of the effect: a full WAL triggers a checkpoint with its fsync) together with
//! `journal_size_limit` for the custom configuration of Figure 1. Figure 3d's empty database
//! is an experiment of its own (`crud`'s `rows` takes one value per run); its pre-populated
//! side is Figure 2's DELETE/FULL configuration, the same workload on the same filesystem.

use super::claim::Expect;
use super::{param, trials, words, Claim, Experiment, Figure, Measure, Needs, Pick, Scale, Target};
use crate::workload::preset::TABLE1;

const HARDWARE: &str = "Samsung Galaxy Nexus S: dual-core 1.2 GHz Cortex-A9, 1 GB RAM, 32 GB internal flash; Android 6.0.1 (CyanogenMod 13.0), Linux 3.0.101 (section 3, Hardware Setup)";

/// The paper's default configuration: DELETE journal, synchronous FULL.
const DEFAULT: &[(&str, &str)] = &[("journal_mode", "delete"), ("synchronous", "full")];
const DELETE_NORMAL: &[(&str, &str)] = &[("journal_mode", "delete"), ("synchronous", "normal")];
const TRUNCATE_NORMAL: &[(&str, &str)] = &[("journal_mode", "truncate"), ("synchronous", "normal")];
const WAL_FULL: &[(&str, &str)] = &[("journal_mode", "wal"), ("synchronous", "full")];
const WAL_NORMAL: &[(&str, &str)] = &[("journal_mode", "wal"), ("synchronous", "normal")];
const OFF_FULL: &[(&str, &str)] = &[("journal_mode", "off"), ("synchronous", "full")];
/// WAL sizes of Figures 2c and 3c as checkpoint intervals in 4 KiB pages.
const WAL_64K: &[(&str, &str)] = &[("journal_mode", "wal"), ("wal_autocheckpoint", "16")];
const WAL_1M: &[(&str, &str)] = &[("journal_mode", "wal"), ("wal_autocheckpoint", "256")];
const WAL_NO_LIMIT: &[(&str, &str)] = &[("journal_mode", "wal"), ("wal_autocheckpoint", "1000")];

/// ext4's data modes of Figure 3, as `--fs` values, with the paper's names.
const EXT4_MODES: &[(&str, &str)] = &[
    ("ext4:data=journal", "data journaling"),
    ("ext4", "ordered"),
    ("ext4:data=writeback", "writeback"),
];

/// The sizes of one scale.
struct Sizes {
    rows: u32,
    ops: u32,
    trials: u32,
    warmup: u32,
    fs_size: &'static str,
    /// Mobibench's transactions and the suites' scale_percent for Table 1.
    mobibench_count: u32,
    suite_percent: u32,
}

fn sizes(scale: Scale) -> Sizes {
    match scale {
        Scale::Tiny => Sizes {
            rows: 1000,
            ops: 20,
            trials: 1,
            warmup: 0,
            fs_size: "256M",
            mobibench_count: 20,
            suite_percent: 2,
        },
        // Six trials, the fewest with a bootstrap interval, of 200 operations each: about the
        // time of three of 300, and every ratio's verdict can then say whether it is significant.
        Scale::Default => Sizes {
            rows: 100_000,
            ops: 200,
            trials: 6,
            warmup: 1,
            fs_size: "512M",
            mobibench_count: 1000,
            suite_percent: 30,
        },
        Scale::Full => Sizes {
            rows: 100_000,
            ops: 1000,
            trials: 10,
            warmup: 1,
            fs_size: "1G",
            mobibench_count: 1000,
            suite_percent: 100,
        },
    }
}

fn crud(s: &Sizes, rest: &[&str]) -> Vec<String> {
    crud_on(s, s.rows, rest)
}

/// [`crud`] on a template pre-populated with `rows` rows (0: empty).
fn crud_on(s: &Sizes, rows: u32, rest: &[&str]) -> Vec<String> {
    let mut v = words(&["crud"]);
    for p in [
        format!("rows={rows}"),
        format!("inserts={}", s.ops),
        format!("updates={}", s.ops),
        format!("deletes={}", s.ops),
    ] {
        v.extend(param(p));
    }
    v.extend(words(rest));
    v.extend(trials(s.trials, s.warmup));
    v
}

fn experiments(s: &Sizes) -> Vec<Experiment> {
    let ext4_modes = EXT4_MODES.iter().map(|(f, _)| *f).collect::<Vec<_>>().join(",");
    vec![
        Experiment {
            id: "fig2",
            title: "one parameter at a time around DELETE/FULL (journal modes, synchronous)",
            args: crud(
                s,
                &[
                    "--knob",
                    "journal_mode=delete,truncate,persist,memory,wal,off",
                    "--knob",
                    "synchronous=full,normal,off",
                    "--vary-one",
                ],
            ),
            needs: Needs::Nothing,
        },
        Experiment {
            id: "fig3d",
            title: "DELETE/FULL on an empty database (Figure 3d; the pre-populated side is fig2's DELETE/FULL)",
            args: crud_on(s, 0, &["--knob", "journal_mode=delete", "--knob", "synchronous=full"]),
            needs: Needs::Nothing,
        },
        Experiment {
            id: "wal-size",
            title: "WAL sizes 64 KB to no limit (wal_autocheckpoint 16 to 1000 pages of 4 KiB)",
            args: crud(
                s,
                &[
                    "--knob",
                    "journal_mode=wal",
                    "--knob",
                    "wal_autocheckpoint=16,32,64,128,256,1000",
                ],
            ),
            needs: Needs::Nothing,
        },
        Experiment {
            id: "fig3",
            title: "journal and synchronous modes on ext4's three data modes (loop devices)",
            args: {
                let mut a = crud(
                    s,
                    &[
                        "--knob",
                        "journal_mode=delete,wal,off",
                        "--knob",
                        "synchronous=full,normal,off",
                        "--vary-one",
                        "--fs-size",
                        s.fs_size,
                    ],
                );
                a.extend(["--fs".to_string(), ext4_modes.clone()]);
                a
            },
            needs: Needs::Root,
        },
        Experiment {
            id: "fig3c",
            title: "WAL sizes on ext4's three data modes (loop devices)",
            args: {
                let mut a = crud(
                    s,
                    &[
                        "--knob",
                        "journal_mode=wal",
                        "--knob",
                        "wal_autocheckpoint=16,256,1000",
                        "--fs-size",
                        s.fs_size,
                    ],
                );
                a.extend(["--fs".to_string(), ext4_modes]);
                a
            },
            needs: Needs::Root,
        },
        Experiment {
            id: "fig1-fig4",
            title: "ext4 against F2FS in a user-mode Linux guest (journal x synchronous, 1 MB WAL)",
            args: crud(
                s,
                &[
                    "--guest",
                    "--fs",
                    "ext4,f2fs",
                    "--fs-size",
                    s.fs_size,
                    "--knob",
                    "journal_mode=delete,truncate,wal",
                    "--knob",
                    "synchronous=full,normal",
                    "--knob",
                    "wal_autocheckpoint=256",
                    "--knob",
                    "journal_size_limit=1048576",
                ],
            ),
            needs: Needs::Nothing,
        },
        Experiment {
            id: "table1",
            title: "the tools' default and customised configurations (--preset table1)",
            args: {
                let mut a = words(&["--preset", "table1"]);
                a.extend(param(format!("count={}", s.mobibench_count)));
                a.extend(param(format!("scale_percent={}", s.suite_percent)));
                a.extend(trials(s.trials, s.warmup));
                a
            },
            needs: Needs::Nothing,
        },
    ]
}

fn ratio(exp: &'static str, op: &'static str, num: Pick, den: Pick) -> Measure {
    Measure::Ratio { exp, op, num, den }
}

fn figure1() -> Figure {
    Figure {
        name: "Figure 1",
        about: "default (DELETE, FULL, ext4) against custom (WAL, 1 MB WAL, NORMAL, F2FS)",
        claims: vec![Claim::new(
            "custom / default throughput, all transactions (inserts, updates, deletes)",
            Expect::About(28.0),
            "Figure 1 caption and abstract: \"28X difference\"; bars not legible in the seed, so the stated ratio",
            ratio(
                "fig1-fig4",
                "all",
                Pick::on("f2fs", WAL_NORMAL),
                Pick::on("ext4", DEFAULT),
            ),
        )],
    }
}

fn figure2() -> Figure {
    Figure {
        name: "Figure 2",
        about: "one parameter changed at a time from DELETE/FULL, on the host's own filesystem",
        claims: vec![
            Claim::new(
                "2a: WAL / DELETE throughput",
                Expect::About(11.8),
                "section 3, SQLite Journaling mode: \"the drastic 11.8X improvement ... from DELETE to WAL\"",
                ratio("fig2", "all", Pick::knobs(WAL_FULL), Pick::knobs(DEFAULT)),
            ),
            Claim::new(
                "2b: synchronous NORMAL / FULL throughput (DELETE)",
                Expect::About(1.54),
                "section 3, Synchronization Mode: \"performance increases by 54% when changing ... from FULL to NORMAL\"",
                ratio("fig2", "all", Pick::knobs(DELETE_NORMAL), Pick::knobs(DEFAULT)),
            ),
            Claim::new(
                "2c: WAL no limit / WAL 64 KB throughput",
                Expect::About(5.0),
                "section 3, SQLite Journal Size: \"performance reduces by 5X when the journal size is reduced to 64 KB from the unlimited default\"",
                ratio("wal-size", "all", Pick::knobs(WAL_NO_LIMIT), Pick::knobs(WAL_64K)),
            ),
            Claim::new(
                "2c / 3.3: WAL no limit / WAL 1 MB throughput",
                Expect::NoGain,
                "section 3.3: \"There is no performance benefit to increasing the WAL size beyond 1 MB\"",
                ratio("wal-size", "all", Pick::knobs(WAL_NO_LIMIT), Pick::knobs(WAL_1M)),
            ),
        ],
    }
}

fn figure3() -> Figure {
    let mut claims = Vec::new();
    for (fs, name) in EXT4_MODES {
        claims.push(Claim::new(
            format!("3a: WAL / DELETE throughput, ext4 {name}"),
            Expect::About(10.0),
            "section 3.1: \"WAL mode outperforms DELETE mode by ~10X in all file system configurations\"",
            ratio("fig3", "all", Pick::on(fs, WAL_FULL), Pick::on(fs, DEFAULT)),
        ));
    }
    for (fs, name) in EXT4_MODES {
        claims.push(Claim::new(
            format!("3a: journal OFF / DELETE throughput, ext4 {name}"),
            Expect::Faster,
            "section 3.1: \"turning off journaling in SQLite increases performance\"",
            ratio("fig3", "all", Pick::on(fs, OFF_FULL), Pick::on(fs, DEFAULT)),
        ));
    }
    claims.push(Claim::new(
        "3a: writeback / ordered throughput (DELETE, FULL)",
        Expect::Faster,
        "section 3.1: \"the writeback file-system mode performs the best\"",
        ratio(
            "fig3",
            "all",
            Pick::on("ext4:data=writeback", DEFAULT),
            Pick::on("ext4", DEFAULT),
        ),
    ));
    claims.push(Claim::new(
        "3a: data journaling / ordered throughput (DELETE, FULL)",
        Expect::Slower,
        "section 3.1: \"data journaling mode performs the worst\"",
        ratio(
            "fig3",
            "all",
            Pick::on("ext4:data=journal", DEFAULT),
            Pick::on("ext4", DEFAULT),
        ),
    ));
    for (fs, name) in EXT4_MODES {
        claims.push(Claim::new(
            format!("3b: synchronous NORMAL / FULL throughput (DELETE), ext4 {name}"),
            Expect::About(1.5),
            "section 3.2: \"changing from FULL to NORMAL synch mode increases performance by 1.5X in DELETE mode\"",
            ratio("fig3", "all", Pick::on(fs, DELETE_NORMAL), Pick::on(fs, DEFAULT)),
        ));
    }
    claims.push(Claim::new(
        "3b: synchronous NORMAL / FULL throughput (WAL), ext4 ordered (guest)",
        Expect::About(3.0),
        "section 3.2: \"it increases performance by 3X in WAL mode\"",
        ratio(
            "fig1-fig4",
            "all",
            Pick::on("ext4", WAL_NORMAL),
            Pick::on("ext4", WAL_FULL),
        ),
    ));
    for (fs, name) in EXT4_MODES {
        claims.push(Claim::new(
            format!("3c: WAL 1 MB / WAL 64 KB throughput, ext4 {name}"),
            Expect::About(5.0),
            "section 3.3 and Figure 3c caption: \"a 5X performance difference between WAL sizes of 64 KB and 1 MB\"",
            ratio("fig3c", "all", Pick::on(fs, WAL_1M), Pick::on(fs, WAL_64K)),
        ));
    }
    Figure {
        name: "Figure 3",
        about:
            "journal and synchronous modes and WAL size across ext4's data modes (data journaling, ordered, writeback)",
        claims,
    }
}

fn figure3d() -> Figure {
    let claims = ["update", "delete"]
        .into_iter()
        .map(|op| {
            Claim::new(
                format!("{op} throughput: empty / pre-populated database (DELETE, FULL)"),
                Expect::About(2.0),
                "section 3.4: \"for update and delete operations, performance is close to 2X higher if run on an empty database\"; Figure 3d caption: \"the throughput decreases by 50% for update and delete operations when the database is pre-populated\" (inserts: no value stated)",
                Measure::TpsRatio {
                    op,
                    num: ("fig3d", Pick::knobs(DEFAULT)),
                    den: ("fig2", Pick::knobs(DEFAULT)),
                },
            )
        })
        .collect();
    Figure {
        name: "Figure 3d",
        about: "updates and deletes on an empty database against a pre-populated one (paper: 100K rows; here: see Scale), DELETE, FULL, on the host's filesystem",
        claims,
    }
}

fn figure4() -> Figure {
    let mut claims = Vec::new();
    for op in ["insert", "update", "delete"] {
        claims.push(Claim::new(
            format!("F2FS / ext4 {op} throughput, DELETE FULL"),
            Expect::Slower,
            "section 3.5: \"in the default SQLite configuration, ext4 performs better than F2FS for all SQLite operations\"",
            ratio("fig1-fig4", op, Pick::on("f2fs", DEFAULT), Pick::on("ext4", DEFAULT)),
        ));
    }
    for op in ["insert", "update", "delete"] {
        claims.push(Claim::new(
            format!("F2FS / ext4 {op} throughput, TRUNCATE NORMAL"),
            Expect::Faster,
            "section 3.5: \"in the TRUNCATE/Synch-NORMAL configuration, F2FS outperforms ext4 in all SQLite operations\"",
            ratio(
                "fig1-fig4",
                op,
                Pick::on("f2fs", TRUNCATE_NORMAL),
                Pick::on("ext4", TRUNCATE_NORMAL),
            ),
        ));
    }
    for op in ["update", "delete"] {
        claims.push(Claim::new(
            format!("F2FS / ext4 {op} throughput, WAL NORMAL"),
            Expect::About(4.0),
            "section 3.5: \"SQLite updates and deletes perform ~4X better in F2FS\"",
            ratio(
                "fig1-fig4",
                op,
                Pick::on("f2fs", WAL_NORMAL),
                Pick::on("ext4", WAL_NORMAL),
            ),
        ));
    }
    claims.push(Claim::new(
        "F2FS / ext4 insert throughput, WAL NORMAL",
        Expect::About(1.0 / 1.3),
        "section 3.5: \"SQLite inserts are 30% faster in ext4\" (1 / 1.3)",
        ratio(
            "fig1-fig4",
            "insert",
            Pick::on("f2fs", WAL_NORMAL),
            Pick::on("ext4", WAL_NORMAL),
        ),
    ));
    claims.push(Claim::new(
        "synchronous NORMAL / FULL throughput, WAL on F2FS",
        Expect::About(6.0),
        "section 3.5: \"a 6X improvement in performance when the synchronization mode is changed from FULL To NORMAL in WAL journal mode in F2FS\"",
        ratio("fig1-fig4", "all", Pick::on("f2fs", WAL_NORMAL), Pick::on("f2fs", WAL_FULL)),
    ));
    Figure {
        name: "Figure 4",
        about: "ext4 against F2FS per operation (F2FS through a user-mode Linux guest kernel)",
        claims,
    }
}

fn table1() -> Figure {
    let src = "Table 1 (section 2), TPS for 1000 inserts";
    let mut claims = Vec::new();
    for row in TABLE1.paper {
        let pick = |p: &'static str| Pick::preset(None, p);
        claims.push(Claim::new(
            format!("{} default TPS", row.tool),
            Expect::Absolute(row.paper_default),
            src,
            Measure::Tps {
                exp: "table1",
                pick: pick(row.default),
            },
        ));
        if let (Some(custom), Some(v)) = (row.custom, row.paper_custom) {
            claims.push(Claim::new(
                format!("{} custom (WAL) TPS", row.tool),
                Expect::Absolute(v),
                src,
                Measure::Tps {
                    exp: "table1",
                    pick: pick(custom),
                },
            ));
            claims.push(Claim::new(
                format!("{}: custom / default", row.tool),
                Expect::About(v / row.paper_default),
                format!(
                    "{src}: {v} / {} (\"as much as 3X after changing a single parameter\")",
                    row.paper_default
                ),
                Measure::PresetRatio {
                    exp: "table1",
                    num: custom,
                    den: row.default,
                },
            ));
        }
    }
    // Section 2's comparisons between tools, from the same table.
    let base = &TABLE1.paper[0];
    for row in &TABLE1.paper[1..] {
        claims.push(Claim::new(
            format!("{} / {} default", row.tool, base.tool),
            Expect::About(row.paper_default / base.paper_default),
            format!(
                "{src}: {} / {} (\"RLbench and Androbench report 50% better throughput than Mobibench\")",
                row.paper_default, base.paper_default
            ),
            Measure::PresetRatio {
                exp: "table1",
                num: row.default,
                den: base.default,
            },
        ));
        if let (Some(c), Some(v), Some(bc), Some(bv)) = (row.custom, row.paper_custom, base.custom, base.paper_custom) {
            claims.push(Claim::new(
                format!("{} / {} custom", row.tool, base.tool),
                Expect::About(v / bv),
                format!("{src}: {v} / {bv} (\"Androbench achieves 3X the throughput of Mobibench\")"),
                Measure::PresetRatio {
                    exp: "table1",
                    num: c,
                    den: bc,
                },
            ));
        }
    }
    Figure {
        name: "Table 1",
        about: "three SQLite benchmarking tools in their default and customised (WAL) configurations",
        claims,
    }
}

fn fsyncs() -> Figure {
    let src = "section 3.1: \"For a workload of 1000 SQLite inserts, 1000 fsync() calls were issued in WAL mode, while 5000 fsync() calls were issued in DELETE mode\"";
    Figure {
        name: "fsync counts",
        about: "fsync/fdatasync calls per 1000 inserts (counted by litebench's VFS shim)",
        claims: vec![
            Claim::new(
                "DELETE, FULL: syncs per 1000 inserts",
                Expect::Count(5000.0),
                src,
                Measure::SyncsPer1000 {
                    exp: "fig2",
                    op: "insert",
                    pick: Pick::knobs(DEFAULT),
                },
            ),
            Claim::new(
                "WAL, FULL: syncs per 1000 inserts",
                Expect::Count(1000.0),
                src,
                Measure::SyncsPer1000 {
                    exp: "fig2",
                    op: "insert",
                    pick: Pick::knobs(WAL_FULL),
                },
            ),
        ],
    }
}

/// APSys'17 at a scale.
pub fn target(scale: Scale) -> Target {
    let s = sizes(scale);
    Target {
        name: "apsys17",
        paper: "Purohith, Mohan, Chidambaram: The Dangers and Complexities of SQLite Benchmarking, APSys 2017",
        hardware: HARDWARE,
        scaled: format!(
            "crud with {} pre-populated rows (Figure 3d: also none) and {} inserts, {} updates, {} deletes per trial (paper: 100000 rows, 1000 each); {} measured trials after {} warm-up per configuration (paper: average of ten runs); --fs images of {}; Table 1 with {} Mobibench inserts and the suites at {}% of their counts",
            s.rows, s.ops, s.ops, s.ops, s.trials, s.warmup, s.fs_size, s.mobibench_count, s.suite_percent
        ),
        experiments: experiments(&s),
        figures: vec![figure1(), figure2(), figure3(), figure3d(), figure4(), table1(), fsyncs()],
        omitted: &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_values_come_from_the_preset_group() {
        let t = table1();
        let mobi = t.claims.iter().find(|c| c.what == "MobiBench default TPS").unwrap();
        assert_eq!(mobi.expect, Expect::Absolute(TABLE1.paper[0].paper_default));
    }
}
