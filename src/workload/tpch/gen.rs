//! TPC-H's data from the crate `tpchgen` (which reproduces TPC's `dbgen` byte for byte: checked
//! at scale 0.01 by `tests/tpch/dbgen_hashes.rs`), as chunks of `.tbl` lines on several threads.
//!
//! Why chunks of text rather than the crate's row structs: the loader then reads generated rows
//! and dbgen's own files (`tbl_dir`) through one parser, `tpch-gen` writes the chunks as they
//! are, and what is loaded is by construction the bytes the dbgen check compares.
//!
//! A table is cut into blocks of a few thousand rows (lineitem: of orders), each generated as
//! the crate's `part` of `parts` (a generator skips to its first row without drawing the rows
//! before it). Worker k of n takes blocks k, k + n, …, at most two ahead of the reader, and the
//! reader takes block b from worker b mod n: lines come out in dbgen's order whatever the
//! threads do, and memory stays flat at any scale.

use super::schema::Table;
use litebench_ssbgen::Chunk;
use std::fmt::Display;
use std::io::Write;
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator, PartSuppGenerator,
    PartSuppGeneratorIterator, RegionGenerator, SupplierGenerator,
};

/// Largest scale factor accepted (SF 1000 is six billion lineitem rows; the crate switches to
/// 64-bit part keys only from SF 30000).
pub const MAX_SCALE: f64 = 1000.0;

/// Smallest scale factor: below it dbgen's rule for a part's four suppliers repeats one for
/// most scales (100 suppliers at SF 0.01; see [`ScaleError::RepeatedSupplier`] for the few
/// above it where it still does).
pub const MIN_SCALE: f64 = 0.01;

/// A TPC-H scale factor: SF 1 is about 1 GB of `.tbl` text, 6,001,215 lineitem rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale(f64);

/// A scale factor outside what the generator can make.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScaleError {
    #[error("not a number; give a scale factor such as 1 or 0.01")]
    NotANumber,
    #[error("out of range; give a scale factor from {MIN_SCALE} to {MAX_SCALE}")]
    OutOfRange,
    /// dbgen's rule for a part's four suppliers names one supplier twice at this scale (with
    /// few suppliers), so `partsupp`'s key would repeat.
    #[error("dbgen's partsupp rule gives part {part} the same supplier twice at this scale ({suppliers} suppliers), so partsupp's key would repeat; give a scale factor such as 0.01, 0.1 or 1")]
    RepeatedSupplier { part: i64, suppliers: i64 },
}

impl Scale {
    /// `factor` as a scale factor, if the generator makes every table at it.
    pub fn new(factor: f64) -> Result<Scale, ScaleError> {
        if !(factor.is_finite() && (MIN_SCALE..=MAX_SCALE).contains(&factor)) {
            return Err(ScaleError::OutOfRange);
        }
        let scale = Scale(factor);
        match repeated_supplier(scale) {
            Some(part) => Err(ScaleError::RepeatedSupplier {
                part,
                suppliers: units(Table::Supplier, scale),
            }),
            None => Ok(scale),
        }
    }

    /// The factor.
    pub fn factor(self) -> f64 {
        self.0
    }
}

impl std::str::FromStr for Scale {
    type Err = ScaleError;

    fn from_str(s: &str) -> Result<Scale, ScaleError> {
        Scale::new(s.trim().parse::<f64>().map_err(|_| ScaleError::NotANumber)?)
    }
}

/// The first part whose four suppliers (dbgen's rule, as `tpchgen`'s
/// `PartSuppGeneratorIterator::select_part_supplier` computes it) name one supplier twice, if any: the
/// i-th supplier of part p is `(p + i * (S / 4 + (p - 1) / S)) % S + 1` for S suppliers, so
/// parts differ only by `(p - 1) / S`, and one part of each value of it is checked.
fn repeated_supplier(scale: Scale) -> Option<i64> {
    let suppliers = units(Table::Supplier, scale);
    let parts = units(Table::Part, scale);
    (0..=(parts - 1) / suppliers).map(|k| k * suppliers + 1).find(|&part| {
        let mut seen: Vec<i64> = (0..4)
            .map(|i| PartSuppGeneratorIterator::select_part_supplier(part, i, scale.0))
            .collect();
        seen.sort_unstable();
        seen.windows(2).any(|w| w[0] == w[1])
    })
}

/// What a table is counted in when cut into blocks: its rows, but parts for `partsupp` (four
/// rows each) and orders for `lineitem` (one to seven rows each).
fn units(table: Table, scale: Scale) -> i64 {
    let sf = scale.0;
    match table {
        Table::Region => 5,
        Table::Nation => 25,
        Table::Part | Table::Partsupp => PartGenerator::calculate_row_count(sf, 1, 1),
        Table::Supplier => SupplierGenerator::calculate_row_count(sf, 1, 1),
        Table::Customer => CustomerGenerator::calculate_row_count(sf, 1, 1),
        Table::Orders | Table::Lineitem => OrderGenerator::calculate_row_count(sf, 1, 1),
    }
}

