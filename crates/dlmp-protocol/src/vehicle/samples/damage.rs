//! Fixture values for the damage family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::damage::*;

/// A car after a side crash: LF fender 2, RR fender 1, windscreen cracked, LF door
/// damaged, bonnet missing, front-left light broken, rear-left tyre burst.
pub fn crashed_status() -> VehicleDamageStatus {
    VehicleDamageStatus {
        panels: 0x0001_1002,
        doors: [DOOR_MISSING, 0, DOOR_DAMAGED, 0, 0, 0],
        lights: 0x01,
        wheels: [0, 0, 1, 0],
    }
}

pub fn vehicle_damage() -> VehicleDamage {
    VehicleDamage {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(318),
        vehicle_id: VehicleId(1042),
        epoch: VehicleEpoch(3),
        status: ReportedStatus(crashed_status()),
        damage_rev: Revision(2),
    }
}

pub fn remote_vehicle_damage() -> RemoteVehicleDamage {
    RemoteVehicleDamage {
        event_id: EventId(5127),
        vehicle_id: VehicleId(1042),
        epoch: VehicleEpoch(3),
        status: crashed_status(),
        damage_rev: Revision(2),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_damage.bin", vehicle_damage()),
        sample("remote_vehicle_damage.bin", remote_vehicle_damage()),
    ]
}
