//! TeleportPlayer (player.md, TeleportPlayer; "Player streaming"): the gamemode moves a
//! player's own body to a point and its interior scope to the point's area. The server
//! takes the point as its position at once, starts the movement check there, moves a
//! frozen player's hold point and, on an area change, sends ScopeChanged after the
//! teleport; streaming reconciles the new scope in the same tick.
//!
//! Ground mode: the point's z is a guess until the landing, a frame within
//! [`LANDING_RADIUS`] horizontally of the point with on_ground = 1, or until
//! [`LANDING_WAIT`] after the packet's ClientAck. Meanwhile the movement check holds only
//! the horizontal distance. Decisions: docs/decisions/0015-teleport-and-physics.md.

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::frame::FrameState;
use super::{Body, LastFrame, Life, Refusal, SpawnSystems};
use dlmp_core::owner::command_owner;
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::Connection;
use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::player::control::TeleportPlayer;
use dlmp_protocol::player::sync::Frame;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::world::shared::in_world;

/// A landing frame lies at most this far from the point horizontally, m.
pub const LANDING_RADIUS: f32 = 25.0;
/// The server waits for the landing this long after the packet's ClientAck.
pub const LANDING_WAIT: Duration = Duration::from_secs(30);

/// Teleports a player (`player:set_position`, `player:teleport`). Only a spawned living
/// player is teleported; a non-finite position or heading or a point outside the world
/// is refused.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct Teleport {
    pub player: Entity,
    /// The landing point; with `ground`, z is a guess.
    pub pos: Vec3,
    /// Degrees; `None` keeps the heading of the player's last frame.
    pub heading: Option<f32>,
    /// The destination's interior (area); `None` keeps the current one.
    pub interior: Option<u8>,
    /// The client puts the player on the ground under x, y.
    pub ground: bool,
}

/// Why a teleport was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeleportRefusal {
    /// Not spawned, dead, or the lane refuses normal events ("queue full").
    Common(Refusal),
    /// A non-finite position or heading.
    NotFinite,
    /// Outside |x|, |y| <= 6000, z in -200..=4000: every frame there would be dropped.
    OutsideWorld,
}

impl Teleport {
    /// The checks that need no world: finite numbers, a point in the world.
    pub fn check(&self) -> Result<(), TeleportRefusal> {
        let finite = [self.pos.x, self.pos.y, self.pos.z]
            .iter()
            .chain(self.heading.as_ref())
            .all(|v| v.is_finite());
        if !finite {
            return Err(TeleportRefusal::NotFinite);
        }
        in_world("pos", &self.pos).map_err(|_| TeleportRefusal::OutsideWorld)
    }
}

/// Teleports refused before [`teleport`] ran, by player and point: the objects at the
/// landing point did not fit in the lane before TeleportPlayer (world.md ObjectState: "if
/// there is no room for the floor, the teleport is refused and changes nothing"). Filled
/// by the floor's feature in [`MoveSystems::Apply`] before the teleports; emptied by them.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct LandingRefusals(pub Vec<(Entity, Vec3)>);

/// A ground-mode teleport waiting for its landing (kept in [`FrameState::landing`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Landing {
    pub point: Vec3,
    /// The TeleportPlayer event; the wait runs from its ClientAck.
    pub event: EventId,
    /// When its ClientAck was seen.
    pub acked: Option<Duration>,
}

impl Landing {
    /// Whether `frame` (after world bounds and the freeze) is the landing.
    pub fn lands(&self, frame: &Frame) -> bool {
        let (dx, dy) = (frame.pos.x - self.point.x, frame.pos.y - self.point.y);
        frame.on_ground && dx.hypot(dy) <= LANDING_RADIUS
    }
}

/// Ends a ground-mode wait: the frames' z is held again by the movement check.
pub fn end_landing(state: &mut FrameState) {
    state.landing = None;
    state.movement.z_guess = false;
}

/// The landing frame `frame` was taken at `taken`: the wait ends, and a frozen player is
/// held from the landing height (it was teleported there).
pub(crate) fn observe_landing(state: &mut FrameState, frame: &Frame, taken: Vec3) {
    if state.landing.is_some_and(|l| l.lands(frame)) {
        end_landing(state);
        if let Some(anchor) = &mut state.frozen {
            anchor.z = taken.z;
        }
    }
}

/// Where player moves (teleports, scope setters) are applied, inside
/// [`GameplaySystems::Apply`] after the spawn grants.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveSystems {
    /// Seam for vehicles (not written yet): "a seated player changing interior is first
    /// taken out of the vehicle" and "VehicleOccupancy exit precedes TeleportPlayer"
    /// (player.md, "Player streaming"). The vehicles feature adds a system here that reads
    /// [`Teleport`] and [`SetScope`](super::scope::SetScope) and frees the seat; until then
    /// every player is on foot.
    Unseat,
    /// Teleports, then scope setters.
    Apply,
}

