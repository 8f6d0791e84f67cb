//! Fixture values for the RC family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::remote::*;

/// dlmp.set_remote_vehicle: an RC Bandit (441) with detonation.
pub fn vehicle_remote() -> VehicleRemote {
    VehicleRemote {
        event_id: EventId(5_160),
        vehicle_id: VehicleId(2_600),
        detonation: true,
    }
}

pub fn vehicle_remote_exit() -> VehicleRemoteExit {
    VehicleRemoteExit {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(251),
        vehicle_id: VehicleId(2_600),
    }
}

pub fn vehicle_remote_enter() -> VehicleRemoteEnter {
    VehicleRemoteEnter {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(258),
        vehicle_id: VehicleId(2_600),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_remote.bin", vehicle_remote()),
        sample("vehicle_remote_exit.bin", vehicle_remote_exit()),
        sample("vehicle_remote_enter.bin", vehicle_remote_enter()),
    ]
}
