//! Part rows: `p_partkey|p_name|p_mfgr|p_category|p_brand1|p_color|p_type|p_size|p_container|`.
//!
//! The name is three distinct colours from a fresh shuffle of all 92 (one draw per colour);
//! dbgen then moves the first colour out into `p_color`, leaving two in the name.

use super::{field, int_field};
use crate::dists::{push_container, push_type, COLORS, CONTAINER_COUNT, TYPE_COUNT};
use crate::fmt::push_int;
use crate::seeds::{P_BRND, P_CAT, P_CNTR, P_MFG, P_NAME, P_SIZE, P_TYPE};

pub(super) fn write(first: u64, count: u64, out: &mut Vec<u8>) -> u64 {
    let mut name = P_NAME.at_row(first, 0);
    let mut mfgr = P_MFG.at_row(first, 0);
    let mut category = P_CAT.at_row(first, 0);
    let mut brand = P_BRND.at_row(first, 0);
    let mut kind = P_TYPE.at_row(first, 0);
    let mut size = P_SIZE.at_row(first, 0);
    let mut container = P_CNTR.at_row(first, 0);
    let mut perm = [0u8; COLORS.len()];
    for key in first + 1..=first + count {
        for (i, p) in perm.iter_mut().enumerate() {
            *p = i as u8;
        }
        for i in 0..perm.len() {
            let source = name.uniform(0, perm.len() as i64 - 1) as usize;
            perm.swap(source, i);
        }
        let m = mfgr.uniform(1, 5);
        let c = category.uniform(1, 5);
        let b = brand.uniform(1, 40);
        let t = kind.uniform(1, TYPE_COUNT as i64) as usize - 1;
        let s = size.uniform(1, 50);
        let k = container.uniform(1, CONTAINER_COUNT as i64) as usize - 1;

        int_field(out, key as i64);
        out.extend_from_slice(COLORS[perm[1] as usize].as_bytes());
        out.push(b' ');
        field(out, COLORS[perm[2] as usize].as_bytes());
        out.extend_from_slice(b"MFGR#");
        push_int(out, m);
        out.extend_from_slice(b"|MFGR#");
        push_int(out, m);
        push_int(out, c);
        out.extend_from_slice(b"|MFGR#");
        push_int(out, m);
        push_int(out, c);
        push_int(out, b);
        out.push(b'|');
        field(out, COLORS[perm[0] as usize].as_bytes());
        push_type(out, t);
        out.push(b'|');
        int_field(out, s);
        push_container(out, k);
        out.extend_from_slice(b"|\n");
    }
    count
}
