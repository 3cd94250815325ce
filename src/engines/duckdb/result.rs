//! Reading a DuckDB result through the C API's data chunks: one vector per column, read in
//! place (no value objects, no per-cell calls into the library).
//!
//! Only the types litebench's workloads produce are read: integers of every width, floats,
//! decimals, strings and blobs. Anything else is an error naming the type and how to cast it.

use super::api::{types, Api, DataChunk, DuckResult, Idx, LogicalType};

/// One cell, borrowed from a chunk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    /// An unsigned or 128-bit integer (beyond `i64` only when it says so).
    Wide(i128),
    Real(f64),
    /// An unscaled decimal and its scale.
    Decimal(i128, u8),
    Text(&'a [u8]),
    Blob(&'a [u8]),
}

/// How one column's vectors are laid out.
#[derive(Debug, Clone, Copy)]
struct Column {
    /// `duckdb_type`; for a decimal, the type it is stored as.
    physical: u32,
    /// `Some(scale)` for a decimal.
    scale: Option<u8>,
    /// The declared `duckdb_type`, for errors.
    declared: u32,
}

/// A result that destroys itself.
pub struct Owned {
    pub api: &'static Api,
    pub raw: DuckResult,
}

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: `raw` was filled by this library (or is still empty, which it accepts).
        unsafe { (self.api.destroy_result)(&mut self.raw) }
    }
}

/// A data chunk that destroys itself.
struct Chunk {
    api: &'static Api,
    raw: DataChunk,
}

impl Drop for Chunk {
    fn drop(&mut self) {
        // SAFETY: a chunk `duckdb_fetch_chunk` returned, destroyed once.
        unsafe { (self.api.destroy_data_chunk)(&mut self.raw) }
    }
}

impl Owned {
    /// The error DuckDB reported for this result.
    pub fn error(&mut self) -> String {
        // SAFETY: a result of this library; the message lives as long as the result.
        unsafe { super::api::cstr((self.api.result_error)(&mut self.raw)) }
    }

    /// Rows an INSERT, UPDATE or DELETE changed.
    pub fn rows_changed(&mut self) -> u64 {
        // SAFETY: a materialized result of this library.
        unsafe { (self.api.rows_changed)(&mut self.raw) }
    }

    fn columns(&mut self) -> Vec<Column> {
        let api = self.api;
        // SAFETY: a result of this library.
        let n = unsafe { (api.column_count)(&mut self.raw) };
        (0..n)
            .map(|i| {
                // SAFETY: `i` is below the column count; the type is destroyed below.
                let mut t: LogicalType = unsafe { (api.column_logical_type)(&mut self.raw, i) };
                // SAFETY: `t` is a live logical type.
                let declared = unsafe { (api.get_type_id)(t) };
                let col = if declared == types::DECIMAL {
                    Column {
                        // SAFETY: as above, a DECIMAL type.
                        physical: unsafe { (api.decimal_internal_type)(t) },
                        // SAFETY: as above.
                        scale: Some(unsafe { (api.decimal_scale)(t) }),
                        declared,
                    }
                } else {
                    Column {
                        physical: declared,
                        scale: None,
                        declared,
                    }
                };
                // SAFETY: destroyed once.
                unsafe { (api.destroy_logical_type)(&mut t) };
                col
            })
            .collect()
    }

    /// Counts the rows, reading none of them.
    pub fn count_rows(&mut self) -> u64 {
        let mut n = 0;
        while let Some(chunk) = self.next_chunk() {
            // SAFETY: a live chunk.
            n += unsafe { (chunk.api.data_chunk_get_size)(chunk.raw) };
        }
        n
    }

