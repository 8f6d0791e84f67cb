//! A vehicle's life (vehicles.md): the syncer of a vehicle without a driver, explosion
//! and drowning, and the gamemode's health.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, PlayerId, PlayerToken, Revision, SessionToken, VehicleEpoch, VehicleId};
use crate::wire::Validate;
use crate::{packet, wire_enum};

/// The highest health the gamemode sets (VehicleHealth); 1000 is full.
pub const MAX_HEALTH: f32 = 100_000.0;

packet! {
    /// VehicleSyncer (0x3C), Server → Client: the recipient starts or stops sending the
    /// frames of a vehicle without a driver; only to that player.
    pub struct VehicleSyncer = 0x3C, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// Start syncing, or stop.
        pub active: bool,
    }
}

impl Validate for VehicleSyncer {}

wire_enum! {
    /// How a vehicle died (VehicleExplode, VehicleDeath); an unknown cause is dropped.
    pub enum VehicleDeathCause: u8 {
        Exploded = 0,
        /// Sunk: the vehicle becomes a wreck that never explodes.
        Drowned = 1,
    }
}

/// With `present` = false the player fields are zero (VehicleExplode, VehicleDeath).
pub(crate) fn check_player(
    present: bool,
    id_field: &'static str,
    id: PlayerId,
    token_field: &'static str,
    token: PlayerToken,
) -> Result<(), FieldError> {
    if !present {
        check::ensure(id.0 == 0, id_field, Rule::Reserved)?;
        check::ensure(token.0 == 0, token_field, Rule::Reserved)?;
    }
    Ok(())
}

packet! {
    /// VehicleExplode (0x3D), Client → Server: the controlling player's copy should blow up
    /// or has drowned; repeated at most once a second until VehicleDeath.
    pub struct VehicleExplode = 0x3D, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// The generation that blew up.
        pub epoch: VehicleEpoch,
        pub cause: VehicleDeathCause,
        /// An attacker follows; without one its fields are zero.
        pub has_attacker: bool,
        /// The player the copy holds as the last to damage it.
        pub attacker_id: PlayerId,
        pub attacker_token: PlayerToken,
    }
}

impl Validate for VehicleExplode {
    fn validate(&self) -> Result<(), FieldError> {
        check_player(
            self.has_attacker,
            "attacker_id",
            self.attacker_id,
            "attacker_token",
            self.attacker_token,
        )
    }
}

packet! {
    /// VehicleDeath (0x3E), Server → Client: an accepted explosion or drowning, to everyone
    /// the vehicle is streamed to, the sender included.
    pub struct VehicleDeath = 0x3E, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        pub epoch: VehicleEpoch,
        pub cause: VehicleDeathCause,
        /// A credited killer follows (only for an explosion); without one its fields are zero.
        pub has_killer: bool,
        pub killer_id: PlayerId,
        pub killer_token: PlayerToken,
    }
}

impl Validate for VehicleDeath {
    fn validate(&self) -> Result<(), FieldError> {
        check_player(
            self.has_killer,
            "killer_id",
            self.killer_id,
            "killer_token",
            self.killer_token,
        )?;
        // Only an explosion is credited; a drowning's vehicle_death has killer nil.
        check::ensure(
            !self.has_killer || self.cause == VehicleDeathCause::Exploded,
            "has_killer",
            Rule::Combination,
        )
    }
}

packet! {
    /// VehicleHealth (0x41), Server → Client: the gamemode set the health of this epoch;
    /// never for a wreck.
    pub struct VehicleHealth = 0x41, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        pub epoch: VehicleEpoch,
        /// 0..=100000; 1000 is full, below 250 it burns.
        pub health: f32,
        /// The new health command revision; copies echo it in VehicleState.
        pub health_rev: Revision,
    }
}

impl Validate for VehicleHealth {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("health", self.health, 0.0..=MAX_HEALTH)
    }
}
