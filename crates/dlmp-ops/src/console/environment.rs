//! `time HH:MM` and `weather ID`: the server-wide clock and weather, as a gamemode's
//! `dlmp.set_time(h, m)` and `dlmp.set_weather(id)` set them (world.md SetTime,
//! SetWeather). The command applies in this tick's Apply.

use bevy_ecs::world::World;

use dlmp_protocol::connection::handshake::MAX_WEATHER;
use dlmp_world::clock::{EnvironmentCommand, Recipients, TimeOfDay};

/// `H:MM` or `HH:MM`, hours 0..=23 and minutes 00..=59.
fn hh_mm(text: &str) -> Option<TimeOfDay> {
    let (h, m) = text.trim().split_once(':')?;
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    if !(digits(h, 1..=2) && digits(m, 2..=2)) {
        return None;
    }
    TimeOfDay::new(h.parse().ok()?, m.parse().ok()?)
}

/// `time HH:MM`: freezes the global clock at HH:MM for everyone.
pub(super) fn time(world: &mut World, args: &str) -> Vec<String> {
    let Some(time) = hh_mm(args) else {
        return vec![
            "usage: time HH:MM".to_owned(),
            "hours 0..=23, minutes 00..=59".to_owned(),
        ];
    };
    world.write_message(EnvironmentCommand::SetTime {
        time,
        to: Recipients::Everyone,
    });
    vec![format!(
        "time set to {:02}:{:02} (clock frozen)",
        time.hours(),
        time.minutes()
    )]
}

/// `weather ID`: the server's weather, 0..=22, for everyone.
pub(super) fn weather(world: &mut World, args: &str) -> Vec<String> {
    let Some(weather) = args.trim().parse::<u8>().ok().filter(|w| *w <= MAX_WEATHER) else {
        return vec![format!("usage: weather ID (0..={MAX_WEATHER})")];
    };
    world.write_message(EnvironmentCommand::SetWeather {
        weather,
        to: Recipients::Everyone,
    });
    vec![format!("weather set to {weather}")]
}
