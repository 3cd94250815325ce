//! TPC-C's random functions (TPC-C 5.11 §2.1.4-§2.1.6, §4.3.2): uniform draws, NURand with
//! its C constants, customer last names from syllables, and the a-string, n-string and zip
//! codes of the initial population.
//!
//! The C constants are chosen at random per run, as §2.1.6 asks, and recorded: one for C_ID,
//! one for OL_I_ID, and for C_LAST one at load time and one at run time whose difference obeys
//! §2.1.6.1's rule (|C_run - C_load| in 65..=119, and neither 96 nor 112), so the names the run
//! looks up are not exactly the ones the load made common. go-tpc (v1.0.7) swaps the C ranges of
//! C_ID and OL_I_ID and uses the load's C at run time; BenchBase fixes all four in its code.

use rand::Rng;

/// The ten syllables of a customer's last name (§4.3.2.3).
pub const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// NURand's A for C_LAST, C_ID and OL_I_ID (§2.1.6).
pub const A_LAST: u32 = 255;
pub const A_C_ID: u32 = 1023;
pub const A_I_ID: u32 = 8191;

/// The run's C constants (§2.1.6), drawn once per run and recorded in its manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    /// C for C_LAST when the database was loaded.
    pub c_last_load: u32,
    /// C for C_LAST at run time: |c_last_run - c_last_load| in 65..=119, not 96 or 112.
    pub c_last_run: u32,
    /// C for C_ID (0..=1023).
    pub c_id: u32,
    /// C for OL_I_ID (0..=8191).
    pub ol_i_id: u32,
}

/// Whether C_run may be used with C_load (§2.1.6.1).
pub fn delta_ok(load: u32, run: u32) -> bool {
    let d = load.abs_diff(run);
    (65..=119).contains(&d) && d != 96 && d != 112
}

impl Constants {
    /// The run's constants, drawn from `rng`: C_LOAD, then C_RUN until the delta rule holds,
    /// then C_ID and OL_I_ID's C.
    pub fn draw(rng: &mut impl Rng) -> Constants {
        let c_last_load = rng.random_range(0..=A_LAST);
        let c_last_run = loop {
            let c = rng.random_range(0..=A_LAST);
            if delta_ok(c_last_load, c) {
                break c;
            }
        };
        Constants {
            c_last_load,
            c_last_run,
            c_id: rng.random_range(0..=A_C_ID),
            ol_i_id: rng.random_range(0..=A_I_ID),
        }
    }

    /// As the manifest records them: `c_last_load=… c_last_run=… c_id=… ol_i_id=…`.
    pub fn text(&self) -> String {
        format!(
            "c_last_load={} c_last_run={} c_id={} ol_i_id={}",
            self.c_last_load, self.c_last_run, self.c_id, self.ol_i_id
        )
    }

    /// Parses [`Constants::text`]; `None` when a constant is missing or out of range, or the
    /// delta rule does not hold.
    pub fn parse(text: &str) -> Option<Constants> {
        let mut c = [None; 4];
        for word in text.split_whitespace() {
            let (k, v) = word.split_once('=')?;
            let v: u32 = v.parse().ok()?;
            let i = ["c_last_load", "c_last_run", "c_id", "ol_i_id"]
                .iter()
                .position(|n| *n == k)?;
            c[i] = Some(v);
        }
        let k = Constants {
            c_last_load: c[0]?,
            c_last_run: c[1]?,
            c_id: c[2]?,
            ol_i_id: c[3]?,
        };
        (k.c_last_load <= A_LAST
            && k.c_last_run <= A_LAST
            && k.c_id <= A_C_ID
            && k.ol_i_id <= A_I_ID
            && delta_ok(k.c_last_load, k.c_last_run))
        .then_some(k)
    }
}

/// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x (§2.1.6).
pub fn nurand(rng: &mut impl Rng, a: u32, c: u32, x: u32, y: u32) -> u32 {
    (((rng.random_range(0..=a) | rng.random_range(x..=y)) + c) % (y - x + 1)) + x
}

/// A customer id for a transaction: NURand(1023, 1, 3000).
pub fn customer_id(rng: &mut impl Rng, k: &Constants) -> u32 {
    nurand(rng, A_C_ID, k.c_id, 1, 3000)
}

/// An item id for an order line: NURand(8191, 1, 100000).
pub fn item_id(rng: &mut impl Rng, k: &Constants) -> u32 {
    nurand(rng, A_I_ID, k.ol_i_id, 1, 100_000)
}

