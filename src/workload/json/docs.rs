//! The logical documents: each drawn from the run's seed and its own id alone, so the same seed
//! gives the same documents whatever their number or the order they are made in, on every
//! engine and in every representation.
//!
//! A document has the shape of an application's record: a nested object (`user`), a few hot
//! scalar fields (`status`, `score`, `user.country`, the ones filters and updates touch), an
//! array of scalars (`tags`), an array of objects (`items`) and a second nested object
//! (`meta`). Numbers are integers (prices in cents): every engine writes an integer alike,
//! where a fraction's text differs between them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// The countries `user.country` takes, uniformly: a filter on one selects about 1/20 of the
/// documents.
pub const COUNTRIES: [&str; 20] = [
    "ar", "au", "br", "ca", "cn", "de", "es", "fr", "gb", "id", "in", "it", "jp", "kr", "mx", "ng", "nl", "pl", "se",
    "us",
];

/// The values `status` takes.
pub const STATUSES: [&str; 3] = ["active", "idle", "closed"];

/// Scores are below this.
pub const MAX_SCORE: i64 = 100_000;

const SOURCES: [&str; 3] = ["web", "app", "api"];

/// The seed of document `id`'s own draws.
fn doc_seed(seed: u64, id: u64) -> u64 {
    seed ^ id.wrapping_add(1).wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// Document `id` (from 1) of the run with `seed`.
pub fn document(seed: u64, id: u64) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(doc_seed(seed, id));
    let tags: Vec<String> = (0..rng.random_range(1..=6))
        .map(|_| format!("t{}", rng.random_range(0..50)))
        .collect();
    let items: Vec<Value> = (0..rng.random_range(0..=4))
        .map(|_| {
            json!({
                "sku": format!("s{:05}", rng.random_range(0..20_000)),
                "qty": rng.random_range(1..=9),
                "price": rng.random_range(99..=99_999),
            })
        })
        .collect();
    json!({
        "key": format!("d{id:08}"),
        "user": {
            "name": format!("user-{}", rng.random_range(0..1_000_000)),
            "country": COUNTRIES[rng.random_range(0..COUNTRIES.len())],
            "tier": rng.random_range(1..=5),
        },
        "status": STATUSES[rng.random_range(0..STATUSES.len())],
        "score": rng.random_range(0..MAX_SCORE),
        "tags": tags,
        "items": items,
        "meta": {
            "created": 1_700_000_000 + rng.random_range(0..31_536_000),
            "source": SOURCES[rng.random_range(0..SOURCES.len())],
            "verified": rng.random_bool(0.5),
        },
    })
}

/// Document `id`'s text, as it is stored and loaded (compact JSON).
pub fn text(seed: u64, id: u64) -> String {
    document(seed, id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_documents_other_seed_other_documents() {
        for id in [1, 2, 500, 10_000] {
            assert_eq!(text(7, id), text(7, id));
            assert_ne!(text(7, id), text(8, id));
        }
        assert_ne!(text(7, 1), text(7, 2));
    }

    #[test]
    fn a_document_has_the_nested_shape_and_hot_fields() {
        for id in 1..200 {
            let d = document(3, id);
            assert_eq!(d["key"], format!("d{id:08}"));
            assert!(COUNTRIES.contains(&d["user"]["country"].as_str().unwrap()));
            assert!(STATUSES.contains(&d["status"].as_str().unwrap()));
            let score = d["score"].as_i64().unwrap();
            assert!((0..MAX_SCORE).contains(&score));
            let tags = d["tags"].as_array().unwrap();
            assert!((1..=6).contains(&tags.len()));
            assert!(d["items"].as_array().unwrap().len() <= 4);
            assert!(d["meta"]["verified"].is_boolean());
        }
        // Every country is drawn at 1/20 or so.
        let de = (1..=4000)
            .filter(|&id| document(5, id)["user"]["country"] == "de")
            .count();
        assert!((120..280).contains(&de), "{de} of 4000 in one country");
    }
}
