//! Fixture values for the life family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::life::*;

pub fn vehicle_syncer() -> VehicleSyncer {
    VehicleSyncer {
        event_id: EventId(5131),
        vehicle_id: VehicleId(1042),
        active: true,
    }
}

pub fn vehicle_explode() -> VehicleExplode {
    VehicleExplode {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(322),
        vehicle_id: VehicleId(1042),
        epoch: VehicleEpoch(3),
        cause: VehicleDeathCause::Exploded,
        has_attacker: true,
        attacker_id: PlayerId(12),
        attacker_token: PlayerToken(57),
    }
}

pub fn vehicle_death() -> VehicleDeath {
    VehicleDeath {
        event_id: EventId(5140),
        vehicle_id: VehicleId(1042),
        epoch: VehicleEpoch(3),
        cause: VehicleDeathCause::Exploded,
        has_killer: true,
        killer_id: PlayerId(12),
        killer_token: PlayerToken(57),
    }
}

pub fn vehicle_health() -> VehicleHealth {
    VehicleHealth {
        event_id: EventId(5133),
        vehicle_id: VehicleId(1042),
        epoch: VehicleEpoch(3),
        health: 1000.0,
        health_rev: Revision(5),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_syncer.bin", vehicle_syncer()),
        sample("vehicle_explode.bin", vehicle_explode()),
        sample("vehicle_death.bin", vehicle_death()),
        sample("vehicle_health.bin", vehicle_health()),
    ]
}