/// The number of rows of `table` at `scale`. For lineitem this draws every order's line count
/// as the generator does (a few milliseconds per scale factor).
pub fn row_count(table: Table, scale: Scale) -> u64 {
    let units = units(table, scale) as u64;
    match table {
        Table::Partsupp => 4 * units,
        Table::Lineitem => {
            let mut lines = OrderGenerator::create_line_count_random();
            (0..units)
                .map(|_| {
                    let n = lines.next_value() as u64;
                    lines.row_finished();
                    n
                })
                .sum()
        }
        _ => units,
    }
}

/// Units per block: a few hundred kilobytes of text.
fn block_units(table: Table) -> i64 {
    match table {
        Table::Lineitem => 1024,
        Table::Partsupp => 1024,
        _ => 4096,
    }
}

/// Writes each row of `rows` as a `.tbl` line (the crate's `Display` is dbgen's line without its
/// `\n`); returns the lines.
fn lines<R: Display>(rows: impl Iterator<Item = R>, out: &mut Vec<u8>) -> u64 {
    let mut n = 0;
    for r in rows {
        // Writing into a Vec cannot fail.
        let _ = writeln!(out, "{r}");
        n += 1;
    }
    n
}

/// One block of a table: a generator's `part` of `parts`, 1-based as the crate counts them.
#[derive(Debug, Clone, Copy)]
struct Job {
    table: Table,
    scale: Scale,
    parts: i32,
}

impl Job {
    fn block(&self, b: i32) -> (Vec<u8>, u64) {
        let (sf, part, parts) = (self.scale.0, b + 1, self.parts);
        let mut out = Vec::with_capacity(512 * 1024);
        let n = match self.table {
            Table::Region => lines(RegionGenerator::new(sf, part, parts).into_iter(), &mut out),
            Table::Nation => lines(NationGenerator::new(sf, part, parts).into_iter(), &mut out),
            Table::Part => lines(PartGenerator::new(sf, part, parts).into_iter(), &mut out),
            Table::Supplier => lines(SupplierGenerator::new(sf, part, parts).into_iter(), &mut out),
            Table::Partsupp => lines(PartSuppGenerator::new(sf, part, parts).into_iter(), &mut out),
            Table::Customer => lines(CustomerGenerator::new(sf, part, parts).into_iter(), &mut out),
            Table::Orders => lines(OrderGenerator::new(sf, part, parts).into_iter(), &mut out),
            Table::Lineitem => lines(LineItemGenerator::new(sf, part, parts).into_iter(), &mut out),
        };
        (out, n)
    }
}

/// The lines of `table` at `scale`, in dbgen's order, generated by `threads` threads (0 is
/// taken as 1; 1 generates on the caller's thread as it iterates).
pub fn generate(table: Table, scale: Scale, threads: usize) -> Chunks {
    let units = units(table, scale);
    // The crate gives part p of n `units / n` rows (the last one the remainder too), so a part
    // count at most the units gives every part a row.
    let per = block_units(table);
    let parts = ((units + per - 1) / per).clamp(1, i32::MAX as i64) as i32;
    let job = Job { table, scale, parts };
    let workers = threads.clamp(1, parts as usize);
    let source = if workers == 1 {
        Source::Inline(job)
    } else {
        let mut receivers = Vec::with_capacity(workers);
        let mut handles = Vec::with_capacity(workers);
        for k in 0..workers {
            let (tx, rx) = sync_channel(2);
            let handle = std::thread::Builder::new()
                .name(format!("tpchgen-{}-{k}", table.name()))
                .spawn(move || {
                    for b in (k as i32..parts).step_by(workers) {
                        if tx.send(job.block(b)).is_err() {
                            return; // The reader went away.
                        }
                    }
                })
                .expect("spawn a generator thread");
            receivers.push(rx);
            handles.push(handle);
        }
        Source::Workers { receivers, handles }
    };
    Chunks {
        next_line: 1,
        next_block: 0,
        parts,
        source,
    }
}

enum Source {
    Inline(Job),
    Workers {
        receivers: Vec<Receiver<(Vec<u8>, u64)>>,
        handles: Vec<JoinHandle<()>>,
    },
}

/// The chunks of one table, in order; see [`generate`].
pub struct Chunks {
    next_line: u64,
    next_block: i32,
    parts: i32,
    source: Source,
}

