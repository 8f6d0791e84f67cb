//! SetVelocity and SetGravity (player.md): a throw and the body gravity of the player's own
//! body. Both go through the movement check's queue ([`Movement::send`]): at most 32 await
//! their echo, and what they allow (the throw's path, the gravity of the check and of the
//! relay) counts from the echo or the ClientAck rules. This module sends the packets, tells
//! the queue which lane event carries each command and when the client acked it, applies
//! the commands that count as applied without an echo, and discards throws on a respawn
//! grant. Decisions: docs/decisions/0015-teleport-and-physics.md.
//!
//! [`Movement::send`]: super::frame::movement::Movement::send

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::frame::FrameState;
use super::frame::movement::{PhysicsCommand, QueueFull};
use super::frame::rules::STEPS_PER_SECOND;
use super::teleport::{MoveSystems, end_landing};
use super::{Body, DeathEpoch, Life, Refusal, RespawnGranted, SpawnState, SpawnSystems};
use dlmp_core::owner::command_owner;
use dlmp_core::position::Position;
use dlmp_core::session::Connection;
use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, Revision};
use dlmp_protocol::player::physics::{MAX_GRAVITY, MAX_THROW, SetGravity, SetVelocity};

/// Throws a player (`player:set_velocity`): `vel` in units per step (m/s / 50), at most
/// [`MAX_THROW`] long. Only a living spawned player on foot whose new life is confirmed.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct ThrowPlayer {
    pub player: Entity,
    pub vel: Vec3,
}

/// Sets a player's body gravity (`player:set_gravity`), units per step², within
/// ±[`MAX_GRAVITY`]. Any connected player; it survives death and respawn.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct SetBodyGravity {
    pub player: Entity,
    pub gravity: f32,
}

/// Why a physics command was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhysicsRefusal {
    /// Not spawned, dead, or the new life not confirmed yet (SetVelocity only); 32
    /// commands await their echo, or the lane refuses normal events ("queue full").
    Common(Refusal),
    /// Non-finite or beyond the packet's bound.
    OutOfRange,
    /// Seated in a vehicle (SetVelocity goes only to a player on foot).
    Seated,
}

impl From<Refusal> for PhysicsRefusal {
    fn from(common: Refusal) -> Self {
        PhysicsRefusal::Common(common)
    }
}

impl From<QueueFull> for PhysicsRefusal {
    fn from(full: QueueFull) -> Self {
        PhysicsRefusal::Common(full.into())
    }
}

/// Whether `vel` (units per step) is a throw the packet carries.
pub fn valid_throw(vel: Vec3) -> bool {
    [vel.x, vel.y, vel.z].iter().all(|v| v.is_finite()) && vel.length() <= MAX_THROW
}

/// Whether `g` is a gravity the packet carries.
pub fn valid_gravity(g: f32) -> bool {
    g.is_finite() && g.abs() <= MAX_GRAVITY
}

/// Adds [`ThrowPlayer`] and [`SetBodyGravity`], their ClientAck watch and the respawn
/// grant's discard of pending throws (ADR 0015).
pub(crate) struct PhysicsPlugin;

impl Plugin for PhysicsPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<ThrowPlayer>()
            .add_message::<SetBodyGravity>()
            .add_systems(
                FixedUpdate,
                watch_physics_acks.in_set(ServerSystems::Validation),
            )
            .add_systems(
                FixedUpdate,
                discard_throws_on_respawn
                    .in_set(GameplaySystems::Apply)
                    .after(SpawnSystems::Grant)
                    .before(MoveSystems::Apply),
            )
            .add_systems(
                FixedUpdate,
                (throw_players, set_gravities)
                    .chain()
                    .in_set(GameplaySystems::Apply)
                    .after(MoveSystems::Apply),
            );
    }
}

