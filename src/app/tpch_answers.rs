//! `litebench tpch-answers`: a `tpch` run's answers against the specification's answer set,
//! query by query, every configuration's first measured trial
//! ([`crate::workload::tpch::spec_answers`] holds the comparison and its tolerances).

use crate::app::cli::TpchAnswersArgs;
use crate::base::Failure;
use crate::model::params::Params;
use crate::model::record::QueryRecord;
use crate::workload::tpch::queries::NAMES;
use crate::workload::tpch::spec_answers::{compare, hash_of, parse};
use crate::workload::tpch::ParamSource;

/// Compares; prints one line per query and configuration; exit code 1 when one differs.
pub fn run(args: &TpchAnswersArgs) -> Result<i32, Failure> {
    let text = std::fs::read_to_string(&args.json).map_err(|e| {
        Failure(format!(
            "--json {}: {e}; give the output of litebench run tpch --format json",
            args.json.display()
        ))
    })?;
    let run: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Failure(format!(
            "--json {}: not JSON ({e}); give the output of litebench run tpch --format json",
            args.json.display()
        ))
    })?;
    if run.pointer("/manifest/workload").and_then(|w| w.as_str()) != Some("tpch") {
        return Err(Failure(format!(
            "--json {}: not a tpch run; give the output of litebench run tpch --format json",
            args.json.display()
        )));
    }
    let params: Params = serde_json::from_value(run["manifest"]["params"].clone()).map_err(|e| {
        Failure(format!(
            "--json {}: the run's parameters are unreadable ({e}); give the output of litebench run tpch --format json",
            args.json.display()
        ))
    })?;
    let seed = run["manifest"]["seed"].as_u64().unwrap_or(0);
    if let Some(drawn) = ParamSource::of(&params).seed(seed) {
        return Err(Failure(format!(
            "--json {}: the run's substitution parameters were drawn from seed {drawn}, and the specification's answers are for its validation values; run it again with --param substitution=validation",
            args.json.display()
        )));
    }
    let mut expected = Vec::with_capacity(NAMES.len());
    for q in 1..=NAMES.len() {
        let file = args.answers.join(format!("q{q}.out"));
        let text = std::fs::read_to_string(&file).map_err(|e| {
            Failure(format!(
                "--answers {}: q{q}.out: {e}; give the directory holding q1.out to q22.out (dbgen's answers/)",
                args.answers.display()
            ))
        })?;
        expected.push(parse(&text));
    }
    let trials = run["trials"].as_array().cloned().unwrap_or_default();
    let mut seen = std::collections::BTreeSet::new();
    let mut differ = 0;
    for t in trials.iter().filter(|t| t["warmup"] != true) {
        let config = t["config"].as_u64().unwrap_or(0);
        if !seen.insert(config) {
            continue;
        }
        let queries: Vec<QueryRecord> = serde_json::from_value(t["queries"].clone()).unwrap_or_default();
        for (op, name) in NAMES.iter().enumerate() {
            let verdict = match queries.iter().find(|q| q.op == *name) {
                None => "no answer stored".to_string(),
                Some(q) if q.failure.is_some() => q.failure.clone().unwrap_or_default(),
                Some(q) => match &q.answer.values {
                    None if q.answer.hash == hash_of(op, &expected[op]) => {
                        println!(
                            "#{config} {name}: as the specification ({} rows, compared by their hash)",
                            q.answer.rows
                        );
                        continue;
                    }
                    None => format!(
                        "{} rows, kept as a hash, which is not the hash of the specification's {} rows",
                        q.answer.rows,
                        expected[op].len()
                    ),
                    Some(rows) => match compare(op, rows, &expected[op]) {
                        Ok(()) => {
                            println!("#{config} {name}: as the specification ({} rows)", rows.len());
                            continue;
                        }
                        Err(d) => d.to_string(),
                    },
                },
            };
            differ += 1;
            println!("#{config} {name}: DIFFERS: {verdict}");
        }
    }
    if seen.is_empty() {
        return Err(Failure(format!(
            "--json {}: no measured trial; run with --trials 1 or more",
            args.json.display()
        )));
    }
    Ok(i32::from(differ > 0))
}
