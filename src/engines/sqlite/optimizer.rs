//! SQLite's query-optimizer switches: the `bloom_filter` and `disable_optimizations` knobs.
//!
//! SQLite has no pragma for its optimizations. Its test interface,
//! `sqlite3_test_control(SQLITE_TESTCTRL_OPTIMIZATIONS, db, mask)`, turns them off per
//! connection, one bit per optimization (`SQLITE_BloomFilter` and its neighbours in
//! sqliteInt.h). That is how the VLDB'22 paper's Bloom filters (lookahead information passing,
//! 3.38.0) can be measured on and off in one build, as every other knob is.
//!
//! Why the checks. The bit values are private to SQLite: they are stable from 3.38.0 on (several
//! are pinned by SQLite's own TH3 tests, and retired bits are left free rather than reused), but
//! older releases numbered them differently, so the table below is only applied to 3.38.0 and
//! newer. A build compiled with `SQLITE_UNTESTABLE` accepts the call and ignores it. So the mask
//! is read back (`SQLITE_TESTCTRL_GETOPT`, where the build answers it), and the Bloom filter is
//! also checked where it shows: in the plan of a small star join in the `temp` schema
//! ([`PROBE_SETUP`]). With the filter on, the probe's plan must show `BLOOM FILTER`; with it off,
//! no plan may (`SqliteConn::query_plan` refuses one that does).

use super::api::Api;
use super::conn::SqliteConn;
use crate::engines::{Connection, EngineError, ErrorKind};
use std::ffi::{c_int, c_uint};

/// `SQLITE_TESTCTRL_OPTIMIZATIONS`: set the mask of disabled optimizations.
pub const TESTCTRL_OPTIMIZATIONS: i32 = 15;
/// `SQLITE_TESTCTRL_GETOPT`: read the mask back. Op 16 was `SQLITE_TESTCTRL_ISKEYWORD` in old
/// releases (which reads its argument as a string), so it is only called on builds the bit
/// table applies to ([`BITS_SINCE`]), and only trusted when it wrote the out-parameter.
pub const TESTCTRL_GETOPT: i32 = 16;

/// The release that added Bloom filters, and from which the bit table below applies.
pub const BITS_SINCE: (&str, i32) = ("3.38.0", 3_038_000);

/// `SQLITE_BloomFilter`.
pub const BLOOM_FILTER_BIT: u32 = 0x0008_0000;

/// The optimizer's named bits (`SQLITE_QueryFlattener` ... in sqliteInt.h of the bundled
/// SQLite 3.54.1, plus `SQLITE_BloomPulldown`, which 3.38.0-era releases have and 3.54.1 left
/// free), as `disable_optimizations` names them: snake_case of the C name. Setting a bit a
/// build does not use has no effect on it.
pub const OPTIMIZATIONS: &[(&str, u32)] = &[
    ("query_flattener", 0x0000_0001),
    ("window_func", 0x0000_0002),
    ("group_by_order", 0x0000_0004),
    ("factor_out_const", 0x0000_0008),
    ("distinct_opt", 0x0000_0010),
    ("cover_idx_scan", 0x0000_0020),
    ("order_by_idx_join", 0x0000_0040),
    ("transitive", 0x0000_0080),
    ("omit_noop_join", 0x0000_0100),
    ("count_of_view", 0x0000_0200),
    ("cursor_hints", 0x0000_0400),
    ("stat4", 0x0000_0800),
    ("push_down", 0x0000_1000),
    ("simplify_join", 0x0000_2000),
    ("skip_scan", 0x0000_4000),
    ("propagate_const", 0x0000_8000),
    ("min_max_opt", 0x0001_0000),
    ("seek_scan", 0x0002_0000),
    ("omit_order_by", 0x0004_0000),
    ("bloom_filter", BLOOM_FILTER_BIT),
    ("bloom_pulldown", 0x0010_0000),
    ("balanced_merge", 0x0020_0000),
    ("release_reg", 0x0040_0000),
    ("flttn_union_all", 0x0080_0000),
    ("indexed_expr", 0x0100_0000),
    ("coroutines", 0x0200_0000),
    ("null_unused_cols", 0x0400_0000),
    ("one_pass", 0x0800_0000),
    ("order_by_subq", 0x1000_0000),
    ("star_query", 0x2000_0000),
    ("exists_to_join", 0x4000_0000),
    ("union_limit", 0x8000_0000),
];

