//! What a Label3D or Blip is attached to (world.md Label3D, Blip; lua-api.md `attach =
//! player or vehicle`), and the parent as a streaming pass sees it. Decisions: ADR 0045.
//!
//! A vehicle parent is named by its id (a script may attach to a vehicle it created in the
//! same call, before the vehicle's entity exists); [`Parents::get`] finds it through
//! [`Vehicles`]. A vehicle's audience is its shown set in the vehicle stream, which runs
//! before the world kinds' passes.

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use crate::player::{Life, Position, Scope, Viewers};
use crate::protocol::geometry::Vec3;
use crate::protocol::ids::{PlayerId, VehicleId};
use crate::protocol::world::shared::AttachKind;
use crate::session::Player;
use crate::streaming::shown::ShownSets;
use crate::vehicle::{Pose, Vehicle, VehicleScope, VehicleStream, Vehicles};

/// The entity a label or blip is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attach {
    Player(Entity),
    Vehicle(VehicleId),
}

impl Attach {
    /// The kind and `attach_id` on the wire, when they do not depend on the parent's
    /// state: a vehicle's id is its own. A player's id is read from the player.
    pub fn vehicle_wire(self) -> Option<(AttachKind, u32)> {
        match self {
            Attach::Vehicle(id) => Some((AttachKind::Vehicle, id.0)),
            Attach::Player(_) => None,
        }
    }

    /// Whether this names the player entity `e`.
    pub fn is_player(self, e: Entity) -> bool {
        self == Attach::Player(e)
    }
}

/// Who a parent is shown to now.
#[derive(Debug, Clone, Copy)]
pub enum ParentViewers<'a> {
    /// Player streaming's truth (ADR 0008).
    Player(&'a Viewers),
    /// The vehicle stream's shown set of vehicle `key`.
    Vehicle { shown: &'a ShownSets, key: u32 },
}

impl ParentViewers<'_> {
    pub fn contains(&self, recipient: PlayerId) -> bool {
        match self {
            ParentViewers::Player(v) => v.contains(recipient),
            ParentViewers::Vehicle { shown, key } => shown.contains(recipient, *key),
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
    pub viewers: ParentViewers<'a>,
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
    vehicles: Query<'w, 's, (&'static Vehicle, &'static Pose, &'static VehicleScope)>,
    registry: Option<Res<'w, Vehicles>>,
    stream: Option<Res<'w, VehicleStream>>,
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
                    viewers: ParentViewers::Player(viewers),
                })
            }
            Attach::Vehicle(id) => {
                let entity = self.registry.as_ref()?.entity(id)?;
                let (vehicle, pose, scope) = self.vehicles.get(entity).ok()?;
                Some(Parent {
                    kind: AttachKind::Vehicle,
                    wire_id: vehicle.id.0,
                    player: None,
                    position: pose.position,
                    scope: scope.0,
                    spawned: true,
                    viewers: ParentViewers::Vehicle {
                        shown: self.stream.as_ref()?.shown(),
                        key: vehicle.id.0,
                    },
                })
            }
        }
    }

    /// Whether `attach` names a vehicle that no longer exists: a label or blip on it goes
    /// with it, as with a player who leaves (world.md Label3D: "Deleting the attached entity
    /// ... deletes the label").
    pub fn vehicle_gone(&self, attach: Option<Attach>) -> bool {
        match attach {
            Some(Attach::Vehicle(id)) => self
                .registry
                .as_ref()
                .is_none_or(|r| r.entity(id).is_none()),
            _ => false,
        }
    }
}
