//! Presets: the configuration each benchmarking tool uses by default, so `--preset NAME`
//! measures what that tool would have measured.
//!
//! A preset names a workload, the workload parameters the tool uses (counts, pre-population,
//! transaction grouping) and the knob values it runs with (journal mode, synchronous mode, page
//! size, ...). Every value carries its source. Explicit `--param` and `--knob` flags override a
//! preset's values. A group (`table1`) expands to several presets, with parameter overrides per
//! member: the experiment of a paper in one flag. docs/presets.md explains every value.

/// One value of a preset: a workload parameter or a knob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    pub name: &'static str,
    pub value: &'static str,
    /// Where the value comes from.
    pub source: &'static str,
}

const fn set(name: &'static str, value: &'static str, source: &'static str) -> Setting {
    Setting { name, value, source }
}

/// A tool's default configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    /// The workload it runs.
    pub workload: &'static str,
    /// One line: which tool, which configuration.
    pub about: &'static str,
    /// Workload parameters.
    pub params: &'static [Setting],
    /// Knob values (SQLite knobs; engines without a knob ignore it).
    pub knobs: &'static [Setting],
    /// The operation compared across presets (`all` for the whole trial).
    pub headline: &'static str,
}

/// A member of a group: a preset and parameter overrides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub preset: &'static str,
    pub params: &'static [Setting],
}

/// One row of a paper's table that a group re-measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperRow {
    pub tool: &'static str,
    /// The preset measuring the tool's default configuration.
    pub default: &'static str,
    /// The preset measuring its customised configuration, if the paper had one.
    pub custom: Option<&'static str>,
    /// The paper's figures, for comparison.
    pub paper_default: f64,
    pub paper_custom: Option<f64>,
}

/// Several presets run as one experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Group {
    pub name: &'static str,
    pub about: &'static str,
    pub members: &'static [Member],
    /// The paper's table, rows in order, and the unit of its numbers.
    pub paper: &'static [PaperRow],
    pub paper_unit: &'static str,
}

const SPEED_SYNC: &str = "speed comparison, tool/speedtest.tcl: the SQLite database is initialised with `PRAGMA default_synchronous=on` (2kinit.sql); SQLite reads `on` as level 1, NORMAL (pragma.c getSafetyLevel; the bundled SQLite reads `PRAGMA synchronous=on` back as 1)";
const SPEED_NOSYNC: &str =
    "speed comparison, tool/speedtest.tcl: the nosync database is initialised with `PRAGMA default_synchronous=off` (nosync-init.sql)";
const SPEED_CACHE: &str =
    "speed comparison, tool/speedtest.tcl: `PRAGMA default_cache_size=2000` (pages) in both init scripts";
const SPEED_PAGE: &str = "SQLite 2.7.0, the version measured: fixed 1024-byte pages (SQLITE_PAGE_SIZE in pager.h)";
const SPEED_JOURNAL: &str =
    "SQLite 2.7.0 has one journal mode: a rollback journal deleted at commit (DELETE in SQLite 3 terms)";

const MOBI_APP: &str =
    "Mobibench app, MobiBenchExe.RunSqlite: the SQLite button runs insert, update and delete in turn";
const MOBI_COUNT: &str = "Mobibench app, TabMain.set_default: p_transaction = 100 (the shell's -n default is 10)";
const MOBI_JOURNAL: &str =
    "Mobibench app, TabMain.set_default: p_journal_mode = 1 = TRUNCATE (shell: -j default 1 = TRUNCATE)";
const MOBI_SYNC: &str = "Mobibench app, TabMain.set_default: p_sql_sync_mode = 2 = FULL (shell: -s default 2 = FULL)";
const MOBI_PAGE: &str = "Mobibench, jni/mobibench.c thread_main_db: `PRAGMA page_size = 4096;` on every database";

const APSYS_DEFAULT: &str = "APSys'17 section 3: the default SQLite configuration is DELETE journal mode with FULL synchronization; section 2 (Table 1): the tools' default journal mode is DELETE";
const APSYS_FULL: &str = "APSys'17 section 3: default synchronous mode FULL";
const APSYS_WAL: &str = "APSys'17 Table 1, customised: the journal mode switched from DELETE to WAL (one parameter)";
const PAGE_4096: &str = "Android: SQLiteGlobal.getDefaultPageSize() = the /data file system's block size, 4096; also SQLite's own default since 3.12.0";

const AOSP_JOURNAL: &str =
    "AOSP frameworks/base config.xml (Android 4.1 to 8.1): db_default_journal_mode = PERSIST, applied by SQLiteDatabase to every app database";
