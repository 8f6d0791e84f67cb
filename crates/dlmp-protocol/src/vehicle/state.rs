//! VehicleState (vehicles.md, VehicleFrame): the 156-byte state of a vehicle, carried by
//! VehicleFrame and RemoteVehicleFrame.
//!
//! Its validation is the page's table of coarse bounds ("Acceptance"): it depends only on
//! the state's own bytes, and the client clamps into it before sending and before applying
//! a relayed frame, so an out-of-bounds state fails decoding and is never encoded.

use core::f32::consts::{FRAC_PI_2, PI};

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{Revision, VehicleEpoch};
use crate::wire::Validate;
use crate::wire_struct;

/// The bits of [`VehicleState::flags`]. Bits outside [`flag::DEFINED`] decode: the server
/// clears them before the relay.
pub mod flag {
    pub const HANDBRAKE: u8 = 1 << 0;
    pub const HORN: u8 = 1 << 1;
    pub const SIREN: u8 = 1 << 2;
    /// A bicycle's bunny hop took off.
    pub const BICYCLE_HOP: u8 = 1 << 3;
    /// The water cannon of a Firetruck (407) or SWAT (601) sprays.
    pub const WATER_CANNON: u8 = 1 << 4;
    pub const TRAIN_DERAILED: u8 = 1 << 5;
    /// The police Maverick's (497) searchlight is on.
    pub const SEARCHLIGHT: u8 = 1 << 6;
    /// Every bit the page defines.
    pub const DEFINED: u8 = 0x7F;
}

/// The world's extent for a vehicle: |x|, |y| ≤ 6000, z in −200..=4000 (the frame bounds).
pub const WORLD_XY: f32 = 6000.0;
pub const WORLD_Z: core::ops::RangeInclusive<f32> = -200.0..=4000.0;
/// Largest |norm − 1| of a rotation quaternion.
pub const ROT_NORM_SLACK: f64 = 0.1;
/// Largest velocity, game units per physics step.
pub const MAX_MOVE_SPEED: f64 = 5.0;
/// Largest angular velocity, radians per physics step.
pub const MAX_TURN_SPEED: f64 = 1.0;

wire_struct! {
    /// The vehicle's state from its driver or syncer (156 bytes). Ranges below are the
    /// page's coarse bounds; "0 for other vehicles" is the server's per-model rewrite.
    #[derive(Copy)]
    pub struct VehicleState {
        /// World position; |x|, |y| ≤ 6000, z −200..=4000.
        pub pos: Vec3,
        /// Unit quaternion x, y, z, w (x right, y forward, z up); |norm − 1| ≤ 0.1.
        pub rot: [f32; 4],
        /// Velocity, units per physics step; length ≤ 5.
        pub move_speed: Vec3,
        /// Angular velocity, radians per physics step; length ≤ 1.
        pub turn_speed: Vec3,
        /// Steering input, −1.01..=1.01.
        pub raw_steer: f32,
        /// Steering angle of the wheels, radians, |·| ≤ π/2.
        pub steer: f32,
        /// −1.01..=1.01, negative = reverse.
        pub gas: f32,
        /// 0..=1.01.
        pub brake: f32,
        /// [`flag`] bits.
        pub flags: u8,
        /// Health at the sender, |·| ≤ 100000.
        pub health: f32,
        /// The vehicle generation the state belongs to.
        pub epoch: VehicleEpoch,
        /// Open share of bonnet, boot, LF, RF, LR, RR: 0 closed ..= 255 open.
        pub doors: [u8; 6],
        /// Bike rider's lean, −1.01 (forward) ..= 1.01 (back).
        pub lean: f32,
        /// Bike's sideways tilt, radians, |·| ≤ π/2.
        pub lean_angle: f32,
        /// Bicycle pedalling effort, 0..=100 (above 5 sprints).
        pub pedal: f32,
        /// Bicycle bunny hop charge, 0..=25.
        pub hop: f32,
        /// Flight controls, |·| ≤ 2 each.
        pub yaw: f32,
        pub pitch: f32,
        pub roll: f32,
        pub throttle: f32,
        /// Rotor / propeller speed, 0..=2.
        pub rotor: f32,
        /// Moving part (nozzle, boom, bed, ramp, blade, forks, cargo door), ≤ 20000.
        pub part: u16,
        /// Plane landing gear: 0 down ..= 255 up.
        pub gear: u8,
        /// Last gamemode health command the sender's copy took.
        pub health_rev: Revision,
        /// Turret yaw relative to the vehicle, radians, |·| ≤ π + 0.01.
        pub turret_yaw: f32,
        /// Turret pitch, radians, |·| ≤ π/2.
        pub turret_pitch: f32,
        /// Locomotive's distance along the track, meters, 0..=100000.
        pub rail: f32,
        /// Speed along the track, units per step, |·| ≤ 4.
        pub rail_speed: f32,
        /// Track 0..=3.
        pub track: u8,
        /// Winch rope wound in, 0..=1 (the game uses 0.01 lowered ..= 0.84 raised).
        pub rope: f32,
        /// Last gamemode siren switch the sender's copy took.
        pub siren_rev: Revision,
        /// Nitro level, |·| ≤ 1.01: 1 ready, −1..0 burning, 0..1 refilling.
        pub nitro: f32,
        /// 0 off, 1..=60 (20..=59 on, 60 posed) or 500..=504 raised.
        pub hydraulics: u16,
        /// Hydraulics pose axes, |·| ≤ 128.
        pub hydraulic_lr: i16,
        pub hydraulic_ud: i16,
        /// Last gamemode transform the sender's copy took.
        pub pose_rev: Revision,
    }
}

