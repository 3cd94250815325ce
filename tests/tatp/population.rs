//! The population of a seeded 1,000-subscriber database against the specification: row counts
//! within the ranges the rules allow (and near their expectations), keys unique, every value in
//! its domain, distinct ai_type / sf_type / start_time per parent, references intact.

use crate::tatp::common::*;

/// `expected ± 5 standard deviations` of a sum of `n` independent draws with the given mean and
/// variance.
fn near(got: i64, n: i64, mean: f64, var: f64) -> bool {
    let expected = n as f64 * mean;
    let sd = (n as f64 * var).sqrt();
    (got as f64 - expected).abs() <= 5.0 * sd
}

#[test]
fn row_counts_are_within_the_specs_ranges() {
    let (_dir, path, reported) = populated();
    let c = &mut open(&path);
    let n = SUBSCRIBERS as i64;
    let subscribers = int(c, "SELECT count(*) FROM subscriber");
    let access = int(c, "SELECT count(*) FROM access_info");
    let facility = int(c, "SELECT count(*) FROM special_facility");
    let forwarding = int(c, "SELECT count(*) FROM call_forwarding");
    assert_eq!(subscribers, n);
    assert_eq!(
        reported as i64,
        subscribers + access + facility + forwarding,
        "populate's row count"
    );
    // Ranges the rules allow.
    assert!((n..=4 * n).contains(&access), "access_info {access}");
    assert!((n..=4 * n).contains(&facility), "special_facility {facility}");
    assert!((0..=3 * facility).contains(&forwarding), "call_forwarding {forwarding}");
    // Expectations: 1..4 uniform (mean 2.5, variance 1.25) per subscriber; 0..3 uniform
    // (mean 1.5, variance 1.25) per special facility.
    assert!(near(access, n, 2.5, 1.25), "access_info {access}");
    assert!(near(facility, n, 2.5, 1.25), "special_facility {facility}");
    assert!(near(forwarding, facility, 1.5, 1.25), "call_forwarding {forwarding}");
    // Per parent.
    for (table, parent, lo, hi) in [
        ("access_info", "s_id", 1, 4),
        ("special_facility", "s_id", 1, 4),
        ("call_forwarding", "s_id, sf_type", 1, 3),
    ] {
        let sql = format!("SELECT min(k), max(k) FROM (SELECT count(*) AS k FROM {table} GROUP BY {parent})");
        let r = rows(c, &sql);
        let min: i64 = r[0][0].as_deref().unwrap().parse().unwrap();
        let max: i64 = r[0][1].as_deref().unwrap().parse().unwrap();
        assert!(min >= lo && max <= hi, "{table} per {parent}: {min}..{max}");
        assert_eq!(max, hi, "{table}: some parent should have the most rows");
    }
    // Every subscriber has access_info and special_facility rows; some facilities have no
    // forwarding rows (0 of 0..3).
    assert_eq!(int(c, "SELECT count(DISTINCT s_id) FROM access_info"), n);
    assert_eq!(int(c, "SELECT count(DISTINCT s_id) FROM special_facility"), n);
    let without = int(
        c,
        "SELECT count(*) FROM special_facility sf WHERE NOT EXISTS \
         (SELECT 1 FROM call_forwarding cf WHERE cf.s_id = sf.s_id AND cf.sf_type = sf.sf_type)",
    );
    assert!(
        near(without, facility, 0.25, 0.1875),
        "facilities without forwarding: {without}"
    );
}

#[test]
fn keys_are_unique_and_references_hold() {
    let (_dir, path, _) = populated();
    let c = &mut open(&path);
    let n = SUBSCRIBERS as i64;
    assert_eq!(int(c, "SELECT min(s_id) FROM subscriber"), 1);
    assert_eq!(int(c, "SELECT max(s_id) FROM subscriber"), n);
    assert_eq!(int(c, "SELECT count(DISTINCT s_id) FROM subscriber"), n);
    assert_eq!(int(c, "SELECT count(DISTINCT sub_nbr) FROM subscriber"), n);
    // sub_nbr is s_id, 15 digits, zero-padded.
    assert_eq!(
        int(
            c,
            "SELECT count(*) FROM subscriber WHERE sub_nbr <> printf('%015d', s_id)"
        ),
        0
    );
    // Distinct ai_type / sf_type / start_time per parent.
    for (table, key) in [
        ("access_info", "s_id, ai_type"),
        ("special_facility", "s_id, sf_type"),
        ("call_forwarding", "s_id, sf_type, start_time"),
    ] {
        let total = int(c, &format!("SELECT count(*) FROM {table}"));
        let distinct = int(c, &format!("SELECT count(*) FROM (SELECT DISTINCT {key} FROM {table})"));
        assert_eq!(total, distinct, "{table}: duplicate ({key})");
    }
    // References.
    for sql in [
        "SELECT count(*) FROM access_info a WHERE NOT EXISTS (SELECT 1 FROM subscriber s WHERE s.s_id = a.s_id)",
        "SELECT count(*) FROM special_facility f WHERE NOT EXISTS (SELECT 1 FROM subscriber s WHERE s.s_id = f.s_id)",
        "SELECT count(*) FROM call_forwarding cf WHERE NOT EXISTS \
         (SELECT 1 FROM special_facility sf WHERE sf.s_id = cf.s_id AND sf.sf_type = cf.sf_type)",
    ] {
        assert_eq!(int(c, sql), 0, "{sql}");
    }
    // The unique index on sub_nbr.
    assert_eq!(
        int(
            c,
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'subscriber_sub_nbr' AND sql LIKE '%UNIQUE%'"
        ),
        1
    );
}

