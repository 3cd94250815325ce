//! What differs between the engines' SQL in TPC-H's 22 queries, stated once: the
//! specification's date literals, date arithmetic with intervals, `extract(year from ...)` and
//! `substring(... from ... for ...)` are ANSI SQL that PostgreSQL, DuckDB and MariaDB all take;
//! SQLite (and Turso, which speaks its dialect) has no `DATE` type, no `interval` and no
//! `extract`, and keeps dates as ISO-8601 text, which compares in date order. Every rewrite is
//! listed in docs/workloads.md's `tpch` section.

use crate::engines::dialect::Dialect;
use jiff::civil::Date;

/// A unit of the specification's `interval 'n' unit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Day,
    Month,
    Year,
}

impl Unit {
    fn ansi(self) -> &'static str {
        match self {
            Unit::Day => "day",
            Unit::Month => "month",
            Unit::Year => "year",
        }
    }

    /// SQLite's `date()` modifier word (plural, as its documentation writes them).
    fn sqlite(self) -> &'static str {
        match self {
            Unit::Day => "days",
            Unit::Month => "months",
            Unit::Year => "years",
        }
    }
}

/// The query texts' dialect.
#[derive(Debug, Clone, Copy)]
pub struct Rewrite(pub Dialect);

impl Rewrite {
    fn sqlite(self) -> bool {
        self.0 == Dialect::Sqlite
    }

    /// `date 'YYYY-MM-DD'`; SQLite: the ISO text itself.
    pub fn date(self, d: Date) -> String {
        if self.sqlite() {
            format!("'{d}'")
        } else {
            format!("date '{d}'")
        }
    }

    /// `date 'd' + interval 'n' unit` (`n` negative: `- interval`); SQLite: `date('d', '+n
    /// units')`, which gives ISO text again.
    pub fn shift(self, d: Date, n: i32, unit: Unit) -> String {
        if self.sqlite() {
            return format!("date('{d}', '{n:+} {}')", unit.sqlite());
        }
        let sign = if n < 0 { '-' } else { '+' };
        format!("date '{d}' {sign} interval '{}' {}", n.unsigned_abs(), unit.ansi())
    }

    /// `extract(year from col)`; SQLite: the year of the ISO text as an integer.
    pub fn year(self, col: &str) -> String {
        if self.sqlite() {
            format!("CAST(strftime('%Y', {col}) AS INTEGER)")
        } else {
            format!("extract(year from {col})")
        }
    }

    /// A date column in a query's answer: its ISO text under the column's name, as SQLite
    /// holds it, since litebench's readers of the other engines' results take no `DATE` (and
    /// an answer compares as text anyway).
    pub fn date_out(self, col: &str) -> String {
        match self.0 {
            Dialect::Sqlite => col.to_string(),
            Dialect::Postgres => format!("CAST({col} AS TEXT) AS {col}"),
            Dialect::Mysql => format!("CAST({col} AS CHAR) AS {col}"),
            Dialect::Duckdb => format!("CAST({col} AS VARCHAR) AS {col}"),
        }
    }

    /// `substring(col from 1 for n)`; SQLite: `substr(col, 1, n)`.
    pub fn prefix(self, col: &str, n: u32) -> String {
        if self.sqlite() {
            format!("substr({col}, 1, {n})")
        } else {
            format!("substring({col} from 1 for {n})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn ansi_for_the_servers_and_duckdb_functions_for_sqlite() {
        let d = date(1998, 12, 1);
        for dialect in [Dialect::Postgres, Dialect::Mysql, Dialect::Duckdb] {
            let r = Rewrite(dialect);
            assert_eq!(r.date(d), "date '1998-12-01'");
            assert_eq!(r.shift(d, -90, Unit::Day), "date '1998-12-01' - interval '90' day");
            assert_eq!(r.shift(d, 3, Unit::Month), "date '1998-12-01' + interval '3' month");
            assert_eq!(r.year("o_orderdate"), "extract(year from o_orderdate)");
            assert_eq!(r.prefix("c_phone", 2), "substring(c_phone from 1 for 2)");
        }
        assert_eq!(
            Rewrite(Dialect::Duckdb).date_out("o_orderdate"),
            "CAST(o_orderdate AS VARCHAR) AS o_orderdate"
        );
        assert_eq!(Rewrite(Dialect::Sqlite).date_out("o_orderdate"), "o_orderdate");
        let r = Rewrite(Dialect::Sqlite);
        assert_eq!(r.date(d), "'1998-12-01'");
        assert_eq!(r.shift(d, -90, Unit::Day), "date('1998-12-01', '-90 days')");
        assert_eq!(r.shift(d, 1, Unit::Year), "date('1998-12-01', '+1 years')");
        assert_eq!(r.year("l_shipdate"), "CAST(strftime('%Y', l_shipdate) AS INTEGER)");
        assert_eq!(r.prefix("c_phone", 2), "substr(c_phone, 1, 2)");
    }
}
