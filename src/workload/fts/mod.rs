//! `fts`: full-text search as the search, notes and agent-memory applications on SQLite run it,
//! an FTS5 index over a generated corpus queried with `MATCH` and ranked with `bm25()`, and kept
//! up to date by inserts, updates and deletes; PostgreSQL's `tsvector` and GIN as its peer.
//!
//! - [`corpus`]: a Zipfian vocabulary and lognormal document lengths, drawn from the seed;
//! - [`query`]: and, or, phrase and prefix queries, in FTS5's and PostgreSQL's languages, and
//!   their answers by a scan of the text;
//! - [`schema`]: the index and the statements per engine;
//! - [`client`]: a client's operations for the load driver;
//! - [`check`]: the answers checked after every trial;
//! - [`report`]: the answer on the first screen.
//!
//! The tokenizer and `detail=` are the knobs `fts_tokenizer` and `fts_detail`, not parameters:
//! a run crosses knobs' values into configurations that compare side by side (a parameter is
//! one per run), and as create-stage knobs each value gets a template, its index built once and
//! read back from the index's declaration. Combinations FTS5 refuses are refused before
//! anything runs ([`Workload::check_configuration`]).

pub mod check;
pub mod client;
pub mod corpus;
pub mod query;
pub mod report;
pub mod schema;

use super::load::{self, Budget, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::bulk::input_error;
use crate::engines::{Connection, Dialect, EngineError, Value};
use crate::model::knob::KnobSet;
use crate::model::params::{ParamKind, ParamSpec, Params};
use crate::workload::recorder::Recorder;
use client::{FtsClient, Mix, OPS};
use corpus::{Corpus, Shape};
use schema::Options;

/// The workload.
pub struct Fts;

/// The knobs this workload reads.
pub const TOKENIZER_KNOB: &str = "fts_tokenizer";
pub const DETAIL_KNOB: &str = "fts_detail";

const WEIGHT: ParamKind = ParamKind::Fraction { min: 0.0, max: 1000.0 };

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "documents",
        kind: ParamKind::Count {
            min: 1,
            max: 100_000_000,
        },
        default: "2000",
        help: "documents populated and indexed",
    },
    ParamSpec {
        name: "vocabulary",
        kind: ParamKind::Count {
            min: 1,
            max: 10_000_000,
        },
        default: "5000",
        help: "distinct words, used by Zipf's law",
    },
    ParamSpec {
        name: "skew",
        kind: ParamKind::Fraction { min: 0.0, max: 4.0 },
        default: "1.0",
        help: "Zipf's exponent: a word of rank r is used in proportion to 1/r^skew (natural text: about 1)",
    },
    ParamSpec {
        name: "length",
        kind: ParamKind::Count {
            min: 1,
            max: corpus::MAX_WORDS,
        },
        default: "50",
        help: "the median document's words (lengths are lognormal around it)",
    },
    ParamSpec {
        name: "spread",
        kind: ParamKind::Fraction { min: 0.0, max: 3.0 },
        default: "0.8",
        help: "the lognormal's sigma: 0 makes every document `length` words",
    },
    ParamSpec {
        name: "k",
        kind: ParamKind::Count { min: 1, max: 100_000 },
        default: "10",
        help: "LIMIT of the ranked queries",
    },
    ParamSpec {
        name: "operations",
        kind: ParamKind::Count {
            min: 1,
            max: 1_000_000_000,
        },
        default: "2000",
        help: "operations per trial over all clients",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run every client for this long instead (0: run `operations` operations)",
    },
    ParamSpec {
        name: "and",
        kind: WEIGHT,
        default: "30",
        help: "weight of AND queries of 1-3 words of one frequency band",
    },
    ParamSpec {
        name: "or",
        kind: WEIGHT,
        default: "20",
        help: "weight of OR queries of 1-3 words of one frequency band",
    },
    ParamSpec {
        name: "phrase",
        kind: WEIGHT,
        default: "15",
        help: "weight of phrase queries (2-3 consecutive words of a document); needs fts_detail=full",
    },
    ParamSpec {
        name: "prefix",
        kind: WEIGHT,
        default: "15",
        help: "weight of prefix queries (a word's first 3 letters); not with fts_tokenizer=trigram",
    },
    ParamSpec {
        name: "insert",
        kind: WEIGHT,
        default: "10",
        help: "weight of inserts of new documents",
    },
    ParamSpec {
        name: "update",
        kind: WEIGHT,
        default: "7",
        help: "weight of updates replacing a populated document's text",
    },
    ParamSpec {
        name: "delete",
        kind: WEIGHT,
        default: "3",
        help: "weight of deletes of a document the client inserted",
    },
    ParamSpec {
        name: "automerge",
        kind: ParamKind::Count { min: 0, max: 16 },
        default: "4",
        help: "FTS5's automerge: segments of a level merged in the background (0: never)",
    },
    ParamSpec {
        name: "optimize",
        kind: ParamKind::Choice(&["on", "off"]),
        default: "on",
        help: "on: FTS5's 'optimize' merges the populated index into one segment before the trials",
    },
    ParamSpec {
        name: "check",
        kind: ParamKind::Count { min: 0, max: 100_000 },
        default: "30",
        help: "queries whose matching ids are checked against a scan of the text after every trial",
    },
];

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "fts",
    about: "full-text search: an FTS5 index over a Zipfian corpus, AND/OR/phrase/prefix MATCH queries ranked by bm25() with LIMIT k, inserts, updates and deletes through the index",
    source: "SQLite's FTS5 (sqlite.org/fts5.html); Zipf's law of word use and lognormal document lengths (docs/workloads.md)",
    params: PARAMS,
    operations: &OPS,
    default_knobs: super::kind::WAIT_FOR_LOCKS,
    ..WorkloadKind::BASE
};

