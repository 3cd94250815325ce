//! speedtest1's `main` test set (`testset_main`): 32 tests on tables z1, z2, t3, t4, t5 and t6,
//! numbered and titled as speedtest1 prints them, each binding the values speedtest1 binds.
//!
//! `sz` is 500 x size for tests 100 to 320 and 700 x size for 400 to 520; `maxb`, the range
//! [`swizzle`] scatters keys over, is the all-ones number at or above `sz` (`sz/3` from 400).
//! The generator restarts at every test, so a test's SQL and values depend on the size alone.

use super::rand::{est_square_root, number_name, roundup_allones, swizzle, Rng};
use super::{Arg, Step, TestDef};

/// The sizes a test of the set derives from `--size`.
struct Sizes {
    sz: u32,
    maxb: u32,
}

/// Tests 100 to 320.
fn first(size: u32) -> Sizes {
    let sz = size * 500;
    Sizes {
        sz,
        maxb: roundup_allones(sz),
    }
}

/// Tests 400 to 520.
fn second(size: u32) -> Sizes {
    let sz = size * 700;
    Sizes {
        sz,
        maxb: roundup_allones(sz / 3),
    }
}

fn int(v: u32) -> Arg {
    Arg::Int(i64::from(v))
}

/// `count` rows `make(i)`, i = 1..=count.
fn rows(count: u32, mut make: impl FnMut(u32) -> Vec<Arg>) -> Vec<Vec<Arg>> {
    (1..=count).map(&mut make).collect()
}

/// `n` rows of a BETWEEN window from the generator: `x1 = random % maxb + lo`, `x2 = random %
/// 10 + extra + x1` (speedtest1 draws both for every execution).
fn windows(n: u32, modulus: u32, lo: u32, extra: u32) -> Vec<Vec<Arg>> {
    let mut r = Rng::at_test_start();
    rows(n, |_| {
        let x1 = r.next_u32() % modulus + lo;
        let x2 = (r.next_u32() % 10).wrapping_add(extra).wrapping_add(x1);
        vec![int(x1), int(x2)]
    })
}

/// The three tests that fill a table of `sz` rows: `cols(i, swizzle(i))` in speedtest1's bind
/// order.
/// `gap` is the spaces speedtest1 writes before its `N times` comment (two for z1).
fn fill(table: &str, create: &str, sz: u32, maxb: u32, cols: fn(u32, u32) -> [u32; 2], gap: &str) -> Vec<Step> {
    vec![
        Step::Tx("BEGIN"),
        Step::Exec(create.to_string()),
        Step::Run {
            sql: format!("INSERT INTO {table} VALUES(?1,?2,?3); --{gap}{sz} times"),
            rows: rows(sz, |i| {
                let x1 = swizzle(i, maxb);
                let [a, b] = cols(i, x1);
                vec![int(a), int(b), Arg::Text(number_name(x1))]
            }),
        },
        Step::Tx("COMMIT"),
    ]
}

/// Tests 140, 142 and 145: `n` LIKE patterns. speedtest1 writes `%`, the name of i, then puts
/// its closing `%` over the name's last letter (`zNum[len] = '%'`): "%on%" for 1.
fn like_patterns(n: u32) -> Vec<Vec<Arg>> {
    rows(n, |i| {
        let name = number_name(i);
        vec![Arg::Text(format!("%{}%", &name[..name.len() - 1]))]
    })
}

/// A test inside one transaction, around one prepared statement.
fn in_tx(sql: String, rows: Vec<Vec<Arg>>) -> Vec<Step> {
    vec![Step::Tx("BEGIN"), Step::Run { sql, rows }, Step::Tx("COMMIT")]
}

fn exec(sql: &[&str]) -> Vec<Step> {
    sql.iter().map(|s| Step::Exec(s.to_string())).collect()
}