/// The last-name number a transaction looks up: NURand(255, 0, 999) with C_RUN.
pub fn last_name_number(rng: &mut impl Rng, k: &Constants) -> u32 {
    nurand(rng, A_LAST, k.c_last_run, 0, 999)
}

/// The last name of number `n` (0..=999): its three digits' syllables (§4.3.2.3).
pub fn last_name(n: u32) -> String {
    let mut s = String::with_capacity(15);
    for d in [n / 100 % 10, n / 10 % 10, n % 10] {
        s.push_str(SYLLABLES[d as usize]);
    }
    s
}

/// An a-string of random length in `min..=max` (§4.3.2.2: alphanumeric characters).
pub fn a_string(rng: &mut impl Rng, min: usize, max: usize) -> String {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let len = rng.random_range(min..=max);
    (0..len)
        .map(|_| CHARS[rng.random_range(0..CHARS.len())] as char)
        .collect()
}

/// An n-string (digits) of random length in `min..=max`.
pub fn n_string(rng: &mut impl Rng, min: usize, max: usize) -> String {
    let len = rng.random_range(min..=max);
    (0..len).map(|_| char::from(b'0' + rng.random_range(0..10u8))).collect()
}

/// A zip code: four random digits then `11111` (§4.3.2.7).
pub fn zip(rng: &mut impl Rng) -> String {
    n_string(rng, 4, 4) + "11111"
}

/// I_DATA or S_DATA: an a-string of 26..=50 characters, 10% of them with `ORIGINAL` at a random
/// place (§4.3.3.1).
pub fn data_with_original(rng: &mut impl Rng) -> String {
    let mut s = a_string(rng, 26, 50);
    if rng.random_range(0..10) == 0 {
        let at = rng.random_range(0..=s.len() - 8);
        s.replace_range(at..at + 8, "ORIGINAL");
    }
    s
}

/// A fixed-point amount as SQL text with two decimals, from cents.
pub fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.unsigned_abs() / 100, cents.unsigned_abs() % 100)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn last_names_are_the_syllables_of_three_digits() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(999), "EINGEINGEING");
    }

    #[test]
    fn the_run_s_c_for_last_names_obeys_the_delta_rule() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..1000 {
            let k = Constants::draw(&mut rng);
            assert!(delta_ok(k.c_last_load, k.c_last_run), "{k:?}");
            assert!(k.c_id <= A_C_ID && k.ol_i_id <= A_I_ID);
            assert_eq!(Constants::parse(&k.text()), Some(k));
        }
        assert!(!delta_ok(10, 106), "96 apart is refused");
        assert!(!delta_ok(0, 112), "112 apart is refused");
        assert!(!delta_ok(0, 64) && delta_ok(0, 65) && delta_ok(119, 0) && !delta_ok(0, 120));
        assert_eq!(Constants::parse("c_last_load=1 c_last_run=2 c_id=3 ol_i_id=4"), None);
    }

    #[test]
    fn nurand_stays_in_range_and_is_skewed() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let k = Constants::draw(&mut rng);
        let mut hits = vec![0u32; 3001];
        for _ in 0..300_000 {
            let c = customer_id(&mut rng, &k);
            assert!((1..=3000).contains(&c));
            hits[c as usize] += 1;
            let i = item_id(&mut rng, &k);
            assert!((1..=100_000).contains(&i));
            assert!(last_name_number(&mut rng, &k) <= 999);
        }
        // Uniform would give 100 per id; NURand's OR makes some ids several times likelier.
        let most = *hits.iter().max().unwrap();
        assert!(most > 250, "the most frequent customer id was drawn {most} times");
    }

    #[test]
    fn strings_have_their_lengths_and_a_tenth_carry_original() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut original = 0;
        for _ in 0..10_000 {
            let s = data_with_original(&mut rng);
            assert!((26..=50).contains(&s.len()));
            original += u32::from(s.contains("ORIGINAL"));
        }
        assert!((800..1200).contains(&original), "{original} of 10000 carry ORIGINAL");
        let z = zip(&mut rng);
        assert!(z.len() == 9 && z.ends_with("11111") && z.bytes().all(|b| b.is_ascii_digit()));
        assert_eq!(money(-1000), "-10.00");
        assert_eq!(money(123456), "1234.56");
    }
}
