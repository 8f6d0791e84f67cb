//! Fixture values for the object family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::world::object::*;
use crate::world::shared::EntityRev;

/// A gate sliding down, 4.5 s from its target.
pub fn object_state() -> ObjectState {
    ObjectState {
        event_id: EventId(301),
        object_id: ObjectId(88_123),
        active: true,
        model: 980,
        pos: Vec3::new(1588.5, -1638.25, 15.0),
        rot: Vec3::new(0.0, 0.0, 90.0),
        interior: 0,
        attach_kind: ObjectAttachKind::None,
        attach_id: 0,
        move_ms: 4500,
        to: Vec3::new(1588.5, -1638.25, 8.5),
        to_rot: Vec3::new(0.0, 0.0, 90.0),
        rev: EntityRev(7),
        bone: Bone::Root,
        broken: false,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![sample("object_state.bin", object_state())]
}
