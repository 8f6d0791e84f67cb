//! VehicleFrame and its relay RemoteVehicleFrame (vehicles.md): a vehicle's motion from
//! its driver or syncer.

use crate::ids::{PlayerId, PlayerToken, Seq, SessionToken, VehicleId};
use crate::packet;
use crate::vehicle::state::VehicleState;
use crate::wire::Validate;

packet! {
    /// VehicleFrame (0x3A), Client → Server, unreliable: the state of a vehicle the sender
    /// drives (~30 Hz) or syncs (every ~100 ms while it changes).
    pub struct VehicleFrame = 0x3A, ClientToServer {
        pub session_token: SessionToken,
        /// The sender's cyclic frame counter over all its vehicles (not PlayerSync's).
        pub seq: Seq,
        pub vehicle_id: VehicleId,
        pub state: VehicleState,
    }
}

impl Validate for VehicleFrame {}

packet! {
    /// RemoteVehicleFrame (0x3B), Server → Client, unreliable: an accepted VehicleFrame
    /// relayed to everyone the vehicle is streamed to except the sender.
    pub struct RemoteVehicleFrame = 0x3B, ServerToClient {
        /// The player in seat 0, or the syncer of a vehicle without a driver.
        pub source_id: PlayerId,
        pub source_token: PlayerToken,
        /// The vehicle's relay serial: +1 per accepted frame, whoever controls it.
        pub seq: Seq,
        pub vehicle_id: VehicleId,
        /// health, health_rev, siren_rev, nitro, hydraulics and pose_rev are the server's.
        pub state: VehicleState,
        /// The source's damage group revision (connection.md, Damage groups and relations).
        pub relation_rev: u32,
        /// The source is a teammate of the recipient.
        pub teammate: bool,
    }
}

impl Validate for RemoteVehicleFrame {}
