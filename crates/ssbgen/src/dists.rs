//! The value lists dbgen picks strings from (its `dists.dss`), as data.
//!
//! Every list SSB uses has equal weights, so a pick is `list[uniform(1, len) - 1]`; the order
//! of each list is the order in dbgen's file, which the bytes depend on.

/// The 25 nations, each with its region's index in [`REGIONS`].
pub const NATIONS: [(&str, usize); 25] = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
];

pub const REGIONS: [&str; 5] = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"];

pub const SEGMENTS: [&str; 5] = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"];

pub const PRIORITIES: [&str; 5] = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"];

pub const SHIP_MODES: [&str; 7] = ["REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"];

/// Containers: every size with every kind, sizes outer.
const CONTAINER_SIZES: [&str; 5] = ["SM", "LG", "MED", "JUMBO", "WRAP"];
const CONTAINER_KINDS: [&str; 8] = ["CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"];
pub const CONTAINER_COUNT: usize = CONTAINER_SIZES.len() * CONTAINER_KINDS.len();

/// Part types: three syllables, the first outermost.
const TYPE_1: [&str; 6] = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
const TYPE_2: [&str; 5] = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
const TYPE_3: [&str; 5] = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];
pub const TYPE_COUNT: usize = TYPE_1.len() * TYPE_2.len() * TYPE_3.len();

/// The container at `index` (0-based, in dbgen's order), appended to `out`.
pub fn push_container(out: &mut Vec<u8>, index: usize) {
    out.extend_from_slice(CONTAINER_SIZES[index / CONTAINER_KINDS.len()].as_bytes());
    out.push(b' ');
    out.extend_from_slice(CONTAINER_KINDS[index % CONTAINER_KINDS.len()].as_bytes());
}

/// The part type at `index` (0-based, in dbgen's order), appended to `out`.
pub fn push_type(out: &mut Vec<u8>, index: usize) {
    let per_first = TYPE_2.len() * TYPE_3.len();
    out.extend_from_slice(TYPE_1[index / per_first].as_bytes());
    out.push(b' ');
    out.extend_from_slice(TYPE_2[index % per_first / TYPE_3.len()].as_bytes());
    out.push(b' ');
    out.extend_from_slice(TYPE_3[index % TYPE_3.len()].as_bytes());
}

/// The 92 colours part names and colours are made of.
pub const COLORS: [&str; 92] = [
    "almond",
    "antique",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanched",
    "blue",
    "blush",
    "brown",
    "burlywood",
    "burnished",
    "chartreuse",
    "chiffon",
    "chocolate",
    "coral",
    "cornflower",
    "cornsilk",
    "cream",
    "cyan",
    "dark",
    "deep",
    "dim",
    "dodger",
    "drab",
    "firebrick",
    "floral",
    "forest",
    "frosted",
    "gainsboro",
    "ghost",
    "goldenrod",
    "green",
    "grey",
    "honeydew",
    "hot",
    "indian",
    "ivory",
    "khaki",
    "lace",
    "lavender",
    "lawn",
    "lemon",
    "light",
    "lime",
    "linen",
    "magenta",
    "maroon",
    "medium",
    "metallic",
    "midnight",
    "mint",
    "misty",
    "moccasin",
    "navajo",
    "navy",
    "olive",
    "orange",
    "orchid",
    "pale",
    "papaya",
    "peach",
    "peru",
    "pink",
    "plum",
    "powder",
    "puff",
    "purple",
    "red",
    "rose",
    "rosy",
    "royal",
    "saddle",
    "salmon",
    "sandy",
    "seashell",
    "sienna",
    "sky",
    "slate",
    "smoke",
    "snow",
    "spring",
    "steel",
    "tan",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "yellow",
];

/// The characters dbgen's random text (addresses) is drawn from, 6 bits at a time.
pub const ALPHA_NUM: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,";

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl Fn(&mut Vec<u8>, usize), i: usize) -> String {
        let mut v = Vec::new();
        f(&mut v, i);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn lists_are_in_dbgen_order() {
        assert_eq!(TYPE_COUNT, 150);
        assert_eq!(text(push_type, 0), "STANDARD ANODIZED TIN");
        assert_eq!(text(push_type, 6), "STANDARD BURNISHED NICKEL");
        assert_eq!(text(push_type, 149), "PROMO BRUSHED COPPER");
        assert_eq!(CONTAINER_COUNT, 40);
        assert_eq!(text(push_container, 0), "SM CASE");
        assert_eq!(text(push_container, 9), "LG BOX");
        assert_eq!(text(push_container, 39), "WRAP DRUM");
        assert_eq!(COLORS.len(), 92);
        assert!(
            COLORS.windows(2).all(|w| w[0] < w[1]),
            "colours are sorted in dbgen's file"
        );
    }

    #[test]
    fn every_region_has_five_nations() {
        for (r, region) in REGIONS.iter().enumerate() {
            assert_eq!(NATIONS.iter().filter(|n| n.1 == r).count(), 5, "{region}");
        }
    }
}
