//! Time of day, weather and garage doors (world.md SetTime, SetWeather, RunClock,
//! GarageDoors): the global clock policy, the server-wide weather and door mask, and
//! what ServerHello (0x02) tells a new connection. Decisions: ADR 0029.
//!
//! - [`mode`]: the clock policy and its time at a moment (I/O-free).
//! - [`wall`]: the injectable wall clock real time reads.
//! - this module: [`EnvironmentCommand`], applied in [`GameplaySystems::Apply`]; the
//!   RunClock establish on connect and the resync every 45 s; the hello kept current.

pub mod mode;
pub mod wall;

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use dlmp_core::owner::command_owner;
use dlmp_core::session::{Connection, HelloWorld, PlayerConnected};
use dlmp_core::tick::GameplaySystems;
use dlmp_net::lane::Delivery;

use crate::check::{WorldError, WorldRefusals};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::connection::handshake::{GARAGE_MASK, MAX_WEATHER};
use dlmp_protocol::ids::EventId;
use dlmp_protocol::world::environment::{
    GarageDoors, MINUTE_MS_MAX, MINUTE_MS_MIN, RunClock, SetTime, SetWeather,
};

pub use mode::{ClockMode, TimeOfDay, UTC_OFFSET_MINUTES};
pub use wall::WallClock;

/// The periodic resync of a running clock (world.md RunClock), droppable.
pub const RESYNC_INTERVAL: Duration = Duration::from_secs(45);

/// The game's garages: ids 0..=49 (world.md GarageDoors).
pub const GARAGES: u8 = 50;

/// The server-wide environment: the clock policy, the weather and the open garage doors.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Environment {
    pub clock: ClockMode,
    /// 0..=22; what ServerHello carries and a global SetWeather set last.
    pub weather: u8,
    /// Bit id set = garage id open; bits 50..63 zero.
    pub garages: u64,
    /// When the running clock was last sent to everyone (establish or resync).
    last_sync: Duration,
}

/// Who a per-player command goes to: everyone connected, or these players.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipients {
    Everyone,
    Players(Vec<Entity>),
}

/// A gamemode command on the environment; `dlmp.set_time` and friends write it, and so may
/// Rust plugins and the console (ADR 0011).
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub enum EnvironmentCommand {
    /// SetTime: to everyone it freezes the global clock (critical); to players it holds
    /// only theirs (a normal event), until the next resync while the clock runs.
    SetTime { time: TimeOfDay, to: Recipients },
    /// Starts the global running clock from `time` at `minute_ms` (10..=3_600_000).
    RunClock { time: TimeOfDay, minute_ms: u32 },
    /// Real time at `utc_offset_minutes` (-720..=840).
    RealTime { utc_offset_minutes: i32 },
    /// SetWeather (0..=22): to everyone it is the server's weather (critical, ADR 0029);
    /// to players a normal event.
    SetWeather { weather: u8, to: Recipients },
    /// Opens or closes the door of garage 0..=49; GarageDoors to everyone on a change.
    SetGarage { garage: u8, open: bool },
}

/// Adds the clock, weather and garages.
pub(crate) struct ClockPlugin;

impl Plugin for ClockPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Environment>()
            .init_resource::<WallClock>()
            .add_message::<EnvironmentCommand>()
            .add_systems(
                FixedUpdate,
                (apply_commands, establish_on_connect, resync, keep_hello)
                    .chain()
                    .in_set(GameplaySystems::Apply),
            );
    }
}

/// The RunClock of the clock at `now`, if it runs.
fn run_clock(env: &Environment, now: Duration, wall: &WallClock) -> Option<RunClock> {
    let minute_ms = env.clock.minute_ms()?;
    let time = env.clock.time(now, wall);
    Some(RunClock {
        event_id: EventId(0),
        hours: time.hours(),
        minutes: time.minutes(),
        minute_ms,
    })
}

fn to_everyone(connections: &mut Query<&mut Connection>, packet: ServerPacket, delivery: Delivery) {
    let name = packet.name();
    for mut conn in connections.iter_mut() {
        if let Err(e) = conn.send_event(packet.clone(), delivery) {
            debug!(peer = %conn.addr(), "{name} not queued: {e}");
        }
    }
}

fn to_players(connections: &mut Query<&mut Connection>, players: &[Entity], packet: &ServerPacket) {
    for &player in players {
        if let Ok(mut conn) = connections.get_mut(player) {
            let _ = command_owner(&mut conn, packet.clone());
        }
    }
}

/// Why an [`EnvironmentCommand`] was refused by its form (the Lua API checks the same
/// first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvironmentRefusal {
    MinuteMs(u32),
    UtcOffset(i32),
    Weather(u8),
    Garage(u8),
}

impl From<EnvironmentRefusal> for WorldError {
    fn from(r: EnvironmentRefusal) -> Self {
        let (what, value, range) = match r {
            EnvironmentRefusal::MinuteMs(v) => ("minute_ms", f64::from(v), "10..=3600000"),
            EnvironmentRefusal::UtcOffset(v) => ("utc_offset_minutes", f64::from(v), "-720..=840"),
            EnvironmentRefusal::Weather(v) => ("weather", f64::from(v), "0..=22"),
            EnvironmentRefusal::Garage(v) => ("garage", f64::from(v), "0..=49"),
        };
        WorldError::OutOfRange { what, value, range }
    }
}

