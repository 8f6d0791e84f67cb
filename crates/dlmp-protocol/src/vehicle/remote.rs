//! Remote-controlled vehicles (vehicles.md): the server's grant VehicleRemote and the
//! F-key requests VehicleRemoteExit and VehicleRemoteEnter.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, SessionToken, VehicleId};
use crate::packet;
use crate::wire::Validate;

packet! {
    /// VehicleRemote (0x4C), Server → Client, reliable and critical, only to the player
    /// concerned: the RC it now drives, a changed detonation, or the release.
    pub struct VehicleRemote = 0x4C, ServerToClient {
        pub event_id: EventId,
        /// The RC the recipient now drives; 0xFFFFFFFF = none any more.
        pub vehicle_id: VehicleId,
        /// The fire key and an RC Bandit crash blow the RC up; never with 0xFFFFFFFF.
        pub detonation: bool,
    }
}

impl Validate for VehicleRemote {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(
            !self.detonation || self.vehicle_id != VehicleId::NONE,
            "detonation",
            Rule::Combination,
        )
    }
}

packet! {
    /// VehicleRemoteExit (0x4D), Client → Server, reliable: the F key while the sender
    /// drives an RC.
    pub struct VehicleRemoteExit = 0x4D, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// The RC the sender drives.
        pub vehicle_id: VehicleId,
    }
}

impl Validate for VehicleRemoteExit {}

packet! {
    /// VehicleRemoteEnter (0x4E), Client → Server, reliable: the F key on foot near an RC,
    /// to take it again.
    pub struct VehicleRemoteEnter = 0x4E, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// An RC near the sender.
        pub vehicle_id: VehicleId,
    }
}

impl Validate for VehicleRemoteEnter {}