#[test]
fn values_are_in_their_domains() {
    let (_dir, path, _) = populated();
    let c = &mut open(&path);
    let mut bad = Vec::new();
    let mut check = |what: &str, sql: String| {
        let k = int(c, &sql);
        if k != 0 {
            bad.push(format!("{what}: {k} rows outside the domain"));
        }
    };
    for i in 1..=10 {
        check(
            &format!("bit_{i}"),
            format!("SELECT count(*) FROM subscriber WHERE bit_{i} NOT IN (0, 1)"),
        );
        check(
            &format!("hex_{i}"),
            format!(
                "SELECT count(*) FROM subscriber WHERE hex_{i} NOT BETWEEN 0 AND 15 OR typeof(hex_{i}) <> 'integer'"
            ),
        );
        check(
            &format!("byte2_{i}"),
            format!("SELECT count(*) FROM subscriber WHERE byte2_{i} NOT BETWEEN 0 AND 255 OR typeof(byte2_{i}) <> 'integer'"),
        );
    }
    for col in ["msc_location", "vlr_location"] {
        check(
            col,
            format!("SELECT count(*) FROM subscriber WHERE {col} NOT BETWEEN 1 AND 4294967295"),
        );
    }
    check(
        "ai_type",
        "SELECT count(*) FROM access_info WHERE ai_type NOT BETWEEN 1 AND 4".into(),
    );
    check(
        "data1/data2",
        "SELECT count(*) FROM access_info WHERE data1 NOT BETWEEN 0 AND 255 OR data2 NOT BETWEEN 0 AND 255".into(),
    );
    check(
        "data3",
        "SELECT count(*) FROM access_info WHERE data3 NOT GLOB '[A-Z][A-Z][A-Z]'".into(),
    );
    check(
        "data4",
        "SELECT count(*) FROM access_info WHERE data4 NOT GLOB '[A-Z][A-Z][A-Z][A-Z][A-Z]'".into(),
    );
    check(
        "sf_type",
        "SELECT count(*) FROM special_facility WHERE sf_type NOT BETWEEN 1 AND 4".into(),
    );
    check(
        "is_active",
        "SELECT count(*) FROM special_facility WHERE is_active NOT IN (0, 1)".into(),
    );
    check(
        "error_cntrl/data_a",
        "SELECT count(*) FROM special_facility WHERE error_cntrl NOT BETWEEN 0 AND 255 OR data_a NOT BETWEEN 0 AND 255"
            .into(),
    );
    check(
        "data_b",
        "SELECT count(*) FROM special_facility WHERE data_b NOT GLOB '[A-Z][A-Z][A-Z][A-Z][A-Z]'".into(),
    );
    check(
        "start_time",
        "SELECT count(*) FROM call_forwarding WHERE start_time NOT IN (0, 8, 16)".into(),
    );
    check(
        "end_time",
        "SELECT count(*) FROM call_forwarding WHERE end_time - start_time NOT BETWEEN 1 AND 8".into(),
    );
    check(
        "numberx",
        "SELECT count(*) FROM call_forwarding WHERE length(numberx) <> 15 OR numberx GLOB '*[^0-9]*'".into(),
    );
    assert!(bad.is_empty(), "{bad:#?}");
    // The values spread over their domains (uniform draws hit both ends).
    assert_eq!(int(c, "SELECT count(DISTINCT hex_3) FROM subscriber"), 16);
    assert_eq!(int(c, "SELECT min(byte2_7) FROM subscriber"), 0);
    assert_eq!(int(c, "SELECT max(byte2_7) FROM subscriber"), 255);
    assert!(int(c, "SELECT max(msc_location) FROM subscriber") > 4_000_000_000);
    assert_eq!(
        int(c, "SELECT count(DISTINCT end_time - start_time) FROM call_forwarding"),
        8
    );
    // is_active is 1 for 85% of the special facilities.
    let facility = int(c, "SELECT count(*) FROM special_facility");
    let active = int(c, "SELECT count(*) FROM special_facility WHERE is_active = 1");
    let share = active as f64 / facility as f64;
    let sd = (0.85 * 0.15 / facility as f64).sqrt();
    assert!((share - 0.85).abs() < 5.0 * sd, "is_active share {share}");
    // bit_1 is 1 for about half.
    let ones = int(c, "SELECT sum(bit_1) FROM subscriber") as f64 / SUBSCRIBERS as f64;
    assert!(
        (ones - 0.5).abs() < 5.0 * (0.25 / SUBSCRIBERS as f64).sqrt(),
        "bit_1 share {ones}"
    );
}

#[test]
fn the_same_seed_gives_the_same_database() {
    let (_a, pa, ra) = populated();
    let (_b, pb, rb) = populated();
    assert_eq!(ra, rb);
    let digest = |path: &std::path::Path| {
        let c = &mut open(path);
        [
            "SELECT group_concat(s_id || sub_nbr || bit_1 || hex_5 || byte2_10 || msc_location || vlr_location, ',') FROM subscriber",
            "SELECT group_concat(s_id || ai_type || data1 || data2 || data3 || data4, ',') FROM access_info",
            "SELECT group_concat(s_id || sf_type || is_active || error_cntrl || data_a || data_b, ',') FROM special_facility",
            "SELECT group_concat(s_id || sf_type || start_time || end_time || numberx, ',') FROM call_forwarding",
        ]
        .map(|sql| rows(c, sql))
    };
    assert_eq!(digest(&pa), digest(&pb));
}
