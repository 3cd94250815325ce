//! The chunk stream: the same bytes whatever the thread count, whole lines, and a reader that
//! stops early does not leave threads behind or hang.

use litebench_ssbgen::{generate, row_count, Dates, Scale, Table};
use std::time::{Duration, Instant};

fn bytes(table: Table, scale: Scale, threads: usize) -> Vec<u8> {
    generate(table, scale, Dates::Whole, threads)
        .flat_map(|c| c.bytes)
        .collect()
}

#[test]
fn thread_count_does_not_change_the_bytes() {
    let scale = Scale::new(0.02).unwrap();
    for table in Table::all() {
        let one = bytes(table, scale, 1);
        assert!(!one.is_empty());
        for threads in [0, 2, 5] {
            assert!(
                bytes(table, scale, threads) == one,
                "{table} with {threads} threads differs"
            );
        }
    }
}

#[test]
fn every_line_has_one_field_per_column() {
    let scale = Scale::new(0.01).unwrap();
    for table in Table::all() {
        let mut lines = 0;
        for chunk in generate(table, scale, Dates::Whole, 2) {
            for line in chunk.lines() {
                let separators = line.iter().filter(|&&b| b == b'|').count();
                assert_eq!(
                    separators,
                    table.columns().len(),
                    "{table}: {}",
                    String::from_utf8_lossy(line)
                );
                lines += 1;
            }
        }
        assert_eq!(lines, row_count(table, scale, Dates::Whole), "{table}");
    }
}

#[test]
fn dropping_a_stream_early_stops_its_threads() {
    let started = Instant::now();
    let mut chunks = generate(Table::Lineorder, Scale::new(10.0).unwrap(), Dates::Whole, 2);
    let first = chunks.next().unwrap();
    assert_eq!(first.first_line, 1);
    drop(chunks);
    // SF 10 would take many seconds to generate; dropping returns as soon as workers notice.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "drop took {:?}",
        started.elapsed()
    );
}