const AOSP_SYNC: &str = "AOSP config.xml: db_default_sync_mode = FULL";
const AOSP_LIMIT: &str = "AOSP config.xml: db_journal_size_limit = 524288 (bytes)";
const LINARO: &str = "Linaro ran the app on AOSP 4.4.2 (Nexus 7) and reports no settings, so Android's SQLiteDatabase defaults apply: AOSP config.xml db_default_journal_mode = PERSIST";

/// SQLite's speed comparison, SQLite with sync (the "SQLite 2.7.0" column).
pub const SPEEDTEST: Preset = Preset {
    name: "speedtest",
    workload: "speedtest",
    about: "SQLite's speed comparison, SQLite column with sync (2.7.0: 1 KiB pages, 2000-page cache, synchronous on = NORMAL)",
    params: &[],
    knobs: &[
        set("page_size", "1024", SPEED_PAGE),
        set("journal_mode", "delete", SPEED_JOURNAL),
        set("synchronous", "normal", SPEED_SYNC),
        set("cache_size", "2000", SPEED_CACHE),
    ],
    headline: "all",
};

/// SQLite's speed comparison, SQLite without sync (the "SQLite 2.7.0 (nosync)" column).
pub const SPEEDTEST_NOSYNC: Preset = Preset {
    name: "speedtest-nosync",
    workload: "speedtest",
    about: "SQLite's speed comparison, SQLite column without sync (synchronous off)",
    params: &[],
    knobs: &[
        set("page_size", "1024", SPEED_PAGE),
        set("journal_mode", "delete", SPEED_JOURNAL),
        set("synchronous", "off", SPEED_NOSYNC),
        set("cache_size", "2000", SPEED_CACHE),
    ],
    headline: "all",
};

/// Mobibench as the app runs it by default.
pub const MOBIBENCH: Preset = Preset {
    name: "mobibench",
    workload: "mobibench",
    about:
        "Mobibench app defaults: 100 insert, 100 update, 100 delete transactions, TRUNCATE journal, synchronous FULL",
    params: &[set("mode", "all", MOBI_APP), set("count", "100", MOBI_COUNT)],
    knobs: &[
        set("page_size", "4096", MOBI_PAGE),
        set("journal_mode", "truncate", MOBI_JOURNAL),
        set("synchronous", "full", MOBI_SYNC),
    ],
    headline: "insert",
};

/// Mobibench customised as in APSys'17 Table 1.
pub const MOBIBENCH_CUSTOM: Preset = Preset {
    name: "mobibench-custom",
    workload: "mobibench",
    about: "Mobibench customised as in APSys'17 Table 1: WAL journal, the rest default",
    params: &[set("mode", "all", MOBI_APP), set("count", "100", MOBI_COUNT)],
    knobs: &[
        set("page_size", "4096", MOBI_PAGE),
        set("journal_mode", "wal", APSYS_WAL),
        set("synchronous", "full", MOBI_SYNC),
    ],
    headline: "insert",
};

/// AndroBench by default, as APSys'17 describes it.
pub const ANDROBENCH: Preset = Preset {
    name: "androbench",
    workload: "androbench",
    about: "AndroBench defaults per APSys'17: DELETE journal, synchronous FULL, empty table",
    params: &[],
    knobs: &[
        set("page_size", "4096", PAGE_4096),
        set("journal_mode", "delete", APSYS_DEFAULT),
        set("synchronous", "full", APSYS_FULL),
    ],
    headline: "01 1000 INSERTs",
};

/// AndroBench customised as in APSys'17 Table 1.
pub const ANDROBENCH_CUSTOM: Preset = Preset {
    name: "androbench-custom",
    workload: "androbench",
    about: "AndroBench customised as in APSys'17 Table 1: WAL journal",
    params: &[],
    knobs: &[
        set("page_size", "4096", PAGE_4096),
        set("journal_mode", "wal", APSYS_WAL),
        set("synchronous", "full", APSYS_FULL),
    ],
    headline: "01 1000 INSERTs",
};

/// AndroBench under the defaults Android's framework gives every app database.
pub const ANDROBENCH_AOSP: Preset = Preset {
    name: "androbench-aosp",
    workload: "androbench",
    about: "AndroBench under Android 4.1-8.1's SQLiteDatabase defaults: PERSIST journal limited to 512 KiB, synchronous FULL",
    params: &[],
    knobs: &[
        set("page_size", "4096", PAGE_4096),
        set("journal_mode", "persist", AOSP_JOURNAL),
        set("synchronous", "full", AOSP_SYNC),
        set("journal_size_limit", "524288", AOSP_LIMIT),
    ],
    headline: "01 1000 INSERTs",
};

