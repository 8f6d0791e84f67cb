//! Every change of the object set (world.md ObjectState), from a script or a Rust plugin,
//! applied in [`GameplaySystems::Apply`] in order: create, destroy (with the chain), set
//! the pose, move and stop, attach and detach, break and restore. A change a client sees
//! marks the object for a resend: the streaming pass sends it as critical to everyone it
//! is shown to (nothing else would resend it). Movements end here on the server's clock
//! (`object_move_end`); a resource's objects go with their chains when it stops.
//!
//! [`GameplaySystems::Apply`]: dlmp_core::tick::GameplaySystems::Apply

use std::collections::HashSet;
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::pose::{Motion, Pose};
use super::stream::ObjectStream;
use super::vehicles::VehicleParents;
use super::{
    Attachment, Object, ObjectError, ObjectId, ObjectSettings, ObjectSpec, Objects, Parent,
    check_offset, check_position, check_rotation, models,
};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Player, PlayerDisconnected};
use dlmp_player::LastFrame;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::world::object::{Bone, MOVE_MS_MAX};
use dlmp_script::{Owned, ResourceId};

/// A change of the object set, from a script or a Rust plugin (ids from
/// [`Objects::reserve`]). Applied in order; a command the world refuses (a parent gone, a
/// cycle) is logged and counted in [`ObjectStats::refused`].
#[derive(Message, Debug, Clone, PartialEq)]
pub enum ObjectCommand {
    /// A new object; its creator checked the spec ([`ObjectSpec::check`]).
    Create {
        id: ObjectId,
        spec: ObjectSpec,
        owner: Option<ResourceId>,
    },
    /// The object and every object it carries.
    Destroy {
        id: ObjectId,
    },
    /// A free object: in the world; an attached one: its offset. Stops a movement.
    SetPosition {
        id: ObjectId,
        position: dlmp_protocol::geometry::Vec3,
    },
    SetRotation {
        id: ObjectId,
        rotation: dlmp_protocol::geometry::Vec3,
    },
    /// A free object's position and rotation as one change with one new revision (an edit
    /// session's commit, editing.md §2): a movement stops at the pose.
    SetPose {
        id: ObjectId,
        pose: Pose,
    },
    /// A movement from where it is now to `to`, taking `duration`.
    Move {
        id: ObjectId,
        to: Pose,
        duration: Duration,
    },
    /// Stands where it is now.
    Stop {
        id: ObjectId,
    },
    /// Hangs the object from `parent` with its own pose `offset` (or, `in_place`, where it
    /// stands now; never onto a bone).
    Attach {
        id: ObjectId,
        parent: Parent,
        offset: Pose,
        bone: Bone,
        in_place: bool,
    },
    /// Free again, standing where it was, in its root's scope.
    Detach {
        id: ObjectId,
    },
    SetBroken {
        id: ObjectId,
        broken: bool,
    },
}

/// A movement reached its target on the server's clock (`object_move_end`).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectMoveEnded {
    pub id: ObjectId,
}

/// Object commands the world refused.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectStats {
    pub refused: u64,
}

/// A chain deeper than this is refused (it could only be a cycle or a mistake).
pub const MAX_DEPTH: usize = 64;

/// What the pose of a parent player is read from.
pub(crate) type PlayerPose = (
    &'static Player,
    &'static Position,
    &'static Scope,
    &'static LastFrame,
);

/// The world pose and scope of `object` at `now`, through its chain (a player parent
/// counts with its root and heading, and an object on a bone stands at that root: world.md,
/// "Bones"). `None`: a parent is gone.
pub(crate) fn world_pose(
    object: &Object,
    now: Duration,
    registry: &Objects,
    objects: &Query<&mut Object>,
    players: &Query<PlayerPose>,
    vehicles: &VehicleParents,
) -> Option<(Pose, Scope)> {
    let mut pose = object.pose_at(now);
    let mut at = object.clone();
    for _ in 0..MAX_DEPTH {
        let Some(attachment) = at.attachment else {
            return Some((pose, at.scope));
        };
        match attachment.parent {
            Parent::Player(entity) => {
                let (_, position, scope, last) = players.get(entity).ok()?;
                let parent = Pose::of_player(position.0, last.frame.map_or(0.0, |f| f.yaw));
                // Only clients know a bone's pose: the server treats an object on a bone
                // as standing at the player's root (world.md ObjectState, bones).
                if attachment.bone != Bone::Root {
                    return Some((parent, *scope));
                }
                return Some((parent.compose(&pose), *scope));
            }
            Parent::Object(id) => {
                let parent = objects.get(registry.entity(id)?).ok()?;
                pose = parent.pose_at(now).compose(&pose);
                at = parent.clone();
            }
            Parent::Vehicle(id) => {
                let (parent, scope) = vehicles.pose(id)?;
                return Some((parent.compose(&pose), scope));
            }
        }
    }
    None
}

