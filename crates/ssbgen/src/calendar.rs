//! Days since 1992-01-01 as calendar dates: the date table's rows and lineorder's dates.
//!
//! dbgen computes these with `localtime()` (date table) and its own julian arithmetic
//! (lineorder); both are plain Gregorian dates from 1992 to 1998, so one proleptic Gregorian
//! conversion gives the same answers without depending on the time zone.

/// The first day of the SSB calendar, as days since 1970-01-01.
const DAY_ZERO_UNIX: i64 = 8035;

/// Days the order dates' calendar spans (1992-01-01 ..= 1998-12-31).
pub const TOTAL_DAYS: usize = 2557;

/// A calendar day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Day {
    pub year: i64,
    /// 1 ..= 12
    pub month: u32,
    /// 1 ..= 31
    pub day: u32,
    /// 0 = Sunday ..= 6 = Saturday (as `tm_wday`).
    pub weekday: u32,
    /// 1 ..= 366
    pub day_of_year: u32,
}

pub fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl Day {
    /// The day `offset` days after 1992-01-01.
    pub fn from_offset(offset: i64) -> Day {
        let unix_days = DAY_ZERO_UNIX + offset;
        // Howard Hinnant's days-to-civil.
        let z = unix_days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        let day_of_year = (1..month).map(|m| days_in_month(year, m)).sum::<u32>() + day;
        // 1970-01-01 was a Thursday (4).
        let weekday = (unix_days + 4).rem_euclid(7) as u32;
        Day {
            year,
            month,
            day,
            weekday,
            day_of_year,
        }
    }

    /// `YYYYMMDD` as eight ASCII digits.
    pub fn yyyymmdd(&self) -> [u8; 8] {
        let mut out = [b'0'; 8];
        let mut v = self.year as u64 * 10_000 + u64::from(self.month) * 100 + u64::from(self.day);
        for b in out.iter_mut().rev() {
            *b = b'0' + (v % 10) as u8;
            v /= 10;
        }
        out
    }
}

/// `YYYYMMDD` of every day of the calendar, indexed by offset from 1992-01-01.
pub fn yyyymmdd_table() -> Vec<[u8; 8]> {
    (0..TOTAL_DAYS as i64).map(|d| Day::from_offset(d).yyyymmdd()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_days() {
        let d = Day::from_offset(0);
        assert_eq!((d.year, d.month, d.day, d.weekday, d.day_of_year), (1992, 1, 1, 3, 1));
        let leap = Day::from_offset(59);
        assert_eq!((leap.month, leap.day), (2, 29), "1992 is a leap year");
        let last = Day::from_offset(TOTAL_DAYS as i64 - 1);
        assert_eq!((last.year, last.month, last.day, last.day_of_year), (1998, 12, 31, 365));
        assert_eq!(&last.yyyymmdd(), b"19981231");
    }

    #[test]
    fn consecutive_offsets_are_consecutive_days() {
        let days: Vec<Day> = (0..TOTAL_DAYS as i64).map(Day::from_offset).collect();
        for w in days.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert_eq!(b.weekday, (a.weekday + 1) % 7);
            if a.day == days_in_month(a.year, a.month) {
                assert_eq!(b.day, 1);
            } else {
                assert_eq!((b.year, b.month, b.day), (a.year, a.month, a.day + 1));
            }
        }
    }
}