/// RL Benchmark by default, as APSys'17 describes it.
pub const RLBENCH: Preset = Preset {
    name: "rlbench",
    workload: "rlbench",
    about: "RL Benchmark defaults per APSys'17: DELETE journal, synchronous FULL (the app offers no settings)",
    params: &[],
    knobs: &[
        set("page_size", "4096", PAGE_4096),
        set("journal_mode", "delete", APSYS_DEFAULT),
        set("synchronous", "full", APSYS_FULL),
    ],
    headline: "01 1000 INSERTs",
};

/// The apps as Linaro ran them on AOSP 4.4.2: Android's framework defaults for every app
/// database, since the page reports no settings.
const LINARO_KNOBS: &[Setting] = &[
    set("page_size", "4096", PAGE_4096),
    set("journal_mode", "persist", LINARO),
    set("synchronous", "full", AOSP_SYNC),
    set("journal_size_limit", "524288", AOSP_LIMIT),
];

/// RL Benchmark as Linaro ran it: the app on AOSP 4.4.2, under Android's framework defaults.
pub const RLBENCH_AOSP: Preset = Preset {
    name: "rlbench-aosp",
    workload: "rlbench",
    about: "RL Benchmark as Linaro ran it on AOSP 4.4.2: Android's defaults (PERSIST journal, synchronous FULL)",
    params: &[],
    knobs: LINARO_KNOBS,
    headline: "all",
};

/// The SQLite Benchmark app as Linaro ran it.
pub const SQLITE_BENCHMARK: Preset = Preset {
    name: "sqlite-benchmark",
    workload: "sqlite-benchmark",
    about: "the SQLite Benchmark app as Linaro ran it on AOSP 4.4.2: Android's defaults (PERSIST journal, synchronous FULL)",
    params: &[],
    knobs: LINARO_KNOBS,
    headline: "all",
};

/// ACREVE as Linaro ran it.
pub const ACREVE: Preset = Preset {
    name: "acreve",
    workload: "acreve",
    about: "ACREVE as Linaro ran it on AOSP 4.4.2: Android's defaults (PERSIST journal, synchronous FULL)",
    params: &[],
    knobs: LINARO_KNOBS,
    headline: "all",
};

/// The APSys'17 experiment in SQLite's default configuration.
pub const APSYS17: Preset = Preset {
    name: "apsys17",
    workload: "crud",
    about: "APSys'17 section 3 default configuration: 1000 inserts, updates, deletes on 100K rows; DELETE, FULL",
    params: &[],
    knobs: &[
        set("journal_mode", "delete", APSYS_DEFAULT),
        set("synchronous", "full", APSYS_FULL),
    ],
    headline: "all",
};

/// The APSys'17 experiment in Figure 1's custom configuration (without the F2FS file system).
pub const APSYS17_CUSTOM: Preset = Preset {
    name: "apsys17-custom",
    workload: "crud",
    about: "APSys'17 Figure 1 custom configuration: WAL limited to 1 MB, synchronous NORMAL (the file system is yours)",
    params: &[],
    knobs: &[
        set(
            "journal_mode",
            "wal",
            "APSys'17 Figure 1, custom config: journal mode WAL",
        ),
        set(
            "journal_size_limit",
            "1048576",
            "APSys'17 Figure 1, custom config: WAL size 1 MB",
        ),
        set(
            "synchronous",
            "normal",
            "APSys'17 Figure 1, custom config: synch mode NORMAL",
        ),
    ],
    headline: "all",
};

/// Every preset.
const VLDB22_SWEEP: &str = "VLDB'22 artifact (UWHustle/sqlite-past-present-future), scripts/benchmarks/ssb.sh";

/// The VLDB'22 paper's SSB sweeps: SQLite's page cache, DuckDB's threads and memory limit. Each
/// engine takes the knobs it has, so one run measures both sweeps side by side.
pub const VLDB22_SSB: Preset = Preset {
    name: "vldb22-ssb",
    workload: "ssb",
    about:
        "VLDB'22 SSB sweeps: SQLite bloom_filter off/on x cache_size -100000 to -5000000; DuckDB threads 1/2/4 x memory_limit 100MB to 5GB",
    params: &[],
    knobs: &[
        set("bloom_filter", "off,on", VLDB22_SWEEP),
        set(
            "cache_size",
            "-100000,-200000,-500000,-1000000,-2000000,-5000000",
            VLDB22_SWEEP,
        ),
        set("threads", "1,2,4", VLDB22_SWEEP),
        set("memory_limit", "100MB,200MB,500MB,1GB,2GB,5GB", VLDB22_SWEEP),
    ],
    headline: "all",
};

