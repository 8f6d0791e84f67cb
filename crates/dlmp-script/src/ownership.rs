//! Cleanup ownership (lua-api.md, "Resources"): a resource owns what it creates, and
//! stopping it removes all of it. Entities carry [`Owned`]; a stop raises
//! [`ResourceStopped`], after which every owned entity is despawned in one pass. Features
//! that must tell clients (hides of vehicles, pickups, labels, ...) read the same message
//! first and send their removals batched per recipient.

use bevy_ecs::prelude::*;

use super::state::ResourceId;

/// The resource that created this entity.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owned(pub ResourceId);

/// A resource stopped; what it owned goes this tick.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceStopped(pub ResourceId);

/// Where a feature lets go of what a stopped resource owned, before it is despawned, in
/// [`ScriptSystems::Finish`](crate::ScriptSystems::Finish) (the tick's [`ResourceStopped`]
/// are readable): a vehicle puts its occupants out the way `destroy_vehicle` does.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReleaseOwned;

/// Despawns every entity owned by a resource stopped this tick.
pub(crate) fn despawn_owned(
    mut commands: Commands,
    mut stopped: MessageReader<ResourceStopped>,
    owned: Query<(Entity, &Owned)>,
) {
    let gone: Vec<ResourceId> = stopped.read().map(|s| s.0).collect();
    if gone.is_empty() {
        return;
    }
    for (entity, owner) in &owned {
        if gone.contains(&owner.0) {
            commands.entity(entity).despawn();
        }
    }
}