impl Iterator for Chunks {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        if self.next_block >= self.parts {
            return None;
        }
        let b = self.next_block;
        let (bytes, lines) = match &mut self.source {
            Source::Inline(job) => job.block(b),
            Source::Workers { receivers, handles } => {
                let k = b as usize % receivers.len();
                match receivers[k].recv() {
                    Ok(block) => block,
                    // The worker ended before sending all its blocks: it panicked.
                    Err(_) => match handles.swap_remove(k).join() {
                        Err(panic) => std::panic::resume_unwind(panic),
                        Ok(()) => panic!("tpchgen worker {k} stopped before block {b}"),
                    },
                }
            }
        };
        self.next_block += 1;
        let chunk = Chunk {
            first_line: self.next_line,
            lines,
            bytes,
        };
        self.next_line += lines;
        Some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::tpch::schema::LOAD_ORDER;

    fn sf(f: f64) -> Scale {
        Scale::new(f).unwrap()
    }

    /// (part, supplier) pairs of partsupp as the generator writes them, and whether one repeats.
    fn partsupp_repeats(scale: Scale) -> bool {
        let mut keys = std::collections::HashSet::new();
        let mut repeated = false;
        for chunk in generate(Table::Partsupp, scale, 1) {
            for line in std::str::from_utf8(&chunk.bytes).unwrap().lines() {
                let mut f = line.split('|');
                let key = (f.next().unwrap().to_string(), f.next().unwrap().to_string());
                repeated |= !keys.insert(key);
            }
        }
        repeated
    }

    #[test]
    fn a_scale_whose_partsupp_key_would_repeat_is_refused_and_the_generator_agrees() {
        // SF 0.001: 10 suppliers; parts 31 to 40 get suppliers p, p+5, p+10, p+15 (mod 10).
        let tiny = Scale(0.001);
        assert!(partsupp_repeats(tiny));
        assert_eq!(repeated_supplier(tiny), Some(31));
        assert_eq!(Scale::new(0.001), Err(ScaleError::OutOfRange));
        // SF 0.012: 120 suppliers, and parts 1201 to 1320 step by 40, a third of them.
        assert!(partsupp_repeats(Scale(0.012)));
        assert!(matches!(Scale::new(0.012), Err(ScaleError::RepeatedSupplier { .. })));
        for ok in [0.01, 0.02, 0.05] {
            assert!(!partsupp_repeats(sf(ok)), "SF {ok}");
        }
        for ok in [0.1, 1.0, 10.0, 100.0] {
            assert!(Scale::new(ok).is_ok(), "SF {ok}");
        }
    }

    #[test]
    fn row_counts_are_dbgens_at_scale_one_hundredth() {
        // dbgen -s 0.01: wc -l of its eight files.
        let expected = [5, 25, 2000, 100, 8000, 1500, 15000, 60175];
        for (t, n) in LOAD_ORDER.into_iter().zip(expected) {
            assert_eq!(row_count(t, sf(0.01)), n, "{}", t.name());
        }
        assert_eq!(row_count(Table::Lineitem, sf(1.0)), 6_001_215);
    }

    #[test]
    fn any_thread_count_gives_the_same_lines_as_one_generator() {
        for t in [Table::Partsupp, Table::Lineitem, Table::Nation] {
            let whole: Vec<u8> = generate(t, Scale(0.005), 1).flat_map(|c| c.bytes).collect();
            let chunks: Vec<Chunk> = generate(t, Scale(0.005), 3).collect();
            let lines: u64 = chunks.iter().map(|c| c.lines).sum();
            let threaded: Vec<u8> = chunks.into_iter().flat_map(|c| c.bytes).collect();
            assert_eq!(whole, threaded, "{}", t.name());
            assert_eq!(lines, row_count(t, Scale(0.005)), "{}", t.name());
            // One generator over the whole table, as the crate's own example runs it.
            let (one, _) = Job {
                table: t,
                scale: Scale(0.005),
                parts: 1,
            }
            .block(0);
            assert_eq!(one, whole, "{}", t.name());
        }
    }

    #[test]
    fn scales_outside_the_generators_range_are_refused() {
        assert_eq!("0".parse::<Scale>(), Err(ScaleError::OutOfRange));
        assert_eq!("0.00001".parse::<Scale>(), Err(ScaleError::OutOfRange));
        assert_eq!("NaN".parse::<Scale>(), Err(ScaleError::OutOfRange));
        assert_eq!("one".parse::<Scale>(), Err(ScaleError::NotANumber));
        assert_eq!("0.01".parse::<Scale>().map(Scale::factor), Ok(0.01));
        assert!(row_count(Table::Supplier, sf(MIN_SCALE)) >= 1);
        assert_eq!("0.001".parse::<Scale>(), Err(ScaleError::OutOfRange));
    }
}
