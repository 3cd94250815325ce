//! Numbers as English words, the way SQLite's speed comparison writes its text column.
//!
//! `tool/speedtest.tcl` stores `number_name $r` beside every random number `r`: 12345 becomes
//! "twelve thousand three hundred forty five". The procedure is recursive on thousands (so
//! 1,234,567 is "one thousand two hundred thirty four thousand five hundred sixty seven"), has no
//! "and" and no hyphens, and names 0 "zero". This is a transcription of it.

/// The words below twenty (also speedtest1's number names).
pub(crate) const ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

/// The words of the tens.
pub(crate) const TENS: [&str; 10] = [
    "", "ten", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// The words for `n`: a line-by-line transcription of the Tcl `number_name` procedure.
pub fn number_name(n: u64) -> String {
    let mut n = n;
    let mut txt = String::new();
    if n >= 1000 {
        txt = format!("{} thousand", number_name(n / 1000));
        n %= 1000;
    }
    if n >= 100 {
        txt.push(' ');
        txt.push_str(ONES[(n / 100) as usize]);
        txt.push_str(" hundred");
        n %= 100;
    }
    if n >= 20 {
        txt.push(' ');
        txt.push_str(TENS[(n / 10) as usize]);
        n %= 10;
    }
    if n > 0 {
        txt.push(' ');
        txt.push_str(ONES[n as usize]);
    }
    let t = txt.trim();
    if t.is_empty() {
        "zero".to_string()
    } else {
        t.to_string()
    }
}

/// Appends the words for `n` to `out`.
pub fn push_number_name(out: &mut String, n: u64) {
    out.push_str(&number_name(n));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_speed_comparison_page() {
        // Every example the 2002 speed comparison page prints.
        for (n, s) in [
            (13153, "thirteen thousand one hundred fifty three"),
            (75560, "seventy five thousand five hundred sixty"),
            (66289, "sixty six thousand two hundred eighty nine"),
            (24322, "twenty four thousand three hundred twenty two"),
            (94142, "ninety four thousand one hundred forty two"),
            (298361, "two hundred ninety eight thousand three hundred sixty one"),
            (447847, "four hundred forty seven thousand eight hundred forty seven"),
            (473330, "four hundred seventy three thousand three hundred thirty"),
            (468026, "four hundred sixty eight thousand twenty six"),
            (121928, "one hundred twenty one thousand nine hundred twenty eight"),
            (35065, "thirty five thousand sixty five"),
            (347393, "three hundred forty seven thousand three hundred ninety three"),
            (29676, "twenty nine thousand six hundred seventy six"),
            (37835, "thirty seven thousand eight hundred thirty five"),
            (97817, "ninety seven thousand eight hundred seventeen"),
            (12345, "twelve thousand three hundred forty five"),
            (98, "ninety eight"),
            (100, "one hundred"),
        ] {
            assert_eq!(number_name(n), s, "{n}");
        }
    }

    #[test]
    fn edges() {
        assert_eq!(number_name(0), "zero");
        assert_eq!(number_name(7), "seven");
        assert_eq!(number_name(19), "nineteen");
        assert_eq!(number_name(20), "twenty");
        assert_eq!(number_name(1000), "one thousand");
        assert_eq!(number_name(1001), "one thousand one");
        assert_eq!(number_name(100_000), "one hundred thousand");
        assert_eq!(
            number_name(1_234_567),
            "one thousand two hundred thirty four thousand five hundred sixty seven"
        );
        let mut s = String::from("x");
        push_number_name(&mut s, 5);
        assert_eq!(s, "xfive", "appends without a separator of its own");
    }
}
