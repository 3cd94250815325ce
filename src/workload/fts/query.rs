//! A full-text query: its kind, its terms drawn from the corpus, its text in each engine's
//! query language (FTS5's `MATCH`, PostgreSQL's `tsquery`), and its answer by brute force, a
//! scan of the documents' text in Rust that the index's answer is checked against.
//!
//! | kind | terms | FTS5 | tsquery | matches a document that |
//! | --- | --- | --- | --- | --- |
//! | and | 1-3 words of one band | `"a" AND "b"` | `a & b` | has every word |
//! | or | 1-3 words of one band | `"a" OR "b"` | `a \| b` | has any word |
//! | phrase | 2-3 consecutive words of a populated document | `"a b"` | `a <-> b` | has them in a row |
//! | prefix | a band word's first 3 letters | `"abc"*` | `abc:*` | has a word starting so |
//!
//! Under the `trigram` tokenizer a term is a substring, not a word: the scan then looks for
//! the term's text anywhere in the document (FTS5 compares case-insensitively; the corpus is
//! lower case).

use super::corpus::{Band, Corpus};
use rand::Rng;

/// The kinds of query, in the operation order of the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    And,
    Or,
    Phrase,
    Prefix,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::And, Kind::Or, Kind::Phrase, Kind::Prefix];

    pub fn name(self) -> &'static str {
        match self {
            Kind::And => "and",
            Kind::Or => "or",
            Kind::Phrase => "phrase",
            Kind::Prefix => "prefix",
        }
    }
}

/// How a tokenizer cuts a document into what a term matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// Words between spaces (`unicode61`, `porter` on this corpus, PostgreSQL's `simple`).
    Words,
    /// Substrings of the text (`trigram`).
    Substrings,
}

/// One query.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub kind: Kind,
    /// Words (and, or), the phrase's words in order, or the prefix.
    pub terms: Vec<String>,
}

impl Query {
    /// A query of `kind`, drawn from `corpus` with `rng`; `documents` populated ones to take a
    /// phrase from.
    pub fn draw(kind: Kind, corpus: &Corpus, documents: u64, rng: &mut impl Rng, scratch: &mut String) -> Query {
        let band = Band::ALL[rng.random_range(0..Band::ALL.len())];
        let terms = match kind {
            Kind::And | Kind::Or => {
                let n = rng.random_range(1..=3);
                (0..n).map(|_| corpus.word_in(band, rng).to_string()).collect()
            }
            Kind::Prefix => vec![corpus.word_in(band, rng)[..3].to_string()],
            Kind::Phrase => {
                corpus.document(rng.random_range(1..=documents.max(1)), scratch);
                let words: Vec<&str> = scratch.split(' ').collect();
                let n = rng.random_range(2..=3).min(words.len());
                let start = rng.random_range(0..=words.len() - n);
                words[start..start + n].iter().map(|w| w.to_string()).collect()
            }
        };
        Query { kind, terms }
    }

    /// The query as FTS5's `MATCH` reads it (every term quoted: no word is an operator).
    pub fn fts5(&self) -> String {
        let quoted = |t: &String| format!("\"{t}\"");
        match self.kind {
            Kind::And => self.terms.iter().map(quoted).collect::<Vec<_>>().join(" AND "),
            Kind::Or => self.terms.iter().map(quoted).collect::<Vec<_>>().join(" OR "),
            Kind::Phrase => format!("\"{}\"", self.terms.join(" ")),
            Kind::Prefix => format!("\"{}\"*", self.terms[0]),
        }
    }

    /// The query as PostgreSQL's `to_tsquery('simple', ...)` reads it.
    pub fn tsquery(&self) -> String {
        match self.kind {
            Kind::And => self.terms.join(" & "),
            Kind::Or => self.terms.join(" | "),
            Kind::Phrase => self.terms.join(" <-> "),
            Kind::Prefix => format!("{}:*", self.terms[0]),
        }
    }