/// The canonical `disable_optimizations` value of no disabled optimization.
pub const NONE: &str = "none";

/// The mask of a canonical `disable_optimizations` value (names joined by `+`, or `none`).
/// Unknown names contribute nothing (values are validated when parsed).
pub fn mask_of(value: &str) -> u32 {
    value
        .split('+')
        .filter_map(|n| OPTIMIZATIONS.iter().find(|(name, _)| *name == n.trim()))
        .fold(0, |m, (_, bit)| m | bit)
}

/// The canonical `disable_optimizations` value of a mask: the names of its bits in table order
/// joined by `+` (bits outside the table as hex), or `none`.
pub fn names_of(mask: u32) -> String {
    let mut parts: Vec<String> = OPTIMIZATIONS
        .iter()
        .filter(|(_, bit)| mask & bit != 0)
        .map(|(name, _)| name.to_string())
        .collect();
    let known = OPTIMIZATIONS.iter().fold(0, |m, (_, b)| m | b);
    if mask & !known != 0 {
        parts.push(format!("{:#x}", mask & !known));
    }
    if parts.is_empty() {
        NONE.to_string()
    } else {
        parts.join("+")
    }
}

/// The mask a configuration asks for: its `disable_optimizations` names, plus the Bloom filter
/// bit for `bloom_filter=off` (the pull-down bit needs no setting: with no filter built there
/// is nothing to pull down). `None`: neither knob is requested, the build's mask is left alone.
pub fn requested_mask(bloom_filter: Option<&str>, disable: Option<&str>) -> Option<u32> {
    if bloom_filter.is_none() && disable.is_none() {
        return None;
    }
    let mut mask = disable.map_or(0, mask_of);
    if bloom_filter == Some("off") {
        mask |= BLOOM_FILTER_BIT;
    }
    Some(mask)
}

/// Whether a build has Bloom filters and the bit table applies to it.
pub fn has_bloom_filters(api: &Api) -> bool {
    // SAFETY: no arguments; returns a constant.
    (unsafe { (api.libversion_number)() }) >= BITS_SINCE.1
}

/// A small star join whose plan shows `BLOOM FILTER` on the dimension when the filter is on:
/// the planner builds one for a table whose size it knows (ANALYZE), searched more often than
/// it has rows, where some searches find nothing (the `c=3` restriction). In the `temp`
/// schema, so the database under test is untouched; a few pages, kept in the temp cache.
pub const PROBE_SETUP: &str = "\
DROP TABLE IF EXISTS temp.litebench_probe_fact;
DROP TABLE IF EXISTS temp.litebench_probe_dim;
CREATE TEMP TABLE litebench_probe_dim(k INTEGER PRIMARY KEY, c INTEGER);
CREATE TEMP TABLE litebench_probe_fact(d INTEGER, v INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<100)
  INSERT INTO litebench_probe_dim SELECT i, i%10 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<1000)
  INSERT INTO litebench_probe_fact SELECT i%100+1, i FROM n;
ANALYZE temp;";

/// The probe's star join.
pub const PROBE_QUERY: &str = "SELECT sum(v) FROM litebench_probe_fact, litebench_probe_dim WHERE d=k AND c=3";

/// Removes the probe's tables.
pub const PROBE_TEARDOWN: &str = "DROP TABLE temp.litebench_probe_fact; DROP TABLE temp.litebench_probe_dim;";

/// What a plan line says when a Bloom filter is used.
pub const BLOOM_MARK: &str = "BLOOM FILTER";

/// Whether a plan uses a Bloom filter.
pub fn plan_uses_bloom(plan: &[String]) -> bool {
    plan.iter().any(|l| l.contains(BLOOM_MARK))
}

