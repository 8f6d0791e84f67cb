//! Time of day, weather and garage doors (world.md SetTime, SetWeather, RunClock,
//! GarageDoors). The initial values travel in ServerHello (0x02).

use crate::check;
use crate::connection::handshake::{GARAGE_MASK, MAX_WEATHER};
use crate::error::FieldError;
use crate::ids::EventId;
use crate::packet;
use crate::wire::Validate;

/// The fastest clock: 10 real ms per game minute.
pub const MINUTE_MS_MIN: u32 = 10;
/// The slowest clock: an hour per game minute.
pub const MINUTE_MS_MAX: u32 = 3_600_000;
/// The game's own rate.
pub const GAME_MINUTE_MS: u32 = 1000;
/// Real time: one real minute per game minute.
pub const REAL_MINUTE_MS: u32 = 60_000;

fn check_clock(hours: u8, minutes: u8) -> Result<(), FieldError> {
    check::range("hours", hours, 0..=23)?;
    check::range("minutes", minutes, 0..=59)
}

packet! {
    /// SetTime (0x21), Server → Client, reliable: stops the recipient's clock at
    /// hours:minutes (the frozen clock) until the next SetTime or RunClock.
    pub struct SetTime = 0x21, ServerToClient {
        pub event_id: EventId,
        /// 0..=23.
        pub hours: u8,
        /// 0..=59.
        pub minutes: u8,
    }
}

impl Validate for SetTime {
    fn validate(&self) -> Result<(), FieldError> {
        check_clock(self.hours, self.minutes)
    }
}

packet! {
    /// SetWeather (0x22), Server → Client, reliable: the recipient's weather, at once.
    pub struct SetWeather = 0x22, ServerToClient {
        pub event_id: EventId,
        /// 0..=22, the game's whole weather table.
        pub weather: u8,
    }
}

impl Validate for SetWeather {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("weather", self.weather, 0..=MAX_WEATHER)
    }
}

packet! {
    /// RunClock (0x23), Server → Client, reliable: a free-running clock from
    /// hours:minutes. The first one, or one with a new `minute_ms`, is a hard establish;
    /// later ones are resyncs (every 45 s, droppable).
    pub struct RunClock = 0x23, ServerToClient {
        pub event_id: EventId,
        /// 0..=23: the phase on establish, the target on resync.
        pub hours: u8,
        /// 0..=59.
        pub minutes: u8,
        /// Real ms per game minute, 10..=3_600_000; [`GAME_MINUTE_MS`], [`REAL_MINUTE_MS`].
        pub minute_ms: u32,
    }
}

impl Validate for RunClock {
    fn validate(&self) -> Result<(), FieldError> {
        check_clock(self.hours, self.minutes)?;
        check::range("minute_ms", self.minute_ms, MINUTE_MS_MIN..=MINUTE_MS_MAX)
    }
}

packet! {
    /// GarageDoors (0x51), Server → Client, reliable, critical: the server-wide open doors
    /// of the game's garages, sent on a change.
    pub struct GarageDoors = 0x51, ServerToClient {
        pub event_id: EventId,
        /// Bit id set = the door of garage id (0..=49) is open; bits 50..63 zero.
        pub open: u64,
    }
}

impl Validate for GarageDoors {
    fn validate(&self) -> Result<(), FieldError> {
        check::bits_within("open", self.open, GARAGE_MASK)
    }
}
