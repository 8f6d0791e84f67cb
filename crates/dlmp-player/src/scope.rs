//! The gamemode's scope setters (`player:set_virtual_world`, `player:set_interior`): they
//! move the player's world scope with [`Scope::change`] (ScopeChanged, critical), and
//! streaming reconciles the new scope in the same tick (player.md, "Player streaming",
//! ScopeChanged). Neither moves the body on the client: the area the client is in changes
//! only with TeleportPlayer. The interior setter raises `player_interior_change` through
//! the state pass, as every interior change does. Decisions:
//! docs/decisions/0015-teleport-and-physics.md.

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::teleport::{MoveSystems, teleport};
use dlmp_core::position::Scope;
use dlmp_core::session::Connection;

/// Moves a player's scope (applied after this tick's teleports); a `None` part stays. Any connected player, spawned or not (a
/// gamemode sets the world before the spawn).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetScope {
    pub player: Entity,
    pub virtual_world: Option<u32>,
    pub interior: Option<u8>,
}

pub(crate) struct ScopePlugin;

impl Plugin for ScopePlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<SetScope>().add_systems(
            FixedUpdate,
            set_scopes.in_set(MoveSystems::Apply).after(teleport),
        );
    }
}

fn set_scopes(
    mut sets: MessageReader<SetScope>,
    mut players: Query<(&mut Scope, &mut Connection)>,
) {
    for s in sets.read() {
        let Ok((mut scope, mut conn)) = players.get_mut(s.player) else {
            continue;
        };
        let new = Scope {
            virtual_world: s.virtual_world.unwrap_or(scope.virtual_world),
            interior: s.interior.unwrap_or(scope.interior),
        };
        scope.change(new, &mut conn);
    }
}
