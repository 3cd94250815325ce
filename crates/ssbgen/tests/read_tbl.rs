//! Reading `.tbl` files in dbgen's format: the same chunks as the generator, typed fields, and
//! errors that name the file, the line and the column.

use litebench_ssbgen::{generate, parse_line, read_tbl, Chunk, Dates, Field, Scale, Table, TblError};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
        .join("tests/fixtures")
        .join(name)
}

/// Every line of `path` parsed as `table`; the first error as the loader would report it.
fn load(table: Table, path: &Path) -> Result<Vec<Vec<String>>, TblError> {
    let mut rows = Vec::new();
    for chunk in read_tbl(path)? {
        let chunk = chunk?;
        let mut fields = Vec::new();
        for (n, line) in chunk.numbered_lines() {
            parse_line(table, line, &mut fields).map_err(|e| TblError::line(path, n, e))?;
            rows.push(
                fields
                    .iter()
                    .map(|f| match f {
                        Field::Int(i) => format!("int {i}"),
                        Field::Text(t) => format!("text {t}"),
                    })
                    .collect(),
            );
        }
    }
    Ok(rows)
}

#[test]
fn reads_a_dbgen_fixture_into_typed_fields() {
    let rows = load(Table::Lineorder, &fixture("lineorder.tbl")).unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[3][1], "int 4", "lo_linenumber");
    assert_eq!(rows[3][5], "int 19940925", "lo_orderdate");
    assert_eq!(rows[3][6], "text 1-URGENT", "lo_orderpriority");
    assert_eq!(rows[3][16], "text AIR", "lo_shipmode");
    let parts = load(Table::Part, &fixture("part.tbl")).unwrap();
    assert_eq!(parts[2][1], "text green antique");
    assert_eq!(parts[2][7], "int 21");
}

#[test]
fn the_fixture_is_what_the_generator_writes() {
    let bytes = std::fs::read(fixture("lineorder.tbl")).unwrap();
    let first = generate(Table::Lineorder, Scale::new(0.01).unwrap(), Dates::Whole, 1)
        .next()
        .unwrap();
    assert!(first.bytes.starts_with(&bytes), "dbgen's first lines differ from ours");
}

#[test]
fn a_large_file_reads_back_as_the_same_lines_in_several_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lineorder.tbl");
    let generated: Vec<Chunk> = generate(Table::Lineorder, Scale::new(0.02).unwrap(), Dates::Whole, 2).collect();
    let all: Vec<u8> = generated.iter().flat_map(|c| c.bytes.iter().copied()).collect();
    std::fs::write(&path, &all).unwrap();
    let read: Vec<Chunk> = read_tbl(&path).unwrap().map(Result::unwrap).collect();
    assert!(
        read.len() > 2,
        "{} chunks: the file should need several reads",
        read.len()
    );
    let mut next = 1;
    for c in &read {
        assert_eq!(c.first_line, next);
        assert_eq!(c.lines().count() as u64, c.lines);
        assert!(c.bytes.ends_with(b"\n"), "chunks hold whole lines");
        next += c.lines;
    }
    let total: u64 = generated.iter().map(|c| c.lines).sum();
    assert_eq!(next - 1, total);
    let back: Vec<u8> = read.iter().flat_map(|c| c.bytes.iter().copied()).collect();
    assert!(back == all, "the bytes read differ from the bytes written");
}

#[test]
fn a_last_line_without_newline_is_still_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part.tbl");
    std::fs::write(&path, "1|a|b|c|d|e|f|7|g|\n2|a|b|c|d|e|f|8|g|").unwrap();
    let rows = load(Table::Part, &path).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][7], "int 8");
}

#[test]
fn malformed_lines_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lineorder.tbl");
    let mut text = std::fs::read_to_string(fixture("lineorder.tbl")).unwrap();
    text.push_str("1|5|209|22|10|19940925|1-URGENT|0|many|2581656|11507269|9|2349306|55321|6|19941222|AIR|\n");
    std::fs::write(&path, &text).unwrap();
    let e = load(Table::Lineorder, &path).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{} line 5 column lo_quantity (9): `many` is not an integer",
            path.display()
        )
    );

    let short = dir.path().join("part.tbl");
    std::fs::write(&short, "1|a|b|c|d|e|f|7|g|\n2|a|b|c|d|e|f|8|\n").unwrap();
    let e = load(Table::Part, &short).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{} line 2 column p_container (9): missing; the line has 8 fields, part has 9 columns",
            short.display()
        )
    );
}

#[test]
fn a_missing_file_is_named() {
    let path = Path::new("/nonexistent/ssb/date.tbl");
    let e = read_tbl(path).err().expect("a missing file is an error");
    assert_eq!(
        e.to_string(),
        "/nonexistent/ssb/date.tbl: cannot open: No such file or directory (os error 2)"
    );
}
