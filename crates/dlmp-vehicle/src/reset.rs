//! What ends a vehicle's hitch, winch load, remote driver or other attached state
//! (vehicles.md VehicleTow, VehicleWinch, VehicleRemote: "the server unhitches a vehicle
//! itself ... when the trailer or the tractor is wrecked, and on their respawn and
//! removal"; "a new position, rotation or freeze first releases the vehicle from any hitch
//! and winch"). The feature that makes the change writes one [`VehicleReset`]; the
//! features holding attached state read it and let go. Removal needs no message: a removed
//! vehicle's entity is gone from [`Vehicles`](dlmp_core::vehicle::Vehicles).

use bevy_ecs::prelude::*;

use dlmp_protocol::ids::VehicleId;

/// Why the vehicle's attached state ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetKind {
    /// An accepted explosion or drowning (VehicleExplode): the vehicle is a wreck.
    Wrecked,
    /// `dlmp.respawn_vehicle`: a new epoch.
    Respawned,
    /// A gamemode position, rotation or freeze (VehicleTransform).
    Transformed,
    /// A player took the vehicle under remote control (VehicleRemote).
    RemoteTaken,
}

/// One vehicle's attached state ends, for [`ResetKind`]. Written in
/// [`GameplaySystems::Apply`](dlmp_core::tick::GameplaySystems::Apply) by the feature that made
/// the change, before its packets are queued.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct VehicleReset {
    pub vehicle: Entity,
    pub id: VehicleId,
    pub kind: ResetKind,
}
