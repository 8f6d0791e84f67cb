//! Fixture values for the train family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::train::*;

/// dlmp.set_train_speed on a freight train (537) facing along the track.
pub fn train_state() -> TrainState {
    TrainState {
        event_id: EventId(5_150),
        vehicle_id: VehicleId(3_001),
        flags: train_flag::ALONG | train_flag::SETS_SPEED,
        speed: 0.75,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![sample("train_state.bin", train_state())]
}
