//! speedtest1's `cte` test set (`testset_cte`): recursive common table expressions, which
//! exercise views, subqueries and co-routines: two Sudoku solvers, a Mandelbrot set and an
//! EXCEPT of two generated series. `WITH` arrived in SQLite 3.8.3.

use super::{Arg, Step, TestDef};

/// speedtest1's three puzzles: easy below size 25, medium below 70, hard from 70.
const PUZZLES: [&str; 3] = [
    "534...9..67.195....98....6.8...6...34..8.3..1....2...6.6....28....419..5...28..79",
    "53....9..6..195....98....6.8...6...34..8.3..1....2...6.6....28....419..5....8..79",
    "53.......6..195....98....6.8...6...34..8.3..1....2...6.6....28....419..5....8..79",
];

fn puzzle(size: u32) -> &'static str {
    match size {
        0..25 => PUZZLES[0],
        25..70 => PUZZLES[1],
        _ => PUZZLES[2],
    }
}

/// The solver's body after its `digits` table (the same in both Sudoku tests).
const SOLVE: &str = "  x(s, ind) AS (
    SELECT sud, instr(sud, '.') FROM input
    UNION ALL
    SELECT
      substr(s, 1, ind-1) || z || substr(s, ind+1),
      instr( substr(s, 1, ind-1) || z || substr(s, ind+1), '.' )
     FROM x, digits AS z
    WHERE ind>0
      AND NOT EXISTS (
            SELECT 1
              FROM digits AS lp
             WHERE z.z = substr(s, ((ind-1)/9)*9 + lp, 1)
                OR z.z = substr(s, ((ind-1)%9) + (lp-1)*9 + 1, 1)
                OR z.z = substr(s, (((ind-1)/3) % 3) * 3
                        + ((ind-1)/27) * 27 + lp
                        + ((lp-1) / 3) * 6, 1)
         )
  )
SELECT s FROM x WHERE ind=0;";

const DIGITS_RECURSIVE: &str = "  digits(z,lp) AS (
    VALUES('1', 1)
    UNION ALL
    SELECT CAST(lp+1 AS TEXT), lp+1 FROM digits WHERE lp<9
  ),
";

const DIGITS_VALUES: &str = "  digits(z,lp) AS (VALUES('1',1),('2',2),('3',3),('4',4),('5',5),
                         ('6',6),('7',7),('8',8),('9',9)),
";

fn sudoku(digits: &str, size: u32) -> Vec<Step> {
    vec![Step::Run {
        sql: format!("WITH RECURSIVE\n  input(sud) AS (VALUES(?1)),\n{digits}{SOLVE}"),
        rows: vec![vec![Arg::Text(puzzle(size).into())]],
    }]
}

/// The Mandelbrot set's grid spacing: 5/size.
fn spacing(size: u32) -> f64 {
    5.0 / f64::from(size)
}

/// The tests of the cte set, in speedtest1's order.
pub static TESTS: &[TestDef] = &[
    TestDef {
        number: 100,
        title: |_| "Sudoku with recursive 'digits'".into(),
        steps: |c| sudoku(DIGITS_RECURSIVE, c.size),
    },
    TestDef {
        number: 200,
        title: |_| "Sudoku with VALUES 'digits'".into(),
        steps: |c| sudoku(DIGITS_VALUES, c.size),
    },
    TestDef {
        number: 300,
        // C's %f: six decimals.
        title: |s| format!("Mandelbrot Set with spacing={:.6}", spacing(s)),
        steps: |c| {
            let r = spacing(c.size);
            vec![Step::Run {
                sql: "WITH RECURSIVE \n  xaxis(x) AS (VALUES(-2.0) UNION ALL SELECT x+?1 FROM xaxis WHERE x<1.2),\n  yaxis(y) AS (VALUES(-1.0) UNION ALL SELECT y+?2 FROM yaxis WHERE y<1.0),\n  m(iter, cx, cy, x, y) AS (\n    SELECT 0, x, y, 0.0, 0.0 FROM xaxis, yaxis\n    UNION ALL\n    SELECT iter+1, cx, cy, x*x-y*y + cx, 2.0*x*y + cy FROM m \n     WHERE (x*x + y*y) < 4.0 AND iter<28\n  ),\n  m2(iter, cx, cy) AS (\n    SELECT max(iter), cx, cy FROM m GROUP BY cx, cy\n  ),\n  a(t) AS (\n    SELECT group_concat( substr(' .+*#', 1+min(iter/7,4), 1), '') \n    FROM m2 GROUP BY cy\n  )\nSELECT group_concat(rtrim(t),x'0a') FROM a;".into(),
                rows: vec![vec![Arg::Real(r * 0.05), Arg::Real(r)]],
            }]
        },
    },
    TestDef {
        number: 400,
        title: |s| format!("EXCEPT operator on {}-element tables", 10_000 * s),
        steps: |c| {
            let n = 10_000 * c.size;
            vec![Step::Run {
                sql: format!("WITH RECURSIVE \n  z1(x) AS (VALUES(2) UNION ALL SELECT x+2 FROM z1 WHERE x<{n}),\n  z2(y) AS (VALUES(3) UNION ALL SELECT y+3 FROM z2 WHERE y<{n})\nSELECT count(x), avg(x) FROM (\n  SELECT x FROM z1 EXCEPT SELECT y FROM z2 ORDER BY 1\n);"),
                rows: vec![vec![]],
            }]
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn puzzles_and_spacing_follow_the_size() {
        assert_eq!(puzzle(24), PUZZLES[0]);
        assert_eq!(puzzle(25), PUZZLES[1]);
        assert_eq!(puzzle(100), PUZZLES[2]);
        assert!(PUZZLES.iter().all(|p| p.len() == 81));
        assert_eq!((TESTS[2].title)(100), "Mandelbrot Set with spacing=0.050000");
        assert_eq!((TESTS[3].title)(1), "EXCEPT operator on 10000-element tables");
    }
}
