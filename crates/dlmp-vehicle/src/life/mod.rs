//! A vehicle's life (vehicles.md VehicleExplode, VehicleDeath, VehicleSync "Life"): the
//! burning clock, the explosion and drowning with their checks, the wreck, the kill
//! credit, the occupants' window, and the respawn. Decisions:
//! docs/decisions/0059-vehicle-explosion-and-credit.md, 0060-vehicle-respawn.md.
//!
//! - [`burning`]: since when the server's health is below 250.
//! - [`credit`]: the shots passing by, cannon shells and flames into the action log, who
//!   is credited.
//! - [`explode`]: VehicleExplode intake and the wreck (VehicleDeath, `vehicle_death`).
//! - [`window`]: the occupants' 5 s killer, read by the ledger on a DeathReport.
//! - [`respawn`]: `dlmp.respawn_vehicle` / [`respawn_vehicle`].
//! - [`script`]: the Lua function and event.

pub mod burning;
pub mod credit;
pub mod explode;
pub mod respawn;
pub mod script;
pub mod window;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

pub use burning::Burning;
pub use credit::{PassingShots, Who};
pub use dlmp_player::credit::ExplosionKiller;
pub use explode::{ExplodeDrop, ExplodeStats, VehicleDied};
pub use respawn::{RespawnVehicle, respawn_vehicle};

use super::VehicleSystems;
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};

/// The components a vehicle's life keeps (appended to the vehicle's bundle).
pub fn bundle() -> impl Bundle {
    (Burning::default(), PassingShots::default())
}

/// Adds explosions, deaths, kill credit and respawns.
pub struct VehicleLifePlugin;

impl Plugin for VehicleLifePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ExplodeStats>()
            .add_message::<VehicleDied>()
            .add_message::<RespawnVehicle>()
            .add_systems(
                FixedUpdate,
                (
                    (
                        burning::track,
                        credit::note_passes,
                        credit::note_shells,
                        credit::note_flames,
                        explode::intake,
                    )
                        .chain()
                        .in_set(GameplaySystems::Intake)
                        .before(super::seats::intake)
                        .before(super::script::refresh_view),
                    respawn::apply
                        .in_set(VehicleSystems::Lifecycle)
                        .after(super::lifecycle::apply),
                    (burning::track, window::end_on_exit, window::forget)
                        .chain()
                        .in_set(ServerSystems::Streaming),
                    credit::note_nearby
                        .in_set(ServerSystems::Streaming)
                        .after(StreamingSystems::Relay),
                ),
            );
    }
}
