//! Date rows: one per day from 1992-01-01, seventeen columns of calendar facts.
//!
//! dbgen's own conventions are kept, mistakes included: its day number in the week counts from
//! Sunday = 2 (so Saturday = 1), and the weekday name is looked up with that number, which
//! names each day after the next one (1992-01-01, a Wednesday, is printed "Thursday"). The
//! week-day flag and last-day-in-week flag follow that number too. Selling seasons and holidays
//! are dbgen's fixed lists.

use super::{field, int_field};
use crate::calendar::{days_in_month, Day};
use crate::fmt::{push_int, push_padded};

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// (name, first month, last month, first day, last day), first match wins.
const SEASONS: [(&str, u32, u32, u32, u32); 5] = [
    ("Christmas", 11, 12, 1, 31),
    ("Summer", 5, 8, 1, 31),
    ("Winter", 1, 3, 1, 31),
    ("Spring", 4, 4, 1, 30),
    ("Fall", 9, 10, 1, 31),
];

/// (month, day)
const HOLIDAYS: [(u32, u32); 10] = [
    (12, 24),
    (1, 1),
    (2, 20),
    (4, 20),
    (5, 20),
    (7, 20),
    (8, 20),
    (9, 20),
    (10, 20),
    (11, 20),
];

fn flag(out: &mut Vec<u8>, on: bool) {
    out.push(if on { b'1' } else { b'0' });
    out.push(b'|');
}

pub(super) fn write(first: u64, count: u64, out: &mut Vec<u8>) -> u64 {
    for offset in first..first + count {
        let d = Day::from_offset(offset as i64);
        let day_in_week = (d.weekday + 1) % 7 + 1;
        let month = MONTHS[d.month as usize - 1];
        // d_datekey: "19%02d%02d%02d" of (year - 1900, month, day).
        out.extend_from_slice(b"19");
        push_padded(out, (d.year - 1900) as u64, 2);
        push_padded(out, u64::from(d.month), 2);
        push_padded(out, u64::from(d.day), 2);
        out.push(b'|');
        out.extend_from_slice(month.as_bytes());
        out.push(b' ');
        push_int(out, i64::from(d.day));
        out.extend_from_slice(b", ");
        push_int(out, d.year);
        out.push(b'|');
        field(out, WEEKDAYS[day_in_week as usize - 1].as_bytes());
        field(out, month.as_bytes());
        int_field(out, d.year);
        int_field(out, d.year * 100 + i64::from(d.month));
        out.extend_from_slice(&month.as_bytes()[..3]);
        push_int(out, d.year);
        out.push(b'|');
        int_field(out, i64::from(day_in_week));
        int_field(out, i64::from(d.day));
        int_field(out, i64::from(d.day_of_year));
        int_field(out, i64::from(d.month));
        int_field(out, i64::from(d.day_of_year / 7 + 1));
        let season = SEASONS
            .iter()
            .find(|s| (s.1..=s.2).contains(&d.month) && (s.3..=s.4).contains(&d.day))
            .map_or("", |s| s.0);
        field(out, season.as_bytes());
        flag(out, day_in_week == 7);
        flag(out, d.day == days_in_month(d.year, d.month));
        flag(out, HOLIDAYS.contains(&(d.month, d.day)));
        flag(out, day_in_week != 1 && day_in_week != 7);
        out.push(b'\n');
    }
    count
}
