//! How big a population `warehouses` makes, before it is made: the rows of §4.3.3.1 and the
//! bytes of the specification's typical row lengths (its table of cardinalities), so that
//! `run tpcc --dry-run` says what a scale costs (issue 49) before minutes of loading. The rows
//! are exact but for order lines (5 to 15 an order, 10 on average); the bytes are the data the
//! rows carry, not an engine's file: SQLite's file at one warehouse, with its indexes and page
//! fill, is measured against it in tests/cli/tpcc.rs.

/// Per warehouse: each table's rows and typical row length in bytes (warehouse, district,
/// customer, history, orders, new order, order lines on average, stock).
const PER_WAREHOUSE: [(&str, u64, u64); 8] = [
    ("warehouse", 1, 89),
    ("district", 10, 95),
    ("customer", 30_000, 655),
    ("history", 30_000, 46),
    ("orders", 30_000, 24),
    ("new_order", 9_000, 8),
    ("order_line", 300_000, 54),
    ("stock", 100_000, 306),
];

/// The items, shared by every warehouse: rows and typical row length.
const ITEMS: (u64, u64) = (100_000, 82);

/// A population's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Rows of all nine tables.
    pub rows: u64,
    /// Bytes of the rows' data by the typical row lengths.
    pub bytes: u64,
}

/// One warehouse's rows and bytes, items not counted.
pub fn per_warehouse() -> Size {
    Size {
        rows: PER_WAREHOUSE.iter().map(|t| t.1).sum(),
        bytes: PER_WAREHOUSE.iter().map(|t| t.1 * t.2).sum(),
    }
}

/// The whole population of `warehouses`.
pub fn population(warehouses: u64) -> Size {
    let w = per_warehouse();
    Size {
        rows: w.rows * warehouses + ITEMS.0,
        bytes: w.bytes * warehouses + ITEMS.0 * ITEMS.1,
    }
}

/// The dry run's line: `population: 2 warehouses, 1,098,022 rows (499,011 a warehouse and
/// 100,000 items), about 145.4 MB of row data (68.6 MB a warehouse) ...`.
pub fn plan_line(warehouses: u64) -> String {
    let (all, w) = (population(warehouses), per_warehouse());
    let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
    format!(
        "population: {warehouses} warehouse{}, {} rows ({} a warehouse and {} items), about {} of row data ({} a warehouse) by TPC-C's typical row lengths; made once per engine, copied per trial",
        if warehouses == 1 { "" } else { "s" },
        super::report::grouped(all.rows as f64),
        super::report::grouped(w.rows as f64),
        super::report::grouped(ITEMS.0 as f64),
        mb(all.bytes),
        mb(w.bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §4.3.3.1's cardinalities (order lines at their mean) and the typical table sizes they
    /// come to: 68,623,039 bytes a warehouse, 8,200,000 of items.
    #[test]
    fn a_warehouse_is_its_tables_rows() {
        assert_eq!(
            per_warehouse(),
            Size {
                rows: 499_011,
                bytes: 68_623_039
            }
        );
        assert_eq!(
            population(2),
            Size {
                rows: 2 * 499_011 + 100_000,
                bytes: 2 * 68_623_039 + 8_200_000
            }
        );
        assert_eq!(
            plan_line(1),
            "population: 1 warehouse, 599,011 rows (499,011 a warehouse and 100,000 items), about 76.8 MB of row data (68.6 MB a warehouse) by TPC-C's typical row lengths; made once per engine, copied per trial"
        );
    }
}
