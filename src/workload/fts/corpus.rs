//! The generated corpus: a vocabulary whose words are used by Zipf's law, and documents whose
//! lengths are lognormal, all drawn from the run's seed, so every engine and every trial indexes
//! the same text and the answer check can regenerate any of it.
//!
//! Why these laws: a word's frequency in natural text falls as a power of its rank (Zipf,
//! *Human Behavior and the Principle of Least Effort*, 1949; Piantadosi, "Zipf's word frequency
//! law in natural language", Psychonomic Bulletin & Review 21, 2014, exponent near 1), which
//! makes a few terms' posting lists huge and most tiny, what an inverted index is built around;
//! and the lengths of what people write (posts, comments, notes) are lognormal (Sobkowicz et
//! al., "Lognormal distributions of user post lengths in Internet discussions", EPJ Data
//! Science 2, 2013), a long right tail of long documents over many short ones.
//!
//! Words are syllables (a consonant and a vowel) closed by one of [`FINALS`], a letter no
//! suffix of the Porter stemmer ends with, so `porter` indexes every word as itself and the
//! three tokenizers agree on what a word is (a unit test asks SQLite's own stemmer).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, LogNormal, Zipf};

const CONSONANTS: &[u8] = b"bdfghjklmnprstvz";
const VOWELS: &[u8] = b"aeiou";
/// The last letter of every word: none ends a Porter suffix (s, ed, ing, y, ational, ...).
pub const FINALS: &[u8] = b"kpbxzfv";
/// Most words a document may have, whatever the draw (the lognormal's tail is unbounded).
pub const MAX_WORDS: u64 = 20_000;

/// Word number `n` (a bijection: distinct numbers make distinct words, at least 3 letters).
pub fn word(n: u64) -> String {
    let syllables = (CONSONANTS.len() * VOWELS.len()) as u64;
    let mut s = String::with_capacity(12);
    let final_letter = FINALS[(n % FINALS.len() as u64) as usize];
    let mut rest = n / FINALS.len() as u64;
    loop {
        let syl = (rest % syllables) as usize;
        s.push(CONSONANTS[syl / VOWELS.len()] as char);
        s.push(VOWELS[syl % VOWELS.len()] as char);
        rest /= syllables;
        if rest == 0 {
            break;
        }
    }
    s.push(final_letter as char);
    s
}

/// Which part of the vocabulary by frequency a query's terms come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Band {
    /// The most frequent 1% of the words (long posting lists).
    High,
    /// The next 9%.
    Mid,
    /// The other 90% (short posting lists, many words seen a few times or never).
    Low,
}

impl Band {
    pub const ALL: [Band; 3] = [Band::High, Band::Mid, Band::Low];

    /// Its ranks among `n` words by frequency: non-empty where `n` is not zero.
    pub fn ranks(self, n: usize) -> std::ops::Range<usize> {
        let high = (n / 100).max(1).min(n);
        let mid = (n / 10).max(high + 1).min(n);
        match self {
            Band::High => 0..high,
            Band::Mid if mid > high => high..mid,
            Band::Low if n > mid => mid..n,
            // A vocabulary too small for three bands: all of it.
            Band::Mid | Band::Low => 0..n,
        }
    }
}

/// The corpus's shape and its words.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Words by frequency rank: `vocabulary[0]` is the most frequent.
    vocabulary: Vec<String>,
    zipf: Zipf<f64>,
    length: LogNormal<f64>,
    seed: u64,
}

/// The corpus's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    pub vocabulary: u64,
    /// Zipf's exponent.
    pub skew: f64,
    /// The median document, in words (the lognormal's `exp(mu)`).
    pub median_words: u64,
    /// The lognormal's sigma.
    pub spread: f64,
}

impl Corpus {
    /// The corpus of `shape` drawn from `seed`: which word has which rank is a permutation
    /// drawn from it.
    pub fn new(shape: Shape, seed: u64) -> Corpus {
        let mut numbers: Vec<u64> = (0..shape.vocabulary.max(1)).collect();
        numbers.shuffle(&mut ChaCha8Rng::seed_from_u64(seed ^ 0x766f_6361_6275_6c61));
        Corpus {
            vocabulary: numbers.into_iter().map(word).collect(),
            // Both only refuse a non-positive size or a negative or non-finite parameter, which
            // the parameters' ranges exclude.
            zipf: Zipf::new(shape.vocabulary.max(1) as f64, shape.skew.max(0.0)).expect("a valid Zipf law"),
            length: LogNormal::new((shape.median_words.max(1) as f64).ln(), shape.spread.max(0.0))
                .expect("a valid lognormal"),
            seed,
        }
    }