/// The tests of the main set, in speedtest1's order.
pub static TESTS: &[TestDef] = &[
    TestDef {
        number: 100,
        title: |s| format!("{} INSERTs into table with no index", first(s).sz),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            fill(
                "z1",
                "CREATE TABLE z1(a INTEGER , b INTEGER , c TEXT );",
                sz,
                maxb,
                |i, x1| [x1, i],
                "  ",
            )
        },
    },
    TestDef {
        number: 110,
        title: |s| format!("{} ordered INSERTS with one index/PK", first(s).sz),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            fill(
                "z2",
                "CREATE TABLE z2(a INTEGER  UNIQUE, b INTEGER , c TEXT ) ",
                sz,
                maxb,
                |i, x1| [i, x1],
                " ",
            )
        },
    },
    TestDef {
        number: 120,
        title: |s| format!("{} unordered INSERTS with one index/PK", first(s).sz),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            fill(
                "t3",
                "CREATE TABLE t3(a INTEGER  UNIQUE, b INTEGER , c TEXT ) ",
                sz,
                maxb,
                |i, x1| [x1, i],
                " ",
            )
        },
    },
    TestDef {
        number: 130,
        title: |_| "25 SELECTS, numeric BETWEEN, unindexed".into(),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            in_tx(
                "SELECT count(*), avg(b), sum(length(c)), group_concat(c) FROM z1\n WHERE b BETWEEN ?1 AND ?2; -- 25 times".into(),
                windows(25, maxb, 0, sz / 5000),
            )
        },
    },
    TestDef {
        number: 140,
        title: |_| "10 SELECTS, LIKE, unindexed".into(),
        steps: |_| {
            in_tx(
                "SELECT count(*), avg(b), sum(length(c)), group_concat(c) FROM z1\n WHERE c LIKE ?1; -- 10 times"
                    .into(),
                like_patterns(10),
            )
        },
    },
    TestDef {
        number: 142,
        title: |_| "10 SELECTS w/ORDER BY, unindexed".into(),
        steps: |_| {
            in_tx(
                "SELECT a, b, c FROM z1 WHERE c LIKE ?1\n ORDER BY a; -- 10 times".into(),
                like_patterns(10),
            )
        },
    },
    TestDef {
        number: 145,
        title: |_| "10 SELECTS w/ORDER BY and LIMIT, unindexed".into(),
        steps: |_| {
            in_tx(
                "SELECT a, b, c FROM z1 WHERE c LIKE ?1\n ORDER BY a LIMIT 10; -- 10 times".into(),
                like_patterns(10),
            )
        },
    },
    TestDef {
        number: 150,
        title: |_| "CREATE INDEX five times".into(),
        steps: |_| {
            let mut s = vec![Step::Tx("BEGIN;")];
            s.extend(exec(&[
                "CREATE UNIQUE INDEX t1b ON z1(b);",
                "CREATE INDEX t1c ON z1(c);",
                "CREATE UNIQUE INDEX t2b ON z2(b);",
                "CREATE INDEX t2c ON z2(c DESC);",
                "CREATE INDEX t3bc ON t3(b,c);",
            ]));
            s.push(Step::Tx("COMMIT;"));
            s
        },
    },
    TestDef {
        number: 160,
        title: |s| format!("{} SELECTS, numeric BETWEEN, indexed", first(s).sz / 5),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            in_tx(
                format!("SELECT count(*), avg(b), sum(length(c)), group_concat(a) FROM z1\n WHERE b BETWEEN ?1 AND ?2; -- {} times", sz / 5),
                windows(sz / 5, maxb, 0, sz / 5000),
            )
        },
    },
    TestDef {
        number: 161,
        title: |s| format!("{} SELECTS, numeric BETWEEN, PK", first(s).sz / 5),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            in_tx(
                format!("SELECT count(*), avg(b), sum(length(c)), group_concat(a) FROM z2\n WHERE a BETWEEN ?1 AND ?2; -- {} times", sz / 5),
                windows(sz / 5, maxb, 0, sz / 5000),
            )
        },
    },
    TestDef {
        number: 170,
        title: |s| format!("{} SELECTS, text BETWEEN, indexed", first(s).sz / 5),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            in_tx(
                format!("SELECT count(*), avg(b), sum(length(c)), group_concat(a) FROM z1\n WHERE c BETWEEN ?1 AND (?1||'~'); -- {} times", sz / 5),
                rows(sz / 5, |i| vec![Arg::Text(number_name(swizzle(i, maxb)))]),
            )
        },
    },
    TestDef {
        number: 180,
        title: |s| format!("{} INSERTS with three indexes", first(s).sz),
        steps: |_| {
            let mut s = vec![Step::Tx("BEGIN")];
            s.extend(exec(&[
                "CREATE TABLE t4(\n  a INTEGER  UNIQUE,\n  b INTEGER ,\n  c TEXT \n) ",
                "CREATE INDEX t4b ON t4(b)",
                "CREATE INDEX t4c ON t4(c)",
                "INSERT INTO t4 SELECT * FROM z1",
            ]));
            s.push(Step::Tx("COMMIT"));
            s
        },
    },
    TestDef {
        number: 190,
        title: |_| "DELETE and REFILL one table".into(),
        steps: |_| exec(&["DELETE FROM z2;", "INSERT INTO z2 SELECT * FROM z1;"]),
    },
    TestDef {
        number: 200,
        title: |_| "VACUUM".into(),
        steps: |_| exec(&["VACUUM"]),
    },
    TestDef {
        number: 210,
        title: |_| "ALTER TABLE ADD COLUMN, and query".into(),
        steps: |_| exec(&["ALTER TABLE z2 ADD COLUMN d INT DEFAULT 123", "SELECT sum(d) FROM z2"]),
    },
    TestDef {
        number: 230,
        title: |s| format!("{} UPDATES, numeric BETWEEN, indexed", first(s).sz / 5),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            in_tx(
                format!("UPDATE z2 SET d=b*2 WHERE b BETWEEN ?1 AND ?2; -- {} times", sz / 5),
                windows(sz / 5, maxb, 0, sz / 5000),
            )
        },
    },
    TestDef {
        number: 240,
        title: |s| format!("{} UPDATES of individual rows", first(s).sz),
        steps: |c| {
            let sz = first(c.size).sz;
            let mut r = Rng::at_test_start();
            in_tx(
                format!("UPDATE z2 SET d=b*3 WHERE a=?1; -- {sz} times"),
                rows(sz, |_| vec![int(r.next_u32() % sz + 1)]),
            )
        },
    },
    TestDef {
        number: 250,
        title: |s| format!("One big UPDATE of the whole {}-row table", first(s).sz),
        steps: |_| exec(&["UPDATE z2 SET d=b*4"]),
    },
    TestDef {
        number: 260,
        title: |_| "Query added column after filling".into(),
        steps: |_| exec(&["SELECT sum(d) FROM z2"]),
    },
    TestDef {
        number: 270,
        title: |s| format!("{} DELETEs, numeric BETWEEN, indexed", first(s).sz / 5),
        steps: |c| {
            let Sizes { sz, maxb } = first(c.size);
            in_tx(
                format!("DELETE FROM z2 WHERE b BETWEEN ?1 AND ?2; -- {} times", sz / 5),
                windows(sz / 5, maxb, 1, sz / 5000),
            )
        },
    },
    TestDef {
        number: 280,
        title: |s| format!("{} DELETEs of individual rows", first(s).sz),
        steps: |c| {
            let sz = first(c.size).sz;
            let mut r = Rng::at_test_start();
            in_tx(
                format!("DELETE FROM t3 WHERE a=?1; -- {sz} times"),
                rows(sz, |_| vec![int(r.next_u32() % sz + 1)]),
            )
        },
    },
    TestDef {
        number: 290,
        title: |s| format!("Refill two {}-row tables using REPLACE", first(s).sz),
        steps: |_| {
            exec(&[
                "REPLACE INTO z2(a,b,c) SELECT a,b,c FROM z1",
                "REPLACE INTO t3(a,b,c) SELECT a,b,c FROM z1",
            ])
        },
    },
    TestDef {
        number: 300,
        title: |s| format!("Refill a {}-row table using (b&1)==(a&1)", first(s).sz),
        steps: |_| {
            exec(&[
                "DELETE FROM z2;",
                "INSERT INTO z2(a,b,c)\n SELECT a,b,c FROM z1  WHERE (b&1)==(a&1);",
                "INSERT INTO z2(a,b,c)\n SELECT a,b,c FROM z1  WHERE (b&1)<>(a&1);",
            ])
        },
    },
    TestDef {
        number: 310,
        title: |s| format!("{} four-ways joins", first(s).sz / 5),
        steps: |c| {
            let sz = first(c.size).sz;
            let mut r = Rng::at_test_start();
            in_tx(
                "SELECT z1.c FROM z1, z2, t3, t4\n WHERE t4.a BETWEEN ?1 AND ?2\n   AND t3.a=t4.b\n   AND z2.a=t3.b\n   AND z1.c=z2.c;".into(),
                rows(sz / 5, |_| {
                    let x1 = r.next_u32() % sz + 1;
                    let x2 = r.next_u32() % 10 + x1 + 4;
                    vec![int(x1), int(x2)]
                }),
            )
        },
    },
    TestDef {
        number: 320,
        title: |_| "subquery in result set".into(),
        steps: |c| {
            vec![Step::Run {
                sql: "SELECT sum(a), max(c),\n       avg((SELECT a FROM z2 WHERE 5+z2.b=z1.b) AND rowid<?1), max(c)\n FROM z1 WHERE rowid<?1;".into(),
                rows: vec![vec![Arg::Int(i64::from(est_square_root(c.size as i32) * 50))]],
            }]
        },
    },
    TestDef {
        number: 400,
        title: |s| format!("{} REPLACE ops on an IPK", second(s).sz),
        steps: |c| {
            let Sizes { sz, maxb } = second(c.size);
            vec![
                Step::Tx("BEGIN"),
                Step::Exec("CREATE TABLE t5(a INTEGER PRIMARY KEY, b );".into()),
                Step::Run {
                    sql: format!("REPLACE INTO t5 VALUES(?1,?2); --  {sz} times"),
                    rows: rows(sz, |i| vec![int(swizzle(i, maxb)), Arg::Text(number_name(i))]),
                },
                Step::Tx("COMMIT"),
            ]
        },
    },
    TestDef {
        number: 410,
        title: |s| format!("{} SELECTS on an IPK", second(s).sz),
        steps: |c| {
            let Sizes { sz, maxb } = second(c.size);
            vec![Step::Run {
                sql: format!("SELECT b FROM t5 WHERE a=?1; --  {sz} times"),
                rows: rows(sz, |i| vec![int(swizzle(i, maxb))]),
            }]
        },
    },
    TestDef {
        number: 500,
        title: |s| format!("{} REPLACE on TEXT PK", second(s).sz),
        steps: |c| {
            let Sizes { sz, maxb } = second(c.size);
            // speedtest1 makes t6 WITHOUT ROWID where the library has it (3.8.2 and later).
            let without_rowid = if c.version >= (3, 8, 2) { "WITHOUT ROWID" } else { "" };
            vec![
                Step::Tx("BEGIN"),
                Step::Exec(format!("CREATE TABLE t6(a TEXT PRIMARY KEY, b ){without_rowid};")),
                Step::Run {
                    sql: format!("REPLACE INTO t6 VALUES(?1,?2); --  {sz} times"),
                    rows: rows(sz, |i| vec![Arg::Text(number_name(swizzle(i, maxb))), int(i)]),
                },
                Step::Tx("COMMIT"),
            ]
        },
    },
    TestDef {
        number: 510,
        title: |s| format!("{} SELECTS on a TEXT PK", second(s).sz),
        steps: |c| {
            let Sizes { sz, maxb } = second(c.size);
            vec![Step::Run {
                sql: format!("SELECT b FROM t6 WHERE a=?1; --  {sz} times"),
                rows: rows(sz, |i| vec![Arg::Text(number_name(swizzle(i, maxb)))]),
            }]
        },
    },
    TestDef {
        number: 520,
        title: |s| format!("{} SELECT DISTINCT", second(s).sz),
        steps: |_| exec(&["SELECT DISTINCT b FROM t5;", "SELECT DISTINCT b FROM t6;"]),
    },
    TestDef {
        number: 980,
        title: |_| "PRAGMA integrity_check".into(),
        steps: |_| exec(&["PRAGMA integrity_check"]),
    },
    TestDef {
        number: 990,
        title: |_| "ANALYZE".into(),
        steps: |_| exec(&["ANALYZE"]),
    },
];

