//! Lineorder: each order prints 1 to 7 lines; order columns repeat on each of its lines.
//!
//! `lo_orderkey|lo_linenumber|lo_custkey|lo_partkey|lo_suppkey|lo_orderdate|lo_orderpriority|
//! lo_shippriority|lo_quantity|lo_extendedprice|lo_ordtotalprice|lo_discount|lo_revenue|
//! lo_supplycost|lo_tax|lo_commitdate|lo_shipmode|`
//!
//! Prices are whole cents computed in integers as dbgen does (the part's retail price from its
//! key; revenue and the order total truncate at each division), so every sum over them is exact.
//! Order keys are sparse, as in TPC-H: of each 32 keys only the first 8 are used.

use super::Context;
use crate::dists::{PRIORITIES, SHIP_MODES};
use crate::fmt::push_int;
use crate::rng::Stream;
use crate::seeds::{
    LINES_PER_ORDER_MAX, L_CDTE, L_DCNT, L_PKEY, L_QTY, L_SKEY, L_SMODE, L_TAX, O_CKEY, O_LCNT, O_ODATE, O_PRIO,
};

/// dbgen's first order date, as its julian-like number; order dates are this plus 0 ..= 2405 days.
const ORDER_DATE_MIN: i64 = 92_001;
const ORDER_DATE_MAX: i64 = ORDER_DATE_MIN + 2557 - (121 + 30) - 1;

/// The TPC-H sparse key: keep the low 3 bits, make room for 2 more above them.
pub(crate) fn sparse_key(order: u64) -> u64 {
    ((order >> 3) << 5) | (order & 7)
}

/// The part's retail price in cents, a function of its key.
pub(crate) fn retail_price(part_key: i64) -> i64 {
    90_000 + (part_key / 10) % 20_001 + (part_key % 1000) * 100
}

#[derive(Default, Clone, Copy)]
struct Line {
    part: i64,
    supplier: i64,
    quantity: i64,
    discount: i64,
    tax: i64,
    commit: usize,
    mode: usize,
    extended: i64,
    revenue: i64,
    supply_cost: i64,
}

/// The streams one order draws from.
struct Streams {
    date: Stream,
    customer: Stream,
    priority: Stream,
    line_count: Stream,
    part: Stream,
    supplier: Stream,
    quantity: Stream,
    discount: Stream,
    tax: Stream,
    commit: Stream,
    mode: Stream,
}

impl Streams {
    /// Positioned at order `order` (0-based). The order streams were advanced once per date row
    /// first (see `super`).
    fn at(order: u64, date_rows: u64) -> Streams {
        Streams {
            date: O_ODATE.at_row(order, date_rows),
            customer: O_CKEY.at_row(order, date_rows),
            priority: O_PRIO.at_row(order, date_rows),
            line_count: O_LCNT.at_row(order, date_rows),
            part: L_PKEY.at_row(order, 0),
            supplier: L_SKEY.at_row(order, 0),
            quantity: L_QTY.at_row(order, 0),
            discount: L_DCNT.at_row(order, 0),
            tax: L_TAX.at_row(order, 0),
            commit: L_CDTE.at_row(order, 0),
            mode: L_SMODE.at_row(order, 0),
        }
    }

    /// Moves the line streams on to the next order's start, `lines` draws having been taken.
    fn finish_order(&mut self, lines: usize) {
        let rest = LINES_PER_ORDER_MAX as usize - lines;
        for s in [
            &mut self.part,
            &mut self.supplier,
            &mut self.quantity,
            &mut self.discount,
            &mut self.tax,
            &mut self.commit,
            &mut self.mode,
        ] {
            s.skip_small(rest);
        }
    }
}

/// The number of lines of orders `first .. first + count` (0-based): only the line-count stream.
pub(crate) fn count_lines(date_rows: u64, first: u64, count: u64) -> u64 {
    let mut s = O_LCNT.at_row(first, date_rows);
    (0..count)
        .map(|_| s.uniform(1, LINES_PER_ORDER_MAX as i64) as u64)
        .sum()
}

pub(super) fn write(ctx: &Context, first: u64, count: u64, out: &mut Vec<u8>) -> u64 {
    let plan = &ctx.plan;
    let mut s = Streams::at(first, plan.date_rows);
    let mut lines = [Line::default(); LINES_PER_ORDER_MAX as usize];
    let mut written = 0;
    for order in first + 1..=first + count {
        let date = (s.date.uniform(ORDER_DATE_MIN, ORDER_DATE_MAX) - ORDER_DATE_MIN) as usize;
        let key = sparse_key(order) as i64;
        let max_customer = plan.customer_key_max;
        let mut customer = s.customer.uniform(1, max_customer);
        let mut delta = 1;
        // A third of the customers place no orders.
        while customer % 3 == 0 {
            customer = (customer + delta).min(max_customer);
            delta = -delta;
        }
        let priority = PRIORITIES[s.priority.uniform(1, PRIORITIES.len() as i64) as usize - 1];
        let n = s.line_count.uniform(1, LINES_PER_ORDER_MAX as i64) as usize;
        let mut total = 0i64;
        for l in &mut lines[..n] {
            l.part = s.part.uniform(1, plan.part_key_max);
            l.supplier = s.supplier.uniform(1, plan.supplier_key_max);
            l.quantity = s.quantity.uniform(1, 50);
            l.discount = s.discount.uniform(0, 10);
            l.tax = s.tax.uniform(0, 8);
            l.commit = date + s.commit.uniform(30, 90) as usize;
            l.mode = s.mode.uniform(1, SHIP_MODES.len() as i64) as usize - 1;
            let price = retail_price(l.part);
            l.extended = price * l.quantity;
            l.revenue = l.extended * (100 - l.discount) / 100;
            l.supply_cost = 6 * price / 10;
            total += (l.extended * (100 - l.discount)) / 100 * (100 + l.tax) / 100;
        }
        s.finish_order(n);
        for (i, l) in lines[..n].iter().enumerate() {
            push_int(out, key);
            out.push(b'|');
            push_int(out, i as i64 + 1);
            out.push(b'|');
            push_int(out, customer);
            out.push(b'|');
            push_int(out, l.part);
            out.push(b'|');
            push_int(out, l.supplier);
            out.push(b'|');
            out.extend_from_slice(&ctx.dates[date]);
            out.push(b'|');
            out.extend_from_slice(priority.as_bytes());
            out.extend_from_slice(b"|0|");
            push_int(out, l.quantity);
            out.push(b'|');
            push_int(out, l.extended);
            out.push(b'|');
            push_int(out, total);
            out.push(b'|');
            push_int(out, l.discount);
            out.push(b'|');
            push_int(out, l.revenue);
            out.push(b'|');
            push_int(out, l.supply_cost);
            out.push(b'|');
            push_int(out, l.tax);
            out.push(b'|');
            out.extend_from_slice(&ctx.dates[l.commit]);
            out.push(b'|');
            out.extend_from_slice(SHIP_MODES[l.mode].as_bytes());
            out.extend_from_slice(b"|\n");
        }
        written += n as u64;
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_keys_use_8_of_every_32() {
        let keys: Vec<u64> = (1..=9).map(sparse_key).collect();
        assert_eq!(keys, [1, 2, 3, 4, 5, 6, 7, 32, 33]);
        assert_eq!(sparse_key(16), 64);
    }

    #[test]
    fn retail_price_from_key() {
        assert_eq!(retail_price(1), 90_100);
        assert_eq!(retail_price(1552), 90_000 + 155 + 552 * 100);
    }
}
