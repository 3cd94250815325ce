//! The answer check after every trial, outside the timed region: the index's set of matching
//! ids, for a sample of queries, against a scan in Rust of the text the table holds then.
//!
//! The sample is drawn from that text itself (its words ranked by how often they occur, in the
//! same three frequency bands as the workload's queries; phrases cut from its documents), so the
//! check needs nothing of the trial's seed and covers the documents the trial inserted and
//! updated as well as the populated ones. For each query the unranked `MATCH` (`@@`) must return
//! exactly the ids the scan finds, and the ranked one `min(k, matches)` of them. A difference
//! fails the trial, naming the query.

use super::corpus::Band;
use super::query::{Kind, Matching, Query};
use super::schema::{self, Options};
use crate::engines::values::{CellRef, Values};
use crate::engines::{Connection, Dialect};
use crate::workload::WorkloadError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeSet, HashMap};

/// The documents as the table holds them.
pub struct Contents {
    docs: Vec<(i64, String)>,
}

impl Contents {
    /// Every row of the table.
    pub fn read(conn: &mut dyn Connection) -> Result<Contents, WorkloadError> {
        let stmt = conn.prepare(&schema::contents(conn.dialect()))?;
        let mut out = Values::with_capacity(1024, 1 << 16);
        let rows = conn.run_values(stmt, &[], &mut out)? as usize;
        let mut docs = Vec::with_capacity(rows);
        for r in 0..rows {
            let (id, body) = (out.get(2 * r), out.get(2 * r + 1));
            let id = id
                .number()
                .map(|n| n as i64)
                .ok_or_else(|| fail(format!("row {r}: id {id}")))?;
            let CellRef::Text(body) = body else {
                return Err(fail(format!("document {id}: text {body}")));
            };
            docs.push((id, String::from_utf8_lossy(body).into_owned()));
        }
        Ok(Contents { docs })
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The ids of the documents `q` matches, by a scan of every document's text.
    pub fn scan(&self, q: &Query, m: Matching) -> BTreeSet<i64> {
        self.docs
            .iter()
            .filter(|(_, text)| q.matches(text, m))
            .map(|(id, _)| *id)
            .collect()
    }

    /// `n` queries drawn from the text: every kind `allowed` in turn.
    pub fn sample(&self, n: u64, allowed: &[Kind], seed: u64) -> Vec<Query> {
        let mut freq: HashMap<&str, u64> = HashMap::new();
        for (_, text) in &self.docs {
            for w in text.split(' ').filter(|w| !w.is_empty()) {
                *freq.entry(w).or_default() += 1;
            }
        }
        let mut ranked: Vec<(&str, u64)> = freq.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        if ranked.is_empty() || allowed.is_empty() {
            return Vec::new();
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let word = |rng: &mut ChaCha8Rng, band: Band| ranked[rng.random_range(band.ranks(ranked.len()))].0;
        (0..n)
            .map(|i| {
                let kind = allowed[i as usize % allowed.len()];
                let band = Band::ALL[rng.random_range(0..Band::ALL.len())];
                let terms: Vec<String> = match kind {
                    Kind::And | Kind::Or => (0..rng.random_range(1..=3))
                        .map(|_| word(&mut rng, band).to_string())
                        .collect(),
                    Kind::Prefix => vec![word(&mut rng, band).chars().take(3).collect()],
                    Kind::Phrase => {
                        let text = &self.docs[rng.random_range(0..self.docs.len())].1;
                        let words: Vec<&str> = text.split(' ').collect();
                        let n = rng.random_range(2..=3).min(words.len());
                        let start = rng.random_range(0..=words.len() - n);
                        words[start..start + n].iter().map(|w| w.to_string()).collect()
                    }
                };
                Query { kind, terms }
            })
            .collect()
    }
}

fn fail(detail: String) -> WorkloadError {
    WorkloadError::check_failed("fts", detail)
}

/// The kinds of query FTS5 answers with these options (phrases need `detail=full`; a prefix is
/// a substring under `trigram`, checked as `and`).
pub fn allowed(o: Options<'_>) -> Vec<Kind> {
    Kind::ALL
        .into_iter()
        .filter(|k| match k {
            Kind::Phrase => o.detail == "full",
            Kind::Prefix => o.tokenizer != "trigram",
            Kind::And | Kind::Or => true,
        })
        .collect()
}

/// Checks `n` sampled queries on `conn` whose index was built with `o`, at least `documents`
/// documents expected (the trial deletes only what it inserted); the ranked queries' `LIMIT k`.
pub fn check(conn: &mut dyn Connection, o: Options<'_>, documents: u64, n: u64, k: u64) -> Result<(), WorkloadError> {
    let contents = Contents::read(conn)?;
    if (contents.len() as u64) < documents {
        return Err(fail(format!(
            "{} documents after the trial, fewer than the {documents} populated (a trial deletes only what it inserted)",
            contents.len()
        )));
    }
    let d = conn.dialect();
    let all = conn.prepare(&schema::all_matches(d))?;
    let ranked = conn.prepare(&schema::ranked(d))?;
    let mut out = Values::with_capacity(1024, 0);
    let m = o.matching();
    for q in contents.sample(n, &allowed(o), 0x0066_7473 ^ documents) {
        let text = if d == Dialect::Postgres { q.tsquery() } else { q.fts5() };
        out.clear();
        conn.run_values(all, &[crate::engines::Value::Text(&text)], &mut out)?;
        let got: BTreeSet<i64> = (0..out.len())
            .filter_map(|i| out.get(i).number().map(|n| n as i64))
            .collect();
        let want = contents.scan(&q, m);
        if got != want {
            let first = got.symmetric_difference(&want).next().copied().unwrap_or(0);
            let side = if got.contains(&first) {
                "the index's"
            } else {
                "the scan's"
            };
            return Err(fail(format!(
                "{q} (tokenizer {}): the index answers {} ids, a scan of the table's text {} (document {first} only in {side})",
                o.tokenizer,
                got.len(),
                want.len()
            )));
        }
        out.clear();
        let params = [crate::engines::Value::Text(&text), crate::engines::Value::Int(k as i64)];
        conn.run_values(ranked, &params, &mut out)?;
        let top: Vec<i64> = (0..out.len())
            .filter_map(|i| out.get(i).number().map(|n| n as i64))
            .collect();
        let expect = want.len().min(k as usize);
        if top.len() != expect || top.iter().any(|id| !want.contains(id)) {
            return Err(fail(format!(
                "{q}: the ranked query with LIMIT {k} returned {} ids, expected {expect} of the {} matching",
                top.len(),
                want.len()
            )));
        }
    }
    Ok(())
}