/// Whether `ancestor` carries `id` (or is it), through the chain above `id`.
fn carries(
    ancestor: ObjectId,
    id: ObjectId,
    registry: &Objects,
    objects: &Query<&mut Object>,
) -> bool {
    let mut at = Some(id);
    for _ in 0..MAX_DEPTH {
        let Some(current) = at else { return false };
        if current == ancestor {
            return true;
        }
        at = registry
            .entity(current)
            .and_then(|e| objects.get(e).ok())
            .and_then(|o| match o.attachment?.parent {
                Parent::Object(p) => Some(p),
                Parent::Player(_) | Parent::Vehicle(_) => None,
            });
    }
    true
}

/// Whether some object hangs from `id`.
fn has_children(id: ObjectId, objects: &Query<&mut Object>) -> bool {
    objects
        .iter()
        .any(|o| o.attachment.is_some_and(|a| a.parent == Parent::Object(id)))
}

/// The attachment rules of world.md ("Bones"): a bone only on a player, an object on a
/// bone carries no others, no attach in place onto a bone, no cycle.
#[allow(
    clippy::too_many_arguments,
    reason = "the rules read the chain both ways"
)]
fn check_attach(
    id: ObjectId,
    parent: Parent,
    bone: Bone,
    in_place: bool,
    registry: &Objects,
    objects: &Query<&mut Object>,
    players: &Query<PlayerPose>,
    vehicles: &VehicleParents,
) -> Result<(), ObjectError> {
    match parent {
        Parent::Player(entity) => {
            if !players.contains(entity) {
                return Err(ObjectError::NoSuchPlayer);
            }
        }
        Parent::Vehicle(v) => {
            if bone != Bone::Root {
                return Err(ObjectError::Bone("a bone is only on a player"));
            }
            if vehicles.pose(v).is_none() {
                return Err(ObjectError::NoSuchVehicle(v));
            }
        }
        Parent::Object(p) => {
            if bone != Bone::Root {
                return Err(ObjectError::Bone("a bone is only on a player"));
            }
            let parent = registry
                .entity(p)
                .and_then(|e| objects.get(e).ok())
                .ok_or(ObjectError::NoSuchObject(p))?;
            if parent.on_bone() {
                return Err(ObjectError::Bone(
                    "an object on a bone carries no other objects",
                ));
            }
            if carries(id, p, registry, objects) {
                return Err(ObjectError::Cycle);
            }
        }
    }
    if bone != Bone::Root {
        if in_place {
            return Err(ObjectError::Bone("there is no attach in place onto a bone"));
        }
        if has_children(id, objects) {
            return Err(ObjectError::Bone(
                "an object on a bone carries no other objects",
            ));
        }
        let object = registry.entity(id).and_then(|e| objects.get(e).ok());
        if object.is_some_and(|o| o.broken) {
            return Err(ObjectError::BrokenOnBone);
        }
    }
    Ok(())
}

/// What [`apply`] reads and writes.
#[derive(bevy_ecs::system::SystemParam)]
pub(super) struct Applying<'w, 's> {
    commands: Commands<'w, 's>,
    time: Res<'w, Time>,
    registry: ResMut<'w, Objects>,
    objects: Query<'w, 's, &'static mut Object>,
    players: Query<'w, 's, PlayerPose>,
    vehicles: VehicleParents<'w, 's>,
    stream: ResMut<'w, ObjectStream>,
    stats: ResMut<'w, ObjectStats>,
}

/// Makes the tick's new objects first, so that the other commands of the tick (an
/// attachment made in the same call) find them.
pub(super) fn create(
    mut commands: Commands,
    mut read: MessageReader<ObjectCommand>,
    settings: Res<ObjectSettings>,
    mut registry: ResMut<Objects>,
    mut stats: ResMut<ObjectStats>,
) {
    for command in read.read() {
        let ObjectCommand::Create { id, spec, owner } = *command else {
            continue;
        };
        if let Err(e) = spec.check() {
            debug!(?command, "object creation refused: {e}");
            stats.refused += 1;
            continue;
        }
        if registry.by_id.contains_key(&id) {
            continue;
        }
        let mut entity = commands.spawn(Object::new(id, &spec, &settings));
        if let Some(owner) = owner {
            entity.insert(Owned(owner));
        }
        let entity = entity.id();
        registry.register(id, entity);
    }
}

