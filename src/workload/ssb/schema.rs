//! The five SSB tables per SQL dialect, as the VLDB'22 artifact declares them
//! (UWHustle/sqlite-past-present-future, `src/benchmarks/ssb/sql/init/{sqlite3,duckdb}.sql`).
//!
//! - SQLite: `INTEGER` and `TEXT` columns, a primary key on every table and the four foreign
//!   keys of `lineorder` (declared, not enforced: SQLite checks foreign keys only with
//!   `foreign_keys=on`). The dimension keys are `INTEGER PRIMARY KEY`, i.e. the rowid;
//!   `lineorder`'s composite key `(lo_orderkey, lo_linenumber)` becomes an automatic index
//!   (`sqlite_autoindex_lineorder_1`), which the artifact has too and which is kept.
//! - DuckDB: the artifact's narrow unsigned types (`UINTEGER`, `UTINYINT`, ...), `BOOLEAN`
//!   flags, primary keys, no foreign keys (the artifact declares none there).
//! - PostgreSQL and MariaDB (not in the artifact): `INTEGER` and text columns with the same
//!   primary keys and no foreign keys: enforcing them would check every `lineorder` row while
//!   loading, and InnoDB would add an index per foreign key, where the rule is "no other
//!   indexes".
//!
//! No other index exists on any engine.

use crate::engines::Dialect;
use litebench_ssbgen::Table;

/// What a column holds, for its type per dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    /// A key or other integer below 2^32.
    Int,
    /// An integer below 256 (quantity, discount, tax, day numbers).
    Small,
    /// A year or day of the year (below 65536).
    Medium,
    /// 0 or 1.
    Flag,
    /// Text of at most this many characters.
    Text(u16),
}

/// A column: its name (dbgen's order) and domain.
pub type Column = (&'static str, Domain);

use Domain::{Flag, Int, Medium, Small, Text};

pub const PART: &[Column] = &[
    ("p_partkey", Int),
    ("p_name", Text(22)),
    ("p_mfgr", Text(6)),
    ("p_category", Text(7)),
    ("p_brand1", Text(9)),
    ("p_color", Text(11)),
    ("p_type", Text(25)),
    ("p_size", Small),
    ("p_container", Text(10)),
];

pub const SUPPLIER: &[Column] = &[
    ("s_suppkey", Int),
    ("s_name", Text(25)),
    ("s_address", Text(25)),
    ("s_city", Text(10)),
    ("s_nation", Text(15)),
    ("s_region", Text(12)),
    ("s_phone", Text(15)),
];

pub const CUSTOMER: &[Column] = &[
    ("c_custkey", Int),
    ("c_name", Text(25)),
    ("c_address", Text(25)),
    ("c_city", Text(10)),
    ("c_nation", Text(15)),
    ("c_region", Text(12)),
    ("c_phone", Text(15)),
    ("c_mktsegment", Text(10)),
];

pub const DATE: &[Column] = &[
    ("d_datekey", Int),
    ("d_date", Text(18)),
    ("d_dayofweek", Text(9)),
    ("d_month", Text(9)),
    ("d_year", Medium),
    ("d_yearmonthnum", Int),
    ("d_yearmonth", Text(7)),
    ("d_daynuminweek", Small),
    ("d_daynuminmonth", Small),
    ("d_daynuminyear", Medium),
    ("d_monthnuminyear", Small),
    ("d_weeknuminyear", Small),
    ("d_sellingseason", Text(12)),
    ("d_lastdayinweekfl", Flag),
    ("d_lastdayinmonthfl", Flag),
    ("d_holidayfl", Flag),
    ("d_weekdayfl", Flag),
];

pub const LINEORDER: &[Column] = &[
    ("lo_orderkey", Int),
    ("lo_linenumber", Small),
    ("lo_custkey", Int),
    ("lo_partkey", Int),
    ("lo_suppkey", Int),
    ("lo_orderdate", Int),
    ("lo_orderpriority", Text(15)),
    ("lo_shippriority", Text(1)),
    ("lo_quantity", Small),
    ("lo_extendedprice", Int),
    ("lo_ordtotalprice", Int),
    ("lo_discount", Small),
    ("lo_revenue", Int),
    ("lo_supplycost", Int),
    ("lo_tax", Small),
    ("lo_commitdate", Int),
    ("lo_shipmode", Text(10)),
];

/// The columns of a table, in `.tbl` order.
pub fn columns(table: Table) -> &'static [Column] {
    match table {
        Table::Part => PART,
        Table::Supplier => SUPPLIER,
        Table::Customer => CUSTOMER,
        Table::Date => DATE,
        Table::Lineorder => LINEORDER,
    }
}

