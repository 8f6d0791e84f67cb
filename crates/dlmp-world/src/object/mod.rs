//! Objects (world.md ObjectState; lua-api.md "World and vehicles", objects): the server's
//! objects, their model table, creation and every change (pose, movement, attachment,
//! breaking), streamed by the one engine (ADR 0027) as chains, and the order around
//! landings: the floor before TeleportPlayer, spawn grants held until the objects at the
//! point are acknowledged. Decisions: docs/decisions/0047-objects.md,
//! 0048-object-chains.md, 0049-object-landings.md, 0076-incremental-object-streaming.md.
//!
//! - [`models`]: the object model table (`assets/object_models.tsv`).
//! - [`pose`]: rotations, world poses of chains, movement.
//! - [`commands`]: create, destroy, move, attach, break; the end of movements; ownership.
//! - [`stream`]: the chains' reconcile on the engine, the interior resend.
//! - `chains`: the chains kept between passes and updated by change (ADR 0076).
//! - [`landing`]: the floor of a teleport and the hold on spawn grants.
//! - [`script`]: the Lua API.

pub mod carry;
mod chains;
pub mod commands;
pub mod landing;
pub mod models;
pub mod pose;
pub mod script;
pub mod stream;
pub mod vehicles;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use dlmp_core::position::Scope;
use dlmp_core::session::Player;
use dlmp_core::tick::{GameplaySystems, StreamingSystems};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::VehicleId;
use dlmp_protocol::world::object::{Bone, MOVE_MS_MAX, OFFSET_MAX, ROTATION_MAX};
use dlmp_protocol::world::shared::{EntityRev, in_world};
use dlmp_script::{Owned, ResourceId};

pub use commands::{ObjectCommand, ObjectMoveEnded, ObjectStats};
pub use dlmp_protocol::world::object::ObjectId;
pub use pose::{Motion, Pose};
pub use stream::ObjectStream;

/// An object's stream distance when its creator names none, m (ADR 0047).
pub const OBJECT_STREAM_DISTANCE: f32 = 300.0;
/// A shown object is hidden this far beyond its stream distance, m (ADR 0047).
pub const HIDE_MARGIN: f32 = 10.0;
/// The largest stream distance an object may have, m.
pub const STREAM_DISTANCE_MAX: f32 = 6000.0;

/// Object settings (`object_stream_distance`).
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct ObjectSettings {
    /// An object without its own stream distance is shown within this, m. Default 300.
    pub stream_distance: f32,
}

impl Default for ObjectSettings {
    fn default() -> Self {
        ObjectSettings {
            stream_distance: OBJECT_STREAM_DISTANCE,
        }
    }
}

/// What an object is made of, as its creator asks (`dlmp.create_object`, a map file, a
/// Rust plugin). [`ObjectSpec::check`] holds the page's rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectSpec {
    /// From the model table (at most 19999).
    pub model: u32,
    /// Within world bounds.
    pub position: Vec3,
    /// Degrees, |angle| ≤ 3600.
    pub rotation: Vec3,
    pub interior: u8,
    pub virtual_world: u32,
    /// Shown within this of a player's stream center; `None`: the server's setting.
    pub stream_distance: Option<f32>,
    /// Shown to this player only (a player entity).
    pub viewer: Option<Entity>,
}

impl ObjectSpec {
    /// An object of `model` at `position` for everyone in the main scope.
    pub fn new(model: u32, position: Vec3) -> Self {
        ObjectSpec {
            model,
            position,
            rotation: Vec3::ZERO,
            interior: 0,
            virtual_world: 0,
            stream_distance: None,
            viewer: None,
        }
    }

    /// The page's checks that need no world: the model in the table, the position within
    /// world bounds, the rotation up to 3600, a stream distance in (0, 6000].
    pub fn check(&self) -> Result<(), ObjectError> {
        check_model(self.model)?;
        check_position(self.position)?;
        check_rotation(self.rotation)?;
        if let Some(d) = self.stream_distance
            && !(d > 0.0 && d <= STREAM_DISTANCE_MAX)
        {
            return Err(ObjectError::StreamDistance(d));
        }
        Ok(())
    }
}