    /// Whether document `text` matches, by a scan of its text.
    pub fn matches(&self, text: &str, m: Matching) -> bool {
        match m {
            Matching::Substrings => match self.kind {
                Kind::And => self.terms.iter().all(|t| text.contains(t.as_str())),
                Kind::Or => self.terms.iter().any(|t| text.contains(t.as_str())),
                Kind::Phrase => text.contains(&self.terms.join(" ")),
                Kind::Prefix => text.contains(self.terms[0].as_str()),
            },
            Matching::Words => {
                let has = |t: &str| text.split(' ').any(|w| w == t);
                match self.kind {
                    Kind::And => self.terms.iter().all(|t| has(t)),
                    Kind::Or => self.terms.iter().any(|t| has(t)),
                    Kind::Phrase => {
                        let words: Vec<&str> = text.split(' ').collect();
                        words
                            .windows(self.terms.len())
                            .any(|w| w.iter().zip(&self.terms).all(|(a, b)| *a == b))
                    }
                    Kind::Prefix => text.split(' ').any(|w| w.starts_with(self.terms[0].as_str())),
                }
            }
        }
    }
}

impl std::fmt::Display for Query {
    /// How a failed check names the query: its kind and its FTS5 text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} query {}", self.kind.name(), self.fts5())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::fts::corpus::Shape;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn q(kind: Kind, terms: &[&str]) -> Query {
        Query {
            kind,
            terms: terms.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn each_kind_reads_in_both_languages() {
        assert_eq!(q(Kind::And, &["bak", "tiv"]).fts5(), "\"bak\" AND \"tiv\"");
        assert_eq!(q(Kind::Or, &["bak", "tiv", "lup"]).tsquery(), "bak | tiv | lup");
        assert_eq!(q(Kind::Phrase, &["bak", "tiv"]).fts5(), "\"bak tiv\"");
        assert_eq!(q(Kind::Phrase, &["bak", "tiv"]).tsquery(), "bak <-> tiv");
        assert_eq!(q(Kind::Prefix, &["bak"]).fts5(), "\"bak\"*");
        assert_eq!(q(Kind::Prefix, &["bak"]).tsquery(), "bak:*");
    }

    #[test]
    fn words_and_substrings_match_as_their_tokenizers_do() {
        let text = "xbakop tivex bakop";
        assert!(q(Kind::And, &["bakop", "tivex"]).matches(text, Matching::Words));
        assert!(!q(Kind::And, &["bako", "tivex"]).matches(text, Matching::Words));
        assert!(q(Kind::And, &["bako", "tivex"]).matches(text, Matching::Substrings));
        assert!(q(Kind::Phrase, &["tivex", "bakop"]).matches(text, Matching::Words));
        assert!(!q(Kind::Phrase, &["bakop", "tivex"]).matches(text, Matching::Words));
        assert!(q(Kind::Phrase, &["bakop", "tivex"]).matches(text, Matching::Substrings));
        assert!(q(Kind::Prefix, &["tiv"]).matches(text, Matching::Words));
        assert!(!q(Kind::Prefix, &["ako"]).matches(text, Matching::Words));
        assert!(q(Kind::Or, &["zuk", "tivex"]).matches(text, Matching::Words));
    }

    #[test]
    fn drawn_queries_are_seeded_and_phrases_come_from_documents() {
        let corpus = Corpus::new(
            Shape {
                vocabulary: 500,
                skew: 1.0,
                median_words: 20,
                spread: 0.5,
            },
            4,
        );
        let draw = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut s = String::new();
            Kind::ALL
                .iter()
                .cycle()
                .take(200)
                .map(|k| Query::draw(*k, &corpus, 100, &mut rng, &mut s))
                .collect::<Vec<_>>()
        };
        let (a, b) = (draw(1), draw(1));
        assert_eq!(a, b);
        assert_ne!(a, draw(2));
        let mut text = String::new();
        for query in a.iter().filter(|q| q.kind == Kind::Phrase) {
            let found = (1..=100).any(|id| {
                corpus.document(id, &mut text);
                query.matches(&text, Matching::Words)
            });
            assert!(found, "{query} is in no document");
        }
        for query in &a {
            assert!((1..=3).contains(&query.terms.len()), "{query}");
            if query.kind == Kind::Prefix {
                assert_eq!(query.terms[0].len(), 3);
            }
        }
    }
}
