//! Objects (world.md ObjectState): shown, moved, attached, broken and hidden by the
//! server; copies never move or break by themselves and the client never reports on them.

use super::shared::{self, EntityRev};
use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::EventId;
use crate::wire::Validate;
use crate::{packet, wire_enum, wire_newtype};

wire_newtype! {
    /// A server object id, monotonic and never reused.
    pub struct ObjectId(u32);
}

wire_enum! {
    /// What an object is attached to; `attach_id` is then a player, vehicle or object id.
    #[derive(Default)]
    pub enum ObjectAttachKind: u8 {
        #[default]
        None = 0,
        Player = 1,
        Vehicle = 2,
        Object = 3,
    }
}

wire_enum! {
    /// The body bone an object on a player hangs from (world.md, "Bones"); offset and
    /// rotation are in the bone's own frame.
    #[derive(Default)]
    pub enum Bone: u8 {
        /// The body's root; the only value off a player.
        #[default]
        Root = 0,
        Spine = 1,
        Head = 2,
        LeftUpperArm = 3,
        RightUpperArm = 4,
        LeftHand = 5,
        RightHand = 6,
        LeftThigh = 7,
        RightThigh = 8,
        LeftFoot = 9,
        RightFoot = 10,
        RightCalf = 11,
        LeftCalf = 12,
        LeftForearm = 13,
        RightForearm = 14,
        LeftClavicle = 15,
        RightClavicle = 16,
        Neck = 17,
    }
}

/// The highest object model id.
pub const OBJECT_MODEL_MAX: u16 = 19999;
/// The highest interior.
pub const INTERIOR_MAX: i32 = 255;
/// The largest |angle| of a rotation, in degrees.
pub const ROTATION_MAX: f32 = 3600.0;
/// The largest |offset| of an attached object on any axis, in meters.
pub const OFFSET_MAX: f32 = 1000.0;
/// The longest movement, in ms.
pub const MOVE_MS_MAX: u32 = 3_600_000;

packet! {
    /// ObjectState (0x8A), Server → Client, reliable, per player: shows or changes an
    /// object (active = 1; a repeated show carries the movement time left) or hides it
    /// (active = 0, only `object_id` matters).
    pub struct ObjectState = 0x8A, ServerToClient {
        pub event_id: EventId,
        pub object_id: ObjectId,
        pub active: bool,
        /// From the server's model table, at most 19999.
        pub model: u16,
        /// Current pose (x, y, z) within world bounds; when attached, the offset from the
        /// parent, at most 1000 on any axis.
        pub pos: Vec3,
        /// Degrees (rx, ry, rz), |angle| ≤ 3600, applied as Rz Rx Ry; relative to the parent
        /// when attached.
        pub rot: Vec3,
        /// 0..=255: the interior of the object's scope or of its parent.
        pub interior: i32,
        pub attach_kind: ObjectAttachKind,
        /// A player, vehicle or object id by `attach_kind`; 0 when not attached.
        pub attach_id: u32,
        /// Time left to the target, 0 = standing; up to 3_600_000. Never on an attached
        /// object.
        pub move_ms: u32,
        /// Movement target (to_x, to_y, to_z) within world bounds.
        pub to: Vec3,
        /// Target rotation (to_rx, to_ry, to_rz), degrees, |angle| ≤ 3600.
        pub to_rot: Vec3,
        /// Object revision; echoed by EntityEdit.
        pub rev: EntityRev,
        /// Only on a player (attach_kind = 1) can it be other than the root.
        pub bone: Bone,
        /// Broken objects have no collision; never on a bone.
        pub broken: bool,
    }
}

impl Validate for ObjectState {
    fn validate(&self) -> Result<(), FieldError> {
        if !self.active {
            return Ok(());
        }
        check::range("model", self.model, 0..=OBJECT_MODEL_MAX)?;
        let attached = self.attach_kind != ObjectAttachKind::None;
        if attached {
            shared::within_abs("pos", &self.pos, OFFSET_MAX)?;
        } else {
            shared::in_world("pos", &self.pos)?;
        }
        shared::within_abs("rot", &self.rot, ROTATION_MAX)?;
        check::range("interior", self.interior, 0..=INTERIOR_MAX)?;
        check::ensure(attached || self.attach_id == 0, "attach_id", Rule::Reserved)?;
        check::range("move_ms", self.move_ms, 0..=MOVE_MS_MAX)?;
        check::ensure(!attached || self.move_ms == 0, "move_ms", Rule::Combination)?;
        if !attached {
            shared::in_world("to", &self.to)?;
        }
        shared::within_abs("to_rot", &self.to_rot, ROTATION_MAX)?;
        check::ensure(
            self.bone == Bone::Root || self.attach_kind == ObjectAttachKind::Player,
            "bone",
            Rule::Combination,
        )?;
        check::ensure(
            !self.broken || self.bone == Bone::Root,
            "broken",
            Rule::Combination,
        )
    }
}

impl ObjectState {
    /// The hide of `object_id`: active = 0, the other fields zero.
    pub fn hide(event_id: EventId, object_id: ObjectId) -> Self {
        ObjectState {
            event_id,
            object_id,
            active: false,
            model: 0,
            pos: Vec3::ZERO,
            rot: Vec3::ZERO,
            interior: 0,
            attach_kind: ObjectAttachKind::None,
            attach_id: 0,
            move_ms: 0,
            to: Vec3::ZERO,
            to_rot: Vec3::ZERO,
            rev: EntityRev(0),
            bone: Bone::Root,
            broken: false,
        }
    }
}
