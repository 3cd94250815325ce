//! SQLite query plans: `EXPLAIN QUERY PLAN` as indented lines, and the Bloom filter check.
//!
//! Since 3.24.0 `EXPLAIN QUERY PLAN` answers rows `(id, parent, notused, detail)` that form a
//! tree; the sqlite3 shell draws it with indentation, and so does litebench, two spaces a level,
//! so a stored plan reads like the shell's. Older builds answer `(selectid, order, from,
//! detail)` with no tree: their details are kept flat.
//!
//! A plan is also evidence: with the Bloom filter switched off (see [`super::optimizer`]) no
//! plan may show `BLOOM FILTER`, and one that does stops the run rather than let a measurement
//! labelled "off" be one with the filter on.

use super::conn::SqliteConn;
use super::optimizer::{plan_uses_bloom, BLOOM_FILTER_BIT};
use crate::engines::{Connection, EngineError, ErrorKind};
use std::collections::HashMap;

/// The release whose `EXPLAIN QUERY PLAN` rows carry `id` and `parent`.
const TREE_SINCE: i32 = 3_024_000;

/// Plan rows as lines: `tree` rows `(id, parent, _, detail)` indented two spaces per level
/// below the top; flat rows `(selectid, order, from, detail)` as their details.
pub fn plan_lines(rows: &[Vec<Option<String>>], tree: bool) -> Vec<String> {
    let mut depth: HashMap<i64, usize> = HashMap::new();
    let field = |r: &Vec<Option<String>>, i: usize| r.get(i).cloned().flatten().unwrap_or_default();
    rows.iter()
        .map(|r| {
            let detail = field(r, 3);
            if !tree {
                return detail;
            }
            let id: i64 = field(r, 0).parse().unwrap_or(0);
            let parent: i64 = field(r, 1).parse().unwrap_or(0);
            let d = if parent == 0 {
                0
            } else {
                depth.get(&parent).map_or(0, |p| p + 1)
            };
            depth.insert(id, d);
            format!("{}{detail}", "  ".repeat(d))
        })
        .collect()
}

/// The plan SQLite chooses for `sql`, unchecked.
pub fn explain(conn: &mut SqliteConn, sql: &str) -> Result<Vec<String>, EngineError> {
    // SAFETY: no arguments; returns a constant.
    let version = unsafe { (conn.api().libversion_number)() };
    let rows = conn.query(&format!("EXPLAIN QUERY PLAN {sql}"))?;
    Ok(plan_lines(&rows, version >= TREE_SINCE))
}

/// The plan of `sql`, refused if it shows a Bloom filter the connection has switched off.
pub fn checked_plan(conn: &mut SqliteConn, sql: &str) -> Result<Vec<String>, EngineError> {
    let plan = explain(conn, sql)?;
    if conn.opt_mask() & BLOOM_FILTER_BIT != 0 && plan_uses_bloom(&plan) {
        let api = conn.api();
        return Err(EngineError {
            busy_cause: None,
            engine: conn.label().to_string(),
            kind: ErrorKind::Other,
            code: None,
            message: format!(
                "knob bloom_filter=off did not take on SQLite {} ({}): the plan still shows BLOOM FILTER: {}",
                api.version(),
                api.origin,
                plan.join(" / ")
            ),
            context: format!("checking the plan of `{sql}`"),
        });
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, parent: i64, detail: &str) -> Vec<Option<String>> {
        vec![
            Some(id.to_string()),
            Some(parent.to_string()),
            Some("0".into()),
            Some(detail.into()),
        ]
    }

    #[test]
    fn tree_rows_are_indented_by_depth() {
        let rows = vec![
            row(2, 0, "SCAN lineorder"),
            row(5, 0, "BLOOM FILTER ON part (p_partkey=?)"),
            row(9, 0, "CORRELATED SCALAR SUBQUERY 1"),
            row(12, 9, "SCAN d"),
            row(15, 12, "SEARCH e USING INTEGER PRIMARY KEY (rowid=?)"),
            row(20, 0, "USE TEMP B-TREE FOR GROUP BY"),
        ];
        assert_eq!(
            plan_lines(&rows, true),
            vec![
                "SCAN lineorder",
                "BLOOM FILTER ON part (p_partkey=?)",
                "CORRELATED SCALAR SUBQUERY 1",
                "  SCAN d",
                "    SEARCH e USING INTEGER PRIMARY KEY (rowid=?)",
                "USE TEMP B-TREE FOR GROUP BY",
            ]
        );
    }

    #[test]
    fn flat_rows_keep_their_details() {
        let rows = vec![vec![
            Some("0".into()),
            Some("0".into()),
            Some("0".into()),
            Some("SCAN TABLE t (~1000000 rows)".into()),
        ]];
        assert_eq!(plan_lines(&rows, false), vec!["SCAN TABLE t (~1000000 rows)"]);
    }

    #[test]
    fn the_bundled_build_plans_a_join_as_a_tree() {
        let api = super::super::api::Api::bundled();
        let mut c = SqliteConn::open_memory(api, "sqlite").unwrap();
        c.execute_batch("CREATE TABLE a(x INTEGER PRIMARY KEY, y); CREATE TABLE b(x INTEGER PRIMARY KEY, y);")
            .unwrap();
        let plan = c
            .query_plan("SELECT * FROM a WHERE y IN (SELECT y FROM b WHERE x > 3)")
            .unwrap()
            .unwrap();
        assert!(plan.iter().any(|l| l.starts_with("SCAN a")), "{plan:?}");
        assert!(plan.iter().any(|l| l.starts_with("  ")), "a nested step: {plan:?}");
    }
}
