//! Vehicle parameters (vehicles.md, VehicleParams and VehicleControl): engine, lights,
//! lock, winch, alarm, siren, objective marker and the doors opened by command.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, Revision, SessionToken, VehicleId};
use crate::wire::Validate;
use crate::{packet, wire_enum};

/// `params` bits (VehicleParams; a VehicleSync show carries the same).
pub mod param {
    pub const ENGINE: u16 = 1 << 0;
    pub const LIGHTS: u16 = 1 << 1;
    /// Locked for the recipient: its own lock if the gamemode set one, else the vehicle's.
    pub const LOCKED: u16 = 1 << 2;
    /// The helicopter's winch with a magnet; at most one of MAGNET and SMALL_MAGNET.
    pub const MAGNET: u16 = 1 << 3;
    /// The winch with the small magnet (takes only RC Tiger 564).
    pub const SMALL_MAGNET: u16 = 1 << 4;
    pub const ALARM: u16 = 1 << 5;
    /// The siren sounds.
    pub const SIREN: u16 = 1 << 6;
    /// Objective marker for the recipient only.
    pub const OBJECTIVE: u16 = 1 << 7;
    /// The vehicle has a siren.
    pub const HAS_SIREN: u16 = 1 << 8;
    /// Every defined bit; bits 9..15 are 0.
    pub const ALL: u16 = (1 << 9) - 1;
}

/// Door bits of `doors` / `doors_set` (VehicleParams, VehicleSync).
pub mod door {
    pub const BONNET: u8 = 1 << 0;
    pub const BOOT: u8 = 1 << 1;
    pub const LEFT_FRONT: u8 = 1 << 2;
    pub const RIGHT_FRONT: u8 = 1 << 3;
    pub const LEFT_REAR: u8 = 1 << 4;
    pub const RIGHT_REAR: u8 = 1 << 5;
    /// Every door; bits 6..7 are 0.
    pub const ALL: u8 = (1 << 6) - 1;
}

/// The rules on a `params` word: defined bits only, at most one winch magnet.
pub fn check_params(field: &'static str, params: u16) -> Result<(), FieldError> {
    check::bits_within(field, params, param::ALL)?;
    check::ensure(
        params & (param::MAGNET | param::SMALL_MAGNET) != param::MAGNET | param::SMALL_MAGNET,
        field,
        Rule::Combination,
    )
}

packet! {
    /// VehicleParams (0x42), Server → Client: the full parameter state after a gamemode
    /// command or an allowed VehicleControl; critical (vehicles.md).
    pub struct VehicleParams = 0x42, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// [`param`] bits.
        pub params: u16,
        /// Doors open by the last command, [`door`] bits.
        pub doors: u8,
        /// Doors this command opened or closed, [`door`] bits.
        pub doors_set: u8,
        /// The last gamemode siren switch; the driver's frames echo it.
        pub siren_rev: Revision,
    }
}

impl Validate for VehicleParams {
    fn validate(&self) -> Result<(), FieldError> {
        check_params("params", self.params)?;
        check::bits_within("doors", self.doors, door::ALL)?;
        check::bits_within("doors_set", self.doors_set, door::ALL)
    }
}

wire_enum! {
    /// What a driver's key switches (VehicleControl).
    pub enum VehicleControlKind: u8 {
        Engine = 0,
        Lights = 1,
        /// Decodes, but the server drops it: only the gamemode locks a vehicle.
        Lock = 2,
    }
}

packet! {
    /// VehicleControl (0x43), Client → Server: the driver's engine, lights or lock key.
    pub struct VehicleControl = 0x43, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        pub control: VehicleControlKind,
        /// On / lock, or off / unlock.
        pub value: bool,
    }
}

impl Validate for VehicleControl {}
