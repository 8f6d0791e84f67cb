//! Fixture values for the vehicle shot family.

use crate::connection::rewind::{RewindTarget, ShotRewind};
use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::shot::*;

/// A Hunter (425) fires its machine gun at a car on the Verdant Bluffs road.
pub fn vehicle_shot() -> VehicleShot {
    VehicleShot {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        order: Seq(3_071),
        vehicle_id: VehicleId(2_051),
        count: 1,
        rays: [
            Ray {
                start: Vec3::new(1102.5, -2036.25, 108.75),
                end: Vec3::new(1141.0, -1991.5, 69.25),
            },
            Ray::ZERO,
        ],
        props_rev: Revision(1),
    }
}

/// A Rustler (476) fires both guns at a player on the Sherman Dam.
pub fn remote_vehicle_shot() -> RemoteVehicleShot {
    RemoteVehicleShot {
        id: PlayerId(12),
        player_token: PlayerToken(57),
        order: Seq(904),
        vehicle_id: VehicleId(2_212),
        count: 2,
        rays: [
            Ray {
                start: Vec3::new(-896.5, 2006.0, 180.25),
                end: Vec3::new(-880.75, 2101.5, 61.0),
            },
            Ray {
                start: Vec3::new(-894.0, 2006.5, 180.25),
                end: Vec3::new(-878.25, 2102.0, 61.0),
            },
        ],
        props_rev: Revision(1),
        relation_rev: 9,
        teammate: false,
        rewind: ShotRewind {
            rewound: true,
            target_kind: RewindTarget::Player,
            target_id: 31,
            target_token: 88,
            target_pos: Vec3::new(-879.5, 2101.75, 61.0),
            shooter_pos: Vec3::new(-895.25, 2004.0, 180.5),
        },
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_shot.bin", vehicle_shot()),
        sample("remote_vehicle_shot.bin", remote_vehicle_shot()),
    ]
}
