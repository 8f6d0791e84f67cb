//! Fixture values for the transform family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::transform::*;

/// The gamemode freezes a car on the Mount Chiliad summit, turned 90° about z.
pub fn vehicle_transform() -> VehicleTransform {
    let half = core::f32::consts::FRAC_1_SQRT_2;
    VehicleTransform {
        event_id: EventId(5150),
        vehicle_id: VehicleId(1042),
        epoch: VehicleEpoch(3),
        relay_seq: Seq(18_402),
        pose_rev: Revision(2),
        flags: transform_flag::POSITION | transform_flag::ROTATION | transform_flag::FROZEN,
        pos: Vec3::new(-2321.5, -1637.25, 483.7),
        rot: [0.0, 0.0, half, half],
        move_speed: Vec3::ZERO,
        turn_speed: Vec3::ZERO,
    }
}

pub fn vehicle_colors() -> VehicleColors {
    VehicleColors {
        event_id: EventId(5151),
        vehicle_id: VehicleId(1042),
        color1: 3,
        color2: 126,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_transform.bin", vehicle_transform()),
        sample("vehicle_colors.bin", vehicle_colors()),
    ]
}
