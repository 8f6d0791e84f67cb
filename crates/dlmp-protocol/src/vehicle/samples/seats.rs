//! Fixture values for the seats family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::seats::*;

pub fn vehicle_enter() -> VehicleEnter {
    VehicleEnter {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(214),
        vehicle_id: VehicleId(1_337),
        seat: 1,
    }
}

pub fn vehicle_exit() -> VehicleExit {
    VehicleExit {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(219),
        vehicle_id: VehicleId(1_337),
    }
}

pub fn vehicle_occupancy() -> VehicleOccupancy {
    VehicleOccupancy {
        event_id: EventId(5_120),
        vehicle_id: VehicleId(1_337),
        player_id: PlayerId(7),
        player_token: PlayerToken(42),
        seat: 1,
        kind: OccupancyKind::Enter,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_enter.bin", vehicle_enter()),
        sample("vehicle_exit.bin", vehicle_exit()),
        sample("vehicle_occupancy.bin", vehicle_occupancy()),
    ]
}