fn shape(p: &Params) -> Shape {
    Shape {
        vocabulary: p.count("vocabulary"),
        skew: p.real("skew"),
        median_words: p.count("length"),
        spread: p.real("spread"),
    }
}

fn mix(p: &Params) -> Mix {
    let mut weights = [0.0; 7];
    for (w, name) in weights.iter_mut().zip(OPS) {
        *w = p.real(name);
    }
    Mix {
        weights,
        documents: p.count("documents"),
        k: p.count("k"),
    }
}

/// The options `knobs` ask for, FTS5's defaults where they ask nothing.
fn options(knobs: &KnobSet) -> Options<'_> {
    Options {
        tokenizer: knobs.get(TOKENIZER_KNOB).unwrap_or(Options::DEFAULT.tokenizer),
        detail: knobs.get(DETAIL_KNOB).unwrap_or(Options::DEFAULT.detail),
    }
}

/// Refuses, in one line, what FTS5 itself would refuse with options `o` and parameters `p`.
pub fn refusal(o: Options<'_>, p: &Params) -> Option<String> {
    if o.tokenizer == "trigram" && o.detail != "full" {
        return Some(format!(
            "--knob fts_tokenizer=trigram with fts_detail={}: FTS5 answers a term longer than 3 letters under trigram as a phrase of trigrams, which detail={} cannot answer, and every word of the corpus is 3 letters or more; run trigram with fts_detail=full",
            o.detail, o.detail
        ));
    }
    if o.detail != "full" && p.real("phrase") > 0.0 {
        return Some(format!(
            "--knob fts_detail={}: FTS5 answers phrase queries only with detail=full (it keeps no positions otherwise); give --param phrase=0, or leave fts_detail=full",
            o.detail
        ));
    }
    if o.tokenizer == "trigram" && p.real("prefix") > 0.0 {
        return Some(
            "--knob fts_tokenizer=trigram: under trigram a prefix query \"abc\"* matches \"abc\" anywhere in a word, not a prefix; give --param prefix=0, or another tokenizer".into(),
        );
    }
    None
}

/// Refuses an engine that cannot run the workload, in one line; `None` where it can.
fn engine_refusal(conn: &mut dyn Connection) -> Result<Option<String>, EngineError> {
    Ok(match conn.dialect() {
        Dialect::Duckdb => Some("DuckDB's full-text search is its fts extension, which DuckDB downloads at first use (INSTALL fts) and litebench does not fetch; run fts on sqlite or postgres".into()),
        Dialect::Mysql => Some("MariaDB's FULLTEXT index leaves out stop words and words shorter than innodb_ft_min_token_size, so its matching ids would not be FTS5's; run fts on sqlite or postgres".into()),
        Dialect::Postgres => None,
        Dialect::Sqlite => {
            let options: Vec<String> = conn
                .query("PRAGMA compile_options")
                .unwrap_or_default()
                .into_iter()
                .filter_map(|row| row.into_iter().next().flatten())
                .collect();
            (!crate::engines::sqlite::fts5::has_fts5(&options)).then(|| {
                "this engine has no FTS5 (its PRAGMA compile_options lists no ENABLE_FTS5: a SQLite built without it, or Turso); run fts on a SQLite with it, such as the bundled --engine sqlite, or build one with litebench build-sqlite VERSION --cflags -DSQLITE_ENABLE_FTS5".to_string()
            })
        }
    })
}

