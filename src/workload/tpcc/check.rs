//! The consistency conditions 1-4 of TPC-C 5.11 §3.3.2, checked after every trial: a trial that
//! breaks one fails, naming the condition and the warehouse or district.
//!
//! 1. W_YTD = sum(D_YTD) of the warehouse's districts;
//! 2. D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) of the district (the last where it has new
//!    orders);
//! 3. max(NO_O_ID) - min(NO_O_ID) + 1 = the district's rows in NEW_ORDER;
//! 4. sum(O_OL_CNT) = the district's rows in ORDER_LINE.
//!
//! Amounts are compared to the cent: SQLite keeps DECIMAL columns as binary floating point.

use crate::engines::{Connection, EngineError};

/// A broken condition, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken(pub String);

type Rows = Vec<Vec<Option<String>>>;

/// A condition's query and the check of its rows.
type Condition = (&'static str, fn(&Rows) -> Option<Broken>);

fn num(v: &Option<String>) -> Option<f64> {
    v.as_deref().and_then(|s| s.trim().parse().ok())
}

fn int(v: &Option<String>) -> Option<i64> {
    num(v).map(|x| x.round() as i64)
}

/// Condition 1 from rows of (w_id, w_ytd, sum of d_ytd).
fn condition_1(rows: &Rows) -> Option<Broken> {
    rows.iter().find_map(|r| {
        let (w, ytd, sum) = (int(&r[0])?, num(&r[1])?, num(&r[2]).unwrap_or(0.0));
        ((ytd - sum).abs() >= 0.005).then(|| {
            Broken(format!(
                "consistency condition 1 (§3.3.2.1): warehouse {w}: W_YTD is {ytd:.2} but its districts' D_YTD sum to {sum:.2}"
            ))
        })
    })
}

/// Condition 2 from rows of (w, d, d_next_o_id - 1, max o_id, max no_o_id).
fn condition_2(rows: &Rows) -> Option<Broken> {
    rows.iter().find_map(|r| {
        let (w, d, next) = (int(&r[0])?, int(&r[1])?, int(&r[2])?);
        let max_o = int(&r[3]);
        let max_no = int(&r[4]);
        (max_o != Some(next) || max_no.is_some_and(|n| n != next)).then(|| {
            let show = |v: Option<i64>| v.map_or("none".to_string(), |v| v.to_string());
            Broken(format!(
                "consistency condition 2 (§3.3.2.2): warehouse {w} district {d}: D_NEXT_O_ID - 1 is {next}, max(O_ID) {}, max(NO_O_ID) {}",
                show(max_o),
                show(max_no)
            ))
        })
    })
}

/// Condition 3 from rows of (w, d, max - min + 1, count) of NEW_ORDER.
fn condition_3(rows: &Rows) -> Option<Broken> {
    rows.iter().find_map(|r| {
        let (w, d, span, count) = (int(&r[0])?, int(&r[1])?, int(&r[2])?, int(&r[3])?);
        (span != count).then(|| {
            Broken(format!(
                "consistency condition 3 (§3.3.2.3): warehouse {w} district {d}: its new orders span {span} ids but NEW_ORDER holds {count} rows"
            ))
        })
    })
}

/// Condition 4 from rows of (w, d, sum of o_ol_cnt, order lines).
fn condition_4(rows: &Rows) -> Option<Broken> {
    rows.iter().find_map(|r| {
        let (w, d, sum, lines) = (int(&r[0])?, int(&r[1])?, int(&r[2])?, int(&r[3]).unwrap_or(0));
        (sum != lines).then(|| {
            Broken(format!(
                "consistency condition 4 (§3.3.2.4): warehouse {w} district {d}: sum(O_OL_CNT) is {sum} but ORDER_LINE holds {lines} rows"
            ))
        })
    })
}

const CONDITION_1: &str =
    "SELECT w_id, w_ytd, (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id) FROM warehouse ORDER BY w_id";
const CONDITION_2: &str = "SELECT d_w_id, d_id, d_next_o_id - 1, \
(SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id), \
(SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) \
FROM district ORDER BY d_w_id, d_id";
const CONDITION_3: &str = "SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM new_order \
GROUP BY no_w_id, no_d_id ORDER BY no_w_id, no_d_id";
const CONDITION_4: &str = "SELECT d_w_id, d_id, \
(SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id), \
(SELECT COUNT(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id) \
FROM district ORDER BY d_w_id, d_id";

/// Checks the four conditions on `conn`: the first broken one, if any.
pub fn consistency(conn: &mut dyn Connection) -> Result<Option<Broken>, EngineError> {
    let checks: [Condition; 4] = [
        (CONDITION_1, condition_1),
        (CONDITION_2, condition_2),
        (CONDITION_3, condition_3),
        (CONDITION_4, condition_4),
    ];
    for (sql, check) in checks {
        if let Some(b) = check(&conn.query(sql)?) {
            return Ok(Some(b));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(r: &[&[&str]]) -> Rows {
        r.iter()
            .map(|row| row.iter().map(|v| (*v != "NULL").then(|| v.to_string())).collect())
            .collect()
    }

    #[test]
    fn each_condition_names_what_breaks_it() {
        assert_eq!(condition_1(&rows(&[&["1", "300000.00", "300000.004"]])), None);
        let b = condition_1(&rows(&[&["1", "300000", "300000"], &["2", "300010.5", "300000"]])).unwrap();
        assert!(b.0.contains("condition 1") && b.0.contains("warehouse 2"), "{}", b.0);
        assert_eq!(condition_2(&rows(&[&["1", "3", "3000", "3000", "3000"]])), None);
        assert_eq!(
            condition_2(&rows(&[&["1", "3", "3000", "3000", "NULL"]])),
            None,
            "no new orders left"
        );
        let b = condition_2(&rows(&[&["1", "3", "3001", "3000", "3000"]])).unwrap();
        assert!(b.0.contains("warehouse 1 district 3"), "{}", b.0);
        assert!(condition_3(&rows(&[&["1", "1", "900", "899"]])).is_some());
        assert_eq!(condition_3(&rows(&[&["1", "1", "900", "900"]])), None);
        assert!(condition_4(&rows(&[&["2", "10", "30001", "30000"]]))
            .unwrap()
            .0
            .contains("district 10"));
    }
}
