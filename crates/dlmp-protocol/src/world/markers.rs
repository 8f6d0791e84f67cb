//! Per-player markers (world.md Checkpoint, Blip, GangZone, ColshapeShape), all under the
//! page's active contract: active = 1 shows or replaces, active = 0 hides and only the id
//! matters.

use super::shared::{self, AttachKind, EntityRev, MarkerId};
use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::EventId;
use crate::wire::Validate;
use crate::{packet, wire_enum, wire_newtype};

wire_enum! {
    /// Checkpoint kinds: ground ones are cylinders, air ones spheres.
    #[derive(Default)]
    pub enum CheckpointKind: u8 {
        #[default]
        Normal = 0,
        Race = 1,
        RaceFinish = 2,
        Air = 3,
        AirFinish = 4,
    }
}

/// The largest checkpoint radius, in meters.
pub const CHECKPOINT_RADIUS_MAX: f32 = 100.0;

packet! {
    /// Checkpoint (0x67), Server → Client, reliable, per player: the recipient's
    /// checkpoint; entry and exit are computed by the server.
    pub struct Checkpoint = 0x67, ServerToClient {
        pub event_id: EventId,
        /// Shared counter with Label3D, Blip and GangZone.
        pub checkpoint_id: MarkerId,
        pub active: bool,
        pub kind: CheckpointKind,
        /// Within world bounds.
        pub pos: Vec3,
        /// Where it points (next_x, next_y, next_z); `pos` when there is no next point.
        pub next: Vec3,
        /// Meters, (0, 100].
        pub radius: f32,
        /// 0xRRGGBB.
        pub color: u32,
    }
}

impl Validate for Checkpoint {
    fn validate(&self) -> Result<(), FieldError> {
        if !self.active {
            return Ok(());
        }
        shared::in_world("pos", &self.pos)?;
        shared::in_world("next", &self.next)?;
        check::ensure(
            self.radius > 0.0 && self.radius <= CHECKPOINT_RADIUS_MAX,
            "radius",
            Rule::OutOfRange,
        )?;
        shared::rgb("color", self.color)
    }
}

impl Checkpoint {
    /// The hide of `checkpoint_id`: active = 0, the other fields zero.
    pub fn hide(event_id: EventId, checkpoint_id: MarkerId) -> Self {
        Checkpoint {
            event_id,
            checkpoint_id,
            active: false,
            kind: CheckpointKind::Normal,
            pos: Vec3::ZERO,
            next: Vec3::ZERO,
            radius: 0.0,
            color: 0,
        }
    }
}

wire_newtype! {
    /// Blip flags; only [`BlipFlags::PULSE`] and [`BlipFlags::SHORT_RANGE`] exist.
    pub struct BlipFlags(u8);
}

impl BlipFlags {
    /// Pulses on the pause map (the radar never pulses).
    pub const PULSE: BlipFlags = BlipFlags(1 << 0);
    /// On the radar only within its range; on the map always.
    pub const SHORT_RANGE: BlipFlags = BlipFlags(1 << 1);
    /// Every known bit.
    pub const KNOWN: BlipFlags = BlipFlags(Self::PULSE.0 | Self::SHORT_RANGE.0);
}

/// The highest blip icon; 0 is a dot in the blip's color.
pub const BLIP_SPRITE_MAX: u8 = 63;
/// The smallest blip size multiplier.
pub const BLIP_SIZE_MIN: f32 = 0.25;
/// The largest blip size multiplier.
pub const BLIP_SIZE_MAX: f32 = 4.0;

packet! {
    /// Blip (0x68), Server → Client, reliable, per player: a marker on the radar and the
    /// map, standing or attached to a player or vehicle.
    pub struct Blip = 0x68, ServerToClient {
        pub event_id: EventId,
        /// Shared counter with Label3D, Checkpoint and GangZone.
        pub blip_id: MarkerId,
        pub active: bool,
        /// Icon 1..=63, 0 = a dot in `color`; always 0 when attached.
        pub sprite: u8,
        /// 0xRRGGBB.
        pub color: u32,
        /// Within world bounds; when attached, where the entity was by the server's data.
        pub pos: Vec3,
        pub attach_kind: AttachKind,
        /// A player id or vehicle id, by `attach_kind`.
        pub attach_id: u32,
        /// Multiplier of the normal size, 0.25..=4; checked on hides too.
        pub size: f32,
        /// Known bits only; checked on hides too.
        pub flags: BlipFlags,
    }
}

