//! The player's map waypoint (world.md PlayerWaypoint, SetWaypoint): what the server holds
//! as each player's waypoint, the admission of the client's reports, `player_waypoint`
//! within 5 at once and 2 a second with the latest coalesced, and SetWaypoint held at once
//! without an event. Decisions: ADR 0030.
//!
//! The late-answer ordering of the page follows from comparing every report with what the
//! server holds: after SetWaypoint(S), a report P sent before it is a change (event P), and
//! the answer S is then a change again (event S); an answer that arrives with nothing in
//! between repeats what is held and raises nothing.

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use dlmp_core::owner::command_owner;
use dlmp_core::session::{Connection, PlayerConnected, RateLimit, Received, TokenBucket};
use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_player::Life;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::world::waypoint::{MapPoint, SetWaypoint, WAYPOINT_MAX};

/// `player_waypoint` per connection: 5 at once, 2 a second (world.md PlayerWaypoint).
pub const WAYPOINT_EVENTS: RateLimit = RateLimit::per_second(5, 2);
/// A reported point within this many meters of the held one is no change.
pub const SAME_POINT_METERS: f32 = 1.0;

/// The player's waypoint as the server holds it, and its event limit.
#[derive(Component, Debug, Clone, Copy)]
pub struct Waypoint {
    /// `None`: no waypoint.
    pub held: Option<MapPoint>,
    events: TokenBucket,
    /// A change past the limit, waiting for a token: the latest one (`Some(None)`: the
    /// player removed it).
    pending: Option<Option<MapPoint>>,
}

impl Waypoint {
    fn new(now: Duration) -> Self {
        Waypoint {
            held: None,
            events: TokenBucket::new(WAYPOINT_EVENTS, now),
            pending: None,
        }
    }
}

/// Whether `new` repeats `held`: "none" again, or a point within 1 m of the held one.
pub fn repeats(held: Option<MapPoint>, new: Option<MapPoint>) -> bool {
    match (held, new) {
        (None, None) => true,
        (Some(a), Some(b)) => (a.x - b.x).hypot(a.y - b.y) <= SAME_POINT_METERS,
        _ => false,
    }
}

/// A change of a player's waypoint the gamemode hears of (`player_waypoint`).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct WaypointChanged {
    pub player: Entity,
    pub point: Option<MapPoint>,
}

/// The gamemode's waypoint for a player: SetWaypoint, held at once without an event.
/// `player:set_waypoint` / `clear_waypoint` write it (ADR 0011).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct WaypointCommand {
    pub player: Entity,
    /// ±3000 each; `None` removes it.
    pub point: Option<MapPoint>,
}

/// PlayerWaypoint reports dropped, by reason (the lane acknowledged them).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WaypointDrops {
    pub not_spawned: u64,
    pub malformed: u64,
    pub repeated: u64,
}

pub(crate) struct WaypointPlugin;

impl Plugin for WaypointPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<WaypointDrops>()
            .add_message::<WaypointChanged>()
            .add_message::<WaypointCommand>()
            .add_systems(FixedUpdate, give_waypoint.in_set(ServerSystems::Validation))
            .add_systems(
                FixedUpdate,
                (release_pending, admit_reports)
                    .chain()
                    .in_set(GameplaySystems::Intake),
            )
            .add_systems(FixedUpdate, apply_commands.in_set(GameplaySystems::Apply));
    }
}

fn give_waypoint(
    mut commands: Commands,
    mut connected: MessageReader<PlayerConnected>,
    time: Res<Time>,
) {
    for c in connected.read() {
        commands
            .entity(c.player)
            .insert(Waypoint::new(time.elapsed()));
    }
}

/// Changes held back by the limit fire, the latest one each, as tokens come back.
fn release_pending(
    mut players: Query<(Entity, &mut Waypoint)>,
    mut changed: MessageWriter<WaypointChanged>,
    time: Res<Time>,
) {
    let now = time.elapsed();
    for (player, mut w) in &mut players {
        if let Some(point) = w.pending
            && w.events.try_take(now)
        {
            w.pending = None;
            changed.write(WaypointChanged { player, point });
        }
    }
}

/// Admits PlayerWaypoint reports in lane order: dropped when the player has not spawned,
/// when malformed, or when it repeats what is held; otherwise held at once, and raised now
/// or when the limit allows.
fn admit_reports(
    mut received: MessageReader<Received>,
    mut players: Query<(&mut Waypoint, &Life)>,
    mut changed: MessageWriter<WaypointChanged>,
    mut drops: ResMut<WaypointDrops>,
    time: Res<Time>,
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::PlayerWaypoint(report) = packet else {
            continue;
        };
        let Ok((mut w, life)) = players.get_mut(*player) else {
            continue;
        };
        if !life.spawned {
            drops.not_spawned += 1;
            continue;
        }
        let point = match report.waypoint() {
            Ok(point) => point,
            Err(e) => {
                debug!(?player, ?e, "PlayerWaypoint dropped");
                drops.malformed += 1;
                continue;
            }
        };
        if repeats(w.held, point) {
            drops.repeated += 1;
            continue;
        }
        w.held = point;
        if w.pending.is_none() && w.events.try_take(now) {
            changed.write(WaypointChanged {
                player: *player,
                point,
            });
        } else {
            w.pending = Some(point);
        }
    }
}

/// Sends SetWaypoint (a normal event) and holds the point once the lane took it; a
/// player change still waiting for the limit is dropped.
fn apply_commands(
    mut commands: MessageReader<WaypointCommand>,
    mut players: Query<(&mut Waypoint, &mut Connection)>,
) {
    for &WaypointCommand { player, point } in commands.read() {
        if point.is_some_and(|p| !(p.x.abs() <= WAYPOINT_MAX && p.y.abs() <= WAYPOINT_MAX)) {
            debug!(?player, "SetWaypoint outside ±3000 refused");
            continue;
        }
        let Ok((mut w, mut conn)) = players.get_mut(player) else {
            continue;
        };
        let (x, y) = point.map_or((0.0, 0.0), |p| (p.x, p.y));
        let packet = SetWaypoint {
            event_id: EventId(0),
            active: point.is_some(),
            x,
            y,
        };
        if command_owner(&mut conn, packet).is_ok() {
            w.held = point;
            // The player's own change still waiting for the limit is older than the
            // gamemode's point: raising it later would report a stale waypoint.
            w.pending = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f32, y: f32) -> Option<MapPoint> {
        Some(MapPoint { x, y })
    }

    #[test]
    fn within_one_meter_or_none_again_repeats_the_held_waypoint() {
        assert!(repeats(None, None));
        assert!(repeats(p(10.0, 10.0), p(10.5, 10.5)));
        assert!(repeats(p(10.0, 10.0), p(11.0, 10.0)));
        assert!(!repeats(p(10.0, 10.0), p(10.8, 10.8)));
        assert!(!repeats(None, p(0.0, 0.0)));
        assert!(!repeats(p(0.0, 0.0), None));
    }
}
