//! The values of query results, read inside timed loops.
//!
//! [`super::Connection::run_values`] appends every value a query returned to a [`Values`]
//! buffer: numbers as numbers, text and blobs as bytes in one shared byte buffer. Nothing is
//! formatted and nothing is allocated once the buffer is large enough, so a workload can check
//! a query's result against what it expects, and keep it for the trial's result hash, without
//! changing what the timed loop costs.

/// One value of a result row, as a workload reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CellRef<'a> {
    Null,
    Int(i64),
    /// A binary floating-point number.
    Real(f64),
    /// An exact decimal (SQL `NUMERIC`/`DECIMAL`), converted to the nearest `f64`; the engine
    /// gave it with `scale` digits after the decimal point.
    Decimal {
        value: f64,
        scale: u16,
    },
    Text(&'a [u8]),
    Blob(&'a [u8]),
}

impl CellRef<'_> {
    /// The value as a number, if it is one.
    pub fn number(&self) -> Option<f64> {
        match *self {
            CellRef::Int(i) => Some(i as f64),
            CellRef::Real(x) | CellRef::Decimal { value: x, .. } => Some(x),
            _ => None,
        }
    }
}

impl std::fmt::Display for CellRef<'_> {
    /// For error messages (never in timed loops).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CellRef::Null => f.write_str("NULL"),
            CellRef::Int(i) => write!(f, "{i}"),
            CellRef::Real(x) | CellRef::Decimal { value: x, .. } => write!(f, "{x}"),
            CellRef::Text(t) => write!(f, "'{}'", String::from_utf8_lossy(t)),
            CellRef::Blob(b) => write!(f, "x'{}'", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
        }
    }
}

/// A stored value; text and blobs point into [`Values::bytes`].
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Decimal(f64, u16),
    Text(u32, u32),
    Blob(u32, u32),
}

/// Query result values, in the order they were read; reused from one query to the next.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Values {
    cells: Vec<Cell>,
    bytes: Vec<u8>,
}

impl Values {
    /// Room for `cells` values and `bytes` bytes of text before the first allocation.
    pub fn with_capacity(cells: usize, bytes: usize) -> Values {
        Values {
            cells: Vec::with_capacity(cells),
            bytes: Vec::with_capacity(bytes),
        }
    }

    /// Values stored.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Forgets every value, keeping the memory.
    pub fn clear(&mut self) {
        self.cells.clear();
        self.bytes.clear();
    }

    /// Keeps the first `len` values (drops what a failed query appended).
    pub fn truncate(&mut self, len: usize) {
        self.cells.truncate(len);
        let end = self.cells.iter().rev().find_map(|c| match *c {
            Cell::Text(at, n) | Cell::Blob(at, n) => Some((at + n) as usize),
            _ => None,
        });
        self.bytes.truncate(end.unwrap_or(0));
    }

    #[inline]
    pub fn push_null(&mut self) {
        self.cells.push(Cell::Null);
    }

    #[inline]
    pub fn push_int(&mut self, v: i64) {
        self.cells.push(Cell::Int(v));
    }

    #[inline]
    pub fn push_real(&mut self, v: f64) {
        self.cells.push(Cell::Real(v));
    }

    /// An exact decimal the engine gave with `scale` fractional digits, as its nearest `f64`.
    #[inline]
    pub fn push_decimal(&mut self, v: f64, scale: u16) {
        self.cells.push(Cell::Decimal(v, scale));
    }

    #[inline]
    pub fn push_text(&mut self, v: &[u8]) {
        let at = self.store(v);
        self.cells.push(Cell::Text(at, v.len() as u32));
    }

    #[inline]
    pub fn push_blob(&mut self, v: &[u8]) {
        let at = self.store(v);
        self.cells.push(Cell::Blob(at, v.len() as u32));
    }

    #[inline]
    fn store(&mut self, v: &[u8]) -> u32 {
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(v);
        at
    }

    /// Value `i` (panics if out of range, like slice indexing).
    #[inline]
    pub fn get(&self, i: usize) -> CellRef<'_> {
        match self.cells[i] {
            Cell::Null => CellRef::Null,
            Cell::Int(v) => CellRef::Int(v),
            Cell::Real(v) => CellRef::Real(v),
            Cell::Decimal(value, scale) => CellRef::Decimal { value, scale },
            Cell::Text(at, n) => CellRef::Text(&self.bytes[at as usize..(at + n) as usize]),
            Cell::Blob(at, n) => CellRef::Blob(&self.bytes[at as usize..(at + n) as usize]),
        }
    }

    /// Values `range`, for messages.
    pub fn describe(&self, range: std::ops::Range<usize>) -> String {
        let parts: Vec<String> = range.map(|i| self.get(i).to_string()).collect();
        format!("({})", parts.join(", "))
    }
}

/// Parses a decimal number an engine sent as text (`-12.5000`, `1E+3`) to the nearest `f64`,
/// with the number of digits after its decimal point. No allocation.
pub fn parse_decimal(text: &[u8]) -> Option<(f64, u16)> {
    let s = std::str::from_utf8(text).ok()?.trim();
    let v: f64 = s.parse().ok()?;
    let mantissa = s.split(['e', 'E']).next().unwrap_or(s);
    let scale = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as u16;
    Some((v, scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_kinds_and_bytes() {
        let mut v = Values::with_capacity(4, 16);
        v.push_int(7);
        v.push_text(b"abc");
        v.push_null();
        v.push_text(b"");
        v.push_decimal(2.5, 4);
        v.push_blob(&[1, 2]);
        assert_eq!(v.len(), 6);
        assert_eq!(v.get(0), CellRef::Int(7));
        assert_eq!(v.get(1), CellRef::Text(b"abc"));
        assert_eq!(v.get(2), CellRef::Null);
        assert_eq!(v.get(3), CellRef::Text(b""), "empty text is not NULL");
        assert_eq!(v.get(4), CellRef::Decimal { value: 2.5, scale: 4 });
        assert_eq!(v.get(5), CellRef::Blob(&[1, 2]));
        assert_eq!(v.describe(0..4), "(7, 'abc', NULL, '')");
        v.truncate(2);
        assert_eq!(v.len(), 2);
        v.push_text(b"d");
        assert_eq!(v.get(2), CellRef::Text(b"d"));
        v.clear();
        assert!(v.is_empty());
    }

    #[test]
    fn decimals_parse_with_their_scale() {
        assert_eq!(parse_decimal(b"12345.6667"), Some((12345.6667, 4)));
        assert_eq!(parse_decimal(b"-3"), Some((-3.0, 0)));
        assert_eq!(parse_decimal(b"1.50E+2"), Some((150.0, 2)));
        assert_eq!(parse_decimal(b"abc"), None);
    }
}
