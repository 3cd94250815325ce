//! Where each column's stream starts, and how many draws a row reserves in it.
//!
//! dbgen gives every column its own stream with a fixed initial seed, and after each row it
//! jumps every stream of the table being generated to a fixed per-row budget (its "boundary"),
//! however many draws the row used. So row r of a table starts each of its streams at
//! `seed · 16807^(r·boundary)`: that is what makes rows independent and lets us start anywhere.
//! Two quirks of dbgen are kept because the bytes depend on them (see `crate::rows`): some
//! columns draw from another table's stream, and the date table's rows advance the order streams.

/// A column stream: its initial seed and the draws it reserves per row of its own table.
#[derive(Debug, Clone, Copy)]
pub struct StreamSpec {
    pub seed: i64,
    pub per_row: u64,
}

const fn spec(seed: i64, per_row: u64) -> StreamSpec {
    StreamSpec { seed, per_row }
}

// Part.
pub const P_MFG: StreamSpec = spec(1, 1);
pub const P_BRND: StreamSpec = spec(46_831_694, 1);
pub const P_TYPE: StreamSpec = spec(1_841_581_359, 1);
pub const P_SIZE: StreamSpec = spec(1_193_163_244, 1);
pub const P_CNTR: StreamSpec = spec(727_633_698, 1);
/// The part name: a permutation of the 92 colours, one draw per colour.
pub const P_NAME: StreamSpec = spec(709_314_158, 92);
pub const P_CAT: StreamSpec = spec(637_858_759, 1);

// Orders (whose columns live on in lineorder).
pub const O_ODATE: StreamSpec = spec(1_066_728_069, 1);
pub const O_PRIO: StreamSpec = spec(591_449_447, 1);
pub const O_CKEY: StreamSpec = spec(851_767_375, 1);
pub const O_LCNT: StreamSpec = spec(1_434_868_289, 1);

/// Lines per order at most: each line stream reserves this many draws per order.
pub const LINES_PER_ORDER_MAX: u64 = 7;
pub const L_QTY: StreamSpec = spec(209_208_115, LINES_PER_ORDER_MAX);
pub const L_DCNT: StreamSpec = spec(554_590_007, LINES_PER_ORDER_MAX);
pub const L_TAX: StreamSpec = spec(721_958_466, LINES_PER_ORDER_MAX);
pub const L_SMODE: StreamSpec = spec(675_466_456, LINES_PER_ORDER_MAX);
pub const L_PKEY: StreamSpec = spec(1_808_217_256, LINES_PER_ORDER_MAX);
pub const L_SKEY: StreamSpec = spec(2_095_021_727, LINES_PER_ORDER_MAX);
pub const L_CDTE: StreamSpec = spec(904_914_315, LINES_PER_ORDER_MAX);

// Customer.
pub const C_ADDR: StreamSpec = spec(881_155_353, 9);
pub const C_NTRG: StreamSpec = spec(1_489_529_863, 1);
/// Phone numbers: three draws. Suppliers draw from this customer stream too (a dbgen quirk).
pub const C_PHNE: StreamSpec = spec(1_521_138_112, 3);
pub const C_MSEG: StreamSpec = spec(1_140_279_430, 1);

// Supplier.
pub const S_ADDR: StreamSpec = spec(706_178_559, 9);
pub const S_NTRG: StreamSpec = spec(110_356_601, 1);
/// The city digit. A supplier stream that customers draw from too.
pub const P_CITY: StreamSpec = spec(1_495_190_827, 1);

impl StreamSpec {
    /// The stream positioned at the start of row `row` (0-based) of its own table, after
    /// `offset` draws that other tables took from it first.
    pub fn at_row(self, row: u64, offset: u64) -> crate::rng::Stream {
        crate::rng::Stream::at(self.seed, offset + row * self.per_row)
    }
}
