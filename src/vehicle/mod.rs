//! Vehicles (vehicles.md): server-owned vehicle entities, their streaming, seats and
//! jacking, and the player rules that wait for seats (player.md). The frames, the relay
//! and the syncer election build on these components.
//!
//! - [`models`]: the per-model table (`assets/vehicles.tsv`): class, seats, siren, name.
//! - [`components`]: a vehicle entity's components and the player's [`Seated`].
//! - [`lifecycle`]: create and destroy, ids, the resource as cleanup owner.

pub mod components;
pub mod frame;
pub mod lifecycle;
pub mod models;
pub mod syncer;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use crate::tick::GameplaySystems;

pub use components::{
    Colors, Damage, DamageRev, Frozen, Health, HealthRev, Hitch, Life, Occupant, Params, Part,
    PlayerParams, Pose, PoseRev, RelaySerial, Revisions, Seated, Seats, SirenRev, SpawnPoint,
    Syncer, Train, Vehicle, VehicleScope,
};
pub use lifecycle::{
    VehicleCommand, VehicleError, VehicleSpec, Vehicles, create_vehicle, destroy_vehicle,
};
pub use models::{ModelInfo, VehicleClass, VehicleModels};

/// Where the vehicle set changes, inside [`GameplaySystems::Apply`]: the scripts' creates
/// and destroys, then the cleanup of despawned vehicles.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VehicleSystems {
    Lifecycle,
}

/// Adds vehicles.
pub struct VehiclePlugin;

impl Plugin for VehiclePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(VehicleModels::load())
            .init_resource::<Vehicles>()
            .add_message::<VehicleCommand>()
            .configure_sets(
                FixedUpdate,
                VehicleSystems::Lifecycle.in_set(GameplaySystems::Apply),
            )
            .add_systems(
                FixedUpdate,
                (lifecycle::apply, lifecycle::forget_despawned)
                    .chain()
                    .in_set(VehicleSystems::Lifecycle),
            );
    }
}