    fn next_chunk(&mut self) -> Option<Chunk> {
        // SAFETY: the result is passed by value as the C API wants; it still owns everything.
        let raw = unsafe { (self.api.fetch_chunk)(self.raw.by_value()) };
        if raw.is_null() {
            return None;
        }
        let chunk = Chunk { api: self.api, raw };
        // SAFETY: a live chunk.
        if unsafe { (self.api.data_chunk_get_size)(raw) } == 0 {
            return None;
        }
        Some(chunk)
    }

    /// Calls `cell` for every cell, row by row; returns the number of rows. `Err` names a
    /// column type litebench does not read.
    pub fn for_each(&mut self, mut cell: impl FnMut(Cell<'_>)) -> Result<u64, String> {
        let columns = self.columns();
        let mut rows = 0u64;
        let api = self.api;
        while let Some(chunk) = self.next_chunk() {
            // SAFETY: a live chunk.
            let size = unsafe { (api.data_chunk_get_size)(chunk.raw) };
            let vectors: Vec<(*const u8, *const u64)> = (0..columns.len() as Idx)
                .map(|c| {
                    // SAFETY: `c` is below the chunk's column count; the pointers live as long
                    // as the chunk.
                    unsafe {
                        let v = (api.data_chunk_get_vector)(chunk.raw, c);
                        (
                            (api.vector_get_data)(v) as *const u8,
                            (api.vector_get_validity)(v) as *const u64,
                        )
                    }
                })
                .collect();
            for row in 0..size as usize {
                for (col, &(data, validity)) in columns.iter().zip(&vectors) {
                    // SAFETY: `row` is below the chunk's size and the vector holds `col`'s type.
                    cell(unsafe { read(col, data, validity, row) }?);
                }
            }
            rows += size;
        }
        Ok(rows)
    }
}

/// The cell at `row` of a vector.
///
/// # Safety
/// `data` and `validity` must be a live vector's, of `col`'s type, with more than `row` rows.
unsafe fn read<'a>(col: &Column, data: *const u8, validity: *const u64, row: usize) -> Result<Cell<'a>, String> {
    // SAFETY (every read below): the caller guarantees the vector's type and length; DuckDB
    // aligns vector data for its type.
    unsafe {
        if !validity.is_null() && (*validity.add(row / 64) >> (row % 64)) & 1 == 0 {
            return Ok(Cell::Null);
        }
        let int = |v: i128| match col.scale {
            Some(s) => Cell::Decimal(v, s),
            None => match i64::try_from(v) {
                Ok(i) => Cell::Int(i),
                Err(_) => Cell::Wide(v),
            },
        };
        Ok(match col.physical {
            types::BOOLEAN => Cell::Int(i64::from(*data.add(row) != 0)),
            types::TINYINT => int(i128::from(*(data as *const i8).add(row))),
            types::SMALLINT => int(i128::from(*(data as *const i16).add(row))),
            types::INTEGER => int(i128::from(*(data as *const i32).add(row))),
            types::BIGINT => int(i128::from(*(data as *const i64).add(row))),
            types::UTINYINT => int(i128::from(*data.add(row))),
            types::USMALLINT => int(i128::from(*(data as *const u16).add(row))),
            types::UINTEGER => int(i128::from(*(data as *const u32).add(row))),
            types::UBIGINT => int(i128::from(*(data as *const u64).add(row))),
            // {lower: u64, upper: i64}: a little-endian i128 (u128 for UHUGEINT).
            types::HUGEINT => int(std::ptr::read_unaligned((data as *const i128).add(row))),
            types::UHUGEINT => {
                let v = std::ptr::read_unaligned((data as *const u128).add(row));
                int(i128::try_from(v).unwrap_or(i128::MAX))
            }
            types::FLOAT => Cell::Real(f64::from(*(data as *const f32).add(row))),
            types::DOUBLE => Cell::Real(*(data as *const f64).add(row)),
            types::VARCHAR | types::BLOB => {
                // duckdb_string_t: a u32 length, then the bytes inline (12 or fewer) or a
                // 4-byte prefix and a pointer.
                let s = data.add(row * 16);
                let len = *(s as *const u32) as usize;
                let bytes = if len <= 12 {
                    std::slice::from_raw_parts(s.add(4), len)
                } else {
                    std::slice::from_raw_parts(*(s.add(8) as *const *const u8), len)
                };
                if col.physical == types::VARCHAR {
                    Cell::Text(bytes)
                } else {
                    Cell::Blob(bytes)
                }
            }
            _ => {
                return Err(format!(
                    "cannot read a {} column; cast it, e.g. CAST(x AS VARCHAR)",
                    types::name(col.declared)
                ))
            }
        })
    }
}

impl Cell<'_> {
    /// The cell as text, as `query` returns it.
    pub fn text(self) -> Option<String> {
        Some(match self {
            Cell::Null => return None,
            Cell::Int(i) => i.to_string(),
            Cell::Wide(i) => i.to_string(),
            Cell::Real(r) => r.to_string(),
            Cell::Decimal(v, scale) => decimal_text(v, scale),
            Cell::Text(b) | Cell::Blob(b) => String::from_utf8_lossy(b).into_owned(),
        })
    }
}