/// Why an object call was refused. Each reads as a message a scripter can act on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ObjectError {
    /// Not an object model of the server's table (or above 19999).
    UnknownModel(u32),
    /// A position or target outside world bounds, or not finite.
    OutsideWorld(Vec3),
    /// An angle above 3600 in absolute value, or not finite.
    Rotation(Vec3),
    /// An offset above 1000 on an axis, or not finite.
    Offset(Vec3),
    StreamDistance(f32),
    /// A movement longer than 3 600 000 ms.
    MoveTooLong(u64),
    /// A speed not above 0.
    Speed(f32),
    /// The viewer or parent player is not a connected player.
    NoSuchPlayer,
    NoSuchObject(ObjectId),
    NoSuchVehicle(VehicleId),
    /// An attached object does not move by itself.
    Attached,
    /// An object cannot carry itself, directly or through its chain.
    Cycle,
    /// A bone only on a player; an object on a bone carries no others.
    Bone(&'static str),
    /// Only models with the table's flag b break.
    NotBreakable(u32),
    /// No object on a bone breaks.
    BrokenOnBone,
    /// 2^32 − 1 objects were created in this run.
    IdsExhausted,
}

impl fmt::Display for ObjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectError::UnknownModel(m) => write!(
                f,
                "model {m} is not an object model of the server's model table"
            ),
            ObjectError::OutsideWorld(p) => write!(
                f,
                "the point ({}, {}, {}) is outside the world (|x|, |y| <= 6000, z -200..=4000)",
                p.x, p.y, p.z
            ),
            ObjectError::Rotation(r) => write!(
                f,
                "the rotation ({}, {}, {}) is outside -3600..=3600 degrees",
                r.x, r.y, r.z
            ),
            ObjectError::Offset(o) => write!(
                f,
                "the offset ({}, {}, {}) is outside -1000..=1000 on an axis",
                o.x, o.y, o.z
            ),
            ObjectError::StreamDistance(d) => {
                write!(f, "stream_distance {d} is outside (0, 6000]")
            }
            ObjectError::MoveTooLong(ms) => write!(
                f,
                "the move takes {ms} ms, more than {MOVE_MS_MAX} ms (lower the distance or raise the speed)"
            ),
            ObjectError::Speed(s) => write!(f, "speed {s} must be a number above 0"),
            ObjectError::NoSuchPlayer => f.write_str("the player has left the server"),
            ObjectError::NoSuchObject(id) => write!(f, "object {} no longer exists", id.0),
            ObjectError::NoSuchVehicle(id) => write!(f, "vehicle {} no longer exists", id.0),
            ObjectError::Attached => {
                f.write_str("the object is attached: it moves with its parent (detach it first)")
            }
            ObjectError::Cycle => f.write_str("an object cannot carry itself through its chain"),
            ObjectError::Bone(why) => f.write_str(why),
            ObjectError::NotBreakable(m) => {
                write!(f, "model {m} is not breakable (flag b of the model table)")
            }
            ObjectError::BrokenOnBone => f.write_str("an object on a bone cannot be broken"),
            ObjectError::IdsExhausted => f.write_str("no object ids left"),
        }
    }
}

impl std::error::Error for ObjectError {}

pub(crate) fn check_model(model: u32) -> Result<(), ObjectError> {
    if models::is_object_model(model) {
        Ok(())
    } else {
        Err(ObjectError::UnknownModel(model))
    }
}

fn finite(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

pub(crate) fn check_position(p: Vec3) -> Result<(), ObjectError> {
    if finite(p) && in_world("pos", &p).is_ok() {
        Ok(())
    } else {
        Err(ObjectError::OutsideWorld(p))
    }
}

pub(crate) fn check_rotation(r: Vec3) -> Result<(), ObjectError> {
    if finite(r) && [r.x, r.y, r.z].iter().all(|a| a.abs() <= ROTATION_MAX) {
        Ok(())
    } else {
        Err(ObjectError::Rotation(r))
    }
}

pub(crate) fn check_offset(o: Vec3) -> Result<(), ObjectError> {
    if finite(o) && [o.x, o.y, o.z].iter().all(|a| a.abs() <= OFFSET_MAX) {
        Ok(())
    } else {
        Err(ObjectError::Offset(o))
    }
}

/// What an object hangs from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Parent {
    /// A player entity: its position and heading; a bone or its root.
    Player(Entity),
    Object(ObjectId),
    /// A vehicle, by id (world.md: attach_kind 2): its position and full rotation
    /// ([`vehicles`]).
    Vehicle(VehicleId),
}

