//! The warning about queries that answered nothing.
//!
//! A query whose answer is empty (no rows, or one row of NULL sums: an aggregate over no rows)
//! was timed doing no real work, and a verdict on it (Bloom filters on against off, one engine
//! against another) says nothing about the query the paper meant. That happens with data
//! whose date table is dbgen's shrunken one below scale 1 (`dates=dbgen`, or `tbl_dir` with
//! such files), and with hand-made `.tbl` files; the report must say so beside the numbers.

use crate::model::params::Params;
use crate::model::record::{Answer, TrialRecord};

/// The smallest scale tried at which every query answers something with the whole date table
/// (at 0.01 Q3.2 to Q3.4 find no supplier and customer of their cities; at 0.02 Q3.3 and Q3.4).
pub const ALL_ANSWER_FROM: f64 = 0.05;

/// True when `answer` holds nothing: no rows, or only NULLs (a sum over no rows).
pub fn is_empty(answer: &Answer) -> bool {
    answer.rows == 0
        || answer
            .values
            .as_ref()
            .is_some_and(|rows| rows.iter().all(|r| r.iter().all(Option::is_none)))
}

/// One warning naming every query that answered nothing in some trial, in the order first seen,
/// with the reason most likely for data generated with `p`; none when every answer holds something.
pub fn warning(p: &Params, trials: &[TrialRecord]) -> Option<String> {
    let mut empty: Vec<&str> = Vec::new();
    for q in trials.iter().flat_map(|t| t.queries.iter()) {
        if is_empty(&q.answer) && !empty.contains(&q.op.as_str()) {
            empty.push(&q.op);
        }
    }
    if empty.is_empty() {
        return None;
    }
    let why = if !p.text("tbl_dir").is_empty() {
        format!(
            "the .tbl files in {} hold no matching rows for them (dbgen's date.tbl below scale 1 keeps only a few days of 1992; litebench ssb-gen writes all seven years)",
            p.text("tbl_dir")
        )
    } else if super::dates_of(p) == litebench_ssbgen::Dates::Dbgen && p.real("scale") < 1.0 {
        format!(
            "with dates=dbgen at scale {} the date table keeps only the first days of 1992; drop --param dates=dbgen for the whole seven years",
            p.real("scale")
        )
    } else if p.real("scale") < ALL_ANSWER_FROM {
        let suppliers = litebench_ssbgen::Scale::new(p.real("scale"))
            .map(|s| litebench_ssbgen::row_count(litebench_ssbgen::Table::Supplier, s, super::dates_of(p)).to_string())
            .unwrap_or_else(|_| "few".into());
        format!(
            "at scale {} the dimensions are too small for their filters ({suppliers} suppliers); from scale {ALL_ANSWER_FROM} all 13 answer",
            p.real("scale")
        )
    } else {
        "the data hold no matching rows for them".to_string()
    };
    Some(format!(
        "{} of {} queries answered nothing ({}): {why}; their times measure empty queries, so no verdict on them (Bloom filters on or off, one engine against another) means anything",
        empty.len(),
        super::queries::NAMES.len(),
        empty.join(", ")
    ))
}

/// SSB's report: a warning where the queries found nothing.
impl crate::workload::WorkloadReport for super::Ssb {
    fn warnings(&self, m: &crate::model::record::Manifest, trials: &[TrialRecord]) -> Vec<String> {
        warning(&m.params, trials).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::QueryRecord;

    fn answer(rows: u64, values: Option<Vec<Vec<Option<&str>>>>) -> Answer {
        Answer {
            rows,
            hash: "h".into(),
            values: values.map(|v| {
                v.into_iter()
                    .map(|r| r.into_iter().map(|c| c.map(str::to_string)).collect())
                    .collect()
            }),
        }
    }

    fn trial(answers: &[(&str, Answer)]) -> TrialRecord {
        TrialRecord {
            queries: answers
                .iter()
                .map(|(op, a)| QueryRecord {
                    op: op.to_string(),
                    answer: a.clone(),
                    plan: None,
                    profile: None,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    fn params(args: &[&str]) -> Params {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::model::params::resolve("ssb", super::super::PARAMS, &args).unwrap()
    }

    #[test]
    fn no_rows_and_null_sums_are_empty_but_a_zero_or_many_rows_are_not() {
        assert!(is_empty(&answer(0, Some(vec![]))));
        assert!(is_empty(&answer(1, Some(vec![vec![None]]))));
        assert!(is_empty(&answer(1, Some(vec![vec![None, None]]))));
        assert!(!is_empty(&answer(1, Some(vec![vec![Some("0")]]))));
        assert!(!is_empty(&answer(2, Some(vec![vec![None], vec![Some("1992")]]))));
        assert!(!is_empty(&answer(5000, None)));
    }

    #[test]
    fn every_empty_query_is_named_once_with_the_likely_reason() {
        let full = answer(1, Some(vec![vec![Some("42")]]));
        let null = answer(1, Some(vec![vec![None]]));
        let none = answer(0, Some(vec![]));
        let trials = [
            trial(&[("Q1.1", null.clone()), ("Q2.1", full.clone()), ("Q2.2", none.clone())]),
            trial(&[("Q1.1", null), ("Q2.1", full.clone()), ("Q2.2", none)]),
        ];
        let w = warning(&params(&["scale=0.01", "dates=dbgen"]), &trials).unwrap();
        assert!(
            w.starts_with("2 of 13 queries answered nothing (Q1.1, Q2.2): with dates=dbgen at scale 0.01"),
            "{w}"
        );
        assert!(w.contains("no verdict on them (Bloom filters on or off"), "{w}");
        let w = warning(&params(&["scale=0.01"]), &trials).unwrap();
        assert!(w.contains("at scale 0.01 the dimensions are too small for their filters (20 suppliers); from scale 0.05 all 13 answer"), "{w}");
        let w = warning(&params(&["scale=1"]), &trials).unwrap();
        assert!(w.contains("the data hold no matching rows"), "{w}");
        assert_eq!(warning(&params(&[]), &[trial(&[("Q2.1", full)])]), None);
    }
}
