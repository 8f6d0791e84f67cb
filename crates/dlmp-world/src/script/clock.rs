//! `dlmp.set_time`, `dlmp.run_clock`, `dlmp.set_real_time`, `dlmp.clock`,
//! `dlmp.set_weather`, `dlmp.set_garage_open` (world.md SetTime, RunClock, SetWeather,
//! GarageDoors).

use mlua::{Error, Lua, Result, Table, Value};

use super::{state, state_mut};
use crate::clock::{
    ClockMode, EnvironmentCommand, GARAGES, Recipients, TimeOfDay, UTC_OFFSET_MINUTES,
};
use dlmp_player::chat::script::reserve_all;
use dlmp_protocol::connection::handshake::MAX_WEATHER;
use dlmp_protocol::world::environment::{GAME_MINUTE_MS, MINUTE_MS_MAX, MINUTE_MS_MIN};
use dlmp_script::api::{args, queue_message};

fn time_of_day(func: &str, h: &Value, m: &Value) -> Result<TimeOfDay> {
    let hours = args::integer(func, "hours", h, 0..=23)?;
    let minutes = args::integer(func, "minutes", m, 0..=59)?;
    u8::try_from(hours)
        .ok()
        .zip(u8::try_from(minutes).ok())
        .and_then(|(h, m)| TimeOfDay::new(h, m))
        .ok_or_else(|| Error::runtime(format!("{func}: no time {hours}:{minutes}")))
}

/// Everyone, or the listed players still connected, each with a lane place taken in the
/// call: all or none, "queue full" naming the first without room (ADR 0020).
fn recipients(lua: &Lua, func: &str, players: &Value) -> Result<Recipients> {
    if players.is_nil() {
        return Ok(Recipients::Everyone);
    }
    let list = dlmp_player::script::players_arg(func, "players", players)?;
    let to = reserve_all(&mut *dlmp_player::script::views_mut(lua)?, func, &list)?;
    Ok(Recipients::Players(to))
}

pub(super) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "set_time",
        lua.create_function(|lua, (h, m, players): (Value, Value, Value)| {
            const F: &str = "set_time";
            let time = time_of_day(F, &h, &m)?;
            let to = recipients(lua, F, &players)?;
            if to == Recipients::Everyone {
                state_mut(lua)?.world.clock = ClockMode::Frozen(time);
            }
            queue_message(lua, EnvironmentCommand::SetTime { time, to })
        })?,
    )?;

    dlmp.set(
        "run_clock",
        lua.create_function(|lua, (h, m, ms): (Value, Value, Value)| {
            const F: &str = "run_clock";
            let time = time_of_day(F, &h, &m)?;
            let minute_ms = args::integer_or(
                F,
                "minute_ms",
                &ms,
                i64::from(MINUTE_MS_MIN)..=i64::from(MINUTE_MS_MAX),
                i64::from(GAME_MINUTE_MS),
            )?;
            let minute_ms = u32::try_from(minute_ms).map_err(Error::external)?;
            {
                let mut state = state_mut(lua)?;
                let since = state.now;
                state.world.clock = ClockMode::Running {
                    from: time,
                    since,
                    minute_ms,
                };
            }
            queue_message(lua, EnvironmentCommand::RunClock { time, minute_ms })
        })?,
    )?;

    dlmp.set(
        "set_real_time",
        lua.create_function(|lua, offset: Value| {
            const F: &str = "set_real_time";
            let range =
                i64::from(*UTC_OFFSET_MINUTES.start())..=i64::from(*UTC_OFFSET_MINUTES.end());
            let offset = args::integer(F, "utc_offset_minutes", &offset, range)?;
            let utc_offset_minutes = i32::try_from(offset).map_err(Error::external)?;
            state_mut(lua)?.world.clock = ClockMode::Real { utc_offset_minutes };
            queue_message(lua, EnvironmentCommand::RealTime { utc_offset_minutes })
        })?,
    )?;

    dlmp.set(
        "clock",
        lua.create_function(|lua, ()| {
            let state = state(lua)?;
            let world = &state.world;
            let t = world.clock.time(state.now, &world.wall);
            Ok((t.hours(), t.minutes(), world.clock.minute_ms()))
        })?,
    )?;

    dlmp.set(
        "set_weather",
        lua.create_function(|lua, (id, players): (Value, Value)| {
            const F: &str = "set_weather";
            let weather = args::integer(F, "id", &id, 0..=i64::from(MAX_WEATHER))?;
            let weather = u8::try_from(weather).map_err(Error::external)?;
            let to = recipients(lua, F, &players)?;
            queue_message(lua, EnvironmentCommand::SetWeather { weather, to })
        })?,
    )?;

    dlmp.set(
        "set_garage_open",
        lua.create_function(|lua, (id, open): (Value, Value)| {
            const F: &str = "set_garage_open";
            let garage = args::integer(F, "garage_id", &id, 0..=i64::from(GARAGES - 1))?;
            let garage = u8::try_from(garage).map_err(Error::external)?;
            let open = args::boolean(F, "open", &open)?;
            queue_message(lua, EnvironmentCommand::SetGarage { garage, open })
        })?,
    )?;
    Ok(())
}
