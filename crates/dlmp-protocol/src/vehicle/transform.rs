//! The gamemode's pose and paint of a vehicle (vehicles.md, VehicleTransform and
//! VehicleColors).

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, Revision, Seq, VehicleEpoch, VehicleId};
use crate::packet;
use crate::wire::Validate;

use super::sync::MAX_COLOR;

/// `flags` bits of a VehicleTransform.
pub mod transform_flag {
    pub const POSITION: u8 = 1 << 0;
    pub const ROTATION: u8 = 1 << 1;
    pub const VELOCITY: u8 = 1 << 2;
    pub const ANGULAR_VELOCITY: u8 = 1 << 3;
    /// Frozen: only with POSITION and ROTATION.
    pub const FROZEN: u8 = 1 << 4;
    /// Bits 5..7 are 0.
    pub const ALL: u8 = (1 << 5) - 1;
}

/// |x|, |y| ≤ 6000 (VehicleFrame's world bound).
pub const WORLD_XY: f32 = 6000.0;
/// z in -200..=4000.
pub const WORLD_Z_MIN: f32 = -200.0;
pub const WORLD_Z_MAX: f32 = 4000.0;
/// |norm − 1| of a rotation quaternion.
pub const ROT_NORM_TOLERANCE: f32 = 0.1;
/// Velocity length, units per physics step.
pub const MAX_MOVE_SPEED: f32 = 5.0;
/// Angular velocity length, radians per physics step.
pub const MAX_TURN_SPEED: f32 = 1.0;

fn inside_world(p: &Vec3) -> bool {
    p.x.abs() <= WORLD_XY && p.y.abs() <= WORLD_XY && (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&p.z)
}

fn bit_zero(v: &[f32]) -> bool {
    v.iter().all(|f| f.to_bits() == 0)
}

packet! {
    /// VehicleTransform (0x54), Server → Client: the gamemode's position, rotation,
    /// velocities or freeze, applied once to the copy of this epoch; critical.
    pub struct VehicleTransform = 0x54, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        pub epoch: VehicleEpoch,
        /// The vehicle's relay serial at the command; recipients raise their mark to it.
        pub relay_seq: Seq,
        /// The new transform revision; copies echo it in VehicleState.
        pub pose_rev: Revision,
        /// [`transform_flag`] bits; a field whose bit is clear is zero.
        pub flags: u8,
        /// World position, inside the world.
        pub pos: Vec3,
        /// Unit quaternion x, y, z, w; |norm − 1| ≤ 0.1.
        pub rot: [f32; 4],
        /// Game units per physics step, length ≤ 5.
        pub move_speed: Vec3,
        /// Radians per physics step, length ≤ 1.
        pub turn_speed: Vec3,
    }
}

impl Validate for VehicleTransform {
    fn validate(&self) -> Result<(), FieldError> {
        use transform_flag::*;
        check::bits_within("flags", self.flags, ALL)?;
        check::ensure(
            self.flags & FROZEN == 0 || self.flags & (POSITION | ROTATION) == POSITION | ROTATION,
            "flags",
            Rule::Combination,
        )?;
        let set = |bit: u8| self.flags & bit != 0;
        let vec = |v: &Vec3| [v.x, v.y, v.z];
        if set(POSITION) {
            check::ensure(inside_world(&self.pos), "pos", Rule::OutOfRange)?;
        } else {
            check::ensure(bit_zero(&vec(&self.pos)), "pos", Rule::Reserved)?;
        }
        if set(ROTATION) {
            let norm = self.rot.iter().map(|c| c * c).sum::<f32>().sqrt();
            check::ensure(
                (norm - 1.0).abs() <= ROT_NORM_TOLERANCE,
                "rot",
                Rule::OutOfRange,
            )?;
        } else {
            check::ensure(bit_zero(&self.rot), "rot", Rule::Reserved)?;
        }
        if set(VELOCITY) {
            check::ensure(
                self.move_speed.length() <= MAX_MOVE_SPEED,
                "move_speed",
                Rule::OutOfRange,
            )?;
        } else {
            check::ensure(
                bit_zero(&vec(&self.move_speed)),
                "move_speed",
                Rule::Reserved,
            )?;
        }
        if set(ANGULAR_VELOCITY) {
            check::ensure(
                self.turn_speed.length() <= MAX_TURN_SPEED,
                "turn_speed",
                Rule::OutOfRange,
            )
        } else {
            check::ensure(
                bit_zero(&vec(&self.turn_speed)),
                "turn_speed",
                Rule::Reserved,
            )
        }
    }
}

packet! {
    /// VehicleColors (0x55), Server → Client: the gamemode repainted a vehicle that is not
    /// a wreck; recipients reapply the paintjob.
    pub struct VehicleColors = 0x55, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// 0..=127.
        pub color1: u8,
        /// 0..=127.
        pub color2: u8,
    }
}

impl Validate for VehicleColors {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("color1", self.color1, 0..=MAX_COLOR)?;
        check::range("color2", self.color2, 0..=MAX_COLOR)
    }
}