/// Applies the tick's other [`ObjectCommand`]s, in order.
pub(super) fn apply(mut read: MessageReader<ObjectCommand>, mut a: Applying) {
    let now = a.time.elapsed();
    for command in read.read() {
        if let Err(e) = apply_one(command, now, &mut a) {
            debug!(?command, "object command refused: {e}");
            a.stats.refused += 1;
        }
    }
}

fn apply_one(command: &ObjectCommand, now: Duration, a: &mut Applying) -> Result<(), ObjectError> {
    let id = match *command {
        ObjectCommand::Create { .. } => return Ok(()),
        ObjectCommand::Destroy { id } => {
            a.stream.gone.push(id);
            if let Some(entity) = a.registry.by_id.remove(&id) {
                a.commands.entity(entity).despawn();
                a.registry.touch_object(id);
            }
            return Ok(());
        }
        ObjectCommand::SetPosition { id, .. }
        | ObjectCommand::SetRotation { id, .. }
        | ObjectCommand::SetPose { id, .. }
        | ObjectCommand::Move { id, .. }
        | ObjectCommand::Stop { id }
        | ObjectCommand::Attach { id, .. }
        | ObjectCommand::Detach { id }
        | ObjectCommand::SetBroken { id, .. } => id,
    };
    let entity = a.registry.entity(id).ok_or(ObjectError::NoSuchObject(id))?;
    let current = a
        .objects
        .get(entity)
        .map_err(|_| ObjectError::NoSuchObject(id))?
        .clone();
    let mut next = current.clone();
    match *command {
        ObjectCommand::SetPosition { position, .. } => {
            if current.attachment.is_some() {
                check_offset(position)?;
            } else {
                check_position(position)?;
            }
            next.pose = current.pose_at(now);
            next.pose.position = position;
            next.motion = None;
        }
        ObjectCommand::SetRotation { rotation, .. } => {
            check_rotation(rotation)?;
            next.pose = current.pose_at(now);
            next.pose.rotation = rotation;
            next.motion = None;
        }
        ObjectCommand::SetPose { pose, .. } => {
            if current.attachment.is_some() {
                return Err(ObjectError::Attached);
            }
            check_position(pose.position)?;
            check_rotation(pose.rotation)?;
            next.pose = pose;
            next.motion = None;
        }
        ObjectCommand::Move { to, duration, .. } => {
            if current.attachment.is_some() {
                return Err(ObjectError::Attached);
            }
            check_position(to.position)?;
            check_rotation(to.rotation)?;
            let ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
            if ms > u64::from(MOVE_MS_MAX) {
                return Err(ObjectError::MoveTooLong(ms));
            }
            next.pose = current.pose_at(now);
            next.motion = (!duration.is_zero()).then_some(Motion {
                from: next.pose,
                to,
                start: now,
                duration,
            });
            if duration.is_zero() {
                next.pose = to;
            }
        }
        ObjectCommand::Stop { .. } => {
            if current.motion.is_none() {
                return Ok(());
            }
            next.pose = current.pose_at(now);
            next.motion = None;
        }
        ObjectCommand::Attach {
            parent,
            offset,
            bone,
            in_place,
            ..
        } => {
            check_attach(
                id,
                parent,
                bone,
                in_place,
                &a.registry,
                &a.objects,
                &a.players,
                &a.vehicles,
            )?;
            let own = if in_place {
                let (world, _) = world_pose(
                    &current,
                    now,
                    &a.registry,
                    &a.objects,
                    &a.players,
                    &a.vehicles,
                )
                .ok_or(ObjectError::NoSuchObject(id))?;
                let probe = Object {
                    attachment: Some(Attachment { parent, bone }),
                    pose: Pose::default(),
                    motion: None,
                    ..current.clone()
                };
                let (base, _) = world_pose(
                    &probe,
                    now,
                    &a.registry,
                    &a.objects,
                    &a.players,
                    &a.vehicles,
                )
                .ok_or(ObjectError::NoSuchPlayer)?;
                base.relative(&world)
            } else {
                offset
            };
            check_offset(own.position)?;
            check_rotation(own.rotation)?;
            next.pose = own;
            next.motion = None;
            next.attachment = Some(Attachment { parent, bone });
        }
        ObjectCommand::Detach { .. } => {
            if current.attachment.is_none() {
                return Ok(());
            }
            let (world, scope) = world_pose(
                &current,
                now,
                &a.registry,
                &a.objects,
                &a.players,
                &a.vehicles,
            )
            .ok_or(ObjectError::NoSuchObject(id))?;
            check_position(world.position)?;
            next.pose = world;
            next.scope = scope;
            next.attachment = None;
        }
        ObjectCommand::SetBroken { broken, .. } => {
            if !models::is_breakable(u32::from(current.model)) {
                return Err(ObjectError::NotBreakable(u32::from(current.model)));
            }
            if broken && current.on_bone() {
                return Err(ObjectError::BrokenOnBone);
            }
            if current.broken == broken {
                return Ok(());
            }
            next.broken = broken;
        }
        ObjectCommand::Create { .. } | ObjectCommand::Destroy { .. } => {}
    }
    next.rev = next.rev.next();
    if let Ok(mut object) = a.objects.get_mut(entity) {
        *object = next;
    }
    a.stream.resend.insert(id);
    a.registry.touch_object(id);
    Ok(())
}

