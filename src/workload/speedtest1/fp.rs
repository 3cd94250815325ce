//! speedtest1's `fp` test set (`testset_fp`): floating-point values written as text
//! ([`super::rand::Rng::ascii_fp`]), converted, compared, rounded and printed. Its last test
//! uses `WITH` and `printf()`, both new in SQLite 3.8.3.

use super::rand::Rng;
use super::{Arg, Step, TestDef};

/// `n` rows of two floating-point texts, from the restarted generator.
fn fp_pairs(n: u32) -> Vec<Vec<Arg>> {
    let mut r = Rng::at_test_start();
    (0..n)
        .map(|_| vec![Arg::Text(r.ascii_fp()), Arg::Text(r.ascii_fp())])
        .collect()
}

fn range_queries(n: u32) -> Vec<Step> {
    vec![Step::Run {
        sql: "SELECT sum(b) FROM z1 WHERE a BETWEEN ?1 AND ?2".into(),
        rows: fp_pairs(n),
    }]
}

/// The tests of the fp set, in speedtest1's order.
pub static TESTS: &[TestDef] = &[
    TestDef {
        number: 100,
        title: |s| format!("Fill a table with {} FP values", s * 5000 * 2),
        steps: |c| {
            let n = c.size * 5000;
            vec![
                Step::Tx("BEGIN"),
                Step::Exec("CREATE TABLE z1(a REAL , b REAL );".into()),
                Step::Run {
                    sql: format!("INSERT INTO z1 VALUES(?1,?2); -- {n} times"),
                    rows: fp_pairs(n),
                },
                Step::Tx("COMMIT"),
            ]
        },
    },
    TestDef {
        number: 110,
        title: |s| format!("{} range queries", s / 25 + 2),
        steps: |c| range_queries(c.size / 25 + 2),
    },
    TestDef {
        number: 120,
        title: |_| "CREATE INDEX three times".into(),
        steps: |_| {
            vec![
                Step::Tx("BEGIN;"),
                Step::Exec("CREATE INDEX t1a ON z1(a);".into()),
                Step::Exec("CREATE INDEX t1b ON z1(b);".into()),
                Step::Exec("CREATE INDEX t1ab ON z1(a,b);".into()),
                Step::Tx("COMMIT;"),
            ]
        },
    },
    TestDef {
        number: 130,
        title: |s| format!("{} indexed range queries", s / 3 + 2),
        steps: |c| range_queries(c.size / 3 + 2),
    },
    TestDef {
        number: 140,
        title: |s| format!("{} calls to round()", s * 5000),
        steps: |_| vec![Step::Exec("SELECT sum(round(a,2)+round(b,4)) FROM z1;".into())],
    },
    TestDef {
        number: 150,
        title: |s| format!("{} printf() calls", s * 5000 * 4),
        steps: |_| {
            vec![Step::Exec(
                "WITH c(fmt) AS (VALUES('%g'),('%e'),('%!g'),('%.20f'))SELECT sum(printf(fmt,a)) FROM z1, c".into(),
            )]
        },
    },
];