impl Validate for Blip {
    fn validate(&self) -> Result<(), FieldError> {
        // The page rejects these two whatever `active` is.
        check::range("size", self.size, BLIP_SIZE_MIN..=BLIP_SIZE_MAX)?;
        check::bits_within("flags", self.flags.0, BlipFlags::KNOWN.0)?;
        if !self.active {
            return Ok(());
        }
        check::range("sprite", self.sprite, 0..=BLIP_SPRITE_MAX)?;
        check::ensure(
            self.sprite == 0 || self.attach_kind == AttachKind::None,
            "sprite",
            Rule::Combination,
        )?;
        shared::rgb("color", self.color)?;
        shared::in_world("pos", &self.pos)
    }
}

impl Blip {
    /// The hide of `blip_id`: active = 0, size 1 (the page checks it on hides too), the
    /// other fields zero.
    pub fn hide(event_id: EventId, blip_id: MarkerId) -> Self {
        Blip {
            event_id,
            blip_id,
            active: false,
            sprite: 0,
            color: 0,
            pos: Vec3::ZERO,
            attach_kind: AttachKind::None,
            attach_id: 0,
            size: 1.0,
            flags: BlipFlags(0),
        }
    }
}

packet! {
    /// GangZone (0x71), Server → Client, reliable, per player: a colored rectangle on the
    /// radar and the map; a later zone_id is drawn over an earlier one.
    pub struct GangZone = 0x71, ServerToClient {
        pub event_id: EventId,
        /// Shared counter with Label3D, Checkpoint and Blip.
        pub zone_id: MarkerId,
        pub active: bool,
        /// Moves from `color` to `flash_color` and back over 1024 ms.
        pub flashing: bool,
        /// 0xRRGGBB.
        pub color: u32,
        pub alpha: u8,
        /// 0xRRGGBB; used while flashing.
        pub flash_color: u32,
        /// Corners within world bounds; max above min on both axes.
        pub min_x: f32,
        pub min_y: f32,
        pub max_x: f32,
        pub max_y: f32,
        /// Grows with every change of the zone.
        pub rev: EntityRev,
    }
}

impl Validate for GangZone {
    fn validate(&self) -> Result<(), FieldError> {
        if !self.active {
            return Ok(());
        }
        shared::rgb("color", self.color)?;
        shared::rgb("flash_color", self.flash_color)?;
        shared::in_world_xy("min_x", self.min_x)?;
        shared::in_world_xy("min_y", self.min_y)?;
        shared::in_world_xy("max_x", self.max_x)?;
        shared::in_world_xy("max_y", self.max_y)?;
        check::ensure(self.max_x > self.min_x, "max_x", Rule::Combination)?;
        check::ensure(self.max_y > self.min_y, "max_y", Rule::Combination)
    }
}

impl GangZone {
    /// The hide of `zone_id`: active = 0, the other fields zero.
    pub fn hide(event_id: EventId, zone_id: MarkerId) -> Self {
        GangZone {
            event_id,
            zone_id,
            active: false,
            flashing: false,
            color: 0,
            alpha: 0,
            flash_color: 0,
            min_x: 0.0,
            min_y: 0.0,
            max_x: 0.0,
            max_y: 0.0,
            rev: EntityRev(0),
        }
    }
}

wire_newtype! {
    /// A server colshape id.
    pub struct ColshapeId(u32);
}

wire_enum! {
    /// The form of a colshape, which decides what `a` and `b` hold.
    #[derive(Default)]
    pub enum ColshapeForm: u8 {
        /// a = center, b = (radius, 0, 0).
        #[default]
        Sphere = 0,
        /// a = center of the base, b = (radius, height, 0).
        Cylinder = 1,
        /// Axis-aligned: a = min, b = max.
        Box = 2,
    }
}