/// Fills the template: the table, then every document through the engine's bulk path, then
/// the index merged where `optimize` is on.
fn fill(conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
    let p = pop.params;
    let d = conn.dialect();
    for sql in schema::create(d, options(&pop.knobs), p.count("automerge")) {
        conn.execute_batch(&sql)?;
    }
    let corpus = Corpus::new(shape(p), pop.seed);
    let documents = p.count("documents");
    let mut text = String::with_capacity(1024);
    let mut rows = |sink: &mut dyn crate::engines::bulk::RowSink| -> Result<(), EngineError> {
        for id in 1..=documents {
            corpus.document(id, &mut text);
            sink.row(&[Value::Int(id as i64), Value::Text(&text)])?;
        }
        Ok(())
    };
    let loaded = pop.bulk_load(conn, schema::TABLE, &schema::columns(d), &mut rows)?;
    conn.execute_batch(&schema::keep_seed(pop.seed))?;
    if p.choice("optimize") == "on" {
        if let Some(sql) = schema::optimize(d) {
            conn.execute_batch(&sql)?;
        }
    }
    Ok(loaded)
}

impl Workload for Fts {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        if OPS.iter().all(|op| p.real(op) == 0.0) {
            return Err("--param: every operation's weight is 0; give one a weight above 0 (--param and=1)".into());
        }
        Ok(())
    }

    fn check_configuration(
        &self,
        p: &Params,
        _engine: &crate::engines::kind::EngineKind,
        knobs: &KnobSet,
        _clients: u32,
    ) -> Result<(), String> {
        refusal(options(knobs), p).map_or(Ok(()), Err)
    }

    /// `fts_tokenizer`, `fts_detail`: the options its index is created with.
    fn reads_knob(&self, knob: &str, _p: &Params) -> Result<(), String> {
        if knob == TOKENIZER_KNOB || knob == DETAIL_KNOB {
            return Ok(());
        }
        Err(format!(
            "no statement of fts reads {knob} (each of its statements is a transaction of its own)"
        ))
    }

    fn report(&self) -> &dyn super::WorkloadReport {
        &report::FtsReport
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        if let Some(why) = engine_refusal(conn)? {
            return Err(input_error("fts", why).into());
        }
        if let Some(why) = refusal(options(&pop.knobs), pop.params) {
            return Err(input_error("fts", why).into());
        }
        fill(conn, pop)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let (tokenizer, detail) = match conn.dialect() {
            Dialect::Postgres => (None, None),
            _ => (
                crate::engines::sqlite::fts5::declared(conn, TOKENIZER_KNOB)?,
                crate::engines::sqlite::fts5::declared(conn, DETAIL_KNOB)?,
            ),
        };
        let o = Options {
            tokenizer: tokenizer.as_deref().unwrap_or(Options::DEFAULT.tokenizer),
            detail: detail.as_deref().unwrap_or(Options::DEFAULT.detail),
        };
        check::check(conn, o, p.count("documents"), p.count("check"), p.count("k"))
    }
}

impl Streams for Fts {
    type Client<'c> = FtsClient<'c>;

    fn budget(&self, params: &Params) -> Budget {
        Budget::operations_or_duration(params)
    }

    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        Some(load::OPERATIONS_OR_DURATION)
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        clients: u32,
        seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        // The template's corpus, whose words the queries and new texts are drawn from.
        let corpus_seed = conn
            .query_value(&schema::corpus_seed())?
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| {
                WorkloadError::check_failed(
                    "fts",
                    format!(
                        "client {index}: the database holds no corpus seed (table {}); was it populated by fts?",
                        schema::SEED_TABLE
                    ),
                )
            })?;
        let corpus = Corpus::new(shape(params), corpus_seed);
        Ok(FtsClient::new(conn, corpus, mix(params), index, clients, seed)?)
    }
}

#[cfg(test)]
mod tests;
