//! Fixture values for the params family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::params::*;

/// A police Maverick (497) with a magnet winch and its engine running, the left front
/// door just opened by command.
pub fn vehicle_params() -> VehicleParams {
    VehicleParams {
        event_id: EventId(5135),
        vehicle_id: VehicleId(2001),
        params: param::ENGINE | param::LIGHTS | param::MAGNET | param::OBJECTIVE,
        doors: door::LEFT_FRONT,
        doors_set: door::LEFT_FRONT,
        siren_rev: Revision(1),
    }
}

pub fn vehicle_control() -> VehicleControl {
    VehicleControl {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(325),
        vehicle_id: VehicleId(1042),
        control: VehicleControlKind::Lights,
        value: true,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_params.bin", vehicle_params()),
        sample("vehicle_control.bin", vehicle_control()),
    ]
}
