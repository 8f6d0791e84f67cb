//! What an edit reads and changes of each editable kind (editing.md §1, "Editable kinds";
//! §4): its revision, the center of its pose, its scope, whether the editor is shown it,
//! its owner, the checks of the gamemode's own change of that kind, the change itself and
//! the correction after a refused commit (ADR 0110).

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use bevy_time::Time;

use super::Target;
use crate::colshape::{Colshape, ColshapeCommand, OutlineStream};
use crate::gang_zone::{GangZone, GangZoneCommand, GangZoneStream, GangZones};
use crate::label::{Label, LabelCommand, LabelStream, Labels};
use crate::object::pose::Pose;
use crate::object::{
    Object, ObjectCommand, ObjectId, ObjectStream, Objects, check_position, check_rotation,
};
use crate::pickup::{Pickup, PickupCommand, PickupStream, Pickups};
use dlmp_core::position::Scope;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::edit::EditKind;
use dlmp_protocol::edit::entity::COLSHAPE_B_MAX;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::world::markers::{ColshapeId, ColshapeShape, Shape};
use dlmp_protocol::world::pickup::{PICKUP_XY, PickupId};
use dlmp_protocol::world::shared::{
    AttachKind, EntityRev, MarkerId, WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN, in_world,
};
use dlmp_script::{Owned, ResourceId};

/// A pose as EntityEdit carries it (editing.md §2, "The pose by kind").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EditPose {
    pub a: Vec3,
    pub b: [f32; 4],
}

/// An editable entity as an edit sees it now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Editable {
    pub rev: EntityRev,
    /// The center of its pose (editing.md §2, "The center of a pose").
    pub center: Vec3,
    /// A gang zone's center is measured on x and y only.
    pub flat: bool,
    pub scope: Scope,
    /// Attached, or on a bone: not editable.
    pub attached: bool,
    pub owner: Option<ResourceId>,
}

/// The center of a colshape's form: the sphere's center, the cylinder's base, the box's
/// middle.
fn shape_center(shape: &Shape) -> Vec3 {
    match *shape {
        Shape::Sphere { center, .. } => center,
        Shape::Cylinder { base, .. } => base,
        Shape::Box { min, max } => Vec3::new(
            (min.x + max.x) / 2.0,
            (min.y + max.y) / 2.0,
            (min.z + max.z) / 2.0,
        ),
    }
}