impl EnvironmentCommand {
    /// Checks the command against the page's ranges.
    pub fn check(&self) -> Result<(), EnvironmentRefusal> {
        match *self {
            EnvironmentCommand::RunClock { minute_ms, .. }
                if !(MINUTE_MS_MIN..=MINUTE_MS_MAX).contains(&minute_ms) =>
            {
                Err(EnvironmentRefusal::MinuteMs(minute_ms))
            }
            EnvironmentCommand::RealTime { utc_offset_minutes }
                if !UTC_OFFSET_MINUTES.contains(&utc_offset_minutes) =>
            {
                Err(EnvironmentRefusal::UtcOffset(utc_offset_minutes))
            }
            EnvironmentCommand::SetWeather { weather, .. } if weather > MAX_WEATHER => {
                Err(EnvironmentRefusal::Weather(weather))
            }
            EnvironmentCommand::SetGarage { garage, .. } if garage >= GARAGES => {
                Err(EnvironmentRefusal::Garage(garage))
            }
            _ => Ok(()),
        }
    }
}

fn apply_commands(
    mut commands: MessageReader<EnvironmentCommand>,
    mut env: ResMut<Environment>,
    mut connections: Query<&mut Connection>,
    time: Res<Time>,
    wall: Res<WallClock>,
    mut refusals: ResMut<WorldRefusals>,
) {
    let now = time.elapsed();
    for command in commands.read() {
        if let Err(refusal) = command.check() {
            refusals.refuse("environment", command, &refusal.into());
            continue;
        }
        match command {
            EnvironmentCommand::SetTime { time, to } => {
                let packet: ServerPacket = SetTime {
                    event_id: EventId(0),
                    hours: time.hours(),
                    minutes: time.minutes(),
                }
                .into();
                match to {
                    Recipients::Everyone => {
                        env.clock = ClockMode::Frozen(*time);
                        to_everyone(&mut connections, packet, Delivery::Critical);
                    }
                    Recipients::Players(players) => to_players(&mut connections, players, &packet),
                }
            }
            EnvironmentCommand::RunClock { time, minute_ms } => {
                env.clock = ClockMode::Running {
                    from: *time,
                    since: now,
                    minute_ms: *minute_ms,
                };
                establish(&mut env, &mut connections, now, &wall);
            }
            &EnvironmentCommand::RealTime { utc_offset_minutes } => {
                env.clock = ClockMode::Real { utc_offset_minutes };
                establish(&mut env, &mut connections, now, &wall);
            }
            EnvironmentCommand::SetWeather { weather, to } => {
                let packet: ServerPacket = SetWeather {
                    event_id: EventId(0),
                    weather: *weather,
                }
                .into();
                match to {
                    Recipients::Everyone => {
                        env.weather = *weather;
                        to_everyone(&mut connections, packet, Delivery::Critical);
                    }
                    Recipients::Players(players) => to_players(&mut connections, players, &packet),
                }
            }
            &EnvironmentCommand::SetGarage { garage, open } => {
                let bit = 1u64 << garage;
                let mask = if open {
                    env.garages | bit
                } else {
                    env.garages & !bit
                } & GARAGE_MASK;
                if mask != env.garages {
                    env.garages = mask;
                    let packet = GarageDoors {
                        event_id: EventId(0),
                        open: mask,
                    };
                    to_everyone(&mut connections, packet.into(), Delivery::Critical);
                }
            }
        }
    }
}

/// A mode or rate change: RunClock to everyone, critical; the resync interval restarts.
fn establish(
    env: &mut Environment,
    connections: &mut Query<&mut Connection>,
    now: Duration,
    wall: &WallClock,
) {
    if let Some(packet) = run_clock(env, now, wall) {
        to_everyone(connections, packet.into(), Delivery::Critical);
        env.last_sync = now;
    }
}

/// A new connection gets the running clock as an establish, critical (its hello carried
/// the time of day).
fn establish_on_connect(
    mut connected: MessageReader<PlayerConnected>,
    env: Res<Environment>,
    mut connections: Query<&mut Connection>,
    time: Res<Time>,
    wall: Res<WallClock>,
) {
    for c in connected.read() {
        let Some(packet) = run_clock(&env, time.elapsed(), &wall) else {
            continue;
        };
        if let Ok(mut conn) = connections.get_mut(c.player)
            && let Err(e) = conn.send_event(packet, Delivery::Critical)
        {
            debug!(?e, "RunClock establish not queued");
        }
    }
}

/// Every 45 s while the clock runs: RunClock to everyone, droppable (a lost snapshot is
/// fixed by the next).
fn resync(
    mut env: ResMut<Environment>,
    mut connections: Query<&mut Connection>,
    time: Res<Time>,
    wall: Res<WallClock>,
) {
    let now = time.elapsed();
    if now.saturating_sub(env.last_sync) < RESYNC_INTERVAL {
        return;
    }
    if let Some(packet) = run_clock(&env, now, &wall) {
        env.last_sync = now;
        to_everyone(&mut connections, packet.into(), Delivery::Droppable);
    }
}

/// What the next ServerHello says: the time of day now, the weather, the doors.
fn keep_hello(
    env: Res<Environment>,
    mut hello: ResMut<HelloWorld>,
    time: Res<Time>,
    wall: Res<WallClock>,
) {
    let t = env.clock.time(time.elapsed(), &wall);
    let world = &mut hello.0;
    (world.hours, world.minutes) = (t.hours(), t.minutes());
    world.weather = env.weather;
    world.garage_open = env.garages;
}
