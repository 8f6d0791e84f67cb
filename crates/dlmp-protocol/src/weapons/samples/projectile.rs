//! Fixture values for the projectile family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::weapons::projectile::*;

/// A grenade thrown on foot at Grove Street.
pub fn projectile_create() -> ProjectileCreate {
    ProjectileCreate {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(418),
        seen_event: EventId(2_305),
        launch: Launch {
            weapon: ProjectileWeapon::Grenade,
            vehicle_id: VehicleId::NONE,
            origin: Vec3::new(2495.5, -1668.25, 14.0),
            velocity: Vec3::new(0.25, 0.375, 0.125),
            target_id: VehicleId::NONE,
            target_epoch: VehicleEpoch(0),
        },
    }
}

/// A Hydra (520) fires a heat-seeking rocket at a locked-on Hunter over the desert.
pub fn projectile_create_hydra() -> ProjectileCreate {
    ProjectileCreate {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(419),
        seen_event: EventId(2_311),
        launch: Launch {
            weapon: ProjectileWeapon::HeatSeeker,
            vehicle_id: VehicleId(2_077),
            origin: Vec3::new(-1040.5, 2186.0, 210.25),
            velocity: Vec3::new(2.5, 3.0, -0.5),
            target_id: VehicleId(2_051),
            target_epoch: VehicleEpoch(2),
        },
    }
}

/// A rocket launcher (35) fired on foot, relayed to a player it is shown to.
pub fn remote_projectile_create() -> RemoteProjectileCreate {
    RemoteProjectileCreate {
        id: PlayerId(12),
        player_token: PlayerToken(57),
        event_id: EventId(6_012),
        launch: Launch {
            weapon: ProjectileWeapon::Rocket,
            vehicle_id: VehicleId::NONE,
            origin: Vec3::new(1544.75, -1353.5, 330.0),
            velocity: Vec3::new(-1.5, 0.75, -0.25),
            target_id: VehicleId::NONE,
            target_epoch: VehicleEpoch(0),
        },
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("projectile_create.bin", projectile_create()),
        sample("projectile_create_hydra.bin", projectile_create_hydra()),
        sample("remote_projectile_create.bin", remote_projectile_create()),
    ]
}