fn abs_within(field: &'static str, v: f32, max: f32) -> Result<(), FieldError> {
    check::range(field, v, -max..=max)
}

/// The squared norm, in f64 (each square is exact).
fn norm_sq(v: &[f32]) -> f64 {
    v.iter().map(|&c| f64::from(c) * f64::from(c)).sum::<f64>()
}

/// Whether `exact(norm)` holds for the norm `sqrt(norm_sq)`, where `exact` accepts the
/// norms in `lo..=hi` up to rounding. The square root is only taken when `norm_sq` lies
/// within a hair of `lo²` or `hi²`, where rounding decides; elsewhere the answer is the
/// same and squares suffice.
#[inline]
fn norm_within(norm_sq: f64, lo: f64, hi: f64, exact: impl FnOnce(f64) -> bool) -> bool {
    /// Far wider than the rounding of the squares, the sum and the square root.
    const HAIR: f64 = 1e-9;
    if norm_sq >= lo * lo * (1.0 + HAIR) && norm_sq <= hi * hi * (1.0 - HAIR) {
        true
    } else if norm_sq < lo * lo * (1.0 - HAIR) || norm_sq > hi * hi * (1.0 + HAIR) {
        false
    } else {
        exact(norm_sq.sqrt())
    }
}

/// `|v| ≤ max`, with one f32 rounding step of slack: a vector the client scaled to the
/// bound in f32 arithmetic passes.
fn length_within(v: &Vec3, max: f64) -> bool {
    let bound = max * (1.0 + f64::from(f32::EPSILON));
    norm_within(norm_sq(&[v.x, v.y, v.z]), 0.0, bound, |norm| norm <= bound)
}

/// A position inside the world (the frame bounds; VehicleTransform uses the same).
pub fn check_world_pos(field: &'static str, pos: &Vec3) -> Result<(), FieldError> {
    check::ensure(
        pos.x.abs() <= WORLD_XY && pos.y.abs() <= WORLD_XY && WORLD_Z.contains(&pos.z),
        field,
        Rule::OutOfRange,
    )
}

/// A rotation quaternion whose norm is within 0.1 of 1.
pub fn check_rotation(field: &'static str, rot: &[f32; 4]) -> Result<(), FieldError> {
    let ok = norm_within(
        norm_sq(rot),
        1.0 - ROT_NORM_SLACK,
        1.0 + ROT_NORM_SLACK,
        |norm| (norm - 1.0).abs() <= ROT_NORM_SLACK,
    );
    check::ensure(ok, field, Rule::OutOfRange)
}

/// A velocity of at most 5 units per step.
pub fn check_move_speed(field: &'static str, v: &Vec3) -> Result<(), FieldError> {
    check::ensure(length_within(v, MAX_MOVE_SPEED), field, Rule::OutOfRange)
}

/// An angular velocity of at most 1 radian per step.
pub fn check_turn_speed(field: &'static str, v: &Vec3) -> Result<(), FieldError> {
    check::ensure(length_within(v, MAX_TURN_SPEED), field, Rule::OutOfRange)
}