fn zone_center(min: [f32; 2], max: [f32; 2]) -> Vec3 {
    Vec3::new((min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0, 0.0)
}

fn zero(v: f32) -> bool {
    v.to_bits() == 0
}

/// The form of `shape` with the edited `a` and `b`, if it passes ColshapeShape's rules
/// (radius and height in (0, 12000], a box's min below its max, the points in the world).
fn edited_shape(shape: &Shape, pose: &EditPose) -> Option<Shape> {
    let (a, b) = (pose.a, pose.b);
    let size = |v: f32| v > 0.0 && v <= COLSHAPE_B_MAX;
    in_world("a", &a).ok()?;
    let new = match shape {
        Shape::Sphere { .. } if size(b[0]) && zero(b[1]) && zero(b[2]) => Shape::Sphere {
            center: a,
            radius: b[0],
        },
        Shape::Cylinder { .. } if size(b[0]) && size(b[1]) && zero(b[2]) => Shape::Cylinder {
            base: a,
            radius: b[0],
            height: b[1],
        },
        Shape::Box { .. } => {
            let max = Vec3::new(b[0], b[1], b[2]);
            in_world("b", &max).ok()?;
            (a.x < max.x && a.y < max.y && a.z < max.z).then_some(Shape::Box { min: a, max })?
        }
        _ => return None,
    };
    Some(new)
}

/// What the edit systems read and change of the editable kinds.
#[derive(SystemParam)]
pub struct Editables<'w, 's> {
    time: Res<'w, Time>,
    objects: Query<'w, 's, (&'static Object, Option<&'static Owned>)>,
    object_ids: Res<'w, Objects>,
    object_stream: Res<'w, ObjectStream>,
    object_commands: MessageWriter<'w, ObjectCommand>,
    pickups: Query<'w, 's, (&'static Pickup, Option<&'static Owned>)>,
    pickup_ids: Res<'w, Pickups>,
    pickup_stream: Res<'w, PickupStream>,
    pickup_commands: MessageWriter<'w, PickupCommand>,
    labels: Query<'w, 's, (&'static Label, Option<&'static Owned>)>,
    label_ids: Res<'w, Labels>,
    label_stream: Res<'w, LabelStream>,
    label_commands: MessageWriter<'w, LabelCommand>,
    zones: Query<'w, 's, (&'static GangZone, Option<&'static Owned>)>,
    zone_ids: Res<'w, GangZones>,
    zone_stream: Res<'w, GangZoneStream>,
    zone_commands: MessageWriter<'w, GangZoneCommand>,
    colshapes: Query<'w, 's, (&'static Colshape, Option<&'static Owned>)>,
    outlines: Res<'w, OutlineStream>,
    colshape_commands: MessageWriter<'w, ColshapeCommand>,
}

fn owner(o: Option<&Owned>) -> Option<ResourceId> {
    o.map(|o| o.0)
}

impl Editables<'_, '_> {
    pub fn now(&self) -> Duration {
        self.time.elapsed()
    }

    fn object(&self, id: u32) -> Option<(&Object, Option<&Owned>)> {
        self.object_ids
            .entity(ObjectId(id))
            .and_then(|e| self.objects.get(e).ok())
    }

    fn pickup(&self, id: u32) -> Option<(&Pickup, Option<&Owned>)> {
        self.pickup_ids
            .entity(PickupId(id))
            .and_then(|e| self.pickups.get(e).ok())
    }

    fn label(&self, id: u32) -> Option<(&Label, Option<&Owned>)> {
        self.label_ids
            .entity(MarkerId(id))
            .and_then(|e| self.labels.get(e).ok())
    }

    fn zone(&self, id: u32) -> Option<(&GangZone, Option<&Owned>)> {
        self.zone_ids
            .entity(MarkerId(id))
            .and_then(|e| self.zones.get(e).ok())
    }

    fn colshape(&self, id: u32) -> Option<(&Colshape, Option<&Owned>)> {
        self.colshapes.iter().find(|(c, _)| c.id.0 == id)
    }

    /// The entity `target` now; `None` when it does not exist.
    pub fn get(&self, target: Target) -> Option<Editable> {
        let id = target.id;
        let e = |rev, center, scope, attached, o: Option<&Owned>| Editable {
            rev,
            center,
            flat: false,
            scope,
            attached,
            owner: owner(o),
        };
        Some(match target.kind {
            EditKind::Object => {
                let (o, w) = self.object(id)?;
                let center = o.pose_at(self.now()).position;
                e(o.rev, center, o.scope, o.attachment.is_some(), w)
            }
            EditKind::Pickup => {
                let (p, w) = self.pickup(id)?;
                e(p.rev, p.spec.position, p.spec.scope, false, w)
            }
            EditKind::Label => {
                let (l, w) = self.label(id)?;
                let attached = l.attached.0 != AttachKind::None || l.spec.attach.is_some();
                e(l.rev, l.spec.position, l.spec.scope, attached, w)
            }
            EditKind::GangZone => {
                let (z, w) = self.zone(id)?;
                Editable {
                    flat: true,
                    ..e(
                        z.rev,
                        zone_center(z.spec.min, z.spec.max),
                        z.spec.scope,
                        false,
                        w,
                    )
                }
            }
            EditKind::Colshape => {
                let (c, w) = self.colshape(id)?;
                e(c.rev, shape_center(&c.shape), c.scope, false, w)
            }
            EditKind::None => return None,
        })
    }

    /// Whether `target` is shown to `player` now (editing.md §4): in its streamed set for
    /// an object, a pickup and a label, shown for a gang zone, its outline shown for a
    /// colshape.
    pub fn shown_to(&self, target: Target, player: PlayerId) -> bool {
        let id = target.id;
        match target.kind {
            EditKind::Object => self.object_stream.shown().contains(player, id),
            EditKind::Pickup => self.pickup_stream.shown().contains(player, id),
            EditKind::Label => self.label_stream.shown().contains(player, id),
            EditKind::GangZone => self.zone_stream.shown().contains(player, id),
            EditKind::Colshape => self.outlines.shown().contains(player, id),
            EditKind::None => false,
        }
    }

    /// The checks of the gamemode's own change of the kind (editing.md §4); the center of
    /// the pose when it passes.
    pub fn check(&self, target: Target, pose: &EditPose) -> Option<Vec3> {
        let (a, b) = (pose.a, pose.b);
        match target.kind {
            EditKind::Object => {
                let rotation = Vec3::new(b[0], b[1], b[2]);
                (check_position(a).is_ok() && check_rotation(rotation).is_ok()).then_some(a)
            }
            EditKind::Pickup => (a.x.abs() <= PICKUP_XY
                && a.y.abs() <= PICKUP_XY
                && (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&a.z))
            .then_some(a),
            EditKind::Label => in_world("a", &a).ok().map(|()| a),
            EditKind::GangZone => {
                let corners = [a.x, a.y, b[0], b[1]];
                (corners.iter().all(|c| c.is_finite() && c.abs() <= WORLD_XY)
                    && a.x < b[0]
                    && a.y < b[1])
                    .then(|| zone_center([a.x, a.y], [b[0], b[1]]))
            }
            EditKind::Colshape => {
                let (c, _) = self.colshape(target.id)?;
                edited_shape(&c.shape, pose).map(|s| shape_center(&s))
            }
            EditKind::None => None,
        }
    }

    /// The pose as scripts see it in `entity_edit` (editing.md §5), keyed by name.
    pub fn numbers(&self, target: Target, pose: &EditPose) -> Vec<(&'static str, f64)> {
        let (a, b) = (pose.a, pose.b);
        let f = f64::from;
        let point = vec![("x", f(a.x)), ("y", f(a.y)), ("z", f(a.z))];
        match target.kind {
            EditKind::Object => {
                let mut v = point;
                v.extend([("rx", f(b[0])), ("ry", f(b[1])), ("rz", f(b[2]))]);
                v
            }
            EditKind::GangZone => vec![
                ("min_x", f(a.x)),
                ("min_y", f(a.y)),
                ("max_x", f(b[0])),
                ("max_y", f(b[1])),
            ],
            EditKind::Colshape => match self.colshape(target.id).map(|(c, _)| c.shape) {
                Some(Shape::Box { .. }) => vec![
                    ("min_x", f(a.x)),
                    ("min_y", f(a.y)),
                    ("min_z", f(a.z)),
                    ("max_x", f(b[0])),
                    ("max_y", f(b[1])),
                    ("max_z", f(b[2])),
                ],
                Some(Shape::Cylinder { .. }) => {
                    let mut v = point;
                    v.extend([("radius", f(b[0])), ("height", f(b[1]))]);
                    v
                }
                _ => {
                    let mut v = point;
                    v.push(("radius", f(b[0])));
                    v
                }
            },
            _ => point,
        }
    }

    /// Applies `pose` as the gamemode's own change of the kind: one change with one new
    /// revision, the entity's show to everyone it is shown to, as its page sends a change.
    pub fn apply(&mut self, target: Target, pose: &EditPose) {
        let (a, b) = (pose.a, pose.b);
        match target.kind {
            EditKind::Object => {
                self.object_commands.write(ObjectCommand::SetPose {
                    id: ObjectId(target.id),
                    pose: Pose {
                        position: a,
                        rotation: Vec3::new(b[0], b[1], b[2]),
                    },
                });
            }
            EditKind::Pickup => {
                self.pickup_commands.write(PickupCommand::Move {
                    id: PickupId(target.id),
                    position: a,
                });
            }
            EditKind::Label => {
                self.label_commands.write(LabelCommand::SetPosition {
                    id: MarkerId(target.id),
                    position: a,
                });
            }
            EditKind::GangZone => {
                self.zone_commands.write(GangZoneCommand::SetRect {
                    id: MarkerId(target.id),
                    min: [a.x, a.y],
                    max: [b[0], b[1]],
                });
            }
            EditKind::Colshape => {
                let shape = self
                    .colshape(target.id)
                    .and_then(|(c, _)| edited_shape(&c.shape, pose));
                if let Some(shape) = shape {
                    self.colshape_commands.write(ColshapeCommand::SetShape {
                        id: ColshapeId(target.id),
                        shape,
                    });
                }
            }
            EditKind::None => {}
        }
    }

    /// The entity's current show with its current revision, for the correction of a
    /// refused commit; `None` when it is not shown to `player`.
    pub fn correction(&self, target: Target, player: PlayerId) -> Option<ServerPacket> {
        if !self.shown_to(target, player) {
            return None;
        }
        let id = target.id;
        Some(match target.kind {
            EditKind::Object => {
                let (object, _) = self.object(id)?;
                let mut member = self.object_stream.member(id)?.clone();
                member.object = object.clone();
                member.show(self.now()).into()
            }
            EditKind::Pickup => crate::pickup::stream::show_packet(self.pickup(id)?.0).into(),
            EditKind::Label => crate::label::stream::show_packet(self.label(id)?.0).into(),
            EditKind::GangZone => crate::gang_zone::stream::show_packet(self.zone(id)?.0).into(),
            EditKind::Colshape => {
                let (c, _) = self.colshape(id)?;
                ColshapeShape::show(EventId(0), c.id, c.shape, c.rev).into()
            }
            EditKind::None => return None,
        })
    }
}