/// Sends one physics command: the queue takes it first (its revision goes on the wire),
/// then the lane, with room checked in advance so the two never disagree.
fn send(
    state: &mut FrameState,
    conn: &mut Connection,
    command: PhysicsCommand,
    now: std::time::Duration,
    packet: impl FnOnce(Revision) -> ServerPacket,
) -> Result<(), PhysicsRefusal> {
    Refusal::room(conn, 1)?;
    let rev = state.movement.send(command, now)?;
    // Room was checked and the packet validated by the caller: a refusal is not reached.
    if let Ok(event) = command_owner(conn, packet(rev)) {
        state.movement.sent_as(rev, event);
    }
    Ok(())
}

type Throwing = (
    &'static Life,
    &'static SpawnState,
    &'static DeathEpoch,
    &'static mut FrameState,
    &'static mut Connection,
);

fn throw_players(
    time: Res<Time>,
    mut throws: MessageReader<ThrowPlayer>,
    mut players: Query<Throwing>,
    seated: Query<(), With<dlmp_core::vehicle::Seated>>,
) {
    let now = time.elapsed();
    for t in throws.read() {
        let Ok((life, spawn, epoch, mut state, mut conn)) = players.get_mut(t.player) else {
            continue;
        };
        let result = if let Err(refusal) = Refusal::confirmed(*life, spawn.life_confirmed) {
            Err(PhysicsRefusal::Common(refusal))
        } else if seated.contains(t.player) {
            Err(PhysicsRefusal::Seated)
        } else if !valid_throw(t.vel) {
            Err(PhysicsRefusal::OutOfRange)
        } else {
            let speed = t.vel.length() * STEPS_PER_SECOND;
            send(
                &mut state,
                &mut conn,
                PhysicsCommand::Throw { speed },
                now,
                |rev| {
                    SetVelocity {
                        event_id: EventId(0),
                        vel: t.vel,
                        life: epoch.0,
                        rev,
                    }
                    .into()
                },
            )
        };
        if let Err(reason) = result {
            debug!(player = ?t.player, ?reason, "SetVelocity refused");
        }
    }
}

fn set_gravities(
    time: Res<Time>,
    mut sets: MessageReader<SetBodyGravity>,
    mut players: Query<(&mut FrameState, &mut Connection)>,
) {
    let now = time.elapsed();
    for s in sets.read() {
        let Ok((mut state, mut conn)) = players.get_mut(s.player) else {
            continue;
        };
        let result = if valid_gravity(s.gravity) {
            send(
                &mut state,
                &mut conn,
                PhysicsCommand::Gravity(s.gravity),
                now,
                |rev| {
                    SetGravity {
                        event_id: EventId(0),
                        gravity: s.gravity,
                        rev,
                    }
                    .into()
                },
            )
        } else {
            Err(PhysicsRefusal::OutOfRange)
        };
        if let Err(reason) = result {
            debug!(player = ?s.player, ?reason, "SetGravity refused");
        }
    }
}

/// Tells each queue the lane's ClientAcks (applied in [`ServerSystems::Ingest`], so the
/// time is the tick's) and applies the commands that count as applied without an echo,
/// frames or not: their gravity reaches the relay.
fn watch_physics_acks(
    time: Res<Time>,
    mut players: Query<(&Connection, &mut FrameState, &mut Body)>,
) {
    let now = time.elapsed();
    for (conn, mut state, mut body) in &mut players {
        if state.movement.pending() == 0 {
            continue;
        }
        state.movement.lane_acked(conn.last_acked(), now);
        if state.movement.expire(now) && body.gravity != state.movement.gravity {
            body.gravity = state.movement.gravity;
        }
    }
}

/// A new respawn grant: throws awaiting their echo are discarded (a late throw must not
/// count in the new life; the client drops it by its life field) and the movement check
/// starts at the spawn point; a ground-mode wait ends. Gravity carries on.
fn discard_throws_on_respawn(
    time: Res<Time>,
    mut grants: MessageReader<RespawnGranted>,
    mut players: Query<(&Position, &mut FrameState)>,
) {
    let now = time.elapsed();
    for g in grants.read() {
        if let Ok((position, mut state)) = players.get_mut(g.player) {
            state.movement.restart(position.0, now);
            end_landing(&mut state);
        }
    }
}
