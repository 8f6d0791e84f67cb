//! TrainState (vehicles.md): a train's direction, derailment and speed, by the server.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, VehicleId};
use crate::packet;
use crate::wire::Validate;

/// The bits of [`TrainState::flags`].
pub mod train_flag {
    /// Faces along the track (clockwise).
    pub const ALONG: u8 = 1 << 0;
    pub const DERAILED: u8 = 1 << 1;
    /// The packet sets the speed.
    pub const SETS_SPEED: u8 = 1 << 2;
    /// Every bit the page defines.
    pub const DEFINED: u8 = 0b111;
}

/// Largest |speed| along the track, units per step.
pub const MAX_TRAIN_SPEED: f32 = 4.0;

packet! {
    /// TrainState (0x4B), Server → Client, reliable and critical: sent to everyone the
    /// train is streamed to on every change.
    pub struct TrainState = 0x4B, ServerToClient {
        pub event_id: EventId,
        /// The locomotive.
        pub vehicle_id: VehicleId,
        /// [`train_flag`] bits; others drop the packet.
        pub flags: u8,
        /// Units per step, + = distance grows, |·| ≤ 4; only with
        /// [`train_flag::SETS_SPEED`], otherwise 0.
        pub speed: f32,
    }
}

impl Validate for TrainState {
    fn validate(&self) -> Result<(), FieldError> {
        check::bits_within("flags", self.flags, train_flag::DEFINED)?;
        if self.flags & train_flag::SETS_SPEED == 0 {
            // Bit-exact: -0.0 is not the zero placeholder.
            check::ensure(self.speed.to_bits() == 0, "speed", Rule::Reserved)
        } else {
            check::range("speed", self.speed, -MAX_TRAIN_SPEED..=MAX_TRAIN_SPEED)
        }
    }
}
