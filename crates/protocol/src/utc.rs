//! UTC calendar times of Unix times (proleptic Gregorian, civil-from-days), for the timestamps
//! coyote writes: RFC 3339 (`2026-12-05T09:30:00Z`) and the compact forms some wires want.

use std::time::{SystemTime, UNIX_EPOCH};

/// A second of UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    /// The year (proleptic Gregorian).
    pub year: i64,
    /// 1–12.
    pub month: u32,
    /// 1–31.
    pub day: u32,
    /// Seconds since midnight.
    pub second_of_day: u32,
}

impl UtcTime {
    /// `secs` seconds after 1970-01-01T00:00:00Z.
    pub fn from_unix(secs: u64) -> UtcTime {
        let days = (secs / 86_400) as i64;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        UtcTime {
            year: yoe + era * 400 + i64::from(month <= 2),
            month,
            day,
            second_of_day: (secs % 86_400) as u32,
        }
    }

    /// `time` (times before 1970 read as 1970-01-01).
    pub fn of(time: SystemTime) -> UtcTime {
        UtcTime::from_unix(time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()))
    }

    /// Now.
    pub fn now() -> UtcTime {
        UtcTime::of(SystemTime::now())
    }

    /// `YYYYMMDD`.
    pub fn compact_date(&self) -> String {
        format!("{:04}{:02}{:02}", self.year, self.month, self.day)
    }

    /// `(hours, minutes, seconds)` of the day.
    pub fn clock(&self) -> (u32, u32, u32) {
        let s = self.second_of_day;
        (s / 3_600, s % 3_600 / 60, s % 60)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn rfc3339(&self) -> String {
        let (h, m, s) = self.clock();
        format!(
            "{:04}-{:02}-{:02}T{h:02}:{m:02}:{s:02}Z",
            self.year, self.month, self.day
        )
    }
}

#[cfg(test)]
mod tests {
    use super::UtcTime;

    #[test]
    fn unix_times_read_as_gregorian_utc() {
        assert_eq!(UtcTime::from_unix(0).rfc3339(), "1970-01-01T00:00:00Z");
        assert_eq!(
            UtcTime::from_unix(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            UtcTime::from_unix(1_796_300_000).rfc3339(),
            "2026-12-03T12:13:20Z"
        );
        assert_eq!(UtcTime::from_unix(1_796_300_000).compact_date(), "20261203");
    }
}
