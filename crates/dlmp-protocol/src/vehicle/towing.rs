//! Towing and the helicopter winch (vehicles.md): VehicleTow and VehicleWinch report a
//! change the controlling player's game made; VehicleTrailer and VehicleLift carry the
//! server's state.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, SessionToken, VehicleEpoch, VehicleId};
use crate::packet;
use crate::wire::Validate;

/// An id that must name a vehicle ("0xFFFFFFFF is invalid").
fn check_some(field: &'static str, id: VehicleId) -> Result<(), FieldError> {
    check::ensure(id != VehicleId::NONE, field, Rule::OutOfRange)
}

/// The epoch of an absent vehicle is a zero placeholder.
pub(crate) fn check_epoch_placeholder(
    field: &'static str,
    id: VehicleId,
    epoch: VehicleEpoch,
) -> Result<(), FieldError> {
    check::ensure(id != VehicleId::NONE || epoch.0 == 0, field, Rule::Reserved)
}

packet! {
    /// VehicleTow (0x49), Client → Server, reliable: the tractor's controlling player's
    /// game hitched or unhitched a trailer.
    pub struct VehicleTow = 0x49, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// The trailer (or towed vehicle); never 0xFFFFFFFF.
        pub trailer_id: VehicleId,
        pub trailer_epoch: VehicleEpoch,
        /// The towing vehicle; 0xFFFFFFFF = unhitch.
        pub tractor_id: VehicleId,
        /// 0 on unhitch.
        pub tractor_epoch: VehicleEpoch,
    }
}

impl Validate for VehicleTow {
    fn validate(&self) -> Result<(), FieldError> {
        check_some("trailer_id", self.trailer_id)?;
        check_epoch_placeholder("tractor_epoch", self.tractor_id, self.tractor_epoch)
    }
}

packet! {
    /// VehicleTrailer (0x4A), Server → Client, reliable and critical: a trailer's current
    /// hitch, on every change and to the sender of a refused VehicleTow.
    pub struct VehicleTrailer = 0x4A, ServerToClient {
        pub event_id: EventId,
        pub trailer_id: VehicleId,
        /// 0xFFFFFFFF = hitched to nothing.
        pub tractor_id: VehicleId,
        /// The gamemode hitched it: the trailer is placed at the tractor's hook. Only with
        /// a tractor.
        pub place: bool,
    }
}

impl Validate for VehicleTrailer {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(
            !self.place || self.tractor_id != VehicleId::NONE,
            "place",
            Rule::Combination,
        )
    }
}

packet! {
    /// VehicleWinch (0x4F), Client → Server, reliable: the helicopter's controlling
    /// player's magnet picked up or released a vehicle.
    pub struct VehicleWinch = 0x4F, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// The load; never 0xFFFFFFFF.
        pub vehicle_id: VehicleId,
        pub vehicle_epoch: VehicleEpoch,
        /// The helicopter whose magnet picked it up; 0xFFFFFFFF = released.
        pub heli_id: VehicleId,
        /// 0 on release.
        pub heli_epoch: VehicleEpoch,
    }
}

impl Validate for VehicleWinch {
    fn validate(&self) -> Result<(), FieldError> {
        check_some("vehicle_id", self.vehicle_id)?;
        check_epoch_placeholder("heli_epoch", self.heli_id, self.heli_epoch)
    }
}

packet! {
    /// VehicleLift (0x50), Server → Client, reliable and critical: the load's current
    /// winch, on every change and to the sender of a refused VehicleWinch.
    pub struct VehicleLift = 0x50, ServerToClient {
        pub event_id: EventId,
        /// The load.
        pub vehicle_id: VehicleId,
        /// The helicopter whose winch carries it; 0xFFFFFFFF = none.
        pub heli_id: VehicleId,
    }
}

impl Validate for VehicleLift {}