/// Sets the mask of disabled optimizations on one connection. Only for builds the bit table
/// applies to ([`has_bloom_filters`]).
pub fn set_mask(conn: &mut SqliteConn, mask: u32) {
    let api = conn.api();
    // SAFETY: the connection is open; OPTIMIZATIONS takes (sqlite3*, u32) after the op code.
    unsafe { (api.test_control)(TESTCTRL_OPTIMIZATIONS, conn.raw_db(), mask as c_uint) };
    conn.set_opt_mask(mask);
}

/// The connection's mask read back with `SQLITE_TESTCTRL_GETOPT`. `None`: the build predates
/// the bit table, or it did not write the out-parameter (no GETOPT, or `SQLITE_UNTESTABLE`).
pub fn read_mask(conn: &SqliteConn) -> Option<u32> {
    let api = conn.api();
    if !has_bloom_filters(api) {
        return None;
    }
    // A build without GETOPT leaves `out` alone: start it at a value the mask litebench set
    // cannot have, so an untouched `out` is told from an answer.
    let sentinel = !conn.opt_mask();
    let mut out = sentinel as c_int;
    // SAFETY: the connection is open; GETOPT takes (sqlite3*, int*); op 16 is not ISKEYWORD in
    // any release from 3.38.0 on.
    unsafe { (api.test_control)(TESTCTRL_GETOPT, conn.raw_db(), &mut out as *mut c_int) };
    (out as u32 != sentinel).then_some(out as u32)
}

/// Whether the probe star join's plan uses a Bloom filter on this connection.
pub fn probe_bloom(conn: &mut SqliteConn) -> Result<bool, EngineError> {
    conn.execute_batch(PROBE_SETUP)?;
    let plan = super::plan::explain(conn, PROBE_QUERY);
    conn.execute_batch(PROBE_TEARDOWN)?;
    Ok(plan_uses_bloom(&plan?))
}

/// Whether a build ignores `sqlite3_test_control` (compiled with `SQLITE_UNTESTABLE`).
pub fn untestable(compile_options: &[String]) -> bool {
    compile_options.iter().any(|o| o == "UNTESTABLE")
}

/// `bloom_filter` as a GETOPT mask says it is.
pub fn bloom_of_mask(mask: u32) -> &'static str {
    if mask & BLOOM_FILTER_BIT == 0 {
        "on"
    } else {
        "off"
    }
}

/// The effective `bloom_filter`, from the probe, cross-checked with GETOPT's mask where the build
/// answers it: a disagreement stops the run, since either could be the truth.
pub fn bloom_reading(conn: &mut SqliteConn, mask: Option<u32>) -> Result<&'static str, EngineError> {
    let probe = probe_bloom(conn)?;
    if let Some(m) = mask {
        let getopt_on = bloom_of_mask(m) == "on";
        if getopt_on != probe {
            let api = conn.api();
            return Err(EngineError {
busy_cause: None,
                engine: conn.label().to_string(),
                kind: ErrorKind::Other,
                code: None,
                message: format!(
                    "knob bloom_filter: SQLite {} ({}) reads back the Bloom filter {} (SQLITE_TESTCTRL_GETOPT) but litebench's probe star join's plan {} BLOOM FILTER; the setting cannot be trusted, so the run stops",
                    api.version(),
                    api.origin,
                    if getopt_on { "on" } else { "off" },
                    if probe { "shows" } else { "does not show" },
                ),
                context: "checking knob bloom_filter".into(),
            });
        }
    }
    Ok(if probe { "on" } else { "off" })
}

