//! The TrainState of a train (vehicles.md TrainState): bit0 faces along the track, bit1
//! derailed, bit2 the packet sets the speed (only from `dlmp.set_train_speed`).

use crate::Train;
use dlmp_protocol::ids::{EventId, VehicleId};
use dlmp_protocol::vehicle::train::{MAX_TRAIN_SPEED, TrainState, train_flag};

/// The train's direction and derailment, and the speed if the packet sets one (|speed| ≤
/// [`MAX_TRAIN_SPEED`], finite: the caller checked it).
pub fn train_state(id: VehicleId, train: Train, speed: Option<f32>) -> TrainState {
    let mut flags = 0;
    if train.along {
        flags |= train_flag::ALONG;
    }
    if train.derailed {
        flags |= train_flag::DERAILED;
    }
    if speed.is_some() {
        flags |= train_flag::SETS_SPEED;
    }
    debug_assert!(speed.is_none_or(|s| s.abs() <= MAX_TRAIN_SPEED));
    TrainState {
        event_id: EventId(0),
        vehicle_id: id,
        flags,
        speed: speed.unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use dlmp_protocol::wire::Validate;

    #[rstest]
    #[case::against_on_rails(false, false, None, 0, 0.0)]
    #[case::along(true, false, None, train_flag::ALONG, 0.0)]
    #[case::derailed(false, true, None, train_flag::DERAILED, 0.0)]
    #[case::speed(true, false, Some(-2.5), train_flag::ALONG | train_flag::SETS_SPEED, -2.5)]
    #[case::stop(false, false, Some(0.0), train_flag::SETS_SPEED, 0.0)]
    fn bits_as_the_page(
        #[case] along: bool,
        #[case] derailed: bool,
        #[case] speed: Option<f32>,
        #[case] flags: u8,
        #[case] wire_speed: f32,
    ) {
        let p = train_state(VehicleId(7), Train { along, derailed }, speed);
        assert_eq!(
            (p.vehicle_id, p.flags, p.speed),
            (VehicleId(7), flags, wire_speed)
        );
        assert_eq!(p.validate(), Ok(()), "the client's decoder takes it");
    }
}
