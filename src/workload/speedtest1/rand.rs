//! speedtest1's own random numbers and number names, so that every test binds the values
//! `test/speedtest1.c` binds.
//!
//! speedtest1 does not seed from a clock: each test starts its generator from the same two
//! words (`speedtest1_begin_test`), so a test's values depend only on `--size`. Its text
//! column holds [`number_name`]s, which differ from the 2002 comparison's
//! ([`crate::workload::numbers`]): millions and billions have names of their own.

/// `speedtest1_random`'s state: a shift register and a linear congruential generator whose
/// outputs are XORed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rng {
    x: u32,
    y: u32,
}

impl Rng {
    /// The state every test starts from (`speedtest1_begin_test`).
    pub const fn at_test_start() -> Rng {
        Rng {
            x: 0xad13_1d0b,
            y: 0x44f9_eac8,
        }
    }

    /// The next number (`speedtest1_random`).
    pub fn next_u32(&mut self) -> u32 {
        // 1+~(x&1) is 0 when the low bit is clear and all ones when it is set.
        let mask = 1u32.wrapping_add(!(self.x & 1));
        self.x = (self.x >> 1) ^ (mask & 0xd000_0001);
        self.y = self.y.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        self.x ^ self.y
    }

    /// A number's text as speedtest1's floating-point tests write it
    /// (`speedtest1_random_ascii_fp`): `Y.ZeX`, from two draws taken as signed.
    pub fn ascii_fp(&mut self) -> String {
        let x = self.next_u32() as i32;
        let y = self.next_u32() as i32;
        // C's `/` and `%` truncate toward zero, as Rust's do.
        let z = (y % 10).abs();
        format!("{}.{}e{}", y / 10, z, x % 200)
    }
}

/// `in`'s low bits, as many as `limit` has, in reverse order (`swizzle`): maps 1..=limit onto
/// itself in a scattered order, for keys inserted out of order.
pub fn swizzle(mut input: u32, mut limit: u32) -> u32 {
    let mut out = 0u32;
    while limit != 0 {
        out = (out << 1) | (input & 1);
        input >>= 1;
        limit >>= 1;
    }
    out
}

/// The smallest 2^k-1 at or above `limit` (`roundup_allones`).
pub fn roundup_allones(limit: u32) -> u32 {
    let mut m = 1u32;
    while m < limit {
        m = (m << 1) + 1;
    }
    m
}

/// speedtest1's integer square root estimate (`est_square_root`): ten Newton steps from x/2.
pub fn est_square_root(x: i32) -> i32 {
    let mut y0 = x / 2;
    let mut n = 0;
    while y0 > 0 && n < 10 {
        let y1 = (y0 + x / y0) / 2;
        if y1 == y0 {
            break;
        }
        y0 = y1;
        n += 1;
    }
    y0
}

use crate::workload::numbers::{ONES, TENS};

/// The English words for `n` as `speedtest1_numbername` writes them: billions, millions and
/// thousands named, no "and", no hyphens, 0 is "zero".
pub fn number_name(n: u32) -> String {
    let mut out = String::new();
    push_number_name(&mut out, n);
    out
}

/// Appends [`number_name`]`(n)` to `out`.
pub fn push_number_name(out: &mut String, mut n: u32) {
    let start = out.len();
    let sep = |out: &mut String| {
        if out.len() > start {
            out.push(' ');
        }
    };
    for (unit, word) in [(1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand")] {
        if n >= unit {
            sep(out);
            push_number_name(out, n / unit);
            out.push(' ');
            out.push_str(word);
            n %= unit;
        }
    }
    if n >= 100 {
        sep(out);
        out.push_str(ONES[(n / 100) as usize]);
        out.push_str(" hundred");
        n %= 100;
    }
    if n >= 20 {
        sep(out);
        out.push_str(TENS[(n / 10) as usize]);
        n %= 10;
    }
    if n > 0 {
        sep(out);
        out.push_str(ONES[n as usize]);
    }
    if out.len() == start {
        out.push_str("zero");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The expected values below were printed by speedtest1's own `speedtest1_random`,
    // `speedtest1_numbername`, `swizzle`, `roundup_allones`, `est_square_root` and
    // `speedtest1_random_ascii_fp` (test/speedtest1.c at SQLite commit 138951dc), compiled
    // with gcc in a scratch C file that is not part of litebench.

    #[test]
    fn random_numbers_are_speedtest1s() {
        let mut r = Rng::at_test_start();
        let first: Vec<u32> = (0..5).map(|_| r.next_u32()).collect();
        assert_eq!(
            first,
            [1_680_579_045, 3_681_383_876, 3_060_294_886, 402_119_333, 3_077_525_620]
        );
        for _ in 5..1000 {
            r.next_u32();
        }
        assert_eq!(r.next_u32(), 1_926_383_250, "the 1001st");
    }

    #[test]
    fn floating_point_texts_are_speedtest1s() {
        let mut r = Rng::at_test_start();
        assert_eq!(r.ascii_fp(), "-61358342.0e45");
        assert_eq!(r.ascii_fp(), "40211933.3e-10");
    }

    #[test]
    fn number_names_are_speedtest1s() {
        for (n, s) in [
            (0, "zero"),
            (7, "seven"),
            (19, "nineteen"),
            (20, "twenty"),
            (99, "ninety nine"),
            (100, "one hundred"),
            (101, "one hundred one"),
            (1000, "one thousand"),
            (1001, "one thousand one"),
            (12345, "twelve thousand three hundred forty five"),
            (1_000_000, "one million"),
            (
                1_234_567,
                "one million two hundred thirty four thousand five hundred sixty seven",
            ),
            (
                999_999_999,
                "nine hundred ninety nine million nine hundred ninety nine thousand nine hundred ninety nine",
            ),
            (1_000_000_000, "one billion"),
            (
                4_294_967_295,
                "four billion two hundred ninety four million nine hundred sixty seven thousand two hundred ninety five",
            ),
        ] {
            assert_eq!(number_name(n), s, "{n}");
        }
        let mut s = String::from("%");
        push_number_name(&mut s, 21);
        assert_eq!(s, "%twenty one", "appends after what is there, without a leading space");
    }

    #[test]
    fn swizzle_roundup_and_square_root_are_speedtest1s() {
        assert_eq!([500, 50_000, 233, 1].map(roundup_allones), [511, 65_535, 255, 1]);
        assert_eq!(
            [(1, 511), (2, 511), (3, 511), (500, 511), (12_345, 65_535)].map(|(i, l)| swizzle(i, l)),
            [256, 128, 384, 95, 39_948]
        );
        assert_eq!([1, 5, 25, 100, 1000].map(est_square_root), [0, 2, 5, 10, 31]);
    }
}
