//! A daily time of the scheduled restart (ADR 0103): `HH:MM` in UTC or at an offset,
//! kept as the minute of the day in UTC.

use crate::bans::list::UnixSeconds;

/// A time of day, kept as minutes after midnight UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DailyTime {
    utc_minute: u16,
    /// The offset it was written with, in minutes, to print it back the same way.
    offset: i16,
}

impl DailyTime {
    /// `HH:MM` (UTC) or `HH:MM+HH:MM` / `HH:MM-HH:MM` (a time at that offset from UTC).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (time, offset) = match text.find(['+', '-']) {
            Some(at) => (&text[..at], Some(&text[at..])),
            None => (text.strip_suffix('Z').unwrap_or(text), None),
        };
        let minute = hh_mm(time, 23).ok_or("expected HH:MM, HH:MM+HH:MM or HH:MM-HH:MM")?;
        let offset = match offset {
            None => 0,
            Some(o) => {
                let sign = if o.starts_with('-') { -1 } else { 1 };
                sign * hh_mm(&o[1..], 14).ok_or("the offset must be +HH:MM or -HH:MM")?
            }
        };
        let utc = (minute - offset).rem_euclid(24 * 60);
        Ok(DailyTime {
            utc_minute: u16::try_from(utc).unwrap_or(0),
            offset: i16::try_from(offset).unwrap_or(0),
        })
    }

    /// The first moment after `now` at this time of day.
    #[must_use]
    pub fn next_after(self, now: UnixSeconds) -> UnixSeconds {
        let day = now.div_euclid(86_400) * 86_400;
        let today = day + i64::from(self.utc_minute) * 60;
        if today > now { today } else { today + 86_400 }
    }
}

impl std::fmt::Display for DailyTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let local = (i32::from(self.utc_minute) + i32::from(self.offset)).rem_euclid(24 * 60);
        write!(f, "{:02}:{:02}", local / 60, local % 60)?;
        if self.offset != 0 {
            let sign = if self.offset < 0 { '-' } else { '+' };
            let o = self.offset.unsigned_abs();
            write!(f, "{sign}{:02}:{:02}", o / 60, o % 60)?;
        }
        Ok(())
    }
}

/// `HH:MM` with `HH <= max_hour`, as minutes.
fn hh_mm(text: &str, max_hour: i32) -> Option<i32> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    ((0..=max_hour).contains(&h) && (0..60).contains(&m)).then_some(h * 60 + m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daily_time_reads_utc_or_an_offset_and_prints_back() {
        let t = DailyTime::parse("04:30").expect("valid");
        assert_eq!(t.to_string(), "04:30");
        assert_eq!(t.next_after(0), 4 * 3600 + 30 * 60);
        assert_eq!(
            t.next_after(4 * 3600 + 30 * 60),
            86_400 + 4 * 3600 + 30 * 60
        );
        let t = DailyTime::parse("04:00+02:00").expect("valid");
        assert_eq!(t.next_after(0), 2 * 3600, "02:00 UTC");
        assert_eq!(t.to_string(), "04:00+02:00");
        let t = DailyTime::parse("23:30-01:00").expect("valid");
        assert_eq!(t.next_after(0), 30 * 60, "00:30 UTC next day");
        for bad in [
            "4:00",
            "24:00",
            "04:60",
            "04:00+15:00",
            "noon",
            "",
            "04:00+2",
        ] {
            assert!(DailyTime::parse(bad).is_err(), "{bad}");
        }
    }
}