pub const PRESETS: &[&Preset] = &[
    &SPEEDTEST,
    &SPEEDTEST_NOSYNC,
    &MOBIBENCH,
    &MOBIBENCH_CUSTOM,
    &ANDROBENCH,
    &ANDROBENCH_CUSTOM,
    &ANDROBENCH_AOSP,
    &RLBENCH,
    &RLBENCH_AOSP,
    &SQLITE_BENCHMARK,
    &ACREVE,
    &APSYS17,
    &APSYS17_CUSTOM,
    &VLDB22_SSB,
];

const TABLE1_MOBI: &[Setting] = &[
    set(
        "mode",
        "insert",
        "APSys'17 Table 1 compares the tools' insert throughput",
    ),
    set("count", "1000", "APSys'17 Table 1: 1000 insert operations"),
];

/// APSys'17 Table 1: three tools, default and customised.
pub const TABLE1: Group = Group {
    name: "table1",
    about: "APSys'17 Table 1: Mobibench, RLBench and AndroBench inserts, default vs customised (journal mode WAL)",
    members: &[
        Member {
            preset: "mobibench",
            params: TABLE1_MOBI,
        },
        Member {
            preset: "mobibench-custom",
            params: TABLE1_MOBI,
        },
        Member {
            preset: "rlbench",
            params: &[],
        },
        Member {
            preset: "androbench",
            params: &[],
        },
        Member {
            preset: "androbench-custom",
            params: &[],
        },
    ],
    paper: &[
        PaperRow {
            tool: "MobiBench",
            default: "mobibench",
            custom: Some("mobibench-custom"),
            paper_default: 20.0,
            paper_custom: Some(57.0),
        },
        PaperRow {
            tool: "RLBench",
            default: "rlbench",
            custom: None,
            paper_default: 30.0,
            paper_custom: None,
        },
        PaperRow {
            tool: "Androbench",
            default: "androbench",
            custom: Some("androbench-custom"),
            paper_default: 29.0,
            paper_custom: Some(150.0),
        },
    ],
    paper_unit: "TPS, 1000 inserts, Samsung Galaxy Nexus S, Android 6.0.1",
};

/// Every group.
pub const GROUPS: &[&Group] = &[&TABLE1];

/// Finds a preset by name.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().copied().find(|p| p.name == name)
}

/// Finds a group by name.
pub fn find_group(name: &str) -> Option<&'static Group> {
    GROUPS.iter().copied().find(|g| g.name == name)
}

/// A preset picked for a run, with the parameter overrides of the group it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    pub preset: &'static Preset,
    pub overrides: &'static [Setting],
}

impl Pick {
    /// The preset's parameters with the group's overrides applied, in order.
    pub fn params(&self) -> Vec<Setting> {
        let mut out: Vec<Setting> = self
            .preset
            .params
            .iter()
            .filter(|s| !self.overrides.iter().any(|o| o.name == s.name))
            .copied()
            .collect();
        out.extend_from_slice(self.overrides);
        out
    }
}

