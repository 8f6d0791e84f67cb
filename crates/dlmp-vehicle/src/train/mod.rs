//! Trains (vehicles.md VehicleSync "Trains", TrainState, VehicleFrame's train rules): a
//! locomotive stands for its whole train. The frame rules (`frame/fields.rs`) take the
//! speed along the track and let only the driver derail the train at speed; the seat checks
//! (`seats.rs`) hold the carriage distances and refuse entry into a derailed train. This
//! feature tells every change of direction and derailment to everyone the train is
//! streamed to as TrainState, for a derailment the driver reported and for the gamemode's
//! `dlmp.set_train_direction` / `set_train_derailed` / `set_train_speed`.
//! Decisions: docs/decisions/0068-trains.md.
//!
//! - [`state`]: the TrainState of a train as it is now.
//! - [`announce`]: applies the commands and the driver's derailments and tells them.
//! - [`script`]: the Lua functions.

pub mod announce;
pub mod script;
pub mod state;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::VehicleSystems;
use dlmp_core::tick::GameplaySystems;

pub use announce::TrainCommand;

/// Adds the trains' TrainState.
pub struct TrainPlugin;

impl Plugin for TrainPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<TrainCommand>()
            .init_resource::<announce::TrainStats>()
            .add_systems(
                FixedUpdate,
                announce::apply
                    .in_set(GameplaySystems::Apply)
                    .after(VehicleSystems::Lifecycle),
            );
    }
}
