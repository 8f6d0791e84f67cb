//! What a Label3D or Blip is attached to (world.md Label3D, Blip; lua-api.md `attach =
//! player or vehicle`), and the parent as a streaming pass sees it. Decisions: ADR 0045.
//!
//! Vehicles do not exist yet: [`Attach::Vehicle`] is the seam. The vehicle feature answers
//! for it in [`Parents::get`] (the vehicle's position, scope and `Viewers`); until then a
//! primitive attached to a vehicle is shown to nobody, and the Lua API refuses vehicles.

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use crate::player::{Life, Position, Scope, Viewers};
use crate::protocol::geometry::Vec3;
use crate::protocol::ids::PlayerId;
use crate::protocol::world::shared::AttachKind;
use crate::session::Player;

/// The entity a label or blip is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attach {
    Player(Entity),
    /// A vehicle entity and its `vehicle_id` on the wire (the seam for the vehicle feature).
    Vehicle {
        entity: Entity,
        id: u32,
    },
}

impl Attach {
    pub fn entity(self) -> Entity {
        match self {
            Attach::Player(e) | Attach::Vehicle { entity: e, .. } => e,
        }
    }
}

/// A parent as this pass sees it.
#[derive(Debug, Clone, Copy)]
pub struct Parent<'a> {
    pub kind: AttachKind,
    /// `attach_id` on the wire: the player id or vehicle id.
    pub wire_id: u32,
    /// The player it is, never shown its own attachments.
    pub player: Option<PlayerId>,
    pub position: Vec3,
    pub scope: Scope,
    /// Has spawned (a player); a vehicle always has.
    pub spawned: bool,
    /// Who it is shown to now (player streaming's truth, ADR 0008).
    pub viewers: &'a Viewers,
}

/// The parents a pass may read.
#[derive(SystemParam)]
pub struct Parents<'w, 's> {
    players: Query<
        'w,
        's,
        (
            &'static Player,
            &'static Position,
            &'static Scope,
            &'static Life,
            &'static Viewers,
        ),
    >,
}

impl Parents<'_, '_> {
    /// The parent `attach` names, if it exists now.
    pub fn get(&self, attach: Attach) -> Option<Parent<'_>> {
        match attach {
            Attach::Player(e) => {
                let (player, position, scope, life, viewers) = self.players.get(e).ok()?;
                Some(Parent {
                    kind: AttachKind::Player,
                    wire_id: player.id.0,
                    player: Some(player.id),
                    position: position.0,
                    scope: *scope,
                    spawned: life.spawned,
                    viewers,
                })
            }
            // The vehicle feature (branch `veh`) answers here.
            Attach::Vehicle { .. } => None,
        }
    }
}
