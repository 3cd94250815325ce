//! Supplier rows: `s_suppkey|s_name|s_address|s_city|s_nation|s_region|s_phone|`.

use super::{city, field, int_field, phone, random_text, ADDRESS_MAX, ADDRESS_MIN};
use crate::dists::{NATIONS, REGIONS};
use crate::fmt::push_padded;
use crate::seeds::{C_PHNE, P_CITY, S_ADDR, S_NTRG};

pub(super) fn write(first: u64, count: u64, out: &mut Vec<u8>) -> u64 {
    let mut address = S_ADDR.at_row(first, 0);
    let mut nation = S_NTRG.at_row(first, 0);
    let mut city_digit = P_CITY.at_row(first, 0);
    let mut phones = C_PHNE.at_row(first, 0);
    for key in first + 1..=first + count {
        int_field(out, key as i64);
        out.extend_from_slice(b"Supplier#");
        push_padded(out, key, 9);
        out.push(b'|');
        let used = random_text(&mut address, ADDRESS_MIN, ADDRESS_MAX, out);
        address.skip_small(S_ADDR.per_row as usize - used);
        out.push(b'|');
        let n = nation.uniform(0, NATIONS.len() as i64 - 1) as usize;
        let (nation_name, region) = NATIONS[n];
        city(out, nation_name, city_digit.uniform(0, 9));
        field(out, nation_name.as_bytes());
        field(out, REGIONS[region].as_bytes());
        phone(out, n, &mut phones);
        out.push(b'\n');
    }
    count
}
