//! The five SSB tables and their columns, in the order dbgen prints them.
//!
//! Column names are the SSB paper's (and the VLDB'22 artifact's schema). Kinds say how a
//! loader should type a column: dates are printed as `YYYYMMDD` numbers (`lo_orderdate`,
//! `d_datekey`) and the date table's flags as 0/1, so they are integers.

/// An SSB table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    Part,
    Supplier,
    Customer,
    Date,
    Lineorder,
}

/// How a column's text is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// A decimal integer (possibly negative).
    Int,
    /// Any UTF-8 text without `|` or a line break.
    Text,
}

/// One column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Column {
    pub name: &'static str,
    pub kind: ColumnKind,
}

const fn int(name: &'static str) -> Column {
    Column {
        name,
        kind: ColumnKind::Int,
    }
}

const fn text(name: &'static str) -> Column {
    Column {
        name,
        kind: ColumnKind::Text,
    }
}

const PART: [Column; 9] = [
    int("p_partkey"),
    text("p_name"),
    text("p_mfgr"),
    text("p_category"),
    text("p_brand1"),
    text("p_color"),
    text("p_type"),
    int("p_size"),
    text("p_container"),
];

const SUPPLIER: [Column; 7] = [
    int("s_suppkey"),
    text("s_name"),
    text("s_address"),
    text("s_city"),
    text("s_nation"),
    text("s_region"),
    text("s_phone"),
];

const CUSTOMER: [Column; 8] = [
    int("c_custkey"),
    text("c_name"),
    text("c_address"),
    text("c_city"),
    text("c_nation"),
    text("c_region"),
    text("c_phone"),
    text("c_mktsegment"),
];

const DATE: [Column; 17] = [
    int("d_datekey"),
    text("d_date"),
    text("d_dayofweek"),
    text("d_month"),
    int("d_year"),
    int("d_yearmonthnum"),
    text("d_yearmonth"),
    int("d_daynuminweek"),
    int("d_daynuminmonth"),
    int("d_daynuminyear"),
    int("d_monthnuminyear"),
    int("d_weeknuminyear"),
    text("d_sellingseason"),
    int("d_lastdayinweekfl"),
    int("d_lastdayinmonthfl"),
    int("d_holidayfl"),
    int("d_weekdayfl"),
];

const LINEORDER: [Column; 17] = [
    int("lo_orderkey"),
    int("lo_linenumber"),
    int("lo_custkey"),
    int("lo_partkey"),
    int("lo_suppkey"),
    int("lo_orderdate"),
    text("lo_orderpriority"),
    int("lo_shippriority"),
    int("lo_quantity"),
    int("lo_extendedprice"),
    int("lo_ordtotalprice"),
    int("lo_discount"),
    int("lo_revenue"),
    int("lo_supplycost"),
    int("lo_tax"),
    int("lo_commitdate"),
    text("lo_shipmode"),
];

impl Table {
    /// Every table, dimensions first (the order dbgen generates them in).
    pub fn all() -> [Table; 5] {
        [
            Table::Part,
            Table::Supplier,
            Table::Customer,
            Table::Date,
            Table::Lineorder,
        ]
    }

    /// The SQL table name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Part => "part",
            Table::Supplier => "supplier",
            Table::Customer => "customer",
            Table::Date => "date",
            Table::Lineorder => "lineorder",
        }
    }

    /// The file dbgen writes the table to.
    pub fn file_name(self) -> &'static str {
        match self {
            Table::Part => "part.tbl",
            Table::Supplier => "supplier.tbl",
            Table::Customer => "customer.tbl",
            Table::Date => "date.tbl",
            Table::Lineorder => "lineorder.tbl",
        }
    }

    /// The columns, in `.tbl` order.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Part => &PART,
            Table::Supplier => &SUPPLIER,
            Table::Customer => &CUSTOMER,
            Table::Date => &DATE,
            Table::Lineorder => &LINEORDER,
        }
    }

    /// The table named `name` (as [`Table::name`]).
    pub fn from_name(name: &str) -> Option<Table> {
        Table::all().into_iter().find(|t| t.name() == name)
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
