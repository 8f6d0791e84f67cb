//! Fixture values for the towing and winch family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::towing::*;

/// A Linerunner (403) backs up to an Article Trailer (435).
pub fn vehicle_tow() -> VehicleTow {
    VehicleTow {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(233),
        trailer_id: VehicleId(1_402),
        trailer_epoch: VehicleEpoch(1),
        tractor_id: VehicleId(1_401),
        tractor_epoch: VehicleEpoch(3),
    }
}

/// dlmp.attach_trailer: the trailer is placed at the hook.
pub fn vehicle_trailer() -> VehicleTrailer {
    VehicleTrailer {
        event_id: EventId(5_133),
        trailer_id: VehicleId(1_402),
        tractor_id: VehicleId(1_401),
        place: true,
    }
}

/// A Leviathan's magnet picks up a Sultan.
pub fn vehicle_winch() -> VehicleWinch {
    VehicleWinch {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(240),
        vehicle_id: VehicleId(1_377),
        vehicle_epoch: VehicleEpoch(2),
        heli_id: VehicleId(2_050),
        heli_epoch: VehicleEpoch(1),
    }
}

pub fn vehicle_lift() -> VehicleLift {
    VehicleLift {
        event_id: EventId(5_141),
        vehicle_id: VehicleId(1_377),
        heli_id: VehicleId(2_050),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_tow.bin", vehicle_tow()),
        sample("vehicle_trailer.bin", vehicle_trailer()),
        sample("vehicle_winch.bin", vehicle_winch()),
        sample("vehicle_lift.bin", vehicle_lift()),
    ]
}
