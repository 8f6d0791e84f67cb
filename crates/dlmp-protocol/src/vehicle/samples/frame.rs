//! Fixture values for the frame family.

use core::f32::consts::FRAC_1_SQRT_2;

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::frame::*;
use crate::vehicle::state::{VehicleState, flag};

/// A Savanna (567) with nitro and hydraulics cruising east on Grove Street, the
/// horn sounding and nitro refilling.
pub fn savanna_state() -> VehicleState {
    VehicleState {
        pos: Vec3::new(2495.25, -1687.5, 13.3125),
        // Heading 270° (east): a quarter turn about z.
        rot: [0.0, 0.0, -FRAC_1_SQRT_2, FRAC_1_SQRT_2],
        move_speed: Vec3::new(0.625, 0.015_625, -0.001_953_125),
        turn_speed: Vec3::new(0.0, 0.0, 0.012_5),
        raw_steer: 0.25,
        steer: 0.125,
        gas: 1.0,
        brake: 0.0,
        flags: flag::HORN,
        health: 872.5,
        epoch: VehicleEpoch(2),
        doors: [0, 0, 0, 0, 0, 0],
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
        health_rev: Revision(3),
        turret_yaw: 0.0,
        turret_pitch: 0.0,
        rail: 0.0,
        rail_speed: 0.0,
        track: 0,
        rope: 0.0,
        siren_rev: Revision(0),
        nitro: 0.625,
        hydraulics: 24,
        hydraulic_lr: -32,
        hydraulic_ud: 16,
        pose_rev: Revision(1),
    }
}

/// A police Maverick (497) over Pershing Square, searchlight on, the winch rope half out
/// and the passenger door ajar.
pub fn maverick_state() -> VehicleState {
    VehicleState {
        pos: Vec3::new(1481.75, -1651.25, 96.5),
        // Nose down 10° at heading 30°.
        rot: [-0.084_186_5, 0.022_557_9, 0.257_834_8, 0.962_250_4],
        move_speed: Vec3::new(-0.25, 0.4375, -0.031_25),
        turn_speed: Vec3::new(0.001_953_125, 0.0, -0.007_812_5),
        raw_steer: 0.0,
        steer: 0.0,
        gas: 0.0,
        brake: 0.0,
        flags: flag::SEARCHLIGHT,
        health: 1000.0,
        epoch: VehicleEpoch(1),
        doors: [0, 0, 0, 96, 0, 0],
        lean: 0.0,
        lean_angle: 0.0,
        pedal: 0.0,
        hop: 0.0,
        yaw: -0.25,
        pitch: 0.5,
        roll: 0.125,
        throttle: 0.75,
        rotor: 0.22,
        part: 0,
        gear: 0,
        health_rev: Revision(0),
        turret_yaw: 0.0,
        turret_pitch: 0.0,
        rail: 0.0,
        rail_speed: 0.0,
        track: 0,
        rope: 0.42,
        siren_rev: Revision(2),
        nitro: 1.0,
        hydraulics: 0,
        hydraulic_lr: 0,
        hydraulic_ud: 0,
        pose_rev: Revision(0),
    }
}

pub fn vehicle_frame() -> VehicleFrame {
    VehicleFrame {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        seq: Seq(18_204),
        vehicle_id: VehicleId(1_337),
        state: savanna_state(),
    }
}

pub fn remote_vehicle_frame() -> RemoteVehicleFrame {
    RemoteVehicleFrame {
        source_id: PlayerId(12),
        source_token: PlayerToken(57),
        seq: Seq(40_961),
        vehicle_id: VehicleId(2_048),
        state: maverick_state(),
        relation_rev: 4,
        teammate: true,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_frame.bin", vehicle_frame()),
        sample("remote_vehicle_frame.bin", remote_vehicle_frame()),
    ]
}
