//! Fixture values for the clock, weather and garage family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::world::environment::*;

pub fn set_time() -> SetTime {
    SetTime {
        event_id: EventId(12),
        hours: 21,
        minutes: 45,
    }
}

pub fn set_weather() -> SetWeather {
    SetWeather {
        event_id: EventId(13),
        weather: 8,
    }
}

/// The game's own rate from 06:30.
pub fn run_clock() -> RunClock {
    RunClock {
        event_id: EventId(14),
        hours: 6,
        minutes: 30,
        minute_ms: GAME_MINUTE_MS,
    }
}

/// Garages 2, 7 and 49 open.
pub fn garage_doors() -> GarageDoors {
    GarageDoors {
        event_id: EventId(15),
        open: (1 << 2) | (1 << 7) | (1 << 49),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("set_time.bin", set_time()),
        sample("set_weather.bin", set_weather()),
        sample("run_clock.bin", run_clock()),
        sample("garage_doors.bin", garage_doors()),
    ]
}
