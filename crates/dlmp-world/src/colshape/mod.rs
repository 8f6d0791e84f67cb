//! Colshapes (world.md ColshapeShape; lua-api.md `dlmp.create_colshape`): server-side
//! spheres, cylinders and axis-aligned boxes in a scope, and `colshape_enter` /
//! `colshape_leave` for players from their accepted positions. Decisions: ADR 0030.
//!
//! Who a resource showed the outline to is kept ([`Colshape::shown_to`]); [`outline`]
//! streams the outline (ColshapeShape) to them on the one engine, the 256 nearest by the
//! form's center (ADR 0045).

pub mod outline;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use dlmp_core::position::Scope;
use dlmp_core::session::{Connection, PlayerDisconnected, PlayerIndex};
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_player::{Life, ReportedPosition, SpawnState};

use crate::checkpoint::living_at;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::world::markers::{ColshapeId, ColshapeShape, Shape};
use dlmp_protocol::world::shared::EntityRev;
use dlmp_script::{Owned, ResourceId};

use crate::check::{self, WorldError, WorldRefusals};
use dlmp_protocol::ids::EventId;

pub use outline::OutlineStream;

/// Whether `p` is inside `shape`: within the sphere's radius, within the cylinder's radius
/// and between its base and top, within the box on every axis (borders inside).
pub fn contains(shape: &Shape, p: Vec3) -> bool {
    match *shape {
        Shape::Sphere { center, radius } => {
            let (dx, dy, dz) = (p.x - center.x, p.y - center.y, p.z - center.z);
            dx * dx + dy * dy + dz * dz <= radius * radius
        }
        Shape::Cylinder {
            base,
            radius,
            height,
        } => {
            let (dx, dy) = (p.x - base.x, p.y - base.y);
            dx * dx + dy * dy <= radius * radius && p.z >= base.z && p.z <= base.z + height
        }
        Shape::Box { min, max } => {
            (min.x..=max.x).contains(&p.x)
                && (min.y..=max.y).contains(&p.y)
                && (min.z..=max.z).contains(&p.z)
        }
    }
}

/// A colshape.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Colshape {
    pub id: ColshapeId,
    pub shape: Shape,
    pub scope: Scope,
    /// The form's revision (ColshapeShape `rev`).
    pub rev: EntityRev,
    /// Players inside, in the order they entered.
    pub inside: Vec<Entity>,
    /// Players a resource showed the outline to (`colshape:show`).
    pub shown_to: Vec<Entity>,
}

/// The gamemode's colshape commands; `dlmp.create_colshape` and the handle's methods
/// write them (ADR 0011).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum ColshapeCommand {
    Create {
        id: ColshapeId,
        shape: Shape,
        scope: Scope,
        owner: Option<ResourceId>,
    },
    /// Removes it, without `colshape_leave`.
    Destroy { id: ColshapeId },
    /// Shows (`true`) or hides the outline to a player.
    Outline {
        id: ColshapeId,
        player: Entity,
        shown: bool,
    },
    /// A new form of the same kind (an edit session's commit, editing.md §2), checked by
    /// its sender with ColshapeShape's rules: one change with a new revision, shown at once
    /// to everyone its outline is shown to, as critical.
    SetShape { id: ColshapeId, shape: Shape },
}

impl ColshapeCommand {
    /// Whether the command may be applied: a created colshape's form (world.md
    /// ColshapeShape: a point within world bounds, extents in (0, 12000], a box's max above
    /// its min). Write it with `command.checked()?` (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        match self {
            ColshapeCommand::Create { id, shape, .. } => {
                check::shows(&ColshapeShape::show(EventId(0), *id, *shape, EntityRev(0)))
            }
            ColshapeCommand::SetShape { id, shape } => {
                check::shows(&ColshapeShape::show(EventId(0), *id, *shape, EntityRev(0)))
            }
            ColshapeCommand::Destroy { .. } | ColshapeCommand::Outline { .. } => Ok(()),
        }
    }

    /// The command, or why it may not be applied.
    pub fn checked(self) -> Result<Self, WorldError> {
        self.check().map(|()| self)
    }
}

/// A player entered or left a colshape.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColshapeCrossed {
    pub player: Entity,
    pub colshape: ColshapeId,
    pub entered: bool,
}

pub(crate) struct ColshapePlugin;

impl Plugin for ColshapePlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<ColshapeCommand>()
            .add_message::<ColshapeCrossed>()
            .init_resource::<OutlineStream>()
            .add_systems(
                FixedUpdate,
                outline::reconcile.in_set(StreamingSystems::Reconcile),
            )
            .add_systems(
                FixedUpdate,
                forget_leavers.in_set(ServerSystems::Validation),
            )
            .add_systems(FixedUpdate, cross.in_set(GameplaySystems::Intake))
            .add_systems(FixedUpdate, apply_commands.in_set(GameplaySystems::Apply));
    }
}

