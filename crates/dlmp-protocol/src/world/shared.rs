//! What several world.md packets share: the marker id counter, entity revisions, the
//! attachment kinds of labels and blips, world bounds and 0xRRGGBB colors.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::serial::Serial;
use crate::{wire_enum, wire_newtype};

wire_newtype! {
    /// The id of a Label3D, Checkpoint, Blip or GangZone: one server counter for the four,
    /// monotonic and never reused (world.md Label3D).
    pub struct MarkerId(u32);
    /// `u32 rev` of a pickup, gang zone, colshape or object: grows with every change; the
    /// revision an EntityEdit of the entity carries.
    pub struct EntityRev(u32);
}

impl Serial for EntityRev {
    fn is_newer_than(self, other: Self) -> bool {
        self.0.is_newer_than(other.0)
    }
    fn next(self) -> Self {
        EntityRev(self.0.next())
    }
}

wire_enum! {
    /// What a Label3D or Blip is attached to; `attach_id` is then a player or vehicle id.
    #[derive(Default)]
    pub enum AttachKind: u8 {
        #[default]
        None = 0,
        Player = 1,
        Vehicle = 2,
    }
}

/// World bounds (world.md, introduction): |x|, |y| ≤ 6000.
pub const WORLD_XY: f32 = 6000.0;
/// World bounds: z from −200.
pub const WORLD_Z_MIN: f32 = -200.0;
/// World bounds: z up to 4000.
pub const WORLD_Z_MAX: f32 = 4000.0;
/// The largest `u32 color` written 0xRRGGBB.
pub const RGB_MAX: u32 = 0x00FF_FFFF;

/// `p` lies within world bounds ([`Rule::OutOfRange`]).
pub fn in_world(field: &'static str, p: &Vec3) -> Result<(), FieldError> {
    check::ensure(
        p.x.abs() <= WORLD_XY
            && p.y.abs() <= WORLD_XY
            && (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&p.z),
        field,
        Rule::OutOfRange,
    )
}

/// One x or y coordinate lies within world bounds ([`Rule::OutOfRange`]).
pub fn in_world_xy(field: &'static str, v: f32) -> Result<(), FieldError> {
    check::ensure(v.abs() <= WORLD_XY, field, Rule::OutOfRange)
}

/// Every axis of `v` has an absolute value of at most `limit` ([`Rule::OutOfRange`]).
pub fn within_abs(field: &'static str, v: &Vec3, limit: f32) -> Result<(), FieldError> {
    check::ensure(
        [v.x, v.y, v.z].iter().all(|c| c.abs() <= limit),
        field,
        Rule::OutOfRange,
    )
}

/// A color written 0xRRGGBB: the top byte is zero ([`Rule::OutOfRange`], as the page
/// words it: "a color out of range").
pub fn rgb(field: &'static str, color: u32) -> Result<(), FieldError> {
    check::range(field, color, 0..=RGB_MAX)
}
