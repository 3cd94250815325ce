//! The four tables, per SQL dialect.
//!
//! One generic schema (the specification's columns, keys and foreign keys) with column types
//! each dialect names ([`Dialect::int_type`]): one-byte integers are `TINYINT` where there is
//! one (PostgreSQL: `SMALLINT`), and the 32-bit unsigned location columns take an unsigned
//! type where there is one (PostgreSQL: `BIGINT`). MariaDB/MySQL tables are InnoDB. The unique
//! index on `sub_nbr` is created after population.

use crate::engines::dialect::{IntType, Sql};
use crate::engines::Dialect;

/// Column types of one dialect.
struct Types {
    /// `s_id`.
    id: &'static str,
    /// `bit_*`, `hex_*`, `ai_type`, `sf_type`, `is_active`, `start_time`, `end_time`.
    tiny: &'static str,
    /// `byte2_*`, `data1`, `data2`, `error_cntrl`, `data_a` (0..255).
    small: &'static str,
    /// `msc_location`, `vlr_location`: 1..2^32-1.
    location: &'static str,
    /// After each `CREATE TABLE (...)`.
    table_suffix: &'static str,
}

/// What follows each `CREATE TABLE (...)`: the storage engine where there is a choice.
const TABLE_SUFFIX: Sql = crate::sql!("", Mysql => " ENGINE=InnoDB");

fn types(d: Dialect) -> Types {
    Types {
        id: d.int_type(IntType::I32),
        tiny: d.int_type(IntType::I8),
        small: d.int_type(IntType::I16),
        location: d.int_type(IntType::U32),
        table_suffix: TABLE_SUFFIX.for_dialect(d),
    }
}

/// `CREATE TABLE` statements for the four tables, separated by `;`.
pub fn tables(d: Dialect) -> String {
    let t = types(d);
    let mut sub = format!(
        "CREATE TABLE subscriber (\n  s_id {} NOT NULL PRIMARY KEY,\n  sub_nbr VARCHAR(15) NOT NULL",
        t.id
    );
    for (prefix, ty) in [("bit", t.tiny), ("hex", t.tiny), ("byte2", t.small)] {
        for i in 1..=10 {
            sub += &format!(",\n  {prefix}_{i} {ty}");
        }
    }
    sub += &format!(
        ",\n  msc_location {loc},\n  vlr_location {loc}\n){}",
        t.table_suffix,
        loc = t.location
    );
    let access = format!(
        "CREATE TABLE access_info (\n  s_id {id} NOT NULL,\n  ai_type {tiny} NOT NULL,\n  data1 {small},\n  data2 {small},\n  data3 CHAR(3),\n  data4 CHAR(5),\n  PRIMARY KEY (s_id, ai_type),\n  FOREIGN KEY (s_id) REFERENCES subscriber (s_id)\n){sfx}",
        id = t.id,
        tiny = t.tiny,
        small = t.small,
        sfx = t.table_suffix
    );
    let facility = format!(
        "CREATE TABLE special_facility (\n  s_id {id} NOT NULL,\n  sf_type {tiny} NOT NULL,\n  is_active {tiny} NOT NULL,\n  error_cntrl {small},\n  data_a {small},\n  data_b CHAR(5),\n  PRIMARY KEY (s_id, sf_type),\n  FOREIGN KEY (s_id) REFERENCES subscriber (s_id)\n){sfx}",
        id = t.id,
        tiny = t.tiny,
        small = t.small,
        sfx = t.table_suffix
    );
    let forwarding = format!(
        "CREATE TABLE call_forwarding (\n  s_id {id} NOT NULL,\n  sf_type {tiny} NOT NULL,\n  start_time {tiny} NOT NULL,\n  end_time {tiny},\n  numberx CHAR(15),\n  PRIMARY KEY (s_id, sf_type, start_time),\n  FOREIGN KEY (s_id, sf_type) REFERENCES special_facility (s_id, sf_type)\n){sfx}",
        id = t.id,
        tiny = t.tiny,
        sfx = t.table_suffix
    );
    format!("{sub};\n{access};\n{facility};\n{forwarding};\n")
}

/// The unique index on `sub_nbr`, created once the tables are filled.
pub const SUB_NBR_INDEX: &str = "CREATE UNIQUE INDEX subscriber_sub_nbr ON subscriber (sub_nbr)";

/// Statements of `sql` separated by `;` (the DDL has no `;` inside a statement), for engines
/// whose batch execution takes one statement at a time.
pub fn statements(sql: &str) -> impl Iterator<Item = &str> {
    sql.split(';').map(str::trim).filter(|s| !s.is_empty())
}

/// The 34 columns of `subscriber`, in table order.
pub fn subscriber_columns() -> String {
    let mut cols = vec!["s_id".to_string(), "sub_nbr".to_string()];
    for prefix in ["bit", "hex", "byte2"] {
        for i in 1..=10 {
            cols.push(format!("{prefix}_{i}"));
        }
    }
    cols.push("msc_location".into());
    cols.push("vlr_location".into());
    cols.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_the_four_tables_and_keys() {
        for d in Dialect::ALL {
            let ddl = tables(d);
            assert_eq!(statements(&ddl).count(), 4, "{d:?}");
            for needle in [
                "CREATE TABLE subscriber",
                "byte2_10",
                "vlr_location",
                "PRIMARY KEY (s_id, ai_type)",
                "PRIMARY KEY (s_id, sf_type)",
                "PRIMARY KEY (s_id, sf_type, start_time)",
                "REFERENCES special_facility (s_id, sf_type)",
            ] {
                assert!(ddl.contains(needle), "{d:?} lacks {needle}");
            }
        }
        assert!(!tables(Dialect::Postgres).contains("TINYINT"));
        assert!(tables(Dialect::Mysql).contains("ENGINE=InnoDB"));
        assert_eq!(subscriber_columns().split(", ").count(), 34);
    }
}