/// The largest colshape radius or height.
pub const COLSHAPE_EXTENT_MAX: f32 = 12000.0;

/// A colshape form with its values, as [`ColshapeShape`] carries it in `form`, `a`, `b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    Sphere {
        center: Vec3,
        radius: f32,
    },
    Cylinder {
        base: Vec3,
        radius: f32,
        height: f32,
    },
    Box {
        min: Vec3,
        max: Vec3,
    },
}

packet! {
    /// ColshapeShape (0x95), Server → Client, reliable, per player: the outline of a
    /// colshape, drawn only during an edit session; who is inside is server state.
    pub struct ColshapeShape = 0x95, ServerToClient {
        pub event_id: EventId,
        pub colshape_id: ColshapeId,
        pub active: bool,
        pub form: ColshapeForm,
        /// Sphere: center; cylinder: center of the base; box: min. Within world bounds.
        pub a: Vec3,
        /// Sphere: (radius, 0, 0); cylinder: (radius, height, 0); box: max, within world
        /// bounds. Radius and height in (0, 12000].
        pub b: Vec3,
        /// Grows with every change of the form.
        pub rev: EntityRev,
    }
}

/// Bit-exact zero: -0.0 is not the zero the page means by an unused field.
fn is_zero(v: f32) -> bool {
    v.to_bits() == 0
}

fn extent(field: &'static str, v: f32) -> Result<(), FieldError> {
    check::ensure(v > 0.0 && v <= COLSHAPE_EXTENT_MAX, field, Rule::OutOfRange)
}

impl Validate for ColshapeShape {
    fn validate(&self) -> Result<(), FieldError> {
        if !self.active {
            return Ok(());
        }
        let (a, b) = (&self.a, &self.b);
        shared::in_world("a", a)?;
        match self.form {
            ColshapeForm::Sphere => {
                extent("b", b.x)?;
                check::ensure(is_zero(b.y) && is_zero(b.z), "b", Rule::Reserved)
            }
            ColshapeForm::Cylinder => {
                extent("b", b.x)?;
                extent("b", b.y)?;
                check::ensure(is_zero(b.z), "b", Rule::Reserved)
            }
            ColshapeForm::Box => {
                shared::in_world("b", b)?;
                check::ensure(a.x < b.x && a.y < b.y && a.z < b.z, "b", Rule::Combination)
            }
        }
    }
}

impl ColshapeShape {
    /// The show of `shape`: active = 1, `form`, `a` and `b` laid out as the page says.
    pub fn show(event_id: EventId, colshape_id: ColshapeId, shape: Shape, rev: EntityRev) -> Self {
        let (form, a, b) = match shape {
            Shape::Sphere { center, radius } => {
                (ColshapeForm::Sphere, center, Vec3::new(radius, 0.0, 0.0))
            }
            Shape::Cylinder {
                base,
                radius,
                height,
            } => (ColshapeForm::Cylinder, base, Vec3::new(radius, height, 0.0)),
            Shape::Box { min, max } => (ColshapeForm::Box, min, max),
        };
        ColshapeShape {
            event_id,
            colshape_id,
            active: true,
            form,
            a,
            b,
            rev,
        }
    }

    /// The hide of `colshape_id`: active = 0, the other fields zero.
    pub fn hide(event_id: EventId, colshape_id: ColshapeId) -> Self {
        ColshapeShape {
            event_id,
            colshape_id,
            active: false,
            form: ColshapeForm::Sphere,
            a: Vec3::ZERO,
            b: Vec3::ZERO,
            rev: EntityRev(0),
        }
    }

    /// The form with its values, read from `form`, `a` and `b`.
    pub fn shape(&self) -> Shape {
        let (a, b) = (self.a, self.b);
        match self.form {
            ColshapeForm::Sphere => Shape::Sphere {
                center: a,
                radius: b.x,
            },
            ColshapeForm::Cylinder => Shape::Cylinder {
                base: a,
                radius: b.x,
                height: b.y,
            },
            ColshapeForm::Box => Shape::Box { min: a, max: b },
        }
    }
}
