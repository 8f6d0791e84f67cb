//! The world on the DLMP server (world.md): pickups, objects, the clock and weather, garage
//! doors, 3D labels, checkpoints, blips, gang zones, colshapes and waypoints, and
//! the map-editing session of editing.md ([`edit`]). One plugin per
//! kind, each in its own module; [`WorldPlugin`] adds them all, with their Lua API
//! ([`script`]).
//!
//! This crate builds on the players and the vehicles (labels, blips and objects ride
//! vehicles: [`attach`]) and never knows operations above it.

pub mod attach;
pub mod blip;
pub mod cadence;
pub mod check;
pub mod checkpoint;
pub mod clock;
pub mod colshape;
pub mod edit;
pub mod gang_zone;
pub mod label;
pub mod locality;
mod marker_ids;
pub mod object;
pub mod pickup;
pub mod script;
pub mod script_view;
pub mod waypoint;

use bevy_app::{App, Plugin};

pub use marker_ids::{ColshapeIds, MarkerIds, MarkerIdsExhausted};

/// Adds the world features to the app.
pub struct WorldPlugin;

impl Plugin for WorldPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<MarkerIds>()
            .init_resource::<check::WorldRefusals>()
            .init_resource::<ColshapeIds>()
            .add_plugins((
                clock::ClockPlugin,
                checkpoint::CheckpointPlugin,
                colshape::ColshapePlugin,
                waypoint::WaypointPlugin,
                pickup::PickupPlugin,
                gang_zone::GangZonePlugin,
                label::LabelPlugin,
                blip::BlipPlugin,
                object::ObjectPlugin,
                script::WorldScriptPlugin,
                edit::EditPlugin,
            ));
    }
}
