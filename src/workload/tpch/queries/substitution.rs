//! The substitution parameters of TPC-H's 22 queries (TPC-H 3.0.1 §2.4.1.3 to §2.4.22.3): drawn
//! from the run's seed with the specification's ranges, every choice uniform as `qgen`'s
//! distributions weigh them, or the validation values of §2.4.x.4, whose answers at scale
//! factor 1 the specification publishes. Which values a run used is part of its record
//! ([`Substitution::describe`]), so a reader can run the same queries again.

use jiff::civil::{date, Date};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Regions, and nations with the index of their region in [`REGIONS`] (§4.2.3): dbgen's, which
/// SSB's generator holds as well.
pub use litebench_ssbgen::{NATIONS, REGIONS};

/// The three syllables of a part's type (§4.2.2.13).
pub const TYPE_SYLLABLES: [&[&str]; 3] = [
    &["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"],
    &["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"],
    &["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"],
];

/// The two syllables of a part's container (§4.2.2.13).
pub const CONTAINER_SYLLABLES: [&[&str]; 2] = [
    &["SM", "LG", "MED", "JUMBO", "WRAP"],
    &["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"],
];

/// Market segments (§4.2.2.13).
pub const SEGMENTS: [&str; 5] = ["AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"];

/// Ship modes (§4.2.2.13).
pub const SHIP_MODES: [&str; 7] = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"];

/// The colours part names are made of (§4.2.3's P_NAME list): dbgen's, which SSB's generator
/// holds as well.
pub use litebench_ssbgen::COLORS;

/// Q13's first and second words (§2.4.13.3).
pub const Q13_WORDS: [[&str; 4]; 2] = [
    ["special", "pending", "unusual", "express"],
    ["packages", "requests", "accounts", "deposits"],
];

/// Q11's fraction at scale factor 1; at scale `sf` it is this divided by `sf` (§2.4.11.3).
pub const Q11_FRACTION: f64 = 0.0001;

/// Where the values came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Origin {
    /// §2.4.x.4's validation values.
    Validation,
    /// Drawn from this seed.
    Drawn(u64),
}