/// Tables in load order: dimensions first, so `lineorder`'s foreign keys point at rows that
/// exist.
pub const LOAD_ORDER: [Table; 5] = [
    Table::Part,
    Table::Supplier,
    Table::Customer,
    Table::Date,
    Table::Lineorder,
];

fn type_name(dialect: Dialect, d: Domain) -> String {
    match (dialect, d) {
        (Dialect::Sqlite, Text(_)) => "TEXT".into(),
        (Dialect::Sqlite, _) => "INTEGER".into(),
        (Dialect::Duckdb, Int) => "UINTEGER".into(),
        (Dialect::Duckdb, Small) => "UTINYINT".into(),
        (Dialect::Duckdb, Medium) => "USMALLINT".into(),
        (Dialect::Duckdb, Flag) => "BOOLEAN".into(),
        (Dialect::Duckdb, Text(_)) => "VARCHAR".into(),
        (Dialect::Postgres, Text(_)) => "TEXT".into(),
        (Dialect::Postgres, _) => "INTEGER".into(),
        (Dialect::Mysql, Text(n)) => format!("VARCHAR({n})"),
        (Dialect::Mysql, _) => "INT".into(),
    }
}

/// `CREATE TABLE` of one table.
pub fn create_table(dialect: Dialect, table: Table) -> String {
    let mut lines: Vec<String> = columns(table)
        .iter()
        .map(|(name, d)| format!("    {name} {}", type_name(dialect, *d)))
        .collect();
    let key = match table {
        Table::Lineorder => "lo_orderkey, lo_linenumber",
        _ => columns(table)[0].0,
    };
    lines.push(format!("    PRIMARY KEY ({key})"));
    if table == Table::Lineorder && dialect == Dialect::Sqlite {
        for (column, (dim, key)) in [
            ("lo_custkey", ("customer", "c_custkey")),
            ("lo_partkey", ("part", "p_partkey")),
            ("lo_suppkey", ("supplier", "s_suppkey")),
            ("lo_orderdate", ("date", "d_datekey")),
        ] {
            lines.push(format!("    FOREIGN KEY ({column}) REFERENCES {dim} ({key})"));
        }
    }
    format!("CREATE TABLE {} (\n{}\n)", table.name(), lines.join(",\n"))
}

/// What gathers the planner's statistics of one table on an engine (see docs/workloads.md).
pub fn analyze(dialect: Dialect, table: Table) -> Option<String> {
    match dialect {
        // SQLite analyzes the whole database at once (below).
        Dialect::Sqlite => None,
        Dialect::Duckdb | Dialect::Postgres => Some(format!("ANALYZE {}", table.name())),
        Dialect::Mysql => Some(format!("ANALYZE TABLE {}", table.name())),
    }
}

/// Statements run once after every table is loaded.
pub fn analyze_all(dialect: Dialect) -> Option<&'static str> {
    match dialect {
        Dialect::Sqlite => Some("ANALYZE"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_match_the_generators_in_name_and_order() {
        for t in Table::all() {
            let ours: Vec<&str> = columns(t).iter().map(|c| c.0).collect();
            let gen: Vec<&str> = t.columns().iter().map(|c| c.name).collect();
            assert_eq!(ours, gen, "{}", t.name());
        }
    }

    #[test]
    fn sqlite_lineorder_has_the_artifacts_keys() {
        let sql = create_table(Dialect::Sqlite, Table::Lineorder);
        assert!(sql.contains("PRIMARY KEY (lo_orderkey, lo_linenumber)"), "{sql}");
        assert!(
            sql.contains("FOREIGN KEY (lo_orderdate) REFERENCES date (d_datekey)"),
            "{sql}"
        );
        let duck = create_table(Dialect::Duckdb, Table::Lineorder);
        assert!(
            duck.contains("lo_quantity UTINYINT") && !duck.contains("FOREIGN KEY"),
            "{duck}"
        );
        assert!(create_table(Dialect::Mysql, Table::Part).contains("p_name VARCHAR(22)"));
    }
}
