//! The nine tables of TPC-C 5.11 §1.3, per SQL dialect, with the primary keys of §1.3 and the
//! two secondary indexes every implementation adds (customers by last name for Payment and
//! Order-Status, orders by customer for Order-Status), created after the population.
//!
//! Amounts are `DECIMAL(p, 2)` and rates `DECIMAL(4, 4)` as the specification sizes them. SQLite
//! gives them NUMERIC affinity, so it stores exact cents as binary floating point: the
//! consistency checks ([`super::check`]) compare sums to the cent. Foreign keys are left out
//! (§1.4.2 allows any referential integrity mechanism or none); MariaDB's tables are InnoDB.

use crate::engines::Dialect;

/// What follows each `CREATE TABLE (...)`.
fn suffix(d: Dialect) -> &'static str {
    if d == Dialect::Mysql {
        " ENGINE=InnoDB"
    } else {
        ""
    }
}

/// The tables in the order they are loaded (and dropped in reverse).
pub const TABLES: [&str; 9] = [
    "warehouse",
    "district",
    "customer",
    "history",
    "new_order",
    "orders",
    "order_line",
    "item",
    "stock",
];

/// `CREATE TABLE` statements for the nine tables, separated by `;`.
pub fn tables(d: Dialect) -> String {
    let address = |p: &str| {
        format!(
            "{p}_street_1 VARCHAR(20), {p}_street_2 VARCHAR(20), {p}_city VARCHAR(20), {p}_state CHAR(2), {p}_zip CHAR(9)"
        )
    };
    let stock_dists: String = (1..=10).map(|i| format!("s_dist_{i:02} CHAR(24), ")).collect();
    // A timestamp column: SQLite keeps the text it is given.
    let ts = if d == Dialect::Mysql { "DATETIME" } else { "TIMESTAMP" };
    let sfx = suffix(d);
    [
        format!(
            "CREATE TABLE warehouse (w_id INTEGER NOT NULL, w_name VARCHAR(10), {}, w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2), PRIMARY KEY (w_id)){sfx}",
            address("w")
        ),
        format!(
            "CREATE TABLE district (d_id INTEGER NOT NULL, d_w_id INTEGER NOT NULL, d_name VARCHAR(10), {}, d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INTEGER, PRIMARY KEY (d_w_id, d_id)){sfx}",
            address("d")
        ),
        format!(
            "CREATE TABLE customer (c_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_w_id INTEGER NOT NULL, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), {}, c_phone CHAR(16), c_since {ts}, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt INTEGER, c_delivery_cnt INTEGER, c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id)){sfx}",
            address("c")
        ),
        format!(
            "CREATE TABLE history (h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER, h_date {ts}, h_amount DECIMAL(6,2), h_data VARCHAR(24)){sfx}"
        ),
        format!(
            "CREATE TABLE new_order (no_o_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_w_id INTEGER NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id)){sfx}"
        ),
        format!(
            "CREATE TABLE orders (o_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_w_id INTEGER NOT NULL, o_c_id INTEGER, o_entry_d {ts}, o_carrier_id INTEGER, o_ol_cnt INTEGER, o_all_local INTEGER, PRIMARY KEY (o_w_id, o_d_id, o_id)){sfx}"
        ),
        format!(
            "CREATE TABLE order_line (ol_o_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_w_id INTEGER NOT NULL, ol_number INTEGER NOT NULL, ol_i_id INTEGER, ol_supply_w_id INTEGER, ol_delivery_d {ts}, ol_quantity INTEGER, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)){sfx}"
        ),
        format!(
            "CREATE TABLE item (i_id INTEGER NOT NULL, i_im_id INTEGER, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50), PRIMARY KEY (i_id)){sfx}"
        ),
        format!(
            "CREATE TABLE stock (s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_quantity INTEGER, {stock_dists}s_ytd INTEGER, s_order_cnt INTEGER, s_remote_cnt INTEGER, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id)){sfx}"
        ),
    ]
    .join(";\n")
}

/// The secondary indexes, created after the population.
pub fn indexes() -> &'static str {
    "CREATE INDEX customer_by_name ON customer (c_w_id, c_d_id, c_last, c_first);\n\
     CREATE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)"
}

/// What gathers the planner's statistics once the population and its indexes are in: every
/// peer's tables have them (go-tpc's on PostgreSQL from autovacuum, which came in its first
/// round until its bench analyzed them), and a template copied without them ran PostgreSQL's
/// transactions on default estimates. MariaDB's `ANALYZE TABLE` answers with status rows.
pub fn analyze(d: Dialect) -> String {
    match d {
        Dialect::Mysql => format!("ANALYZE TABLE {}", TABLES.join(", ")),
        _ => "ANALYZE".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_are_gathered_for_every_table() {
        assert_eq!(analyze(Dialect::Sqlite), "ANALYZE");
        assert_eq!(analyze(Dialect::Postgres), "ANALYZE");
        let my = analyze(Dialect::Mysql);
        assert!(my.starts_with("ANALYZE TABLE "), "{my}");
        for t in TABLES {
            assert!(my.contains(t), "{t} in {my}");
        }
    }

    #[test]
    fn nine_tables_each_with_its_key() {
        for d in [Dialect::Sqlite, Dialect::Postgres, Dialect::Mysql, Dialect::Duckdb] {
            let sql = tables(d);
            assert_eq!(sql.matches("CREATE TABLE").count(), 9);
            // History alone has no primary key (§1.3).
            assert_eq!(sql.matches("PRIMARY KEY").count(), 8);
            assert_eq!(sql.contains("ENGINE=InnoDB"), d == Dialect::Mysql);
            assert_eq!(sql.matches("s_dist_").count(), 10);
            for t in TABLES {
                assert!(sql.contains(&format!("CREATE TABLE {t} (")), "{t}");
            }
        }
    }
}
