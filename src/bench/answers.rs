//! The check that every configuration of a run answered every query alike.
//!
//! Workloads that time each query as its own operation (SSB) store each query's answer with
//! the trial ([`crate::model::record::QueryRecord`]). The same data and the same query must give the
//! same answer on every engine, build and knob setting; one that differs is a wrong result, and
//! a timing of a wrong result means nothing. The runner keeps the first answer it saw for each
//! query and compares every later one with it, by row count and order-insensitive hash (the
//! rows' canonical text), so a tie ordered differently is no mismatch.

use crate::model::record::{Answer, QueryRecord};
use std::collections::HashMap;

/// Two configurations answered a query differently.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("wrong answer: {op} gave {} on {config}, but {} on {first_config}; the data or an engine is wrong, so the run stops (the trials so far are kept)", describe(.got), describe(.first))]
pub struct Mismatch {
    pub op: String,
    pub first_config: String,
    pub first: Answer,
    pub config: String,
    pub got: Answer,
}

/// An answer in one line: its rows when kept, else its count and hash.
pub fn describe(a: &Answer) -> String {
    match &a.values {
        Some(rows) => {
            let rows: Vec<String> = rows
                .iter()
                .map(|r| {
                    let cells: Vec<&str> = r.iter().map(|c| c.as_deref().unwrap_or("NULL")).collect();
                    format!("({})", cells.join(", "))
                })
                .collect();
            format!("{} row(s) [{}]", a.rows, rows.join(", "))
        }
        None => format!("{} rows with hash {}", a.rows, a.hash),
    }
}

/// The first answer seen per query, and where it came from.
#[derive(Debug, Default)]
pub struct AnswerBook {
    first: HashMap<String, (String, Answer)>,
}

impl AnswerBook {
    /// Checks the answers of one trial of configuration `config` against those seen before,
    /// and keeps the ones not seen yet.
    pub fn check(&mut self, config: &str, queries: &[QueryRecord]) -> Result<(), Box<Mismatch>> {
        // A query that failed (a time limit) has no answer to compare.
        for q in queries.iter().filter(|q| q.failure.is_none()) {
            match self.first.get(&q.op) {
                Some((first_config, first)) => {
                    if first.rows != q.answer.rows || first.hash != q.answer.hash {
                        return Err(Box::new(Mismatch {
                            op: q.op.clone(),
                            first_config: first_config.clone(),
                            first: first.clone(),
                            config: config.to_string(),
                            got: q.answer.clone(),
                        }));
                    }
                }
                None => {
                    self.first.insert(q.op.clone(), (config.to_string(), q.answer.clone()));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(op: &str, rows: u64, hash: &str, values: Option<Vec<Vec<Option<String>>>>) -> QueryRecord {
        QueryRecord {
            op: op.into(),
            answer: Answer {
                rows,
                hash: hash.into(),
                values,
            },
            plan: None,
            profile: None,
            ..Default::default()
        }
    }

    #[test]
    fn equal_answers_pass_and_a_differing_one_names_both() {
        let mut book = AnswerBook::default();
        let one = |v: &str| Some(vec![vec![Some(v.to_string()), None]]);
        book.check("sqlite", &[q("Q1.1", 1, "aa", one("10")), q("Q1.2", 2, "bb", None)])
            .unwrap();
        book.check("duckdb", &[q("Q1.1", 1, "aa", one("10")), q("Q1.2", 2, "bb", None)])
            .unwrap();
        let e = book.check("postgres", &[q("Q1.1", 1, "cc", one("11"))]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "wrong answer: Q1.1 gave 1 row(s) [(11, NULL)] on postgres, but 1 row(s) [(10, NULL)] on sqlite; the data or an engine is wrong, so the run stops (the trials so far are kept)"
        );
        let e = book.check("mysql", &[q("Q1.2", 3, "bb", None)]).unwrap_err();
        assert!(
            e.to_string()
                .contains("Q1.2 gave 3 rows with hash bb on mysql, but 2 rows with hash bb on sqlite"),
            "{e}"
        );
    }
}