/// An object's attachment: its parent and, on a player, the bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachment {
    pub parent: Parent,
    pub bone: Bone,
}

/// An object entity.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Object {
    pub id: ObjectId,
    pub model: u16,
    /// Its own pose: in the world when free, the offset from the parent when attached.
    /// While moving, the pose the movement started from (see [`Object::pose_at`]).
    pub pose: Pose,
    /// Its scope while free; an attached object is in its parent's.
    pub scope: Scope,
    pub stream_distance: f32,
    /// Shown to this player only.
    pub viewer: Option<Entity>,
    pub attachment: Option<Attachment>,
    pub motion: Option<Motion>,
    pub broken: bool,
    /// Grows with every change a client sees (world.md: "object revision").
    pub rev: EntityRev,
}

impl Object {
    /// The object `spec` describes (checked by the caller), with id `id`.
    pub fn new(id: ObjectId, spec: &ObjectSpec, settings: &ObjectSettings) -> Self {
        Object {
            id,
            model: u16::try_from(spec.model).unwrap_or(0),
            pose: Pose {
                position: spec.position,
                rotation: spec.rotation,
            },
            scope: Scope {
                virtual_world: spec.virtual_world,
                interior: spec.interior,
            },
            stream_distance: spec.stream_distance.unwrap_or(settings.stream_distance),
            viewer: spec.viewer,
            attachment: None,
            motion: None,
            broken: false,
            rev: EntityRev(0),
        }
    }

    /// Its own pose at `now` (movement applied).
    pub fn pose_at(&self, now: Duration) -> Pose {
        self.motion.map_or(self.pose, |m| m.pose_at(now))
    }

    /// Whether it hangs from a bone of a player (not the root).
    pub fn on_bone(&self) -> bool {
        self.attachment.is_some_and(|a| a.bone != Bone::Root)
    }
}

/// The object ids of this run (never reused) and the entity of each.
#[derive(Resource, Debug, Default)]
pub struct Objects {
    /// The last id handed out; shared with the scripts' view, which takes ids from it too.
    last: Arc<AtomicU32>,
    by_id: HashMap<ObjectId, Entity>,
    /// Grows with every change of the object set or of an object.
    generation: u64,
    /// Something changed that the scripts' view does not know yet.
    changed: bool,
    /// The objects changed since the streaming pass last took them ([`Objects::take_changes`]):
    /// it updates only their chains (ADR 0076).
    changes: Vec<ObjectId>,
    /// A change not named by object: the streaming pass builds its index whole.
    everything: bool,
}

/// What changed since the streaming pass last looked ([`Objects::take_changes`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// The objects created, destroyed or changed, in the order of their changes (with
    /// repeats).
    pub objects: Vec<ObjectId>,
    /// Something changed that no id names ([`Objects::touch`]): everything is to be looked
    /// at again.
    pub everything: bool,
}

impl Objects {
    /// A new id, never handed out before in this run; `None` once 2^32 − 1 were.
    pub fn reserve(&self) -> Option<ObjectId> {
        reserve(&self.last)
    }

    pub fn entity(&self, id: ObjectId) -> Option<Entity> {
        self.by_id.get(&id).copied()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Notes a change that no object id names: the streaming pass builds its index whole
    /// and decides every recipient again. A change of one object is
    /// [`touch_object`](Self::touch_object).
    pub fn touch(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.changed = true;
        self.everything = true;
    }

    /// Notes that object `id` was created, destroyed or changed (its pose, movement,
    /// attachment, breaking, viewer or scope): the streaming pass updates its chain only.
    pub fn touch_object(&mut self, id: ObjectId) {
        self.generation = self.generation.wrapping_add(1);
        self.changed = true;
        self.changes.push(id);
    }

    /// The changes noted since the last call, for the streaming pass.
    pub fn take_changes(&mut self) -> Changes {
        Changes {
            objects: std::mem::take(&mut self.changes),
            everything: std::mem::take(&mut self.everything),
        }
    }

    fn register(&mut self, id: ObjectId, entity: Entity) {
        self.by_id.insert(id, entity);
        self.touch_object(id);
    }

    pub(crate) fn counter(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.last)
    }
}

fn reserve(last: &AtomicU32) -> Option<ObjectId> {
    last.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
        .ok()
        .map(|n| ObjectId(n + 1))
}

