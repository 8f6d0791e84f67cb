//! The global clock policy (world.md SetTime, RunClock): frozen at a time of day, running
//! at a rate from a phase, or real time at a UTC offset. I/O-free: the server's time and
//! the wall clock come in as arguments.

use std::time::Duration;

use super::wall::WallClock;
use dlmp_protocol::world::environment::REAL_MINUTE_MS;

/// Minutes in a game day.
const DAY_MINUTES: u64 = 24 * 60;

/// The most a real-time offset may be from UTC: UTC−12:00 .. UTC+14:00, the zones in use.
pub const UTC_OFFSET_MINUTES: std::ops::RangeInclusive<i32> = -720..=840;

/// A time of day, 00:00..=23:59: made only by [`TimeOfDay::new`], so a 24:00 that every
/// later ServerHello would carry cannot exist (ADR 0090).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeOfDay {
    hours: u8,
    minutes: u8,
}

impl TimeOfDay {
    /// `hours`:`minutes`, or `None` outside 0..=23 / 0..=59.
    pub fn new(hours: u8, minutes: u8) -> Option<Self> {
        (hours <= 23 && minutes <= 59).then_some(TimeOfDay { hours, minutes })
    }

    /// 0..=23.
    pub fn hours(self) -> u8 {
        self.hours
    }

    /// 0..=59.
    pub fn minutes(self) -> u8 {
        self.minutes
    }

    fn from_minute_of_day(m: u64) -> Self {
        let m = m % DAY_MINUTES;
        TimeOfDay {
            hours: u8::try_from(m / 60).unwrap_or(0),
            minutes: u8::try_from(m % 60).unwrap_or(0),
        }
    }

    fn minute_of_day(self) -> u64 {
        u64::from(self.hours) * 60 + u64::from(self.minutes)
    }
}

/// The global clock (world.md RunClock: "one global, server-owned policy").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMode {
    /// Held at a time; every client holds it too (the default, at 12:00).
    Frozen(TimeOfDay),
    /// Running at `minute_ms` real ms per game minute from `from`, which it showed at
    /// server time `since`.
    Running {
        from: TimeOfDay,
        since: Duration,
        minute_ms: u32,
    },
    /// The server's wall clock at a fixed offset from UTC, one real minute a game minute.
    Real { utc_offset_minutes: i32 },
}

impl Default for ClockMode {
    fn default() -> Self {
        ClockMode::Frozen(TimeOfDay {
            hours: 12,
            minutes: 0,
        })
    }
}

impl ClockMode {
    /// The time of day at server time `now`.
    pub fn time(&self, now: Duration, wall: &WallClock) -> TimeOfDay {
        match *self {
            ClockMode::Frozen(t) => t,
            ClockMode::Running {
                from,
                since,
                minute_ms,
            } => {
                let elapsed = now.saturating_sub(since).as_millis();
                let minutes = elapsed / u128::from(minute_ms.max(1));
                let minutes = u64::try_from(minutes % u128::from(DAY_MINUTES)).unwrap_or(0);
                TimeOfDay::from_minute_of_day(from.minute_of_day() + minutes)
            }
            ClockMode::Real { utc_offset_minutes } => {
                let utc = wall.since_epoch().as_secs() / 60;
                let offset = i64::from(utc_offset_minutes).rem_euclid(DAY_MINUTES as i64);
                let offset = u64::try_from(offset).unwrap_or(0);
                TimeOfDay::from_minute_of_day(utc % DAY_MINUTES + offset)
            }
        }
    }

    /// Real ms per game minute while the clock runs; `None` when frozen.
    pub fn minute_ms(&self) -> Option<u32> {
        match *self {
            ClockMode::Frozen(_) => None,
            ClockMode::Running { minute_ms, .. } => Some(minute_ms),
            ClockMode::Real { .. } => Some(REAL_MINUTE_MS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(hours: u8, minutes: u8) -> TimeOfDay {
        TimeOfDay::new(hours, minutes).expect("a time of day")
    }

    #[test]
    fn a_running_clock_advances_one_minute_per_minute_ms_and_wraps_at_midnight() {
        let mode = ClockMode::Running {
            from: t(23, 58),
            since: Duration::from_secs(10),
            minute_ms: 1000,
        };
        let wall = WallClock::manual(Duration::ZERO);
        assert_eq!(mode.time(Duration::from_secs(10), &wall), t(23, 58));
        assert_eq!(mode.time(Duration::from_millis(10_999), &wall), t(23, 58));
        assert_eq!(mode.time(Duration::from_secs(11), &wall), t(23, 59));
        assert_eq!(mode.time(Duration::from_secs(13), &wall), t(0, 1));
    }

    #[test]
    fn real_time_is_the_wall_clock_at_the_offset() {
        // 1970-01-02 03:04 UTC.
        let wall = WallClock::manual(Duration::from_secs(86_400 + 3 * 3600 + 4 * 60 + 59));
        let at =
            |utc_offset_minutes| ClockMode::Real { utc_offset_minutes }.time(Duration::ZERO, &wall);
        assert_eq!(at(0), t(3, 4));
        assert_eq!(at(90), t(4, 34));
        assert_eq!(at(-240), t(23, 4));
        assert_eq!(
            ClockMode::Real {
                utc_offset_minutes: 0
            }
            .minute_ms(),
            Some(60_000)
        );
    }

    #[test]
    fn hours_and_minutes_outside_the_day_are_no_time() {
        assert_eq!(TimeOfDay::new(24, 0), None);
        assert_eq!(TimeOfDay::new(0, 60), None);
    }
}