/// One value of every substitution parameter of the 22 queries.
#[derive(Debug, Clone, PartialEq)]
pub struct Substitution {
    pub(super) origin: Origin,
    pub(super) q1_delta: u32,
    pub(super) q2: (u32, &'static str, &'static str),
    pub(super) q3: (&'static str, Date),
    pub(super) q4: Date,
    pub(super) q5: (&'static str, Date),
    /// Date, discount in hundredths, quantity.
    pub(super) q6: (Date, u32, u32),
    pub(super) q7: (&'static str, &'static str),
    pub(super) q8: (&'static str, &'static str, String),
    pub(super) q9: &'static str,
    pub(super) q10: Date,
    pub(super) q11: (&'static str, f64),
    pub(super) q12: (&'static str, &'static str, Date),
    pub(super) q13: (&'static str, &'static str),
    pub(super) q14: Date,
    pub(super) q15: Date,
    pub(super) q16: (String, String, [u32; 8]),
    pub(super) q17: (String, String),
    pub(super) q18: u32,
    /// Brands and quantities.
    pub(super) q19: ([String; 3], [u32; 3]),
    pub(super) q20: (&'static str, Date, &'static str),
    pub(super) q21: &'static str,
    pub(super) q22: [u32; 7],
}

fn brand(m: u32, n: u32) -> String {
    format!("Brand#{m}{n}")
}

/// The first day of month `k` counted from January 1993 (0).
fn month_from_1993(k: u32) -> Date {
    date(1993 + (k / 12) as i16, (k % 12 + 1) as i8, 1)
}

impl Substitution {
    /// §2.4.x.4's validation values, with Q11's fraction at scale factor 1 (the scale of the
    /// specification's answer set).
    pub fn validation() -> Substitution {
        Substitution::validation_at(1.0)
    }

    /// The validation values with Q11's fraction for scale factor `scale` (as `qgen -d` gives it
    /// at every scale).
    pub fn validation_at(scale: f64) -> Substitution {
        let s = |v: &[&str]| v.iter().map(|b| b.to_string()).collect::<Vec<_>>();
        let brands = s(&["Brand#12", "Brand#23", "Brand#34"]);
        Substitution {
            origin: Origin::Validation,
            q1_delta: 90,
            q2: (15, "BRASS", "EUROPE"),
            q3: ("BUILDING", date(1995, 3, 15)),
            q4: date(1993, 7, 1),
            q5: ("ASIA", date(1994, 1, 1)),
            q6: (date(1994, 1, 1), 6, 24),
            q7: ("FRANCE", "GERMANY"),
            q8: ("BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL".into()),
            q9: "green",
            q10: date(1993, 10, 1),
            q11: ("GERMANY", Q11_FRACTION / scale),
            q12: ("MAIL", "SHIP", date(1994, 1, 1)),
            q13: ("special", "requests"),
            q14: date(1995, 9, 1),
            q15: date(1996, 1, 1),
            q16: (
                "Brand#45".into(),
                "MEDIUM POLISHED".into(),
                [49, 14, 23, 45, 19, 3, 36, 9],
            ),
            q17: ("Brand#23".into(), "MED BOX".into()),
            q18: 300,
            q19: ([brands[0].clone(), brands[1].clone(), brands[2].clone()], [1, 10, 20]),
            q20: ("forest", date(1994, 1, 1), "CANADA"),
            q21: "SAUDI ARABIA",
            q22: [13, 31, 23, 29, 30, 18, 17],
        }
    }

    /// Values drawn from `seed` with §2.4.x.3's ranges, for a database of scale factor `scale`.
    pub fn draw(seed: u64, scale: f64) -> Substitution {
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        let r = &mut r;
        let pick = |r: &mut ChaCha8Rng, list: &[&'static str]| *list.choose(r).expect("a non-empty list");
        let nation = |r: &mut ChaCha8Rng| NATIONS.choose(r).expect("25 nations").0;
        let ty = |r: &mut ChaCha8Rng, syllables: usize| {
            let words: Vec<&str> = TYPE_SYLLABLES[..syllables].iter().map(|s| pick(r, s)).collect();
            words.join(" ")
        };
        let brand_of = |r: &mut ChaCha8Rng| brand(r.random_range(1..=5), r.random_range(1..=5));
        let year = |r: &mut ChaCha8Rng| date(r.random_range(1993..=1997), 1, 1);
        let q2 = (r.random_range(1..=50), pick(r, TYPE_SYLLABLES[2]), pick(r, &REGIONS));
        let q3 = (pick(r, &SEGMENTS), date(1995, 3, r.random_range(1..=31)));
        let q7a = r.random_range(0..NATIONS.len());
        let q7b = (q7a + r.random_range(1..NATIONS.len())) % NATIONS.len();
        let (q8_nation, q8_region) = NATIONS[r.random_range(0..NATIONS.len())];
        let q12a = r.random_range(0..SHIP_MODES.len());
        let q12b = (q12a + r.random_range(1..SHIP_MODES.len())) % SHIP_MODES.len();
        let mut sizes: Vec<u32> = (1..=50).collect();
        sizes.shuffle(r);
        let mut codes: Vec<u32> = (10..=34).collect();
        codes.shuffle(r);
        Substitution {
            origin: Origin::Drawn(seed),
            q1_delta: r.random_range(60..=120),
            q2,
            q3,
            q4: month_from_1993(r.random_range(0..=57)),
            q5: (pick(r, &REGIONS), year(r)),
            q6: (year(r), r.random_range(2..=9), r.random_range(24..=25)),
            q7: (NATIONS[q7a].0, NATIONS[q7b].0),
            q8: (q8_nation, REGIONS[q8_region], ty(r, 3)),
            q9: pick(r, &COLORS),
            q10: month_from_1993(r.random_range(1..=24)),
            q11: (nation(r), Q11_FRACTION / scale),
            q12: (SHIP_MODES[q12a], SHIP_MODES[q12b], year(r)),
            q13: (pick(r, &Q13_WORDS[0]), pick(r, &Q13_WORDS[1])),
            q14: month_from_1993(r.random_range(0..=59)),
            q15: month_from_1993(r.random_range(0..=57)),
            q16: (brand_of(r), ty(r, 2), std::array::from_fn(|i| sizes[i])),
            q17: (
                brand_of(r),
                format!(
                    "{} {}",
                    pick(r, CONTAINER_SYLLABLES[0]),
                    pick(r, CONTAINER_SYLLABLES[1])
                ),
            ),
            q18: r.random_range(312..=315),
            q19: (
                std::array::from_fn(|_| brand_of(r)),
                [r.random_range(1..=10), r.random_range(10..=20), r.random_range(20..=30)],
            ),
            q20: (pick(r, &COLORS), year(r), nation(r)),
            q21: nation(r),
            q22: std::array::from_fn(|i| codes[i]),
        }
    }

    /// Where the values came from.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// Query `op`'s (0-based) parameters by the specification's names, in its order.
    pub fn values(&self, op: usize) -> Vec<(String, String)> {
        let v = |pairs: &[(&str, String)]| pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let numbered = |name: &str, xs: &[u32]| -> Vec<(String, String)> {
            xs.iter()
                .enumerate()
                .map(|(i, x)| (format!("{name}{}", i + 1), x.to_string()))
                .collect()
        };
        match op {
            0 => v(&[("DELTA", self.q1_delta.to_string())]),
            1 => v(&[
                ("SIZE", self.q2.0.to_string()),
                ("TYPE", self.q2.1.into()),
                ("REGION", self.q2.2.into()),
            ]),
            2 => v(&[("SEGMENT", self.q3.0.into()), ("DATE", self.q3.1.to_string())]),
            3 => v(&[("DATE", self.q4.to_string())]),
            4 => v(&[("REGION", self.q5.0.into()), ("DATE", self.q5.1.to_string())]),
            5 => v(&[
                ("DATE", self.q6.0.to_string()),
                ("DISCOUNT", format!("0.{:02}", self.q6.1)),
                ("QUANTITY", self.q6.2.to_string()),
            ]),
            6 => v(&[("NATION1", self.q7.0.into()), ("NATION2", self.q7.1.into())]),
            7 => v(&[
                ("NATION", self.q8.0.into()),
                ("REGION", self.q8.1.into()),
                ("TYPE", self.q8.2.clone()),
            ]),
            8 => v(&[("COLOR", self.q9.into())]),
            9 => v(&[("DATE", self.q10.to_string())]),
            10 => v(&[("NATION", self.q11.0.into()), ("FRACTION", fraction(self.q11.1))]),
            11 => v(&[
                ("SHIPMODE1", self.q12.0.into()),
                ("SHIPMODE2", self.q12.1.into()),
                ("DATE", self.q12.2.to_string()),
            ]),
            12 => v(&[("WORD1", self.q13.0.into()), ("WORD2", self.q13.1.into())]),
            13 => v(&[("DATE", self.q14.to_string())]),
            14 => v(&[("DATE", self.q15.to_string())]),
            15 => {
                let mut out = v(&[("BRAND", self.q16.0.clone()), ("TYPE", self.q16.1.clone())]);
                out.extend(numbered("SIZE", &self.q16.2));
                out
            }
            16 => v(&[("BRAND", self.q17.0.clone()), ("CONTAINER", self.q17.1.clone())]),
            17 => v(&[("QUANTITY", self.q18.to_string())]),
            18 => {
                let mut out = numbered("QUANTITY", &self.q19.1);
                out.extend(
                    self.q19
                        .0
                        .iter()
                        .enumerate()
                        .map(|(i, b)| (format!("BRAND{}", i + 1), b.clone())),
                );
                out
            }
            19 => v(&[
                ("COLOR", self.q20.0.into()),
                ("DATE", self.q20.1.to_string()),
                ("NATION", self.q20.2.into()),
            ]),
            20 => v(&[("NATION", self.q21.into())]),
            21 => numbered("I", &self.q22),
            _ => Vec::new(),
        }
    }

    /// Query `op`'s parameters in one line, `NAME=value` separated by spaces.
    pub fn describe(&self, op: usize) -> String {
        let words: Vec<String> = self.values(op).into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        words.join(" ")
    }
}

/// Q11's fraction as the query text writes it (`qgen` prints ten decimals).
pub fn fraction(f: f64) -> String {
    format!("{f:.10}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_values_are_the_specifications() {
        let v = Substitution::validation();
        let got: Vec<String> = (0..22).map(|op| v.describe(op)).collect();
        let spec = [
            "DELTA=90",
            "SIZE=15 TYPE=BRASS REGION=EUROPE",
            "SEGMENT=BUILDING DATE=1995-03-15",
            "DATE=1993-07-01",
            "REGION=ASIA DATE=1994-01-01",
            "DATE=1994-01-01 DISCOUNT=0.06 QUANTITY=24",
            "NATION1=FRANCE NATION2=GERMANY",
            "NATION=BRAZIL REGION=AMERICA TYPE=ECONOMY ANODIZED STEEL",
            "COLOR=green",
            "DATE=1993-10-01",
            "NATION=GERMANY FRACTION=0.0001000000",
            "SHIPMODE1=MAIL SHIPMODE2=SHIP DATE=1994-01-01",
            "WORD1=special WORD2=requests",
            "DATE=1995-09-01",
            "DATE=1996-01-01",
            "BRAND=Brand#45 TYPE=MEDIUM POLISHED SIZE1=49 SIZE2=14 SIZE3=23 SIZE4=45 SIZE5=19 SIZE6=3 SIZE7=36 SIZE8=9",
            "BRAND=Brand#23 CONTAINER=MED BOX",
            "QUANTITY=300",
            "QUANTITY1=1 QUANTITY2=10 QUANTITY3=20 BRAND1=Brand#12 BRAND2=Brand#23 BRAND3=Brand#34",
            "COLOR=forest DATE=1994-01-01 NATION=CANADA",
            "NATION=SAUDI ARABIA",
            "I1=13 I2=31 I3=23 I4=29 I5=30 I6=18 I7=17",
        ];
        assert_eq!(got, spec);
        assert_eq!(
            Substitution::validation_at(0.01).describe(10),
            "NATION=GERMANY FRACTION=0.0100000000"
        );
        assert_eq!(v.origin(), Origin::Validation);
    }

    #[test]
    fn the_same_seed_draws_the_same_values_and_another_seed_others() {
        assert_eq!(Substitution::draw(7, 1.0), Substitution::draw(7, 1.0));
        let differ = (0..22)
            .filter(|&op| Substitution::draw(7, 1.0).describe(op) != Substitution::draw(8, 1.0).describe(op))
            .count();
        assert!(
            differ >= 15,
            "only {differ} of 22 queries' values differ between seeds 7 and 8"
        );
        assert_eq!(Substitution::draw(7, 1.0).origin(), Origin::Drawn(7));
    }

    fn is_first_of_month(d: Date, from: Date, to: Date) -> bool {
        d.day() == 1 && d >= from && d <= to
    }

    /// Every drawn value, over many seeds, in §2.4.x.3's range.
    #[test]
    fn drawn_values_fall_in_the_specifications_ranges() {
        let nations: Vec<&str> = NATIONS.iter().map(|n| n.0).collect();
        let mut seen_q1 = std::collections::BTreeSet::new();
        for seed in 0..2000 {
            let s = Substitution::draw(seed, 10.0);
            assert!((60..=120).contains(&s.q1_delta));
            seen_q1.insert(s.q1_delta);
            assert!((1..=50).contains(&s.q2.0) && TYPE_SYLLABLES[2].contains(&s.q2.1) && REGIONS.contains(&s.q2.2));
            assert!(SEGMENTS.contains(&s.q3.0) && s.q3.1 >= date(1995, 3, 1) && s.q3.1 <= date(1995, 3, 31));
            assert!(is_first_of_month(s.q4, date(1993, 1, 1), date(1997, 10, 1)));
            assert!(REGIONS.contains(&s.q5.0) && is_first_of_month(s.q5.1, date(1993, 1, 1), date(1997, 1, 1)));
            assert_eq!(s.q5.1.month(), 1);
            assert!(s.q6.0.month() == 1 && (1993..=1997).contains(&s.q6.0.year()));
            assert!((2..=9).contains(&s.q6.1) && (24..=25).contains(&s.q6.2));
            assert!(s.q7.0 != s.q7.1 && nations.contains(&s.q7.0) && nations.contains(&s.q7.1));
            let region = NATIONS.iter().find(|n| n.0 == s.q8.0).unwrap().1;
            assert_eq!(REGIONS[region], s.q8.1);
            assert_eq!(s.q8.2.split(' ').count(), 3);
            assert!(COLORS.contains(&s.q9));
            assert!(is_first_of_month(s.q10, date(1993, 2, 1), date(1995, 1, 1)));
            assert!((s.q11.1 - 0.00001).abs() < 1e-12, "FRACTION is 0.0001 / SF");
            assert!(s.q12.0 != s.q12.1 && SHIP_MODES.contains(&s.q12.0) && SHIP_MODES.contains(&s.q12.1));
            assert!(Q13_WORDS[0].contains(&s.q13.0) && Q13_WORDS[1].contains(&s.q13.1));
            assert!(is_first_of_month(s.q14, date(1993, 1, 1), date(1997, 12, 1)));
            assert!(is_first_of_month(s.q15, date(1993, 1, 1), date(1997, 10, 1)));
            let mut sizes = s.q16.2.to_vec();
            sizes.sort_unstable();
            sizes.dedup();
            assert!(sizes.len() == 8 && sizes.iter().all(|x| (1..=50).contains(x)));
            assert_eq!(s.q16.1.split(' ').count(), 2);
            for b in [&s.q16.0, &s.q17.0, &s.q19.0[0], &s.q19.0[1], &s.q19.0[2]] {
                let d: Vec<u32> = b
                    .strip_prefix("Brand#")
                    .unwrap()
                    .chars()
                    .map(|c| c.to_digit(10).unwrap())
                    .collect();
                assert!(d.len() == 2 && d.iter().all(|x| (1..=5).contains(x)), "{b}");
            }
            assert_eq!(s.q17.1.split(' ').count(), 2);
            assert!((312..=315).contains(&s.q18));
            let [a, b, c] = s.q19.1;
            assert!((1..=10).contains(&a) && (10..=20).contains(&b) && (20..=30).contains(&c));
            assert!(COLORS.contains(&s.q20.0) && s.q20.1.month() == 1 && nations.contains(&s.q20.2));
            assert!(nations.contains(&s.q21));
            let mut codes = s.q22.to_vec();
            codes.sort_unstable();
            codes.dedup();
            assert!(codes.len() == 7 && codes.iter().all(|x| (10..=34).contains(x)));
        }
        assert_eq!(seen_q1.len(), 61, "every DELTA of 60..=120 is drawn");
    }
}
