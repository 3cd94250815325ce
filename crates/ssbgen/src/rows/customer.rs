//! Customer rows: `c_custkey|c_name|c_address|c_city|c_nation|c_region|c_phone|c_mktsegment|`.
//!
//! The phone and city streams were first drawn from by every supplier (see `super`).

use super::{field, party, Party};
use crate::dists::SEGMENTS;
use crate::scale::Plan;
use crate::seeds::{C_ADDR, C_MSEG, C_NTRG, C_PHNE, P_CITY};

pub(super) fn write(plan: &Plan, first: u64, count: u64, out: &mut Vec<u8>) -> u64 {
    let suppliers = plan.supplier_rows;
    let mut p = Party {
        address: C_ADDR.at_row(first, 0),
        address_per_row: C_ADDR.per_row,
        nation: C_NTRG.at_row(first, 0),
        city_digit: P_CITY.at_row(first, suppliers * P_CITY.per_row),
        phones: C_PHNE.at_row(first, suppliers * C_PHNE.per_row),
    };
    let mut segment = C_MSEG.at_row(first, 0);
    for key in first + 1..=first + count {
        party(out, key, b"Customer#", &mut p);
        let s = segment.uniform(1, SEGMENTS.len() as i64) as usize - 1;
        field(out, SEGMENTS[s].as_bytes());
        out.push(b'\n');
    }
    count
}