/// All names `--preset` accepts, for error messages and `list`.
pub fn valid_names() -> String {
    PRESETS
        .iter()
        .map(|p| p.name)
        .chain(GROUPS.iter().map(|g| g.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Expands `--preset` values (presets and groups) into picks, in order. Returns the groups
/// used too (for their paper tables).
pub fn resolve(names: &[String]) -> Result<(Vec<Pick>, Vec<&'static Group>), String> {
    let mut picks: Vec<Pick> = Vec::new();
    let mut groups = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let name = name.trim();
        if names[..i].iter().any(|n| n.trim() == name) {
            return Err(format!("--preset {name} is given twice"));
        }
        let expanded: Vec<Pick> = if let Some(p) = find(name) {
            vec![Pick {
                preset: p,
                overrides: &[],
            }]
        } else if let Some(g) = find_group(name) {
            groups.push(g);
            g.members
                .iter()
                .map(|m| Pick {
                    preset: find(m.preset).expect("group members are presets"),
                    overrides: m.params,
                })
                .collect()
        } else {
            return Err(format!(
                "--preset {name}: unknown preset; valid presets: {}",
                valid_names()
            ));
        };
        for p in expanded {
            if picks.iter().any(|q| q.preset.name == p.preset.name) {
                return Err(format!(
                    "--preset {name}: preset {} is already part of this run",
                    p.preset.name
                ));
            }
            picks.push(p);
        }
    }
    Ok((picks, groups))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::knob::{parse_axis, KnobCatalog};
    use crate::model::params;
    use crate::workload;

    #[test]
    fn every_preset_is_valid() {
        for p in PRESETS {
            let w = workload::find(p.workload).unwrap_or_else(|| panic!("{}: no workload {}", p.name, p.workload));
            let args: Vec<String> = p.params.iter().map(|s| format!("{}={}", s.name, s.value)).collect();
            let params = params::resolve(w.name(), w.params(), &args).unwrap_or_else(|e| panic!("{}: {e}", p.name));
            w.check(&params).unwrap();
            for k in p.knobs {
                let catalog = KnobCatalog {
                    tables: &[
                        (crate::engines::sqlite::knobs::SQLITE_KNOBS, "pragma."),
                        (crate::engines::duckdb::DUCKDB_KNOBS, crate::engines::duckdb::PREFIX),
                    ],
                    refused: &[],
                };
                parse_axis(&format!("{}={}", k.name, k.value), &catalog).unwrap_or_else(|e| panic!("{}: {e}", p.name));
                assert!(!k.source.is_empty());
            }
            assert!(
                p.headline == "all" || w.kind().operations.contains(&p.headline),
                "{}: headline {} is not an operation",
                p.name,
                p.headline
            );
            assert!(find_group(p.name).is_none(), "{} is both a preset and a group", p.name);
        }
        for g in GROUPS {
            for m in g.members {
                let p = find(m.preset).unwrap();
                let w = workload::find(p.workload).unwrap();
                let pick = Pick {
                    preset: p,
                    overrides: m.params,
                };
                let args: Vec<String> = pick
                    .params()
                    .iter()
                    .map(|s| format!("{}={}", s.name, s.value))
                    .collect();
                params::resolve(w.name(), w.params(), &args).unwrap();
            }
            for r in g.paper {
                assert!(g.members.iter().any(|m| m.preset == r.default));
                if let Some(c) = r.custom {
                    assert!(g.members.iter().any(|m| m.preset == c));
                }
            }
        }
    }

    /// The speed comparison sets `default_synchronous=on` and `=off`; the presets must hold the
    /// level SQLite itself makes of those words, asked of the real library, not a guess.
    #[test]
    fn speedtest_synchronous_is_what_sqlite_makes_of_on_and_off() {
        use crate::engines::sqlite::api::Api;
        use crate::engines::sqlite::conn::SqliteConn;
        use crate::engines::Connection;
        let spec = crate::model::knob::find_spec(crate::engines::sqlite::knobs::SQLITE_KNOBS, "synchronous").unwrap();
        for (preset, word, level, name) in [
            (&SPEEDTEST, "on", "1", "normal"),
            (&SPEEDTEST_NOSYNC, "off", "0", "off"),
        ] {
            let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").unwrap();
            // A level other than the one expected first, so the read-back shows the change.
            conn.execute_batch("PRAGMA synchronous=2").unwrap();
            conn.execute_batch(&format!("PRAGMA synchronous={word}")).unwrap();
            let got = conn.query_value("PRAGMA synchronous").unwrap();
            assert_eq!(
                got.as_deref(),
                Some(level),
                "PRAGMA synchronous={word} reads back as {got:?}"
            );
            assert_eq!(spec.kind.readback(level), name);
            let knob = preset.knobs.iter().find(|k| k.name == "synchronous").unwrap();
            assert_eq!(knob.value, name, "preset {}", preset.name);
        }
    }

    #[test]
    fn resolve_expands_groups_and_refuses_unknown_and_repeated() {
        let (picks, groups) = resolve(&["table1".into()]).unwrap();
        assert_eq!(groups.len(), 1);
        let names: Vec<&str> = picks.iter().map(|p| p.preset.name).collect();
        assert_eq!(
            names,
            [
                "mobibench",
                "mobibench-custom",
                "rlbench",
                "androbench",
                "androbench-custom"
            ]
        );
        let mobi = picks[0].params();
        assert_eq!(
            mobi.iter().map(|s| (s.name, s.value)).collect::<Vec<_>>(),
            [("mode", "insert"), ("count", "1000")]
        );
        let e = resolve(&["nosuch".into()]).unwrap_err();
        assert!(
            e.starts_with("--preset nosuch: unknown preset; valid presets: speedtest, "),
            "{e}"
        );
        assert!(e.contains("table1"));
        assert!(resolve(&["rlbench".into(), "rlbench".into()])
            .unwrap_err()
            .contains("given twice"));
        assert!(resolve(&["rlbench".into(), "table1".into()])
            .unwrap_err()
            .contains("already part of this run"));
    }
}