#[cfg(test)]
mod tests {
    use super::super::Ctx;
    use super::*;

    fn steps(number: u32, size: u32) -> Vec<Step> {
        let t = TESTS.iter().find(|t| t.number == number).unwrap();
        (t.steps)(&Ctx {
            size,
            version: (3, 54, 0),
        })
    }

    fn run_rows(steps: &[Step]) -> (&str, &[Vec<Arg>]) {
        steps
            .iter()
            .find_map(|s| match s {
                Step::Run { sql, rows } => Some((sql.as_str(), rows.as_slice())),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn titles_carry_speedtest1s_counts() {
        let titles: Vec<String> = TESTS
            .iter()
            .map(|t| format!("{} {}", t.number, (t.title)(100)))
            .collect();
        assert_eq!(titles[0], "100 50000 INSERTs into table with no index");
        assert!(titles.contains(&"250 One big UPDATE of the whole 50000-row table".to_string()));
        assert!(titles.contains(&"400 70000 REPLACE ops on an IPK".to_string()));
        assert_eq!((TESTS[8].title)(1), "100 SELECTS, numeric BETWEEN, indexed");
        assert_eq!(TESTS.len(), 32);
    }

    #[test]
    fn fills_bind_swizzled_keys_and_their_names() {
        let s = steps(100, 1);
        let (sql, rows) = run_rows(&s);
        assert_eq!(sql, "INSERT INTO z1 VALUES(?1,?2,?3); --  500 times");
        assert_eq!(rows.len(), 500);
        // maxb = 511 at size 1: i = 1 goes to 256.
        assert_eq!(
            rows[0],
            vec![Arg::Int(256), Arg::Int(1), Arg::Text("two hundred fifty six".into())]
        );
        let s = steps(110, 1);
        assert_eq!(
            run_rows(&s).1[0],
            vec![Arg::Int(1), Arg::Int(256), Arg::Text("two hundred fifty six".into())]
        );
    }

    #[test]
    fn windows_draw_from_the_restarted_generator() {
        // random() % 511 and random() % 10 + 500/5000 + x1, from the first two draws.
        let s = steps(130, 1);
        let first = &run_rows(&s).1[0];
        let (a, b) = (1_680_579_045u32 % 511, 3_681_383_876u32 % 10);
        assert_eq!(first, &vec![Arg::Int(a.into()), Arg::Int((b + a).into())]);
        assert_eq!(
            run_rows(&steps(270, 1)).1[0],
            vec![Arg::Int((a + 1).into()), Arg::Int((b + a + 1).into())]
        );
    }

    #[test]
    fn like_patterns_cover_the_names_last_letter_as_speedtest1_does() {
        let s = steps(140, 1);
        let rows = run_rows(&s).1;
        assert_eq!(rows[0], vec![Arg::Text("%on%".into())]);
        assert_eq!(rows[9], vec![Arg::Text("%te%".into())]);
    }

    #[test]
    fn old_releases_get_t6_with_a_rowid() {
        let t = TESTS.iter().find(|t| t.number == 500).unwrap();
        let create = |version| match &(t.steps)(&Ctx { size: 1, version })[1] {
            Step::Exec(sql) => sql.clone(),
            _ => unreachable!(),
        };
        assert_eq!(
            create((3, 8, 2)),
            "CREATE TABLE t6(a TEXT PRIMARY KEY, b )WITHOUT ROWID;"
        );
        assert_eq!(create((3, 8, 1)), "CREATE TABLE t6(a TEXT PRIMARY KEY, b );");
    }
}
