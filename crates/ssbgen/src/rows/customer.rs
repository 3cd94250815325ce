//! Customer rows: `c_custkey|c_name|c_address|c_city|c_nation|c_region|c_phone|c_mktsegment|`.
//!
//! The phone and city streams were first drawn from by every supplier (see `super`).

use super::{city, field, int_field, phone, random_text, ADDRESS_MAX, ADDRESS_MIN};
use crate::dists::{NATIONS, REGIONS, SEGMENTS};
use crate::fmt::push_padded;
use crate::scale::Plan;
use crate::seeds::{C_ADDR, C_MSEG, C_NTRG, C_PHNE, P_CITY};

pub(super) fn write(plan: &Plan, first: u64, count: u64, out: &mut Vec<u8>) -> u64 {
    let suppliers = plan.supplier_rows;
    let mut address = C_ADDR.at_row(first, 0);
    let mut nation = C_NTRG.at_row(first, 0);
    let mut city_digit = P_CITY.at_row(first, suppliers * P_CITY.per_row);
    let mut phones = C_PHNE.at_row(first, suppliers * C_PHNE.per_row);
    let mut segment = C_MSEG.at_row(first, 0);
    for key in first + 1..=first + count {
        int_field(out, key as i64);
        out.extend_from_slice(b"Customer#");
        push_padded(out, key, 9);
        out.push(b'|');
        let used = random_text(&mut address, ADDRESS_MIN, ADDRESS_MAX, out);
        address.skip_small(C_ADDR.per_row as usize - used);
        out.push(b'|');
        let n = nation.uniform(0, NATIONS.len() as i64 - 1) as usize;
        let (nation_name, region) = NATIONS[n];
        city(out, nation_name, city_digit.uniform(0, 9));
        field(out, nation_name.as_bytes());
        field(out, REGIONS[region].as_bytes());
        phone(out, n, &mut phones);
        let s = segment.uniform(1, SEGMENTS.len() as i64) as usize - 1;
        field(out, SEGMENTS[s].as_bytes());
        out.push(b'\n');
    }
    count
}