impl VehicleState {
    /// A vehicle standing still at `pos`: upright, full health, every control and part at
    /// rest, revisions and epoch 0 (a starting point for frames that change a few fields).
    pub fn at_rest(pos: Vec3) -> Self {
        VehicleState {
            pos,
            rot: [0.0, 0.0, 0.0, 1.0],
            move_speed: Vec3::ZERO,
            turn_speed: Vec3::ZERO,
            raw_steer: 0.0,
            steer: 0.0,
            gas: 0.0,
            brake: 0.0,
            flags: 0,
            health: 1000.0,
            epoch: VehicleEpoch(0),
            doors: [0; 6],
            lean: 0.0,
            lean_angle: 0.0,
            pedal: 0.0,
            hop: 0.0,
            yaw: 0.0,
            pitch: 0.0,
            roll: 0.0,
            throttle: 0.0,
            rotor: 0.0,
            part: 0,
            gear: 0,
            health_rev: Revision(0),
            turret_yaw: 0.0,
            turret_pitch: 0.0,
            rail: 0.0,
            rail_speed: 0.0,
            track: 0,
            rope: 0.0,
            siren_rev: Revision(0),
            nitro: 1.0,
            hydraulics: 0,
            hydraulic_lr: 0,
            hydraulic_ud: 0,
            pose_rev: Revision(0),
        }
    }
}

impl Validate for VehicleState {
    fn validate(&self) -> Result<(), FieldError> {
        check_world_pos("pos", &self.pos)?;
        check_rotation("rot", &self.rot)?;
        check_move_speed("move_speed", &self.move_speed)?;
        check_turn_speed("turn_speed", &self.turn_speed)?;
        abs_within("raw_steer", self.raw_steer, 1.01)?;
        abs_within("steer", self.steer, FRAC_PI_2)?;
        abs_within("gas", self.gas, 1.01)?;
        check::range("brake", self.brake, 0.0..=1.01)?;
        abs_within("health", self.health, 100_000.0)?;
        abs_within("lean", self.lean, 1.01)?;
        abs_within("lean_angle", self.lean_angle, FRAC_PI_2)?;
        check::range("pedal", self.pedal, 0.0..=100.0)?;
        check::range("hop", self.hop, 0.0..=25.0)?;
        abs_within("yaw", self.yaw, 2.0)?;
        abs_within("pitch", self.pitch, 2.0)?;
        abs_within("roll", self.roll, 2.0)?;
        abs_within("throttle", self.throttle, 2.0)?;
        check::range("rotor", self.rotor, 0.0..=2.0)?;
        check::range("part", self.part, 0..=20_000)?;
        abs_within("turret_yaw", self.turret_yaw, PI + 0.01)?;
        abs_within("turret_pitch", self.turret_pitch, FRAC_PI_2)?;
        check::range("rail", self.rail, 0.0..=100_000.0)?;
        abs_within("rail_speed", self.rail_speed, 4.0)?;
        check::range("track", self.track, 0..=3)?;
        check::range("rope", self.rope, 0.0..=1.0)?;
        abs_within("nitro", self.nitro, 1.01)?;
        check::ensure(
            matches!(self.hydraulics, 0..=60 | 500..=504),
            "hydraulics",
            Rule::OutOfRange,
        )?;
        check::range("hydraulic_lr", self.hydraulic_lr, -128..=128)?;
        check::range("hydraulic_ud", self.hydraulic_ud, -128..=128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqrt_norm(v: &[f32]) -> f64 {
        norm_sq(v).sqrt()
    }

    /// f32 values from `n` ulps below `x` to `n` ulps above.
    fn around(x: f32, n: u32) -> impl Iterator<Item = f32> {
        (x.to_bits() - n..=x.to_bits() + n).map(f32::from_bits)
    }

    #[test]
    fn norm_checks_without_sqrt_keep_the_exact_boundaries() {
        for max in [MAX_MOVE_SPEED, MAX_TURN_SPEED] {
            let bound = max * (1.0 + f64::from(f32::EPSILON));
            let mut seen = [false; 2];
            for c in around(bound as f32, 2000) {
                for v in [Vec3::new(c, 0.0, 0.0), Vec3::new(0.6 * c, -0.8 * c, 0.0)] {
                    let expected = sqrt_norm(&[v.x, v.y, v.z]) <= bound;
                    assert_eq!(length_within(&v, max), expected, "{v:?} against {max}");
                    seen[usize::from(expected)] = true;
                }
            }
            assert_eq!(seen, [true, true], "the sweep crosses the bound");
        }
        for edge in [1.0 - ROT_NORM_SLACK as f32, 1.0 + ROT_NORM_SLACK as f32] {
            let mut seen = [false; 2];
            for c in around(edge, 2000) {
                for rot in [[0.0, 0.0, 0.0, c], [0.5 * c, 0.5 * c, 0.5 * c, -0.5 * c]] {
                    let expected = (sqrt_norm(&rot) - 1.0).abs() <= ROT_NORM_SLACK;
                    let got = check_rotation("rot", &rot).is_ok();
                    assert_eq!(got, expected, "{rot:?}");
                    seen[usize::from(expected)] = true;
                }
            }
            assert_eq!(seen, [true, true], "the sweep crosses the bound");
        }
    }
}
