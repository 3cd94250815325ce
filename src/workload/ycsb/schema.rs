//! The table and the statements, as YCSB's JDBC binding makes and runs them.
//!
//! The binding's `create_table.mysql` script: `usertable(YCSB_KEY VARCHAR(255) PRIMARY KEY,
//! FIELD0 TEXT, ..., FIELD9 TEXT)`; its generic script leaves the lengths out (`VARCHAR`), which
//! not every engine takes, so the MySQL one is used everywhere. Every engine here has both
//! types (DuckDB reads `TEXT` as `VARCHAR` and ignores the length); MariaDB/MySQL tables are
//! InnoDB. The statements are the binding's (`DefaultDBFlavor`): a read is `SELECT *` by key,
//! an update sets the chosen fields by key, an insert names every column, a scan is
//! `WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?`. Columns are listed by name instead of `*`
//! (the same columns, in table order).

use super::keys::FIELDS;
use crate::engines::dialect::Sql;
use crate::engines::Dialect;

/// The table.
pub const TABLE: &str = "usertable";

/// What follows `CREATE TABLE (...)`: the storage engine where there is a choice.
const TABLE_SUFFIX: Sql = crate::sql!("", Mysql => " ENGINE=InnoDB");

/// Every column, in table order: the key, then `FIELD0` to `FIELD9`.
pub fn columns() -> Vec<String> {
    std::iter::once("YCSB_KEY".to_string())
        .chain((0..FIELDS).map(|i| format!("FIELD{i}")))
        .collect()
}

/// `CREATE TABLE usertable (...)` for dialect `d`.
pub fn create_table(d: Dialect) -> String {
    let fields: Vec<String> = (0..FIELDS).map(|i| format!("FIELD{i} {}", d.text_type())).collect();
    format!(
        "CREATE TABLE {TABLE} (YCSB_KEY VARCHAR(255) PRIMARY KEY, {}){}",
        fields.join(", "),
        TABLE_SUFFIX.for_dialect(d)
    )
}

/// Read: every column of one record.
pub fn read() -> String {
    format!("SELECT {} FROM {TABLE} WHERE YCSB_KEY = ?", columns().join(", "))
}

/// Update of field `field`: the value, then the key.
pub fn update(field: usize) -> String {
    format!("UPDATE {TABLE} SET FIELD{field} = ? WHERE YCSB_KEY = ?")
}

/// Insert: the key, then the ten fields.
pub fn insert() -> String {
    let cols = columns();
    let marks = vec!["?"; cols.len()].join(", ");
    format!("INSERT INTO {TABLE} ({}) VALUES ({marks})", cols.join(", "))
}

/// Scan: the start key, then the number of records.
pub fn scan() -> String {
    format!(
        "SELECT {} FROM {TABLE} WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?",
        columns().join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_and_statements_name_every_column() {
        for d in Dialect::ALL {
            let ddl = create_table(d);
            assert!(ddl.starts_with("CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT"));
            assert!(ddl.contains("FIELD9 TEXT)"), "{ddl}");
        }
        assert!(create_table(Dialect::Mysql).ends_with(") ENGINE=InnoDB"));
        assert_eq!(columns().len(), 11);
        assert_eq!(insert().matches('?').count(), 11);
        assert_eq!(update(3), "UPDATE usertable SET FIELD3 = ? WHERE YCSB_KEY = ?");
        assert!(read().starts_with("SELECT YCSB_KEY, FIELD0, FIELD1"));
        assert!(scan().ends_with("WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"));
    }
}