    /// Words by frequency rank.
    pub fn vocabulary(&self) -> &[String] {
        &self.vocabulary
    }

    /// The ranks of band `b`: a non-empty range.
    pub fn band(&self, b: Band) -> std::ops::Range<usize> {
        b.ranks(self.vocabulary.len())
    }

    /// A word of band `b`, uniform within it.
    pub fn word_in(&self, b: Band, rng: &mut impl Rng) -> &str {
        &self.vocabulary[rng.random_range(self.band(b))]
    }

    /// A text of a lognormal number of words, each drawn by Zipf's law, into `out`.
    pub fn text(&self, rng: &mut impl Rng, out: &mut String) {
        out.clear();
        let words = (self.length.sample(rng).round() as u64).clamp(1, MAX_WORDS);
        for i in 0..words {
            if i > 0 {
                out.push(' ');
            }
            let rank = self.zipf.sample(rng) as usize;
            out.push_str(&self.vocabulary[rank.clamp(1, self.vocabulary.len()) - 1]);
        }
    }

    /// Populated document `id`'s text, the same for every engine and trial.
    pub fn document(&self, id: u64, out: &mut String) {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ id.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        self.text(&mut rng, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    const SHAPE: Shape = Shape {
        vocabulary: 2000,
        skew: 1.0,
        median_words: 40,
        spread: 0.8,
    };

    #[test]
    fn words_are_distinct_three_letters_or_more_and_end_in_a_final() {
        let words: Vec<String> = (0..50_000).map(word).collect();
        let set: HashSet<&String> = words.iter().collect();
        assert_eq!(set.len(), words.len(), "two numbers made one word");
        for w in &words {
            assert!(w.len() >= 3, "{w}");
            assert!(FINALS.contains(&w.as_bytes()[w.len() - 1]), "{w}");
            assert!(w.bytes().all(|b| b.is_ascii_lowercase()), "{w}");
        }
    }

    #[test]
    fn the_same_seed_makes_the_same_corpus_and_another_seed_another() {
        let (a, b, c) = (Corpus::new(SHAPE, 7), Corpus::new(SHAPE, 7), Corpus::new(SHAPE, 8));
        assert_eq!(a.vocabulary(), b.vocabulary());
        assert_ne!(a.vocabulary(), c.vocabulary());
        let (mut x, mut y, mut z) = (String::new(), String::new(), String::new());
        for id in 1..50 {
            a.document(id, &mut x);
            b.document(id, &mut y);
            c.document(id, &mut z);
            assert_eq!(x, y, "document {id}");
            assert_ne!(x, z, "document {id}");
        }
    }

    /// Zipf: the most frequent word is used about twice as often as the second and ten times
    /// as often as the tenth (s = 1); lengths: the median near the parameter.
    #[test]
    fn word_use_falls_with_rank_and_the_median_length_is_the_parameter() {
        let corpus = Corpus::new(SHAPE, 3);
        let mut counts: HashMap<String, u64> = HashMap::new();
        let mut lengths = Vec::new();
        let mut text = String::new();
        for id in 1..=3000 {
            corpus.document(id, &mut text);
            let words: Vec<&str> = text.split(' ').collect();
            lengths.push(words.len());
            for w in words {
                *counts.entry(w.to_string()).or_default() += 1;
            }
        }
        let count = |rank: usize| counts.get(&corpus.vocabulary()[rank]).copied().unwrap_or(0) as f64;
        let (first, second, tenth) = (count(0), count(1), count(9));
        assert!((1.7..2.3).contains(&(first / second)), "{first} / {second}");
        assert!((8.0..12.5).contains(&(first / tenth)), "{first} / {tenth}");
        lengths.sort_unstable();
        let median = lengths[lengths.len() / 2];
        assert!((36..=44).contains(&median), "median length {median}");
        // The lognormal's right tail: the longest documents are several times the median.
        assert!(lengths[lengths.len() - 1] > 3 * median, "{lengths:?}");
    }

    #[test]
    fn bands_split_the_vocabulary_by_rank() {
        let corpus = Corpus::new(SHAPE, 1);
        assert_eq!(corpus.band(Band::High), 0..20);
        assert_eq!(corpus.band(Band::Mid), 20..200);
        assert_eq!(corpus.band(Band::Low), 200..2000);
        let tiny = Corpus::new(Shape { vocabulary: 3, ..SHAPE }, 1);
        for b in Band::ALL {
            assert!(!tiny.band(b).is_empty(), "{b:?}");
        }
    }
}