/// Adds [`Teleport`], the [`MoveSystems`] order and the ground-mode landing wait.
pub(crate) struct TeleportPlugin;

impl Plugin for TeleportPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<Teleport>()
            .init_resource::<LandingRefusals>()
            .configure_sets(
                FixedUpdate,
                (MoveSystems::Unseat, MoveSystems::Apply)
                    .chain()
                    .in_set(GameplaySystems::Apply)
                    .after(SpawnSystems::Grant),
            )
            .add_systems(FixedUpdate, teleport.in_set(MoveSystems::Apply))
            .add_systems(
                FixedUpdate,
                watch_landing_acks.in_set(ServerSystems::Validation),
            );
    }
}

/// What a teleport writes.
type Teleporting = (
    &'static Life,
    &'static LastFrame,
    &'static mut Position,
    &'static mut Scope,
    &'static mut Body,
    &'static mut FrameState,
    &'static mut Connection,
);

/// Applies each [`Teleport`] to a spawned living player with room on its lane: TeleportPlayer
/// first, then the server's position, the movement check's restart, the freeze anchor, the
/// landing wait and, last on the lane, ScopeChanged (player.md, TeleportPlayer).
pub fn teleport(
    time: Res<Time>,
    mut moves: MessageReader<Teleport>,
    mut players: Query<Teleporting>,
    mut refusals: ResMut<LandingRefusals>,
) {
    let now = time.elapsed();
    let refused_floor = std::mem::take(&mut refusals.0);
    for t in moves.read() {
        if refused_floor.contains(&(t.player, t.pos)) {
            debug!(player = ?t.player, "teleport refused: no room for the floor");
            continue;
        }
        let Ok((life, last, mut position, mut scope, mut body, mut state, mut conn)) =
            players.get_mut(t.player)
        else {
            continue;
        };
        let refused = Refusal::living(*life)
            .and_then(|()| Refusal::room(&conn, 1))
            .map_err(TeleportRefusal::Common)
            .and_then(|()| t.check());
        if let Err(reason) = refused {
            debug!(player = ?t.player, ?reason, "teleport refused");
            continue;
        }
        let interior = t.interior.unwrap_or(scope.interior);
        let packet = TeleportPlayer {
            event_id: EventId(0),
            pos: t.pos,
            heading: t
                .heading
                .unwrap_or_else(|| last.frame.map_or(0.0, |f| f.yaw)),
            area: i32::from(interior),
            ground: t.ground,
        };
        let Ok(event) = command_owner(&mut conn, packet) else {
            continue;
        };
        // The packet carries the gamemode's point: the client returns the body to the
        // edge itself. The server holds the player inside its bounds before every other
        // reader (player.md, SetWorldBounds), so it takes the point at the edge.
        let at = state.bounds.map_or(t.pos, |b| b.clamp(t.pos));
        position.0 = at;
        body.velocity = Vec3::ZERO;
        let state = &mut *state;
        // The teleport stops the body: throws not echoed yet are discarded.
        state.movement.restart(at, now);
        if let Some(anchor) = &mut state.frozen {
            *anchor = at;
        }
        if t.ground {
            state.landing = Some(Landing {
                point: at,
                event,
                acked: None,
            });
            state.movement.z_guess = true;
        } else {
            end_landing(state);
        }
        // After the TeleportPlayer on the lane.
        let new = Scope { interior, ..*scope };
        scope.change(new, &mut conn);
    }
}

/// Notes the ClientAck of a waiting teleport and ends the wait [`LANDING_WAIT`] after it.
/// Acks are applied in [`ServerSystems::Ingest`], so the time seen here is the tick's.
fn watch_landing_acks(time: Res<Time>, mut players: Query<(&Connection, &mut FrameState)>) {
    let now = time.elapsed();
    for (conn, mut state) in &mut players {
        let Some(mut landing) = state.landing else {
            continue;
        };
        if landing.acked.is_none() && !landing.event.is_newer_than(conn.last_acked()) {
            landing.acked = Some(now);
            state.landing = Some(landing);
        }
        if landing.acked.is_some_and(|a| now >= a + LANDING_WAIT) {
            end_landing(&mut state);
        }
    }
}

/// The lane places a landing needs besides its floor: TeleportPlayer, and ScopeChanged
/// (critical, after it) when the interior changes.
pub fn landing_places(interior_changes: bool) -> usize {
    1 + usize::from(interior_changes)
}