/// The error for optimizer knobs a build cannot honour: `None` if it can.
pub fn refusal(api: &Api, compile_options: &[String], bloom: Option<&str>, disable: Option<&str>) -> Option<String> {
    let version = api.version();
    if !has_bloom_filters(api) {
        if bloom == Some("on") {
            return Some(format!(
                "knob bloom_filter=on: SQLite {version} has no Bloom filters (added in {}); drop the knob or use a newer build",
                BITS_SINCE.0
            ));
        }
        if disable.is_some_and(|d| d != NONE) {
            return Some(format!(
                "knob disable_optimizations={}: SQLite {version} numbers its optimizer switches differently from the table litebench knows ({} and newer); use a newer build",
                disable.unwrap_or_default(),
                BITS_SINCE.0
            ));
        }
        return None;
    }
    let mask = requested_mask(bloom, disable).unwrap_or(0);
    if mask != 0 && untestable(compile_options) {
        return Some(format!(
            "knobs bloom_filter/disable_optimizations: SQLite {version} ({}) was compiled with SQLITE_UNTESTABLE, so sqlite3_test_control ignores the switches; use a build without it",
            api.origin
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_distinct_single_bits_in_order() {
        for (i, (name, bit)) in OPTIMIZATIONS.iter().enumerate() {
            assert_eq!(bit.count_ones(), 1, "{name}");
            assert_eq!(*bit, 1u32 << i, "{name} is bit {i}");
            assert!(name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
        }
        assert_eq!(mask_of("bloom_filter"), BLOOM_FILTER_BIT);
    }

    /// The table agrees with sqliteInt.h of the SQLite this binary bundles, read from the
    /// amalgamation in the cargo registry (skipped where the registry sources are gone).
    #[test]
    fn bits_match_the_bundled_sources() {
        let home = std::env::var("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| std::path::PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
        let Some(src) = std::fs::read_dir(home.join("registry/src"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|d| d.path().join("libsqlite3-sys-0.39.1/sqlite3/sqlite3.c"))
            .find(|p| p.is_file())
        else {
            eprintln!("libsqlite3-sys 0.39.1 sources not in the cargo registry; skipped");
            return;
        };
        let text = std::fs::read_to_string(src).unwrap();
        let mut seen = 0;
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("#define SQLITE_") else {
                continue;
            };
            let mut it = rest.split_whitespace();
            let (Some(c_name), Some(value)) = (it.next(), it.next()) else {
                continue;
            };
            let Some(hex) = value.strip_prefix("0x") else { continue };
            if !line.contains("/*") || c_name == "AllOpts" {
                continue;
            }
            let snake = snake_case(c_name);
            if let Some((_, bit)) = OPTIMIZATIONS.iter().find(|(n, _)| *n == snake) {
                if snake == "bloom_pulldown" || snake == "factor_out_const" {
                    continue;
                }
                assert_eq!(*bit, u32::from_str_radix(hex, 16).unwrap(), "SQLITE_{c_name}");
                seen += 1;
            }
        }
        // Every name but the two bits 3.54.1 left free.
        assert_eq!(seen, OPTIMIZATIONS.len() - 2);
    }

    fn snake_case(c: &str) -> String {
        let mut out = String::new();
        for (i, ch) in c.chars().enumerate() {
            if ch.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        }
        out
    }

    #[test]
    fn masks_and_names_round_trip() {
        assert_eq!(mask_of("none"), 0);
        assert_eq!(names_of(0), "none");
        let m = mask_of("skip_scan+bloom_filter");
        assert_eq!(m, 0x4000 | BLOOM_FILTER_BIT);
        assert_eq!(names_of(m), "skip_scan+bloom_filter");
        assert_eq!(names_of(0x8000_0000 | 1), "query_flattener+union_limit");
    }

    #[test]
    fn requested_mask_combines_both_knobs() {
        assert_eq!(requested_mask(None, None), None);
        assert_eq!(requested_mask(Some("on"), None), Some(0));
        assert_eq!(requested_mask(Some("off"), None), Some(BLOOM_FILTER_BIT));
        assert_eq!(
            requested_mask(Some("off"), Some("skip_scan")),
            Some(BLOOM_FILTER_BIT | 0x4000)
        );
        assert_eq!(requested_mask(None, Some("none")), Some(0));
    }

    #[test]
    fn bloom_is_found_in_plans() {
        let plan = vec!["SCAN f".to_string(), "BLOOM FILTER ON d (k=?)".to_string()];
        assert!(plan_uses_bloom(&plan));
        assert!(!plan_uses_bloom(&plan[..1]));
    }
}