/// Creates an object now, from a Rust plugin or a system with the world (a map loader):
/// checks `spec` as the page lists, takes a new id and spawns the entity, owned by
/// `owner` (it goes when that resource stops, with its chain). Streaming shows it from the
/// next pass. Scripts use `dlmp.create_object`, which takes the same checks
/// ([`ObjectSpec::check`]) and ends in [`ObjectCommand::Create`].
pub fn create_object(
    world: &mut World,
    spec: ObjectSpec,
    owner: Option<ResourceId>,
) -> Result<Entity, ObjectError> {
    spec.check()?;
    if let Some(viewer) = spec.viewer
        && world.get::<Player>(viewer).is_none()
    {
        return Err(ObjectError::NoSuchPlayer);
    }
    let settings = world
        .get_resource::<ObjectSettings>()
        .copied()
        .unwrap_or_default();
    let id = world
        .get_resource_or_init::<Objects>()
        .reserve()
        .ok_or(ObjectError::IdsExhausted)?;
    let mut entity = world.spawn(Object::new(id, &spec, &settings));
    if let Some(owner) = owner {
        entity.insert(Owned(owner));
    }
    let entity = entity.id();
    world.resource_mut::<Objects>().register(id, entity);
    Ok(entity)
}

/// Adds objects.
pub struct ObjectPlugin;

impl Plugin for ObjectPlugin {
    fn build(&self, app: &mut App) {
        models::load();
        app.init_resource::<ObjectSettings>()
            .init_resource::<Objects>()
            .init_resource::<ObjectStream>()
            .init_resource::<ObjectStats>()
            .add_message::<ObjectCommand>()
            .add_message::<ObjectMoveEnded>()
            .add_systems(
                FixedUpdate,
                (
                    script::refresh_view.in_set(GameplaySystems::Intake),
                    (
                        commands::create,
                        commands::apply,
                        commands::end_moves,
                        commands::forget_gone,
                        carry::carry_players,
                    )
                        .chain()
                        .in_set(GameplaySystems::Apply)
                        .after(dlmp_vehicle::VehicleSystems::Lifecycle),
                    // After player streaming: a chain on a player follows the player's
                    // shown set of this pass.
                    stream::reconcile
                        .in_set(StreamingSystems::Reconcile)
                        .after(dlmp_player::stream::reconcile),
                ),
            );
        landing::build(app);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_object_checks_the_spec_and_registers_a_new_id() {
        let mut world = World::new();
        let spec = ObjectSpec::new(1225, Vec3::new(10.0, 20.0, 3.0));
        let a = create_object(&mut world, spec, None).unwrap();
        let b = create_object(&mut world, spec, Some(ResourceId(7))).unwrap();
        let (oa, ob) = (
            world.get::<Object>(a).unwrap(),
            world.get::<Object>(b).unwrap(),
        );
        assert_eq!((oa.id, ob.id), (ObjectId(1), ObjectId(2)));
        assert_eq!(oa.stream_distance, OBJECT_STREAM_DISTANCE);
        assert_eq!(world.get::<Owned>(b), Some(&Owned(ResourceId(7))));
        assert_eq!(world.resource::<Objects>().entity(ObjectId(2)), Some(b));
        for (bad, err) in [
            (
                ObjectSpec::new(20000, Vec3::ZERO),
                ObjectError::UnknownModel(20000),
            ),
            (
                ObjectSpec::new(400, Vec3::ZERO),
                ObjectError::UnknownModel(400),
            ),
            (
                ObjectSpec::new(1225, Vec3::new(6000.5, 0.0, 0.0)),
                ObjectError::OutsideWorld(Vec3::new(6000.5, 0.0, 0.0)),
            ),
            (
                ObjectSpec {
                    rotation: Vec3::new(0.0, 3600.5, 0.0),
                    ..spec
                },
                ObjectError::Rotation(Vec3::new(0.0, 3600.5, 0.0)),
            ),
            (
                ObjectSpec {
                    stream_distance: Some(0.0),
                    ..spec
                },
                ObjectError::StreamDistance(0.0),
            ),
            (
                ObjectSpec {
                    viewer: Some(Entity::PLACEHOLDER),
                    ..spec
                },
                ObjectError::NoSuchPlayer,
            ),
        ] {
            assert_eq!(create_object(&mut world, bad, None), Err(err));
        }
        assert_eq!(
            world.resource::<Objects>().len(),
            2,
            "a refusal creates nothing"
        );
    }
}