/// An unscaled decimal as DuckDB prints it: `12345` at scale 2 is `123.45`.
pub fn decimal_text(v: i128, scale: u8) -> String {
    if scale == 0 {
        return v.to_string();
    }
    let digits = v.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, frac) = padded.split_at(padded.len() - scale);
    format!("{}{whole}.{frac}", if v < 0 { "-" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_print_with_their_scale() {
        assert_eq!(decimal_text(12345, 2), "123.45");
        assert_eq!(decimal_text(-5, 3), "-0.005");
        assert_eq!(decimal_text(7, 0), "7");
        assert_eq!(Cell::Decimal(100, 1).text().as_deref(), Some("10.0"));
        assert_eq!(Cell::Null.text(), None);
    }

    #[test]
    fn cells_read_from_vectors() {
        let ints: [i32; 3] = [7, -1, 9];
        let validity: [u64; 1] = [0b101];
        let col = Column {
            physical: types::INTEGER,
            scale: None,
            declared: types::INTEGER,
        };
        let data = ints.as_ptr() as *const u8;
        // SAFETY: three INTEGER rows and their validity.
        unsafe {
            assert_eq!(read(&col, data, validity.as_ptr(), 0).unwrap(), Cell::Int(7));
            assert_eq!(read(&col, data, validity.as_ptr(), 1).unwrap(), Cell::Null);
            assert_eq!(read(&col, data, std::ptr::null(), 1).unwrap(), Cell::Int(-1));
        }
        // Strings: inline up to 12 bytes, else by pointer.
        let long = b"a string longer than twelve";
        let mut strings = [0u8; 32];
        strings[..4].copy_from_slice(&3u32.to_le_bytes());
        strings[4..7].copy_from_slice(b"abc");
        strings[16..20].copy_from_slice(&(long.len() as u32).to_le_bytes());
        strings[24..32].copy_from_slice(&(long.as_ptr() as usize).to_le_bytes());
        let col = Column {
            physical: types::VARCHAR,
            scale: None,
            declared: types::VARCHAR,
        };
        let aligned: Vec<u64> = strings
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let data = aligned.as_ptr() as *const u8;
        // SAFETY: two duckdb_string_t rows.
        unsafe {
            assert_eq!(read(&col, data, std::ptr::null(), 0).unwrap(), Cell::Text(b"abc"));
            assert_eq!(read(&col, data, std::ptr::null(), 1).unwrap(), Cell::Text(long));
        }
        let date = Column {
            physical: 13,
            scale: None,
            declared: 13,
        };
        // SAFETY: the type is refused before any read.
        let e = unsafe { read(&date, data, std::ptr::null(), 0) }.unwrap_err();
        assert!(e.contains("DATE column") && e.contains("CAST"), "{e}");
    }
}