/// Movements that reached their target: the object stands there, and `object_move_end`
/// is raised (the clients meet the end on their own clocks; no packet).
pub(super) fn end_moves(
    time: Res<Time>,
    mut registry: ResMut<Objects>,
    mut objects: Query<&mut Object>,
    mut ended: MessageWriter<ObjectMoveEnded>,
) {
    let now = time.elapsed();
    for mut object in &mut objects {
        if let Some(motion) = object.motion
            && motion.ended(now)
        {
            object.pose = motion.to;
            object.motion = None;
            ended.write(ObjectMoveEnded { id: object.id });
            registry.touch_object(object.id);
        }
    }
}

/// Objects whose parent or viewer went (a destroyed or stopped object, a player who left)
/// go too, with their chains (world.md: "When the parent goes, the object is deleted with
/// its whole chain"); the ids of despawned objects leave the registry.
pub(crate) fn forget_gone(
    mut commands: Commands,
    mut left: MessageReader<PlayerDisconnected>,
    mut registry: ResMut<Objects>,
    mut stream: ResMut<ObjectStream>,
    objects: Query<(Entity, &Object)>,
    players: Query<(), With<Player>>,
    vehicles: VehicleParents,
    mut removed_vehicles: RemovedComponents<dlmp_vehicle::Vehicle>,
) {
    let left: Vec<Entity> = left.read().map(|d| d.player).collect();
    let vehicles_removed = removed_vehicles.read().count() > 0;
    let mut despawned = Vec::new();
    registry.by_id.retain(|&id, e| {
        let there = objects.contains(*e);
        if !there {
            despawned.push(id);
        }
        there
    });
    for id in despawned.iter().copied() {
        registry.touch_object(id);
    }
    if left.is_empty() && !vehicles_removed && stream.gone.is_empty() && despawned.is_empty() {
        return;
    }
    let player_gone = |e: Entity| left.contains(&e) || !players.contains(e);
    let mut gone: HashSet<ObjectId> = stream.gone.iter().copied().collect();
    gone.extend(
        objects
            .iter()
            .filter(|(_, o)| !registry.by_id.contains_key(&o.id))
            .map(|(_, o)| o.id),
    );
    loop {
        let mut more = false;
        for (entity, object) in &objects {
            if gone.contains(&object.id) && registry.by_id.contains_key(&object.id) {
                registry.by_id.remove(&object.id);
                registry.touch_object(object.id);
                commands.entity(entity).despawn();
                more = true;
                continue;
            }
            if gone.contains(&object.id) {
                continue;
            }
            let orphan = match object.attachment.map(|a| a.parent) {
                Some(Parent::Object(p)) => gone.contains(&p) || !registry.by_id.contains_key(&p),
                Some(Parent::Player(p)) => player_gone(p),
                Some(Parent::Vehicle(v)) => !vehicles.exists(v),
                None => false,
            };
            if orphan || object.viewer.is_some_and(player_gone) {
                gone.insert(object.id);
                more = true;
            }
        }
        if !more {
            break;
        }
    }
    stream.gone.clear();
}
