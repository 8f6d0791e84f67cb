//! The gamemode's tuning and handling of a vehicle (vehicles.md, VehicleTuning and
//! VehicleHandling): whole-state packets, applied by every copy.

use core::ops::RangeInclusive;

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, VehicleId};
use crate::packet;
use crate::text::FixedText;
use crate::wire::Validate;

/// Part kinds, as the game numbers them (the index into `components`).
pub mod kind {
    pub const HOOD: usize = 0;
    pub const VENTS: usize = 1;
    pub const SPOILER: usize = 2;
    pub const SIDE_SKIRTS: usize = 3;
    pub const FRONT_BULL_BAR: usize = 4;
    pub const REAR_BULL_BAR: usize = 5;
    pub const LAMPS: usize = 6;
    pub const ROOF: usize = 7;
    pub const NITRO: usize = 8;
    pub const HYDRAULICS: usize = 9;
    pub const STEREO: usize = 10;
    /// Unused by the game.
    pub const UNUSED: usize = 11;
    pub const WHEELS: usize = 12;
    pub const EXHAUST: usize = 13;
    pub const FRONT_BUMPER: usize = 14;
    pub const REAR_BUMPER: usize = 15;
    pub const MISC: usize = 16;
    pub const COUNT: usize = 17;
}

/// Part ids; 0 in `components` is no part.
pub const PART_IDS: RangeInclusive<u16> = 1000..=1193;
/// The highest paintjob; [`NO_PAINTJOB`] is plain colors.
pub const MAX_PAINTJOB: u8 = 7;
pub const NO_PAINTJOB: u8 = 0xFF;
/// The highest dirt level; [`NO_DIRT`] leaves the game's.
pub const MAX_DIRT: u8 = 15;
pub const NO_DIRT: u8 = 0xFF;
/// `flags` bit0: the taxi light (fits only 420 and 438).
pub const TAXI_LIGHT: u8 = 1 << 0;
/// The most nitro charges.
pub const MAX_NITRO_CHARGES: u8 = 100;

/// A plate character: A-Z, 0-9, space.
fn plate_char(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
}

packet! {
    /// VehicleTuning (0x52), Server → Client: the whole tuning state, after a change and
    /// after every show of a tuned vehicle; critical.
    pub struct VehicleTuning = 0x52, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// The part of each [`kind`], 0 = none, else 1000..=1193.
        pub components: [u16; kind::COUNT],
        /// 0..=7, or [`NO_PAINTJOB`].
        pub paintjob: u8,
        /// Exactly 8 of A-Z, 0-9, space; or empty (all 0): the game's random plate.
        pub plate: FixedText<8>,
        /// 0..=15, or [`NO_DIRT`].
        pub dirt: u8,
        /// [`TAXI_LIGHT`].
        pub flags: u8,
        /// Nitro charges left, 0..=100; 0 without a nitro part.
        pub nitro: u8,
    }
}

impl Validate for VehicleTuning {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(
            self.components
                .iter()
                .all(|&c| c == 0 || PART_IDS.contains(&c)),
            "components",
            Rule::OutOfRange,
        )?;
        check::ensure(
            self.paintjob <= MAX_PAINTJOB || self.paintjob == NO_PAINTJOB,
            "paintjob",
            Rule::OutOfRange,
        )?;
        let plate = self.plate.as_str().as_bytes();
        check::ensure(
            plate.is_empty() || (plate.len() == 8 && plate.iter().all(|&c| plate_char(c))),
            "plate",
            Rule::BadText,
        )?;
        check::ensure(
            self.dirt <= MAX_DIRT || self.dirt == NO_DIRT,
            "dirt",
            Rule::OutOfRange,
        )?;
        check::bits_within("flags", self.flags, TAXI_LIGHT)?;
        check::range("nitro", self.nitro, 0..=MAX_NITRO_CHARGES)?;
        check::ensure(
            self.nitro == 0 || self.components[kind::NITRO] != 0,
            "nitro",
            Rule::Combination,
        )
    }
}

/// One settable handling property (VehicleHandling's table, HANDLING.CFG units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandlingProperty {
    pub name: &'static str,
    pub min: f32,
    pub max: f32,
    /// Only whole numbers (abs, number_of_gears).
    pub integer: bool,
}

const fn prop(name: &'static str, min: f32, max: f32, integer: bool) -> HandlingProperty {
    HandlingProperty {
        name,
        min,
        max,
        integer,
    }
}

/// The properties by index `i` (bit i of `mask`, `values[i]`).
pub const HANDLING_PROPERTIES: [HandlingProperty; 21] = [
    prop("mass", 1.0, 100_000.0, false),
    prop("turn_mass", 1.0, 10_000_000.0, false),
    prop("drag_coeff", 0.0, 200.0, false),
    prop("center_of_mass_x", -10.0, 10.0, false),
    prop("center_of_mass_y", -10.0, 10.0, false),
    prop("center_of_mass_z", -10.0, 10.0, false),
    prop("traction_multiplier", -100.0, 100.0, false),
    prop("traction_loss", 0.0, 100.0, false),
    prop("traction_bias", 0.0, 1.0, false),
    prop("brake_deceleration", 0.0, 1000.0, false),
    prop("brake_bias", 0.0, 1.0, false),
    prop("abs", 0.0, 1.0, true),
    prop("steering_lock", 0.0, 360.0, false),
    prop("suspension_force_level", 0.0, 100.0, false),
    prop("suspension_damping", 0.0, 100.0, false),
    prop("suspension_high_speed_damping", 0.0, 600.0, false),
    prop("collision_damage_multiplier", 0.0, 10.0, false),
    prop("max_velocity", 0.1, 1000.0, false),
    prop("engine_acceleration", 0.0, 1000.0, false),
    prop("engine_inertia", 0.01, 1000.0, false),
    prop("number_of_gears", 1.0, 5.0, true),
];

/// Bits 21..31 of `mask` are 0.
pub const HANDLING_MASK: u32 = (1 << HANDLING_PROPERTIES.len()) - 1;

packet! {
    /// VehicleHandling (0x53), Server → Client: the gamemode's handling properties on top
    /// of the model's; the whole state, critical.
    pub struct VehicleHandling = 0x53, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// Bit i: property i of [`HANDLING_PROPERTIES`] is set.
        pub mask: u32,
        /// A set property's value in its range; 0 for one not set.
        pub values: [f32; 21],
    }
}

impl Validate for VehicleHandling {
    fn validate(&self) -> Result<(), FieldError> {
        check::bits_within("mask", self.mask, HANDLING_MASK)?;
        for (i, (p, &v)) in HANDLING_PROPERTIES.iter().zip(&self.values).enumerate() {
            if self.mask & (1 << i) != 0 {
                check::range("values", v, p.min..=p.max)?;
                check::ensure(!p.integer || v.fract() == 0.0, "values", Rule::OutOfRange)?;
            } else {
                // Bit-exact: -0.0 is not the zero the page means.
                check::ensure(v.to_bits() == 0, "values", Rule::Reserved)?;
            }
        }
        Ok(())
    }
}
