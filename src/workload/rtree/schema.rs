//! The features table and the two indexes over its boxes, and each operation's statement.
//!
//! The features table holds every box's coordinates and a name. With the R*Tree
//! (`spatial_index=rtree`) a virtual table `features_rtree` holds the boxes too, kept in step by
//! triggers after an insert or an update of the coordinates, and the queries find their ids
//! there (`id IN (SELECT id FROM features_rtree WHERE ...)`): GeoPackage's layout and the way
//! its readers query it. The baseline (`spatial_index=btree`) has B-tree indexes on
//! `(minx, maxx)` and `(miny, maxy)` and queries the table itself. Both ask the same
//! inclusive overlap, so they answer with the same ids.

/// The table.
pub const TABLE: &str = "features";

/// Which index the boxes have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Index {
    Rtree,
    Btree,
}

/// Every operation's statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statements {
    /// The window's least x, least y, greatest x, greatest y: ids and names.
    pub window: String,
    /// A window as above, then twice the point's x (twice) and y (twice): the nearest id.
    pub nearest: String,
    /// Id, minx, maxx, miny, maxy, name.
    pub insert: String,
    /// The shift in x (twice), in y (twice), the id.
    pub shift: String,
}

/// The overlap condition, with the window's corners as parameters in [`Statements::window`]'s
/// order.
const MEETS: &str = "maxx >= ? AND maxy >= ? AND minx <= ? AND miny <= ?";

impl Index {
    pub const NAMES: [&'static str; 2] = ["rtree", "btree"];

    pub fn parse(name: &str) -> Option<Index> {
        match name {
            "rtree" => Some(Index::Rtree),
            "btree" => Some(Index::Btree),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Index::Rtree => "rtree",
            Index::Btree => "btree",
        }
    }

    /// The features table, created empty.
    pub fn create() -> String {
        format!(
            "CREATE TABLE {TABLE} (id INTEGER PRIMARY KEY, minx INTEGER NOT NULL, maxx INTEGER NOT NULL, miny INTEGER NOT NULL, maxy INTEGER NOT NULL, name TEXT NOT NULL)"
        )
    }

    /// What makes the index once the boxes are loaded.
    pub fn after_load(self) -> Vec<String> {
        match self {
            Index::Rtree => vec![
                format!("CREATE VIRTUAL TABLE {TABLE}_rtree USING rtree(id, minx, maxx, miny, maxy)"),
                format!("INSERT INTO {TABLE}_rtree SELECT id, minx, maxx, miny, maxy FROM {TABLE}"),
                format!(
                    "CREATE TRIGGER {TABLE}_rtree_insert AFTER INSERT ON {TABLE} BEGIN INSERT INTO {TABLE}_rtree VALUES (NEW.id, NEW.minx, NEW.maxx, NEW.miny, NEW.maxy); END"
                ),
                format!(
                    "CREATE TRIGGER {TABLE}_rtree_update AFTER UPDATE OF minx, maxx, miny, maxy ON {TABLE} BEGIN UPDATE {TABLE}_rtree SET minx = NEW.minx, maxx = NEW.maxx, miny = NEW.miny, maxy = NEW.maxy WHERE id = NEW.id; END"
                ),
                "ANALYZE".into(),
            ],
            Index::Btree => vec![
                format!("CREATE INDEX {TABLE}_x ON {TABLE}(minx, maxx)"),
                format!("CREATE INDEX {TABLE}_y ON {TABLE}(miny, maxy)"),
                "ANALYZE".into(),
            ],
        }
    }

    /// The statements.
    pub fn statements(self) -> Statements {
        let from = match self {
            Index::Rtree => format!("{TABLE} f WHERE f.id IN (SELECT id FROM {TABLE}_rtree WHERE {MEETS})"),
            Index::Btree => format!("{TABLE} f WHERE {MEETS}"),
        };
        Statements {
            window: format!("SELECT f.id, f.name FROM {from}"),
            nearest: format!(
                "SELECT f.id FROM {from} ORDER BY (f.minx + f.maxx - ?) * (f.minx + f.maxx - ?) + (f.miny + f.maxy - ?) * (f.miny + f.maxy - ?), f.id LIMIT 1"
            ),
            insert: format!("INSERT INTO {TABLE} (id, minx, maxx, miny, maxy, name) VALUES (?, ?, ?, ?, ?, ?)"),
            shift: format!(
                "UPDATE {TABLE} SET minx = minx + ?, maxx = maxx + ?, miny = miny + ?, maxy = maxy + ? WHERE id = ?"
            ),
        }
    }

    /// The index a database's schema shows: the R*Tree where its virtual table exists.
    pub fn of_schema(has_rtree_table: bool) -> Index {
        if has_rtree_table {
            Index::Rtree
        } else {
            Index::Btree
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_indexes_bind_the_same_parameters() {
        let (r, b) = (Index::Rtree.statements(), Index::Btree.statements());
        for (x, y) in [(&r.window, &b.window), (&r.nearest, &b.nearest)] {
            assert_eq!(x.matches('?').count(), y.matches('?').count());
        }
        assert_eq!(r.window.matches('?').count(), 4);
        assert_eq!(r.nearest.matches('?').count(), 8);
        assert!(r.window.contains("features_rtree") && !b.window.contains("rtree"));
        assert_eq!(r.insert, b.insert);
    }
}
