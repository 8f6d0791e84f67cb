//! Seats (vehicles.md): VehicleEnter, VehicleExit and the server's answer
//! VehicleOccupancy.

use crate::ids::{EventId, PlayerId, PlayerToken, SessionToken, VehicleId};
use crate::wire::Validate;
use crate::{packet, wire_enum};

packet! {
    /// VehicleEnter (0x37), Client → Server, reliable: a seat request (seat 0 of a driven
    /// vehicle is a jack request). The seat's existence is the server's check.
    pub struct VehicleEnter = 0x37, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// 0 = driver, 1.. = passenger seat.
        pub seat: u8,
    }
}

impl Validate for VehicleEnter {}

packet! {
    /// VehicleExit (0x38), Client → Server, reliable: the sender left the vehicle or
    /// cancelled its entry.
    pub struct VehicleExit = 0x38, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
    }
}

impl Validate for VehicleExit {}

wire_enum! {
    /// How a seat changed (VehicleOccupancy).
    pub enum OccupancyKind: u8 {
        /// The seat is free.
        Exit = 0,
        /// Entry on the player's request, with the entry animation.
        Enter = 1,
        /// Instant seating by the server (and the seat snapshot of a show).
        Warp = 2,
        /// Refusal, only to the requester.
        Deny = 3,
        /// The driver's seat went to a jacker, whose enter follows.
        Jacked = 4,
    }
}

packet! {
    /// VehicleOccupancy (0x39), Server → Client, reliable and critical: a seat change.
    pub struct VehicleOccupancy = 0x39, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// Whose seat changed.
        pub player_id: PlayerId,
        pub player_token: PlayerToken,
        /// 0 = driver, 1.. = passenger.
        pub seat: u8,
        pub kind: OccupancyKind,
    }
}

impl Validate for VehicleOccupancy {}