fn apply_commands(
    mut commands: Commands,
    mut orders: MessageReader<ColshapeCommand>,
    mut colshapes: Query<(Entity, &mut Colshape)>,
    outlines: Res<OutlineStream>,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
    mut refusals: ResMut<WorldRefusals>,
) {
    // Made by this pass's orders: spawned at the end, so a show or destroy in the same
    // call finds them.
    let mut fresh: Vec<(Colshape, Option<ResourceId>)> = Vec::new();
    for order in orders.read() {
        if let Err(e) = order.check() {
            refusals.refuse("colshape", order, &e);
            continue;
        }
        match *order {
            ColshapeCommand::Create {
                id,
                shape,
                scope,
                owner,
            } => fresh.push((
                Colshape {
                    id,
                    shape,
                    scope,
                    rev: EntityRev(1),
                    inside: Vec::new(),
                    shown_to: Vec::new(),
                },
                owner,
            )),
            ColshapeCommand::Destroy { id } => {
                fresh.retain(|(c, _)| c.id != id);
                for (entity, c) in &colshapes {
                    if c.id == id {
                        commands.entity(entity).despawn();
                    }
                }
            }
            ColshapeCommand::Outline { id, player, shown } => {
                let target = fresh
                    .iter_mut()
                    .map(|(c, _)| c)
                    .find(|c| c.id == id)
                    .or_else(|| {
                        colshapes
                            .iter_mut()
                            .map(|(_, c)| c.into_inner())
                            .find(|c| c.id == id)
                    });
                let Some(c) = target else {
                    debug!(?id, "outline of a colshape that is gone");
                    continue;
                };
                c.shown_to.retain(|p| *p != player);
                if shown {
                    c.shown_to.push(player);
                }
            }
            ColshapeCommand::SetShape { id, shape } => {
                let Some(mut c) = colshapes.iter_mut().map(|(_, c)| c).find(|c| c.id == id) else {
                    debug!(?id, "a new form of a colshape that is gone");
                    continue;
                };
                c.shape = shape;
                c.rev = c.rev.next();
                let packet = ColshapeShape::show(EventId(0), id, shape, c.rev).into();
                outlines
                    .shown()
                    .tell_viewers(id.0, &packet, &index, &mut connections);
            }
        }
    }
    for (colshape, owner) in fresh {
        let mut entity = commands.spawn(colshape);
        if let Some(owner) = owner {
            entity.insert(Owned(owner));
        }
    }
}

/// A player who left is in no colshape any more, without `colshape_leave`.
fn forget_leavers(
    mut left: MessageReader<PlayerDisconnected>,
    mut colshapes: Query<&mut Colshape>,
) {
    for d in left.read() {
        for mut c in &mut colshapes {
            c.inside.retain(|p| *p != d.player);
            c.shown_to.retain(|p| *p != d.player);
        }
    }
}

/// Entries and exits of players from their accepted positions: a player is inside while
/// spawned, alive, in the colshape's scope and within its form. Colshapes in id order,
/// players in id order within each.
fn cross(
    mut colshapes: Query<&mut Colshape>,
    players: Query<(
        Entity,
        &dlmp_core::session::Player,
        &Life,
        &SpawnState,
        &ReportedPosition,
        &Scope,
    )>,
    mut crossed: MessageWriter<ColshapeCrossed>,
) {
    let mut list: Vec<_> = players.iter().collect();
    list.sort_by_key(|(_, p, ..)| p.id);
    let mut shapes: Vec<Mut<Colshape>> = colshapes.iter_mut().collect();
    shapes.sort_by_key(|c| c.id);
    for mut c in shapes {
        for &(player, _, life, spawn, reported, scope) in &list {
            let inside = living_at(life, spawn, reported)
                .is_some_and(|at| c.scope == *scope && contains(&c.shape, at));
            let was = c.inside.contains(&player);
            if inside == was {
                continue;
            }
            if inside {
                c.inside.push(player);
            } else {
                c.inside.retain(|p| *p != player);
            }
            crossed.write(ColshapeCrossed {
                player,
                colshape: c.id,
                entered: inside,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_holds_its_inside_and_border() {
        let sphere = Shape::Sphere {
            center: Vec3::new(0.0, 0.0, 0.0),
            radius: 5.0,
        };
        assert!(contains(&sphere, Vec3::new(3.0, 4.0, 0.0)));
        assert!(!contains(&sphere, Vec3::new(3.0, 4.0, 0.1)));
        let cylinder = Shape::Cylinder {
            base: Vec3::new(0.0, 0.0, 10.0),
            radius: 2.0,
            height: 3.0,
        };
        assert!(contains(&cylinder, Vec3::new(2.0, 0.0, 13.0)));
        assert!(!contains(&cylinder, Vec3::new(0.0, 0.0, 9.9)));
        assert!(!contains(&cylinder, Vec3::new(0.0, 0.0, 13.1)));
        let cube = Shape::Box {
            min: Vec3::new(0.0, 0.0, 0.0),
            max: Vec3::new(1.0, 2.0, 3.0),
        };
        assert!(contains(&cube, Vec3::new(1.0, 2.0, 3.0)));
        assert!(!contains(&cube, Vec3::new(1.0, 2.1, 3.0)));
    }
}
