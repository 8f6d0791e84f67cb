//! What a Label3D or Blip is attached to (world.md Label3D, Blip; lua-api.md `attach =
//! player or vehicle`), and the parent as a streaming pass sees it. Decisions: ADR 0045.
//!
//! A vehicle parent is named by its id (a script may attach to a vehicle it created in the
//! same call, before the vehicle's entity exists); [`Parents::get`] finds it through
//! [`Vehicles`]. A vehicle's audience is its shown set in the vehicle stream, which runs
//! before the world kinds' passes.

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::Player;
use dlmp_core::streaming::engine::{Item, layer};
use dlmp_core::streaming::players::Distances;
use dlmp_core::streaming::shown::ShownSets;
use dlmp_core::vehicle::{Pose, Vehicles};
use dlmp_core::viewers::Viewers;
use dlmp_player::Life;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerId, VehicleId};
use dlmp_protocol::world::shared::AttachKind;
use dlmp_vehicle::{Vehicle, VehicleScope, VehicleStream};

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

/// What a label's or blip's pass reads of a recipient.
pub type Recipient = (
    Entity,
    &'static Player,
    &'static Position,
    Ref<'static, Scope>,
    Ref<'static, Life>,
    &'static StreamCenter,
);

/// A label or blip as its stream's rebuild reads it (world.md Label3D, Blip).
#[derive(Debug, Clone, Copy)]
pub struct Marker {
    pub key: u32,
    pub scope: Scope,
    pub position: Vec3,
    /// Its own show distance and hysteresis ([`Item::distances`]).
    pub distances: Option<Distances>,
    /// Its single viewer's entity.
    pub viewer: Option<Entity>,
    pub attach: Option<Attach>,
}

impl Parents<'_, '_> {
    /// The engine item of `marker` this pass, or `None` while it is not shown to anyone:
    /// its single viewer is not among `players` (gone), or it is attached and `carry`
    /// takes no parent for it. An attached marker is in its parent's scope, never shown
    /// to the player it is on (ADR 0045); `carry` answers where it stands and its
    /// [`Item::parent`] index in the kind's audience, or refuses the parent (the kind's
    /// own rule, such as a blip's unspawned player).
    pub fn marker_item<'a>(
        &'a self,
        marker: &Marker,
        players: &Query<Recipient>,
        carry: impl FnOnce(Parent<'a>) -> Option<(Vec3, u32)>,
    ) -> Option<Item> {
        let viewer = match marker.viewer {
            None => None,
            Some(e) => Some(players.get(e).ok()?.1.id),
        };
        let mut item = Item {
            viewer,
            distances: marker.distances,
            ..Item::at(marker.key, layer(&marker.scope), marker.position)
        };
        if let Some(attach) = marker.attach {
            let parent = self.get(attach)?;
            let (scope, player) = (parent.scope, parent.player);
            let (position, slot) = carry(parent)?;
            item.position = position;
            item.layer = layer(&scope);
            item.not_to = player;
            item.parent = Some(slot);
        }
        Some(item)
    }
}
