//! Create, move, destroy and collect (world.md PickupSync), the respawn after a
//! collection, and the end of a stopped resource's pickups. What a client sees follows
//! from the pickup's state in the next reconcile ([`super::stream`]): a destroyed, collected
//! or stopped pickup is hidden exactly like one that left the draw distance. Only a move
//! is sent here: a show with a new rev to everyone it is shown to, as critical.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::stream::{PickupStream, show_packet};
use super::{Owner, Pickup, PickupSpec, Pickups};
use dlmp_core::session::{Connection, PlayerIndex};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::world::pickup::PickupId;
use dlmp_script::{Owned, ResourceStopped};

use crate::check::{WorldError, WorldRefusals};

/// A change of the pickup set, from a script or a Rust plugin (ids from
/// [`Pickups::reserve`]). Applied in [`GameplaySystems::Apply`], in order.
///
/// [`GameplaySystems::Apply`]: dlmp_core::tick::GameplaySystems::Apply
#[derive(Message, Debug, Clone, PartialEq)]
pub enum PickupCommand {
    /// A new pickup; its creator checked the spec (model, |x|, |y| ≤ 4095, z, scale).
    Create {
        id: PickupId,
        spec: PickupSpec,
        owner: Owner,
    },
    /// A move: a show with a new rev, critical, to everyone it is shown to.
    Move {
        id: PickupId,
        position: Vec3,
    },
    Destroy {
        id: PickupId,
    },
    /// Consumed: inactive (hidden) now, active again after its respawn time, if any.
    Collect {
        id: PickupId,
    },
}

impl PickupCommand {
    /// Whether the command may be applied: a created pickup's spec, a move's point (world.md
    /// PickupSync). Write it with `command.checked()?` (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        match self {
            PickupCommand::Create { spec, .. } => spec.check(),
            PickupCommand::Move { position, .. } => super::check_position(*position),
            PickupCommand::Destroy { .. } | PickupCommand::Collect { .. } => Ok(()),
        }
    }

    /// The command, or why it may not be applied.
    pub fn checked(self) -> Result<Self, WorldError> {
        self.check().map(|()| self)
    }
}

/// Applies the tick's [`PickupCommand`]s; one its writer did not check is refused and
/// counted ([`WorldRefusals`]).
pub(super) fn apply(
    mut commands: Commands,
    time: Res<Time>,
    mut read: MessageReader<PickupCommand>,
    mut registry: ResMut<Pickups>,
    mut pickups: Query<&mut Pickup>,
    mut stream: ResMut<PickupStream>,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
    mut refusals: ResMut<WorldRefusals>,
) {
    for command in read.read() {
        if let Err(e) = command.check() {
            refusals.refuse("pickup", command, &e);
            continue;
        }
        registry.changed = true;
        match *command {
            PickupCommand::Create { id, spec, owner } => {
                if registry.by_id.contains_key(&id) {
                    debug!(
                        id = id.0,
                        "a pickup id created twice; the second is ignored"
                    );
                    continue;
                }
                let mut entity = commands.spawn(Pickup::new(id, spec));
                if let Some(owner) = owner {
                    entity.insert(Owned(owner));
                }
                registry.by_id.insert(id, entity.id());
            }
            PickupCommand::Move { id, position } => {
                let Some(mut p) = registry.entity(id).and_then(|e| pickups.get_mut(e).ok()) else {
                    continue;
                };
                p.spec.position = position;
                p.rev = p.rev.next();
                let packet = ServerPacket::from(show_packet(&p));
                stream
                    .shown_mut()
                    .tell_change(id.0, &packet, &index, &mut connections);
            }
            PickupCommand::Destroy { id } => {
                if let Some(entity) = registry.by_id.remove(&id) {
                    commands.entity(entity).despawn();
                }
            }
            PickupCommand::Collect { id } => {
                let Some(mut p) = registry.entity(id).and_then(|e| pickups.get_mut(e).ok()) else {
                    continue;
                };
                if !p.active {
                    continue;
                }
                p.active = false;
                // Due at the earliest in the next tick, even for a respawn shorter than a
                // tick: this tick's reconcile hides it from everyone first (world.md
                // PickupSync, "turns inactive (waiting for its respawn)").
                p.respawn_at = p
                    .spec
                    .respawn
                    .map(|d| time.elapsed() + d.max(Duration::from_nanos(1)));
                p.latched.clear();
            }
        }
    }
    // Moves that waited for a viewer's ack go as the pickup is now (ADR 0092).
    stream
        .shown_mut()
        .flush_changes(&index, &mut connections, |key| {
            let p = pickups.get(registry.entity(PickupId(key))?).ok()?;
            p.active.then(|| show_packet(p).into())
        });
}

/// A collected pickup with a respawn time becomes active again once it is due.
pub(super) fn respawn(
    time: Res<Time>,
    mut registry: ResMut<Pickups>,
    mut pickups: Query<&mut Pickup>,
) {
    let now = time.elapsed();
    for mut p in &mut pickups {
        if !p.active && p.respawn_at.is_some_and(|at| at <= now) {
            p.active = true;
            p.respawn_at = None;
            registry.changed = true;
        }
    }
}

/// A stopped resource's pickups were despawned (`despawn_owned`); their ids go too.
pub(super) fn forget_stopped(
    mut stopped: MessageReader<ResourceStopped>,
    mut registry: ResMut<Pickups>,
    pickups: Query<(), With<Pickup>>,
) {
    if stopped.read().count() == 0 {
        return;
    }
    registry.by_id.retain(|_, e| pickups.contains(*e));
    registry.changed = true;
}
