//! Supplier rows: `s_suppkey|s_name|s_address|s_city|s_nation|s_region|s_phone|`.

use super::{party, Party};
use crate::seeds::{C_PHNE, P_CITY, S_ADDR, S_NTRG};

pub(super) fn write(first: u64, count: u64, out: &mut Vec<u8>) -> u64 {
    let mut p = Party {
        address: S_ADDR.at_row(first, 0),
        address_per_row: S_ADDR.per_row,
        nation: S_NTRG.at_row(first, 0),
        city_digit: P_CITY.at_row(first, 0),
        phones: C_PHNE.at_row(first, 0),
    };
    for key in first + 1..=first + count {
        party(out, key, b"Supplier#", &mut p);
        out.push(b'\n');
    }
    count
}
